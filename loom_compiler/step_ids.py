"""Step ids a flow executes that its ``steps=``/``step_families=`` do not declare (``loom build``).

The declared ids are what ``resume_as(..., strategy="replay-check")`` trusts (``orphaned_frames``)
and what the structural flowHash covers; nothing used to compare them with the ids the body
actually asks for, so ``steps=["a"]`` over a body that executes ``"b"`` built, ran, and failed
only at the first migration. ``undeclared_step_ids(fp)`` reads every closure member's source (the
flow and the helpers it reaches) for

* ``<ctx>.execute(<id>, <fn>, ...)`` and ``<ctx>.parallel([(<id>, <fn>, ...), ...])``, where
  ``<ctx>`` is a parameter of an enclosing function (``ctx`` in the flow, a helper's ``ctx``
  argument) or an attribute of ``self``/``cls``; a ``cursor.execute("SELECT ...")`` on a local
  is not a step call;
* whose id is a string literal (``"b"``) or an f-string with a literal prefix (``f"it#{i}"``: the
  family ``it``);

and reports each id the declaration does not cover, by the runtime's own rule
(``loom_runtime.families``): a literal passes when it, or its family (the part before the first
``#``), is a declared step or a string family, or a ``re.compile`` family fullmatches it; an
f-string passes when its family is declared. An f-string whose literal prefix has no ``#`` has no
family a string can declare, so it is reported with that advice; where the flow declares a regex
family that might match it, it is not judged (a build cannot evaluate the placeholder).

A flow that declares neither ``steps`` nor ``step_families`` has opted out (nothing to keep in
sync), and only ``loom_runtime.flow`` flows are read (other engines' workflows have no ``ctx``).
Computed ids (a variable, ``f"{name}"``) are not judged: the runtime under ``strict=True`` checks
every id before its effect runs, which catches what a static reading cannot.

Positions are file:line:column of the id expression (1-based columns in characters), mapped from
the member's source text back to its file.

Rejected: warning for every flow without declarations (most flows never migrate; the warning would
be noise on every build) and following values through assignments (an interpreter's worth of work
for a check the runtime makes exactly).
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

from loom_runtime.families import step_family

from .model import FlowFingerprint, SourceError

__all__ = ["StepIdCall", "step_id_calls", "undeclared_step_ids", "LOOM_FLOW_DECORATOR"]

LOOM_FLOW_DECORATOR = "loom_runtime.flow"
_MEMBER_KINDS = frozenset({"flow", "function", "method"})


@dataclass(frozen=True, slots=True)
class StepIdCall:
    """One step id a member's code asks for: ``prefix`` is the literal id, or an f-string's literal
    prefix when ``dynamic``; line and column are in the member's file (1-based)."""

    prefix: str
    dynamic: bool
    line: int
    column: int

    @property
    def shown(self) -> str:
        return f'f"{self.prefix}{{...}}"' if self.dynamic else f'"{self.prefix}"'


def _id_of(node: ast.expr) -> tuple[str, bool] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, False
    if isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value:
            return first.value, len(node.values) > 1
    return None


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _params(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> frozenset[str]:
    a = node.args
    names = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    names += [p.arg for p in (a.vararg, a.kwarg) if p is not None]
    return frozenset(names)


def _is_context(node: ast.expr, scopes: tuple[frozenset[str], ...]) -> bool:
    """A parameter of an enclosing function (``scopes``), or an attribute of ``self``/``cls``."""
    if isinstance(node, ast.Name):
        return any(node.id in scope for scope in scopes)
    if isinstance(node, ast.Attribute):
        root = node.value
        while isinstance(root, ast.Attribute):
            root = root.value
        return isinstance(root, ast.Name) and root.id in ("self", "cls")
    return False


def _step(node: ast.expr, found: list[tuple[str, bool, ast.expr]]) -> None:
    ident = _id_of(node)
    if ident is not None:
        found.append((ident[0], ident[1], node))


def _find(tree: ast.AST) -> list[tuple[str, bool, ast.expr]]:
    """``(id, dynamic, node)`` of each step call in ``tree``. An iterative walk, each node with the
    parameters of the functions around it (a function's own cover its decorators and defaults
    too, as they always have here): no recursion for deep code, and no visitor dispatch per node
    (``ast.NodeVisitor`` was most of this check's time)."""
    found: list[tuple[str, bool, ast.expr]] = []
    todo: list[tuple[ast.AST, tuple[frozenset[str], ...]]] = [(tree, ())]
    while todo:
        node, scopes = todo.pop()
        if isinstance(node, _FUNCTIONS):
            scopes = (*scopes, _params(node))
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and _is_context(func.value, scopes):
                if func.attr == "execute" and len(node.args) >= 2:
                    _step(node.args[0], found)
                elif func.attr == "parallel" and node.args and isinstance(node.args[0], (ast.List, ast.Tuple)):
                    for branch in node.args[0].elts:
                        if isinstance(branch, ast.Tuple) and len(branch.elts) >= 2:
                            _step(branch.elts[0], found)
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                todo.extend((item, scopes) for item in value if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST):
                todo.append((value, scopes))
    return found


def step_id_calls(source: str, def_line: int) -> Iterator[StepIdCall]:
    """The step ids ``source`` (one member's text, as it stands in its file; its ``def``/``class``
    statement on file line ``def_line``) asks for, positioned in that file."""
    # a text that spells neither method name cannot call one (an ASCII text: NFKC turns some
    # non-ASCII letters into ``execute``, which only the parse sees)
    if not source.strip() or (source.isascii() and "execute" not in source and "parallel" not in source):
        return
    indented = source.startswith((" ", "\t"))
    # an indented member (a method) parses inside a block, which keeps its columns as in the file
    text = "if True:\n" + source if indented else source
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return
    body = tree.body[0].body if indented and isinstance(tree.body[0], ast.If) else tree.body
    head = next((s for s in body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))), None)
    if head is None:
        return
    offset = def_line - head.lineno  # parsed line + offset = file line
    lines = text.splitlines()
    for prefix, dynamic, node in _find(tree):
        line_text = lines[node.lineno - 1] if node.lineno - 1 < len(lines) else ""
        column = len(line_text.encode("utf-8")[: node.col_offset].decode("utf-8", "replace")) + 1
        yield StepIdCall(prefix, dynamic, node.lineno + offset, column)


def _declared(call: StepIdCall, steps: frozenset[str], names: frozenset[str],
              patterns: tuple[re.Pattern[str], ...]) -> bool | None:
    """True/False by the runtime's rule; None when a build cannot tell (see the module docstring)."""
    known = steps | names
    if not call.dynamic:
        if call.prefix in known or step_family(call.prefix) in known:
            return True
        return any(p.fullmatch(call.prefix) for p in patterns)
    if "#" in call.prefix:
        if step_family(call.prefix) in known:
            return True
    return None if patterns else False


def undeclared_step_ids(fp: FlowFingerprint, memo: dict[tuple[str, int], tuple[StepIdCall, ...]] | None = None,
                        ) -> tuple[SourceError, ...]:
    """A located warning for each literal or f-string step id ``fp``'s closure executes that its
    declaration does not cover (empty for flows that declare nothing, or of another framework).
    ``memo``: one build's step ids per member text (a helper reached by many flows is a member of
    each of their closures: read once, not once per flow; 5 % of a cold build at 120 flows)."""
    definition = fp.definition
    if fp.decorator != LOOM_FLOW_DECORATOR or not (definition.steps or definition.step_families):
        return ()
    steps = frozenset(definition.steps)
    names = frozenset(f for f in definition.step_families if isinstance(f, str))
    patterns = tuple(f for f in definition.step_families if isinstance(f, re.Pattern))
    declared = f"steps={list(definition.steps)!r}"
    if definition.step_families:
        shown = [f if isinstance(f, str) else f"re.compile({f.pattern!r})" for f in definition.step_families]
        declared += f", step_families=[{', '.join(repr(s) if not s.startswith('re.') else s for s in shown)}]"
    out: dict[tuple[str, int, int], SourceError] = {}
    for member in fp.closure:
        if member.kind not in _MEMBER_KINDS or not member.path or not member.source:
            continue
        key = (member.source, member.line)
        calls = memo.get(key) if memo is not None else None
        if calls is None:
            calls = tuple(step_id_calls(member.source, member.line))
            if memo is not None:
                memo[key] = calls
        for call in calls:
            if _declared(call, steps, names, patterns) is not False:
                continue
            if call.dynamic and "#" not in call.prefix:
                advice = (f'an f-string id needs a family: write f"{call.prefix}#{{...}}" and list '
                          f'"{call.prefix}" in step_families (or match it with re.compile(...))')
            elif call.dynamic:
                advice = f'add "{step_family(call.prefix)}" to step_families'
            else:
                family = step_family(call.prefix)
                advice = (f'add "{call.prefix}" to steps' if family == call.prefix
                          else f'add "{call.prefix}" to steps or "{family}" to step_families')
            where = "" if member.kind == "flow" else f" (in {member.qualname}, reached from the flow)"
            out[(member.path, call.line, call.column)] = SourceError(
                member.path, call.line, call.column,
                f"flow `{fp.flow_id}` executes step id {call.shown}{where}, which {declared} do not declare; "
                f"{advice} (a replay-check migration trusts the declaration)",
                code="undeclared-step",
            )
    return tuple(out[k] for k in sorted(out))
