"""examples/agent: a tool-calling loop whose ids are ``agent#turn:<n>:think|tool:<j>``, journaled
step by step, and migrated across versions by a replay-check that understands the ``agent`` family."""

from __future__ import annotations

import pytest
from example_helpers import build, edit

from loom_runtime import ReplayCheckError, Runtime


def completed_steps(rt: Runtime, execution_id: str) -> list[str]:
    return [e.payload["stepId"] for e in rt.get(execution_id).events if e.type == "STEP_COMPLETED"]


def test_each_turn_and_tool_call_is_a_journaled_step_in_the_agent_family(example, tmp_path):
    root = example("agent")
    rt = Runtime(registry=build(root), journal=tmp_path / "j.db")
    done = rt.start("support-agent", {"id": "t-1", "text": "my order o-42 is late"}, execution_id="t-1")
    assert done.status == "completed" and done.result["turns"] == 3
    assert completed_steps(rt, "t-1") == [
        "classify",
        "agent#turn:0:think", "agent#turn:0:tool:0", "agent#turn:0:tool:1",
        "agent#turn:1:think", "agent#turn:1:tool:0",
        "agent#turn:2:think",
        "reply",
    ]
    credit = rt.get("t-1").frames["agent#turn:1:tool:0"]
    assert credit.result == "credit:o-42:10.00"


def test_a_longer_loop_in_v2_takes_over_a_parked_ticket_and_a_renamed_loop_is_refused(example, tmp_path):
    root = example("agent")
    v1 = build(root)
    rt = Runtime(registry=v1, journal=tmp_path / "j.db")
    parked = rt.start("support-agent", {"id": "t-2", "text": "this will never work"}, execution_id="t-2")
    assert (parked.status, parked.gate) == ("suspended", "human-handoff")
    recorded = completed_steps(rt, "t-2")
    assert recorded[1:] == [f"agent#turn:{n}:{kind}" for n in range(3) for kind in ("think", "tool:0")]

    # v2: five turns instead of three. Different code, same family: the replay-check passes.
    edit(root / "support_agent" / "policy.py", "MAX_TURNS = 3", "MAX_TURNS = 5")
    v2 = build(root)
    rt = Runtime(registry=v2, journal=tmp_path / "j.db")
    target = v2.current("support-agent")
    assert target.code_hash != v1.current("support-agent").code_hash
    migrated = rt.resume_as("t-2", target.code_hash, strategy="replay-check")
    assert migrated.status == "suspended"  # v2 re-runs from its baseline; two more turns, still no answer
    answered = rt.resume("t-2", {"answer": "A human fixed it."})
    assert answered.status == "completed" and answered.result["answer"] == "A human fixed it."

    # v3 renames the loop and stops declaring `agent`: every recorded agent#… frame is orphaned.
    flows = root / "support_agent" / "flows.py"
    edit(flows, 'steps=["classify", "agent", "reply"]', 'steps=["classify", "assistant", "reply"]')
    flows.write_text(flows.read_text().replace('f"agent#turn:', 'f"assistant#turn:'))
    v3 = build(root)
    rt = Runtime(registry=v3, journal=tmp_path / "j.db")
    v1_hash = v1.current("support-agent").code_hash
    pinned = Runtime(registry=v1, journal=tmp_path / "j.db")  # a ticket a v1 worker parked
    pinned.start("support-agent", {"id": "t-4", "text": "this will never work"}, execution_id="t-4")
    with pytest.raises(ReplayCheckError, match=r"recorded frames it does not know: agent#\* \(6 frames\)"):
        rt.resume_as("t-4", v3.current("support-agent").code_hash, strategy="replay-check")
    assert rt.get("t-4").code_hash == v1_hash and not rt.get("t-4").migrated  # nothing was appended
