"""examples/temporal_orders under ``framework = "temporal"``: which workflows an edit re-versions.

The workflow class is the unit Temporal replays (run, handlers, validator, query, ``__init__``,
what they call); activities and the child workflow are referenced by type. Each edit below is one
kind of member; the expected set is what a Temporal user needs the build id to do.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from framework_helpers import changed_by, copy_example, hashes

PARENT, CHILD = "OrderWorkflow", "ship-order"
WF, ACTS = "temporal_orders/workflows.py", "temporal_orders/activities.py"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_example("temporal_orders", tmp_path_factory.mktemp("temporal"))


def test_flow_ids_are_workflow_types(project: Path) -> None:
    assert set(hashes(project)) == {PARENT, CHILD}  # class name, and @workflow.defn(name="ship-order")


@pytest.mark.parametrize("rel, old, new, expected", [
    # the signal handler, the helper it calls, the update, its validator, the query, __init__
    pytest.param(WF, "self.items.append({**item,", "self.items.insert(0, {**item,", {PARENT}, id="signal-handler"),
    pytest.param(WF, 'return item["qty"] * item["price"]', 'return item["qty"] * item["price"] * 2', {PARENT}, id="handler-helper"),
    pytest.param(WF, 'return f"approved by {manager}"', 'return f"approved: {manager}"', {PARENT}, id="update-handler"),
    pytest.param(WF, "if not manager:", "if not manager or manager == 'bot':", {PARENT}, id="update-validator"),
    pytest.param(WF, "return len(self.items)", "return len(self.items) + 0", {PARENT}, id="query-handler"),
    pytest.param(WF, "self.approved_by: str | None = None", 'self.approved_by: str | None = ""', {PARENT}, id="init"),
    # activity options are arguments like any other
    pytest.param(WF, "CHARGE_TIMEOUT = timedelta(seconds=30)", "CHARGE_TIMEOUT = timedelta(seconds=60)", {PARENT}, id="activity-timeout"),
    pytest.param(WF, "RetryPolicy(maximum_attempts=3)", "RetryPolicy(maximum_attempts=5)", {PARENT}, id="retry-policy"),
    # the activity type history records, and the result type the workflow decodes
    pytest.param(ACTS, '@activity.defn(name="send-confirmation")', '@activity.defn(name="send-receipt")', {PARENT}, id="activity-name"),
    pytest.param(ACTS, "-> Receipt:", "-> dict:", {PARENT}, id="activity-result-type"),
    # activity bodies and the activity class's __init__: no workflow changes
    pytest.param(ACTS, "return Receipt(order_id, amount)", "return Receipt(order_id, amount * 1.1)", set(), id="activity-body"),
    pytest.param(ACTS, 'return f"{self.sender} -> {order_id}"', 'return f"{self.sender}: {order_id}"', set(), id="method-activity-body"),
    pytest.param(ACTS, "self.sender = sender", "self.sender = sender.lower()", set(), id="activity-class-init"),
    # the child's body versions the child only; its type versions the parent too
    pytest.param(WF, 'return f"shipped {order_id}"', 'return f"sent {order_id}"', {CHILD}, id="child-body"),
    # comments and formatting: nothing
    pytest.param(WF, "    @workflow.query\n", "    # answered from the replayed state\n    @workflow.query\n", set(), id="comment"),
])
def test_an_edit_re_versions_exactly(project: Path, rel: str, old: str, new: str, expected: set[str]) -> None:
    assert changed_by(project, rel, old, new) == expected


def test_the_child_type_is_part_of_the_parent(project: Path) -> None:
    path = project / WF
    text = path.read_text(encoding="utf-8")
    before = hashes(project)
    path.write_text(text.replace('name="ship-order"', 'name="ship-order-v2"'), encoding="utf-8")
    try:
        after = hashes(project)
    finally:
        path.write_text(text, encoding="utf-8")
    assert set(after) == {PARENT, "ship-order-v2"}  # the child is a new workflow type
    assert after[PARENT] != before[PARENT]  # and the parent now starts that type
