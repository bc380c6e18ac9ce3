"""A flow's closure and its Merkle hashes, computed over ``ModuleSummary`` values (no parsing).

Closure. Starting at the flow, every global chain a member uses is resolved in the member's own
module: a module-level name becomes that definition (``shop.pricing.discount``, all the units
that bind it); an import binding becomes its target plus the attribute tail (``import shop.pricing
as m; m.helper`` -> ``shop.pricing.helper``), which is followed into the target module when that
module is first-party (configured package roots, or any module the caller can supply when no
roots are configured), re-exports included; anything else stays an ``import`` member hashed by its
dotted target only (``math.floor``). A function decorated with a step decorator is a ``step``
member hashed by its qualified name only. For method flows, ``self.x``/``cls.x`` reach the
sibling ``method`` members of the class. Unknown names (builtins) are not members; they are
already spelled out in the canonical form of the code that uses them.

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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from loom_compiler.model import ClosureMember, MemberKind, SourceError

from .analysis import FlowSite, ModuleSummary
from .canonical import SCHEME

if TYPE_CHECKING:
    from .config import LoomConfig

__all__ = ["ClosureGraph", "build_closure", "Loader", "hash_record"]

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
    bindings: list[tuple[str, str]] = field(default_factory=list)  # (name used, key)


def hash_record(*fields: str) -> str:
    """sha256 over length-prefixed UTF-8 fields: no separator can be forged by content."""
    h = hashlib.sha256()
    for f in fields:
        data = f.encode("utf-8")
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return "sha256:" + h.hexdigest()


class _Resolver:
    def __init__(self, summaries: Mapping[str, ModuleSummary], config: LoomConfig | None, loader: Loader | None) -> None:
        self.summaries = summaries
        self.config = config
        self.loader = loader
        self.cache: dict[str, ModuleSummary | None] = {}
        self.errors: list[SourceError] = []
        self._failed: set[str] = set()

    def first_party(self, module: str) -> bool:
        if module in self.summaries:
            return True
        if self.config is not None and self.config.packages:
            return self.config.is_first_party(module)
        return self.loader is not None

    def summary(self, module: str) -> ModuleSummary | None:
        if module in self.summaries:
            return self.summaries[module]
        if module in self.cache:
            return self.cache[module]
        result: ModuleSummary | SourceError | None = None
        if self.loader is not None and self.first_party(module):
            result = self.loader(module)
        if isinstance(result, SourceError):
            if module not in self._failed:
                self._failed.add(module)
                self.errors.append(result)
            result = None
        self.cache[module] = result
        return result

    def resolve_chain(self, summary: ModuleSummary, chain: str, seen: frozenset[tuple[str, str]] = frozenset()) -> str | None:
        """Key of the member a global chain used in ``summary``'s module resolves to."""
        if (summary.module, chain) in seen:
            return None  # a re-export cycle: the name is never defined
        seen = seen | {(summary.module, chain)}
        root, _, rest = chain.partition(".")
        if summary.units_binding(root):
            return f"{summary.module}.{root}"
        imports = summary.import_map()
        if root in imports:
            target = imports[root] + ("." + rest if rest else "")
            return self.resolve_target(target, seen)
        for base in summary.star_imports:
            other = self.summary(base) if self.first_party(base) else None
            if other is not None and (other.units_binding(root) or root in other.import_map()):
                return self.resolve_chain(other, chain, seen)
        return None

    def resolve_target(self, target: str, seen: frozenset[tuple[str, str]] = frozenset()) -> str:
        parts = target.split(".")
        for i in range(len(parts), 0, -1):
            module = ".".join(parts[:i])
            if not self.first_party(module):
                continue
            other = self.summary(module)
            if other is None:
                continue
            if i == len(parts):
                return "import:" + target  # the module object itself
            found = self.resolve_chain(other, ".".join(parts[i:]), seen)
            return found if found is not None else "import:" + target
        return "import:" + target


@dataclass(frozen=True, slots=True)
class ClosureGraph:
    members: tuple[ClosureMember, ...]  # root first, then by qualname
    errors: tuple[SourceError, ...]


def build_closure(
    flow: FlowSite,
    summary: ModuleSummary,
    resolver: _Resolver,
) -> tuple[ClosureMember, ...]:
    root_key = f"{summary.module}.{flow.qualname}"
    nodes: dict[str, _Node] = {}
    root = _Node(root_key, "flow", summary.module, flow.canonical, summary.path, flow.line, flow.source)
    nodes[root_key] = root
    queue: list[tuple[_Node, ModuleSummary, tuple[str, ...], tuple[str, ...], str | None]] = [
        (root, summary, flow.references, flow.members, flow.class_qualname)
    ]
    while queue:
        node, where, refs, members, cls = queue.pop(0)
        bindings: dict[str, str] = {}
        for chain in refs:
            key = resolver.resolve_chain(where, chain)
            if key is None or key == node.key:
                continue
            bindings[chain] = key
            if key not in nodes:
                created = _make_node(key, where, resolver)
                nodes[key] = created
                if created is not None and created.kind not in ("import", "step"):
                    owner = resolver.summary(created.module)
                    assert owner is not None
                    name = key[len(created.module) + 1 :]
                    units = owner.units_binding(name)
                    unit_refs = tuple(sorted({r for u in units for r in u.references}))
                    queue.append((created, owner, unit_refs, (), None))
        if cls is not None:
            for name in members:
                member = where.member(f"{cls}.{name}")
                if member is None:
                    continue  # inherited or dynamic: the class's bases are already in the closure
                key = f"{where.module}.{member.qualname}"
                if key == node.key:
                    continue
                bindings["self." + name] = key
                if key not in nodes:
                    created = _Node(key, "method", where.module, member.canonical, where.path, member.line, member.source)
                    nodes[key] = created
                    queue.append((created, where, member.references, member.members, cls))
        node.bindings = sorted(bindings.items())
    hashes = _merkle(nodes)
    ordered = [root_key] + sorted(k for k in nodes if k != root_key)
    out = []
    for key in ordered:
        n = nodes[key]
        out.append(
            ClosureMember(
                qualname=n.key[len("import:") :] if n.kind == "import" else n.key,
                kind=n.kind,
                module=n.module,
                hash=hashes[key],
                path=n.path,
                line=n.line,
                source=n.source,
                bindings=tuple((name, k[len("import:") :] if k.startswith("import:") else k) for name, k in n.bindings),
                target=n.target,
                canonical=n.canonical,
            )
        )
    return tuple(out)


def _make_node(key: str, where: ModuleSummary, resolver: _Resolver) -> _Node:
    if key.startswith("import:"):
        target = key[len("import:") :]
        return _Node(key, "import", where.module, "", target=target)
    # key is "<module>.<name>" for a module the resolver loaded: find the split
    module, name = _split_key(key, resolver)
    owner = resolver.summary(module)
    assert owner is not None
    units = owner.units_binding(name)
    kinds = {u.kind for u in units}
    if "step" in kinds:
        step = next(u for u in units if u.kind == "step")
        return _Node(key, "step", module, "", owner.path, step.line, "", target=step.step_name or key)
    kind: MemberKind = "function" if "function" in kinds else "class" if "class" in kinds else "constant"
    return _Node(
        key,
        kind,
        module,
        "\n".join(u.canonical for u in units),
        owner.path,
        units[0].line,
        "".join(u.source if u.source.endswith("\n") else u.source + "\n" for u in units),
    )


def _split_key(key: str, resolver: _Resolver) -> tuple[str, str]:
    module, _, name = key.rpartition(".")
    return module, name


def _merkle(nodes: Mapping[str, _Node]) -> dict[str, str]:
    """Hash every node bottom-up, strongly connected components hashed together."""
    edges = {k: sorted({t for _, t in n.bindings if t in nodes}) for k, n in nodes.items()}
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
                for name, target in n.bindings:
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
