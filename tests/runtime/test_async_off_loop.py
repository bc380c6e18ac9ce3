"""An async flow's journal writes never block the event loop it runs on (DESIGN §9): the drive's
appends and lease admissions go through its ``RunWriter`` thread, the async forms' reads, claims and
bootstrap appends through ``asyncio.to_thread``; in the order a synchronous run makes them, still
fenced, and a live step body starts only once its ``STEP_STARTED`` is in the store."""

from __future__ import annotations

import asyncio
import random
import sqlite3
import threading
import time

import pytest

from loom_runtime import FencingError, Runtime, flow, step
from loom_runtime.journal import NewEvent
from loom_runtime.journal.sqlite import SqliteJournal
from loom_runtime.sandbox import Sandbox

H = "sha256:" + "5" * 64


def hook_appends(store, hook) -> list[int]:
    """Run ``hook(events)`` in the appending thread before each append of ``store``; return the
    list of the threads that appended (filled as they do)."""
    threads: list[int] = []
    original = store.append

    def append(execution_id, events, **kw):
        threads.append(threading.get_ident())
        hook(list(events))
        return original(execution_id, events, **kw)

    store.append = append  # an instance attribute: Leases.append calls it
    return threads


def starts(events, step_id) -> bool:
    return any(e.type == "STEP_STARTED" and e.payload["stepId"] == step_id for e in events)


async def until(event: threading.Event, what: str, timeout: float = 30.0) -> None:
    """Wait (without blocking the loop) until another thread sets ``event``."""
    deadline = time.monotonic() + timeout
    while not event.is_set():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.002)


def hold_the_start_of(store, step_id: str) -> tuple[threading.Event, threading.Event, list[int]]:
    """Hold the append of ``step_id``'s STEP_STARTED in the appending thread until ``release`` is
    set; ``held`` is set when it is held. Made on the loop's thread, it would hold the loop, and the
    coroutine that sets ``release`` could never run: the wait then fails after 30 s."""
    held, release = threading.Event(), threading.Event()

    def hold(events):
        if starts(events, step_id):
            held.set()
            assert release.wait(30), "the append held the event loop: the coroutine releasing it never ran"

    return held, release, hook_appends(store, hold)


def recording_step(ran: list[str]):
    async def step(name):
        ran.append(name)
        return name

    return step


def test_another_coroutine_runs_while_an_append_is_held(journal_factory):
    store = journal_factory()
    held, release, threads = hold_the_start_of(store, "b")
    ran: list[str] = []
    step = recording_step(ran)

    @flow("f", code_fingerprint=H)
    async def f(ctx, _):
        await ctx.execute("a", step, "a")
        return await ctx.execute("b", step, "b")

    rt = Runtime(journal=store)
    rt.register(f)

    async def main():
        drive = asyncio.ensure_future(rt.start_async("f", None, execution_id="e"))
        await until(held, "the append of `b`'s STEP_STARTED")
        # this coroutine runs while that append is in progress; `b`'s body waits for it to land
        assert not starts(store.read("e"), "b") and ran == ["a"]
        await asyncio.sleep(0.05)  # the loop keeps serving everyone else meanwhile
        assert ran == ["a"] and not drive.done()
        release.set()
        return await drive

    handle = asyncio.run(main())
    assert (handle.status, handle.result) == ("completed", "b") and ran == ["a", "b"]
    assert threads and threading.get_ident() not in threads  # no append on the loop's thread
    rt.close()


def test_another_coroutine_runs_while_an_append_waits_for_a_sqlite_write_lock(tmp_path):
    path = tmp_path / "journal.sqlite3"
    # the busy timeout bounds the failing case: an append made on the loop's thread would wait for
    # the lock there, the coroutine that commits the lock holder could not run, and it would fail
    store = SqliteJournal(path, timeout=20.0)
    blocker = sqlite3.connect(path, isolation_level=None, timeout=20.0)  # another process's connection
    entered = threading.Event()
    hook_appends(store, lambda _events: blocker.in_transaction and entered.set())

    async def take_the_write_lock():
        blocker.execute("BEGIN IMMEDIATE")  # held open: every other writer waits for it
        return "locked"

    @flow("f", code_fingerprint=H)
    async def f(ctx, _):
        await ctx.execute("lock", take_the_write_lock)  # its STEP_COMPLETED waits for the lock
        return "done"

    rt = Runtime(journal=store)
    rt.register(f)

    async def main():
        drive = asyncio.ensure_future(rt.start_async("f", None, execution_id="e"))
        await until(entered, "an append behind the write lock")
        await asyncio.sleep(0.05)
        assert not drive.done()  # still waiting for the lock, and this coroutine runs meanwhile
        landed = [e.type for e in SqliteJournal(path, read_only=True).read("e")]
        blocker.execute("COMMIT")
        return await drive, landed

    handle, landed = asyncio.run(main())
    assert (handle.status, handle.result) == ("completed", "done")
    assert landed == ["EXECUTION_STARTED", "STEP_STARTED"]  # the completion had not landed while we ran
    assert [e.type for e in rt.get("e").events][-2:] == ["STEP_COMPLETED", "EXECUTION_COMPLETED"]
    blocker.close()
    rt.close()


def test_a_foreign_append_while_a_write_is_held_fences_it_and_the_step_never_runs(journal_factory):
    store = journal_factory()
    held, release, _threads = hold_the_start_of(store, "b")
    ran: list[str] = []
    step = recording_step(ran)

    @flow("f", code_fingerprint=H)
    async def f(ctx, _):
        await ctx.execute("a", step, "a")
        await ctx.execute("b", step, "b")
        return await ctx.execute("c", step, "c")

    rt = Runtime(journal=store)
    rt.register(f)
    other = journal_factory()  # another writer's handle on the same journal

    async def main():
        drive = asyncio.ensure_future(rt.start_async("f", None, execution_id="e"))
        await until(held, "the append of `b`'s STEP_STARTED")
        last = other.summary("e").last_seq
        other.append("e", [NewEvent("EVENT_EMITTED", {"name": "foreign", "payload": None})], expected_seq=last)
        release.set()
        with pytest.raises(FencingError):
            await drive

    asyncio.run(main())
    assert ran == ["a"]  # `b` never ran: its STEP_STARTED was refused, and nothing after it was written
    assert [e.type for e in store.read("e")][-1] == "EVENT_EMITTED"
    rt.close()


def test_writes_reach_the_store_in_the_runs_order_and_each_step_starts_after_its_start_landed(journal_factory):
    store = journal_factory()
    rng = random.Random(7)
    hook_appends(store, lambda _events: time.sleep(rng.random() * 0.003))  # a store of uneven speed
    order: list[str] = []

    async def step(eid, name):
        assert starts(store.read(eid), name), f"step `{name}` started before its STEP_STARTED landed"
        order.append(name)
        await asyncio.sleep(rng.random() * 0.002)
        return name

    @flow("g", code_fingerprint=H)
    async def g(ctx, _):
        eid = ctx.execution_id
        first = await asyncio.gather(*(ctx.execute(f"p#{i}", step, eid, f"p#{i}") for i in range(6)))
        await ctx.emit("half", len(first))
        second = await ctx.parallel([(f"q#{i}", step, eid, f"q#{i}") for i in range(4)])
        decided = await ctx.decide("pick", lambda: "yes")
        return [first, second, decided]

    rt = Runtime(journal=store)
    rt.register(g)

    async def main():
        return [await rt.start_async("g", None, execution_id=f"g{i}") for i in range(2)]

    for h in asyncio.run(main()):
        assert h.status == "completed" and h.result[2] == "yes"
        events = store.read(h.execution_id)
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        for name in [f"p#{i}" for i in range(6)] + [f"q#{i}" for i in range(4)]:
            started = next(e.seq for e in events if e.type == "STEP_STARTED" and e.payload["stepId"] == name)
            done = next(e.seq for e in events if e.type == "STEP_COMPLETED" and e.payload["stepId"] == name)
            assert started < done
        # the journal is one a re-run of the same body serves entirely: nothing runs, nothing diverges
        r = Sandbox(rt.registry.current("g")).replay(h.execution_id, events)
        assert r.kind == "reached", r.message
    names = [f"p#{i}" for i in range(6)] + [f"q#{i}" for i in range(4)]
    assert sorted(order) == sorted(names * 2)  # every step ran once per execution
    rt.close()


def test_a_sibling_whose_start_is_still_being_written_when_the_body_fails_is_run_and_recorded(journal_factory):
    """The body ends (a gathered step failed) while the STEP_STARTED of its sibling is still on its
    way to the store: the sibling counts as in flight from that append on, so the drive waits for
    it, runs it and records it before the failure (what a synchronous append always gave)."""
    store = journal_factory()
    writing_ok, unwound = threading.Event(), threading.Event()

    def hold_ok(events):
        if starts(events, "ok"):
            writing_ok.set()
            assert unwound.wait(30), "the body never unwound"  # the append lands after that

    hook_appends(store, hold_ok)

    def boom():  # fails once its sibling's STEP_STARTED is on its way
        assert writing_ok.wait(30)
        raise ValueError("nope")

    @flow("fails", code_fingerprint=H)
    async def fails(ctx, _):
        try:
            await asyncio.gather(ctx.execute("boom", boom), ctx.execute("ok", lambda: 1))
        finally:
            unwound.set()  # the body is unwinding (the gather raised boom's failure)

    rt = Runtime(journal=store, on_warn=lambda _m: None)
    rt.register(fails)
    h = asyncio.run(rt.start_async("fails", execution_id="e1"))
    assert h.status == "failed" and "nope" in h.error["message"]
    view = rt.get("e1")
    assert view.frames["ok"].status == "completed" and view.events[-1].type == "EXECUTION_FAILED"
    rt.close()


def test_a_body_that_fails_while_its_park_is_on_its_way_ends_parked(journal_factory):
    """A gathered task parks; the park's append is still on its way to the store when another task
    of the body raises: the execution ends parked (the park was appended), never failed after it."""
    store = journal_factory()
    writing_park, unwound = threading.Event(), threading.Event()

    def hold_park(events):
        if events[-1].type == "EXECUTION_SUSPENDED":
            writing_park.set()
            assert unwound.wait(30), "the body never unwound"  # the park lands after that

    hook_appends(store, hold_park)

    async def fail_once_the_park_is_written():
        await until(writing_park, "the park's append")
        raise ValueError("late")

    @flow("parks", code_fingerprint=H)
    async def parks(ctx, _):
        try:
            await asyncio.gather(ctx.suspend("approval"), fail_once_the_park_is_written())
        finally:
            unwound.set()  # the body is unwinding with `late`

    rt = Runtime(journal=store, on_warn=lambda _m: None)
    rt.register(parks)
    h = asyncio.run(rt.start_async("parks", execution_id="e1"))
    assert (h.status, h.gate) == ("suspended", "approval")
    assert [e.type for e in store.read("e1")][-1] == "EXECUTION_SUSPENDED"
    rt.close()


def hold_the_timer_clock(store) -> tuple[threading.Event, threading.Event, list[float], list[int]]:
    """Make ``store`` a store with a shared clock (``Runtime.timer_clock`` reads it, as it reads
    PostgreSQL's server clock: the real one is called through when the store has it) whose every
    read is held until ``release`` is set; ``held`` is set when one is held. Returns the values read
    and the threads that read them."""
    held, release = threading.Event(), threading.Event()
    values: list[float] = []
    threads: list[int] = []
    real = getattr(store, "shared_now", None)

    def shared_now():
        threads.append(threading.get_ident())
        held.set()
        assert release.wait(30), "the clock read held the event loop: the coroutine releasing it never ran"
        values.append(real() if real is not None else 1_000_000.0)
        return values[-1]

    store.shared_now = shared_now  # an instance attribute: Runtime.timer_clock finds it
    return held, release, values, threads


async def released_once_the_loop_ran(drive, held, release, store, execution_id):
    """Wait for the held clock read, check the loop runs meanwhile and nothing was written, release."""
    await until(held, "a read of the timer clock")
    await asyncio.sleep(0.05)  # the loop keeps serving everyone else meanwhile
    assert not drive.done() and not any(e.type == "TIMER_SET" for e in store.read(execution_id))
    release.set()
    return await drive


def test_an_async_sleep_reads_the_timer_clock_off_the_loop(journal_factory):
    """``fireAt`` of an async flow's timer is counted from the store's shared clock (on PostgreSQL a
    round trip to the server): read on the loop's thread, it stopped every coroutine meanwhile."""
    store = journal_factory()
    held, release, values, threads = hold_the_timer_clock(store)
    ran: list[str] = []
    step = recording_step(ran)

    @flow("naps", code_fingerprint=H)
    async def naps(ctx, _):
        await ctx.execute("a", step, "a")
        await ctx.sleep("nap", 60)
        return "woke"

    rt = Runtime(journal=store)
    rt.register(naps)

    async def main():
        drive = asyncio.ensure_future(rt.start_async("naps", None, execution_id="e"))
        return await released_once_the_loop_ran(drive, held, release, store, "e")

    handle = asyncio.run(main())
    assert handle.status == "suspended" and ran == ["a"]
    timer = next(e for e in store.read("e") if e.type == "TIMER_SET")
    assert timer.payload == {"timerId": "nap", "fireAt": values[0] + 60}  # counted from the clock read
    assert threads and threading.get_ident() not in threads
    rt.close()


def test_an_async_retry_reads_the_timer_clock_off_the_loop(journal_factory):
    store = journal_factory()
    held, release, values, threads = hold_the_timer_clock(store)
    calls: list[int] = []

    @step(max_attempts=2, backoff=30)
    async def flaky():
        calls.append(1)
        raise ValueError("first attempt fails")

    @flow("retries", code_fingerprint=H)
    async def retries(ctx, _):
        return await ctx.execute("flaky", flaky)

    rt = Runtime(journal=store)
    rt.register(retries)

    async def main():
        drive = asyncio.ensure_future(rt.start_async("retries", None, execution_id="e"))
        return await released_once_the_loop_ran(drive, held, release, store, "e")

    handle = asyncio.run(main())
    assert handle.status == "suspended" and calls == [1]
    failed = next(e for e in store.read("e") if e.type == "STEP_FAILED")
    timer = next(e for e in store.read("e") if e.type == "TIMER_SET")
    assert failed.payload["retryAt"] == timer.payload["fireAt"] == values[0] + 30
    assert threads and threading.get_ident() not in threads
    rt.close()


@pytest.mark.parametrize("kind", ["async", "sync"])
def test_a_failed_timer_clock_read_stops_the_run_as_a_refused_append_would(journal_factory, kind):
    """The server's clock unreachable when a timer is set: the run stops as after a refused append
    (the execution stays running, a later attempt sets the timer), even if the body catches the
    error; it never goes on without its timer (the sleep silently skipped)."""
    from loom_runtime import JournalError

    store = journal_factory()

    def unreachable():
        raise JournalError("reading the server's clock failed (server closed the connection)")

    store.shared_now = unreachable
    ran: list[str] = []
    step_fn = recording_step(ran) if kind == "async" else (lambda name: ran.append(name))

    if kind == "async":
        @flow("naps", code_fingerprint=H)
        async def naps(ctx, _):
            try:
                await ctx.sleep("nap", 60)
            except Exception:  # noqa: BLE001 - a body that swallows everything
                pass
            return await ctx.execute("after", step_fn, "after")
    else:
        @flow("naps", code_fingerprint=H)
        def naps(ctx, _):
            try:
                ctx.sleep("nap", 60)
            except Exception:  # noqa: BLE001 - a body that swallows everything
                pass
            return ctx.execute("after", step_fn, "after")

    rt = Runtime(journal=store)
    rt.register(naps)
    with pytest.raises(JournalError, match="server's clock"):
        if kind == "async":
            asyncio.run(rt.start_async("naps", None, execution_id="e"))
        else:
            rt.start("naps", None, execution_id="e")
    assert ran == [] and [e.type for e in store.read("e")] == ["EXECUTION_STARTED"]
    rt.close()
