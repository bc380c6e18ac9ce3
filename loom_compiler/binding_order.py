"""Where a statement reading a rebound name at load falls among that name's bindings (breakT's T1).

A closure member is one module-level name with every statement that binds it, in source order;
nothing in a member says where a statement of *another* member falls among them. Where a name is
bound once that does not matter: every read sees the one binding (DESIGN §6: "the order of
module-level definitions that do not rebind one name" is equal). Where it is bound more than
once, a read that runs as the module loads sees the binding before it:

    RATE = 1                      RATE = 1
    LIMIT = RATE * 2              RATE = 5
    RATE = 5                      LIMIT = RATE * 2     # 10, not 2

and the same for a default argument, a decorator's argument, a class attribute, an alias of a
def taken before the def is redefined. The rule: a statement's form carries, for each name it
reads as it runs that the module binds more than once, how many of that name's binding
statements come before it (a reaching-definitions index). A module binding no name twice keeps
every form (and digest) it had; reordering independent definitions stays equal.

What counts as read as it runs (``load_view``): the whole statement, but for a ``def`` only its
decorators and signature (the body runs later, after every binding) and for a ``class`` its body
with each method's body left out. Widening: a lambda or a comprehension's deferred parts count as
read (a move of such a statement across a rebinding is one more version, never a missed edit);
a name bound by a star import is not counted (a star import's names are the other module's
binding: ``closure`` resolves them).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Sequence

import libcst as cst

__all__ = ["load_view", "order_mark", "order_marks", "rebound"]

_PASS_BODY = cst.IndentedBlock(body=[cst.SimpleStatementLine([cst.Pass()])])


def rebound(binders: Mapping[str, Sequence[int]], binds_module: Callable[[str, int], bool]) -> frozenset[str]:
    """The names more than one module-level statement binds to what may be different objects:
    not a package that only imports bind (``import temporalio.client`` then ``import
    temporalio.worker`` both bind ``temporalio`` to one module object: ``binds_module(name, i)``
    says statement ``i`` is such an import; which submodules it holds is the imports' effect)."""
    return frozenset(name for name, at in binders.items()
                     if len(at) > 1 and not all(binds_module(name, i) for i in at))


def load_view(stmt: cst.CSTNode) -> cst.CSTNode:
    """What of ``stmt`` runs as the module loads: a def without its body, a class whose methods
    have no body (nested classes likewise), anything else whole."""
    if isinstance(stmt, cst.FunctionDef):
        return stmt.with_changes(body=_PASS_BODY)
    if isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
        return stmt.with_changes(body=stmt.body.with_changes(body=[load_view(s) for s in stmt.body.body]))
    return stmt


def order_mark(index: int, chains: Iterable[str], binders: Mapping[str, Sequence[int]], names: frozenset[str]) -> str:
    """The suffix of statement ``index``'s form: for each rebound name (``names``) a chain of
    ``chains`` (the statement's global references read as it runs) is rooted at, the count of
    that name's binding statements before it; ``""`` when there is none."""
    roots = {chain.split(".", 1)[0] for chain in chains}
    found = sorted(roots & names)
    if not found:
        return ""
    return "\n(binding order " + ", ".join(f"{name}:{bisect_left(binders[name], index)}" for name in found) + ")"


def order_marks(stmts: Sequence[cst.CSTNode], binders: Mapping[str, Sequence[int]],
                binds_module: Callable[[str, int], bool], chains_of: Callable[[int], Iterable[str] | None],
                load_chains: Callable[[cst.CSTNode], Iterable[str]]) -> dict[int, str]:
    """``order_mark`` of every statement that has one. ``binds_module``: as ``rebound``;
    ``chains_of(i)``: the global references of statement ``i`` (None: none);
    ``load_chains(node)``: those of a node built by ``load_view`` (asked only for a def or class
    whose references reach a rebound name)."""
    names = rebound(binders, binds_module)
    if not names:
        return {}
    marks: dict[int, str] = {}
    for index, stmt in enumerate(stmts):
        chains = chains_of(index)
        if not chains:
            continue
        chains = [c for c in chains if c[:1].isidentifier()]
        if not {c.split(".", 1)[0] for c in chains} & names:
            continue
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            chains = [c for c in load_chains(load_view(stmt)) if c[:1].isidentifier()]
        mark = order_mark(index, chains, binders, names)
        if mark:
            marks[index] = mark
    return marks
