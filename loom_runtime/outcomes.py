"""How a run ends: the outcome appended for what the body did, and the refusals that win over it.

``conclude(run, outcome, value)`` is shared by the sync drive loop (:mod:`loom_runtime.drive`) and
the async one (:mod:`loom_runtime.drive_async`): a body's return, exception, park or continuation
becomes ``EXECUTION_COMPLETED`` / ``EXECUTION_FAILED`` / a handle of the park / ``EXECUTION_CONTINUED``,
after the latches of the run are honoured in this order: a journal error (a stale writer: raise,
append nothing, as a crash), a divergence refusal (park on ``__loom_diverged__``), a changed kind of
work (likewise), a live step id a strict runtime does not admit (likewise), then D3's completion
check. See :mod:`loom_runtime.drive` for the semantics.
"""

from __future__ import annotations

from typing import Any, NoReturn

from . import json_values
from .definition import RESERVED_GATE
from .divergence import divergence_message
from .families import undeclared_park_key
from .errors import FlowReplayDivergenceError, FlowUsageError, JournalError, NonDeterminismError, UndeclaredStepError
from .handles import Handle
from .journal import events as ev
from .journal.events import NewEvent
from .run import Run, normalise, qualname

__all__ = ["conclude"]


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
    if run.undeclared_step is not None:  # strict: an undeclared live step id, refused before its effect
        _park_undeclared(run, run.undeclared_step)
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
        unjournalable = _unjournalable(value)  # too deep, too big, cyclic: fail, never a crash loop
        if unjournalable is not None:
            outcome, value = "raise", FlowUsageError(
                f"flow `{state.flow_id}` execution `{execution_id}`: the flow returned "
                f"{type(value).__name__}, which is not a JSON value the journal can hold ({unjournalable})"
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


def _unjournalable(value: object) -> str | None:
    try:
        json_values.encode(value, where="result")
    except json_values.JsonValueError as exc:
        return str(exc)
    return None


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


def _park_undeclared(run: Run, refusal: UndeclaredStepError) -> NoReturn:
    """``Runtime(strict=True)`` refused a live step id the flow does not declare: parked like a
    divergence, so the deploy mistake is fixed by a release and a migration (``resume_as``), never final.

    Rejected: failing the execution (what it did: a missing entry in ``steps=[...]`` ended a
    durable execution for good) and leaving it running unparked, as a ``FlowCodeMismatchError`` is
    (every ``recover`` pass and every worker would re-drive it at once, forever: nothing here
    changes until a new release, which is exactly when an operator retries it)."""
    parked, outcome = _park_refused(run, undeclared_park_key(refusal.step_id))
    message = (
        f"{refusal} {outcome} Fix: declare the id in the flow's steps=[...] or step_families=[...], deploy, and "
        "move the execution onto that version with runtime.resume_as(execution_id, \"current\") (it re-runs from "
        "the park; declaring an id changes the flow's structural hash, by which runtime.retry_diverged resolves: "
        "it would find the version that refused it, or none)."
    )
    run.port.report_refusal(message)
    raise UndeclaredStepError(
        message, step_id=refusal.step_id, flow_id=run.flow_id, execution_id=run.execution_id, parked=parked,
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
