"""The "model": a step, because a real LLM call is an effect whose answer differs on every call.
Journaled, its answer is replayed verbatim on a re-run, so the loop is deterministic on replay.

This stand-in is scripted so the example runs offline: it reads the transcript and proposes the
next action the way a tool-calling model would."""

from __future__ import annotations

import re

from loom_runtime import step


@step
def think(transcript: list[dict]) -> dict:
    ticket = transcript[1]["content"]
    seen = {m["tool"] for m in transcript if m["role"] == "tool"}
    order = re.search(r"o-\d+", ticket)
    if "never" in ticket:  # a ticket the scripted model cannot resolve: it keeps searching
        return {"type": "calls", "calls": [{"tool": "search_kb", "args": {"query": ticket[:40]}}]}
    if order and "lookup_order" not in seen:
        return {"type": "calls", "calls": [
            {"tool": "lookup_order", "args": {"order_id": order.group()}},
            {"tool": "search_kb", "args": {"query": "late delivery"}},
        ]}
    if "late" in ticket and "issue_credit" not in seen:
        return {"type": "calls", "calls": [{"tool": "issue_credit", "args": {"order_id": order.group() if order else "?",
                                                                               "amount": 10.0}}]}
    return {"type": "answer", "text": "Sorry for the delay: your order ships tomorrow and a 10.00 credit was added."}
