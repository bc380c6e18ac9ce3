"""Content-addressed cache of per-module analysis results (``.loom-cache/`` under the project root).

Key: sha256 over the cache format, the kind of entry, the schema digest of the cached type
(``cache_codec.schema_digest``: every field name and type of ``ModuleSummary`` and what it holds),
the fingerprint scheme, a token of the compiler's own code, the configuration digest
(``LoomConfig.digest``: decorators, step decorators, packages), the module's dotted name and path,
and the sha256 of the file's bytes. Whatever changes the analysis of a file changes the key, so an
entry is never invalidated: it is simply not asked for again (stale entries cost disk only;
``rm -rf .loom-cache`` is always safe). An edit to ``pricing.py`` therefore re-parses
``pricing.py`` alone; which *flows* it affects follows from the first-party import graph at
fingerprint time.

**What an entry can do: nothing but be a value.** An entry is the line
``loom-cache/3 <key> <sha256 of the rest>`` followed by the value as plain JSON (``cache_codec``: scalars, lists and objects, rebuilt into the
annotated dataclasses with every value type-checked). Reading one never runs code from it, and an
entry that is not exactly a value of the expected type — truncated, another key's, an old pickle,
crafted, 100,000 levels deep — is a cache miss (the module is parsed again), never a crashed or
misled ``loom build``. The header's digest of the value's bytes makes damage a miss too: a flipped
bit or an edited byte inside a string keeps the JSON valid and well typed (``RATE = 1`` read back
as ``RATE = 0`` in a chunk's text, under the codeHash of the source that says 1), and only a
digest tells the two apart (``loom-cache/2`` had none: breaker5's F5). What the cache still
decides is *content*: a hand-crafted entry whose author also recomputed the digest could carry a
wrong fingerprint or chunk text, as a poisoned ccache or Bazel cache could; share ``.loom-cache``
only between jobs that may also write the build output.

Entries are written through a temp file and ``os.replace``: a concurrent or interrupted build sees
a whole entry or none. They are not fsynced (unlike the manifest): a lost entry after a power cut
is only a cache miss, and an fsync per module would cost more than the parse it saves.

Rejected: pickle (a crafted entry executes code inside ``loom build``, and a valid pickle of the
wrong type crashed it with a ``KeyError``), mtime-based invalidation (git checkouts and CI caches
rewrite mtimes; content hashing is what Black learned to do), one big entry for the whole project
(every build would rewrite it, and two parallel builds would race on it), and sqlite (a dependency
on locking semantics for no gain).
"""

from __future__ import annotations

import hashlib
import os
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

from loom_runtime.files import read_regular_file
from loom_runtime.schemes import FINGERPRINT_SCHEME  # not .manifest: a warm hook does not load the manifest schema

from .cache_codec import CacheFormatError, decode, encode, schema_digest

__all__ = ["CACHE_DIRNAME", "Deps", "SummaryCache", "cache_key", "compiler_token", "encode_entry", "package_sources",
           "write_entries"]

CACHE_DIRNAME = ".loom-cache"
# One flat directory of entries: no 256-way fan-out by key prefix (ext4, APFS and NTFS index large
# directories; the fan-out cost a first build ~160 mkdir calls, ~1 ms each on a busy disk).
ENTRIES_DIRNAME = "entries"
#: The entry format; in every key and on every entry's first line (an entry of another format is
#: never looked up, and if renamed into place it is refused on read).
FORMAT = "loom-cache/3"
_SUFFIX = ".json"

#: What a cached value depends on besides its key (a flow module's entry: the modules its closure
#: computation asked for): ``(module, its path, the sha256 of its bytes)``, path and sha None when
#: absent. The path counts as well as the bytes: the same bytes moved from ``shop/util.py`` to
#: ``shop/util/__init__.py`` resolve their relative imports elsewhere. Names in ``<...>`` are facts
#: of the tree's whole listing (``build.LISTING``, ``build.HOOKS``).
Deps = tuple[tuple[str, Optional[str], Optional[str]], ...]


@lru_cache(maxsize=None)
def compiler_token(*, with_bundler: bool = False) -> str:
    """sha256 over the compiler's own source files: a fixed bug in the analysis must not be served
    from a cache filled by the buggy version, even when the scheme name stayed the same. Summaries
    do not depend on the bundler's code (``with_bundler=False``); cached chunks do."""
    h = hashlib.sha256()
    for rel, data in _compiler_sources():  # read once for both tokens
        if with_bundler or not rel.startswith("bundle/"):
            h.update(rel.encode() + b"\0" + data + b"\0")
    return h.hexdigest()


def _compiler_sources() -> tuple[tuple[str, bytes], ...]:
    """The compiler's sources that a cached value depends on (not the commands' and the CLI's)."""
    return tuple((rel, data) for rel, data in package_sources(os.path.dirname(os.path.dirname(__file__)))
                 if not rel.startswith("commands/") and rel not in ("cli.py", "__main__.py"))


@lru_cache(maxsize=None)
def package_sources(directory: str) -> tuple[tuple[str, bytes], ...]:
    """``(POSIX path under directory, bytes)`` of every ``.py`` file under ``directory``, in
    ``pathlib`` order; read once per process (a build needs two tokens of the compiler's: a
    ``pathlib`` walk and read per token cost a one-edit ``loom build`` ~5 ms)."""
    root = os.path.realpath(directory)
    found: list[tuple[list[str], str]] = []
    for top, _dirs, files in os.walk(root):
        base = os.path.relpath(top, root)
        parts = [] if base == "." else base.split(os.sep)
        found.extend(([*parts, name], os.path.join(top, name)) for name in files if name.endswith(".py"))
    out = []
    for parts, path in sorted(found):  # component-wise, as ``sorted(Path.rglob())``
        with open(path, "rb") as fh:
            out.append(("/".join(parts), fh.read()))
    return tuple(out)


@lru_cache(maxsize=None)
def _schema(value_type: Any) -> str:
    return schema_digest(value_type)


def cache_key(*, config_digest: str, module: str, path: str, content_sha256: str, value_type: Any,
              kind: str = "summary") -> str:
    """Key of one module's cached ``kind`` (``summary``: its analysis; ``flows``: its flows,
    closures and chunks, valid while the modules they reached are unchanged), a value of
    ``value_type`` (the annotation the entry is read back as)."""
    token = compiler_token(with_bundler=kind != "summary")
    parts = (FORMAT, kind, _schema(value_type), FINGERPRINT_SCHEME, token, config_digest, module, path, content_sha256)
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()


def encode_entry(key: str, value: Any, value_type: Any) -> bytes:
    """The bytes of one entry: the header line, then the value (``TypeError`` if it cannot be cached)."""
    return _entry(key, encode(value, value_type))


def _entry(key: str, body: bytes) -> bytes:
    return f"{FORMAT} {key} {hashlib.sha256(body).hexdigest()}\n".encode("ascii") + body


def decode_entry(key: str, data: bytes, value_type: Any, *, content_sha256: str | None = None) -> Any:
    """The value of an entry read under ``key``; ``CacheFormatError`` unless it is exactly one:
    the header names this format and key, and the sha256 of the bytes after it is the one the
    header records (and ``content_sha256``, when the entry is named by its content)."""
    prefix = f"{FORMAT} {key} ".encode("ascii")
    end = len(prefix) + 64
    if not data.startswith(prefix) or data[end:end + 1] != b"\n":
        raise CacheFormatError(f"not a {FORMAT} entry for this key")
    body = memoryview(data)[end + 1:]
    digest = hashlib.sha256(body).hexdigest()
    if data[len(prefix):end] != digest.encode("ascii"):
        raise CacheFormatError("damaged: its bytes are not the ones its header records")
    if content_sha256 is not None and digest != content_sha256:
        raise CacheFormatError("not the value this entry's name is the digest of")
    return decode(bytes(body), value_type)


class SummaryCache:
    """``get``/``put`` by key and value type; ``hits``/``misses`` count this build's lookups."""

    def __init__(self, directory: Path | str, *, enabled: bool = True) -> None:
        self.directory = Path(directory)
        self.enabled = enabled
        self.hits = 0
        self.misses = 0
        # Entries are encoded at ``put`` (the value is frozen then) and written together by
        # ``flush`` on this thread. Writer threads overlapping the parse looked free but were not:
        # each write is Python code holding the GIL, and the hand-offs between the parser and four
        # writers cost more than the writes (a cold build of 150 modules: ~1 s of 3.5 s).
        self._unflushed: dict[str, bytes] = {}  # put by this process, not yet on disk
        self._values: dict[str, Any] = {}  # the values put, served as they were put
        # A first build has no cache directory: skip one failed open() per module.
        self._empty = not self.directory.is_dir()
        # entries are named by string operations: a ``Path`` per lookup cost ~10 us (two per flow
        # module and summary on every build)
        self._prefix = os.path.join(os.fspath(self.directory), ENTRIES_DIRNAME, "")

    def _path(self, key: str) -> Path:
        return Path(self._file(key))

    def _file(self, key: str) -> str:
        return f"{self._prefix}{key}{_SUFFIX}"

    def get(self, key: str, value_type: Any, *, content_sha256: str | None = None) -> Any | None:
        """The value cached under ``key``, or None: absent, unreadable or not a ``value_type``.
        ``content_sha256``: an entry named by its content, whose value's bytes must have that
        sha256 (else a miss: another value put under its name is never trusted)."""
        if not self.enabled:
            self.misses += 1
            return None
        if key in self._values:
            self.hits += 1
            return self._values[key]
        if self._empty:
            self.misses += 1
            return None
        try:
            data = read_regular_file(self._file(key))  # a FIFO planted there must not hang the build
            value = decode_entry(key, data, value_type, content_sha256=content_sha256)
        except (OSError, CacheFormatError):  # absent, unreadable, or not this value: parse again
            self.misses += 1
            return None
        self.hits += 1
        return value

    def put(self, key: str, value: Any, value_type: Any, *, encoded: bytes | None = None) -> None:
        """Remember ``value`` for ``flush``. ``TypeError`` when it cannot be cached (a field typed
        ``Any``, a callable): a bug in the annotations, found by the first build of any test.
        ``encoded``: ``cache_codec.encode(value, value_type)``, when the caller has it already."""
        if not self.enabled:
            return
        self._unflushed[key] = _entry(key, encode(value, value_type) if encoded is None else encoded)
        self._values[key] = value

    def flush(self) -> None:
        """Write every ``put`` entry; see ``write_entries``."""
        pending, self._unflushed = self._unflushed, {}
        if pending:
            write_entries(self.directory, pending)
            self._empty = False

    def forked(self) -> None:
        """In a worker forked from the build: forget the entries the build put and has not written
        (it writes them itself); what the worker puts from now on, its ``flush`` writes."""
        self._unflushed = {}

    def written_elsewhere(self) -> None:
        """Entries were written by worker processes: look for them on disk from now on (a first
        build skips the lookups while it has written nothing)."""
        self._empty = False


def write_entries(directory: Path | str, entries: dict[str, bytes]) -> None:
    """Write encoded entries under ``directory``, each through a temp file and ``os.replace``. An
    I/O error drops the entry: a read-only checkout or a full disk must not fail the build. Also
    called by parse workers for the summaries they produce (in parallel, off the main process)."""
    sub = os.path.join(os.fspath(directory), ENTRIES_DIRNAME)
    try:
        os.makedirs(sub, exist_ok=True)
    except OSError:
        return
    _ignore_in_git(os.fspath(directory))
    # pid + thread id: unique among concurrent writers, cheaper than mkstemp's retries
    suffix = f".{os.getpid()}.{threading.get_ident()}.tmp"
    for key, data in entries.items():
        try:
            tmp = os.path.join(sub, f".{key[:16]}{suffix}")
            try:
                with open(tmp, "wb") as fh:
                    fh.write(data)
                os.replace(tmp, os.path.join(sub, f"{key}{_SUFFIX}"))
            except BaseException:
                try:
                    os.unlink(tmp)
                except FileNotFoundError:
                    pass
                raise
        except OSError:
            continue


#: what ``.loom-cache/.gitignore`` holds: git ignores the whole directory, whichever command made
#: it (``loom fingerprint``/``check``/``version`` write the cache too, in checkouts whose own
#: ``.gitignore`` never heard of it: a pre-commit hook must not leave the tree dirty)
GITIGNORE = b"# written by loom-toolchain: the cache is never committed\n*\n"


def _ignore_in_git(directory: str) -> None:
    path = os.path.join(directory, ".gitignore")
    if os.path.exists(path):
        return
    tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        with open(tmp, "wb") as fh:
            fh.write(GITIGNORE)
        os.replace(tmp, path)
    except OSError:  # a read-only checkout: the entries were not written either
        try:
            os.unlink(tmp)
        except OSError:
            pass
