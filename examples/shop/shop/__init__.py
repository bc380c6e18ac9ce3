"""A small shop service: one durable checkout flow (see flows.py)."""
