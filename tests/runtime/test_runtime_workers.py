"""Two workers over one journal (two handles on one SQLite file / PostgreSQL schema): a stale writer is
fenced, never interleaved."""

from __future__ import annotations

import pytest

from loom_runtime import FencingError, Runtime, flow
from loom_runtime.journal import NewEvent


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


def test_two_plain_runtimes_never_both_run_a_step(journal_factory):
    # neither names a worker: every Runtime has an identity and leases what it drives
    clock, ran = Clock(), []
    other = Runtime(journal=journal_factory(clock=clock), clock=clock)
    seen = []

    def meanwhile():  # another process recovers the same execution while this one is mid-step
        seen.extend(other.recover())

    job = _flow(meanwhile, ran)
    other.register(job)
    rt = Runtime(journal=journal_factory(clock=clock), clock=clock)
    rt.register(job)
    assert rt.worker_id != other.worker_id
    assert rt.start("job", execution_id="e1").status == "completed"
    assert seen == [] and ran == ["fast", "slow", "last"]  # skipped, not read, not run
    _journal_is_clean(rt.journal)


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
    assert seen == []  # b skipped it: a holds the lease (not reported, not read, not run)
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


class AfterPark:
    """Worker a's view of the store: runs ``then()`` right after a park commits, before a's call
    returns and releases what it holds (the window in which another worker's resume arrives)."""

    def __init__(self, store, then):
        self._store, self._then, self.fired = store, then, 0

    def append(self, execution_id, events, **kw):
        seq = self._store.append(execution_id, events, **kw)
        if events[-1].type == "EXECUTION_SUSPENDED" and not self.fired:
            self.fired += 1
            self._then()
        return seq

    def __getattr__(self, name):
        return getattr(self._store, name)


def test_a_resume_right_after_a_park_never_meets_the_parking_workers_lease(journal_factory):
    clock, ran, answered = Clock(), [], []

    @flow("job", steps=["a", "b"])
    def job(ctx, _):
        ctx.execute("a", lambda: ran.append("a") or 1)
        ctx.suspend("approval")
        return ctx.execute("b", lambda: ran.append("b") or 2)

    b = Runtime(journal=journal_factory(clock=clock), clock=clock, worker_id="b", lease_ttl=10)
    b.register(job)

    def answer_now():  # another worker answers the gate the instant the park is visible
        answered.append(b.resume("e1", {"ok": True}, gate="approval"))

    a = Runtime(journal=AfterPark(journal_factory(clock=clock), answer_now), clock=clock, worker_id="a", lease_ttl=10)
    a.register(job)
    assert a.start("job", execution_id="e1").status == "suspended"  # a's view when it parked
    [h] = answered
    assert (h.status, h.result) == ("completed", 2)  # b drove it on at once: no "leased to `a`"
    assert ran == ["a", "b"]
    assert _journal_is_clean(b.journal)[-4:] == ["EXECUTION_RESUMED", "STEP_STARTED", "STEP_COMPLETED", "EXECUTION_COMPLETED"]
    a.journal.acquire_lease("e1", "c", ttl=1)  # and nobody holds it afterwards


def test_a_retry_right_after_a_divergence_park_never_meets_the_parking_workers_lease(journal_factory):
    from loom_runtime import FlowReplayDivergenceError

    clock, ran, retried = Clock(), [], []

    @flow("job", steps=["a", "b"])
    def job(ctx, _):
        ctx.execute("a", lambda: ran.append("a") or 1)
        ctx.suspend("approval")
        return ctx.execute("b", lambda: ran.append("b") or 2)

    @flow("job", steps=["a", "b"])
    def edited(ctx, _):  # never asks for the recorded `a`
        ctx.suspend("approval")
        return ctx.execute("b", lambda: ran.append("b-edited") or 3)

    b = Runtime(journal=journal_factory(clock=clock), clock=clock, worker_id="b", lease_ttl=10)
    b.register(job)
    assert b.start("job", execution_id="e1").status == "suspended"

    def retry_now():  # b runs the fixed code; its retry lands between a's park and a's return
        retried.append(b.retry_diverged("e1"))

    a = Runtime(journal=AfterPark(journal_factory(clock=clock), retry_now), clock=clock, worker_id="a",
                lease_ttl=10, divergence="fail", on_warn=lambda _: None)
    a.register(edited)
    with pytest.raises(FlowReplayDivergenceError, match="PARKED"):
        a.resume("e1", {"ok": True}, gate="approval")
    [h] = retried
    assert (h.status, h.result) == ("completed", 2)
    assert ran == ["a", "b"]
    _journal_is_clean(b.journal)


class CountingReads:
    """A worker's view of the store that counts the event reads per execution (and nothing else)."""

    def __init__(self, store):
        self._store, self.reads = store, []

    def read(self, execution_id, after_seq=0):
        self.reads.append(execution_id)
        return self._store.read(execution_id, after_seq)

    def __getattr__(self, name):
        return getattr(self._store, name)


def test_recover_skips_executions_leased_by_others_without_reading_them(journal_factory):
    clock = Clock()
    seeded = journal_factory(clock=clock)
    for i in range(6):
        seeded.create(f"e{i}", NewEvent("EXECUTION_STARTED", {"flowId": "job", "input": None}))
    for i in range(4):  # another worker is driving e0..e3 (live leases)
        seeded.acquire_lease(f"e{i}", "a", ttl=10)

    @flow("job")
    def job(ctx, _):
        return ctx.execute("s", lambda: 1)

    store = CountingReads(journal_factory(clock=clock))
    b = Runtime(journal=store, clock=clock, worker_id="b", lease_ttl=10)
    b.register(job)
    handles = b.recover()
    assert sorted((h.execution_id, h.status) for h in handles) == [("e4", "completed"), ("e5", "completed")]
    assert sorted(set(store.reads)) == ["e4", "e5"]  # nothing of a's executions was read
    assert [s.execution_id for s in seeded.list_executions(statuses=["running"])] == ["e0", "e1", "e2", "e3"]

    # a claim lost between the listing and the lease is skipped before any read too
    store.reads.clear()
    listed = store.list_executions(statuses=["running"], leasable_by="b")
    clock.now += 11  # a's leases expire: all four are listed for b ...
    assert store.list_executions(statuses=["running"], leasable_by="b") != listed
    for i in range(4):  # ... but a third worker takes them first
        seeded.acquire_lease(f"e{i}", "c", ttl=10)
    b.journal = _ListsStale(store, store.list_executions(statuses=["running"], leasable_by="c"))
    assert b.recover() == [] and store.reads == []

    clock.now += 11  # c's leases lapse (c died): b takes them over
    assert sorted(h.status for h in b.recover()) == ["completed"] * 4


class _ListsStale:
    """A store whose listing is a snapshot taken earlier (the race between listing and claiming)."""

    def __init__(self, store, snapshot):
        self._store, self._snapshot = store, snapshot

    def list_executions(self, **_):
        return self._snapshot

    def __getattr__(self, name):
        return getattr(self._store, name)


def test_workers_visit_executions_in_orders_of_their_own(journal_factory):
    clock = Clock()
    store = journal_factory(clock=clock)
    summaries = tuple(
        store.summary(eid)
        for eid in (f"e{i:02d}" for i in range(40))
        if store.create(eid, NewEvent("EXECUTION_STARTED", {"flowId": "job", "input": None}))
    )
    a = Runtime(journal=store, clock=clock, worker_id="a")
    b = Runtime(journal=store, clock=clock, worker_id="b")
    first_a, first_b, again_a = (list(r._visit_order(summaries)) for r in (a, b, a))
    assert sorted(first_a, key=lambda s: s.execution_id) == list(summaries)  # a permutation, nothing lost
    # two workers (and two passes of one) start at different places (40! orders: equal by chance ~1e-48)
    assert first_a != first_b and first_a != again_a


def test_recover_leaves_an_execution_finished_since_the_listing_unread(journal_factory):
    clock = Clock()

    @flow("job")
    def job(ctx, _):
        return ctx.execute("s", lambda: 1)

    a = Runtime(journal=journal_factory(clock=clock), clock=clock, worker_id="a")
    a.register(job)
    a.journal.create("e1", NewEvent("EXECUTION_STARTED", {"flowId": "job", "input": None}))
    snapshot = a.journal.list_executions(statuses=["running"])  # b lists e1 as running ...
    assert a.recover()[0].status == "completed"  # ... and a finishes it before b gets to it
    store = CountingReads(journal_factory(clock=clock))
    b = Runtime(journal=_ListsStale(store, snapshot), clock=clock, worker_id="b")
    b.register(job)
    assert b.recover() == [] and store.reads == []
    b.journal.acquire_lease("e1", "c", ttl=1)  # b let go of its claim


def test_a_resume_or_retry_reads_the_journal_once(journal_factory):
    clock = Clock()

    @flow("job", steps=["a", "b"])
    def job(ctx, _):
        ctx.execute("a", lambda: 1)
        answer = ctx.suspend("approval")
        return ctx.execute("b", lambda: answer)

    store = CountingReads(journal_factory(clock=clock))
    rt = Runtime(journal=store, clock=clock, worker_id="w")
    rt.register(job)
    rt.start("job", execution_id="e1")
    store.reads.clear()
    h = rt.resume("e1", {"ok": 1}, gate="approval")
    assert (h.status, h.result) == ("completed", {"ok": 1})
    assert store.reads == ["e1"]  # the fold it checked the gate on is the fold it drives from


class _DueStale:
    """A store whose due-timer listing is a snapshot taken earlier."""

    def __init__(self, store, snapshot):
        self._store, self._snapshot = store, snapshot

    def due_timers(self, now):
        return self._snapshot

    def __getattr__(self, name):
        return getattr(self._store, name)


def test_a_timer_fired_by_another_worker_since_the_listing_is_skipped_unread(journal_factory):
    clock = Clock()

    @flow("nap")
    def nap(ctx, _):
        ctx.sleep("t", 5)
        return ctx.execute("after", lambda: "woke")

    a = Runtime(journal=journal_factory(clock=clock), clock=clock, worker_id="a")
    a.register(nap)
    assert a.start("nap", execution_id="e1").status == "suspended"
    clock.now += 6
    snapshot = a.journal.due_timers(clock.now)  # b lists the due timer ...
    assert [h.status for h in a.tick()] == ["completed"]  # ... a fires it and finishes first
    store = CountingReads(journal_factory(clock=clock))
    b = Runtime(journal=_DueStale(store, snapshot), clock=clock, worker_id="b")
    b.register(nap)
    assert b.tick() == [] and store.reads == []


def test_a_started_execution_is_leased_before_its_body_runs(journal_factory):
    clock, deciders, seen = Clock(), [], []
    b = Runtime(journal=journal_factory(clock=clock), clock=clock, worker_id="b")

    @flow("job")
    def job(ctx, _):
        def decider():  # transient work before the first append: another worker looks for work now
            deciders.append("ran")
            seen.extend(b.recover())
            return "plan"

        plan = ctx.decide("plan", decider)
        return ctx.execute("act", lambda: plan)

    b.register(job)
    a = Runtime(journal=journal_factory(clock=clock), clock=clock, worker_id="a")
    a.register(job)
    h = a.start("job", execution_id="e1")
    assert (h.status, h.result) == ("completed", "plan")
    assert seen == [] and deciders == ["ran"]  # b neither drove it nor ran its decider


def test_a_successor_another_worker_took_is_left_to_it(journal_factory):
    # a crashed continuation left its successor behind, and worker b has since taken it over
    clock = Clock()

    @flow("loop")
    def loop(ctx, n):
        ctx.execute("tick", lambda: n)
        if n < 1:
            ctx.continue_as_new(n + 1)
        return n

    other = journal_factory(clock=clock)
    b = Runtime(journal=other, clock=clock, worker_id="b")
    v = b.register(loop)
    other.create("e1~1", NewEvent("EXECUTION_STARTED", {"flowId": "loop", "flowHash": v.flow_hash,
                                                         "codeHash": v.code_hash, "input": 1}))
    other.acquire_lease("e1~1", "b", ttl=10)
    store = CountingReads(journal_factory(clock=clock))
    a = Runtime(journal=store, clock=clock, worker_id="a")
    a.register(loop)
    h = a.start("loop", 0, execution_id="e1")
    assert (h.execution_id, h.status, h.result) == ("e1", "continued", "e1~1")
    assert "e1~1" not in store.reads  # a never read the successor b holds
    [done] = b.recover()
    assert (done.execution_id, done.status, done.result) == ("e1~1", "completed", 1)


@pytest.mark.parametrize("worker_id", [None, "a"])
def test_start_drives_a_new_execution_without_reading_its_journal(journal_factory, worker_id):
    @flow("job")
    def job(ctx, _):
        return ctx.execute("s", lambda: 1) + ctx.execute("t", lambda: 2)

    store = CountingReads(journal_factory())
    rt = Runtime(journal=store, worker_id=worker_id)
    rt.register(job)
    h = rt.start("job", {"k": (1, 2)}, execution_id="e1")
    assert (h.status, h.result) == ("completed", 3)
    assert store.reads == []  # its creator holds the only event it wrote
    assert rt.get("e1").events[0].payload["input"] == {"k": [1, 2]}


class RecoversAfterCreate(CountingReads):
    """A worker's store on which another worker runs ``recover`` right after every execution is created."""

    def __init__(self, store, competitor):
        super().__init__(store)
        self.competitor, self.seen = competitor, []

    def _then_recover(self, created):
        self.seen.extend(self.competitor.recover())  # before the creator's body takes its first step
        return created

    def create(self, execution_id, started):
        return self._then_recover(self._store.create(execution_id, started))

    def create_leased(self, execution_id, started, **kw):
        return self._then_recover(self._store.create_leased(execution_id, started, **kw))


def test_a_recover_between_a_start_and_its_first_step_cannot_take_the_execution(journal_factory):
    clock, ran = Clock(), []

    @flow("job")
    def job(ctx, _):
        return ctx.execute("act", lambda: ran.append("act") or "done")

    b = Runtime(journal=journal_factory(clock=clock), clock=clock, worker_id="b")
    b.register(job)
    store = RecoversAfterCreate(journal_factory(clock=clock), b)
    a = Runtime(journal=store, clock=clock, worker_id="a")
    a.register(job)
    h = a.start("job", execution_id="e1")
    assert (h.status, h.result) == ("completed", "done")
    assert store.seen == [] and ran == ["act"]  # b neither took it nor ran its step
    assert _journal_is_clean(b.journal) == ["EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED", "EXECUTION_COMPLETED"]


def test_a_recover_between_a_continuation_and_its_successors_first_step_cannot_take_it(journal_factory):
    clock, ran = Clock(), []

    @flow("loop")
    def loop(ctx, n):
        ctx.execute("tick", lambda: ran.append(n) or n)
        if n < 1:
            ctx.continue_as_new(n + 1)
        return n

    b = Runtime(journal=journal_factory(clock=clock), clock=clock, worker_id="b")
    b.register(loop)
    store = RecoversAfterCreate(journal_factory(clock=clock), b)
    a = Runtime(journal=store, clock=clock, worker_id="a")
    a.register(loop)
    h = a.start("loop", 0, execution_id="e1")
    assert (h.execution_id, h.status, h.result) == ("e1~1", "completed", 1)  # a drove its successor itself
    assert store.seen == [] and ran == [0, 1]
