"""The async drive loop: one run of an ``async def`` flow body, to its next park or end.

``drive_run_async(run, version)`` is :func:`loom_runtime.drive.drive_run` for an async body: the body
runs in a task of its own (so the context variables that tell its tasks apart never leak into the
caller's), with an :class:`~loom_runtime.context_async.AsyncContext` over an
:class:`~loom_runtime.async_run.AsyncRun`; when it ends, work still in flight is finished and
recorded and the rest of its tasks are cancelled (``AsyncRun.drain``), then the outcome is
appended by the same :func:`~loom_runtime.outcomes.conclude` as for a sync body. So divergence
detection, pinning, migration and continuation behave exactly as for sync flows.

The run's store calls (appends, lease admissions, then the outcome) are made by its
:class:`~loom_runtime.run_writer.RunWriter`, one thread of its own, never on the event loop: a
store behind another process's write lock delays this execution, not the loop's other coroutines.

A park or continuation latched by one task is the run's outcome whatever exception the body
unwinds with (every other task unwinds with the same one, and the body may catch and re-raise it).
If the drive is cancelled (by its caller, or the body's own task), the body is cancelled and nothing
more is appended (writes already handed to the writer still land, in order): the execution is left
as a crash would leave it, and the cancellation propagates.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from .async_run import AsyncRun
from .context_async import AsyncContext, is_async_callable
from .errors import JournalError
from .handles import Handle, state_handle
from .journal import events as ev
from .outcomes import conclude
from .replay import ReplayState
from .aio import run_blocking
from .run import ContinueAsNew, Parked
from .run_writer import RunWriter
from .versions import FlowVersion

__all__ = ["drive_run_async", "is_async_callable", "run_blocking"]


async def drive_run_async(run: AsyncRun, version: FlowVersion) -> Handle:
    state = run.state
    if state.status != ev.RUNNING:
        return state_handle(state)
    runner = version.runner()
    run.writer = RunWriter(run.port, run.execution_id, run.last_seq)
    try:
        return await _drive(run, runner, state)
    finally:
        run.writer.close()


async def _drive(run: AsyncRun, runner: Callable[..., Any], state: ReplayState) -> Handle:
    async def body() -> Any:
        run.root()
        value = runner(AsyncContext(run), state.input)
        return (await value) if asyncio.iscoroutine(value) or hasattr(value, "__await__") else value

    task = asyncio.ensure_future(body())  # a task of its own: its own copy of the context variables
    outcome: str
    value: Any = None
    try:
        value = await task
        outcome = "return"
    except Parked as parked:
        outcome, value = "parked", parked.gate
    except ContinueAsNew as cont:
        outcome, value = "continue", cont.input
    except asyncio.CancelledError:
        _abandon(run, task)
        raise
    except Exception as exc:  # noqa: BLE001 - a body's exception is the flow's outcome
        outcome, value = "raise", exc
    latched = run.stopping
    if isinstance(latched, Parked) and run.sealed:
        outcome, value = "parked", latched.gate
    elif isinstance(latched, ContinueAsNew) and outcome != "raise":
        outcome, value = "continue", latched.input
    elif outcome == "parked" and not run.sealed and run.journal_error is None:
        # unwound by a park that never landed (its own append was refused): stop as a crash would
        run.journal_error = JournalError(f"execution `{run.execution_id}`: a park was refused before it landed")
    await run.drain()
    try:
        await run.flush()  # every write of the run landed (or its refusal is latched)
    except JournalError:
        pass  # latched: conclude raises it
    if run.journal_error is not None:
        raise run.journal_error  # as conclude would: a stale writer appends nothing more
    # the outcome (and a continuation's successor) on the writer's thread: the loop goes on meanwhile
    return await run.writer.call(conclude, run, outcome, value)  # type: ignore[union-attr]


def _abandon(run: AsyncRun, task: asyncio.Future[Any]) -> None:
    """The drive was cancelled (its caller gave up, or the body's task was): cancel the body and
    append nothing more, as a crash."""
    if run.journal_error is None:
        run.journal_error = JournalError(f"execution `{run.execution_id}`: the drive was cancelled")
    if not task.done():
        task.cancel()
    run.closed = True
