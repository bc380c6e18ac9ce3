"""D4: resume_as with replay-check over step families, force, transform_state."""

from __future__ import annotations

import re

import pytest

from loom_runtime import (
    ExecutionStateError,
    FlowReplayDivergenceError,
    FlowUsageError,
    ReplayCheckError,
    Runtime,
    flow,
)


def fp(c: str) -> str:
    return "sha256:" + c * 64


def agent_v1(turns):
    @flow("agent", steps=["agent", "plan"], code_fingerprint=fp("1"))
    def agent(ctx, _):
        ctx.execute("plan", lambda: "p")
        for t in range(turns):
            for j in range(2):
                ctx.execute(f"agent#turn:{t}:tool:{j}", lambda: "tool")
        ctx.suspend("user")
        ctx.execute("agent#turn:final:tool:0", lambda: "tool")
        return "v1"

    return agent


def started_agent(journal):
    rt = Runtime(journal=journal)
    rt.register(agent_v1(2))
    rt.start("agent", execution_id="e1")
    return rt


def test_a_dynamic_id_agent_passes_replay_check(journal):
    started_agent(journal)

    @flow("agent", steps=["agent", "plan", "summarise"], code_fingerprint=fp("2"))
    def agent_v2(ctx, _):
        ctx.execute("plan", lambda: "p")
        for t in range(2):
            for j in range(2):
                ctx.execute(f"agent#turn:{t}:tool:{j}", lambda: "tool")
        ctx.suspend("user")
        ctx.execute("summarise", lambda: "s")
        return "v2"

    rt = Runtime(journal=journal, divergence="fail")
    rt.register(agent_v1(2))
    rt.register(agent_v2)
    h = rt.resume_as("e1", fp("2"))
    assert h.status == "suspended"
    migrated = [e for e in rt.get("e1").events if e.type == "EXECUTION_MIGRATED"][0].payload
    assert migrated["toCodeHash"] == fp("2") and migrated["toFlowHash"] == rt.registry.current("agent").flow_hash
    assert migrated["fromCodeHash"] == fp("1") and migrated["strategy"] == "replay-check"
    assert rt.journal.summary("e1").code_hash == fp("2")  # the census sees the code it now runs on
    assert rt.resume("e1").result == "v2"  # a migrated execution resolves by toCodeHash


def test_an_agent_whose_family_disappeared_fails_replay_check_and_nothing_is_appended(journal):
    started_agent(journal)

    @flow("agent", steps=["planner", "plan"], code_fingerprint=fp("3"))
    def agent_v3(ctx, _):
        ctx.execute("plan", lambda: "p")

    rt = Runtime(journal=journal)
    rt.register(agent_v3)
    before = len(rt.get("e1").events)
    with pytest.raises(ReplayCheckError, match=re.escape("recorded frames it does not know: agent#* (4 frames)")) as info:
        rt.resume_as("e1", fp("3"))
    assert [str(o) for o in info.value.orphans] == ["agent#* (4 frames)"]
    assert len(rt.get("e1").events) == before


def test_step_families_regexes_admit_ids_outside_the_hash_convention(journal):
    @flow("crawler", code_fingerprint=fp("1"))
    def v1(ctx, _):
        for i in range(3):
            ctx.execute(f"fetch-{i}", lambda: i)
        ctx.suspend("more")

    @flow("crawler", steps=["done"], step_families=[re.compile(r"fetch-\d+")], code_fingerprint=fp("2"))
    def v2(ctx, _):
        ctx.suspend("more")
        return "v2"

    rt = Runtime(journal=journal)
    rt.register(v1)
    rt.start("crawler", execution_id="e1")
    rt.register(v2)
    assert rt.resume_as("e1", fp("2")).status == "suspended"


def test_force_skips_the_check_and_transform_state_rewrites_the_frames(journal):
    started_agent(journal)

    @flow("agent", steps=["plan"], code_fingerprint=fp("4"))
    def agent_v4(ctx, _):
        plan = ctx.execute("plan", lambda: "fresh")
        ctx.suspend("user")
        return plan

    rt = Runtime(journal=journal, divergence="fail")
    rt.register(agent_v4)
    rt.resume_as("e1", fp("4"), strategy="force")
    assert rt.resume("e1").result == "p"  # frames kept; the recorded ones before the migration are exempt

    rt2_journal = journal
    rt2 = Runtime(journal=rt2_journal)
    rt2.register(agent_v1(1))
    rt2.start("agent", execution_id="e2")
    rt2.register(agent_v4)
    rt2.resume_as("e2", fp("4"), transform_state=lambda frames: {"plan": frames["plan"] + "-migrated"})
    assert sorted(rt2.get("e2").frames) == ["plan"]
    assert rt2.resume("e2").result == "p-migrated"


def test_resume_as_takes_a_diverged_execution_out_of_its_park(journal):
    started_agent(journal)

    @flow("agent", steps=["agent", "plan"], code_fingerprint=fp("5"), compatible_with=[fp("1")])
    def drifted(ctx, _):
        ctx.execute("plan", lambda: "p")
        ctx.execute("new-thing", lambda: 1)

    rt = Runtime(journal=journal, divergence="fail", on_warn=lambda m: None)
    rt.register(drifted)
    with pytest.raises(FlowReplayDivergenceError):
        rt.resume("e1")

    @flow("agent", steps=["agent", "plan", "new-thing"], code_fingerprint=fp("6"))
    def fixed(ctx, _):
        ctx.execute("plan", lambda: "p")
        ctx.execute("new-thing", lambda: 1)
        return "fixed"

    rt.register(fixed)
    h = rt.resume_as("e1", fp("6"))
    assert (h.status, h.result) == ("completed", "fixed")


def test_resume_as_refuses_unknown_targets_bad_strategies_and_finished_executions(journal):
    rt = started_agent(journal)
    with pytest.raises(ValueError, match="strategy must be one of replay-check, force"):
        rt.resume_as("e1", fp("1"), strategy="yolo")
    with pytest.raises(FlowUsageError, match="has no registered version 'sha256:9"):
        rt.resume_as("e1", fp("9"))
    rt.resume("e1")
    with pytest.raises(ExecutionStateError, match="`e1` is completed; only a running or suspended execution can migrate"):
        rt.resume_as("e1", fp("1"))
