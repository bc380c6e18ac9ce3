"""Open a per-version chunk safely and execute it under a private module name.

A chunk is one UTF-8 Python file written by ``loom build`` beside the manifest (``chunks/…``). It
holds one version of a flow and its bundled first-party closure, so two versions of one flow can
live in one interpreter. Loading is three steps, in this order, and nothing of the chunk runs before
the first two passed:

1. **Containment.** ``VersionEntry.chunk`` must be a relative POSIX path whose real location
   (symlinks resolved) stays under the real manifest directory. ``..``, absolute paths, drive
   letters, backslashes and symlinks pointing out are refused with ``ManifestError``.
2. **Integrity.** ``sha256(bytes) == chunkDigest``, over the exact bytes that are then compiled
   (read once; no second read an attacker could swap a file between), else ``ChunkIntegrityError``.
3. **Execution** under a fresh private module ``_loom_chunks.<slug>_<first 16 hex of codeHash>``
   registered in ``sys.modules`` (dataclasses, pickling and ``inspect`` need their module to be
   findable), compiled with the chunk's path as filename so tracebacks point at the chunk. A chunk
   of the ``loom-chunk/2`` layout (``chunk_layout``) holds each bundled module's statements; they
   run in module objects of their own below that private module (``chunk_modules``), named as the
   originals and registered only under private names. A chunk of the earlier one-namespace layout
   (the previous release's manifests) is executed as that one module, as it always was.
   A failure at any point leaves nothing of the chunk in ``sys.modules``.

4. **The entry is the chunk's own.** ``entry`` must name a function the chunk's bytes compiled
   (``__code__.co_filename`` is the chunk's path and its globals a module the chunk made), reached
   only through modules and classes the chunk defines: an edited ``entry`` naming something the
   chunk imports (``shop.flows.checkout`` of the one-namespace layout, whose chunk imports ``shop``
   for its steps; ``shop.steps.charge`` of the new one, ``shop.steps`` being live) would otherwise
   serve a pinned execution on the live code while ``chunkDigest`` still matched. A wrapper a
   framework's decorator put around the chunk's function (``functools.wraps``: ``__wrapped__``)
   is followed to that function.

Rejected alternatives: a ``sys.meta_path`` finder that makes chunk files importable by name (it
would let *any* code import an unverified chunk, and its module names would collide with the live
package; ``chunk_finder`` serves only the private names of chunks a ``Registry`` lists, through
these same checks, for pickle); ``importlib.util.spec_from_file_location`` (it re-reads the file after we verified it);
loading the chunk under its original module name (it would shadow the live module of the current
version).
"""

from __future__ import annotations

import os
import re
import sys
import threading
import types
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from . import chunk_layout
from .chunk_modules import run_modules
from .definition import FlowDefinition
from .errors import ChunkIntegrityError, ManifestError
from .hashing import sha256_digest
from .manifest import VersionEntry

__all__ = ["CHUNK_NAMESPACE", "chunk_module_name", "load_chunk", "namespace", "read_verified_chunk", "resolve_chunk_path"]

#: The namespace package every chunk module lives under; never a real package on disk.
CHUNK_NAMESPACE = "_loom_chunks"

_SLUG_RE = re.compile(r"[^0-9A-Za-z_]+")
# Executing a module is not reentrant-safe per name; one lock keeps two threads from racing the
# first load of the same version (the loser would otherwise execute the chunk a second time).
_LOAD_LOCK = threading.RLock()


def chunk_module_name(flow_id: str, code_hash: str) -> str:
    """``_loom_chunks.<slug>_<16 hex>``: readable in tracebacks, distinct per flow and version."""
    slug = _SLUG_RE.sub("_", flow_id).strip("_") or "flow"
    if slug[0].isdigit():
        slug = "f" + slug
    hex_part = code_hash.partition(":")[2][:16] or "nofp"
    return f"{CHUNK_NAMESPACE}.{slug}_{hex_part}"


def resolve_chunk_path(manifest_dir: Path, entry: VersionEntry, *, flow_id: str, manifest_path: str) -> Path:
    """The chunk's real path, or ``ManifestError`` if it is not contained in ``manifest_dir``."""
    rel = entry.chunk

    def refuse(why: str) -> ManifestError:
        return ManifestError(
            f"{manifest_path}: flow `{flow_id}` version {entry.code_hash}: chunk path {rel!r} {why}; "
            "a chunk must be a relative path inside the manifest's directory. Rebuild with `loom build` "
            "and do not edit the manifest by hand",
            path=manifest_path,
            flow_id=flow_id,
            key=f"flows.{flow_id}.versions.{entry.code_hash}.chunk",
        )

    if not rel or "\\" in rel or "\x00" in rel:
        raise refuse("is empty or holds a backslash or NUL")
    pure = PurePosixPath(rel)
    if pure.is_absolute() or re.match(r"^[A-Za-z]:", rel):
        raise refuse("is absolute")
    if ".." in pure.parts:
        raise refuse("climbs out with `..`")
    root = Path(os.path.realpath(manifest_dir))
    real = Path(os.path.realpath(root.joinpath(*pure.parts)))
    # realpath follows every symlink on the way, so a link inside chunks/ that points elsewhere
    # shows up here as a path outside the root.
    if real != root and root not in real.parents:
        raise refuse(f"resolves outside the manifest directory (to {real})")
    return real


def read_verified_chunk(manifest_dir: Path, entry: VersionEntry, *, flow_id: str, manifest_path: str) -> tuple[Path, bytes]:
    """Contained path and bytes whose sha256 equals ``chunkDigest``; nothing is executed."""
    path = resolve_chunk_path(manifest_dir, entry, flow_id=flow_id, manifest_path=manifest_path)
    key = f"flows.{flow_id}.versions.{entry.code_hash}.chunk"
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ManifestError(
            f"{path}: cannot read the chunk of flow `{flow_id}` version {entry.code_hash} ({exc.strerror}); "
            f"ship the chunks/ directory next to {manifest_path} (rebuild with `loom build`)",
            path=str(path),
            flow_id=flow_id,
            key=key,
        ) from None
    actual = sha256_digest(data)
    if actual != entry.chunk_digest:
        raise ChunkIntegrityError(
            f"{path}: chunk of flow `{flow_id}` version {entry.code_hash} does not match the manifest "
            f"(chunkDigest {entry.chunk_digest}, file is {actual}); it was not executed. "
            "The chunk was edited or corrupted: rebuild with `loom build` and ship manifest and chunks together",
            path=str(path),
            flow_id=flow_id,
            key=key,
        )
    return path, data


def load_chunk(manifest_dir: Path, entry: VersionEntry, *, flow_id: str, manifest_path: str) -> FlowDefinition:
    """Verify, execute and return the chunk's flow definition (``code_fingerprint`` = its codeHash)."""
    path, data = read_verified_chunk(manifest_dir, entry, flow_id=flow_id, manifest_path=manifest_path)
    with _LOAD_LOCK:
        module = _execute(path, data, entry, flow_id=flow_id)
    fn = _entry_attr(module, entry.entry, path=path, flow_id=flow_id, code_hash=entry.code_hash)
    defn = getattr(fn, "__loom_flow__", None)
    if not isinstance(defn, FlowDefinition):
        raise ManifestError(
            f"{path}: entry `{entry.entry}` of the chunk for flow `{flow_id}` is not decorated with @flow; "
            "rebuild with `loom build`",
            path=str(path),
            flow_id=flow_id,
            key=f"flows.{flow_id}.versions.{entry.code_hash}.entry",
        )
    if defn.id != flow_id:
        raise ManifestError(
            f"{path}: the chunk listed for flow `{flow_id}` declares flow `{defn.id}`; "
            "the manifest and its chunks are out of step, rebuild with `loom build`",
            path=str(path),
            flow_id=flow_id,
            key=f"flows.{flow_id}.versions.{entry.code_hash}.entry",
        )
    return defn.with_fingerprint(entry.code_hash)


def namespace() -> types.ModuleType:
    """The ``_loom_chunks`` package every chunk module is registered below (made on first use)."""
    ns = sys.modules.get(CHUNK_NAMESPACE)
    if ns is None:
        ns = types.ModuleType(CHUNK_NAMESPACE, "Chunks loaded by loom_runtime.registry (one module per flow version).")
        ns.__path__ = []  # a package, so `_loom_chunks.x` names are legal; empty: nothing is importable from disk
        ns.__package__ = CHUNK_NAMESPACE
        sys.modules[CHUNK_NAMESPACE] = ns
    return ns


def _execute(path: Path, data: bytes, entry: VersionEntry, *, flow_id: str) -> types.ModuleType:
    name = chunk_module_name(flow_id, entry.code_hash)
    existing = sys.modules.get(name)
    if existing is not None:
        if getattr(existing, "__loom_chunk_digest__", None) == entry.chunk_digest:
            # The same bytes were already executed (another Registry over the same bundle).
            return existing
        # Same flow and codeHash, different bytes (two bundles built differently): keep both apart.
        name = f"{name}_{entry.chunk_digest.partition(':')[2][:8]}"
        existing = sys.modules.get(name)
        if existing is not None and getattr(existing, "__loom_chunk_digest__", None) == entry.chunk_digest:
            return existing

    def refuse(why: str, line: int | None = None, offset: int | None = None) -> ManifestError:
        where = f"{path}:{line}:{offset}" if line is not None else str(path)
        return ManifestError(f"{where}: the chunk of flow `{flow_id}` {why}; rebuild with `loom build` "
                             "using a Python this runtime supports", path=str(path), flow_id=flow_id)

    try:
        text = data.decode("utf-8")
        layout = chunk_layout.parse(text)
    except UnicodeDecodeError as exc:
        raise refuse(f"is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except chunk_layout.ChunkLayoutError as exc:
        raise refuse(f"has a malformed header ({exc})", exc.line, 1) from None
    ns = namespace()
    module = types.ModuleType(name, None)
    module.__file__ = str(path)
    module.__package__ = CHUNK_NAMESPACE
    module.__loom_chunk_digest__ = entry.chunk_digest  # type: ignore[attr-defined]
    module.__loom_code_hash__ = entry.code_hash  # type: ignore[attr-defined]
    registered = [name]
    try:
        if layout is None:
            try:
                code = compile(data, str(path), "exec", dont_inherit=True)
            except SyntaxError as exc:
                raise refuse(f"is not valid Python ({exc.msg})", exc.lineno, exc.offset) from None
            sys.modules[name] = module
            exec(code, module.__dict__)
        else:
            module.__path__ = []  # type: ignore[attr-defined]  # holds the bundled top-level packages
            module.__package__ = name
            sys.modules[name] = module
            try:
                bundled = run_modules(module, layout, text, path, registered)
            except SyntaxError as exc:
                raise refuse(f"is not valid Python ({exc.msg})", exc.lineno, exc.offset) from None
            module.__loom_modules__ = bundled  # type: ignore[attr-defined]
    except BaseException as exc:
        # A half-executed chunk must not be found by the next attempt, nor any module of it.
        for key in registered:
            sys.modules.pop(key, None)
        if isinstance(exc, ManifestError) or not isinstance(exc, Exception):
            raise
        raise ManifestError(
            f"{path}: executing the chunk of flow `{flow_id}` version {entry.code_hash} failed "
            f"({type(exc).__name__}: {exc}); install what it imports, or rebuild with `loom build`",
            path=str(path),
            flow_id=flow_id,
        ) from exc
    setattr(ns, name.rpartition(".")[2], module)
    return module


def _entry_attr(module: types.ModuleType, dotted: str, *, path: Path, flow_id: str, code_hash: str) -> Callable[..., Any]:
    """The object ``dotted`` names *inside* the chunk: every step of the path a module the chunk
    made (its bundled modules, ``shop.flows`` of ``shop.flows.checkout``) or a class the chunk
    defines, the last one a flow whose function the chunk's own bytes compiled into one of those
    modules. A path through an import (a live module: ``shop.flows.checkout`` of a one-namespace
    chunk, which imports ``shop`` for its steps) would reach live code and serve a pinned
    execution on it while ``chunkDigest`` still matched."""
    key = f"flows.{flow_id}.versions.{code_hash}.entry"

    def refuse(why: str) -> ManifestError:
        return ManifestError(
            f"{path}: entry `{dotted}` of the chunk for flow `{flow_id}` {why}; the entry must name the flow "
            "function the chunk defines. Rebuild with `loom build` and do not edit the manifest by hand",
            path=str(path), flow_id=flow_id, key=key,
        )

    own = [module, *getattr(module, "__loom_modules__", {}).values()]
    own_modules = {id(m) for m in own}
    own_globals = {id(m.__dict__) for m in own}
    # a class the chunk defines has its module's ``__name__`` (a class made at run time) or
    # its private ``__module__`` (``chunk_names.adopt_definitions``)
    own_names = {id(m.__name__) for m in own} | {
        id(private) for m in own if (private := getattr(m.__name__, "private", None)) is not None}

    def defined_here(cls: type) -> bool:
        return id(cls.__module__) in own_names or cls.__module__ == module.__name__

    obj: Any = module
    parts = dotted.split(".")
    for i, part in enumerate(parts):
        if i and not (isinstance(obj, types.ModuleType) or isinstance(obj, type) and defined_here(obj)):
            raise refuse(f"goes through `{'.'.join(parts[:i])}`, which is not a class defined in the chunk")
        try:
            obj = obj.__dict__[part] if i == 0 else getattr(obj, part)
        except (KeyError, AttributeError):
            raise ManifestError(
                f"{path}: the chunk of flow `{flow_id}` has no entry `{dotted}`; rebuild with `loom build`",
                path=str(path),
                flow_id=flow_id,
                key=key,
            ) from None
        if isinstance(obj, types.ModuleType) and id(obj) not in own_modules:
            raise refuse(f"goes through the module `{obj.__name__}`, which the chunk imports (live code)")
    defn = getattr(obj, "__loom_flow__", None)
    fn = defn.fn if isinstance(defn, FlowDefinition) and defn.fn is not None else obj
    # the file the module was compiled from: a module reused for the same bytes of another
    # bundle (``_execute``) keeps the first bundle's path
    compiled_from = getattr(module, "__file__", None) or str(path)

    def compiled_here(f: Any) -> bool:
        code = getattr(f, "__code__", None)
        return id(getattr(f, "__globals__", None)) in own_globals and code is not None and code.co_filename == compiled_from

    # a framework's decorator (``@DBOS.workflow()``) returns its own wrapper around the flow
    # (``functools.wraps``): the function it wraps must be the chunk's
    seen: set[int] = set()
    while not compiled_here(fn) and getattr(fn, "__wrapped__", None) is not None and id(fn) not in seen:
        seen.add(id(fn))
        fn = fn.__wrapped__
    code = getattr(fn, "__code__", None)
    if not compiled_here(fn):
        where = getattr(code, "co_filename", None) or getattr(fn, "__module__", "?")
        raise refuse(f"is not defined in the chunk (its code comes from {where})")
    return obj
