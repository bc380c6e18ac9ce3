"""Starting or resuming on code the manifest does not know is loud (an error under strict=True),
and a strict runtime refuses an undeclared step id before its effect (issue 17's runtime traps)."""

from __future__ import annotations

import time
import warnings

import pytest

from loom_runtime import (
    Registry,
    Runtime,
    UndeclaredStepError,
    UnpinnedExecutionError,
    UnpinnedExecutionWarning,
    flow,
)
from loom_runtime.errors import StaleManifestError
from loom_runtime.live_binding import LiveBinding

H1 = "sha256:" + "1" * 64


def _gate_flow(**kw):
    @flow("order", steps=["a", "b"], **kw)
    def order(ctx, _input):
        ctx.execute("a", lambda: "a")
        ctx.suspend("approval")
        ctx.execute("b", lambda: "b")
        return "done"

    return order


def test_a_runtime_without_a_manifest_warns_at_start_naming_the_fix():
    rt = Runtime()
    rt.register(_gate_flow())
    with pytest.warns(UnpinnedExecutionWarning) as seen:
        rt.start("order", None, execution_id="e1")
    (warning,) = seen
    message = str(warning.message)
    assert "flow `order`: a new execution starts without a codeHash, so it is not pinned" in message
    assert "registry has no manifest" in message and 'Registry.from_manifest("build/loom/manifest.json")' in message
    assert rt.journal.summary("e1").code_hash is None  # what was silent before: nothing recorded


def test_strict_refuses_the_unpinned_start_before_anything_is_written():
    rt = Runtime(strict=True)
    rt.register(_gate_flow())
    with pytest.raises(UnpinnedExecutionError, match="refused: strict=True; nothing was appended"):
        rt.start("order", None, execution_id="e1")
    assert rt.journal.list_executions() == ()
    pinned = Runtime(strict=True)  # an author-supplied fingerprint is a fingerprint
    pinned.register(_gate_flow(code_fingerprint=H1))
    assert pinned.start("order", None, execution_id="e2").status == "suspended"


def test_started_on_pinned_code_then_resumed_on_unfingerprinted_code_is_loud(tmp_path):
    journal = f"sqlite:///{tmp_path / 'j.db'}"
    v1 = Runtime(journal=journal)
    v1.register(_gate_flow(code_fingerprint=H1))
    assert v1.start("order", None, execution_id="e1").status == "suspended"
    # the next release forgot `loom build`: its live code has no fingerprint, and "absent compares
    # as equal" serves it the execution that started on H1; it used to finish there without a word
    v2 = Runtime(journal=journal)
    v2.register(_gate_flow())
    with pytest.warns(UnpinnedExecutionWarning) as seen:
        assert v2.resume("e1", {"ok": True}).status == "completed"
    (warning,) = seen
    assert f"execution `e1` of flow `order` started on codeHash {H1} but resumes on live code that has no codeHash" in str(
        warning.message)
    strict = Runtime(journal=journal, strict=True)
    strict.register(_gate_flow())
    v1.start("order", None, execution_id="e2")
    before = len(strict.journal.read("e2"))
    with pytest.raises(UnpinnedExecutionError) as refused:
        strict.resume("e2", {"ok": True})
    assert refused.value.recorded == H1 and refused.value.execution_id == "e2"
    assert len(strict.journal.read("e2")) == before


def test_each_flow_and_case_is_warned_once_and_every_occurrence_counted():
    rt = Runtime()
    rt.register(_gate_flow())
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for i in range(3):
            rt.start("order", None, execution_id=f"e{i}")
        for i in range(3):
            rt.resume(f"e{i}", {"ok": True})
    messages = [str(w.message) for w in seen if issubclass(w.category, UnpinnedExecutionWarning)]
    assert len(messages) == 2  # one start, one resume: a worker loop does not flood its log
    assert "recorded no codeHash when it started" in messages[1]
    assert rt.unpinned_runs == 6


def _steps_flow(**kw):
    ran: list[str] = []

    @flow("f", code_fingerprint=H1, **kw)
    def f(ctx, _input):
        for step_id in ("a", "pack#0", "b"):
            ctx.execute(step_id, lambda s=step_id: ran.append(s) or s)
        return "done"

    return f, ran


def _parked_on_the_reserved_gate(rt, eid, step_id):
    events = rt.journal.read(eid)
    assert step_id not in [e.payload.get("stepId") for e in events]  # no STEP_STARTED: the effect never ran
    assert "EXECUTION_FAILED" not in [e.type for e in events]  # a deploy mistake never ends the execution
    last = events[-1]
    assert (last.type, last.payload["condition"]) == (
        "EXECUTION_SUSPENDED", {"on": "__loom_diverged__", "correlationKey": f"undeclared step: `{step_id}`"})


def test_strict_refuses_an_undeclared_step_before_its_effect_and_parks_the_execution(journal):
    fn, ran = _steps_flow(steps=["a"], step_families=["pack"])
    seen: list[str] = []
    rt = Runtime(journal=journal, strict=True, on_warn=seen.append)
    rt.register(fn)
    with pytest.raises(UndeclaredStepError, match="step id `b` is not declared.*PARKED on `__loom_diverged__`") as exc:
        rt.start("f", None, execution_id="e1")
    assert exc.value.step_id == "b" and exc.value.parked and exc.value.execution_id == "e1"
    assert 'resume_as(execution_id, "current")' in str(exc.value)
    assert ran == ["a", "pack#0"]  # `b` never ran
    _parked_on_the_reserved_gate(rt, "e1", "b")
    assert rt.divergence_refusals == 1 and "step id `b`" in seen[0]
    assert rt.recover() == [] and ran == ["a", "pack#0"]  # parked: no pass re-drives it

    # the next release declares `b`: the execution moves onto it from the park and finishes,
    # every recorded step served, `b` run once
    fixed, ran_fixed = _steps_flow(steps=["a", "b"], step_families=["pack"])
    release = Runtime(journal=rt.journal, strict=True)
    release.register(fixed)
    h = release.resume_as("e1", "current")
    assert (h.status, h.result) == ("completed", "done") and ran_fixed == ["b"]


def test_a_worker_parks_an_undeclared_step_reports_it_and_drives_on(journal_factory):
    import threading

    fn, ran = _steps_flow(steps=["a"], step_families=["pack"])
    client = Runtime(journal=journal_factory(), strict=True)
    client.register(fn)
    eid = client.submit("f", None, execution_id="w1")
    worker = Runtime(journal=journal_factory(), strict=True, on_warn=lambda _m: None)
    worker.register(fn)
    stop, events, passes = threading.Event(), [], []
    due_timers = worker.journal.due_timers

    def counted(now):  # the first call of each of the worker's passes
        passes.append(now)
        return due_timers(now)

    worker.journal.due_timers = counted
    serving = threading.Thread(target=worker.serve, kwargs=dict(stop=stop, poll_interval=0.05, on_event=events.append))
    serving.start()
    try:
        deadline = time.monotonic() + 30
        while client.journal.summary(eid).status != "suspended":
            assert time.monotonic() < deadline, "the worker did not park the execution"
            time.sleep(0.02)
        parked_at = len(passes)
        while len(passes) < parked_at + 3:  # several passes after it: a parked execution is not re-driven
            assert time.monotonic() < deadline and serving.is_alive(), "the worker stopped passing"
            worker._wake.set()  # a notifying store (PostgreSQL) would otherwise idle until a notification
            time.sleep(0.02)
    finally:
        stop.set()
        serving.join(30)
    assert not serving.is_alive()
    _parked_on_the_reserved_gate(client, eid, "b")
    assert ran == ["a", "pack#0"]
    (drive,) = [e for e in events if e["event"] == "drive" and e["executionId"] == eid]  # driven once
    assert drive["status"] == "suspended" and drive["gate"] == "__loom_diverged__"
    assert drive["error"].startswith("UndeclaredStepError: ") and "PARKED" in drive["error"]


def test_a_body_that_swallows_the_refusal_appends_nothing_more(journal):
    ran: list[str] = []

    @flow("f", steps=["a", "after"], code_fingerprint=H1)
    def f(ctx, _input):
        ctx.execute("a", lambda: ran.append("a"))
        try:
            ctx.execute("b", lambda: ran.append("b"))
        except UndeclaredStepError:
            ctx.execute("after", lambda: ran.append("after"))  # refused too: the run is latched
        return "swallowed"

    rt = Runtime(journal=journal, strict=True, on_warn=lambda _m: None)
    rt.register(f)
    with pytest.raises(UndeclaredStepError, match="PARKED"):
        rt.start("f", None, execution_id="e1")
    assert ran == ["a"]
    _parked_on_the_reserved_gate(rt, "e1", "b")
    assert "after" not in [e.payload.get("stepId") for e in rt.journal.read("e1")]


@pytest.mark.parametrize("declared", [
    {"steps": ["a", "b"], "step_families": ["pack"]},
    {},  # nothing declared: the flow opted out
])
def test_declared_or_opted_out_flows_run_under_strict(declared):
    fn, ran = _steps_flow(**declared)
    rt = Runtime(strict=True)
    rt.register(fn)
    assert rt.start("f", None).status == "completed" and ran == ["a", "pack#0", "b"]


def test_without_strict_an_undeclared_step_runs():
    fn, ran = _steps_flow(steps=["a"], step_families=["pack"])
    rt = Runtime()
    rt.register(fn)
    assert rt.start("f", None).status == "completed" and ran == ["a", "pack#0", "b"]


def test_the_strict_stale_manifest_error_says_it_refuses():
    strict = LiveBinding("build/loom/manifest.json", strict=True, on_warn=None)
    lenient = LiveBinding("build/loom/manifest.json", strict=False, on_warn=None)
    with pytest.raises(StaleManifestError) as exc:
        strict._stale("order", "shop/flows.py differs")
    assert "registering `order` is refused (strict=True)" in str(exc.value)
    assert "runs without a code fingerprint" not in str(exc.value)  # it said that although strict refuses
    seen: list[str] = []
    lenient._on_warn = seen.append
    lenient._stale("order", "shop/flows.py differs")
    assert "runs without a code fingerprint (its executions are not pinned)" in seen[0]


def test_registry_from_manifest_strict_is_independent_of_the_runtime():
    assert Registry(strict=True).strict and not Runtime(registry=Registry()).strict


def test_submitted_executions_are_judged_when_a_worker_drives_them_and_leave_no_state_behind():
    rt = Runtime()
    rt.register(_gate_flow())
    with pytest.warns(UnpinnedExecutionWarning):
        ids = [rt.submit("order", None) for _ in range(3)]
    assert rt._judged == set()  # a submit-only process does not accumulate ids
    with pytest.warns(UnpinnedExecutionWarning, match="recorded no codeHash when it started"):
        rt.recover()
    assert {rt.journal.summary(i).status for i in ids} == {"suspended"}


def test_strict_refuses_an_undeclared_step_of_an_async_flow_too_and_parks_it(journal):
    import asyncio
    from collections import Counter

    ran: list[tuple[str, str]] = []

    async def effect(eid, step_id):
        ran.append((eid, step_id))
        await asyncio.sleep(0.01)
        return step_id

    def make(steps):
        @flow("af", steps=steps, code_fingerprint=H1)
        async def af(ctx, _input):
            eid = ctx.execution_id
            await ctx.execute("a", effect, eid, "a")
            # `c` (declared) may be in flight beside the undeclared `b`: then it is recorded; `b` never starts
            return await asyncio.gather(ctx.execute("c", effect, eid, "c"), ctx.execute("b", effect, eid, "b"))

        return af

    rt = Runtime(journal=journal, strict=True, on_warn=lambda _m: None)
    rt.register(make(["a", "c"]))
    with pytest.raises(UndeclaredStepError, match="step id `b` is not declared.*PARKED") as exc:
        rt.start("af", None, execution_id="e1")
    assert exc.value.parked and ("e1", "b") not in ran and ran[0] == ("e1", "a")

    async def awaited():  # the awaitable forms refuse and park the same way
        with pytest.raises(UndeclaredStepError, match="PARKED"):
            await rt.start_async("af", None, execution_id="e2")
        assert await rt.recover_async() == []

    asyncio.run(awaited())
    for eid in ("e1", "e2"):
        _parked_on_the_reserved_gate(rt, eid, "b")
        frames = rt.get(eid).frames
        assert all(f.status == "completed" for f in frames.values()) and set(frames) <= {"a", "c"}

    release = Runtime(journal=rt.journal, strict=True)
    release.register(make(["a", "b", "c"]))
    for eid in ("e1", "e2"):
        h = release.resume_as(eid, "current")
        assert (h.status, h.result) == ("completed", ["c", "b"])
    assert Counter(ran) == {(eid, s): 1 for eid in ("e1", "e2") for s in "abc"}  # every effect once
