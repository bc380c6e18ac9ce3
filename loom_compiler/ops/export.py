"""``export_histories``: write executions of a journal as ``loom-history/1`` files for ``loom replay``.

One file per execution (``<out>/<execution id>.json``, written atomically, keys sorted, no
timestamps; see ``loom_runtime.history``). By default every execution is exported (completed ones
make the best golden histories); ``unfinished_only`` keeps the ones a deploy must still serve.
Exporting nothing is an error: an empty directory would later replay as "no histories".
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from loom_runtime.errors import JournalError
from loom_runtime.history import read_history, write_history
from loom_runtime.journal.protocol import JournalStore

from .census import UNFINISHED

__all__ = ["export_histories"]


def export_histories(
    journal: JournalStore,
    out: str | os.PathLike[str],
    *,
    execution_ids: Sequence[str] = (),
    unfinished_only: bool = False,
) -> tuple[Path, ...]:
    if execution_ids:
        ids = list(dict.fromkeys(execution_ids))
    else:
        statuses = UNFINISHED if unfinished_only else None
        ids = [s.execution_id for s in journal.list_executions(statuses=statuses)]
    if not ids:
        what = "unfinished executions" if unfinished_only else "executions"
        raise JournalError(f"the journal holds no {what}; nothing to export")
    histories = [read_history(journal, eid) for eid in ids]  # read all first: a bad id writes nothing
    return tuple(write_history(h, out) for h in histories)
