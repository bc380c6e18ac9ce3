"""Journal stores behind one small protocol (see :mod:`loom_runtime.journal.protocol`)."""

from .events import EVENT_SCHEMA, Event, ExecutionSummary, NewEvent
from .memory import MemoryJournal
from .protocol import JournalStore, Lease
from .sqlite import JOURNAL_SCHEMA, SqliteJournal

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
]
