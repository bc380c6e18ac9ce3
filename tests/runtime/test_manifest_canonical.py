"""The canonical-layout fast path of ``ManifestDocument.read`` reads exactly what a full decode
reads, for anything ``dump_manifest`` can write, and falls back (or refuses) otherwise."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loom_runtime import ManifestError, Registry, load_manifest
from loom_runtime.manifest import (
    FlowEntry,
    Manifest,
    ManifestDocument,
    SourceRef,
    VersionEntry,
    _Span,
    _split_canonical,
    dump_manifest,
)

HEX = "0123456789abcdef"
hashes = st.text(HEX, min_size=64, max_size=64).map(lambda h: "sha256:" + h)
names = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
modules = st.lists(st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True), min_size=1, max_size=3).map(".".join)


@st.composite
def version_entries(draw, code_hash: str) -> VersionEntry:
    families = draw(st.lists(st.one_of(names, st.sampled_from([re.compile(r"tool:\d{1,3}"), re.compile("x{2}", re.I)])),
                             max_size=3))
    return VersionEntry(
        code_hash=code_hash,
        flow_hash=draw(hashes),
        legacy_flow_hash="fnv1a:" + draw(st.text(HEX, min_size=8, max_size=8)),
        version=draw(st.integers(1, 5)),
        steps=tuple(draw(st.lists(names, max_size=4, unique=True))),
        step_families=tuple(families),
        compatible_with=tuple(draw(st.lists(hashes, max_size=2))),
        chunk="chunks/" + draw(st.text("abc-_", min_size=1, max_size=8)) + "/x.py",
        chunk_digest=draw(hashes),
        entry=draw(st.sampled_from(["run", "Flows.run", "checkout"])),
        source=SourceRef(path=draw(names), line=draw(st.integers(1, 999)), source_digest=draw(hashes),
                         closure_sources=draw(st.none() | st.dictionaries(modules, hashes, max_size=3))),
        closure=draw(st.dictionaries(names, hashes, max_size=3)),
    )


@st.composite
def manifests(draw) -> Manifest:
    flows = {}
    for flow_id in draw(st.lists(names, max_size=4, unique=True)):
        code_hashes = draw(st.lists(hashes, max_size=3, unique=True))
        versions = {h: draw(version_entries(h)) for h in code_hashes}
        removed = not versions or draw(st.booleans())
        current = None if removed else draw(st.sampled_from(code_hashes))
        flows[flow_id] = FlowEntry(flow_id=flow_id, current=current, versions=versions, removed=removed)
    return Manifest(flows=flows)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(m=manifests())
def test_canonical_reader_reads_what_a_full_decode_reads(tmp_path, m):
    path = tmp_path / "manifest.json"
    data = dump_manifest(m)
    path.write_bytes(data)
    assert _split_canonical(data) is not None, "dump_manifest output must take the fast path"
    document = ManifestDocument.read(path)
    assert all(isinstance(v, _Span) for v in document.flows.values())
    assert {fid: document.flow(fid) for fid in document.flows} == dict(load_manifest(path).flows) == dict(m.flows)


def sample() -> Manifest:
    def version(code: str, fam=()) -> VersionEntry:
        return VersionEntry(code_hash=code, flow_hash="sha256:" + "1" * 64, legacy_flow_hash="fnv1a:00000000", version=1,
                            steps=("a",), step_families=fam, compatible_with=(), chunk="chunks/x.py",
                            chunk_digest="sha256:" + "2" * 64, entry="run",
                            source=SourceRef("app/flows.py", 1, "sha256:" + "3" * 64))

    a, b = "sha256:" + "a" * 64, "sha256:" + "b" * 64
    return Manifest(flows={
        'odd "id"\\\n': FlowEntry('odd "id"\\\n', a, {a: version(a, (re.compile(r"x\d{2}"),))}),
        "plain": FlowEntry("plain", b, {b: version(b)}),
    })


def test_ids_with_escapes_and_regex_braces_take_the_fast_path(tmp_path):
    data = dump_manifest(sample())
    split = _split_canonical(data)
    assert split is not None and set(split[1]) == {'odd "id"\\\n', "plain"}


def test_an_empty_manifest_takes_the_fast_path():
    data = dump_manifest(Manifest(flows={}))
    assert _split_canonical(data) == ({"fingerprintScheme": "loom-fp/2", "schema": "loom-manifest/1"}, {})


@pytest.mark.parametrize(
    "rewrite",
    [
        lambda d: json.dumps(d),  # compact
        lambda d: json.dumps(d, indent=4, sort_keys=True),  # another indent
        lambda d: json.dumps(d, indent=2),  # unsorted keys keep the order they were built in
    ],
)
def test_other_layouts_are_decoded_in_full_with_the_same_result(tmp_path, rewrite):
    m = sample()
    doc = m.to_json()
    doc = {"schema": doc["schema"], "flows": doc["flows"], "fingerprintScheme": doc["fingerprintScheme"]}
    text = rewrite(doc)
    assert _split_canonical(text.encode()) is None
    path = tmp_path / "manifest.json"
    path.write_text(text)
    document = ManifestDocument.read(path)
    assert {fid: document.flow(fid) for fid in document.flows} == dict(m.flows)


def test_unknown_schema_is_refused_on_the_fast_path_too(tmp_path):
    path = tmp_path / "manifest.json"
    path.write_bytes(dump_manifest(sample()).replace(b'"loom-manifest/1"', b'"loom-manifest/7"'))
    with pytest.raises(ManifestError, match="unknown manifest schema 'loom-manifest/7'"):
        ManifestDocument.read(path)


def test_a_corrupt_flow_entry_refuses_that_flow_at_first_use(tmp_path):
    data = dump_manifest(sample())
    # Break the JSON inside the first flow's entry without touching the layout's glue.
    broken = data.replace(b'"removed": false,', b'"removed": false,,', 1)
    path = tmp_path / "manifest.json"
    path.write_bytes(broken)
    reg = Registry.from_manifest(path)
    with pytest.raises(ManifestError, match=r'flow `odd "id"\\\n`: its entry is not valid UTF-8 JSON \(line \d+ of its entry\)'):
        reg.resolve('odd "id"\\\n')
    assert reg.current("plain").code_hash == "sha256:" + "b" * 64
    with pytest.raises(ManifestError, match="not valid UTF-8 JSON at line"):
        load_manifest(path)  # the tools' reader refuses the whole file


def test_garbage_between_flows_is_not_skipped(tmp_path):
    data = dump_manifest(sample())
    path = tmp_path / "manifest.json"
    path.write_bytes(data.replace(b"\n    },\n", b"\n    },\n    garbage\n", 1))
    assert _split_canonical(path.read_bytes()) is None
    with pytest.raises(ManifestError, match="not valid UTF-8 JSON at line"):
        Registry.from_manifest(path)


def test_a_truncated_file_is_refused_at_load(tmp_path):
    data = dump_manifest(sample())
    path = tmp_path / "manifest.json"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ManifestError, match="not valid UTF-8 JSON"):
        Registry.from_manifest(path)


@pytest.mark.parametrize("canonical", [True, False])
def test_an_empty_flow_id_is_refused_in_either_layout(tmp_path, canonical):
    m = sample()
    flows = dict(m.flows)
    flows[""] = flows.pop("plain")
    data = dump_manifest(Manifest(flows=flows))
    if not canonical:
        data = json.dumps(json.loads(data)).encode()
    assert (_split_canonical(data) is not None) is canonical
    path = tmp_path / "manifest.json"
    path.write_bytes(data)
    with pytest.raises(ManifestError, match=r"key `flows` holds an empty flow id"):
        ManifestDocument.read(path)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(st.characters(blacklist_categories=("Cs",))),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_the_manifest_dump_writes_what_json_dumps_writes(doc):
    from loom_runtime.manifest import _indented_json

    assert _indented_json(doc) == json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False)


class _Tag(str):
    pass


@pytest.mark.parametrize("doc", [
    {1: "int key"}, {"a": (1, [2, ()]), "b": {}}, {"s": _Tag("sub")}, [float("nan"), float("-inf")],
    {"\u2028 \x00 \"q\" \\\\": ["é", "\U0001f600"]}, 10**30, -0.0, [[[]]],
])
def test_the_manifest_dump_agrees_on_the_values_json_treats_specially(doc):
    from loom_runtime.manifest import _indented_json

    assert _indented_json(doc) == json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False)
