"""A flow's closure and its Merkle hashes, computed over ``ModuleSummary`` values (no parsing).

Closure. Starting at the flow, every global chain a member uses is resolved in the member's own
module: a module-level name becomes that definition (``shop.pricing.discount``, all the units
that bind it); an import binding becomes its target plus the attribute tail (``import shop.pricing
as m; m.helper`` -> ``shop.pricing.helper``), which is followed into the target module when that
module is first-party (configured package roots, or any module the caller can supply when no
roots are configured), re-exports included; anything else stays an ``import`` member hashed by its
dotted target only (``math.floor``). A function decorated with a step decorator is a ``step``
member hashed by its qualified name only. For method flows, ``self.x``/``cls.x`` reach the
sibling ``method`` members of the class (and ``__init__``/``__post_init__``, which build the
instance the flow runs on); the class's bases and decorators are references of the flow itself.
Unknown names (builtins) are not members; they are already spelled out in the canonical form of
the code that uses them. A flow function reached by name from its own closure is the flow node.

One graph per run. Every flow of a ``fingerprint_flows`` call shares one ``ClosureGraph``: a
member is resolved and hashed once however many flows reach it (the stdlib, fingerprinted as
14,500 flows, would otherwise re-walk the same helpers thousands of times). Sharing cannot change
a hash: a member's hash depends only on what it reaches, and strongly connected components are
the same in any subgraph closed under reachability.

Hashes (scheme ``loom-fp/1``). A member's hash is sha256 over a length-prefixed record of the
scheme, its kind, its canonical form and, for each binding in sorted order, the name used, the
qualified name it resolves to and that member's hash. Cycles (recursion, mutual recursion, import
cycles) are broken by hashing each strongly connected component together: inside a component a
binding contributes the target's qualified name instead of its hash; the component digest is the
hash over the sorted (qualname, inner digest) pairs of its members; each member's final hash
covers its inner digest and the component digest. So an edit anywhere in a cycle changes every
hash in it, and the result does not depend on the order in which the graph was walked.

Rejected: hashing the concatenation of all closure sources in traversal order (depends on the
walk order and cannot say which member changed), and breaking cycles by DFS back-edges (the hash
of a member would depend on where the walk entered the cycle).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from loom_compiler.model import ClosureMember, MemberKind, SourceError

from .analysis import FlowSite, MemberUnit, ModuleSummary, Unit
from .canonical import SCHEME

if TYPE_CHECKING:
    from .config import LoomConfig

__all__ = ["ClosureGraph", "Loader", "hash_record"]

#: Supplies the summary of a module that is not in the given mapping (None: not in the tree).
Loader = Callable[[str], "ModuleSummary | SourceError | None"]


@dataclass(slots=True)
class _Node:
    key: str
    kind: MemberKind
    module: str
    canonical: str
    path: str | None = None
    line: int = 0
    source: str = ""
    target: str | None = None
    refs: tuple[str, ...] = ()  # global chains its code uses
    members: tuple[str, ...] = ()  # self./cls. names its code uses
    cls: str | None = None  # qualname of the class whose members ``members`` name
    bindings: list[tuple[str, str]] | None = None  # (name used, key); None until expanded


def hash_record(*fields: str) -> str:
    """sha256 over length-prefixed UTF-8 fields: no separator can be forged by content."""
    h = hashlib.sha256()
    for f in fields:
        data = f.encode("utf-8")
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return "sha256:" + h.hexdigest()


@dataclass(slots=True)
class _ModuleIndex:
    """Lookup tables over one summary (summaries are tuples; these make lookups O(1))."""

    summary: ModuleSummary
    units: dict[str, list[Unit]]
    imports: dict[str, str]
    members: dict[str, MemberUnit]
    flows: dict[str, FlowSite]

    @classmethod
    def of(cls, summary: ModuleSummary) -> _ModuleIndex:
        units: dict[str, list[Unit]] = {}
        for unit in summary.units:
            for name in unit.names:
                units.setdefault(name, []).append(unit)
        members: dict[str, MemberUnit] = {}
        for m in summary.members:
            seen = members.get(m.qualname)
            if seen is None:
                members[m.qualname] = m
            elif seen.source != m.source:
                # bound twice in the class body (a property and its setter): like module-level
                # names, the member is every statement that binds it, in order
                members[m.qualname] = MemberUnit(
                    m.qualname,
                    seen.canonical + "\n" + m.canonical,
                    tuple(sorted({*seen.references, *m.references})),
                    tuple(sorted({*seen.members, *m.members})),
                    seen.source + m.source,
                    seen.line,
                )
        return cls(summary, units, summary.import_map(), members, {f.qualname: f for f in summary.flows})


class ClosureGraph:
    """Every member reached from the flows asked for, resolved once and hashed once.

    Flows of one module (or project) share helpers; a member's hash does not depend on which flow
    reached it (see the module docstring), so the graph and its hashes are shared too.
    """

    def __init__(self, summaries: Mapping[str, ModuleSummary], config: LoomConfig | None, loader: Loader | None) -> None:
        self.summaries = summaries
        self.config = config
        self.loader = loader
        self.indices: dict[str, _ModuleIndex | None] = {}
        self.errors: list[SourceError] = []
        self.nodes: dict[str, _Node] = {}
        self._hashes: dict[str, str] | None = None
        self._members: dict[str, ClosureMember] = {}

    # -- modules --------------------------------------------------------------------------------
    def first_party(self, module: str) -> bool:
        if module in self.summaries:
            return True
        if self.config is not None and self.config.packages:
            return self.config.is_first_party(module)
        return self.loader is not None

    def index(self, module: str) -> _ModuleIndex | None:
        if module in self.indices:
            return self.indices[module]
        summary: ModuleSummary | SourceError | None = self.summaries.get(module)
        if summary is None and self.loader is not None and self.first_party(module):
            summary = self.loader(module)
        if isinstance(summary, SourceError):
            self.errors.append(summary)
            summary = None
        index = _ModuleIndex.of(summary) if summary is not None else None
        self.indices[module] = index
        return index

    # -- resolution -----------------------------------------------------------------------------
    def resolve_chain(self, where: _ModuleIndex, chain: str, seen: frozenset[tuple[str, str]] = frozenset()) -> str | None:
        """Key of the member a global chain used in ``where``'s module resolves to."""
        module = where.summary.module
        if (module, chain) in seen:
            return None  # a re-export cycle: the name is never defined
        seen = seen | {(module, chain)}
        root, _, rest = chain.partition(".")
        if root in where.units:
            return f"{module}.{root}"
        if root in where.imports:
            target = where.imports[root] + ("." + rest if rest else "")
            return self.resolve_target(target, seen)
        for base in where.summary.star_imports:
            other = self.index(base) if self.first_party(base) else None
            if other is not None and (root in other.units or root in other.imports):
                return self.resolve_chain(other, chain, seen)
        return None

    def resolve_target(self, target: str, seen: frozenset[tuple[str, str]] = frozenset()) -> str:
        parts = target.split(".")
        for i in range(len(parts), 0, -1):
            module = ".".join(parts[:i])
            if not self.first_party(module):
                continue
            other = self.index(module)
            if other is None:
                continue
            if i == len(parts):
                return "import:" + target  # the module object itself
            found = self.resolve_chain(other, ".".join(parts[i:]), seen)
            return found if found is not None else "import:" + target
        return "import:" + target

    # -- nodes ----------------------------------------------------------------------------------
    def flow_node(self, module: str, qualname: str) -> _Node:
        key = f"{module}.{qualname}"
        node = self.nodes.get(key)
        if node is None:
            index = self.index(module)
            assert index is not None
            node = self._flow_node(key, index, index.flows[qualname])
            self.nodes[key] = node
        return node

    def _flow_node(self, key: str, index: _ModuleIndex, flow: FlowSite) -> _Node:
        s = index.summary
        return _Node(
            key, "flow", s.module, flow.canonical, s.path, flow.line, flow.source,
            refs=flow.references, members=flow.members, cls=flow.class_qualname,
        )

    def _make_node(self, key: str, where: _ModuleIndex) -> _Node:
        if key.startswith("import:"):
            return _Node(key, "import", where.summary.module, "", target=key[len("import:") :])
        module, _, name = key.rpartition(".")
        index = self.index(module)
        assert index is not None
        if name in index.flows:  # the flow function itself, reached from its own closure
            return self._flow_node(key, index, index.flows[name])
        units = index.units[name]
        s = index.summary
        steps = [u for u in units if u.kind == "step"]
        if steps:
            return _Node(key, "step", module, "", s.path, steps[0].line, "", target=steps[0].step_name or key)
        kinds = {u.kind for u in units}
        kind: MemberKind = "function" if "function" in kinds else "class" if "class" in kinds else "constant"
        return _Node(
            key, kind, module, "\n".join(u.canonical for u in units), s.path, units[0].line,
            "".join(u.source if u.source.endswith("\n") else u.source + "\n" for u in units),
            refs=tuple(sorted({r for u in units for r in u.references})),
        )

    def _member_node(self, key: str, index: _ModuleIndex, qualname: str, cls: str) -> _Node:
        if qualname in index.flows:
            return self._flow_node(key, index, index.flows[qualname])
        m = index.members[qualname]
        s = index.summary
        return _Node(key, "method", s.module, m.canonical, s.path, m.line, m.source, refs=m.references, members=m.members, cls=cls)

    def expand(self, node: _Node) -> list[tuple[str, str]]:
        """Resolve what ``node`` uses (once), creating the nodes it reaches."""
        if node.bindings is not None:
            return node.bindings
        self._hashes = None
        bindings: dict[str, str] = {}
        if node.kind not in ("import", "step"):
            where = self.index(node.module)
            assert where is not None
            for chain in node.refs:
                if chain.startswith("="):
                    key = self.resolve_target(chain[1:])
                    bindings["import " + chain[1:]] = key
                    if key not in self.nodes:
                        self.nodes[key] = self._make_node(key, where)
                    continue
                key = self.resolve_chain(where, chain)
                if key == node.key and chain.partition(".")[0] in where.imports:
                    # `from x import f` then `f = wrap(f)`: the f it reads is the import
                    root, _, rest = chain.partition(".")
                    key = self.resolve_target(where.imports[root] + ("." + rest if rest else ""))
                if key is None or key == node.key:
                    continue
                bindings[chain] = key
                if key not in self.nodes:
                    self.nodes[key] = self._make_node(key, where)
            if node.cls is not None:
                for name in node.members:
                    qualname = f"{node.cls}.{name}"
                    if qualname not in where.members and qualname not in where.flows:
                        continue  # inherited or dynamic: the class's bases are already in the closure
                    key = f"{node.module}.{qualname}"
                    if key == node.key:
                        continue
                    bindings["self." + name] = key
                    if key not in self.nodes:
                        self.nodes[key] = self._member_node(key, where, qualname, node.cls)
        node.bindings = sorted(bindings.items())
        return node.bindings

    def reachable(self, root: _Node) -> list[str]:
        seen = {root.key}
        order = [root.key]
        i = 0
        while i < len(order):
            for _, key in self.expand(self.nodes[order[i]]):
                if key not in seen:
                    seen.add(key)
                    order.append(key)
            i += 1
        return order

    # -- results --------------------------------------------------------------------------------
    def hashes(self) -> dict[str, str]:
        if self._hashes is None:
            self._hashes = _merkle(self.nodes)
        return self._hashes

    def closure(self, flow: FlowSite, module: str) -> tuple[ClosureMember, ...]:
        """Root first, then the other members by qualified name."""
        root = self.flow_node(module, flow.qualname)
        keys = self.reachable(root)
        hashes = self.hashes()
        ordered = [root.key] + sorted(keys[1:])
        return tuple(self._member(key, hashes) for key in ordered)

    def _member(self, key: str, hashes: Mapping[str, str]) -> ClosureMember:
        member = self._members.get(key)
        if member is None or member.hash != hashes[key]:
            n = self.nodes[key]
            member = ClosureMember(
                qualname=_name(n.key),
                kind=n.kind,
                module=n.module,
                hash=hashes[key],
                path=n.path,
                line=n.line,
                source=n.source,
                # guarded-import edges ("import <target>") are hashed but not listed: the member's
                # text binds those names itself, so they are not names it *uses*
                bindings=tuple((name, _name(k)) for name, k in n.bindings or () if not name.startswith("import ")),
                target=n.target,
                canonical=n.canonical,
            )
            self._members[key] = member
        return member


def _name(key: str) -> str:
    return key[len("import:") :] if key.startswith("import:") else key


def _merkle(nodes: Mapping[str, _Node]) -> dict[str, str]:
    """Hash every node bottom-up, strongly connected components hashed together."""
    edges = {k: sorted({t for _, t in n.bindings or () if t in nodes}) for k, n in nodes.items()}
    hashes: dict[str, str] = {}
    for component in _tarjan(sorted(nodes), edges):
        members = set(component)
        cyclic = len(component) > 1 or component[0] in edges[component[0]]
        inner: dict[str, str] = {}
        for key in component:
            n = nodes[key]
            fields = [SCHEME, "member", n.kind]
            if n.kind in ("import", "step"):
                fields.append(n.target or key)
            else:
                fields.append(n.canonical)
                for name, target in n.bindings or ():
                    shown = target[len("import:") :] if target.startswith("import:") else target
                    fields += [name, shown, "<cycle>" if target in members else hashes[target]]
            inner[key] = hash_record(*fields)
        if not cyclic:
            hashes[component[0]] = inner[component[0]]
            continue
        pairs: list[str] = []
        for key in sorted(component):
            pairs += [key, inner[key]]
        scc = hash_record(SCHEME, "component", *pairs)
        for key in component:
            hashes[key] = hash_record(SCHEME, "in-component", inner[key], scc)
    return hashes


def _tarjan(order: list[str], edges: Mapping[str, list[str]]) -> list[list[str]]:
    """Strongly connected components in reverse topological order (dependencies first). Iterative."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    result: list[list[str]] = []
    counter = 0
    for start in order:
        if start in index:
            continue
        work: list[tuple[str, int]] = [(start, 0)]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, i = work[-1]
            succ = edges[node]
            if i < len(succ):
                work[-1] = (node, i + 1)
                nxt = succ[i]
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == node:
                        break
                result.append(sorted(component))
    return result
