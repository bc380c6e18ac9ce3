"""Reading many executions at once: what an ops replay over a whole journal needs.

``loom deploy-check`` replays every unfinished execution of a production journal; one ``read``
per execution is one query (a round trip on PostgreSQL) per execution, which costs more than the
rows themselves. Two optional store capabilities, each a method the SQLite, PostgreSQL and memory
stores have and a fallback here for any other ``JournalStore``:

``read_many(execution_ids) -> dict[str, tuple[Event, ...]]``
    Every event of each execution, in order, in a query per batch of ids (``BATCH``). An id the
    store does not hold is absent from the result (the caller listed it, so it is reported there).
``started_at(execution_ids) -> dict[str, float]``
    When each execution started (its first event's ``recorded_at``, storage metadata the runtime
    never reads): the order ``deploy-check --sample`` takes "the most recent" by.

They are not part of the ``JournalStore`` protocol, which stays what the *runtime* needs: a store
without them still serves every ops command, one execution at a time (``read_many``/``started_at``
below). Rejected: a cursor over the whole events table (ties readers to table order and holds one
read transaction open for the whole replay) and reading in the parent and shipping events to the
replay workers (every payload decoded, encoded and decoded again).
"""

from __future__ import annotations

import json
import json.scanner
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from .events import EVENT_SCHEMA, Event, check_schema, decode_payload
from .protocol import JournalStore

__all__ = ["BATCH", "read_many", "started_at", "batches", "decode_grouped"]

#: ids per query: far below SQLite's bound on host parameters (999 before 3.32), large enough that
#: the query overhead is noise next to its rows
BATCH = 500


def batches(ids: Sequence[str], size: int | None = None) -> Iterable[list[str]]:
    """``ids`` without repeats, in lists of at most ``size`` (default ``BATCH``)."""
    size = size or BATCH
    unique = list(dict.fromkeys(ids))
    for i in range(0, len(unique), size):
        yield unique[i : i + size]


#: the json module's C scanner: one object from a string at an offset, without ``json.loads``'s
#: Python-level wrapper (its whitespace regex and checks cost as much as the parse of a small
#: payload). Only on 3.11+, where ``int()`` itself bounds integer digits as ``json_values.decode``
#: requires; 3.10 takes ``decode_payload`` for every row.
_scan = json.scanner.make_scanner(json.JSONDecoder()) if sys.version_info >= (3, 11) else None


def _payload(text: Any, eid: str, seq: int) -> dict[str, Any]:
    """One stored payload as a dict: the fast scan when the text is exactly one JSON object (what
    loom writes), else ``decode_payload`` (``json_values.decode``: the limits and the message that
    names the execution and event). Rejected: parsing a batch as one joined array (a corrupt row
    with a top-level comma and another with an open bracket would pair up unnoticed)."""
    if isinstance(text, str):
        if _scan is not None:
            try:
                obj, end = _scan(text, 0)
            except Exception:  # noqa: BLE001 - any trouble (deep nesting, a huge integer): the checked path
                end = -1
            else:
                if end == len(text) and type(obj) is dict:
                    return obj
        return decode_payload(text, execution_id=eid, seq=seq)
    return dict(text)  # a driver that hands back decoded JSON (jsonb)


def decode_grouped(rows: Iterable[tuple[str, int, str, Any, float, int]], *, where: str = "") -> dict[str, tuple[Event, ...]]:
    """``(execution_id, seq, type, payload text, recorded_at, schema)`` rows, ordered by execution
    and seq, as each execution's events (checked like ``decode_rows``: schema, JSON object)."""
    out: dict[str, tuple[Event, ...]] = {}
    current: str | None = None
    events: list[Event] = []
    for eid, seq, etype, text, at, schema in rows:
        if eid != current:
            if current is not None:
                out[current] = tuple(events)
            current, events = eid, []
        if type(schema) is not int or not 1 <= schema <= EVENT_SCHEMA:
            check_schema(schema, where=f"{where}execution `{eid}` event {seq}")  # raises
        events.append(Event(seq, etype, _payload(text, eid, seq), at, schema))
    if current is not None:
        out[current] = tuple(events)
    return out


def read_many(store: JournalStore, execution_ids: Sequence[str]) -> dict[str, tuple[Event, ...]]:
    """``store.read_many`` when the store has it, else one ``read`` per execution."""
    method = getattr(store, "read_many", None)
    if method is not None:
        return method(execution_ids)
    from ..errors import ExecutionNotFoundError

    out: dict[str, tuple[Event, ...]] = {}
    for eid in dict.fromkeys(execution_ids):
        try:
            out[eid] = store.read(eid)
        except ExecutionNotFoundError:
            continue
    return out


def started_at(store: JournalStore, execution_ids: Sequence[str]) -> dict[str, float]:
    """``store.started_at`` when the store has it, else each execution's first event, read."""
    method = getattr(store, "started_at", None)
    if method is not None:
        return method(execution_ids)
    from ..errors import ExecutionNotFoundError

    out: dict[str, float] = {}
    for eid in dict.fromkeys(execution_ids):
        try:
            events = store.read(eid)
        except ExecutionNotFoundError:
            continue
        if events:
            out[eid] = events[0].recorded_at
    return out
