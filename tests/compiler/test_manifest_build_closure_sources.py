"""``source.closureSources``: what the bundler records so the runtime can check the whole closure.

Every first-party module holding a closure member is listed with the sha256 of the bytes the build
read; step-only modules are not (a step body is not in the codeHash); entries of earlier manifests
keep what they had."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from loom_compiler.bundle.build import build_project
from loom_compiler.bundle.manifest_build import closure_source_digests
from loom_compiler.config import load_config
from loom_compiler.model import ClosureMember, FlowFingerprint
from loom_runtime import FlowDefinition
from loom_runtime.manifest import load_manifest

from helpers.git_repo import copy_project

DATA = Path(__file__).parent / "data" / "bundle_shop"
H = "sha256:" + "0" * 64


def sha(path: Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "bundle_shop"
    copy_project(DATA, root)
    return root


def build(root: Path, **kw):
    report = build_project(load_config(root), **kw)
    assert report.ok, report.errors
    return report


def current_sources(report, flow_id: str):
    fe = report.manifest.flows[flow_id]
    return fe.versions[fe.current].source.closure_sources


# -- closure_source_digests ---------------------------------------------------------------------------


def fingerprint(*members: ClosureMember) -> FlowFingerprint:
    return FlowFingerprint(flow_id="checkout", function="checkout", module="shop.flows", path="shop/flows.py", line=1,
                           column=0, code_hash=H, definition=FlowDefinition(id="checkout"), flow_hash=H,
                           legacy_flow_hash="fnv1a:00000000", closure=members)


def test_digests_every_module_holding_a_member_but_not_step_only_modules():
    fp = fingerprint(
        ClosureMember("shop.flows.checkout", "flow", "shop.flows", H),
        ClosureMember("shop.util.fmt", "function", "shop.util", H),
        ClosureMember("shop.pricing.RATE", "constant", "shop.pricing", H),
        ClosureMember("shop.pricing.discount", "function", "shop.pricing", H),
        ClosureMember("math.floor", "import", "shop.pricing", H, target="math.floor"),
        ClosureMember("shop.steps.charge", "step", "shop.steps", H, target="shop.steps.charge"),
        ClosureMember("vendored.helper", "function", "vendored", H),  # not in the source tree
    )
    in_tree = {"shop.flows": "aa", "shop.util": "bb", "shop.pricing": "cc", "shop.steps": "dd"}
    got = closure_source_digests(fp, in_tree.get)
    assert got == {"shop.flows": "sha256:aa", "shop.pricing": "sha256:cc", "shop.util": "sha256:bb"}
    assert list(got) == sorted(got)


# -- what a build writes ------------------------------------------------------------------------------


def test_each_current_version_lists_the_digest_of_every_closure_module(project: Path):
    report = build(project)
    assert current_sources(report, "checkout") == {
        "shop.flows": sha(project / "shop/flows.py"),
        "shop.pricing": sha(project / "shop/pricing.py"),
        "shop.util": sha(project / "shop/util.py"),
    }
    # shop.steps is reached only through steps: a step-body edit leaves the codeHash (and the check) alone.
    assert current_sources(report, "refund") == {
        "shop.pricing": sha(project / "shop/pricing.py"),
        "shop.refunds": sha(project / "shop/refunds.py"),
    }
    flows = report.manifest.flows["checkout"]
    assert flows.versions[flows.current].source.source_digest == sha(project / "shop/flows.py")


def test_a_cached_rebuild_writes_the_same_bytes(project: Path):
    first = (build(project).manifest_path).read_bytes()
    again = build(project)  # flows served from .loom-cache
    assert again.manifest_path.read_bytes() == first and b'"closureSources"' in first


def test_a_helper_edit_gives_the_new_version_new_digests_and_keeps_the_old_entry(project: Path):
    first = build(project)
    old_hash = first.manifest.flows["checkout"].current
    old_sources = current_sources(first, "checkout")
    pricing = project / "shop/pricing.py"
    pricing.write_text(pricing.read_text().replace("RATE = 90", "RATE = 91"))
    second = build(project)
    new_hash = second.manifest.flows["checkout"].current
    assert new_hash != old_hash
    assert current_sources(second, "checkout")["shop.pricing"] == sha(pricing) != old_sources["shop.pricing"]
    assert second.manifest.flows["checkout"].versions[old_hash].source.closure_sources == old_sources


def strip_closure_sources(path: Path) -> None:
    """Make ``path`` look like a manifest written before closureSources existed (same layout)."""
    doc = json.loads(path.read_text())
    for fe in doc["flows"].values():
        for ve in fe["versions"].values():
            del ve["source"]["closureSources"]
    path.write_text(json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n")


def test_entries_of_an_older_manifest_keep_what_they_had(project: Path):
    report = build(project)
    old_hash = report.manifest.flows["checkout"].current
    strip_closure_sources(report.manifest_path)
    pricing = project / "shop/pricing.py"
    pricing.write_text(pricing.read_text().replace("RATE = 90", "RATE = 91"))
    checkout = load_manifest(build(project).manifest_path).flows["checkout"]
    assert checkout.current != old_hash
    assert checkout.versions[old_hash].source.closure_sources is None  # an earlier version: untouched
    assert checkout.versions[checkout.current].source.closure_sources["shop.pricing"] == sha(pricing)


def test_the_first_rebuild_after_an_upgrade_fills_the_current_versions(project: Path):
    # The working tree's entry wins for its codeHash (merge precedence), so an unchanged current
    # version gains the field; only versions no longer in the tree keep an older entry as it was.
    report = build(project)
    strip_closure_sources(report.manifest_path)
    rebuilt = load_manifest(build(project).manifest_path)
    assert {fid: fe.current for fid, fe in rebuilt.flows.items()} == {
        fid: fe.current for fid, fe in report.manifest.flows.items()}
    for fe in rebuilt.flows.values():
        assert fe.versions[fe.current].source.closure_sources == report.manifest.flows[fe.flow_id].versions[
            fe.current].source.closure_sources
