"""``LeaseKeeper``: the leases one worker holds, renewed on a connection of their own, and the check
that keeps a step body from starting on a lease that may be about to go to another worker.

DESIGN §9 promises that a step body runs twice only after a crash, never because two healthy
processes raced. A lease is what keeps a second worker out, so a *healthy* worker's lease must not
lapse, and a worker that could not keep it must not start user code that a successor may start too:

* **Renewal never waits behind the driver.** The keeper renews on a store of its own
  (``JournalStore.renewal_store``: SQLite, a second connection with a short busy timeout and
  ``synchronous=NORMAL``; PostgreSQL, a second connection with ``lock_timeout``), so it never
  queues behind this worker's appends: not behind their lock, their connection, nor a busy wait
  of theirs for SQLite's write lock. (The heartbeat used to share the store's connection and
  lock with the appends; at load 9 on two cores a healthy SQLite worker's 2 s lease lapsed while
  its heartbeat waited behind an append, and another worker ran the step again.) A renewal is
  ``renew_leases``: one transaction for every lease held, extending each that is still this
  worker's (same owner and epoch) and taking none, so it can never re-take an execution its own
  park freed, nor one another worker took.
* **Renewed well before expiry.** A lease is renewed once less than :data:`RENEW_BELOW` of its ttl
  is left (every ttl/3 while held, all held leases in one transaction); a failed renewal (the
  store busy or unreachable) is tried again after :data:`RETRY_AFTER` of the ttl, each attempt
  waiting at most :func:`lock_wait` for a lock, so a lease survives more than half its ttl of
  failed renewals.
* **A worker that cannot renew stops driving.** Before each live step body and live decider the
  driver asks :meth:`LeaseKeeper.check`: the body starts only while at least :data:`ADMIT_ABOVE`
  of the ttl is left by this process's own conservative reckoning (the ttl counted from *before*
  the request that granted or renewed the lease, so the store's clock can only be later). Below
  that it renews on the spot; if that fails too, the drive stops before the body (a
  ``FencingError``: nothing of the step ran, the execution is left running for this or another
  worker, and its lease is released). Fenced appends already stop a stale worker's *writes*; this
  stops its *effects*, which no fence can take back.

What no lease can prevent: a process frozen (SIGSTOP, a VM pause, a store unreachable) for longer
than the lease *while a step body runs* is indistinguishable from a dead one, and its step may run
again elsewhere: choose ``lease_ttl`` longer than such a stall (the default, 30 s, survives
20 s of stall with no renewal; a crashed worker's executions are taken over 30 s after its last
renewal).

The keeper thread starts with the first lease held, renews while any is held and ends
:data:`LINGER` seconds after the last one is released (its connection closes with it), so a worker
driving one execution after another keeps one thread and one connection, and a process that
stopped driving holds neither. The renewal store is opened on the first renewal: a drive shorter
than a third of the ttl never opens it.

Rejected: renewing on the appends' own connection, or renewing on each append (a worker stuck
in one long step renews nothing); a heartbeat thread per drive (a worker serving many executions
would run one thread and one connection each); letting a worker that lost its lease finish the
step it is about to start ("the body is what must not run twice").
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from .errors import FencingError, LoomError
from .journal.protocol import JournalStore, Lease

__all__ = ["LeaseKeeper", "RENEW_BELOW", "ADMIT_ABOVE", "RETRY_AFTER", "LINGER", "lock_wait"]

#: Renew a lease once less than this fraction of its ttl is left.
RENEW_BELOW = 2 / 3
#: Start a live step body or decider only while at least this fraction of the ttl is left.
ADMIT_ABOVE = 1 / 3
#: After a failed renewal, try again after this fraction of the ttl.
RETRY_AFTER = 1 / 30
#: Seconds the keeper thread (and its connection) outlive the last lease it held, at most.
LINGER = 2.0


def lock_wait(ttl: float) -> float:
    """The longest one renewal waits for a lock before it fails and is tried again: a tenth of the
    ttl (several attempts fit before a step is refused), at most 2 s (a renewal stuck longer gains
    nothing over a fresh attempt), at least 50 ms."""
    return max(0.05, min(ttl / 10, 2.0))


class _Held:
    __slots__ = ("lease", "fresh_until", "lost")

    def __init__(self, lease: Lease, fresh_until: float) -> None:
        self.lease = lease
        self.fresh_until = fresh_until  # monotonic; conservative (see the module docstring)
        self.lost = False  # the store says another worker holds it now, or nobody does


class LeaseKeeper:
    """The leases of one owner (see the module docstring). ``journal`` returns the worker's store as
    it is now (a ``Runtime``'s journal may be replaced); renewals use a store opened from it."""

    def __init__(self, owner: str, ttl: float, journal: Callable[[], JournalStore]) -> None:
        if not ttl > 0:
            raise ValueError(f"lease ttl must be positive, got {ttl!r}")
        self.owner = owner
        self.ttl = float(ttl)
        self._journal = journal
        self._held: dict[str, _Held] = {}
        self._cond = threading.Condition(threading.Lock())
        self._thread: threading.Thread | None = None
        self._retry_at: float | None = None
        self._closed = False
        self._store: JournalStore | None = None
        self._store_from: JournalStore | None = None
        self._store_lock = threading.Lock()  # the keeper thread and an on-the-spot renewal take turns
        #: Renewals that failed (the store busy or unreachable) and the last such error.
        self.failures = 0
        self.last_error: BaseException | None = None

    # -- the table -----------------------------------------------------------------------------

    def hold(self, lease: Lease, *, asked_at: float) -> None:
        """Track ``lease``, granted by a request sent at ``asked_at`` (``time.monotonic()``)."""
        with self._cond:
            self._held[lease.execution_id] = _Held(lease, asked_at + self.ttl)
            if self._thread is None and not self._closed:
                self._thread = threading.Thread(target=self._run, name=f"loom-lease-keeper-{self.owner}", daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def get(self, execution_id: str) -> Lease | None:
        with self._cond:
            held = self._held.get(execution_id)
            return None if held is None else held.lease

    def forget(self, execution_id: str, lease: Lease | None = None) -> Lease | None:
        """Stop tracking ``execution_id`` (only if it is still ``lease``, when given); return what was held."""
        with self._cond:
            held = self._held.get(execution_id)
            if held is None or (lease is not None and held.lease.epoch != lease.epoch):
                return None
            del self._held[execution_id]
            self._cond.notify_all()
            return held.lease

    def held_ids(self) -> list[str]:
        with self._cond:
            return list(self._held)

    def left(self, execution_id: str) -> float | None:
        """Seconds of the lease left by this process's reckoning (``None``: not held; ``-inf``: lost)."""
        with self._cond:
            held = self._held.get(execution_id)
            if held is None:
                return None
            return float("-inf") if held.lost else held.fresh_until - time.monotonic()

    # -- the check before user code ------------------------------------------------------------

    def check(self, execution_id: str, what: str) -> None:
        """Raise ``FencingError`` unless the lease on ``execution_id`` leaves room to start ``what``
        (a live step body or decider); renew on the spot first when it is short (module docstring)."""
        left = self.left(execution_id)
        if left is None or left >= self.ttl * ADMIT_ABOVE:
            return
        if left != float("-inf"):
            with self._cond:
                held = self._held.get(execution_id)
            if held is not None:
                self._renew([held.lease])
            left = self.left(execution_id)
            if left is None or left >= self.ttl * ADMIT_ABOVE:
                return
        if left == float("-inf"):
            raise FencingError(
                f"execution `{execution_id}`: worker `{self.owner}` no longer holds its lease (another worker took "
                f"it, or it was freed); {what} is not started here (nothing of it ran)"
            )
        why = f" (last error: {self.last_error})" if self.last_error is not None else ""
        raise FencingError(
            f"execution `{execution_id}`: worker `{self.owner}` could not renew its lease in time "
            f"({max(left, 0.0):.1f} s of its {self.ttl:g} s lease left, below the {self.ttl * ADMIT_ABOVE:.1f} s a "
            f"live step needs to start){why}: {what} is left before it runs, for this or another worker to drive "
            "(nothing of it ran)"
        )

    def refresh_if_lapsed(self, execution_id: str) -> None:
        """Before an append: a lease this process reckons lapsed (a stall longer than the ttl) is
        renewed first if nobody took it meanwhile, so the result of a body that already ran is
        recorded rather than fenced and run again. A failure is left to the store's own fence."""
        left = self.left(execution_id)
        if left is None or left > 0 or left == float("-inf"):
            return
        with self._cond:
            held = self._held.get(execution_id)
        if held is not None:
            self._renew([held.lease])

    # -- renewing ------------------------------------------------------------------------------

    def _renew(self, leases: Sequence[Lease]) -> bool:
        asked = time.monotonic()
        try:
            with self._store_lock:
                results = self._renewal_store().renew_leases(leases, ttl=self.ttl)
        except LoomError as exc:  # busy past lock_wait, unreachable: tried again after RETRY_AFTER
            with self._cond:
                self.failures += 1
                self.last_error = exc
                self._retry_at = time.monotonic() + self.ttl * RETRY_AFTER
            return False
        with self._cond:
            self._retry_at = None
            for asked_for, new in zip(leases, results):
                held = self._held.get(asked_for.execution_id)
                if held is None or held.lease.epoch != asked_for.epoch:
                    continue  # released (or re-taken under a new epoch) since: not this renewal's business
                if new is None:
                    held.lost = True
                else:
                    held.lease, held.fresh_until = new, asked + self.ttl
        return True

    def _renewal_store(self) -> JournalStore:
        journal = self._journal()
        if self._store is None or self._store_from is not journal:
            self._close_store()
            opener = getattr(journal, "renewal_store", None)
            self._store = journal if opener is None else opener(timeout=lock_wait(self.ttl))
            self._store_from = journal
        return self._store

    def _close_store(self) -> None:
        store, self._store = self._store, None
        if store is not None and store is not self._store_from:
            try:
                store.close()
            except LoomError:
                pass

    def _run(self) -> None:
        idle_since: float | None = None
        while True:
            with self._cond:
                batch: list[Lease] | None = None
                while batch is None:
                    now = time.monotonic()
                    if self._closed:
                        break
                    live = [h for h in self._held.values() if not h.lost]
                    if not self._held:
                        idle_since = now if idle_since is None else idle_since
                        if now - idle_since >= LINGER:
                            break
                        self._cond.wait(LINGER - (now - idle_since))
                        continue
                    idle_since = None
                    if not live:  # every lease held is lost: nothing to renew until one is forgotten or taken
                        self._cond.wait()
                        continue
                    due = min(h.fresh_until for h in live) - self.ttl * RENEW_BELOW
                    if self._retry_at is not None:
                        due = max(due, self._retry_at)
                    if due > now:
                        self._cond.wait(due - now)
                        continue
                    batch = [h.lease for h in live]
                if batch is None:  # closed, or idle for LINGER: the thread and its connection end
                    self._thread = None
            if batch is None:
                with self._store_lock:
                    self._close_store()
                return
            self._renew(batch)

    def close(self) -> None:
        """Stop the thread and close the renewal store (the leases are the caller's to release)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5 * lock_wait(self.ttl) + 1)
        with self._store_lock:
            self._close_store()
