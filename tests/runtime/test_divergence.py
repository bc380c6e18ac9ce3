"""D3: replay-divergence detection, every case of ADR-0113's Tests paragraph as corrected.

The journals are real (SQLite files); "the effect was NOT called" is asserted with counters.
A body edit is simulated the way a deploy does it: a process registers the edited body and resumes
an execution another body started.
"""

from __future__ import annotations

import pytest

from loom_runtime import (
    RESERVED_GATE,
    FlowCodeMismatchError,
    FlowReplayDivergenceError,
    Runtime,
    flow,
)
from loom_runtime.divergence import DivergenceDetector, resolve_mode
from loom_runtime.errors import JournalError
from loom_runtime.journal import NewEvent
from loom_runtime.journal.events import Event
from loom_runtime.replay import fold


def fp(c: str) -> str:
    return "sha256:" + c * 64


class Effects:
    def __init__(self) -> None:
        self.ran: list[str] = []

    def __call__(self, name):
        def run(*_):
            self.ran.append(name)
            return name

        return run


STEPS = ["reserve", "charge", "ship", "audit"]


def original(fx, **kw):
    @flow("checkout", steps=STEPS, **kw)
    def checkout(ctx, _):
        ctx.execute("reserve", fx("reserve"))
        ctx.execute("charge", fx("charge"))
        ctx.suspend("approval")
        ctx.execute("ship", fx("ship"))
        return "shipped"

    return checkout


def start_original(journal, fx, **kw):
    rt = Runtime(journal=journal)
    rt.register(original(fx, **kw))
    h = rt.start("checkout", None, execution_id="e1")
    assert h.status == "suspended"
    fx.ran.clear()
    return rt


def deploy(journal, body_fn, *, steps=STEPS, divergence="fail", **kw):
    """A new process with only the edited body registered (same declared structure)."""
    warnings: list[str] = []
    rt = Runtime(journal=journal, divergence=divergence, on_warn=warnings.append)
    rt.register(flow("checkout", steps=steps, **kw)(body_fn))
    return rt, warnings


def event_types(rt):
    return [e.type for e in rt.get("e1").events]


# -- the negative test: a body edit over a real journal ---------------------------------------


def test_a_changed_id_sequence_is_refused_before_the_first_live_effect(journal):
    fx = Effects()
    start_original(journal, fx)
    before = event_types(Runtime(journal=journal))

    def edited(ctx, _):  # `charge` became `charge-v2`: the re-run never asks for the recorded `charge`
        ctx.execute("reserve", fx("reserve"))
        ctx.execute("charge-v2", fx("charge-v2"))
        ctx.suspend("approval")
        ctx.execute("ship", fx("ship"))

    rt, warnings = deploy(journal, edited)
    with pytest.raises(FlowReplayDivergenceError, match=r"never asked for 1 recorded step\(s\) `charge` before step `charge-v2` starts") as info:
        rt.resume("e1", {"ok": True})
    assert fx.ran == []  # the effect function was NOT called
    err = info.value
    assert (err.skipped, err.parked, err.execution_id) == (("charge",), True, "e1")
    assert "PARKED on `__loom_diverged__`" in str(err)
    # nothing appended but the resume's own bootstrap and the park on the reserved gate
    assert event_types(rt) == before + ["EXECUTION_RESUMED", "EXECUTION_SUSPENDED"]
    view = rt.get("e1")
    assert view.parked_on_divergence and view.correlation_key == "skipped 1: charge"
    assert rt.journal.summary("e1").status == "suspended"
    assert len(warnings) == 1 and rt.divergence_refusals == 1


def test_the_same_edit_under_a_fingerprint_is_a_mismatch_unless_listed(journal):
    fx = Effects()
    start_original(journal, fx, code_fingerprint=fp("1"))

    def edited(ctx, _):
        ctx.execute("reserve", fx("reserve"))
        ctx.execute("charge-v2", fx("charge-v2"))

    rt, _ = deploy(journal, edited, code_fingerprint=fp("2"))
    with pytest.raises(FlowCodeMismatchError, match="started on codeHash"):
        rt.resume("e1")
    # listing the old fingerprint is the author's assertion; the detector still checks the shape
    rt, _ = deploy(journal, edited, code_fingerprint=fp("3"), compatible_with=[fp("1")])
    with pytest.raises(FlowReplayDivergenceError, match="`charge`"):
        rt.resume("e1")
    assert fx.ran == []


# -- where the gate is: step, park, timer, continuation, completion; not emit/decision ----------


def _diverged_then(action):
    def body(ctx, _):
        ctx.execute("reserve", lambda: "reserve")
        action(ctx)  # `charge` is never asked for

    return body


@pytest.mark.parametrize(
    ("action", "before", "never_written"),
    [
        (lambda ctx: ctx.suspend("other"), "parking on `other`", None),
        (lambda ctx: ctx.sleep("nap", 10), "timer `nap` is set", "TIMER_SET"),
        (lambda ctx: ctx.continue_as_new({"n": 1}), "continuing as new", "EXECUTION_CONTINUED"),
        (lambda ctx: None, "completion", "EXECUTION_COMPLETED"),
    ],
    ids=["park", "timer", "continuation", "completion"],
)
def test_the_check_fires_before_park_timer_continuation_and_completion(journal, action, before, never_written):
    fx = Effects()
    start_original(journal, fx)
    rt, _ = deploy(journal, _diverged_then(action))
    with pytest.raises(FlowReplayDivergenceError, match=f"before {before}"):
        rt.resume("e1")
    types = event_types(rt)
    assert types[-2:] == ["EXECUTION_RESUMED", "EXECUTION_SUSPENDED"]
    assert rt.get("e1").gate == RESERVED_GATE
    if never_written:
        assert never_written not in types
    assert types.count("EXECUTION_SUSPENDED") == 2  # the original park and the reserved one
    assert rt.journal.list_executions() == (rt.journal.summary("e1"),)  # no successor was created


def test_an_emit_is_not_judged_but_the_next_step_is_refused_before_its_effect(journal):
    fx = Effects()
    start_original(journal, fx)

    def edited(ctx, _):
        ctx.execute("reserve", fx("reserve"))
        ctx.emit("progress", {"stage": "charged?"})  # appended: emits are not judged (fix round 1)
        ctx.execute("refund", fx("refund"))

    rt, _ = deploy(journal, edited)
    with pytest.raises(FlowReplayDivergenceError, match="before step `refund` starts"):
        rt.resume("e1")
    assert fx.ran == []
    assert event_types(rt)[-3:] == ["EXECUTION_RESUMED", "EVENT_EMITTED", "EXECUTION_SUSPENDED"]


def test_a_live_decision_is_recorded_unjudged_but_the_next_step_is_refused(journal):
    fx = Effects()
    start_original(journal, fx)
    decider_calls = []

    def edited(ctx, _):
        ctx.execute("reserve", fx("reserve"))
        route = ctx.decide("route", lambda: decider_calls.append(1) or "express")  # runs, is recorded
        ctx.execute(f"ship-{route}", fx("ship"))

    rt, _ = deploy(journal, edited)
    with pytest.raises(FlowReplayDivergenceError, match="before step `ship-express` starts"):
        rt.resume("e1")
    assert decider_calls == [1] and fx.ran == []
    assert event_types(rt)[-3:] == ["EXECUTION_RESUMED", "DECISION_RECORDED", "EXECUTION_SUSPENDED"]


def test_a_step_inside_a_live_decision_is_judged(journal):
    fx = Effects()
    start_original(journal, fx)

    def edited(ctx, _):
        ctx.execute("reserve", fx("reserve"))
        ctx.decide("route", lambda: ctx.execute("route#model", fx("model")))

    rt, _ = deploy(journal, edited)
    with pytest.raises(FlowReplayDivergenceError, match="before step `route#model` starts"):
        rt.resume("e1")
    assert fx.ran == []


# -- membership, not order ---------------------------------------------------------------------


def test_a_pure_reorder_passes(journal):
    fx = Effects()
    start_original(journal, fx)

    def reordered(ctx, _):
        ctx.execute("charge", fx("charge"))
        ctx.execute("reserve", fx("reserve"))
        ctx.suspend("approval")
        ctx.execute("ship", fx("ship"))
        return "shipped"

    rt, warnings = deploy(journal, reordered)
    assert rt.resume("e1").status == "completed"
    assert fx.ran == ["ship"] and warnings == []


def test_a_new_step_inserted_before_a_recorded_one_is_refused(journal):
    fx = Effects()
    start_original(journal, fx)

    def inserted(ctx, _):
        ctx.execute("reserve", fx("reserve"))
        ctx.execute("fraud-check", fx("fraud-check"))
        ctx.execute("charge", fx("charge"))
        ctx.suspend("approval")

    rt, _ = deploy(journal, inserted)
    with pytest.raises(FlowReplayDivergenceError, match="`charge` before step `fraud-check` starts"):
        rt.resume("e1")
    assert fx.ran == []


# -- modes ---------------------------------------------------------------------------------------


def test_mode_resolution_strict_defaults_to_fail_and_explicit_wins():
    assert resolve_mode(None, strict=False) == "warn"
    assert resolve_mode(None, strict=True) == "fail"
    assert resolve_mode("warn", strict=True) == "warn"
    assert resolve_mode("off", strict=True) == "off"
    assert Runtime(strict=True).divergence == "fail"
    assert Runtime().divergence == "warn"
    with pytest.raises(ValueError, match="divergence must be one of off, warn, fail"):
        Runtime(divergence="loud")


def test_strict_runtime_refuses(journal):
    fx = Effects()
    # pinned by an author-supplied fingerprint: strict refuses unpinned executions outright (pinning)
    start_original(journal, fx, code_fingerprint="sha256:" + "c" * 64)
    rt = Runtime(journal=journal, strict=True, on_warn=lambda m: None)
    rt.register(flow("checkout", steps=STEPS, code_fingerprint="sha256:" + "c" * 64)(
        _diverged_then(lambda ctx: ctx.execute("x", fx("x")))))
    with pytest.raises(FlowReplayDivergenceError):
        rt.resume("e1")
    assert fx.ran == []


def test_warn_mode_reports_once_and_proceeds(journal):
    fx = Effects()
    start_original(journal, fx)

    def edited(ctx, _):
        ctx.execute("reserve", fx("reserve"))
        ctx.execute("refund", fx("refund"))  # report here ...
        ctx.execute("notify", fx("notify"))  # ... and never again in this run
        ctx.suspend("approval")
        return "done"

    rt, warnings = deploy(journal, edited, divergence="warn")
    h = rt.resume("e1")
    assert h.status == "completed" and fx.ran == ["refund", "notify"]
    assert rt.divergence_warnings == 1 and len(warnings) == 1
    assert "`charge`" in warnings[0] and "Mode `warn`: the run proceeds" in warnings[0]


def test_warn_without_on_warn_uses_the_warnings_module(journal):
    from loom_runtime import DivergenceWarning

    fx = Effects()
    start_original(journal, fx)
    rt = Runtime(journal=journal)
    rt.register(flow("checkout", steps=STEPS)(_diverged_then(lambda ctx: None)))
    with pytest.warns(DivergenceWarning, match="never asked for 1 recorded step"):
        assert rt.resume("e1").status == "completed"


def test_off_mode_does_not_judge(journal):
    fx = Effects()
    start_original(journal, fx)
    rt, warnings = deploy(journal, _diverged_then(lambda ctx: ctx.execute("x", fx("x"))), divergence="off")
    assert rt.resume("e1").status == "completed"
    assert fx.ran == ["x"] and warnings == [] and rt.divergence_warnings == 0


def test_warn_mode_stops_judging_after_its_report():
    st = fold("e", [])
    st.flow_id = "f"
    from loom_runtime.replay import Frame

    for i in range(1000):
        st.frames[f"s{i}"] = Frame(f"s{i}", first_seq=i + 2, status="completed", terminal_seq=i + 2)
    reports = []
    det = DivergenceDetector(st, "warn", on_report=lambda m, s: reports.append(s))
    det.check("step `x` starts")
    assert len(reports) == 1 and len(reports[0]) == 1000
    for _ in range(10_000):  # after the report: an early return, no scan
        det.check("step `y` starts")
    assert len(reports) == 1
    det.exempt("s", None)  # a served legacy decision would scan every pending id for `s:`/`s#` ...
    det.exempt("d", ("s1", "s2"))
    assert {"s1", "s2"} <= det._pending  # ... but after the report nothing is judged, so nothing is done


# -- the latch and the reserved gate -----------------------------------------------------------


def test_a_body_that_swallows_the_refusal_is_refused_again(journal):
    fx = Effects()
    start_original(journal, fx)

    def swallowing(ctx, _):
        ctx.execute("reserve", fx("reserve"))
        try:
            ctx.execute("new", fx("new"))
        except FlowReplayDivergenceError:
            pass
        ctx.execute("charge", fx("charge"))  # now asks for every recorded step ...
        ctx.emit("after", None)  # ... but nothing more may be appended
        return "sneaky"

    rt, _ = deploy(journal, swallowing)
    with pytest.raises(FlowReplayDivergenceError, match="`charge`"):
        rt.resume("e1")
    assert fx.ran == []
    assert "EVENT_EMITTED" not in event_types(rt) and "EXECUTION_COMPLETED" not in event_types(rt)
    assert rt.get("e1").gate == RESERVED_GATE


def test_retry_diverged_reruns_once_the_code_is_fixed_and_parks_again_if_not(journal):
    fx = Effects()
    start_original(journal, fx)
    rt, _ = deploy(journal, _diverged_then(lambda ctx: ctx.execute("x", fx("x"))))
    with pytest.raises(FlowReplayDivergenceError):
        rt.resume("e1")
    assert rt.recover() == []  # a parked execution is not re-driven by recovery
    with pytest.raises(FlowReplayDivergenceError):
        rt.retry_diverged("e1")  # still diverged: parks again, once
    assert event_types(rt).count("EXECUTION_SUSPENDED") == 3
    fixed = Runtime(journal=journal, divergence="fail")
    fixed.register(original(fx))
    h = fixed.retry_diverged("e1")
    # the answer to `approval` that triggered the refused run stays recorded: the retry uses it
    assert (h.status, h.result) == ("completed", "shipped")
    assert fx.ran == ["ship"]


def test_a_resume_of_the_reserved_gate_is_a_retry_and_drops_the_payload(journal):
    fx = Effects()
    start_original(journal, fx)
    rt, _ = deploy(journal, _diverged_then(lambda ctx: None))
    with pytest.raises(FlowReplayDivergenceError):
        rt.resume("e1")
    fixed = Runtime(journal=journal, divergence="fail")
    fixed.register(original(fx))
    assert fixed.resume("e1", {"approve": True}, gate=RESERVED_GATE).status == "completed"
    resumed = [e.payload for e in fixed.get("e1").events if e.type == "EXECUTION_RESUMED"]
    assert resumed == [{"gate": "approval", "payload": None}, {"gate": RESERVED_GATE, "payload": None}]


# -- decisions, crashes, scopes, migration -------------------------------------------------------


def test_a_served_decision_exempts_exactly_its_inner_steps(journal):
    fx = Effects()

    def agent_body(extra):
        def body(ctx, _):
            tool = ctx.decide("plan", lambda: ctx.execute("plan#select", fx("select")))
            ctx.execute(f"tool#{tool}", fx("tool"))
            ctx.suspend("next")
            for s in extra:
                ctx.execute(s, fx(s))
            return tool

        return body

    rt = Runtime(journal=journal)
    rt.register(flow("agent", steps=["plan", "tool"])(agent_body([])))
    rt.start("agent", execution_id="e1")
    assert fx.ran == ["select", "tool"]
    rt2, warnings = deploy_agent(journal, agent_body(["wrap-up"]))
    assert rt2.resume("e1").status == "completed"  # `plan#select` is exempt: its decider did not run
    assert warnings == [] and fx.ran == ["select", "tool", "wrap-up"]


def deploy_agent(journal, body):
    warnings: list[str] = []
    rt = Runtime(journal=journal, divergence="fail", on_warn=warnings.append)
    rt.register(flow("agent", steps=["plan", "tool"])(body))
    return rt, warnings


def test_a_legacy_decision_without_inner_steps_falls_back_to_the_naming_convention(journal):
    @flow("agent", steps=["plan"])
    def body(ctx, _):
        ctx.decide("plan", lambda: "x")
        ctx.execute("after", lambda: 1)
        return "ok"

    v = Runtime(journal=journal).register(body)
    journal.create("e1", NewEvent("EXECUTION_STARTED", {"flowId": "agent", "flowHash": v.flow_hash, "codeHash": None, "input": None}))
    journal.append("e1", [NewEvent("STEP_STARTED", {"stepId": "plan:model"}), NewEvent("STEP_COMPLETED", {"stepId": "plan:model", "result": 1}),
                          NewEvent("DECISION_RECORDED", {"decisionId": "plan", "value": "x"})], expected_seq=1)
    rt = Runtime(journal=journal, divergence="fail")
    rt.register(body)
    assert rt.recover()[0].status == "completed"


def test_restarting_an_unfinished_frame_is_judged_only_against_frames_before_it(journal):
    """A crash left `b` started (first) and `a` completed after it; the re-run restarts `b` first."""
    fx = Effects()

    @flow("f", steps=["a", "b"])
    def body(ctx, _):
        ctx.execute("b", fx("b"))
        ctx.execute("a", fx("a"))
        return "ok"

    v = Runtime(journal=journal).register(body)
    journal.create("e1", NewEvent("EXECUTION_STARTED", {"flowId": "f", "flowHash": v.flow_hash, "codeHash": None, "input": None}))
    journal.append("e1", [NewEvent("STEP_STARTED", {"stepId": "b"}), NewEvent("STEP_STARTED", {"stepId": "a"}),
                          NewEvent("STEP_COMPLETED", {"stepId": "a", "result": "a"})], expected_seq=1)
    rt = Runtime(journal=journal, divergence="fail")
    rt.register(body)
    [h] = rt.recover()
    assert h.status == "completed" and fx.ran == ["b"]
    assert rt.get("e1").frames["b"].first_seq == 2  # a re-start never moves the first-start rank


def test_restarting_an_unfinished_frame_after_a_skipped_earlier_one_is_refused(journal):
    fx = Effects()

    @flow("f", steps=["a", "b"])
    def body(ctx, _):
        ctx.execute("b", fx("b"))  # `a` (recorded before b) was dropped by the edit
        return "ok"

    v = Runtime(journal=journal).register(body)
    journal.create("e1", NewEvent("EXECUTION_STARTED", {"flowId": "f", "flowHash": v.flow_hash, "codeHash": None, "input": None}))
    journal.append("e1", [NewEvent("STEP_STARTED", {"stepId": "a"}), NewEvent("STEP_COMPLETED", {"stepId": "a", "result": "a"}),
                          NewEvent("STEP_STARTED", {"stepId": "b"})], expected_seq=1)
    rt = Runtime(journal=journal, divergence="fail", on_warn=lambda m: None)
    rt.register(body)
    [h] = rt.recover()
    assert isinstance(h.exception, FlowReplayDivergenceError) and h.exception.skipped == ("a",)
    assert h.status == "suspended" and fx.ran == []


def test_integer_like_ids_are_ranked_by_first_start_not_by_name(journal):
    fx = Effects()

    @flow("f")
    def body(ctx, _):
        ctx.execute("10", fx("10"))
        ctx.execute("2", fx("2"))
        return "ok"

    v = Runtime(journal=journal).register(body)
    journal.create("e1", NewEvent("EXECUTION_STARTED", {"flowId": "f", "flowHash": v.flow_hash, "codeHash": None, "input": None}))
    journal.append("e1", [NewEvent("STEP_STARTED", {"stepId": "10"}), NewEvent("STEP_COMPLETED", {"stepId": "10", "result": 1}),
                          NewEvent("STEP_STARTED", {"stepId": "2"})], expected_seq=1)
    rt = Runtime(journal=journal, divergence="fail")
    rt.register(body)
    assert rt.recover()[0].status == "completed" and fx.ran == ["2"]


def _scoped(branch_steps, after=()):
    def body(ctx, _):
        ctx.execute("before", lambda: 0)
        ctx.parallel([(lambda s=s: ctx.execute(s, lambda: s)) for s in branch_steps])
        ctx.suspend("gate")
        for s in after:
            ctx.execute(s, lambda: s)
        return "ok"

    return body


def _start_scoped(journal):
    rt = Runtime(journal=journal)
    rt.register(flow("fan")(_scoped(["a", "b"])))
    rt.start("fan", execution_id="e1")


def test_parallel_scope_steps_compare_as_a_set(journal):
    _start_scoped(journal)
    # a new branch runs first, before the recorded siblings are asked for: fine inside a scope
    rt, warnings = deploy_fan(journal, _scoped(["c", "b", "a"], after=["done"]))
    assert rt.resume("e1").status == "completed" and warnings == []


def test_the_same_shape_outside_a_scope_is_refused(journal):
    _start_scoped(journal)

    def unscoped(ctx, _):
        ctx.execute("before", lambda: 0)
        ctx.execute("c", lambda: "c")
        ctx.execute("a", lambda: "a")
        ctx.execute("b", lambda: "b")

    rt, _ = deploy_fan(journal, unscoped)
    with pytest.raises(FlowReplayDivergenceError, match="before step `c` starts"):
        rt.resume("e1")


def test_a_scope_that_drops_a_recorded_member_is_refused_when_it_closes(journal):
    _start_scoped(journal)
    rt, _ = deploy_fan(journal, _scoped(["a"]))
    with pytest.raises(FlowReplayDivergenceError, match=r"`b` before parallel scope /0 closed"):
        rt.resume("e1")


def test_a_new_step_in_a_scope_is_judged_against_frames_recorded_before_the_scope(journal):
    _start_scoped(journal)
    ran = []

    def dropped_before(ctx, _):  # `before` is gone; the scope's new step must not run
        ctx.parallel([lambda: ctx.execute("c", lambda: ran.append("c")), lambda: ctx.execute("a", lambda: 1)])

    rt, _ = deploy_fan(journal, dropped_before)
    with pytest.raises(FlowReplayDivergenceError, match="`before` before step `c` starts"):
        rt.resume("e1")
    assert ran == []


def deploy_fan(journal, body):
    warnings: list[str] = []
    rt = Runtime(journal=journal, divergence="fail", on_warn=warnings.append)
    rt.register(flow("fan")(body))
    return rt, warnings


def test_frames_before_a_migration_are_exempt(journal):
    fx = Effects()
    start_original(journal, fx, code_fingerprint=fp("1"))

    def v2(ctx, _):  # dropped `charge`
        ctx.execute("reserve", fx("reserve"))
        ctx.suspend("approval")
        ctx.execute("ship", fx("ship"))
        return "v2"

    rt, warnings = deploy(journal, v2, steps=["reserve", "ship"], code_fingerprint=fp("2"))
    rt.resume_as("e1", fp("2"), strategy="force")
    assert rt.resume("e1").result == "v2"
    assert warnings == [] and fx.ran == ["ship"]


def test_a_migrated_execution_is_not_refused_for_frames_its_transform_removed(journal):
    fx = Effects()
    start_original(journal, fx, code_fingerprint=fp("1"))

    def v2(ctx, _):
        ctx.execute("reserve", fx("reserve"))
        ctx.suspend("approval")
        ctx.execute("ship", fx("ship"))
        return "v2"

    rt, warnings = deploy(journal, v2, steps=["reserve", "ship"], code_fingerprint=fp("2"))
    rt.resume_as("e1", fp("2"), transform_state=lambda frames: {k: v for k, v in frames.items() if k != "charge"})
    assert "charge" not in rt.get("e1").frames
    h = rt.resume("e1")
    assert (h.status, h.result) == ("completed", "v2")
    assert warnings == [] and fx.ran == ["ship"]


def test_frames_recorded_after_a_migration_are_judged(journal):
    fx = Effects()
    start_original(journal, fx, code_fingerprint=fp("1"))

    def v2(ctx, _):
        ctx.execute("reserve", fx("reserve"))
        ctx.execute("pack", fx("pack"))
        ctx.suspend("approval")
        ctx.suspend("second")
        return "v2"

    rt, _ = deploy(journal, v2, steps=["reserve", "pack"], code_fingerprint=fp("2"))
    rt.resume_as("e1", fp("2"), strategy="force")
    assert rt.resume("e1").gate == "second"  # `pack` ran after the migration

    def v2_without_pack(ctx, _):
        ctx.execute("reserve", fx("reserve"))
        ctx.suspend("approval")
        ctx.suspend("second")

    rt3, _ = deploy(journal, v2_without_pack, steps=["reserve", "pack"], code_fingerprint=fp("4"), compatible_with=[fp("2")])
    with pytest.raises(FlowReplayDivergenceError, match="`pack`") as info:
        rt3.resume("e1")
    assert info.value.skipped == ("pack",)


def test_an_unchanged_body_resumes_clean_under_fail(journal):
    fx = Effects()
    start_original(journal, fx)
    rt = Runtime(journal=journal, divergence="fail", on_warn=pytest.fail)
    rt.register(original(fx))
    assert rt.resume("e1").status == "completed" and fx.ran == ["ship"]


def test_an_overflowing_decision_exempts_the_window_its_decider_ran_in():
    from loom_runtime import MemoryJournal

    journal = MemoryJournal()  # 8,000 appends: the point is the record, not the store
    def body_with(extra):
        def body(ctx, _):
            ctx.execute("first", lambda: 0)
            ctx.decide("plan", lambda: [ctx.execute(f"plan#{i}", lambda: None) for i in range(4100)] and "done")
            ctx.suspend("next")
            for s in extra:
                ctx.execute(s, lambda: s)
            return "ok"

        return body

    rt = Runtime(journal=journal)
    rt.register(flow("agent")(body_with([])))
    rt.start("agent", execution_id="e1")
    [rec] = [e.payload for e in rt.get("e1").events if e.type == "DECISION_RECORDED"]
    assert len(rec["innerSteps"]) == 4096 and rec["innerStepsOverflow"] is True
    assert rec["innerFrom"] == rt.get("e1").frames["plan#0"].first_seq
    rt2 = Runtime(journal=journal, divergence="fail", on_warn=pytest.fail)
    rt2.register(flow("agent")(body_with(["after"])))
    assert rt2.resume("e1").status == "completed"  # plan#4096..4099 are exempt by the window


def test_inner_steps_are_capped_by_bytes_too():
    from loom_runtime.run import _cap_inner_steps

    assert _cap_inner_steps(["x" * 1000] * 100) == 65  # 65 * 1003 bytes <= 64 KiB
    assert _cap_inner_steps(["a"] * 10) == 10
    assert _cap_inner_steps(["a"] * 5000) == 4096


def test_a_journal_completing_a_step_that_never_started_is_named_as_corrupt():
    events = [
        Event(1, "EXECUTION_STARTED", {"flowId": "f", "input": None}),
        Event(2, "STEP_COMPLETED", {"stepId": "ghost", "result": 1}),
    ]
    with pytest.raises(JournalError, match=r"execution `e9` event 2: STEP_COMPLETED for step `ghost` that never started"):
        fold("e9", events)
