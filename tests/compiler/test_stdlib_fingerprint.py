"""Robustness on a large real codebase: every function of (a sample of) the installed standard
library is fingerprinted as if it were a flow (``all_functions=True``), with cross-module closures
followed through its packages. Nothing may raise; no file may come back as an error.

The whole standard library (673 modules, 14,475 functions, closures across all of it) takes
about 55 s on the shared 2-core machine; the suite runs five whole packages plus every 6th
top-level module (141 modules, 3,702 functions), a deterministic sample. It took about 13 s before
the loom-fp/2 widenings; now most of those functions reach the whole sample (a ``compile()``,
``exec`` or computed import anywhere in what they call reaches every module), ~3,200 closure
members each, and it takes 2–4 minutes of CPU (benchmarks/README.md §9, session 8). Run the
full set with ``LOOM_STDLIB_FULL=1 pytest tests/compiler/test_stdlib_fingerprint.py``.
"""

from __future__ import annotations

import os
import sysconfig
from pathlib import Path

import libcst as cst
import pytest

from loom_compiler import LoomConfig, fingerprint_project
from loom_compiler.analysis import _Layout

STDLIB = Path(sysconfig.get_paths()["stdlib"])
PACKAGES = ("email", "json", "asyncio", "importlib", "xml")


def _sample() -> list[Path]:
    if os.environ.get("LOOM_STDLIB_FULL"):
        return [p for p in sorted(STDLIB.iterdir()) if p.suffix == ".py" or (p / "__init__.py").exists()]
    top = sorted(p for p in STDLIB.glob("*.py"))
    return [STDLIB / pkg for pkg in PACKAGES] + top[::6]


@pytest.mark.slow
def test_every_function_of_the_stdlib_sample_fingerprints() -> None:
    config = LoomConfig(
        root=STDLIB,
        packages=PACKAGES if not os.environ.get("LOOM_STDLIB_FULL") else (),
        exclude=("test", "tests", "*/test", "*/tests", "site-packages", "idlelib", "lib2to3/tests"),
    )
    result = fingerprint_project(_sample(), config, all_functions=True)
    errors = [e for e in result.errors if e.code != "duplicate-id"]  # stdlib reuses qualnames across modules
    assert errors == []
    assert len(result.flows) > 3000
    for flow in result.flows:
        assert flow.code_hash == flow.closure[0].hash
        assert flow.code_hash.startswith("sha256:") and len(flow.code_hash) == 71
    # a flow reaching a helper in another stdlib package module is followed there
    modules = {m.module for f in result.flows for m in f.closure if m.kind != "import"}
    assert any(m.startswith("email.") for m in modules)


@pytest.mark.parametrize("name", ["argparse.py", "datetime.py", "json/decoder.py", "email/_header_value_parser.py"])
def test_statement_layout_from_ast_matches_libcst_code_generation(name: str) -> None:
    text = (STDLIB / name).read_text(encoding="utf-8")
    tree = cst.parse_module(text)
    layout = _Layout(tree, text)
    stmts = list(tree.body)
    for stmt in stmts:  # grows: class bodies, nested classes included
        if isinstance(stmt, cst.ClassDef):
            stmts.extend(stmt.body.body)
    assert len(layout.spans) == len(stmts)
    for stmt in stmts:
        assert layout.source(stmt) == layout._codegen(stmt)
