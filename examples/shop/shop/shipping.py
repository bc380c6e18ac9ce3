"""Parcel planning: which items travel together. Orchestration code (it decides how many
``pack#<n>`` steps a checkout runs), so it is part of the checkout fingerprint."""

from __future__ import annotations

#: A parcel holds at most this many units.
PARCEL_CAPACITY = 3


def plan_parcels(items: list[dict]) -> list[list[str]]:
    """Physical units, in order, grouped into parcels of at most PARCEL_CAPACITY; digital items ship by email."""
    units = [item["sku"] for item in items if not item.get("digital") for _ in range(item.get("qty", 1))]
    return [units[i : i + PARCEL_CAPACITY] for i in range(0, len(units), PARCEL_CAPACITY)]
