"""The service's flows: an approval gate, a durable timer and a multi-step fulfilment."""

from __future__ import annotations

from loom_runtime import Context, flow

from . import pricing
from .shipping import parcels
from .steps import charge, notify, pack, reserve, ship


@flow("checkout", version=1, steps=["reserve", "charge"])
def checkout(ctx: Context, order: dict) -> dict:
    ctx.execute("reserve", reserve, order["sku"])
    amount = pricing.total(order)
    if pricing.needs_approval(amount):
        approval = ctx.suspend("approval")  # parks until runtime.resume(..., gate="approval")
        if not approval.get("approved"):
            return {"status": "rejected", "total": amount}
    receipt = ctx.execute("charge", charge, order["id"], amount)
    return {"status": "charged", "total": amount, "receipt": receipt}


@flow("reminder", version=1, steps=["first", "second"])
def reminder(ctx: Context, request: dict) -> dict:
    ctx.execute("first", notify, request["customer"], "your cart is waiting")
    ctx.sleep("gap", pricing.reminder_delay(request))  # a durable timer
    sent = ctx.execute("second", notify, request["customer"], "last call")
    return {"status": "reminded", "sent": sent}


@flow("fulfil", version=1, steps=["ship"], step_families=["pack"])
def fulfil(ctx: Context, order: dict) -> dict:
    done = [ctx.execute(f"pack#{i}", pack, p) for i, p in enumerate(parcels(order["items"]))]
    amount = pricing.total(order)
    tracking = ctx.execute("ship", ship, order["id"], done)
    return {"status": "shipped", "total": amount, "tracking": tracking}


@flow("audit", version=1, steps=["note"])
def audit(ctx: Context, order: dict) -> dict:
    # A lazy import: loom-fp/1 does not follow imports inside function bodies, so pricing.py is
    # not in this flow's fp/1 closure (nor in its recorded closureSources). Absolute, because an
    # fp/1 chunk keeps a relative one as written and it then fails to import inside the chunk.
    from orders.pricing import needs_approval

    flagged = needs_approval(order["total"])
    ctx.execute("note", notify, "auditor", f"{order['id']}:{flagged}")
    if flagged:
        ctx.suspend("review")
    return {"status": "audited", "flagged": flagged}
