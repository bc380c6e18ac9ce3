"""A support agent as one durable flow (flows.py): a model proposes tool calls, tools run, the
model answers or hands the ticket to a human. policy.py holds the orchestration rules (part of
the fingerprint), model.py and tools.py the effects (journaled steps)."""
