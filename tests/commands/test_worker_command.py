"""``loom worker MODULE:ATTR``: finding the Runtime, and what it prints (a progress line per drive on
a terminal, one JSON object per line otherwise). Serving itself is tested in tests/runtime."""

from __future__ import annotations

import json
import sys

import click
import pytest
from click.testing import CliRunner

from loom_compiler.cli import main
from loom_compiler.commands.worker import _Reporter, load_runtime


@pytest.fixture
def service(tmp_path, monkeypatch):
    (tmp_path / "svc_cli.py").write_text(
        "from loom_runtime import Runtime\n"
        "runtime = Runtime()\n"
        "def make():\n    return Runtime()\n"
        "not_a_runtime = 42\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    sys.modules.pop("svc_cli", None)


def test_the_target_is_a_runtime_or_a_callable_returning_one(service):
    assert load_runtime("svc_cli:runtime").worker_id
    assert load_runtime("svc_cli:make").worker_id


@pytest.mark.parametrize("target, message", [
    ("svc_cli", "expected MODULE:ATTR"),
    ("no_such_module_xyz:runtime", "cannot import `no_such_module_xyz`"),
    ("svc_cli:missing", "has no attribute `missing`"),
    ("svc_cli:not_a_runtime", "is int, not a loom_runtime.Runtime"),
])
def test_a_bad_target_exits_2_with_a_clear_message(service, target, message):
    result = CliRunner().invoke(main, ["worker", target])
    assert result.exit_code == 2 and message in result.output


def test_a_terminal_gets_a_progress_line_per_drive(capsys):
    report = _Reporter(terminal=True)
    report({"event": "drive", "executionId": "o-17", "flowId": "checkout", "status": "completed", "gate": None,
            "error": None, "seconds": 0.42, "worker": "w1"})
    report({"event": "drive", "executionId": "o-18", "flowId": "checkout", "status": "suspended",
            "gate": "manager-approval", "error": None, "seconds": 0.1, "worker": "w1"})
    report({"event": "drive", "executionId": "o-19", "flowId": "checkout", "status": "failed", "gate": None,
            "error": {"type": "ValueError", "message": "bad sku"}, "seconds": 0.2, "worker": "w1"})
    lines = click.unstyle(capsys.readouterr().out).splitlines()
    assert [line.split()[1:4] for line in lines] == [["completed", "checkout", "o-17"],
                                                     ["suspended", "checkout", "o-18"],
                                                     ["failed", "checkout", "o-19"]]
    assert lines[0].endswith("0.42s") and lines[1].endswith("manager-approval") and lines[2].endswith("ValueError: bad sku")


def test_otherwise_one_json_object_per_line(capsys):
    report = _Reporter(terminal=False)
    report({"event": "drive", "executionId": "o-17", "flowId": "checkout", "status": "completed", "gate": None,
            "error": None, "seconds": 0.42, "worker": "w1"})
    report({"event": "stopped", "driven": 1, "worker": "w1"})
    docs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [d["event"] for d in docs] == ["drive", "stopped"]
    assert docs[0]["executionId"] == "o-17" and docs[0]["status"] == "completed" and isinstance(docs[0]["ts"], float)
