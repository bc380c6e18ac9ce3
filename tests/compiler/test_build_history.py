"""``--from-git`` and ``[tool.loom] history`` against a real git repository."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from loom_compiler.bundle.build import build_project
from loom_compiler.cli import main
from loom_compiler.config import load_config

from helpers.git_repo import BUNDLE_SHOP, edit, git, repo_from


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = repo_from(BUNDLE_SHOP, tmp_path / "repo")
    # a pristine build of v1, to compare the history build against
    shutil.copytree(root, tmp_path / "v1-checkout", ignore=shutil.ignore_patterns(".git"))
    edit(root / "shop/pricing.py", "RATE = 90", "RATE = 70")
    git(root, "commit", "-q", "-am", "v2")
    git(root, "tag", "v2")
    edit(root / "shop/pricing.py", "RATE = 70", "RATE = 10")  # uncommitted work
    return root


def test_from_git_adds_the_versions_of_a_ref_exactly_as_a_build_of_that_ref(repo: Path, tmp_path: Path):
    status = git(repo, "status", "--porcelain")
    report = build_project(load_config(repo), from_git=["v1"])
    assert report.ok, report.errors
    assert git(repo, "status", "--porcelain") == status  # nothing checked out over the work tree
    assert (repo / "shop/pricing.py").read_text().count("RATE = 10") == 1

    v1 = build_project(load_config(tmp_path / "v1-checkout"))
    for flow_id in ("checkout", "refund"):
        flow = report.manifest.flows[flow_id]
        v1_hash = v1.manifest.flows[flow_id].current
        assert set(flow.versions) == {v1_hash, flow.current} and flow.current != v1_hash
        ours, theirs = flow.versions[v1_hash], v1.manifest.flows[flow_id].versions[v1_hash]
        assert ours == theirs
        assert (repo / "build/loom" / ours.chunk).read_bytes() == (tmp_path / "v1-checkout/build/loom" / theirs.chunk).read_bytes()
    chunk = (repo / "build/loom" / report.manifest.flows["checkout"].versions[v1.manifest.flows["checkout"].current].chunk)
    assert "RATE = 90" in chunk.read_text()


def test_history_in_pyproject_and_a_flow_only_in_history(repo: Path):
    (repo / "shop/refunds.py").unlink()
    edit(repo / "pyproject.toml", 'packages = ["shop"]', 'packages = ["shop"]\nhistory = ["v1", "v2"]')
    report = build_project(load_config(repo))
    assert report.ok, report.errors
    refund = report.manifest.flows["refund"]
    assert refund.removed and refund.current is None and len(refund.versions) == 2
    assert len(report.manifest.flows["checkout"].versions) == 3
    # a rebuild with the same history is a no-op
    again = build_project(load_config(repo))
    assert again.written == () and again.new_versions == ()


def test_cli_from_git_is_repeatable_and_a_bad_ref_is_a_usage_error(repo: Path):
    result = CliRunner().invoke(main, ["build", str(repo), "--from-git", "v1", "--from-git", "v2"])
    assert result.exit_code == 0, result.output
    assert "4 new versions" not in result.output and "6 new versions" in result.output
    result = CliRunner().invoke(main, ["build", str(repo), "--from-git", "v9"])
    assert result.exit_code == 2
    assert "--from-git: cannot resolve git ref 'v9'" in result.output


def test_a_broken_file_at_a_ref_is_a_warning_not_an_error(repo: Path):
    edit(repo / "shop/util.py", "return 1", "return (1")
    git(repo, "commit", "-q", "-m", "broken", "--", "shop/util.py")
    git(repo, "tag", "broken")
    edit(repo / "shop/util.py", "return (1", "return 1")
    report = build_project(load_config(repo), from_git=["broken"])
    assert report.ok
    assert any(w.startswith("broken: shop/util.py:") for w in report.warnings)
    # the flow that did not reach the broken file still got its version from that ref
    assert len(report.manifest.flows["refund"].versions) == 2


def test_the_summary_counts_each_tree_s_modules_once_and_says_where_versions_came_from(repo: Path):
    # The line used to sum cache hits over every lookup of every tree (``1 module parsed, 7 from
    # cache`` for a four-module closure) and counted versions from history refs as the working
    # tree's new versions.
    first = CliRunner().invoke(main, ["build", str(repo), "--from-git", "v1"])
    assert first.exit_code == 0, first.output
    # (shop itself: importing shop.flows runs shop/__init__.py, which loom-fp/2 reads for what it changes)
    reached = {"shop", "shop.flows", "shop.pricing", "shop.refunds", "shop.steps", "shop.util"}
    summary = first.output.strip().splitlines()[-1]
    assert summary.startswith("loom build: 2 flows (2 new), 4 new versions (2 from history refs), 0 errors in ")
    counts = summary.rsplit("(", 1)[1]
    modules = int(counts.split(" modules")[0])
    assert modules <= len(reached)  # never more modules than the project has
    assert f"{modules} modules: {modules} parsed, 0 from cache; at v1 {modules} modules: " in counts
    edit(repo / "shop/pricing.py", "RATE = 10", "RATE = 11")
    second = CliRunner().invoke(main, ["build", str(repo), "--from-git", "v1"])
    summary = second.output.strip().splitlines()[-1]
    assert summary.startswith("loom build: 2 flows (2 changed), 2 new versions, 0 errors in ")  # both use RATE
    assert summary.endswith(f"({modules} modules: 1 parsed, {modules - 1} from cache; "
                            f"at v1 {modules} modules: 0 parsed, {modules} from cache)")
