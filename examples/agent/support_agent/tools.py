"""Tools the agent can call. Each call is one journaled step: a credit issued before a crash is
never issued twice, and a re-run gets the recorded result."""

from __future__ import annotations

from loom_runtime import step


def lookup_order(order_id: str) -> dict:
    return {"order_id": order_id, "status": "delayed", "eta_days": 1}


def search_kb(query: str) -> list[str]:
    return [f"kb: how to handle '{query}'"]


def issue_credit(order_id: str, amount: float) -> str:
    return f"credit:{order_id}:{amount:.2f}"


TOOLS = {"lookup_order": lookup_order, "search_kb": search_kb, "issue_credit": issue_credit}


@step
def run_tool(tool: str, args: dict) -> object:
    return TOOLS[tool](**args)


@step
def classify(text: str) -> str:
    return "delivery" if "order" in text or "late" in text else "general"


@step
def send_reply(ticket_id: str, text: str) -> str:
    return f"sent:{ticket_id}"
