"""The awaitable forms of the ``Runtime`` calls, for callers inside an event loop (DESIGN §9).

``start_async``, ``resume_async``, ``retry_diverged_async``, ``tick_async`` and ``recover_async`` mean
exactly what their synchronous forms mean (same reads, claims, bootstrap appends and refusals: they
call the same private steps of :class:`~loom_runtime.runtime.Runtime`); only the drive differs. An
async flow runs on the caller's event loop (so its async steps share the caller's clients and
connections); a sync flow runs in a worker thread (``asyncio.to_thread``), so its blocking steps do
not stall the caller's loop. Journal reads and appends are short synchronous calls on the calling
thread, as in the synchronous forms.

Rejected: running the whole drive in a thread with a loop of its own (an async step could then not
use a client created on the caller's loop) and a second, asynchronous journal protocol (every store
twice, for calls that take a millisecond).
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


class AsyncForms:
    """Mixed into ``Runtime``: its awaitable methods."""

    async def start_async(
        self: Runtime, flow_id: str | Callable[..., Any], input: Any = None, *, execution_id: str | None = None
    ) -> Handle:
        """``start`` for a caller inside an event loop."""
        eid, started = self._new_execution(flow_id, input, execution_id, blocking=False)
        return await self._drive_chain_async(eid, advance(ReplayState(execution_id=eid), [started], first_seq=1))

    async def resume_async(self: Runtime, execution_id: str, payload: Any = None, *, gate: str | None = None) -> Handle:
        """``resume`` for a caller inside an event loop."""
        state = self._parked_state(execution_id, gate)
        return await self._drive_chain_async(execution_id, self._append_answer(state, payload, blocking=False))

    async def retry_diverged_async(self: Runtime, execution_id: str) -> Handle:
        """``retry_diverged`` for a caller inside an event loop."""
        state = self._diverged_state(execution_id)
        return await self._drive_chain_async(execution_id, self._append_answer(state, None, blocking=False))

    async def tick_async(self: Runtime, now: float | None = None) -> list[Handle]:
        """``tick`` for a caller inside an event loop."""
        now = self.clock() if now is None else now
        handles = []
        for s in self._visit_order(self.journal.due_timers(now)):
            try:
                if not self._leases.claim(s.execution_id, ev.SUSPENDED):
                    continue
                handles.append(await self.resume_async(s.execution_id, None, gate=s.gate))
            except ExecutionStateError:
                continue
            except LoomError as exc:
                handles.append(self._error_handle(s.execution_id, exc))
            finally:
                self._leases.release(s.execution_id)
        return handles

    async def recover_async(self: Runtime) -> list[Handle]:
        """``recover`` for a caller inside an event loop."""
        handles = await self.tick_async()
        done = {h.execution_id for h in handles}
        for s in self._visit_order(self.journal.list_executions(statuses=[ev.RUNNING], leasable_by=self.worker_id)):
            if s.execution_id in done:
                continue
            try:
                if not self._leases.claim(s.execution_id, ev.RUNNING):
                    continue
                handles.append(await self._drive_chain_async(s.execution_id))
            except LoomError as exc:
                handles.append(self._error_handle(s.execution_id, exc))
            finally:
                self._leases.release(s.execution_id)
        return handles

    async def _drive_chain_async(self: Runtime, execution_id: str, state: ReplayState | None = None) -> Handle:
        chain = [execution_id]
        try:
            handle = await self._drive_async(execution_id, state)
            while handle.status == ev.CONTINUED and handle.result is not None:
                chain.append(handle.result)
                if not self._leases.claim(handle.result, ev.RUNNING):
                    break
                handle = await self._drive_async(handle.result)
            return handle
        finally:
            for eid in chain:
                self._leases.release(eid)

    async def _drive_async(self: Runtime, execution_id: str, state: ReplayState | None = None) -> Handle:
        if state is None:
            state = self._fold(execution_id)
        if state.status != ev.RUNNING:
            return state_handle(state)
        run, version = self._new_run(state)
        if is_async_callable(version.runner()):
            return await drive_run_async(AsyncRun.from_run(run), version)
        return await asyncio.to_thread(drive_run, run, version)
