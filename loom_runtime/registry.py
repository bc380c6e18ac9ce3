"""D2: the code-by-hash registry. Several versions per flow id, resolved by the recorded hashes.

A ``Registry`` holds, per flow id, the versions this process can serve: the *live* definitions
registered with ``register(fn)`` and the *chunk* versions a ``loom build`` manifest lists. One of
them is current (what new starts use). ``resolve`` picks the version an execution resumes on from
the hashes it recorded at start (DESIGN §5, ADR-0113 D2 and implementation note 7):

1. **Structure first.** A recorded ``flowHash`` (``sha256:`` or legacy ``fnv1a:``) keeps only the
   versions with that structure; none left is ``FlowCodeMismatchError(kind="structure")``. No
   recording keeps all.
2. **Then code**, among those: a version that lists the recorded codeHash in ``rehashedFrom``
   (the same code, fingerprinted again under a later scheme: see below); else the version whose
   codeHash *is* the recorded one (the execution is pinned to it); else the current version if it has no fingerprint or lists the recorded codeHash
   in ``compatible_with``; else another version without a fingerprint (absent compares as equal);
   else ``FlowCodeMismatchError(kind="code")`` with the three ways out. A recording without a
   codeHash takes the current version (or, if the structure excludes it, the most recent match).
   ``allow_code_mismatch=True`` skips step 2's refusal and takes the current version (or the most
   recent structural match).

**Scheme upgrades: the new entry serves.** After a rebuild under a new fingerprint scheme
(``loom_compiler.bundle.rehash``), an execution that recorded an fp/1 hash ``h1`` finds two
versions of exactly the same code: the fp/1 entry ``h1`` (its chunk, emitted by the fp/1 bundler)
and the fp/2 entry ``h2`` with ``rehashedFrom: [h1]`` (live code, or a chunk emitted by the fp/2
bundler). It is served by ``h2``. Both are built from the same bytes, but the fp/1 chunk carries
only what fp/1's closure reached: the routes fp/1 missed (a module-level ``CFG["a"] = 2``, an
import inside a helper's body) are not in it, so loading it re-runs none of the former and
resolves the latter against whatever *live* module is installed at that time, which a later
release may have edited. The fp/2 entry was linked only because every module its (wider, sound)
closure reaches is byte-identical to what the fp/1 build recorded, and its chunk bundles all of
them, so it is the faithful copy of the code the execution started on; for the current version
it is the live code itself, verified against its own ``closureSources``. The link is checked
again here: the serving version must have the recorded flowHash. The fp/1 entry stays in the
manifest (``loom gc`` keeps a version any execution recorded by value, so a runtime that predates
``rehashedFrom`` still finds it) and still serves an execution whose hash no version rehashes.
Rejected: the exact pin first (it would serve the lossy fp/1 chunk whenever it exists, which after
a cumulative build is always) and treating ``rehashedFrom`` like ``compatible_with`` on the
current version only (an upgraded version that is no longer current would stop serving).

Everything ``resolve`` needs (hashes, ``compatibleWith``, ``rehashedFrom``) is in the manifest, so resolving never
loads a chunk; a chunk is verified and executed on the first access to ``FlowVersion.definition``
or ``runner()`` (see ``loom_runtime.chunks``). Indexes are rebuilt on ``register`` (rare) so that
``resolve`` (every start and resume) is a few dictionary lookups. A manifest's schema and top level
are checked when it is added; each flow's entry is checked (and refused, naming file, flow and key)
on that flow's first lookup, because a bundle may list thousands of versions of which a process
resumes few; ``verify()`` checks every entry, and optionally every chunk digest, at once.

**Live code and the manifest.** ``register(fn)`` binds a live flow without ``code_fingerprint=``
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

Re-registering a flow id replaces the version with the same codeHash and makes the newest
registration current; live versions with other codeHashes stay resolvable, which is how a test
simulates a deploy (register v1, start, register v2, resume) in one process. Live versions without
a fingerprint are keyed by their structural hash instead.

Rejected alternatives: computing the live fingerprint at import (it needs libcst, which the runtime
must not import); loading every chunk eagerly at ``from_manifest`` (a bundle carries many versions
and most are never resumed); checking every manifest entry at start (on a 10,000-version bundle it
costs several times the JSON parse); a per-call cache of ``resolve`` results (the indexes already make a call
a handful of dict lookups, and a cache would need invalidation on ``register``).
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
import threading
import warnings
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Union

from .chunks import load_chunk, read_verified_chunk
from .definition import FlowDefinition, StepFamily
from .errors import (
    FlowCodeMismatchError,
    FlowDefinitionError,
    FlowNotFoundError,
    FlowRemovedError,
    ManifestError,
    StaleManifestError,
)
from .hashing import flow_content_hash, legacy_flow_content_hash, sha256_digest
from .manifest import FlowEntry, ManifestDocument, VersionEntry

__all__ = ["PACKAGE_MANIFEST_DIR", "PACKAGE_MANIFEST_NAME", "FlowVersion", "Registry", "StaleManifestWarning"]

#: Where a wheel carries its bundle: ``<pkg>/_loom/manifest.json`` and ``<pkg>/_loom/chunks/…``.
#: The packaging hook writes there; ``Registry.from_package`` reads there.
PACKAGE_MANIFEST_DIR = "_loom"
PACKAGE_MANIFEST_NAME = "manifest.json"

LIVE = "live"
CHUNK = "chunk"


class StaleManifestWarning(UserWarning):
    """The live source of a flow differs from what the manifest was built from."""


class _DefinitionSource:
    """The (possibly not yet loaded) definition behind one version; shared by its FlowVersion copies."""

    __slots__ = ("_definition", "_loader", "_lock")

    def __init__(self, definition: FlowDefinition | None, loader: Callable[[], FlowDefinition] | None = None) -> None:
        self._definition = definition
        self._loader = loader
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._definition is not None

    def get(self) -> FlowDefinition:
        defn = self._definition
        if defn is not None:
            return defn
        with self._lock:
            if self._definition is None:
                assert self._loader is not None
                self._definition = self._loader()
                self._loader = None
            return self._definition


@dataclass(frozen=True, slots=True)
class FlowVersion:
    """One servable version of a flow. Hashes and declared metadata are known without loading code."""

    flow_id: str
    code_hash: str | None  # None: no fingerprint known
    flow_hash: str  # sha256: form
    legacy_flow_hash: str  # fnv1a: form
    origin: str  # "live" | "chunk"
    is_current: bool
    version: int = 1
    steps: tuple[str, ...] = ()
    step_families: tuple[StepFamily, ...] = ()
    compatible_with: tuple[str, ...] = ()
    #: earlier-scheme codeHashes of exactly this code (the manifest's ``rehashedFrom``)
    rehashed_from: tuple[str, ...] = ()
    _code: _DefinitionSource = field(default=None, repr=False, compare=False)  # type: ignore[assignment]

    @property
    def definition(self) -> FlowDefinition:
        """The definition, ``code_fingerprint`` = ``code_hash``. A chunk version loads on first access."""
        if self._code is None:
            raise FlowDefinitionError(
                f"flow `{self.flow_id}`: this FlowVersion was built by hand and carries no code; "
                "get versions from a Registry (register, versions, resolve)"
            )
        return self._code.get()

    @property
    def loaded(self) -> bool:
        """Whether the code of this version is in the process (always true for live versions)."""
        return self._code is not None and self._code.loaded

    def runner(self) -> Callable[..., Any]:
        """The flow function of this version (loads its chunk lazily)."""
        fn = self.definition.fn
        if fn is None:
            raise FlowDefinitionError(
                f"flow `{self.flow_id}` version {self.code_hash or self.flow_hash} was registered as a bare "
                "definition without a function; register the decorated function instead"
            )
        return fn

    def matches_flow_hash(self, recorded: str | None) -> bool:
        """``flow_hash_matches`` without the definition: either recorded form, absent matches."""
        return not recorded or recorded == self.flow_hash or recorded == self.legacy_flow_hash


_Key = Union[str, tuple[str, str]]


def _key(code_hash: str | None, flow_hash: str) -> _Key:
    return code_hash if code_hash is not None else ("no-fingerprint", flow_hash)


class _Index:
    """What ``resolve`` reads for one flow id. Immutable once built: ``register`` builds a new one
    and swaps it in with one assignment, so a lock-free ``resolve`` never sees half an update."""

    __slots__ = ("ordered", "current", "by_code", "by_rehash", "by_flow_hash")

    def __init__(self, versions: dict[_Key, FlowVersion], current_key: _Key | None) -> None:
        current = versions.get(current_key) if current_key is not None else None
        rest = [v for k, v in reversed(versions.items()) if k != current_key]
        ordered = ([current] if current is not None else []) + rest
        self.ordered: tuple[FlowVersion, ...] = tuple(ordered)  # current first, then most recent first
        self.current: FlowVersion | None = current
        self.by_code: dict[str, FlowVersion] = {v.code_hash: v for v in ordered if v.code_hash is not None}
        # earlier-scheme hash -> the versions that rehash it, in ``ordered`` order (current first)
        by_rehash: dict[str, list[FlowVersion]] = {}
        for v in ordered:
            for h in v.rehashed_from:
                by_rehash.setdefault(h, []).append(v)
        self.by_rehash: dict[str, tuple[FlowVersion, ...]] = {h: tuple(vs) for h, vs in by_rehash.items()}
        by_fh: dict[str, list[FlowVersion]] = {}
        for v in ordered:
            by_fh.setdefault(v.flow_hash, []).append(v)
            if v.legacy_flow_hash != v.flow_hash:
                by_fh.setdefault(v.legacy_flow_hash, []).append(v)
        self.by_flow_hash: dict[str, tuple[FlowVersion, ...]] = {h: tuple(vs) for h, vs in by_fh.items()}


class _FlowSlot:
    """The versions of one flow id (changed under the registry lock) and their current index."""

    __slots__ = ("flow_id", "versions", "current_key", "index")

    def __init__(self, flow_id: str) -> None:
        self.flow_id = flow_id
        self.versions: dict[_Key, FlowVersion] = {}  # insertion order: oldest first
        self.current_key: _Key | None = None
        self.index = _Index({}, None)

    def put(self, key: _Key, version: FlowVersion, *, make_current: bool) -> None:
        self.versions.pop(key, None)  # re-insert at the end: the newest registration
        self.versions[key] = version
        if make_current or self.current_key is None:
            self.current_key = key
        self.reindex()

    def reindex(self) -> None:
        cur = self.current_key
        # FlowVersion is frozen: a version whose is_current flips is replaced by a copy (sharing its
        # loaded code), so a FlowVersion a caller holds is a snapshot; current() is the truth.
        self.versions = {
            k: (v if v.is_current == (k == cur) else replace(v, is_current=(k == cur))) for k, v in self.versions.items()
        }
        self.index = _Index(self.versions, cur)


class Registry:
    """Versions of flows this process can serve, pinned by hash (D2)."""

    def __init__(self, *, strict: bool = False, on_warn: Callable[[str], None] | None = None) -> None:
        self.strict = strict
        self._on_warn = on_warn
        self._flows: dict[str, _FlowSlot] = {}
        self._document: ManifestDocument | None = None
        self._pending: set[str] = set()  # flow ids the manifest lists that no lookup has parsed yet
        self._entries: dict[str, FlowEntry] = {}  # parsed manifest entries, by flow id
        self._manifest_path: str | None = None
        self._manifest_dir: Path | None = None
        self._lock = threading.RLock()
        self._file_digests: dict[str, str] = {}  # path -> sha256 of its bytes (one read per file)
        self._module_files: dict[str, str] = {}  # module name -> its located source file

    @property
    def manifest_path(self) -> str | None:
        """The manifest this registry serves, if any."""
        return self._manifest_path

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def from_manifest(
        cls, path: str | os.PathLike[str], *, strict: bool = False, on_warn: Callable[[str], None] | None = None
    ) -> Registry:
        """A registry serving every version ``path`` (a ``loom build`` manifest) lists."""
        reg = cls(strict=strict, on_warn=on_warn)
        reg.add_manifest(path)
        return reg

    @classmethod
    def from_package(
        cls, package: str, *, strict: bool = False, on_warn: Callable[[str], None] | None = None
    ) -> Registry:
        """The bundle shipped inside an installed package: ``<package>/_loom/manifest.json``.

        Located through ``importlib.resources`` so it works wherever the package is installed. A
        bundle that is not a directory on disk (a package imported from a zip) is copied to a private
        temporary directory, removed when the registry is collected, so that chunk containment and
        digests are checked on real files exactly as for an unpacked install.
        """
        # Imported here, not at module level: importlib.resources pulls in tempfile, shutil, bz2 and
        # lzma (~5 ms of `import loom_runtime`), and only a service reading a packaged bundle needs it.
        import importlib.resources

        try:
            root = importlib.resources.files(package)
        except ModuleNotFoundError:
            raise ManifestError(
                f"package `{package}` is not importable, so its loom manifest cannot be found; install it",
                path=None,
            ) from None
        bundle = root.joinpath(PACKAGE_MANIFEST_DIR)
        where = f"{package}/{PACKAGE_MANIFEST_DIR}/{PACKAGE_MANIFEST_NAME}"
        if not bundle.joinpath(PACKAGE_MANIFEST_NAME).is_file():
            raise ManifestError(
                f"{where}: package `{package}` ships no loom manifest; build the wheel with the loom build hook "
                "(or run `loom build` and copy build/loom/ there)",
                path=where,
            )
        reg = cls(strict=strict, on_warn=on_warn)
        if isinstance(bundle, Path):
            directory = bundle
        else:
            import shutil
            import tempfile

            directory = Path(tempfile.mkdtemp(prefix=f"loom-bundle-{package}-"))
            weakref.finalize(reg, shutil.rmtree, directory, True)
            try:
                _copy_tree(bundle, directory, where)
            except OSError as exc:
                raise ManifestError(
                    f"{where}: cannot extract the bundle of `{package}` ({exc}); install the package unpacked",
                    path=where,
                ) from None
        reg.add_manifest(Path(directory) / PACKAGE_MANIFEST_NAME)
        return reg

    def add_manifest(self, path: str | os.PathLike[str]) -> None:
        """Serve every version a manifest lists (its ``current`` is current unless live code is).

        The schema and top level are checked now; each flow's entry is checked on that flow's first
        lookup (``verify()`` checks them all at once, e.g. in a readiness probe).
        """
        document = ManifestDocument.read(path)
        with self._lock:
            if self._document is not None:
                raise ManifestError(
                    f"{path}: this registry already serves {self._manifest_path}; one registry reads one manifest "
                    "(a cumulative `loom build` keeps every version in one file)",
                    path=str(path),
                )
            self._document = document
            self._manifest_path = document.path
            # Absolute now: a later chdir must not move where chunks are looked for.
            self._manifest_dir = Path(os.path.abspath(path)).parent
            self._pending = set(document.flows)

    def verify(self, *, chunks: bool = False) -> None:
        """Check every flow's manifest entry now; with ``chunks=True`` also every chunk's containment
        and digest (reading, never executing, them). Raises the first ``ManifestError``."""
        for flow_id in sorted(self._pending):
            self._materialize(flow_id)
        if chunks and self._manifest_dir is not None:
            for flow_id, entry in sorted(self._entries.items()):
                for ve in entry.versions.values():
                    read_verified_chunk(self._manifest_dir, ve, flow_id=flow_id, manifest_path=self._manifest_path or "")

    def _materialize(self, flow_id: str) -> _FlowSlot | None:
        with self._lock:
            if flow_id in self._pending:
                assert self._document is not None
                entry = self._document.flow(flow_id)  # a ManifestError leaves it pending: it refuses again
                self._pending.discard(flow_id)
                self._entries[flow_id] = entry
                self._add_flow_entry(flow_id, entry)
            return self._flows.get(flow_id)

    def _add_flow_entry(self, flow_id: str, entry: FlowEntry) -> None:
        slot = self._flows.get(flow_id)
        fresh = slot is None
        if slot is None:
            slot = _FlowSlot(flow_id)
        has_live = any(v.origin == LIVE for v in slot.versions.values())
        for code_hash, ve in entry.versions.items():
            v = self._chunk_version(flow_id, ve)
            key = _key(code_hash, v.flow_hash)
            if slot.versions.get(key, v).origin == LIVE:
                continue  # the live code of that version is already here; never shadow it with a chunk
            slot.versions[key] = v
        if not has_live and entry.current is not None and not entry.removed:
            slot.current_key = entry.current
        if slot.versions:
            slot.reindex()
            if fresh:
                self._flows[flow_id] = slot

    def _chunk_version(self, flow_id: str, ve: VersionEntry) -> FlowVersion:
        manifest_dir = self._manifest_dir
        manifest_path = self._manifest_path or "<manifest>"
        assert manifest_dir is not None

        def load() -> FlowDefinition:
            defn = load_chunk(manifest_dir, ve, flow_id=flow_id, manifest_path=manifest_path)
            actual = flow_content_hash(defn)
            if actual != ve.flow_hash:
                raise ManifestError(
                    f"{manifest_path}: flow `{flow_id}` version {ve.code_hash}: its chunk declares structure "
                    f"{actual} but the manifest records flowHash {ve.flow_hash}; rebuild with `loom build`",
                    path=manifest_path,
                    flow_id=flow_id,
                    key=f"flows.{flow_id}.versions.{ve.code_hash}.flowHash",
                )
            return defn

        return FlowVersion(
            flow_id=flow_id,
            code_hash=ve.code_hash,
            flow_hash=ve.flow_hash,
            legacy_flow_hash=ve.legacy_flow_hash,
            origin=CHUNK,
            is_current=False,
            version=ve.version,
            steps=ve.steps,
            step_families=ve.step_families,
            compatible_with=ve.compatible_with,
            rehashed_from=ve.rehashed_from,
            _code=_DefinitionSource(None, load),
        )

    # -- live code ----------------------------------------------------------------------------

    def register(self, fn_or_definition: Callable[..., Any] | FlowDefinition) -> FlowVersion:
        """Register live code; it becomes the current version of its flow id."""
        if isinstance(fn_or_definition, FlowDefinition):
            defn = fn_or_definition
            fn = defn.fn
        else:
            fn = fn_or_definition
            defn = FlowDefinition.from_function(fn)
        with self._lock:
            if defn.id in self._pending:
                self._materialize(defn.id)  # chunk versions first, so live code replaces its own chunk
            fh = flow_content_hash(defn)  # the structure only: binding a fingerprint leaves it as is
            code_hash = defn.code_fingerprint
            if code_hash is None and fn is not None:
                code_hash = self._bind_to_manifest(defn, fn, fh)
            defn = defn.with_fingerprint(code_hash) if code_hash != defn.code_fingerprint else defn
            version = FlowVersion(
                flow_id=defn.id,
                code_hash=code_hash,
                flow_hash=fh,
                legacy_flow_hash=legacy_flow_content_hash(defn),
                origin=LIVE,
                is_current=True,
                version=defn.version,
                steps=defn.steps,
                step_families=defn.step_families,
                compatible_with=defn.compatible_with,
                rehashed_from=self._rehashed_from(defn.id, code_hash),
                _code=_DefinitionSource(defn),
            )
            slot = self._flows.get(defn.id)
            if slot is None:
                slot = self._flows[defn.id] = _FlowSlot(defn.id)
            key = _key(code_hash, fh)
            slot.put(key, version, make_current=True)
            return slot.versions[key]

    def _rehashed_from(self, flow_id: str, code_hash: str | None) -> tuple[str, ...]:
        """What the manifest says this codeHash was rehashed from: live code that replaces its own
        chunk version keeps serving the executions that version would have served."""
        entry = self._entries.get(flow_id)
        ve = entry.versions.get(code_hash) if entry is not None and code_hash is not None else None
        return ve.rehashed_from if ve is not None else ()

    def _bind_to_manifest(self, defn: FlowDefinition, fn: Callable[..., Any], structure: str) -> str | None:
        if self._document is None:
            return None
        entry = self._entries.get(defn.id)
        if entry is None or entry.current is None or entry.removed:
            state = "does not list it" if entry is None else "marks it removed"
            self._stale(defn.id, f"the manifest {self._manifest_path} {state}")
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
                f"{live_file} differs from the {ve.source.path} the manifest {self._manifest_path} was built from "
                f"(sourceDigest {ve.source.source_digest}, live file {digest})",
            )
            return None
        if ve.source.closure_sources:
            problem = self._closure_problem(ve.source.closure_sources)
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

    def _closure_problem(self, closure_sources: Mapping[str, str]) -> str | None:
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
        if closure:
            # Leads with the files that changed: that is what the author must rebuild for.
            message = (
                f"flow `{flow_id}`: {why}; run `loom build` and ship the new manifest "
                f"({self._manifest_path} is stale); until then `{flow_id}` runs without a code fingerprint"
            )
        else:
            message = (
                f"flow `{flow_id}`: the loom manifest is stale: {why}. Run `loom build` and ship the new manifest; "
                f"until then `{flow_id}` runs without a code fingerprint"
            )
        if self.strict:
            raise StaleManifestError(message, path=self._manifest_path, flow_id=flow_id)
        self._warn(message)

    def _warn(self, message: str) -> None:
        if self._on_warn is not None:
            self._on_warn(message)
        else:
            warnings.warn(message, StaleManifestWarning, stacklevel=5)  # the caller of register()

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

    # -- lookup -------------------------------------------------------------------------------

    def flow_ids(self) -> tuple[str, ...]:
        return tuple(sorted(self._pending.union(self._flows)))

    def versions(self, flow_id: str) -> tuple[FlowVersion, ...]:
        """Every servable version: the current one first, then the others, most recently added first."""
        return self._slot(flow_id).index.ordered

    def current(self, flow_id: str) -> FlowVersion:
        """The version new executions of ``flow_id`` start on."""
        index = self._slot(flow_id).index
        if index.current is None:
            available = tuple(v.code_hash or v.flow_hash for v in index.ordered)
            raise FlowRemovedError(flow_id, available=available, manifest=self._manifest_path)
        return index.current

    def __contains__(self, flow_id: object) -> bool:
        return flow_id in self._flows or flow_id in self._pending

    def _slot(self, flow_id: str) -> _FlowSlot:
        slot = self._flows.get(flow_id)
        if slot is None and flow_id in self._pending:
            slot = self._materialize(flow_id)
        if slot is None:
            raise FlowNotFoundError(flow_id, known=self.flow_ids())
        return slot

    def resolve(
        self,
        flow_id: str,
        *,
        flow_hash: str | None = None,
        code_hash: str | None = None,
        allow_code_mismatch: bool = False,
        execution_id: str | None = None,
    ) -> FlowVersion:
        """The version an execution that recorded ``flow_hash``/``code_hash`` resumes on.

        Raises ``FlowNotFoundError`` for an unknown id and ``FlowCodeMismatchError`` (``kind``
        ``"structure"`` or ``"code"``) when no version may serve it. Never loads a chunk.
        """
        slot = self._flows.get(flow_id)
        if slot is None:
            slot = self._slot(flow_id)
        index = slot.index
        if flow_hash:
            candidates = index.by_flow_hash.get(flow_hash)
            if candidates is None:
                raise self._structure_error(slot, flow_hash, execution_id)
        else:
            candidates = index.ordered
        # Candidates are ordered current-first, so candidates[0] is the current version whenever its
        # structure fits, else the most recently added match.
        current = index.current
        if not code_hash:
            return candidates[0]
        for v in index.by_rehash.get(code_hash, ()):
            if not flow_hash or v.matches_flow_hash(flow_hash):
                return v  # the same code under a later scheme (module docstring: the new entry serves)
        pinned = index.by_code.get(code_hash)
        if pinned is not None and (not flow_hash or pinned.matches_flow_hash(flow_hash)):
            return pinned
        for v in candidates:
            if v.code_hash is None or (v is current and code_hash in v.compatible_with):
                return v
        if allow_code_mismatch:
            return candidates[0]
        raise self._code_error(slot, code_hash, execution_id)

    def _structure_error(self, slot: _FlowSlot, recorded: str, execution_id: str | None) -> FlowCodeMismatchError:
        available = tuple(dict.fromkeys(v.flow_hash for v in slot.index.ordered))
        who = f"execution `{execution_id}` of flow" if execution_id else "flow"
        return FlowCodeMismatchError(
            f"{who} `{slot.flow_id}` recorded structural flowHash {recorded}, which no registered version has "
            f"(available: {', '.join(available) or 'none'}). The declared id, version, deadline or steps changed. "
            "Ways out: ship the version that started it (add its release to [tool.loom] history and run "
            "`loom build`), or migrate it with runtime.resume_as(...)",
            kind="structure",
            flow_id=slot.flow_id,
            recorded=recorded,
            available=available,
            execution_id=execution_id,
        )

    def _code_error(self, slot: _FlowSlot, recorded: str, execution_id: str | None) -> FlowCodeMismatchError:
        ordered = slot.index.ordered
        available = tuple(v.code_hash for v in ordered if v.code_hash is not None)
        shown = ", ".join(f"{v.code_hash}{' (current)' if v.is_current else ''}" for v in ordered if v.code_hash is not None)
        who = f"execution `{execution_id}` of flow" if execution_id else "flow"
        return FlowCodeMismatchError(
            f"{who} `{slot.flow_id}` started on codeHash {recorded}, which this process does not serve "
            f"(available: {shown or 'none'}). Ways out: (1) ship the old chunk: add the release that started it to "
            "[tool.loom] history and run `loom build`; (2) if the edit is replay-safe, list it on the current flow: "
            f"@flow(..., compatible_with=[\"{recorded}\"]); (3) migrate it with "
            "runtime.resume_as(execution_id, target, strategy=\"replay-check\")",
            kind="code",
            flow_id=slot.flow_id,
            recorded=recorded,
            available=available,
            execution_id=execution_id,
        )


def _copy_tree(src: Any, dest: Path, where: str) -> None:
    """Copy a ``Traversable`` directory to disk; names that could climb out are refused."""
    for child in src.iterdir():
        name = child.name
        if name in ("", ".", "..") or "/" in name or "\\" in name:
            raise ManifestError(f"{where}: the bundle holds an unsafe file name {name!r}", path=where)
        if child.is_dir():
            (dest / name).mkdir()
            _copy_tree(child, dest / name, where)
        else:
            (dest / name).write_bytes(child.read_bytes())


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
