"""``Context``: what a synchronous flow body receives.

A thin façade over :class:`~loom_runtime.run.Run`, which holds the replay rules (identity, serving,
divergence gates, appends; see that module). Each method here only calls the user's code between
the run's two halves of the operation, in the calling thread. An ``async def`` step called from a
sync flow runs to its end there too (:func:`loom_runtime.aio.await_blocking`). An async flow gets
:class:`~loom_runtime.context_async.AsyncContext` instead.

``parallel`` runs its branches one after another in the calling thread but records
``PARALLEL_STARTED``/``PARALLEL_COMPLETED`` and stamps every step started inside with the scope path,
so the scope's frames compare as a set (D3). A branch is a function or an explicit step
``(step_id, fn, *args)`` (ADR-0113's ``[step, input]`` branches): a scope of explicit branches names
its steps up front, which lets the detector judge it before its first live step. Rejected: a
``Branch`` value class (a second spelling of the tuple that callers would have to import, for no
information the tuple lacks).
"""

from __future__ import annotations

import datetime as _dt
import inspect
from collections.abc import Callable, Iterable
from typing import Any

from .aio import await_blocking
from .errors import FlowDivergenceError, FlowUsageError, JournalError, NonDeterminismError
from .run import LIVE, WAIT, Run, step_policy

__all__ = ["Context", "RunIdentity", "check_branches"]


class RunIdentity:
    """What both kinds of Context say about the run they belong to (plain attributes, not awaited)."""

    __slots__ = ("_run",)

    def __init__(self, run: Run) -> None:
        self._run = run

    @property
    def execution_id(self) -> str:
        return self._run.execution_id

    @property
    def flow_id(self) -> str:
        return self._run.flow_id

    @property
    def input(self) -> Any:
        return self._run.state.input

    @property
    def journal_error(self) -> JournalError | None:
        return self._run.journal_error

    @property
    def nondeterminism(self) -> NonDeterminismError | None:
        return self._run.nondeterminism


class Context(RunIdentity):
    """The durable operations a flow body may perform. One Context per run of one execution."""

    __slots__ = ()

    # -- steps -------------------------------------------------------------------------------

    def execute(self, step_id: str, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        """Run ``fn(*args, **kwargs)`` once per execution under ``step_id``; serve it on replay."""
        run = self._run
        served = run.step_begin(step_id)
        if served is WAIT:
            raise run.retry_repark(step_id)
        if served is not LIVE:
            return served
        try:
            result = fn(*args, **kwargs)
            if inspect.isawaitable(result):  # an async step from a sync flow runs to its end here
                result = await_blocking(result)
        except Exception as exc:
            delay = run.retry_delay(step_id, exc, step_policy(fn))
            if delay is None:
                raise run.step_raised(step_id, exc) from exc
            raise run.retry_park(step_id, exc, delay) from exc  # the next attempt waits on a durable timer
        return run.step_succeeded(step_id, result)

    def decide(self, decision_id: str, decider: Callable[[], Any]) -> Any:
        """Record ``decider()``'s value once; serve it on replay without calling ``decider``.

        Steps the decider executes are recorded as the decision's ``innerSteps``: a served decision
        exempts exactly those from divergence detection, since its decider does not run again. A
        decider must finish its steps before returning (nothing runs in the background here).
        """
        run = self._run
        served = run.decide_begin(decision_id)
        if served is not LIVE:
            return served
        inner: list[str] = []
        began_after = run.last_seq
        run.decision_stack.append(inner)
        try:
            value = decider()
        finally:
            run.decision_stack.pop()
        return run.decide_end(decision_id, value, inner, began_after)

    def now(self) -> _dt.datetime:
        """The current time (UTC), recorded on first call so every replay sees the same value."""
        return _dt.datetime.fromtimestamp(self._run.now(), tz=_dt.timezone.utc)

    def emit(self, name: str, payload: Any = None) -> None:
        """Append an ``EVENT_EMITTED`` once (the n-th emit of ``name`` is served on replay)."""
        self._run.emit(name, payload)

    # -- waiting -----------------------------------------------------------------------------

    def suspend(self, gate: str, *, correlation_key: str | None = None) -> Any:
        """Park until ``runtime.resume(execution_id, payload, gate=gate)``; return that payload."""
        answered = self._run.suspend_begin(gate, correlation_key)
        if answered is not LIVE:
            return answered
        raise self._run.park(gate, correlation_key)

    def sleep(self, timer_id: str, seconds: float) -> None:
        """A durable timer: park now, resume when ``runtime.tick()``/``recover()`` finds it due."""
        parked = self._run.sleep(timer_id, seconds)
        if parked is not None:
            raise parked

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
        explicit = check_branches(self.execution_id, branches)
        run = self._run
        path = run.open_scope(len(branches), explicit, only_explicit=len(explicit) == len(branches))
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
            run.leave_scope(path)
        run.close_scope(path)
        if first_error is not None:
            raise first_error
        return results

    def continue_as_new(self, new_input: Any = None) -> None:
        """End this execution and start a successor on the *current* code with ``new_input``."""
        raise self._run.continue_as_new(new_input)


def check_branches(execution_id: str, branches: list[Any]) -> list[str]:
    """The step ids of the explicit branches; ``FlowUsageError`` for a malformed branch."""
    explicit: list[str] = []
    for b in branches:
        if isinstance(b, tuple):
            if len(b) < 2 or not isinstance(b[0], str) or not b[0] or not callable(b[1]):
                raise FlowUsageError(
                    f"execution `{execution_id}`: an explicit parallel branch is a tuple "
                    f"(step_id, fn, *args) with a non-empty string step id and a callable, got {b!r}"
                )
            if b[0] in explicit:
                raise FlowUsageError(
                    f"execution `{execution_id}`: step `{b[0]}` named by two branches of one "
                    "parallel scope; step ids are unique per execution"
                )
            explicit.append(b[0])
        elif not callable(b):
            raise FlowUsageError(
                f"execution `{execution_id}`: a parallel branch is a callable or a tuple "
                f"(step_id, fn, *args), got {b!r}"
            )
    return explicit
