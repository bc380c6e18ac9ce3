"""Effects. Chunks import these live: step bodies are served from the journal on replay."""

from loom_runtime import step


@step
def reserve(sku: str) -> str:
    return f"reserved:{sku}"


@step
def charge(order_id: str, amount: int) -> str:
    return f"charged:{order_id}:{amount}"


@step
def ship(order_id: str) -> str:
    return f"shipped:{order_id}"
