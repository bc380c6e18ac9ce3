"""``loom fingerprint``'s whole-project report served from ``.loom-cache`` (``bundle.tree_report``):
printed again, without the pipeline, while every file the run that made it read is unchanged —
and computed again the moment one is not (an edit in the walk, a new module, a file ``exclude``
hides but a flow imports, a tree that moved while it was read, a file that cannot be read)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from loom_compiler.bundle import fingerprint_tree as fingerprint_tree_module
from loom_compiler.cli import main
from loom_compiler.sources import DirectorySourceTree

from helpers.git_repo import copy_project, edit, exec_plug_file

DATA = Path(__file__).parent / "data" / "bundle_shop"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(DATA, tmp_path / "bundle_shop")


@pytest.fixture
def computed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """One entry per run that computed its report through the pipeline (not served)."""
    runs: list[str] = []
    real = fingerprint_tree_module.fingerprint_tree_reads

    def spy(config):  # noqa: ANN001, ANN202
        runs.append(str(config.root))
        return real(config)

    monkeypatch.setattr(fingerprint_tree_module, "fingerprint_tree_reads", spy)
    return runs


def run(project: Path) -> tuple[str, str, int]:
    got = CliRunner().invoke(main, ["fingerprint", str(project)])
    assert got.exception is None or isinstance(got.exception, SystemExit), got.exception
    return got.stdout, got.stderr, got.exit_code


def code_hash(out: str, flow: str) -> str:
    return next(line.split()[3] for line in out.splitlines() if line.split()[0] == flow)


def test_an_unchanged_tree_prints_the_same_report_without_the_pipeline(project: Path, computed: list[str]) -> None:
    first = run(project)
    assert len(computed) == 1 and first[2] == 0 and "checkout" in first[0]
    assert run(project) == first and len(computed) == 1  # served
    assert run(project) == first and len(computed) == 1


def test_a_served_run_imports_neither_the_pipeline_nor_the_model_nor_libcst(project: Path) -> None:
    probe = ("import json, sys\nfrom loom_compiler.cli import main\ntry:\n    main(['fingerprint', sys.argv[1]])\n"
             "except SystemExit:\n    pass\nprint(json.dumps(sorted(m for m in sys.modules if m in "
             "('libcst', 'loom_compiler.model', 'loom_compiler.bundle.build', 'loom_runtime.manifest'))), file=sys.stderr)")
    env = {k: v for k, v in os.environ.items() if k != "COVERAGE_PROCESS_START"}

    def loaded() -> list[str]:
        done = subprocess.run([sys.executable, "-c", probe, str(project)], capture_output=True, text=True, env=env, check=True)
        return json.loads(done.stderr.strip().splitlines()[-1])

    assert {"libcst", "loom_compiler.bundle.build", "loom_compiler.model"} <= set(loaded())  # computed: parses
    assert loaded() == []  # served


def test_an_edit_a_new_module_and_a_removed_one_are_reported_afresh(project: Path, computed: list[str]) -> None:
    first = run(project)
    edit(project / "shop/util.py", "return 1", "return 3")  # reached by checkout
    edited = run(project)
    assert len(computed) == 2 and code_hash(edited[0], "checkout") != code_hash(first[0], "checkout")
    (project / "shop/more.py").write_text('from loom_runtime import flow\n\n\n@flow("more")\ndef more(ctx, x):\n    return x\n')
    added = run(project)
    assert len(computed) == 3 and "more" in added[0].split()
    (project / "shop/more.py").unlink()
    assert run(project) == edited and len(computed) == 3  # the edited tree again: its report is kept


def test_a_file_exclude_hides_but_a_flow_imports_is_checked_too(project: Path, computed: list[str]) -> None:
    # shop/vendored.py is outside the walk (exclude) yet the flow's closure reads it: a report
    # keyed by the walk alone would be served stale after it changes
    (project / "pyproject.toml").write_text(
        (project / "pyproject.toml").read_text() + 'exclude = ["shop/vendored.py"]\n')
    (project / "shop/vendored.py").write_text("def bonus() -> int:\n    return 1\n")
    edit(project / "shop/flows.py", "import shop.util as u\n", "import shop.util as u\nfrom shop.vendored import bonus\n")
    edit(project / "shop/flows.py", "+ u.fee(0)", "+ u.fee(0) + bonus()")
    first = run(project)
    assert first[2] == 0 and run(project) == first and len(computed) == 1
    edit(project / "shop/vendored.py", "return 1", "return 2")
    second = run(project)
    assert len(computed) == 2 and code_hash(second[0], "checkout") != code_hash(first[0], "checkout")
    assert run(project) == second and len(computed) == 2


def test_errors_and_the_exit_status_are_served_as_they_were_printed(project: Path, computed: list[str]) -> None:
    path = project / "shop/refunds.py"
    path.write_text(path.read_text() + "\n\ndef broken(:\n    pass\n")  # a syntax error in a flow module
    first = run(project)
    assert first[2] == 1 and "error: " in first[1] and "1 error(s)" in first[1]
    assert run(project) == first and len(computed) == 1


def test_a_tree_that_moved_while_it_was_read_is_not_served(project: Path, computed: list[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    first = run(project)
    monkeypatch.setattr(DirectorySourceTree, "changed", lambda self: ("shop/util.py",))
    assert run(project)[0] == first[0] and len(computed) == 2  # read again by the pipeline, which reports it


def test_a_tree_with_an_unreadable_module_is_never_stored(project: Path, computed: list[str]) -> None:
    os.mkfifo(project / "shop/stuck.py")  # a FIFO is refused, never waited on
    first = run(project)
    assert first[2] == 1 and "stuck.py" in first[1]
    assert run(project) == first and len(computed) == 2


def test_a_file_whose_code_a_flow_runs_is_checked_too(project: Path, computed: list[str]) -> None:
    """F10: a project file that is no module, executed by a helper (``exec(open(...).read())``), is
    hashed by its bytes outside the walk: an edit to it is reported afresh, never served."""
    exec_plug_file(project)
    first = run(project)
    assert run(project) == first and len(computed) == 1  # served
    (project / "shop/plug.txt").write_text("V = 2\n")
    edited = run(project)
    assert len(computed) == 2 and code_hash(edited[0], "checkout") != code_hash(first[0], "checkout")
