"""Where analysis errors point: positions found from the statement that holds the node equal the
positions of a libcst pass over the whole module (which they replace: that pass cost about two
parses of the module, per module with a nested flow)."""

from __future__ import annotations

import pytest

from loom_compiler import analysis
from loom_compiler.analysis import analyse_module
from loom_compiler.model import SourceError

NESTED = '''"""Tests that declare flows inside functions (as dbos-transact-py's do)."""
from loom_runtime import flow, Context
import loom_runtime as lr

# a comment before the first test


def test_one():
    x = 1

    @flow("a")  # trailing comment
    def inner(ctx: Context) -> int:
        return x


class Suite:
    def test_two(self):
        if True:
            @lr.flow("b")
            async def deeper(ctx):
                return 2

    class Nested:
        def test_three(self):
            @flow(
                "c",
            )
            def wrapped(ctx):
                pass


if __name__ == "__main__":
    @flow("d")
    def in_block(ctx):
        pass

@flow("e", version="one")
def bad_args(ctx):
    pass

def lazy():
    from ....beyond import thing
    return thing
'''


def _variants() -> dict[str, str]:
    four = NESTED
    return {
        "four spaces": four,
        "two spaces": four.replace("    ", "  "),
        "tabs": four.replace("    ", "\t"),
        "crlf": four.replace("\n", "\r\n"),
        "cr": four.replace("\n", "\r"),
        "bom": "\ufeff" + four,
    }


def _errors(source: str) -> tuple[SourceError, ...]:
    summary = analyse_module(source.encode("utf-8"), module="pkg.tests.m", path="pkg/tests/m.py")
    assert not isinstance(summary, SourceError), summary
    return summary.errors


@pytest.mark.parametrize("name", sorted(_variants()))
def test_errors_point_where_a_whole_module_pass_points(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    source = _variants()[name]
    found = _errors(source)
    monkeypatch.setattr(analysis._Layout, "position_within", lambda self, stmt, node: None)
    whole = _errors(source)
    assert found == whole
    codes = sorted(e.code for e in found)
    assert codes.count("flow-nested") == 4 and "flow-args" in codes and "import" in codes, found


def test_nested_flow_errors_name_the_def_line_and_column() -> None:
    by_name = {e.message.split("`")[1]: (e.line, e.column) for e in _errors(NESTED) if e.code == "flow-nested"}
    lines = NESTED.splitlines()
    for name, (line, column) in by_name.items():
        text = lines[line - 1]
        assert text[column - 1:].startswith(("def " + name, "async def " + name)), (name, text)


def test_a_nested_flow_is_located_without_any_position_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    # a nested flow's def is located from CPython's tree (the k-th decorated def of its
    # statement): on dbos-transact-py's tests a libcst pass per statement cost twice the parse
    only_nested = NESTED.split('@flow("e"')[0]  # the other errors are positioned by a pass
    expected = list(_errors(only_nested))

    def no_pass(*args: object, **kwargs: object) -> None:
        raise AssertionError("a libcst position pass ran")

    monkeypatch.setattr(analysis, "MetadataWrapper", no_pass)
    assert list(_errors(only_nested)) == expected and [e.code for e in expected] == ["flow-nested"] * 4


@pytest.mark.parametrize("mismatch", ["one def fewer", "names disagree"])
def test_defs_that_do_not_align_fall_back_to_the_pass(mismatch: str, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = _errors(NESTED)
    real = analysis._ast_decorated_defs

    def off(node, out):  # noqa: ANN001, ANN202
        real(node, out)
        if out and mismatch == "one def fewer":
            out.pop(0)
        elif out:
            out[0] = ("other", 1, 0)

    monkeypatch.setattr(analysis, "_ast_decorated_defs", off)
    assert _errors(NESTED) == expected


def test_a_non_ascii_line_keeps_character_columns() -> None:
    source = NESTED.replace("    def inner(ctx: Context) -> int:", "    def inner(ctx: Context) -> int:  # é ü")
    source = source.replace('async def deeper(ctx):', 'async def deeper(ctx="ß"):')
    by_name = {e.message.split("`")[1]: (e.line, e.column) for e in _errors(source) if e.code == "flow-nested"}
    lines = source.splitlines()
    for name, (line, column) in by_name.items():
        assert lines[line - 1][column - 1:].startswith(("def " + name, "async def " + name))
