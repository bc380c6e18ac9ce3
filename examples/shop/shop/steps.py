"""Effects. Step bodies are journaled: on replay their results come from the journal, so only
their qualified names are part of a flow's fingerprint. (A real service would call a payment
provider and a warehouse here; these return strings that show what happened.)"""

from __future__ import annotations

from loom_runtime import step


@step
def reserve(sku: str) -> str:
    return f"reservation:{sku}"


@step
def charge(order_id: str, amount: float) -> str:
    return f"receipt:{order_id}:{amount:.2f}"


@step
def pack(parcel: list[str]) -> str:
    return "parcel:" + "+".join(parcel)


@step
def ship(order_id: str, parcels: list[str]) -> str:
    return f"tracking:{order_id}:{len(parcels)}"


@step
def load_order(order_id: str) -> dict:
    # stands in for a database read; the journal keeps what it returned
    return {"id": order_id, "total": 120.0, "items": [{"sku": "mug", "qty": 2}, {"sku": "poster"}]}


@step
def refund_payment(order_id: str, amount: float) -> str:
    return f"refund:{order_id}:{amount:.2f}"


@step
def restock(sku: str, qty: int) -> str:
    return f"restocked:{sku}x{qty}"
