"""The replay sandbox: re-run a flow body over a recorded journal and stop at the first live append.

``loom replay`` and ``loom deploy-check`` ask the same question of a recorded execution: *what
would this code do if it resumed now?* The sandbox answers it with the runtime's own drive loop
(``Runtime._drive``: resolution is bypassed, everything else is the production path, including the
divergence detector, D3, in ``fail`` mode), so there is one implementation of the replay rules and
the answer cannot drift from what a worker will do after the deploy. What differs is the journal
and one guard:

* **The journal holds nothing and accepts nothing** (``_SandboxJournal``). The execution's events
  are folded by the caller and handed to the drive loop, which never reads; every write, of any
  kind, raises :class:`LiveAppend` before anything is written. A live ``STEP_STARTED`` is refused
  before the step function is called, an emit before it is recorded, a timer before it is set, a
  continuation before its successor is created. The production journal is never touched: the
  caller reads it (read-only) and the sandbox never sees it.
* **A decider never runs.** A live ``ctx.decide`` calls its decider *before* it appends the record
  (the decider is real work: a model call), so the journal alone would stop too late. The sandbox's
  Context (``Runtime._new_context``) hands ``Context.decide`` a stand-in decider that raises
  :class:`LiveAppend` (latched like a journal error, so a body that swallows it stops anyway); a
  recorded decision is served as always, without calling anything.

Nothing else of the user's runs but the flow body itself and the helpers it calls: orchestration
code, which every production resume re-runs too.

**Where a replay ends** (``SandboxResult.kind``). A journal whose last event is an outcome the body
itself produced (a park, completion, failure, continuation) has that event *withheld*: the re-run
must produce it again. A park on ``__loom_diverged__`` is not withheld (it was the runtime's
refusal, not the body's outcome), so such an execution replays as an open journal.

* ``reached``: the re-run reproduced the withheld outcome (the same gate, result, error type or
  continuation input): it reached its resume point.
* ``frontier``: an open journal (running, or parked on ``__loom_diverged__``) whose re-run asked
  for live work with every recorded step asked for: where the history ends, new work begins.
* ``live-work``: live work before the resume point: before the withheld outcome, or in an open
  journal while recorded steps are still unasked (a new decision at the top of the body). The
  recorded run did not do that work; a resume would.
* ``mismatch``: the re-run produced another outcome than the recorded one (another gate, result,
  error).
* ``diverged``: refused by D3: recorded steps the body never asked for (``skipped``, named as the
  runtime names them when it parks the execution).
* ``nondeterministic``: a recorded id asked for as another kind of work.
* ``error``: the drive raised another ``LoomError`` (misuse of the API the body cannot recover).

Cost: one ``Sandbox`` per version (its chunk loaded once), one fold and one run per execution, no
journal object per execution. Rejected: seeding an in-memory journal with each history (copies
every event; what ``replay_history`` used to do) and mocking step functions (a replay must prove
they are not needed, and a decider cannot be mocked without knowing what it returns).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .context import Context
from .definition import RESERVED_GATE
from .divergence import DivergenceDetector
from .errors import (
    ExecutionNotFoundError,
    FlowNotFoundError,
    FlowReplayDivergenceError,
    JournalError,
    LoomError,
    NonDeterminismError,
)
from .journal import events as ev
from .journal.events import Event, ExecutionSummary, NewEvent
from .journal.protocol import Lease
from .registry import FlowVersion, Registry
from .replay import ReplayState, fold
from .runtime import Runtime

__all__ = ["LiveAppend", "SandboxResult", "Sandbox", "resume_point", "describe_append", "outcome_difference", "OUTCOMES"]

#: Events that end a run of the body; a trailing one (but a divergence park) is withheld.
OUTCOMES = frozenset({ev.EXECUTION_SUSPENDED, ev.EXECUTION_COMPLETED, ev.EXECUTION_FAILED, ev.EXECUTION_CONTINUED})


class LiveAppend(JournalError):
    """The sandboxed re-run asked for a live append (``events``): where its replay ends."""

    def __init__(self, events: Sequence[NewEvent]) -> None:
        self.events = tuple(events)
        super().__init__(f"replay sandbox: {describe_append(self.events)} (nothing runs live in a replay)")


def _short_json(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe_append(events: Sequence[NewEvent]) -> str:
    """What the first live append of a re-run would do, in words (``step `charge` would run live``)."""
    e = events[0]
    p = e.payload
    if e.type == ev.STEP_STARTED:
        return f"step `{p.get('stepId')}` would run live"
    if e.type == ev.DECISION_RECORDED:
        return f"decision `{p.get('decisionId')}` would be recorded live"
    if e.type == ev.EVENT_EMITTED:
        return f"event `{p.get('name')}` would be emitted live"
    if e.type == ev.TIMER_SET:
        return f"timer `{p.get('timerId')}` would be set"
    if e.type == ev.EXECUTION_SUSPENDED:
        return f"it would park on `{p['condition'].get('on')}`"
    if e.type == ev.EXECUTION_COMPLETED:
        return f"it would complete with {_short_json(p.get('result'))}"
    if e.type == ev.EXECUTION_FAILED:
        err = p.get("error") or {}
        return f"it would fail with {err.get('type')}: {err.get('message')}"
    if e.type == ev.EXECUTION_CONTINUED:
        return "it would continue as new"
    if e.type == ev.PARALLEL_STARTED:
        return f"parallel scope `{p.get('scope')}` would start live"
    return f"{e.type} would be appended live"


def outcome_difference(recorded: NewEvent, replayed: NewEvent) -> str | None:
    """How a replayed outcome of the recorded type differs from the recorded one (``None``: alike)."""
    r, n = recorded.payload, replayed.payload
    if recorded.type == ev.EXECUTION_SUSPENDED:
        a, b = r["condition"].get("on"), n["condition"].get("on")
        return None if a == b else f"the recorded run parks on `{a}`, this code parks on `{b}`"
    if recorded.type == ev.EXECUTION_COMPLETED:
        return None if r.get("result") == n.get("result") else (
            f"the recorded run completed with {_short_json(r.get('result'))}, this code with {_short_json(n.get('result'))}"
        )
    if recorded.type == ev.EXECUTION_FAILED:
        a, b = (r.get("error") or {}).get("type"), (n.get("error") or {}).get("type")
        return None if a == b else f"the recorded run failed with {a}, this code fails with {b}: {(n.get('error') or {}).get('message')}"
    if recorded.type == ev.EXECUTION_CONTINUED:
        return None if r.get("input") == n.get("input") else (
            f"the recorded run continued as new with {_short_json(r.get('input'))}, this code with {_short_json(n.get('input'))}"
        )
    return None


def resume_point(execution_id: str, events: Sequence[Event]) -> tuple[ReplayState, NewEvent | None]:
    """The fold a re-run starts from and the outcome it must reproduce (see the module docstring)."""
    last = events[-1] if events else None
    if last is not None and last.type in OUTCOMES and len(events) > 1:
        state = fold(execution_id, events[:-1])
        diverged_park = last.type == ev.EXECUTION_SUSPENDED and last.payload["condition"].get("on") == RESERVED_GATE
        return state, None if diverged_park else NewEvent(last.type, last.payload)
    return fold(execution_id, events), None


@dataclass(frozen=True, slots=True)
class SandboxResult:
    """Where one sandboxed re-run ended. ``kind``: see the module docstring."""

    execution_id: str
    kind: str  # reached | frontier | live-work | mismatch | diverged | nondeterministic | error
    message: str  # a phrase: "it would park on `approval`", "step `charge` would run live", ...
    stop: tuple[NewEvent, ...] = ()  # the live append it asked for
    expected: NewEvent | None = None  # the withheld outcome
    skipped: tuple[str, ...] = ()  # diverged: recorded steps never asked for
    unasked: tuple[str, ...] = ()  # live-work: recorded steps not asked for yet when it stopped
    events: int = 0  # how many recorded events it replayed over

    @property
    def ok(self) -> bool:
        """It reached its resume point (or an open journal's end) without divergence."""
        return self.kind in ("reached", "frontier")


class _SandboxJournal:
    """A JournalStore that holds nothing and refuses every write (``LiveAppend``)."""

    def create(self, execution_id: str, started: NewEvent) -> int:
        # only a continuation creates from inside a drive: report it as the continuation
        raise LiveAppend([NewEvent(ev.EXECUTION_CONTINUED, {"nextExecutionId": execution_id, "input": started.payload.get("input")})])

    def create_leased(self, execution_id: str, started: NewEvent, *, owner: str, ttl: float) -> Lease:
        self.create(execution_id, started)
        raise AssertionError("unreachable")  # pragma: no cover

    def append(self, execution_id: str, events: Sequence[NewEvent], *, expected_seq: int, lease: Lease | None = None) -> int:
        raise LiveAppend(events)

    def read(self, execution_id: str, after_seq: int = 0) -> tuple[Event, ...]:
        raise JournalError("the replay sandbox reads nothing: hand it the folded state")

    def summary(self, execution_id: str) -> ExecutionSummary:
        raise ExecutionNotFoundError(execution_id)  # a continuation's successor: then create() refuses

    def list_executions(self, *, statuses: Iterable[str] | None = None, flow_id: str | None = None,
                        leasable_by: str | None = None) -> tuple[ExecutionSummary, ...]:
        return ()

    def due_timers(self, now: float) -> tuple[ExecutionSummary, ...]:
        return ()

    def acquire_lease(self, execution_id: str, owner: str, *, ttl: float, now: float | None = None) -> Lease:
        return Lease(execution_id, owner, 1, math.inf)  # nothing is written, so nothing to fence

    def release_lease(self, lease: Lease) -> None:
        return None

    def close(self) -> None:
        return None


class _OneVersion(Registry):
    """Serves one version for its flow id whatever the journal recorded: the code under test."""

    def __init__(self, version: FlowVersion) -> None:
        super().__init__()
        self._version = version

    def resolve(self, flow_id: str, **_: Any) -> FlowVersion:  # type: ignore[override]
        return self.current(flow_id)

    def current(self, flow_id: str) -> FlowVersion:
        if flow_id != self._version.flow_id:
            raise FlowNotFoundError(flow_id, known=(self._version.flow_id,))
        return self._version


class _SandboxContext(Context):
    """A Context whose live decisions stop the replay before their decider runs."""

    def decide(self, decision_id: str, decider: Callable[[], Any]) -> Any:
        def stand_in() -> Any:
            stop = LiveAppend([NewEvent(ev.DECISION_RECORDED, {"decisionId": decision_id})])
            self.journal_error = stop  # latched: a body that swallows it appends nothing more
            raise stop

        # a recorded decision is served without calling the decider; a live one calls the stand-in
        return super().decide(decision_id, stand_in)


class _SandboxRuntime(Runtime):
    def __init__(self, version: FlowVersion, clock: Callable[[], float] | None) -> None:
        self.warnings: list[str] = []
        kwargs: dict[str, Any] = {} if clock is None else {"clock": clock}
        super().__init__(journal=_SandboxJournal(), registry=_OneVersion(version), divergence="fail",
                         on_warn=self.warnings.append, **kwargs)
        self.context: _SandboxContext | None = None

    def _new_context(self, state: ReplayState, detector: DivergenceDetector) -> Context:
        self.context = _SandboxContext(self, state, detector)
        return self.context


class Sandbox:
    """Replays executions of one version of a flow (load its chunk once, replay many journals)."""

    def __init__(self, version: FlowVersion, *, clock: Callable[[], float] | None = None) -> None:
        self.version = version
        self._runtime = _SandboxRuntime(version, clock)

    def replay(self, execution_id: str, events: Sequence[Event]) -> SandboxResult:
        """Re-run the version's body over ``events`` (one execution's whole journal, in order)."""
        state, withheld = resume_point(execution_id, events)
        rt = self._runtime
        rt.context = None

        def result(kind: str, message: str, **kw: Any) -> SandboxResult:
            return SandboxResult(execution_id, kind, message, expected=withheld, events=len(events), **kw)

        if state.flow_id != self.version.flow_id:
            return result("error", f"the journal is of flow `{state.flow_id}`, not `{self.version.flow_id}`")
        try:
            handle = rt._drive(execution_id, state)
        except FlowReplayDivergenceError as exc:
            skipped = tuple(exc.skipped)
            return result("diverged", f"it never asks for recorded step(s) {', '.join(f'`{s}`' for s in skipped)}",
                          skipped=skipped)
        except NonDeterminismError as exc:
            return result("nondeterministic", f"`{exc.ident}` is recorded as a {exc.recorded} but this code asks "
                          f"for it as a {exc.asked}")
        except LiveAppend as exc:
            return self._stopped(result, exc.events, withheld)
        except LoomError as exc:
            return result("error", f"{type(exc).__name__}: {exc}")
        return result("error", f"the run ended {handle.status} without appending anything")  # pragma: no cover

    def _stopped(self, result: Callable[..., SandboxResult], events: tuple[NewEvent, ...],
                 withheld: NewEvent | None) -> SandboxResult:
        what = describe_append(events)
        ctx = self._runtime.context
        unasked = ctx._detector.unasked() if ctx is not None else ()
        if withheld is None:
            if unasked:
                listed = ", ".join(f"`{s}`" for s in unasked)
                return result("live-work", f"{what} before this code asks for recorded step(s) {listed}",
                              stop=events, unasked=unasked)
            return result("frontier", what, stop=events)
        outcome = events[-1]
        if len(events) == 1 and outcome.type == withheld.type:
            differs = outcome_difference(withheld, outcome)
            if differs is None:
                return result("reached", what, stop=events)
            return result("mismatch", differs, stop=events)
        if events[0].type in OUTCOMES:
            return result("mismatch", f"the recorded run ends with {withheld.type} but {what}", stop=events)
        return result("live-work", f"{what} where the recorded run ends with {withheld.type}", stop=events, unasked=unasked)
