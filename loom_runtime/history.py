"""Execution histories as files, and replaying one against a version of its flow (a Replayer).

A *history* is the complete event list of one execution, exported from a journal as one JSON file
(schema ``loom-history/1``)::

    {"schema": "loom-history/1", "executionId": "e1", "flowId": "checkout",
     "events": [{"seq": 1, "type": "EXECUTION_STARTED", "payload": {...}}, ...]}

Keys are sorted and there are no timestamps (``recorded_at`` is storage metadata the runtime never
reads), so an exported history is a stable golden file. ``load_history`` checks the file the way a
store checks its rows (schema, consecutive sequence numbers, known types, JSON payloads, a valid
status sequence via ``apply_to_summary``) and names the file and the event on every error.

``replay_history(history, flow)`` asks Temporal's Replayer question: *does this code reproduce this
history?* It seeds an in-memory journal with the history, withholding its last event when that event
is an outcome the body itself decides (a park, completion, failure or continuation), and re-runs the
body once on the given version with divergence detection in ``fail`` mode. The journal refuses every
append except the withheld outcome, so **no step effect can run**: a live ``STEP_STARTED`` is refused
before the step function is called. What the run does decides the verdict:

* it reproduces the withheld outcome (or, for a history that ended while running, reaches the point
  where the history stops and asks for new work: the *frontier*) → ``ok``;
* the detector refuses it (recorded steps the body no longer asks for) → ``diverged``;
* it asks for live work where the history records an outcome (new work the old run did not do), or
  ends with another outcome → ``live-work`` / ``mismatch``;
* the runtime reports non-determinism or the body misuses the API → ``error``.

A history parked on ``__loom_diverged__`` is replayed as an open one: the park was a refusal, and
the question is whether the code under test would now run it on.

Rejected: replaying against the version the history pins (``Registry.resolve``; that is what
production does and it trivially passes, so it checks nothing about the code under review),
running step functions under a mock (a replay must prove they are *not* needed), and comparing
the full event list for equality (benign reorders and served emits are not divergence, D3).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .definition import RESERVED_GATE, FlowDefinition
from .errors import FlowNotFoundError, FlowReplayDivergenceError, JournalError, LoomError, NonDeterminismError
from .journal import events as ev
from .journal.events import Event, ExecutionSummary, NewEvent, apply_to_summary
from .journal.memory import MemoryJournal
from .journal.protocol import JournalStore
from .manifest import atomic_write_bytes
from .replay import ReplayState, advance
from .registry import FlowVersion, Registry
from .runtime import Runtime

__all__ = [
    "HISTORY_SCHEMA",
    "History",
    "HistoryError",
    "ReplayResult",
    "read_history",
    "history_to_json",
    "history_from_json",
    "dump_history",
    "load_history",
    "load_histories",
    "write_history",
    "history_filename",
    "seed_journal",
    "replay_history",
]

HISTORY_SCHEMA = "loom-history/1"

#: Outcomes the body itself produces: withheld from the seeded journal so the replay must reproduce them.
_OUTCOMES = frozenset({ev.EXECUTION_SUSPENDED, ev.EXECUTION_COMPLETED, ev.EXECUTION_FAILED, ev.EXECUTION_CONTINUED})


class HistoryError(JournalError):
    """A history file or value is malformed; the message names the file and the event."""


@dataclass(frozen=True, slots=True)
class History:
    """One execution's events, in order (seq ``1..n``)."""

    execution_id: str
    events: tuple[Event, ...]
    source: str | None = None  # the file it came from, for messages

    @property
    def flow_id(self) -> str:
        return str(self.events[0].payload.get("flowId"))

    @property
    def summary(self) -> ExecutionSummary:
        """Status and effective hashes after the last event (the rules every store uses)."""
        s: ExecutionSummary | None = None
        for e in self.events:
            s = apply_to_summary(s, self.execution_id, e.seq, NewEvent(e.type, e.payload))
        assert s is not None
        return s


# -- export and files ---------------------------------------------------------------------------


def read_history(journal: JournalStore, execution_id: str) -> History:
    """The full history of one execution in ``journal``."""
    return History(execution_id, tuple(journal.read(execution_id)))


def history_to_json(history: History) -> dict[str, Any]:
    return {
        "schema": HISTORY_SCHEMA,
        "executionId": history.execution_id,
        "flowId": history.flow_id,
        "events": [{"seq": e.seq, "type": e.type, "payload": dict(e.payload)} for e in history.events],
    }


def dump_history(history: History) -> bytes:
    text = json.dumps(history_to_json(history), sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8")


def history_filename(execution_id: str) -> str:
    """A file name for an execution id: safe characters kept, anything else as ``%XX``."""
    safe = "".join(c if c.isalnum() or c in "-_.~" else f"%{ord(c):02X}" for c in execution_id)
    if safe.startswith("."):
        safe = "%2E" + safe[1:]
    return f"{safe}.json"


def write_history(history: History, directory: str | os.PathLike[str]) -> Path:
    """Write ``<directory>/<execution id>.json`` atomically; return its path."""
    path = Path(directory) / history_filename(history.execution_id)
    atomic_write_bytes(path, dump_history(history))
    return path


def history_from_json(doc: Any, *, where: str = "<history>") -> History:
    """Check and decode a ``loom-history/1`` document; ``HistoryError`` names ``where`` and the event."""
    if not isinstance(doc, Mapping):
        raise HistoryError(f"{where}: a history must be a JSON object, got {type(doc).__name__}")
    if doc.get("schema") != HISTORY_SCHEMA:
        raise HistoryError(
            f"{where}: unknown history schema {doc.get('schema')!r} (this runtime reads {HISTORY_SCHEMA!r}); "
            "export it again with `loom export`"
        )
    eid = doc.get("executionId")
    if not isinstance(eid, str) or not eid:
        raise HistoryError(f"{where}: `executionId` must be a non-empty string, got {eid!r}")
    raw = doc.get("events")
    if not isinstance(raw, list) or not raw:
        raise HistoryError(f"{where}: `events` must be a non-empty list (execution `{eid}` has no events)")
    events: list[Event] = []
    summary: ExecutionSummary | None = None
    state = ReplayState(execution_id=eid)  # folded as read: a field the fold needs must be there
    for i, item in enumerate(raw):
        at = f"{where}: execution `{eid}` events[{i}]"
        if not isinstance(item, Mapping):
            raise HistoryError(f"{at}: must be an object with seq, type and payload")
        seq, etype, payload = item.get("seq"), item.get("type"), item.get("payload")
        if seq != i + 1 or isinstance(seq, bool):
            raise HistoryError(f"{at}: `seq` must be {i + 1} (events are numbered 1..n without gaps), got {seq!r}")
        if not isinstance(payload, Mapping) or not ev.is_json_value(dict(payload)):
            raise HistoryError(f"{at}: `payload` must be a JSON object")
        try:
            new = NewEvent(str(etype), payload)
            summary = apply_to_summary(summary, eid, seq, new)
            advance(state, [new], first_seq=seq)
        except JournalError as exc:
            raise HistoryError(f"{at}: {exc}") from None
        except (KeyError, TypeError, ValueError) as exc:
            missing = f"field {exc}" if isinstance(exc, KeyError) else f"a malformed field ({exc})"
            raise HistoryError(f"{at}: {etype} payload lacks {missing}; export it again with `loom export`") from None
        events.append(Event(seq=seq, type=new.type, payload=dict(payload)))
    flow_id = doc.get("flowId")
    if flow_id is not None and flow_id != events[0].payload.get("flowId"):
        raise HistoryError(
            f"{where}: `flowId` {flow_id!r} disagrees with EXECUTION_STARTED's {events[0].payload.get('flowId')!r}"
        )
    return History(eid, tuple(events), source=where)


def load_history(path: str | os.PathLike[str]) -> History:
    p = Path(path)
    try:
        doc = json.loads(p.read_bytes().decode("utf-8"))
    except OSError as exc:
        raise HistoryError(f"{p}: cannot read history ({exc.strerror})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        where = f" at line {exc.lineno} column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        raise HistoryError(f"{p}: not valid UTF-8 JSON{where}; export it again with `loom export`") from None
    return history_from_json(doc, where=str(p))


def load_histories(paths: Iterable[str | os.PathLike[str]]) -> tuple[History, ...]:
    """Every history in the given files and directories (``*.json``, sorted). None at all is an error:
    an empty set of histories proves nothing."""
    files: list[Path] = []
    for given in paths:
        p = Path(given)
        if p.is_dir():
            files.extend(sorted(q for q in p.rglob("*.json") if q.is_file()))
        elif p.exists():
            files.append(p)
        else:
            raise HistoryError(f"{p}: no such file or directory")
    if not files:
        shown = ", ".join(str(p) for p in paths) or "(no paths given)"
        raise HistoryError(
            f"no histories found in {shown}; export some with `loom export --store URL --out DIR` "
            "(an empty set of histories is not a passing replay)"
        )
    return tuple(load_history(f) for f in files)


def seed_journal(history: History, journal: MemoryJournal | None = None) -> MemoryJournal:
    """An in-memory journal holding exactly ``history`` (a fresh one unless ``journal`` is given)."""
    journal = journal if journal is not None else MemoryJournal()
    first, rest = history.events[0], history.events[1:]
    journal.create(history.execution_id, NewEvent(first.type, first.payload))
    if rest:
        journal.append(history.execution_id, [NewEvent(e.type, e.payload) for e in rest], expected_seq=1)
    return journal


# -- replay ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """The verdict on one history.

    ``kind``: ``ok`` | ``diverged`` | ``live-work`` | ``mismatch`` | ``error``. ``frontier`` names the
    new work a history that ended open would do next (``ok`` only). ``skipped``: recorded steps the
    code never asked for (``diverged``).
    """

    execution_id: str
    flow_id: str
    kind: str
    message: str
    recorded_code_hash: str | None = None
    replayed_code_hash: str | None = None
    skipped: tuple[str, ...] = ()
    frontier: str | None = None
    source: str | None = None

    @property
    def ok(self) -> bool:
        return self.kind == "ok"


class _LiveWork(JournalError):
    """The replay journal refused an append: the re-run wanted to do work the history does not hold."""

    def __init__(self, message: str, events: Sequence[NewEvent]) -> None:
        super().__init__(message)
        self.events = tuple(events)


class _ReplayJournal(MemoryJournal):
    """Accepts only the withheld outcome; every other append is refused before it is written."""

    def __init__(self, execution_id: str, expected: NewEvent | None) -> None:
        super().__init__()
        self._eid = execution_id
        self.expected = expected
        self.reproduced: NewEvent | None = None
        self.mismatch: str | None = None
        self.armed = False  # off while the history is seeded

    def append(self, execution_id, events, *, expected_seq, lease=None):  # noqa: ANN001 - protocol signature
        events = list(events)
        if not self.armed:
            return super().append(execution_id, events, expected_seq=expected_seq, lease=lease)
        if execution_id == self._eid and self.expected is not None and len(events) == 1 and events[0].type == self.expected.type:
            differs = _outcome_difference(self.expected, events[0])
            if differs is None:
                self.reproduced, self.expected = events[0], None
                return super().append(execution_id, events, expected_seq=expected_seq, lease=lease)
            self.mismatch = differs
        raise _LiveWork(f"replay: refused {', '.join(e.type for e in events)} (no live work during a replay)", events)


def _outcome_difference(recorded: NewEvent, replayed: NewEvent) -> str | None:
    r, n = recorded.payload, replayed.payload
    if recorded.type == ev.EXECUTION_SUSPENDED:
        a, b = r["condition"].get("on"), n["condition"].get("on")
        return None if a == b else f"the history parks on `{a}`, this code parks on `{b}`"
    if recorded.type == ev.EXECUTION_COMPLETED:
        return None if r.get("result") == n.get("result") else (
            f"the history completed with {_short_json(r.get('result'))}, this code with {_short_json(n.get('result'))}"
        )
    if recorded.type == ev.EXECUTION_FAILED:
        a, b = (r.get("error") or {}).get("type"), (n.get("error") or {}).get("type")
        return None if a == b else f"the history failed with {a}, this code fails with {b}: {(n.get('error') or {}).get('message')}"
    if recorded.type == ev.EXECUTION_CONTINUED:
        return None if r.get("input") == n.get("input") else (
            f"the history continued as new with {_short_json(r.get('input'))}, this code with {_short_json(n.get('input'))}"
        )
    return None


def _short_json(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _describe(events: Sequence[NewEvent]) -> str:
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


class _ReplayRegistry(Registry):
    """Serves one version for its flow id whatever the history recorded: the code under test."""

    def __init__(self, version: FlowVersion) -> None:
        super().__init__()
        self._version = version

    def resolve(self, flow_id: str, **_: Any) -> FlowVersion:  # type: ignore[override]
        return self.current(flow_id)

    def current(self, flow_id: str) -> FlowVersion:
        if flow_id != self._version.flow_id:
            raise FlowNotFoundError(flow_id, known=(self._version.flow_id,))
        return self._version


def _as_version(flow: Callable[..., Any] | FlowDefinition | FlowVersion) -> FlowVersion:
    if isinstance(flow, FlowVersion):
        return flow
    return Registry().register(flow)


def replay_history(
    history: History,
    flow: Callable[..., Any] | FlowDefinition | FlowVersion,
    *,
    clock: Callable[[], float] | None = None,
) -> ReplayResult:
    """Re-run ``flow`` (a decorated function, definition or registry version) over ``history``.

    No step effect runs (see the module docstring). ``clock`` only matters for code that would
    set a new timer, which is live work and is reported as such.
    """
    version = _as_version(flow)
    eid, flow_id = history.execution_id, history.flow_id
    recorded = history.summary.code_hash

    def result(kind: str, message: str, **kw: Any) -> ReplayResult:
        return ReplayResult(
            eid, flow_id, kind, message, recorded_code_hash=recorded, replayed_code_hash=version.code_hash,
            source=history.source, **kw,
        )

    if flow_id != version.flow_id:
        return result("error", f"history of flow `{flow_id}` cannot be replayed on flow `{version.flow_id}`")
    last = history.events[-1]
    withheld: NewEvent | None = None
    seeded = history
    if last.type in _OUTCOMES and len(history.events) > 1:
        is_divergence_park = last.type == ev.EXECUTION_SUSPENDED and last.payload["condition"].get("on") == RESERVED_GATE
        seeded = History(eid, history.events[:-1], history.source)
        if not is_divergence_park:
            withheld = NewEvent(last.type, last.payload)
    journal = _ReplayJournal(eid, withheld)
    seed_journal(seeded, journal)
    journal.armed = True
    warnings_seen: list[str] = []
    kwargs: dict[str, Any] = {} if clock is None else {"clock": clock}
    runtime = Runtime(
        journal=journal, registry=_ReplayRegistry(version), divergence="fail", on_warn=warnings_seen.append, **kwargs
    )
    try:
        # _drive, not _drive_chain: a continuation's successor is another execution, not this history.
        handle = runtime._drive(eid)
    except FlowReplayDivergenceError as exc:
        skipped = tuple(exc.skipped)
        listed = ", ".join(f"`{s}`" for s in skipped)
        return result(
            "diverged",
            f"execution `{eid}`: this code never asks for recorded step(s) {listed}; a resume on it would be "
            "refused as diverged (no effect ran during the replay)",
            skipped=skipped,
        )
    except NonDeterminismError as exc:
        return result(
            "error",
            f"execution `{eid}`: `{exc.ident}` is recorded as a {exc.recorded} but this code asks for it as a "
            f"{exc.asked}; a resume on it would be parked on `{RESERVED_GATE}` (no effect ran during the replay)",
        )
    except _LiveWork as exc:
        if journal.mismatch is not None:
            return result("mismatch", f"execution `{eid}`: {journal.mismatch}")
        what = _describe(exc.events)
        if withheld is not None and exc.events[0].type in _OUTCOMES:
            return result("mismatch", f"execution `{eid}`: the history records {withheld.type}, but {what}")
        if withheld is None:
            return result("ok", f"execution `{eid}`: replayed to the end of its history; next, {what}", frontier=what)
        return result(
            "live-work",
            f"execution `{eid}`: {what} where the history records {withheld.type}: this code does work the "
            "recorded run did not (no effect ran during the replay)",
        )
    except LoomError as exc:
        return result("error", f"execution `{eid}`: {type(exc).__name__}: {exc}")
    if journal.expected is not None:
        return result(
            "mismatch",
            f"execution `{eid}`: the history records {withheld.type if withheld else 'more'}, "
            f"this code ended {handle.status}",
        )
    return result("ok", f"execution `{eid}`: replayed {len(history.events)} events on {version.code_hash or 'live code'}")
