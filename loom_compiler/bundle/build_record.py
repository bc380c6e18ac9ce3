"""A no-change ``loom build`` served from one record while nothing the last build read has changed.

After ``head entries`` (``version_facts``) a no-change ``loom build`` of 1,200 modules / 120 flows
still cost ~0.18 s of CPU as a process: importing the pipeline (``build``: the manifest schema,
the model, the version facts), reading 120 head entries and 50 dependency sets, loading the
previous manifest and dumping the merged one to find it equal. None of that can change the
outcome when the tree, the configuration, the compiler and the output directory read as they did
when the last build finished: that build's manifest merged with the same versions again is the
same manifest (``merge_manifest`` keeps the previous entries; the versions' chunk paths and
``rehashedFrom`` come from that manifest), so the rebuild writes nothing and reports every flow
unchanged. So every successful build of the working tree stores a **record** of what a rebuild
of the same state would find, and a build whose tree reads the same is served from it: the tree
read and hashed (as always: content, never mtimes), the record decoded, the manifest's bytes and
the chunks checked; the pipeline is not imported.

**Key.** ``cache_key`` (the compiler's token with the bundler's code, the fingerprint scheme, the
configuration digest) over: the running Python, the whole configuration (``repr``: ``out``,
``exclude``, ``check.strict`` change what a build reports), the resolved output directory, a
token of ``loom_runtime``'s code (it writes the manifest) and the *walk*: every module the tree
lists, with its path and the sha256 of its bytes. The record holds what the build read beyond the
walk (``Deps``: a module an import reached outside it, a module looked up and absent), checked
again before serving.

**What is checked before serving** (each miss runs the whole build, which repairs what it must):

* the tree: every file read whole and unchanged afterwards (``DirectorySourceTree.changed``); a
  file it cannot read or a directory it cannot list is never served: the build reports it;
* the manifest: its bytes' sha256 is the one the build wrote (an edited or deleted manifest is
  the pipeline's to merge or rewrite);
* each current version's chunk: the file the manifest names has the chunk's digest, and a
  version placed at a variant path (another text of the same codeHash was there first) still
  finds other bytes at its first-choice path, exactly as the build's ``place`` would decide: a
  deleted chunk makes the build run and write it again (an edited one: its text beside it, as a
  variant, since existing bytes are never rewritten);
* every older version's chunk: present or missing as it was (a missing one is a warning the
  record carries).

Not served, not recorded: ``--no-cache``, history refs (``[tool.loom] history``, ``--from-git``: a
ref can move), a caller's own tree, a build with errors, and a build whose chunk paths could
collide (two current versions with one candidate path; never seen, but ``place`` would then
depend on their order).

Same safety rules as every entry (``cache``): plain typed JSON named by its inputs, written through
a temp file and ``os.replace`` after the manifest it describes; an entry that is not exactly a
value of its type is a miss; a read failure is never an absence. Rejected: an mtime check of the
tree or the output (checkouts rewrite mtimes; an edit within the same second keeps them), and
serving from the manifest alone (it says nothing of the tree that made it).
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from loom_runtime.hashing import sha256_digest

from ..sources import DirectorySourceTree, SourceReadError
from .cache import CACHE_DIRNAME, Deps, SummaryCache, cache_key, package_sources
from .chunk_file import chunk_path_for
from .progress import BuildSummary
from .tree_report import unchanged_beyond

if TYPE_CHECKING:
    from ..config import LoomConfig

__all__ = ["BuildRecord", "Served", "WalkedTree", "record_key", "serve", "served_build", "walked_modules"]

#: ``(what the build read beyond the walk, sha256 of the manifest's bytes, each current version's
#: chunk as (flow id, codeHash, its path, its digest), each older version's chunk path and
#: whether it was there, the warnings, the working tree's flow ids sorted, the modules whose
#: analysis the flows used)``
BuildRecord = tuple[
    Deps,
    str,
    tuple[tuple[str, str, str, str], ...],
    tuple[tuple[str, bool], ...],
    tuple[str, ...],
    tuple[str, ...],
    int,
]


class Served:
    """What a build served from its record reports (``BuildReport`` without the manifest)."""

    __slots__ = ("flow_ids", "summary", "warnings")

    def __init__(self, flow_ids: tuple[str, ...], warnings: tuple[str, ...], summary: BuildSummary) -> None:
        self.flow_ids = flow_ids
        self.warnings = warnings
        self.summary = summary


class WalkedTree(DirectorySourceTree):
    """A working tree walked and read once: a build that is not served collects from it without
    reading the files again (its first attempt; a tree that moved is read afresh, as always).
    Every read went through ``read_file``, so ``changed()`` covers it."""

    def __init__(self, config: LoomConfig) -> None:
        super().__init__(config=config)
        self._walked: list[tuple[str, str, str]] | None = None
        self._bytes: dict[str, bytes] = {}
        self._digests: dict[str, str] = {}  # file path -> sha256 hex of ``_bytes[path]``

    def walk(self):  # type: ignore[override]  # the same triples, walked once
        if self._walked is None:
            self._walked = list(super().walk())
        return iter(self._walked)

    def read_file(self, path: str, rel: str) -> bytes:
        data = self._bytes.get(path)
        if data is None:
            data = self._bytes[path] = super().read_file(path, rel)
        return data

    def file_digest(self, path: str, rel: str) -> str:
        """The sha256 (hex) of ``read_file(path, rel)``, hashed once."""
        digest = self._digests.get(path)
        if digest is None:
            digest = self._digests[path] = hashlib.sha256(self.read_file(path, rel)).hexdigest()
        return digest

    def known_digest(self, module: str) -> str | None:
        """The sha256 of ``read(module)`` when the walk hashed that file (the build's ``_Source``
        then hashes it no second time), else None."""
        entry = self._lookup(module)
        return self._digests.get(entry.path) if entry is not None else None


def walked_modules(tree: WalkedTree, hide: str | None) -> list[tuple[str, str, str]] | None:
    """``(module, path, sha256)`` of every module ``tree`` lists outside the hidden output
    directory, sorted; None when a file cannot be read or a directory cannot be listed."""
    prefix = _hidden_prefix(hide)
    walked: list[tuple[str, str, str]] = []
    try:
        for module, rel, path in tree.walk():
            if prefix is None or not rel.startswith(prefix):
                walked.append((module, rel, tree.file_digest(path, rel)))
    except SourceReadError:
        return None
    if tree.walk_errors:
        return None
    walked.sort()
    return walked


def serve(config: LoomConfig, out: str | os.PathLike[str] | None = None) -> tuple[Served | None, WalkedTree | None]:
    """``served_build`` for ``loom build``'s arguments (``out`` as ``build_project`` takes it),
    under the output directory's lock; the caller decides whether a record may serve at all (no
    ``--no-cache``, no history refs)."""
    if not (config.root / CACHE_DIRNAME).is_dir():
        return None, None
    from .output_lock import output_lock

    out_dir = Path(config.root, out if out is not None else config.out).resolve()
    try:
        hide: str | None = out_dir.relative_to(config.root.resolve()).as_posix()
    except ValueError:
        hide = None
    with output_lock(out_dir):
        return served_build(config, out_dir, hide)


def served_build(config: LoomConfig, out_dir: Path, hide: str | None) -> tuple[Served | None, WalkedTree | None]:
    """The record's report when the working tree, the manifest and the chunks in ``out_dir``
    read as the last build left them, else None; and the tree as read (None: it could not be
    read whole and still, or there was no cache to look in: the build reads it itself). Call it
    holding ``out_dir``'s lock (``output_lock``), as a build reads its manifest."""
    cache = SummaryCache(config.root / CACHE_DIRNAME)
    if not cache.directory.is_dir():
        return None, None  # a first build: nothing to serve, and no record to key
    tree = WalkedTree(config)
    walked = walked_modules(tree, hide)
    if walked is None:
        return None, tree
    record = cache.get(record_key(config, out_dir, hide, walked), BuildRecord)
    if record is None:
        return None, tree
    beyond, manifest_sha, current, older, warnings, flow_ids, modules = record
    if not unchanged_beyond(tree, _hidden_prefix(hide), beyond) or not _output_as_recorded(
            out_dir, manifest_sha, current, older):
        return None, tree
    if tree.changed():
        return None, None  # moved while read: the build reads it again (and retries, or says so)
    summary = BuildSummary(flows=len(flow_ids), new_versions=0, unchanged=len(flow_ids), removed=0, errors=0,
                           seconds=0.0, modules_parsed=0, modules_cached=modules)
    return Served(flow_ids, warnings, summary), tree


def record_key(config: LoomConfig, out_dir: Path, hide: str | None, walked: Sequence[tuple[str, str, str]]) -> str:
    h = hashlib.sha256()
    h.update(f"{sys.implementation.name} {sys.version}\0{hide or ''}\0{os.fspath(out_dir)}\0{config!r}\0"
             f"{_runtime_token()}\0".encode("utf-8", "surrogatepass"))
    for module, rel, sha in walked:
        h.update(f"{module}\0{rel}\0{sha}\n".encode("utf-8", "surrogatepass"))
    return cache_key(config_digest=config.digest, module="<build>", path="", content_sha256=h.hexdigest(),
                     kind="build-record", value_type=BuildRecord)


@lru_cache(maxsize=None)
def _runtime_token() -> str:
    """sha256 over ``loom_runtime``'s source: it writes the manifest a record vouches for."""
    import loom_runtime

    h = hashlib.sha256()
    for rel, data in package_sources(os.path.dirname(loom_runtime.__file__)):
        h.update(rel.encode() + b"\0" + data + b"\0")
    return h.hexdigest()


def _output_as_recorded(out_dir: Path, manifest_sha: str, current: Sequence[tuple[str, str, str, str]],
                        older: Sequence[tuple[str, bool]]) -> bool:
    prefix = os.path.join(out_dir, "")
    digests: dict[str, str | None] = {}

    def digest(rel: str) -> str | None:
        if rel not in digests:
            data = _file_bytes(prefix + rel)
            digests[rel] = None if data is None else sha256_digest(data)
        return digests[rel]

    data = _file_bytes(prefix + "manifest.json")
    if data is None or hashlib.sha256(data).hexdigest() != manifest_sha:
        return False
    for flow_id, code_hash, rel, chunk_digest in current:
        base = chunk_path_for(flow_id, code_hash)
        # as ``build``'s ``place`` decides: the first-choice path if it holds the chunk, else the
        # path the manifest names; a variant stays only while the first choice holds other bytes
        if digest(rel) != chunk_digest or (rel != base and digest(base) == chunk_digest):
            return False
    return all(os.path.isfile(prefix + rel) == present for rel, present in older)


def _file_bytes(path: str) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return None


def _hidden_prefix(hide: str | None) -> str | None:
    return None if hide in (None, ".") else hide.rstrip("/") + "/"  # type: ignore[union-attr]
