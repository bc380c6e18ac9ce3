"""``loom build`` warns about step ids a flow executes that ``steps=``/``step_families=`` do not
declare (an error under ``[tool.loom.check] strict = true``), with file:line:column."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from loom_compiler import fingerprint_module
from loom_compiler.bundle.build import build_project
from loom_compiler.cli import main
from loom_compiler.config import load_config
from loom_compiler.step_ids import step_id_calls, undeclared_step_ids

HEAD = "import re\nfrom loom_runtime import flow, step\nfrom app.steps import a, b\n\n"


def problems(source: str) -> list[tuple[int, int, str]]:
    result = fingerprint_module(HEAD + source, module="app.flows", path="app/flows.py")
    assert not result.errors, result.errors
    return [(e.line, e.column, e.message) for f in result.flows for e in undeclared_step_ids(f)]


def test_a_literal_id_the_declaration_lacks_is_reported_at_its_position():
    found = problems('@flow("f", steps=["a"])\ndef f(ctx):\n    ctx.execute("a", a)\n    ctx.execute("b", b)\n')
    assert [(line, col) for line, col, _ in found] == [(8, 17)]
    message = found[0][2]
    assert 'flow `f` executes step id "b"' in message and "steps=['a']" in message and 'add "b" to steps' in message


@pytest.mark.parametrize("call, declared", [
    ('ctx.execute(f"it#{i}", a)', 'steps=["a"]'),                        # family `it` undeclared
    ('ctx.execute(f"pack{i}", a)', 'steps=["a"], step_families=["pack"]'),  # no `#`: no family at all
    ('ctx.parallel([("p", a), ("a", a)])', 'steps=["a"]'),               # an explicit parallel branch
    ('ctx.execute("charge#2", a)', 'steps=["a"], step_families=["pack"]'),
    ('ctx.execute("tool-x", a)', 'steps=["a"], step_families=[re.compile(r"tool-\\d+")]'),
])
def test_undeclared_ids_of_every_shape_are_reported(call: str, declared: str):
    found = problems(f'@flow("f", {declared})\ndef f(ctx):\n    for i in range(2):\n        {call}\n')
    assert len(found) == 1, found
    assert found[0][0] == 8


@pytest.mark.parametrize("call, declared", [
    ('ctx.execute(f"pack#{i}", a)', 'steps=["a"], step_families=["pack"]'),
    ('ctx.execute(f"agent#turn:{i}", a)', 'steps=["agent"]'),            # a declared step is its own family
    ('ctx.execute("pack#7", a)', 'steps=["a"], step_families=["pack"]'),
    ('ctx.execute("tool-12", a)', 'steps=["a"], step_families=[re.compile(r"tool-\\d+")]'),
    ('ctx.execute(f"tool-{i}", a)', 'steps=["a"], step_families=[re.compile(r"tool-\\d+")]'),  # cannot tell
    ('ctx.execute(name, a)', 'steps=["a"]'),                              # computed: the runtime judges it
    ('cursor.execute("SELECT 1", a)', 'steps=["a"]'),                     # a local, not the context
    ('ctx.execute("b", a)', ''),                                          # nothing declared: opted out
])
def test_declared_computed_and_foreign_calls_are_not_reported(call: str, declared: str):
    body = f'@flow("f", {declared})\ndef f(ctx):\n    name, cursor = "x", None\n    for i in range(2):\n        {call}\n'
    assert problems(body) == []


def test_a_helper_reached_from_the_flow_and_a_method_flow_keep_their_file_positions():
    source = (
        "def helper(ctx):\n"
        '    ctx.execute("h", a)\n'
        "\n"
        "class Shop:\n"
        "    # a comment above the decorator\n"
        '    @flow("m", steps=["a"])\n'
        "    def run(self, ctx):\n"
        '        self.ctx.execute("é-b", a)\n'
        "        helper(ctx)\n"
    )
    found = problems(source)
    assert [(line, col) for line, col, _ in found] == [(6, 17), (12, 26)]
    assert "(in app.flows.helper, reached from the flow)" in found[0][2]


def test_positions_map_back_through_decorators_and_comments():
    source = '@flow("f", steps=["a"])\n# why\ndef f(ctx):\n    ctx.execute("zz", a)\n'
    (call,) = step_id_calls(source, def_line=10)
    assert (call.prefix, call.line, call.column) == ("zz", 11, 17)


def test_a_method_name_spelled_with_compatibility_characters_is_still_read():
    # NFKC makes ``ｅxecute`` (fullwidth e) the attribute ``execute``: a text check that skips
    # sources not spelling "execute" must not skip this one
    source = 'def f(ctx):\n    ctx.\uff45xecute("zz", a)\n'
    assert [c.prefix for c in step_id_calls(source, def_line=1)] == ["zz"]
    assert list(step_id_calls('def f(ctx):\n    return ctx\n', def_line=1)) == []


# -- loom build ------------------------------------------------------------------------------------

UNDECLARED = (
    "from loom_runtime import flow\nfrom app.steps import a\n\n"
    '@flow("f", steps=["a"])\ndef f(ctx):\n    ctx.execute("a", a)\n    ctx.execute("b", a)\n'
)


def project(root: Path, strict: bool | None = None) -> Path:
    check = "" if strict is None else f"\n[tool.loom.check]\nstrict = {'true' if strict else 'false'}\n"
    (root / "app").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.loom]\npackages = ["app"]\n' + check)
    (root / "app/__init__.py").write_text("")
    (root / "app/steps.py").write_text("from loom_runtime import step\n\n@step\ndef a():\n    return 1\n")
    (root / "app/flows.py").write_text(UNDECLARED)
    return root


def test_build_warns_with_the_location_and_still_writes(tmp_path: Path):
    root = project(tmp_path / "p")
    result = CliRunner().invoke(main, ["build", str(root), "--no-cache"])
    assert result.exit_code == 0, result.output
    assert 'warning: app/flows.py:7:17: flow `f` executes step id "b"' in result.output
    assert "[tool.loom.check] strict = true makes this an error" in result.output
    assert (root / "build/loom/manifest.json").is_file()
    # served from the cache, the warning is still there (it is part of the cached flow result)
    again = CliRunner().invoke(main, ["build", str(root)])
    assert 'app/flows.py:7:17: flow `f` executes step id "b"' in again.output


def test_strict_makes_it_an_error_and_nothing_is_written(tmp_path: Path):
    root = project(tmp_path / "p", strict=True)
    report = build_project(load_config(root))
    assert not report.ok and report.manifest is None
    (error,) = report.errors
    assert (error.path, error.line, error.column, error.code) == ("app/flows.py", 7, 17, "undeclared-step")
    assert not (root / "build/loom/manifest.json").exists()
    (root / "app/flows.py").write_text(UNDECLARED.replace('steps=["a"]', 'steps=["a", "b"]'))
    assert build_project(load_config(root)).ok  # declared: clean


def test_strict_must_be_a_boolean(tmp_path: Path):
    root = project(tmp_path / "p")
    (root / "pyproject.toml").write_text('[tool.loom]\npackages = ["app"]\n[tool.loom.check]\nstrict = "yes"\n')
    result = CliRunner().invoke(main, ["build", str(root)])
    assert result.exit_code == 2 and "tool.loom.check.strict" in result.output and "true or false" in result.output


def test_a_deeply_nested_flow_body_is_read_not_a_recursion_error(tmp_path: Path):
    # a 700-term sum is a 700-deep tree: the recursive visitor that read the step ids raised
    # RecursionError out of `loom build` (a traceback); the walk is iterative
    root = project(tmp_path / "p")
    total = " + ".join(f"x{i % 7}" for i in range(700))
    (root / "app/flows.py").write_text(
        "from loom_runtime import flow\nfrom app.steps import a\n\n\n"
        '@flow("f", steps=["a"])\ndef f(ctx, x0, x1, x2, x3, x4, x5, x6):\n'
        f'    ctx.execute("b", a, {total})\n    return ctx.execute("a", a)\n')
    report = build_project(load_config(root), jobs=1)
    assert report.ok, [str(e) for e in report.errors]
    assert [w for w in report.warnings if 'executes step id "b"' in w and "app/flows.py:7:17" in w]
