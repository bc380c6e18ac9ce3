"""The ``loom-manifest/1`` reader refuses what it cannot trust, naming file, flow and key."""

from __future__ import annotations

import copy
import json
import re

import pytest

from loom_runtime import ManifestError, load_manifest
from loom_runtime.manifest import (
    MANIFEST_SCHEMA,
    FlowEntry,
    Manifest,
    SourceRef,
    VersionEntry,
    dump_manifest,
    write_manifest,
)

CODE = "sha256:" + "a" * 64
OTHER = "sha256:" + "b" * 64


def entry(**over):
    base = dict(
        code_hash=CODE,
        flow_hash="sha256:" + "c" * 64,
        legacy_flow_hash="fnv1a:0123abcd",
        version=2,
        steps=("reserve", "charge"),
        step_families=("pack", re.compile(r"tool:\d+", re.IGNORECASE)),
        compatible_with=(OTHER,),
        chunk="chunks/checkout/aaaaaaaaaaaaaaaa.py",
        chunk_digest="sha256:" + "d" * 64,
        entry="checkout",
        source=SourceRef(path="shop/flows.py", line=12, source_digest="sha256:" + "e" * 64,
                         closure_sources={"shop.pricing": "sha256:" + "9" * 64, "shop.flows": "sha256:" + "e" * 64}),
        closure={"shop.flows.checkout": "sha256:" + "f" * 64},
    )
    base.update(over)
    return VersionEntry(**base)


def manifest(**over) -> Manifest:
    return Manifest(flows={"checkout": FlowEntry(flow_id="checkout", current=CODE, versions={CODE: entry(**over)})})


def doc() -> dict:
    return json.loads(dump_manifest(manifest()))


def write(tmp_path, document) -> str:
    p = tmp_path / "manifest.json"
    p.write_text(json.dumps(document))
    return str(p)


def test_round_trip_through_the_writer(tmp_path):
    m = manifest()
    path = tmp_path / "build" / "manifest.json"
    write_manifest(path, m)
    back = load_manifest(path)
    assert back == m
    fam = back.flows["checkout"].versions[CODE].step_families
    assert fam[0] == "pack" and fam[1].pattern == r"tool:\d+" and fam[1].flags & re.IGNORECASE
    # Deterministic bytes: writing what was read gives the same file.
    assert dump_manifest(back) == path.read_bytes()


def test_unknown_schema_is_refused(tmp_path):
    d = doc()
    d["schema"] = "loom-manifest/2"
    p = write(tmp_path, d)
    with pytest.raises(ManifestError, match=r"manifest\.json: unknown manifest schema 'loom-manifest/2'") as info:
        load_manifest(p)
    assert info.value.key == "schema" and info.value.path == p
    assert MANIFEST_SCHEMA in str(info.value)


@pytest.mark.parametrize("key", ["schema", "fingerprintScheme", "flows"])
def test_missing_top_level_key_is_named(tmp_path, key):
    d = doc()
    del d[key]
    with pytest.raises(ManifestError, match=rf"key `{key}` is missing; rebuild the manifest with `loom build`"):
        load_manifest(write(tmp_path, d))


@pytest.mark.parametrize("key", ["flowHash", "legacyFlowHash", "chunk", "chunkDigest", "entry", "source", "closure",
                                 "steps", "stepFamilies", "compatibleWith", "version"])
def test_missing_version_field_names_file_flow_and_key(tmp_path, key):
    d = doc()
    del d["flows"]["checkout"]["versions"][CODE][key]
    p = write(tmp_path, d)
    with pytest.raises(ManifestError) as info:
        load_manifest(p)
    err = info.value
    assert err.flow_id == "checkout" and err.path == p
    assert err.key == f"flows.checkout.versions.{CODE}.{key}"
    assert str(err).startswith(f"{p}: flow `checkout` key `flows.checkout.versions.{CODE}.{key}` is missing")


def test_missing_source_digest_is_named(tmp_path):
    d = doc()
    del d["flows"]["checkout"]["versions"][CODE]["source"]["sourceDigest"]
    with pytest.raises(ManifestError, match=r"source\.sourceDigest` is missing"):
        load_manifest(write(tmp_path, d))


@pytest.mark.parametrize(
    "chunk",
    ["../evil.py", "chunks/../../evil.py", "/etc/passwd", "C:/x.py", "chunks\\x.py", ""],
)
def test_chunk_path_escaping_the_manifest_directory_is_refused(tmp_path, chunk):
    d = doc()
    d["flows"]["checkout"]["versions"][CODE]["chunk"] = chunk
    with pytest.raises(ManifestError, match=r"flow `checkout` key `.*\.chunk` must be a relative POSIX path") as info:
        load_manifest(write(tmp_path, d))
    assert info.value.flow_id == "checkout"


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("chunkDigest", "md5:abc", "must look like 'sha256:<64 hex>'"),
        ("flowHash", "fnv1a:0123abcd", "must look like 'sha256:<64 hex>'"),
        ("legacyFlowHash", "sha256:" + "c" * 64, "must look like 'fnv1a:<8 hex>'"),
        ("compatibleWith", ["sha256:short"], "which is not a codeHash"),
        ("entry", "not a name", "must be a dotted Python name"),
        ("version", 0, "must be a positive integer"),
        ("version", True, "must be an integer"),
        ("steps", "reserve", "must be a list of strings"),
    ],
)
def test_malformed_values_are_refused(tmp_path, key, value, message):
    d = doc()
    d["flows"]["checkout"]["versions"][CODE][key] = value
    with pytest.raises(ManifestError, match=re.escape(message)):
        load_manifest(write(tmp_path, d))


def test_version_key_must_be_a_code_hash(tmp_path):
    d = doc()
    versions = d["flows"]["checkout"]["versions"]
    versions["sha256:nothex"] = versions.pop(CODE)
    d["flows"]["checkout"]["current"] = "sha256:nothex"
    with pytest.raises(ManifestError, match=r"is keyed by 'sha256:nothex', which is not a codeHash"):
        load_manifest(write(tmp_path, d))


def test_current_must_name_a_listed_version(tmp_path):
    d = doc()
    d["flows"]["checkout"]["current"] = OTHER
    with pytest.raises(ManifestError, match=r"flows\.checkout\.current` names .*not among its versions"):
        load_manifest(write(tmp_path, d))


def test_a_removed_flow_has_no_current(tmp_path):
    d = doc()
    d["flows"]["checkout"]["current"] = None
    d["flows"]["checkout"]["removed"] = True
    m = load_manifest(write(tmp_path, d))
    assert m.flows["checkout"].current is None and m.flows["checkout"].removed


def test_regex_family_that_does_not_compile_is_refused(tmp_path):
    d = doc()
    d["flows"]["checkout"]["versions"][CODE]["stepFamilies"] = [{"pattern": "(", "flags": 0}]
    with pytest.raises(ManifestError, match="holds an invalid regex"):
        load_manifest(write(tmp_path, d))


def test_not_json_names_line_and_column(tmp_path):
    p = tmp_path / "manifest.json"
    p.write_text('{"schema": "loom-manifest/1",\n  oops}')
    with pytest.raises(ManifestError, match=r"not valid UTF-8 JSON at line 2 column 3"):
        load_manifest(p)


def test_missing_file_says_to_build(tmp_path):
    with pytest.raises(ManifestError, match=r"cannot read manifest .*run `loom build`"):
        load_manifest(tmp_path / "nope.json")


def test_wrong_types_are_refused(tmp_path):
    d = copy.deepcopy(doc())
    d["flows"] = []
    with pytest.raises(ManifestError, match=r"key `flows` must be an object, got list"):
        load_manifest(write(tmp_path, d))
    d = doc()
    d["flows"]["checkout"]["removed"] = "no"
    with pytest.raises(ManifestError, match=r"removed` must be true or false"):
        load_manifest(write(tmp_path, d))


BAD_VALUES = [None, True, 0, -1, 1.5, "", "x", "sha256:" + "A" * 64, "../x.py", [], ["x"], [1], {}, {"a": 1}, {"a": "b"},
              [{"pattern": "p", "flags": 0}], [{"pattern": 1}]]
VERSION_KEYS = ["flowHash", "legacyFlowHash", "version", "steps", "stepFamilies", "compatibleWith", "chunk",
                "chunkDigest", "entry", "source", "closure"]


@pytest.mark.parametrize("key", VERSION_KEYS + ["source.path", "source.line", "source.sourceDigest",
                                                "source.closureSources"])
def test_a_malformed_value_is_read_or_refused_naming_its_key(key):
    # Whatever JSON value stands at a key, the reader either builds an entry or raises a
    # ManifestError naming that key (never a TypeError from deeper down, never another key).
    at = f"flows.checkout.versions.{CODE}.{key}"
    refused = 0
    for bad in BAD_VALUES:
        d = doc()
        v = d["flows"]["checkout"]["versions"][CODE]
        if key.startswith("source."):
            v["source"][key.split(".")[1]] = copy.deepcopy(bad)
        else:
            v[key] = copy.deepcopy(bad)
        try:
            Manifest.from_json(d, path="m.json")
        except ManifestError as exc:
            refused += 1
            assert exc.key is not None and exc.key.startswith(at), (key, bad, exc.key)
            assert "m.json" in str(exc) and "`checkout`" in str(exc), (key, bad)
    assert refused, f"no malformed value of {key} was refused"


@pytest.mark.parametrize("body, message", [
    ('{"schema": "loom-manifest/1", "flows": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply to read"),
    ('{"schema": "loom-manifest/1", "flows": {}, "x": ' + "7" * 5000 + "}", "integer of more than 4300 digits"),
], ids=["deep", "big-int"])
def test_pathological_json_is_a_manifest_error_for_tools_and_the_registry(tmp_path, body, message):
    from loom_runtime.registry import Registry

    p = tmp_path / "manifest.json"
    p.write_text(body)
    with pytest.raises(ManifestError, match=message):
        load_manifest(p)
    with pytest.raises(ManifestError, match=message):
        Registry.from_manifest(p)


def test_a_deeply_nested_flow_entry_in_the_canonical_layout_is_refused_on_first_use(tmp_path):
    from loom_runtime.manifest import ManifestDocument, Manifest, dump_manifest

    p = tmp_path / "manifest.json"
    canonical = dump_manifest(Manifest.from_json(doc())).decode()
    nested = "[" * 100_000 + "]" * 100_000
    p.write_text(canonical.replace('"removed": false', f'"removed": false, "x": {nested}'.replace(", ", ",\n      "), 1))
    document = ManifestDocument.read(p)
    with pytest.raises(ManifestError, match="its entry cannot be read: JSON nested too deeply"):
        document.flow("checkout")


def test_a_fifo_named_manifest_is_refused_not_waited_on(tmp_path):
    import os

    os.mkfifo(tmp_path / "manifest.json")
    with pytest.raises(ManifestError, match="cannot read manifest"):
        load_manifest(tmp_path / "manifest.json")
