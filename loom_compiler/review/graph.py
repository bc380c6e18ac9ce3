"""A Mermaid graph of a changed flow's closure, for the markdown review (GitHub renders it).

Drawn small on purpose: a real closure has dozens or hundreds of members and a reviewer needs the
route from the flow to what changed, not the whole call graph. So the graph holds the flow, each
changed member (up to ``limit``), and the members on the shortest reference path from the flow to
each of them; everything else is one counted node ("+ 41 unchanged members"). Edges follow the
members' references (``refs``: what a member's names resolve to inside the closure), over the union
of both sides so that a removed member is drawn where it used to hang. A changed member no path
reaches (a closure widened to a whole module, a member only the manifest base names) hangs off the
flow by a dotted edge. Node ids are positional (``n0``, ``n1``): qualnames hold dots, which Mermaid
ids cannot, and labels are quoted with ``"`` escaped as ``#quot;``.

Rejected: the full closure (unreadable past twenty nodes, and GitHub refuses very large diagrams)
and only the changed members without their path (the reviewer then cannot tell which call of the
flow reaches them).
"""

from __future__ import annotations

from collections import deque

from .diff import FlowChange

__all__ = ["mermaid"]

_CLASSES = (
    "classDef flow fill:#e8f0fe,stroke:#1a73e8",
    "classDef edited fill:#fff3b0,stroke:#b08800,stroke-width:2px",
    "classDef added fill:#dcffe4,stroke:#22863a,stroke-width:2px",
    "classDef removed fill:#ffdce0,stroke:#cb2431,stroke-width:2px,stroke-dasharray:4 2",
    "classDef more fill:#f6f8fa,stroke:#d0d7de,color:#57606a",
)


def _label(text: str) -> str:
    return '"' + text.replace('"', "#quot;") + '"'


def mermaid(change: FlowChange, *, limit: int = 8) -> list[str]:
    """The lines of a ```` ```mermaid ```` block (fences not included); ``[]`` without a closure."""
    if not change.graph:
        return []
    kinds = {q: k for q, k, _ in change.graph}
    refs = {q: r for q, _, r in change.graph}
    root = change.graph[0][0]
    parent: dict[str, str | None] = {root: None}
    queue = deque([root])
    while queue:  # breadth first: the shortest path to every member
        q = queue.popleft()
        for r in refs.get(q, ()):
            if r in refs and r not in parent:
                parent[r] = q
                queue.append(r)
    status = {m.qualname: m.change for m in change.members}
    shown = [m.qualname for m in change.members if m.qualname in kinds][:limit]
    ids: dict[str, str] = {}
    edges: list[tuple[str, str, bool]] = []  # (from, to, dotted)

    def node(q: str) -> str:
        if q not in ids:
            ids[q] = f"n{len(ids)}"
        return ids[q]

    node(root)
    for target in shown:
        if target not in parent:
            edges.append((root, target, True))
            node(target)
            continue
        path = [target]
        while parent[path[-1]] is not None:
            path.append(parent[path[-1]])  # type: ignore[arg-type]
        path.reverse()
        for a, b in zip(path, path[1:]):
            node(a), node(b)
            edges.append((a, b, False))
    lines = ["flowchart LR"]
    for q, nid in ids.items():
        kind = kinds.get(q)
        text = q if not kind else f"{q}<br/><i>{kind}</i>"
        if q in status:
            text = f"{status[q]}: {text}"
        lines.append(f"  {nid}[{_label(text)}]")
    seen: set[tuple[str, str]] = set()
    for a, b, dotted in edges:
        if (a, b) in seen:
            continue
        seen.add((a, b))
        lines.append(f"  {ids[a]} {'-.->' if dotted else '-->'} {ids[b]}")
    hidden_changed = len([m for m in change.members if m.qualname in kinds]) - len(shown)
    unchanged = sum(1 for q in kinds if q not in ids and q not in status)
    more = [f"+ {hidden_changed} more changed" if hidden_changed else "", f"+ {unchanged} unchanged members" if unchanged else ""]
    more_text = ", ".join(x for x in more if x)
    if more_text:
        lines.append(f"  more[{_label(more_text)}]")
        lines.append(f"  {ids[root]} -.- more")
    lines.extend(f"  {c}" for c in _CLASSES)
    lines.append(f"  class {ids[root]} flow")
    for state in ("edited", "added", "removed"):
        members = [ids[q] for q in ids if status.get(q) == state]
        if members:
            lines.append(f"  class {','.join(members)} {state}")
    if more_text:
        lines.append("  class more more")
    return lines
