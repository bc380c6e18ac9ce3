"""``Leases``: one worker's ownership of the executions it drives, and every write it makes.

A worker (a ``Runtime`` with a worker identity) creates its new executions already leased to itself
in one transaction (``create_leased``), claims an existing execution's lease before it reads it
(``claim``: recovery, timers, a successor that already existed) and holds it while it drives; every
append carries the lease, so a worker that stalled past its lease is fenced even if its expected
sequence number happens to still match. An append that parks or ends the execution frees the lease
in the same transaction (the store does it), and the worker stops tracking it; renewals never take
a lease (``renew_leases`` extends only a lease that is still this worker's, same epoch), so nothing
here can re-take an execution its own park freed and fence a ``resume`` another worker sends right
after.

Leases are held per execution: a worker driving several executions at once (``serve`` with
``concurrency > 1``) releases each as its own drive ends. The held leases, their renewal (on a
connection of their own, never waiting behind these appends) and the check before each live step
body that the lease still has room (a worker that could not renew stops driving before the body,
not after) are :mod:`loom_runtime.lease_keeper`'s. The store's clock (the database's, for a shared
store) times leases, never this process's.

Without an owner (``owner=None``) nothing is leased and the expected-sequence fence alone keeps two
writers from interleaving.

Rejected: a coordinator assigning executions to workers (a second moving part that must itself fail
over; the lease in the journal row already is the assignment).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from .errors import FencingError, LoomError
from .journal import events as ev
from .journal.events import NewEvent
from .journal.protocol import JournalStore, Lease
from .lease_keeper import LeaseKeeper

__all__ = ["Leases"]

#: Appends that leave the execution not running (and so free its lease in the store).
LEAVES_RUNNING = frozenset({ev.EXECUTION_SUSPENDED, ev.EXECUTION_COMPLETED, ev.EXECUTION_FAILED, ev.EXECUTION_CONTINUED})


class Leases:
    def __init__(self, journal: JournalStore, owner: str | None, ttl: float) -> None:
        self.journal = journal
        self.owner = owner
        self.ttl = ttl
        self.keeper = None if owner is None else LeaseKeeper(owner, ttl, lambda: self.journal)

    # -- writes ------------------------------------------------------------------------------

    def create(self, execution_id: str, started: NewEvent) -> None:
        """Create an execution; a worker creates it leased to itself in the same transaction.

        Left unleased for even one transaction, another worker's ``recover`` listing in between
        could take it over (and run its first decider too), and this worker's own lease attempt
        then met a ``FencingError``. Rejected: creating, then leasing (the window this closes)."""
        if self.keeper is None:
            self.journal.create(execution_id, started)
            return
        asked = time.monotonic()
        lease = self.journal.create_leased(execution_id, started, owner=self.keeper.owner, ttl=self.ttl)
        self.keeper.hold(lease, asked_at=asked)

    def append(
        self, execution_id: str, events: Sequence[NewEvent], *, expected_seq: int, leaves_running: bool | None = None
    ) -> int:
        """Every write of a drive: fenced on ``expected_seq`` and, for a worker, its lease.

        A batch that parks or ends the execution (``leaves_running``; by default judged from its
        last event) frees the lease in the store's own transaction."""
        events = list(events)
        if self.keeper is None:
            return self.journal.append(execution_id, events, expected_seq=expected_seq)
        if leaves_running is None:
            leaves_running = bool(events) and events[-1].type in LEAVES_RUNNING
        self.keeper.refresh_if_lapsed(execution_id)
        lease = self._take(execution_id)
        seq = self.journal.append(execution_id, events, expected_seq=expected_seq, lease=lease)
        if leaves_running:
            self.keeper.forget(execution_id, lease)  # the store freed it with this append
        return seq

    def admit(self, execution_id: str, what: str) -> None:
        """Before a live step body or decider: ``FencingError`` unless this worker's lease leaves room
        to start it (``LeaseKeeper.check``); nothing is checked without an owner."""
        if self.keeper is not None:
            self.keeper.check(execution_id, what)

    # -- ownership ---------------------------------------------------------------------------

    def claim(self, execution_id: str, status: str) -> bool:
        """Take the lease before reading; ``False`` when another worker holds it, or when the
        execution is no longer ``status`` (another worker parked, answered or finished it since the
        listing: its summary row says so, a key lookup instead of a read and fold of its events).
        Without an owner nothing is claimed and the caller reads as it drives."""
        if self.keeper is None:
            return True
        try:
            self._take(execution_id)
        except FencingError:
            return False
        if self.journal.summary(execution_id).status != status:
            self.release(execution_id)
            return False
        return True

    def holds(self, execution_id: str) -> bool:
        return self.keeper is not None and self.keeper.get(execution_id) is not None

    def release(self, execution_id: str) -> None:
        if self.keeper is None:
            return
        lease = self.keeper.forget(execution_id)
        if lease is None:
            return
        try:
            self.journal.release_lease(lease)
        except LoomError:
            # The store could not be reached (a stolen or expired lease is a no-op there, not an
            # error): the lease lapses by itself within ttl, and raising here would replace the
            # drive's own outcome.
            pass

    def release_all(self) -> None:
        if self.keeper is not None:
            for execution_id in self.keeper.held_ids():
                self.release(execution_id)

    def close(self) -> None:
        """Release every lease and stop renewing (``Runtime.close``)."""
        self.release_all()
        if self.keeper is not None:
            self.keeper.close()

    def _take(self, execution_id: str) -> Lease:
        """The lease held on ``execution_id``, or a new one (``FencingError`` when another worker
        holds a live lease). A lease that lapsed while nobody took it is re-taken safely: the
        expected sequence number still fences any write made meanwhile."""
        assert self.keeper is not None
        lease = self.keeper.get(execution_id)
        if lease is not None:
            return lease
        asked = time.monotonic()
        lease = self.journal.acquire_lease(execution_id, self.keeper.owner, ttl=self.ttl)
        self.keeper.hold(lease, asked_at=asked)
        return lease
