"""Effects (journaled: only their names are in a flow's fingerprint)."""

from __future__ import annotations

import os

from loom_runtime import step


@step
def reserve(sku: str) -> str:
    return f"reservation:{sku}"


@step
def charge(order_id: str, amount: float) -> str:
    return f"receipt:{order_id}:{amount:.2f}"


@step
def pack(parcel: list[str]) -> str:
    if os.environ.get("ORDERS_CRASH_IN_PACK") == "1":
        # The fixture's "running" execution: the process dies after STEP_STARTED is durable and
        # before the step completes, as a SIGKILL would. A fresh worker's recover() re-runs it.
        os._exit(17)
    return "parcel:" + "+".join(parcel)


@step
def ship(order_id: str, parcels: list[str]) -> str:
    return f"tracking:{order_id}:{len(parcels)}"


@step
def notify(customer: str, text: str) -> str:
    return f"sent:{customer}:{text}"
