"""Worker leases in the Runtime, on every store (memory, SQLite, PostgreSQL via ``journal_factory``).

``recover()`` skips an execution another worker holds (it neither reads nor reports it), and a heartbeat renews a worker's leases while
a drive runs, so a step that outlasts ``lease_ttl`` still keeps a second worker out.
"""

from __future__ import annotations

import time

from loom_runtime import FencingError, Runtime, flow


def test_recover_skips_an_execution_leased_by_another_worker_without_replaying_it(journal_factory):
    bodies = []

    @flow("job", steps=["a"])
    def job(ctx, _):
        bodies.append(ctx.execution_id)
        ctx.execute("a", lambda: 1)
        return "ok"

    a = Runtime(journal=journal_factory(), worker_id="a", lease_ttl=30)
    a.register(job)
    b = Runtime(journal=journal_factory(), worker_id="b", lease_ttl=30)
    b.register(job)
    v = a.registry.current("job")
    from loom_runtime.journal import NewEvent

    for eid in ("e1", "e2"):
        a.journal.create(eid, NewEvent("EXECUTION_STARTED", {"flowId": "job", "flowHash": v.flow_hash,
                                                             "codeHash": v.code_hash, "input": None}))
    held = a.journal.acquire_lease("e1", "a", ttl=30)  # worker a is driving e1 right now
    handles = {h.execution_id: h for h in b.recover()}
    assert list(handles) == ["e2"]  # e1 is a's: skipped, not reported
    assert handles["e2"].status == "completed"
    assert bodies == ["e2"]  # e1's body never ran in worker b, not even as a replay
    assert b.journal.summary("e1").last_seq == 1
    a.journal.release_lease(held)
    assert [h.status for h in b.recover()] == ["completed"]
    assert bodies == ["e2", "e1"]


class Clock:
    """The stores' clock, moved by the test: the lease's expiry is judged by it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_step_longer_than_the_lease_keeps_it_through_the_heartbeat(journal_factory):
    ttl = 0.8
    clock = Clock()
    seen, looked, claims = [], [], []
    b = Runtime(journal=journal_factory(clock=clock), worker_id="b", lease_ttl=ttl)

    def slow():
        # two ttls of the stores' time pass while the step runs, half a ttl at a time, each only
        # once the heartbeat renewed the lease since the last move: on a real clock, a machine
        # busy enough to delay one renewal by ttl/3 let the lease lapse and b took it
        for _ in range(4):
            clock.now += ttl / 2
            _wait_for_renewal(b.journal, clock, ttl)
        if not looked:  # another worker looks for work meanwhile (once: it could be driving this step)
            looked.append(1)
            seen.extend(b.recover())
            try:
                b.journal.acquire_lease("e1", "b", ttl=ttl)
            except FencingError as exc:
                claims.append(exc)
        return "slow"

    @flow("long", steps=["slow"])
    def long(ctx, _):
        return ctx.execute("slow", slow)

    b.register(long)
    a = Runtime(journal=journal_factory(clock=clock), worker_id="a", lease_ttl=ttl)
    a.register(long)
    assert a.start("long", execution_id="e1").status == "completed"
    assert seen == []  # still a's, renewed by its heartbeat past one ttl: b skipped it
    [refused] = claims
    assert isinstance(refused, FencingError) and "leased to `a`" in str(refused)
    steps = [e.type for e in a.journal.read("e1")]
    assert steps.count("STEP_STARTED") == 1 and steps[-1] == "EXECUTION_COMPLETED"
    # the drive ended: the lease was released for anyone
    assert a.journal.acquire_lease("e1", "c", ttl=1).owner == "c"


def _wait_for_renewal(store, clock, ttl):
    """Until the lease another worker than ``b`` holds runs to a full ttl from ``clock.now`` again."""
    deadline = time.monotonic() + 60
    while (store.next_lease_expiry(other_than="b") or 0.0) < ttl * 0.99:
        assert time.monotonic() < deadline, "the heartbeat did not renew the lease"
        time.sleep(0.01)
