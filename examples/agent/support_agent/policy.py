"""Orchestration rules of the agent loop: how many turns, which tools, when to hand over.
Part of the flow's fingerprint: raising MAX_TURNS is a new code version."""

from __future__ import annotations

#: Model turns before the ticket goes to a human.
MAX_TURNS = 3

#: Tools the model may call; anything else is refused without running.
ALLOWED_TOOLS = ("lookup_order", "search_kb", "issue_credit")

#: Credits above this amount need a human even if the model proposes them.
CREDIT_LIMIT = 25.0


def system_prompt(topic: str) -> str:
    return f"You are a support agent for the shop. Topic: {topic}. Use tools; answer briefly."


def allowed(call: dict) -> bool:
    if call["tool"] not in ALLOWED_TOOLS:
        return False
    return call["tool"] != "issue_credit" or call["args"].get("amount", 0) <= CREDIT_LIMIT
