"""Durable timers on PostgreSQL are set and judged by the server's clock, not the worker's.

Workers on several machines disagree about the time. A timer's ``fireAt`` used to be the setting
worker's ``clock() + seconds`` and its due-ness the ticking worker's ``clock()``: a worker running
an hour fast fired every other worker's timers an hour early, and its own were an hour late for
everyone else. Each test injects a skewed worker clock through ``Runtime(clock=...)`` (the seam a
real machine's wrong ``time.time`` goes through) on a store without a test clock, so the server's
``clock_timestamp()`` is the only shared time, as in production.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from loom_runtime import Runtime, flow, step

pytestmark = pytest.mark.postgres

HOUR = 3600.0


def _server_now(store) -> float:
    return store.shared_now()  # the store's own round trip to clock_timestamp()


def _napper(seconds: float, ran: list[str]):
    @flow("nap", steps=["after"])
    def nap(ctx, _):
        ctx.sleep("cool-off", seconds)
        return ctx.execute("after", lambda: ran.append("after") or "done")

    return nap


def _worker(postgres_schema, name: str, skew: float, ran: list[str], seconds: float) -> Runtime:
    rt = Runtime(journal=postgres_schema.open(), clock=lambda: time.time() + skew, worker_id=name)
    rt.register(_napper(seconds, ran))
    return rt


def _fire_at(rt: Runtime, execution_id: str) -> float:
    [timer] = [e for e in rt.get(execution_id).events if e.type == "TIMER_SET"]
    return timer.payload["fireAt"]


def _wait_for_server(store, t: float) -> None:
    deadline = time.monotonic() + 30
    while _server_now(store) < t:
        assert time.monotonic() < deadline, "the server's clock did not reach the timer's fireAt"
        time.sleep(0.1)


def test_a_fast_worker_does_not_fire_an_unskewed_workers_timer_early(postgres_schema):
    ran: list[str] = []
    setter = _worker(postgres_schema, "on-time", 0.0, ran, 60)
    fast = _worker(postgres_schema, "fast", +HOUR, ran, 60)
    before = _server_now(setter.journal)
    assert setter.start("nap", execution_id="e1").status == "suspended"
    assert before + 59 < _fire_at(setter, "e1") < _server_now(setter.journal) + 61
    assert fast.tick() == [] and fast.recover() == []  # its clock says the hour is long over: not the server's
    assert fast.get("e1").status == "suspended" and ran == []


def test_a_fast_workers_timer_is_not_late_for_an_unskewed_worker(postgres_schema):
    ran: list[str] = []
    fast = _worker(postgres_schema, "fast", +HOUR, ran, 1.0)
    on_time = _worker(postgres_schema, "on-time", 0.0, ran, 1.0)
    before = _server_now(fast.journal)
    fast.start("nap", execution_id="e1")
    fire_at = _fire_at(fast, "e1")
    # from the server's clock, not +1 h (so neither late nor already due: a tick right here saying
    # "not yet" held only on a machine that got there within the second)
    assert before + 1.0 <= fire_at < _server_now(fast.journal) + 1.0 + 1e-6
    _wait_for_server(fast.journal, fire_at)
    [h] = on_time.tick()  # on time, not an hour late
    assert (h.execution_id, h.status, h.result) == ("e1", "completed", "done") and ran == ["after"]


def test_a_slow_worker_fires_a_due_timer_on_time(postgres_schema):
    ran: list[str] = []
    on_time = _worker(postgres_schema, "on-time", 0.0, ran, 1.0)
    slow = _worker(postgres_schema, "slow", -HOUR, ran, 1.0)
    on_time.start("nap", execution_id="e1")
    _wait_for_server(on_time.journal, _fire_at(on_time, "e1"))
    [h] = slow.tick()  # its clock says an hour to go: the server's says due
    assert h.status == "completed" and ran == ["after"]


def test_a_retry_timer_of_a_fast_worker_counts_from_the_servers_clock(postgres_schema):
    attempts: list[int] = []

    @step(max_attempts=2, backoff=1.0)
    def flaky():
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("first attempt fails")
        return "ok"

    @flow("retrying", steps=["flaky"])
    def retrying(ctx, _):
        return ctx.execute("flaky", flaky)

    fast = Runtime(journal=postgres_schema.open(), clock=lambda: time.time() + HOUR, worker_id="fast")
    slow = Runtime(journal=postgres_schema.open(), clock=lambda: time.time() - HOUR, worker_id="slow")
    for rt in (fast, slow):
        rt.register(retrying)
    before = _server_now(fast.journal)
    assert fast.start("retrying", execution_id="e1").status == "suspended"
    after = _server_now(fast.journal)
    [failed] = [e for e in fast.get("e1").events if e.type == "STEP_FAILED"]
    # the backoff counted from the server's clock, not an hour ahead (that a fast worker's tick does
    # not fire a timer early is test_a_fast_worker_does_not_fire_..., on a 60 s timer: a tick here
    # said "not yet" only on a machine that got there within the 1 s backoff)
    assert before + 1.0 <= failed.payload["retryAt"] <= after + 1.0
    _wait_for_server(fast.journal, failed.payload["retryAt"])
    [h] = slow.tick()
    assert (h.status, h.result) == ("completed", "ok") and len(attempts) == 2


def test_an_async_tick_judges_by_the_servers_clock(postgres_schema):
    ran: list[str] = []
    on_time = _worker(postgres_schema, "on-time", 0.0, ran, 60)
    fast = _worker(postgres_schema, "fast", +HOUR, ran, 60)
    on_time.start("nap", execution_id="e1")
    assert asyncio.run(fast.tick_async()) == []
    assert fast.get("e1").status == "suspended" and ran == []


def test_an_async_tick_of_a_slow_worker_fires_a_due_timer_on_time(postgres_schema):
    ran: list[str] = []
    on_time = _worker(postgres_schema, "on-time", 0.0, ran, 1.0)
    slow = _worker(postgres_schema, "slow", -HOUR, ran, 1.0)
    on_time.start("nap", execution_id="e1")
    _wait_for_server(on_time.journal, _fire_at(on_time, "e1"))
    [h] = asyncio.run(slow.tick_async())  # its clock says an hour to go: the server's says due
    assert h.status == "completed" and ran == ["after"]


def test_a_fast_serving_worker_leaves_an_unskewed_workers_timer_parked(postgres_schema):
    import threading

    ran: list[str] = []
    on_time = _worker(postgres_schema, "on-time", 0.0, ran, 60)
    fast = _worker(postgres_schema, "fast", +HOUR, ran, 60)
    on_time.start("nap", execution_id="e1")
    stop, passes = threading.Event(), []
    due_timers = fast.journal.due_timers

    def counted(now):  # the first call of each of the worker's passes
        passes.append(now)
        return due_timers(now)

    fast.journal.due_timers = counted
    serving = threading.Thread(target=fast.serve, kwargs={"stop": stop, "poll_interval": 0.1})
    serving.start()
    try:
        deadline = time.monotonic() + 30
        while len(passes) < 3:  # several passes (and idle waits timed by the next timer between them)
            assert time.monotonic() < deadline and serving.is_alive(), "the worker stopped passing"
            fast._wake.set()  # cut its idle wait short (the next timer is a minute away on the server)
            time.sleep(0.02)
    finally:
        stop.set()
        serving.join(30)
    assert not serving.is_alive()
    assert fast.get("e1").status == "suspended" and ran == []
