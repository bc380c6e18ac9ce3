"""What a piece of code uses and can change: our own scope analysis on the libcst tree.

``references(node)`` walks one module-level statement (or definition) once and returns:

* ``globals``: the dotted chains (``pricing.discount``, ``math.floor``, ``LIMIT``) whose root is
  *global* in ``node``: not a parameter, assignment/loop/``with``/``except`` target, comprehension
  variable, nested ``def``/``class``, import or ``match`` capture of an enclosing function scope,
  unless declared ``global``. Class bodies are scopes their methods do not see (Python's rule).
  A name bound by an ``import`` inside a function or class body is local, but it is a *binding
  to its target*: its uses are reported as absolute targets, ``=shop.pricing.discount`` for
  ``from shop.pricing import discount`` then ``discount(x)``, ``=shop.pricing.discount`` for
  ``import shop.pricing`` then ``shop.pricing.discount(x)`` (the attribute tail is kept, so a
  lazy import reaches exactly what is used through it); ``!<module>`` names a module such an
  import loads (it runs, whatever is used: ``closure`` follows what it changes elsewhere).
  ``getattr(x, "name")`` (and ``setattr``,
  ``hasattr``, ``delattr`` with a literal name) is ``x.name``.
* ``members``: names reached through the instance or class a method runs on: ``self.x``,
  ``cls.x``, ``type(self).x``, ``self.__class__.x``.
* what the code can *change* (``loom-fp/2``'s rule for state-changing module statements, see
  ``analysis``): at import time, the global roots it stores or deletes through (``CFG["a"] = 2``,
  ``Policy.limit = 5``, ``decimal.getcontext().prec = 6``) and every global root used inside a
  call it makes (callee, arguments, decorators: a call may change any of them); in deferred code
  (function bodies), the roots it stores through, passes to calls or calls methods on, the
  functions it calls, and the names it writes after ``global``.
* name-only references (``^chain``, ``^=target``): with a ``name_only`` callback (a framework
  profile's, ``loom_compiler.frameworks``), the argument of a call it names is referenced by
  name only (``workflow.execute_activity(Db.save, ...)`` reaches ``Db.save``'s name, not the
  class); the callback receives the callee chain as written and answers which argument.
* ``dynamic``: reach that cannot be decided statically. ``module``: the code reads the module's
  namespace by a computed name (``globals()[k]``, ``sys.modules[__name__]``, a computed
  ``importlib.import_module``); ``module-write``: it can bind any name of it (``globals()`` used
  any other way, ``exec``/``eval``, ``vars()``/``locals()`` at module level); ``class``: a
  method reaches its instance or class by a computed name or lets it escape (``getattr(self,
  name)``, ``self.__dict__``, ``self`` passed to a call or returned). A non-literal ``getattr``
  on anything else reports the object itself as used (a module used as a value is the whole
  module, see ``closure``), so no special marker is needed there.

Local variable annotations (``xs: List[int] = [x]`` in a function body) are not walked: they never
run, so they are not references (DESIGN §6); parameter and return annotations are.

Rejected: libcst's ``ScopeProvider``/``QualifiedNameProvider``. They need a ``MetadataWrapper``
(a deep copy of the tree plus a full visitor pass per provider) and measured 4-8x the cost of the
parse itself; the questions asked here ("is this name bound anywhere in an enclosing function?")
need two cheap passes per scope. Separate passes for uses, mutations and dynamic reach were
rejected too: one walk answers all three at the cost of a few set insertions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import libcst as cst

from .canonical import child_nodes, literal_string_value, nfkc, string_parts

__all__ = [
    "References",
    "references",
    "target_names",
    "bound_names",
    "dotted_chain",
    "import_bindings",
    "FromResolver",
    "NameOnly",
]

#: resolves ``from <relative> import ...`` to the absolute base module (None: cannot be resolved)
FromResolver = Callable[[cst.ImportFrom], "str | None"]
#: callee chain (global root, as written) -> (position, keyword) of the argument it references by
#: name only, or None (a framework profile's rule, see ``references``)
NameOnly = Callable[[str], "tuple[int, str | None] | None"]

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
        cst.Call, cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Del, cst.Subscript,
    }
)
#: builtins whose first argument may be ``self`` without it escaping
_SELF_SAFE = frozenset({"super", "type", "isinstance", "issubclass", "id"})
_ATTR_FUNCS = frozenset({"getattr", "setattr", "hasattr", "delattr"})
_DICT_READS = frozenset({"get", "keys", "values", "items", "copy", "__contains__", "__getitem__"})


@dataclass(slots=True)
class References:
    globals: set[str] = field(default_factory=set)  # dotted chains rooted at a global name; "=t" absolute
    members: set[str] = field(default_factory=set)  # names reached through self./cls./type(self).
    stores: set[str] = field(default_factory=set)  # global roots stored/deleted through at import time
    call_mentions: set[str] = field(default_factory=set)  # global roots used in calls made at import time
    calls_now: set[str] = field(default_factory=set)  # global roots called at import time
    name_calls_now: set[str] = field(default_factory=set)  # of those, called by plain name (``f(x)``)
    mutates: set[str] = field(default_factory=set)  # global roots deferred code stores through or passes on
    method_calls: set[str] = field(default_factory=set)  # global roots deferred code calls a method on
    calls: set[str] = field(default_factory=set)  # global roots deferred code calls
    global_writes: set[str] = field(default_factory=set)  # names bound after ``global`` in a function
    dynamic: set[str] = field(default_factory=set)  # "module" | "module-write" | "class"


@dataclass(slots=True)
class _Scope:
    parent: _Scope | None
    local: set[str]
    declared_global: set[str]
    is_class: bool = False
    self_name: str | None = None  # first parameter of a method
    imports: dict[str, list[str]] = field(default_factory=dict)  # local name -> absolute targets

    @property
    def is_function(self) -> bool:
        return self.parent is not None and not self.is_class


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


def import_bindings(node: cst.Import | cst.ImportFrom, resolve_from: FromResolver | None) -> list[tuple[str, str]]:
    """``(local name, absolute target)`` of every name an import binds, in order. ``import a.b``
    binds ``a`` to ``a``; ``import a.b as c`` binds ``c`` to ``a.b``; ``from .m import x as y``
    binds ``y`` to ``<package>.m.x``. A star import binds no listed name (``[]``); a relative
    import that cannot be resolved binds its names to nothing (they are left out)."""
    out: list[tuple[str, str]] = []
    if isinstance(node, cst.Import):
        for alias in node.names:
            chain = dotted_chain(alias.name) or ""
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                out.append((nfkc(alias.asname.name.value), chain))
            else:
                root = chain.split(".")[0]
                out.append((root, root))
        return out
    if isinstance(node.names, cst.ImportStar):
        return out
    if node.relative:
        base = resolve_from(node) if resolve_from is not None else None
        if base is None:
            return out
    else:
        base = dotted_chain(node.module) if node.module is not None else ""
    for alias in node.names:
        name = nfkc(alias.name.value)  # type: ignore[union-attr]
        local = nfkc(alias.asname.name.value) if alias.asname is not None else name  # type: ignore[union-attr]
        out.append((local, f"{base}.{name}" if base else name))
    return out


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

    def __init__(self, resolve_from: FromResolver | None = None) -> None:
        self.bound: set[str] = set()
        self.declared_global: set[str] = set()
        self.nonlocal_: set[str] = set()
        #: local name -> every absolute target an import in this scope binds it to, in order
        self.imports: dict[str, list[str]] = {}
        self.stars: list[str] = []  # absolute targets of star imports (module level only)
        #: modules its import statements load (``import a.b`` -> ``a.b``; ``from a import b`` ->
        #: ``a`` and ``a.b``, which may be a submodule): they run, whatever name is bound
        self.modules: list[str] = []
        self.resolve_from = resolve_from

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
            # decorators, defaults, annotations and bases run here: a walrus in them binds here
            if isinstance(node, cst.FunctionDef):
                header = [d.decorator for d in node.decorators]
                for param in _all_params(node.params):
                    header += [x for x in (param.default, param.annotation) if x is not None]
                if node.returns is not None:
                    header.append(node.returns)
            else:
                header = [d.decorator for d in node.decorators] + [a.value for a in (*node.bases, *node.keywords)]
            for part in header:
                self.bound |= _walrus_targets(part)
            return
        if isinstance(node, cst.Lambda):
            return
        if isinstance(node, _COMPREHENSIONS):
            self.bound |= _walrus_targets(node)  # a walrus in a comprehension binds in this scope
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
            for local, target in import_bindings(node, self.resolve_from):
                self.imports.setdefault(local, []).append(target)
            if isinstance(node, cst.Import):
                self.modules += [c for a in node.names if (c := dotted_chain(a.name))]
            else:
                base = self.resolve_from(node) if node.relative and self.resolve_from is not None else (
                    None if node.relative else dotted_chain(node.module) if node.module is not None else None)
                if base:
                    self.modules.append(base)
                    if isinstance(node.names, cst.ImportStar):
                        self.stars.append(base)
                    else:
                        self.modules += [f"{base}.{nfkc(a.name.value)}" for a in node.names]  # type: ignore[union-attr]
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


def _walrus_targets(node: cst.CSTNode) -> set[str]:
    """Names ``:=`` binds in the scope that runs ``node`` (comprehensions included, which bind a
    walrus target in their enclosing scope; lambdas and definitions have scopes of their own)."""
    out: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.NamedExpr:
            out |= target_names(current.target)
        if type(current) in (cst.Lambda, cst.FunctionDef, cst.ClassDef):
            continue
        stack.extend(child_nodes(current))
    return out


def bound_names(stmts: Iterable[cst.CSTNode]) -> set[str]:
    """Names a sequence of statements binds in its own scope (module-level units)."""
    binder = _Binder()
    for stmt in stmts:
        binder.walk(stmt)
    return binder.bound - binder.declared_global


def _store_base(target: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The objects a store target writes *into* (``CFG`` of ``CFG["a"] = 2``, ``decimal`` of
    ``decimal.getcontext().prec = 6``); a plain name is a binding, not a store into anything."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return [b for el in target.elements for b in _store_base(el.value)]
    if isinstance(target, cst.StarredElement):
        return _store_base(target.value)
    if not isinstance(target, (cst.Attribute, cst.Subscript)):
        return []
    node: cst.BaseExpression = target
    while isinstance(node, (cst.Attribute, cst.Subscript, cst.Call)):
        node = node.func if isinstance(node, cst.Call) else node.value
    return [node]


def _through_sys_modules(target: cst.BaseExpression, *, itself: bool = False) -> bool:
    """Whether a store target writes into a module fetched from ``sys.modules`` (``sys.modules[
    __name__].V = 2``; with ``itself``, ``target`` is that module: ``setattr(sys.modules[k], ...)``)."""
    node = target
    if not itself:
        if not isinstance(node, (cst.Attribute, cst.Subscript)):
            return False
        node = node.value
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        if isinstance(node, cst.Subscript) and dotted_chain(node.value) == "sys.modules":
            return True
        node = node.value
    return False


def _globals_call(target: cst.BaseExpression) -> cst.Call | None:
    """The ``globals()`` call a store target writes into, if any (``globals()["X"] = 1``)."""
    node = target
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    return node if _is_call_to(node, "globals") else None  # type: ignore[return-value]


def _is_call_to(node: cst.BaseExpression, name: str) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == name


class _UseWalker:
    def __init__(self, refs: References, resolve_from: FromResolver | None, name_only: NameOnly | None = None) -> None:
        self.refs = refs
        self.resolve_from = resolve_from
        self.name_only = name_only
        self.by_name: set[int] = set()  # ids of argument nodes referenced by name only
        self.deferred = 0  # > 0 inside a function or lambda body: code that runs later
        self.collectors: list[set[str]] = []  # every global root used is added to each
        self.self_safe: set[int] = set()  # ids of Name nodes where ``self`` does not escape
        self.globals_read: set[int] = set()  # ids of ``globals()`` calls only read from
        self.globals_written: set[int] = set()

    # -- scopes ---------------------------------------------------------------------------------
    def function_scope(self, params: cst.Parameters, body: Iterable[cst.CSTNode], parent: _Scope, *, method: bool) -> None:
        body = list(body)
        binder = _Binder(self.resolve_from)
        for stmt in body:
            binder.walk(stmt)
        names = _param_names(params)
        local = (binder.bound | set(names) | binder.nonlocal_) - binder.declared_global
        self_name = names[0] if method and names and _first_is_positional(params) else None
        imports = {k: v for k, v in binder.imports.items() if k in local}
        scope = _Scope(parent, local, binder.declared_global, self_name=self_name, imports=imports)
        self.refs.global_writes |= binder.bound & binder.declared_global
        self.refs.globals.update("!" + m for m in binder.modules)  # a lazy import runs that module
        for name in binder.declared_global:
            for target in binder.imports.get(name, ()):  # ``global np`` then ``import numpy as np``
                self.refs.globals.add("=" + target)
        self.deferred += 1
        try:
            for stmt in body:
                self.walk(stmt, scope)
        finally:
            self.deferred -= 1

    def walk(self, node: cst.CSTNode, scope: _Scope) -> None:
        kind = type(node)
        if kind not in _USE_SPECIAL:
            for child in child_nodes(node):
                self.walk(child, scope)
            return
        if kind is cst.ConcatenatedString:
            for part in string_parts(node):
                if type(part) is not cst.SimpleString:
                    self.walk(part, scope)
            return
        if kind is cst.Name:
            self.use(nfkc(node.value), nfkc(node.value), scope, node)  # type: ignore[attr-defined]
            return
        if kind is cst.Attribute:
            self.attribute(node, scope)  # type: ignore[arg-type]
            return
        if kind is cst.Call:
            self.call(node, scope)  # type: ignore[arg-type]
            return
        if kind is cst.Subscript:
            self.subscript(node, scope)  # type: ignore[arg-type]
            return
        if kind in (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Del):
            self.store(node, scope)
            return
        if kind is cst.FunctionDef:
            self.function_header(node, scope)  # type: ignore[arg-type]
            body = node.body.body  # type: ignore[attr-defined]
            self.function_scope(node.params, body, scope, method=scope.is_class and not _is_staticmethod(node))  # type: ignore[attr-defined,arg-type]
            return
        if kind is cst.Lambda:
            self.params_header(node.params, scope)  # type: ignore[attr-defined]
            self.function_scope(node.params, [node.body], scope, method=False)  # type: ignore[attr-defined]
            return
        if kind is cst.ClassDef:
            self.decorators(node.decorators, scope)  # type: ignore[attr-defined]
            for arg in (*node.bases, *node.keywords):  # type: ignore[attr-defined]
                self.walk(arg.value, scope)
            binder = _Binder(self.resolve_from)
            for stmt in node.body.body:  # type: ignore[attr-defined]
                binder.walk(stmt)
            local = binder.bound - binder.declared_global
            self.refs.globals.update("!" + m for m in binder.modules)
            inner = _Scope(scope, local, binder.declared_global, is_class=True,
                           imports={k: v for k, v in binder.imports.items() if k in local})
            for stmt in node.body.body:  # type: ignore[attr-defined]
                self.walk(stmt, inner)
            return
        if kind in _COMPREHENSIONS:
            self.comprehension(node, scope)  # type: ignore[arg-type]
            return
        if kind is cst.Arg:
            self.walk(node.value, scope)  # type: ignore[attr-defined]
            return
        if kind in (cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal):
            return
        if kind is cst.MatchKeywordElement:
            self.walk(node.pattern, scope)  # type: ignore[attr-defined]
            return
        for child in child_nodes(node):
            self.walk(child, scope)

    def function_header(self, node: cst.FunctionDef, scope: _Scope) -> None:
        self.decorators(node.decorators, scope)
        self.params_header(node.params, scope)
        if node.returns is not None:
            self.walk(node.returns.annotation, scope)

    def decorators(self, decorators: Iterable[cst.Decorator], scope: _Scope) -> None:
        # a decorator is a call made when the definition runs (with the definition as argument)
        for dec in decorators:
            self.in_call(dec.decorator, scope, callee=dec.decorator)

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

    # -- expressions with a rule of their own -----------------------------------------------------
    def attribute(self, node: cst.Attribute, scope: _Scope) -> None:
        chain = dotted_chain(node)
        if chain is not None:
            self.use(chain.split(".", 1)[0], chain, scope, node)
            return
        base = node
        while isinstance(base, cst.Attribute):
            base = base.value  # type: ignore[assignment]
        if _is_call_to(base, "type") and len(base.args) == 1 and isinstance(base.args[0].value, cst.Name):  # type: ignore[attr-defined]
            # ``type(self).LIMIT``: the class of the instance the method runs on
            arg = nfkc(base.args[0].value.value)  # type: ignore[attr-defined]
            if self.self_of(arg, scope):
                inner = node
                while isinstance(inner.value, cst.Attribute):
                    inner = inner.value
                self.refs.members.add(nfkc(inner.attr.value))
                return
        self.walk(node.value, scope)

    def subscript(self, node: cst.Subscript, scope: _Scope) -> None:
        value = node.value
        if _is_call_to(value, "globals") and not self.is_local("globals", scope):
            self.globals_read.add(id(value))
        elif dotted_chain(value) == "sys.modules" and not self.is_local("sys", scope) and len(node.slice) == 1:
            index = node.slice[0].slice
            key = literal_string_value(index.value) if isinstance(index, cst.Index) else None
            if isinstance(key, str) and key:
                self.refs.globals.add("=" + key)  # that module, used as a value: all of it
            else:
                self.refs.dynamic.add("module")  # ``sys.modules[__name__]``, or a computed name
        for child in child_nodes(node):
            self.walk(child, scope)

    def call(self, node: cst.Call, scope: _Scope) -> None:
        func = node.func
        name = nfkc(func.value) if isinstance(func, cst.Name) else None
        builtin = name is not None and not self.is_local(name, scope)
        args = node.args
        if builtin and name in _ATTR_FUNCS and len(args) >= 2 and args[0].keyword is None and args[1].keyword is None:
            literal = literal_string_value(args[1].value)
            obj = args[0].value
            if isinstance(literal, str) and literal.isidentifier() and dotted_chain(obj) is not None:
                # ``getattr(x, "name")`` is ``x.name``
                chain = f"{dotted_chain(obj)}.{literal}"
                self.in_call(func, scope, callee=func, rest=[a.value for a in args[2:]], chain=(chain, obj))
                if name in ("setattr", "delattr"):
                    self.store_into(obj, scope)
                    if _through_sys_modules(obj, itself=True):
                        self.refs.dynamic |= {"module", "module-write"}
                return
            if name in ("setattr", "delattr"):
                self.store_into(obj, scope)
                if _through_sys_modules(obj, itself=True):
                    self.refs.dynamic |= {"module", "module-write"}
        if builtin and name in _SELF_SAFE:
            for arg in args:
                if isinstance(arg.value, cst.Name):
                    self.self_safe.add(id(arg.value))
        if builtin and name == "globals":
            if id(node) not in self.globals_read or id(node) in self.globals_written:
                self.refs.dynamic.add("module-write")
            self.refs.dynamic.add("module")
        elif builtin and name in ("vars", "locals") and not args:
            if scope.parent is None:  # the module's namespace itself
                self.refs.dynamic |= {"module", "module-write"}
            elif scope.is_class:  # the class body's namespace: the class being built
                self.refs.dynamic.add("class")
        elif builtin and name in ("eval", "exec"):
            self.refs.dynamic |= {"module", "module-write"}
        if (builtin and name == "__import__") or (isinstance(func, (cst.Name, cst.Attribute)) and _last_name(func) == "import_module"):
            target = literal_string_value(args[0].value) if args and args[0].keyword is None else None
            if isinstance(target, str) and target and not target.startswith("."):
                self.refs.globals.add("=" + target)
            else:
                self.refs.dynamic.add("module")
        if isinstance(func, cst.Attribute) and _is_call_to(func.value, "globals") and func.attr.value in _DICT_READS:
            self.globals_read.add(id(func.value))
        if self.name_only is not None:
            self.mark_name_only(func, args, scope)
        self.in_call(func, scope, callee=func, rest=[a.value for a in args])

    def mark_name_only(self, func: cst.BaseExpression, args: Iterable[cst.Arg], scope: _Scope) -> None:
        chain = dotted_chain(func)
        if chain is None or not self.is_global(chain.split(".", 1)[0], scope):
            return
        spec = self.name_only(chain)  # type: ignore[misc]
        if spec is None:
            return
        position, keyword = spec
        args = list(args)
        chosen = [a for a in args if a.keyword is not None and keyword is not None and nfkc(a.keyword.value) == keyword]
        positional = [a for a in args if a.keyword is None and not a.star]
        if not chosen and 0 <= position < len(positional) and not any(a.star for a in args[:args.index(positional[position])]):
            chosen = [positional[position]]
        for arg in chosen:
            if dotted_chain(arg.value) is not None:
                self.by_name.add(id(arg.value))

    def in_call(self, func: cst.BaseExpression, scope: _Scope, *, callee: cst.BaseExpression,
                rest: Iterable[cst.BaseExpression] = (), chain: tuple[str, cst.BaseExpression] | None = None) -> None:
        """Walk a call: at import time every global root in it is a ``call_mentions`` (the call may
        change its callee and arguments); in deferred code the callee is a ``calls`` (a method
        call also a ``method_calls``) and the arguments are ``mutates``."""
        target = func.func if isinstance(func, cst.Call) else func
        callee_chain = dotted_chain(target)
        now = self.deferred == 0
        if now:
            self.collectors.append(self.refs.call_mentions)
        try:
            if callee_chain is not None:
                root = callee_chain.split(".", 1)[0]
                if self.is_global(root, scope):
                    if now:
                        self.refs.calls_now.add(root)
                        if "." not in callee_chain:
                            self.refs.name_calls_now.add(root)
                    else:
                        self.refs.calls.add(root)
                        if "." in callee_chain:
                            self.refs.method_calls.add(root)
            self.walk(func, scope)
            if not now:
                self.collectors.append(self.refs.mutates)
            try:
                if chain is not None:
                    text, obj = chain
                    self.use(text.split(".", 1)[0], text, scope, obj)
                for arg in rest:
                    self.walk(arg, scope)
            finally:
                if not now:
                    self.collectors.pop()
        finally:
            if now:
                self.collectors.pop()

    def store(self, node: cst.CSTNode, scope: _Scope) -> None:
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, cst.Del):
            targets = [node.target]
        else:
            targets = [node.target]  # type: ignore[attr-defined]
        for target in targets:
            written = _globals_call(target)
            if written is not None:
                self.globals_written.add(id(written))  # ``globals()["X"] = 1`` binds a name
            if _through_sys_modules(target):
                # ``sys.modules[__name__].V = 2``: a binding of any name of the module
                self.refs.dynamic |= {"module", "module-write"}
            self.store_into_target(target, scope)
        if isinstance(node, cst.AnnAssign) and scope.is_function:
            # a local annotation never runs: not a reference (DESIGN §6)
            self.walk(node.target, scope)
            if node.value is not None:
                self.walk(node.value, scope)
            return
        if isinstance(node, cst.Assign) and _is_call_to(node.value, "globals"):
            self.globals_written.add(id(node.value))  # ``g = globals()``: it escapes
        for child in child_nodes(node):
            self.walk(child, scope)

    def store_into_target(self, target: cst.BaseExpression, scope: _Scope) -> None:
        for base in _store_base(target):
            self.store_into(base, scope)

    def store_into(self, obj: cst.BaseExpression, scope: _Scope) -> None:
        """Record a write into the object ``obj`` names (its root, when that is global)."""
        while isinstance(obj, (cst.Attribute, cst.Subscript, cst.Call)):
            obj = obj.func if isinstance(obj, cst.Call) else obj.value
        if not isinstance(obj, cst.Name):
            return
        root = nfkc(obj.value)
        if self.is_global(root, scope):
            (self.refs.stores if self.deferred == 0 else self.refs.mutates).add(root)

    # -- resolution -----------------------------------------------------------------------------
    def resolve(self, root: str, scope: _Scope) -> _Scope | None:
        """The scope that binds ``root`` for code in ``scope`` (None: the module, i.e. global)."""
        current: _Scope | None = scope
        first = True
        while current is not None:
            if current.parent is None:
                return None  # module scope: global
            if root in current.declared_global:
                return None
            if (first or not current.is_class) and root in current.local:
                return current
            first = False
            current = current.parent
        return None

    def is_global(self, root: str, scope: _Scope) -> bool:
        return self.resolve(root, scope) is None

    def is_local(self, root: str, scope: _Scope) -> bool:
        return self.resolve(root, scope) is not None

    def self_of(self, name: str, scope: _Scope) -> bool:
        binder = self.resolve(name, scope)
        return binder is not None and binder.self_name == name

    def use(self, root: str, chain: str, scope: _Scope, node: cst.CSTNode) -> None:
        binder = self.resolve(root, scope)
        mark = "^" if self.by_name and id(node) in self.by_name else ""
        if binder is not None:
            for target in binder.imports.get(root, ()):
                # a lazy import: a binding to its target, with the attribute tail used
                self.refs.globals.add(mark + "=" + target + chain[len(root):])
            if binder.self_name == root:
                parts = chain.split(".")
                if len(parts) > 2 and parts[1] == "__class__":
                    self.refs.members.add(parts[2])
                elif len(parts) > 1 and parts[1] not in ("__class__", "__dict__"):
                    self.refs.members.add(parts[1])
                elif id(node) not in self.self_safe:
                    # ``self`` escapes (passed on, returned, ``self.__dict__``): any member may be reached
                    self.refs.dynamic.add("class")
            return
        self.refs.globals.add(mark + chain)
        if mark:
            return  # referenced by name for the engine (``execute_activity(fn)``): the call changes nothing of it
        for collector in self.collectors:
            collector.add(root)


def _last_name(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


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


def references(node: cst.CSTNode, *, method_of_class: bool = False, resolve_from: FromResolver | None = None,
               name_only: NameOnly | None = None) -> References:
    """Global chains, members, effects and dynamic reach of a module-level statement or definition.

    ``method_of_class``: ``node`` is a ``FunctionDef`` taken out of a class body; its first
    parameter names the instance (or class) for ``self.``/``cls.`` member references.
    ``resolve_from`` resolves relative imports inside function and class bodies. ``name_only``
    (a framework profile's rule): which call arguments are referenced by name only (``^chain``).
    """
    refs = References()
    walker = _UseWalker(refs, resolve_from, name_only)
    module_scope = _Scope(None, set(), set())
    if method_of_class and isinstance(node, cst.FunctionDef):
        walker.function_header(node, module_scope)
        walker.function_scope(node.params, node.body.body, module_scope, method=not _is_staticmethod(node))
    else:
        walker.walk(node, module_scope)
    return refs
