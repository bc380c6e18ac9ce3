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

from .scopes import dotted_chain

__all__ = ["CREATION_HOOKS", "creation_roots", "escaping_classes"]

#: the methods a class body may define that Python runs when *another* class is made:
#: ``__init_subclass__`` (for a subclass), ``__set_name__`` (for the class a value is bound in)
CREATION_HOOKS = frozenset({"__init_subclass__", "__set_name__"})


def creation_roots(stmt: cst.CSTNode) -> tuple[frozenset[str], frozenset[str]]:
    """For a class statement: the roots of the code it hands the class to as it is made, each
    marked by position (``d:`` decorator, ``m:`` metaclass, ``b:`` base, ``s:`` a body call's
    callee or a method's decorator), and the creation hooks its own body defines
    (``CREATION_HOOKS``); empty for any other statement."""
    if type(stmt) is not cst.ClassDef:
        return frozenset(), frozenset()
    out: set[str] = set()
    for deco in stmt.decorators:
        _add(out, "d:", deco.decorator)
    for arg in stmt.bases:
        _add(out, "b:", arg.value)
    for arg in stmt.keywords:
        if arg.keyword is not None and arg.keyword.value == "metaclass":
            _add(out, "m:", arg.value)
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
                for call in _calls(small):
                    _add(out, "s:", call.func)
    return frozenset(out), frozenset(hooks)


def _add(out: set[str], mark: str, expr: cst.BaseExpression) -> None:
    while type(expr) in (cst.Call, cst.Subscript):  # ``@deco(1)``, ``Base[int]``: the callee's root
        expr = expr.func if type(expr) is cst.Call else expr.value  # type: ignore[attr-defined]
    chain = dotted_chain(expr)
    if chain is not None:
        out.add(mark + chain.split(".")[0])


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
        stack.extend(n.children)


def escaping_classes(classes: Mapping[str, Sequence[tuple[frozenset[str], frozenset[str]]]],
                     first_party: Callable[[str], bool], others: Iterable[str] = ()) -> set[str]:
    """The module's class names whose statement hands the class to first-party code that is not
    inert (the module docstring). ``classes``: each name a class statement binds -> the
    ``creation_roots`` of every class statement binding it; ``others``: names some other
    statement binds too (never inert: which object the name holds when a subclass is made is
    not told); ``first_party``: whether a root is a first-party name of the module (bound here,
    not third-party, not an immutable literal)."""
    others = set(others)
    memo: dict[tuple[str, str], bool] = {}

    def inert(name: str, hook: str, seen: frozenset[str]) -> bool:
        key = (name, hook)
        if key in memo:
            return memo[key]
        if name in seen or name not in classes or name in others:
            return name in seen  # a cycle ends; a def, a value or an import is never inert
        found = True
        for roots, hooks in classes[name]:
            if hook in hooks:
                found = False
            for r in roots:
                mark, _, root = r.partition(":")
                if not first_party(root):
                    continue
                if mark == "m" and hook == "__init_subclass__":
                    found = False  # a subclass is made by this metaclass too
                elif mark == "b" and not inert(root, hook, seen | {name}):
                    found = False
        memo[key] = found
        return found

    out: set[str] = set()
    for name, statements in classes.items():
        for roots, _ in statements:
            for r in roots:
                mark, _, root = r.partition(":")
                if root == name or not first_party(root):
                    continue
                if mark in ("d", "m") or (mark == "b" and not inert(root, "__init_subclass__", frozenset())) \
                        or (mark == "s" and not inert(root, "__set_name__", frozenset())):
                    out.add(name)
    return out
