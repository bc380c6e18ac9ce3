"""Snapshots of every ``loom diff`` / ``loom check`` output format over one fixed change set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from loom_compiler.cli import main
from loom_compiler.config import load_config
from loom_compiler.review import check_diff, render_check, render_diff, review_diff

from helpers.git_repo import edit, git


@pytest.fixture
def diff(repo: Path):
    """checkout (a helper, a constant, its declared steps and a dropped step call) and refund (the
    helper and the constant) changed, one flow added. Comment and formatting edits ride along
    (beside the constant, inside the helper, and alone in shop.util.fee): none may show."""
    edit(repo / "shop/pricing.py", "math.floor(total", "math.ceil(total")
    edit(repo / "shop/pricing.py", "# floor, so a customer never pays", "# ceil: a customer never pays")
    edit(repo / "shop/pricing.py", "RATE = 90  # percent kept after the discount", "RATE = 92  # percent kept (raised)")
    edit(repo / "shop/util.py", "    return 1\n", "    # flat\n    return (1)\n")
    edit(repo / "shop/flows.py", 'steps=["reserve", "charge", "ship"]', 'steps=["reserve", "charge", "ship", "notify"]')
    edit(repo / "shop/flows.py", '    ctx.execute("ship", ship, order["id"])\n', "")
    (repo / "shop/late.py").write_text('from loom_runtime import flow\n\n\n@flow("late")\ndef late(ctx, x):\n    return x\n')
    return review_diff(load_config(repo), base="v1")


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "github"])
def test_diff_formats(diff, fmt: str, snapshot):
    snapshot.assert_match(render_diff(diff, fmt) + "\n", f"diff.{fmt}")


def test_text_is_coloured_only_when_asked(diff, snapshot):
    coloured = render_diff(diff, "text", colour=True)
    assert "\x1b[33mchanged" in coloured and "\x1b[" not in render_diff(diff, "text")
    snapshot.assert_match(coloured + "\n", "diff.ansi")


def test_github_paths_are_relative_to_the_repository_top(diff):
    out = render_diff(diff, "github", path_prefix="services/shop/")
    assert "::warning file=services/shop/shop/refunds.py,line=16,title=loom%3A flow refund changed::" in out


def test_github_escapes_workflow_command_data():
    from loom_compiler.review.render import _command

    line = _command("warning", "50% off\nnext", file="a,b:c.py", line=3, title="t: x", prefix="")
    assert line == "::warning file=a%2Cb%3Ac.py,line=3,title=t%3A x::50%25 off%0Anext"


@pytest.mark.parametrize("fmt", ["text", "github"])
def test_check_formats(diff, fmt: str, snapshot):
    report = check_diff(diff, manifest=None, manifest_label="build/loom/manifest.json")
    snapshot.assert_match(render_check(report, fmt) + "\n", f"check.{fmt}")


def test_cli_diff_markdown_matches_the_library(repo: Path, diff):
    result = CliRunner().invoke(main, ["diff", str(repo), "--base", "v1", "--format", "markdown"])
    assert result.exit_code == 0
    assert result.stdout == render_diff(diff, "markdown") + "\n"


def test_repository_prefix_is_the_project_directory_inside_git(repo: Path, tmp_path: Path):
    from loom_compiler.review import repository_prefix

    assert repository_prefix(repo) == ""
    assert repository_prefix(repo / "shop") == "shop/"
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    assert repository_prefix(outside) == ""


def test_every_format_says_the_base_could_not_be_read_completely(repo: Path):
    # a flow module broken at the base: its flow looks "new"; every format must say why
    (repo / "shop/late.py").write_text('from loom_runtime import flow\n\n\n@flow("late")\ndef late(ctx, x:\n    return x\n')
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "broken")
    git(repo, "tag", "broken")
    (repo / "shop/late.py").write_text('from loom_runtime import flow\n\n\n@flow("late")\ndef late(ctx, x):\n    return x\n')
    diff = review_diff(load_config(repo), base="broken")
    (warning,) = diff.warnings
    assert warning.startswith("broken: shop/late.py:5:") and "syntax error" in warning
    assert f"warning: {warning}" in render_diff(diff, "text")
    assert warning in json.loads(render_diff(diff, "json"))["warnings"]
    assert "**Warnings**" in render_diff(diff, "markdown") and "shop/late.py:5:" in render_diff(diff, "markdown")
    assert "::warning title=loom%3A base::broken: shop/late.py:5:" in render_diff(diff, "github")
