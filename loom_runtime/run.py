"""``Run``: the replay rules of one run of one execution's body, shared by both kinds of Context.

A flow body is re-run from the top on every resume. Each durable operation first looks in the
folded journal (:mod:`loom_runtime.replay`) for what it did last time and serves that; only work the
journal does not hold runs live and is appended (through the run's :class:`~loom_runtime.port.RunPort`).
Identity:

* a step by its ``step_id`` (unique per execution; a loop mints ``pack#<i>``),
* a decision by its ``decision_id``; ``now()`` is the decision ``__loom_now__#<n>`` (n-th call),
* an emit by (name, n-th emit of that name), a gate answer by (gate, n-th suspend on it),
* a timer by its ``timer_id``, a parallel scope by its position (``/0``, ``/0/1``).

Before a live ``STEP_STARTED``, a park, a timer registration or a continuation, the divergence
detector (:mod:`loom_runtime.divergence`) is consulted (completion is checked by the drive loop).
Emits and a live decision's record are not judged (ADR-0113 fix round 1).

A recorded id asked for as another kind of work (a step where a decision was recorded, or the
reverse) raises :class:`~loom_runtime.errors.NonDeterminismError` and latches it like a divergence
refusal: whatever the body does with it, nothing more is appended, and the drive loop parks the
execution on the reserved gate.

Every operation that runs user code is split in two halves around that code (``step_begin`` /
``step_succeeded`` / ``step_raised``, ``decide_begin`` / ``decide_end``): the synchronous
:class:`~loom_runtime.context.Context` calls the code in between directly, the asynchronous one
awaits it, and the rules live here once. Rejected: an async core driven synchronously (every sync
step would pay for a coroutine and an event loop) and two copies of the rules (they drift, and D3
must be exactly the same for both kinds of flow).

Values. Step results, decisions, payloads and inputs are JSON values and are returned as JSON
decodes them (a tuple comes back as a list) on the live run too, so a body sees the same thing live
and replayed. A step that raises records ``STEP_FAILED`` and the body gets :class:`StepFailedError`
(live: with the original exception as ``__cause__``); a replay raises the same error type from the
record. Rejected: re-raising the original exception type live (a replay cannot rebuild arbitrary
classes, so a body catching ``ValueError`` would branch differently live and replayed).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from .definition import RESERVED_GATE, StepDefinition
from .divergence import DivergenceDetector
from .errors import FlowUsageError, JournalError, NonDeterminismError, StepFailedError, UndeclaredStepError
from .journal import events as ev
from . import json_values
from .journal.events import RETRY_TIMER_PREFIX, NewEvent, retry_timer_id, timer_gate
from .port import RunPort
from .replay import COMPLETED, FAILED, RETRYING, Frame, ReplayState

__all__ = ["Run", "LIVE", "WAIT", "Parked", "ContinueAsNew", "normalise", "qualname", "step_policy"]

NOW_DECISION_PREFIX = "__loom_now__#"


class Parked(BaseException):
    """Unwinds the body after a park was appended. BaseException so ``except Exception`` can't eat it."""

    def __init__(self, gate: str) -> None:
        super().__init__(gate)
        self.gate = gate


class ContinueAsNew(BaseException):
    def __init__(self, new_input: Any) -> None:
        super().__init__("continue_as_new")
        self.input = new_input


class _Live:
    """What a ``*_begin`` returns when the work is not in the journal and must run live."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "LIVE"


LIVE: Any = _Live()


class _Wait:
    """What ``step_begin`` returns for a step still waiting on its retry timer."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "WAIT"


WAIT: Any = _Wait()


class _Unanswered:
    __slots__ = ()


_UNANSWERED: Any = _Unanswered()


class Run:
    """The bookkeeping of one run: what it asked for, what it appended, and its latches."""

    def __init__(self, port: RunPort, state: ReplayState, detector: DivergenceDetector) -> None:
        self.port = port
        self.state = state
        self.detector = detector
        self.last_seq = state.last_seq
        self._asked: set[str] = set()
        self._asked_decisions: set[str] = set()
        self._asked_timers: set[str] = set()
        self.decision_stack: list[list[str]] = []
        self._emit_counts: dict[str, int] = {}
        self._gate_counts: dict[str, int] = {}
        self._now_count = 0
        self.scopes: list[str] = []
        self._scope_children: dict[str, int] = {}
        #: A journal error (a stale writer's FencingError) ends the run even if the body catches it.
        self.journal_error: JournalError | None = None
        #: The first change of kind of work under a recorded id; latched (nothing is appended after it).
        self.nondeterminism: NonDeterminismError | None = None
        #: Under ``Runtime(strict=True)``: whether a step id is outside the flow's declared
        #: ``steps``/``step_families`` (a live one is then refused before ``STEP_STARTED``).
        self.undeclared: Callable[[str], bool] | None = None
        #: The first live step id ``undeclared`` refused; latched (nothing is appended after it).
        self.undeclared_step: UndeclaredStepError | None = None

    @property
    def execution_id(self) -> str:
        return self.state.execution_id

    @property
    def flow_id(self) -> str:
        return self.state.flow_id

    # -- steps -------------------------------------------------------------------------------

    def step_begin(self, step_id: str) -> Any:
        """The recorded result (or raise the recorded failure), ``LIVE`` once ``STEP_STARTED`` is
        appended and the step body may run, or ``WAIT`` when the step waits on its retry timer and
        the caller must park on it again (``retry_repark``)."""
        self._claim_id(step_id, "step")
        self._asked.add(step_id)
        for inner in self.current_decisions():
            inner.append(step_id)
        self.detector.asked(step_id)
        frame = self.state.frames.get(step_id)
        if frame is not None and frame.status == COMPLETED:
            return frame.result
        if frame is not None and frame.status == FAILED:
            raise self.step_failed(step_id, frame.error or {}, attempts=max(frame.failed_attempts, 1))
        if frame is not None and frame.status == RETRYING and not self._retry_due(frame):
            return WAIT
        # A recorded but unfinished frame (a crash mid-step, or a retry) is re-run: judged only
        # against the frames first started before it (ADR-0113 fix round 1, note 5).
        self.detector.check(f"step `{step_id}` starts", restart_seq=None if frame is None else frame.first_seq)
        # after the divergence check (a divergence refusal wins); latched like one: whatever the
        # body does with it, nothing more is appended and the drive loop parks the execution on
        # the reserved gate (outcomes), so a deploy mistake never fails a durable execution
        if self.undeclared is not None and frame is None and self.undeclared(step_id):
            self.undeclared_step = UndeclaredStepError(
                f"flow `{self.flow_id}` execution `{self.execution_id}`: step id `{step_id}` is not declared by "
                "the flow's steps=[...] or step_families=[...], and Runtime(strict=True) refuses undeclared ids "
                f"before their effect (nothing ran). Declare it (or its family `{step_id.split('#', 1)[0]}`); "
                "`loom build` warns about literal ids like this one",
                step_id=step_id, flow_id=self.flow_id, execution_id=self.execution_id,
            )
            raise self.undeclared_step
        started: dict[str, Any] = {"stepId": step_id}
        attempt = self.attempt(step_id)
        if attempt > 1:
            started["attempt"] = attempt
        scope = self.current_scope()
        if scope is not None:
            started["scope"] = scope
        self.append([NewEvent(ev.STEP_STARTED, started)])
        self._admit("step", step_id)
        return LIVE

    def step_succeeded(self, step_id: str, result: Any) -> Any:
        """Record a live step's result; return it as the journal holds it.

        A result the journal cannot hold — not JSON, cyclic, nested past ``json_values.MAX_DEPTH``,
        an integer past ``MAX_INT_DIGITS`` digits, more than ``MAX_EVENT_BYTES`` — is checked
        *before* anything is appended and recorded as the step's ``STEP_FAILED``: the effect ran
        once and must not run again, and a ``STEP_COMPLETED`` the store then refused would leave
        ``STEP_STARTED`` last, which every ``recover()`` answers by running the effect again."""
        try:
            text = json_values.encode(result, where="result")
        except json_values.JsonValueError as exc:
            error = {
                "type": "loom.NonJsonResult",
                "message": f"the step ran once, but its result cannot be journaled: {exc}. Return a JSON value "
                           "within the journal's limits (see README: values the journal holds); the step is "
                           "recorded as failed so that it never runs again",
            }
            self.append([NewEvent(ev.STEP_FAILED, {"stepId": step_id, "error": error})])
            raise self.step_failed(step_id, error) from None
        result = json.loads(text)  # what a replay serves: tuples as lists, keys as the journal orders them
        self.append([NewEvent(ev.STEP_COMPLETED, {"stepId": step_id, "result": result})])
        return result

    def step_raised(self, step_id: str, exc: Exception) -> StepFailedError:
        """Record a live step's exception as its failure; return the error the body gets (raise it
        ``from exc``)."""
        error = {"type": qualname(type(exc)), "message": str(exc)}
        failed: dict[str, Any] = {"stepId": step_id, "error": error}
        attempt = self.attempt(step_id)
        if attempt > 1:
            failed["attempt"] = attempt
        self.append([NewEvent(ev.STEP_FAILED, failed)])
        return self.step_failed(step_id, error, attempts=attempt)

    def step_failed(self, step_id: str, error: dict[str, Any], *, attempts: int = 1) -> StepFailedError:
        etype, message = str(error.get("type", "Exception")), str(error.get("message", ""))
        tries = f" (after {attempts} attempts)" if attempts > 1 else ""
        return StepFailedError(
            f"flow `{self.flow_id}` execution `{self.execution_id}`: step `{step_id}` failed{tries}: {etype}: {message}",
            step_id=step_id,
            error_type=etype,
            error_message=message,
            execution_id=self.execution_id,
            attempts=attempts,
        )

    # -- retries -----------------------------------------------------------------------------

    def attempt(self, step_id: str) -> int:
        """The number of the attempt a live run of ``step_id`` makes now (failed attempts + 1: an
        attempt cut short by a crash is run again under its own number, the count of failures
        continues across crashes)."""
        frame = self.state.frames.get(step_id)
        return (frame.failed_attempts if frame is not None else 0) + 1

    def retry_delay(self, step_id: str, exc: Exception, policy: StepDefinition | None) -> float | None:
        """Seconds until the next attempt after this one failed with ``exc``; ``None``: no retry."""
        if policy is None or not policy.retries(exc, self.attempt(step_id)):
            return None
        return policy.backoff.delay(self.attempt(step_id))

    def retry_park(self, step_id: str, exc: Exception, delay: float, *, park: bool = True) -> Parked:
        """Record the failed attempt and its durable wait in one batch; return what unwinds the body.

        ``park=False`` (another task of an async run is parking): the failure and the timer are
        recorded, the park is the other task's; the re-run that follows waits on this timer again."""
        attempt = self.attempt(step_id)
        error = {"type": qualname(type(exc)), "message": str(exc)}
        timer_id = retry_timer_id(step_id, attempt)
        gate = timer_gate(timer_id)
        if park:
            self.detector.check(f"step `{step_id}` waits to retry")

        def batch(now: float) -> list[NewEvent]:
            fire_at = now + delay
            events = [
                NewEvent(ev.STEP_FAILED, {"stepId": step_id, "error": error, "attempt": attempt, "retryAt": fire_at}),
                NewEvent(ev.TIMER_SET, {"timerId": timer_id, "fireAt": fire_at}),
            ]
            if park:
                events.append(NewEvent(ev.EXECUTION_SUSPENDED, {"condition": {"on": gate}}))
            return events

        self.append_timed(batch)
        return Parked(gate)

    def retry_gate(self, step_id: str) -> str:
        """The gate ``step_id`` waits on (its last failed attempt's retry timer)."""
        frame = self.state.frames[step_id]
        return timer_gate(retry_timer_id(step_id, frame.failed_attempts))

    def retry_gate_after(self, step_id: str) -> str:
        """The gate ``step_id`` will wait on if the attempt it makes now fails."""
        return timer_gate(retry_timer_id(step_id, self.attempt(step_id)))

    def retry_repark(self, step_id: str) -> Parked:
        """A re-run reached a step still waiting on its retry timer: park on it again (same fireAt)."""
        gate = self.retry_gate(step_id)
        self.detector.check(f"step `{step_id}` waits to retry")
        self.append([NewEvent(ev.EXECUTION_SUSPENDED, {"condition": {"on": gate}})])
        return Parked(gate)

    def _retry_due(self, frame: Frame) -> bool:
        return self.retry_gate(frame.step_id) in self.state.resumes

    # -- decisions, time, emits --------------------------------------------------------------

    def decide_begin(self, decision_id: str) -> Any:
        """The recorded value, or ``LIVE``: then the decider may run (push ``decision_stack`` around it)."""
        self._claim_id(decision_id, "decision")
        rec = self.state.decisions.get(decision_id)
        if rec is not None:
            self.detector.exempt(decision_id, rec.inner_steps, window=rec.overflow_window)
            return rec.value
        self.raise_if_stopped()  # the decider is real work (a model call): not after a refusal
        self._admit("decider", decision_id)
        return LIVE

    def decide_end(self, decision_id: str, value: Any, inner: list[str], began_after: int) -> Any:
        """Record a live decision (``inner``: the steps its decider asked for; ``began_after``: the
        last sequence number before the decider ran)."""
        self.require_json(value, f"decision `{decision_id}`")
        value = normalise(value)
        record: dict[str, Any] = {"decisionId": decision_id, "value": value, "innerSteps": inner}
        kept = _cap_inner_steps(inner)
        if kept < len(inner):
            # Past the cap the record keeps a prefix and the window the decider ran in; a served
            # overflow decision exempts every frame first started in that window (ADR-0113 fix round 2).
            record.update(innerSteps=inner[:kept], innerStepsOverflow=True, innerFrom=began_after + 1)
        self.append([NewEvent(ev.DECISION_RECORDED, record)])
        return value

    def now(self) -> float:
        """The recorded timestamp of the n-th ``now()`` of this run (recorded on first call)."""
        self._now_count += 1
        decision_id = f"{NOW_DECISION_PREFIX}{self._now_count}"
        rec = self.state.decisions.get(decision_id)
        if rec is not None:
            return rec.value
        stamp = self.port.now()
        self.append([NewEvent(ev.DECISION_RECORDED, {"decisionId": decision_id, "value": stamp, "innerSteps": []})])
        return stamp

    def emit(self, name: str, payload: Any) -> None:
        if not isinstance(name, str) or not name:
            raise FlowUsageError(f"execution `{self.execution_id}`: emit name must be a non-empty string, got {name!r}")
        self.require_json(payload, f"emit `{name}` payload")
        n = self._emit_counts.get(name, 0) + 1
        self._emit_counts[name] = n
        if n <= self.state.emitted.get(name, 0):
            return
        self.append([NewEvent(ev.EVENT_EMITTED, {"name": name, "payload": normalise(payload)})])

    # -- waiting -----------------------------------------------------------------------------

    def suspend_begin(self, gate: str, correlation_key: str | None) -> Any:
        """The recorded answer to the n-th suspend on ``gate``, or ``LIVE`` (then call ``park``)."""
        if not isinstance(gate, str) or not gate:
            raise FlowUsageError(f"execution `{self.execution_id}`: a gate must be a non-empty string, got {gate!r}")
        if ev.is_reserved_gate(gate):
            raise FlowUsageError(
                f"execution `{self.execution_id}`: gate `{gate}` is reserved by loom "
                f"(`{RESERVED_GATE}` parks diverged executions; `{ev.TIMER_GATE_PREFIX}*` is ctx.sleep); pick another name"
            )
        answered = self._next_answer(gate)
        return LIVE if answered is _UNANSWERED else answered

    def park(self, gate: str, correlation_key: str | None) -> Parked:
        """Append the park on ``gate``; return the exception that unwinds the body."""
        self.detector.check(f"parking on `{gate}`")
        condition: dict[str, Any] = {"on": gate}
        if correlation_key is not None:
            condition["correlationKey"] = str(correlation_key)
        self.append([NewEvent(ev.EXECUTION_SUSPENDED, {"condition": condition})])
        return Parked(gate)

    def sleep(self, timer_id: str, seconds: float) -> Parked | None:
        """``None`` when the timer already fired; else park on it and return the unwinding exception."""
        return None if self.sleep_begin(timer_id, seconds) else self.sleep_park(timer_id, seconds)

    def sleep_begin(self, timer_id: str, seconds: float) -> bool:
        """Check the timer and take its answer; ``True`` when it already fired (then nothing to do)."""
        if not isinstance(timer_id, str) or not timer_id:
            raise FlowUsageError(f"execution `{self.execution_id}`: a timer id must be a non-empty string, got {timer_id!r}")
        if timer_id in self._asked_timers:
            raise FlowUsageError(f"execution `{self.execution_id}`: timer `{timer_id}` used twice; timer ids are unique per execution")
        if timer_id.startswith(RETRY_TIMER_PREFIX):
            raise FlowUsageError(
                f"execution `{self.execution_id}`: timer id `{timer_id}` is reserved by loom (`{RETRY_TIMER_PREFIX}*` "
                "are the waits between step attempts); pick another id"
            )
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds >= 0:
            raise FlowUsageError(f"execution `{self.execution_id}`: timer `{timer_id}` needs seconds >= 0, got {seconds!r}")
        self._asked_timers.add(timer_id)
        return self._next_answer(timer_gate(timer_id)) is not _UNANSWERED

    def sleep_park(self, timer_id: str, seconds: float) -> Parked:
        """Set the timer (once per execution) and park on it; return the unwinding exception."""
        gate = timer_gate(timer_id)
        condition = NewEvent(ev.EXECUTION_SUSPENDED, {"condition": {"on": gate}})
        if timer_id in self.state.timers:  # set earlier, not fired yet: park again, same fireAt
            self.detector.check(f"parking on timer `{timer_id}`")
            self.append([condition])
        else:
            self.detector.check(f"timer `{timer_id}` is set")
            self.append_timed(
                lambda now: [NewEvent(ev.TIMER_SET, {"timerId": timer_id, "fireAt": now + float(seconds)}), condition]
            )
        return Parked(gate)

    def step_is_recorded(self, step_id: str) -> bool:
        """Whether ``step_begin`` would serve ``step_id`` (completed or failed in the journal)."""
        frame = self.state.frames.get(step_id)
        return frame is not None and frame.terminal

    def gate_is_answered(self, gate: str) -> bool:
        """Whether the next suspend on ``gate`` is answered in the journal (without consuming it)."""
        return self._gate_counts.get(gate, 0) < len(self.state.resumes.get(gate, ()))

    def _next_answer(self, gate: str) -> Any:
        k = self._gate_counts.get(gate, 0)
        self._gate_counts[gate] = k + 1
        answers = self.state.resumes.get(gate, ())
        return answers[k] if k < len(answers) else _UNANSWERED

    # -- structure ---------------------------------------------------------------------------

    def open_scope(self, branches: int, explicit: list[str], *, only_explicit: bool) -> str:
        """Open the next parallel scope under the current one; return its path (sync Context)."""
        path = self.allocate_scope(self.current_scope())
        self.start_scope(path, branches, explicit, only_explicit=only_explicit)
        self.scopes.append(path)
        return path

    def allocate_scope(self, parent: str | None) -> str:
        """The path of the next scope under ``parent`` (positional: ``/0``, ``/0/1``)."""
        parent = parent or ""
        index = self._scope_children.get(parent, 0)
        self._scope_children[parent] = index + 1
        return f"{parent}/{index}"

    def start_scope(self, path: str, branches: int | None, explicit: list[str], *, only_explicit: bool) -> None:
        """Record the scope's start (once per execution) and let the detector judge it as a set.
        ``branches`` is ``None`` for an async gather (its size is not announced up front)."""
        if path not in self.state.scopes_started:
            self.append([NewEvent(ev.PARALLEL_STARTED, {"scope": path, "branches": branches})])
        self.detector.open_scope(path, explicit=explicit, only_explicit=only_explicit)

    def leave_scope(self, path: str) -> None:
        """The scope's branches are done (or unwinding): steps are no longer stamped with it."""
        popped = self.scopes.pop()
        assert popped == path, (popped, path)

    def close_scope(self, path: str) -> None:
        """Judge the scope's frames as a set and record its completion (after ``leave_scope``)."""
        self.detector.close_scope(path)
        if path not in self.state.scopes_completed:
            self.append([NewEvent(ev.PARALLEL_COMPLETED, {"scope": path})])

    def continue_as_new(self, new_input: Any) -> ContinueAsNew:
        if self.current_scope() is not None:
            raise FlowUsageError(
                f"execution `{self.execution_id}`: continue_as_new inside ctx.parallel is refused; call it after the scope"
            )
        self.require_json(new_input, "continue_as_new input")
        self.detector.check("continuing as new")
        return ContinueAsNew(normalise(new_input))

    # -- where the calling code stands (overridden per task by the async run) -------------------

    def current_scope(self) -> str | None:
        """The innermost parallel scope the caller is in (stamped on the steps it starts)."""
        return self.scopes[-1] if self.scopes else None

    def current_decisions(self) -> Sequence[list[str]]:
        """The live decisions the caller is inside (each collects the steps asked for within it)."""
        return self.decision_stack

    # -- internals ---------------------------------------------------------------------------

    def raise_if_stopped(self) -> None:
        """A body that swallowed a refusal or a journal error does no more durable work."""
        if self.detector.latched is not None:
            raise self.detector.latched
        if self.nondeterminism is not None:
            raise self.nondeterminism
        if self.undeclared_step is not None:
            raise self.undeclared_step
        if self.journal_error is not None:
            raise self.journal_error

    def _admit(self, kind: str, ident: str) -> None:
        """Ask the port before user code with effects runs live; a refusal latches like a journal error."""
        try:
            self.port.admit(self.execution_id, kind, ident)
        except JournalError as exc:
            self.journal_error = exc
            raise

    def append(self, events: Sequence[NewEvent], *, leaves_running: bool | None = None) -> None:
        # The result of a step whose body already ran is recorded even after a refusal or a journal
        # error latched (another task's, in an async run): it follows work already done, and not
        # recording it would run the effect again. A stale writer is still refused, by the store.
        if not all(e.type in _COMPLETIONS for e in events):
            self.raise_if_stopped()
        try:
            self.last_seq = self.port.append(
                self.execution_id, list(events), expected_seq=self.last_seq, leaves_running=leaves_running
            )
        except JournalError as exc:
            self.journal_error = exc
            raise

    def append_timed(self, build: Callable[[float], list[NewEvent]]) -> None:
        """Append ``build(now)``: events holding a deadline (a timer's ``fireAt``, a retry's
        ``retryAt``) counted from ``now``, the timer clock read right before the append
        (``RunPort.timer_now``: on PostgreSQL the server's clock, a round trip). An async run makes
        both on its writer's thread (``AsyncRun.append_timed``), never on the event loop.

        A failed read latches like a refused append: a body that catches it must not go on
        without the timer it asked for (its sleep silently skipped)."""
        try:
            now = self.port.timer_now()
        except JournalError as exc:
            self.journal_error = exc
            raise
        self.append(build(now))

    def _claim_id(self, ident: str, kind: str) -> None:
        if not isinstance(ident, str) or not ident:
            raise FlowUsageError(f"execution `{self.execution_id}`: a {kind} id must be a non-empty string, got {ident!r}")
        other = self.state.decisions if kind == "step" else self.state.frames
        if ident in other:
            recorded = "decision" if kind == "step" else "step"
            # Latched like a divergence refusal: a body that swallows it appends nothing more, and the
            # drive loop parks the execution on the reserved gate once the body unwinds.
            self.nondeterminism = NonDeterminismError(
                f"flow `{self.flow_id}` execution `{self.execution_id}`: `{ident}` is recorded as a {recorded} "
                f"but this run asked for it as a {kind}; the body changed the kind of work under one id",
                ident=ident,
                recorded=recorded,
                asked=kind,
                execution_id=self.execution_id,
                flow_id=self.flow_id,
            )
            raise self.nondeterminism
        seen = self._asked if kind == "step" else self._asked_decisions
        if ident in seen:
            hint = f" (mint `{ident}#<n>` in a loop)" if kind == "step" else ""
            raise FlowUsageError(
                f"flow `{self.flow_id}` execution `{self.execution_id}`: {kind} id `{ident}` asked for twice in one run; "
                f"{kind} ids are unique per execution{hint}"
            )
        if kind == "decision":
            self._asked_decisions.add(ident)

    def require_json(self, value: Any, what: str) -> None:
        """``FlowUsageError`` unless the journal can hold ``value`` (``json_values``), before any append."""
        require_json_value(value, f"flow `{self.flow_id}` execution `{self.execution_id}`: {what}")


#: Appends that record the outcome of a step body that already ran.
_COMPLETIONS = frozenset({ev.STEP_COMPLETED, ev.STEP_FAILED})

#: Caps on a decision's recorded ``innerSteps`` (ADR-0113 fix rounds 2 and 3).
MAX_INNER_STEPS = 4096
MAX_INNER_STEPS_BYTES = 64 * 1024


def _cap_inner_steps(inner: list[str]) -> int:
    """How many of ``inner`` fit under both caps."""
    total = 0
    for i, sid in enumerate(inner):
        total += len(sid.encode("utf-8")) + 3  # the id, its quotes and a comma in the JSON
        if i >= MAX_INNER_STEPS or total > MAX_INNER_STEPS_BYTES:
            return i
    return len(inner)


def step_policy(fn: Any) -> StepDefinition | None:
    """The ``@step`` metadata of ``fn`` (its retry policy), or ``None`` for a plain callable."""
    return StepDefinition.from_function(fn)


def normalise(value: Any) -> Any:
    """The value as a journal round trip returns it (tuples become lists)."""
    return json.loads(json.dumps(value, allow_nan=False))


def require_json_value(value: Any, what: str) -> None:
    """``FlowUsageError`` naming ``what`` (a flow input, a resume payload, a decision…) unless the
    journal can hold ``value``: JSON, no cycle, within ``json_values``' limits and one event's size."""
    try:
        json_values.encode(value, where="value")
    except json_values.JsonValueError as exc:
        raise FlowUsageError(
            f"{what} must be a JSON value the journal can hold (dict with str keys, list, str, int, float, bool, "
            f"None; nesting up to {json_values.MAX_DEPTH} levels, integers up to {json_values.MAX_INT_DIGITS} digits, "
            f"{json_values.MAX_EVENT_BYTES // (1024 * 1024)} MiB per event): {exc}"
        ) from None


def qualname(cls: type) -> str:
    mod = cls.__module__
    return cls.__qualname__ if mod == "builtins" else f"{mod}.{cls.__qualname__}"
