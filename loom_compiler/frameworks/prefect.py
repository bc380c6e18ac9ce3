"""``framework = "prefect"``: ``@prefect.flow``. No step is served from a journal: Prefect re-runs
tasks (its result cache is keyed by its own cache policy, not by replay), so a task's body is
code the flow runs and stays in the closure, as DESIGN §6 says for any helper.

``@flow(name="x")`` names the flow (its id); every other argument (``retries=``, ``task_runner=``,
``timeout_seconds=``, Prefect's own ``version=`` string) changes how the flow runs and feeds the
code hash, with what it reaches (``task_runner=MyRunner()`` follows ``MyRunner``)."""

from __future__ import annotations

from .base import FlowIdArgument, Profile

__all__ = ["PROFILE"]

PROFILE = Profile(
    name="prefect",
    flow_decorators=("prefect.flow", "prefect.flows.flow"),
    # ``flow(__fn=None, *, name=None, ...)``: a positional argument is the function, never the id
    flow_id_argument=FlowIdArgument(positional=False, keywords=("name",)),
    summary="prefect.flow; tasks are hashed like helpers",
)
