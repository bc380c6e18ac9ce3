"""The order workflow: a signal, an update with a validator, a query, two activities, a child."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from .activities import Mailer, charge

CHARGE_TIMEOUT = timedelta(seconds=30)


def line_total(item: dict) -> float:
    """A helper the signal handler runs: part of the workflow's fingerprint."""
    return item["qty"] * item["price"]


@workflow.defn(name="ship-order")
class ShipOrder:
    """The child workflow: its own history, referenced by its workflow type."""

    @workflow.run
    async def run(self, order_id: str) -> str:
        return f"shipped {order_id}"


@workflow.defn
class OrderWorkflow:
    def __init__(self) -> None:
        self.items: list[dict] = []
        self.approved_by: str | None = None

    @workflow.signal
    def add_item(self, item: dict) -> None:
        self.items.append({**item, "total": line_total(item)})

    @workflow.update
    def approve(self, manager: str) -> str:
        self.approved_by = manager
        return f"approved by {manager}"

    @approve.validator
    def check_manager(self, manager: str) -> None:
        if not manager:
            raise ValueError("an approval needs a manager")

    @workflow.query
    def item_count(self) -> int:
        return len(self.items)

    @workflow.run
    async def run(self, order_id: str) -> dict:
        await workflow.wait_condition(lambda: self.approved_by is not None and bool(self.items))
        amount = sum(i["total"] for i in self.items)
        receipt = await workflow.execute_activity(
            charge, args=[order_id, amount], start_to_close_timeout=CHARGE_TIMEOUT,
            retry_policy=RetryPolicy(maximum_attempts=3),
        )
        sent = await workflow.execute_activity_method(
            Mailer.send, order_id, start_to_close_timeout=timedelta(seconds=10),
        )
        shipped = await workflow.execute_child_workflow(ShipOrder.run, order_id, id=f"ship-{order_id}")
        return {"amount": receipt.amount, "sent": sent, "shipped": shipped, "by": self.approved_by}
