"""``loom check``: the CI gate over a real git repository and a real build."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from loom_compiler.bundle.build import build_project
from loom_compiler.cli import main
from loom_compiler.config import load_config
from loom_compiler.review import build_manifest, check_diff, review_diff, snapshot_git

from helpers.git_repo import edit

ROOT = Path(__file__).resolve().parents[2]


def run_check(repo: Path, *args: str):
    return CliRunner().invoke(main, ["check", str(repo), "--base", "v1", *args])


def base_hash(repo: Path, flow_id: str) -> str:
    return snapshot_git(load_config(repo), "v1").by_id()[flow_id].code_hash


def test_unchanged_passes(repo: Path):
    result = run_check(repo)
    assert result.exit_code == 0, result.output
    assert "loom check: ok" in result.stdout


def test_a_code_change_without_keep_or_compatible_fails_per_flow(repo: Path):
    edit(repo / "shop/pricing.py", "math.floor(total", "math.ceil(total")
    result = run_check(repo)
    assert result.exit_code == 1
    lines = [line for line in result.stdout.splitlines() if line.startswith("error:")]
    assert len(lines) == 2  # checkout and refund, one message each
    assert "flow `checkout` (shop/flows.py:18)" in lines[0] and "edited shop.pricing.discount" in lines[0]
    assert f'compatible_with=["{base_hash(repo, "checkout")}"]' in lines[0]
    assert "there is no build manifest (build/loom/manifest.json)" in lines[0]


def test_listing_the_old_hash_in_compatible_with_passes(repo: Path):
    old = base_hash(repo, "checkout")
    edit(repo / "shop/pricing.py", "math.floor(total", "math.ceil(total")
    edit(repo / "shop/flows.py", 'steps=["reserve", "charge", "ship"])', f'steps=["reserve", "charge", "ship"], compatible_with=["{old}"])')
    report = check_diff(review_diff(load_config(repo), base="v1"), manifest=None)
    assert [f.flow_id for f in report.failures] == ["refund"]  # refund still neither kept nor compatible


def test_a_build_that_keeps_the_old_version_passes(repo: Path):
    edit(repo / "shop/pricing.py", "math.floor(total", "math.ceil(total")
    assert run_check(repo).exit_code == 1
    assert build_project(load_config(repo), from_git=["v1"]).ok
    result = run_check(repo)
    assert result.exit_code == 0, result.output


def test_compatible_with_cannot_excuse_a_structure_change_but_keeping_can(repo: Path):
    old = base_hash(repo, "checkout")
    edit(repo / "shop/pricing.py", "math.floor(total", "math.ceil(total")
    edit(
        repo / "shop/flows.py",
        'steps=["reserve", "charge", "ship"])',
        f'steps=["reserve", "charge", "ship", "notify"], compatible_with=["{old}"])',
    )
    diff = review_diff(load_config(repo), base="v1")
    report = check_diff(diff, manifest=None, ignore=["refund"])
    (failure,) = report.failures
    assert failure.flow_id == "checkout" and "compatible_with cannot serve another structure" in failure.message
    assert report.notes == ("flow `refund` is changed but listed in [tool.loom.check] ignore",)
    assert build_project(load_config(repo), from_git=["v1"]).ok
    manifest, label = build_manifest(load_config(repo))
    assert label == "build/loom/manifest.json"
    assert check_diff(diff, manifest=manifest, ignore=["refund"]).ok


def test_a_removed_flow_must_be_kept(repo: Path):
    (repo / "shop/refunds.py").unlink()
    result = run_check(repo)
    assert result.exit_code == 1
    assert "flow `refund` (shop/refunds.py:16) was removed since v1" in result.stdout
    assert build_project(load_config(repo), from_git=["v1"]).ok  # the cumulative manifest keeps it
    assert run_check(repo).exit_code == 0


def test_check_table_supplies_base_manifest_and_ignore(repo: Path, tmp_path: Path):
    edit(repo / "shop/pricing.py", "math.floor(total", "math.ceil(total")
    assert build_project(load_config(repo), out=repo / "dist-loom", from_git=["v1"]).ok
    (repo / "pyproject.toml").write_text(
        (repo / "pyproject.toml").read_text() + '\n[tool.loom.check]\nbase = "v1"\nmanifest = "dist-loom/manifest.json"\n'
    )
    result = CliRunner().invoke(main, ["check", str(repo)])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, ["check", str(repo), "--manifest", str(tmp_path / "missing.json")])
    assert result.exit_code == 2 and "missing.json" in result.stderr


def test_github_format_annotates_each_failing_flow(repo: Path):
    edit(repo / "shop/pricing.py", "math.floor(total", "math.ceil(total")
    result = run_check(repo, "--format", "github")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert [line.split("::")[1] for line in lines] == [
        "error file=shop/flows.py,line=18,title=loom check%3A checkout",
        "error file=shop/refunds.py,line=16,title=loom check%3A refund",
    ]


def test_pre_commit_hook_offers_loom_check():
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert "- id: loom-check" in text
    assert "entry: loom check" in text
    assert "pass_filenames: false" in text  # loom check judges the whole project, not the staged files


def test_a_committed_manifest_outside_out_is_not_scanned_at_a_git_ref(repo: Path):
    # a git ref's listing cannot tell loom output by its manifest (the working-tree walk can):
    # `[tool.loom.check] manifest`'s directory is excluded, or its chunks declare every flow again
    from helpers.git_repo import commit_all

    assert build_project(load_config(repo), out=repo / "release-loom").ok
    (repo / "pyproject.toml").write_text(
        (repo / "pyproject.toml").read_text() + '\n[tool.loom.check]\nmanifest = "release-loom/manifest.json"\n'
    )
    commit_all(repo, "release manifest", tag="v2")
    assert list((repo / "release-loom" / "chunks").rglob("*.py"))
    at_v2 = snapshot_git(load_config(repo), "v2")
    assert at_v2.errors == ()
    assert sorted(at_v2.by_id()) == sorted(snapshot_git(load_config(repo), "v1").by_id())
