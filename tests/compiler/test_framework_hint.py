"""A scan that finds no flow says which framework the tree's flows are written for
(``framework_hint``): a DBOS or Temporal service fingerprinted with the default profile would
otherwise report "0 flows" and exit 0, and deploy with no fingerprint at all."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from helpers.project_files import write_files
from loom_compiler.cli import main

DBOS_APP = ("from dbos import DBOS\n\n\n@DBOS.step()\ndef charge(n):\n    return n\n\n\n"
            "@DBOS.workflow()\ndef checkout(n):\n    return charge(n)\n")
TEMPORAL_APP = ("from temporalio import workflow\n\n\n@workflow.defn\nclass Greeting:\n"
                "    @workflow.run\n    async def run(self, name: str) -> str:\n        return name\n")


def project(root: Path, files: dict[str, str], table: str = "") -> Path:
    write_files(root, {"pyproject.toml": '[project]\nname = "svc"\n' + table, "svc/__init__.py": "", **files})
    return root


def hints(output: str) -> list[str]:
    return [line for line in output.splitlines() if "no flow found with framework" in line]


def test_fingerprint_names_the_framework_and_the_module_when_no_flow_is_found(tmp_path: Path):
    root = project(tmp_path / "p", {"svc/main.py": DBOS_APP, "svc/util.py": "X = 1\n"})
    for args in (["fingerprint", str(root)], ["fingerprint", "--json", str(root)], ["fingerprint", str(root / "svc")]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        [hint] = hints(result.output)
        assert 'framework = "dbos"' in hint and "svc/main.py" in hint and "dbos.DBOS.workflow" in hint, hint
        assert "1 module(s)" in hint  # util.py spells no DBOS decorator
    # asked for the right profile: the flow is found and nothing is hinted
    result = CliRunner().invoke(main, ["fingerprint", "--framework", "dbos", str(root)])
    assert result.exit_code == 0 and "svc.main:checkout" in result.output and not hints(result.output)


def test_a_served_report_and_a_served_build_say_it_again(tmp_path: Path):
    root = project(tmp_path / "p", {"svc/main.py": TEMPORAL_APP})
    for _ in range(2):  # the second run is served from .loom-cache: the hint is part of what is kept
        result = CliRunner().invoke(main, ["fingerprint", str(root)])
        [hint] = hints(result.output)
        assert 'framework = "temporal"' in hint and "temporalio.workflow.run" in hint
    for _ in range(2):  # a first build, then one served from the build record
        result = CliRunner().invoke(main, ["build", str(root)])
        assert result.exit_code == 0, result.output
        [hint] = hints(result.output)
        assert hint.startswith("loom build: ") and 'framework = "temporal"' in hint


def test_no_hint_without_the_engine_import_or_when_a_flow_is_found(tmp_path: Path):
    # the decorator's words without the engine's import (a comment, another library's `workflow`)
    quiet = project(tmp_path / "quiet", {"svc/main.py": "# see DBOS docs: @DBOS.workflow()\nimport workflow\n\n"
                                                        "@workflow.run\ndef f():\n    pass\n"})
    result = CliRunner().invoke(main, ["fingerprint", str(quiet)])
    assert result.exit_code == 0 and not hints(result.output), result.output
    # one loom flow found: the other module's DBOS workflow is not this command's business
    mixed = project(tmp_path / "mixed", {
        "svc/main.py": DBOS_APP,
        "svc/flows.py": 'from loom_runtime import flow\n\n\n@flow("f")\ndef f(ctx):\n    return 1\n'})
    result = CliRunner().invoke(main, ["fingerprint", str(mixed)])
    assert result.exit_code == 0 and "svc.flows" not in hints(result.output) and not hints(result.output)
    # the configured profile is dbos and finds nothing: the Temporal module is named instead
    other = project(tmp_path / "other", {"svc/main.py": TEMPORAL_APP}, '[tool.loom]\nframework = "dbos"\n')
    [hint] = hints(CliRunner().invoke(main, ["fingerprint", str(other)]).output)
    assert 'with framework "dbos"' in hint and 'framework = "temporal"' in hint
