"""``replay.fold``: a journal the runtime does not understand is refused, never replayed past.

Each kind of damage to a stored row — a deleted ``STEP_COMPLETED`` (a sequence gap), an unknown
event type, a payload missing the field replay reads — must stop the execution with a
``JournalCorruptionError`` naming the execution and the sequence number, run no completed step's
effect again, and leave every other execution to ``recover()``. On every store (memory, SQLite,
PostgreSQL through ``journal_factory``).
"""

from __future__ import annotations

import pytest

from loom_runtime import JournalCorruptionError, Runtime, flow
from loom_runtime.journal.events import Event
from loom_runtime.replay import fold

from helpers.journal_rows import RawRows

EFFECTS: list[str] = []


def effect(name: str) -> str:
    EFFECTS.append(name)
    return f"done:{name}"


@flow("three", steps=["a", "b", "c"])
def three(ctx, _input):
    ctx.execute("a", effect, "a")
    ctx.execute("b", effect, "b")
    ctx.suspend("go")
    ctx.execute("c", effect, "c")
    return "ok"


def _parked(journal, eid: str) -> Runtime:
    rt = Runtime(journal=journal)
    rt.register(three)
    assert rt.start("three", None, execution_id=eid).status == "suspended"
    return rt


# seq: 1 STARTED, 2 STEP_STARTED a, 3 STEP_COMPLETED a, 4 STEP_STARTED b, 5 STEP_COMPLETED b, 6 SUSPENDED
DAMAGE = {
    "deleted completion": (lambda rows: rows.delete("e1", 3), r"event 4: STEP_STARTED follows event 2: events 3\.\.3 are missing"),
    "unknown type": (lambda rows: rows.set_type("e1", 5, "STEP_DONE"), r"event 5: unknown event type 'STEP_DONE'"),
    "no stepId": (lambda rows: rows.set_payload("e1", 3, '{"result": "done:a"}'), r"event 3: STEP_COMPLETED payload lacks field 'stepId'"),
    "no result": (lambda rows: rows.set_payload("e1", 5, '{"stepId": "b"}'), r"event 5: STEP_COMPLETED payload lacks field 'result'"),
    "stepId not a string": (lambda rows: rows.set_payload("e1", 3, '{"stepId": 7, "result": 1}'), r"event 3: STEP_COMPLETED field 'stepId' must be str"),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_row_stops_the_execution_and_reruns_nothing(journal_factory, damage: str):
    EFFECTS.clear()
    rt = _parked(journal_factory(), "e1")
    assert EFFECTS == ["a", "b"]
    corrupt, message = DAMAGE[damage]
    corrupt(RawRows(rt.journal))
    with pytest.raises(JournalCorruptionError, match=r"execution `e1` " + message) as info:
        rt.resume("e1", None, gate="go")
    assert (info.value.execution_id, info.value.seq) == ("e1", int(message.split("event ")[1].split(":")[0]))
    assert EFFECTS == ["a", "b"]  # no completed step ran again, and `c` did not run either


def test_recover_isolates_the_broken_execution_from_the_healthy_ones(journal_factory):
    EFFECTS.clear()

    @flow("crashy", steps=["x"])
    def crashy(ctx, _input):
        return ctx.execute("x", effect, "x")

    journal = journal_factory()
    rt = Runtime(journal=journal)
    rt.register(crashy)
    from loom_runtime.journal.events import NewEvent

    for eid in ("bad", "good1", "good2"):  # each crashed before its step finished
        journal.create(eid, NewEvent("EXECUTION_STARTED", {"flowId": "crashy", "flowHash": rt.registry.current("crashy").flow_hash,
                                                          "codeHash": None, "input": None}))
        journal.append(eid, [NewEvent("STEP_STARTED", {"stepId": "x"})], expected_seq=1)
    RawRows(journal).set_payload("bad", 2, '{"scope": "/0"}')  # a STEP_STARTED without stepId: KeyError out of recover()
    handles = {h.execution_id: h for h in rt.recover()}
    assert handles["good1"].status == "completed" and handles["good2"].status == "completed"
    assert isinstance(handles["bad"].exception, JournalCorruptionError)
    assert "execution `bad` event 2: STEP_STARTED payload lacks field 'stepId'" in str(handles["bad"].exception)
    assert sorted(EFFECTS) == ["x", "x"]


@pytest.mark.parametrize("events, problem", [
    ([Event(1, "EXECUTION_STARTED", {"flowId": "f", "input": 1}), Event(1, "STEP_STARTED", {"stepId": "a"})],
     "STEP_STARTED repeats or goes back from event 1"),
    ([Event(1, "STEP_STARTED", {"stepId": "a"})], "the first event is STEP_STARTED, not EXECUTION_STARTED"),
    ([Event(1, "EXECUTION_STARTED", {"flowId": "f", "input": 1}), Event(2, "EXECUTION_STARTED", {"flowId": "f", "input": 1})],
     "EXECUTION_STARTED may only be the first event"),
    ([Event(1, "EXECUTION_STARTED", {"flowId": "f", "input": 1}), Event(2, "TIMER_SET", {"timerId": "t", "fireAt": "soon"})],
     "TIMER_SET field 'fireAt' must be a number, got 'soon'"),
    ([Event(1, "EXECUTION_STARTED", {"flowId": "f", "input": 1}), Event(2, "EXECUTION_SUSPENDED", {"condition": {}})],
     "EXECUTION_SUSPENDED field 'condition.on' must be the gate's name"),
])
def test_fold_refuses_what_it_cannot_replay(events, problem):
    with pytest.raises(JournalCorruptionError) as info:
        fold("e", events)
    assert info.value.problem == problem


def test_fold_accepts_every_event_the_runtime_writes(journal_factory):
    rt = _parked(journal_factory(), "ok")
    assert rt.resume("ok", {"y": 1}, gate="go").status == "completed"
    state = fold("ok", rt.journal.read("ok"))
    assert state.status == "completed" and state.last_seq == len(rt.journal.read("ok"))


def test_every_event_type_the_runtime_writes_is_one_fold_knows():
    from loom_runtime.journal.events import EVENT_TYPES
    from loom_runtime.replay import _FIELDS

    assert set(_FIELDS) == set(EVENT_TYPES)  # a new event type must say which fields replay reads
