"""``ctx.parallel`` with explicit branches ``(step_id, fn, *args)`` (DESIGN §3, ADR-0113 fix round 1
item 4, fix round 2 item 3): the scope names its steps up front, so a dropped branch is refused
before any of the scope's new steps runs, and the lowest recorded frame among its branches is the
floor below which earlier frames are judged at once. Real journals (memory, SQLite, PostgreSQL when
configured); "the effect was NOT called" is asserted with a list of what ran."""

from __future__ import annotations

import re

import pytest

from loom_runtime import FlowReplayDivergenceError, FlowUsageError, Runtime, flow
from loom_runtime.journal import NewEvent


def _effect(ran, name):
    def run(*args):
        ran.append(name)
        return [name, *args]

    return run


def _fan(ran, branch_ids, *, before=("before",), after=("after",)):
    """A body: steps ``before``, one scope of explicit branches, a gate, steps ``after``."""

    def body(ctx, _):
        for s in before:
            ctx.execute(s, _effect(ran, s))
        out = ctx.parallel([(s, _effect(ran, s), s.upper()) for s in branch_ids])
        ctx.suspend("gate")
        for s in after:
            ctx.execute(s, _effect(ran, s))
        return out

    return body


def _start(journal, ran, branch_ids=("a", "b")):
    rt = Runtime(journal=journal)
    rt.register(flow("fan")(_fan(ran, branch_ids)))
    h = rt.start("fan", execution_id="e1")
    assert (h.status, h.gate) == ("suspended", "gate")


def _deploy(journal, body):
    warnings: list[str] = []
    rt = Runtime(journal=journal, divergence="fail", on_warn=warnings.append)
    rt.register(flow("fan")(body))
    return rt, warnings


def test_explicit_branches_run_as_steps_in_one_scope_and_return_results_in_order(journal):
    ran: list[str] = []
    _start(journal, ran)
    rt = Runtime(journal=journal)
    view = rt.get("e1")
    assert ran == ["before", "a", "b"]
    assert [view.frames[s].scope for s in ("before", "a", "b")] == [None, "/0", "/0"]
    assert [e.type for e in view.events][3:5] == ["PARALLEL_STARTED", "STEP_STARTED"]
    assert view.frames["a"].result == ["a", "A"]


def test_an_unchanged_body_of_explicit_branches_replays_clean(journal):
    ran: list[str] = []
    _start(journal, ran)
    rt, warnings = _deploy(journal, _fan(ran, ["a", "b"]))
    h = rt.resume("e1")
    assert (h.status, h.result) == ("completed", [["a", "A"], ["b", "B"]])
    assert warnings == [] and ran == ["before", "a", "b", "after"]  # nothing in the scope re-ran


def test_a_dropped_explicit_branch_is_refused_before_any_effect_of_the_scope_runs(journal):
    ran: list[str] = []
    _start(journal, ran, ["a", "b", "c"])
    ran.clear()
    rt, warnings = _deploy(journal, _fan(ran, ["new", "a", "c"]))  # `b` dropped, `new` asked first
    with pytest.raises(FlowReplayDivergenceError, match=r"never asked for 1 recorded step\(s\) `b` before step `new` starts"):
        rt.resume("e1")
    assert ran == []  # `new` did not run
    view = rt.get("e1")
    assert view.parked_on_divergence and view.correlation_key == "skipped 1: b"
    assert "new" not in view.frames and len(warnings) == 1


def test_function_branches_of_the_same_shape_run_the_new_step_first(journal):
    """The contrast (ADR residual): a function branch's dropped step is known only at close."""
    ran: list[str] = []
    _start(journal, ran, ["a", "b", "c"])
    ran.clear()

    def functions(ctx, _):
        ctx.execute("before", _effect(ran, "before"))
        ctx.parallel([lambda s=s: ctx.execute(s, _effect(ran, s)) for s in ("new", "a", "c")])

    rt, _ = _deploy(journal, functions)
    with pytest.raises(FlowReplayDivergenceError, match=r"`b` before parallel scope /0 closed"):
        rt.resume("e1")
    assert ran == ["new"]


def test_a_dropped_explicit_branch_with_no_new_step_is_refused_when_the_scope_closes(journal):
    ran: list[str] = []
    _start(journal, ran, ["a", "b"])
    ran.clear()
    rt, _ = _deploy(journal, _fan(ran, ["a"]))
    with pytest.raises(FlowReplayDivergenceError, match=r"`b` before parallel scope /0 closed"):
        rt.resume("e1")
    assert ran == []


@pytest.mark.parametrize("order", [["b", "a"], ["new", "b", "a"], ["b", "new", "a"]], ids=["reorder", "new-first", "new-between"])
def test_a_reorder_inside_a_scope_of_explicit_branches_passes(journal, order):
    ran: list[str] = []
    _start(journal, ran, ["a", "b"])
    ran.clear()
    rt, warnings = _deploy(journal, _fan(ran, order))
    h = rt.resume("e1")
    assert h.status == "completed" and warnings == []
    assert ran == [s for s in order if s == "new"] + ["after"]


def test_a_frame_recorded_before_the_scope_is_judged_before_its_first_new_step(journal):
    ran: list[str] = []
    _start(journal, ran, ["a", "b"])
    ran.clear()
    rt, _ = _deploy(journal, _fan(ran, ["new", "a", "b"], before=()))  # `before` dropped
    with pytest.raises(FlowReplayDivergenceError, match=r"`before` before step `new` starts"):
        rt.resume("e1")
    assert ran == []


def test_a_new_scope_of_explicit_branches_inserted_before_a_recorded_one_is_not_taken_for_it(journal):
    """Scope paths are positional: the inserted scope is /0, where the recorded `a`, `b` sit. Its
    explicit steps say it is a new scope, so its new step is new work before recorded frames."""
    ran: list[str] = []
    _start(journal, ran, ["a", "b"])
    ran.clear()

    def inserted(ctx, _):
        ctx.execute("before", _effect(ran, "before"))
        ctx.parallel([("x", _effect(ran, "x"))])
        ctx.parallel([("a", _effect(ran, "a")), ("b", _effect(ran, "b"))])
        ctx.suspend("gate")
        return "ok"

    rt, _ = _deploy(journal, inserted)
    with pytest.raises(FlowReplayDivergenceError, match=r"`a`, `b` before step `x` starts"):
        rt.resume("e1")
    assert ran == []


def _legacy_log(journal, flow_hash):
    """A log recorded before steps carried scope paths: `before`, `x`, then the scope's `a`, `b`."""
    journal.create("e1", NewEvent("EXECUTION_STARTED", {"flowId": "fan", "flowHash": flow_hash, "codeHash": None, "input": None}))
    events = []
    for s in ("before", "x", "a", "b"):
        events += [NewEvent("STEP_STARTED", {"stepId": s}), NewEvent("STEP_COMPLETED", {"stepId": s, "result": s})]
    events.append(NewEvent("EXECUTION_SUSPENDED", {"condition": {"on": "gate"}}))
    journal.append("e1", events, expected_seq=1)


def test_without_scope_paths_the_lowest_recorded_explicit_branch_is_the_floor(journal):
    ran: list[str] = []
    body = _fan(ran, ["new", "b", "a"], before=("before", "x"))
    rt, warnings = _deploy(journal, body)
    _legacy_log(journal, rt.registry.current("fan").flow_hash)
    assert rt.resume("e1").status == "completed" and warnings == []  # `a`, `b` are at or above the floor
    assert ran == ["new", "after"]


def test_without_scope_paths_a_frame_below_the_floor_is_judged_at_once(journal):
    ran: list[str] = []
    rt, _ = _deploy(journal, _fan(ran, ["new", "b", "a"]))  # `x` dropped
    _legacy_log(journal, rt.registry.current("fan").flow_hash)
    with pytest.raises(FlowReplayDivergenceError, match=r"never asked for 1 recorded step\(s\) `x` before step `new` starts"):
        rt.resume("e1")
    assert ran == []


@pytest.mark.parametrize(
    ("branches", "message"),
    [
        ([("a",)], r"explicit parallel branch is a tuple \(step_id, fn, \*args\)"),
        ([("", print)], r"non-empty string step id"),
        ([(1, print)], r"explicit parallel branch"),
        ([("a", "not callable")], r"explicit parallel branch"),
        ([("a", print), ("a", print)], r"step `a` named by two branches of one parallel scope"),
        (["a"], r"a parallel branch is a callable or a tuple"),
    ],
)
def test_malformed_branches_are_refused_before_the_scope_opens(journal, branches, message):
    @flow("bad")
    def bad(ctx, _):
        ctx.parallel(branches)

    rt = Runtime(journal=journal)
    rt.register(bad)
    h = rt.start("bad", execution_id="e1")
    assert h.status == "failed" and isinstance(h.exception, FlowUsageError)
    assert re.search(message, h.error["message"])
    assert "PARALLEL_STARTED" not in [e.type for e in rt.get("e1").events]
