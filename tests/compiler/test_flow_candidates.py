"""Which files are parsed: a file that declares no flow and that no closure reaches is read and
hashed as bytes, never given to libcst, even when its docstrings or comments spell a flow
decorator (``precheck.spells_a_marker_in_code`` after the byte check)."""

from __future__ import annotations

from pathlib import Path

import pytest

from loom_compiler.bundle.build import build_project
from loom_compiler.bundle.fingerprint_tree import fingerprint_tree
from loom_compiler.config import load_config
from loom_compiler.fingerprint import fingerprint_project
from loom_compiler.precheck import might_define_flows, spells_a_marker_in_code

from helpers.git_repo import copy_project

DATA = Path(__file__).parent / "data" / "bundle_shop"

DOCS_ONLY = '''"""How to write a flow: decorate it with @flow("id") (see loom_runtime.flow)."""

# @flow in a comment declares nothing either


def helper() -> str:
    return "use @flow(...) on a module-level function"
'''


@pytest.mark.parametrize("source, spells", [
    (DOCS_ONLY, False),
    ("x = 1  # @flow\n", False),
    ("from loom_runtime import flow as durable\n\n@durable('a')\ndef f(ctx): ...\n", True),
    ("import loom_runtime as lr\n\n@lr.flow('a')\ndef f(ctx): ...\n", True),
    ("from loom_runtime import *\n\n@flow('a')\ndef f(ctx): ...\n", True),
    ("def test():\n    @flow('nested')\n    def inner(ctx): ...\n", True),  # reported as nested: must be parsed
    ("@flow('a')\ndef broken(:\n", True),  # a syntax error: parsed, so it is reported
])
def test_a_flow_decorator_counts_only_where_code_spells_it(source: str, spells: bool) -> None:
    data = source.encode()
    assert might_define_flows(data, None)  # the byte check lets every one of them through
    assert spells_a_marker_in_code(data, None) is spells


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = copy_project(DATA, tmp_path / "bundle_shop")
    (root / "shop/guide.py").write_text(DOCS_ONLY)  # reached by nothing
    return root


@pytest.mark.parametrize("how", ["build", "fingerprint_tree", "fingerprint_project"])
def test_an_unreached_module_that_only_talks_about_flows_is_never_parsed(project: Path, parsed: list[str], how: str) -> None:
    config = load_config(project)
    run = {"build": build_project, "fingerprint_tree": fingerprint_tree,
           "fingerprint_project": lambda c: fingerprint_project([project], c)}[how]
    result = run(config)
    assert not result.errors and {f.flow_id for f in result.flows} == {"checkout", "refund"}
    assert "shop.guide" not in parsed and "shop.flows" in parsed


def test_the_same_module_is_parsed_once_a_closure_reaches_it(project: Path, parsed: list[str]) -> None:
    flows = project / "shop/flows.py"
    flows.write_text(flows.read_text().replace("LIMIT = 3", "from shop.guide import helper\n\nLIMIT = 3")
                     .replace('    ctx.execute("reserve", reserve, order["sku"])',
                              '    ctx.execute("reserve", reserve, order["sku"] + helper())'))
    config = load_config(project)
    report = build_project(config)
    assert report.ok, report.errors
    assert "shop.guide" in parsed
    checkout = next(f for f in report.flows if f.flow_id == "checkout")
    assert "shop.guide.helper" in {m.qualname for m in checkout.closure}
    # and it is the closure's: editing the helper moves the flow
    (project / "shop/guide.py").write_text(DOCS_ONLY.replace('return "use', 'return "do use'))
    again = build_project(config)
    assert next(f for f in again.flows if f.flow_id == "checkout").code_hash != checkout.code_hash


def test_a_nested_flow_in_a_test_module_is_still_reported(project: Path) -> None:
    (project / "shop/test_nested.py").write_text(
        "from loom_runtime import flow\n\n\ndef test_x():\n    @flow('inner')\n    def inner(ctx):\n        pass\n")
    config = load_config(project)
    for run in (build_project, fingerprint_tree):
        errors = run(config).errors
        assert [(e.path, e.line, e.code) for e in errors] == [("shop/test_nested.py", 6, "flow-nested")]
