"""Pricing helpers: orchestration code, part of the checkout fingerprint."""

from __future__ import annotations

#: Orders above this total need a manager's approval.
REVIEW_LIMIT = 500.0

DISCOUNT_RATE = 0.1


def subtotal(items: list[dict]) -> float:
    return sum(item["price"] * item.get("qty", 1) for item in items)


def discount(total: float, *, member: bool) -> float:
    """Members get a flat rate off."""
    return round(total * DISCOUNT_RATE, 2) if member else 0.0


def needs_review(total: float) -> bool:
    return total > REVIEW_LIMIT
