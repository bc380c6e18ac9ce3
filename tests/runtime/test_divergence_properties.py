"""Properties of D3 over generated flows (hypothesis).

1. An unchanged body never diverges: run a generated flow to completion under ``fail``, then
   restore every crash point (each prefix of its journal) into a fresh journal and drive it again:
   no refusal, completed steps are never re-run, an interrupted step is re-run.
2. Dropping one recorded step from the body is always caught under ``fail`` before the next live
   step's effect (or at completion), and the dropped step is named.
3. Replacing one branch of a scope of explicit branches ``ctx.parallel([(step_id, fn), …])`` by a
   new one is caught before the new branch's effect runs, and the dropped step is named.
4. Every prefix of an unchanged body's journal replays in the sandbox (``replay_history``) to its
   end or its resume point, and no step runs during any of those replays.

Each property runs over sync flows and over the same programs written as ``async def`` flows, whose
scopes are ``asyncio.gather`` calls (of helper coroutines for function branches, of ``ctx.execute``
calls for explicit ones) and whose steps are plain functions run off the event loop, so live steps
of one scope really run at once and complete in any order (DESIGN §9: D3 exactly as for sync flows).
"""

from __future__ import annotations

import asyncio
import itertools

import pytest

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from loom_runtime import FlowReplayDivergenceError, MemoryJournal, Runtime, flow
from loom_runtime.journal import NewEvent

OP = st.one_of(
    st.tuples(st.just("step")),
    st.tuples(st.just("decide"), st.integers(0, 2)),
    st.tuples(st.just("parallel"), st.lists(st.integers(0, 2), min_size=1, max_size=3)),
    st.tuples(st.just("explicit"), st.integers(1, 3)),
    st.tuples(st.just("suspend")),
    st.tuples(st.just("emit")),
)


def _name(program_shape):
    """Give every step, decision, gate and emit a unique id."""
    counter = itertools.count()
    out = []
    for op in program_shape:
        n = next(counter)
        if op[0] == "step":
            out.append(("step", f"s{n}"))
        elif op[0] == "decide":
            out.append(("decide", f"d{n}", [f"d{n}#{i}" for i in range(op[1])]))
        elif op[0] == "parallel":
            out.append(("parallel", [[f"p{n}:{b}#{i}" for i in range(k)] for b, k in enumerate(op[1])]))
        elif op[0] == "explicit":
            out.append(("explicit", [f"x{n}:{b}" for b in range(op[1])]))
        elif op[0] == "suspend":
            out.append(("suspend", f"g{n}"))
        else:
            out.append(("emit", f"e{n}"))
    return out


KINDS = pytest.mark.parametrize("kind", ["sync", "async"])


def make_flow(program, calls, kind="sync"):
    return (_sync_flow if kind == "sync" else _async_flow)(program, calls)


def _async_flow(program, calls):
    def effect(sid):
        def run():
            calls.append(sid)
            return sid

        return run

    async def run_steps(ctx, ids):
        return [await ctx.execute(s, effect(s)) for s in ids]

    @flow("prop")
    async def body(ctx, _):
        for op in program:
            if op[0] == "step":
                await ctx.execute(op[1], effect(op[1]))
            elif op[0] == "decide":
                await ctx.decide(op[1], lambda ids=op[2]: run_steps(ctx, ids))
            elif op[0] == "parallel":
                await asyncio.gather(*(run_steps(ctx, b) for b in op[1]))
            elif op[0] == "explicit":
                await asyncio.gather(*(ctx.execute(s, effect(s)) for s in op[1]))
            elif op[0] == "suspend":
                await ctx.suspend(op[1])
            else:
                await ctx.emit(op[1], None)
        return "done"

    return body


def _sync_flow(program, calls):
    def effect(sid):
        def run():
            calls.append(sid)
            return sid

        return run

    def run_steps(ctx, ids):
        return [ctx.execute(s, effect(s)) for s in ids]

    @flow("prop")
    def body(ctx, _):
        for op in program:
            if op[0] == "step":
                ctx.execute(op[1], effect(op[1]))
            elif op[0] == "decide":
                ctx.decide(op[1], lambda ids=op[2]: run_steps(ctx, ids))
            elif op[0] == "parallel":
                ctx.parallel([lambda ids=b: run_steps(ctx, ids) for b in op[1]])
            elif op[0] == "explicit":
                ctx.parallel([(s, effect(s)) for s in op[1]])
            elif op[0] == "suspend":
                ctx.suspend(op[1])
            else:
                ctx.emit(op[1], None)
        return "done"

    return body


def drive(rt, eid):
    h = None
    for _ in range(100):
        status = rt.get(eid).status
        if status == "completed":
            return h
        h = rt.resume(eid) if status == "suspended" else rt.recover()[0]
    raise AssertionError("did not complete")


def _no_warn(message):
    raise AssertionError(f"unexpected divergence report: {message}")


@KINDS
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(OP, min_size=1, max_size=8))
def test_an_unchanged_body_never_diverges_at_any_crash_point(kind, shape):
    program = _name(shape)
    calls: list[str] = []
    rt = Runtime(divergence="fail", on_warn=_no_warn)
    rt.register(make_flow(program, calls, kind))
    rt.start("prop", execution_id="e1")
    drive(rt, "e1")
    full = rt.get("e1").events
    assert sorted(calls) == sorted(set(calls))  # every effect exactly once
    for cut in range(1, len(full)):
        journal = MemoryJournal()
        journal.create("e1", NewEvent(full[0].type, full[0].payload))
        for e in full[1:cut]:
            journal.append("e1", [NewEvent(e.type, e.payload)], expected_seq=e.seq - 1)
        crashed = Runtime(journal=journal, divergence="fail", on_warn=_no_warn)
        calls.clear()
        crashed.register(make_flow(program, calls, kind))
        drive(crashed, "e1")
        prefix = full[:cut]
        done = {e.payload["stepId"] for e in prefix if e.type == "STEP_COMPLETED"}
        interrupted = {e.payload["stepId"] for e in prefix if e.type == "STEP_STARTED"} - done
        assert not done & set(calls), f"cut {cut}: completed steps re-ran"
        assert interrupted <= set(calls), f"cut {cut}: an interrupted step was not re-run"
        assert crashed.get("e1").result == "done"


@KINDS
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.lists(OP, min_size=1, max_size=8), st.data())
def test_dropping_a_recorded_top_level_step_is_always_caught(kind, shape, data):
    program = _name(shape) + [("suspend", "final"), ("step", "tail")]
    calls: list[str] = []
    rt = Runtime(divergence="fail")
    rt.register(make_flow(program, calls, kind))
    rt.start("prop", execution_id="e1")
    while rt.get("e1").gate != "final":
        rt.resume("e1")
    steps = [i for i, op in enumerate(program) if op[0] == "step" and op[1] != "tail"]
    assume(steps)  # a program without a top-level step has nothing to drop: draw another
    drop = data.draw(st.sampled_from(steps))
    edited = program[:drop] + program[drop + 1 :]
    calls.clear()
    refusing = Runtime(journal=rt.journal, divergence="fail", on_warn=lambda m: None)
    refusing.register(make_flow(edited, calls, kind))
    try:
        refusing.resume("e1")
    except FlowReplayDivergenceError as err:
        assert program[drop][1] in err.skipped
        assert calls == []  # every recorded step was served; nothing ran live before the refusal
    else:
        raise AssertionError(f"dropping {program[drop][1]} was not caught")


@KINDS
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.lists(OP, min_size=1, max_size=8), st.data())
def test_dropping_a_recorded_explicit_branch_is_always_caught(kind, shape, data):
    program = _name(shape) + [("suspend", "final"), ("step", "tail")]
    calls: list[str] = []
    rt = Runtime(divergence="fail")
    rt.register(make_flow(program, calls, kind))
    rt.start("prop", execution_id="e1")
    while rt.get("e1").gate != "final":
        rt.resume("e1")
    branches = [(i, s) for i, op in enumerate(program) if op[0] == "explicit" for s in op[1]]
    assume(branches)
    at, dropped = data.draw(st.sampled_from(branches))
    # a new branch takes the dropped one's place: it must not run before the refusal (the scope
    # names its steps up front, so unlike a function branch it is judged before its first live step)
    kept = [s for s in program[at][1] if s != dropped] + ["fresh"]
    edited = program[:at] + [("explicit", kept)] + program[at + 1 :]
    calls.clear()
    refusing = Runtime(journal=rt.journal, divergence="fail", on_warn=lambda m: None)
    refusing.register(make_flow(edited, calls, kind))
    try:
        refusing.resume("e1")
    except FlowReplayDivergenceError as err:
        assert dropped in err.skipped
        assert calls == []  # `fresh` did not run: the refusal came before the scope's first live step
    else:
        raise AssertionError(f"dropping branch {dropped} was not caught")


@KINDS
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(OP, min_size=1, max_size=8))
def test_every_prefix_of_an_unchanged_bodys_journal_replays_without_running_anything(kind, shape):
    from loom_runtime.history import History, replay_history

    program = _name(shape)
    calls: list[str] = []
    rt = Runtime(divergence="fail", on_warn=_no_warn)
    rt.register(make_flow(program, calls, kind))
    rt.start("prop", execution_id="e1")
    drive(rt, "e1")
    full = rt.get("e1").events
    replayed: list[str] = []
    code = make_flow(program, replayed, kind)
    for cut in range(1, len(full) + 1):
        result = replay_history(History("e1", tuple(full[:cut])), code)
        # a crash inside a decider (its step recorded, its decision not) stops the sandbox at the
        # decider it may not run: reported as live work, never as a divergence or a mismatch
        stopped_at_decider = result.kind == "live-work" and "decision `" in result.message
        assert result.ok or stopped_at_decider, f"cut {cut}: {result.kind}: {result.message}"
    assert replayed == []  # the sandbox served every recorded step and ran none
