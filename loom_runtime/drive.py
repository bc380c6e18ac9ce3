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

import inspect
from typing import Any

from .async_run import AsyncRun
from .context import Context
from .divergence import DivergenceDetector
from .drive_async import drive_run_async, is_async_callable, run_blocking
from .handles import Handle, state_handle
from .journal import events as ev
from .outcomes import conclude
from .port import RunPort
from .replay import ReplayState
from .run import ContinueAsNew, Parked, Run
from .versions import FlowVersion

__all__ = ["drive_once", "drive_run", "new_run"]


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
    if is_async_callable(runner):
        return run_blocking(drive_run_async(AsyncRun.from_run(run), version), flow_id=state.flow_id)
    outcome: str
    value: Any = None
    try:
        value = runner(Context(run), state.input)
        if inspect.isawaitable(value):
            # a wrapper that hides an async body (it returned a coroutine without running any of it):
            # drive it as the async flow it is, never record a coroutine as the flow's result
            getattr(value, "close", lambda: None)()
            return run_blocking(drive_run_async(AsyncRun.from_run(run), version), flow_id=state.flow_id)
        outcome = "return"
    except Parked as parked:
        outcome, value = "parked", parked.gate
    except ContinueAsNew as cont:
        outcome, value = "continue", cont.input
    except Exception as exc:  # noqa: BLE001 - a body's exception is the flow's outcome
        outcome, value = "raise", exc
    return conclude(run, outcome, value)
