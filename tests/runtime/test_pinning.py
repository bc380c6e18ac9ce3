"""Starting or resuming on code the manifest does not know is loud (an error under strict=True),
and a strict runtime refuses an undeclared step id before its effect (issue 17's runtime traps)."""

from __future__ import annotations

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


def test_strict_refuses_an_undeclared_step_before_its_effect():
    fn, ran = _steps_flow(steps=["a"], step_families=["pack"])
    rt = Runtime(strict=True)
    rt.register(fn)
    handle = rt.start("f", None, execution_id="e1")
    assert ran == ["a", "pack#0"]  # `b` never ran
    assert handle.status == "failed" and handle.error["type"].endswith("UndeclaredStepError")
    assert "step id `b` is not declared" in handle.error["message"]
    assert isinstance(handle.exception, UndeclaredStepError) and handle.exception.step_id == "b"
    assert "b" not in [e.payload.get("stepId") for e in rt.journal.read("e1")]  # no STEP_STARTED either


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


def test_strict_refuses_an_undeclared_step_of_an_async_flow_too():
    ran: list[str] = []

    async def effect(step_id):
        ran.append(step_id)
        return step_id

    @flow("af", steps=["a"], code_fingerprint=H1)
    async def af(ctx, _input):
        await ctx.execute("a", effect, "a")
        await ctx.execute("b", effect, "b")
        return "done"

    rt = Runtime(strict=True)
    rt.register(af)
    handle = rt.start("af", None)
    assert ran == ["a"] and handle.status == "failed" and handle.error["type"].endswith("UndeclaredStepError")
