"""Activities: effects Temporal records in history by their type. Their bodies are not part of
any workflow's fingerprint (a worker runs the current body; history serves recorded results)."""

from __future__ import annotations

from dataclasses import dataclass

from temporalio import activity


@dataclass
class Receipt:
    order_id: str
    amount: float


@activity.defn
async def charge(order_id: str, amount: float) -> Receipt:
    return Receipt(order_id, amount)


class Mailer:
    """Activities as methods: the worker registers ``Mailer(...).send``."""

    def __init__(self, sender: str) -> None:
        self.sender = sender

    @activity.defn(name="send-confirmation")
    async def send(self, order_id: str) -> str:
        return f"{self.sender} -> {order_id}"
