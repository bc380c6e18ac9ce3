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
