"""Pricing helpers: orchestration code, part of the fingerprint of every flow that calls them."""

from __future__ import annotations

#: Orders above this total need a manager's approval.
REVIEW_LIMIT = 500.0

DISCOUNT_RATE = 0.1

#: Reasons for which the full amount is paid back; anything else is refunded minus a fee.
FULL_REFUND_REASONS = ("damaged", "not-delivered")
RESTOCKING_FEE = 0.05


def subtotal(items: list[dict]) -> float:
    return sum(item["price"] * item.get("qty", 1) for item in items)


def discount(total: float, *, member: bool) -> float:
    """Members get a flat rate off."""
    return round(total * DISCOUNT_RATE, 2) if member else 0.0


def needs_review(total: float) -> bool:
    return total > REVIEW_LIMIT


def refund_amount(order: dict, *, reason: str) -> float:
    paid = order["total"]
    if reason in FULL_REFUND_REASONS:
        return paid
    return round(paid * (1 - RESTOCKING_FEE), 2)
