"""Pricing helpers (first-party: bundled into every chunk that reaches them)."""

import math

RATE = 90  # percent kept after the discount


def discount(total: int) -> int:
    # floor, so a customer never pays a fraction of a cent more than quoted
    return math.floor(total * RATE / 100)


def fee(total: int) -> int:
    """The pricing fee (collides by name with shop.util.fee)."""
    return 2 if total < 100 else 0
