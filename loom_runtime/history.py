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
history?* It re-runs the body once on the given version in the replay sandbox
(:mod:`loom_runtime.sandbox`: the runtime's own drive loop, divergence detection in ``fail`` mode,
a journal that refuses every append, deciders never called), so **no step, decider or emit of the
user's runs**: the first live append ends the replay. A history that ends with an outcome the body
itself decides (a park, completion, failure or continuation) must reproduce it. The verdict:

* it reproduces that outcome (or, for a history that ended while running, reaches the point where
  the history stops and asks for new work: the *frontier*, "next: decision `x` would be recorded
  live") → ``ok``;
* the detector refuses it (recorded steps the body no longer asks for) → ``diverged``;
* it asks for live work before the recorded outcome (new work the old run did not do, a new
  decision included), or ends with another outcome → ``live-work`` / ``mismatch``;
* the runtime reports non-determinism or the body misuses the API → ``error``.

A history parked on ``__loom_diverged__`` is replayed as an open one: the park was a refusal, and
the question is whether the code under test would now run it on. One parked by ``Runtime(strict=True)``
on an undeclared step id is held to the strict rule: the code must declare the id (else ``error``),
and the way on is ``resume_as(id, "current")`` (its version is not the one the history pins).

Rejected: replaying against the version the history pins (``Registry.resolve``; that is what
production does and it trivially passes, so it checks nothing about the code under review),
running step functions under a mock (a replay must prove they are *not* needed), and comparing
the full event list for equality (benign reorders and served emits are not divergence, D3).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import json_values
from .definition import RESERVED_GATE, FlowDefinition
from .errors import JournalCorruptionError, JournalError
from .files import read_regular_file
from .journal import events as ev
from .journal.events import Event, ExecutionSummary, NewEvent, apply_to_summary
from .journal.memory import MemoryJournal
from .journal.protocol import JournalStore
from .manifest import atomic_write_bytes
from .replay import ReplayState, advance
from .registry import FlowVersion, Registry
from .sandbox import Sandbox

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
    """A file name for an execution id, distinct for distinct ids on every common filesystem.

    ``[a-z0-9_-]`` and inner dots are kept; an uppercase ASCII letter becomes ``^`` and its lower
    case (case-insensitive filesystems: macOS, Windows); every other character becomes its UTF-8
    bytes as ``%XX`` (so ``'\U0001F600'`` is ``%F0%9F%98%80`` and ``'\x1f600'`` is ``%1F600``: a
    fixed two hex digits per byte is what makes the mapping one to one); a leading or trailing dot
    and the first letter of a Windows device name (``con``, ``nul``, ``com1``…) are escaped too.
    Every rule can be undone, so two ids never share a name. A name longer than
    ``_MAX_NAME`` characters keeps a prefix and ends in ``~`` and 40 hex of the id's sha256 (``~``
    never appears otherwise), well inside the 255 bytes filesystems allow.
    """
    out: list[str] = []
    for c in execution_id:
        if c in _KEPT:
            out.append(c)
        elif "A" <= c <= "Z":
            out.append("^" + c.lower())
        else:
            out.extend(f"%{b:02X}" for b in c.encode("utf-8", "surrogatepass"))
    if out and out[0] == ".":
        out[0] = "%2E"
    if out and out[-1] == ".":
        out[-1] = "%2E"
    stem = "".join(out).split(".", 1)[0]
    if stem in _DEVICE_NAMES and out:
        out[0] = f"%{ord(out[0]):02X}"
    name = "".join(out)
    if len(name) > _MAX_NAME:
        cut = _MAX_NAME - 41
        while cut > 0 and ("%" in name[max(0, cut - 2):cut] or name[cut - 1] == "^"):
            cut -= 1  # never split an escape
        digest = hashlib.sha256(execution_id.encode("utf-8", "surrogatepass")).hexdigest()[:40]
        name = f"{name[:cut]}~{digest}"
    return f"{name}.json"


_KEPT = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-.")
_DEVICE_NAMES = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))})
#: longest file name stem ``history_filename`` makes (characters; all ASCII, so bytes too)
_MAX_NAME = 180


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
        except JournalCorruptionError as exc:
            raise HistoryError(f"{at}: {exc.problem}; export it again with `loom export`") from None
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
        doc = json_values.decode(read_regular_file(p))  # a FIFO is refused, never waited on
    except OSError as exc:
        raise HistoryError(f"{p}: cannot read history ({exc.strerror})") from None
    except json_values.JsonValueError as exc:  # bad JSON, 100,000-deep nesting, a 5,000-digit integer
        raise HistoryError(f"{p}: {exc.what}; export it again with `loom export`") from None
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
    r = Sandbox(version, clock=clock).replay(eid, history.events)
    if r.kind == "diverged":
        listed = ", ".join(f"`{s}`" for s in r.skipped)
        return result(
            "diverged",
            f"execution `{eid}`: this code never asks for recorded step(s) {listed}; a resume on it would be "
            "refused as diverged (no effect ran during the replay)",
            skipped=r.skipped,
        )
    if r.kind == "nondeterministic":
        return result("error", f"execution `{eid}`: {r.message}; a resume on it would be parked on `{RESERVED_GATE}` "
                      "(no effect ran during the replay)")
    if r.kind == "undeclared":
        return result("error", f"execution `{eid}` was parked by a strict runtime refusing undeclared step "
                      f"`{r.undeclared}`, and {r.message} (no effect ran during the replay)")
    if r.kind == "frontier":
        parked = "" if r.undeclared is None else (
            f"; it is parked on `{RESERVED_GATE}` by a strict runtime that refused undeclared step `{r.undeclared}`, "
            "which this code declares: after the deploy, runtime.resume_as(execution_id, \"current\") runs it on")
        return result("ok", f"execution `{eid}`: replayed to the end of its history; next: {r.message}{parked}",
                      frontier=r.message)
    if r.kind == "reached":
        return result("ok", f"execution `{eid}`: replayed {len(history.events)} events on {version.code_hash or 'live code'}")
    if r.kind == "live-work":
        return result("live-work", f"execution `{eid}`: {r.message}: this code does work the recorded run did not "
                      "(no effect ran during the replay)")
    if r.kind == "corrupt":
        return result("error", f"execution `{eid}`: {r.message}")
    return result(r.kind, f"execution `{eid}`: {r.message}")  # mismatch | error
