"""SQLite journal store: the embedded default (a real file, WAL, one transaction per append).

Layout (journal schema :data:`JOURNAL_SCHEMA`, recorded in ``meta``)::

    meta(key PRIMARY KEY, value)                      -- journalSchema, eventSchema
    executions(execution_id PRIMARY KEY, flow_id, status, gate, wake_at, flow_hash, code_hash,
               last_seq, lease_owner, lease_epoch, lease_expires)
    events(execution_id, seq, type, payload JSON, schema, recorded_at, UNIQUE(execution_id, seq))

An append runs ``BEGIN IMMEDIATE`` (the write lock is taken up front, so two processes serialise
instead of deadlocking on a lock upgrade), compares ``expected_seq`` with ``executions.last_seq``,
inserts the batch and updates the summary row, then commits: all or nothing. The ``UNIQUE``
constraint is the last line of the fence should two writers ever get past the check. WAL lets
readers (the ops CLI, a census) run beside a writer. ``synchronous=FULL`` because a journal that
loses an acknowledged append after a power cut would re-run an effect.

One connection per store object, guarded by a lock, ``check_same_thread=False``: the runtime is a
synchronous driver, so contention inside one process is low; several processes each open their own
store on the same file. Rejected: a connection per thread (connections leak with short-lived
threads, and nothing here needs parallel reads inside one process).

Every ``sqlite3`` error (a lock held past ``timeout``, a full disk, a closed store) surfaces as a
:class:`~loom_runtime.errors.JournalError`, and a failed ``COMMIT`` is rolled back, so the runtime
stops as a crash would instead of handing a flow body an exception it could catch and record.

A file written by a newer journal or event schema is refused at open with
:class:`~loom_runtime.errors.JournalSchemaError`; it is never "upgraded" by an older runtime, and it
is refused *before* anything is written: the schema is read first, so the file keeps its journal
mode and gains no table. A file that is not a database at all is a ``JournalError``, not a
traceback.

``read_only=True`` (``open_journal(url, read_only=True)``, what the ops commands use) opens the file
``mode=ro`` and never creates, migrates or switches it to WAL; it refuses a missing path, a FIFO or
directory, an empty file, a file without the SQLite header, a database without loom's tables (or
with tables of those names but other columns) and a newer schema, each with a message naming the
file. Writes through such a store fail with a ``JournalError``. Reading a WAL-mode file still maps
SQLite's ``-shm``/``-wal`` companions (a reader must); the database file itself is untouched.
"""

from __future__ import annotations

import functools
import os
import sqlite3
import stat
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from ..errors import ExecutionNotFoundError, FencingError, JournalError
from .events import (
    EVENT_SCHEMA,
    TIMER_GATE_PREFIX,
    Event,
    ExecutionSummary,
    NewEvent,
    apply_to_summary,
    decode_rows,
    encode_payload,
)
from .bulk import batches, decode_grouped
from .protocol import (
    Lease,
    check_expected_seq,
    check_lease,
    check_started,
    check_store_schemas,
    first_lease,
    grant_lease,
    releases_lease,
    renewed,
)

__all__ = ["SqliteJournal", "JOURNAL_SCHEMA", "check_loom_file"]

_T = TypeVar("_T")

#: Table layout version of this store.
JOURNAL_SCHEMA = 1

_DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS executions (
    execution_id TEXT PRIMARY KEY,
    flow_id TEXT NOT NULL,
    status TEXT NOT NULL,
    gate TEXT,
    wake_at REAL,
    flow_hash TEXT,
    code_hash TEXT,
    last_seq INTEGER NOT NULL,
    lease_owner TEXT,
    lease_epoch INTEGER NOT NULL DEFAULT 0,
    lease_expires REAL NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS executions_by_status ON executions (status, flow_id, code_hash);
CREATE INDEX IF NOT EXISTS executions_by_wake ON executions (wake_at) WHERE wake_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS events (
    execution_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    payload TEXT NOT NULL,
    schema INTEGER NOT NULL,
    recorded_at REAL NOT NULL,
    UNIQUE (execution_id, seq)
);
"""

# What a read-only open insists on finding (a foreign database with tables of these names is refused).
_REQUIRED_COLUMNS = {
    "meta": {"key", "value"},
    "executions": {"execution_id", "flow_id", "status", "gate", "wake_at", "flow_hash", "code_hash", "last_seq",
                   "lease_owner", "lease_epoch", "lease_expires"},
    "events": {"execution_id", "seq", "type", "payload", "schema", "recorded_at"},
}
_SQLITE_MAGIC = b"SQLite format 3\x00"

_SUMMARY_COLS = "execution_id, flow_id, status, last_seq, flow_hash, code_hash, gate, wake_at"
# An append that parks or ends the execution frees its lease in the same statement (the epoch stays).
_RELEASE_SQL = {False: "", True: ", lease_owner=NULL, lease_expires=0"}


def check_loom_file(path: str) -> None:
    """Refuse, before SQLite opens it, a path that cannot be a loom journal: missing, not a regular
    file (a FIFO would block the open), empty (SQLite would take it for a new database) or not a
    SQLite file at all (text, JSON, a tarball). Read-only opens only: a service creates its journal."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise JournalError(
            f"no SQLite journal at {path} ({exc.strerror}); check the path "
            "(sqlite:///relative/path.db or sqlite:////absolute/path.db)"
        ) from None
    if not stat.S_ISREG(st.st_mode):
        raise JournalError(f"{path}: not a regular file, so not a loom journal; point --store at the journal file")
    if st.st_size == 0:
        raise JournalError(
            f"{path}: an empty file, not a loom journal (SQLite would read it as an empty database); "
            "point --store at the journal the service writes"
        )
    try:
        # O_NONBLOCK and fstat: the path may have become a FIFO since the stat above
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        try:
            head = os.read(fd, len(_SQLITE_MAGIC)) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
        finally:
            os.close(fd)
    except OSError as exc:
        raise JournalError(f"{path}: cannot read the journal ({exc.strerror})") from None
    if head != _SQLITE_MAGIC:
        raise JournalError(
            f"{path}: not a SQLite database (it does not start with the SQLite header), so not a loom journal; "
            "point --store at the journal the service writes"
        )


def _storage_errors(method: Callable[..., _T]) -> Callable[..., _T]:
    """sqlite3's own errors (a write lock held past the busy timeout, a full disk, a closed store) as
    :class:`JournalError`. The runtime stops on a JournalError as a crash would; a raw
    ``sqlite3.OperationalError`` raised into a flow body was an ordinary exception there, which a
    body could catch and the runtime recorded as the flow's failure (or, caught, its completion)."""

    @functools.wraps(method)
    def guarded(self: SqliteJournal, *args: Any, **kwargs: Any) -> _T:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: {method.__name__.lstrip('_')} failed ({exc})") from exc

    return guarded


class SqliteJournal:
    def __init__(
        self, path: str | os.PathLike[str], *, timeout: float = 30.0, clock=time.time, synchronous: str = "FULL",
        read_only: bool = False,
    ) -> None:
        """``synchronous``: ``FULL`` (default) fsyncs every commit, so an acknowledged append survives a
        power cut; ``NORMAL`` (WAL) survives a process crash but may lose the last commits on power
        loss, for roughly an order of magnitude more appends per second.

        ``read_only``: open an existing loom journal for reading (the ops commands): the file is
        opened ``mode=ro`` and never created, migrated or switched to WAL, and anything that is not
        a loom journal of a known schema is refused (see :func:`check_loom_file`); every write
        then fails with a :class:`JournalError`."""
        if synchronous not in ("FULL", "NORMAL"):
            raise ValueError(f"synchronous must be 'FULL' or 'NORMAL', got {synchronous!r}")
        self.path = os.fspath(path)
        self.read_only = read_only
        self._clock = clock
        self._lock = threading.RLock()
        if read_only:
            check_loom_file(self.path)
        try:
            if read_only:
                uri = "file:" + urllib.parse.quote(os.path.abspath(self.path)) + "?mode=ro"
                self._conn = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None,
                                             check_same_thread=False)
            else:
                self._conn = sqlite3.connect(self.path, timeout=timeout, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: cannot open the SQLite journal ({exc})") from None
        try:
            self._conn.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
            # Look before writing anything: a journal of a newer schema (or not a journal at all)
            # is refused while the file is still exactly as it was found (no WAL switch, no table).
            self._check_existing(require=read_only)
            if not read_only:
                self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.execute(f"PRAGMA synchronous={synchronous}")
                self._init_schema()
        except sqlite3.Error as exc:
            self._conn.close()
            raise JournalError(f"{self.path}: cannot open the SQLite journal ({exc})") from None
        except BaseException:
            self._conn.close()
            raise

    def _check_existing(self, *, require: bool) -> None:
        """Refuse a file whose loom tables say a newer (or unreadable) schema, before any write;
        with ``require``, also a database that has no loom journal tables or lacks their columns."""
        tables = {name for (name,) in self._conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        ours = {"meta", "executions", "events"}
        if not tables & ours:
            if require:
                listed = ", ".join(sorted(tables)[:5]) or "none"
                raise JournalError(
                    f"{self.path}: a SQLite database without loom's journal tables (its tables: {listed}); "
                    "this is not a loom journal. Point --store at the journal the service writes"
                )
            return
        if "meta" in tables:
            rows = dict(self._conn.execute("SELECT key, value FROM meta").fetchall())
            if rows or require:
                check_store_schemas(rows, journal_schema=JOURNAL_SCHEMA, where=self.path)
        if require:
            for table, columns in _REQUIRED_COLUMNS.items():
                have = {row[1] for row in self._conn.execute(f"PRAGMA table_info({table})")}
                if not columns <= have:
                    missing = ", ".join(sorted(columns - have))
                    raise JournalError(
                        f"{self.path}: table `{table}` lacks the journal's columns ({missing}); this is not a loom "
                        "journal of a known schema. Point --store at the journal the service writes"
                    )

    @_storage_errors
    def _init_schema(self) -> None:
        with self._tx():
            # executescript() would COMMIT our transaction; run the DDL statement by statement.
            for stmt in _DDL.split(";"):
                if stmt.strip():
                    self._conn.execute(stmt)
            rows = dict(self._conn.execute("SELECT key, value FROM meta").fetchall())
            if not rows:
                self._conn.executemany(
                    "INSERT INTO meta (key, value) VALUES (?, ?)",
                    [("journalSchema", str(JOURNAL_SCHEMA)), ("eventSchema", str(EVENT_SCHEMA))],
                )
                return
        check_store_schemas(rows, journal_schema=JOURNAL_SCHEMA, where=self.path)

    class _Tx:
        def __init__(self, store: SqliteJournal) -> None:
            self.store = store

        def __enter__(self) -> sqlite3.Connection:
            self.store._lock.acquire()
            try:
                self.store._conn.execute("BEGIN IMMEDIATE")
            except BaseException:
                self.store._lock.release()
                raise
            return self.store._conn

        def __exit__(self, exc_type, exc, tb) -> None:
            conn = self.store._conn
            try:
                if exc_type is not None:
                    conn.execute("ROLLBACK")
                    return
                try:
                    conn.execute("COMMIT")
                except BaseException:
                    # A failed COMMIT can leave the transaction open; the next BEGIN would then fail
                    # on every call of this store. Nothing of it was committed: roll it back.
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
            finally:
                self.store._lock.release()

    def _tx(self) -> SqliteJournal._Tx:
        return SqliteJournal._Tx(self)

    @_storage_errors
    def create(self, execution_id: str, started: NewEvent) -> int:
        self._create(execution_id, started, owner=None, ttl=0.0)
        return 1

    @_storage_errors
    def create_leased(self, execution_id: str, started: NewEvent, *, owner: str, ttl: float) -> Lease:
        lease = self._create(execution_id, started, owner=owner, ttl=ttl)
        assert lease is not None
        return lease

    def _create(self, execution_id: str, started: NewEvent, *, owner: str | None, ttl: float) -> Lease | None:
        check_started(execution_id, started)
        text = encode_payload(started)
        summary = apply_to_summary(None, execution_id, 1, started)
        try:
            with self._tx() as conn:
                now = self._clock()
                lease = None if owner is None else first_lease(execution_id, owner, ttl=ttl, now=now)
                conn.execute(
                    "INSERT INTO executions (execution_id, flow_id, status, last_seq, flow_hash, code_hash,"
                    " lease_owner, lease_epoch, lease_expires) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (execution_id, summary.flow_id, summary.status, 1, summary.flow_hash, summary.code_hash,
                     owner, 0 if lease is None else lease.epoch, 0.0 if lease is None else lease.expires_at),
                )
                conn.execute(
                    "INSERT INTO events (execution_id, seq, type, payload, schema, recorded_at) VALUES (?, 1, ?, ?, ?, ?)",
                    (execution_id, started.type, text, EVENT_SCHEMA, now),
                )
        except sqlite3.IntegrityError:
            raise JournalError(f"execution `{execution_id}` already exists; pick another execution id") from None
        return lease

    @_storage_errors
    def append(
        self, execution_id: str, events: Sequence[NewEvent], *, expected_seq: int, lease: Lease | None = None
    ) -> int:
        texts = [encode_payload(e) for e in events]
        try:
            with self._tx() as conn:
                summary, owner, epoch, expires = self._row(conn, execution_id)
                check_expected_seq(execution_id, expected=expected_seq, actual=summary.last_seq)
                now = self._clock()
                check_lease(execution_id, lease, owner=owner, epoch=epoch, expires_at=expires, now=now)
                if not events:  # fenced, and nothing else: an empty batch frees no lease (protocol doc)
                    return summary.last_seq
                rows = []
                for seq, (event, text) in enumerate(zip(events, texts), start=expected_seq + 1):
                    summary = apply_to_summary(summary, execution_id, seq, event)
                    rows.append((execution_id, seq, event.type, text, EVENT_SCHEMA, now))
                conn.executemany(
                    "INSERT INTO events (execution_id, seq, type, payload, schema, recorded_at) VALUES (?, ?, ?, ?, ?, ?)",
                    rows,
                )
                conn.execute(
                    "UPDATE executions SET status=?, gate=?, wake_at=?, flow_hash=?, code_hash=?, last_seq=?"
                    + _RELEASE_SQL[releases_lease(summary)] + " WHERE execution_id=?",
                    (summary.status, summary.gate, summary.wake_at, summary.flow_hash, summary.code_hash,
                     summary.last_seq, execution_id),
                )
        except sqlite3.IntegrityError as exc:
            raise FencingError(
                f"execution `{execution_id}`: sequence {expected_seq + 1} was already written by another writer ({exc})"
            ) from None
        return summary.last_seq

    @_storage_errors
    def read(self, execution_id: str, after_seq: int = 0) -> tuple[Event, ...]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT seq, type, payload, recorded_at, schema FROM events WHERE execution_id=? AND seq>? ORDER BY seq",
                (execution_id, after_seq),
            ).fetchall()
            if not rows and after_seq == 0:
                self._row(self._conn, execution_id)  # raises ExecutionNotFoundError
        return decode_rows(rows, execution_id=execution_id, where=f"{self.path}: ")

    @_storage_errors
    def summary(self, execution_id: str) -> ExecutionSummary:
        with self._lock:
            return self._row(self._conn, execution_id)[0]

    @_storage_errors
    def list_executions(
        self, *, statuses: Iterable[str] | None = None, flow_id: str | None = None, leasable_by: str | None = None
    ) -> tuple[ExecutionSummary, ...]:
        sql, args = f"SELECT {_SUMMARY_COLS} FROM executions WHERE 1=1", []
        if statuses is not None:
            wanted = sorted(set(statuses))
            sql += f" AND status IN ({', '.join('?' * len(wanted))})" if wanted else " AND 0"
            args.extend(wanted)
        if flow_id is not None:
            sql += " AND flow_id=?"
            args.append(flow_id)
        if leasable_by is not None:
            sql += " AND (lease_owner IS NULL OR lease_owner=? OR lease_expires<=?)"
            args.extend([leasable_by, self._clock()])
        with self._lock:
            rows = self._conn.execute(sql + " ORDER BY execution_id", args).fetchall()
        return tuple(ExecutionSummary(*r) for r in rows)

    @_storage_errors
    def due_timers(self, now: float) -> tuple[ExecutionSummary, ...]:
        with self._lock:
            rows = self._conn.execute(
                f"SELECT {_SUMMARY_COLS} FROM executions WHERE wake_at IS NOT NULL AND wake_at<=?"
                " AND status='suspended' AND gate LIKE ? ESCAPE '\\' ORDER BY wake_at, execution_id",
                (now, TIMER_GATE_PREFIX.replace("_", "\\_") + "%"),
            ).fetchall()
        return tuple(ExecutionSummary(*r) for r in rows)

    @_storage_errors
    def next_timer(self) -> float | None:
        """When the earliest parked timer falls due (``None``: no timer is waiting)."""
        with self._lock:
            row = self._conn.execute(
                "SELECT min(wake_at) FROM executions WHERE wake_at IS NOT NULL AND status='suspended'"
                " AND gate LIKE ? ESCAPE '\\'",
                (TIMER_GATE_PREFIX.replace("_", "\\_") + "%",),
            ).fetchone()
        return None if row is None or row[0] is None else float(row[0])

    @_storage_errors
    def acquire_lease(self, execution_id: str, owner: str, *, ttl: float, now: float | None = None) -> Lease:
        with self._tx() as conn:
            _, cur_owner, epoch, expires = self._row(conn, execution_id)
            now = self._clock() if now is None else now
            lease = grant_lease(execution_id, owner, owner=cur_owner, epoch=epoch, expires_at=expires, ttl=ttl, now=now)
            conn.execute(
                "UPDATE executions SET lease_owner=?, lease_epoch=?, lease_expires=? WHERE execution_id=?",
                (lease.owner, lease.epoch, lease.expires_at, execution_id),
            )
            return lease

    @_storage_errors
    def release_lease(self, lease: Lease) -> None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE executions SET lease_owner=NULL, lease_expires=0"
                " WHERE execution_id=? AND lease_owner=? AND lease_epoch=?",
                (lease.execution_id, lease.owner, lease.epoch),
            )

    @_storage_errors
    def renew_leases(self, leases: Sequence[Lease], *, ttl: float) -> tuple[Lease | None, ...]:
        out: list[Lease | None] = []
        with self._tx() as conn:
            now = self._clock()
            for lease in leases:
                new = renewed(lease, ttl=ttl, now=now)
                cur = conn.execute(
                    "UPDATE executions SET lease_expires=? WHERE execution_id=? AND lease_owner=? AND lease_epoch=?",
                    (new.expires_at, lease.execution_id, lease.owner, lease.epoch),
                )
                out.append(new if cur.rowcount == 1 else None)
        return tuple(out)

    def renewal_store(self, *, timeout: float) -> SqliteJournal:
        """A second connection to this file for the lease keeper (protocol doc): busy timeout
        ``timeout``, and ``synchronous=NORMAL``: a renewal lost to a power cut only shortens a lease
        nobody can be using any more (every process on the machine died with it), and not waiting
        for an fsync keeps the write lock for the shortest time. The schema is this store's (the
        file was opened and checked by it): nothing is created or checked again."""
        twin = object.__new__(SqliteJournal)
        twin.path, twin.read_only, twin._clock, twin._lock = self.path, self.read_only, self._clock, threading.RLock()
        try:
            if self.read_only:
                uri = "file:" + urllib.parse.quote(os.path.abspath(self.path)) + "?mode=ro"
                twin._conn = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None,
                                             check_same_thread=False)
            else:
                twin._conn = sqlite3.connect(self.path, timeout=timeout, isolation_level=None, check_same_thread=False)
            twin._conn.execute(f"PRAGMA busy_timeout={max(1, int(timeout * 1000))}")
            if not self.read_only:
                twin._conn.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: cannot open a connection for lease renewals ({exc})") from None
        return twin

    @_storage_errors
    def next_lease_expiry(self, *, other_than: str) -> float | None:
        with self._lock:
            now = self._clock()
            row = self._conn.execute(
                "SELECT min(lease_expires) FROM executions WHERE status='running' AND lease_owner IS NOT NULL"
                " AND lease_owner<>? AND lease_expires>?",
                (other_than, now),
            ).fetchone()
        return None if row is None or row[0] is None else float(row[0]) - now

    @_storage_errors
    def read_many(self, execution_ids: Sequence[str]) -> dict[str, tuple[Event, ...]]:
        """Every event of each execution (``journal.bulk``): one query per batch of ids."""
        out: dict[str, tuple[Event, ...]] = {}
        with self._lock:
            for part in batches(execution_ids):
                rows = self._conn.execute(
                    "SELECT execution_id, seq, type, payload, recorded_at, schema FROM events"
                    f" WHERE execution_id IN ({','.join('?' * len(part))}) ORDER BY execution_id, seq",
                    part,
                ).fetchall()
                out.update(decode_grouped(rows, where=f"{self.path}: "))
        return out

    @_storage_errors
    def started_at(self, execution_ids: Sequence[str]) -> dict[str, float]:
        """When each execution started (``journal.bulk``)."""
        out: dict[str, float] = {}
        with self._lock:
            for part in batches(execution_ids):
                out.update(self._conn.execute(
                    "SELECT execution_id, recorded_at FROM events"
                    f" WHERE seq=1 AND execution_id IN ({','.join('?' * len(part))})",
                    part,
                ).fetchall())
        return out

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> SqliteJournal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _row(self, conn: sqlite3.Connection, execution_id: str) -> tuple[ExecutionSummary, str | None, int, float]:
        row = conn.execute(
            f"SELECT {_SUMMARY_COLS}, lease_owner, lease_epoch, lease_expires FROM executions WHERE execution_id=?",
            (execution_id,),
        ).fetchone()
        if row is None:
            raise ExecutionNotFoundError(execution_id)
        return ExecutionSummary(*row[:8]), row[8], row[9], row[10]
