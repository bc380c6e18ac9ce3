import sqlite3

import pytest

from loom_runtime.errors import JournalError, JournalSchemaError
from loom_runtime.journal import NewEvent, SqliteJournal


def _started():
    return NewEvent("EXECUTION_STARTED", {"flowId": "f", "flowHash": None, "codeHash": None, "input": None})


def test_a_real_file_in_wal_mode_that_survives_reopening(tmp_path):
    path = tmp_path / "j.sqlite3"
    with SqliteJournal(path) as store:
        store.create("e1", _started())
        store.append("e1", [NewEvent("STEP_STARTED", {"stepId": "a"})], expected_seq=1)
    assert path.is_file()
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert dict(raw.execute("SELECT key, value FROM meta")) == {"journalSchema": "1", "eventSchema": "1"}
    with SqliteJournal(path) as again:
        assert [e.type for e in again.read("e1")] == ["EXECUTION_STARTED", "STEP_STARTED"]


def test_unique_constraint_is_the_last_line_of_the_fence(tmp_path):
    path = tmp_path / "j.sqlite3"
    with SqliteJournal(path) as store:
        store.create("e1", _started())
    with sqlite3.connect(path) as raw, pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
        raw.execute("INSERT INTO events VALUES ('e1', 1, 'STEP_STARTED', '{}', 1, 0)")


def test_a_journal_from_a_newer_schema_is_refused_at_open(tmp_path):
    path = tmp_path / "j.sqlite3"
    SqliteJournal(path).close()
    with sqlite3.connect(path) as raw:
        raw.execute("UPDATE meta SET value='2' WHERE key='eventSchema'")
    with pytest.raises(JournalSchemaError, match=r"eventSchema '2'; this runtime reads up to 1. Upgrade loom-toolchain"):
        SqliteJournal(path)


def test_an_event_from_a_newer_schema_is_refused_at_read(tmp_path):
    path = tmp_path / "j.sqlite3"
    with SqliteJournal(path) as store:
        store.create("e1", _started())
    with sqlite3.connect(path) as raw:
        raw.execute("UPDATE events SET schema=3 WHERE seq=1")
    with SqliteJournal(path) as store, pytest.raises(JournalSchemaError, match=r"event 1 was written by event schema 3"):
        store.read("e1")


def test_timer_lookup_uses_the_wake_index(tmp_path):
    with SqliteJournal(tmp_path / "j.sqlite3") as store:
        plan = " ".join(
            str(r) for r in store._conn.execute(
                "EXPLAIN QUERY PLAN SELECT execution_id FROM executions WHERE wake_at IS NOT NULL AND wake_at<=1"
            )
        )
    assert "executions_by_wake" in plan


def test_synchronous_is_full_by_default_and_normal_on_request(tmp_path):
    with SqliteJournal(tmp_path / "a.db") as full, SqliteJournal(tmp_path / "b.db", synchronous="NORMAL") as normal:
        assert full._conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert normal._conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    with pytest.raises(ValueError, match="synchronous must be 'FULL' or 'NORMAL'"):
        SqliteJournal(tmp_path / "c.db", synchronous="OFF")


def test_a_write_lock_held_past_the_busy_timeout_is_a_journal_error_and_leaves_no_open_transaction(tmp_path):
    from loom_runtime.errors import JournalError

    path = tmp_path / "j.sqlite3"
    store = SqliteJournal(path, timeout=0.05)
    store.create("e1", _started())
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    with pytest.raises(JournalError, match=r"append failed \(database is locked\)"):
        store.append("e1", [NewEvent("STEP_STARTED", {"stepId": "a"})], expected_seq=1)
    with pytest.raises(JournalError, match="acquire_lease failed"):
        store.acquire_lease("e1", "w", ttl=5)
    blocker.execute("ROLLBACK")
    assert store.append("e1", [NewEvent("STEP_STARTED", {"stepId": "a"})], expected_seq=1) == 2  # usable again
    store.close()
    with pytest.raises(JournalError, match="closed"):
        store.read("e1")
    blocker.close()


def test_a_storage_error_is_never_recorded_as_the_flows_outcome(tmp_path):
    from loom_runtime import JournalError, Runtime, flow

    path = tmp_path / "j.sqlite3"
    blocker = sqlite3.connect(path, isolation_level=None)
    ran = []

    def charge():
        ran.append("charge")
        if len(ran) == 1:  # the journal is locked when the first completion is written
            blocker.execute("BEGIN IMMEDIATE")
        return "charged"

    @flow("pay", steps=["charge"])
    def pay(ctx, _):
        try:
            return ctx.execute("charge", charge)
        except Exception:  # a body that catches everything must not turn a lost write into an outcome
            blocker.execute("ROLLBACK")
            return "caught"

    rt = Runtime(journal=SqliteJournal(path, timeout=0.05))
    rt.register(pay)
    with pytest.raises(JournalError, match="database is locked"):
        rt.start("pay", execution_id="e1")
    assert rt.get("e1").status == "running"  # as a crash leaves it: no EXECUTION_COMPLETED("caught")
    assert [e.type for e in rt.get("e1").events] == ["EXECUTION_STARTED", "STEP_STARTED"]
    [h] = rt.recover()  # at least once: the unfinished step runs again and completes
    assert (h.status, h.result, ran) == ("completed", "charged", ["charge", "charge"])
    blocker.close()


def test_opening_a_newer_schema_file_leaves_it_exactly_as_it_was(tmp_path):
    """Refused before anything is written: today it was switched to WAL and given tables first."""
    path = tmp_path / "newer.sqlite3"
    with sqlite3.connect(path) as raw:  # a journal as a newer loom (rollback journal mode) left it
        raw.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        raw.execute("INSERT INTO meta VALUES ('journalSchema', '2'), ('eventSchema', '2')")
        raw.execute("CREATE TABLE loom_v2_events (x)")
    raw.close()
    before = path.read_bytes()
    with pytest.raises(JournalSchemaError, match="journalSchema '2'"):
        SqliteJournal(path)
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["newer.sqlite3"]
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    raw.close()


def test_a_file_that_is_not_a_database_is_a_journal_error_not_a_traceback(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("this is not a database\n" * 20)
    with pytest.raises(JournalError, match=r"notes.txt: cannot open the SQLite journal \(file is not a database\)"):
        SqliteJournal(path)


def test_a_read_only_store_creates_nothing_and_refuses_writes(tmp_path):
    from loom_runtime.journal.events import NewEvent

    path = tmp_path / "j.sqlite3"
    with pytest.raises(JournalError, match="no SQLite journal at"):
        SqliteJournal(path, read_only=True)
    assert not path.exists()
    with SqliteJournal(path) as store:
        store.create("e1", NewEvent("EXECUTION_STARTED", {"flowId": "f", "flowHash": None, "codeHash": None, "input": 1}))
    before = path.read_bytes()
    with SqliteJournal(path, read_only=True) as ro:
        assert ro.summary("e1").last_seq == 1
        with pytest.raises(JournalError, match="readonly"):
            ro.append("e1", [NewEvent("STEP_STARTED", {"stepId": "a"})], expected_seq=1)
        with pytest.raises(JournalError, match="readonly"):
            ro.create("e2", NewEvent("EXECUTION_STARTED", {"flowId": "f", "flowHash": None, "codeHash": None, "input": 1}))
    assert path.read_bytes() == before


@pytest.mark.parametrize("payload, message", [
    ('{"stepId": "a", "result": ' + "[" * 100_000 + "]" * 100_000 + "}", "JSON nested too deeply to read"),
    ('{"stepId": "a", "result": ' + "9" * 5000 + "}", "integer of more than 4300 digits"),
], ids=["deep", "big-int"])
def test_a_pathological_payload_row_is_a_journal_error_naming_execution_and_event(tmp_path, payload, message):
    path = tmp_path / "j.sqlite3"
    with SqliteJournal(path) as store:
        store.create("e1", _started())
        store.append("e1", [NewEvent("STEP_STARTED", {"stepId": "a"}), NewEvent("STEP_COMPLETED", {"stepId": "a", "result": 1})],
                     expected_seq=1)
    with sqlite3.connect(path) as raw:
        raw.execute("UPDATE events SET payload=? WHERE execution_id='e1' AND seq=3", (payload,))
    raw.close()
    with SqliteJournal(path) as store, pytest.raises(JournalError, match=rf"execution `e1` event 3: stored payload is .*{message}"):
        store.read("e1")
