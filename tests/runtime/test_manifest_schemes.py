"""``scheme`` and ``rehashedFrom`` in the manifest: absent means loom-fp/1, strict checks name the key.

A manifest written by the loom-fp/1 release has neither key; it must keep reading exactly as it
did, and an fp/1 entry that a cumulative rebuild carries over must stay byte-identical. A version
built under loom-fp/2 records its scheme and the earlier-scheme hashes of the same code; the reader
refuses what would let the registry serve other code under an old hash.
"""

from __future__ import annotations

import json
import re

import pytest

from loom_runtime import ManifestError, load_manifest
from loom_runtime.manifest import (
    FINGERPRINT_SCHEME,
    LEGACY_FINGERPRINT_SCHEME,
    FlowEntry,
    Manifest,
    SourceRef,
    VersionEntry,
    dump_manifest,
    scheme_number,
)

H1 = "sha256:" + "1" * 64  # the loom-fp/1 hash of some code
H2 = "sha256:" + "2" * 64  # the loom-fp/2 hash of the same code
OTHER = "sha256:" + "3" * 64
FLOW_HASH = "sha256:" + "c" * 64


def entry(code_hash: str, **over) -> VersionEntry:
    base = dict(
        code_hash=code_hash,
        flow_hash=FLOW_HASH,
        legacy_flow_hash="fnv1a:0123abcd",
        version=1,
        steps=("charge",),
        step_families=(),
        compatible_with=(),
        chunk=f"chunks/checkout/{code_hash[7:23]}.py",
        chunk_digest="sha256:" + "d" * 64,
        entry="checkout",
        source=SourceRef(path="shop/flows.py", line=3, source_digest="sha256:" + "e" * 64,
                         closure_sources={"shop.flows": "sha256:" + "e" * 64}),
        closure={"shop.flows.checkout": "sha256:" + "f" * 64},
    )
    base.update(over)
    return VersionEntry(**base)


def upgraded() -> Manifest:
    """What a rebuild under loom-fp/2 writes: the fp/1 entry kept, the fp/2 entry linked to it."""
    versions = {H1: entry(H1), H2: entry(H2, scheme="loom-fp/2", rehashed_from=(H1,))}
    return Manifest(flows={"checkout": FlowEntry("checkout", H2, versions)})


def doc() -> dict:
    return json.loads(dump_manifest(upgraded()))


def read(tmp_path, document) -> Manifest:
    p = tmp_path / "manifest.json"
    p.write_text(json.dumps(document))
    return load_manifest(p)


def refused(tmp_path, document) -> ManifestError:
    with pytest.raises(ManifestError) as info:
        read(tmp_path, document)
    return info.value


def test_the_release_writes_loom_fp2():
    assert FINGERPRINT_SCHEME == "loom-fp/2" and LEGACY_FINGERPRINT_SCHEME == "loom-fp/1"
    from loom_compiler.canonical import SCHEME

    assert SCHEME == FINGERPRINT_SCHEME  # the hashes and the manifest name one scheme
    assert scheme_number("loom-fp/2") == 2 and scheme_number("loom-fp/10") > scheme_number("loom-fp/9")


def test_an_entry_without_the_keys_is_fp1_and_is_written_back_without_them(tmp_path):
    d = doc()
    v1 = d["flows"]["checkout"]["versions"][H1]
    assert "scheme" not in v1 and "rehashedFrom" not in v1  # absent means loom-fp/1: byte-stable
    v2 = d["flows"]["checkout"]["versions"][H2]
    assert v2["scheme"] == "loom-fp/2" and v2["rehashedFrom"] == [H1]
    m = read(tmp_path, d)
    assert m.flows["checkout"].versions[H1].scheme == "loom-fp/1"
    assert m.flows["checkout"].versions[H1].rehashed_from == ()
    assert m.flows["checkout"].versions[H2].rehashed_from == (H1,)
    assert dump_manifest(m) == dump_manifest(upgraded())


def test_an_explicit_fp1_scheme_is_read_as_fp1(tmp_path):
    d = doc()
    d["flows"]["checkout"]["versions"][H1]["scheme"] = "loom-fp/1"
    assert read(tmp_path, d).flows["checkout"].versions[H1].scheme == "loom-fp/1"


def test_rehashed_from_is_written_sorted():
    v = entry(H2, scheme="loom-fp/2", rehashed_from=(OTHER, H1))
    assert v.to_json()["rehashedFrom"] == [H1, OTHER]


@pytest.mark.parametrize("value", ["loom-fp/0", "loom-fp/two", "fp/2", "", 2, None, "loom-fp/2 "])
def test_a_malformed_scheme_is_refused_naming_the_key(tmp_path, value):
    d = doc()
    d["flows"]["checkout"]["versions"][H2]["scheme"] = value
    err = refused(tmp_path, d)
    assert err.key == f"flows.checkout.versions.{H2}.scheme" and err.flow_id == "checkout"
    assert "manifest.json" in str(err) and "loom-fp/2" in str(err)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("sha256:" + "1" * 64, "must be a list of codeHashes"),
        ([1], "must be a list of codeHashes"),
        (["sha256:xyz"], "not a codeHash"),
        ([H2], "own codeHash"),
        ([H1, H1], "twice"),
    ],
)
def test_a_malformed_rehashed_from_is_refused_naming_the_key(tmp_path, value, message):
    d = doc()
    d["flows"]["checkout"]["versions"][H2]["rehashedFrom"] = value
    err = refused(tmp_path, d)
    assert err.key == f"flows.checkout.versions.{H2}.rehashedFrom"
    assert message in str(err)


def test_an_fp1_version_cannot_rehash_anything(tmp_path):
    d = doc()
    d["flows"]["checkout"]["versions"][H1]["rehashedFrom"] = [OTHER]
    err = refused(tmp_path, d)
    assert err.key == f"flows.checkout.versions.{H1}.rehashedFrom" and "later scheme" in str(err)


def test_a_listed_version_of_the_same_scheme_is_refused(tmp_path):
    # Two fp/2 hashes of one code cannot exist (the scheme is deterministic): listing one would let
    # the registry serve an execution of *other* code with this version.
    d = doc()
    d["flows"]["checkout"]["versions"][H1]["scheme"] = "loom-fp/2"
    err = refused(tmp_path, d)
    assert err.key == f"flows.checkout.versions.{H2}.rehashedFrom" and "earlier scheme" in str(err)


def test_a_listed_version_with_another_structure_is_refused(tmp_path):
    d = doc()
    d["flows"]["checkout"]["versions"][H1]["flowHash"] = "sha256:" + "9" * 64
    err = refused(tmp_path, d)
    assert err.key == f"flows.checkout.versions.{H2}.rehashedFrom" and "flowHash" in str(err)


def test_a_listed_hash_that_is_no_longer_a_version_is_allowed(tmp_path):
    # `loom gc` drops the fp/1 version once no execution records it; the claim stays true.
    d = doc()
    del d["flows"]["checkout"]["versions"][H1]
    assert read(tmp_path, d).flows["checkout"].versions[H2].rehashed_from == (H1,)


def test_the_lazy_reader_applies_the_same_checks(tmp_path):
    from loom_runtime.manifest import ManifestDocument

    p = tmp_path / "manifest.json"
    # the fp/1 entry (sorted first) claims loom-fp/2, in the canonical layout the lazy reader cuts
    p.write_bytes(dump_manifest(upgraded()).replace(b'"legacyFlowHash"', b'"scheme": "loom-fp/2",\n          "legacyFlowHash"', 1))
    document = ManifestDocument.read(p)  # the top level is fine: flows are checked on first use
    with pytest.raises(ManifestError, match=re.escape(f"flows.checkout.versions.{H2}.rehashedFrom")):
        document.flow("checkout")
