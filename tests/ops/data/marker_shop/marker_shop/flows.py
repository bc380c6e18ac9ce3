"""Two flows: every kind of user effect sits behind a gate, so a history can stop before each."""

from loom_runtime import Context, flow

from .effects import approve, charge, pick, reserve

FEE = 1


@flow("order", steps=["reserve", "charge"])
def order(ctx: Context, o: dict) -> dict:
    ctx.execute("reserve", reserve, o["sku"])
    ctx.suspend("go")
    approved = ctx.decide("approve", approve)
    ctx.emit("approved", {"sku": o["sku"], "approved": approved})
    ctx.suspend("ship")
    receipt = ctx.execute("charge", charge, o["amount"] + FEE)
    return {"receipt": receipt}


@flow("swallow", steps=["charge"])
def swallow(ctx: Context, o: dict) -> str:
    try:
        way = ctx.decide("way", pick)
    except Exception:  # noqa: BLE001 - a body that swallows the replay's stop must still stop
        way = "sea"
    return ctx.execute("charge", charge, len(way))
