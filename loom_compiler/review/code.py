"""A closure member's code as a reviewer should read it: normalised, so only behaviour shows.

``readable(source)`` parses a member's original source text (``ClosureMember.source``) and prints
it back with ``ast.unparse``: comments, blank lines, line wrapping, redundant parentheses, quoting
and escaping of strings, the spelling of numbers (``1_000``/``0x3E8``), implicit concatenation and
docstrings all come out one way, and annotations of local variables are dropped. Those are exactly
the things the fingerprint ignores (DESIGN §6 "Equal"), so two renderings differ only where the
canonical form can differ, and a review diff of them shows the behavioural edit and nothing else
(``DISCOUNT_RATE = 0.1`` → ``DISCOUNT_RATE = 0.12``, not the comment moved beside it).

For a flow member the flow decorator is left out: its arguments are the structural hash's
(``flowHash``; ``compatible_with`` never feeds the codeHash), and the review reports a structure
change on its own line. The decorator is recognised by its arguments naming the flow id, or by its
last dotted name matching the configured decorator's (``workflow.run``, ``DBOS.workflow``).

``readable`` is for display only and never hashed: ``ast`` output may differ between Python
versions, which is why the fingerprint uses its own canonical form. Where the rendering cannot show
a change the hash saw (the same text resolving to other targets, or a construct ``ast`` prints
alike), the review falls back to the bindings and then to the canonical form (``review.diff``), so a
changed member is never shown as unchanged.

Rejected: a diff of the raw source (every reformat, comment and docstring edit would be listed as
a change, which is what the fingerprint exists to ignore), and rebuilding code from the canonical
S-expression (a second printer of every syntax node, tied to one canonical scheme; the canonical
form is shown as-is only in the rare fallback).
"""

from __future__ import annotations

import ast
import difflib
import textwrap
import warnings

__all__ = ["readable", "code_diff", "inline_change", "parse_member"]


class _Normalise(ast.NodeTransformer):
    """Drops docstrings and local annotations; removes the flow decorator of the root flow."""

    def __init__(self, flow_id: str | None, decorator: str | None) -> None:
        self.flow_id = flow_id
        self.decorator_tail = decorator.rsplit(".", 1)[-1] if decorator else None
        self.depth = 0  # function nesting: annotations are local only inside a function

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return self._function(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        return self._function(node)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
        if self.flow_id is not None and self.depth == 0:
            node.decorator_list = [d for d in node.decorator_list if not self._is_flow_decorator(d)]
            self.flow_id = None  # only the outermost definition is the flow
        _drop_docstring(node)
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        _drop_docstring(node)
        depth, self.depth = self.depth, 0  # a class body's annotations are fields, kept
        self.generic_visit(node)
        self.depth = depth
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST | None:
        if self.depth == 0 or not isinstance(node.target, ast.Name):
            return self.generic_visit(node)
        if node.value is None:
            return None  # a bare local annotation never runs
        return ast.copy_location(ast.Assign(targets=[node.target], value=node.value), node)

    def _is_flow_decorator(self, dec: ast.expr) -> bool:
        call = dec if isinstance(dec, ast.Call) else None
        if call is not None:
            named = [a for a in call.args[:1]] + [k.value for k in call.keywords if k.arg in ("id", "name")]
            if any(isinstance(a, ast.Constant) and a.value == self.flow_id for a in named):
                return True
        target = call.func if call is not None else dec
        tail = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)
        return tail is not None and tail == self.decorator_tail


def _drop_docstring(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
        node.body = body[1:] or [ast.Pass()]


def parse_member(source: str) -> ast.Module:
    """A member's source (a method is indented) as a module; ``SyntaxError`` if it is no statement.

    ``textwrap.dedent`` alone fails on a method holding a triple-quoted string whose lines start in
    column 0 (their common margin is then nothing): such a member parses inside an ``if True:``
    block instead, whose body is taken. Found on Temporal's samples-python."""
    source = source.lstrip("\r\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)  # an invalid escape is the author's business
        try:
            return ast.parse(textwrap.dedent(source))
        except SyntaxError:
            if not source[:1].isspace():
                raise
            block = ast.parse("if True:\n" + source).body[0]
            assert isinstance(block, ast.If)
            return ast.Module(body=block.body, type_ignores=[])


def readable(source: str, *, flow_id: str | None = None, decorator: str | None = None) -> str | None:
    """``source`` normalised (see the module docstring); ``None`` when it does not parse on its own
    (a fragment only the canonical form can show). ``flow_id``: the member is that flow."""
    if not source.strip():
        return None
    try:
        tree = parse_member(source)
    except (SyntaxError, ValueError):
        return None
    tree = _Normalise(flow_id, decorator).visit(tree)
    ast.fix_missing_locations(tree)
    return ast.unparse(tree)


def inline_change(before: str, after: str) -> tuple[str, str] | None:
    """The one line that changed, when each side is one line (``RATE = 90`` → ``RATE = 92``)."""
    if "\n" in before or "\n" in after:
        return None
    return before, after


def code_diff(before: str, after: str, *, context: int = 2) -> list[str]:
    """A unified diff body of two renderings: ``-``/``+``/`` `` lines, hunks apart by `` ...``.

    No ``---``/``+++`` header (the caller names the member) and no ``@@`` ranges: they would count
    lines of the normalised text, which match no file the reviewer has open."""
    out: list[str] = []
    for line in list(difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=context))[2:]:
        if line.startswith("@@"):
            if out:
                out.append(" ...")
            continue
        out.append(line)
    return out
