"""PostgreSQL journal store: several workers on several machines share one journal.

Same protocol and semantics as :class:`~loom_runtime.journal.sqlite.SqliteJournal` (the conformance
suite runs both). Layout (journal schema :data:`POSTGRES_JOURNAL_SCHEMA`, recorded in ``loom_meta``),
in the connection's schema or the one given as ``schema=``::

    loom_meta(key PRIMARY KEY, value)                 -- journalSchema, eventSchema
    loom_executions(execution_id PRIMARY KEY, flow_id, status, gate, wake_at, flow_hash, code_hash,
                    last_seq, lease_owner, lease_epoch, lease_expires)
    loom_events(execution_id, seq, type, payload json, schema, recorded_at, PRIMARY KEY(execution_id, seq))

Tables are prefixed ``loom_`` because a PostgreSQL database is usually shared with the service's own
tables. An append is one transaction: ``SELECT … FOR UPDATE`` on the execution's summary row (it
serialises writers of one execution and nothing else), compare ``expected_seq`` and the lease's
epoch (the fencing token), insert the batch, update the summary, commit. The primary key on
``(execution_id, seq)`` is the last line of the fence.

Clocks. Leases are timed by the *database's* clock (``clock_timestamp()``, read in the same round
trip as the row lock) unless a ``clock`` is passed (tests): workers on several machines disagree
about the time, the server is the one clock they share. Rejected: each worker's own clock (a worker
whose clock runs fast would steal live leases). Durable timers are set and judged by the same
clock (:meth:`PostgresJournal.shared_now`, read by ``Runtime.timer_clock``): a worker whose clock
ran fast would otherwise end a ``ctx.sleep`` early.

psycopg 3 is imported when a store is created, never at module import: ``loom_runtime`` stays
importable (and the other stores usable) without the ``postgres`` extra. One connection per store,
autocommit with explicit transactions, guarded by a lock (the runtime is a synchronous driver; a
lease heartbeat thread may share it). A broken connection is replaced on the next call; the call
that saw it fails with a :class:`~loom_runtime.errors.JournalError` and is not retried here: an
append whose commit was lost in transit may have landed, and only a re-read (the runtime's next
drive, fenced on ``expected_seq``) can tell. Rejected: a connection pool (one synchronous driver
per store needs one connection; a pool would be a second dependency for no gain).

Schema creation runs under a transaction-scoped advisory lock, so workers starting together do not
race on ``CREATE TABLE IF NOT EXISTS`` (which is not atomic in PostgreSQL). A journal written by a
newer journal or event schema is refused with :class:`~loom_runtime.errors.JournalSchemaError`,
read before any DDL runs, so a newer journal is left as it was found.

``read_only=True`` (the ops commands): no schema, table or row is created, the session is ``READ
ONLY`` (PostgreSQL itself refuses every write), and a missing schema, a database or schema without
loom's three tables, or a newer schema is refused with a message naming the URL (password redacted).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..errors import ExecutionNotFoundError, FencingError, JournalError
from .events import (
    EVENT_SCHEMA,
    RUNNING,
    TIMER_GATE_PREFIX,
    TIMER_SET,
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
)

__all__ = ["PostgresJournal", "POSTGRES_JOURNAL_SCHEMA"]

#: Table layout version of this store.
POSTGRES_JOURNAL_SCHEMA = 1

# pg_advisory_xact_lock key for schema creation ("loom" in ASCII, then 1).
_DDL_LOCK = 0x6C6F6F6D_0001

_DDL = (
    "CREATE TABLE IF NOT EXISTS loom_meta (key text PRIMARY KEY, value text NOT NULL)",
    """CREATE TABLE IF NOT EXISTS loom_executions (
        execution_id text PRIMARY KEY,
        flow_id text NOT NULL,
        status text NOT NULL,
        gate text,
        wake_at double precision,
        flow_hash text,
        code_hash text,
        last_seq bigint NOT NULL,
        lease_owner text,
        lease_epoch bigint NOT NULL DEFAULT 0,
        lease_expires double precision NOT NULL DEFAULT 0
    )""",
    "CREATE INDEX IF NOT EXISTS loom_executions_by_status ON loom_executions (status, flow_id, code_hash)",
    "CREATE INDEX IF NOT EXISTS loom_executions_by_wake ON loom_executions (wake_at) WHERE wake_at IS NOT NULL",
    """CREATE TABLE IF NOT EXISTS loom_events (
        execution_id text NOT NULL,
        seq bigint NOT NULL,
        type text NOT NULL,
        payload json NOT NULL,
        schema integer NOT NULL,
        recorded_at double precision NOT NULL,
        PRIMARY KEY (execution_id, seq)
    )""",
)

_TABLES = ("loom_meta", "loom_executions", "loom_events")

_SUMMARY_COLS = "execution_id, flow_id, status, last_seq, flow_hash, code_hash, gate, wake_at"
_NOW = "extract(epoch from clock_timestamp())::double precision"
# An append that parks or ends the execution frees its lease in the same statement (the epoch stays).
_RELEASE_SQL = {False: "", True: ", lease_owner=NULL, lease_expires=0"}


def _psycopg() -> Any:
    try:
        return importlib.import_module("psycopg")
    except ImportError:
        raise JournalError(
            "the PostgreSQL journal needs psycopg 3, which is not installed; "
            "install the extra: pip install 'loom-toolchain[postgres]'"
        ) from None


class PostgresJournal:
    """A journal in a PostgreSQL database (``dsn``: a libpq URL or key=value string).

    ``schema``: keep the tables in this schema (created if missing) instead of the connection's
    default. ``clock``: time leases and ``recorded_at`` with this callable instead of the server's
    clock (tests). ``connect_timeout``: seconds to wait for the server. ``read_only``: read an
    existing loom journal (the ops commands): no schema or table is created, the session is
    ``READ ONLY`` (every write fails with a :class:`JournalError`), and a database or schema without
    loom's tables, or with a newer journal schema, is refused.
    """

    def __init__(
        self,
        dsn: str,
        *,
        schema: str | None = None,
        clock: Callable[[], float] | None = None,
        connect_timeout: float = 10.0,
        read_only: bool = False,
    ) -> None:
        from .urls import redact_url

        self._pg = _psycopg()
        self.dsn = dsn
        self.where = redact_url(dsn) + (f" (schema {schema})" if schema else "")
        self.schema = schema
        self.read_only = read_only
        self._clock = clock
        self._connect_timeout = connect_timeout
        self._lock = threading.RLock()
        self._conn: Any = None
        #: The NOTIFY channel of this journal (one per schema, so journals in one database stay apart).
        self.channel = _channel(schema)
        self._listen_conn: Any = None
        self._closed = False
        self._lock_timeout: float | None = None  # set on a renewal store (renewal_store)
        with self._lock:
            self._connection()
            try:
                self._init_schema()
            except BaseException:
                self.close()
                raise

    # -- connection --------------------------------------------------------------------------

    def _connection(self) -> Any:
        if self._closed:
            raise JournalError(f"{self.where}: the journal store is closed")
        if self._conn is not None and not self._conn.closed:
            return self._conn
        pg = self._pg
        try:
            conn = pg.connect(self.dsn, autocommit=True, connect_timeout=max(1, int(self._connect_timeout)))
        except pg.Error as exc:
            raise JournalError(
                f"{self.where}: cannot connect to the PostgreSQL journal ({_first_line(exc)}); "
                "check the URL, that the server is up and that this worker may reach it"
            ) from None
        try:
            if self.schema is not None:
                ident = pg.sql.Identifier(self.schema).as_string(conn)
                # Look before creating: CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege on the
                # database even when the schema exists, which a worker's role often lacks.
                if conn.execute("SELECT 1 FROM pg_namespace WHERE nspname=%s", (self.schema,)).fetchone() is None:
                    if self.read_only:
                        conn.close()
                        raise JournalError(
                            f"{self.where}: the database has no schema {self.schema!r}, so no loom journal there; "
                            "check the schema= parameter of the journal URL"
                        )
                    # Under the DDL lock: CREATE SCHEMA IF NOT EXISTS is not atomic either, and two
                    # workers creating one schema together got a unique violation.
                    with conn.transaction():
                        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_DDL_LOCK,))
                        conn.execute(f"CREATE SCHEMA IF NOT EXISTS {ident}")
                conn.execute("SELECT set_config('search_path', %s, false)", (ident,))
            if self.read_only:
                conn.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
            if self._lock_timeout is not None:  # a renewal waits this long for a row lock, then fails
                ms = f"{max(1, int(self._lock_timeout * 1000))}ms"
                conn.execute("SELECT set_config('lock_timeout', %s, false), set_config('statement_timeout', %s, false)",
                             (ms, ms))
        except pg.Error as exc:
            conn.close()
            raise JournalError(f"{self.where}: cannot use schema {self.schema!r} ({_first_line(exc)})") from None
        self._conn = conn
        return conn

    def _failed(self, exc: BaseException, doing: str) -> JournalError:
        """A psycopg error as a JournalError; a dead connection is dropped so the next call reconnects."""
        if self._conn is not None and (self._conn.closed or self._conn.broken):
            try:
                self._conn.close()
            finally:
                self._conn = None
        return JournalError(f"{self.where}: {doing} failed ({_first_line(exc)})")

    def _init_schema(self) -> None:
        pg, conn = self._pg, self._conn
        try:
            with conn.transaction():
                if not self.read_only:
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (_DDL_LOCK,))
                present = {t for t in _TABLES if conn.execute("SELECT to_regclass(%s)", (t,)).fetchone()[0] is not None}
                # Look before creating anything: a newer journal is refused as it was found.
                rows = dict(conn.execute("SELECT key, value FROM loom_meta").fetchall()) if "loom_meta" in present else {}
                if rows or (self.read_only and present):
                    check_store_schemas(rows, journal_schema=POSTGRES_JOURNAL_SCHEMA, where=self.where)
                if self.read_only:
                    if present != set(_TABLES):
                        missing = ", ".join(t for t in _TABLES if t not in present)
                        raise JournalError(
                            f"{self.where}: no loom journal here (tables {missing} missing from the schema "
                            f"{self.schema or 'on the search path'}); point --store at the service's journal "
                            "(add ?schema=NAME if it keeps its tables in a schema)"
                        )
                    return
                if "loom_events" not in present:
                    for stmt in _DDL:
                        conn.execute(stmt)
                if not rows:
                    rows = dict(conn.execute("SELECT key, value FROM loom_meta").fetchall())
                if not rows:
                    conn.execute(
                        "INSERT INTO loom_meta (key, value) VALUES ('journalSchema', %s), ('eventSchema', %s)",
                        (str(POSTGRES_JOURNAL_SCHEMA), str(EVENT_SCHEMA)),
                    )
                    return
        except pg.Error as exc:
            raise self._failed(exc, "reading the journal tables" if self.read_only else "creating the journal tables") from None
        check_store_schemas(rows, journal_schema=POSTGRES_JOURNAL_SCHEMA, where=self.where)

    # -- the protocol ------------------------------------------------------------------------

    def create(self, execution_id: str, started: NewEvent) -> int:
        self._create(execution_id, started, owner=None, ttl=0.0)
        return 1

    def create_leased(self, execution_id: str, started: NewEvent, *, owner: str, ttl: float) -> Lease:
        lease = self._create(execution_id, started, owner=owner, ttl=ttl)
        assert lease is not None
        return lease

    def _create(self, execution_id: str, started: NewEvent, *, owner: str | None, ttl: float) -> Lease | None:
        check_started(execution_id, started)
        text = encode_payload(started)
        summary = apply_to_summary(None, execution_id, 1, started)
        pg = self._pg
        with self._lock:
            try:
                conn = self._connection()
                with conn.transaction():
                    now = self._now(conn)  # the server's clock times the lease, as in acquire_lease
                    lease = None if owner is None else first_lease(execution_id, owner, ttl=ttl, now=now)
                    conn.execute(
                        "INSERT INTO loom_executions (execution_id, flow_id, status, last_seq, flow_hash, code_hash,"
                        " lease_owner, lease_epoch, lease_expires) VALUES (%s, %s, %s, 1, %s, %s, %s, %s, %s)",
                        (execution_id, summary.flow_id, summary.status, summary.flow_hash, summary.code_hash,
                         owner, 0 if lease is None else lease.epoch, 0.0 if lease is None else lease.expires_at),
                    )
                    conn.execute(
                        "INSERT INTO loom_events (execution_id, seq, type, payload, schema, recorded_at)"
                        " VALUES (%s, 1, %s, %s, %s, %s)",
                        (execution_id, started.type, text, EVENT_SCHEMA, now),
                    )
                    self._notify(conn)  # delivered at commit: idle workers look for the new execution
            except pg.errors.UniqueViolation:
                raise JournalError(f"execution `{execution_id}` already exists; pick another execution id") from None
            except pg.Error as exc:
                raise self._failed(exc, f"creating execution `{execution_id}`") from None
        return lease

    def append(
        self, execution_id: str, events: Sequence[NewEvent], *, expected_seq: int, lease: Lease | None = None
    ) -> int:
        texts = [encode_payload(e) for e in events]
        pg = self._pg
        with self._lock:
            try:
                conn = self._connection()
                with conn.transaction():
                    summary, owner, epoch, expires, db_now = self._row(conn, execution_id, lock=True)
                    check_expected_seq(execution_id, expected=expected_seq, actual=summary.last_seq)
                    now = db_now if self._clock is None else self._clock()
                    check_lease(execution_id, lease, owner=owner, epoch=epoch, expires_at=expires, now=now)
                    rows = []
                    for seq, (event, text) in enumerate(zip(events, texts), start=expected_seq + 1):
                        summary = apply_to_summary(summary, execution_id, seq, event)
                        rows.append((execution_id, seq, event.type, text, EVENT_SCHEMA, now))
                    if not rows:
                        return summary.last_seq
                    with conn.cursor() as cur:
                        cur.executemany(
                            "INSERT INTO loom_events (execution_id, seq, type, payload, schema, recorded_at)"
                            " VALUES (%s, %s, %s, %s, %s, %s)",
                            rows,
                        )
                    conn.execute(
                        "UPDATE loom_executions SET status=%s, gate=%s, wake_at=%s, flow_hash=%s, code_hash=%s,"
                        " last_seq=%s" + _RELEASE_SQL[releases_lease(summary)] + " WHERE execution_id=%s",
                        (summary.status, summary.gate, summary.wake_at, summary.flow_hash, summary.code_hash,
                         summary.last_seq, execution_id),
                    )
                    if any(e.type == TIMER_SET for e in events):
                        self._notify(conn)  # a new timer: idle workers recompute when to look next
            except pg.errors.UniqueViolation as exc:
                raise FencingError(
                    f"execution `{execution_id}`: sequence {expected_seq + 1} was already written by another "
                    f"writer ({_first_line(exc)})"
                ) from None
            except pg.Error as exc:
                raise self._failed(exc, f"appending to execution `{execution_id}`") from None
        return summary.last_seq

    def read(self, execution_id: str, after_seq: int = 0) -> tuple[Event, ...]:
        pg = self._pg
        with self._lock:
            try:
                conn = self._connection()
                rows = conn.execute(
                    "SELECT seq, type, payload::text, recorded_at, schema FROM loom_events"
                    " WHERE execution_id=%s AND seq>%s ORDER BY seq",
                    (execution_id, after_seq),
                ).fetchall()
                if not rows and after_seq == 0:
                    self._row(conn, execution_id)  # raises ExecutionNotFoundError
            except pg.Error as exc:
                raise self._failed(exc, f"reading execution `{execution_id}`") from None
        return decode_rows(rows, execution_id=execution_id, where=f"{self.where}: ")

    def summary(self, execution_id: str) -> ExecutionSummary:
        pg = self._pg
        with self._lock:
            try:
                return self._row(self._connection(), execution_id)[0]
            except pg.Error as exc:
                raise self._failed(exc, f"reading execution `{execution_id}`") from None

    def list_executions(
        self, *, statuses: Iterable[str] | None = None, flow_id: str | None = None, leasable_by: str | None = None
    ) -> tuple[ExecutionSummary, ...]:
        sql, args = f"SELECT {_SUMMARY_COLS} FROM loom_executions WHERE true", []
        if statuses is not None:
            sql += " AND status = ANY(%s)"
            args.append(sorted(set(statuses)))
        if flow_id is not None:
            sql += " AND flow_id=%s"
            args.append(flow_id)
        if leasable_by is not None:
            # the server's clock unless a test clock is set, exactly as acquire_lease judges expiry
            sql += f" AND (lease_owner IS NULL OR lease_owner=%s OR lease_expires<={'%s' if self._clock else _NOW})"
            args.extend([leasable_by] + ([self._clock()] if self._clock else []))
        return self._summaries(sql + " ORDER BY execution_id", args, "listing executions")

    def due_timers(self, now: float) -> tuple[ExecutionSummary, ...]:
        return self._summaries(
            f"SELECT {_SUMMARY_COLS} FROM loom_executions WHERE wake_at IS NOT NULL AND wake_at<=%s"
            " AND status='suspended' AND left(gate, %s)=%s ORDER BY wake_at, execution_id",
            [now, len(TIMER_GATE_PREFIX), TIMER_GATE_PREFIX],
            "listing due timers",
        )

    def acquire_lease(self, execution_id: str, owner: str, *, ttl: float, now: float | None = None) -> Lease:
        pg = self._pg
        with self._lock:
            try:
                conn = self._connection()
                with conn.transaction():
                    _, cur_owner, epoch, expires, db_now = self._row(conn, execution_id, lock=True)
                    if now is None:
                        now = db_now if self._clock is None else self._clock()
                    lease = grant_lease(
                        execution_id, owner, owner=cur_owner, epoch=epoch, expires_at=expires, ttl=ttl, now=now
                    )
                    conn.execute(
                        "UPDATE loom_executions SET lease_owner=%s, lease_epoch=%s, lease_expires=%s"
                        " WHERE execution_id=%s",
                        (lease.owner, lease.epoch, lease.expires_at, execution_id),
                    )
                    return lease
            except pg.Error as exc:
                raise self._failed(exc, f"leasing execution `{execution_id}`") from None

    def release_lease(self, lease: Lease) -> None:
        pg = self._pg
        with self._lock:
            try:
                conn = self._connection()
                with conn.transaction():
                    row = conn.execute(
                        "UPDATE loom_executions SET lease_owner=NULL, lease_expires=0"
                        " WHERE execution_id=%s AND lease_owner=%s AND lease_epoch=%s RETURNING status",
                        (lease.execution_id, lease.owner, lease.epoch),
                    ).fetchone()
                    if row is not None and row[0] == RUNNING:
                        self._notify(conn)  # running and nobody's now (a stopping worker left it): take it
            except pg.Error as exc:
                raise self._failed(exc, f"releasing the lease on execution `{lease.execution_id}`") from None

    def renew_leases(self, leases: Sequence[Lease], *, ttl: float) -> tuple[Lease | None, ...]:
        if ttl <= 0:
            raise ValueError(f"lease ttl must be positive, got {ttl!r}")
        if not leases:
            return ()
        pg = self._pg
        now_sql = "%s::double precision" if self._clock is not None else _NOW
        args: list[Any] = [self._clock()] if self._clock is not None else []
        args += [ttl, [x.execution_id for x in leases], [x.owner for x in leases], [x.epoch for x in leases]]
        with self._lock:
            try:
                # one statement (its own transaction): every lease still ours, extended by the server's clock
                rows = self._connection().execute(
                    f"UPDATE loom_executions AS e SET lease_expires = {now_sql} + %s"
                    " FROM unnest(%s::text[], %s::text[], %s::bigint[]) AS v(id, owner, epoch)"
                    " WHERE e.execution_id = v.id AND e.lease_owner = v.owner AND e.lease_epoch = v.epoch"
                    " RETURNING e.execution_id, e.lease_expires",
                    args,
                ).fetchall()
            except pg.Error as exc:
                raise self._failed(exc, "renewing leases") from None
        expires = dict(rows)
        return tuple(
            None if x.execution_id not in expires
            else Lease(x.execution_id, x.owner, x.epoch, expires_at=float(expires[x.execution_id]))
            for x in leases
        )

    def renewal_store(self, *, timeout: float) -> PostgresJournal:
        """A second connection to this journal for the lease keeper (protocol doc), whose statements
        give up after ``timeout`` (``lock_timeout`` and ``statement_timeout``) and are tried again.
        The schema is this store's: nothing is created or checked again (the connection opens on
        first use)."""
        twin = object.__new__(PostgresJournal)
        twin.__dict__.update(
            _pg=self._pg, dsn=self.dsn, where=self.where, schema=self.schema, read_only=self.read_only,
            _clock=self._clock, _connect_timeout=min(self._connect_timeout, max(1.0, timeout)),
            _lock=threading.RLock(), _conn=None, channel=self.channel, _listen_conn=None, _closed=False,
            _lock_timeout=timeout,
        )
        return twin

    def next_lease_expiry(self, *, other_than: str) -> float | None:
        pg = self._pg
        now_sql = "%s::double precision" if self._clock is not None else _NOW
        clock_args = [self._clock()] if self._clock is not None else []
        with self._lock:
            try:
                row = self._connection().execute(
                    f"WITH t AS (SELECT {now_sql} AS now) SELECT min(lease_expires) - (SELECT now FROM t)"
                    " FROM loom_executions WHERE status='running' AND lease_owner IS NOT NULL AND lease_owner <> %s"
                    " AND lease_expires > (SELECT now FROM t)",
                    [*clock_args, other_than],
                ).fetchone()
            except pg.Error as exc:
                raise self._failed(exc, "looking for the next lease expiry") from None
        return None if row is None or row[0] is None else float(row[0])

    def read_many(self, execution_ids: Sequence[str]) -> dict[str, tuple[Event, ...]]:
        """Every event of each execution (``journal.bulk``): one query per batch of ids."""
        pg = self._pg
        out: dict[str, tuple[Event, ...]] = {}
        with self._lock:
            try:
                conn = self._connection()
                for part in batches(execution_ids):
                    rows = conn.execute(
                        "SELECT execution_id, seq, type, payload::text, recorded_at, schema FROM loom_events"
                        " WHERE execution_id = ANY(%s) ORDER BY execution_id, seq",
                        (part,),
                    ).fetchall()
                    out.update(decode_grouped(rows, where=f"{self.where}: "))
            except pg.Error as exc:
                raise self._failed(exc, "reading executions") from None
        return out

    def started_at(self, execution_ids: Sequence[str]) -> dict[str, float]:
        """When each execution started (``journal.bulk``)."""
        pg = self._pg
        out: dict[str, float] = {}
        with self._lock:
            try:
                conn = self._connection()
                for part in batches(execution_ids):
                    out.update(conn.execute(
                        "SELECT execution_id, recorded_at FROM loom_events WHERE seq=1 AND execution_id = ANY(%s)",
                        (part,),
                    ).fetchall())
            except pg.Error as exc:
                raise self._failed(exc, "reading executions") from None
        return out

    # -- waking workers (LISTEN/NOTIFY) ------------------------------------------------------

    def next_timer(self) -> float | None:
        """When the earliest parked timer falls due (``None``: no timer is waiting)."""
        pg = self._pg
        with self._lock:
            try:
                row = self._connection().execute(
                    "SELECT min(wake_at) FROM loom_executions WHERE wake_at IS NOT NULL AND status='suspended'"
                    " AND left(gate, %s)=%s",
                    (len(TIMER_GATE_PREFIX), TIMER_GATE_PREFIX),
                ).fetchone()
            except pg.Error as exc:
                raise self._failed(exc, "looking for the next timer") from None
        return None if row is None or row[0] is None else float(row[0])

    def wait_for_work(self, timeout: float) -> bool:
        """Block until another process creates an execution, sets a timer or leaves a running
        execution (``NOTIFY`` on this journal's channel) or ``timeout`` seconds pass; return whether
        something was notified. Waiting sends no query: the listening connection (opened on first
        use, separate from the one the store writes with) sits in ``select`` until the server pushes
        a notification; one that arrives between two waits is kept by the connection for the next.

        A call that opens the listening connection (the first, or the first after it broke) returns
        ``True`` at once, without waiting: whatever was notified before its ``LISTEN`` is lost to it,
        so the caller must look again. (A worker's first pass ran before it listened: a submission
        made in between slept until the next rescan, a minute later.)"""
        pg = self._pg
        try:
            if self._listen_conn is None or self._listen_conn.closed:
                self._listener()
                return True
            conn = self._listen_conn
            for _ in conn.notifies(timeout=max(0.0, timeout), stop_after=1):
                return True
            return False
        except pg.Error as exc:
            self._drop_listener()
            raise JournalError(f"{self.where}: waiting for notifications failed ({_first_line(exc)})") from None

    def _listener(self) -> Any:
        if self._listen_conn is not None and not self._listen_conn.closed:
            return self._listen_conn
        conn = self._pg.connect(self.dsn, autocommit=True, connect_timeout=max(1, int(self._connect_timeout)))
        conn.execute(self._pg.sql.SQL("LISTEN {}").format(self._pg.sql.Identifier(self.channel)))
        self._listen_conn = conn
        return conn

    def _drop_listener(self) -> None:
        conn, self._listen_conn = self._listen_conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # noqa: BLE001 - closing a broken connection
                pass

    def _notify(self, conn: Any) -> None:
        conn.execute("SELECT pg_notify(%s, '')", (self.channel,))

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._drop_listener()
            if self._conn is not None:
                conn, self._conn = self._conn, None
                conn.close()

    def __enter__(self) -> PostgresJournal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"PostgresJournal({self.where!r})"

    # -- internals ---------------------------------------------------------------------------

    def shared_now(self) -> float:
        """The clock every worker on this database shares: the server's (or the test ``clock``).

        The runtime sets and judges durable timers by it (``Runtime.timer_clock``), as this store
        times leases: one round trip."""
        pg = self._pg
        with self._lock:
            try:
                return float(self._now(self._connection()))
            except pg.Error as exc:
                raise self._failed(exc, "reading the server's clock") from None

    def _now(self, conn: Any) -> float:
        if self._clock is not None:
            return self._clock()
        return conn.execute(f"SELECT {_NOW}").fetchone()[0]

    def _row(
        self, conn: Any, execution_id: str, *, lock: bool = False
    ) -> tuple[ExecutionSummary, str | None, int, float, float]:
        row = conn.execute(
            f"SELECT {_SUMMARY_COLS}, lease_owner, lease_epoch, lease_expires, {_NOW} FROM loom_executions"
            f" WHERE execution_id=%s{' FOR UPDATE' if lock else ''}",
            (execution_id,),
        ).fetchone()
        if row is None:
            raise ExecutionNotFoundError(execution_id)
        return ExecutionSummary(*row[:8]), row[8], row[9], row[10], row[11]

    def _summaries(self, sql: str, args: list[Any], doing: str) -> tuple[ExecutionSummary, ...]:
        pg = self._pg
        with self._lock:
            try:
                rows = self._connection().execute(sql, args).fetchall()
            except pg.Error as exc:
                raise self._failed(exc, doing) from None
        return tuple(ExecutionSummary(*r) for r in rows)


def _channel(schema: str | None) -> str:
    name = "loom_wake" if schema is None else f"loom_wake:{schema}"
    if len(name.encode("utf-8")) > 63:  # NAMEDATALEN - 1: a longer channel name is truncated by the server
        import hashlib

        name = "loom_wake:" + hashlib.sha256(schema.encode("utf-8")).hexdigest()[:40]  # type: ignore[union-attr]
    return name


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
