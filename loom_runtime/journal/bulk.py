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

from collections.abc import Iterable, Sequence
from itertools import groupby
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


def decode_grouped(rows: Iterable[tuple[str, int, str, Any, float, int]], *, where: str = "") -> dict[str, tuple[Event, ...]]:
    """``(execution_id, seq, type, payload text, recorded_at, schema)`` rows, ordered by execution
    and seq, as each execution's events (checked like ``decode_rows``: schema, JSON object)."""
    out: dict[str, tuple[Event, ...]] = {}
    for eid, group in groupby(rows, key=lambda r: r[0]):
        events = []
        for _, seq, etype, text, at, schema in group:
            if type(schema) is not int or not 1 <= schema <= EVENT_SCHEMA:
                check_schema(schema, where=f"{where}execution `{eid}` event {seq}")  # raises
            payload = decode_payload(text, execution_id=eid, seq=seq) if isinstance(text, str) else dict(text)
            events.append(Event(seq, etype, payload, at, schema))
        out[eid] = tuple(events)
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
