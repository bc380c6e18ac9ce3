"""The analysis tests libcst nodes by exact type (``type(node) is cst.Name``), not ``isinstance``:
a failing ``isinstance`` against libcst's classes runs ``ABCMeta.__instancecheck__`` (~200,000
times a cold build of 1,200 modules). The two agree only while no class derives from the one
tested; this pins that for every class the compiler's modules test so, against the installed
libcst (a release that derives one node from another fails here, not in a hash)."""

from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
import pytest

from loom_compiler.canonical import exact_types

ROOT = Path(__file__).resolve().parents[2] / "loom_compiler"


def _exact_type_tests(tree: ast.AST) -> set[str]:
    """Names ``X`` of every ``cst.X`` compared with ``type(...)`` by ``is``/``is not``/``in``/``not in``
    (a tuple of them too), and of every ``kind is cst.X`` where ``kind = type(node)``."""
    found: set[str] = set()

    def classes(expr: ast.expr) -> list[str]:
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "cst":
            return [expr.attr]
        if isinstance(expr, (ast.Tuple, ast.Set)):
            return [name for e in expr.elts for name in classes(e)]
        return []

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for op, right in zip(node.ops, node.comparators):
                if isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)):
                    found.update(classes(right))
    return found


def _modules() -> list[Path]:
    return sorted(ROOT.rglob("*.py"))


def test_every_class_tested_by_exact_type_is_a_leaf() -> None:
    tested: dict[str, list[str]] = {}
    for path in _modules():
        for name in _exact_type_tests(ast.parse(path.read_text(encoding="utf-8"))):
            tested.setdefault(name, []).append(path.name)
    assert {"Name", "Attribute", "Call", "FunctionDef"} <= set(tested)  # the scan finds what it is for
    derived = {name: sorted({c.__qualname__ for c in exact_types(getattr(cst, name))} - {getattr(cst, name).__qualname__})
               for name in tested if isinstance(getattr(cst, name, None), type)}
    assert {name: subs for name, subs in derived.items() if subs} == {}, (
        "a libcst class the compiler tests by exact type has subclasses: test it with isinstance "
        "(or add its subclasses) in " + ", ".join(f"{n}: {tested[n]}" for n in derived if derived[n]))


def test_exact_types_agrees_with_isinstance() -> None:
    module = cst.parse_module("def f(x):\n    if x:\n        return [y for y in x]\n    else:\n        pass\n")
    nodes: list[cst.CSTNode] = []

    class Collect(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            nodes.append(node)
            return True

    module.visit(Collect())
    for abstract in (cst.BaseSuite, cst.BaseCompoundStatement, cst.BaseExpression, cst.BaseSmallStatement):
        kinds = exact_types(abstract)
        assert abstract in kinds
        for node in nodes:
            assert (type(node) in kinds) == isinstance(node, abstract), (abstract, type(node))


@pytest.mark.parametrize("name", ["IndentedBlock", "SimpleStatementSuite"])
def test_suites_are_the_only_base_suites(name: str) -> None:
    # canonical's writer spells BaseSuite as these two exact types
    assert {c.__name__ for c in exact_types(cst.BaseSuite)} == {"BaseSuite", "IndentedBlock", "SimpleStatementSuite"}
    assert getattr(cst, name) in exact_types(cst.BaseSuite)
