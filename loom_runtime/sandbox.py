"""The replay sandbox: re-run a flow body over a recorded journal and stop at the first live append.

``loom replay`` and ``loom deploy-check`` ask the same question of a recorded execution: *what
would this code do if it resumed now?* The sandbox answers it with the runtime's own drive loop
(:func:`loom_runtime.drive.drive_run`: resolution is the caller's, everything else is the
production path, including the divergence detector, D3, in ``fail`` mode), so there is one
implementation of the replay rules and the answer cannot drift from what a worker will do after the
deploy. What differs is the run's port (:class:`~loom_runtime.port.RunPort`, ``_SandboxPort``):

* **Nothing is written.** The execution's events are folded by the caller and handed to the drive
  loop, which never reads; every append, of any kind, raises :class:`LiveAppend` before anything is
  written. A live ``STEP_STARTED`` is refused before the step function is called, an emit before it
  is recorded, a timer before it is set, a continuation before its successor is created. The
  production journal is never touched: the caller reads it (read-only) and the sandbox never sees it.
* **A decider never runs.** A live ``ctx.decide`` calls its decider *before* it appends the record
  (the decider is real work: a model call), so refusing appends alone would stop too late. The run
  asks its port to ``admit`` every live decider and step body first; the sandbox's port refuses
  with :class:`LiveAppend` (latched like a journal error, so a body that swallows it stops anyway);
  a recorded decision is served as always, without calling anything.

Nothing else of the user's runs but the flow body itself and the helpers it calls: orchestration
code, which every production resume re-runs too.

**Where a replay ends** (``SandboxResult.kind``). A journal whose last event is an outcome the body
itself produced (a park, completion, failure, continuation) has that event *withheld*: the re-run
must produce it again. A park on ``__loom_diverged__`` is not withheld (it was the runtime's
refusal, not the body's outcome), so such an execution replays as an open journal.

* ``reached``: the re-run reproduced the withheld outcome (the same gate, result, error type or
  continuation input): it reached its resume point.
* ``frontier``: an open journal (running, or parked on ``__loom_diverged__``) whose re-run asked
  for live work with every recorded step asked for: where the history ends, new work begins.
* ``live-work``: live work before the resume point: before the withheld outcome, or in an open
  journal while recorded steps are still unasked (a new decision at the top of the body). The
  recorded run did not do that work; a resume would.
* ``mismatch``: the re-run produced another outcome than the recorded one (another gate, result,
  error).
* ``diverged``: refused by D3: recorded steps the body never asked for (``skipped``, named as the
  runtime names them when it parks the execution).
* ``nondeterministic``: a recorded id asked for as another kind of work.
* ``undeclared``: the journal is parked on ``__loom_diverged__`` by ``Runtime(strict=True)``
  refusing a live step id its flow did not declare (``SandboxResult.undeclared``), and this
  version does not declare the id either: the same strict runtime would park it again. Only such
  a journal is held to the strict rule (it says the runtime that drives it is strict); any other
  replays as a lenient runtime would drive it.
* ``error``: the drive raised another ``LoomError`` (misuse of the API the body cannot recover).
* ``corrupt``: the journal itself cannot be folded (``JournalCorruptionError``: a sequence gap, an
  unknown event type, a missing field); no version could resume it.

Cost: one ``Sandbox`` per version (its chunk loaded once), one fold and one run per execution, no
journal object per execution. Rejected: seeding an in-memory journal with each history (copies
every event; what ``replay_history`` used to do) and mocking step functions (a replay must prove
they are not needed, and a decider cannot be mocked without knowing what it returns).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .definition import RESERVED_GATE
from .drive import drive_run, new_run
from .errors import (
    FlowReplayDivergenceError,
    JournalCorruptionError,
    JournalError,
    LoomError,
    NonDeterminismError,
    UndeclaredStepError,
)
from .families import undeclared_check, undeclared_park_step
from .journal import events as ev
from .journal.events import Event, NewEvent
from .port import successor_id
from .replay import ReplayState, advance, fold
from .versions import FlowVersion

__all__ = ["LiveAppend", "SandboxResult", "Sandbox", "resume_point", "describe_append", "outcome_difference", "OUTCOMES"]

#: Events that end a run of the body; a trailing one (but a divergence park) is withheld.
OUTCOMES = frozenset({ev.EXECUTION_SUSPENDED, ev.EXECUTION_COMPLETED, ev.EXECUTION_FAILED, ev.EXECUTION_CONTINUED})


class LiveAppend(JournalError):
    """The sandboxed re-run asked for a live append (``events``): where its replay ends."""

    def __init__(self, events: Sequence[NewEvent]) -> None:
        self.events = tuple(events)
        super().__init__(f"replay sandbox: {describe_append(self.events)} (nothing runs live in a replay)")


def _short_json(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe_append(events: Sequence[NewEvent]) -> str:
    """What the first live append of a re-run would do, in words (``step `charge` would run live``)."""
    e = events[0]
    p = e.payload
    if e.type == ev.STEP_STARTED:
        return f"step `{p.get('stepId')}` would run live"
    if e.type == ev.DECISION_RECORDED:
        return f"decision `{p.get('decisionId')}` would be recorded live"
    if e.type == ev.EVENT_EMITTED:
        return f"event `{p.get('name')}` would be emitted live"
    if e.type == ev.TIMER_SET:
        return f"timer `{p.get('timerId')}` would be set"
    if e.type == ev.EXECUTION_SUSPENDED:
        return f"it would park on `{p['condition'].get('on')}`"
    if e.type == ev.EXECUTION_COMPLETED:
        return f"it would complete with {_short_json(p.get('result'))}"
    if e.type == ev.EXECUTION_FAILED:
        err = p.get("error") or {}
        return f"it would fail with {err.get('type')}: {err.get('message')}"
    if e.type == ev.EXECUTION_CONTINUED:
        return "it would continue as new"
    if e.type == ev.PARALLEL_STARTED:
        return f"parallel scope `{p.get('scope')}` would start live"
    return f"{e.type} would be appended live"


def outcome_difference(recorded: NewEvent, replayed: NewEvent) -> str | None:
    """How a replayed outcome of the recorded type differs from the recorded one (``None``: alike)."""
    r, n = recorded.payload, replayed.payload
    if recorded.type == ev.EXECUTION_SUSPENDED:
        a, b = r["condition"].get("on"), n["condition"].get("on")
        return None if a == b else f"the recorded run parks on `{a}`, this code parks on `{b}`"
    if recorded.type == ev.EXECUTION_COMPLETED:
        return None if r.get("result") == n.get("result") else (
            f"the recorded run completed with {_short_json(r.get('result'))}, this code with {_short_json(n.get('result'))}"
        )
    if recorded.type == ev.EXECUTION_FAILED:
        a, b = (r.get("error") or {}).get("type"), (n.get("error") or {}).get("type")
        return None if a == b else f"the recorded run failed with {a}, this code fails with {b}: {(n.get('error') or {}).get('message')}"
    if recorded.type == ev.EXECUTION_CONTINUED:
        return None if r.get("input") == n.get("input") else (
            f"the recorded run continued as new with {_short_json(r.get('input'))}, this code with {_short_json(n.get('input'))}"
        )
    return None


def resume_point(execution_id: str, events: Sequence[Event]) -> tuple[ReplayState, NewEvent | None]:
    """The fold a re-run starts from and the outcome it must reproduce (see the module docstring).

    The withheld event is checked like every folded one (``advance`` on a state holding only the
    sequence number before it: a gap or a malformed park is ``JournalCorruptionError`` here too)."""
    last = events[-1] if events else None
    if last is not None and last.type in OUTCOMES and len(events) > 1:
        state = fold(execution_id, events[:-1])
        withheld = NewEvent(last.type, last.payload)
        advance(ReplayState(execution_id=execution_id, last_seq=state.last_seq), [withheld], first_seq=last.seq)
        diverged_park = last.type == ev.EXECUTION_SUSPENDED and last.payload["condition"].get("on") == RESERVED_GATE
        return state, None if diverged_park else withheld
    return fold(execution_id, events), None


@dataclass(frozen=True, slots=True)
class SandboxResult:
    """Where one sandboxed re-run ended. ``kind``: see the module docstring."""

    execution_id: str
    kind: str  # reached | frontier | live-work | mismatch | diverged | nondeterministic | undeclared | error | corrupt
    message: str  # a phrase: "it would park on `approval`", "step `charge` would run live", ...
    stop: tuple[NewEvent, ...] = ()  # the live append it asked for
    expected: NewEvent | None = None  # the withheld outcome
    skipped: tuple[str, ...] = ()  # diverged: recorded steps never asked for
    unasked: tuple[str, ...] = ()  # live-work: recorded steps not asked for yet when it stopped
    events: int = 0  # how many recorded events it replayed over
    undeclared: str | None = None  # the step id a strict runtime's park on __loom_diverged__ refused

    @property
    def ok(self) -> bool:
        """It reached its resume point (or an open journal's end) without divergence."""
        return self.kind in ("reached", "frontier")


class _SandboxPort:
    """A :class:`~loom_runtime.port.RunPort` that refuses every append and every live step or decider."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self.warnings: list[str] = []

    def append(self, execution_id: str, events: Sequence[NewEvent], *, expected_seq: int,
               leaves_running: bool | None = None) -> int:
        raise LiveAppend(events)

    def now(self) -> float:
        return float(self._clock())

    def timer_now(self) -> float:
        return float(self._clock())  # a sandbox's first live append (the TIMER_SET) stops it anyway

    def admit(self, execution_id: str, kind: str, ident: str) -> None:
        # a step's STEP_STARTED is refused before this is asked; a decider reaches it first
        if kind == "decider":
            raise LiveAppend([NewEvent(ev.DECISION_RECORDED, {"decisionId": ident})])
        raise LiveAppend([NewEvent(ev.STEP_STARTED, {"stepId": ident})])

    def start_successor(self, state: ReplayState, new_input: Any) -> str:
        raise LiveAppend([NewEvent(ev.EXECUTION_CONTINUED, {"nextExecutionId": successor_id(state.execution_id),
                                                             "input": new_input})])

    def report_divergence(self, message: str, skipped: tuple[str, ...]) -> None:
        self.warnings.append(message)

    def report_refusal(self, message: str) -> None:
        self.warnings.append(message)


class Sandbox:
    """Replays executions of one version of a flow (load its chunk once, replay many journals)."""

    def __init__(self, version: FlowVersion, *, clock: Callable[[], float] | None = None) -> None:
        self.version = version
        self._port = _SandboxPort(clock if clock is not None else time.time)

    def replay(self, execution_id: str, events: Sequence[Event]) -> SandboxResult:
        """Re-run the version's body over ``events`` (one execution's whole journal, in order)."""
        try:
            state, withheld = resume_point(execution_id, events)
        except JournalCorruptionError as exc:  # nothing can replay it, on any version
            return SandboxResult(execution_id, "corrupt", str(exc), events=len(events))
        run = new_run(state, self._port, "fail")
        last = events[-1].payload.get("condition") if events and events[-1].type == ev.EXECUTION_SUSPENDED else None
        refused = undeclared_park_step(last.get("correlationKey")) if isinstance(last, dict) else None
        if refused is not None:  # a strict runtime parked it, and a strict runtime will drive it on
            run.undeclared = undeclared_check(self.version)

        def result(kind: str, message: str, **kw: Any) -> SandboxResult:
            return SandboxResult(execution_id, kind, message, expected=withheld, events=len(events),
                                 undeclared=refused, **kw)

        if state.flow_id != self.version.flow_id:
            return result("error", f"the journal is of flow `{state.flow_id}`, not `{self.version.flow_id}`")
        try:
            handle = drive_run(run, self.version)
        except FlowReplayDivergenceError as exc:
            skipped = tuple(exc.skipped)
            return result("diverged", f"it never asks for recorded step(s) {', '.join(f'`{s}`' for s in skipped)}",
                          skipped=skipped)
        except NonDeterminismError as exc:
            return result("nondeterministic", f"`{exc.ident}` is recorded as a {exc.recorded} but this code asks "
                          f"for it as a {exc.asked}")
        except LiveAppend as exc:
            return self._stopped(result, exc.events, withheld, run.detector.unasked())
        except UndeclaredStepError as exc:
            return result("undeclared", f"step `{exc.step_id}` is still not declared by this version's steps=[...] or "
                          f"step_families=[...]: a strict runtime would refuse it and park it on `{RESERVED_GATE}` again")
        except LoomError as exc:
            return result("error", f"{type(exc).__name__}: {exc}")
        return result("error", f"the run ended {handle.status} without appending anything")  # pragma: no cover

    def _stopped(self, result: Callable[..., SandboxResult], events: tuple[NewEvent, ...],
                 withheld: NewEvent | None, unasked: tuple[str, ...]) -> SandboxResult:
        what = describe_append(events)
        if withheld is None:
            if unasked:
                listed = ", ".join(f"`{s}`" for s in unasked)
                return result("live-work", f"{what} while recorded step(s) {listed} are not asked for yet: a resume "
                              "does that work first, then is refused as diverged unless the body asks for them later",
                              stop=events, unasked=unasked)
            return result("frontier", what, stop=events)
        outcome = events[-1]
        if len(events) == 1 and outcome.type == withheld.type:
            differs = outcome_difference(withheld, outcome)
            if differs is None:
                return result("reached", what, stop=events)
            return result("mismatch", differs, stop=events)
        if events[0].type in OUTCOMES:
            return result("mismatch", f"the recorded run ends with {withheld.type} but {what}", stop=events)
        return result("live-work", f"{what} where the recorded run ends with {withheld.type}", stop=events, unasked=unasked)
