"""``take_census``: how many unfinished executions each flow id, codeHash and status has.

Unfinished means ``running`` or ``suspended`` (parked on a gate, a timer or ``__loom_diverged__``):
exactly the executions a deploy must still serve. The census reads only the stores' summary rows
(``list_executions``), never events, so it stays cheap on a large journal. The codeHash is the
*effective* one (a migrated execution counts under its migration target).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from loom_runtime.journal.events import RUNNING, SUSPENDED, ExecutionSummary
from loom_runtime.journal.protocol import JournalStore

__all__ = ["UNFINISHED", "CensusRow", "Census", "unfinished", "take_census", "census_of"]

UNFINISHED = (RUNNING, SUSPENDED)


@dataclass(frozen=True, slots=True)
class CensusRow:
    flow_id: str
    code_hash: str | None  # None: started without a fingerprint
    status: str
    count: int


@dataclass(frozen=True, slots=True)
class Census:
    rows: tuple[CensusRow, ...]  # sorted by flow id, codeHash, status

    @property
    def total(self) -> int:
        return sum(r.count for r in self.rows)

    def to_json(self) -> dict:
        return {
            "schema": "loom-census/1",
            "total": self.total,
            "rows": [{"flowId": r.flow_id, "codeHash": r.code_hash, "status": r.status, "count": r.count} for r in self.rows],
        }


def unfinished(journal: JournalStore) -> tuple[ExecutionSummary, ...]:
    return journal.list_executions(statuses=UNFINISHED)


def census_of(summaries: Iterable[ExecutionSummary]) -> Census:
    counts = Counter((s.flow_id, s.code_hash, s.status) for s in summaries)
    rows = [CensusRow(f, h, st, n) for (f, h, st), n in counts.items()]
    rows.sort(key=lambda r: (r.flow_id, r.code_hash or "", r.status))
    return Census(tuple(rows))


def take_census(journal: JournalStore) -> Census:
    return census_of(unfinished(journal))
