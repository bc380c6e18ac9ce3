"""Journal events: the wire shape (DESIGN §5), their JSON encoding, and the per-execution summary.

An execution is an append-only list of :class:`Event` values numbered ``1, 2, 3, …`` per execution.
Each event is stored as JSON (``{"type": …, "payload": …}``) next to the event schema version that
wrote it (:data:`EVENT_SCHEMA`); a store refuses to read an event or a journal written by a newer
schema (:class:`~loom_runtime.errors.JournalSchemaError`) instead of guessing at fields it does not
know.

Payload keys are exactly DESIGN §5's (camelCase, because they are a wire format):
``EXECUTION_STARTED{flowId, flowHash, codeHash, input}``, ``STEP_STARTED{stepId, scope?, attempt?}``,
``STEP_COMPLETED{stepId, result}``, ``STEP_FAILED{stepId, error, attempt?, retryAt?}``,
``DECISION_RECORDED{decisionId, value, innerSteps, innerStepsOverflow?, innerFrom?}`` (``innerSteps``
always written, possibly ``[]``; past 4096 ids or 64 KiB a prefix plus the overflow window),
``EVENT_EMITTED{name, payload}``,
``TIMER_SET{timerId, fireAt}``, ``EXECUTION_SUSPENDED{condition: {on, correlationKey?}}``,
``EXECUTION_RESUMED{gate, payload}``, ``PARALLEL_STARTED{scope, branches}``,
``PARALLEL_COMPLETED{scope}``,
``EXECUTION_MIGRATED{toFlowHash, toCodeHash, fromFlowHash, fromCodeHash, strategy, frames?}`` (``frames``:
the ``{stepId: result}`` set a ``transform_state`` produced; ``toCodeHash`` is ``""`` for none),
``EXECUTION_CONTINUED{nextExecutionId, input}``, ``EXECUTION_COMPLETED{result}``,
``EXECUTION_FAILED{error}``.

Retries (``@step(max_attempts=…)``, DESIGN §9) add two optional fields and no event type:
``STEP_STARTED.attempt`` is the attempt number when it is not the first; ``STEP_FAILED.attempt`` the
number of the attempt that failed (absent: the first), and ``STEP_FAILED.retryAt`` is present on a
failed attempt that *will be retried*: that event is not the step's outcome, the step waits on the
durable timer ``__loom_retry__:<stepId>#<attempt>`` (its ``TIMER_SET`` and the park on its gate are
appended in the same batch, so a crash can never separate them) and its next ``STEP_STARTED``
carries the next number. A ``STEP_FAILED`` without ``retryAt`` is the step's failure, as always. A
journal written before retries has neither field and folds exactly as before (every
``STEP_FAILED`` final, every start attempt 1). A runtime that predates these fields would read a
retried attempt's ``STEP_FAILED`` as final: do not run older runtimes against a journal with
retrying steps.

:func:`apply_to_summary` is the one place that derives an execution's ``status``, parked ``gate``,
timer ``wake_at`` and effective hashes from its events. Every store maintains its summary row with
it inside the append transaction, so ``list_executions``/``due_timers`` never scan events and all
stores agree on what a status means. Rejected: deriving status at read time (a census over a big
journal would fold every execution) and letting each store re-implement the rules (they drift).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from .. import json_values
from ..definition import RESERVED_GATE
from ..errors import JournalError, JournalSchemaError

__all__ = [
    "EVENT_SCHEMA",
    "EVENT_TYPES",
    "TIMER_GATE_PREFIX",
    "RETRY_TIMER_PREFIX",
    "retry_timer_id",
    "STATUSES",
    "Event",
    "NewEvent",
    "ExecutionSummary",
    "apply_to_summary",
    "encode_payload",
    "decode_payload",
    "decode_rows",
    "check_schema",
    "is_json_value",
    "timer_gate",
]

#: Event schema this runtime writes and the newest it reads.
EVENT_SCHEMA = 1

EXECUTION_STARTED = "EXECUTION_STARTED"
STEP_STARTED = "STEP_STARTED"
STEP_COMPLETED = "STEP_COMPLETED"
STEP_FAILED = "STEP_FAILED"
DECISION_RECORDED = "DECISION_RECORDED"
EVENT_EMITTED = "EVENT_EMITTED"
TIMER_SET = "TIMER_SET"
EXECUTION_SUSPENDED = "EXECUTION_SUSPENDED"
EXECUTION_RESUMED = "EXECUTION_RESUMED"
PARALLEL_STARTED = "PARALLEL_STARTED"
PARALLEL_COMPLETED = "PARALLEL_COMPLETED"
EXECUTION_MIGRATED = "EXECUTION_MIGRATED"
EXECUTION_CONTINUED = "EXECUTION_CONTINUED"
EXECUTION_COMPLETED = "EXECUTION_COMPLETED"
EXECUTION_FAILED = "EXECUTION_FAILED"

EVENT_TYPES = frozenset(
    {
        EXECUTION_STARTED,
        STEP_STARTED,
        STEP_COMPLETED,
        STEP_FAILED,
        DECISION_RECORDED,
        EVENT_EMITTED,
        TIMER_SET,
        EXECUTION_SUSPENDED,
        EXECUTION_RESUMED,
        PARALLEL_STARTED,
        PARALLEL_COMPLETED,
        EXECUTION_MIGRATED,
        EXECUTION_CONTINUED,
        EXECUTION_COMPLETED,
        EXECUTION_FAILED,
    }
)

RUNNING, SUSPENDED, COMPLETED, FAILED, CONTINUED = "running", "suspended", "completed", "failed", "continued"
STATUSES = (RUNNING, SUSPENDED, COMPLETED, FAILED, CONTINUED)
TERMINAL_STATUSES = frozenset({COMPLETED, FAILED, CONTINUED})

#: A durable timer parks its execution on ``__loom_timer__:<timerId>``; ``due_timers`` finds it.
TIMER_GATE_PREFIX = "__loom_timer__:"

#: Timer ids of the waits between step attempts (``ctx.sleep`` refuses ids with this prefix).
RETRY_TIMER_PREFIX = "__loom_retry__:"


def retry_timer_id(step_id: str, failed_attempt: int) -> str:
    """The timer a step waits on after attempt ``failed_attempt`` failed."""
    return f"{RETRY_TIMER_PREFIX}{step_id}#{failed_attempt}"


def timer_gate(timer_id: str) -> str:
    return TIMER_GATE_PREFIX + timer_id


def is_reserved_gate(gate: str) -> bool:
    return gate == RESERVED_GATE or gate.startswith(TIMER_GATE_PREFIX)


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event about to be appended (the store assigns its sequence number)."""

    type: str
    payload: Mapping[str, Any]

    def __post_init__(self) -> None:
        if self.type not in EVENT_TYPES:
            raise JournalError(f"unknown event type {self.type!r}; known: {', '.join(sorted(EVENT_TYPES))}")
        if not isinstance(self.payload, Mapping):
            raise JournalError(f"{self.type}: payload must be a JSON object, got {type(self.payload).__name__}")


@dataclass(frozen=True, slots=True)
class Event:
    """A stored event. ``payload`` is a fresh dict decoded from the stored JSON; treat it as read-only."""

    seq: int
    type: str
    payload: Mapping[str, Any]
    recorded_at: float = 0.0
    schema: int = EVENT_SCHEMA


@dataclass(frozen=True, slots=True)
class ExecutionSummary:
    """One execution's row: what ``list_executions`` returns and the ops census counts.

    ``flow_hash``/``code_hash`` are the *effective* hashes: after an ``EXECUTION_MIGRATED`` they
    are the migration's targets, because that is the code the execution now runs on.
    """

    execution_id: str
    flow_id: str
    status: str
    last_seq: int
    flow_hash: str | None = None
    code_hash: str | None = None
    gate: str | None = None
    wake_at: float | None = None


def apply_to_summary(summary: ExecutionSummary | None, execution_id: str, seq: int, event: NewEvent) -> ExecutionSummary:
    """The summary after ``event`` (numbered ``seq``) is appended. Pure; shared by every store."""
    p = event.payload
    if event.type == EXECUTION_STARTED:
        if summary is not None:
            raise JournalError(f"execution `{execution_id}`: EXECUTION_STARTED may only be its first event")
        return ExecutionSummary(
            execution_id=execution_id,
            flow_id=str(p.get("flowId")),
            status=RUNNING,
            last_seq=seq,
            flow_hash=p.get("flowHash") or None,
            code_hash=p.get("codeHash") or None,
        )
    if summary is None:
        raise JournalError(f"execution `{execution_id}`: the first event must be EXECUTION_STARTED, got {event.type}")
    if summary.status in TERMINAL_STATUSES:
        raise JournalError(
            f"execution `{execution_id}` is {summary.status}; nothing may be appended after its {event.type} "
            "(start a new execution instead)"
        )
    s = replace(summary, last_seq=seq)
    if event.type == TIMER_SET:
        return replace(s, wake_at=float(p["fireAt"]))
    if event.type == EXECUTION_SUSPENDED:
        return replace(s, status=SUSPENDED, gate=str(p["condition"]["on"]))
    if event.type == EXECUTION_RESUMED:
        gate = str(p.get("gate") or "")
        return replace(s, status=RUNNING, gate=None, wake_at=None if gate.startswith(TIMER_GATE_PREFIX) else s.wake_at)
    if event.type == EXECUTION_MIGRATED:
        return replace(s, flow_hash=p.get("toFlowHash") or None, code_hash=p.get("toCodeHash") or None)
    if event.type == EXECUTION_COMPLETED:
        return replace(s, status=COMPLETED, gate=None, wake_at=None)
    if event.type == EXECUTION_FAILED:
        return replace(s, status=FAILED, gate=None, wake_at=None)
    if event.type == EXECUTION_CONTINUED:
        return replace(s, status=CONTINUED, gate=None, wake_at=None)
    if s.status == SUSPENDED:
        raise JournalError(
            f"execution `{execution_id}` is parked on `{s.gate}`; append EXECUTION_RESUMED before {event.type}"
        )
    return s


def is_json_value(value: Any) -> bool:
    """Whether ``value`` is plain JSON the journal can hold (dict with str keys, list, tuple, str,
    int, float, bool, None) within ``json_values``' limits: nesting, integer digits, no cycles.
    Never recursive: a 100,000-deep list is ``False``, not a ``RecursionError``."""
    try:
        json_values.check(value)
    except json_values.JsonValueError:
        return False
    return True


def encode_payload(event: NewEvent) -> str:
    """The stored text of ``event``'s payload; ``JournalError`` naming the event type and where the
    payload breaks a limit (``json_values``: nesting, integer digits, cycles, ``MAX_EVENT_BYTES``)."""
    try:
        return json_values.encode(event.payload, where="payload")
    except json_values.JsonValueError as exc:
        raise JournalError(f"{event.type}: the journal cannot hold this payload ({exc})") from None


def decode_payload(text: str, *, execution_id: str, seq: int) -> dict[str, Any]:
    try:
        doc = json_values.decode(text)
    except json_values.JsonValueError as exc:
        raise JournalError(f"execution `{execution_id}` event {seq}: stored payload is {exc.what}") from None
    if not isinstance(doc, dict):
        raise JournalError(f"execution `{execution_id}` event {seq}: stored payload is not a JSON object")
    return doc


def decode_rows(
    rows: Iterable[tuple[int, str, str, float, int]], *, execution_id: str, where: str = ""
) -> tuple[Event, ...]:
    """Stored ``(seq, type, payload text, recorded_at, schema)`` rows as events (every store's ``read``)."""
    out = []
    for seq, etype, text, at, schema in rows:
        check_schema(schema, where=f"{where}execution `{execution_id}` event {seq}")
        out.append(Event(seq, etype, decode_payload(text, execution_id=execution_id, seq=seq), at, schema))
    return tuple(out)


def check_schema(schema: int, *, where: str) -> None:
    if not isinstance(schema, int) or schema > EVENT_SCHEMA or schema < 1:
        raise JournalSchemaError(
            f"{where} was written by event schema {schema!r}; this runtime reads schema 1..{EVENT_SCHEMA}. "
            "Upgrade loom-toolchain on this worker (never downgrade a journal's runtime)."
        )
