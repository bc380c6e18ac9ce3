"""Which step ids a flow's code can ask for, read statically: the review's "could skip" estimate.

A reviewer deciding ``compatible_with`` needs to know whether the new body could leave recorded
work behind: an execution that already ran step ``reserve`` and resumes on a body that never asks
for it is refused as diverged (D3). ``step_calls(sources)`` scans the source of every closure
member of a flow (the flow and the helpers it reaches) for

* ``<anything>.execute(<id>, <fn>, …)``: a step call (the receiver is whatever the code named its
  context: ``ctx``, ``self.ctx``, ``context``);
* ``<anything>.parallel([(<id>, <fn>, …), …])``: explicit parallel branches;

and reads the id: a string literal is an id (``"reserve"``); an f-string is a pattern over its
literal prefix (``f"pack#{i}"`` → ``pack#*``); anything else is *computed* and only counted.
``could_skip(old, new)`` is then what the old code could ask for and the new code cannot.

It is an estimate, and labelled so wherever it is shown: a call may sit in a branch no execution
takes, a helper may be called with an id built elsewhere, and ``.execute`` of another object (a
database cursor) is read as a step call too. It never replaces the replay ``loom deploy-check``
runs against real journals; it tells the reviewer where to look.

Rejected: the declared ``steps=[…]`` list (it says what the author meant, not what the body asks
for: a dropped call with its declaration left in place is exactly the bug), and following values
through assignments (an interpreter's worth of work for an estimate).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

from .code import parse_member

__all__ = ["StepCalls", "step_calls", "could_skip"]


@dataclass(frozen=True, slots=True)
class StepCalls:
    """Step ids a flow's code can ask for: literal ids, ``prefix*`` patterns, and a count of the rest."""

    ids: tuple[str, ...] = ()  # sorted; a pattern ends in "*"
    computed: int = 0  # calls whose id is neither a literal nor an f-string with a literal prefix

    def covers(self, item: str) -> bool:
        if item in self.ids:
            return True
        prefixes = [i[:-1] for i in self.ids if i.endswith("*")]
        body = item[:-1] if item.endswith("*") else item
        return any(body.startswith(p) for p in prefixes)


def _step_id(node: ast.expr) -> str | None:
    """The id (or ``prefix*`` pattern) a step-id expression names, ``None`` when computed."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value:
            if len(node.values) == 1:
                return first.value
            return first.value + "*"
    return None


class _Finder(ast.NodeVisitor):
    def __init__(self) -> None:
        self.ids: set[str] = set()
        self.computed = 0

    def _found(self, node: ast.expr) -> None:
        ident = _step_id(node)
        if ident is None:
            self.computed += 1
        else:
            self.ids.add(ident)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute):
            if func.attr == "execute" and len(node.args) >= 2:
                self._found(node.args[0])
            elif func.attr == "parallel" and node.args and isinstance(node.args[0], (ast.List, ast.Tuple)):
                for branch in node.args[0].elts:
                    if isinstance(branch, ast.Tuple) and len(branch.elts) >= 2:
                        self._found(branch.elts[0])
        self.generic_visit(node)


def step_calls(sources: Iterable[str]) -> StepCalls:
    """The step ids the code in ``sources`` (member source texts) can ask for."""
    finder = _Finder()
    for source in sources:
        if not source.strip():
            continue
        try:
            tree = parse_member(source)
        except (SyntaxError, ValueError):
            continue
        finder.visit(tree)
    return StepCalls(tuple(sorted(finder.ids)), finder.computed)


def could_skip(old: StepCalls, new: StepCalls) -> tuple[str, ...]:
    """What ``old`` can ask for and ``new`` cannot (patterns compare by prefix)."""
    return tuple(i for i in old.ids if not new.covers(i))
