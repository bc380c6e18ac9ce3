"""Damage a stored journal row directly, below the store's API, for any of the three stores.

What an operator's hand edit, a bad restore or disk damage does to a journal: a row deleted (a
sequence gap), its type changed, its payload rewritten. The stores never write these; the tests use
this to prove the runtime refuses them instead of replaying past them. One place for the three
stores' layouts, so a layout change breaks one helper, not every fault test.
"""

from __future__ import annotations

from typing import Any

from loom_runtime.journal import MemoryJournal, PostgresJournal, SqliteJournal

__all__ = ["RawRows"]


class RawRows:
    """Row surgery on ``store``'s storage (a ``MemoryJournal``, ``SqliteJournal`` or ``PostgresJournal``)."""

    def __init__(self, store: Any) -> None:
        self.store = store

    def delete(self, execution_id: str, seq: int) -> None:
        self._sql("DELETE FROM {events} WHERE execution_id={p} AND seq={p}", (execution_id, seq),
                  memory=lambda rows: [r for r in rows if r[0] != seq])

    def set_type(self, execution_id: str, seq: int, type_: str) -> None:
        self._sql("UPDATE {events} SET type={p} WHERE execution_id={p} AND seq={p}", (type_, execution_id, seq),
                  memory=lambda rows: [(s, type_ if s == seq else t, p, a, sc) for s, t, p, a, sc in rows])

    def set_payload(self, execution_id: str, seq: int, text: str) -> None:
        cast = "::json" if isinstance(self.store, PostgresJournal) else ""
        self._sql("UPDATE {events} SET payload={p}" + cast + " WHERE execution_id={p} AND seq={p}",
                  (text, execution_id, seq),
                  memory=lambda rows: [(s, t, text if s == seq else p, a, sc) for s, t, p, a, sc in rows])

    def _sql(self, template: str, args: tuple[Any, ...], *, memory) -> None:  # noqa: ANN001
        store = self.store
        if isinstance(store, MemoryJournal):
            with store._lock:  # noqa: SLF001 - surgery below the API is the point
                execution = store._executions[args[-2]]  # noqa: SLF001 - every statement ends (…, execution_id, seq)
                execution.rows = memory(execution.rows)
            return
        if isinstance(store, SqliteJournal):
            import sqlite3

            with sqlite3.connect(store.path) as conn:
                conn.execute(template.format(events="events", p="?"), args)
            conn.close()
            return
        if isinstance(store, PostgresJournal):
            import psycopg

            table = f'"{store.schema}".loom_events' if store.schema else "loom_events"
            with psycopg.connect(store.dsn, autocommit=True) as conn:
                conn.execute(template.format(events=table, p="%s"), args)
            return
        raise TypeError(f"no row surgery for {type(store).__name__}")
