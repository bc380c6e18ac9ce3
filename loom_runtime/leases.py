"""``Leases``: one worker's ownership of the executions it drives, and every write it makes.

A worker (a ``Runtime`` with a worker identity) creates its new executions already leased to itself
in one transaction (``create_leased``), claims an existing execution's lease before it reads it
(``claim``: recovery, timers, a successor that already existed) and holds it while it drives; every
append carries the lease, so a worker that stalled past its lease is fenced even if its expected
sequence number happens to still match. An append that parks or ends the execution frees the lease
in the same transaction (the store does it), so a parked execution belongs to nobody and whoever
answers it drives it on; the table here drops it under the same lock as the append, so the
heartbeat cannot re-take it in between and fence a ``resume`` another worker sends right after.

Leases are held per execution: a worker driving several executions at once (``serve`` with
``concurrency > 1``) releases each as its own drive ends. One heartbeat thread per worker renews
every held lease each ``ttl / 3`` while any is held, so a step longer than the lease keeps it while
the process lives; a killed process stops renewing and its leases expire. A lease another worker
took meanwhile is not renewed: this worker's next append is fenced. The store's clock (the
database's, for a shared store) times leases, never this process's.

Without an owner (``owner=None``) nothing is leased and the expected-sequence fence alone keeps two
writers from interleaving.

Rejected: a coordinator assigning executions to workers (a second moving part that must itself fail
over; the lease in the journal row already is the assignment); a heartbeat thread per drive (a
worker serving many executions would run one thread each).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from .errors import FencingError, LoomError
from .journal import events as ev
from .journal.events import NewEvent
from .journal.protocol import JournalStore, Lease

__all__ = ["Leases"]

#: Appends that leave the execution not running (and so free its lease in the store).
LEAVES_RUNNING = frozenset({ev.EXECUTION_SUSPENDED, ev.EXECUTION_COMPLETED, ev.EXECUTION_FAILED, ev.EXECUTION_CONTINUED})


class Leases:
    def __init__(self, journal: JournalStore, owner: str | None, ttl: float) -> None:
        self.journal = journal
        self.owner = owner
        self.ttl = ttl
        self._held: dict[str, tuple[Lease, float]] = {}  # lease, monotonic time it was taken
        self._lock = threading.RLock()  # shared with the heartbeat thread
        self._beating = False
        self._wake = threading.Condition(self._lock)

    # -- writes ------------------------------------------------------------------------------

    def create(self, execution_id: str, started: NewEvent) -> None:
        """Create an execution; a worker creates it leased to itself in the same transaction.

        Left unleased for even one transaction, another worker's ``recover`` listing in between
        could take it over (and run its first decider too), and this worker's own lease attempt
        then met a ``FencingError``. Rejected: creating, then leasing (the window this closes)."""
        if self.owner is None:
            self.journal.create(execution_id, started)
            return
        with self._lock:
            lease = self.journal.create_leased(execution_id, started, owner=self.owner, ttl=self.ttl)
            self._hold(execution_id, lease)

    def append(
        self, execution_id: str, events: Sequence[NewEvent], *, expected_seq: int, leaves_running: bool | None = None
    ) -> int:
        """Every write of a drive: fenced on ``expected_seq`` and, for a worker, its lease.

        A batch that parks or ends the execution (``leaves_running``; by default judged from its
        last event) frees the lease in the store's own transaction."""
        events = list(events)
        if self.owner is None:
            return self.journal.append(execution_id, events, expected_seq=expected_seq)
        if leaves_running is None:
            leaves_running = bool(events) and events[-1].type in LEAVES_RUNNING
        with self._lock:
            seq = self.journal.append(execution_id, events, expected_seq=expected_seq, lease=self._take(execution_id))
            if leaves_running:
                self._held.pop(execution_id, None)
            return seq

    # -- ownership ---------------------------------------------------------------------------

    def claim(self, execution_id: str, status: str) -> bool:
        """Take the lease before reading; ``False`` when another worker holds it, or when the
        execution is no longer ``status`` (another worker parked, answered or finished it since the
        listing: its summary row says so, a key lookup instead of a read and fold of its events).
        Without an owner nothing is claimed and the caller reads as it drives."""
        if self.owner is None:
            return True
        try:
            with self._lock:
                self._take(execution_id)
        except FencingError:
            return False
        if self.journal.summary(execution_id).status != status:
            self.release(execution_id)
            return False
        return True

    def holds(self, execution_id: str) -> bool:
        with self._lock:
            return execution_id in self._held

    def release(self, execution_id: str) -> None:
        with self._lock:
            held = self._held.pop(execution_id, None)
            if held is None:
                return
            if not self._held:
                self._wake.notify_all()  # the heartbeat thread exits now rather than at its next beat
            try:
                self.journal.release_lease(held[0])
            except LoomError:
                # The store could not be reached (a stolen or expired lease is a no-op there, not an
                # error): the lease lapses by itself within ttl, and raising here would replace the
                # drive's own outcome.
                pass

    def release_all(self) -> None:
        with self._lock:
            for execution_id in list(self._held):
                self.release(execution_id)

    def _take(self, execution_id: str) -> Lease:
        assert self.owner is not None
        held = self._held.get(execution_id)
        if held is not None and time.monotonic() - held[1] < self.ttl / 2:
            return held[0]
        # Take or renew: FencingError when another worker holds a live lease. If ours lapsed during a
        # long step and nobody took it, re-taking it is safe: the expected sequence number still
        # fences any write made meanwhile. A lease must outlive the longest step to keep a second
        # worker from starting the same effect.
        lease = self.journal.acquire_lease(execution_id, self.owner, ttl=self.ttl)
        self._hold(execution_id, lease)
        return lease

    def _hold(self, execution_id: str, lease: Lease) -> None:
        self._held[execution_id] = (lease, time.monotonic())
        if not self._beating:
            self._beating = True
            threading.Thread(target=self._beat, name=f"loom-lease-heartbeat-{self.owner}", daemon=True).start()

    def _beat(self) -> None:
        """Renew every held lease each ttl/3; exit once nothing is held (the next hold restarts it)."""
        with self._lock:
            while True:
                self._wake.wait(self.ttl / 3)
                if not self._held:
                    self._beating = False
                    return
                for eid, (lease, _taken) in list(self._held.items()):
                    try:
                        renewed = self.journal.acquire_lease(eid, lease.owner, ttl=self.ttl)
                    except LoomError:
                        continue
                    self._held[eid] = (renewed, time.monotonic())
