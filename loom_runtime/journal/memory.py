"""In-memory journal store: the reference implementation of the protocol, for tests and scratch use.

Events are kept as their encoded JSON text (not the caller's dicts), so a caller mutating a payload
after appending cannot rewrite history, and a non-JSON payload fails here exactly as it would in a
durable store. One lock makes every operation atomic. Nothing survives the process.
Rejected: keeping the decoded events (cheaper reads, but every reader would share one mutable
payload, and the store would accept what a durable one refuses).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..errors import ExecutionNotFoundError, JournalError
from .events import (
    EVENT_SCHEMA,
    RUNNING,
    TIMER_GATE_PREFIX,
    Event,
    ExecutionSummary,
    NewEvent,
    apply_to_summary,
    decode_rows,
    encode_payload,
)
from .protocol import (
    Lease,
    check_expected_seq,
    check_lease,
    check_started,
    first_lease,
    grant_lease,
    releases_lease,
    renewed,
)

__all__ = ["MemoryJournal"]


@dataclass(slots=True)
class _Execution:
    summary: ExecutionSummary
    rows: list[tuple[int, str, str, float, int]] = field(default_factory=list)  # seq, type, payload, at, schema
    lease_owner: str | None = None
    lease_epoch: int = 0
    lease_expires: float = 0.0


class MemoryJournal:
    def __init__(self, *, clock=time.time) -> None:
        self._lock = threading.RLock()
        self._executions: dict[str, _Execution] = {}
        self._clock = clock

    def create(self, execution_id: str, started: NewEvent) -> int:
        self._create(execution_id, started, owner=None, ttl=0.0)
        return 1

    def create_leased(self, execution_id: str, started: NewEvent, *, owner: str, ttl: float) -> Lease:
        lease = self._create(execution_id, started, owner=owner, ttl=ttl)
        assert lease is not None
        return lease

    def _create(self, execution_id: str, started: NewEvent, *, owner: str | None, ttl: float) -> Lease | None:
        check_started(execution_id, started)
        text = encode_payload(started)
        with self._lock:
            if execution_id in self._executions:
                raise JournalError(f"execution `{execution_id}` already exists; pick another execution id")
            now = self._clock()
            lease = None if owner is None else first_lease(execution_id, owner, ttl=ttl, now=now)
            summary = apply_to_summary(None, execution_id, 1, started)
            ex = _Execution(summary=summary)
            ex.rows.append((1, started.type, text, now, EVENT_SCHEMA))
            if lease is not None:
                ex.lease_owner, ex.lease_epoch, ex.lease_expires = lease.owner, lease.epoch, lease.expires_at
            self._executions[execution_id] = ex
            return lease

    def append(
        self, execution_id: str, events: Sequence[NewEvent], *, expected_seq: int, lease: Lease | None = None
    ) -> int:
        texts = [encode_payload(e) for e in events]
        with self._lock:
            ex = self._get(execution_id)
            check_expected_seq(execution_id, expected=expected_seq, actual=ex.summary.last_seq)
            now = self._clock()
            check_lease(execution_id, lease, owner=ex.lease_owner, epoch=ex.lease_epoch, expires_at=ex.lease_expires, now=now)
            if not events:  # fenced, and nothing else: an empty batch frees no lease (protocol doc)
                return ex.summary.last_seq
            summary = ex.summary
            rows = []
            for i, (event, text) in enumerate(zip(events, texts), start=expected_seq + 1):
                summary = apply_to_summary(summary, execution_id, i, event)
                rows.append((i, event.type, text, now, EVENT_SCHEMA))
            ex.rows.extend(rows)  # only after every event validated: all or nothing
            ex.summary = summary
            if releases_lease(summary):
                ex.lease_owner, ex.lease_expires = None, 0.0
            return summary.last_seq

    def read(self, execution_id: str, after_seq: int = 0) -> tuple[Event, ...]:
        with self._lock:
            rows = list(self._get(execution_id).rows[max(after_seq, 0) :])
        return decode_rows(rows, execution_id=execution_id)

    def summary(self, execution_id: str) -> ExecutionSummary:
        with self._lock:
            return self._get(execution_id).summary

    def list_executions(
        self, *, statuses: Iterable[str] | None = None, flow_id: str | None = None, leasable_by: str | None = None
    ) -> tuple[ExecutionSummary, ...]:
        wanted = None if statuses is None else frozenset(statuses)
        with self._lock:
            now = self._clock()
            rows = [
                ex.summary
                for _, ex in sorted(self._executions.items())
                if leasable_by is None or ex.lease_owner in (None, leasable_by) or ex.lease_expires <= now
            ]
        return tuple(
            s for s in rows if (wanted is None or s.status in wanted) and (flow_id is None or s.flow_id == flow_id)
        )

    def due_timers(self, now: float) -> tuple[ExecutionSummary, ...]:
        return tuple(
            s
            for s in self.list_executions(statuses=("suspended",))
            if s.gate and s.gate.startswith(TIMER_GATE_PREFIX) and s.wake_at is not None and s.wake_at <= now
        )

    def next_timer(self) -> float | None:
        """When the earliest parked timer falls due (``None``: no timer is waiting)."""
        waits = [s.wake_at for s in self.due_timers(float("inf")) if s.wake_at is not None]
        return min(waits) if waits else None

    def acquire_lease(self, execution_id: str, owner: str, *, ttl: float, now: float | None = None) -> Lease:
        with self._lock:
            ex = self._get(execution_id)
            now = self._clock() if now is None else now
            lease = grant_lease(
                execution_id, owner, owner=ex.lease_owner, epoch=ex.lease_epoch, expires_at=ex.lease_expires, ttl=ttl, now=now
            )
            ex.lease_owner, ex.lease_epoch, ex.lease_expires = lease.owner, lease.epoch, lease.expires_at
            return lease

    def release_lease(self, lease: Lease) -> None:
        with self._lock:
            ex = self._get(lease.execution_id)
            if ex.lease_owner == lease.owner and ex.lease_epoch == lease.epoch:
                ex.lease_owner, ex.lease_expires = None, 0.0

    def renew_leases(self, leases: Sequence[Lease], *, ttl: float) -> tuple[Lease | None, ...]:
        out: list[Lease | None] = []
        with self._lock:
            now = self._clock()
            for lease in leases:
                ex = self._executions.get(lease.execution_id)
                if ex is None or ex.lease_owner != lease.owner or ex.lease_epoch != lease.epoch:
                    out.append(None)
                    continue
                new = renewed(lease, ttl=ttl, now=now)
                ex.lease_expires = new.expires_at
                out.append(new)
        return tuple(out)

    def renewal_store(self, *, timeout: float) -> MemoryJournal:
        """This store itself: nothing else can see it, and its calls wait only on each other."""
        return self

    def next_lease_expiry(self, *, other_than: str) -> float | None:
        with self._lock:
            now = self._clock()
            live = [ex.lease_expires - now for ex in self._executions.values()
                    if ex.summary.status == RUNNING and ex.lease_owner is not None and ex.lease_owner != other_than
                    and ex.lease_expires > now]
        return min(live) if live else None

    def read_many(self, execution_ids: Sequence[str]) -> dict[str, tuple[Event, ...]]:
        """Every event of each execution (``journal.bulk``)."""
        with self._lock:
            held = {eid: list(self._executions[eid].rows) for eid in dict.fromkeys(execution_ids) if eid in self._executions}
        return {eid: decode_rows(rows, execution_id=eid) for eid, rows in held.items()}

    def started_at(self, execution_ids: Sequence[str]) -> dict[str, float]:
        """When each execution started (``journal.bulk``)."""
        with self._lock:
            return {eid: self._executions[eid].rows[0][3] for eid in dict.fromkeys(execution_ids) if eid in self._executions}

    def close(self) -> None:
        pass

    def _get(self, execution_id: str) -> _Execution:
        try:
            return self._executions[execution_id]
        except KeyError:
            raise ExecutionNotFoundError(execution_id) from None
