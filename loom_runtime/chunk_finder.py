"""Import a chunk by its private name, for pickle: a value an earlier process's chunk pickled.

A class, enum member or function a chunk defines pickles by its private module name
(``_loom_chunks.checkout_ab12....shop.m``, see ``loom_runtime.chunk_names``), which depends only
on the flow id and the codeHash (``chunks.chunk_module_name``). In the process that pickled it the
chunk is loaded; in a new one (a restart, another worker) it is not until something asks the
registry for that version, and a framework may decode before it asks: DBOS unpickles a workflow's
inputs before it calls the function, and a step's recorded output wherever the replay reads it.

So a ``Registry`` that reads a manifest ``serve``\\s here, and a finder at the end of
``sys.meta_path`` answers for names of the chunk namespace only: ``_loom_chunks`` itself (the
namespace package) and ``_loom_chunks.<slug>_<hex>`` when a serving registry lists a chunk of
that name. Loading goes through the registry's own path (containment, digest, flowHash checked,
then executed once: ``chunks.load_chunk``), so importing a name executes nothing a registry would
not have served; the chunk's bundled modules are then in ``sys.modules`` under their private
names, where the unpickler looks. A name no serving registry lists stays a
``ModuleNotFoundError`` (the chunk was pruned, or this process serves another build): the value
cannot be decoded into the classes that made it, and nothing substitutes the live ones.

Rejected: loading every chunk at ``from_manifest`` (most versions are never resumed); a hook in
the unpickler (frameworks call ``pickle.loads``); serving any chunk file found on disk by name
(chunks.py: only what a manifest pins by digest is ever executed).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
import types
import weakref
from collections.abc import Callable
from typing import Any, Protocol

from .chunks import CHUNK_NAMESPACE, namespace

__all__ = ["ChunkServer", "serve"]


class ChunkServer(Protocol):
    def chunk_by_name(self, name: str) -> Callable[[], Any] | None:
        """The loader of the chunk registered as ``name`` once loaded, or None if not listed."""
        ...


_SERVERS: weakref.WeakSet[Any] = weakref.WeakSet()
_LOCK = threading.Lock()


def serve(server: ChunkServer) -> None:
    """Let imports of chunk names find the chunks ``server`` lists (while it is alive)."""
    with _LOCK:
        _SERVERS.add(server)
        # the namespace registered now (its __path__ empty) and the finder first: otherwise the path
        # finder answers a chunk name in a new process and a stray `_loom_chunks/` on sys.path runs
        namespace()
        if not any(isinstance(f, _ChunkFinder) for f in sys.meta_path):
            sys.meta_path.insert(0, _ChunkFinder())


class _ChunkFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname == CHUNK_NAMESPACE:
            return importlib.machinery.ModuleSpec(fullname, _Loader(namespace), is_package=True)
        head, _, leaf = fullname.partition(".")
        if head != CHUNK_NAMESPACE or not leaf or "." in leaf:
            return None  # a bundled module below a chunk is registered by the chunk's own load
        with _LOCK:
            servers = list(_SERVERS)
        for server in servers:
            load = server.chunk_by_name(fullname)
            if load is not None:
                return importlib.machinery.ModuleSpec(fullname, _Loader(lambda load=load: _loaded(fullname, load)))
        return None


def _loaded(name: str, load: Callable[[], Any]) -> types.ModuleType:
    load()
    module = sys.modules.get(name)
    if module is None:  # loaded under another name (two bundles of the same flow and codeHash)
        raise ImportError(f"the chunk {name} was loaded under another name; load it through the registry first",
                          name=name)
    return module


class _Loader(importlib.abc.Loader):
    """Returns the module the chunk's own loading made; executing it again would run it twice."""

    def __init__(self, make: Callable[[], types.ModuleType]) -> None:
        self._make = make

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return self._make()

    def exec_module(self, module: types.ModuleType) -> None:
        pass
