"""``loom diff`` over a real git repository: per-flow status and per-member attribution."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from loom_compiler.bundle.build import build_project
from loom_compiler.cli import main
from loom_compiler.config import load_config
from loom_compiler.review import compute_diff, review_diff, snapshot_git, snapshot_working_tree
from loom_runtime.errors import ConfigError

from helpers.git_repo import edit, git


def changed(diff, flow_id):
    (f,) = [f for f in diff.flows if f.flow_id == flow_id]
    return f


def test_an_unchanged_tree_reports_every_flow_unchanged(repo: Path):
    diff = review_diff(load_config(repo), base="v1")
    assert [(f.flow_id, f.status) for f in diff.flows] == [("checkout", "unchanged"), ("refund", "unchanged")]
    assert not diff.has_changes


def test_an_edit_to_a_helper_in_another_module_is_attributed_to_that_member(repo: Path):
    edit(repo / "shop/pricing.py", "return math.floor(total * RATE / 100)", "return math.floor(total * RATE / 100) - 1")
    diff = review_diff(load_config(repo), base="v1")
    checkout = changed(diff, "checkout")
    assert checkout.status == "changed"
    # only the edited helper: not the flow that calls it, although the flow's Merkle hash moved too
    assert [(m.qualname, m.change, m.kind, m.path, m.line) for m in checkout.members] == [
        ("shop.pricing.discount", "edited", "function", "shop/pricing.py", 8)
    ]
    v1 = snapshot_git(load_config(repo), "v1").by_id()["checkout"]
    assert checkout.base_code_hash == v1.code_hash != checkout.head_code_hash
    assert checkout.suggestion == f'compatible_with=["{v1.code_hash}"]'
    assert not checkout.structure_changed
    assert changed(diff, "refund").members[0].qualname == "shop.pricing.discount"  # refund calls it too


def test_a_constant_edit_names_the_constant_and_not_the_function_reading_it(repo: Path):
    edit(repo / "shop/pricing.py", "RATE = 90", "RATE = 80")
    checkout = changed(review_diff(load_config(repo), base="v1"), "checkout")
    assert [(m.qualname, m.change) for m in checkout.members] == [("shop.pricing.RATE", "edited")]


def test_a_flow_body_edit_names_the_flow_and_new_members(repo: Path):
    edit(repo / "shop/flows.py", "u.fee(0)", "u.fee(0) + extra()")
    edit(repo / "shop/flows.py", "LIMIT = 3", "LIMIT = 3\n\n\ndef extra() -> int:\n    return 1")
    checkout = changed(review_diff(load_config(repo), base="v1"), "checkout")
    assert [(m.qualname, m.change) for m in checkout.members] == [
        ("shop.flows.checkout", "edited"),
        ("shop.flows.extra", "added"),
    ]


def test_formatting_only_edits_are_unchanged(repo: Path):
    edit(repo / "shop/pricing.py", "def discount(total: int) -> int:", "def discount(total: int) -> int:  # reviewed\n")
    assert not review_diff(load_config(repo), base="v1").has_changes


def test_new_and_removed_flows(repo: Path):
    (repo / "shop/refunds.py").unlink()
    (repo / "shop/late.py").write_text('from loom_runtime import flow\n\n\n@flow("late")\ndef late(ctx, x):\n    return x\n')
    diff = review_diff(load_config(repo), base="v1")
    assert [(f.flow_id, f.status, f.path, f.line) for f in diff.flows] == [
        ("checkout", "unchanged", "shop/flows.py", 18),
        ("late", "new", "shop/late.py", 5),
        ("refund", "removed", "shop/refunds.py", 16),
    ]


def test_a_structure_change_offers_no_compatible_with_line(repo: Path):
    edit(repo / "shop/flows.py", 'steps=["reserve", "charge", "ship"]', 'steps=["reserve", "charge", "ship", "notify"]')
    checkout = changed(review_diff(load_config(repo), base="v1"), "checkout")
    assert checkout.status == "changed" and checkout.structure_changed and not checkout.code_changed
    assert checkout.suggestion is None


def test_already_compatible_flow_is_marked(repo: Path):
    base = snapshot_git(load_config(repo), "v1").by_id()["checkout"].code_hash
    edit(repo / "shop/pricing.py", "math.floor(total", "math.ceil(total")
    edit(repo / "shop/flows.py", 'steps=["reserve", "charge", "ship"])', f'steps=["reserve", "charge", "ship"], compatible_with=["{base}"])')
    checkout = changed(review_diff(load_config(repo), base="v1"), "checkout")
    assert checkout.compatible and checkout.suggestion is None


def test_base_manifest_attributes_through_the_call_graph(repo: Path, tmp_path: Path):
    report = build_project(load_config(repo), out=tmp_path / "v1-build")
    assert report.ok, report.errors
    edit(repo / "shop/pricing.py", "math.floor(total", "math.ceil(total")
    diff = review_diff(load_config(repo), base_manifest=tmp_path / "v1-build" / "manifest.json")
    members = {(m.qualname, m.change) for m in changed(diff, "checkout").members}
    # the manifest knows only member hashes: the edited helper is found because nothing it calls moved
    assert ("shop.pricing.discount", "edited") in members
    assert ("shop.flows.checkout", "edited") not in members
    assert {("math.ceil", "added"), ("math.floor", "removed")} <= members
    assert not diff.base_is_ref


def test_the_base_defaults_to_the_check_table_and_is_required(repo: Path):
    with pytest.raises(ConfigError, match=r"--base GIT_REF or --base-manifest PATH"):
        review_diff(load_config(repo))
    (repo / "pyproject.toml").write_text((repo / "pyproject.toml").read_text() + '\n[tool.loom.check]\nbase = "v1"\n')
    assert review_diff(load_config(repo)).base == "v1"


def test_an_unknown_ref_is_a_usage_error_naming_it(repo: Path):
    result = CliRunner().invoke(main, ["diff", str(repo), "--base", "no-such-ref"])
    assert result.exit_code == 2
    assert "no-such-ref" in result.stderr and "--base" in result.stderr


def test_cli_json_and_exit_status(repo: Path):
    edit(repo / "shop/pricing.py", "math.floor(total", "math.ceil(total")
    result = CliRunner().invoke(main, ["diff", str(repo), "--base", "v1", "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["schema"] == "loom-diff/1"
    flows = {f["id"]: f for f in doc["flows"]}
    assert flows["checkout"]["status"] == "changed"
    (discount,) = [m for m in flows["checkout"]["members"] if m["name"] == "shop.pricing.discount"]
    assert {k: discount[k] for k in ("change", "kind", "path", "line")} == {
        "change": "edited", "kind": "function", "path": "shop/pricing.py", "line": 8,
    }
    assert discount["before"].endswith("math.floor(total * RATE / 100)")
    assert discount["after"].endswith("math.ceil(total * RATE / 100)")


def test_the_working_tree_is_left_alone(repo: Path):
    edit(repo / "shop/pricing.py", "math.floor(total", "math.ceil(total")
    before = git(repo, "status", "--porcelain")
    review_diff(load_config(repo), base="v1")
    assert git(repo, "status", "--porcelain") == before
    assert compute_diff(snapshot_working_tree(load_config(repo)), snapshot_working_tree(load_config(repo))).has_changes is False


def test_source_errors_in_the_working_tree_exit_1_and_name_the_place(repo: Path):
    (repo / "shop/broken.py").write_text("from loom_runtime import flow\n\n@flow('x')\ndef f(ctx, x:\n    return 1\n")
    result = CliRunner().invoke(main, ["diff", str(repo), "--base", "v1", "--color"])
    assert result.exit_code == 1
    assert "\x1b[31;1merror: shop/broken.py:4:" in result.stdout
    assert CliRunner().invoke(main, ["check", str(repo), "--base", "v1"]).exit_code == 1
