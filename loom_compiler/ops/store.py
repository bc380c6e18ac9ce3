"""Open the journal an ops command reads: ``sqlite:///path``, ``postgresql://…`` or a plain path.

Ops commands (``census``, ``deploy-check``, ``gc``, ``export``) only read a journal, and a journal
they misread is worse than none: ``gc`` would remove versions live executions need. So the store is
opened with ``open_journal(url, read_only=True)``: it is never created, migrated or altered (a
SQLite file is opened ``mode=ro``, a PostgreSQL session is ``READ ONLY``), and anything that is not
a loom journal of a known schema is refused with a ``JournalError`` that names it — a missing path
(a typo would otherwise read as "nothing in flight"), an empty file, a text file, another
application's SQLite database, a PostgreSQL database or schema without loom's tables, a journal
written by a newer loom, and ``memory:`` (empty by definition).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from loom_runtime.errors import JournalError
from loom_runtime.journal.protocol import JournalStore
from loom_runtime.journal.urls import open_journal

__all__ = ["open_store", "sqlite_path"]

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")


def sqlite_path(url: str) -> str | None:
    """The file a SQLite URL (or plain path) names; ``None`` for other schemes."""
    m = _SCHEME.match(url)
    if m is None or len(m.group(1)) == 1:
        return url
    if m.group(1).lower() == "sqlite":
        rest = url[len("sqlite:") :]
        return rest[3:].split("?", 1)[0] if rest.startswith("///") else None
    return None


@contextmanager
def open_store(url: str) -> Iterator[JournalStore]:
    """The loom journal ``url`` names, read-only, closed on exit; ``JournalError`` for anything else."""
    url = url.strip()
    if url.lower().startswith("memory:"):
        raise JournalError("--store memory: names an empty in-memory journal; give the service's journal URL")
    store = open_journal(url, read_only=True)  # its errors name the file or the (redacted) URL
    try:
        yield store
    finally:
        store.close()
