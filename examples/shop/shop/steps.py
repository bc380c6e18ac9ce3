"""Effects. Step bodies are journaled: on replay their results come from the journal, so only
their qualified names are part of a flow's fingerprint."""

from __future__ import annotations

from loom_runtime import step


@step
def reserve(sku: str) -> str:
    return f"reservation:{sku}"


@step
def charge(order_id: str, amount: float) -> str:
    return f"receipt:{order_id}:{amount:.2f}"


@step
def pack(item: dict) -> str:
    return f"parcel:{item['sku']}"


@step
def ship(order_id: str, parcels: list[str]) -> str:
    return f"tracking:{order_id}:{len(parcels)}"
