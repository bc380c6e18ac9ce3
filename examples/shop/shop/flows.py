"""The shop's durable flows. Edit a helper in pricing.py or shipping.py and a flow's codeHash
moves; edit a step body in steps.py and it does not (steps are served from the journal on replay).

``checkout`` reserves stock, asks a manager to approve large orders (an approval gate), charges,
packs each parcel (a dynamic step family ``pack#<n>``) and ships. ``refund`` pays back an order
and restocks its items (``restock#<n>``).
"""

from __future__ import annotations

from loom_runtime import Context, flow

from . import pricing, shipping
from .steps import charge, load_order, pack, refund_payment, reserve, restock, ship


@flow(
    "checkout",
    version=1,
    steps=["reserve", "charge", "ship"],
    step_families=["pack"],
)
def checkout(ctx: Context, order: dict) -> dict:
    ctx.execute("reserve", reserve, order["sku"])
    total = pricing.subtotal(order["items"])
    total -= pricing.discount(total, member=order.get("member", False))
    if pricing.needs_review(total):
        # parks until runtime.resume(execution_id, payload, gate="manager-approval")
        approval = ctx.suspend("manager-approval")
        if not approval.get("approved"):
            return {"status": "rejected", "by": approval.get("by")}
    receipt = ctx.execute("charge", charge, order["id"], total)
    parcels = [ctx.execute(f"pack#{i}", pack, parcel) for i, parcel in enumerate(shipping.plan_parcels(order["items"]))]
    tracking = ctx.execute("ship", ship, order["id"], parcels)
    return {"status": "shipped", "total": total, "receipt": receipt, "tracking": tracking}


@flow("refund", version=1, steps=["load-order", "refund"], step_families=["restock"])
def refund(ctx: Context, request: dict) -> dict:
    order = ctx.execute("load-order", load_order, request["order_id"])
    amount = pricing.refund_amount(order, reason=request.get("reason", ""))
    if amount <= 0:
        return {"status": "declined", "order_id": order["id"]}
    receipt = ctx.execute("refund", refund_payment, order["id"], amount)
    for i, item in enumerate(order["items"]):
        ctx.execute(f"restock#{i}", restock, item["sku"], item.get("qty", 1))
    return {"status": "refunded", "amount": amount, "receipt": receipt}
