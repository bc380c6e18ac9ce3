"""``source.closureSources``: the digest of every first-party module of a version's closure.

Optional (manifests written before it existed stay readable and are written back byte for byte),
validated when present (the error names the key), deterministic on write (sorted module names)."""

from __future__ import annotations

import json
import re

import pytest

from loom_runtime import ManifestError, Registry, load_manifest
from loom_runtime.manifest import FlowEntry, Manifest, SourceRef, VersionEntry, dump_manifest

CODE = "sha256:" + "a" * 64
PRICING = "sha256:" + "9" * 64
FLOWS = "sha256:" + "e" * 64
AT = f"flows.checkout.versions.{CODE}.source.closureSources"


def manifest(closure_sources) -> Manifest:
    ve = VersionEntry(
        code_hash=CODE, flow_hash="sha256:" + "c" * 64, legacy_flow_hash="fnv1a:0123abcd", version=1,
        steps=("a",), step_families=(), compatible_with=(), chunk="chunks/x.py", chunk_digest="sha256:" + "d" * 64,
        entry="run", source=SourceRef("shop/flows.py", 3, FLOWS, closure_sources=closure_sources),
    )
    return Manifest(flows={"checkout": FlowEntry("checkout", CODE, {CODE: ve})})


def source_doc(closure_sources) -> dict:
    return json.loads(dump_manifest(manifest(closure_sources)))["flows"]["checkout"]["versions"][CODE]["source"]


def test_written_sorted_by_module_name_inside_source():
    src = source_doc({"shop.pricing": PRICING, "shop.flows": FLOWS})
    assert src == {"closureSources": {"shop.flows": FLOWS, "shop.pricing": PRICING}, "line": 3,
                   "path": "shop/flows.py", "sourceDigest": FLOWS}
    assert list(src["closureSources"]) == ["shop.flows", "shop.pricing"]
    # Insertion order never shows in the bytes.
    assert dump_manifest(manifest({"shop.pricing": PRICING, "shop.flows": FLOWS})) == dump_manifest(
        manifest({"shop.flows": FLOWS, "shop.pricing": PRICING}))


def test_an_older_manifest_without_the_field_reads_as_none_and_writes_back_unchanged(tmp_path):
    data = dump_manifest(manifest(None))
    assert b"closureSources" not in data
    path = tmp_path / "manifest.json"
    path.write_bytes(data)
    back = load_manifest(path)
    assert back.flows["checkout"].versions[CODE].source.closure_sources is None
    assert dump_manifest(back) == data
    # The registry's lazy reader agrees.
    assert Registry.from_manifest(path).current("checkout").code_hash == CODE


@pytest.mark.parametrize("lazy", [False, True], ids=["load_manifest", "registry"])
def test_round_trip(tmp_path, lazy):
    m = manifest({"shop.flows": FLOWS, "shop.pricing": PRICING})
    path = tmp_path / "manifest.json"
    path.write_bytes(dump_manifest(m))
    if lazy:
        from loom_runtime.manifest import ManifestDocument

        entry = ManifestDocument.read(path).flow("checkout")
    else:
        entry = load_manifest(path).flows["checkout"]
    assert entry.versions[CODE].source.closure_sources == {"shop.flows": FLOWS, "shop.pricing": PRICING}


@pytest.mark.parametrize(
    ("value", "key", "what"),
    [
        (["shop.pricing"], AT, "must be an object, got list"),
        (None, AT, "must be an object, got NoneType"),
        ({"shop/pricing.py": PRICING}, AT, "must be keyed by dotted module names, got 'shop/pricing.py'"),
        ({"": PRICING}, AT, "must be keyed by dotted module names, got ''"),
        ({"shop..pricing": PRICING}, AT, "must be keyed by dotted module names"),
        ({"shop.pricing": "sha256:" + "A" * 64}, AT + ".shop.pricing", "must look like 'sha256:<64 hex>'"),
        ({"shop.pricing": "fnv1a:01234567"}, AT + ".shop.pricing", "must look like 'sha256:<64 hex>'"),
        ({"shop.pricing": 7}, AT + ".shop.pricing", "must look like 'sha256:<64 hex>', got 7"),
    ],
)
def test_a_malformed_field_is_refused_naming_the_key(tmp_path, value, key, what):
    document = json.loads(dump_manifest(manifest({"shop.flows": FLOWS})))
    document["flows"]["checkout"]["versions"][CODE]["source"]["closureSources"] = value
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(document, indent=2, sort_keys=True))
    with pytest.raises(ManifestError, match=re.escape(f"flow `checkout` key `{key}` {what}")) as info:
        load_manifest(path)
    assert info.value.key == key and info.value.flow_id == "checkout"
    # The registry refuses the same entry on first use, with the same message.
    reg = Registry.from_manifest(path)
    with pytest.raises(ManifestError, match="rebuild the manifest with `loom build`") as lazy:
        reg.current("checkout")
    assert lazy.value.key == key
