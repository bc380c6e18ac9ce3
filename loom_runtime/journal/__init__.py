"""Journal stores behind one small protocol (see :mod:`loom_runtime.journal.protocol`)."""

from .events import EVENT_SCHEMA, Event, ExecutionSummary, NewEvent
from .memory import MemoryJournal
from .protocol import JournalStore, Lease
from .sqlite import JOURNAL_SCHEMA, SqliteJournal
# postgres.py imports psycopg only when a PostgresJournal is created: importing it here is free.
from .postgres import POSTGRES_JOURNAL_SCHEMA, PostgresJournal
from .urls import open_journal, redact_url

__all__ = [
    "EVENT_SCHEMA",
    "JOURNAL_SCHEMA",
    "Event",
    "ExecutionSummary",
    "NewEvent",
    "JournalStore",
    "Lease",
    "MemoryJournal",
    "SqliteJournal",
    "POSTGRES_JOURNAL_SCHEMA",
    "PostgresJournal",
    "open_journal",
    "redact_url",
]
