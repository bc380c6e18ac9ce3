"""The awaitable forms of the ``Runtime`` calls, for callers inside an event loop (DESIGN §9).

``start_async``, ``resume_async``, ``retry_diverged_async``, ``tick_async`` and ``recover_async`` mean
exactly what their synchronous forms mean (same reads, claims, bootstrap appends and refusals: they
call the same private steps of :class:`~loom_runtime.runtime.Runtime`); only the drive differs. An
async flow runs on the caller's event loop (so its async steps share the caller's clients and
connections); a sync flow runs in a worker thread (``asyncio.to_thread``), so its blocking steps do
not stall the caller's loop.

No store call is made on the loop's thread: the reads, claims, releases and bootstrap appends here
run in a worker thread (``asyncio.to_thread``, awaited one after the other, so in the order the
synchronous forms make them), and the drive's own appends go through its ``RunWriter``
(:mod:`loom_runtime.run_writer`). A store that is slow or locked by another process delays these
calls, never the other coroutines of the caller's loop. The checks that may warn (pinning) stay on
the caller's thread, so a warning still points at the caller's line.

Rejected: running the whole drive in a thread with a loop of its own (an async step could then not
use a client created on the caller's loop) and a second, asynchronous journal protocol (every store
twice, for calls that are synchronous in every driver we use).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .async_run import AsyncRun
from .drive import drive_run
from .drive_async import drive_run_async, is_async_callable
from .errors import ExecutionStateError, LoomError
from .handles import Handle, state_handle
from .journal import events as ev
from .replay import ReplayState, advance

if TYPE_CHECKING:
    from .runtime import Runtime

__all__ = ["AsyncForms"]

_off_loop = asyncio.to_thread


class AsyncForms:
    """Mixed into ``Runtime``: its awaitable methods."""

    async def start_async(
        self: Runtime, flow_id: str | Callable[..., Any], input: Any = None, *, execution_id: str | None = None
    ) -> Handle:
        """``start`` for a caller inside an event loop."""
        eid, started = self._new_execution(flow_id, input, execution_id, blocking=False, defer_write=True)
        await _off_loop(self._record_execution, eid, started, leased=True)
        return await self._drive_chain_async(eid, advance(ReplayState(execution_id=eid), [started], first_seq=1))

    async def resume_async(self: Runtime, execution_id: str, payload: Any = None, *, gate: str | None = None) -> Handle:
        """``resume`` for a caller inside an event loop."""
        state = await _off_loop(self._parked_state, execution_id, gate)
        return await self._drive_chain_async(execution_id, await self._answer_async(state, payload))

    async def retry_diverged_async(self: Runtime, execution_id: str) -> Handle:
        """``retry_diverged`` for a caller inside an event loop."""
        state = await _off_loop(self._diverged_state, execution_id)
        return await self._drive_chain_async(execution_id, await self._answer_async(state, None))

    async def tick_async(self: Runtime, now: float | None = None) -> list[Handle]:
        """``tick`` for a caller inside an event loop."""
        now = await _off_loop(self.timer_clock) if now is None else now  # a round trip on PostgreSQL
        handles = []
        for s in self._visit_order(await _off_loop(self.journal.due_timers, now)):
            try:
                if not await _off_loop(self._leases.claim, s.execution_id, ev.SUSPENDED):
                    continue
                handles.append(await self.resume_async(s.execution_id, None, gate=s.gate))
            except ExecutionStateError:
                continue
            except LoomError as exc:
                handles.append(await _off_loop(self._error_handle, s.execution_id, exc))
            finally:
                await _off_loop(self._leases.release, s.execution_id)
        return handles

    async def recover_async(self: Runtime) -> list[Handle]:
        """``recover`` for a caller inside an event loop."""
        handles = await self.tick_async()
        done = {h.execution_id for h in handles}
        running = await _off_loop(self.journal.list_executions, statuses=[ev.RUNNING], leasable_by=self.worker_id)
        for s in self._visit_order(running):
            if s.execution_id in done:
                continue
            try:
                if not await _off_loop(self._leases.claim, s.execution_id, ev.RUNNING):
                    continue
                handles.append(await self._drive_chain_async(s.execution_id))
            except LoomError as exc:
                handles.append(await _off_loop(self._error_handle, s.execution_id, exc))
            finally:
                await _off_loop(self._leases.release, s.execution_id)
        return handles

    async def _answer_async(self: Runtime, state: ReplayState, payload: Any) -> ReplayState:
        """``_append_answer``: its checks here, its append off the loop."""
        batch = self._answer(state, payload, blocking=False)
        return await _off_loop(self._record_answer, state, batch)

    async def _drive_chain_async(self: Runtime, execution_id: str, state: ReplayState | None = None) -> Handle:
        chain = [execution_id]
        try:
            handle = await self._drive_async(execution_id, state)
            while handle.status == ev.CONTINUED and handle.result is not None:
                chain.append(handle.result)
                if not await _off_loop(self._leases.claim, handle.result, ev.RUNNING):
                    break
                handle = await self._drive_async(handle.result)
            return handle
        finally:
            # one call for the chain: a cancellation of this task cannot leave some of them held
            await _off_loop(_release_each, self, chain)

    async def _drive_async(self: Runtime, execution_id: str, state: ReplayState | None = None) -> Handle:
        if state is None:
            state = await _off_loop(self._fold, execution_id)
        if state.status != ev.RUNNING:
            return state_handle(state)
        run, version = self._new_run(state)
        if is_async_callable(version.runner()):
            return await drive_run_async(AsyncRun.from_run(run), version)
        return await asyncio.to_thread(drive_run, run, version)


def _release_each(runtime: Runtime, execution_ids: list[str]) -> None:
    for eid in execution_ids:
        runtime._leases.release(eid)
