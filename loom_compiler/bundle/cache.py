"""Content-addressed cache of per-module analysis results (``.loom-cache/`` under the project root).

Key: sha256 over the cache format, the fingerprint scheme, a token of the compiler's own code, the
configuration digest (``LoomConfig.digest``: decorators, step decorators, packages), the module's
dotted name and path, and the sha256 of the file's bytes. Whatever changes the analysis of a file
changes the key, so an entry is never invalidated: it is simply not asked for again (stale entries
cost disk only; ``rm -rf .loom-cache`` is always safe). An edit to ``pricing.py`` therefore re-parses
``pricing.py`` alone; which *flows* it affects follows from the first-party import graph at
fingerprint time.

Values are pickles of the picklable ``ModuleSummary`` (or ``SourceError``) written through a temp
file and ``os.replace``: a concurrent or interrupted build sees a whole entry or none. Entries are
not fsynced (unlike the manifest): a lost entry after a power cut is only a cache miss, and an
fsync per module would cost more than the parse it saves. A corrupt or unreadable entry is a miss.

Rejected: mtime-based invalidation (git checkouts and CI caches rewrite mtimes; content hashing is
what Black learned to do), one big pickle for the whole project (every build would rewrite it, and
two parallel builds would race on it), and sqlite (a dependency on locking semantics for no gain).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

from loom_runtime.manifest import FINGERPRINT_SCHEME

__all__ = ["CACHE_DIRNAME", "SummaryCache", "cache_key", "compiler_token", "write_entries"]

CACHE_DIRNAME = ".loom-cache"
# One flat directory of entries: no 256-way fan-out by key prefix (ext4, APFS and NTFS index large
# directories; the fan-out cost a first build ~160 mkdir calls, ~1 ms each on a busy disk).
ENTRIES_DIRNAME = "entries"
_FORMAT = "loom-cache/1"


@lru_cache(maxsize=None)
def compiler_token(*, with_bundler: bool = False) -> str:
    """sha256 over the compiler's own source files: a fixed bug in the analysis must not be served
    from a cache filled by the buggy version, even when the scheme name stayed the same. Summaries
    do not depend on the bundler's code (``with_bundler=False``); cached chunks do."""
    pkg = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for path in sorted(pkg.rglob("*.py")):
        rel = path.relative_to(pkg).as_posix()
        if rel.startswith("commands/") or rel in ("cli.py", "__main__.py") or (rel.startswith("bundle/") and not with_bundler):
            continue
        h.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def cache_key(*, config_digest: str, module: str, path: str, content_sha256: str, kind: str = "summary") -> str:
    """Key of one module's cached ``kind`` (``summary``: its analysis; ``flows``: its flows,
    closures and chunks, valid while the modules they reached are unchanged)."""
    token = compiler_token(with_bundler=kind != "summary")
    parts = (_FORMAT, kind, FINGERPRINT_SCHEME, token, config_digest, module, path, content_sha256)
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()


class SummaryCache:
    """``get``/``put`` by key; ``hits``/``misses`` count this build's lookups for the summary."""

    def __init__(self, directory: Path | str, *, enabled: bool = True) -> None:
        self.directory = Path(directory)
        self.enabled = enabled
        self.hits = 0
        self.misses = 0
        # Entries are pickled at ``put`` (the value is frozen then) and written together by
        # ``flush`` on this thread. Writer threads overlapping the parse looked free but were not:
        # each write is Python code holding the GIL, and the hand-offs between the parser and four
        # writers cost more than the writes (a cold build of 150 modules: ~1 s of 3.5 s).
        self._unflushed: dict[str, bytes] = {}  # put by this process, not yet on disk
        # A first build has no cache directory: skip one failed open() per module.
        self._empty = not self.directory.is_dir()

    def _path(self, key: str) -> Path:
        return self.directory / ENTRIES_DIRNAME / f"{key}.pickle"

    def get(self, key: str) -> Any | None:
        if not self.enabled:
            self.misses += 1
            return None
        try:
            if key in self._unflushed:
                value = pickle.loads(self._unflushed[key])
            elif self._empty:
                self.misses += 1
                return None
            else:
                with open(self._path(key), "rb") as fh:
                    value = pickle.load(fh)
        except FileNotFoundError:
            self.misses += 1
            return None
        except Exception:  # a truncated or foreign file is a miss, never a failed build
            self.misses += 1
            return None
        self.hits += 1
        return value

    def put(self, key: str, value: Any) -> None:
        if not self.enabled:
            return
        self._unflushed[key] = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)

    def flush(self) -> None:
        """Write every ``put`` entry; see ``write_entries``."""
        pending, self._unflushed = self._unflushed, {}
        if pending:
            write_entries(self.directory, pending)
            self._empty = False


def write_entries(directory: Path | str, entries: dict[str, bytes]) -> None:
    """Write pickled entries under ``directory``, each through a temp file and ``os.replace``. An
    I/O error drops the entry: a read-only checkout or a full disk must not fail the build. Also
    called by parse workers for the summaries they produce (in parallel, off the main process)."""
    sub = os.path.join(os.fspath(directory), ENTRIES_DIRNAME)
    try:
        os.makedirs(sub, exist_ok=True)
    except OSError:
        return
    # pid + thread id: unique among concurrent writers, cheaper than mkstemp's retries
    suffix = f".{os.getpid()}.{threading.get_ident()}.tmp"
    for key, data in entries.items():
        try:
            tmp = os.path.join(sub, f".{key[:16]}{suffix}")
            try:
                with open(tmp, "wb") as fh:
                    fh.write(data)
                os.replace(tmp, os.path.join(sub, f"{key}.pickle"))
            except BaseException:
                try:
                    os.unlink(tmp)
                except FileNotFoundError:
                    pass
                raise
        except OSError:
            continue
