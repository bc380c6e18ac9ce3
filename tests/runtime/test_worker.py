"""``Runtime.submit`` and ``Runtime.serve`` in one process (DESIGN §9): what a worker takes, when, and
how it stops. The multi-process behaviour (``loom worker``, SIGTERM, kill -9) is in
``test_worker_processes.py``."""

from __future__ import annotations

import threading
import time

import pytest

from loom_runtime import Runtime, flow
from loom_runtime.journal import NewEvent


def _wait(cond, what, timeout=30.0):
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


class Serving:
    """``runtime.serve`` in a background thread; ``stop()`` returns what it returned."""

    def __init__(self, runtime, **kwargs):
        self.stop_event = threading.Event()
        self.events = []
        self.result = None
        self.thread = threading.Thread(target=self._run, args=(runtime, kwargs), daemon=True)
        self.thread.start()

    def _run(self, runtime, kwargs):
        self.result = runtime.serve(stop=self.stop_event, on_event=self.events.append, **kwargs)

    def stop(self, timeout=30.0):
        self.stop_event.set()
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "serve did not return after stop"
        return self.result


def test_submit_records_a_start_that_nobody_drives_until_a_worker_serves(journal_factory):
    ran = []

    @flow("job")
    def job(ctx, n):
        ctx.execute("a", lambda: ran.append(n) or n)
        ctx.sleep("nap", 0.2)
        return ctx.execute("b", lambda: n * 10)

    client = Runtime(journal=journal_factory())
    client.register(job)
    ids = [client.submit("job", i, execution_id=f"x{i}") for i in range(6)]
    assert ids == [f"x{i}" for i in range(6)]
    assert {client.get(i).status for i in ids} == {"running"} and ran == []
    worker = Runtime(journal=journal_factory())
    worker.register(job)
    serving = Serving(worker, poll_interval=0.05, concurrency=2)
    _wait(lambda: all(client.get(i).status == "completed" for i in ids), "the worker to drain")
    assert serving.stop() >= 12  # one drive to each timer, one after it
    assert sorted(ran) == list(range(6)) and [client.get(i).result for i in ids] == [i * 10 for i in range(6)]
    for i in ids:  # every timer fired, never before its due time (how soon after it is a latency the
        events = client.get(i).events  # machine's load decides, not a property: not asserted here)
        fire_at = next(e.payload["fireAt"] for e in events if e.type == "TIMER_SET")
        resumed = next(e.recorded_at for e in events if e.type == "EXECUTION_RESUMED")
        assert resumed >= fire_at
    drives = [e for e in serving.events if e["event"] == "drive"]
    assert {e["status"] for e in drives} == {"suspended", "completed"} and all(e["worker"] == worker.worker_id for e in drives)


def test_serve_runs_up_to_concurrency_executions_at_once():
    together = threading.Barrier(3, timeout=20)

    @flow("meet")
    def meet(ctx, _):
        return ctx.execute("meet", lambda: together.wait() >= 0)  # only passes if 3 run at once

    rt = Runtime()
    rt.register(meet)
    ids = [rt.submit("meet") for _ in range(3)]
    serving = Serving(rt, poll_interval=0.05, concurrency=3)
    _wait(lambda: all(rt.get(i).status == "completed" for i in ids), "three drives at once")
    serving.stop()


def test_stop_finishes_the_step_in_hand_and_leaves_the_rest_to_another_worker(journal_factory):
    in_step, release, ran = threading.Event(), threading.Event(), []

    def long_step():
        ran.append("long")
        in_step.set()
        release.wait(20)
        return "long"

    @flow("job")
    def job(ctx, _):
        ctx.execute("long", long_step)
        return ctx.execute("next", lambda: ran.append("next") or "next")

    first = Runtime(journal=journal_factory(), lease_ttl=60)
    first.register(job)
    first.submit("job", execution_id="e1")
    # the dispatcher sleeps through the stop (a poll far away, nothing wakes it before the drive
    # ends): the drive itself must see it, not only a dispatcher that happened to look in between
    serving = Serving(first, poll_interval=30)
    assert in_step.wait(20)
    serving.stop_event.set()  # stop while the step runs ...
    release.set()  # ... it finishes and is recorded; `next` is not started
    serving.stop()
    view = first.get("e1")
    assert view.status == "running" and view.frames["long"].status == "completed" and "next" not in view.frames
    assert [e["status"] for e in serving.events if e["event"] == "drive"] == ["left"]
    second = Runtime(journal=journal_factory(), lease_ttl=60)  # no 60 s wait: the lease was released
    second.register(job)
    [h] = second.recover()
    assert (h.status, h.result) == ("completed", "next") and ran == ["long", "next"]


def test_a_worker_stopped_during_a_pass_claims_nothing_more(journal_factory):
    # the pass's listing is made after the stop and still shows an execution the worker's own drive
    # has just left (released for another worker): the pass must not claim it and drive it again
    in_step, release, ran = threading.Event(), threading.Event(), []

    def long_step():
        ran.append("long")
        in_step.set()
        release.wait(20)
        return "long"

    @flow("job")
    def job(ctx, _):
        ctx.execute("long", long_step)
        return ctx.execute("next", lambda: ran.append("next") or "next")

    rt = Runtime(journal=journal_factory(), lease_ttl=60)
    rt.register(job)
    rt.submit("job", execution_id="e1")
    serving = Serving(rt, poll_interval=30)
    assert in_step.wait(20)
    listing, held = rt.journal.list_executions, []

    def list_executions(*args, **kwargs):  # the pass looks only once the drive has left e1
        if kwargs.get("leasable_by") == rt.worker_id and not held:
            held.append(1)
            _wait(lambda: any(e["event"] == "drive" for e in serving.events), "the drive to leave e1")
        return listing(*args, **kwargs)

    rt.journal.list_executions = list_executions
    rt._wake.set()  # a pass starts now, while the step runs
    _wait(lambda: bool(held), "the pass to list")
    serving.stop_event.set()
    release.set()
    serving.stop()
    assert [e["status"] for e in serving.events if e["event"] == "drive"] == ["left"]  # driven once
    assert ran == ["long"] and not rt._leases.holds("e1")


def test_serve_takes_over_an_execution_whose_worker_died(journal_factory):
    @flow("job")
    def job(ctx, _):
        return ctx.execute("s", lambda: "done")

    store = journal_factory()
    rt = Runtime(journal=store, lease_ttl=2)
    v = rt.register(job)
    store.create("e1", NewEvent("EXECUTION_STARTED", {"flowId": "job", "flowHash": v.flow_hash, "input": None}))
    store.acquire_lease("e1", "a-dead-worker", ttl=0.5)  # it never renews
    serving = Serving(rt, poll_interval=0.05)
    _wait(lambda: rt.get("e1").status == "completed", "the takeover")
    serving.stop()


def test_serve_refuses_bad_arguments():
    rt = Runtime()
    with pytest.raises(ValueError, match="concurrency"):
        rt.serve(concurrency=0)
    with pytest.raises(ValueError, match="poll_interval"):
        rt.serve(poll_interval=0)


@pytest.mark.postgres
def test_an_idle_postgres_worker_is_woken_by_a_submission_not_by_polling(postgres_schema):
    @flow("job")
    def job(ctx, _):
        return ctx.execute("s", lambda: "done")

    worker = Runtime(journal=postgres_schema.open(), lease_ttl=120)  # polls every 60 s at most
    worker.register(job)
    listening = _count_waits(worker.journal)
    serving = Serving(worker, poll_interval=30.0)
    _wait(lambda: listening.is_set(), "the worker to wait for notifications")  # idle now, listening
    client = Runtime(journal=postgres_schema.open())
    client.register(job)
    eid = client.submit("job")
    # the next poll is 30 s away, the next rescan 60 s: only the notification wakes it within 20 s
    _wait(lambda: client.get(eid).status == "completed", "the notified worker", timeout=20)
    serving.stop()


def _count_waits(store) -> threading.Event:
    """Set once ``store.wait_for_work`` is waiting past its first call (which opens the listener
    and returns at once): the worker is idle on a listening connection."""
    listening = threading.Event()
    calls = []
    original = store.wait_for_work

    def wait_for_work(timeout):
        calls.append(timeout)
        if len(calls) > 1:
            listening.set()
        return original(timeout)

    store.wait_for_work = wait_for_work  # an instance attribute: the worker looks it up per wait
    return listening


@pytest.mark.postgres
def test_a_submission_between_a_workers_first_pass_and_its_listen_is_not_slept_through(postgres_schema):
    # the notification of a submission made before the worker's listening connection exists is
    # lost to it: the worker must look again once it listens, not sleep until its rescan (60 s)
    @flow("job")
    def job(ctx, _):
        return ctx.execute("s", lambda: "done")

    worker = Runtime(journal=postgres_schema.open(), lease_ttl=120)
    worker.register(job)
    client = Runtime(journal=postgres_schema.open())
    client.register(job)
    submitted = []
    listing = worker.journal.list_executions

    def list_executions(*args, **kwargs):
        found = listing(*args, **kwargs)
        if not submitted and kwargs.get("leasable_by") == worker.worker_id:  # the first pass has looked
            submitted.append(client.submit("job"))
        return found

    worker.journal.list_executions = list_executions
    serving = Serving(worker, poll_interval=30.0)
    _wait(lambda: bool(submitted), "the worker's first pass")
    _wait(lambda: client.get(submitted[0]).status == "completed", "the worker to see the submission", timeout=20)
    serving.stop()


@pytest.mark.postgres
def test_wait_for_work_returns_at_once_when_it_opens_its_listener_then_waits_for_notifications(postgres_schema):
    waiter, other = postgres_schema.open(), postgres_schema.open()
    other.create("e0", NewEvent("EXECUTION_STARTED", {"flowId": "job", "input": None}))  # before any LISTEN
    assert waiter.wait_for_work(10) is True  # it may have missed that: look again
    assert waiter.wait_for_work(0.05) is False  # listening now, nothing new
    other.create("e1", NewEvent("EXECUTION_STARTED", {"flowId": "job", "input": None}))
    assert waiter.wait_for_work(10) is True


@pytest.mark.postgres
def test_an_idle_postgres_worker_takes_over_a_dead_workers_execution_when_its_lease_expires(postgres_schema):
    # a dead worker sends no notification: the idle worker wakes at the expiry it knows of, not at
    # its next rescan (60 s) or poll (30 s)
    @flow("job")
    def job(ctx, _):
        return ctx.execute("s", lambda: "done")

    store = postgres_schema.open()
    worker = Runtime(journal=store, lease_ttl=120)
    v = worker.register(job)
    store.create("e1", NewEvent("EXECUTION_STARTED", {"flowId": "job", "flowHash": v.flow_hash, "input": None}))
    dead = store.acquire_lease("e1", "a-dead-worker", ttl=1.5)  # it never renews
    serving = Serving(worker, poll_interval=30.0)
    _wait(lambda: worker.get("e1").status == "completed", "the takeover", timeout=30)
    took = time.time() - (dead.expires_at - 1.5)
    assert took < 10, f"taken over {took:.1f}s after the lease was granted (it expired after 1.5 s)"
    drives = [e for e in serving.events if e["event"] == "drive"]
    assert [(d["executionId"], d["status"]) for d in drives] == [("e1", "completed")]
    serving.stop()


def test_an_idle_worker_never_polls_in_a_tight_loop_for_a_timer_another_worker_holds(journal_factory):
    # a due timer whose execution another (live, slow or dead) worker has claimed cannot be taken:
    # the idle worker looks again after poll_interval, not at once
    store = journal_factory()
    rt = Runtime(journal=store, lease_ttl=30)
    store.create("e1", NewEvent("EXECUTION_STARTED", {"flowId": "job", "input": None}))
    store.append("e1", [NewEvent("TIMER_SET", {"timerId": "t", "fireAt": 0.0}),
                        NewEvent("EXECUTION_SUSPENDED", {"condition": {"on": "__loom_timer__:t"}})], expected_seq=1)
    store.acquire_lease("e1", "another-worker", ttl=30)
    from loom_runtime.worker import Worker

    worker = Worker(rt, stop=None, poll_interval=0.7, concurrency=1, on_event=None)
    assert worker._pass(None) == 0  # listed as due, not claimable
    assert worker._idle_timeout() == pytest.approx(0.7)


def test_a_stopping_worker_records_a_gathered_step_in_flight_when_its_sibling_is_refused():
    # async gather: `slow` is running when the worker starts stopping; `late` then asks to start and
    # is refused; `slow`'s result must still be recorded, or another worker runs its effect again
    import asyncio

    from loom_runtime.worker import WorkerStopping, _DrainingPort

    started, go, refused, finish = (threading.Event() for _ in range(4))
    ran = []

    def slow():
        ran.append("slow")
        started.set()
        finish.wait(20)
        return "slow"

    @flow("pair")
    async def pair(ctx, _):
        async def late():
            while not go.is_set():
                await asyncio.sleep(0.005)
            try:
                return await ctx.execute("late", lambda: ran.append("late") or "late")
            except WorkerStopping:
                refused.set()
                raise

        return await asyncio.gather(ctx.execute("slow", slow), late())

    rt = Runtime(lease_ttl=60)
    rt.register(pair)
    rt.submit("pair", execution_id="e1")
    draining = threading.Event()
    errors = []

    def drive():
        try:
            rt._drive_chain("e1", port=_DrainingPort(rt, draining))
        except WorkerStopping as exc:
            errors.append(exc)

    t = threading.Thread(target=drive)
    t.start()
    assert started.wait(20)
    draining.set()  # the worker is stopping while `slow` runs
    go.set()
    assert refused.wait(20)  # `late` was refused before `slow` finished
    finish.set()
    t.join(20)
    assert errors and rt.get("e1").frames["slow"].status == "completed"  # recorded though the run stopped
    [h] = rt.recover()  # another pass (or worker) continues it: `slow` is served, not run again
    assert (h.status, h.result) == ("completed", ["slow", "late"]) and ran == ["slow", "late"]
