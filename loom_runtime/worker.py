"""The worker loop behind ``Runtime.serve`` and ``loom worker`` (DESIGN §9).

One dispatcher thread finds work and hands each execution to one of ``concurrency`` drive threads:

* **what it takes**: executions whose timer is due (``due_timers``), then running executions it can
  lease (``list_executions(leasable_by=…)``: new submissions, executions another worker left, and
  executions whose worker died: its lease expired). Each is *claimed* (leased, then its summary
  re-checked) before it is read, exactly as ``recover`` does, and only while a drive thread is free,
  so a busy worker never holds leases on work it cannot start;
* **when it looks**: right after a drive ends or a claim succeeded (more may be waiting), otherwise
  it waits. A store that can wake its readers (PostgreSQL: ``LISTEN``/``NOTIFY``, see
  :meth:`PostgresJournal.wait_for_work`) is waited on until a notification arrives (a new
  execution, a new timer, a running execution left by its worker), the next timer falls due, or
  the earliest lease another worker holds expires (``next_lease_expiry``: a dead worker sends
  nothing, its lease just runs out, and it is taken over right then, not at the next poll), and
  at most :data:`IDLE_RESCAN` seconds (a safety net should a notification be lost). A timer that
  is already due but could not be claimed (another worker is firing it) is looked at again after
  ``poll_interval``, never in a tight loop. An idle worker beside no busy one thus sends a few
  statements a minute; beside busy ones, one look each time their earliest lease would expire
  were it not renewed (about every ``2/3 lease_ttl``). Other stores (SQLite, one machine) are
  polled every ``poll_interval``, so a timer fires within ``poll_interval`` of its due time;
* **how it stops**: ``stop`` set, or SIGTERM/SIGINT (handlers installed when ``serve`` runs in the
  main thread; a second SIGINT interrupts at once). It claims nothing new; a drive in progress
  finishes the step in hand (its result is recorded), then its next step is refused before it
  starts (``WorkerStopping``: nothing appended, as a crash would leave it), its lease is released
  at once (so another worker continues it without waiting for the lease to expire), and ``serve``
  returns when every drive thread is done.

Each drive runs through the worker's own port (:class:`~loom_runtime.port.StorePort` that refuses
a new step once ``stop`` is set), so stopping the worker never refuses work the same ``Runtime``
does elsewhere.
Every drive is reported to ``on_event`` (``{"event": "drive", "executionId", "flowId", "status",
"gate", "error", "seconds", "worker"}``); ``loom worker`` prints them.

Rejected: a process pool inside one worker (run several ``loom worker`` processes instead: one
interpreter per process keeps step code free to use threads and globals as it likes), and claiming
a batch of executions up front (their leases would hold them from other workers while they wait).
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from .errors import ExecutionStateError, JournalError, LoomError
from .handles import Handle
from .journal import events as ev
from .port import StorePort

if TYPE_CHECKING:
    from .runtime import Runtime

__all__ = ["Worker", "WorkerStopping"]

log = logging.getLogger("loom.worker")

#: The longest an idle worker on a notifying store sleeps without looking (a lost notification's bound).
IDLE_RESCAN = 60.0
#: An idle worker wakes this long after a lease's expiry, so the store already judges it expired.
LEASE_SLACK = 0.05


class WorkerStopping(JournalError):
    """The worker is stopping: the drive ends before its next step (nothing appended)."""


class _DrainingPort(StorePort):
    """The worker's port: refuses a new step or decider once the worker is stopping.

    Stopping is ``stop`` set (by the caller or the signal handler), not only the dispatcher having
    seen it: the dispatcher may be asleep in its idle wait for up to ``poll_interval`` meanwhile, and
    a drive that went on starting steps until then did more than "finish the step in hand"."""

    __slots__ = ("draining", "stop", "worker_id")

    def __init__(self, runtime: Runtime, draining: threading.Event, stop: threading.Event | None = None) -> None:
        super().__init__(runtime._leases, runtime.registry, lambda: runtime.clock(),
                         on_divergence=runtime._divergence_warning, on_refusal=runtime._refused,
                         timer_clock=runtime.timer_clock)
        self.draining = draining
        self.stop = stop
        self.worker_id = runtime.worker_id

    def stopping(self) -> bool:
        return self.draining.is_set() or (self.stop is not None and self.stop.is_set())

    def append(self, execution_id, events, *, expected_seq, leaves_running=None):  # noqa: ANN001 - RunPort
        if events and events[0].type == ev.STEP_STARTED and self.stopping():
            raise WorkerStopping(
                f"worker `{self.worker_id}` is stopping: execution `{execution_id}` is left before step "
                f"`{events[0].payload.get('stepId')}` for another worker (nothing of it ran)"
            )
        return super().append(execution_id, events, expected_seq=expected_seq, leaves_running=leaves_running)

    def admit(self, execution_id: str, kind: str, ident: str) -> None:
        if kind == "decider" and self.stopping():
            raise WorkerStopping(
                f"worker `{self.worker_id}` is stopping: execution `{execution_id}` is left before decider "
                f"`{ident}` for another worker"
            )
        super().admit(execution_id, kind, ident)


class Worker:
    """One ``serve`` call. See the module docstring."""

    def __init__(
        self,
        runtime: Runtime,
        *,
        stop: threading.Event | None,
        poll_interval: float,
        concurrency: int,
        on_event: Callable[[dict[str, Any]], None] | None,
    ) -> None:
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise ValueError(f"concurrency must be an int >= 1, got {concurrency!r}")
        if not poll_interval > 0:
            raise ValueError(f"poll_interval must be > 0, got {poll_interval!r}")
        self.rt = runtime
        self.stop = stop if stop is not None else threading.Event()
        self.poll_interval = float(poll_interval)
        self.concurrency = concurrency
        self.on_event = on_event
        self.draining = threading.Event()
        self.port = _DrainingPort(runtime, self.draining, self.stop)
        self._slots = threading.Semaphore(concurrency)
        self._busy: set[str] = set()
        self._lock = threading.Lock()
        self.driven = 0

    # -- the loop -----------------------------------------------------------------------------

    def run(self) -> int:
        """Serve until stopped; return how many drives ran."""
        restore = self._install_signals()
        pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix=f"loom-worker-{self.rt.worker_id}")
        self._event({"event": "serving", "concurrency": self.concurrency})
        try:
            while not self.stop.is_set():
                try:
                    found = self._pass(pool)
                except LoomError as exc:  # the store is unreachable: say so, wait, try again
                    self._event({"event": "error", "error": f"{type(exc).__name__}: {exc}"})
                    found = 0
                    self.stop.wait(self.poll_interval)
                if not found:
                    try:
                        self._idle()
                    except LoomError as exc:  # the listening connection broke: say so, wait, look again
                        self._event({"event": "error", "error": f"{type(exc).__name__}: {exc}"})
                        self.stop.wait(self.poll_interval)
        finally:
            self.draining.set()  # drives in progress stop before their next step
            pool.shutdown(wait=True)  # each drive released its own lease (not the leases of other
            restore()                 # drives the same Runtime may be running for its caller)
            self._event({"event": "stopped", "driven": self.driven})
        return self.driven

    def _pass(self, pool: ThreadPoolExecutor) -> int:
        """Claim and dispatch what is due or leasable while a drive thread is free."""
        rt = self.rt
        found = 0
        due = rt._visit_order(rt.journal.due_timers(rt.timer_clock()))
        for s in due:
            found += self._dispatch(pool, s.execution_id, ev.SUSPENDED, s.gate)
            if self.stop.is_set():
                return found
        running = rt._visit_order(rt.journal.list_executions(statuses=[ev.RUNNING], leasable_by=rt.worker_id))
        for s in running:
            found += self._dispatch(pool, s.execution_id, ev.RUNNING, None)
            if self.stop.is_set():
                return found
        return found

    def _dispatch(self, pool: ThreadPoolExecutor, execution_id: str, status: str, gate: str | None) -> int:
        with self._lock:
            if execution_id in self._busy:
                return 0
        while not self._slots.acquire(timeout=0.1):  # every drive thread busy: wait for one
            if self.stop.is_set():
                return 0
        if self.stop.is_set():  # stopped during this pass: claim nothing new (a drive it left is not re-taken)
            self._slots.release()
            return 0
        try:
            claimed = self.rt._leases.claim(execution_id, status)
        except LoomError:
            claimed = False
        if not claimed:
            self._slots.release()
            return 0
        with self._lock:
            self._busy.add(execution_id)
        pool.submit(self._drive, execution_id, gate)
        return 1

    def _drive(self, execution_id: str, gate: str | None) -> None:
        rt = self.rt
        t0 = time.monotonic()
        handle: Handle | None = None
        error: str | None = None
        try:
            if gate is not None:  # a due timer: answer it, then drive on
                state = rt._parked_state(execution_id, gate)
                handle = rt._drive_chain(execution_id, rt._append_answer(state, None, blocking=True), port=self.port)
            else:
                handle = rt._drive_chain(execution_id, port=self.port)
        except WorkerStopping as exc:
            error = str(exc)
        except ExecutionStateError:  # the timer was answered since the listing: not ours to report
            return
        except LoomError as exc:  # a refusal, a mismatch, a stale lease: reported, the loop goes on
            handle = rt._error_handle(execution_id, exc)
            error = f"{type(exc).__name__}: {exc}"
        except Exception as exc:  # noqa: BLE001 - a bug must not kill the worker's drive thread silently
            log.exception("worker %s: driving %s raised", rt.worker_id, execution_id)
            error = f"{type(exc).__name__}: {exc}"
        finally:
            rt._leases.release(execution_id)
            with self._lock:
                self._busy.discard(execution_id)
                self.driven += 1
            self._slots.release()
            self.rt._wake.set()
        self._event({
            "event": "drive", "executionId": execution_id,
            "flowId": handle.flow_id if handle is not None else None,
            "status": handle.status if handle is not None else "left",
            "gate": handle.gate if handle is not None else None,
            "error": error if error is not None else (dict(handle.error) if handle and handle.error else None),
            "seconds": round(time.monotonic() - t0, 4),
        })

    def _idle(self) -> None:
        """Nothing claimable now: wait for a notification, the next timer, a drive's end or a poll."""
        rt = self.rt
        wait_for_work = getattr(rt.journal, "wait_for_work", None)
        if wait_for_work is None or self._busy:
            rt._wake.wait(self.poll_interval)
            rt._wake.clear()
            return
        deadline = time.monotonic() + self._idle_timeout()
        while not self.stop.is_set() and not rt._wake.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0 or wait_for_work(min(remaining, 0.5)):  # slices: a stop is seen within 0.5 s
                break
        rt._wake.clear()

    def _idle_timeout(self) -> float:
        """How long an idle worker on a notifying store sleeps (see the module docstring)."""
        rt = self.rt
        timeout = max(IDLE_RESCAN, self.poll_interval)
        next_timer = getattr(rt.journal, "next_timer", None)
        due = next_timer() if next_timer is not None else None
        if due is not None:
            wait = due - rt.timer_clock()  # next_timer is a fireAt: the same clock
            # already due, yet this pass could not claim it: another worker holds it; look again soon
            timeout = min(timeout, wait if wait > 0 else self.poll_interval)
        next_lease_expiry = getattr(rt.journal, "next_lease_expiry", None)
        left = next_lease_expiry(other_than=rt.worker_id) if next_lease_expiry is not None else None
        if left is not None:
            timeout = min(timeout, max(left, 0.0) + LEASE_SLACK)
        return timeout

    # -- signals and reports -------------------------------------------------------------------

    def _install_signals(self) -> Callable[[], None]:
        if threading.current_thread() is not threading.main_thread():
            return lambda: None
        previous: dict[int, Any] = {}

        def graceful(signum: int, _frame: Any) -> None:
            self.stop.set()  # first: once "stopping" is reported, no drive starts another step
            self.rt._wake.set()
            self._event({"event": "stopping", "signal": signal.Signals(signum).name})
            if signum == signal.SIGINT:  # a second Ctrl-C interrupts at once
                signal.signal(signal.SIGINT, signal.default_int_handler)

        for sig in (signal.SIGTERM, signal.SIGINT):
            previous[sig] = signal.signal(sig, graceful)

        def restore() -> None:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

        return restore

    def _event(self, event: dict[str, Any]) -> None:
        event = {**event, "worker": self.rt.worker_id}
        if self.on_event is not None:
            try:
                self.on_event(event)
            except Exception:  # noqa: BLE001 - a reporting bug must not stop the worker
                log.exception("worker %s: on_event raised", self.rt.worker_id)
        elif event["event"] == "drive" and event.get("error"):
            log.warning("worker %s: execution %s: %s", self.rt.worker_id, event["executionId"], event["error"])
