"""Utilities; ``fee`` and ``LIMIT`` collide by name with definitions elsewhere."""

LIMIT = 500


def fee(total: int) -> int:
    return 1


def needs_review(total: int) -> bool:
    return total > LIMIT
