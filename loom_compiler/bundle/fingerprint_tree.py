"""``fingerprint_tree``: a project's flows through the build's cache, for every command that needs
only fingerprints (``loom fingerprint``, ``diff``, ``check``, ``version``).

A pre-commit hook runs ``loom check`` (or ``loom fingerprint``) on every commit, nearly always on
a tree that did not change. Those commands used to parse every flow module and every module the
closures reach on each run (``fingerprint_project``); now they go through the build's own pipeline
(``build._Pipeline`` with ``emit=False``) and its content-addressed ``.loom-cache``: same keys, same
entries, same safety rules (``cache``: plain typed JSON, never code; an entry that is not exactly a
value of its type is a miss). A flow module's result is served while every module its closure
computation asked for has the same path and bytes, from the build's entry when a build made one
(and emitted every chunk of it), else from an entry of its own kind (``fingerprints``). An
unchanged tree therefore costs reading and hashing its files and one entry per flow module:
libcst is not even imported.

The result is a ``fingerprint.ProjectResult`` equal to ``fingerprint_project``'s over the whole
tree (same flows and hashes, same errors but for the wording of an unreadable file's), except that
its ``summaries`` are empty: no caller of these commands reads them, and a warm run has none.
Explicit file lists and ``all_functions`` stay with ``fingerprint_project``: a hook fingerprints
the project.

Rejected: a second cache for these commands (a build right after a hook would parse everything
again, and two formats would have two sets of safety rules), and caching the whole project's
result as one entry (one edit would recompute every flow, and two checkouts would race on it).
``loom fingerprint``'s table of the whole project is also kept as a report keyed by the whole
tree (``tree_report``), *beside* these entries: an edit still recomputes only what it reaches.
"""

from __future__ import annotations

from ..config import LoomConfig
from ..flow_ids import duplicate_id_errors
from ..model import ProjectResult
from ..sources import SourceTree
from .cache import CACHE_DIRNAME, SummaryCache
from .progress import NullProgress
from .tree_report import FILE_DEP, TreeReads, output_dir

__all__ = ["fingerprint_tree", "fingerprint_tree_reads"]


def fingerprint_tree(config: LoomConfig, tree: SourceTree | None = None, *, use_cache: bool = True,
                     jobs: int | None = None) -> ProjectResult:
    """Fingerprint every flow of ``tree`` (default: the working tree at ``config.root``) through
    ``.loom-cache`` under the root. ``jobs`` as for ``build_project`` (None: automatic)."""
    return _fingerprint(config, tree, use_cache=use_cache, jobs=jobs, reads=False)[0]


def fingerprint_tree_reads(config: LoomConfig) -> tuple[ProjectResult, TreeReads | None]:
    """``fingerprint_tree`` of the working tree, and what its result depends on (``tree_report``):
    None when the tree could not be read whole (a file or directory it reports as unreadable)."""
    return _fingerprint(config, None, use_cache=True, jobs=None, reads=True)


def _fingerprint(config: LoomConfig, tree: SourceTree | None, *, use_cache: bool, jobs: int | None,
                 reads: bool) -> tuple[ProjectResult, TreeReads | None]:
    from .build import _collect_stable, _fewer_gc_passes, _Pipeline  # the build's own stages: both fill and read the same entries

    cache = SummaryCache(config.root / CACHE_DIRNAME, enabled=use_cache)
    pipeline = _Pipeline(config, cache, jobs=jobs, progress=NullProgress(), hide=output_dir(config), emit=False,
                         reads=reads)
    try:
        # a working tree that moved while it was read is read again, as the build does; the
        # garbage collector runs rarely, as in a build (the parse allocates, its trees hold no cycles)
        with _fewer_gc_passes():
            got = _collect_stable(pipeline, tree, config, label="loom fingerprint")
    finally:
        pipeline.close()
        cache.flush()
    flows = sorted(got.fingerprints, key=lambda f: (f.flow_id, f.path, f.line))
    errors = sorted(dict.fromkeys([*got.errors, *duplicate_id_errors(flows)]),
                    key=lambda e: (e.path, e.line, e.column, e.message))
    read: TreeReads | None = None
    src = got.source
    if src is not None and not src.errors:
        walked = [(m, src.path(m), src.sha(m)) for m in src.module_names()]
        names = {m for m, _path, _sha in walked}
        # ``<...>`` deps are facts of the walk, which the report's key pins; a file's (``<file>``) is not
        read = TreeReads(walked, tuple(sorted((d for d in got.deps if d[0] not in names and (
                                                   not d[0].startswith("<") or d[0].startswith(FILE_DEP))),
                                                 key=lambda d: (d[0], d[1] or "", d[2] or ""))))
    return ProjectResult(tuple(flows), tuple(errors)), read
