"""The checkout flow. Edit a helper in pricing.py and its codeHash moves; edit a step body in
steps.py and it does not (steps are served from the journal on replay)."""

from __future__ import annotations

from loom_runtime import Context, flow

from . import pricing
from .steps import charge, pack, reserve, ship


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
            return {"status": "rejected"}
    receipt = ctx.execute("charge", charge, order["id"], total)
    parcels = [ctx.execute(f"pack#{i}", pack, item) for i, item in enumerate(order["items"])]
    tracking = ctx.execute("ship", ship, order["id"], parcels)
    return {"status": "shipped", "receipt": receipt, "tracking": tracking}
