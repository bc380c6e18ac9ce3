"""``take_census``: how many unfinished executions each flow id, codeHash and status has.

Unfinished means ``running`` or ``suspended`` (parked on a gate, a timer or ``__loom_diverged__``):
exactly the executions a deploy must still serve. The census reads only the stores' summary rows
(``list_executions``), never events, so it stays cheap on a large journal. The codeHash is the
*effective* one (a migrated execution counts under its migration target).

An execution parked on the reserved gate ``__loom_diverged__`` (a divergence or non-determinism
refusal: it waits for an operator to fix, pin, list or migrate its code and call ``retry_diverged``)
is counted under the status ``diverged``, not ``suspended``: it is an emergency, and among a
thousand executions waiting for approvals it would otherwise be invisible. Rejected: a ``gate``
column (every distinct approval and timer gate would split the rows, and the one gate that matters
would still have to be spotted by name).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from loom_runtime.definition import RESERVED_GATE
from loom_runtime.journal.events import RUNNING, SUSPENDED, ExecutionSummary
from loom_runtime.journal.protocol import JournalStore

__all__ = ["UNFINISHED", "DIVERGED", "CensusRow", "Census", "census_status", "unfinished", "take_census", "census_of"]

UNFINISHED = (RUNNING, SUSPENDED)
#: The census status of a suspended execution parked on ``__loom_diverged__``.
DIVERGED = "diverged"


@dataclass(frozen=True, slots=True)
class CensusRow:
    flow_id: str
    code_hash: str | None  # None: started without a fingerprint
    status: str  # running | suspended | diverged (see census_status)
    count: int


@dataclass(frozen=True, slots=True)
class Census:
    rows: tuple[CensusRow, ...]  # sorted by flow id, codeHash, status

    @property
    def total(self) -> int:
        return sum(r.count for r in self.rows)

    @property
    def diverged(self) -> int:
        """Executions parked on ``__loom_diverged__``, waiting for an operator."""
        return sum(r.count for r in self.rows if r.status == DIVERGED)

    def to_json(self) -> dict:
        return {
            "schema": "loom-census/1",
            "total": self.total,
            "diverged": self.diverged,
            "rows": [{"flowId": r.flow_id, "codeHash": r.code_hash, "status": r.status, "count": r.count} for r in self.rows],
        }


def unfinished(journal: JournalStore) -> tuple[ExecutionSummary, ...]:
    return journal.list_executions(statuses=UNFINISHED)


def census_status(summary: ExecutionSummary) -> str:
    """The status a census counts ``summary`` under: ``diverged`` for a park on the reserved gate."""
    if summary.status == SUSPENDED and summary.gate == RESERVED_GATE:
        return DIVERGED
    return summary.status


def census_of(summaries: Iterable[ExecutionSummary]) -> Census:
    counts = Counter((s.flow_id, s.code_hash, census_status(s)) for s in summaries)
    rows = [CensusRow(f, h, st, n) for (f, h, st), n in counts.items()]
    rows.sort(key=lambda r: (r.flow_id, r.code_hash or "", r.status))
    return Census(tuple(rows))


def take_census(journal: JournalStore) -> Census:
    return census_of(unfinished(journal))
