"""A second flow in another module, and a method flow."""

import json

from loom_runtime import flow as loom_flow
from shop.pricing import discount
from shop.steps import charge


class Refunds:
    """Refund orchestration."""

    MINIMUM = 5

    @loom_flow("refund", steps=["charge"])
    def run(self, ctx, order: dict) -> dict:
        amount = max(self.minimum(), discount(order["total"]))
        return {"receipt": ctx.execute("charge", charge, order["id"], -amount)}

    def minimum(self) -> int:
        return self.MINIMUM

    def report(self) -> str:  # not reached by the flow: not in its closure nor its chunk
        return json.dumps({"minimum": self.MINIMUM})
