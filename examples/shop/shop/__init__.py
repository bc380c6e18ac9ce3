"""A small order service built on loom: durable ``checkout`` and ``refund`` flows (flows.py),
helpers they call (pricing.py, shipping.py), effects (steps.py) and the runtime wiring
(service.py; ``python -m shop`` is its command line)."""
