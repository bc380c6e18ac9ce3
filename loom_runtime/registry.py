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
to the codeHash of the manifest's current version of that id, after checking that the live files
are the ones the manifest was built from (:mod:`loom_runtime.live_binding`).

Re-registering a flow id replaces the version with the same codeHash and makes the newest
registration current; live versions with other codeHashes stay resolvable, which is how a test
simulates a deploy (register v1, start, register v2, resume) in one process. Live versions without
a fingerprint are keyed by their structural hash instead.

Modules: :mod:`loom_runtime.versions` (``FlowVersion``), :mod:`loom_runtime.resolution` (the
index and ``resolve``), :mod:`loom_runtime.live_binding` (stale-manifest checks),
:mod:`loom_runtime.packaging` (a wheel's bundle on disk); this one holds the registry itself.

Rejected alternatives: computing the live fingerprint at import (it needs libcst, which the runtime
must not import); loading every chunk eagerly at ``from_manifest`` (a bundle carries many versions
and most are never resumed); checking every manifest entry at start (on a 10,000-version bundle it
costs several times the JSON parse); a per-call cache of ``resolve`` results (see
:mod:`loom_runtime.resolution`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import chunk_finder
from .chunks import chunk_module_name, load_chunk, read_verified_chunk
from .definition import FlowDefinition
from .errors import FlowNotFoundError, FlowRemovedError, ManifestError
from .hashing import flow_content_hash, legacy_flow_content_hash
from .live_binding import LiveBinding, StaleManifestWarning
from .manifest import FlowEntry, ManifestDocument, VersionEntry
from .packaging import PACKAGE_MANIFEST_DIR, PACKAGE_MANIFEST_NAME, package_manifest
from .resolution import FlowSlot, resolve, version_key
from .versions import CHUNK, LIVE, DefinitionSource, FlowVersion

__all__ = ["PACKAGE_MANIFEST_DIR", "PACKAGE_MANIFEST_NAME", "FlowVersion", "Registry", "StaleManifestWarning"]


class Registry:
    """Versions of flows this process can serve, pinned by hash (D2)."""

    def __init__(self, *, strict: bool = False, on_warn: Callable[[str], None] | None = None) -> None:
        self.strict = strict
        self._on_warn = on_warn
        self._flows: dict[str, FlowSlot] = {}
        self._document: ManifestDocument | None = None
        self._pending: set[str] = set()  # flow ids the manifest lists that no lookup has parsed yet
        self._entries: dict[str, FlowEntry] = {}  # parsed manifest entries, by flow id
        self._manifest_path: str | None = None
        self._manifest_dir: Path | None = None
        self._lock = threading.RLock()
        self._binding = LiveBinding(None, strict=strict, on_warn=on_warn)

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
        """The bundle shipped inside an installed package: ``<package>/_loom/manifest.json``
        (see :mod:`loom_runtime.packaging`)."""
        reg = cls(strict=strict, on_warn=on_warn)
        reg.add_manifest(package_manifest(package, reg))
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
            self._binding.manifest_path = document.path
            # Absolute now: a later chdir must not move where chunks are looked for.
            self._manifest_dir = Path(os.path.abspath(path)).parent
            self._pending = set(document.flows)
        chunk_finder.serve(self)  # a value an earlier process's chunk pickled names its chunk module

    def verify(self, *, chunks: bool = False) -> None:
        """Check every flow's manifest entry now; with ``chunks=True`` also every chunk's containment
        and digest (reading, never executing, them). Raises the first ``ManifestError``."""
        for flow_id in sorted(self._pending):
            self._materialize(flow_id)
        if chunks and self._manifest_dir is not None:
            for flow_id, entry in sorted(self._entries.items()):
                for ve in entry.versions.values():
                    read_verified_chunk(self._manifest_dir, ve, flow_id=flow_id, manifest_path=self._manifest_path or "")

    def _materialize(self, flow_id: str) -> FlowSlot | None:
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
            slot = FlowSlot(flow_id)
        has_live = any(v.origin == LIVE for v in slot.versions.values())
        for code_hash, ve in entry.versions.items():
            v = self._chunk_version(flow_id, ve)
            key = version_key(code_hash, v.flow_hash)
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
            _code=DefinitionSource(None, load),
        )

    def chunk_by_name(self, name: str) -> Callable[[], Any] | None:
        """The loader of the manifest's chunk registered as ``name`` (``chunks.chunk_module_name``),
        for ``chunk_finder``: unpickling a value that chunk's code pickled in an earlier process.
        None if the manifest lists no chunk of that name. Only flows whose id the name spells
        are parsed; the chunk loads through the same checks as ``FlowVersion.definition``."""
        if self._document is None:
            return None
        leaf = name.rpartition(".")[2]
        for flow_id in self.flow_ids():
            if not leaf.startswith(chunk_module_name(flow_id, "").rpartition(".")[2][: -len("nofp")]):
                continue
            self._materialize(flow_id)
            entry = self._entries.get(flow_id)
            for ve in entry.versions.values() if entry is not None else ():
                if chunk_module_name(flow_id, ve.code_hash) == name:
                    # the slot's version when it is the chunk (its definition is cached there);
                    # a version this process serves live still decodes into its chunk's classes
                    slot = self._flows.get(flow_id)
                    served = slot.versions.get(version_key(ve.code_hash, ve.flow_hash)) if slot is not None else None
                    version = served if served is not None and served.origin == CHUNK else self._chunk_version(flow_id, ve)
                    return lambda: version.definition
        return None

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
                _code=DefinitionSource(defn),
            )
            slot = self._flows.get(defn.id)
            if slot is None:
                slot = self._flows[defn.id] = FlowSlot(defn.id)
            key = version_key(code_hash, fh)
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
        return self._binding.bind(defn, fn, structure, self._entries.get(defn.id))

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

    def _slot(self, flow_id: str) -> FlowSlot:
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
        return resolve(
            slot, flow_hash=flow_hash, code_hash=code_hash, allow_code_mismatch=allow_code_mismatch,
            execution_id=execution_id, server=self._server(slot),
        )

    def _server(self, slot: FlowSlot) -> str:
        """Who serves ``slot`` in a message: a process that registered live code, or only a build
        (``loom deploy-check`` reads a manifest; "this process" would name the CLI)."""
        if self._manifest_path is None or any(v.origin == "live" for v in slot.index.ordered):
            return "this process"
        return f"the build {self._manifest_path}"
