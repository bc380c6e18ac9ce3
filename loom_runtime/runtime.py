"""``Runtime``: the durable-execution API (DESIGN §5): start, answer, recover, migrate, inspect.

Every operation re-runs the flow body from the top over the journal, in the calling thread, until
the body completes, fails, parks (a gate, a timer, a divergence refusal) or continues as new:

1. read the execution's events and fold them (:mod:`loom_runtime.replay`);
2. resolve the version to run from the *recorded* hashes (D2, ``Registry.resolve``): an execution
   pinned to an old codeHash runs the old chunk; a migrated one resolves by ``toCodeHash``;
3. drive the body once (:mod:`loom_runtime.drive`) through a port over this runtime's journal and
   leases (:mod:`loom_runtime.port`, :mod:`loom_runtime.leases`).

This module is the façade: what each public method means and in which order it reads, claims,
appends and drives. The rules of a run live in :mod:`loom_runtime.run` (async flows:
:mod:`loom_runtime.async_run`), the outcomes and refusals in :mod:`loom_runtime.outcomes`, the drive
loops in :mod:`loom_runtime.drive` and :mod:`loom_runtime.drive_async`, the awaitable forms of these
calls in :mod:`loom_runtime.runtime_async`, ownership in :mod:`loom_runtime.leases` (every Runtime
leases what it drives), the worker loop of ``serve`` in :mod:`loom_runtime.worker`, migration in
:mod:`loom_runtime.migration`.

Pinning is checked at every start and resume (:mod:`loom_runtime.pinning`): a version without a
codeHash (no manifest, a stale one) is a loud ``UnpinnedExecutionWarning``, and under
``strict=True`` an ``UnpinnedExecutionError`` before anything is appended. Under ``strict=True`` a
flow that declares ``steps``/``step_families`` is also refused a live step id they do not cover
(``UndeclaredStepError``, raised in the body before ``STEP_STARTED``: the effect never runs). That
refusal is a deploy mistake, not the flow's outcome: like a divergence refusal it appends no step
and no failure, only a park on ``__loom_diverged__`` (``correlationKey: "undeclared step: `id`"``;
``error.parked``), so no worker re-drives it in a loop, and once a release declares the id
``resume_as(id, "current")`` migrates it there and runs it on from the park (declaring an id
changes the structural hash, by which ``retry_diverged`` resolves: it finds the refusing version or none; a
non-strict runtime's ``retry_diverged`` runs it on the version it started on). Rejected: failing
the execution (a missing ``steps=`` entry ended a durable execution for good) and leaving it
running as a ``FlowCodeMismatchError`` does (that one is fixed by registering a version, which the
next ``recover`` picks up; this one only by a new release, and every pass until then re-drove it).

A ``FlowCodeMismatchError`` is raised before anything is appended (it stays running on purpose:
registering the version it needs is the fix, and the next ``recover`` picks it up without an
operator). So is a version whose chunk fails to verify or load (``ChunkIntegrityError``, a missing
chunk): an answer (``resume``, ``retry_diverged``, a timer) or a migration loads the code it will run
*before* it appends ``EXECUTION_RESUMED``/``EXECUTION_MIGRATED``, so a refused one leaves the
execution exactly as it was and the same call succeeds once the chunk is restored. ``recover`` lists only what it could lease, skips a lost race on the summary row (never a
read of the events), and visits in a shuffled order per pass.
"""

from __future__ import annotations

import asyncio
import os
import random
import socket
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .definition import RESERVED_GATE, FlowDefinition
from .divergence import DivergenceWarning, resolve_mode
from .drive import drive_run, new_run
from .drive_async import is_async_callable
from .errors import ExecutionStateError, FlowUsageError, LoomError, UnpinnedExecutionError
from .families import undeclared_check
from .handles import ExecutionView, Handle, state_handle, view_of
from .journal import events as ev
from .journal.events import ExecutionSummary, NewEvent
from .journal.memory import MemoryJournal
from .journal.protocol import JournalStore
from .journal.sqlite import SqliteJournal
from .journal.urls import open_journal
from .leases import Leases
from .migration import STRATEGIES, check_migratable, migration_batch, target_version
from .pinning import UnpinnedExecutionWarning, problem
from .port import StorePort, started_event
from .registry import FlowVersion, Registry
from .replay import ReplayState, advance, fold
from .run import Run, normalise, require_json_value
from .runtime_async import AsyncForms

__all__ = ["Runtime", "Handle", "ExecutionView"]


class Runtime(AsyncForms):
    """Drives flows durably over a journal. See the module docstring for the semantics.

    A Runtime may be driven from several threads at once (``serve(concurrency=N)`` does): each drive
    holds the lease of its own execution, and the journal stores serialise their calls.
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

        ``worker_id``: this runtime's identity as a worker (default: ``<host>-<pid>-<random>``, one
        per ``Runtime``). Every runtime leases an execution (``JournalStore.acquire_lease``,
        ``lease_ttl`` seconds, renewed while it drives) before it writes to it and passes the lease
        with every append, so a ``recover`` or a worker never drives an execution another live
        process holds, and a worker that stalled past its lease is fenced even if its expected
        sequence number happens to still match. A step body therefore runs twice only after a crash
        (at least once), never because two healthy processes raced: the lease is renewed every
        ``lease_ttl / 3`` on a store connection of its own that never waits behind this runtime's
        appends, and a live step body or decider starts only while at least ``lease_ttl / 3`` of
        the lease is left (else the drive stops before it with a ``FencingError``, nothing of it
        ran; :mod:`loom_runtime.lease_keeper`).

        ``lease_ttl`` (default 30 s) is how long a crashed process's executions wait before another
        one takes them over, and what a healthy process may stall (GC pause, VM steal, a store
        failover) without losing them: with the default a stall of up to 20 s costs nothing, a
        crashed worker's executions resume 30 s after its last renewal. Make it longer than your
        longest stall, not than your longest step (the lease is renewed while the step runs).
        Rejected: leases only when a worker id is given (a second process's ``recover`` re-ran a
        step a healthy first process was still running); a shorter default (a takeover in a few
        seconds is rarely worth a lease that a loaded machine or a database failover can outlast)."""
        if journal is None:
            journal = MemoryJournal(clock=clock)
        elif isinstance(journal, str):
            journal = open_journal(journal)  # memory:, sqlite:///…, postgresql://…, or a plain path
        elif isinstance(journal, os.PathLike):
            journal = SqliteJournal(journal)
        self.registry = registry if registry is not None else Registry(strict=strict, on_warn=on_warn)
        self.divergence = resolve_mode(divergence, strict=strict)
        self.strict = strict
        self.clock = clock
        self.worker_id = worker_id if worker_id is not None else default_worker_id()
        self.lease_ttl = lease_ttl
        self._leases = Leases(journal, self.worker_id, lease_ttl)
        self._on_warn = on_warn
        self._rng = random.Random()  # the visit order of a worker's passes (seeded from the OS)
        self._wake = threading.Event()  # a local submit or a drive's end: a serving worker looks at once
        self._port = StorePort(
            self._leases, self.registry, lambda: self.clock(),
            on_divergence=self._divergence_warning, on_refusal=self._refused, timer_clock=self.timer_clock,
        )
        #: Divergence reports in ``warn`` mode (one per run at most).
        self.divergence_warnings = 0
        #: Runs refused and parked on ``__loom_diverged__``: a divergence in ``fail`` mode, or a
        #: changed kind of work (any mode), or (strict) an undeclared live step id.
        self.divergence_refusals = 0
        #: Starts and resumes on a version without a codeHash (``pinning``); each (flow, case) is
        #: warned about once per runtime, every occurrence is counted.
        self.unpinned_runs = 0
        self._unpinned_warned: set[tuple[str, str]] = set()
        #: executions whose pinning a start or an answer judged before its append: the next
        #: resolution of each (the drive that follows) takes it out instead of judging it again
        self._judged: set[str] = set()

    @property
    def journal(self) -> JournalStore:
        return self._leases.journal

    def timer_clock(self) -> float:
        """The time durable timers are set from (``fireAt = timer_clock() + seconds``) and judged due
        by (``tick``, a worker's pass): the store's shared clock when it has one (PostgreSQL: the
        server's, as leases are), else this runtime's ``clock``.

        One clock for both ends, and on a shared store not the worker's: workers on several machines
        disagree about the time, so a worker whose clock ran fast set ``fireAt`` from its own clock and
        another judged it by its own, and an hour's ``ctx.sleep`` could end minutes early (or late).
        ``ctx.now()`` stays on ``clock`` (a recorded value, not a deadline). Rejected: writing
        ``fireAt`` in the append's SQL from the server clock (the run must know its own timer's
        ``fireAt`` before the append, and the journal format keeps it in the event); learning a
        worker-to-server offset once (drifts, and a stepped clock would be trusted until the next
        measurement)."""
        shared_now = getattr(self.journal, "shared_now", None)
        return float(shared_now()) if shared_now is not None else float(self.clock())

    @journal.setter
    def journal(self, store: JournalStore) -> None:
        self._leases.journal = store

    # -- registration and starts --------------------------------------------------------------

    def register(self, fn_or_definition: Callable[..., Any] | FlowDefinition) -> FlowVersion:
        return self.registry.register(fn_or_definition)

    def start(self, flow_id: str | Callable[..., Any], input: Any = None, *, execution_id: str | None = None) -> Handle:
        """Start a new execution on the current version of ``flow_id`` and run it until it parks or ends."""
        eid, started = self._new_execution(flow_id, input, execution_id, blocking=True)
        # its creator holds the whole journal (the one event it just wrote): no read before the body runs
        return self._drive_chain(eid, advance(ReplayState(execution_id=eid), [started], first_seq=1))

    def submit(self, flow_id: str | Callable[..., Any], input: Any = None, *, execution_id: str | None = None) -> str:
        """Record a start on the current version of ``flow_id`` without driving it; return its id.

        The execution is created unleased, so any worker serving this journal (``serve``,
        ``loom worker``) may take it at once; on PostgreSQL idle workers are notified."""
        eid, _started = self._new_execution(flow_id, input, execution_id, blocking=False, leased=False)
        self._judged.discard(eid)  # no drive follows here: a worker judges it (the set must not grow)
        self._wake.set()
        return eid

    def serve(
        self,
        *,
        stop: threading.Event | None = None,
        poll_interval: float = 1.0,
        concurrency: int = 1,
        on_event: Callable[[dict[str, Any]], None] | None = None,
    ) -> int:
        """Drive submitted executions, fire due timers and take over executions whose lease expired,
        until ``stop`` is set or the process gets SIGTERM/SIGINT; then finish the step in hand, claim
        nothing new, release the leases and return (the number of drives). See
        :mod:`loom_runtime.worker`."""
        from .worker import Worker

        return Worker(self, stop=stop, poll_interval=poll_interval, concurrency=concurrency, on_event=on_event).run()

    def _new_execution(
        self, flow_id: str | Callable[..., Any], input: Any, execution_id: str | None, *, blocking: bool,
        leased: bool = True, defer_write: bool = False,
    ) -> tuple[str, NewEvent]:
        if callable(flow_id):
            flow_id = FlowDefinition.from_function(flow_id).id
        version = self.registry.current(flow_id)
        if blocking:
            _refuse_blocking_drive(version)
        require_json_value(input, f"flow `{flow_id}`: the input")  # before anything is appended
        eid = execution_id if execution_id is not None else uuid.uuid4().hex
        self._check_pinned(version, eid, recorded=None, starting=True)  # before anything is written
        started = started_event(version, normalise(input))
        if not defer_write:
            self._record_execution(eid, started, leased=leased)
        return eid, started

    def _record_execution(self, eid: str, started: NewEvent, *, leased: bool) -> None:
        """The store write of ``_new_execution`` (made off the event loop by the async forms)."""
        if leased:
            self._leases.create(eid, started)
            self._judged.add(eid)  # the drive that follows does not judge it again
        else:
            self.journal.create(eid, started)  # submitted: whichever worker drives it judges it

    # -- answering a park ---------------------------------------------------------------------

    def resume(self, execution_id: str, payload: Any = None, *, gate: str | None = None) -> Handle:
        """Answer the gate a suspended execution is parked on and run it on.

        ``gate``, when given, must be the gate it is parked on. Answering ``__loom_diverged__`` is
        :meth:`retry_diverged` (the payload is dropped: that gate carries no answer).
        """
        state = self._parked_state(execution_id, gate)
        return self._drive_chain(execution_id, self._append_answer(state, payload, blocking=True))

    def retry_diverged(self, execution_id: str) -> Handle:
        """Re-run an execution parked on ``__loom_diverged__`` (after fixing, pinning, listing or migrating)."""
        state = self._diverged_state(execution_id)
        return self._drive_chain(execution_id, self._append_answer(state, None, blocking=True))

    def _parked_state(self, execution_id: str, gate: str | None) -> ReplayState:
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
        return state

    def _diverged_state(self, execution_id: str) -> ReplayState:
        state = self._fold(execution_id)
        if state.status != ev.SUSPENDED or state.gate != RESERVED_GATE:
            where = f"parked on `{state.gate}`" if state.status == ev.SUSPENDED else state.status
            raise ExecutionStateError(
                f"execution `{execution_id}` is {where}, not parked on `{RESERVED_GATE}`; nothing to retry",
                execution_id=execution_id,
                status=state.status,
            )
        return state

    def _append_answer(self, state: ReplayState, payload: Any, *, blocking: bool) -> ReplayState:
        """Append the answer to the gate ``state`` is parked on; return the fold after it."""
        return self._record_answer(state, self._answer(state, payload, blocking=blocking))

    def _answer(self, state: ReplayState, payload: Any, *, blocking: bool) -> list[NewEvent]:
        """The checks of ``_append_answer`` and the batch it appends (nothing is written here)."""
        execution_id = state.execution_id
        if state.gate == RESERVED_GATE:
            payload = None
        require_json_value(payload, f"execution `{execution_id}`: a resume payload")
        version = self._resolve(state)  # a code mismatch (or, under strict, no pinning) refuses before anything is appended
        # ... and so does a chunk that is tampered with or missing: loading it (verify, then
        # execute) comes before the answer is recorded, so a refused resume leaves the execution
        # parked on its gate and the same resume can be retried once the chunk is restored
        version.runner()
        if blocking:
            _refuse_blocking_drive(version)
        return [NewEvent(ev.EXECUTION_RESUMED, {"gate": state.gate, "payload": normalise(payload)})]

    def _record_answer(self, state: ReplayState, batch: list[NewEvent]) -> ReplayState:
        """The store write of ``_append_answer`` (made off the event loop by the async forms)."""
        execution_id = state.execution_id
        try:
            self._leases.append(execution_id, batch, expected_seq=state.last_seq)
        except BaseException:
            self._leases.release(execution_id)
            raise
        self._judged.add(execution_id)  # judged above: the drive that follows does not judge it again
        return advance(state, batch, first_seq=state.last_seq + 1)

    # -- passes: timers and recovery ----------------------------------------------------------

    def tick(self, now: float | None = None) -> list[Handle]:
        """Fire every durable timer due at ``now`` (default: :meth:`timer_clock`) and run those executions on.

        A timer another worker (or process) fires first is skipped: no handle, and for a worker no
        read either (it claims the lease before reading; see :meth:`recover`).
        """
        now = self.timer_clock() if now is None else now
        handles = []
        for s in self._visit_order(self.journal.due_timers(now)):
            try:
                if not self._leases.claim(s.execution_id, ev.SUSPENDED):
                    continue
                handles.append(self.resume(s.execution_id, None, gate=s.gate))
            except ExecutionStateError:
                continue  # answered since the listing: not ours to report
            except LoomError as exc:
                handles.append(self._error_handle(s.execution_id, exc))
            finally:
                self._leases.release(s.execution_id)  # a claim that did not reach a drive
        return handles

    def recover(self) -> list[Handle]:
        """After a crash: fire due timers, then re-drive every *running* execution (parked ones wait).

        A refusal or mismatch of one execution does not stop the pass; it is reported on its handle.
        Executions another worker (or process) holds a live lease on are skipped: the listing leaves
        them out (the store judges leases by its own clock) and one leased between
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
                if not self._leases.claim(s.execution_id, ev.RUNNING):
                    continue
                handles.append(self._drive_chain(s.execution_id))
            except LoomError as exc:
                handles.append(self._error_handle(s.execution_id, exc))
            finally:
                self._leases.release(s.execution_id)  # a claim that did not reach a drive
        return handles

    def _visit_order(self, summaries: tuple[ExecutionSummary, ...]) -> Sequence[ExecutionSummary]:
        """A fresh shuffle per pass, so several workers do not all queue on the same first execution.

        Rejected: a fixed offset derived from the worker id (workers whose offsets fall close walk
        the same run of executions in lock-step every pass; a per-pass shuffle decorrelates them)."""
        if len(summaries) < 2:
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
        if strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}; got {strategy!r}")
        state = self._fold(execution_id)
        check_migratable(state)
        version = target_version(self.registry, state.flow_id, target)
        version.runner()  # a target whose chunk is tampered with or missing refuses before the append
        batch = migration_batch(state, version, strategy=strategy, transform_state=transform_state)
        try:
            self._leases.append(
                execution_id, batch, expected_seq=state.last_seq,
                leaves_running=batch[-1].type == ev.EXECUTION_MIGRATED and state.status != ev.RUNNING,
            )
        except BaseException:
            self._leases.release(execution_id)
            raise
        return self._drive_chain(execution_id, advance(state, batch, first_seq=state.last_seq + 1))

    # -- inspection ---------------------------------------------------------------------------

    def get(self, execution_id: str) -> ExecutionView:
        events = self.journal.read(execution_id)
        return view_of(fold(execution_id, events), events)

    def close(self) -> None:
        self._leases.close()
        self.journal.close()

    def __enter__(self) -> Runtime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the driver ---------------------------------------------------------------------------

    def _fold(self, execution_id: str) -> ReplayState:
        return fold(execution_id, self.journal.read(execution_id))

    def _resolve(self, state: ReplayState) -> FlowVersion:
        version = self.registry.resolve(
            state.flow_id,
            flow_hash=state.effective_flow_hash,
            code_hash=state.effective_code_hash,
            execution_id=state.execution_id,
        )
        if state.execution_id in self._judged:
            self._judged.discard(state.execution_id)
        else:
            self._check_pinned(version, state.execution_id, recorded=state.effective_code_hash, starting=False)
        return version

    def _check_pinned(self, version: FlowVersion, execution_id: str, *, recorded: str | None, starting: bool) -> None:
        """Warn (raise under ``strict``) when ``version`` has no codeHash (``pinning``)."""
        message = problem(version, manifest_path=self.registry.manifest_path, execution_id=execution_id,
                          recorded=recorded, starting=starting)
        if message is None:
            return
        if self.strict:
            raise UnpinnedExecutionError(message + " (refused: strict=True; nothing was appended)",
                                         flow_id=version.flow_id, execution_id=execution_id, recorded=recorded)
        self.unpinned_runs += 1
        key = (version.flow_id, "start" if starting else "resume")
        if key in self._unpinned_warned:
            return
        self._unpinned_warned.add(key)
        # A Python warning, not ``on_warn``: that channel carries the reports about one execution's
        # journal (divergence, refusals), which callers count; this one is about the deployment, and
        # ``-W error::loom_runtime.UnpinnedExecutionWarning`` or ``strict=True`` make it fatal.
        warnings.warn(message, UnpinnedExecutionWarning, stacklevel=4)

    def _drive_chain(
        self, execution_id: str, state: ReplayState | None = None, *, port: StorePort | None = None
    ) -> Handle:
        """Drive an execution, then each continue-as-new successor; return the last one's handle.

        ``state``: the execution's fold when the caller already holds it up to the journal's end
        (it read it and appended its own bootstrap on top, fenced); otherwise it is read here.
        Every lease the chain took is released when it ends, however it ends."""
        chain = [execution_id]
        try:
            handle = self._drive(execution_id, state, port=port)
            # a successor is claimed before it is read, as in recover; one another worker already
            # drives is left to it (this call returns the `continued` handle that names it)
            while handle.status == ev.CONTINUED and handle.result is not None:
                chain.append(handle.result)
                if not self._leases.claim(handle.result, ev.RUNNING):
                    break
                handle = self._drive(handle.result, port=port)
            return handle
        finally:
            for eid in chain:
                self._leases.release(eid)

    def _drive(self, execution_id: str, state: ReplayState | None = None, *, port: StorePort | None = None) -> Handle:
        if state is None:
            state = self._fold(execution_id)
        if state.status != ev.RUNNING:
            return state_handle(state)
        run, version = self._new_run(state, port)
        return drive_run(run, version)

    def _new_run(self, state: ReplayState, port: StorePort | None = None) -> tuple[Run, FlowVersion]:
        """The resolved version of a running execution and a run of it (sync and async drives)."""
        version = self._resolve(state)
        run = new_run(state, port or self._port, self.divergence)
        if self.strict:
            run.undeclared = undeclared_check(version)
        return run, version

    def _divergence_warning(self, message: str, skipped: tuple[str, ...]) -> None:
        self.divergence_warnings += 1
        self._warn(message)

    def _refused(self, message: str) -> None:
        self.divergence_refusals += 1
        self._warn(message)

    def _warn(self, message: str) -> None:
        if self._on_warn is not None:
            self._on_warn(message)
        else:
            warnings.warn(message, DivergenceWarning, stacklevel=5)

    def _error_handle(self, execution_id: str, exc: BaseException) -> Handle:
        try:
            st = self._fold(execution_id)
        except LoomError:
            return Handle(execution_id, "", "unknown", exception=exc)
        return state_handle(st, exception=exc)


def default_worker_id() -> str:
    """``<host>-<pid>-<6 hex>``: readable in ``loom census``/logs, unique per Runtime object."""
    return f"{socket.gethostname() or 'host'}-{os.getpid()}-{uuid.uuid4().hex[:6]}"


def _refuse_blocking_drive(version: FlowVersion) -> None:
    """An async flow cannot be driven by a blocking call made on a running event loop's thread:
    refuse before anything is created or appended (the ``*_async`` forms are the way)."""
    if not is_async_callable(version.runner()):
        return
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise FlowUsageError(
        f"flow `{version.flow_id}` is async and this thread is running an event loop: await the async form "
        "(runtime.start_async, resume_async, retry_diverged_async, tick_async, recover_async) instead"
    )
