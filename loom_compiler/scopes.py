"""Which global names a piece of code uses: our own scope analysis on the libcst tree.

``references(node)`` returns the dotted chains (``pricing.discount``, ``math.floor``, ``LIMIT``)
whose root name is *global* in ``node``: not a parameter, assignment/loop/``with``/``except``
target, comprehension variable, nested ``def``/``class``, import or ``match`` capture of any
enclosing function scope, unless declared ``global``. Class bodies are scopes that their methods
do not see (Python's rule). For method code, ``self.x``/``cls.x`` uses are reported separately as
member names.

Rejected: libcst's ``ScopeProvider``/``QualifiedNameProvider``. They need a ``MetadataWrapper``
(a deep copy of the tree plus a full visitor pass per provider) and measured 4-8x the cost of the
parse itself; the questions asked here ("is this name bound anywhere in an enclosing function?")
need two cheap passes per scope.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import libcst as cst

from .canonical import child_nodes, nfkc, string_parts

__all__ = ["References", "references", "target_names", "bound_names", "dotted_chain"]

_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)

# node types with a rule of their own; every other node just has its children walked
_BINDER_SPECIAL = frozenset(
    {
        cst.FunctionDef, cst.ClassDef, cst.Lambda, *_COMPREHENSIONS, cst.AssignTarget, cst.AnnAssign,
        cst.AugAssign, cst.For, cst.CompFor, cst.WithItem, cst.ExceptHandler, cst.ExceptStarHandler,
        cst.NamedExpr, cst.Del, cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal, cst.MatchAs,
        cst.MatchStar, cst.MatchMapping,
    }
)
_USE_SPECIAL = frozenset(
    {
        cst.Name, cst.Attribute, cst.FunctionDef, cst.Lambda, cst.ClassDef, *_COMPREHENSIONS, cst.Arg,
        cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal, cst.MatchKeywordElement, cst.ConcatenatedString,
    }
)


@dataclass(slots=True)
class References:
    globals: set[str] = field(default_factory=set)  # dotted chains rooted at a global name
    members: set[str] = field(default_factory=set)  # names reached through self./cls.


@dataclass(slots=True)
class _Scope:
    parent: _Scope | None
    local: set[str]
    declared_global: set[str]
    is_class: bool = False
    self_name: str | None = None  # first parameter of a method


def dotted_chain(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for an attribute chain of plain names, else None."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(nfkc(node.attr.value))
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(nfkc(node.value))
    return ".".join(reversed(parts))


def target_names(target: cst.CSTNode | None) -> set[str]:
    """Names bound by an assignment target (tuples/lists/starred unpacked)."""
    if target is None:
        return set()
    if isinstance(target, cst.Name):
        return {nfkc(target.value)}
    if isinstance(target, (cst.Tuple, cst.List)):
        out: set[str] = set()
        for el in target.elements:
            out |= target_names(el.value)
        return out
    if isinstance(target, cst.StarredElement):
        return target_names(target.value)
    return set()


def _import_binds(node: cst.Import | cst.ImportFrom) -> set[str]:
    if isinstance(node.names, cst.ImportStar):
        return set()
    out = set()
    for alias in node.names:
        if alias.asname is not None:
            out |= target_names(alias.asname.name)
        elif isinstance(node, cst.Import):
            chain = dotted_chain(alias.name)
            if chain:
                out.add(chain.split(".")[0])
        else:
            out.add(nfkc(alias.name.value))  # type: ignore[union-attr]
    return out


class _Binder:
    """Collects names bound in one scope, not descending into nested scopes."""

    def __init__(self) -> None:
        self.bound: set[str] = set()
        self.declared_global: set[str] = set()
        self.nonlocal_: set[str] = set()

    def walk(self, node: cst.CSTNode) -> None:
        if type(node) is cst.ConcatenatedString:
            for part in string_parts(node):
                if type(part) is not cst.SimpleString:
                    self.walk(part)
            return
        if type(node) not in _BINDER_SPECIAL:  # fast path: exact type lookup, no ABC isinstance
            for child in child_nodes(node):
                self.walk(child)
            return
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            self.bound.add(nfkc(node.name.value))
            # decorators/defaults/bases evaluate here; walrus in them is exotic enough to skip
            return
        if isinstance(node, cst.Lambda) or isinstance(node, _COMPREHENSIONS):
            return
        if isinstance(node, cst.AssignTarget):
            self.bound |= target_names(node.target)
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
            self.bound |= target_names(node.target)
        elif isinstance(node, (cst.For, cst.CompFor)):
            self.bound |= target_names(node.target)
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            self.bound |= target_names(node.asname.name)
        elif isinstance(node, (cst.ExceptHandler, cst.ExceptStarHandler)) and node.name is not None:
            self.bound |= target_names(node.name.name)
        elif isinstance(node, cst.NamedExpr):
            self.bound |= target_names(node.target)
        elif isinstance(node, cst.Del):
            self.bound |= target_names(node.target)
        elif isinstance(node, (cst.Import, cst.ImportFrom)):
            self.bound |= _import_binds(node)
            return
        elif isinstance(node, cst.Global):
            self.declared_global |= {nfkc(n.name.value) for n in node.names}
            return
        elif isinstance(node, cst.Nonlocal):
            self.nonlocal_ |= {nfkc(n.name.value) for n in node.names}
            return
        elif isinstance(node, cst.MatchAs) and node.name is not None:
            self.bound.add(nfkc(node.name.value))
        elif isinstance(node, cst.MatchStar) and node.name is not None:
            self.bound.add(nfkc(node.name.value))
        elif isinstance(node, cst.MatchMapping) and node.rest is not None:
            self.bound.add(nfkc(node.rest.value))
        for child in child_nodes(node):
            self.walk(child)


def bound_names(stmts: Iterable[cst.CSTNode]) -> set[str]:
    """Names a sequence of statements binds in its own scope (module-level units)."""
    binder = _Binder()
    for stmt in stmts:
        binder.walk(stmt)
    return binder.bound - binder.declared_global


class _UseWalker:
    def __init__(self, refs: References) -> None:
        self.refs = refs

    # -- scopes ---------------------------------------------------------------------------------
    def function_scope(self, params: cst.Parameters, body: Iterable[cst.CSTNode], parent: _Scope, *, method: bool) -> None:
        binder = _Binder()
        for stmt in body:
            binder.walk(stmt)
        names = _param_names(params)
        local = (binder.bound | set(names) | binder.nonlocal_) - binder.declared_global
        self_name = names[0] if method and names and _first_is_positional(params) else None
        scope = _Scope(parent, local, binder.declared_global, self_name=self_name)
        for stmt in body:
            self.walk(stmt, scope)

    def walk(self, node: cst.CSTNode, scope: _Scope) -> None:
        if type(node) not in _USE_SPECIAL:
            for child in child_nodes(node):
                self.walk(child, scope)
            return
        if type(node) is cst.ConcatenatedString:
            for part in string_parts(node):
                if type(part) is not cst.SimpleString:
                    self.walk(part, scope)
            return
        if isinstance(node, cst.Name):
            self.use(nfkc(node.value), nfkc(node.value), scope)
            return
        if isinstance(node, cst.Attribute):
            chain = dotted_chain(node)
            if chain is not None:
                self.use(chain.split(".", 1)[0], chain, scope)
            else:
                self.walk(node.value, scope)
            return
        if isinstance(node, cst.FunctionDef):
            self.function_header(node, scope)
            body = node.body.body if isinstance(node.body, cst.IndentedBlock) else node.body.body
            self.function_scope(node.params, body, scope, method=scope.is_class and not _is_staticmethod(node))
            return
        if isinstance(node, cst.Lambda):
            self.params_header(node.params, scope)
            self.function_scope(node.params, [node.body], scope, method=False)
            return
        if isinstance(node, cst.ClassDef):
            for dec in node.decorators:
                self.walk(dec.decorator, scope)
            for arg in (*node.bases, *node.keywords):
                self.walk(arg.value, scope)
            binder = _Binder()
            for stmt in node.body.body:
                binder.walk(stmt)
            inner = _Scope(scope, binder.bound - binder.declared_global, binder.declared_global, is_class=True)
            for stmt in node.body.body:
                self.walk(stmt, inner)
            return
        if isinstance(node, _COMPREHENSIONS):
            self.comprehension(node, scope)
            return
        if isinstance(node, cst.Arg):
            self.walk(node.value, scope)
            return
        if isinstance(node, (cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal)):
            return
        if isinstance(node, cst.MatchKeywordElement):
            self.walk(node.pattern, scope)
            return
        for child in child_nodes(node):
            self.walk(child, scope)

    def function_header(self, node: cst.FunctionDef, scope: _Scope) -> None:
        for dec in node.decorators:
            self.walk(dec.decorator, scope)
        self.params_header(node.params, scope)
        if node.returns is not None:
            self.walk(node.returns.annotation, scope)

    def params_header(self, params: cst.Parameters, scope: _Scope) -> None:
        for param in _all_params(params):
            if param.default is not None:
                self.walk(param.default, scope)
            if param.annotation is not None:
                self.walk(param.annotation.annotation, scope)

    def comprehension(self, node: cst.BaseComp, scope: _Scope) -> None:
        first = node.for_in
        self.walk(first.iter, scope)  # the outermost iterable runs in the enclosing scope
        local: set[str] = set()
        comp: cst.CompFor | None = first
        while comp is not None:
            local |= target_names(comp.target)
            comp = comp.inner_for_in
        inner = _Scope(scope, local, set())
        comp = first
        while comp is not None:
            if comp is not first:
                self.walk(comp.iter, inner)
            for cond in comp.ifs:
                self.walk(cond.test, inner)
            self.walk(comp.target, inner)
            comp = comp.inner_for_in
        if isinstance(node, cst.DictComp):
            self.walk(node.key, inner)
            self.walk(node.value, inner)
        else:
            self.walk(node.elt, inner)  # type: ignore[attr-defined]

    # -- resolution -----------------------------------------------------------------------------
    def use(self, root: str, chain: str, scope: _Scope) -> None:
        current: _Scope | None = scope
        first = True
        while current is not None:
            if current.parent is None:
                break  # module scope: global
            if root in current.declared_global:
                break
            if (first or not current.is_class) and root in current.local:
                if current.self_name == root and "." in chain:
                    self.refs.members.add(chain.split(".")[1])
                return
            first = False
            current = current.parent
        self.refs.globals.add(chain)


def _all_params(params: cst.Parameters) -> list[cst.Param]:
    out = [*params.posonly_params, *params.params, *params.kwonly_params]
    if isinstance(params.star_arg, cst.Param):
        out.append(params.star_arg)
    if params.star_kwarg is not None:
        out.append(params.star_kwarg)
    return out


def _param_names(params: cst.Parameters) -> list[str]:
    ordered = [*params.posonly_params, *params.params]
    rest = [p for p in _all_params(params) if p not in ordered]
    return [nfkc(p.name.value) for p in (*ordered, *rest)]


def _first_is_positional(params: cst.Parameters) -> bool:
    return bool(params.posonly_params or params.params)


def _is_staticmethod(node: cst.FunctionDef) -> bool:
    return any(dotted_chain(d.decorator) == "staticmethod" for d in node.decorators)


def references(node: cst.CSTNode, *, method_of_class: bool = False) -> References:
    """Global chains (and self./cls. members) used by a module-level statement or definition.

    ``method_of_class``: ``node`` is a ``FunctionDef`` taken out of a class body; its first
    parameter names the instance (or class) for ``self.``/``cls.`` member references.
    """
    refs = References()
    walker = _UseWalker(refs)
    module_scope = _Scope(None, set(), set())
    if method_of_class and isinstance(node, cst.FunctionDef):
        walker.function_header(node, module_scope)
        walker.function_scope(node.params, node.body.body, module_scope, method=not _is_staticmethod(node))
    else:
        walker.walk(node, module_scope)
    return refs
