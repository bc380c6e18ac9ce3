"""A whole-tree command's report served from ``.loom-cache`` while nothing it read has changed.

What a pre-commit hook runs on nearly every commit is ``loom fingerprint`` on a tree whose flows
did not move. Served from the per-module entries (``fingerprint_tree``) that costs reading and
hashing the tree and decoding one entry per flow module, but also importing the pipeline that
could recompute them (``build``, the model's dataclasses, the flow definitions): ~30 of the
~38 ms a warm run of the example cost over start-up were imports, not work. So the command's report itself (its
standard output, its error lines and its exit status) is cached beside the entries it came
from, and a run whose tree reads the same is that report printed again, with only the source
tree, the cache and their hashing imported.

**Key and validity.** The key covers the command and the digest of the code that renders its
report (``renderer``, the command's own modules: ``compiler_token`` leaves ``commands/`` out), the
running Python (what CPython accepts is part of every result), the configuration digest, the
output directory the tree hides, the compiler's token (``cache_key``) and the *walk*: every
module the tree lists, with its path and the sha256 of its bytes. The entry holds what the
pipeline read beyond the walk (``Deps``: a module an import reached through a file ``exclude``
leaves out of the walk, or a module looked up and absent), each checked against the tree
again before the report is served; the pipeline's ``<...>`` dependencies (the listing, the
engine-hook candidates) are facts of the walk, which the key pins. A tree that moved while it
was read (``DirectorySourceTree.changed``), a file it could not read or a directory it could not
list is never served nor stored: the pipeline runs and reports it.

Same safety rules as every entry (``cache``): plain typed JSON, named by its inputs, written
through a temp file and ``os.replace``; an entry that is not exactly a value of its type is a miss.
Content-addressed, so two checkouts sharing a cache never overwrite each other's report, and one
edit costs what it costs without this module (the per-module entries still serve every flow
module the edit did not reach) plus one small entry.

Rejected: caching the project's ``ProjectResult`` instead of the report (its closures' canonical
forms made the entry as large as every flow module's entries together, once per tree state, and
decoding it needs the model the cache exists to avoid importing), and an mtime check of the tree
(checkouts rewrite mtimes, and an edit within the same second keeps them).
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..sources import DirectorySourceTree, SourceReadError
from .cache import CACHE_DIRNAME, Deps, SummaryCache, cache_key

if TYPE_CHECKING:
    from ..config import LoomConfig

__all__ = ["FILE_DEP", "Report", "TreeReads", "keep_report", "output_dir", "served_report", "unchanged_beyond"]

#: ``(what the pipeline read beyond the walk, standard output, error lines, exit status)``
Report = tuple[Deps, str, tuple[str, ...], int]


class TreeReads:
    """What a whole-tree run read (``fingerprint_tree.fingerprint_tree_reads``): ``walked``, every
    ``(module, path, sha256)`` the tree lists; ``beyond``, the dependencies of its result that
    are not among them. A plain class (one value per run, never cached itself)."""

    __slots__ = ("beyond", "walked")

    def __init__(self, walked: Sequence[tuple[str, str, str]], beyond: Deps) -> None:
        self.walked = tuple(sorted(walked))
        self.beyond = beyond


def served_report(config: LoomConfig, command: str, renderer: Sequence[Path], hide: str | None) -> Report | None:
    """The report ``keep_report`` stored for this tree as it reads now, or None (a miss, or a tree
    that could not be read whole and still)."""
    cache = SummaryCache(config.root / CACHE_DIRNAME)
    if not cache.directory.is_dir():
        return None  # a first run: no report to find, and the tree is read by the pipeline anyway
    tree = DirectorySourceTree(config=config)
    prefix = _hidden_prefix(hide)
    walked: list[tuple[str, str, str]] = []
    try:
        for module, rel, path in tree.walk():
            if prefix is None or not rel.startswith(prefix):
                walked.append((module, rel, hashlib.sha256(tree.read_file(path, rel)).hexdigest()))
    except SourceReadError:
        return None
    if tree.walk_errors:
        return None
    report = cache.get(_key(config, command, renderer, hide, sorted(walked)), Report)
    if report is None or not unchanged_beyond(tree, prefix, report[0]) or tree.changed():
        return None
    return report


def keep_report(config: LoomConfig, command: str, renderer: Sequence[Path], hide: str | None, reads: TreeReads,
                out: str, err: Sequence[str], status: int) -> None:
    """Store a report computed from ``reads`` (through the same tree read)."""
    cache = SummaryCache(config.root / CACHE_DIRNAME)
    cache.put(_key(config, command, renderer, hide, reads.walked), (reads.beyond, out, tuple(err), status), Report)
    cache.flush()


def output_dir(config: LoomConfig) -> str | None:
    """The build's output directory relative to the root (its chunks declare flows too), hidden
    from the tree as ``build_project`` hides it."""
    try:
        return Path(config.root, config.out).resolve().relative_to(config.root.resolve()).as_posix()
    except ValueError:
        return None


def _hidden_prefix(hide: str | None) -> str | None:
    # as ``build._Source`` hides the output directory
    return None if hide in (None, ".") else hide.rstrip("/") + "/"  # type: ignore[union-attr]


def _key(config: LoomConfig, command: str, renderer: Sequence[Path], hide: str | None,
         walked: Sequence[tuple[str, str, str]]) -> str:
    h = hashlib.sha256()
    h.update(f"{sys.implementation.name} {sys.version}\0{hide or ''}\0".encode())
    for path in renderer:
        h.update(path.read_bytes() + b"\0")
    for module, rel, sha in walked:
        h.update(f"{module}\0{rel}\0{sha}\n".encode("utf-8", "surrogatepass"))
    return cache_key(config_digest=config.digest, module=command, path="", content_sha256=h.hexdigest(),
                     kind="report", value_type=Report)


#: the dependency on a project file that is no module, ``<file>`` + its POSIX path (code loaded by
#: path is hashed by its bytes, F10): not in the walk, so checked here like a module beyond it
FILE_DEP = "<file>"


def unchanged_beyond(tree: DirectorySourceTree, prefix: str | None, beyond: Deps) -> bool:
    """Whether every dependency of ``beyond`` is as in ``tree`` (``<...>`` ones but ``<file>``:
    facts of the walk; ``prefix``: the hidden output directory). Also ``build_record``'s."""
    for module, path, sha in beyond:
        if module.startswith(FILE_DEP):
            try:
                data = tree.read_data(module[len(FILE_DEP):])
            except SourceReadError:
                return False
            if (hashlib.sha256(data).hexdigest() if data is not None else None) != sha:
                return False
            continue
        if module.startswith("<"):
            continue
        now = tree.path_of(module)
        if now is not None and prefix is not None and now.startswith(prefix):
            now = None
        if now != path:
            return False
        if path is None:
            continue
        try:
            data = tree.read(module)
        except SourceReadError:
            return False
        if data is None or hashlib.sha256(data).hexdigest() != sha:
            return False
    return True
