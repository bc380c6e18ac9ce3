"""Two workers over one journal (two handles on one SQLite file / PostgreSQL schema): a stale writer is
fenced, never interleaved."""

from __future__ import annotations

import pytest

from loom_runtime import FencingError, Runtime, flow


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _flow(on_slow_step, ran):
    once = []

    def slow():
        if not once:  # only the first worker's attempt triggers the concurrent one
            once.append(1)
            on_slow_step()
        ran.append("slow")
        return 2

    @flow("job", steps=["fast", "slow", "last"])
    def job(ctx, _):
        ctx.execute("fast", lambda: ran.append("fast") or 1)
        try:
            ctx.execute("slow", slow)
        except Exception:  # a body that catches everything still cannot write after being fenced
            ctx.execute("after-error", lambda: ran.append("after-error"))
        ctx.execute("last", lambda: ran.append("last") or 3)
        return "ok"

    return job


def _journal_is_clean(store, eid="e1"):
    events = store.read(eid)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    completed = [e.payload["stepId"] for e in events if e.type == "STEP_COMPLETED"]
    assert len(completed) == len(set(completed))
    return [e.type for e in events]


def test_without_leases_the_sequence_fence_rejects_the_stale_writer(journal_factory):
    clock, ran = Clock(), []
    other = Runtime(journal=journal_factory(clock=clock), clock=clock)

    def meanwhile():  # another worker recovers the same execution while this one is mid-step
        [h] = other.recover()
        assert h.status == "completed"

    job = _flow(meanwhile, ran)
    other.register(job)
    rt = Runtime(journal=journal_factory(clock=clock), clock=clock)
    rt.register(job)
    with pytest.raises(FencingError, match="stale append"):
        rt.start("job", execution_id="e1")
    assert ran == ["fast", "slow", "last", "slow"]  # the step ran twice (at least once), `last` once
    types = _journal_is_clean(rt.journal)
    assert types[-1] == "EXECUTION_COMPLETED" and "after-error" not in str(rt.get("e1").frames)


def test_a_live_lease_keeps_a_second_worker_from_running_the_step(journal_factory):
    clock, ran = Clock(), []
    b = Runtime(journal=journal_factory(clock=clock), clock=clock, worker_id="b", lease_ttl=10)
    seen = []

    def meanwhile():
        seen.extend(b.recover())

    job = _flow(meanwhile, ran)
    b.register(job)
    a = Runtime(journal=journal_factory(clock=clock), clock=clock, worker_id="a", lease_ttl=10)
    a.register(job)
    assert a.start("job", execution_id="e1").status == "completed"
    [h] = seen
    assert isinstance(h.exception, FencingError) and "leased to `a`" in str(h.exception)
    assert ran == ["fast", "slow", "last"]
    _journal_is_clean(a.journal)
    a.journal.acquire_lease("e1", "c", ttl=1)  # released at the end of a's run: free for anyone


def test_a_worker_that_stalls_past_its_lease_is_fenced(journal_factory):
    clock, ran = Clock(), []
    b = Runtime(journal=journal_factory(clock=clock), clock=clock, worker_id="b", lease_ttl=10)

    def stall():
        clock.now += 60  # worker a's lease expires mid-step; worker b takes over and finishes
        [h] = b.recover()
        assert h.status == "completed"

    job = _flow(stall, ran)
    b.register(job)
    a = Runtime(journal=journal_factory(clock=clock), clock=clock, worker_id="a", lease_ttl=10)
    a.register(job)
    with pytest.raises(FencingError):
        a.start("job", execution_id="e1")
    assert ran == ["fast", "slow", "last", "slow"]
    assert _journal_is_clean(a.journal)[-1] == "EXECUTION_COMPLETED"
