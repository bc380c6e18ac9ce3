"""examples/dbos_orders under ``framework = "dbos"``: which workflows an edit re-versions.

Steps and transactions (functions and ``@DBOS.dbos_class`` methods) are served from DBOS's
operation outputs by name; a workflow reached from a workflow is a child with its own history.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from framework_helpers import changed_by, copy_example, hashes

PARENT, CHILD = "dbos_orders.inventory:Warehouse.checkout", "dbos_orders.inventory:ship"
INV, PRICING = "dbos_orders/inventory.py", "dbos_orders/pricing.py"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_example("dbos_orders", tmp_path_factory.mktemp("dbos"))


def test_flows(project: Path) -> None:
    assert set(hashes(project)) == {PARENT, CHILD}


@pytest.mark.parametrize("rel, old, new, expected", [
    # the workflow, a helper it runs, the instance it runs on
    pytest.param(INV, 'return {"status": "out-of-stock"}', 'return {"status": "sold-out"}', {PARENT}, id="workflow-body"),
    pytest.param(PRICING, "RATE = 1.2", "RATE = 1.25", {PARENT}, id="helper-constant"),
    pytest.param(INV, "self.region = region", "self.region = region.upper()", {PARENT}, id="class-init"),
    # a step's options and name are its header: served by name, run with those options
    pytest.param(INV, "max_attempts=3", "max_attempts=5", {PARENT}, id="step-options"),
    # step bodies, the transaction body, the child's body: the parent keeps its version
    pytest.param(INV, "return qty <= 10", "return qty <= 20", set(), id="step-body"),
    pytest.param(INV, 'return f"{self.region}/{order_id}"', 'return f"{self.region}:{order_id}"', set(), id="step-method-body"),
    pytest.param(INV, '{"id": order_id, "amount": amount}', '{"id": order_id, "amount": round(amount)}', set(), id="transaction-body"),
    pytest.param(INV, 'return f"shipped {order_id}"', 'return f"sent {order_id}"', {CHILD}, id="child-body"),
    pytest.param(INV, "    @DBOS.workflow()\n    def checkout", "    # the entry point\n    @DBOS.workflow()\n    def checkout", set(), id="comment"),
])
def test_an_edit_re_versions_exactly(project: Path, rel: str, old: str, new: str, expected: set[str]) -> None:
    assert changed_by(project, rel, old, new) == expected
