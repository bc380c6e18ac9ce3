"""``Context``: what a flow body receives, and the replay rules behind each call.

A flow body is re-run from the top on every resume. Each Context call first looks in the folded
journal (:mod:`loom_runtime.replay`) for what it did last time and serves that; only work the journal
does not hold runs live and is appended. Identity:

* a step by its ``step_id`` (unique per execution; a loop mints ``pack#<i>``),
* a decision by its ``decision_id``; ``now()`` is the decision ``__loom_now__#<n>`` (n-th call),
* an emit by (name, n-th emit of that name), a gate answer by (gate, n-th suspend on it),
* a timer by its ``timer_id``, a parallel scope by its position (``/0``, ``/0/1``).

Before a live ``STEP_STARTED``, a park, a timer registration or a continuation, the divergence
detector (:mod:`loom_runtime.divergence`) is consulted (completion is checked by the runtime).
Emits and a live decision's record are not judged (ADR-0113 fix round 1).

A recorded id asked for as another kind of work (a step where a decision was recorded, or the
reverse) raises :class:`~loom_runtime.errors.NonDeterminismError` and latches it like a divergence
refusal: whatever the body does with it, nothing more is appended, and the runtime parks the
execution on the reserved gate (see :mod:`loom_runtime.runtime`).

Step results, decisions, payloads and inputs are JSON values and are returned as JSON decodes them
(a tuple comes back as a list) on the live run too, so a body sees the same thing live and replayed.
A step that raises records ``STEP_FAILED`` and the body gets :class:`StepFailedError` (live: with the
original exception as ``__cause__``); a replay raises the same error type from the record. Rejected:
re-raising the original exception type live (a replay cannot rebuild arbitrary classes, so a body
catching ``ValueError`` would branch differently live and replayed).

``parallel`` runs its branches one after another in the calling thread (real concurrency is not
required by the design) but records ``PARALLEL_STARTED``/``PARALLEL_COMPLETED`` and stamps every
step started inside with the scope path, so the scope's frames compare as a set (D3). A branch is a
function or an explicit step ``(step_id, fn, *args)`` (ADR-0113's ``[step, input]`` branches): a
scope of explicit branches names its steps up front, which lets the detector judge it before its
first live step. Rejected: a ``Branch`` value class (a second spelling of the tuple that callers
would have to import, for no information the tuple lacks).
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .definition import RESERVED_GATE
from .divergence import DivergenceDetector
from .errors import FlowDivergenceError, FlowUsageError, JournalError, NonDeterminismError, StepFailedError
from .journal import events as ev
from .journal.events import NewEvent, is_json_value, timer_gate
from .replay import COMPLETED, FAILED, ReplayState

if TYPE_CHECKING:
    from .runtime import Runtime

__all__ = ["Context"]

NOW_DECISION_PREFIX = "__loom_now__#"


class _Parked(BaseException):
    """Unwinds the body after a park was appended. BaseException so ``except Exception`` can't eat it."""

    def __init__(self, gate: str) -> None:
        super().__init__(gate)
        self.gate = gate


class _ContinueAsNew(BaseException):
    def __init__(self, new_input: Any) -> None:
        super().__init__("continue_as_new")
        self.input = new_input


class Context:
    """The durable operations a flow body may perform. One Context per run of one execution."""

    def __init__(self, runtime: Runtime, state: ReplayState, detector: DivergenceDetector) -> None:
        self._runtime = runtime
        self._state = state
        self._detector = detector
        self._last_seq = state.last_seq
        self._asked: set[str] = set()
        self._asked_decisions: set[str] = set()
        self._asked_timers: set[str] = set()
        self._decision_stack: list[list[str]] = []
        self._emit_counts: dict[str, int] = {}
        self._gate_counts: dict[str, int] = {}
        self._now_count = 0
        self._scopes: list[str] = []
        self._scope_children: dict[str, int] = {}
        #: A journal error (a stale writer's FencingError) ends the run even if the body catches it.
        self.journal_error: JournalError | None = None
        #: The first change of kind of work under a recorded id; latched (nothing is appended after it).
        self.nondeterminism: NonDeterminismError | None = None

    # -- identity ----------------------------------------------------------------------------

    @property
    def execution_id(self) -> str:
        return self._state.execution_id

    @property
    def flow_id(self) -> str:
        return self._state.flow_id

    @property
    def input(self) -> Any:
        return self._state.input

    # -- steps -------------------------------------------------------------------------------

    def execute(self, step_id: str, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        """Run ``fn(*args, **kwargs)`` once per execution under ``step_id``; serve it on replay."""
        self._claim_id(step_id, "step")
        self._asked.add(step_id)
        for inner in self._decision_stack:
            inner.append(step_id)
        self._detector.asked(step_id)
        frame = self._state.frames.get(step_id)
        if frame is not None and frame.status == COMPLETED:
            return frame.result
        if frame is not None and frame.status == FAILED:
            raise self._step_failed(step_id, frame.error or {})
        # A recorded but unfinished frame (a crash mid-step) is re-run: judged only against the
        # frames first started before it (ADR-0113 fix round 1, note 5).
        self._detector.check(f"step `{step_id}` starts", restart_seq=None if frame is None else frame.first_seq)
        started: dict[str, Any] = {"stepId": step_id}
        if self._scopes:
            started["scope"] = self._scopes[-1]
        self._append([NewEvent(ev.STEP_STARTED, started)])
        try:
            result = fn(*args, **kwargs)
        except Exception as exc:
            error = {"type": _qualname(type(exc)), "message": str(exc)}
            self._append([NewEvent(ev.STEP_FAILED, {"stepId": step_id, "error": error})])
            raise self._step_failed(step_id, error) from exc
        if not is_json_value(result):
            error = {
                "type": "loom.NonJsonResult",
                "message": f"step returned {type(result).__name__}, which is not a JSON value",
            }
            self._append([NewEvent(ev.STEP_FAILED, {"stepId": step_id, "error": error})])
            raise self._step_failed(step_id, error)
        result = _normalise(result)
        self._append([NewEvent(ev.STEP_COMPLETED, {"stepId": step_id, "result": result})])
        return result

    def decide(self, decision_id: str, decider: Callable[[], Any]) -> Any:
        """Record ``decider()``'s value once; serve it on replay without calling ``decider``.

        Steps the decider executes are recorded as the decision's ``innerSteps``: a served decision
        exempts exactly those from divergence detection, since its decider does not run again. A
        decider must finish its steps before returning (nothing runs in the background here).
        """
        self._claim_id(decision_id, "decision")
        rec = self._state.decisions.get(decision_id)
        if rec is not None:
            self._detector.exempt(decision_id, rec.inner_steps, window=rec.overflow_window)
            return rec.value
        self._raise_if_stopped()  # the decider is real work (a model call): not after a refusal
        inner: list[str] = []
        began_after = self._last_seq
        self._decision_stack.append(inner)
        try:
            value = decider()
        finally:
            self._decision_stack.pop()
        self._require_json(value, f"decision `{decision_id}`")
        value = _normalise(value)
        record: dict[str, Any] = {"decisionId": decision_id, "value": value, "innerSteps": inner}
        kept = _cap_inner_steps(inner)
        if kept < len(inner):
            # Past the cap the record keeps a prefix and the window the decider ran in; a served
            # overflow decision exempts every frame first started in that window (ADR-0113 fix round 2).
            record.update(innerSteps=inner[:kept], innerStepsOverflow=True, innerFrom=began_after + 1)
        self._append([NewEvent(ev.DECISION_RECORDED, record)])
        return value

    def now(self) -> _dt.datetime:
        """The current time (UTC), recorded on first call so every replay sees the same value."""
        self._now_count += 1
        decision_id = f"{NOW_DECISION_PREFIX}{self._now_count}"
        rec = self._state.decisions.get(decision_id)
        if rec is not None:
            stamp = rec.value
        else:
            stamp = float(self._runtime.clock())
            self._append([NewEvent(ev.DECISION_RECORDED, {"decisionId": decision_id, "value": stamp, "innerSteps": []})])
        return _dt.datetime.fromtimestamp(stamp, tz=_dt.timezone.utc)

    def emit(self, name: str, payload: Any = None) -> None:
        """Append an ``EVENT_EMITTED`` once (the n-th emit of ``name`` is served on replay)."""
        if not isinstance(name, str) or not name:
            raise FlowUsageError(f"execution `{self.execution_id}`: emit name must be a non-empty string, got {name!r}")
        self._require_json(payload, f"emit `{name}` payload")
        n = self._emit_counts.get(name, 0) + 1
        self._emit_counts[name] = n
        if n <= self._state.emitted.get(name, 0):
            return
        self._append([NewEvent(ev.EVENT_EMITTED, {"name": name, "payload": _normalise(payload)})])

    # -- waiting -----------------------------------------------------------------------------

    def suspend(self, gate: str, *, correlation_key: str | None = None) -> Any:
        """Park until ``runtime.resume(execution_id, payload, gate=gate)``; return that payload."""
        if not isinstance(gate, str) or not gate:
            raise FlowUsageError(f"execution `{self.execution_id}`: a gate must be a non-empty string, got {gate!r}")
        if ev.is_reserved_gate(gate):
            raise FlowUsageError(
                f"execution `{self.execution_id}`: gate `{gate}` is reserved by loom "
                f"(`{RESERVED_GATE}` parks diverged executions; `{ev.TIMER_GATE_PREFIX}*` is ctx.sleep); pick another name"
            )
        answered = self._next_answer(gate)
        if answered is not _UNANSWERED:
            return answered
        self._detector.check(f"parking on `{gate}`")
        condition: dict[str, Any] = {"on": gate}
        if correlation_key is not None:
            condition["correlationKey"] = str(correlation_key)
        self._append([NewEvent(ev.EXECUTION_SUSPENDED, {"condition": condition})])
        raise _Parked(gate)

    def sleep(self, timer_id: str, seconds: float) -> None:
        """A durable timer: park now, resume when ``runtime.tick()``/``recover()`` finds it due."""
        if not isinstance(timer_id, str) or not timer_id:
            raise FlowUsageError(f"execution `{self.execution_id}`: a timer id must be a non-empty string, got {timer_id!r}")
        if timer_id in self._asked_timers:
            raise FlowUsageError(f"execution `{self.execution_id}`: timer `{timer_id}` used twice; timer ids are unique per execution")
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds >= 0:
            raise FlowUsageError(f"execution `{self.execution_id}`: timer `{timer_id}` needs seconds >= 0, got {seconds!r}")
        self._asked_timers.add(timer_id)
        gate = timer_gate(timer_id)
        if self._next_answer(gate) is not _UNANSWERED:
            return
        condition = NewEvent(ev.EXECUTION_SUSPENDED, {"condition": {"on": gate}})
        if timer_id in self._state.timers:  # set earlier, not fired yet: park again, same fireAt
            self._detector.check(f"parking on timer `{timer_id}`")
            self._append([condition])
        else:
            self._detector.check(f"timer `{timer_id}` is set")
            fire_at = float(self._runtime.clock()) + float(seconds)
            self._append([NewEvent(ev.TIMER_SET, {"timerId": timer_id, "fireAt": fire_at}), condition])
        raise _Parked(gate)

    def _next_answer(self, gate: str) -> Any:
        k = self._gate_counts.get(gate, 0)
        self._gate_counts[gate] = k + 1
        answers = self._state.resumes.get(gate, ())
        return answers[k] if k < len(answers) else _UNANSWERED

    # -- structure ---------------------------------------------------------------------------

    def parallel(self, branches: Iterable[Callable[[], Any] | tuple[Any, ...]]) -> list[Any]:
        """Run ``branches`` as one scope; return their results in order.

        A branch is either

        * a **function branch**: a zero-argument callable, which may ask for any steps, decisions
          or nested scopes (``lambda: ctx.execute("a", reserve, sku)``); or
        * an **explicit branch**: a tuple ``(step_id, fn, *args)``, exactly
          ``ctx.execute(step_id, fn, *args)`` as a branch (``("a", reserve, sku)``).

        Prefer explicit branches for a fan-out of steps: the scope names its steps before any runs,
        so divergence detection (D3) can judge it before its first live step instead of only when
        it closes. A scope of explicit branches only that no longer names one of its recorded steps
        is refused before any of its new steps runs; one that names none of its recorded steps is
        new work, judged like a new step outside a scope; the reorder of its branches, or a new
        branch beside the recorded ones, passes (the scope compares as a set). A function branch's
        dropped step is caught only when the scope closes, after its new steps ran.

        Branches run sequentially here; the scope still records its start and end and its steps
        compare as a set (D3). If branches raise, every branch still runs and the first error is
        raised after the scope closes (like ``asyncio.gather``).
        """
        branches = list(branches)
        explicit: list[str] = []
        for b in branches:
            if isinstance(b, tuple):
                if len(b) < 2 or not isinstance(b[0], str) or not b[0] or not callable(b[1]):
                    raise FlowUsageError(
                        f"execution `{self.execution_id}`: an explicit parallel branch is a tuple "
                        f"(step_id, fn, *args) with a non-empty string step id and a callable, got {b!r}"
                    )
                if b[0] in explicit:
                    raise FlowUsageError(
                        f"execution `{self.execution_id}`: step `{b[0]}` named by two branches of one "
                        "parallel scope; step ids are unique per execution"
                    )
                explicit.append(b[0])
            elif not callable(b):
                raise FlowUsageError(
                    f"execution `{self.execution_id}`: a parallel branch is a callable or a tuple "
                    f"(step_id, fn, *args), got {b!r}"
                )
        parent = self._scopes[-1] if self._scopes else ""
        index = self._scope_children.get(parent, 0)
        self._scope_children[parent] = index + 1
        path = f"{parent}/{index}"
        if path not in self._state.scopes_started:
            self._append([NewEvent(ev.PARALLEL_STARTED, {"scope": path, "branches": len(branches)})])
        self._scopes.append(path)
        self._detector.open_scope(path, explicit=explicit, only_explicit=len(explicit) == len(branches))
        results: list[Any] = []
        first_error: Exception | None = None
        try:
            for branch in branches:
                try:
                    if isinstance(branch, tuple):
                        results.append(self.execute(branch[0], branch[1], *branch[2:]))
                    else:
                        results.append(branch())
                except FlowDivergenceError:
                    raise
                except Exception as exc:
                    results.append(None)
                    first_error = first_error or exc
        finally:
            self._scopes.pop()
        self._detector.close_scope(path)
        if path not in self._state.scopes_completed:
            self._append([NewEvent(ev.PARALLEL_COMPLETED, {"scope": path})])
        if first_error is not None:
            raise first_error
        return results

    def continue_as_new(self, new_input: Any = None) -> None:
        """End this execution and start a successor on the *current* code with ``new_input``."""
        if self._scopes:
            raise FlowUsageError(
                f"execution `{self.execution_id}`: continue_as_new inside ctx.parallel is refused; call it after the scope"
            )
        self._require_json(new_input, "continue_as_new input")
        self._detector.check("continuing as new")
        raise _ContinueAsNew(_normalise(new_input))

    # -- internals ---------------------------------------------------------------------------

    def _raise_if_stopped(self) -> None:
        """A body that swallowed a refusal or a journal error does no more durable work."""
        if self._detector.latched is not None:
            raise self._detector.latched
        if self.nondeterminism is not None:
            raise self.nondeterminism
        if self.journal_error is not None:
            raise self.journal_error

    def _append(self, events: Sequence[NewEvent]) -> None:
        self._raise_if_stopped()
        try:
            self._last_seq = self._runtime._append(self.execution_id, list(events), expected_seq=self._last_seq)
        except JournalError as exc:
            self.journal_error = exc
            raise

    def _claim_id(self, ident: str, kind: str) -> None:
        if not isinstance(ident, str) or not ident:
            raise FlowUsageError(f"execution `{self.execution_id}`: a {kind} id must be a non-empty string, got {ident!r}")
        other = self._state.decisions if kind == "step" else self._state.frames
        if ident in other:
            recorded = "decision" if kind == "step" else "step"
            # Latched like a divergence refusal: a body that swallows it appends nothing more, and the
            # runtime parks the execution on the reserved gate once the body unwinds.
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

    def _step_failed(self, step_id: str, error: dict[str, Any]) -> StepFailedError:
        etype, message = str(error.get("type", "Exception")), str(error.get("message", ""))
        return StepFailedError(
            f"flow `{self.flow_id}` execution `{self.execution_id}`: step `{step_id}` failed: {etype}: {message}",
            step_id=step_id,
            error_type=etype,
            error_message=message,
            execution_id=self.execution_id,
        )

    def _require_json(self, value: Any, what: str) -> None:
        if not is_json_value(value):
            raise FlowUsageError(
                f"flow `{self.flow_id}` execution `{self.execution_id}`: {what} must be a JSON value "
                f"(dict with str keys, list, str, int, float, bool, None), got {type(value).__name__}"
            )


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


class _Unanswered:
    __slots__ = ()


_UNANSWERED: Any = _Unanswered()


def _normalise(value: Any) -> Any:
    """The value as a journal round trip returns it (tuples become lists)."""
    return json.loads(json.dumps(value, allow_nan=False))


def _qualname(cls: type) -> str:
    mod = cls.__module__
    return cls.__qualname__ if mod == "builtins" else f"{mod}.{cls.__qualname__}"
