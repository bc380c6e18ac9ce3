"""Async flows and steps (DESIGN §9): the awaited Context, gather as a parallel scope, sync steps off
the loop, the ``*_async`` driver methods, and D3 exactly as for sync flows under concurrency."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from loom_runtime import (
    FlowDefinitionError,
    FlowReplayDivergenceError,
    FlowUsageError,
    MemoryJournal,
    Runtime,
    flow,
    step,
)
from loom_runtime.journal import NewEvent


def _no_warn(message):
    raise AssertionError(f"unexpected divergence report: {message}")


def _copy_prefix(events, cut):
    """A journal holding the first ``cut`` events of ``events`` (a crash right after event ``cut``)."""
    journal = MemoryJournal()
    journal.create("e1", NewEvent(events[0].type, events[0].payload))
    for e in events[1:cut]:
        journal.append("e1", [NewEvent(e.type, e.payload)], expected_seq=e.seq - 1)
    return journal


def _recorded(types_and_payloads):
    journal = MemoryJournal()
    first, *rest = types_and_payloads
    journal.create("e1", NewEvent(*first))
    if rest:
        journal.append("e1", [NewEvent(t, p) for t, p in rest], expected_seq=1)
    return journal


def test_an_async_flow_runs_gathered_steps_as_a_parallel_scope_and_parks():
    ran = []
    fetching, pricing = threading.Event(), threading.Event()

    # each step body returns only once the other's has started (both STEP_STARTED precede both
    # completions, however the loop, the writer thread and the step thread are scheduled: with a
    # 10 ms sleep instead, a loaded machine recorded fetch's completion before price's start)
    async def fetch(x):
        fetching.set()
        while not pricing.is_set():
            await asyncio.sleep(0.001)
        ran.append(("fetch", x))
        return x * 2

    def price(x):
        pricing.set()
        assert fetching.wait(10), "fetch never started"
        ran.append(("price", x, threading.current_thread() is threading.main_thread()))
        return x + 1

    @flow("order")
    async def order(ctx, n):
        a, b = await asyncio.gather(ctx.execute("fetch", fetch, n), ctx.execute("price", price, n))
        ok = await ctx.suspend("approve")
        await ctx.emit("priced", {"a": a})
        plan = await ctx.decide("plan", lambda: a + b)
        return {"a": a, "b": b, "plan": plan, "ok": ok, "at": (await ctx.now()).year > 2000}

    rt = Runtime(divergence="fail", on_warn=_no_warn)
    rt.register(order)
    assert rt.start("order", 3, execution_id="e1").gate == "approve"
    h = rt.resume("e1", True, gate="approve")
    assert (h.status, h.result) == ("completed", {"a": 6, "b": 4, "plan": 10, "ok": True, "at": True})
    assert sorted(ran) == [("fetch", 3), ("price", 3, False)]  # the sync step ran off the loop's thread
    types = [(e.type, e.payload.get("scope")) for e in rt.get("e1").events]
    assert types[1:7] == [("PARALLEL_STARTED", "/0"), ("STEP_STARTED", "/0"), ("STEP_STARTED", "/0"),
                          ("STEP_COMPLETED", None), ("STEP_COMPLETED", None), ("PARALLEL_COMPLETED", "/0")]


def test_start_async_and_resume_async_inside_a_running_loop():
    ran = []

    @flow("job")
    async def job(ctx, _):
        x = await ctx.execute("a", lambda: ran.append("a") or 1)
        await ctx.sleep("nap", 0)
        return x + await ctx.execute("b", lambda: ran.append("b") or 2)

    @flow("plain")
    def plain(ctx, _):  # a sync flow through the async forms runs in a worker thread
        return ctx.execute("p", lambda: threading.current_thread() is threading.main_thread())

    async def main():
        rt = Runtime(divergence="fail", on_warn=_no_warn)
        rt.register(job)
        rt.register(plain)
        with pytest.raises(FlowUsageError, match="start_async"):
            rt.start("job", execution_id="refused")  # an async flow cannot block a running loop
        with pytest.raises(Exception):
            rt.get("refused")  # refused before anything was created
        h = await rt.start_async("job", execution_id="e1")
        assert h.gate == "__loom_timer__:nap"
        [done] = await rt.tick_async(time.time() + 1)
        p = await rt.start_async("plain", execution_id="p1")
        return done, p

    done, p = asyncio.run(main())
    assert (done.status, done.result) == ("completed", 3) and ran == ["a", "b"]
    assert (p.status, p.result) == ("completed", False)


def test_an_async_step_in_a_sync_flow_and_a_sync_caller_of_an_async_flow():
    async def double(x):
        await asyncio.sleep(0)
        return 2 * x

    @flow("mixed")
    def mixed(ctx, n):
        return ctx.execute("double", double, n)

    rt = Runtime(divergence="fail")
    rt.register(mixed)
    assert rt.start("mixed", 21).result == 42


def test_registration_refuses_a_generator_flow_instead_of_failing_at_run_time():
    with pytest.raises(FlowDefinitionError, match="generator"):
        @flow("gen")
        async def gen(ctx, _):
            yield 1

    with pytest.raises(FlowDefinitionError, match="generator"):
        @flow("gen2")
        def gen2(ctx, _):
            yield 1

    with pytest.raises(FlowDefinitionError, match="generator"):
        @step
        async def agen():
            yield 1


def test_a_wrapper_hiding_an_async_body_runs_as_async_not_as_a_coroutine_result():
    async def body(ctx, n):
        return await ctx.execute("s", lambda: n + 1)

    @flow("wrapped")
    def wrapped(ctx, n):  # not a coroutine function, but returns the coroutine of one
        return body(ctx, n)

    rt = Runtime(divergence="fail")
    rt.register(wrapped)
    h = rt.start("wrapped", 1)
    assert (h.status, h.result) == ("completed", 2)


def _gathered_flow(calls, order=("a", "b", "c")):
    def effect(sid):
        def run():
            calls.append(sid)
            return sid

        return run

    @flow("fan")
    async def fan(ctx, _):
        out = await asyncio.gather(*(ctx.execute(s, effect(s)) for s in order))
        await ctx.execute("after", effect("after"))
        return sorted(out)

    return fan


def _fan_journal(completed):
    """A crash inside a gather of a, b, c: all started, ``completed`` finished (in that order)."""
    started = [("STEP_STARTED", {"stepId": s, "scope": "/0"}) for s in "abc"]
    done = [("STEP_COMPLETED", {"stepId": s, "result": s}) for s in completed]
    return _recorded([("EXECUTION_STARTED", {"flowId": "fan", "input": None}),
                      ("PARALLEL_STARTED", {"scope": "/0", "branches": None}), *started, *done])


@pytest.mark.parametrize("completed", ["cb", "c", "ba", "bc"])
def test_a_crash_inside_a_gather_resumes_without_refusal_whatever_finished_first(completed):
    calls = []
    rt = Runtime(journal=_fan_journal(completed), divergence="fail", on_warn=_no_warn)
    rt.register(_gathered_flow(calls))
    [h] = rt.recover()
    assert (h.status, h.result) == ("completed", ["a", "b", "c"])
    assert sorted(calls) == sorted([*(set("abc") - set(completed)), "after"])  # interrupted re-ran, done never


def test_a_reordered_gather_is_a_benign_reorder():
    calls = []
    rt = Runtime(journal=_fan_journal("bc"), divergence="fail", on_warn=_no_warn)
    rt.register(_gathered_flow(calls, order=("c", "a", "b")))
    [h] = rt.recover()
    assert h.status == "completed" and sorted(calls) == ["a", "after"]


def test_a_gather_that_drops_a_recorded_branch_is_refused_before_its_new_branch_runs():
    calls = []
    rt = Runtime(journal=_fan_journal("bc"), divergence="fail", on_warn=lambda m: None)
    rt.register(_gathered_flow(calls, order=("fresh", "a", "b")))  # `c` dropped, `fresh` added first
    [h] = rt.recover()
    assert isinstance(h.exception, FlowReplayDivergenceError) and h.exception.skipped == ("c",)
    assert calls == [] and rt.get("e1").parked_on_divergence


def test_served_work_of_a_task_not_yet_scheduled_is_asked_for_before_a_live_step_is_judged():
    # the body starts a helper task, then runs its own step: live, the helper's step `h` finished
    # first; after a crash, the body's `p` re-runs before the helper task was ever scheduled
    calls = []

    @flow("bg")
    async def bg(ctx, _):
        async def helper():
            return await ctx.execute("h", lambda: calls.append("h") or "h")

        t = asyncio.ensure_future(helper())
        p = await ctx.execute("p", lambda: calls.append("p") or "p")
        return [p, await t]

    journal = _recorded([
        ("EXECUTION_STARTED", {"flowId": "bg", "input": None}),
        ("PARALLEL_STARTED", {"scope": "/0", "branches": None}),
        ("STEP_STARTED", {"stepId": "h", "scope": "/0"}),
        ("STEP_COMPLETED", {"stepId": "h", "result": "h"}),
        ("STEP_STARTED", {"stepId": "p"}),
    ])
    rt = Runtime(journal=journal, divergence="fail", on_warn=_no_warn)
    rt.register(bg)
    [h] = rt.recover()
    assert (h.status, h.result) == ("completed", ["p", "h"]) and calls == ["p"]


def test_a_park_waits_for_the_steps_in_flight_and_nothing_is_appended_after_it():
    release = threading.Event()

    def slow():
        release.wait(10)
        return "slow"

    @flow("gate")
    async def gate(ctx, _):
        async def wait_then_approve():
            await asyncio.sleep(0.05)  # the slow step is in flight by now
            release.set()
            return await ctx.suspend("approval")

        slow_result, answer = await asyncio.gather(ctx.execute("slow", slow), wait_then_approve())
        return [slow_result, answer]

    rt = Runtime(divergence="fail", on_warn=_no_warn)
    rt.register(gate)
    assert rt.start("gate", execution_id="e1").gate == "approval"
    types = [e.type for e in rt.get("e1").events]
    assert types[-2:] == ["STEP_COMPLETED", "EXECUTION_SUSPENDED"]  # the slow step recorded first
    h = rt.resume("e1", "yes", gate="approval")
    assert (h.status, h.result) == ("completed", ["slow", "yes"])


def test_live_work_a_body_did_not_await_is_recorded_before_its_outcome():
    done, running, returned = [], threading.Event(), threading.Event()

    def bg():
        running.set()
        assert returned.wait(10), "the body never returned"  # still in flight when the body returns
        done.append(1)
        return 1

    @flow("forgetful")
    async def forgetful(ctx, _):
        asyncio.ensure_future(ctx.execute("bg", bg))
        while not running.is_set():  # the step is in flight (how soon is the loop's and the writer's business)
            await asyncio.sleep(0.001)
        returned.set()  # no await after this: the body has returned before `bg` can be recorded
        return "early"

    rt = Runtime(divergence="fail", on_warn=_no_warn)
    rt.register(forgetful)
    assert rt.start("forgetful", execution_id="e1").result == "early"
    assert [e.type for e in rt.get("e1").events][-2:] == ["PARALLEL_COMPLETED", "EXECUTION_COMPLETED"]
    assert rt.get("e1").frames["bg"].status == "completed" and done == [1]


def test_a_failing_gathered_step_fails_the_flow_after_its_sibling_is_recorded():
    ok_running = threading.Event()

    def boom():
        # fail only once the sibling is in flight: which of the two starts first is the loop's business
        assert ok_running.wait(10), "the sibling step never started"
        raise ValueError("nope")

    def ok():
        ok_running.set()
        time.sleep(0.05)
        return 1

    @flow("fails")
    async def fails(ctx, _):
        await asyncio.gather(ctx.execute("boom", boom), ctx.execute("ok", ok))

    rt = Runtime(divergence="fail", on_warn=_no_warn)
    rt.register(fails)
    h = rt.start("fails", execution_id="e1")
    assert h.status == "failed" and "nope" in h.error["message"]
    view = rt.get("e1")
    assert view.frames["ok"].status == "completed" and view.events[-1].type == "EXECUTION_FAILED"


def test_ctx_parallel_in_an_async_flow_runs_branches_concurrently():
    started = []

    both = asyncio.Event()

    async def branch(name):
        started.append(name)
        if len(started) == 2:
            both.set()
        # each branch finishes only once the other has started: run one after the other, the first
        # would wait here for ever (TimeoutError), however fast or slow the machine is
        await asyncio.wait_for(both.wait(), 10)
        return name

    @flow("par")
    async def par(ctx, _):
        return await ctx.parallel([("a", branch, "a"), lambda: ctx.execute("b", branch, "b")])

    rt = Runtime(divergence="fail", on_warn=_no_warn)
    rt.register(par)
    assert rt.start("par").result == ["a", "b"]
    assert sorted(started) == ["a", "b"]


def test_continue_as_new_from_an_async_flow():
    @flow("loop")
    async def loop(ctx, n):
        await ctx.execute("tick", lambda: n)
        if n < 2:
            await ctx.continue_as_new(n + 1)
        return n

    rt = Runtime(divergence="fail", on_warn=_no_warn)
    rt.register(loop)
    h = rt.start("loop", 0, execution_id="e1")
    assert (h.execution_id, h.status, h.result) == ("e1~2", "completed", 2)


def test_a_context_call_from_a_worker_thread_is_refused():
    @flow("thread")
    async def thread(ctx, _):
        return await asyncio.to_thread(lambda: asyncio.run(ctx.emit("x")))  # another thread, another loop

    rt = Runtime(divergence="fail")
    rt.register(thread)
    h = rt.start("thread")
    assert h.status == "failed" and "outside its flow body" in h.error["message"]
