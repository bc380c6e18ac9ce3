"""``framework = "loom"`` (the default): loom's own runtime, the rules of DESIGN §6 and no more."""

from __future__ import annotations

from .base import Profile

__all__ = ["PROFILE"]

PROFILE = Profile(
    name="loom",
    flow_decorators=("loom_runtime.flow",),
    step_decorators=("loom_runtime.step",),
    summary="loom_runtime.flow / loom_runtime.step",
)
