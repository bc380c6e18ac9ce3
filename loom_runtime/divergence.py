"""D3: replay-divergence detection (ADR-0113 D3, implementation notes 3-5, 9 and fix rounds 1-3).

A re-run knows what the journal says it did. Before the first live append of *new work* (a live
``STEP_STARTED``, a park, a timer registration, a continuation, completion), every completed frame
recorded before the resume point must have been asked for by this re-run. A recorded step the body
never asked for means the code changed shape, and letting the run continue would run effects under
a diverged body.

Rules, as corrected by the ADR's fix rounds:

* **Membership, not order.** A pure reorder of served steps passes.
* **Baseline.** The terminal (completed or failed) frames folded at run start, minus those whose
  terminal event precedes the last ``EXECUTION_MIGRATED`` (a migration re-baselines on purpose).
* **Not judged:** an ``EVENT_EMITTED`` and a live decision's ``DECISION_RECORDED`` (both appear on
  unchanged bodies), and the appends that follow a decision already taken (``STEP_COMPLETED``,
  ``STEP_FAILED``, ``PARALLEL_*``, ``EXECUTION_FAILED``). The claim is "no step's effect runs under a
  diverged body", not "nothing is appended".
* **A served decision exempts its ``innerSteps``** (always written, possibly ``[]``); a legacy
  record without the field falls back to the naming convention ``<decisionId>:…``/``<decisionId>#…``.
* **A re-start of a recorded, unfinished step** (a crash between its start and completion) is part
  of the recorded shape: it is judged only against the frames first started before it.
* **Parallel scopes compare as a set.** Frames that started inside a scope still open in this re-run
  are judged when it closes; a live step inside an open scope judges only the frames outside open
  scopes that were first started before the scope's recorded start (all of them when the scope was
  never recorded).
* **Explicit branches** (``ctx.parallel([("a", fn, *args), …])``) name their steps before any runs,
  so such a scope is identified by its steps' recorded frames, not only by its position: its
  recorded start is the lowest recorded frame among its explicit branches (judged at once below it,
  before any is asked for), its own frames are those in the scope paths those frames carry, and a
  scope of explicit branches only also *forces* its own recorded frames it no longer names (judged
  at its first live step, not at its close: fix round 1 item 4, fix round 2 item 3). A scope of
  explicit branches none of which is recorded is new work: every recorded frame outside the other
  open scopes must have been asked for before its first live step, even when a recorded scope sat
  at the same position (so it is not subject to the scope-path aliasing residual of fix round 3).
  Function branches keep the positional rules above: what a function will ask for is unknown until
  it runs, so its scope's dropped frames are judged only at close.
* **Modes.** ``off``; ``warn`` (one report through ``on_report``, then the detector stops judging:
  O(1) per append afterwards); ``fail`` (raise :class:`FlowReplayDivergenceError` and *latch*: a body
  that swallows the refusal is refused again at its next append and at completion).

Cost: one set and one first-start-ordered list built once per run from the fold the runtime already
holds (O(recorded terminal frames)); each check is O(1) while nothing is pending (the common case)
and a monotone cursor makes the "anything pending before rank r" question O(1) amortised.
Rejected: recording the asked-for id sequence and comparing it exactly (duplicates the frames and
fails benign reorders), and judging every append (refused healthy executions; fix round 1).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from .errors import FlowReplayDivergenceError
from .replay import ReplayState

__all__ = ["DIVERGENCE_MODES", "DivergenceDetector", "DivergenceWarning", "divergence_message", "resolve_mode"]

DIVERGENCE_MODES = ("off", "warn", "fail")

_INF = float("inf")


class DivergenceWarning(UserWarning):
    """Issued (when no ``on_warn`` is given) for a divergence in ``warn`` mode or a refusal."""


_SHOWN = 20  # skipped ids a message names before "and N more"


def resolve_mode(divergence: str | None, *, strict: bool) -> str:
    """An explicit mode wins; otherwise ``fail`` under ``strict`` and ``warn`` by default."""
    if divergence is None:
        return "fail" if strict else "warn"
    if divergence not in DIVERGENCE_MODES:
        raise ValueError(f"divergence must be one of {', '.join(DIVERGENCE_MODES)}; got {divergence!r}")
    return divergence


def divergence_message(
    *, flow_id: str, execution_id: str, skipped: Iterable[str], before: str, outcome: str
) -> str:
    ids = list(skipped)
    shown = ", ".join(f"`{s}`" for s in ids[:_SHOWN]) + (f" and {len(ids) - _SHOWN} more" if len(ids) > _SHOWN else "")
    return (
        f"flow `{flow_id}` execution `{execution_id}`: this re-run never asked for {len(ids)} recorded step(s) "
        f"{shown} before {before}; the flow body diverged from its journal. {outcome} Fix: deploy the version it "
        "started on (ship its chunk), list the recorded codeHash in compatible_with=[...] if the edit is "
        "replay-safe, or migrate it with runtime.resume_as(...); then call runtime.retry_diverged(execution_id)."
    )


@dataclass(frozen=True, slots=True)
class _OpenScope:
    """A parallel scope open in this re-run, as the detector judges it."""

    path: str  # its position in this re-run (``/0``, ``/0/1``)
    floor: float  # frames first started at or after this were recorded inside it (or after it)
    owned: tuple[str, ...]  # recorded scope paths whose frames belong to it (compared as a set)
    forced: frozenset[str]  # its own recorded frames it no longer asks for (explicit branches only)

    def owns(self, scope: str | None) -> bool:
        return scope is not None and any(scope == p or scope.startswith(p + "/") for p in self.owned)


class DivergenceDetector:
    """Judges one run of one execution. Built from the fold at run start; lives for that run only."""

    __slots__ = (
        "mode", "flow_id", "execution_id", "_on_report", "_state", "_ranked", "_pending", "_cursor",
        "_open", "_reported", "latched", "latched_before",
    )

    def __init__(
        self, state: ReplayState, mode: str, *, on_report: Callable[[str, tuple[str, ...]], None] | None = None
    ) -> None:
        self.mode = mode
        self.flow_id = state.flow_id
        self.execution_id = state.execution_id
        self._on_report = on_report
        self._state = state
        self._reported = False
        self.latched: FlowReplayDivergenceError | None = None
        self.latched_before: str | None = None
        self._open: list[_OpenScope] = []  # scopes open in this re-run, outermost first
        if mode == "off":
            self._ranked, self._pending = [], set()
        else:
            baseline = [f for f in state.frames.values() if f.terminal and (f.terminal_seq or 0) > state.migrated_seq]
            baseline.sort(key=lambda f: f.first_seq)
            self._ranked = baseline
            self._pending = {f.step_id for f in baseline}
        self._cursor = 0

    # -- what the re-run asked for ------------------------------------------------------------

    def asked(self, step_id: str) -> None:
        self._pending.discard(step_id)

    def exempt(
        self, decision_id: str, inner_steps: tuple[str, ...] | None, *, window: tuple[int, int] | None = None
    ) -> None:
        """A served decision: the steps its (skipped) decider ran are not expected to be asked for.

        ``window``: for a record whose ``innerSteps`` overflowed its caps, the sequence range the
        decider ran in; frames first started inside it are exempt too (bounded fail-open: a body
        step that merely overlapped the decider is exempted with them).
        """
        if self._idle() or not self._pending:
            return
        if inner_steps is not None:
            self._pending.difference_update(inner_steps)
            if window is not None:
                lo, hi = window
                i = bisect.bisect_left(self._ranked, lo, key=lambda f: f.first_seq)
                while i < len(self._ranked) and self._ranked[i].first_seq < hi:
                    self._pending.discard(self._ranked[i].step_id)
                    i += 1
            return
        # A record that predates innerSteps: the naming convention `<decisionId>:…` / `<decisionId>#…`.
        prefixes = (decision_id + ":", decision_id + "#")
        self._pending.difference_update([sid for sid in self._pending if sid.startswith(prefixes)])

    def open_scope(self, path: str, *, explicit: Collection[str] = (), only_explicit: bool = False) -> None:
        """A scope opens at ``path``; ``explicit``: the step ids of its explicit branches,
        ``only_explicit``: it has no function branch (so it asks for nothing else)."""
        self._open.append(self._judged_scope(path, explicit, only_explicit))

    def name_branches(self, path: str, *, explicit: Collection[str], only_explicit: bool) -> None:
        """The open scope at ``path`` learnt its branches (an async gather's branches announce
        themselves as they start): judge it from now on as if it had opened with them."""
        for i, scope in enumerate(self._open):
            if scope.path == path:
                self._open[i] = self._judged_scope(path, explicit, only_explicit)
                return

    def _judged_scope(self, path: str, explicit: Collection[str], only_explicit: bool) -> _OpenScope:
        state = self._state
        recorded = [state.frames[sid] for sid in explicit if sid in state.frames]
        if recorded:
            # identified by its own steps: its recorded start is the lowest of their frames
            floor: float = min(f.first_seq for f in recorded)
            owned = tuple(sorted({f.scope for f in recorded if f.scope is not None}))
        elif only_explicit and explicit:
            # none of the steps it names was recorded: a new scope, whatever sat at this position
            floor, owned = _INF, ()
        else:
            floor, owned = state.scopes_started.get(path, _INF), (path,)
        scope = _OpenScope(path, floor, owned, frozenset())
        if only_explicit and explicit:
            names = frozenset(explicit)
            forced = frozenset(f.step_id for f in self._ranked if scope.owns(f.scope) and f.step_id not in names)
            scope = _OpenScope(path, floor, owned, forced)
        return scope

    def close_scope(self, path: str) -> None:
        """The scope's recorded frames compare as a set now that it closed.

        Scopes close by path, not last-opened first: sibling scopes of an async flow (two gathers
        in two tasks) are open at once and close in whatever order their branches finish."""
        index = next(i for i in range(len(self._open) - 1, -1, -1) if self._open[i].path == path)
        scope = self._open.pop(index)
        if self._idle() or not self._pending:
            return
        skipped = [f.step_id for f in self._ranked if f.step_id in self._pending and scope.owns(f.scope)]
        if skipped:
            self._report(skipped, f"parallel scope {path} closed")

    # -- the gate ------------------------------------------------------------------------------

    def check(self, before: str, *, restart_seq: int | None = None) -> None:
        """Refuse (``fail``) or report (``warn``) if recorded frames were skipped before ``before``.

        ``restart_seq``: the live append re-starts a recorded unfinished frame first started at that
        sequence; only frames ranked before it are judged.
        """
        if self.latched is not None:
            raise self.latched
        if self._idle() or not self._pending:
            return
        floor = _INF if restart_seq is None else restart_seq
        forced: set[str] = set()
        if self._open:
            floor = min(floor, min(s.floor for s in self._open))
            for scope in self._open:
                forced.update(sid for sid in scope.forced if sid in self._pending)
        # monotone cursor: skip the prefix of frames already asked for
        ranked = self._ranked
        while self._cursor < len(ranked) and ranked[self._cursor].step_id not in self._pending:
            self._cursor += 1
        if not forced and (self._cursor >= len(ranked) or ranked[self._cursor].first_seq >= floor):
            return
        skipped = [
            f.step_id
            for f in ranked[self._cursor :]
            if f.step_id in self._pending
            and (f.step_id in forced or (f.first_seq < floor and not self._in_open_scope(f.scope)))
        ]
        if skipped:
            self._report(skipped, before)

    def unasked(self) -> tuple[str, ...]:
        """Recorded frames of the baseline this re-run has not asked for (nor a served decision
        exempted), in first-start order: what a replay stopped before its resume point leaves
        unjudged. Empty in ``off`` mode (nothing is tracked)."""
        return tuple(f.step_id for f in self._ranked if f.step_id in self._pending)

    def _idle(self) -> bool:
        return self.mode == "off" or (self.mode == "warn" and self._reported)

    def _in_open_scope(self, scope: str | None) -> bool:
        return any(s.owns(scope) for s in self._open)

    def _report(self, skipped: list[str], before: str) -> None:
        self._reported = True
        if self.mode == "warn":
            message = divergence_message(
                flow_id=self.flow_id, execution_id=self.execution_id, skipped=skipped, before=before,
                outcome="Mode `warn`: the run proceeds (set divergence=\"fail\" to refuse it).",
            )
            if self._on_report is not None:
                self._on_report(message, tuple(skipped))
            return
        message = divergence_message(
            flow_id=self.flow_id, execution_id=self.execution_id, skipped=skipped, before=before,
            outcome="REFUSED: no step effect ran.",
        )
        self.latched = FlowReplayDivergenceError(
            message, skipped=skipped, execution_id=self.execution_id, flow_id=self.flow_id, parked=False
        )
        self.latched_before = before
        raise self.latched
