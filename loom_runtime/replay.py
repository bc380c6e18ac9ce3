"""Fold a journal into the state a re-run replays from.

``fold(execution_id, events)`` is a pure function of the event list. A re-run of a flow body asks the
folded state for each recorded fact by id: a step's frame (``frames``), a decision, the n-th emit of
a name, the n-th answer to a gate, a timer, a parallel scope. The fold also keeps what divergence
detection (D3) ranks and exempts by:

* ``Frame.first_seq``: the sequence number of the frame's FIRST ``STEP_STARTED``, set only when
  the frame is new (a re-start after a crash never moves it). It is the log's first-start order
  (ADR-0113 fix round 2: an object's key order is not).
* ``Frame.terminal_seq``: when it completed or failed; frames whose terminal event precedes the
  last ``EXECUTION_MIGRATED`` are exempt from D3 (the migration re-baselined the execution).
* ``Frame.scope``: the parallel scope path the step started in (``/0``, ``/0/1``).
* ``Frame.failed_attempts``: how many of its attempts failed; a ``STEP_FAILED`` with ``retryAt``
  leaves the frame ``retrying`` (waiting on its retry timer, not terminal), the next
  ``STEP_STARTED`` makes it ``started`` again (retries: :mod:`loom_runtime.journal.events`).

``EXECUTION_MIGRATED`` re-points the effective hashes (``toFlowHash``/``toCodeHash``) and, when the
migration carried a transformed frame set (``frames``), replaces the completed frames with it.
The fold refuses a journal it does not understand (``_check``: a sequence gap, an unknown event
type, a missing or ill-typed field, a misplaced start) with a ``JournalError`` naming the
execution and the sequence number, before anything is served from it: a deleted
``STEP_COMPLETED`` must stop the execution, not re-run the step. ``Runtime.recover`` reports that
error on the execution's handle and goes on with the others.

Rejected: an incremental, mutable fold kept alive across runs (every run starts from the journal,
which is the only truth after a crash; a fold is linear in the events and cheap next to the effects).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .definition import RESERVED_GATE
from .errors import JournalCorruptionError, JournalError
from .journal import events as ev
from .journal.events import Event, NewEvent

__all__ = ["Frame", "DecisionRecord", "ReplayState", "advance", "fold", "STARTED", "RETRYING", "COMPLETED", "FAILED"]

STARTED, COMPLETED, FAILED = "started", "completed", "failed"
#: A step whose last attempt failed and that waits on its retry timer (not an outcome: not terminal).
RETRYING = "retrying"


@dataclass(slots=True)
class Frame:
    step_id: str
    first_seq: int
    status: str = STARTED  # started | retrying | completed | failed
    scope: str | None = None
    result: Any = None
    error: dict[str, Any] | None = None
    terminal_seq: int | None = None
    attempts: int = 1  # STEP_STARTED events (a re-start after a crash counts too)
    failed_attempts: int = 0  # STEP_FAILED events: retried ones and the final one

    @property
    def terminal(self) -> bool:
        return self.status in (COMPLETED, FAILED)


@dataclass(frozen=True, slots=True)
class DecisionRecord:
    decision_id: str
    value: Any
    inner_steps: tuple[str, ...] | None  # None: a record that predates innerSteps
    seq: int
    inner_from: int | None = None  # set when innerSteps overflowed its caps

    @property
    def overflow_window(self) -> tuple[int, int] | None:
        """``(innerFrom, recordedAtSeq)`` of an overflowed record: frames first started in it are its own."""
        return None if self.inner_from is None else (self.inner_from, self.seq)


@dataclass(slots=True)
class ReplayState:
    execution_id: str
    flow_id: str = ""
    flow_hash: str | None = None  # as recorded at start
    code_hash: str | None = None
    input: Any = None
    status: str = ev.RUNNING
    gate: str | None = None
    correlation_key: str | None = None
    last_seq: int = 0
    frames: dict[str, Frame] = field(default_factory=dict)
    decisions: dict[str, DecisionRecord] = field(default_factory=dict)
    emitted: dict[str, int] = field(default_factory=dict)
    timers: dict[str, float] = field(default_factory=dict)
    resumes: dict[str, list[Any]] = field(default_factory=dict)
    scopes_started: dict[str, int] = field(default_factory=dict)
    scopes_completed: set[str] = field(default_factory=set)
    migrated_seq: int = 0  # the last EXECUTION_MIGRATED (0: never migrated)
    to_flow_hash: str | None = None
    to_code_hash: str | None = None
    continued_to: str | None = None
    result: Any = None
    error: dict[str, Any] | None = None

    @property
    def migrated(self) -> bool:
        return self.migrated_seq > 0

    @property
    def effective_flow_hash(self) -> str | None:
        return self.to_flow_hash if self.migrated else self.flow_hash

    @property
    def effective_code_hash(self) -> str | None:
        return self.to_code_hash if self.migrated else self.code_hash

    def completed_results(self) -> dict[str, Any]:
        return {sid: f.result for sid, f in self.frames.items() if f.status == COMPLETED}


def fold(execution_id: str, events: tuple[Event, ...] | list[Event]) -> ReplayState:
    """The state after ``events``; ``JournalError`` naming the execution and the event's sequence
    number for a journal this runtime does not understand (see ``_check``)."""
    st = ReplayState(execution_id=execution_id)
    for e in events:
        _check(st, e)
        _apply(st, e)
    return st


def advance(st: ReplayState, events: Iterable[NewEvent], *, first_seq: int) -> ReplayState:
    """``st`` after the caller itself appended ``events`` as ``first_seq, first_seq+1, …``.

    For the runtime's own bootstrap appends (a resume, a migration): the append was fenced on
    ``st.last_seq``, so the state plus these events is exactly the journal, without a second read."""
    for seq, e in enumerate(events, start=first_seq):
        event = Event(seq, e.type, e.payload)
        _check(st, event)
        _apply(st, event)
    return st


# The fields replay reads, per event type, and what each must be (``None``: any JSON value, but
# present). Optional fields (``scope``, ``innerSteps``, ``correlationKey``…) are read with their
# defaults. A row without one of these would replay as something else: a STEP_COMPLETED without
# ``result`` as a step that returned None, one without ``stepId`` as no completion at all (the
# step's effect run again).
_STR, _NUM, _OBJ = (str,), (int, float), (dict,)
_FIELDS: dict[str, tuple[tuple[str, tuple[type, ...] | None], ...]] = {
    ev.EXECUTION_STARTED: (("flowId", _STR), ("input", None)),
    ev.STEP_STARTED: (("stepId", _STR),),
    ev.STEP_COMPLETED: (("stepId", _STR), ("result", None)),
    ev.STEP_FAILED: (("stepId", _STR), ("error", None)),
    ev.DECISION_RECORDED: (("decisionId", _STR), ("value", None)),
    ev.EVENT_EMITTED: (("name", _STR),),
    ev.TIMER_SET: (("timerId", _STR), ("fireAt", _NUM)),
    ev.EXECUTION_SUSPENDED: (("condition", _OBJ),),
    ev.EXECUTION_RESUMED: (("gate", _STR),),
    ev.PARALLEL_STARTED: (("scope", _STR),),
    ev.PARALLEL_COMPLETED: (("scope", _STR),),
    ev.EXECUTION_MIGRATED: (),
    ev.EXECUTION_CONTINUED: (),
    ev.EXECUTION_COMPLETED: (),
    ev.EXECUTION_FAILED: (),
}


def _check(st: ReplayState, e: Event) -> None:
    """Refuse what replay cannot serve faithfully, before it is folded: a sequence gap (a deleted
    row: the step it completed would run again), a first event that is not the start, an event
    type this runtime does not know (it would be skipped, and the work it recorded redone), and a
    missing or ill-typed field replay reads. Never a guess, never a ``KeyError``."""
    problem = _problem(st, e)
    if problem is not None:
        raise JournalCorruptionError(
            f"execution `{st.execution_id}` event {e.seq}: {problem}; the journal was edited or damaged: "
            "restore it from a backup (a runtime never writes this), or upgrade loom-toolchain if a newer one wrote it",
            execution_id=st.execution_id, seq=e.seq, problem=problem,
        )


def _problem(st: ReplayState, e: Event) -> str | None:
    if e.seq != st.last_seq + 1:
        if e.seq > st.last_seq + 1:
            return f"{e.type} follows event {st.last_seq}: events {st.last_seq + 1}..{e.seq - 1} are missing"
        return f"{e.type} repeats or goes back from event {st.last_seq}"
    if (e.type == ev.EXECUTION_STARTED) != (e.seq == 1):
        return "EXECUTION_STARTED may only be the first event" if e.seq != 1 else f"the first event is {e.type}, not EXECUTION_STARTED"
    fields = _FIELDS.get(e.type)
    if fields is None:
        return f"unknown event type {e.type!r} (replaying past it would redo the work it recorded)"
    p = e.payload
    if not isinstance(p, Mapping):
        return f"{e.type} payload is not an object"
    for name, types in fields:
        if name not in p:
            return f"{e.type} payload lacks field {name!r}"
        value = p[name]
        if types is not None and (not isinstance(value, types) or isinstance(value, bool)):
            return f"{e.type} field {name!r} must be {'a number' if types is _NUM else types[0].__name__}, got {value!r:.60}"
    if e.type == ev.EXECUTION_SUSPENDED and not isinstance(p["condition"].get("on"), str):
        return f"{e.type} field 'condition.on' must be the gate's name"
    return None


def _apply(st: ReplayState, e: Event) -> None:
    p = e.payload
    t = e.type
    st.last_seq = e.seq
    if t == ev.EXECUTION_STARTED:
        st.flow_id = str(p["flowId"])
        st.flow_hash = p.get("flowHash") or None
        st.code_hash = p.get("codeHash") or None
        st.input = p.get("input")
    elif t == ev.STEP_STARTED:
        sid = p["stepId"]
        frame = st.frames.get(sid)
        if frame is None:
            st.frames[sid] = Frame(sid, first_seq=e.seq, scope=p.get("scope"))
        else:
            frame.attempts += 1  # a re-start keeps first_seq and scope (fix round 3)
            if frame.status == RETRYING:
                frame.status = STARTED  # the next attempt began
    elif t in (ev.STEP_COMPLETED, ev.STEP_FAILED):
        sid = p["stepId"]
        frame = st.frames.get(sid)
        if frame is None:
            raise JournalError(f"execution `{st.execution_id}` event {e.seq}: {t} for step `{sid}` that never started")
        if t == ev.STEP_COMPLETED:
            frame.status, frame.result, frame.terminal_seq = COMPLETED, p.get("result"), e.seq
        else:
            frame.failed_attempts += 1
            frame.error = p.get("error")
            if "retryAt" in p:  # a failed attempt that will be retried: not the step's outcome
                frame.status = RETRYING
            else:
                frame.status, frame.terminal_seq = FAILED, e.seq
    elif t == ev.DECISION_RECORDED:
        inner = p.get("innerSteps")
        st.decisions[p["decisionId"]] = DecisionRecord(
            p["decisionId"], p.get("value"), None if inner is None else tuple(inner), e.seq,
            inner_from=p.get("innerFrom") if p.get("innerStepsOverflow") else None,
        )
    elif t == ev.EVENT_EMITTED:
        st.emitted[p["name"]] = st.emitted.get(p["name"], 0) + 1
    elif t == ev.TIMER_SET:
        st.timers[p["timerId"]] = float(p["fireAt"])
    elif t == ev.EXECUTION_SUSPENDED:
        cond = p["condition"]
        st.status, st.gate, st.correlation_key = ev.SUSPENDED, cond["on"], cond.get("correlationKey")
    elif t == ev.EXECUTION_RESUMED:
        gate = p.get("gate")
        st.status, st.gate, st.correlation_key = ev.RUNNING, None, None
        if gate != RESERVED_GATE:  # a divergence retry answers nobody's suspend (fix round 1)
            st.resumes.setdefault(gate, []).append(p.get("payload"))
    elif t == ev.PARALLEL_STARTED:
        st.scopes_started.setdefault(p["scope"], e.seq)
    elif t == ev.PARALLEL_COMPLETED:
        st.scopes_completed.add(p["scope"])
    elif t == ev.EXECUTION_MIGRATED:
        st.migrated_seq = e.seq
        st.to_flow_hash = p.get("toFlowHash") or None
        st.to_code_hash = p.get("toCodeHash") or None
        if "frames" in p:
            st.frames = {
                sid: Frame(sid, first_seq=e.seq, status=COMPLETED, result=res, terminal_seq=e.seq)
                for sid, res in p["frames"].items()
            }
    elif t == ev.EXECUTION_CONTINUED:
        st.status, st.continued_to = ev.CONTINUED, p.get("nextExecutionId")
    elif t == ev.EXECUTION_COMPLETED:
        st.status, st.result = ev.COMPLETED, p.get("result")
    elif t == ev.EXECUTION_FAILED:
        st.status, st.error = ev.FAILED, p.get("error")
