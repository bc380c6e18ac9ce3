import sqlite3

import pytest

from loom_runtime.errors import JournalSchemaError
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
