"""``Runtime``: the synchronous durable-execution driver (DESIGN §5).

Every operation re-runs the flow body from the top over the journal, in the calling thread, until
the body completes, fails, parks (a gate, a timer, a divergence refusal) or continues as new:

1. read the execution's events and fold them (:mod:`loom_runtime.replay`);
2. resolve the version to run from the *recorded* hashes (D2, ``Registry.resolve``): an execution
   pinned to an old codeHash runs the old chunk; a migrated one resolves by ``toCodeHash``;
3. run the body with a :class:`~loom_runtime.context.Context` that serves recorded work and appends
   live work (fenced on the last sequence number it read), guarded by the divergence detector (D3);
4. check completion (D3) and append the outcome.

Refusals. Under ``divergence="fail"`` a diverged re-run appends nothing but an ordinary park on the
reserved gate ``__loom_diverged__`` (``correlationKey: "skipped <n>: <ids>"``), reports through
``on_warn`` and raises :class:`FlowReplayDivergenceError`; it is not failed, ``recover`` and timers
skip it, and ``retry_diverged`` re-runs it once the code is fixed, pinned, listed or migrated. A
re-run that asks for a recorded id as another kind of work (``NonDeterminismError``) is parked the
same way (``correlationKey: "kind changed: …"``) in every divergence mode: it cannot proceed under
any mode, and left running it was re-driven by every ``recover`` pass, forever and invisibly.
Rejected for it: failing the execution (a deploy fault must not end a long-lived execution; the
fixed or pinned code finishes it) and a separate reserved gate (one gate, one way out:
``retry_diverged``). A ``FlowCodeMismatchError`` is raised before anything is appended (it stays
running on purpose: registering the version it needs is the fix, and the next ``recover`` picks
it up without an operator). A step's exception is a flow
outcome (``STEP_FAILED``, then ``EXECUTION_FAILED`` unless the body catches it); a journal error
(a stale writer's ``FencingError``) is not, and propagates: the run stops as a crash would.

Workers (``worker_id``). A worker creates its new executions (``start``, a continuation's
successor) already leased to itself in one transaction (``create_leased``), claims an existing
execution's lease before it reads it (``recover``, timers, a successor that already existed) and
holds it while it drives; an append that
parks or ends the execution frees it in the same transaction, so a parked execution belongs to
nobody and whoever answers it drives it on. ``recover`` lists only what it could lease, skips a
lost race on the summary row (never a read of the events), and visits in a shuffled order per
pass. Rejected: a coordinator assigning executions to workers (a second moving part that must
itself fail over; the lease in the journal row already is the assignment).

Crash semantics: a step is *at least once*. If the process dies between ``STEP_STARTED`` and
``STEP_COMPLETED`` the next run (``recover``) re-runs it; a completed step is always served.

Rejected: an asyncio or thread-pool driver (concurrency is not required by the design, and a
deterministic single-threaded replay is what makes the divergence rules exact); keeping folds or
Contexts alive between calls (the journal is the only truth after a crash, and another process may
have advanced it).
"""

from __future__ import annotations

import os
import random
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NoReturn

from .context import Context, _ContinueAsNew, _normalise, _Parked, _qualname
from .definition import RESERVED_GATE, FlowDefinition
from .divergence import DivergenceDetector, DivergenceWarning, divergence_message, resolve_mode
from .errors import (
    ExecutionNotFoundError,
    ExecutionStateError,
    FencingError,
    FlowReplayDivergenceError,
    FlowUsageError,
    JournalError,
    LoomError,
    NonDeterminismError,
    ReplayCheckError,
)
from .families import orphaned_frames
from .journal import events as ev
from .journal.events import Event, ExecutionSummary, NewEvent, is_json_value
from .journal.memory import MemoryJournal
from .journal.protocol import JournalStore, Lease
from .journal.sqlite import SqliteJournal
from .journal.urls import open_journal
from .registry import FlowVersion, Registry
from .replay import Frame, ReplayState, advance, fold

__all__ = ["Runtime", "Handle", "ExecutionView"]

_STRATEGIES = ("replay-check", "force")
_LEAVES_RUNNING = frozenset({ev.EXECUTION_SUSPENDED, ev.EXECUTION_COMPLETED, ev.EXECUTION_FAILED, ev.EXECUTION_CONTINUED})


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


class Runtime:
    """Drives flows durably over a journal. See the module docstring for the semantics.

    A Runtime is driven from one thread at a time (use one per worker thread; they may share a
    registry and, for SQLite and PostgreSQL, the journal's storage).
    """

    def __init__(
        self,
        *,
        journal: JournalStore | str | os.PathLike[str] | None = None,
        registry: Registry | None = None,
        divergence: str | None = None,
        strict: bool = False,
        on_warn: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.time,
        worker_id: str | None = None,
        lease_ttl: float = 30.0,
    ) -> None:
        """``journal``: a store, a journal URL (``open_journal``) or a path for a SQLite journal (the
        embedded default); ``None`` keeps the journal in memory. ``divergence``: ``off | warn | fail``; unset means ``fail`` under
        ``strict=True`` and ``warn`` otherwise (an explicit value always wins).

        ``worker_id``: when several workers share one journal, each takes a lease
        (``JournalStore.acquire_lease``, ``lease_ttl`` seconds, renewed as it appends) on an execution
        before writing to it and passes it with every append, so a worker that stalled past its lease
        is fenced even if its expected sequence number happens to still match. Without it, the
        expected-sequence fence alone keeps two writers from interleaving."""
        if journal is None:
            journal = MemoryJournal(clock=clock)
        elif isinstance(journal, str):
            journal = open_journal(journal)  # memory:, sqlite:///…, postgresql://…, or a plain path
        elif isinstance(journal, os.PathLike):
            journal = SqliteJournal(journal)
        self.journal: JournalStore = journal
        self.registry = registry if registry is not None else Registry(strict=strict, on_warn=on_warn)
        self.divergence = resolve_mode(divergence, strict=strict)
        self.strict = strict
        self.clock = clock
        self.worker_id = worker_id
        self.lease_ttl = lease_ttl
        self._leases: dict[str, tuple[Lease, float]] = {}  # lease, monotonic time it was taken
        self._lease_lock = threading.RLock()  # shared with the lease heartbeat thread
        self._on_warn = on_warn
        self._rng = random.Random()  # the visit order of a worker's passes (seeded from the OS)
        #: Divergence reports in ``warn`` mode (one per run at most).
        self.divergence_warnings = 0
        #: Runs refused and parked on ``__loom_diverged__``: a divergence in ``fail`` mode, or a
        #: changed kind of work (any mode).
        self.divergence_refusals = 0

    # -- registration and starts --------------------------------------------------------------

    def register(self, fn_or_definition: Callable[..., Any] | FlowDefinition) -> FlowVersion:
        return self.registry.register(fn_or_definition)

    def start(self, flow_id: str | Callable[..., Any], input: Any = None, *, execution_id: str | None = None) -> Handle:
        """Start a new execution on the current version of ``flow_id`` and run it until it parks or ends."""
        if callable(flow_id):
            flow_id = FlowDefinition.from_function(flow_id).id
        version = self.registry.current(flow_id)
        if not is_json_value(input):
            raise FlowUsageError(f"flow `{flow_id}`: the input must be a JSON value, got {type(input).__name__}")
        eid = execution_id if execution_id is not None else uuid.uuid4().hex
        started = self._started_event(version, input)
        self._create(eid, started)
        # its creator holds the whole journal (the one event it just wrote): no read before the body runs
        return self._drive_chain(eid, advance(ReplayState(execution_id=eid), [started], first_seq=1))

    def _create(self, execution_id: str, started: NewEvent) -> None:
        """Create an execution; a worker creates it leased to itself in the same transaction.

        Left unleased for even one transaction, another worker's ``recover`` listing in between
        could take it over (and run its first decider too), and this worker's own lease attempt
        then met a ``FencingError``. Rejected: creating, then leasing (the window this closes)."""
        if self.worker_id is None:
            self.journal.create(execution_id, started)
            return
        with self._lease_lock:
            lease = self.journal.create_leased(execution_id, started, owner=self.worker_id, ttl=self.lease_ttl)
            self._leases[execution_id] = (lease, time.monotonic())

    def _started_event(self, version: FlowVersion, input: Any) -> NewEvent:
        return NewEvent(
            ev.EXECUTION_STARTED,
            {"flowId": version.flow_id, "flowHash": version.flow_hash, "codeHash": version.code_hash,
             "input": _normalise(input)},
        )

    # -- answering a park ---------------------------------------------------------------------

    def resume(self, execution_id: str, payload: Any = None, *, gate: str | None = None) -> Handle:
        """Answer the gate a suspended execution is parked on and run it on.

        ``gate``, when given, must be the gate it is parked on. Answering ``__loom_diverged__`` is
        :meth:`retry_diverged` (the payload is dropped: that gate carries no answer).
        """
        state = self._fold(execution_id)
        if state.status != ev.SUSPENDED:
            raise ExecutionStateError(
                f"execution `{execution_id}` is {state.status}, not suspended; there is nothing to resume",
                execution_id=execution_id,
                status=state.status,
            )
        if gate is not None and gate != state.gate:
            raise ExecutionStateError(
                f"execution `{execution_id}` is parked on `{state.gate}`, not `{gate}`; resume that gate",
                execution_id=execution_id,
                status=state.status,
            )
        return self._answer(state, payload)

    def retry_diverged(self, execution_id: str) -> Handle:
        """Re-run an execution parked on ``__loom_diverged__`` (after fixing, pinning, listing or migrating)."""
        state = self._fold(execution_id)
        if state.status != ev.SUSPENDED or state.gate != RESERVED_GATE:
            where = f"parked on `{state.gate}`" if state.status == ev.SUSPENDED else state.status
            raise ExecutionStateError(
                f"execution `{execution_id}` is {where}, not parked on `{RESERVED_GATE}`; nothing to retry",
                execution_id=execution_id,
                status=state.status,
            )
        return self._answer(state, None)

    def _answer(self, state: ReplayState, payload: Any) -> Handle:
        """Append the answer to the gate ``state`` is parked on and drive the execution on."""
        execution_id = state.execution_id
        if state.gate == RESERVED_GATE:
            payload = None
        if not is_json_value(payload):
            raise FlowUsageError(f"execution `{execution_id}`: a resume payload must be a JSON value, got {type(payload).__name__}")
        self._resolve(state)  # a code mismatch refuses before anything is appended
        batch = [NewEvent(ev.EXECUTION_RESUMED, {"gate": state.gate, "payload": _normalise(payload)})]
        try:
            self._append(execution_id, batch, expected_seq=state.last_seq)
        except BaseException:
            self._release_leases()
            raise
        return self._drive_chain(execution_id, advance(state, batch, first_seq=state.last_seq + 1))

    def tick(self, now: float | None = None) -> list[Handle]:
        """Fire every durable timer due at ``now`` (default: the clock) and run those executions on.

        A timer another worker (or process) fires first is skipped: no handle, and for a worker no
        read either (it claims the lease before reading; see :meth:`recover`).
        """
        now = self.clock() if now is None else now
        handles = []
        for s in self._visit_order(self.journal.due_timers(now)):
            try:
                if not self._claim(s.execution_id, ev.SUSPENDED):
                    continue
                handles.append(self.resume(s.execution_id, None, gate=s.gate))
            except ExecutionStateError:
                continue  # answered since the listing: not ours to report
            except LoomError as exc:
                handles.append(self._error_handle(s.execution_id, exc))
            finally:
                self._release_leases()  # a claim that did not reach a drive
        return handles

    def recover(self) -> list[Handle]:
        """After a crash: fire due timers, then re-drive every *running* execution (parked ones wait).

        A refusal or mismatch of one execution does not stop the pass; it is reported on its handle.
        With ``worker_id`` set, executions another worker holds a live lease on are skipped: the
        listing leaves them out (the store judges leases by its own clock) and one leased between
        the listing and the claim is skipped on the failed claim, before any read, and so is one
        parked or finished since the listing; none of them is in the result. Each pass visits the
        executions in a random order of its own, so several workers do not all queue on the same
        first execution.
        """
        handles = self.tick()
        done = {h.execution_id for h in handles}
        running = self.journal.list_executions(statuses=[ev.RUNNING], leasable_by=self.worker_id)
        for s in self._visit_order(running):
            if s.execution_id in done:
                continue
            try:
                if not self._claim(s.execution_id, ev.RUNNING):
                    continue
                handles.append(self._drive_chain(s.execution_id))
            except LoomError as exc:
                handles.append(self._error_handle(s.execution_id, exc))
            finally:
                self._release_leases()  # a claim that did not reach a drive
        return handles

    def _claim(self, execution_id: str, status: str) -> bool:
        """A worker takes the lease before reading; ``False`` when another worker holds it, or when
        the execution is no longer ``status`` (another worker parked, answered or finished it since
        the listing: its summary row says so, a key lookup instead of a read and fold of its
        events). A lone runtime claims nothing and reads as it drives."""
        if self.worker_id is None:
            return True
        try:
            self._lease(execution_id)
        except FencingError:
            return False
        if self.journal.summary(execution_id).status != status:
            self._release_leases()
            return False
        return True

    def _visit_order(self, summaries: tuple[ExecutionSummary, ...]) -> Sequence[ExecutionSummary]:
        """Execution-id order for a lone runtime (deterministic); a fresh shuffle per pass for a worker.

        Rejected: a fixed offset derived from the worker id (workers whose offsets fall close walk
        the same run of executions in lock-step every pass; a per-pass shuffle decorrelates them)."""
        if self.worker_id is None or len(summaries) < 2:
            return summaries
        order = list(summaries)
        self._rng.shuffle(order)
        return order

    # -- migration (D4) -----------------------------------------------------------------------

    def resume_as(
        self,
        execution_id: str,
        target: str | FlowVersion,
        *,
        strategy: str = "replay-check",
        transform_state: Callable[[dict[str, Any]], Mapping[str, Any]] | None = None,
    ) -> Handle:
        """Migrate an execution to another version of its flow and run it on if it can run.

        ``target``: a codeHash, a flowHash, ``"current"`` or a ``FlowVersion``. ``transform_state``
        receives the completed step results ``{step_id: result}`` and returns the frame set the
        migrated execution replays from (frames it drops are gone; failed or unfinished frames are
        not carried). ``replay-check`` refuses (``ReplayCheckError``, nothing appended) when a
        frame is orphaned in the target (D4 families); ``force`` skips that check. The migration
        re-baselines divergence detection: frames recorded before it are exempt.
        """
        if strategy not in _STRATEGIES:
            raise ValueError(f"strategy must be one of {', '.join(_STRATEGIES)}; got {strategy!r}")
        state = self._fold(execution_id)
        if state.status in ev.TERMINAL_STATUSES:
            raise ExecutionStateError(
                f"execution `{execution_id}` is {state.status}; only a running or suspended execution can migrate",
                execution_id=execution_id,
                status=state.status,
            )
        version = self._target_version(state.flow_id, target)
        frames_doc: dict[str, Any] | None = None
        frame_ids: list[str] = [f.step_id for f in sorted(state.frames.values(), key=lambda f: f.first_seq)]
        if transform_state is not None:
            new = transform_state(state.completed_results())
            if not isinstance(new, Mapping) or not all(isinstance(k, str) for k in new) or not is_json_value(dict(new)):
                raise FlowUsageError(
                    f"execution `{execution_id}`: transform_state must return a mapping of step id to a JSON result"
                )
            frames_doc = _normalise(dict(new))
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
        try:
            self._append(
                execution_id, batch, expected_seq=state.last_seq,
                leaves_running=batch[-1].type == ev.EXECUTION_MIGRATED and state.status != ev.RUNNING,
            )
        except BaseException:
            self._release_leases()
            raise
        return self._drive_chain(execution_id, advance(state, batch, first_seq=state.last_seq + 1))

    def _target_version(self, flow_id: str, target: str | FlowVersion) -> FlowVersion:
        if isinstance(target, FlowVersion):
            if target.flow_id != flow_id:
                raise FlowUsageError(f"cannot migrate an execution of `{flow_id}` to flow `{target.flow_id}`")
            return target
        if target == "current":
            return self.registry.current(flow_id)
        versions = self.registry.versions(flow_id)
        for v in versions:
            if v.code_hash == target:
                return v
        for v in versions:
            if target in (v.flow_hash, v.legacy_flow_hash):
                return v
        known = ", ".join(v.code_hash or v.flow_hash for v in versions)
        raise FlowUsageError(f"flow `{flow_id}` has no registered version {target!r} (known: {known})")

    # -- inspection ---------------------------------------------------------------------------

    def get(self, execution_id: str) -> ExecutionView:
        events = self.journal.read(execution_id)
        st = fold(execution_id, events)
        return ExecutionView(
            execution_id=execution_id,
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

    def close(self) -> None:
        self.journal.close()

    def __enter__(self) -> Runtime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the driver ---------------------------------------------------------------------------

    def _fold(self, execution_id: str) -> ReplayState:
        return fold(execution_id, self.journal.read(execution_id))

    def _resolve(self, state: ReplayState) -> FlowVersion:
        return self.registry.resolve(
            state.flow_id,
            flow_hash=state.effective_flow_hash,
            code_hash=state.effective_code_hash,
            execution_id=state.execution_id,
        )

    def _drive_chain(self, execution_id: str, state: ReplayState | None = None) -> Handle:
        """Drive an execution, then each continue-as-new successor; return the last one's handle.

        ``state``: the execution's fold when the caller already holds it up to the journal's end
        (it read it and appended its own bootstrap on top, fenced); otherwise it is read here."""
        heartbeat = self._start_heartbeat()
        try:
            handle = self._drive(execution_id, state)
            # a successor is claimed before it is read, as in recover; one another worker already
            # drives is left to it (this call returns the `continued` handle that names it)
            while handle.status == ev.CONTINUED and handle.result is not None and self._claim(handle.result, ev.RUNNING):
                handle = self._drive(handle.result)
            return handle
        finally:
            if heartbeat is not None:
                heartbeat.set()
            self._release_leases()

    def _start_heartbeat(self) -> threading.Event | None:
        """A worker renews its leases every ``lease_ttl / 3`` while a drive runs (set the event to stop).

        So a step longer than the lease keeps it while the process lives; a killed process stops
        renewing and its leases expire. A lease another worker took meanwhile is not renewed: this
        worker's next append is fenced."""
        if self.worker_id is None:
            return None
        stop = threading.Event()

        def beat() -> None:
            while not stop.wait(self.lease_ttl / 3):
                with self._lease_lock:
                    if stop.is_set():
                        return
                    for eid, (lease, _taken) in list(self._leases.items()):
                        try:
                            renewed = self.journal.acquire_lease(eid, lease.owner, ttl=self.lease_ttl)
                        except LoomError:
                            continue
                        self._leases[eid] = (renewed, time.monotonic())

        threading.Thread(target=beat, name=f"loom-lease-heartbeat-{self.worker_id}", daemon=True).start()
        return stop

    def _append(
        self, execution_id: str, events: list[NewEvent], *, expected_seq: int, leaves_running: bool | None = None
    ) -> int:
        """Every runtime write goes through here: fenced on ``expected_seq`` and, for a worker, its lease.

        A batch that parks or ends the execution (``leaves_running``; by default judged from its last
        event) frees the lease in the store's own transaction (``releases_lease``); the worker drops
        it from its table under the same lock as the append, so the heartbeat cannot re-take it in
        between and fence a ``resume`` that another worker sends right after the park."""
        if self.worker_id is None:
            return self.journal.append(execution_id, events, expected_seq=expected_seq)
        if leaves_running is None:
            leaves_running = events[-1].type in _LEAVES_RUNNING
        with self._lease_lock:
            seq = self.journal.append(execution_id, events, expected_seq=expected_seq, lease=self._take_lease(execution_id))
            if leaves_running:
                self._leases.pop(execution_id, None)
            return seq

    def _lease(self, execution_id: str) -> Lease | None:
        if self.worker_id is None:
            return None
        with self._lease_lock:
            return self._take_lease(execution_id)

    def _take_lease(self, execution_id: str) -> Lease:
        assert self.worker_id is not None
        held = self._leases.get(execution_id)
        if held is not None and time.monotonic() - held[1] < self.lease_ttl / 2:
            return held[0]
        # Take or renew: FencingError when another worker holds a live lease. If ours lapsed during a
        # long step and nobody took it, re-taking it is safe: the expected sequence number still
        # fences any write made meanwhile. A lease must outlive the longest step to keep a second
        # worker from starting the same effect.
        # The store's clock (the database's, for a shared store) times leases, never this process's.
        lease = self.journal.acquire_lease(execution_id, self.worker_id, ttl=self.lease_ttl)
        self._leases[execution_id] = (lease, time.monotonic())
        return lease

    def _release_leases(self) -> None:
        with self._lease_lock:
            while self._leases:
                _, (lease, _taken) = self._leases.popitem()
                try:
                    self.journal.release_lease(lease)
                except LoomError:
                    # The store could not be reached (a stolen or expired lease is a no-op there,
                    # not an error): the lease lapses by itself within lease_ttl, and raising here
                    # would replace the drive's own outcome.
                    pass

    def _drive(self, execution_id: str, state: ReplayState | None = None) -> Handle:
        if state is None:
            state = self._fold(execution_id)
        if state.status != ev.RUNNING:
            return self._state_handle(state)
        version = self._resolve(state)
        runner = version.runner()
        detector = DivergenceDetector(state, self.divergence, on_report=self._divergence_warning)
        ctx = self._new_context(state, detector)
        outcome: str
        value: Any = None
        try:
            value = runner(ctx, state.input)
            outcome = "return"
        except _Parked as parked:
            outcome, value = "parked", parked.gate
        except _ContinueAsNew as cont:
            outcome, value = "continue", cont.input
        except Exception as exc:  # noqa: BLE001 - a body's exception is the flow's outcome
            outcome, value = "raise", exc
        if ctx.journal_error is not None:  # a stale writer: stop as a crash would, append nothing
            raise ctx.journal_error
        if detector.latched is not None:  # refused, whatever the body did with the refusal
            self._park_diverged(ctx, detector)
        if ctx.nondeterminism is not None:  # likewise latched: park before any outcome is written
            self._park_nondeterministic(ctx, ctx.nondeterminism)
        if outcome == "parked":
            return Handle(execution_id, state.flow_id, ev.SUSPENDED, gate=value)
        if outcome == "continue":
            return self._continue(ctx, state, value)
        if outcome == "return":
            try:
                detector.check("completion")
            except FlowReplayDivergenceError:
                self._park_diverged(ctx, detector)
            if not is_json_value(value):
                outcome, value = "raise", FlowUsageError(
                    f"flow `{state.flow_id}` execution `{execution_id}`: the flow returned "
                    f"{type(value).__name__}, which is not a JSON value"
                )
            else:
                result = _normalise(value)
                ctx._append([NewEvent(ev.EXECUTION_COMPLETED, {"result": result})])
                return Handle(execution_id, state.flow_id, ev.COMPLETED, result=result)
        exc = value
        if isinstance(exc, JournalError):
            # not a flow outcome: a stale writer. Leave the journal as a crash would and let the
            # caller see it.
            raise exc
        error = {"type": _qualname(type(exc)), "message": str(exc)}
        ctx._append([NewEvent(ev.EXECUTION_FAILED, {"error": error})])
        return Handle(execution_id, state.flow_id, ev.FAILED, error=error, exception=exc)

    def _new_context(self, state: ReplayState, detector: DivergenceDetector) -> Context:
        """The Context one run of the body gets; the replay sandbox (``loom_runtime.sandbox``)
        overrides it to stop before a live decider runs."""
        return Context(self, state, detector)

    def _continue(self, ctx: Context, state: ReplayState, new_input: Any) -> Handle:
        successor = _successor_id(state.execution_id)
        current = self.registry.current(state.flow_id)  # a continuation re-versions (ADR 0109)
        try:
            self.journal.summary(successor)
        except ExecutionNotFoundError:
            self._create(successor, self._started_event(current, new_input))  # ours from its first event
        ctx._append([NewEvent(ev.EXECUTION_CONTINUED, {"nextExecutionId": successor, "input": new_input})])
        return Handle(state.execution_id, state.flow_id, ev.CONTINUED, result=successor)

    def _park_diverged(self, ctx: Context, detector: DivergenceDetector) -> NoReturn:
        refusal = detector.latched
        assert refusal is not None
        skipped = refusal.skipped
        parked, outcome = self._park_refused(ctx, f"skipped {len(skipped)}: {', '.join(skipped)}")
        message = divergence_message(
            flow_id=ctx.flow_id, execution_id=ctx.execution_id, skipped=skipped,
            before=detector.latched_before or "a live append", outcome=outcome,
        )
        self.divergence_refusals += 1
        self._warn(message)
        raise FlowReplayDivergenceError(
            message, skipped=skipped, execution_id=ctx.execution_id, flow_id=ctx.flow_id, parked=parked
        ) from None

    def _park_nondeterministic(self, ctx: Context, refusal: NonDeterminismError) -> NoReturn:
        """A changed kind of work under a recorded id: parked like a divergence, in every mode.

        Unlike D3 this is not governed by ``divergence``: the run cannot go on under either mode
        (serving a step's result as a decision, or the reverse, is wrong whatever the mode), and
        leaving it running made every ``recover`` re-drive it forever."""
        kinds = f"`{refusal.ident}` recorded as a {refusal.recorded}, asked for as a {refusal.asked}"
        parked, outcome = self._park_refused(ctx, f"kind changed: {kinds}")
        message = (
            f"flow `{ctx.flow_id}` execution `{ctx.execution_id}`: {kinds}; the flow body changed the kind "
            f"of work under one id. {outcome} Fix: deploy the version it started on (ship its chunk) or "
            "migrate it with runtime.resume_as(...); then call runtime.retry_diverged(execution_id)."
        )
        self.divergence_refusals += 1
        self._warn(message)
        raise NonDeterminismError(
            message, ident=refusal.ident, recorded=refusal.recorded, asked=refusal.asked,
            execution_id=ctx.execution_id, flow_id=ctx.flow_id, parked=parked,
        ) from None

    def _park_refused(self, ctx: Context, key: str) -> tuple[bool, str]:
        """Append the park on ``__loom_diverged__`` (and nothing else); say whether it landed."""
        if len(key) > 2000:
            key = key[:1997] + "..."
        try:
            self._append(
                ctx.execution_id,
                [NewEvent(ev.EXECUTION_SUSPENDED, {"condition": {"on": RESERVED_GATE, "correlationKey": key}})],
                expected_seq=ctx._last_seq,
            )
            return True, f"PARKED on `{RESERVED_GATE}`: no step effect ran."
        except JournalError as exc:
            return False, f"REFUSED and NOT parked ({exc}): no step effect ran."

    def _divergence_warning(self, message: str, skipped: tuple[str, ...]) -> None:
        self.divergence_warnings += 1
        self._warn(message)

    def _warn(self, message: str) -> None:
        if self._on_warn is not None:
            self._on_warn(message)
        else:
            warnings.warn(message, DivergenceWarning, stacklevel=4)

    def _state_handle(self, st: ReplayState) -> Handle:
        result = st.continued_to if st.status == ev.CONTINUED else st.result
        return Handle(st.execution_id, st.flow_id, st.status, result=result, gate=st.gate, error=st.error)

    def _error_handle(self, execution_id: str, exc: BaseException) -> Handle:
        try:
            st = self._fold(execution_id)
        except LoomError:
            return Handle(execution_id, "", "unknown", exception=exc)
        h = self._state_handle(st)
        return Handle(h.execution_id, h.flow_id, h.status, h.result, h.gate, h.error, exception=exc)


def _successor_id(execution_id: str) -> str:
    """``e1`` → ``e1~1`` → ``e1~2``: deterministic, so a crash mid-continuation finds its successor."""
    base, sep, n = execution_id.rpartition("~")
    if sep and n.isdigit():
        return f"{base}~{int(n) + 1}"
    return f"{execution_id}~1"
