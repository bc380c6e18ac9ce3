"""The drive loop: one run of one execution's body over its fold, to its next park or end (DESIGN §5).

``drive_once(state, version, port, divergence=…)``:

1. build a divergence detector (D3) over the fold and a :class:`~loom_runtime.run.Run` that serves
   recorded work and sends live work through ``port`` (:mod:`loom_runtime.port`);
2. run the body of ``version`` (resolved by the caller: production resolves it from the recorded
   hashes, D2; a replay names the code under test);
3. check completion (D3) and append the outcome.

It reads nothing and resolves nothing itself, so production (``Runtime``), ``loom replay`` and the
deploy-check sandbox drive a body with the same code: a sandbox passes a port that refuses every
live append and every live step or decider (see :class:`~loom_runtime.port.RunPort`).

Refusals. Under ``divergence="fail"`` a diverged re-run appends nothing but an ordinary park on the
reserved gate ``__loom_diverged__`` (``correlationKey: "skipped <n>: <ids>"``), reports through the
port and raises :class:`FlowReplayDivergenceError`; it is not failed, recovery and timers skip it,
and ``retry_diverged`` re-runs it once the code is fixed, pinned, listed or migrated. A re-run that
asks for a recorded id as another kind of work (``NonDeterminismError``) is parked the same way
(``correlationKey: "kind changed: …"``) in every divergence mode: it cannot proceed under any mode,
and left running it was re-driven by every ``recover`` pass, forever and invisibly. Rejected for it:
failing the execution (a deploy fault must not end a long-lived execution; the fixed or pinned code
finishes it) and a separate reserved gate (one gate, one way out: ``retry_diverged``). A step's
exception is a flow outcome (``STEP_FAILED``, then ``EXECUTION_FAILED`` unless the body catches it);
a journal error (a stale writer's ``FencingError``, a sandbox's refusal) is not, and propagates: the
run stops as a crash would.

Crash semantics: a step is *at least once*. If the process dies between ``STEP_STARTED`` and
``STEP_COMPLETED`` the next run re-runs it; a completed step is always served.

Rejected: keeping folds or Contexts alive between calls (the journal is the only truth after a
crash, and another process may have advanced it).
"""

from __future__ import annotations

from typing import Any, NoReturn

from .context import Context
from .definition import RESERVED_GATE
from .divergence import DivergenceDetector, divergence_message
from .errors import FlowReplayDivergenceError, FlowUsageError, JournalError, NonDeterminismError
from .handles import Handle, state_handle
from .journal import events as ev
from .journal.events import NewEvent, is_json_value
from .port import RunPort
from .versions import FlowVersion
from .replay import ReplayState
from .run import ContinueAsNew, Parked, Run, normalise, qualname

__all__ = ["drive_once", "drive_run", "new_run", "conclude"]


def new_run(state: ReplayState, port: RunPort, divergence: str) -> Run:
    """A run of ``state``'s body through ``port``, with a fresh divergence detector in ``divergence`` mode."""
    detector = DivergenceDetector(state, divergence, on_report=port.report_divergence)
    return Run(port, state, detector)


def drive_once(state: ReplayState, version: FlowVersion, port: RunPort, *, divergence: str) -> Handle:
    """Run ``version``'s body over ``state`` (the fold up to the journal's end) once; see the module doc."""
    return drive_run(new_run(state, port, divergence), version)


def drive_run(run: Run, version: FlowVersion) -> Handle:
    """``drive_once`` with the run built by the caller (a sandbox keeps it to read its detector after)."""
    state = run.state
    if state.status != ev.RUNNING:
        return state_handle(state)
    runner = version.runner()
    outcome: str
    value: Any = None
    try:
        value = runner(Context(run), state.input)
        outcome = "return"
    except Parked as parked:
        outcome, value = "parked", parked.gate
    except ContinueAsNew as cont:
        outcome, value = "continue", cont.input
    except Exception as exc:  # noqa: BLE001 - a body's exception is the flow's outcome
        outcome, value = "raise", exc
    return conclude(run, outcome, value)


def conclude(run: Run, outcome: str, value: Any) -> Handle:
    """Turn how the body ended (``return`` / ``raise`` / ``parked`` / ``continue``) into the outcome
    appended and the handle returned; the refusals and journal errors latched by the run win."""
    state = run.state
    execution_id = state.execution_id
    if run.journal_error is not None:  # a stale writer: stop as a crash would, append nothing
        raise run.journal_error
    if run.detector.latched is not None:  # refused, whatever the body did with the refusal
        _park_diverged(run)
    if run.nondeterminism is not None:  # likewise latched: park before any outcome is written
        _park_nondeterministic(run, run.nondeterminism)
    if outcome == "parked":
        return Handle(execution_id, state.flow_id, ev.SUSPENDED, gate=value)
    if outcome == "continue":
        successor = run.port.start_successor(state, value)
        run.append([NewEvent(ev.EXECUTION_CONTINUED, {"nextExecutionId": successor, "input": value})])
        return Handle(execution_id, state.flow_id, ev.CONTINUED, result=successor)
    if outcome == "return":
        try:
            run.detector.check("completion")
        except FlowReplayDivergenceError:
            _park_diverged(run)
        if not is_json_value(value):
            outcome, value = "raise", FlowUsageError(
                f"flow `{state.flow_id}` execution `{execution_id}`: the flow returned "
                f"{type(value).__name__}, which is not a JSON value"
            )
        else:
            result = normalise(value)
            run.append([NewEvent(ev.EXECUTION_COMPLETED, {"result": result})])
            return Handle(execution_id, state.flow_id, ev.COMPLETED, result=result)
    exc = value
    if isinstance(exc, JournalError):
        # not a flow outcome: a stale writer. Leave the journal as a crash would and let the
        # caller see it.
        raise exc
    error = {"type": qualname(type(exc)), "message": str(exc)}
    run.append([NewEvent(ev.EXECUTION_FAILED, {"error": error})])
    return Handle(execution_id, state.flow_id, ev.FAILED, error=error, exception=exc)


def _park_diverged(run: Run) -> NoReturn:
    detector = run.detector
    refusal = detector.latched
    assert refusal is not None
    skipped = refusal.skipped
    parked, outcome = _park_refused(run, f"skipped {len(skipped)}: {', '.join(skipped)}")
    message = divergence_message(
        flow_id=run.flow_id, execution_id=run.execution_id, skipped=skipped,
        before=detector.latched_before or "a live append", outcome=outcome,
    )
    run.port.report_refusal(message)
    raise FlowReplayDivergenceError(
        message, skipped=skipped, execution_id=run.execution_id, flow_id=run.flow_id, parked=parked
    ) from None


def _park_nondeterministic(run: Run, refusal: NonDeterminismError) -> NoReturn:
    """A changed kind of work under a recorded id: parked like a divergence, in every mode.

    Unlike D3 this is not governed by ``divergence``: the run cannot go on under either mode
    (serving a step's result as a decision, or the reverse, is wrong whatever the mode), and
    leaving it running made every ``recover`` re-drive it forever."""
    kinds = f"`{refusal.ident}` recorded as a {refusal.recorded}, asked for as a {refusal.asked}"
    parked, outcome = _park_refused(run, f"kind changed: {kinds}")
    message = (
        f"flow `{run.flow_id}` execution `{run.execution_id}`: {kinds}; the flow body changed the kind "
        f"of work under one id. {outcome} Fix: deploy the version it started on (ship its chunk) or "
        "migrate it with runtime.resume_as(...); then call runtime.retry_diverged(execution_id)."
    )
    run.port.report_refusal(message)
    raise NonDeterminismError(
        message, ident=refusal.ident, recorded=refusal.recorded, asked=refusal.asked,
        execution_id=run.execution_id, flow_id=run.flow_id, parked=parked,
    ) from None


def _park_refused(run: Run, key: str) -> tuple[bool, str]:
    """Append the park on ``__loom_diverged__`` (and nothing else); say whether it landed."""
    if len(key) > 2000:
        key = key[:1997] + "..."
    try:
        run.port.append(
            run.execution_id,
            [NewEvent(ev.EXECUTION_SUSPENDED, {"condition": {"on": RESERVED_GATE, "correlationKey": key}})],
            expected_seq=run.last_seq,
        )
        return True, f"PARKED on `{RESERVED_GATE}`: no step effect ran."
    except JournalError as exc:
        return False, f"REFUSED and NOT parked ({exc}): no step effect ran."
