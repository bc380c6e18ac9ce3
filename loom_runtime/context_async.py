"""``AsyncContext``: what an ``async def`` flow body receives (DESIGN §9). Every method is awaited.

The same operations and replay rules as :class:`~loom_runtime.context.Context` (they live once, in
:mod:`loom_runtime.run`); concurrency is settled by :mod:`loom_runtime.async_run`:

* ``await ctx.execute(step_id, fn, *args)`` runs ``fn`` once per execution: an ``async def`` step is
  awaited on the flow's event loop, a plain function runs off it (``asyncio.to_thread``), so a
  blocking step never stalls the other tasks of the flow;
* ``asyncio.gather(ctx.execute("a", …), ctx.execute("b", …))`` (or tasks of the body's own) is a
  parallel scope with ``ctx.parallel``'s membership semantics; a gather of ``ctx.execute`` calls is
  a scope of explicit branches, a gather of helper coroutines one of function branches;
* ``await ctx.parallel(branches)`` takes explicit branches ``(step_id, fn, *args)`` and function
  branches (zero-argument callables returning an awaitable or a value) and runs them concurrently;
* ``await ctx.decide(id, decider)``: the decider may be sync or async; ``await ctx.now()``,
  ``await ctx.emit(…)``, ``await ctx.suspend(gate)``, ``await ctx.sleep(timer_id, seconds)``,
  ``await ctx.continue_as_new(input)``.

Rejected: one Context class whose methods return awaitables only inside async flows (a sync body
would get coroutines it cannot use, an async one values it cannot await: the mistake shows far from
its cause), and sync ``now``/``emit`` in async flows (one rule, "await every ctx call", is easier to
keep than a list of exceptions).
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import inspect
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from .async_run import AsyncRun
from .context import RunIdentity, check_branches
from .errors import FlowDivergenceError, FlowUsageError
from .journal.events import timer_gate
from .run import LIVE, WAIT, ContinueAsNew, Parked, normalise, step_policy

__all__ = ["AsyncContext", "call_step"]


class AsyncContext(RunIdentity):
    """The durable operations an async flow body awaits. One per run of one execution."""

    __slots__ = ()

    _run: AsyncRun

    # -- steps -------------------------------------------------------------------------------

    def execute(self, step_id: str, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Awaitable[Any]:
        """Run ``fn(*args, **kwargs)`` once per execution under ``step_id``; serve it on replay."""
        me: list[Any] = []
        coro = self._execute(me, step_id, fn, args, kwargs)
        me.append(coro)  # so the call can tell whether it is the whole of its task (a gathered branch)
        return coro

    async def _execute(self, me: list[Any], step_id: str, fn: Callable[..., Any], args: tuple[Any, ...],
                       kwargs: dict[str, Any]) -> Any:
        run = self._run
        task = asyncio.current_task()
        whole_task = task is not None and task.get_coro() is me[0]
        run.node(explicit_step=step_id if whole_task else None)
        if not run.step_is_recorded(step_id):
            await run.settle()  # served work of every other task first (async_run docstring)
            run.refuse_if_stopping()
        served = run.step_begin(step_id)
        if served is WAIT:
            raise await run.stop_with(Parked(run.retry_gate(step_id)), lambda: run.retry_repark(step_id))
        if served is not LIVE:
            await run.flush()
            return served
        # in flight from its STEP_STARTED on: a body that ends (or a park latched) meanwhile waits
        # for it, as it did when the append was made in place
        run.live_started()
        try:
            await run.flush()  # its STEP_STARTED is in the store and its lease admitted it
        except BaseException:
            run.live_ended()  # nothing of the step ran
            raise
        try:
            result = await call_step(fn, args, kwargs)
        except asyncio.CancelledError:
            run.live_cancelled(step_id)
            run.live_ended()
            raise
        except Exception as exc:
            failure = exc
        else:
            # the outcome is handed to the writer, not waited for: whatever the body does next with
            # the journal waits for it (every later write, a park, the outcome come after it), and a
            # crash before it lands re-runs the step, as a crash before STEP_COMPLETED always did
            try:
                return run.step_succeeded(step_id, result)
            finally:
                run.live_ended()  # after the result is recorded: a latched park waits for it
        delay = run.retry_delay(step_id, failure, step_policy(fn))
        if delay is None:
            try:
                raise run.step_raised(step_id, failure) from failure
            finally:
                run.live_ended()
        run.live_ended()
        if run.stopping is not None:  # another task is parking: record this attempt and its timer, unwind
            run.retry_park(step_id, failure, delay, park=False)
            await run.flush()
            raise run.stopping
        raise await run.stop_with(Parked(run.retry_gate_after(step_id)), lambda: run.retry_park(step_id, failure, delay))

    async def decide(self, decision_id: str, decider: Callable[[], Any]) -> Any:
        """Record ``decider()``'s value once (a sync or async decider); serve it on replay."""
        run = self._run
        node = run.node()
        if decision_id not in run.state.decisions:
            run.refuse_if_stopping()
        served = run.decide_begin(decision_id)
        await run.flush()  # a live decider runs only once its lease admitted it
        if served is not LIVE:
            return served
        inner: list[str] = []
        began_after = run.last_seq
        saved = node.decisions
        node.decisions = saved + (inner,)
        try:
            value = decider()
            if inspect.isawaitable(value):
                value = await value
        finally:
            node.decisions = saved
        recorded = run.decide_end(decision_id, value, inner, began_after)
        await run.flush()
        return recorded

    async def now(self) -> _dt.datetime:
        """The current time (UTC), recorded on first call so every replay sees the same value."""
        self._run.node()
        now = self._run.now()
        await self._run.flush()
        return _dt.datetime.fromtimestamp(now, tz=_dt.timezone.utc)

    async def emit(self, name: str, payload: Any = None) -> None:
        """Append an ``EVENT_EMITTED`` once (the n-th emit of ``name`` is served on replay)."""
        self._run.node()
        self._run.emit(name, payload)
        await self._run.flush()

    # -- waiting -----------------------------------------------------------------------------

    async def suspend(self, gate: str, *, correlation_key: str | None = None) -> Any:
        """Park until ``runtime.resume(execution_id, payload, gate=gate)``; return that payload."""
        run = self._run
        run.node()
        answered = run.suspend_begin(gate, correlation_key)
        await run.flush()
        if answered is not LIVE:
            return answered
        await run.settle()
        raise await run.stop_with(Parked(gate), lambda: run.park(gate, correlation_key))

    async def sleep(self, timer_id: str, seconds: float) -> None:
        """A durable timer: park now, resume when a worker (or ``tick``) finds it due."""
        run = self._run
        run.node()
        fired = run.sleep_begin(timer_id, seconds)
        await run.flush()
        if fired:
            return
        await run.settle()
        raise await run.stop_with(Parked(timer_gate(timer_id)), lambda: run.sleep_park(timer_id, seconds))

    # -- structure ---------------------------------------------------------------------------

    async def parallel(self, branches: Iterable[Callable[[], Any] | tuple[Any, ...]]) -> list[Any]:
        """Run ``branches`` concurrently as one scope; return their results in order.

        Branches as for :meth:`Context.parallel`: explicit ``(step_id, fn, *args)`` or a
        zero-argument callable (its awaitable is awaited). Every branch runs to its end; the first
        error is raised after the scope closes (a divergence refusal, a park or a continuation at
        once)."""
        run = self._run
        node = run.node()
        branches = list(branches)
        explicit = check_branches(self.execution_id, branches)
        path = run.allocate_scope(node.scope)
        run.start_scope(path, len(branches), explicit, only_explicit=len(explicit) == len(branches))
        await run.flush()

        async def branch(b: Any) -> Any:
            run.branch_node(node, path)
            try:
                if isinstance(b, tuple):
                    return await self.execute(b[0], b[1], *b[2:])
                value = b()
                return (await value) if inspect.isawaitable(value) else value
            finally:
                run.branch_done()

        results = await asyncio.gather(*(branch(b) for b in branches), return_exceptions=True)
        for r in results:
            if isinstance(r, BaseException) and not isinstance(r, Exception):
                raise r  # a park, a continuation, a cancellation: unwind at once
        for r in results:
            if isinstance(r, FlowDivergenceError):
                raise r
        run.close_scope(path)
        await run.flush()
        first_error = next((r for r in results if isinstance(r, Exception)), None)
        if first_error is not None:
            raise first_error
        return results

    async def continue_as_new(self, new_input: Any = None) -> None:
        """End this execution and start a successor on the *current* code with ``new_input``."""
        run = self._run
        node = run.node()
        if node.scope is not None:
            raise FlowUsageError(
                f"execution `{self.execution_id}`: continue_as_new inside a parallel scope (a gathered task or a "
                "ctx.parallel branch) is refused; call it from the body after the scope"
            )
        run.require_json(new_input, "continue_as_new input")
        await run.settle()
        raise await run.stop_with(ContinueAsNew(normalise(new_input)), lambda: run.continue_as_new(new_input))


async def call_step(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """A step body from an async flow: awaited if async, run off the event loop if not."""
    if is_async_callable(fn):
        result = await fn(*args, **kwargs)
    else:
        result = await asyncio.to_thread(fn, *args, **kwargs)
    if inspect.isawaitable(result):  # a sync wrapper around an async function
        result = await result
    return result


def is_async_callable(fn: Any) -> bool:
    """A coroutine function, through ``functools.wraps``/``partial`` and ``async def __call__``."""
    target = inspect.unwrap(fn)
    while hasattr(target, "func") and hasattr(target, "args") and hasattr(target, "keywords"):  # partial
        target = target.func
    if inspect.iscoroutinefunction(target):
        return True
    call = getattr(target, "__call__", None)
    return not inspect.isfunction(target) and not inspect.ismethod(target) and inspect.iscoroutinefunction(call)
