"""Reading many executions at once (``journal.bulk``): the same events ``read`` returns, per store."""

from __future__ import annotations

import pytest

from loom_runtime.journal import bulk
from loom_runtime.journal.events import NewEvent


def _fill(journal, n: int) -> list[str]:
    ids = [f"e{i:04d}" for i in range(n)]
    for i, eid in enumerate(ids):
        journal.create(eid, NewEvent("EXECUTION_STARTED", {"flowId": "f", "flowHash": "", "codeHash": "", "input": i}))
        journal.append(eid, [NewEvent("STEP_STARTED", {"stepId": "a"}),
                             NewEvent("STEP_COMPLETED", {"stepId": "a", "result": [i, "x"]})], expected_seq=1)
    return ids


def test_read_many_returns_what_read_returns_across_batches(journal, monkeypatch):
    ids = _fill(journal, 7)
    monkeypatch.setattr(bulk, "BATCH", 3)  # several batches, one of them short
    got = bulk.read_many(journal, [*reversed(ids), "unknown", ids[0]])
    assert set(got) == set(ids)  # an unknown id is absent, a repeated one read once
    for eid in ids:
        assert [(e.seq, e.type, dict(e.payload)) for e in got[eid]] == [
            (e.seq, e.type, dict(e.payload)) for e in journal.read(eid)
        ]


def test_started_at_is_each_first_events_time(journal):
    ids = _fill(journal, 3)
    got = bulk.started_at(journal, ids + ["unknown"])
    assert got == {eid: journal.read(eid)[0].recorded_at for eid in ids}


class _OnlyTheProtocol:
    """A store with nothing but the protocol's read: the fallbacks."""

    def __init__(self, inner):
        self.inner = inner

    def read(self, execution_id, after_seq=0):
        return self.inner.read(execution_id, after_seq)


@pytest.mark.parametrize("fn", [bulk.read_many, bulk.started_at])
def test_a_store_without_the_capability_is_read_one_by_one(journal, fn):
    ids = _fill(journal, 2)
    assert fn(_OnlyTheProtocol(journal), ids + ["unknown"]) == fn(journal, ids)


def test_stored_payloads_that_are_not_one_json_object_are_refused_naming_the_event(tmp_path):
    import sqlite3

    from loom_runtime.errors import JournalError
    from loom_runtime.journal.sqlite import SqliteJournal

    store = SqliteJournal(tmp_path / "j.db")
    ids = _fill(store, 2)
    # two corrupt rows that would pair up into valid objects if a batch were parsed as one array
    conn = sqlite3.connect(tmp_path / "j.db")
    conn.execute("UPDATE events SET payload=? WHERE execution_id=? AND seq=2", ('{"stepId": "a"},{"x": [1', ids[0]))
    conn.execute("UPDATE events SET payload=? WHERE execution_id=? AND seq=3", ('2]}', ids[0]))
    conn.commit()
    conn.close()
    with pytest.raises(JournalError, match="execution `e0000` event 2: stored payload is not valid UTF-8 JSON"):
        bulk.read_many(store, ids)
    # padded but valid JSON reads as json.loads reads it; a list is not an event payload
    conn = sqlite3.connect(tmp_path / "j.db")
    conn.execute("UPDATE events SET payload=? WHERE execution_id=? AND seq=2", (' {"stepId": "a"} ', ids[0]))
    conn.execute("UPDATE events SET payload=? WHERE execution_id=? AND seq=3", ('[1]', ids[0]))
    conn.commit()
    conn.close()
    with pytest.raises(JournalError, match="execution `e0000` event 3: stored payload is not a JSON object"):
        bulk.read_many(store, ids)
    # nesting past the parser's stack and integers past the digit limit: refused as a read names them
    conn = sqlite3.connect(tmp_path / "j.db")
    conn.execute("UPDATE events SET payload=? WHERE execution_id=? AND seq=3", ('{"a":' + "[" * 100_000 + "]" * 100_000 + "}", ids[0]))
    conn.execute("UPDATE events SET payload=? WHERE execution_id=? AND seq=2", ('{"stepId": "a", "n": 1' + "0" * 5000 + "}", ids[1]))
    conn.commit()
    conn.close()
    with pytest.raises(JournalError, match="execution `e0000` event 3: stored payload is JSON nested too deeply"):
        bulk.read_many(store, ids[:1])
    with pytest.raises(JournalError, match="execution `e0001` event 2: stored payload is JSON holding an integer"):
        bulk.read_many(store, ids[1:])
    store.close()
