"""What runtime calls return: ``Handle`` (one call's outcome) and ``ExecutionView`` (``Runtime.get``).

Values only (frozen dataclasses) and the two functions that build them from a fold, so the drive
loop, the worker loop and the sandboxed replays all report an execution the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .definition import RESERVED_GATE
from .journal import events as ev
from .journal.events import Event
from .replay import Frame, ReplayState

__all__ = ["Handle", "ExecutionView", "state_handle", "view_of"]


@dataclass(frozen=True, slots=True)
class Handle:
    """The outcome of one runtime call for one execution.

    ``status``: running | suspended | completed | failed | continued. ``gate``: where a suspended
    execution is parked. ``error``: the recorded ``{type, message}`` of a failed execution.
    ``exception``: the exception this call observed (a failed body, a refusal in ``recover``).
    A call that continued an execution as new drives the successors too and returns the handle of
    the last one; a ``continued`` handle (from ``get``-like paths, or when another worker already
    holds the successor) carries the successor id in ``result``.
    """

    execution_id: str
    flow_id: str
    status: str
    result: Any = None
    gate: str | None = None
    error: Mapping[str, Any] | None = None
    exception: BaseException | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class ExecutionView:
    """What ``Runtime.get`` returns: the folded state of one execution plus its events."""

    execution_id: str
    flow_id: str
    status: str
    gate: str | None
    correlation_key: str | None
    result: Any
    error: Mapping[str, Any] | None
    flow_hash: str | None  # as recorded at start
    code_hash: str | None
    effective_code_hash: str | None  # after a migration: its toCodeHash
    migrated: bool
    continued_to: str | None
    events: tuple[Event, ...]
    frames: Mapping[str, Frame]

    @property
    def parked_on_divergence(self) -> bool:
        """Refused and parked on ``__loom_diverged__`` (a divergence, or a changed kind of work)."""
        return self.status == ev.SUSPENDED and self.gate == RESERVED_GATE


def state_handle(st: ReplayState, exception: BaseException | None = None) -> Handle:
    """The handle of an execution as its fold says it stands (no run)."""
    result = st.continued_to if st.status == ev.CONTINUED else st.result
    return Handle(st.execution_id, st.flow_id, st.status, result=result, gate=st.gate, error=st.error, exception=exception)


def view_of(st: ReplayState, events: tuple[Event, ...]) -> ExecutionView:
    return ExecutionView(
        execution_id=st.execution_id,
        flow_id=st.flow_id,
        status=st.status,
        gate=st.gate,
        correlation_key=st.correlation_key,
        result=st.result,
        error=st.error,
        flow_hash=st.flow_hash,
        code_hash=st.code_hash,
        effective_code_hash=st.effective_code_hash,
        migrated=st.migrated,
        continued_to=st.continued_to,
        events=events,
        frames=MappingProxyType(st.frames),
    )
