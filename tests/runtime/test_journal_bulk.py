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
