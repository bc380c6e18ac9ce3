"""The checkout flow: helpers from three modules, reached three different ways."""

import shop.util as u
from loom_runtime import Context, flow
from shop import pricing
from shop.pricing import fee
from shop.steps import charge, reserve, ship

LIMIT = 3  # items per order; not the same LIMIT as shop.util.LIMIT


def total_of(order: dict) -> int:
    items = order["items"][:LIMIT]
    return sum(item["price"] for item in items)


@flow("checkout", version=2, steps=["reserve", "charge", "ship"])
def checkout(ctx: Context, order: dict) -> dict:
    ctx.execute("reserve", reserve, order["sku"])
    amount = pricing.discount(total_of(order)) + fee(total_of(order)) + u.fee(0)
    receipt = ctx.execute("charge", charge, order["id"], amount)
    if u.needs_review(amount):
        ctx.suspend("manager-approval")
    ctx.execute("ship", ship, order["id"])
    return {"receipt": receipt, "amount": amount}
