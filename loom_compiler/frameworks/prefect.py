"""``framework = "prefect"``: ``@prefect.flow``. No step is served from a journal: Prefect re-runs
tasks (its result cache is keyed by its own cache policy, not by replay), so a task's body is
code the flow runs and stays in the closure, as DESIGN §6 says for any helper."""

from __future__ import annotations

from .base import Profile

__all__ = ["PROFILE"]

PROFILE = Profile(
    name="prefect",
    flow_decorators=("prefect.flow", "prefect.flows.flow"),
    summary="prefect.flow; tasks are hashed like helpers",
)
