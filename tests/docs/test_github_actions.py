"""examples/ci/loom.yml (the GitHub Actions recipe of docs/guides/ci-github-actions.md) is parsed
and its ``run:`` commands are executed as Actions would, in a real git clone of examples/shop: the
pull-request job on a branch that edits a helper, the release job against a journal whose execution
started on the previous release. The guide shows the file verbatim."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml  # test extra: PyYAML (libcst already depends on it); the runtime never imports it

from helpers.git_repo import commit_all, git, init_repo

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / "examples" / "ci" / "loom.yml"
GUIDE = REPO / "docs" / "guides" / "ci-github-actions.md"
LITTER = shutil.ignore_patterns("build", "dist", ".loom-cache", "__pycache__", "_loom", "*.db")


def workflow() -> dict:
    doc = yaml.safe_load(WORKFLOW.read_text())
    doc["on"] = doc.pop(True, doc.get("on"))  # YAML 1.1 reads the key `on` as true
    return doc


def run_job(job: dict, checkout: Path, env: dict[str, str]) -> list[subprocess.CompletedProcess[str]]:
    """Every ``run:`` step of ``job`` in order, in its working directory, as ``bash -e`` would; the
    install steps are skipped (this environment has loom-toolchain installed already)."""
    workdir = checkout / job.get("defaults", {}).get("run", {}).get("working-directory", ".")
    done = []
    for step in job["steps"]:
        if "run" not in step or step.get("name", "").startswith("Install"):
            continue
        proc = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=workdir, env=env, capture_output=True, text=True)
        assert proc.returncode == 0, f"step {step['name']!r} failed:\n{proc.stdout}{proc.stderr}"
        done.append(proc)
    return done


def test_the_guide_shows_the_tested_file_verbatim():
    assert f"```yaml\n{WORKFLOW.read_text()}```" in GUIDE.read_text()


def test_the_recipe_triggers_on_pull_requests_and_release_tags():
    doc = workflow()
    assert set(doc["on"]) == {"pull_request", "push"} and doc["on"]["push"]["tags"] == ["v*"]
    runs = {name: " ".join(s.get("run", "") for s in job["steps"]) for name, job in doc["jobs"].items()}
    assert "loom check" in runs["review"] and "--format github" in runs["review"]
    assert "loom deploy-check" in runs["deploy-check"]


@pytest.mark.slow
def test_the_recipe_s_commands_pass_on_a_real_pull_request_and_release(tmp_path: Path):
    jobs = workflow()["jobs"]
    # the repository on the server: examples/shop at release v1 (its history lists v1)
    origin = tmp_path / "origin"
    shutil.copytree(REPO / "examples" / "shop", origin, ignore=LITTER)
    pyproject = origin / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('out = "build/loom"', 'out = "build/loom"\nhistory = ["v1"]'))
    init_repo(origin)
    commit_all(origin, "v1", tag="v1")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")

    # production: a v1 worker started an order that waits for approval
    journal = tmp_path / "prod.db"
    subprocess.run([sys.executable, "-m", "loom_compiler", "build", "-q"], cwd=origin, env=env, check=True)
    order = json.dumps({"id": "o-1", "sku": "desk", "items": [{"sku": "desk", "price": 650.0}]})
    subprocess.run([sys.executable, "-m", "shop", "--journal", str(journal), "--manifest", "build/loom/manifest.json",
                    "start", "checkout", order, "--id", "o-1"], cwd=origin, env=env, check=True, capture_output=True)

    # a pull request: the CI checkout of a branch that edits a helper of checkout
    checkout = tmp_path / "ci"
    subprocess.run(["git", "clone", "-q", str(origin), str(checkout)], check=True)
    git(checkout, "config", "user.name", "Loom Test")
    git(checkout, "config", "user.email", "loom@example.invalid")
    git(checkout, "checkout", "-q", "-b", "members-15")
    pricing = checkout / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text().replace("DISCOUNT_RATE = 0.1\n", "DISCOUNT_RATE = 0.15\n"))
    commit_all(checkout, "members get 15%")
    summary = tmp_path / "summary.md"
    pr_env = {**env, "GITHUB_BASE_REF": "main", "GITHUB_STEP_SUMMARY": str(summary)}
    steps = run_job(jobs["review"], checkout, pr_env)
    assert "shop.pricing.DISCOUNT_RATE" in summary.read_text()  # the reviewer is told which member changed
    assert steps[-1].returncode == 0

    # the release: the merged branch, tagged; its cumulative build must serve o-1 (pinned to v1)
    git(checkout, "tag", "v2")
    shutil.rmtree(checkout / "build", ignore_errors=True)  # a fresh release checkout: no build output
    release_env = {**env, "LOOM_JOURNAL_URL": f"sqlite:///{journal}"}
    (proven,) = run_job(jobs["deploy-check"], checkout, release_env)[-1:]
    assert "1 of 1" in proven.stdout or "servable" in proven.stdout, proven.stdout

    # and the gate is real: a release build that forgets v1 strands o-1, so the job fails
    pyproject = checkout / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('history = ["v1"]\n', ""))
    shutil.rmtree(checkout / "build")
    with pytest.raises(AssertionError, match="Prove the build serves every unfinished execution"):
        run_job(jobs["deploy-check"], checkout, release_env)
