"""``build_project``: fingerprint the tree (and history refs), emit chunks, merge the manifest.

Stages, per source tree (the working tree, then each history ref):

1. **Scan.** Read every module's bytes once and sha256 them. Only a file that passes the byte
   check ``might_define_flows`` (``@`` and a flow decorator's last name) and then spells that
   name in its code (``spells_a_marker_in_code``: CPython's parser, not libcst) is a flow
   candidate; every other file is parsed only if a closure reaches it.
2. **Flows, incrementally.** A flow module's result (its ``FlowFingerprint`` values, their chunks
   and errors) is cached under the module's own bytes, together with the digests of every module
   its closure computation asked for (recorded by the loader). The entry is reused while all of
   those are unchanged, so an edit to ``pricing.py`` re-fingerprints exactly the flows whose
   closure resolution reached ``pricing.py`` (the first-party import graph, followed lazily), and
   re-parses only ``pricing.py``. Module summaries are cached by content too, so a recomputed
   flow does not re-parse the helpers that did not change. Beside each flow module's entry goes a
   small head entry (``version_facts``: what the manifest needs, and a digest naming the shared
   entry of its dependencies); ``loom build`` reads only heads for unchanged modules
   (``fingerprints=False``) and a full entry only for a chunk its output lacks.
3. **Parallel parsing** (``jobs > 1``, or ``jobs=None``, the default: automatic): the stale flow
   modules and, transitively, the first-party modules they import are analysed in a
   ``ProcessPoolExecutor`` before the closure stage, as one stream (``parse_ahead``: a module is
   sent as soon as it is known, the flow modules while the scan still checks later candidates).
   Serial builds load helpers lazily instead, so they parse only what a closure reaches. Automatic
   means one worker per CPU (at most ``AUTO_MAX_JOBS``, forked: where fork is unavailable, serial)
   once at least ``AUTO_MIN_MODULES`` modules wait to be parsed, else serial: starting workers and shipping summaries
   back costs about as much as parsing a dozen modules, and a no-change or one-edit rebuild parses
   next to nothing. Measured on 2 cores (``benchmarks/bench_build.py``): a cold build of 150
   modules ~1.25x faster with 2 workers when the second core is free, about even when it is busy.
   Then, by the same rule (at least ``AUTO_MIN_MODULES`` stale flow modules, or an explicit
   ``jobs``), the **fingerprint stage** of the stale flow modules (closures, fingerprints, chunks,
   their cache entries) runs in workers forked once the summaries are in (``forked_stage``): they
   inherit the summaries instead of receiving them pickled, and the build merges what each
   returns in the flow modules' order, so every byte written is a serial build's
   (``_Pipeline._fingerprint_forked``). Where fork is unavailable this stage is serial.
4. **Chunks and manifest.** Each version's chunk goes to ``chunks/<slug>/<16 hex>.py``; an
   existing file is never rewritten: if a chunk of the same codeHash already exists with other
   bytes (comments or ``compatible_with`` edited), the new text gets its own file
   ``<16 hex>-<12 hex of its digest>.py``. The manifest is merged cumulatively and written last,
   atomically. If anything failed, nothing at all is written.

**What was read is what is hashed.** A module file the tree lists but cannot read (permissions, a
dangling link, a symlink loop, a directory or FIFO named ``x.py``, deleted since the walk) is a
source error naming it, never an absent module: an unreadable flow module is not "removed", an
unreadable helper is not hashed and bundled as a live import. A FIFO is refused at once, never
waited on. After the working tree is collected, every file read and directory listed is checked
against its signature (``DirectorySourceTree.changed``); if the tree moved meanwhile (a checkout,
an editor's save) the collection is thrown away and done again, and after ``STABLE_ATTEMPTS`` the
build fails naming what kept moving: a hash of a half-seen tree is never emitted.

History refs reuse the same pipeline over a ``GitSourceTree``, analysed with the working tree's
configuration (``packages``, decorators). Their problems are warnings, not errors: an old commit
cannot be fixed, and one broken file in ``v1.0`` must not block every future build; the versions
that did build are added.

Two builds into one output directory at the same time take turns, from any checkout: the lock of
the output directory itself (``output_lock``, also taken by ``loom gc``) is held from reading the
previous manifest to writing the new one, so neither can drop a version the other added.

Rejected: one whole-program cache entry (any edit invalidates every flow), mtime checks (see
``cache``), and emitting chunks from re-parsed files (the summaries already carry the text).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import gc
import os
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

    from ..analysis import ModuleSummary

# libcst (``analysis``, ``fingerprint``, ``chunk``) is imported only when something is parsed or
# emitted: a build served from the cache never loads it (most of a fresh no-change ``loom build``).

from loom_runtime.errors import ManifestError
from loom_runtime.hashing import sha256_digest
from loom_runtime.manifest import (
    FINGERPRINT_SCHEME,
    Manifest,
    SourceRef,
    VersionEntry,
    atomic_write_bytes,
    dump_manifest,
    load_manifest,
)

from ..config import LoomConfig
from ..flow_ids import duplicate_id_errors
from ..frameworks.base import HookCandidates, marker_pattern
from ..model import FlowFingerprint, SourceError
from ..precheck import might_define_flows, spells_a_marker_in_code
from ..sources import DirectorySourceTree, SourceReadError, SourceTree
from .cache import CACHE_DIRNAME, Deps, SummaryCache, cache_key
from .cache_codec import encode
from .chunk_file import Chunk, ChunkError, chunk_path_for
# what only a build writing output needs (the chunk and manifest stages, history refs, the pool)
# is imported where it is used: ``loom fingerprint``/``check`` run the same pipeline from the
# cache and start-up is most of what a warm hook pays
from .parse_ahead import ParseAhead, stale_threshold
from .progress import BuildSummary, NullProgress, Progress, RefSummary
from .tree_report import FILE_DEP
from .version_facts import VersionFacts, version_facts

__all__ = ["BuildReport", "build_project", "MANIFEST_NAME"]

MANIFEST_NAME = "manifest.json"
#: automatic ``jobs``: parse in worker processes only once at least this many modules wait to be parsed
AUTO_MIN_MODULES = 24
AUTO_MAX_JOBS = 4
#: collections of the working tree before a tree that keeps moving is an error (``_collect_stable``)
STABLE_ATTEMPTS = 3
#: source text (characters) of the modules whose libcst nodes a build keeps for the canonical forms
#: it deferred (``deferred_forms``; nodes take ~40x their text): past it, the module kept longest
#: computes its remaining forms at once and drops its nodes
RETAINED_CHARS = 2_000_000


@dataclass(frozen=True, slots=True)
class BuildReport:
    out_dir: Path
    manifest_path: Path
    #: the manifest now on disk (None when the build failed and wrote nothing)
    manifest: Manifest | None
    #: the flows of the working tree, sorted by id
    flows: tuple[FlowFingerprint, ...]
    new_versions: tuple[tuple[str, str], ...]
    #: the (flow id, codeHash) among ``new_versions`` that rehash an earlier scheme's version
    rehashed: tuple[tuple[str, str], ...]
    #: flow ids whose current version the previous manifest already held
    unchanged: tuple[str, ...]
    removed: tuple[str, ...]
    errors: tuple[SourceError, ...]
    warnings: tuple[str, ...]
    #: files written under ``out_dir`` (POSIX, relative), manifest last
    written: tuple[str, ...]
    #: modules parsed in this build (cache misses), and flow modules whose flows were recomputed
    parsed: tuple[str, ...]
    refingerprinted: tuple[str, ...]
    summary: BuildSummary

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1


@dataclass(slots=True)
class _Built:
    """One flow version ready for the manifest: its fingerprint, chunk and emit-time facts."""

    fp: FlowFingerprint
    chunk: Chunk
    source_sha: str  # hex sha256 of the defining file (``chunk.source_digest`` of its bytes)
    closure_sources: Mapping[str, str] = field(default_factory=dict)  # module -> sha256:<hex> (manifest_build)
    #: step ids the flow executes that its declaration does not cover (``step_ids``; cached with it)
    undeclared: tuple[SourceError, ...] = ()

    def facts(self) -> VersionFacts:
        return version_facts(self.fp, chunk_digest=self.chunk.digest, chunk_entry=self.chunk.entry,
                             source_sha=self.source_sha, closure_sources=self.closure_sources,
                             undeclared=self.undeclared)


@dataclass(slots=True)
class _Version:
    """One built version for the manifest stage: its facts, and the built version itself when the
    flow module's full entry was read or computed (None: served from its head entry)."""

    facts: VersionFacts
    #: the flow module's full entry (``FlowsEntry``) and this version's place in it
    key: str
    index: int
    built: _Built | None = None

    def fingerprint(self) -> FlowFingerprint:
        assert self.built is not None, "a version served from its head entry has no fingerprint"
        return self.built.fp

    def chunk_data(self, pipeline: _Pipeline) -> bytes:
        """The chunk's bytes, read from the full entry when this version came from its head."""
        if self.built is None:
            self.built = pipeline.full_version(self)
        return self.built.chunk.data


@dataclass(slots=True)
class _Collected:
    #: the built versions, when the pipeline emits chunks (``emit=True``)
    versions: list[_Version] = field(default_factory=list)
    #: the flows, when the pipeline fingerprints without emitting chunks (``emit=False``)
    fingerprints: list[FlowFingerprint] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)
    #: modules whose analysis this tree's flows used (their closures' modules), and how many of
    #: them were parsed in this build; the rest came from ``.loom-cache``
    modules: set[str] = field(default_factory=set)
    parsed: int = 0
    #: with ``_Pipeline(reads=True)``: every ``(module, path, sha)`` the flow modules' results
    #: depend on (their cached or computed deps), and the tree as the pipeline read it
    deps: set[tuple[str, str | None, str | None]] = field(default_factory=set)
    source: _Source | None = None


# ``Deps`` (``cache``): the modules a flow module's closure computation asked for, as
# ``(module, its path, the sha256 of its bytes)``.
#: A flow module's cache entry: ``(deps, its built versions, its errors)`` (see the module
#: docstring, stage 2).
FlowsEntry = tuple[Deps, tuple[_Built, ...], tuple[SourceError, ...]]
#: A flow module's head entry, written beside its ``FlowsEntry`` under the same inputs: the sha256
#: of its deps entry's value (the same deps but its own module's, which the head's key pins), each
#: version's ``VersionFacts`` (in the entry's order) and the same errors. Read instead of the full
#: entry when the build's caller wants no fingerprints (``version_facts``).
FlowsHead = tuple[str, tuple[VersionFacts, ...], tuple[SourceError, ...]]
#: What ``loom fingerprint``, ``diff``, ``check`` and ``version`` cache per flow module when no
#: build entry serves it (``fingerprint_tree``): ``(deps, its flows, its errors)``.
FingerprintsEntry = tuple[Deps, tuple[FlowFingerprint, ...], tuple[SourceError, ...]]


def _ModuleSummary() -> type:  # noqa: N802 - the class, imported when a flow is fingerprinted (libcst)
    from ..analysis import ModuleSummary

    return ModuleSummary


@functools.lru_cache(maxsize=None)
def _summary_type() -> Any:
    """What a summary entry holds. Imported on first use: ``analysis`` imports libcst, which a
    build served from the cache never needs."""
    from ..analysis import ModuleSummary

    return ModuleSummary | SourceError


def build_project(
    config: LoomConfig,
    *,
    out: str | os.PathLike[str] | None = None,
    jobs: int | None = None,
    from_git: Sequence[str] = (),
    progress: Progress | None = None,
    use_cache: bool = True,
    tree: SourceTree | None = None,
    fingerprints: bool = True,
    read_tree: DirectorySourceTree | None = None,
) -> BuildReport:
    """Build ``config.root`` into ``out`` (default ``config.out``, relative to the root).

    ``jobs``: worker processes for parsing (``None``: automatic, see the module docstring).
    ``from_git`` adds refs to ``config.history``. ``tree`` replaces the working tree (tests).
    ``fingerprints=False``: the report's ``flows`` is empty (``summary.flows`` still counts them)
    and an unchanged flow module is served from its small head entry (``version_facts``) without
    decoding its fingerprints and chunks: most of a no-change build, and ``loom build`` prints none;
    and a working tree that reads as the last build left it is served from that build's record
    (``build_record``) without running the pipeline. ``read_tree``: the working tree as
    ``build_record.served_build`` read it and did not serve (``loom build``), collected without
    reading its files again. Raises ``ConfigError`` (a ``GitError`` for a bad ref) on usage problems; source problems are
    returned in ``BuildReport.errors`` with nothing written.
    """
    started = time.perf_counter()
    progress = progress or NullProgress()
    out_dir = Path(config.root, out if out is not None else config.out).resolve()
    manifest_path = out_dir / MANIFEST_NAME
    # The output directory must never be scanned as source: its chunks declare flows too.
    try:
        out_rel: str | None = out_dir.relative_to(config.root.resolve()).as_posix()
    except ValueError:
        out_rel = None
    cache = SummaryCache(config.root / CACHE_DIRNAME, enabled=use_cache)
    # a build of the working tree alone (no refs, which can move) keeps a record of its outcome
    recorded = use_cache and tree is None and not from_git and not config.history
    pipeline = _Pipeline(config, cache, jobs=None if jobs is None else max(1, jobs), progress=progress, hide=out_rel,
                         heads=not fingerprints, reads=recorded)

    from .output_lock import output_lock

    try:
        with output_lock(out_dir), _fewer_gc_passes():
            if recorded and not fingerprints and read_tree is None:
                from .build_record import served_build

                served, read_tree = served_build(config, out_dir, out_rel)
                if served is not None:
                    return _served_report(out_dir, manifest_path, served, started)
            return _build_locked(config, out_dir, manifest_path, pipeline, cache, started, from_git, tree,
                                 read_tree if recorded else None)
    finally:
        cache.flush()


def _served_report(out_dir: Path, manifest_path: Path, served: Any, started: float) -> BuildReport:
    """The report of a build served from its record (``build_record``): nothing parsed or written."""
    summary = replace(served.summary, seconds=time.perf_counter() - started)
    return BuildReport(out_dir, manifest_path, load_manifest(manifest_path), (), (), (), served.flow_ids, (), (),
                       served.warnings, (), (), (), summary)


class _FullEntriesNeeded(Exception):
    """A version served from its head entry needs its chunk's text, and its full entry cannot be
    read: the build collects again from full entries (``_Pipeline.heads`` off)."""


def _build_locked(config: LoomConfig, out_dir: Path, manifest_path: Path, pipeline: _Pipeline, cache: SummaryCache,
                  started: float, from_git: Sequence[str], tree: SourceTree | None,
                  read_tree: DirectorySourceTree | None = None) -> BuildReport:
    errors: list[SourceError] = []
    previous: Manifest | None = None
    if manifest_path.exists():
        try:
            previous = load_manifest(manifest_path)
        except ManifestError as exc:
            errors.append(SourceError(_display(manifest_path, config.root), 0, 0,
                                      f"{exc}; the build would drop its versions, so it stops. Restore the file "
                                      "or delete it to start a new history", code="manifest"))
    try:
        return _build_from(config, out_dir, manifest_path, pipeline, cache, started, from_git, tree, previous, list(errors),
                           read_tree)
    except _FullEntriesNeeded:
        # nothing was written yet (chunks are placed before any write); rare: an entry lost or foreign
        pipeline.heads = False
        return _build_from(config, out_dir, manifest_path, pipeline, cache, started, from_git, tree, previous, list(errors))


def _build_from(config: LoomConfig, out_dir: Path, manifest_path: Path, pipeline: _Pipeline, cache: SummaryCache,
                started: float, from_git: Sequence[str], tree: SourceTree | None, previous: Manifest | None,
                errors: list[SourceError], read_tree: DirectorySourceTree | None = None) -> BuildReport:
    warnings: list[str] = []
    try:
        current, history = _collect_all(pipeline, tree, config, from_git, warnings, read_tree)
    finally:
        pipeline.close()
    errors.extend(current.errors)
    errors.extend(duplicate_id_errors([v.facts for v in current.versions]))
    # a first-party import with no source: the hash may miss an edit, so say where (closure)
    warnings.extend(dict.fromkeys(str(w) for v in current.versions for w in v.facts.warnings))
    undeclared = [e for v in current.versions for e in v.facts.undeclared]
    if config.check.strict:  # [tool.loom.check] strict = true
        errors.extend(undeclared)
    else:
        warnings.extend(f"{e} ([tool.loom.check] strict = true makes this an error)" for e in undeclared)
    flows = () if pipeline.heads else tuple(sorted((v.fingerprint() for v in current.versions), key=lambda f: f.flow_id))
    parsed = tuple(pipeline.parsed)
    refingerprinted = tuple(pipeline.refingerprinted)

    def report(manifest: Manifest | None, new: Sequence[tuple[str, str]] = (), unchanged: Sequence[str] = (),
               removed: Sequence[str] = (), written: Sequence[str] = (), *, new_flows: int = 0,
               changed: int = 0, from_history: int = 0) -> BuildReport:
        rehashed = tuple((f, h) for f, h in new if manifest is not None and manifest.flows[f].versions[h].rehashed_from)
        errs = tuple(_sorted_errors(errors))
        summary = BuildSummary(
            flows=len(current.versions), new_versions=len(new), unchanged=len(unchanged), removed=len(removed),
            errors=len(errs), seconds=time.perf_counter() - started,
            modules_parsed=current.parsed, modules_cached=len(current.modules) - current.parsed,
            rehashed=len(rehashed), new_flows=new_flows, changed=changed, from_history=from_history,
            refs=tuple(RefSummary(ref, len(got.modules), got.parsed) for ref, got in history),
        )
        return BuildReport(out_dir, manifest_path, manifest, flows, tuple(new), rehashed, tuple(unchanged), tuple(removed),
                           errs, tuple(warnings), tuple(written), parsed, refingerprinted, summary)

    if errors:
        return report(None)

    from .manifest_build import merge_manifest
    from .rehash import rehashed_from

    # Chunk files: existing bytes are never rewritten (see module docstring). A file is compared
    # by the sha256 of its bytes with the chunk's digest: a version served from its head entry has
    # no text, which is read (``_Version.chunk_data``) only when no file holds it yet.
    planned: dict[str, tuple[str, bytes | None]] = {}  # rel -> (digest, bytes to write; None: on disk)
    on_disk: dict[str, str | None] = {}

    out_prefix = os.path.join(out_dir, "")

    def disk_digest(rel: str) -> str | None:
        if rel not in on_disk:
            data = _file_bytes(out_prefix + rel)  # a string: a ``Path`` per chunk costs more than its read
            on_disk[rel] = None if data is None else sha256_digest(data)
        return on_disk[rel]

    def place(v: _Version, previous_path: str | None) -> str:
        f = v.facts
        candidates = [chunk_path_for(f.flow_id, f.code_hash)]
        if previous_path:
            candidates.append(previous_path)
        for rel in candidates:
            got = planned.get(rel)
            if got is not None and got[0] == f.chunk_digest:
                return rel
            if got is None and disk_digest(rel) == f.chunk_digest:
                planned[rel] = (f.chunk_digest, None)
                return rel
        base = candidates[0]
        data = v.chunk_data(pipeline)
        if base not in planned and not (out_dir / base).exists():
            planned[base] = (f.chunk_digest, data)
            return base
        variant = chunk_path_for(f.flow_id, f.code_hash, variant=f.chunk_digest.partition(":")[2][:12])
        planned[variant] = (f.chunk_digest, data)
        return variant

    def entry_for(v: _Version) -> VersionEntry:
        f = v.facts
        prev = previous.flows.get(f.flow_id) if previous is not None else None
        prev_entry = prev.versions.get(f.code_hash) if prev is not None else None
        rel = place(v, prev_entry.chunk if prev_entry is not None else None)
        d = f.definition
        # A scheme upgrade: the earlier-scheme versions of the same code (bundle/rehash.py).
        links = rehashed_from(prev, code_hash=f.code_hash, scheme=FINGERPRINT_SCHEME, flow_hash=f.flow_hash,
                              closure_sources=f.closure_sources,
                              already=prev_entry.rehashed_from if prev_entry is not None else ())
        return VersionEntry(
            code_hash=f.code_hash,
            flow_hash=f.flow_hash,
            legacy_flow_hash=f.legacy_flow_hash,
            version=d.version,
            steps=d.steps,
            step_families=d.step_families,
            compatible_with=d.compatible_with,
            chunk=rel,
            chunk_digest=f.chunk_digest,
            entry=f.chunk_entry,
            source=SourceRef(f.path, f.line, "sha256:" + f.source_sha, f.closure_sources),
            closure=dict(f.closure),
            scheme=FINGERPRINT_SCHEME,
            rehashed_from=links,
        )

    current_entries = {v.facts.flow_id: entry_for(v) for v in current.versions}
    known = {(f, h) for f, fe in previous.flows.items() for h in fe.versions} if previous is not None else set()
    history_entries: list[dict[str, VersionEntry]] = []
    for _ref, got in history:
        entries = {}
        for v in got.versions:
            f = v.facts
            if (f.flow_id, f.code_hash) in known or f.flow_id in current_entries and \
                    current_entries[f.flow_id].code_hash == f.code_hash:
                continue  # already shipped, or the working tree has the same version
            entries[f.flow_id] = entry_for(v)
        history_entries.append(entries)
    merged = merge_manifest(previous, current_entries, history_entries)

    used = {v.chunk for fe in merged.manifest.flows.values() for v in fe.versions.values()}
    for fe in merged.manifest.flows.values():
        for v in fe.versions.values():
            if v.chunk not in planned and not (out_dir / v.chunk).is_file():
                warnings.append(
                    f"flow `{fe.flow_id}` version {v.code_hash}: its chunk {v.chunk} is missing from {out_dir}; "
                    "executions pinned to it cannot resume. Rebuild it with `loom build --from-git <ref>` "
                    "naming a commit that has that version"
                )
    to_write = {rel: data for rel, (digest, data) in sorted(planned.items())
                if rel in used and data is not None and disk_digest(rel) != digest}
    written = list(to_write)
    # the cache entries are written while the chunks' fsyncs wait on the disk
    _write_durably(out_dir, to_write, while_syncing=cache.flush)
    data = dump_manifest(merged.manifest)
    if _file_bytes(manifest_path) != data:
        atomic_write_bytes(manifest_path, data)
        written.append(MANIFEST_NAME)
    if pipeline.reads and not history:
        _keep_record(config, out_dir, pipeline, cache, current, current_entries, merged.manifest, data, warnings)

    unchanged = tuple(sorted(f for f, e in current_entries.items() if (f, e.code_hash) in known))
    before = previous.flows if previous is not None else {}
    current_keys = {(f, e.code_hash) for f, e in current_entries.items()}
    return report(merged.manifest, merged.new_versions, unchanged, merged.newly_removed, written,
                  new_flows=sum(1 for f in current_entries if f not in before),
                  changed=sum(1 for f, e in current_entries.items() if f in before and (f, e.code_hash) not in known),
                  from_history=sum(1 for v in merged.new_versions if v not in current_keys))


def _keep_record(config: LoomConfig, out_dir: Path, pipeline: _Pipeline, cache: SummaryCache, current: _Collected,
                 entries: Mapping[str, VersionEntry], manifest: Manifest, data: bytes, warnings: Sequence[str]) -> None:
    """Put the record a rebuild of this very state is served from (``build_record``): what this
    build read, the manifest's digest, where each chunk is (or is missing) and what it reported."""
    src = current.source
    if src is None or src.errors:
        return
    from .build_record import BuildRecord, record_key

    placed = [(f, e.code_hash, e.chunk, e.chunk_digest) for f, e in sorted(entries.items())]
    candidates = [p for f, h, rel, _d in placed for p in dict.fromkeys((chunk_path_for(f, h), rel))]
    if len(set(candidates)) != len(candidates):
        return  # two versions could compete for one path: ``place`` would depend on their order
    ours = {rel for _f, _h, rel, _d in placed}
    older = tuple(sorted({(v.chunk, (out_dir / v.chunk).is_file()) for fe in manifest.flows.values()
                          for v in fe.versions.values() if v.chunk not in ours}))
    walked = [(m, src.path(m) or "", src.sha(m) or "") for m in src.module_names()]
    names = {m for m, _path, _sha in walked}
    # ``<...>`` deps are facts of the walk, which the key pins; a file's (``<file>``) is not
    beyond = tuple(sorted((d for d in current.deps if d[0] not in names and (
                           not d[0].startswith("<") or d[0].startswith(FILE))),
                          key=lambda d: (d[0], d[1] or "", d[2] or "")))
    modules = len({m for m, _path, sha in current.deps if sha is not None and not m.startswith("<")})
    record = (beyond, hashlib.sha256(data).hexdigest(), tuple(placed), older, tuple(warnings), tuple(sorted(entries)),
              modules)
    cache.put(record_key(config, out_dir, pipeline.hide, walked), record, BuildRecord)


def _collect_all(pipeline: _Pipeline, tree: SourceTree | None, config: LoomConfig, from_git: Sequence[str],
                 warnings: list[str], read_tree: DirectorySourceTree | None = None,
                 ) -> tuple[_Collected, list[tuple[str, _Collected]]]:
    current = _collect_stable(pipeline, tree, config, read_tree=read_tree)
    history: list[tuple[str, _Collected]] = []
    if config.history or from_git:
        from .history import GitSourceTree
    for ref in [*config.history, *from_git]:
        key = "--from-git" if ref in from_git and ref not in config.history else "tool.loom.history"
        got = pipeline.collect(GitSourceTree(pipeline.config, ref, key=key), label=f"loom build {ref}")
        for err in got.errors:
            warnings.append(f"{ref}: {err} (versions from this ref that failed are left out)")
        dups = duplicate_id_errors([v.facts for v in got.versions])
        for err in dict.fromkeys(e.message for e in dups):
            warnings.append(f"{ref}: {err}; that id's versions at this ref are left out")
        bad = {v.facts.flow_id for v in got.versions for e in dups if (e.path, e.line) == (v.facts.path, v.facts.line)}
        got.versions = [v for v in got.versions if v.facts.flow_id not in bad]
        history.append((ref, got))
    return current, history


def _collect_stable(pipeline: _Pipeline, tree: SourceTree | None, config: LoomConfig, *,
                    label: str = "loom build", read_tree: DirectorySourceTree | None = None) -> _Collected:
    """The working tree's flows, from a tree that did not move while it was read.

    After collecting, every file read and directory listed is checked against its signature when
    it was read (``DirectorySourceTree.changed``). If anything moved (a ``git checkout``, an editor
    saving, a file deleted or rewritten mid-build) the result mixes two trees: it is thrown away and
    the tree collected again (the cache makes that cheap), up to ``STABLE_ATTEMPTS`` times; then
    the build fails naming what kept changing. A tree given by the caller cannot be re-read: its
    move is an error at once. ``read_tree``: the working tree already read (``build_record``), for
    the first attempt."""
    attempt = 0
    while True:
        attempt += 1
        source = tree if tree is not None else read_tree if attempt == 1 and read_tree is not None \
            else DirectorySourceTree(config=config)
        parsed, refingerprinted = len(pipeline.parsed), len(pipeline.refingerprinted)
        got = pipeline.collect(source, label=label)
        changed = getattr(source, "changed", None)
        moved = changed() if changed is not None else ()
        if not moved:
            return got
        if tree is None and attempt < STABLE_ATTEMPTS:
            del pipeline.parsed[parsed:], pipeline.refingerprinted[refingerprinted:]  # reported once, by the last
            continue
        shown = ", ".join(moved[:5]) + (f" and {len(moved) - 5} more" if len(moved) > 5 else "")
        got.errors.append(SourceError(
            moved[0], 0, 0,
            f"the source tree changed while {label} read it ({shown}; {attempt} attempt(s)); nothing was written. "
            "Run it again once the checkout is quiet", code="changed"))
        return got


# -- the per-tree pipeline ----------------------------------------------------------------------------


def _reach_sizes(modules: Sequence[str], imports: Mapping[str, set[str]]) -> dict[str, float]:
    """An estimate of each flow module's fingerprint stage: how many analysed modules its imports
    reach (``imports``: the import graph ``parse_ahead`` found), which its closure walks and its chunk
    bundles; for ``forked_stage``'s costliest-first order."""
    out = {}
    for module in modules:
        seen, todo = {module}, [module]
        while todo:
            for nxt in imports.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        out[module] = float(len(seen))
    return out


@dataclass(frozen=True, slots=True)
class _LateForms:
    """A forked worker's deferred canonical forms of one summary (``_Pipeline._late_report``)."""

    key: str
    fresh: bool  # analysed in the worker (its entry is put in any case)
    filled: bool  # a form was computed since the summary was made or read
    forms: dict[int, str]  # unit index -> form, those not reported before
    summary: Any  # ``analysis.cacheable`` of it, the first time (None: the build has it)


@dataclass(frozen=True, slots=True)
class _Forked:
    """What a forked worker returns for one flow module (``_Pipeline._fingerprint_forked``)."""

    entry: FlowsEntry
    parsed: tuple[str, ...]  # modules it analysed (cache misses, reloads) for this flow module
    late: tuple[_LateForms, ...]
    errors: tuple[tuple[str, SourceError], ...]  # modules it found unreadable
    reads: Any  # (files read with their signatures, modules found absent) since its last report


#: the dependency of a cached fingerprint on the tree's module names (``_Source.sha``)
LISTING = "<modules>"
#: the dependency of a cached fingerprint on where engine hooks may be (``frameworks.engine_hooks``):
#: ``<hooks>`` + the markers searched, comma-separated; its sha covers every module spelling one
HOOKS = "<hooks>"
#: ``<file>`` + a POSIX path: a project file that is no module whose bytes a closure hashed (code
#: loaded by path, F10); its sha is the file's (None: absent), so an edit to it misses every entry
#: and the build record (``tree_report.unchanged_beyond``)
FILE = FILE_DEP


class _Source:
    """A ``SourceTree`` with every module's bytes and sha256 read once, and the output directory
    hidden (filtered here rather than added to ``exclude``: ``exclude`` globs cost a path
    resolution per file on every build)."""

    def __init__(self, tree: SourceTree, hide: str | None = None) -> None:
        self.tree = tree
        self.hide = None if hide in (None, ".") else hide.rstrip("/") + "/"
        self._data: dict[str, bytes | None] = {}
        self._sha: dict[str, str | None] = {}
        self._path: dict[str, str | None] = {}
        #: ``(module, path, sha)`` dependencies found as they are in this tree (``unchanged``)
        self._unchanged: set[tuple[str, str | None, str | None]] = set()
        #: head deps entries (by digest) compared with this tree: unchanged or not
        self.fresh_sets: dict[str, bool] = {}
        #: modules the tree lists but could not read, as the errors the build reports
        self.errors: dict[str, SourceError] = {}
        self._hooks: dict[frozenset[str], list[str]] = {}  # memo of ``hook_candidates``
        self.hook_memo: dict[str, object] = {}  # the engine-hook search of this tree state (``HookCandidates``)
        self._known: Callable[[str], str | None] | None = getattr(tree, "known_digest", None)

    def module_names(self) -> list[str]:
        return [m for m in self.tree.module_names() if self.path(m) is not None]

    def unchanged(self, deps: Deps) -> bool:
        """Whether every ``(module, path, sha)`` of ``deps`` is as in this tree. The flow modules
        of a package share most of theirs (~110 each, ~380 distinct at 120 flows): each is
        compared once per build."""
        known = self._unchanged
        for dep in deps:
            if dep not in known:
                module, path, sha = dep
                if self.path(module) != path or self.sha(module) != sha:
                    return False
                known.add(dep)
        return True

    def candidates(self, wanted: Callable[[bytes], bool]) -> list[str]:
        """Modules whose bytes pass ``wanted`` (the cheap "might define a flow" check).

        A directory is walked once (``DirectorySourceTree.walk``: skip rules and ``exclude``
        applied, every file named by string operations, the tree indexed as a side effect), so the
        later lookups of the modules closures reach cost a dictionary access, not file probes.
        A module file that cannot be read is an error (it may define flows: never "no flows").
        """
        tree = self.tree
        if not isinstance(tree, DirectorySourceTree):
            return [m for m in self.module_names() if (d := self.data(m)) is not None and wanted(d)]
        found: dict[str, None] = {}
        walked = list(tree.walk())  # names every file by string operations; indexes the tree
        for module, rel, path in walked:
            if self.path(module) != rel:
                continue  # hidden (the output directory), or the name belongs to another file
            try:
                data = tree.read_file(path, rel)
            except SourceReadError as exc:
                self._unreadable(module, exc)
                continue
            self._data[module] = data
            if wanted(data):
                found[module] = None
        for exc in tree.walk_errors:
            where = _display(Path(exc.filename), tree.root) if exc.filename else "."
            self.errors[f"<dir>{where}"] = SourceError(
                where, 0, 0, f"cannot list this directory ({exc.strerror}); the modules in it would go unseen. "
                "Fix its permissions or exclude it ([tool.loom] exclude)", code="io")
        return sorted(found)

    def _unreadable(self, module: str, exc: SourceReadError) -> None:
        self._data[module] = None
        if all(part.isidentifier() for part in module.split(".")):  # ``.#flows.py`` (an editor's lock) is no module
            self.errors[module] = SourceError(
                exc.rel, 0, 0, f"cannot read ({exc.reason}); a module that cannot be read cannot be fingerprinted. "
                "Fix the file (or exclude it in [tool.loom] exclude)", code="io")

    def error(self, module: str) -> SourceError | None:
        """The read error of ``module``, if the tree lists it but it could not be read."""
        return self.errors.get(module)

    def path(self, module: str) -> str | None:
        if module not in self._path:
            path = self.tree.path_of(module)
            self._path[module] = None if path is not None and self.hide and path.startswith(self.hide) else path
        return self._path[module]

    def data(self, module: str) -> bytes | None:
        if module not in self._data:
            try:
                self._data[module] = self.tree.read(module) if self.path(module) is not None else None
            except SourceReadError as exc:
                self._unreadable(module, exc)
        return self._data[module]

    def sha(self, module: str) -> str | None:
        if module not in self._sha:
            if module == LISTING:  # the tree's module names: a closure that read them depends on them
                self._sha[module] = hashlib.sha256("\n".join(self.module_names()).encode()).hexdigest()
                return self._sha[module]
            if module.startswith(FILE):  # a file a closure hashed by its bytes
                data = self.file_data(module[len(FILE):])
                self._sha[module] = hashlib.sha256(data).hexdigest() if data is not None else None
                return self._sha[module]
            if module.startswith(HOOKS):  # the modules where engine hooks may be, and their bytes
                listed = self.hook_candidates(frozenset(module[len(HOOKS):].split(",")))
                self._sha[module] = hashlib.sha256("\n".join(f"{m} {self.sha(m)}" for m in listed).encode()).hexdigest()
                return self._sha[module]
            data = self.data(module)
            # a tree the served check walked (``build_record.WalkedTree``) hashed its files already
            known = self._known(module) if self._known is not None and data is not None else None
            self._sha[module] = known or (hashlib.sha256(data).hexdigest() if data is not None else None)
        return self._sha[module]


    def file_data(self, rel: str) -> bytes | None:
        """The bytes of a project file that is no module (None: absent; a tree that cannot read
        files other than modules answers None, and ``closure`` warns of such a file)."""
        key = FILE + rel
        if key not in self._data:
            read = getattr(self.tree, "read_data", None)
            try:
                self._data[key] = read(rel) if read is not None else None
            except SourceReadError:
                self._data[key] = None  # the closure reads it again and reports why
        return self._data[key]

    def hook_candidates(self, markers: frozenset[str]) -> list[str]:
        """Modules whose bytes spell one of ``markers`` (an unreadable one is in ``errors``),
        memoised: every flow module of a build asks the same question."""
        found = self._hooks.get(markers)
        if found is None:
            pattern = marker_pattern(markers)
            found = self._hooks[markers] = [m for m in self.module_names()
                                            if (d := self.data(m)) is not None and pattern.search(d)]
        return found


class _Pipeline:
    """The per-tree stages. ``emit=False`` (``fingerprint_tree``) stops at the fingerprints: it
    reads the build's entries of a flow module when they are fresh and complete, else entries of
    its own (``FingerprintsEntry``), and never emits a chunk. ``heads`` (with ``emit``): a fresh
    flow module is served from its head entry (``FlowsHead``), its fingerprints left undecoded."""

    def __init__(self, config: LoomConfig, cache: SummaryCache, *, jobs: int | None, progress: Progress,
                 hide: str | None = None, emit: bool = True, heads: bool = False, reads: bool = False) -> None:
        self.config = config
        #: record what the result depends on in ``_Collected.deps``/``source`` (``tree_report``)
        self.reads = reads
        #: ``config.digest`` (a property: a JSON dump and a sha256, once per key otherwise, ~300 keys a build)
        self.config_digest = config.digest
        self.emit = emit
        self.heads = heads and emit
        self.hide = hide
        self.cache = cache
        self.jobs = jobs
        self.progress = progress
        self.parsed: list[str] = []
        self.refingerprinted: list[str] = []
        self.progress_total = 0
        self._pool: ProcessPoolExecutor | None = None
        self._pool_workers = 0
        self._chunk_memo: Any = None  # chunk_memo.ChunkMemo: what this build's chunks share (first emit)
        self._graph_memo: Any = None  # closure.GraphMemo: what this build's closure graphs share
        #: deps entries read or written in this build, by digest (None: unreadable or not that value)
        self._deps_read: dict[str, Deps | None] = {}
        self._deps_digest: dict[Deps, str] = {}  # the digests of the deps put in this build
        self._step_ids: dict[tuple[str, int], Any] = {}  # ``step_ids.undeclared_step_ids``' memo, this build's
        #: summary key -> (summary, analysed in this collect): cache entries put at its end (``_put_late``)
        self._late: dict[str, tuple[Any, bool]] = {}
        #: id -> (``DeferredForms`` keeping nodes, its module's text size), oldest first (``_retain``)
        self._retained: OrderedDict[int, tuple[Any, int]] = OrderedDict()
        self._retained_chars = 0

    # -- summaries --------------------------------------------------------------------------------
    def _summary_key(self, src: _Source, module: str) -> str:
        return cache_key(config_digest=self.config_digest, module=module, path=src.path(module) or "",
                         content_sha256=src.sha(module) or "", value_type=_summary_type())

    def summary(self, src: _Source, memo: dict[str, Any], module: str) -> ModuleSummary | SourceError | None:
        if module in memo:
            return memo[module]
        data, path = src.data(module), src.path(module)
        if data is None or path is None:
            memo[module] = src.error(module)  # unreadable: the error, never "absent"
            return memo[module]
        key = self._summary_key(src, module)
        result = self.cache.get(key, _summary_type())
        if result is None:
            # The total grows as closures reach further modules: "parsed so far / known so far".
            self.progress_total += 1
            self.progress.advance(0, total=self.progress_total)
            result = self._analyse(src, module, key)
            self.progress.advance(1)
        else:
            result = self._served(src, module, key, result)
        memo[module] = result
        return result

    # -- deferred canonical forms (``deferred_forms``) ----------------------------------------------
    def _analyse(self, src: _Source, module: str, key: str) -> ModuleSummary | SourceError:
        """Analyse ``module`` in this process, its plain statements' canonical forms deferred
        (computed when a closure reads them). Its cache entry is put at the end of ``collect``,
        holding the forms this build's closures asked for (``_put_late``); a complete summary (an
        error, or a module ``analyse_module`` analysed eagerly, such as a large one) now."""
        from .. import analysis

        data = src.data(module) or b""
        result = analysis.analyse_module(data, module=module, path=src.path(module) or "", config=self.config, defer=True)
        self.parsed.append(module)
        forms = analysis.deferred_forms(result) if not isinstance(result, SourceError) else None
        if forms is None:
            self.cache.put(key, result, _summary_type())
            return result
        analysis.reload_from(result, functools.partial(self._reloaded, src, module))
        self._late[key] = (result, True)
        self._retain(forms, len(data))
        return result

    def _served(self, src: _Source, module: str, key: str, hit: Any) -> Any:
        """A cached summary, with the canonical forms its entry lacks served by analysing the
        module again (once, if a closure asks for one: ``analysis.defer_missing``); its entry is
        then written again with them (``_put_late``)."""
        if isinstance(hit, SourceError) or all(u.form is not None for u in hit.units):
            return hit
        from .. import analysis

        served = analysis.defer_missing(hit, functools.partial(self._reloaded, src, module))
        self._late[key] = (served, False)
        return served

    def _reloaded(self, src: _Source, module: str) -> ModuleSummary | SourceError:
        """``module`` analysed again for the deferred forms of a summary that no longer keeps its
        nodes (``analysis.defer_missing``/``reload_from``)."""
        from .. import analysis

        data = src.data(module) or b""
        fresh = analysis.analyse_module(data, module=module, path=src.path(module) or "", config=self.config, defer=True)
        self.parsed.append(module)  # a parse: reported as one
        forms = analysis.deferred_forms(fresh) if not isinstance(fresh, SourceError) else None
        if forms is not None:
            analysis.reload_from(fresh, functools.partial(self._reloaded, src, module))
            self._retain(forms, len(data))
        return fresh

    def _retain(self, forms: Any, size: int) -> None:
        """Keep ``forms``' nodes within ``RETAINED_CHARS`` of source text: past it, the module kept
        longest computes its remaining forms now and drops its nodes (``DeferredForms.finish``)."""
        self._retained[id(forms)] = (forms, size)
        self._retained_chars += size
        while self._retained_chars > RETAINED_CHARS and len(self._retained) > 1:
            _, (oldest, chars) = self._retained.popitem(last=False)
            oldest.finish()
            self._retained_chars -= chars

    def _put_late(self) -> None:
        """Put the summaries analysed in this ``collect`` (and the cached ones a closure completed)
        with the forms the closures asked for, and drop the nodes kept for the others."""
        if not self._late and not self._retained:
            return  # nothing analysed or completed (a build served from the cache imports no libcst)
        from .. import analysis

        for key, (summary, fresh) in self._late.items() if self.cache.enabled else ():
            forms = analysis.deferred_forms(summary)
            if fresh or (forms is not None and forms.filled):
                self.cache.put(key, analysis.cacheable(summary), _summary_type())
        self._late.clear()
        for forms, _size in self._retained.values():
            forms.release()  # a later request analyses the module again (``reload``)
        self._retained.clear()
        self._retained_chars = 0

    def _max_workers(self) -> int:
        if self.jobs is not None:
            return self.jobs
        if not _can_fork():
            # a spawned worker re-imports the compiler (~0.3 s) and the caller's __main__ (a script
            # without a ``__main__`` guard would run again): automatic means forked workers or none
            return 1
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        return max(1, min(cpus, AUTO_MAX_JOBS))

    # -- the forked fingerprint stage (``forked_stage``) ---------------------------------------------
    def _forked_workers(self, stale: Sequence[str]) -> int:
        """Worker processes for fingerprinting ``stale`` flow modules (1: in this process). As for
        parsing: automatic means forked workers for at least ``AUTO_MIN_MODULES`` of them (a
        one-edit rebuild starts none); an explicit ``jobs`` for any two. Forked only: a worker must
        inherit the summaries (where fork is unavailable, or another thread runs, the stage is
        serial, as it is with ``jobs=1``)."""
        if len(stale) < 2 or (self.jobs is None and len(stale) < AUTO_MIN_MODULES):
            return 1
        if self.jobs == 1:
            return 1
        self.close()  # the parse pool's threads: the fork needs a single-threaded process
        workers = min(self._max_workers(), len(stale))
        return workers if workers > 1 and _can_fork() else 1

    def _fingerprint_forked(self, src: _Source, memo: dict[str, Any], stale: Sequence[str],
                            workers: int, imports: Mapping[str, set[str]]) -> dict[str, FlowsEntry]:
        """``_fingerprint_module`` and ``_store`` of each of ``stale`` in forked workers, merged
        into this process as a serial run of them would leave it.

        A worker inherits everything by the fork: the summaries analysed so far (``memo``), the
        tree as read, the cache's values. It writes the cache entries it puts itself (flow, head
        and deps entries; summaries it analysed eagerly), and returns per flow module its result
        and what a serial run would have left here (``_Forked``). Per-build memos
        (``closure.GraphMemo``, ``chunk.ChunkMemo``, step ids, deps digests) are each worker's
        own: they are pure caches, so results do not depend on which worker ran what. Merged here,
        in the flow modules' order: the modules parsed (placed at the first flow module whose
        dependencies name them, as a serial build parses each at its first request), the tree's
        reads (``changed()`` checks them), read errors, and the deferred canonical forms each
        worker's closures computed, so that ``_put_late`` writes each summary once with every
        form any closure asked for."""
        from . import forked_stage

        _import_stage_modules()  # here, once: not in every worker at its first job
        tree_log = getattr(src.tree, "read_log", None)
        before_fork = set(self._late)
        child: dict[str, Any] = {}  # filled in each worker at its first job (empty in this process)

        def job(module: str) -> _Forked:
            if not child:
                self.cache.forked()
                self.progress = NullProgress()
                child["sent"] = self._late_known()  # what the build has: reported only as it grows
                child["errors"] = set(src.errors)
                child["reads"] = tree_log() if tree_log is not None else None
            parsed_before = len(self.parsed)
            entry = self._fingerprint_module(src, memo, module)
            self._store(src, module, entry)
            self.cache.flush()
            return _Forked(entry, tuple(self.parsed[parsed_before:]), self._late_report(child["sent"], before_fork),
                           self._new_errors(src, child), self._new_reads(tree_log, child))

        done = forked_stage.map_forked(job, stale, workers=workers, cost=_reach_sizes(stale, imports),
                                       label="the fingerprint stage (closures and chunks)")
        self.cache.written_elsewhere()
        return self._merge_forked(src, [(m, done[m]) for m in stale])

    def _late_known(self) -> dict[str, set[int]]:
        """The units whose deferred forms are known, per summary key of ``_late``."""
        if not self._late:
            return {}
        from .. import analysis

        return {key: set(forms.known()) if (forms := analysis.deferred_forms(summary)) is not None else set()
                for key, (summary, _fresh) in self._late.items()}

    def _late_report(self, sent: dict[str, set[int]], before_fork: set[str]) -> tuple[_LateForms, ...]:
        """In a worker: the deferred forms its closures computed since its last report, per
        summary key (with the summary as a plain value the first time, unless the build had that
        summary before the fork)."""
        if not self._late:
            return ()
        from .. import analysis

        out = []
        for key, (summary, fresh) in self._late.items():
            forms = analysis.deferred_forms(summary)
            known = forms.known() if forms is not None else {}
            reported = sent.get(key)
            if reported is not None and len(reported) == len(known):
                continue
            new = {i: text for i, text in known.items() if reported is None or i not in reported}
            plain = analysis.cacheable(summary) if reported is None and key not in before_fork else None
            out.append(_LateForms(key, fresh, bool(forms is not None and forms.filled), new, plain))
            sent[key] = set(known)
        return tuple(out)

    @staticmethod
    def _new_errors(src: _Source, child: dict[str, Any]) -> tuple[tuple[str, SourceError], ...]:
        seen: set[str] = child["errors"]
        new = tuple((m, e) for m, e in src.errors.items() if m not in seen)
        seen.update(m for m, _e in new)
        return new

    @staticmethod
    def _new_reads(tree_log: Callable[[], Any] | None, child: dict[str, Any]) -> Any:
        if tree_log is None:
            return None
        base_seen, base_absent = child["reads"]
        seen, absent = tree_log()
        new = ({p: sig for p, sig in seen.items() if p not in base_seen}, absent - base_absent)
        child["reads"] = (seen, absent)
        return new

    def _merge_forked(self, src: _Source, done: Sequence[tuple[str, _Forked]]) -> dict[str, FlowsEntry]:
        """This process's state after the forked stage, as a serial run in ``done``'s order
        would have left it (``_fingerprint_forked``)."""
        parsed = {m for _module, got in done for m in got.parsed}
        placed: list[str] = []
        if parsed:
            for _module, got in done:  # at the first flow module that asked for it, in its deps' order
                for dep, _path, _sha in got.entry[0]:
                    if dep in parsed:
                        placed.append(dep)
                        parsed.discard(dep)
            placed.extend(sorted(parsed))
        for module in placed:
            self.parsed.append(module)
            self.progress_total += 1
            self.progress.advance(0, total=self.progress_total)
            self.progress.advance(1)
        merged: dict[str, list[Any]] = {}
        for _module, got in done:
            for module, error in got.errors:
                src.errors.setdefault(module, error)
            if got.reads is not None:
                adopt = getattr(src.tree, "adopt_reads", None)
                if adopt is not None:
                    adopt(*got.reads)
            for late in got.late:
                m = merged.setdefault(late.key, [False, False, {}, None])
                m[0] |= late.fresh
                m[1] |= late.filled
                for index, text in late.forms.items():
                    m[2].setdefault(index, text)
                if m[3] is None:
                    m[3] = late.summary
        if merged:
            self._adopt_late(merged)
        return {module: got.entry for module, got in done}

    def _adopt_late(self, merged: Mapping[str, list[Any]]) -> None:
        """The workers' deferred forms into ``_late``: added to the build's own deferred
        summaries, or, for summaries only workers had, filled into the plain value they sent."""
        from .. import analysis

        for key, (fresh, filled, forms, plain) in merged.items():
            own = self._late.get(key)
            if own is not None:
                deferred = analysis.deferred_forms(own[0])
                if deferred is not None and forms:
                    deferred.adopt(forms)
            elif plain is not None and (fresh or filled):
                units = tuple(replace(u, form=forms[u.index]) if u.form is None and u.index in forms else u
                              for u in plain.units)
                self._late[key] = (replace(plain, units=units), True)

    def _packages_of(self, src: _Source, modules: Iterable[str]) -> set[str]:
        """The first-party packages above ``modules`` that the tree has (``a`` and ``a.b`` of
        ``a.b.c``), as ``_imported_modules`` counts an import's."""
        out: set[str] = set()
        for module in modules:
            parts = module.split(".")
            for i in range(1, len(parts)):
                package = ".".join(parts[:i])
                if (not self.config.packages or self.config.is_first_party(package)) and src.path(package) is not None:
                    out.add(package)
        return out

    def _imported_modules(self, src: _Source, summary: ModuleSummary) -> set[str]:
        out: set[str] = set()
        targets = [t for _, t in summary.imports] + list(summary.star_imports)
        for target in targets:
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                module = ".".join(parts[:i])
                if (not self.config.packages or self.config.is_first_party(module)) and src.path(module) is not None:
                    out.add(module)
        return out

    # -- flows ------------------------------------------------------------------------------------
    def collect(self, tree: SourceTree, *, label: str) -> _Collected:
        src = _Source(tree, self.hide)
        candidates = src.candidates(lambda data: might_define_flows(data, self.config))
        self.progress_total = 0
        self.progress.start(label, 0)
        memo: dict[str, Any] = {}
        result = _Collected()
        parsed_before = len(self.parsed)
        stale: list[str] = []
        cached: dict[str, tuple[Any, ...]] = {}
        ahead: ParseAhead | None = None  # the stale flow modules and what they import, parsed in workers
        asked = False
        for module in candidates:
            entry = self._cached(src, module)
            if entry is not None:
                cached[module] = entry
            elif not spells_a_marker_in_code(src.data(module) or b"", self.config):
                # a flow decorator's name only in its docstrings or comments: it declares no flow,
                # and is parsed only if a closure reaches it (cached: the check runs once per bytes)
                cached[module] = (self._deps(src, [module]), (), ())
                self._store(src, module, cached[module])
            else:
                stale.append(module)
                if ahead is not None:
                    ahead.want_stale(module)
                # the size test first: ``_max_workers`` imports multiprocessing (~5 ms), which an edit never needs
                elif not asked and (self.jobs is not None or len(stale) >= AUTO_MIN_MODULES):
                    asked = True
                    if self._max_workers() > 1:
                        # from here the workers parse while the scan checks the later candidates
                        ahead = ParseAhead(self, src, memo, threshold=stale_threshold(self))
                        for found in stale:
                            ahead.want_stale(found)
            if ahead is not None:
                ahead.poll()
        # the first-party modules each analysed module imports (``_reach_sizes``)
        imports: dict[str, set[str]] = ahead.finish() if ahead is not None else {}
        # the stale flow modules' closures, fingerprints and chunks: in forked workers when many
        workers = self._forked_workers(stale)
        forked = self._fingerprint_forked(src, memo, stale, workers, imports) if workers > 1 else {}
        for module in candidates:
            if module in cached:
                deps, built, errors = cached[module]
            else:
                if module in forked:
                    deps, built, errors = forked[module]
                else:
                    deps, built, errors = self._fingerprint_module(src, memo, module)
                    self._store(src, module, (deps, built, errors))
                if built or errors:
                    self.refingerprinted.append(module)
            if self.emit:
                key = self._flows_key(src, module)
                result.versions.extend(_Version(b, key, i) if isinstance(b, VersionFacts) else _Version(b.facts(), key, i, b)
                                       for i, b in enumerate(built))
            else:
                result.fingerprints.extend(built)
            result.errors.extend(errors)
            result.modules.update(m for m, _path, sha in deps if sha is not None and not m.startswith("<"))
            if self.reads:
                result.deps.update(deps)
        if self.reads:
            result.source = src
        self._put_late()
        result.errors.extend(src.errors.values())
        result.modules.update(self.parsed[parsed_before:])
        result.parsed = len(self.parsed) - parsed_before
        self.progress.finish()
        return result

    def _flows_key(self, src: _Source, module: str) -> str:
        return cache_key(config_digest=self.config_digest, module=module, path=src.path(module) or "",
                         content_sha256=src.sha(module) or "", kind="flows", value_type=FlowsEntry)

    def _head_key(self, src: _Source, module: str) -> str:
        return cache_key(config_digest=self.config_digest, module=module, path=src.path(module) or "",
                         content_sha256=src.sha(module) or "", kind="flows-head", value_type=FlowsHead)

    def _store(self, src: _Source, module: str, entry: tuple[Any, ...]) -> None:
        if self.emit:
            self.cache.put(self._flows_key(src, module), entry, FlowsEntry)
            self._store_head(src, module, entry)
        else:
            self.cache.put(self._fingerprints_key(src, module), entry, FingerprintsEntry)

    def _fingerprints_key(self, src: _Source, module: str) -> str:
        return cache_key(config_digest=self.config_digest, module=module, path=src.path(module) or "",
                         content_sha256=src.sha(module) or "", kind="fingerprints", value_type=FingerprintsEntry)

    def _store_head(self, src: _Source, module: str, entry: tuple[Any, ...]) -> None:
        deps, built, errors = entry
        own = (module, src.path(module), src.sha(module))
        digest = self._put_deps(tuple(d for d in deps if d != own))
        self.cache.put(self._head_key(src, module), (digest, tuple(b.facts() for b in built), errors), FlowsHead)

    # A head's dependencies are an entry of their own, named by the sha256 of their encoding, so
    # the flow modules of a package, which reach mostly the same modules, share them: a no-change
    # build decodes and compares each distinct set once, not ~110 dependencies per flow module.
    # An entry whose bytes are not the value its name is the digest of is a miss (``content_sha256``).
    def _deps_key(self, digest: str) -> str:
        return cache_key(config_digest=self.config_digest, module="", path="", content_sha256=digest,
                         kind="deps", value_type=Deps)

    def _put_deps(self, deps: Deps) -> str:
        digest = self._deps_digest.get(deps)
        if digest is None:
            encoded = encode(deps, Deps)
            digest = self._deps_digest[deps] = hashlib.sha256(encoded).hexdigest()
            if self._deps_read.get(digest) is None:  # not read whole in this build: (re)written
                self.cache.put(self._deps_key(digest), deps, Deps, encoded=encoded)
                self._deps_read[digest] = deps
        return digest

    def _head_deps(self, digest: str) -> Deps | None:
        """The deps a head names by ``digest``, or None when their entry cannot be read or its
        bytes are not the value ``digest`` is the sha256 of."""
        if digest not in self._deps_read:
            self._deps_read[digest] = self.cache.get(self._deps_key(digest), Deps, content_sha256=digest)
        return self._deps_read[digest]

    def _cached(self, src: _Source, module: str) -> tuple[Any, ...] | None:
        """A fresh cache entry of ``module``'s flows (every module it asked for unchanged), as the
        pipeline's result: built versions (``VersionFacts`` from a head entry with ``heads``), or
        with ``emit=False`` their fingerprints."""
        if self.heads:
            head = self.cache.get(self._head_key(src, module), FlowsHead)
            shared = self._head_deps(head[0]) if head is not None else None
            if shared is not None:
                fresh = src.fresh_sets.get(head[0])
                if fresh is None:
                    fresh = src.fresh_sets[head[0]] = src.unchanged(shared)
                # written with the full entry under the same inputs: stale deps are stale for both;
                # the module's own path and bytes are in the head's key
                return ((*shared, (module, src.path(module), src.sha(module))), *head[1:]) if fresh else None
        entry = self.cache.get(self._flows_key(src, module), FlowsEntry)
        if entry is not None and src.unchanged(entry[0]):
            if self.emit:
                if self.heads:  # a full entry without its head (lost, or a cache from before heads)
                    self._store_head(src, module, entry)
                return entry
            # a version whose chunk failed is not in the entry: its flow must be fingerprinted
            if not any(e.code == "bundle" for e in entry[2]):
                return entry[0], tuple(b.fp for b in entry[1]), entry[2]
        if not self.emit:
            own = self.cache.get(self._fingerprints_key(src, module), FingerprintsEntry)
            if own is not None and src.unchanged(own[0]):
                return own
        return None

    def full_version(self, version: _Version) -> _Built:
        """The built version a head entry's ``version`` stands for, from the flow module's full
        entry; ``_FullEntriesNeeded`` when that entry cannot be read or disagrees with the head."""
        entry = self.cache.get(version.key, FlowsEntry)
        if entry is not None and version.index < len(entry[1]):
            built = entry[1][version.index]
            if built.facts() == version.facts:
                return built
        raise _FullEntriesNeeded(version.facts.flow_id)

    @staticmethod
    def _deps(src: _Source, modules: Iterable[str]) -> Deps:
        return tuple((m, src.path(m), src.sha(m)) for m in sorted(modules))

    def _fingerprint_module(self, src: _Source, memo: dict[str, Any], module: str) -> tuple[Any, ...]:
        requested: set[str] = {module}

        def loader(name: str) -> ModuleSummary | SourceError | None:
            requested.add(name)
            return self.summary(src, memo, name)

        summary = self.summary(src, memo, module)
        if isinstance(summary, SourceError):
            return self._deps(src, requested), (), (summary,)
        assert summary is not None
        if not summary.flows and not summary.errors and not summary.foreign_decorators:
            return self._deps(src, [module]), (), ()
        from ..fingerprint import fingerprint_flows
        from ..step_ids import undeclared_step_ids

        def listing() -> list[str]:
            requested.add(LISTING)  # a computed module name may name a module added later
            return src.module_names()

        read = getattr(src.tree, "read_data", None)

        def files(rel: str) -> bytes | None:
            requested.add(FILE + rel)  # its bytes are hashed: an edit to it must miss this entry
            return read(rel) if read is not None else None

        if self._graph_memo is None:
            from ..closure import GraphMemo

            self._graph_memo = GraphMemo()
        flows, errors = fingerprint_flows({module: summary}, self.config, loader=loader, modules=listing,
                                          hook_candidates=self._hooks(src, requested), memo=self._graph_memo,
                                          files=files if read is not None else None)
        if not self.emit:
            return self._deps(src, requested), flows, errors
        built: list[_Built] = []
        errs = list(errors)
        # every module the closures read (emitting reads none): once per flow module, not per flow
        summary_type = _ModuleSummary()
        read = {m: s for m in requested if isinstance(s := memo.get(m), summary_type)} if flows else {}
        for fp in flows:
            try:
                chunk = self._emit(fp, summary, read)
            except ChunkError as exc:
                errs.append(SourceError(exc.path, exc.line, exc.column, str(exc), code="bundle"))
                continue
            from .manifest_build import closure_source_digests

            built.append(_Built(fp, chunk, src.sha(module) or "", closure_source_digests(fp, src.sha),
                                undeclared_step_ids(fp, self._step_ids)))
        return self._deps(src, requested), tuple(built), tuple(errs)

    def _hooks(self, src: _Source, requested: set[str]) -> HookCandidates | None:
        """The tree's engine-hook candidates for one flow module's graph (None: the profile has
        none): the search is shared by every flow module of this tree state (``src``), each
        records what it read (``requested``) and the listing it asked for (``<hooks>``)."""
        if self.config.profile.engine_hooks is None:
            return None

        def listing(markers: frozenset[str]) -> list[str]:
            requested.add(HOOKS + ",".join(sorted(markers)))  # a hook added or edited anywhere counts
            return src.hook_candidates(markers)

        return HookCandidates(listing, src.hook_memo)

    def _emit(self, fp: FlowFingerprint, summary: ModuleSummary, summaries: Mapping[str, ModuleSummary]) -> Chunk:
        """The chunk of ``fp``; ``summaries`` (every module its closure computation read) hold the
        statements it bundles and say where each module imports what, so the chunk runs them in
        the live order (``chunk_order``)."""
        class_source, class_line = None, 0
        if "." in fp.function:
            top = fp.function.split(".")[0]
            for unit in summary.units_binding(top):
                if unit.kind == "class":
                    class_source, class_line = unit.source, unit.line
        from .chunk import ChunkMemo, emit_chunk

        if self._chunk_memo is None:
            self._chunk_memo = ChunkMemo()

        config = self.config

        def first_party(dotted: str) -> bool:
            # as the closure decides: a module of the tree it read, or under a configured package
            parts = dotted.split(".")
            return any(".".join(parts[:i]) in summaries for i in range(1, len(parts) + 1)) or (
                bool(config.packages) and config.is_first_party(dotted))

        return emit_chunk(fp, summaries=summaries, first_party=first_party, class_source=class_source,
                          class_line=class_line, module_imports=summary.import_map(), memo=self._chunk_memo)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None


def _import_stage_modules() -> None:
    """Import what the fingerprint stage runs (closures, chunks, step ids; imported where used, so
    that a build served from the cache never loads them) before its workers are forked: each
    inherits them instead of importing them itself (~25 ms of CPU per worker)."""
    from .. import closure, fingerprint, step_ids  # noqa: F401
    from . import chunk, manifest_build  # noqa: F401


def _process_pool(workers: int) -> ProcessPoolExecutor:
    """Workers forked from the build (libcst and the compiler already imported: a spawned worker
    would spend ~0.3 s importing them) when that is safe: no other thread runs in this process.
    Elsewhere, the platform's default start method."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if _can_fork():
        return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"))
    return ProcessPoolExecutor(max_workers=workers)


def _can_fork() -> bool:
    import multiprocessing

    from .. import deep_stack

    # an idle deep_stack worker does not count: it waits on its queue, and a fork stops it first
    return "fork" in multiprocessing.get_all_start_methods() and not deep_stack.others_running()


def _sorted_errors(errors: Iterable[SourceError]) -> list[SourceError]:
    return sorted(dict.fromkeys(errors), key=lambda e: (e.path, e.line, e.column, e.message))


def _write_durably(out_dir: Path, files: Mapping[str, bytes], *, while_syncing: Callable[[], None] = lambda: None) -> None:
    """Write each file through a temporary name and ``os.replace``, then make them all durable
    before the manifest that names them is written: one pass of ``fsync`` after all the writes
    lets the kernel batch them (an ``fsync`` right after each write costs several times more)."""
    done: list[Path] = []
    try:
        for rel, data in files.items():
            path = out_dir / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            with open(tmp, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
            done.append(path)
    except BaseException:
        for rel in files:
            path = out_dir / rel
            try:
                os.unlink(path.with_name(f".{path.name}.{os.getpid()}.tmp"))
            except FileNotFoundError:
                pass
        raise
    # Concurrent fsyncs share journal commits (ext4, xfs): several times faster than in turn.
    targets = [*done, *sorted({p.parent for p in done})]
    if not targets:
        while_syncing()
        return
    # Plain threads, not ``concurrent.futures``: importing it (and ``logging`` with it) cost a
    # one-edit rebuild ~4 ms of CPU for the two or three files it writes.
    import threading

    lanes = min(16, len(targets))
    failed: list[BaseException] = []

    def sync(paths: list[Path]) -> None:
        try:
            for path in paths:
                _fsync(path)
        except BaseException as exc:  # re-raised below, in the build's thread
            failed.append(exc)

    threads = [threading.Thread(target=sync, args=(targets[i::lanes],), daemon=True) for i in range(lanes)]
    for thread in threads:
        thread.start()
    try:
        while_syncing()  # fsync holds no GIL: other work fits in the wait
    finally:
        for thread in threads:
            thread.join()
    if failed:
        raise failed[0]


def _fsync(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - a directory handle on a platform without them
        if path.is_dir():
            return
        raise
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - directories that refuse fsync
        if not path.is_dir():
            raise
    finally:
        os.close(fd)


@contextlib.contextmanager
def _fewer_gc_passes() -> Iterator[None]:
    """Run the cyclic garbage collector rarely during a build. Parsing allocates ~1,000 libcst
    nodes per module; at the default threshold (700) every few statements trigger a collection
    that walks them, yet the trees hold no reference cycles (refcounting frees them). Measured:
    a cold build of 150 modules ~12 % faster serial, ~8 % with workers (forked workers inherit it)."""
    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], 50_000), *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)


def _file_bytes(path: str | os.PathLike[str]) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return None


def _display(path: Path, root: Path) -> str:
    try:
        return PurePosixPath(path.resolve().relative_to(root.resolve())).as_posix()
    except ValueError:
        return str(path)

