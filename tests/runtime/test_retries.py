"""Step retries (DESIGN §9): ``@step(max_attempts=…, backoff=…)``; every failed attempt journaled with
its number, the wait a durable timer, the last failure the step's ``STEP_FAILED``."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from loom_runtime import (
    Backoff,
    FlowDefinitionError,
    FlowUsageError,
    Runtime,
    StepFailedError,
    flow,
    non_retryable,
    step,
)
from loom_runtime.history import read_history, replay_history
from loom_runtime.journal import NewEvent

ROOT = Path(__file__).resolve().parents[2]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _flaky(fail_times, calls, exc=ConnectionError):
    def charge(order):
        calls.append(order)
        if len(calls) <= fail_times:
            raise exc(f"attempt {len(calls)} failed")
        return f"charged:{order}"

    return charge


def _drain(rt, clock, eid="e1", limit=20):
    """Fire retry timers as they fall due (the clock jumps to each) until the execution ends."""
    for _ in range(limit):
        view = rt.get(eid)
        if view.status != "suspended":
            return view
        clock.now = max(e.payload["fireAt"] for e in view.events if e.type == "TIMER_SET")
        rt.tick()
    raise AssertionError("did not finish")


def _events(rt, eid="e1"):
    return [(e.type, {k: v for k, v in e.payload.items() if k in ("stepId", "attempt", "retryAt", "timerId")})
            for e in rt.get(eid).events]


def test_fails_twice_then_succeeds_under_max_attempts_3():
    clock, calls = Clock(), []
    charge = step(max_attempts=3, backoff=Backoff(initial=2, multiplier=3, maximum=100))(_flaky(2, calls))

    @flow("pay")
    def pay(ctx, order):
        return ctx.execute("charge", charge, order)

    rt = Runtime(clock=clock, divergence="fail")
    rt.register(pay)
    h = rt.start("pay", "o1", execution_id="e1")
    assert h.gate == "__loom_timer__:__loom_retry__:charge#1"
    view = _drain(rt, clock)
    assert (view.status, view.result) == ("completed", "charged:o1") and calls == ["o1"] * 3
    assert _events(rt) == [
        ("EXECUTION_STARTED", {}),
        ("STEP_STARTED", {"stepId": "charge"}),
        ("STEP_FAILED", {"stepId": "charge", "attempt": 1, "retryAt": 1002.0}),
        ("TIMER_SET", {"timerId": "__loom_retry__:charge#1"}),
        ("EXECUTION_SUSPENDED", {}),
        ("EXECUTION_RESUMED", {}),
        ("STEP_STARTED", {"stepId": "charge", "attempt": 2}),
        ("STEP_FAILED", {"stepId": "charge", "attempt": 2, "retryAt": 1002.0 + 6.0}),  # 2 s, then 2*3
        ("TIMER_SET", {"timerId": "__loom_retry__:charge#2"}),
        ("EXECUTION_SUSPENDED", {}),
        ("EXECUTION_RESUMED", {}),
        ("STEP_STARTED", {"stepId": "charge", "attempt": 3}),
        ("STEP_COMPLETED", {"stepId": "charge"}),
        ("EXECUTION_COMPLETED", {}),
    ]
    # the journal replays: every attempt is served, nothing runs again
    assert replay_history(read_history(rt.journal, "e1"), pay).ok and calls == ["o1"] * 3


def test_fails_with_the_steps_error_under_max_attempts_2():
    clock, calls = Clock(), []
    charge = step(max_attempts=2, backoff=1)(_flaky(99, calls))

    @flow("pay")
    def pay(ctx, order):
        try:
            ctx.execute("charge", charge, order)
        except StepFailedError as err:
            ctx.execute("note", lambda: [err.error_type, err.attempts])
            raise

    rt = Runtime(clock=clock, divergence="fail")
    rt.register(pay)
    rt.start("pay", "o1", execution_id="e1")
    view = _drain(rt, clock)
    assert view.status == "failed" and calls == ["o1", "o1"]
    assert view.error["type"] == "loom_runtime.errors.StepFailedError"
    assert "(after 2 attempts): ConnectionError: attempt 2 failed" in view.error["message"]
    assert view.frames["note"].result == ["ConnectionError", 2]
    last = [e for e in view.events if e.type == "STEP_FAILED"][-1]
    assert dict(last.payload) == {"stepId": "charge", "attempt": 2,
                                  "error": {"type": "ConnectionError", "message": "attempt 2 failed"}}


def test_the_backoff_grows_exponentially_to_its_cap():
    b = Backoff(initial=1, multiplier=10, maximum=5)
    assert [b.delay(n) for n in (1, 2, 3)] == [1.0, 5.0, 5.0]
    with pytest.raises(FlowDefinitionError, match="multiplier"):
        Backoff(multiplier=0.5)
    with pytest.raises(FlowDefinitionError, match="max_attempts"):
        step(max_attempts=0)


def test_a_non_retryable_failure_fails_at_once():
    @non_retryable
    class Declined(Exception):
        pass

    clock, calls, other = Clock(), [], []
    charge = step(max_attempts=5)(_flaky(99, calls, exc=Declined))
    parse = step(max_attempts=5, non_retryable=[ValueError])(_flaky(99, other, exc=ValueError))

    @flow("pay")
    def pay(ctx, _):
        for sid, fn in (("charge", charge), ("parse", parse)):
            try:
                ctx.execute(sid, fn, sid)
            except StepFailedError:
                pass
        return "done"

    rt = Runtime(clock=clock, divergence="fail")
    rt.register(pay)
    assert rt.start("pay", execution_id="e1").result == "done"
    assert calls == ["charge"] and other == ["parse"]  # one attempt each, no timer
    assert not [e for e in rt.get("e1").events if e.type == "TIMER_SET"]


def test_a_failure_recorded_before_retries_existed_is_served_not_retried():
    # an old journal: the step failed once (no attempt, no retryAt); the code now allows retries
    calls = []
    charge = step(max_attempts=3)(_flaky(0, calls))

    @flow("pay")
    def pay(ctx, order):
        try:
            return ctx.execute("charge", charge, order)
        except StepFailedError as err:
            return f"gave up: {err.error_message}"

    rt = Runtime(divergence="fail")
    v = rt.register(pay)
    rt.journal.create("e1", NewEvent("EXECUTION_STARTED", {"flowId": "pay", "flowHash": v.flow_hash, "input": "o1"}))
    rt.journal.append("e1", [NewEvent("STEP_STARTED", {"stepId": "charge"}),
                             NewEvent("STEP_FAILED", {"stepId": "charge", "error": {"type": "X", "message": "old"}})],
                      expected_seq=1)
    [h] = rt.recover()
    assert (h.status, h.result) == ("completed", "gave up: old") and calls == []


def test_ctx_sleep_refuses_the_retry_timer_prefix():
    @flow("nap")
    def nap(ctx, _):
        ctx.sleep("__loom_retry__:charge#1", 1)

    rt = Runtime()
    rt.register(nap)
    h = rt.start("nap")
    assert h.status == "failed" and "reserved" in h.error["message"]
    assert isinstance(h.exception, FlowUsageError)


def test_async_flow_retries_a_gathered_step_while_its_sibling_is_recorded():
    clock, calls = Clock(), []
    steady_running, flaky_failed = threading.Event(), threading.Event()

    @step(max_attempts=2, backoff=5)
    async def flaky():
        calls.append("flaky")
        while not steady_running.is_set():  # which of the two starts first is the loop's business
            await asyncio.sleep(0.001)
        if len(calls) == 1:
            flaky_failed.set()
            raise TimeoutError("slow upstream")
        return "ok"

    def steady():
        steady_running.set()
        # still running when `flaky` fails (it latches the park in that same loop turn): recorded
        # before the park
        assert flaky_failed.wait(10), "flaky never failed"
        return "steady"

    @flow("both")
    async def both(ctx, _):
        return await asyncio.gather(ctx.execute("flaky", flaky), ctx.execute("steady", steady))

    rt = Runtime(clock=clock, divergence="fail")
    rt.register(both)
    assert rt.start("both", execution_id="e1").gate == "__loom_timer__:__loom_retry__:flaky#1"
    assert rt.get("e1").frames["steady"].status == "completed"
    view = _drain(rt, clock)
    assert (view.status, view.result) == ("completed", ["ok", "steady"]) and calls == ["flaky", "flaky"]


CHILD = textwrap.dedent(
    """
    import os, sys, time
    from loom_runtime import Runtime, flow, step

    journal, effects, mode = sys.argv[1:4]

    @step(max_attempts=3, backoff=0.2)
    def charge():
        with open(effects, "a") as fh:
            fh.write(f"{os.getpid()}\\n")
        raise ConnectionError("down")

    @flow("pay")
    def pay(ctx, _):
        return ctx.execute("charge", charge)

    rt = Runtime(journal=journal, lease_ttl=1.0)
    rt.register(pay)
    if mode == "start":
        rt.start("pay", execution_id="e1")  # attempt 1 fails and parks on its retry timer
        print("parked", flush=True)
        time.sleep(120)  # the test kills this process while it waits between attempts
    deadline = time.monotonic() + 60
    while rt.get("e1").status == "suspended" and time.monotonic() < deadline:
        rt.tick()
        time.sleep(0.05)
    print(rt.get("e1").status, flush=True)
    """
)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX SIGKILL")
def test_a_kill_between_attempts_continues_the_count(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    effects = tmp_path / "effects.log"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = [sys.executable, str(script), str(tmp_path / "j.sqlite3"), str(effects)]
    first = subprocess.Popen([*args, "start"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert first.stdout.readline().strip() == "parked", first.stderr.read()
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    second = subprocess.run([*args, "finish"], env=env, capture_output=True, text=True, timeout=90)
    assert second.returncode == 0, second.stderr
    assert second.stdout.strip() == "failed"
    pids = effects.read_text().split()
    assert len(pids) == 3  # attempt 1 in the killed process, attempts 2 and 3 after: not 1 + 3
    assert pids[0] == str(first.pid) and pids[1] == pids[2] != pids[0]
