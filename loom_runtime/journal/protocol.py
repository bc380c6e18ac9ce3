"""The journal store protocol: the only thing the runtime needs from storage.

A store keeps, per execution, an append-only list of events numbered ``1..n`` and a summary row
(:class:`~loom_runtime.journal.events.ExecutionSummary`) maintained inside the same transaction as
every append (with :func:`~loom_runtime.journal.events.apply_to_summary`). Contract, which the
parametrised conformance test (``tests/runtime/test_journal_conformance.py``) checks for every store:

``create(execution_id, started) -> int``
    Write the execution's first event (must be ``EXECUTION_STARTED``) as seq 1 and its summary.
    ``JournalError`` if the id exists.
``create_leased(execution_id, started, *, owner, ttl) -> Lease``
    ``create`` and ``acquire_lease`` in ONE transaction: the execution never exists unleased, so
    another worker's ``recover`` (which lists only what it could lease) can never take a new
    execution between its creation and its creator's lease. The lease is a new owner's (epoch 1),
    timed by the store's clock. Rejected: a ``lease_owner=`` keyword on ``create`` changing its
    return type (every caller of ``create`` would have to unpack a pair it does not need).
``append(execution_id, events, *, expected_seq, lease=None) -> int``
    Atomic and fenced. ``expected_seq`` must equal the execution's current last seq; the batch is
    numbered ``expected_seq+1 …`` and written in ONE transaction together with the summary, or not
    at all. A stale writer (wrong ``expected_seq``, or a ``lease`` whose epoch is no longer the
    execution's current one) gets :class:`~loom_runtime.errors.FencingError` and nothing is written:
    two writers can never interleave or both write one sequence number. A ``UNIQUE(execution_id,
    seq)`` constraint (or equivalent) is the last line of that fence. Returns the new last seq.
    An empty batch is fenced like any other and then changes nothing (it frees no lease).
    Appending to an unknown execution is :class:`~loom_runtime.errors.ExecutionNotFoundError`.
``read(execution_id, after_seq=0) -> tuple[Event, ...]``
    Events with ``seq > after_seq`` in order. Refuses events written by a newer schema.
``summary(execution_id) -> ExecutionSummary``
``list_executions(*, statuses=None, flow_id=None, leasable_by=None) -> tuple[ExecutionSummary, ...]``
    Ordered by execution id. The ops census groups these by flow id, codeHash and status.
    ``leasable_by``: only executions that owner could lease now (no live lease, or its own), judged
    by the store's clock in the same query, so a worker's recovery pass skips executions other
    workers drive without a lease attempt or a read each.
``due_timers(now) -> tuple[ExecutionSummary, ...]``
    Suspended executions parked on a timer gate whose ``wake_at <= now`` (an indexed query).
``acquire_lease(execution_id, owner, *, ttl, now=None) -> Lease`` / ``release_lease(lease)``
    Worker ownership for multi-worker stores. A lease is granted when nobody holds an unexpired
    one, or renewed for the same owner; a new owner gets a bumped ``epoch`` (a fencing token), so
    an ``append`` carrying an older holder's lease is refused even if that holder wakes up late.
    An append that leaves the execution not running (parked or ended, :func:`releases_lease`)
    frees its lease in the same transaction: a parked execution belongs to nobody, so a
    ``resume`` by another worker right after the park never meets the parking driver's lease.
``renew_leases(leases, *, ttl) -> tuple[Lease | None, ...]``
    The lease keeper's heartbeat (:mod:`loom_runtime.lease_keeper`): in ONE transaction, extend
    each lease that is still its execution's (same owner, same epoch) to ``now + ttl`` by the
    store's clock, and return it renewed; ``None`` for one that is not (another worker took it,
    or the execution parked, ended or was released: the store freed it). Never takes a lease and
    never changes an epoch, so a renewal can never re-take an execution freed by its own park; it
    extends a lapsed lease nobody took meanwhile (nobody else ran anything under a newer epoch).
``renewal_store(*, timeout) -> JournalStore``
    A second store on the same storage with a connection of its own, for renewals only, so a
    heartbeat never waits behind this store's appends (its lock, its connection, a lock wait of
    its transaction). ``timeout``: the longest a renewal may wait for a lock (SQLite's busy
    timeout, PostgreSQL's ``lock_timeout``) before it fails and is tried again. The caller closes
    it. The memory store returns itself (its calls never wait on anything but each other).
``next_lease_expiry(*, other_than) -> float | None``
    Seconds (by the store's clock) until the earliest live lease of an owner other than
    ``other_than`` on a *running* execution expires; ``None`` when no other owner holds one. An
    idle worker sleeps until then: a dead worker sends no notification, its lease just runs out.
    Running only: the query rides the status index, and the leases that matter are there (a lease
    on a suspended execution is a timer being fired; an idle worker looks at due timers anyway).
``close()``

Design notes. The protocol is deliberately small and synchronous (the runtime is a synchronous
driver); a PostgreSQL store implements it with ``SELECT … FOR UPDATE`` on the summary row. Rejected:
an ORM-style repository with per-event-type methods (every new event type would widen the protocol)
and optimistic "append and detect duplicates later" (a stale worker's effects would already be
recorded interleaved with the live worker's).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..errors import FencingError, JournalError, JournalSchemaError
from .events import EVENT_SCHEMA, EXECUTION_STARTED, RUNNING, Event, ExecutionSummary, NewEvent

__all__ = ["JournalStore", "Lease"]


@dataclass(frozen=True, slots=True)
class Lease:
    """Ownership of one execution by one worker; ``epoch`` is the fencing token."""
    execution_id: str
    owner: str
    epoch: int
    expires_at: float


@runtime_checkable
class JournalStore(Protocol):
    def create(self, execution_id: str, started: NewEvent) -> int: ...

    def create_leased(self, execution_id: str, started: NewEvent, *, owner: str, ttl: float) -> Lease: ...

    def append(
        self, execution_id: str, events: Sequence[NewEvent], *, expected_seq: int, lease: Lease | None = None
    ) -> int: ...

    def read(self, execution_id: str, after_seq: int = 0) -> tuple[Event, ...]: ...

    def summary(self, execution_id: str) -> ExecutionSummary: ...

    def list_executions(
        self, *, statuses: Iterable[str] | None = None, flow_id: str | None = None, leasable_by: str | None = None
    ) -> tuple[ExecutionSummary, ...]: ...

    def due_timers(self, now: float) -> tuple[ExecutionSummary, ...]: ...

    def acquire_lease(self, execution_id: str, owner: str, *, ttl: float, now: float | None = None) -> Lease: ...

    def release_lease(self, lease: Lease) -> None: ...

    def renew_leases(self, leases: Sequence[Lease], *, ttl: float) -> tuple[Lease | None, ...]: ...

    def renewal_store(self, *, timeout: float) -> JournalStore: ...

    def next_lease_expiry(self, *, other_than: str) -> float | None: ...

    def close(self) -> None: ...


def check_started(execution_id: str, started: NewEvent) -> None:
    """``create`` takes only an ``EXECUTION_STARTED``."""
    if started.type != EXECUTION_STARTED:
        raise JournalError(f"execution `{execution_id}`: create() needs EXECUTION_STARTED, got {started.type}")


def first_lease(execution_id: str, owner: str, *, ttl: float, now: float) -> Lease:
    """The lease ``create_leased`` writes with a new execution (nobody held it before: epoch 1)."""
    return grant_lease(execution_id, owner, owner=None, epoch=0, expires_at=0.0, ttl=ttl, now=now)


def check_expected_seq(execution_id: str, *, expected: int, actual: int) -> None:
    """The sequence fence of ``append``: ``FencingError`` unless the writer read the last event."""
    if actual != expected:
        raise FencingError(
            f"execution `{execution_id}`: stale append (expected last seq {expected}, "
            f"journal is at {actual}); another writer advanced it, re-read and re-drive"
        )


def check_store_schemas(stored: Mapping[str, str], *, journal_schema: int, where: str) -> None:
    """Refuse a journal whose ``meta`` rows say a newer (or unreadable) layout or event schema wrote it."""
    for key, ours in (("journalSchema", journal_schema), ("eventSchema", EVENT_SCHEMA)):
        try:
            theirs = int(stored.get(key, "0"))
        except ValueError:
            theirs = -1
        if theirs > ours or theirs < 1:
            raise JournalSchemaError(
                f"{where}: journal written with {key} {stored.get(key)!r}; this runtime reads up to {ours}. "
                "Upgrade loom-toolchain on this worker (never point an older runtime at a newer journal)."
            )


def releases_lease(summary: ExecutionSummary) -> bool:
    """Whether the append that produced ``summary`` frees the execution's lease (see the module doc).

    Rejected: waiting in ``resume`` for the parking driver to release its lease (a bounded retry
    loop still fails past its bound, and adds latency to every answer that races a park), and
    releasing it afterwards in a second transaction (the window this closes)."""
    return summary.status != RUNNING


def check_lease(
    execution_id: str, lease: Lease | None, *, owner: str | None, epoch: int, expires_at: float, now: float
) -> None:
    """Raise ``FencingError`` unless ``lease`` (when given) is the execution's live lease."""
    if lease is None:
        return
    if lease.owner != owner or lease.epoch != epoch:
        raise FencingError(
            f"execution `{execution_id}`: lease epoch {lease.epoch} of `{lease.owner}` is stale "
            f"(current: epoch {epoch} held by `{owner}`); this worker must stop driving it"
        )
    if expires_at <= now:
        raise FencingError(
            f"execution `{execution_id}`: the lease of `{lease.owner}` expired; re-acquire it before appending"
        )


def renewed(lease: Lease, *, ttl: float, now: float) -> Lease:
    """``lease`` extended to ``now + ttl`` (same owner, same epoch): what ``renew_leases`` returns."""
    if ttl <= 0:
        raise ValueError(f"lease ttl must be positive, got {ttl!r}")
    return Lease(execution_id=lease.execution_id, owner=lease.owner, epoch=lease.epoch, expires_at=now + ttl)


def grant_lease(
    execution_id: str, requester: str, *, owner: str | None, epoch: int, expires_at: float, ttl: float, now: float
) -> Lease:
    """The lease ``requester`` gets, or ``FencingError`` when another owner holds a live one."""
    if ttl <= 0:
        raise ValueError(f"lease ttl must be positive, got {ttl!r}")
    if owner is not None and owner != requester and expires_at > now:
        raise FencingError(
            f"execution `{execution_id}` is leased to `{owner}` for another {expires_at - now:.1f}s; "
            "another worker is driving it"
        )
    new_epoch = epoch if owner == requester and expires_at > now else epoch + 1
    return Lease(execution_id=execution_id, owner=requester, epoch=new_epoch, expires_at=now + ttl)
