"""``AsyncRun``: the replay rules of :mod:`loom_runtime.run` for a body that runs concurrent tasks.

An ``async def`` flow may start several durable operations at once (``asyncio.gather`` over
``ctx.execute`` calls, tasks of its own, ``await ctx.parallel(...)``). The rules stay those of a
synchronous run; what concurrency adds is settled here, in four mechanisms:

**Which task asks.** Every Context call looks up the calling task's *node* in a context variable.
The body's own task has the root node. A task the body (or another node) created inherits its
creator's node together with the creator's *epoch* (how many Context calls the creator had made
when it created the task: asyncio copies context variables into a task when it is created); on its
first Context call it becomes a node of its own. Tasks created by one node in one epoch (the
arguments of one ``asyncio.gather``, or tasks created between two Context calls) form one
**parallel scope**, exactly as the branches of ``ctx.parallel``: ``PARALLEL_STARTED`` is recorded
when the first of them calls the Context (``branches`` is ``null``: a gather does not announce its
size), every step they start carries the scope path, the scope closes (``PARALLEL_COMPLETED``, and
D3 compares its recorded frames as a set) when the last of them finishes, and scopes nest. A task
whose coroutine *is* one ``ctx.execute(...)`` call is an explicit branch (its step id is known, as
for ``ctx.parallel([("a", fn), ...])``); a task running a helper coroutine is a function branch.
Grouping by creation epoch, not by timing, is what makes the scopes the same live and replayed.

**Served work first (the settle barrier).** Replayed, a recorded operation is served at once, while
live it took time; so a re-run interleaves its tasks differently from the recorded run. Before any
live operation that D3 judges (a live step, a park, a timer, a continuation), the calling task
waits until every other task of the run is blocked: waiting on live work, at the barrier, or done.
Only then is the detector asked. So every recorded frame a re-run can reach through served work has
been asked for when a live step is judged, whatever order the tasks happened to run in, and a
re-run of an unchanged body is never refused because a sibling task had not been scheduled yet.
Waiting tasks are released one at a time, in arrival order. "Blocked" is exact on the standard
event loop (nothing in its ready queue); on another loop implementation it is approximated by
``SETTLE_QUIET_TURNS`` loop turns in which no task of the run made progress.

**One writer, off the loop.** The run's appends (and the lease admission of each live step or
decider) are made by one thread of its own, in the order the run makes them, each fenced on the
sequence number the store last confirmed (:mod:`loom_runtime.run_writer`): a slow or locked store
never stops the caller's event loop, and two tasks can never interleave inside one append. A live
step body or decider starts only once every write before it landed (``flush``): its
``STEP_STARTED`` is in the store and its lease admitted it; an append's refusal surfaces from the
Context call that made it (a step's recorded outcome, written behind, from the next one). The
settle barrier waits while writes are in flight (a write is as atomic for it as it was on the
loop). A sync step called from an async flow runs off the event loop (``asyncio.to_thread``); its
result is recorded back on the loop.

**Parks with work in flight.** A task that parks (a gate, a timer) or continues as new while other
tasks are running live steps first *latches* the park: no new live work starts (a task that tries
unwinds with the same park), the steps in flight finish and are recorded, then the park is
appended, and nothing is appended after it. When the body ends, live steps still in flight in tasks
it did not await are finished and recorded, other tasks of the run still alive are cancelled, and
only then is the outcome appended. A live step cancelled mid-flight stops the run as a crash would
(the execution stays running and the step re-runs: at least once).

Rejected: a deterministic event loop of our own (Temporal's approach: every step would run on it,
so steps could not use the caller's loop, its connections and clients); judging only at scope close
in async flows (a dropped gather branch would run its new siblings' effects first); grouping gather
branches by what runs concurrently (timing differs between a live run and a replay, so scope paths
would too).
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable, Sequence
from typing import Any

from .errors import FlowDivergenceError, FlowUsageError, JournalError
from .journal import events as ev
from .journal.events import NewEvent
from .run import _COMPLETIONS, Parked, Run
from .run_writer import RunWriter

__all__ = ["AsyncRun", "SETTLE_QUIET_TURNS"]

#: Loop turns without progress that count as "every task is blocked" where the loop's ready queue
#: cannot be read (a loop other than asyncio's own).
SETTLE_QUIET_TURNS = 16

#: Appends a latched park still lets through: the completions of work already in flight.
_FINISHING = frozenset({ev.STEP_COMPLETED, ev.STEP_FAILED, ev.PARALLEL_COMPLETED})


class _Group:
    """The tasks one node created in one epoch: one parallel scope."""

    __slots__ = ("path", "alive", "closed", "explicit", "functions")

    def __init__(self, path: str) -> None:
        self.path = path
        self.alive = 0
        self.closed = False
        self.explicit: list[str] = []  # step ids of members that are one ctx.execute call
        self.functions = 0  # members that run a helper coroutine


class _Node:
    """One task of the run, as the Context sees it."""

    __slots__ = ("run", "task", "scope", "decisions", "epoch", "forks")

    def __init__(self, run: AsyncRun, task: asyncio.Task[Any] | None, scope: str | None,
                 decisions: tuple[list[str], ...] = ()) -> None:
        self.run = run
        self.task = task
        self.scope = scope
        self.decisions = decisions
        self.epoch = 0
        self.forks: dict[int, _Group] = {}


# (node, the node's epoch when this context was copied)
_WHERE: contextvars.ContextVar[tuple[_Node, int] | None] = contextvars.ContextVar("loom_run_node", default=None)


class AsyncRun(Run):
    """A :class:`~loom_runtime.run.Run` whose operations may come from several tasks at once."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.progress = 0  # Context calls and scope closes: what the settle barrier watches
        self.in_flight = 0  # live steps whose body is running
        self._idle: asyncio.Event | None = None
        self._waiters: list[asyncio.Future[None]] = []
        self._settling = False
        self.stopping: BaseException | None = None  # a latched park or continuation
        self._stopper = False  # the latching task is appending its park now
        self.sealed = False  # the park landed: nothing more is appended
        self.concluding = False  # the body ended and every task is done: the outcome may be appended
        self.closed = False  # the outcome is being written: no Context call any more
        self._members: set[_Node] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        #: The run's store calls off the loop (``drive_run_async`` sets it); ``None``: made in place.
        self.writer: RunWriter | None = None

    @classmethod
    def from_run(cls, run: Run) -> AsyncRun:
        """The async run over ``run``'s fold, port, detector and checks (nothing was run on it yet)."""
        new = cls(run.port, run.state, run.detector)
        new.undeclared = run.undeclared
        return new

    # -- which task asks -----------------------------------------------------------------------

    def root(self) -> None:
        """Make the calling task the body's root node (called inside the body's own task)."""
        self.loop = asyncio.get_running_loop()
        node = _Node(self, asyncio.current_task(), None)
        _WHERE.set((node, 0))

    def node(self, *, explicit_step: str | None = None) -> _Node:
        """The calling task's node; its first call joins (or opens) its creator's parallel scope.

        ``explicit_step``: the call is a ``ctx.execute`` whose coroutine is the task's whole body."""
        self.progress += 1
        if self.closed:
            raise FlowUsageError(
                f"execution `{self.execution_id}`: a Context call after the flow body ended; await every task "
                "that uses ctx before the body returns"
            )
        try:
            task = asyncio.current_task()
        except RuntimeError:
            task = None
        where = _WHERE.get()
        if where is None or where[0].run is not self or task is None or task.get_loop() is not self.loop:
            raise FlowUsageError(
                f"execution `{self.execution_id}`: this Context was used outside its flow body's tasks (another "
                "thread, or an event loop the body does not run on); call it from the body or tasks it creates"
            )
        node, epoch = where
        if node.task is task:
            node.epoch += 1
            _WHERE.set((node, node.epoch))
            return node
        child = self._fork(node, epoch, task, explicit_step)
        _WHERE.set((child, 0))
        return child

    def _fork(self, parent: _Node, epoch: int, task: asyncio.Task[Any], explicit_step: str | None) -> _Node:
        group = parent.forks.get(epoch)
        if group is None or group.closed:
            # a task that joins after its siblings all finished opens a scope of its own (positional,
            # like any scope: the scope-path aliasing residual of ADR-0113 fix round 3)
            group = _Group(self.allocate_scope(parent.scope))
            parent.forks[epoch] = group
            self.start_scope(group.path, None, [], only_explicit=False)
        if explicit_step is not None:
            group.explicit.append(explicit_step)
        else:
            group.functions += 1
        self.detector.name_branches(group.path, explicit=group.explicit, only_explicit=group.functions == 0)
        group.alive += 1
        child = _Node(self, task, group.path, parent.decisions)
        self._members.add(child)
        task.add_done_callback(lambda _t, g=group, c=child: self._member_done(g, c))
        return child

    def _member_done(self, group: _Group, node: _Node) -> None:
        self._members.discard(node)
        self.progress += 1
        group.alive -= 1
        if group.alive or group.closed:
            return
        group.closed = True
        if self.sealed:
            return  # parked: the re-run that answers it closes the scope
        try:
            self.close_scope(group.path)
        except (FlowDivergenceError, JournalError):
            pass  # latched by the detector or the run: the next Context call and the outcome see it

    def current_scope(self) -> str | None:
        where = _WHERE.get()
        return None if where is None else where[0].scope

    def current_decisions(self) -> Sequence[list[str]]:
        where = _WHERE.get()
        return () if where is None else where[0].decisions

    def branch_node(self, parent: _Node, scope: str) -> None:
        """Inside a branch task of ``ctx.parallel``: the task is a node of that scope (no fork group)."""
        node = _Node(self, asyncio.current_task(), scope, parent.decisions)
        self._members.add(node)
        _WHERE.set((node, 0))

    def branch_done(self) -> None:
        where = _WHERE.get()
        if where is not None:
            self._members.discard(where[0])

    # -- served work first ---------------------------------------------------------------------

    async def settle(self) -> None:
        """Wait until every other task of the run is blocked (see the module docstring)."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self._waiters.append(fut)
        if not self._settling:
            self._settling = True
            loop.call_soon(self._settle_turn, loop, self.progress, 0)
        await fut

    def _settle_turn(self, loop: asyncio.AbstractEventLoop, mark: int, quiet: int) -> None:
        if self.writer is not None and self.writer.pending:
            # a task waiting for its writes is not blocked: look again once they landed
            def landed() -> None:
                self.progress += 1
                loop.call_soon(self._settle_turn, loop, self.progress, 0)

            self.writer.when_idle(landed)
            return
        ready = getattr(loop, "_ready", None)  # asyncio's own loops: the callbacks runnable now
        if self.progress != mark:
            loop.call_soon(self._settle_turn, loop, self.progress, 0)
            return
        if not (ready is not None and len(ready) == 0) and quiet + 1 < SETTLE_QUIET_TURNS:
            loop.call_soon(self._settle_turn, loop, mark, quiet + 1)
            return
        while self._waiters:
            fut = self._waiters.pop(0)
            if not fut.done():  # a waiter cancelled meanwhile is skipped
                fut.set_result(None)
                break
        if self._waiters:
            # the released task runs its check and starts its live work first; then the next one
            self.progress += 1
            loop.call_soon(self._settle_turn, loop, self.progress, 0)
        else:
            self._settling = False

    # -- live work in flight -------------------------------------------------------------------

    def live_started(self) -> None:
        self.in_flight += 1
        if self._idle is not None:
            self._idle.clear()

    def live_ended(self) -> None:
        self.in_flight -= 1
        if not self.in_flight and self._idle is not None:
            self._idle.set()

    def live_cancelled(self, step_id: str) -> None:
        """A live step was cancelled mid-flight: stop the run as a crash would (it re-runs)."""
        if self.journal_error is None:
            self.journal_error = JournalError(
                f"execution `{self.execution_id}`: step `{step_id}` was cancelled while it ran; the run stops as "
                "after a crash (the execution stays running and the step runs again)"
            )

    async def wait_idle(self) -> None:
        while self.in_flight:
            if self._idle is None:
                self._idle = asyncio.Event()
            self._idle.clear()
            await self._idle.wait()

    # -- parks and continuations with work in flight -------------------------------------------

    def refuse_if_stopping(self) -> None:
        """A latched park or continuation: this task unwinds with it and starts nothing new."""
        if self.stopping is not None:
            raise self.stopping
        self.raise_if_stopped()

    async def stop_with(self, pending: BaseException, append: Any) -> BaseException:
        """Latch ``pending`` (a ``Parked`` or ``ContinueAsNew``), let live work finish, then run
        ``append()`` (the park's own append; it may refuse); return what unwinds the body."""
        self.refuse_if_stopping()
        self.stopping = pending
        try:
            await self.wait_idle()
            self._stopper = True
            try:
                result = append()
            finally:
                self._stopper = False
        except BaseException:
            self.stopping = None
            raise
        self.stopping = result  # what every other task unwinds with from now on
        if isinstance(result, Parked):
            # sealed once handed to the writer, as it was once appended in place: nothing is
            # appended after it, and a body that ends while it is on its way ends parked
            self.sealed = True
        try:
            await self.flush()
        except asyncio.CancelledError:
            raise  # it is on its way still: the drive's last flush says whether it landed
        except BaseException:  # refused (its refusal raised here, as it was by the append)
            self.stopping, self.sealed = None, False
            raise
        return result

    def append(self, events: Sequence[NewEvent], *, leaves_running: bool | None = None) -> None:
        self._refuse_append(events)
        writer = self.writer
        if writer is None or not writer.on_loop():  # the outcome, appended on the writer's thread
            super().append(events, leaves_running=leaves_running)
            return
        completion = self._passes_a_stop(events)
        writer.append(events, leaves_running=leaves_running, completion=completion)
        self.last_seq += len(events)  # what the store will confirm; the writer fences on what it did

    def append_timed(self, build: Callable[[float], list[NewEvent]]) -> None:
        """As ``Run.append_timed``, but the timer clock is read by the writer's thread right before
        it appends (on PostgreSQL a round trip to the server, which must not stop the loop): the
        deadline is counted from the moment the batch is written, as in a synchronous run.

        Rejected: awaiting the read (``asyncio.to_thread``) in the Context before the append: it
        opens a loop turn between a failed attempt and its record in which a sibling's latched
        park can seal the run (the failed attempt then unrecorded), and a second thread whose
        read could overtake the writes still queued before it."""
        writer = self.writer
        if writer is None or not writer.on_loop():
            super().append_timed(build)
            return
        shape = build(0.0)  # the batch's kinds and length, to judge and count it here; pure
        self._refuse_append(shape)
        writer.append_timed(build, completion=self._passes_a_stop(shape))
        self.last_seq += len(shape)

    def _refuse_append(self, events: Sequence[NewEvent]) -> None:
        """Raise what unwinds the body if a latched or sealed park refuses ``events``."""
        if not self.concluding:
            if self.sealed:
                raise self.stopping  # type: ignore[misc]  # set whenever sealed
            if self.stopping is not None and not self._stopper and events[0].type not in _FINISHING:
                raise self.stopping

    def _passes_a_stop(self, events: Sequence[NewEvent]) -> bool:
        """Whether ``events`` are a step's recorded outcome (as ``Run.append``: only that passes a
        latched refusal or journal error; anything else raises it here)."""
        completion = all(e.type in _COMPLETIONS for e in events)
        if not completion:
            self.raise_if_stopped()
        return completion

    def _admit(self, kind: str, ident: str) -> None:
        writer = self.writer
        if writer is None or not writer.on_loop():
            super()._admit(kind, ident)
            return
        writer.admit(kind, ident)  # after the writes before it; a refusal is raised by the flush

    async def flush(self) -> None:
        """Wait until this run's writes submitted so far landed; a refusal latches like a journal
        error (``run_writer``). No loop turn when nothing is pending."""
        writer = self.writer
        if writer is None or not writer.busy:
            return
        try:
            await writer.flush()
        except JournalError as exc:
            if self.journal_error is None:
                self.journal_error = exc
            raise

    async def drain(self) -> None:
        """After the body ended: finish live work in flight, cancel tasks still alive, then allow
        the outcome (see the module docstring)."""
        await self.wait_idle()
        alive = [n.task for n in list(self._members) if n.task is not None and not n.task.done()]
        for task in alive:
            task.cancel()
        if alive:
            await asyncio.gather(*alive, return_exceptions=True)
        await asyncio.sleep(0)  # the members' done callbacks (scope closes) run before the outcome
        self.closed = True
        self.concluding = True
