"""``RunWriter``: an async run's journal writes, made off the event loop, in order, still fenced.

An async flow runs on its caller's event loop, next to everything else the service runs there
(request handlers, other flows, their clients). A store call takes a millisecond on an idle
SQLite file, but seconds behind another process's write lock, an fsync on a slow disk or a
PostgreSQL failover; made on the loop's thread, it stopped every other coroutine for that long.

So an :class:`~loom_runtime.async_run.AsyncRun` hands its writes to a ``RunWriter``: one thread of
its own (an executor with one worker, so first in, first out) that makes the store calls in exactly
the order the run made them, while the loop goes on. What the run does on the loop is unchanged
(the replay rules, the detector, the fold and the bookkeeping of its tasks stay on the loop's
thread); only the calls into the store move:

* an append is fenced on the sequence number the writer itself last confirmed (not on the one the
  loop predicted), so the store sees what a synchronous run would have sent;
* after a refused append, every later append but the completion of a step that already ran is
  refused unwritten with the same error (a stale writer stops as a crash would; a completion is
  still tried, as :meth:`~loom_runtime.run.Run.append` does: not recording it would run the
  effect again); the admission of a live step or decider (its lease check, which may renew the
  lease on the spot) is refused too;
* a batch that holds a deadline (a durable timer's ``fireAt``, a retry's ``retryAt``) is built here
  from the timer clock read right before its append (``RunPort.timer_now``: on PostgreSQL the
  server's clock, a round trip under the journal's lock, as blocking as an append): the deadline is
  counted from when the batch is written, as in a synchronous run, and a failed read refuses the
  batch like a failed append;
* :meth:`flush` waits for every call submitted so far and raises the first failure among them.
  The async Context flushes before a live step body or decider starts (so an effect never starts
  on a refused append or a lost lease: its ``STEP_STARTED`` is in the store and its lease admitted
  it) and at the end of every call, except for a step's recorded outcome: that one is written
  behind (everything the run writes next, its park and its outcome land after it; a crash before
  it lands re-runs the step, as a crash before ``STEP_COMPLETED`` always did). Measured on SQLite
  (synchronous NORMAL, 1,000 sequential async steps, three runs each on a loaded machine): waiting
  for it too ran at 1,080-1,880 steps/s, writing it behind at 2,430-3,610 (the write overlaps the
  loop's work on the next step).

Rejected: an asynchronous journal protocol (every store written twice, for calls that are
synchronous in every driver we use); running each replay-rule method in a thread (the rules would
race the loop-side bookkeeping of the run's tasks); ``asyncio.to_thread`` per call (the default
executor has several threads: two writes of one run could reach the store out of order); writing
behind without a flush before user code (a step could start on a lease another worker took).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from .journal.events import NewEvent
from .port import RunPort

__all__ = ["RunWriter"]

_T = TypeVar("_T")


class RunWriter:
    """The store calls of one async drive, on a thread of their own (see the module docstring).

    Created on the event loop that drives the run; :meth:`on_loop` tells the run whether a call
    comes from that loop (writes are then submitted here) or from the writer's own thread (the
    outcome, appended by :meth:`call`, writes directly)."""

    def __init__(self, port: RunPort, execution_id: str, last_seq: int) -> None:
        self._port = port
        self._execution_id = execution_id
        self._seq = last_seq  # the last sequence number the store confirmed (writer thread only)
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self._executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix=f"loom-writer-{execution_id}"[:40])
        self._refused: BaseException | None = None  # the first refused append (writer thread only)
        self._outstanding: list[concurrent.futures.Future[Any]] = []  # submitted, not yet flushed
        self.pending = 0  # calls not finished yet (the settle barrier waits for them)
        self._idle_callbacks: list[Callable[[], None]] = []

    def on_loop(self) -> bool:
        """Whether the caller is the run's event loop thread (the writer's own thread is not)."""
        return threading.get_ident() == self._loop_thread

    # -- submitted from the loop -----------------------------------------------------------------

    def append(self, events: Sequence[NewEvent], *, leaves_running: bool | None, completion: bool) -> None:
        """Append ``events`` after everything submitted before (``completion``: a step's recorded outcome)."""
        self._submit(self._append, list(events), leaves_running, completion)

    def append_timed(self, build: Callable[[float], list[NewEvent]], *, completion: bool) -> None:
        """Append ``build(now)`` after everything submitted before, ``now`` read from the port's
        timer clock on this thread right before (``RunPort.timer_now``: a round trip on PostgreSQL)."""
        self._submit(self._append, build, None, completion)

    def admit(self, kind: str, ident: str) -> None:
        """Admit a live step or decider (``RunPort.admit``) after the writes submitted before it."""
        self._submit(self._admit, kind, ident)

    @property
    def busy(self) -> bool:
        """Calls submitted that no :meth:`flush` has looked at yet."""
        return bool(self._outstanding)

    async def flush(self) -> None:
        """Wait for every call submitted so far; raise the first failure among them (in order)."""
        if not self._outstanding:
            return  # nothing to wait for, and no loop turn either: served work stays as it was
        batch, self._outstanding = self._outstanding, []
        last = asyncio.wrap_future(batch[-1])  # one thread, first in first out: the last ends last
        last.add_done_callback(_consume)
        try:
            await asyncio.shield(last)  # a cancelled caller never cancels a write the store may be making
        except asyncio.CancelledError:
            self._outstanding[:0] = batch  # their failures are still reported to the next flush
            raise
        except BaseException:  # noqa: BLE001 - reported below, in submission order
            pass
        for fut in batch:
            exc = fut.exception()
            if exc is not None:
                raise exc

    async def call(self, fn: Callable[..., _T], *args: Any) -> _T:
        """``fn(*args)`` on the writer's thread after everything submitted before (the outcome: it
        appends directly there, and may create a successor)."""
        done = asyncio.wrap_future(self._executor.submit(fn, *args))
        done.add_done_callback(_consume)
        return await asyncio.shield(done)

    def when_idle(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` (on the loop) once no call is pending; at once if none is."""
        if not self.pending:
            callback()
        else:
            self._idle_callbacks.append(callback)

    def close(self) -> None:
        """No more calls: the thread ends once the ones already submitted are made."""
        self._executor.shutdown(wait=False)

    # -- internals -------------------------------------------------------------------------------

    def _submit(self, fn: Callable[..., Any], *args: Any) -> None:
        self.pending += 1
        fut = self._executor.submit(fn, *args)
        fut.add_done_callback(self._finished)
        self._outstanding.append(fut)

    def _finished(self, _fut: concurrent.futures.Future[Any]) -> None:  # on the writer's thread
        try:
            self._loop.call_soon_threadsafe(self._ended)
        except RuntimeError:  # the loop is closed: nobody waits any more
            pass

    def _ended(self) -> None:  # on the loop
        self.pending -= 1
        if not self.pending:
            callbacks, self._idle_callbacks = self._idle_callbacks, []
            for cb in callbacks:
                cb()

    def _append(self, events: list[NewEvent] | Callable[[float], list[NewEvent]], leaves_running: bool | None,
                completion: bool) -> None:
        if self._refused is not None and not completion:
            raise self._refused
        try:
            if callable(events):  # a timed batch: a failed clock read refuses it like a failed append
                events = events(self._port.timer_now())
            self._seq = self._port.append(self._execution_id, events, expected_seq=self._seq,
                                          leaves_running=leaves_running)
        except BaseException as exc:
            if self._refused is None:
                self._refused = exc
            raise

    def _admit(self, kind: str, ident: str) -> None:
        if self._refused is not None:
            raise self._refused
        self._port.admit(self._execution_id, kind, ident)


def _consume(fut: asyncio.Future[Any]) -> None:
    """Mark a shielded future's outcome as seen (its caller may have been cancelled meanwhile)."""
    if not fut.cancelled():
        fut.exception()
