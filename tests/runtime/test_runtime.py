"""Runtime and Context: replay semantics over real journals (in-memory and SQLite)."""

from __future__ import annotations

import re

import pytest

from loom_runtime import (
    ExecutionStateError,
    FlowCodeMismatchError,
    FlowUsageError,
    Runtime,
    StepFailedError,
    flow,
)
from loom_runtime.journal import NewEvent


def fp(c: str) -> str:
    return "sha256:" + c * 64


class Calls:
    """Counts effect invocations per step, so tests can say 'ran once' and 'was NOT called'."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def effect(self, name, value=None):
        def run(*args):
            self.counts[name] = self.counts.get(name, 0) + 1
            return value if value is not None else f"{name}-done"

        return run


def types(rt, eid):
    return [e.type for e in rt.get(eid).events]


def test_a_flow_runs_to_completion_and_records_its_steps(journal):
    calls = Calls()

    @flow("checkout", steps=["reserve", "charge"])
    def checkout(ctx, order):
        r = ctx.execute("reserve", calls.effect("reserve"), order["sku"])
        c = ctx.execute("charge", calls.effect("charge", {"receipt": 7}))
        return {"r": r, "c": c}

    rt = Runtime(journal=journal)
    rt.register(checkout)
    h = rt.start("checkout", {"sku": "A"}, execution_id="e1")
    assert (h.status, h.result) == ("completed", {"r": "reserve-done", "c": {"receipt": 7}})
    assert types(rt, "e1") == [
        "EXECUTION_STARTED", "STEP_STARTED", "STEP_COMPLETED", "STEP_STARTED", "STEP_COMPLETED", "EXECUTION_COMPLETED",
    ]
    started = rt.get("e1").events[0].payload
    assert started["flowId"] == "checkout" and started["flowHash"].startswith("sha256:")
    assert "codeHash" in started and started["input"] == {"sku": "A"}
    assert [e.seq for e in rt.get("e1").events] == [1, 2, 3, 4, 5, 6]


def test_suspend_parks_and_resume_replays_without_rerunning_steps(journal):
    calls = Calls()

    @flow("approve", steps=["a", "b"])
    def approve(ctx, _):
        ctx.execute("a", calls.effect("a"))
        answer = ctx.suspend("manager", correlation_key="order-1")
        ctx.execute("b", calls.effect("b"))
        return answer

    rt = Runtime(journal=journal)
    rt.register(approve)
    h = rt.start("approve", None, execution_id="e1")
    assert (h.status, h.gate) == ("suspended", "manager")
    view = rt.get("e1")
    assert (view.status, view.gate, view.correlation_key) == ("suspended", "manager", "order-1")
    assert rt.journal.summary("e1").status == "suspended"
    h = rt.resume("e1", {"ok": True}, gate="manager")
    assert (h.status, h.result) == ("completed", {"ok": True})
    assert calls.counts == {"a": 1, "b": 1}
    with pytest.raises(ExecutionStateError, match="`e1` is completed, not suspended"):
        rt.resume("e1", None)


def test_resume_names_the_wrong_gate():
    @flow("g")
    def g(ctx, _):
        ctx.suspend("one")

    rt = Runtime()
    rt.register(g)
    rt.start("g", execution_id="e1")
    with pytest.raises(ExecutionStateError, match="parked on `one`, not `two`"):
        rt.resume("e1", 1, gate="two")


def test_a_failed_step_is_seen_live_and_on_every_replay(journal):
    calls = Calls()
    seen = []

    def boom():
        calls.counts["boom"] = calls.counts.get("boom", 0) + 1
        raise ValueError("card declined")

    @flow("pay", steps=["charge"])
    def pay(ctx, _):
        try:
            ctx.execute("charge", boom)
        except StepFailedError as exc:
            seen.append((exc.step_id, exc.error_type, exc.error_message, type(exc.__cause__).__name__))
        ctx.suspend("retry-later")
        return "done"

    rt = Runtime(journal=journal)
    rt.register(pay)
    rt.start("pay", execution_id="e1")
    rt.resume("e1")
    assert calls.counts == {"boom": 1}
    assert seen == [("charge", "ValueError", "card declined", "ValueError"), ("charge", "ValueError", "card declined", "NoneType")]
    [failed] = [e for e in rt.get("e1").events if e.type == "STEP_FAILED"]
    assert failed.payload == {"stepId": "charge", "error": {"type": "ValueError", "message": "card declined"}}


def test_an_uncaught_step_failure_fails_the_execution(journal):
    @flow("pay")
    def pay(ctx, _):
        ctx.execute("charge", lambda: 1 / 0)

    rt = Runtime(journal=journal)
    rt.register(pay)
    h = rt.start("pay", execution_id="e1")
    assert h.status == "failed"
    assert h.error["type"] == "loom_runtime.errors.StepFailedError"
    assert "step `charge` failed: ZeroDivisionError" in h.error["message"]
    assert types(rt, "e1")[-1] == "EXECUTION_FAILED"
    assert rt.journal.summary("e1").status == "failed"


def test_a_step_result_must_be_json(journal):
    @flow("f")
    def f(ctx, _):
        ctx.execute("s", lambda: {1, 2})

    rt = Runtime(journal=journal)
    rt.register(f)
    h = rt.start("f", execution_id="e1")
    [failed] = [e for e in rt.get("e1").events if e.type == "STEP_FAILED"]
    assert failed.payload["error"]["type"] == "loom.NonJsonResult"
    assert h.status == "failed"


def _deep(n: int) -> list:
    v: list = []
    for _ in range(n):
        v = [v]
    return v


def _cyclic() -> dict:
    v: dict = {}
    v["self"] = v
    return v


UNJOURNALABLE = {
    "huge int": (lambda: 10**5000, "an integer with more than 4300 digits"),
    "100,000 deep": (lambda: _deep(100_000), "nested deeper than 512 levels"),
    "cyclic": (_cyclic, r"result\['self'\]: a cyclic value"),
    "17 MiB": (lambda: "x" * (17 * 1024 * 1024), "more than the 16,777,216 one journal event may hold"),
}


@pytest.mark.parametrize("kind", sorted(UNJOURNALABLE))
def test_a_result_the_journal_cannot_hold_fails_the_step_once_and_never_reruns_it(journal, kind):
    """It reached the body as ValueError/RecursionError with no STEP_FAILED (a resume re-ran the
    effect), or left STEP_STARTED last (every recover() re-ran the effect, forever)."""
    make, message = UNJOURNALABLE[kind]
    runs: list[int] = []

    def effect():
        runs.append(1)
        return make()

    @flow("f")
    def f(ctx, _):
        ctx.execute("s", effect)

    rt = Runtime(journal=journal)
    rt.register(f)
    h = rt.start("f", execution_id="e1")
    [failed] = [e for e in rt.get("e1").events if e.type == "STEP_FAILED"]
    assert failed.payload["error"]["type"] == "loom.NonJsonResult"
    assert re.search(message, failed.payload["error"]["message"]) and "ran once" in failed.payload["error"]["message"]
    assert h.status == "failed" and types(rt, "e1") == ["EXECUTION_STARTED", "STEP_STARTED", "STEP_FAILED", "EXECUTION_FAILED"]
    rt.recover()
    rt.recover()
    assert runs == [1]


@pytest.mark.parametrize("kind", sorted(UNJOURNALABLE))
def test_an_input_the_journal_cannot_hold_is_refused_before_anything_is_appended(journal, kind):
    make, message = UNJOURNALABLE[kind]

    @flow("f")
    def f(ctx, _):
        return None

    rt = Runtime(journal=journal)
    rt.register(f)
    with pytest.raises(FlowUsageError, match=f"flow `f`: the input must be a JSON value the journal can hold .*{message.replace('result', 'value')}"):
        rt.start("f", make(), execution_id="e1")
    assert rt.journal.list_executions() == ()


def test_a_flow_result_the_journal_cannot_hold_fails_the_execution(journal):
    @flow("f")
    def f(ctx, _):
        return _deep(100_000)

    rt = Runtime(journal=journal)
    rt.register(f)
    h = rt.start("f", execution_id="e1")
    assert h.status == "failed" and "nested deeper than 512 levels" in h.error["message"]
    assert types(rt, "e1")[-1] == "EXECUTION_FAILED"


def test_tuples_come_back_as_lists_live_and_replayed(journal):
    got = []

    @flow("t")
    def t(ctx, _):
        got.append(ctx.execute("s", lambda: (1, 2)))
        ctx.suspend("x")

    rt = Runtime(journal=journal)
    rt.register(t)
    rt.start("t", execution_id="e1")
    rt.resume("e1")
    assert got == [[1, 2], [1, 2]]


def test_decide_records_inner_steps_and_is_served_without_running_the_decider(journal):
    calls = Calls()
    decider_runs = []

    @flow("agent", steps=["agent"])
    def agent(ctx, _):
        def choose():
            decider_runs.append(1)
            return ctx.execute("agent#skills:select", calls.effect("select", "search")) + "!"

        tool = ctx.decide("plan", choose)
        ctx.suspend("wait")
        return tool

    rt = Runtime(journal=journal, divergence="fail")
    rt.register(agent)
    rt.start("agent", execution_id="e1")
    [rec] = [e for e in rt.get("e1").events if e.type == "DECISION_RECORDED"]
    assert rec.payload == {"decisionId": "plan", "value": "search!", "innerSteps": ["agent#skills:select"]}
    h = rt.resume("e1")
    assert (h.status, h.result) == ("completed", "search!")
    assert len(decider_runs) == 1 and calls.counts == {"select": 1}


def test_emit_now_and_ids_are_replay_stable(journal):
    clock = iter([100.0, 200.0, 300.0, 400.0])
    seen = []

    @flow("e")
    def e(ctx, _):
        ctx.emit("progress", {"pct": 50})
        seen.append(ctx.now().timestamp())
        ctx.suspend("x")
        ctx.emit("progress", {"pct": 100})

    rt = Runtime(journal=journal, clock=lambda: next(clock))
    rt.register(e)
    rt.start("e", execution_id="e1")
    rt.resume("e1")
    emits = [ev.payload for ev in rt.get("e1").events if ev.type == "EVENT_EMITTED"]
    assert emits == [{"name": "progress", "payload": {"pct": 50}}, {"name": "progress", "payload": {"pct": 100}}]
    assert seen[0] == seen[1]


def test_durable_timers_fire_on_tick_and_recover(journal_factory):
    now = [1000.0]
    calls = Calls()

    @flow("nap", steps=["after"])
    def nap(ctx, _):
        ctx.sleep("cool-off", 60)
        return ctx.execute("after", calls.effect("after"))

    # the store's clock too: on PostgreSQL timers run on it (tests/runtime/test_timer_clock_postgres.py)
    rt = Runtime(journal=journal_factory(clock=lambda: now[0]), clock=lambda: now[0])
    rt.register(nap)
    h = rt.start("nap", execution_id="e1")
    assert (h.status, h.gate) == ("suspended", "__loom_timer__:cool-off")
    [timer] = [e for e in rt.get("e1").events if e.type == "TIMER_SET"]
    assert timer.payload == {"timerId": "cool-off", "fireAt": 1060.0}
    assert rt.tick() == [] and rt.recover() == []
    now[0] = 1061.0
    [h] = rt.recover()
    assert (h.execution_id, h.status, h.result) == ("e1", "completed", "after-done")
    assert rt.tick() == []


def test_parallel_records_a_scope_and_returns_results_in_order(journal):
    @flow("fan", steps=["a", "b", "c"])
    def fan(ctx, _):
        out = ctx.parallel([lambda: ctx.execute("a", lambda: 1), lambda: ctx.execute("b", lambda: 2)])
        ctx.execute("c", lambda: 3)
        return out

    rt = Runtime(journal=journal)
    rt.register(fan)
    h = rt.start("fan", execution_id="e1")
    assert h.result == [1, 2]
    evs = rt.get("e1").events
    assert [e.type for e in evs][1:4] == ["PARALLEL_STARTED", "STEP_STARTED", "STEP_COMPLETED"]
    assert [e.payload.get("scope") for e in evs if e.type == "STEP_STARTED"] == ["/0", "/0", None]
    assert rt.get("e1").frames["a"].scope == "/0"


def test_continue_as_new_starts_a_successor_on_the_current_code(journal):
    @flow("loop", code_fingerprint=fp("1"))
    def loop_v1(ctx, n):
        ctx.execute(f"turn#{n}", lambda: n)
        if n < 2:
            ctx.continue_as_new(n + 1)
        return n

    rt = Runtime(journal=journal)
    rt.register(loop_v1)
    h = rt.start("loop", 0, execution_id="e1")
    assert (h.execution_id, h.status, h.result) == ("e1~2", "completed", 2)
    assert rt.get("e1").status == "continued" and rt.get("e1").continued_to == "e1~1"
    assert rt.get("e1").events[-1].payload == {"nextExecutionId": "e1~1", "input": 1}
    assert rt.get("e1~1").events[0].payload["codeHash"] == fp("1")


def test_context_misuse_is_refused_with_a_clear_error():
    @flow("bad")
    def bad(ctx, which):
        if which == "dup":
            ctx.execute("s", lambda: 1)
            ctx.execute("s", lambda: 1)
        if which == "reserved":
            ctx.suspend("__loom_diverged__")
        if which == "scope":
            ctx.parallel([lambda: ctx.continue_as_new(1)])

    rt = Runtime()
    rt.register(bad)
    h = rt.start("bad", "dup")
    assert "step id `s` asked for twice in one run" in h.error["message"] and "`s#<n>`" in h.error["message"]
    h = rt.start("bad", "reserved")
    assert h.status == "failed" and "gate `__loom_diverged__` is reserved" in h.error["message"]
    h = rt.start("bad", "scope")
    assert "continue_as_new inside ctx.parallel is refused" in h.error["message"]
    with pytest.raises(FlowUsageError, match="input must be a JSON value"):
        rt.start("bad", object())


# -- D2 on resume ---------------------------------------------------------------------------------


def _versions(effects):
    @flow("order", steps=["a", "b"], code_fingerprint=fp("1"))
    def order_v1(ctx, _):
        ctx.execute("a", lambda: effects.append("v1:a") or "a")
        ctx.suspend("ok")
        ctx.execute("b", lambda: effects.append("v1:b") or "b")
        return "v1"

    @flow("order", steps=["a", "b"], code_fingerprint=fp("2"))
    def order_v2(ctx, _):
        ctx.execute("a", lambda: effects.append("v2:a") or "a")
        ctx.suspend("ok")
        ctx.execute("b", lambda: effects.append("v2:b") or "b")
        return "v2"

    return order_v1, order_v2


def test_a_pinned_execution_resumes_on_its_own_code_after_a_deploy(journal):
    effects = []
    v1, v2 = _versions(effects)
    rt = Runtime(journal=journal)
    rt.register(v1)
    rt.start("order", execution_id="old")
    assert rt.get("old").events[0].payload["codeHash"] == fp("1")
    rt.register(v2)  # the deploy: v2 is current, v1 still resolvable by its codeHash
    assert rt.resume("old").result == "v1"
    assert rt.start("order", execution_id="new").status == "suspended"
    assert rt.get("new").events[0].payload["codeHash"] == fp("2")
    assert effects == ["v1:a", "v1:b", "v2:a"]


def test_a_code_mismatch_refuses_the_resume_and_appends_nothing(journal):
    effects = []
    v1, v2 = _versions(effects)
    rt = Runtime(journal=journal)
    rt.register(v1)
    rt.start("order", execution_id="old")
    before = len(rt.get("old").events)
    rt2 = Runtime(journal=journal)
    rt2.register(v2)  # a process that ships only v2
    with pytest.raises(FlowCodeMismatchError, match=r"started on codeHash sha256:1{64}") as info:
        rt2.resume("old")
    assert info.value.kind == "code"
    assert len(rt2.get("old").events) == before and rt2.get("old").status == "suspended"


def test_compatible_with_lets_the_current_code_serve_an_old_recording(journal):
    effects = []
    v1, _ = _versions(effects)

    @flow("order", steps=["a", "b"], code_fingerprint=fp("3"), compatible_with=[fp("1")])
    def order_v3(ctx, _):
        ctx.execute("a", lambda: effects.append("v3:a") or "a")
        ctx.suspend("ok")
        ctx.execute("b", lambda: effects.append("v3:b") or "b")
        return "v3"

    rt = Runtime(journal=journal)
    rt.register(v1)
    rt.start("order", execution_id="old")
    rt2 = Runtime(journal=journal)
    rt2.register(order_v3)
    assert rt2.resume("old").result == "v3"
    assert effects == ["v1:a", "v3:b"]


def test_a_legacy_fnv1a_recording_still_resumes(journal):
    from loom_runtime import legacy_flow_content_hash

    @flow("legacy", steps=["a"])
    def legacy(ctx, _):
        x = ctx.execute("a", lambda: 1)
        return x + 1

    defn = legacy.__loom_flow__
    journal.create("old", NewEvent("EXECUTION_STARTED", {"flowId": "legacy", "flowHash": legacy_flow_content_hash(defn),
                                                         "codeHash": None, "input": None}))
    rt = Runtime(journal=journal)
    rt.register(legacy)
    [h] = rt.recover()
    assert (h.execution_id, h.status, h.result) == ("old", "completed", 2)
    assert rt.get("old").flow_hash.startswith("fnv1a:")


def test_a_flow_without_fingerprint_records_a_null_code_hash_and_resumes(journal):
    @flow("plain", steps=["a"])
    def plain(ctx, _):
        ctx.execute("a", lambda: 1)
        return ctx.suspend("g")

    rt = Runtime(journal=journal, divergence="fail")
    rt.register(plain)
    rt.start("plain", execution_id="e1")
    assert rt.get("e1").events[0].payload["codeHash"] is None
    assert rt.resume("e1", 5).result == 5


def test_recover_redrives_running_executions_and_skips_parked_ones(journal):
    calls = Calls()

    @flow("r", steps=["a", "b"])
    def r(ctx, gate):
        ctx.execute("a", calls.effect("a"))
        if gate:
            ctx.suspend("g")
        return ctx.execute("b", calls.effect("b"))

    rt = Runtime(journal=journal)
    v = rt.register(r)
    rt.start("r", True, execution_id="parked")
    # a crash after `a` started: STEP_STARTED with no completion
    journal.create("crashed", NewEvent("EXECUTION_STARTED", {"flowId": "r", "flowHash": v.flow_hash, "codeHash": None, "input": False}))
    journal.append("crashed", [NewEvent("STEP_STARTED", {"stepId": "a"})], expected_seq=1)
    handles = rt.recover()
    assert [(h.execution_id, h.status) for h in handles] == [("crashed", "completed")]
    assert rt.get("parked").status == "suspended"
    assert calls.counts == {"a": 2, "b": 1}
    assert rt.get("crashed").frames["a"].attempts == 2


def test_a_journal_can_be_named_by_url_or_path(tmp_path):
    from loom_runtime import SqliteJournal

    @flow("p")
    def p(ctx, _):
        return ctx.execute("s", lambda: 1)

    for spec in (f"sqlite:///{tmp_path}/a.db", str(tmp_path / "b.db"), tmp_path / "c.db"):
        with Runtime(journal=spec) as rt:
            assert isinstance(rt.journal, SqliteJournal)
            rt.register(p)
            assert rt.start("p", execution_id="e").result == 1
    assert {f.name for f in tmp_path.glob("*.db")} == {"a.db", "b.db", "c.db"}
