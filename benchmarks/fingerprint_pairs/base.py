"""The base project every pair edits: a package ``shop`` with one flow and its helpers.

Kept as plain text (never imported from here) so that a pair's ``before`` side is exactly these
bytes. The flow reaches, by name: a class (``Basket``), two same-module helpers
(``needs_review``, ``label``), two module constants (``LIMIT``, ``CURRENCY``), stdlib import targets
(``json``, ``math.floor``), two steps (``charge``, ``ship``) and a first-party helper in another
module (``shop.pricing.discount``), which itself reaches a constant (``RATE``) and a callee
(``_cents``). ``unrelated`` and ``traced`` sit in the module but outside the closure.
"""

from __future__ import annotations

FLOWS = '''\
"""Checkout flow of the pair-suite shop."""
import json
from math import floor

from loom_runtime import flow, step

from shop.pricing import discount

LIMIT = 1000
CURRENCY = "EUR"


@step
def charge(order_id):
    return "receipt-" + order_id


@step
def ship(order_id):
    return "shipped-" + order_id


class Basket:
    """Items of one order."""

    def __init__(self, items):
        self.items = list(items)

    def count(self):
        return len(self.items)


def needs_review(total):
    """True when a manager must approve."""
    return total > LIMIT


def label(order):
    return f"{order['id']}:{CURRENCY}"


def traced(fn):
    return fn


def unrelated(x):
    return x * 2


@flow("checkout", version=1, steps=["charge", "ship"])
def checkout(ctx, order, *, rush=False):
    """Charge and ship one order."""
    basket = Basket(order["items"])
    ordered = sorted(order["items"], key=lambda i: i["sku"])
    total = floor(discount(order["total"]))
    receipt = ctx.execute("charge", charge, order["id"])
    if needs_review(total):
        ctx.suspend("manager-approval")
    note = json.dumps({"label": label(order), "n": basket.count() + 1}, sort_keys=True)
    ctx.execute("ship", ship, order["id"])
    return {"receipt": receipt, "total": total, "note": note, "first": ordered[0]}
'''

PRICING = '''\
"""Prices."""
RATE = 0.1


def _cents(x):
    return round(x, 2)


def discount(total):
    return _cents(total - total * RATE)
'''

#: Files of the base project, by POSIX path relative to the project root.
FILES: dict[str, str] = {
    "shop/__init__.py": "",
    "shop/flows.py": FLOWS,
    "shop/pricing.py": PRICING,
}

#: Where the flow lives and what it is called (the loader finds it by ``__loom_flow__``).
FLOW_MODULE = "shop.flows"
FLOW_ID = "checkout"
PACKAGE = "shop"
