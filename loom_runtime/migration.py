"""D4 migration: what ``Runtime.resume_as`` appends to move an execution to another version.

``migration_batch`` is pure (a fold and a target version in, the events out, or a refusal): the
runtime appends the batch fenced on the fold's last sequence number and drives on. ``replay-check``
refuses (``ReplayCheckError``, nothing appended) when a recorded frame is orphaned in the target
(step families, :func:`~loom_runtime.families.orphaned_frames`); ``force`` skips that check. The
migration re-baselines divergence detection: frames recorded before it are exempt (D3).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .definition import RESERVED_GATE
from .errors import ExecutionStateError, FlowUsageError, ReplayCheckError
from .families import orphaned_frames
from .journal import events as ev
from .journal.events import NewEvent, is_json_value
from .registry import FlowVersion, Registry
from .replay import ReplayState
from .run import normalise

__all__ = ["STRATEGIES", "check_migratable", "migration_batch", "target_version"]

STRATEGIES = ("replay-check", "force")


def target_version(registry: Registry, flow_id: str, target: str | FlowVersion) -> FlowVersion:
    """``target`` (a codeHash, a flowHash, ``"current"`` or a ``FlowVersion``) as a registered version."""
    if isinstance(target, FlowVersion):
        if target.flow_id != flow_id:
            raise FlowUsageError(f"cannot migrate an execution of `{flow_id}` to flow `{target.flow_id}`")
        return target
    if target == "current":
        return registry.current(flow_id)
    versions = registry.versions(flow_id)
    for v in versions:
        if v.code_hash == target:
            return v
    for v in versions:
        if target in (v.flow_hash, v.legacy_flow_hash):
            return v
    known = ", ".join(v.code_hash or v.flow_hash for v in versions)
    raise FlowUsageError(f"flow `{flow_id}` has no registered version {target!r} (known: {known})")


def check_migratable(state: ReplayState) -> None:
    """Only a running or suspended execution can migrate."""
    if state.status in ev.TERMINAL_STATUSES:
        raise ExecutionStateError(
            f"execution `{state.execution_id}` is {state.status}; only a running or suspended execution can migrate",
            execution_id=state.execution_id,
            status=state.status,
        )


def migration_batch(
    state: ReplayState,
    version: FlowVersion,
    *,
    strategy: str,
    transform_state: Callable[[dict[str, Any]], Mapping[str, Any]] | None,
) -> list[NewEvent]:
    """The events that migrate ``state`` to ``version`` (see ``Runtime.resume_as``)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}; got {strategy!r}")
    check_migratable(state)
    execution_id = state.execution_id
    frames_doc: dict[str, Any] | None = None
    frame_ids: list[str] = [f.step_id for f in sorted(state.frames.values(), key=lambda f: f.first_seq)]
    if transform_state is not None:
        new = transform_state(state.completed_results())
        if not isinstance(new, Mapping) or not all(isinstance(k, str) for k in new) or not is_json_value(dict(new)):
            raise FlowUsageError(
                f"execution `{execution_id}`: transform_state must return a mapping of step id to a JSON result"
            )
        frames_doc = normalise(dict(new))
        frame_ids = list(frames_doc)
    if strategy == "replay-check":
        orphans = orphaned_frames(frame_ids, version.definition)
        if orphans:
            listed = ", ".join(str(o) for o in orphans)
            raise ReplayCheckError(
                f"flow `{state.flow_id}` execution `{execution_id}`: replay-check refuses the migration to "
                f"{version.code_hash or version.flow_hash}: recorded frames it does not know: {listed}. Declare them "
                "(steps=[...] or step_families=[...]), drop them with transform_state, or use strategy=\"force\"",
                orphans=orphans,
                execution_id=execution_id,
                flow_id=state.flow_id,
            )
    payload: dict[str, Any] = {
        "toFlowHash": version.flow_hash,
        "toCodeHash": version.code_hash or "",
        "fromFlowHash": state.effective_flow_hash,
        "fromCodeHash": state.effective_code_hash,
        "strategy": strategy,
    }
    if frames_doc is not None:
        payload["frames"] = frames_doc
    batch = [NewEvent(ev.EXECUTION_MIGRATED, payload)]
    if state.status == ev.SUSPENDED and state.gate == RESERVED_GATE:
        # a migration is one of the ways out of a divergence park: re-run on the target now
        batch.append(NewEvent(ev.EXECUTION_RESUMED, {"gate": RESERVED_GATE, "payload": None}))
    return batch
