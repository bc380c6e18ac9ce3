"""``compute_diff(base, head)``: per flow unchanged / changed / new / removed, and which members.

A flow is *changed* when its codeHash or its structural flowHash differs. For a changed flow the
closure members are compared by name:

* **edited**: present on both sides with a different own digest (its text or what its names
  resolve to changed). When a side lacks own digests (a manifest base), a member counts as edited
  when its Merkle hash changed and none of the members it references changed: the Merkle hash of a
  caller moves with its callee, and the reviewer wants the callee (``shop.pricing.discount``), not
  every function on the path to it. Known blind spot of that fallback: a member edited *together*
  with one of its callees is reported only through the callee.
* **added** / **removed**: a member only one side reaches (a new helper, a dropped import).

``FlowChange.suggestion`` is the ``compatible_with=[...]`` argument a reviewer may add to the flow
decorator if the edit is replay-safe: the flow's existing entries plus the base codeHash. It is
``None`` when the structure changed, because resolution matches the structure first and no
``compatible_with`` entry can serve an execution whose declared steps changed.

Rejected: diffing source text (formatting noise is exactly what the fingerprint exists to ignore)
and listing every member whose Merkle hash moved (a one-line edit in a leaf helper would list the
flow and every caller between them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..model import SourceError
from .snapshot import FlowSnapshot, MemberSnapshot, Snapshot

__all__ = ["FlowStatus", "MemberChange", "FlowChange", "ReviewDiff", "compute_diff", "compatible_with_line"]

FlowStatus = Literal["unchanged", "changed", "new", "removed"]


@dataclass(frozen=True, slots=True)
class MemberChange:
    qualname: str
    change: Literal["edited", "added", "removed"]
    kind: str | None = None
    path: str | None = None
    line: int = 0

    def describe(self) -> str:
        where = f"{self.path}:{self.line}" if self.path else None
        detail = ", ".join(x for x in (self.kind, where) if x)
        return f"{self.qualname} ({detail})" if detail else self.qualname


@dataclass(frozen=True, slots=True)
class FlowChange:
    flow_id: str
    status: FlowStatus
    path: str | None  # the head's location, else the base's (a removed flow)
    line: int
    base_code_hash: str | None = None
    head_code_hash: str | None = None
    base_flow_hash: str | None = None
    head_flow_hash: str | None = None
    members: tuple[MemberChange, ...] = ()
    #: the head's ``compatible_with`` already lists the base codeHash
    compatible: bool = False
    head_compatible_with: tuple[str, ...] = ()

    @property
    def structure_changed(self) -> bool:
        return self.status == "changed" and self.base_flow_hash != self.head_flow_hash

    @property
    def code_changed(self) -> bool:
        return self.status == "changed" and self.base_code_hash != self.head_code_hash

    @property
    def suggestion(self) -> str | None:
        if not self.code_changed or self.structure_changed or self.compatible or self.base_code_hash is None:
            return None
        return compatible_with_line((*self.head_compatible_with, self.base_code_hash))


@dataclass(frozen=True, slots=True)
class ReviewDiff:
    base: str
    head: str
    flows: tuple[FlowChange, ...]  # sorted by flow id
    errors: tuple[SourceError, ...] = ()  # the head's; a base error is a warning
    warnings: tuple[str, ...] = ()
    base_is_ref: bool = True  # False: the base is a manifest, not a git ref

    def count(self, status: FlowStatus) -> int:
        return sum(1 for f in self.flows if f.status == status)

    @property
    def has_changes(self) -> bool:
        return any(f.status != "unchanged" for f in self.flows)


def compatible_with_line(hashes: tuple[str, ...]) -> str:
    unique = list(dict.fromkeys(hashes))
    return "compatible_with=[" + ", ".join(f'"{h}"' for h in unique) + "]"


def compute_diff(base: Snapshot, head: Snapshot, *, base_is_ref: bool = True) -> ReviewDiff:
    b, h = base.by_id(), head.by_id()
    flows = [_flow_change(flow_id, b.get(flow_id), h.get(flow_id)) for flow_id in sorted(set(b) | set(h))]
    warnings = tuple(f"{base.label}: {e}" for e in base.errors)
    return ReviewDiff(base.label, head.label, tuple(flows), head.errors, warnings, base_is_ref)


def _flow_change(flow_id: str, base: FlowSnapshot | None, head: FlowSnapshot | None) -> FlowChange:
    if head is None:
        assert base is not None
        return FlowChange(flow_id, "removed", base.path, base.line, base_code_hash=base.code_hash, base_flow_hash=base.flow_hash)
    common = dict(
        path=head.path,
        line=head.line,
        head_code_hash=head.code_hash,
        head_flow_hash=head.flow_hash,
        head_compatible_with=head.compatible_with,
    )
    if base is None:
        return FlowChange(flow_id, "new", **common)
    same = base.code_hash == head.code_hash and base.flow_hash == head.flow_hash
    return FlowChange(
        flow_id,
        "unchanged" if same else "changed",
        base_code_hash=base.code_hash,
        base_flow_hash=base.flow_hash,
        members=() if same else _member_changes(base, head),
        compatible=base.code_hash in head.compatible_with,
        **common,
    )


def _member_changes(base: FlowSnapshot, head: FlowSnapshot) -> tuple[MemberChange, ...]:
    bm = {m.qualname: m for m in base.members}
    hm = {m.qualname: m for m in head.members}
    moved = {q for q in bm.keys() & hm.keys() if bm[q].hash != hm[q].hash}
    out: list[MemberChange] = []
    for m in head.members:
        old = bm.get(m.qualname)
        if old is None:
            out.append(_change(m, "added"))
        elif m.qualname in moved and _edited(old, m, moved):
            out.append(_change(m, "edited"))
    for m in base.members:
        if m.qualname not in hm:
            out.append(_change(m, "removed"))
    return tuple(out)


def _edited(old: MemberSnapshot, new: MemberSnapshot, moved: set[str]) -> bool:
    if old.own is not None and new.own is not None:
        return old.own != new.own
    refs = new.refs or old.refs  # the side that knows its call graph
    return not any(r in moved for r in refs)


def _change(m: MemberSnapshot, change: Literal["edited", "added", "removed"]) -> MemberChange:
    return MemberChange(m.qualname, change, kind=m.kind, path=m.path, line=m.line)
