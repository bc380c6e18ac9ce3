"""``RunPort``: everything one run of a flow body needs from outside it.

A run (:mod:`loom_runtime.run`, behind a :class:`~loom_runtime.context.Context`) serves recorded work
from the fold it was given and sends everything else through its port: the events it appends, the
time it records, the user code with effects it is about to run live (a step body, a decider) and
the successor a continuation starts. The drive loop (:mod:`loom_runtime.drive`) knows nothing else
about the world either, so the same loop serves

* production: :class:`~loom_runtime.runtime.Runtime` passes a port over its journal, leases and
  registry (:class:`StorePort`);
* a sandboxed replay (``loom replay``, ``loom deploy-check``): a port whose ``append`` refuses the
  first live append and whose ``admit`` refuses every live step or decider, so recorded work is
  served, nothing of the user's runs, and the replay stops where the re-run would do new work.

Rejected: the run calling back into ``Runtime`` (``context.py`` and ``runtime.py`` imported each
other, and a replay had to build a whole ``Runtime`` over a doctored journal to reuse the loop).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from .errors import ExecutionNotFoundError
from .journal import events as ev
from .journal.events import NewEvent

if TYPE_CHECKING:
    from .leases import Leases
    from .registry import FlowVersion, Registry
    from .replay import ReplayState

__all__ = ["RunPort", "StorePort", "started_event"]


class RunPort(Protocol):
    def append(
        self, execution_id: str, events: Sequence[NewEvent], *, expected_seq: int, leaves_running: bool | None = None
    ) -> int:
        """Append ``events`` fenced on ``expected_seq``; return the new last sequence number.

        Raise a :class:`~loom_runtime.errors.JournalError` to stop the run as a crash would (the
        drive loop re-raises it and appends nothing more)."""

    def now(self) -> float:
        """The time a live ``ctx.now()`` records."""

    def timer_now(self) -> float:
        """The time a new timer's ``fireAt`` (and a retry's ``retryAt``) is counted from: the clock
        its due-ness is judged by (the store's shared clock on PostgreSQL, see ``Runtime.timer_clock``)."""

    def admit(self, execution_id: str, kind: str, ident: str) -> None:
        """Called right before user code with effects runs live: ``kind`` ``"step"`` (after its
        ``STEP_STARTED`` was appended) or ``"decider"`` (before it is called), ``ident`` its id.

        Production admits it while the worker's lease leaves room to start it (else a
        ``FencingError``: the drive stops, nothing of the step ran); a sandbox raises (a
        ``JournalError`` subclass, so the run stops as on a refused append)."""

    def start_successor(self, state: ReplayState, new_input: Any) -> str:
        """Create (or find) the successor of a continuation; return its execution id."""

    def report_divergence(self, message: str, skipped: tuple[str, ...]) -> None:
        """A divergence in ``warn`` mode (the run proceeds)."""

    def report_refusal(self, message: str) -> None:
        """A run refused and parked on ``__loom_diverged__`` (or a park that failed)."""


def started_event(version: FlowVersion, input: Any) -> NewEvent:
    """The ``EXECUTION_STARTED`` of a new execution of ``version`` (``input`` already normalised)."""
    return NewEvent(
        ev.EXECUTION_STARTED,
        {"flowId": version.flow_id, "flowHash": version.flow_hash, "codeHash": version.code_hash, "input": input},
    )


def successor_id(execution_id: str) -> str:
    """``e1`` → ``e1~1`` → ``e1~2``: deterministic, so a crash mid-continuation finds its successor."""
    base, sep, n = execution_id.rpartition("~")
    if sep and n.isdigit():
        return f"{base}~{int(n) + 1}"
    return f"{execution_id}~1"


class StorePort:
    """The production port: appends through the worker's leases, the registry's current version for
    continuations, reports through the runtime's callbacks."""

    __slots__ = ("_leases", "_registry", "_clock", "_timer_clock", "_on_divergence", "_on_refusal")

    def __init__(
        self,
        leases: Leases,
        registry: Registry,
        clock: Callable[[], float],
        *,
        on_divergence: Callable[[str, tuple[str, ...]], None],
        on_refusal: Callable[[str], None],
        timer_clock: Callable[[], float] | None = None,
    ) -> None:
        self._leases = leases
        self._registry = registry
        self._clock = clock
        self._timer_clock = timer_clock if timer_clock is not None else clock
        self._on_divergence = on_divergence
        self._on_refusal = on_refusal

    def append(
        self, execution_id: str, events: Sequence[NewEvent], *, expected_seq: int, leaves_running: bool | None = None
    ) -> int:
        return self._leases.append(execution_id, list(events), expected_seq=expected_seq, leaves_running=leaves_running)

    def now(self) -> float:
        return float(self._clock())

    def timer_now(self) -> float:
        return float(self._timer_clock())

    def admit(self, execution_id: str, kind: str, ident: str) -> None:
        # a worker whose lease may be about to go to another worker stops before the body runs
        # (``lease_keeper``): fenced appends stop its writes, nothing but this stops its effects
        self._leases.admit(execution_id, f"{kind} `{ident}`")

    def start_successor(self, state: ReplayState, new_input: Any) -> str:
        successor = successor_id(state.execution_id)
        current = self._registry.current(state.flow_id)  # a continuation re-versions (ADR 0109)
        try:
            self._leases.journal.summary(successor)
        except ExecutionNotFoundError:
            self._leases.create(successor, started_event(current, new_input))  # ours from its first event
        return successor

    def report_divergence(self, message: str, skipped: tuple[str, ...]) -> None:
        self._on_divergence(message, skipped)

    def report_refusal(self, message: str) -> None:
        self._on_refusal(message)
