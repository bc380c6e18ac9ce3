"""Pricing helpers: orchestration code, in the closure of the flows that call them."""

from __future__ import annotations

#: Orders above this total wait for a manager's approval.
APPROVAL_LIMIT = 300.0

#: The member rate off (edited between the fixture's two builds).
MEMBER_RATE = 0.10


def total(order: dict) -> float:
    gross = sum(item["price"] * item.get("qty", 1) for item in order["items"])
    if order.get("member"):
        gross -= round(gross * MEMBER_RATE, 2)
    return round(gross, 2)


def needs_approval(amount: float) -> bool:
    return amount > APPROVAL_LIMIT


def reminder_delay(request: dict) -> float:
    """Seconds to wait before the second reminder."""
    return 3600.0 * (2 if request.get("gentle") else 1)
