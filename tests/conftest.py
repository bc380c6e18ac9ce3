"""Shared journal fixtures: the same behavioural tests run against memory, SQLite and PostgreSQL.

``journal_factory`` is parametrised over the three stores. Calling it returns a handle on the
test's own, initially empty storage; calling it again returns *another* handle on the same storage
(another worker's view: for SQLite a second connection to the file, for PostgreSQL a second
connection to the test's schema; for memory the same object, since nothing else can see it).

PostgreSQL tests need ``LOOM_TEST_POSTGRES_DSN`` (``source .ci/postgres.sh`` starts a throwaway
server and exports it). Without it they are skipped with that reason, except under CI (``CI`` set),
where a missing or unreachable server is a failure: CI must never go green by skipping them. Each
PostgreSQL test gets its own schema, dropped afterwards, so tests are independent and can share one
database.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator

import pytest

from loom_runtime.journal import JournalStore, MemoryJournal, SqliteJournal

POSTGRES_DSN_VAR = "LOOM_TEST_POSTGRES_DSN"


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _unavailable(reason: str) -> None:
    if in_ci():
        pytest.fail(f"CI is set but {reason}; .ci/run must start PostgreSQL (source .ci/postgres.sh)", pytrace=False)
    pytest.skip(f"{reason} (source .ci/postgres.sh to start a throwaway server)")


@pytest.fixture(scope="session")
def postgres_dsn() -> str:
    """The test server's DSN, checked once per session; skip (locally) or fail (CI) without one."""
    dsn = os.environ.get(POSTGRES_DSN_VAR, "").strip()
    if not dsn:
        _unavailable(f"no PostgreSQL server configured: {POSTGRES_DSN_VAR} is not set")
    try:
        import psycopg
    except ImportError:
        _unavailable("psycopg is not installed (pip install -e '.[postgres]')")
    try:
        with psycopg.connect(dsn, connect_timeout=5) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        from loom_runtime.journal import redact_url

        _unavailable(f"PostgreSQL at {redact_url(dsn)} is unreachable ({str(exc).strip().splitlines()[0]})")
    return dsn


class PostgresSchema:
    """A fresh schema for one test; ``open()`` hands out stores on it; ``drop()`` removes it all."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.name = "loom_test_" + uuid.uuid4().hex[:12]
        self.stores: list[JournalStore] = []

    @property
    def url(self) -> str:
        """A journal URL naming this schema (what ``open_journal`` and worker processes take)."""
        sep = "&" if "?" in self.dsn else "?"
        return f"{self.dsn}{sep}schema={self.name}"

    def open(self, *, clock: Callable[[], float] | None = None) -> JournalStore:
        from loom_runtime.journal import PostgresJournal

        store = PostgresJournal(self.dsn, schema=self.name, clock=clock)
        self.stores.append(store)
        return store

    def drop(self) -> None:
        import psycopg

        for store in self.stores:
            store.close()
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{self.name}" CASCADE')


@pytest.fixture
def postgres_schema(postgres_dsn) -> Iterator[PostgresSchema]:
    schema = PostgresSchema(postgres_dsn)
    yield schema
    schema.drop()


@pytest.fixture
def postgres_journal_factory(postgres_schema) -> Callable[..., JournalStore]:
    """``factory(clock=None)``: a PostgresJournal on this test's own schema (closed and dropped after)."""
    return postgres_schema.open


JOURNAL_KINDS = ("memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres))


@pytest.fixture(params=JOURNAL_KINDS)
def journal_factory(request, tmp_path) -> Iterator[Callable[..., JournalStore]]:
    """``factory(clock=None)``: a handle on this test's storage in the parametrised kind of store."""
    kind = request.param
    opened: list[JournalStore] = []
    schema = request.getfixturevalue("postgres_schema") if kind == "postgres" else None

    def factory(*, clock: Callable[[], float] | None = None) -> JournalStore:
        kwargs = {} if clock is None else {"clock": clock}
        if kind == "memory":
            if not opened:
                opened.append(MemoryJournal(**kwargs))
            return opened[0]
        if schema is not None:
            return schema.open(clock=clock)
        store = SqliteJournal(tmp_path / "journal.sqlite3", **kwargs)
        opened.append(store)
        return store

    factory.kind = kind  # type: ignore[attr-defined]
    yield factory
    for store in opened:
        store.close()


@pytest.fixture
def journal(journal_factory) -> JournalStore:
    """One store of the parametrised kind (memory, a real SQLite file, PostgreSQL when configured)."""
    return journal_factory()
