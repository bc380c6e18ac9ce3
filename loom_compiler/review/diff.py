"""``compute_diff(base, head)``: per flow unchanged / changed / new / removed, and which members.

A flow is *changed* when its codeHash or its structural flowHash differs, except across a
scheme upgrade: when the base's codeHash is of an earlier fingerprint scheme than the head's and
the two are the same code (``bundle.rehash.sources_match``: same structure, and every module of
the head's closure byte-identical to what the base recorded; or the head lists the base codeHash
in ``rehashedFrom``), the flow is *unchanged* with ``rehashed`` set: a new scheme's hash of the
same bytes, nothing for a reviewer to judge and nothing ``loom check`` may flag. A base that did
not record the modules the head's closure reaches cannot be proven the same, and stays changed.
For a changed flow the closure members are compared by name:

* **edited**: present on both sides with a different own digest (its text or what its names
  resolve to changed). When a side lacks own digests (a manifest base), a member counts as edited
  when its Merkle hash changed and none of the members it references changed: the Merkle hash of a
  caller moves with its callee, and the reviewer wants the callee (``shop.pricing.discount``), not
  every function on the path to it. Known blind spot of that fallback: a member edited *together*
  with one of its callees is reported only through the callee.
* **added** / **removed**: a member only one side reaches (a new helper, a dropped import).

Each member change carries what a reviewer must judge (``CodeChange``): the member's code on each
side normalised for reading (``review.code``: formatting, comments and docstrings never show, as
they never move the hash). When the two readings are equal although the member's own digest moved,
the change is in what its names resolve to (``rebound``: ``pricing.discount`` now means
``shop.pricing2.discount``), and failing that in a construct the reading prints alike, so the
canonical forms are shown instead (``canonical=True``): a member reported as edited always shows
a difference.

``FlowChange.may_skip`` is the static estimate of the recorded steps the new body could skip (what
the base's step calls can ask for and the head's cannot, ``review.step_calls``); ``None`` when a
side has no source to read (a manifest base).

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

from ..bundle.rehash import sources_match
from ..model import SourceError
from .snapshot import FlowSnapshot, MemberSnapshot, Snapshot
from .step_calls import could_skip

__all__ = ["FlowStatus", "CodeChange", "MemberChange", "FlowChange", "ReviewDiff", "compute_diff", "compatible_with_line",
           "is_rehash"]

FlowStatus = Literal["unchanged", "changed", "new", "removed"]


@dataclass(frozen=True, slots=True)
class CodeChange:
    """What changed in one member, for a person: its code before and after (``None``: that side
    has no such member, or its source is unknown)."""

    before: str | None = None
    after: str | None = None
    #: (name, base target, head target) for every name that resolves elsewhere now
    rebound: tuple[tuple[str, str | None, str | None], ...] = ()
    #: ``before``/``after`` are canonical forms: the readable code of both sides is identical
    canonical: bool = False


@dataclass(frozen=True, slots=True)
class MemberChange:
    qualname: str
    change: Literal["edited", "added", "removed"]
    kind: str | None = None
    path: str | None = None
    line: int = 0
    code: CodeChange = CodeChange()

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
    #: recorded steps the new body could skip (a static estimate); None: not estimated
    may_skip: tuple[str, ...] | None = None
    #: the head asks for step ids it computes (the estimate cannot say what they cover)
    head_computed_steps: int = 0
    #: the flow's closure as (qualname, kind, refs) of both sides, root first: what the graph draws
    graph: tuple[tuple[str, str | None, tuple[str, ...]], ...] = ()
    #: unchanged code whose codeHash moved only because the fingerprint scheme changed
    rehashed: bool = False
    base_scheme: str | None = None
    head_scheme: str | None = None
    #: the base's closure sources, when known (``loom check`` finds its code under another scheme)
    base_closure_sources: tuple[tuple[str, str], ...] | None = None

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
    def rehashed(self) -> int:
        """Unchanged flows whose codeHash moved with the fingerprint scheme."""
        return sum(1 for f in self.flows if f.rehashed)

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
        return FlowChange(flow_id, "removed", base.path, base.line, base_code_hash=base.code_hash,
                          base_flow_hash=base.flow_hash, base_scheme=base.scheme,
                          base_closure_sources=base.closure_sources)
    common = dict(
        path=head.path,
        line=head.line,
        head_code_hash=head.code_hash,
        head_flow_hash=head.flow_hash,
        head_compatible_with=head.compatible_with,
        head_scheme=head.scheme,
    )
    if base is None:
        return FlowChange(flow_id, "new", **common)
    same = base.code_hash == head.code_hash and base.flow_hash == head.flow_hash
    rehashed = not same and is_rehash(base, head)
    skip = None
    if not same and not rehashed and base.step_calls is not None and head.step_calls is not None:
        skip = could_skip(base.step_calls, head.step_calls)
    return FlowChange(
        flow_id,
        "unchanged" if same or rehashed else "changed",
        base_code_hash=base.code_hash,
        base_flow_hash=base.flow_hash,
        members=() if same or rehashed else _member_changes(base, head),
        compatible=base.code_hash in head.compatible_with,
        may_skip=skip,
        head_computed_steps=head.step_calls.computed if head.step_calls is not None else 0,
        graph=() if same or rehashed else _graph(base, head),
        rehashed=rehashed,
        base_scheme=base.scheme,
        base_closure_sources=base.closure_sources,
        **common,
    )


def _graph(base: FlowSnapshot, head: FlowSnapshot) -> tuple[tuple[str, str | None, tuple[str, ...]], ...]:
    """Both sides' members (head first, then those only the base has) with the union of their refs."""
    nodes: dict[str, tuple[str | None, set[str]]] = {}
    for m in (*head.members, *base.members):
        kind, refs = nodes.setdefault(m.qualname, (m.kind, set()))
        refs.update(m.refs)
    return tuple((q, kind, tuple(sorted(refs))) for q, (kind, refs) in nodes.items())


def is_rehash(base: FlowSnapshot, head: FlowSnapshot) -> bool:
    """``head`` is ``base``'s code fingerprinted again under a later scheme (module docstring)."""
    if base.code_hash == head.code_hash or base.flow_hash != head.flow_hash:
        return False
    if base.code_hash in head.rehashed_from:
        return True
    return sources_match(base.scheme, base.flow_hash, base.sources(),
                         scheme=head.scheme, flow_hash=head.flow_hash, closure_sources=head.sources())


def _member_changes(base: FlowSnapshot, head: FlowSnapshot) -> tuple[MemberChange, ...]:
    bm = {m.qualname: m for m in base.members}
    hm = {m.qualname: m for m in head.members}
    moved = {q for q in bm.keys() & hm.keys() if bm[q].hash != hm[q].hash}
    out: list[MemberChange] = []
    for m in head.members:
        old = bm.get(m.qualname)
        if old is None:
            out.append(_change(m, "added", CodeChange(after=m.code)))
        elif m.qualname in moved and _edited(old, m, moved):
            out.append(_change(m, "edited", _code_change(old, m)))
    for m in base.members:
        if m.qualname not in hm:
            out.append(_change(m, "removed", CodeChange(before=m.code)))
    return tuple(out)


def _code_change(old: MemberSnapshot, new: MemberSnapshot) -> CodeChange:
    if old.code is None or new.code is None or old.code != new.code:
        return CodeChange(old.code, new.code)
    ob, nb = dict(old.bindings), dict(new.bindings)
    rebound = tuple((n, ob.get(n), nb.get(n)) for n in sorted(ob.keys() | nb.keys()) if ob.get(n) != nb.get(n))
    if rebound:
        return CodeChange(old.code, new.code, rebound=rebound)
    # the readings agree but the own digests differ: show what the hash saw
    return CodeChange(old.canonical, new.canonical, canonical=True)


def _edited(old: MemberSnapshot, new: MemberSnapshot, moved: set[str]) -> bool:
    if old.own is not None and new.own is not None:
        return old.own != new.own
    refs = new.refs or old.refs  # the side that knows its call graph
    return not any(r in moved for r in refs)


def _change(m: MemberSnapshot, change: Literal["edited", "added", "removed"], code: CodeChange) -> MemberChange:
    return MemberChange(m.qualname, change, kind=m.kind, path=m.path, line=m.line, code=code)
