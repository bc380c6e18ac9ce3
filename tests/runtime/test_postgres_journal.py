"""PostgresJournal specifics (the shared contract is in test_journal_conformance.py) and open_journal(url)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading

import pytest

from loom_runtime import JournalError, JournalSchemaError
from loom_runtime.journal import MemoryJournal, NewEvent, PostgresJournal, SqliteJournal, open_journal, redact_url


def started(flow_id="f"):
    return NewEvent("EXECUTION_STARTED", {"flowId": flow_id, "flowHash": None, "codeHash": None, "input": 1})


# -- open_journal ---------------------------------------------------------------------------------


def test_memory_url_opens_a_fresh_in_memory_store():
    a, b = open_journal("memory:"), open_journal("memory:")
    assert isinstance(a, MemoryJournal) and a is not b


def test_sqlite_urls_follow_the_three_slash_convention(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rel = open_journal("sqlite:///rel.sqlite3")
    rel.create("e1", started())
    rel.close()
    assert (tmp_path / "rel.sqlite3").is_file()
    absolute = tmp_path / "sub" / "abs.sqlite3"
    absolute.parent.mkdir()
    store = open_journal(f"sqlite:///{absolute}")  # an absolute path gives four slashes
    assert isinstance(store, SqliteJournal) and store.path == str(absolute)
    store.close()
    plain = open_journal(str(tmp_path / "plain.sqlite3"))  # a bare path is a SQLite file, as in Runtime(journal=path)
    assert isinstance(plain, SqliteJournal)
    plain.close()
    again = open_journal("sqlite:///rel.sqlite3")
    assert again.summary("e1").flow_id == "f"  # the same file, reopened
    again.close()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mysql://u@h/db", r"unsupported scheme `mysql:`; use one of: memory:, sqlite:///"),
        ("sqlite:/x.db", r"three slashes, then the path"),
        ("sqlite:///", r"three slashes, then the path"),
        ("memory:extra", r"`memory:` takes nothing after the colon"),
        ("", r"must be a non-empty string"),
        ("postgresql://u@h/db?schema=a&schema=b", r"give `schema=` once"),
    ],
)
def test_bad_urls_are_refused_with_what_is_accepted(url, message):
    with pytest.raises(JournalError, match=message):
        open_journal(url)


def test_passwords_never_appear_in_messages():
    assert redact_url("postgresql://loom:s3cret@db.internal:5432/jobs") == "postgresql://loom:***@db.internal:5432/jobs"
    assert redact_url("postgresql://loom@h/db") == "postgresql://loom@h/db"
    assert redact_url("postgresql://loom@h/db?sslmode=require&password=s3cret") == (
        "postgresql://loom@h/db?sslmode=require&password=***")
    assert redact_url("host=h password='s3 cret' dbname=jobs") == "host=h password=*** dbname=jobs"
    with pytest.raises(JournalError) as info:
        PostgresJournal("host=127.0.0.1 port=1 user=loom password=s3cret dbname=db", connect_timeout=2)
    assert "s3cret" not in str(info.value) and "password=***" in str(info.value)
    with pytest.raises(JournalError) as info:
        open_journal("ftp://loom:s3cret@h/x")
    assert "s3cret" not in str(info.value) and "loom:***@h" in str(info.value)
    with pytest.raises(JournalError, match="cannot connect to the PostgreSQL journal") as info:
        # port 1 on loopback: nothing listens, the refusal is immediate
        PostgresJournal("postgresql://loom:s3cret@127.0.0.1:1/db", connect_timeout=2)
    assert "s3cret" not in str(info.value)


def test_without_psycopg_the_runtime_imports_and_the_postgres_store_says_what_to_install():
    code = textwrap.dedent(
        """
        import sys
        sys.modules["psycopg"] = None  # as if the postgres extra were not installed
        from loom_runtime.journal import PostgresJournal, open_journal
        from loom_runtime import JournalError, Runtime
        assert open_journal("memory:") is not None
        try:
            open_journal("postgresql://u@127.0.0.1:1/db")
        except JournalError as exc:
            print(exc)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "needs psycopg 3" in out.stdout and "loom-toolchain[postgres]" in out.stdout


# -- PostgreSQL specifics ---------------------------------------------------------------------------

pg = pytest.mark.postgres


def _admin(schema):
    import psycopg

    conn = psycopg.connect(schema.dsn, autocommit=True)
    conn.execute(f'SET search_path TO "{schema.name}"')
    return conn


@pg
def test_open_journal_with_a_schema_parameter_keeps_tables_in_that_schema(postgres_schema):
    store = open_journal(postgres_schema.url)
    postgres_schema.stores.append(store)
    assert isinstance(store, PostgresJournal)
    store.create("e1", started())
    with _admin(postgres_schema) as conn:
        tables = {r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema=%s", (postgres_schema.name,))}
        assert tables == {"loom_meta", "loom_executions", "loom_events"}
        assert dict(conn.execute("SELECT key, value FROM loom_meta").fetchall()) == {"journalSchema": "1", "eventSchema": "1"}


@pg
def test_a_journal_from_a_newer_schema_is_refused(postgres_schema):
    postgres_schema.open().create("e1", started())
    with _admin(postgres_schema) as conn:
        conn.execute("UPDATE loom_meta SET value='99' WHERE key='journalSchema'")
    with pytest.raises(JournalSchemaError, match=r"journalSchema '99'; this runtime reads up to 1\. Upgrade"):
        postgres_schema.open()
    with _admin(postgres_schema) as conn:
        conn.execute("UPDATE loom_meta SET value='1' WHERE key='journalSchema'")
        conn.execute("UPDATE loom_events SET schema=7 WHERE execution_id='e1'")
    with pytest.raises(JournalSchemaError, match=r"execution `e1` event 1 was written by event schema 7"):
        postgres_schema.open().read("e1")


@pg
def test_workers_opening_a_fresh_database_together_create_the_tables_once(postgres_schema):
    errors, stores = [], []
    barrier = threading.Barrier(6)

    def open_one():
        barrier.wait()
        try:
            stores.append(postgres_schema.open())
        except Exception as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(stores) == 6
    stores[0].create("e1", started())
    assert stores[5].summary("e1").last_seq == 1


@pg
def test_a_lost_connection_fails_one_call_and_the_next_reconnects(postgres_schema):
    store = postgres_schema.open()
    store.create("e1", started())
    pid = store._conn.info.backend_pid
    with _admin(postgres_schema) as conn:
        conn.execute("SELECT pg_terminate_backend(%s)", (pid,))
    with pytest.raises(JournalError, match=r"reading execution `e1` failed"):
        store.summary("e1")
    assert store.summary("e1").last_seq == 1
    assert store.append("e1", [NewEvent("STEP_STARTED", {"stepId": "a"})], expected_seq=1) == 2


@pg
def test_leases_are_timed_by_the_database_clock_not_the_worker(postgres_schema):
    store = postgres_schema.open()  # no clock passed: the server's clock_timestamp()
    store.create("e1", started())
    with _admin(postgres_schema) as conn:
        db_now = conn.execute("SELECT extract(epoch from clock_timestamp())::float8").fetchone()[0]
    lease = store.acquire_lease("e1", "w", ttl=100)
    assert db_now + 99 < lease.expires_at < db_now + 110
    [ev] = store.read("e1")
    assert abs(ev.recorded_at - db_now) < 60


@pg
def test_a_closed_store_refuses_calls(postgres_schema):
    store = postgres_schema.open()
    store.close()
    with pytest.raises(JournalError, match="the journal store is closed"):
        store.summary("e1")


@pytest.mark.postgres
def test_a_pathological_payload_row_is_a_journal_error_naming_execution_and_event(postgres_schema):
    import psycopg

    store = postgres_schema.open()
    store.create("e1", started())
    store.append("e1", [NewEvent("STEP_STARTED", {"stepId": "a"})], expected_seq=1)
    with psycopg.connect(postgres_schema.dsn, autocommit=True) as conn:
        conn.execute(f'UPDATE "{postgres_schema.name}".loom_events SET payload=%s::json WHERE seq=2',
                     ('{"stepId": "a", "result": ' + "9" * 5000 + "}",))
    with pytest.raises(JournalError, match=r"execution `e1` event 2: stored payload is .*integer of more than 4300 digits"):
        store.read("e1")


@pytest.mark.postgres
def test_opening_a_newer_schema_journal_creates_and_alters_nothing(postgres_schema):
    """Refused before any DDL: a newer loom's journal (its tables not ours) keeps exactly its tables."""
    import psycopg

    with psycopg.connect(postgres_schema.dsn, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{postgres_schema.name}"')
        conn.execute(f'CREATE TABLE "{postgres_schema.name}".loom_meta (key text PRIMARY KEY, value text NOT NULL)')
        conn.execute(f'INSERT INTO "{postgres_schema.name}".loom_meta VALUES (%s, %s), (%s, %s)',
                     ("journalSchema", "2", "eventSchema", "2"))
    with pytest.raises(JournalSchemaError, match="journalSchema '2'"):
        PostgresJournal(postgres_schema.dsn, schema=postgres_schema.name)
    with psycopg.connect(postgres_schema.dsn) as conn:
        tables = sorted(r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema=%s", (postgres_schema.name,)))
    assert tables == ["loom_meta"]
