"""What code Python hands a class to while it makes it (breaker6's G2), for the holder rule.

A ``class`` statement runs more than its body: Python calls the metaclass with the new class's
namespace (``__new__``/``__init__``), each base's ``__init_subclass__`` with the class, the
``__set_name__`` of every value the body binds with the class as its owner, and then each
decorator with the class. Any of these may change a part of what the class holds (``def
deco(cls): cls.c["a"] = 5`` with ``@deco class K: c = CFG``), and the parameter such code is given
is not followed by the holder walk (``scopes``: a parameter stands for nothing). So the rule widens
(DESIGN §6, sound by construction): a class made with first-party code that may be handed it
*escapes* at its statement, which then counts as changing its parts (``effects._Holders``): it
belongs to what the class holds, and the flows reaching that reach the statement and through it
the code (``deco``'s body is hashed).

This module judges module-level class statements; a class made inside a function or a class
body is judged by ``scopes`` (``_made_with_code``), where names are not resolved yet: any
decorator, base, keyword or call in its body counts, and what its body names counts as changed
in part by the code that makes it.

The code that counts, by where the statement names it (``creation_roots``, marked by position):

* ``d:`` a decorator (``@deco``, ``@reg.add(...)``: the root of its callee) and ``m:`` the
  metaclass keyword: given the class (or its namespace) outright, any first-party name counts;
* ``b:`` a base: its ``__init_subclass__`` and its metaclass run; a base of the module that
  defines no ``__init_subclass__`` and has no first-party metaclass, nor any base of its own that
  does (transitively), is *inert* and counts not (``class K(Base)`` with a plain ``Base`` is the
  common case: measured on the benchmark repositories, ``benchmarks/README.md``);
* ``s:`` a callee of a call in the body, a method's decorator: the value it makes may define
  ``__set_name__``; a class of the module that defines none (nor its bases) is inert.

A decorator, metaclass, base or class keyword spelled as an expression that is no plain chain
(breaker7's H1: ``@functools.partial(deco, 1)``, ``@(lambda c: deco(c))``, ``@(deco if X else
other)``, ``@getattr(dm, "deco")``, ``@[deco][0]``, ``metaclass=M if X else type``, ``class K(B
if X else A)``) hands the class to whatever it reads: every global name it reads besides its
callee's root counts (``HANDED``, or ``b:``/``m:`` in a base or metaclass, so that a subclass
is judged by them too), a lambda's body included; a subscript's index does not (``Base[Model]``
runs ``Base.__class_getitem__``). So does a call's argument (``@reg.add(OPTIONS)``,
``@service_handler(service=Service)``): third-party code handed the class and first-party code
may run that code with it. ``**`` keywords (H2: ``class K(**KW)``, a metaclass among them) are
creation code the statement does not spell (``UNKNOWN``): the class escapes, and its subclasses
too. A hook installed on a class of the module after its statement (H3: ``B.__init_subclass__ =
classmethod(hook)``, ``setattr(B, "__set_name__", f)``) counts as the class's own
(``effects._Holders``). Widening, measured (session 9, ``benchmarks/bench_closure_width.py``):
3 of samples-python's 191 flows reach one more member each, through
``@nexusrpc.handler.service_handler(service=MyService)`` (a first-party class as an argument of
a third-party decorator); none elsewhere.

An imported first-party name, a def, or a value bound otherwise is never inert: its code is
another module's or unknown here. Left out, on purpose: third-party code (``@dataclass``,
``pydantic.BaseModel``, ``@workflow.defn``): it cannot name first-party state, and what it
does with the class is the framework's (counting it would attach every decorated class of a
module to everything it holds); and a module-level *instance* bound in the body by name (``d =
DESCRIPTOR`` with ``DESCRIPTOR = D()`` above: its ``__set_name__`` runs too), a documented limit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import libcst as cst

from .canonical import child_nodes, nfkc
from .scopes import dotted_chain

__all__ = ["CREATION_HOOKS", "HANDED", "UNKNOWN", "creation_roots", "escaping_classes"]

#: the methods a class body may define that Python runs when *another* class is made:
#: ``__init_subclass__`` (for a subclass), ``__set_name__`` (for the class a value is bound in)
CREATION_HOOKS = frozenset({"__init_subclass__", "__set_name__"})

#: a root of ``creation_roots`` standing for creation code the statement does not spell
#: (``class K(**KW)``: the metaclass may be any of ``KW``'s values; breaker7's H2): always escapes
UNKNOWN = "u:"

#: the mark of a name a decorator or a class keyword reads that is not its callee's root
#: (``@functools.partial(deco, 1)``: ``deco``): handed the class or function, it may run with it
HANDED = "h:"


def creation_roots(stmt: cst.CSTNode) -> tuple[frozenset[str], frozenset[str]]:
    """For a class statement: the roots of the code it hands the class to as it is made, each
    marked by position (``d:`` decorator, ``m:`` metaclass or ``**`` keywords, ``k:`` another
    keyword, ``b:`` base, ``s:`` a body call's callee or a method's decorator; ``HANDED`` another
    name a decorator or keyword reads; ``UNKNOWN`` for ``**`` keywords), and the creation hooks its
    own body defines (``CREATION_HOOKS``); for a def, the roots of its decorators; empty for any
    other statement."""
    if type(stmt) is cst.FunctionDef:
        # a def's decorators are handed the function: what they read runs with it too
        # (``effects.import_time_runs``; H1 for a def)
        found: set[str] = set()
        for deco in stmt.decorators:
            _add(found, "d:", deco.decorator, HANDED)
        return frozenset(found), frozenset()
    if type(stmt) is not cst.ClassDef:
        return frozenset(), frozenset()
    out: set[str] = set()
    for deco in stmt.decorators:
        _add(out, "d:", deco.decorator, HANDED)
    for arg in stmt.bases:
        _add(out, "b:", arg.value, "b:")  # (``class K(B if X else A)``: either may be the base)
    for arg in stmt.keywords:
        if arg.keyword is None:  # ``class K(**KW)``: a metaclass may be among them (H2)
            out.add(UNKNOWN)
            _add(out, "m:", arg.value, "m:")
        elif arg.keyword.value == "metaclass":
            _add(out, "m:", arg.value, "m:")
        else:
            # handed to the metaclass and to the bases' ``__init_subclass__`` with the class:
            # code among its names is given it (``class K(B, hook=deco)``)
            _add(out, "k:", arg.value, HANDED)
    hooks: set[str] = set()
    for inner in stmt.body.body:
        smalls: Sequence[cst.CSTNode] = inner.body if type(inner) is cst.SimpleStatementLine else [inner]  # type: ignore[attr-defined]
        for small in smalls:
            if type(small) in (cst.FunctionDef, cst.ClassDef):
                if type(small) is cst.FunctionDef and small.name.value in CREATION_HOOKS:  # type: ignore[attr-defined]
                    hooks.add(small.name.value)  # type: ignore[attr-defined]
                for deco in small.decorators:  # type: ignore[attr-defined]
                    _add(out, "s:", deco.decorator)
            else:
                # a hook bound by an assignment (``__init_subclass__ = classmethod(hook)``,
                # ``__set_name__ = sn``: breakS's S14) is the class's own as a def is
                targets = [t.target for t in small.targets] if type(small) is cst.Assign else (  # type: ignore[attr-defined]
                    [small.target] if type(small) is cst.AnnAssign and small.value is not None else [])  # type: ignore[attr-defined]
                hooks.update(t.value for t in targets if type(t) is cst.Name and t.value in CREATION_HOOKS)
                for call in _calls(small):
                    _add(out, "s:", call.func)
    return frozenset(out), frozenset(hooks)


def _add(out: set[str], mark: str, expr: cst.BaseExpression, read: str | None = None) -> None:
    """The root of the callee ``expr`` spells (``@deco(1)``, ``Base[int]``: ``deco``, ``Base``)
    marked ``mark``; with ``read``, also every other global name the expression reads outside a
    subscript's index, marked ``read`` (breaker7's H1: ``@functools.partial(deco, 1)``,
    ``@(lambda c: deco(c))``, ``@(deco if X else other)``, ``@getattr(dm, "deco")``,
    ``metaclass=M if X else type``: code handed the class that is no callee's root; a name read
    that is no code, a value, counts the same: widening; a literal or third-party name does not)."""
    node = expr
    while type(node) in (cst.Call, cst.Subscript):
        node = node.func if type(node) is cst.Call else node.value  # type: ignore[attr-defined]
    chain = dotted_chain(node)
    root = None
    if chain is not None:
        root = chain.split(".")[0]
        out.add(mark + root)
        if read is None or node is expr:
            return  # a plain chain (the common case): nothing else is read
    if read is not None:
        out.update(read + name for name in _names_read(expr) if name != root)


def _names_read(expr: cst.CSTNode) -> set[str]:
    """The names an expression reads (not an attribute's name, a keyword, a lambda's parameters,
    a subscript's index), its lambdas' bodies included: a lambda handed the class runs them."""
    out: set[str] = set()
    params: set[str] = set()
    stack = [expr]
    while stack:
        n = stack.pop()
        t = type(n)
        if t is cst.Name:
            out.add(nfkc(n.value))  # type: ignore[attr-defined]
        elif t is cst.Attribute:
            stack.append(n.value)  # type: ignore[attr-defined]
        elif t is cst.Arg:
            stack.append(n.value)  # type: ignore[attr-defined]
        elif t is cst.Subscript:
            stack.append(n.value)  # type: ignore[attr-defined]
        elif t is cst.Lambda:
            params.update(nfkc(p.name.value) for p in _params(n.params))  # type: ignore[attr-defined]
            stack.extend(p.default for p in _params(n.params) if p.default is not None)  # type: ignore[attr-defined]
            stack.append(n.body)  # type: ignore[attr-defined]
        else:
            stack.extend(child_nodes(n))
    return out - params


def _params(params: cst.Parameters) -> list[cst.Param]:
    out = [*params.posonly_params, *params.params, *params.kwonly_params]
    out += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    return out


def _calls(node: cst.CSTNode) -> Iterable[cst.Call]:
    """The calls an expression statement of a class body makes as the body runs (not those in a
    lambda, which runs later)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if type(n) is cst.Lambda:
            continue
        if type(n) is cst.Call:
            yield n
        stack.extend(child_nodes(n))


def escaping_classes(classes: Mapping[str, Sequence[tuple[frozenset[str], frozenset[str]]]],
                     first_party: Callable[[str], bool], others: Iterable[str] = ()) -> set[str]:
    """The module's class names whose statement hands the class to first-party code that is not
    inert (the module docstring). ``classes``: each name a class statement binds -> the
    ``creation_roots`` of every class statement binding it; ``others``: names some other
    statement binds too (never inert: which object the name holds when a subclass is made is
    not told); ``first_party``: whether a root is a first-party name of the module (bound here,
    not third-party, not an immutable literal)."""
    others = set(others)
    inert = _Inertness(classes, first_party, others).inert

    out: set[str] = set()
    for name, statements in classes.items():
        for roots, _ in statements:
            for r in roots:
                mark, _, root = r.partition(":")
                if r == UNKNOWN:
                    out.add(name)
                if root == name or not first_party(root):
                    continue
                if mark in ("d", "m", "k", "h") or (mark == "b" and not inert(root, "__init_subclass__", frozenset())) \
                        or (mark == "s" and not inert(root, "__set_name__", frozenset())):
                    out.add(name)
    return out


class _Inertness:
    """Whether a class of the module is inert for a hook (``escaping_classes``), memoised.

    An object and not a nested function: a function that calls itself through its closure is a
    reference cycle (the function, its cell), and what it holds (``first_party``, bound to the
    analyser) kept the whole analysis, libcst's tree included, alive until the cyclic collector
    ran, whose collections then walked and freed them (``analysis``'s module docstring: a
    module's analysis leaves no cyclic garbage)."""

    def __init__(self, classes: Mapping[str, Sequence[tuple[frozenset[str], frozenset[str]]]],
                 first_party: Callable[[str], bool], others: set[str]) -> None:
        self.classes = classes
        self.first_party = first_party
        self.others = others
        self.memo: dict[tuple[str, str], bool] = {}

    def inert(self, name: str, hook: str, seen: frozenset[str]) -> bool:
        key = (name, hook)
        if key in self.memo:
            return self.memo[key]
        if name in seen or name not in self.classes or name in self.others:
            return name in seen  # a cycle ends; a def, a value or an import is never inert
        found = True
        for roots, hooks in self.classes[name]:
            if hook in hooks:
                found = False
            for r in roots:
                mark, _, root = r.partition(":")
                if r == UNKNOWN and hook == "__init_subclass__":
                    found = False  # its metaclass is not told: it makes a subclass too
                if not self.first_party(root):
                    continue
                if mark == "m" and hook == "__init_subclass__":
                    found = False  # a subclass is made by this metaclass too
                elif mark == "b" and not self.inert(root, hook, seen | {name}):
                    found = False
        self.memo[key] = found
        return found
