"""``loom fingerprint``/``loom build`` where no ``[tool.loom]`` applies, e.g. at a repository root
that holds tests and benchmarks with copies of the flows: one line says so (which root was scanned,
which packages), and each duplicate id is reported once, not once per site."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from loom_compiler.cli import main
from loom_compiler.config import load_config, scan_notice

FLOW = 'from loom_runtime import flow\n\n@flow("checkout")\ndef checkout(ctx):\n    return 1\n'


def repository(root: Path, *, table: str = "") -> Path:
    """A repository root: the service, and two test copies of its flow."""
    files = {
        "pyproject.toml": '[project]\nname = "svc"\n' + table,
        "svc/__init__.py": "",
        "svc/flows.py": FLOW,
        "tests/data/v1/svc/flows.py": FLOW,
        "benchmarks/copy/flows.py": FLOW,
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_the_notice_names_the_pyproject_the_root_and_the_packages(tmp_path: Path):
    root = repository(tmp_path / "repo")
    notice = scan_notice(load_config(root), "loom fingerprint")
    assert notice is not None
    assert f"{root / 'pyproject.toml'} has no [tool.loom] table" in notice
    assert f"every Python file under {root}" in notice
    assert "packages: none, so every module counts as first-party" in notice
    assert '[tool.loom] packages = ["yourpkg"]' in notice
    bare = tmp_path / "bare"
    bare.mkdir()
    assert "no pyproject.toml found from" in scan_notice(load_config(bare), "loom build")
    configured = repository(tmp_path / "configured", table='[tool.loom]\npackages = ["svc"]\n')
    assert scan_notice(load_config(configured), "loom build") is None
    # an empty table is a choice too: the defaults were asked for
    empty = repository(tmp_path / "empty", table="[tool.loom]\n")
    assert scan_notice(load_config(empty), "loom build") is None


def test_fingerprint_at_a_repository_root_says_what_it_scanned_and_reports_the_duplicate_once(tmp_path: Path):
    root = repository(tmp_path / "repo")
    result = CliRunner().invoke(main, ["fingerprint", str(root)])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert sum("has no [tool.loom] table" in line for line in lines) == 1
    duplicate = [line for line in lines if "flow id `checkout` is declared 3 times" in line]
    assert len(duplicate) == 1, result.output  # it was printed once per site: 3 times the same list
    assert "benchmarks/copy/flows.py:4:1" in duplicate[0] and "tests/data/v1/svc/flows.py:4:1" in duplicate[0]
    assert "[tool.loom] exclude" in duplicate[0]
    assert "1 error(s)" in result.output
    as_json = CliRunner().invoke(main, ["fingerprint", str(root), "--json"])
    doc = json.loads(as_json.stdout)  # the notice goes to stderr: stdout stays one JSON document
    assert [e["message"].split(":")[0] for e in doc["errors"]] == ["flow id `checkout` is declared 3 times"]


def test_build_at_a_repository_root_says_so_and_a_loom_table_fixes_it(tmp_path: Path):
    root = repository(tmp_path / "repo")
    result = CliRunner().invoke(main, ["build", str(root)])
    assert result.exit_code == 1
    assert result.output.count("has no [tool.loom] table") == 1
    assert result.output.count("is declared 3 times") == 1
    (root / "pyproject.toml").write_text('[project]\nname = "svc"\n[tool.loom]\npackages = ["svc"]\n'
                                         'exclude = ["tests/**", "benchmarks/**"]\n')
    fixed = CliRunner().invoke(main, ["build", str(root)])
    assert fixed.exit_code == 0, fixed.output
    assert "[tool.loom]" not in fixed.output and "1 flow (1 new), 1 new version" in fixed.output



def test_a_flow_under_a_directory_python_cannot_import_is_named_with_the_project_to_build(tmp_path: Path):
    """The folder holding several projects (``widget-store/widget_store/main.py``, as in
    dbos-demo-apps): the tree names the module ``widget-store.widget_store.main``, which no process
    imports. The build said "not valid Python on its own ... a loom bug"; the fingerprint printed a
    hash whose id and absolute imports assume the wrong root, and said nothing."""
    files = {"widget-store/widget_store/__init__.py": "", "widget-store/widget_store/main.py": FLOW,
             "widget_ok/__init__.py": "", "widget_ok/main.py": FLOW.replace('"checkout"', '"ok"')}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    advice = ("`widget-store` is not an identifier", "run loom in the project that holds it", "`widget-store`")
    result = CliRunner().invoke(main, ["build", str(tmp_path)])
    assert result.exit_code == 1, result.output
    [error] = [line for line in result.output.splitlines() if "cannot be bundled" in line]
    assert error.startswith("widget-store/widget_store/main.py:4:1: flow `checkout`"), error
    assert all(a in error for a in advice) and "loom bug" not in result.output
    # fingerprinted with a warning at the flow (the hash is printed: nothing is lost)
    result = CliRunner().invoke(main, ["fingerprint", str(tmp_path)])
    assert result.exit_code == 0, result.output
    [warning] = [line for line in result.output.splitlines() if "cannot import" in line]
    assert warning.startswith("warning: widget-store/widget_store/main.py:4:1: flow `checkout`"), warning
    assert all(a in warning for a in advice)
    assert "widget_ok" not in warning
    # the same flow built in the project it belongs to: no warning, a chunk
    result = CliRunner().invoke(main, ["build", str(tmp_path / "widget-store")])
    assert result.exit_code == 0 and "cannot" not in result.output, result.output


def test_a_flow_in_a_file_named_with_a_dot_is_reported_and_hides_no_module(tmp_path: Path):
    """breakT's T9: ``shop.flows.py`` at the root was named ``shop.flows``, came first in the walk
    and hid ``shop/flows.py``: 0 flows, exit 0. Now the real module's flow is found, and the flow of
    the dotted file (importable by no name) is warned on and refused by the build, saying so."""
    files = {"pyproject.toml": '[tool.loom]\npackages = ["shop"]\n', "shop/__init__.py": "",
             "shop/flows.py": FLOW, "shop.flows.py": FLOW.replace('"checkout"', '"old"')}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    result = CliRunner().invoke(main, ["fingerprint", str(tmp_path), "--json"])
    doc = json.loads(result.stdout)
    assert sorted((f["id"], f["path"]) for f in doc["flows"]) == [("checkout", "shop/flows.py"), ("old", "shop.flows.py")]
    result = CliRunner().invoke(main, ["build", str(tmp_path)])
    assert result.exit_code == 1, result.output
    [error] = [line for line in result.output.splitlines() if "cannot be bundled" in line]
    assert error.startswith("shop.flows.py:4:1: flow `old`") and "`shop.flows` holds a dot" in error, error
    assert "[tool.loom] exclude" in error
