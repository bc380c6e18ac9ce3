"""Open the journal an ops command reads: ``sqlite:///path``, ``postgresql://…`` or a plain path.

A thin layer over ``loom_runtime.journal.urls.open_journal`` with one rule of its own: an ops
command never *creates* a journal. ``open_journal`` creates a missing SQLite file (right for a
service starting up); for ``census``/``deploy-check``/``gc`` a typo in the path would then read an
empty journal and report that nothing is in flight, and ``gc`` would remove every old version. So a
SQLite path must name an existing file, and ``memory:`` (empty by definition) is refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from loom_runtime.errors import JournalError
from loom_runtime.journal.protocol import JournalStore
from loom_runtime.journal.urls import open_journal, redact_url

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
    """The store ``url`` names, closed on exit; ``JournalError`` if it does not exist."""
    url = url.strip()
    if url.lower().startswith("memory:"):
        raise JournalError("--store memory: names an empty in-memory journal; give the service's journal URL")
    path = sqlite_path(url)
    if path is not None and not Path(path).is_file():
        raise JournalError(
            f"--store {redact_url(url)}: no SQLite journal at {path}; check the path "
            "(sqlite:///relative/path.db or sqlite:////absolute/path.db)"
        )
    store = open_journal(url)
    try:
        yield store
    finally:
        store.close()
