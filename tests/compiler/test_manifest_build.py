"""Cumulative merge: earlier versions stay, the current one is marked, removed flows keep theirs."""

from __future__ import annotations

from loom_compiler.bundle.manifest_build import merge_manifest
from loom_runtime.manifest import Manifest, SourceRef, VersionEntry, dump_manifest

DIGEST = "sha256:" + "0" * 64


def entry(code: str, *, compat=(), chunk=None) -> VersionEntry:
    h = "sha256:" + code * 64
    return VersionEntry(
        code_hash=h, flow_hash="sha256:" + "f" * 64, legacy_flow_hash="fnv1a:00000000", version=1,
        steps=("charge",), step_families=(), compatible_with=tuple(compat),
        chunk=chunk or f"chunks/checkout/{code * 16}.py", chunk_digest=DIGEST, entry="checkout",
        source=SourceRef("shop/flows.py", 3, DIGEST), closure={"shop.flows.checkout": h},
    )


def test_first_build_marks_each_flow_current():
    result = merge_manifest(None, {"checkout": entry("a")})
    flow = result.manifest.flows["checkout"]
    assert flow.current == "sha256:" + "a" * 64 and not flow.removed
    assert result.new_versions == (("checkout", "sha256:" + "a" * 64),)


def test_rebuild_keeps_earlier_versions_and_moves_current():
    first = merge_manifest(None, {"checkout": entry("a")}).manifest
    second = merge_manifest(first, {"checkout": entry("b")})
    flow = second.manifest.flows["checkout"]
    assert sorted(flow.versions) == ["sha256:" + "a" * 64, "sha256:" + "b" * 64]
    assert flow.current == "sha256:" + "b" * 64
    assert second.new_versions == (("checkout", "sha256:" + "b" * 64),)


def test_a_flow_gone_from_the_tree_keeps_its_versions_marked_removed():
    first = merge_manifest(None, {"checkout": entry("a"), "refund": entry("c")}).manifest
    second = merge_manifest(first, {"checkout": entry("a")})
    refund = second.manifest.flows["refund"]
    assert refund.removed and refund.current is None and list(refund.versions) == ["sha256:" + "c" * 64]
    assert second.newly_removed == ("refund",) and second.new_versions == ()
    # and it round-trips through the strict reader
    doc = Manifest.from_json(__import__("json").loads(dump_manifest(second.manifest)))
    assert doc.flows["refund"].removed


def test_current_metadata_wins_over_the_previous_entry_of_the_same_code_hash():
    first = merge_manifest(None, {"checkout": entry("a")}).manifest
    listed = entry("a", compat=["sha256:" + "9" * 64])
    second = merge_manifest(first, {"checkout": listed}).manifest
    assert second.flows["checkout"].versions["sha256:" + "a" * 64].compatible_with == ("sha256:" + "9" * 64,)


def test_history_adds_versions_but_never_overrides_a_shipped_entry():
    shipped = merge_manifest(None, {"checkout": entry("a", chunk="chunks/checkout/shipped.py")}).manifest
    old_ref = {"checkout": entry("a", chunk="chunks/checkout/rebuilt.py")}
    older_ref = {"checkout": entry("d", chunk="chunks/checkout/d-old.py")}
    newer_ref = {"checkout": entry("d", chunk="chunks/checkout/d-new.py")}
    result = merge_manifest(shipped, {"checkout": entry("b")}, [older_ref, old_ref, newer_ref])
    versions = result.manifest.flows["checkout"].versions
    assert versions["sha256:" + "a" * 64].chunk == "chunks/checkout/shipped.py"
    assert versions["sha256:" + "d" * 64].chunk == "chunks/checkout/d-new.py"
    assert [h[1][7] for h in result.new_versions] == ["b", "d"]


def test_a_flow_only_in_history_is_removed():
    result = merge_manifest(None, {}, [{"legacy": entry("e")}])
    assert result.manifest.flows["legacy"].removed and result.manifest.flows["legacy"].current is None


def test_merge_is_deterministic_whatever_the_input_order():
    a = merge_manifest(None, {"x": entry("a"), "y": entry("b")}).manifest
    b = merge_manifest(None, {"y": entry("b"), "x": entry("a")}).manifest
    assert dump_manifest(a) == dump_manifest(b)
