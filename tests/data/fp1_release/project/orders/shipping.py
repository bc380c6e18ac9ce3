"""Shipping helpers."""

from __future__ import annotations


def parcels(items: list[dict]) -> list[list[str]]:
    """Heavy items travel alone; the rest share one parcel."""
    heavy = [[item["sku"]] for item in items if item.get("heavy")]
    light = [item["sku"] for item in items if not item.get("heavy")]
    return heavy + ([light] if light else [])
