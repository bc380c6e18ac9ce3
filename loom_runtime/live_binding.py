"""Binding live code to the manifest: which codeHash a live flow may record (D2).

``Registry.register(fn)`` binds a live flow without ``code_fingerprint=``
to the codeHash of the manifest's current version of that id, so the process knows its own
fingerprint without libcst. The binding is checked, because the codeHash covers the whole closure
and an execution recording it must have run exactly that code:

* the flow's own file is ``inspect.getsourcefile(fn)`` (the file Python actually loaded;
  ``source.path`` in the manifest is relative to a project root that an installed service does not
  have, so it is only quoted in messages) and its bytes must hash to ``sourceDigest``;
* every module of ``source.closureSources`` (each first-party module holding a closure member)
  must have a live file whose bytes hash to the recorded digest. A module is located without
  importing it: ``sys.modules[name].__file__`` when it is loaded (the usual case: the flow module
  imported it), else ``importlib.util.find_spec(name)``, which does not execute the module itself
  but does import its parent packages (``find_spec("shop.pricing")`` runs ``shop/__init__.py`` if
  ``shop`` is not imported yet; a flow in ``shop.flows`` has imported it already). A module that
  cannot be located (no spec, no source file, a parent that fails to import) is *stale*, with its
  own message, never silently passed: an unverifiable closure must not borrow the codeHash;
* the live structural hash must equal the version's ``flowHash``.

If any check fails the manifest is stale: a warning (``on_warn``, default ``warnings.warn``) that
names the flow, the changed file(s) and closure module(s) and says "run `loom build`", and the flow
runs *without* a fingerprint rather than under a codeHash that describes other code;
``strict=True`` raises ``StaleManifestError`` instead. A manifest written before
``closureSources`` existed is checked on the flow's own file only, as before. Each distinct file is
read and hashed once per registry (bytes, not path+mtime+size: a checkout or copy can rewrite a
file with the same size and mtime, and a digest of the bytes is what the manifest compares), so
registering many flows that share helpers costs one read per helper file. The check is
conservative by construction: any byte change in a closure module (even to a function outside the
closure) asks for a rebuild, which is cheap, while a missed change would silently record a wrong
codeHash. Not covered: a first-party module that only routes a name (a package ``__init__``
re-exporting a helper) holds no closure member; retargeting such a re-export changes the codeHash,
but only the build (``loom check`` in CI) notices it.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .definition import FlowDefinition
from .errors import StaleManifestError
from .hashing import sha256_digest
from .manifest import FlowEntry

__all__ = ["LiveBinding", "StaleManifestWarning"]


class StaleManifestWarning(UserWarning):
    """The live source of a flow differs from what the manifest was built from."""


class LiveBinding:
    """The checks of one registry's live code against its manifest; caches each file's digest."""

    def __init__(self, manifest_path: str | None, *, strict: bool, on_warn: Callable[[str], None] | None) -> None:
        self.manifest_path = manifest_path
        self.strict = strict
        self._on_warn = on_warn
        self._file_digests: dict[str, str] = {}  # path -> sha256 of its bytes (one read per file)
        self._module_files: dict[str, str] = {}  # module name -> its located source file

    def bind(self, defn: FlowDefinition, fn: Callable[..., Any], structure: str, entry: FlowEntry | None) -> str | None:
        """The codeHash live ``fn`` may record: the manifest's current version of its id when every
        check passes; else ``None`` after a stale warning (``StaleManifestError`` under strict)."""
        if entry is None or entry.current is None or entry.removed:
            state = "does not list it" if entry is None else "marks it removed"
            self._stale(defn.id, f"the manifest {self.manifest_path} {state}")
            return None
        ve = entry.versions[entry.current]
        live_file = _source_file(fn)
        if live_file is None:
            self._stale(defn.id, f"its live source file cannot be located to compare with {ve.source.path}")
            return None
        digest = self._file_digest(live_file)
        if digest is None:
            self._stale(defn.id, f"{live_file} cannot be read to compare with {ve.source.path}")
            return None
        if digest != ve.source.source_digest:
            self._stale(
                defn.id,
                f"{live_file} differs from the {ve.source.path} the manifest {self.manifest_path} was built from "
                f"(sourceDigest {ve.source.source_digest}, live file {digest})",
            )
            return None
        if ve.source.closure_sources:
            problem = self.closure_problem(ve.source.closure_sources)
            if problem is not None:
                self._stale(defn.id, problem, closure=True)
                return None
        if structure != ve.flow_hash:
            self._stale(
                defn.id,
                f"its live declaration has flowHash {structure} but the manifest's current version has {ve.flow_hash}",
            )
            return None
        return ve.code_hash

    def closure_problem(self, closure_sources: Mapping[str, str]) -> str | None:
        """What differs between the closure modules' live files and the manifest, or None."""
        changed: list[tuple[str, str]] = []  # (display path, module)
        missing: list[str] = []
        for module in sorted(closure_sources):
            path, why = self._module_file(module)
            if path is None:
                missing.append(f"closure module `{module}` cannot be located to compare with the manifest ({why})")
                continue
            digest = self._file_digest(path)
            if digest is None:
                missing.append(f"closure module `{module}` cannot be read at {path} to compare with the manifest")
            elif digest != closure_sources[module]:
                changed.append((_display_path(module, path), module))
        parts = []
        if changed:
            files = ", ".join(dict.fromkeys(p for p, _ in changed))
            modules = ", ".join(f"`{m}`" for _, m in changed)
            plural = "s" if len(changed) > 1 else ""
            parts.append(f"{files} changed since the manifest was built (closure module{plural} {modules})")
        parts.extend(missing)
        return "; ".join(parts) or None

    def _module_file(self, module: str) -> tuple[str | None, str]:
        """The path of ``module``'s live source file, or ``(None, why not)``. Never executes the
        module itself; ``find_spec`` of a dotted name imports its parent packages (see docstring)."""
        path = self._module_files.get(module)
        if path is not None:
            return path, ""
        loaded = sys.modules.get(module)
        if loaded is not None:
            origin = getattr(loaded, "__file__", None)
            how = "it is imported but has no __file__"
        else:
            try:
                spec = importlib.util.find_spec(module)
            except Exception as exc:  # a parent package's __init__ may raise anything
                return None, f"looking it up raised {type(exc).__name__}: {exc}"
            if spec is None:
                return None, "no such module on sys.path"
            origin = spec.origin if spec.has_location else None
            how = f"its spec has no source file (origin {spec.origin!r})"
        if not origin or not origin.endswith(".py"):
            # A sourceless (.pyc-only) or extension module: nothing to compare the digest with.
            return None, how if not origin else f"its live file {origin} is not Python source"
        # abspath, not realpath: origins are absolute already, and resolving symlinks costs an lstat
        # per path component (as much as reading the file). A module reached through a symlink is
        # at worst read twice (once under each spelling), never compared wrongly.
        path = os.path.abspath(origin)
        self._module_files[module] = path  # only successes: a later sys.path change may fix a miss
        return path, ""

    def _stale(self, flow_id: str, why: str, *, closure: bool = False) -> None:
        # What happens next depends on strictness: a lenient registry registers the flow without a
        # fingerprint (its executions are then unpinned), a strict one refuses to register it.
        after = (f"registering `{flow_id}` is refused (strict=True)" if self.strict
                 else f"until then `{flow_id}` runs without a code fingerprint (its executions are not pinned)")
        if closure:
            # Leads with the files that changed: that is what the author must rebuild for.
            message = (
                f"flow `{flow_id}`: {why}; run `loom build` and ship the new manifest "
                f"({self.manifest_path} is stale); {after}"
            )
        else:
            message = (
                f"flow `{flow_id}`: the loom manifest is stale: {why}. Run `loom build` and ship the new manifest; "
                f"{after}"
            )
        if self.strict:
            raise StaleManifestError(message, path=self.manifest_path, flow_id=flow_id)
        self._warn(message)

    def _warn(self, message: str) -> None:
        if self._on_warn is not None:
            self._on_warn(message)
        else:
            warnings.warn(message, StaleManifestWarning, stacklevel=6)  # the caller of register()

    def _file_digest(self, path: str) -> str | None:
        digest = self._file_digests.get(path)
        if digest is None:
            try:
                with open(path, "rb") as fh:
                    digest = sha256_digest(fh.read())
            except OSError:
                return None
            self._file_digests[path] = digest
        return digest



def _display_path(module: str, path: str) -> str:
    """``shop/pricing.py`` for module ``shop.pricing`` at ``/srv/app/shop/pricing.py``: the file as
    the author knows it (relative to the import root), whatever the install location."""
    parts = module.count(".") + 1 + (os.path.basename(path) == "__init__.py")
    return "/".join(Path(path).parts[-parts:])


def _source_file(fn: Callable[..., Any]) -> str | None:
    target = inspect.unwrap(fn)
    try:
        path = inspect.getsourcefile(target)
    except TypeError:
        return None
    return os.path.realpath(path) if path else None
