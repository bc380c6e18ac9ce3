"""The summary cache: content-addressed keys, atomic entries, and entries that can only be values.

An entry is plain JSON rebuilt into the annotated dataclasses with every value checked
(``cache_codec``): a crafted, truncated, foreign or wrongly typed entry is a cache miss, never code
run inside ``loom build`` and never a crashed build.
"""

from __future__ import annotations

import enum
import json
import os
import pickle
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Optional

import pytest

from loom_compiler.analysis import ModuleSummary, analyse_module
from loom_compiler.bundle.build import FlowsEntry, build_project
from loom_compiler.bundle.cache import FORMAT, SummaryCache, cache_key, decode_entry, encode_entry
from loom_compiler.bundle.cache_codec import CacheFormatError, decode, encode, schema_digest
from loom_compiler.config import load_config
from loom_compiler.model import SourceError

from helpers.git_repo import copy_project

DATA = Path(__file__).parent / "data" / "bundle_shop"
SUMMARY = ModuleSummary | SourceError


def key(**over):
    args = {"config_digest": "sha256:" + "1" * 64, "module": "shop.flows", "path": "shop/flows.py",
            "content_sha256": "ab" * 32, "value_type": SUMMARY}
    args.update(over)
    return cache_key(**args)


def test_key_changes_with_every_input_that_shapes_a_summary():
    base = key()
    assert key() == base
    assert len({base, key(config_digest="sha256:" + "2" * 64), key(module="shop.other"), key(path="src/shop/flows.py"),
                key(content_sha256="cd" * 32), key(kind="flows"), key(value_type=SourceError)}) == 7


def test_put_then_get_round_trips_and_counts(tmp_path):
    cache = SummaryCache(tmp_path / ".loom-cache")
    value = SourceError("shop/flows.py", 3, 4, "bad")
    assert cache.get(key(), SUMMARY) is None
    cache.put(key(), value, SUMMARY)
    assert cache.get(key(), SUMMARY) == value  # before the write landed, too
    cache.flush()
    assert SummaryCache(tmp_path / ".loom-cache").get(key(), SUMMARY) == value
    assert (cache.hits, cache.misses) == (1, 1)
    assert not list((tmp_path / ".loom-cache").rglob("*.tmp"))


def test_disabled_cache_stores_nothing(tmp_path):
    cache = SummaryCache(tmp_path / "c", enabled=False)
    cache.put(key(), SourceError("a.py", 1, 1, "x"), SUMMARY)
    cache.flush()
    assert cache.get(key(), SUMMARY) is None and not (tmp_path / "c").exists()


# -- entries are values, never code -----------------------------------------------------------------


class _Evil:
    """Unpickling this runs ``os.system``: what a crafted pickle entry could do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(DATA, tmp_path / "shop")


def _entries(root: Path) -> list[Path]:
    found = sorted(p for p in (root / ".loom-cache" / "entries").iterdir() if not p.name.startswith("."))
    assert found, "the first build wrote no cache entries"
    return found


@pytest.mark.parametrize("payload", ["code", "wrong type", "garbage"])
def test_a_crafted_entry_runs_nothing_and_is_a_miss(project: Path, tmp_path: Path, payload: str):
    first = build_project(load_config(project))
    assert first.ok
    marker = tmp_path / "pwned"
    data = {
        "code": pickle.dumps(_Evil(marker)),
        "wrong type": pickle.dumps({"not": "a summary"}),  # today: KeyError out of the build
        "garbage": b"\x80\x05garbage",
    }[payload]
    for entry in _entries(project):
        entry.write_bytes(data)
    manifest_before = first.manifest_path.read_bytes()
    again = build_project(load_config(project))
    assert not marker.exists(), "a cache entry executed code inside loom build"
    assert again.ok and again.manifest_path.read_bytes() == manifest_before
    assert set(again.parsed) >= {"shop.flows"}  # every entry was a miss: parsed again


def test_a_build_rewrites_entries_it_could_not_read_and_then_hits(project: Path):
    build_project(load_config(project))
    for entry in _entries(project):
        entry.write_bytes(b"{}")
    build_project(load_config(project))
    third = build_project(load_config(project))
    assert third.parsed == () and third.refingerprinted == ()


def _mutations(doc: Any):
    """Every single-node replacement of ``doc`` by a value of another JSON kind (or a deep/huge one)."""
    replacements = [None, True, 7, 2.5, "x", [], {}, [[[[]]]], {"k": 1}]
    yield 10**30
    yield replacements[0]
    for alt in replacements:
        if type(alt) is not type(doc):
            yield alt
    if isinstance(doc, list):
        for i, item in enumerate(doc):
            for m in _mutations(item):
                yield [*doc[:i], m, *doc[i + 1:]]
        yield doc[:-1]
        yield [*doc, None]
    elif isinstance(doc, dict):
        for k, item in doc.items():
            for m in _mutations(item):
                yield {**doc, k: m}


def test_every_mutation_of_a_real_entry_is_a_miss_or_a_value_of_the_type(project: Path):
    text = (project / "shop" / "flows.py").read_bytes()
    summary = analyse_module(text, module="shop.flows", path="shop/flows.py", config=load_config(project))
    assert isinstance(summary, ModuleSummary)
    doc = json.loads(encode(summary, SUMMARY))
    checked = total = 0
    for mutated in _mutations(doc):
        total += 1
        data = json.dumps(mutated).encode()
        try:
            value = decode(data, SUMMARY)
        except CacheFormatError:
            continue
        assert isinstance(value, (ModuleSummary, SourceError))  # a valid variant: still the type
        checked += 1
    # most mutations must be refused, not coerced: at most 6 % come back as a valid variant (a
    # ratio, not a count: every field of a summary adds valid variants of its own, such as any
    # string for a string field; 188 of 3,536 before the inherited-MRO fields, 207 of 3,835 after)
    assert checked * 100 < total * 6, (checked, total)


@pytest.mark.parametrize("data", [
    b"[" * 100_000 + b"]" * 100_000,
    b"[0, " + b"9" * 5000 + b"]",
    b"\xff\xfe",
    b"",
    b'{"__reduce__": "os.system"}',
])
def test_pathological_json_is_a_format_error(data: bytes):
    with pytest.raises(CacheFormatError):
        decode(data, SUMMARY)


def test_an_entry_read_under_another_key_is_refused(tmp_path: Path):
    value = SourceError("a.py", 1, 2, "bad")
    data = encode_entry(key(), value, SUMMARY)
    assert decode_entry(key(), data, SUMMARY) == value
    with pytest.raises(CacheFormatError, match=f"not a {FORMAT} entry for this key"):
        decode_entry(key(module="other"), data, SUMMARY)


def _one_byte_changed(data: bytes, old: bytes, new: bytes) -> bytes:
    assert data.count(old) == 1 and len(old) == len(new)
    return data.replace(old, new)


def test_a_damaged_entry_whose_json_stays_valid_is_refused_and_read_as_a_miss(tmp_path: Path):
    # breaker5's F5: one byte inside a string keeps the JSON valid and the value well typed;
    # only the header's digest of the body tells the entry is not what was written
    value = SourceError("a.py", 1, 2, "RATE = 1")
    data = encode_entry(key(), value, SUMMARY)
    damaged = _one_byte_changed(data, b"RATE = 1", b"RATE = 0")
    decode(damaged.split(b"\n", 1)[1], SUMMARY)  # still a well-typed value without the digest
    with pytest.raises(CacheFormatError, match="damaged"):
        decode_entry(key(), damaged, SUMMARY)
    cache = SummaryCache(tmp_path)
    cache.put(key(), value, SUMMARY)
    cache.flush()
    cache._path(key()).write_bytes(damaged)
    fresh = SummaryCache(tmp_path)
    assert fresh.get(key(), SUMMARY) is None and fresh.misses == 1
    cache._path(key()).write_bytes(data)
    assert SummaryCache(tmp_path).get(key(), SUMMARY) == value


@pytest.mark.parametrize("header", [
    "{format} {key}\n",  # the previous format's header: no digest
    "{format} {key} {digest}\n\n",  # a byte added after the header
    "{format} {key} {digest} \n",
    "{format} {key} {other}\n",  # the digest of other bytes
    "{format} {key} {upper}\n",
])
def test_an_entry_whose_header_does_not_record_its_bytes_is_refused(header: str):
    import hashlib

    value = SourceError("a.py", 1, 2, "x")
    body = encode_entry(key(), value, SUMMARY).split(b"\n", 1)[1]
    digest = hashlib.sha256(body).hexdigest()
    data = header.format(format=FORMAT, key=key(), digest=digest, other=hashlib.sha256(b"x").hexdigest(),
                         upper=digest.upper()).encode() + body
    with pytest.raises(CacheFormatError):
        decode_entry(key(), data, SUMMARY)
    assert decode_entry(key(), f"{FORMAT} {key()} {digest}\n".encode() + body, SUMMARY) == value


def test_an_entry_named_by_its_content_is_served_only_under_that_name(tmp_path: Path):
    import hashlib

    value = SourceError("a.py", 1, 2, "x")
    body = encode(value, SUMMARY)
    cache = SummaryCache(tmp_path)
    cache.put(key(), value, SUMMARY, encoded=body)
    cache.flush()
    assert SummaryCache(tmp_path).get(key(), SUMMARY, content_sha256=hashlib.sha256(body).hexdigest()) == value
    assert SummaryCache(tmp_path).get(key(), SUMMARY, content_sha256="0" * 64) is None


def test_a_fifo_or_directory_in_place_of_an_entry_is_a_miss_not_a_hang(tmp_path: Path):
    cache = SummaryCache(tmp_path)
    cache.put(key(), SourceError("a.py", 1, 1, "x"), SUMMARY)
    cache.flush()
    path = cache._path(key())
    path.unlink()
    os.mkfifo(path)  # opening it for reading would block forever
    assert SummaryCache(tmp_path).get(key(), SUMMARY) is None
    path.unlink()
    path.mkdir()
    assert SummaryCache(tmp_path).get(key(), SUMMARY) is None


# -- the codec is generic over dataclass fields -------------------------------------------------------


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True, slots=True)
class Leaf:
    name: str
    weight: float = 1.0


@dataclass(frozen=True, slots=True)
class Node:
    kind: Literal["a", "b"]
    count: int
    flag: bool
    colour: Colour
    maybe: Optional[str]
    number: int | float | str | None
    leaves: tuple[Leaf, ...]
    pair: tuple[str, int]
    names: frozenset[str]
    table: dict[str, tuple[int, ...]]
    pattern: re.Pattern[str]
    either: Leaf | SourceError
    children: tuple["Node", ...] = ()
    extra: list[str] = field(default_factory=list)


def _node(**over) -> Node:
    args = dict(kind="a", count=3, flag=True, colour=Colour.BLUE, maybe=None, number=2.0,
                leaves=(Leaf("x"), Leaf("y", 0.5)), pair=("p", 1), names=frozenset({"n", "m"}),
                table={"t": (1, 2)}, pattern=re.compile("pack#\\d+", re.I), either=SourceError("f.py", 1, 2, "m"))
    args.update(over)
    return Node(**args)


def test_a_dataclass_round_trips_through_its_fields_without_any_codec_code():
    value = _node(children=(_node(kind="b", number="s", maybe="m", either=Leaf("z")),))
    back = decode(encode(value, Node), Node)
    assert back == value and type(back.number) is float and type(back.children[0].either) is Leaf


@pytest.mark.parametrize("path, bad", [
    ((1,), True),          # count: a bool is no int
    ((2,), 1),             # flag: an int is no bool
    ((0,), "c"),           # kind: not among the literals
    ((3,), "green"),       # colour: not a member
    ((7,), ["p", 1, 2]),   # pair: a fixed tuple of two
    ((10,), {"pattern": "(", "flags": 0}),  # an invalid regex
    ((11,), [0, ["f.py", 1, 2]]),           # either: the tag says Leaf, the fields do not fit
])
def test_a_value_of_the_wrong_type_is_refused_on_read(path, bad):
    doc = json.loads(encode(_node(), Node))
    target = doc
    for i in path[:-1]:
        target = target[i]
    target[path[-1]] = bad
    with pytest.raises(CacheFormatError):
        decode(json.dumps(doc), Node)


def test_a_field_change_changes_the_schema_digest():
    @dataclass(frozen=True)
    class V1:
        a: str

    @dataclass(frozen=True)
    class V2:
        a: str
        b: int = 0

    @dataclass(frozen=True)
    class V3:
        a: int

    V2.__qualname__ = V3.__qualname__ = V1.__qualname__
    assert len({schema_digest(V1), schema_digest(V2), schema_digest(V3)}) == 3


def test_a_field_that_cannot_be_plain_json_fails_the_put_naming_it(tmp_path: Path):
    @dataclass(frozen=True)
    class Holder:
        payload: Any

    with pytest.raises(TypeError, match=r"Holder\.payload: a value annotated typing\.Any cannot be cached"):
        SummaryCache(tmp_path).put(key(value_type=Holder), Holder(object()), Holder)


def test_real_summaries_and_flow_entries_round_trip(project: Path):
    report = build_project(load_config(project))
    cache = SummaryCache(project / ".loom-cache")
    seen = {"summary": 0, "flows": 0}
    for entry in _entries(project):
        data = entry.read_bytes()
        k = entry.stem
        for kind, tp in (("summary", SUMMARY), ("flows", FlowsEntry)):
            try:
                value = decode_entry(k, data, tp)
            except CacheFormatError:
                continue
            assert decode_entry(k, encode_entry(k, value, tp), tp) == value
            seen[kind] += 1
    assert seen["summary"] >= 3 and seen["flows"] >= 2, seen
    assert cache.hits == 0 and report.ok


def test_the_compiler_tokens_hash_every_source_file_in_path_order(tmp_path: Path):
    # read once for both tokens (``package_sources``): the same bytes, in the order and with the
    # exclusions the tokens were defined by (a pathlib walk per token)
    import hashlib

    from loom_compiler.bundle import cache as cache_module

    pkg = Path(cache_module.__file__).resolve().parent.parent
    for with_bundler in (False, True):
        h = hashlib.sha256()
        for path in sorted(pkg.rglob("*.py")):
            rel = path.relative_to(pkg).as_posix()
            if rel.startswith("commands/") or rel in ("cli.py", "__main__.py") or (
                    rel.startswith("bundle/") and not with_bundler):
                continue
            h.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
        assert cache_module.compiler_token(with_bundler=with_bundler) == h.hexdigest()
    # component-wise order, as pathlib sorts: ``a/z.py`` before ``a.b/x.py`` ('/' sorts after '.')
    for rel in ("a/z.py", "a.b/x.py", "a_c.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(rel)
    got = [rel for rel, _data in cache_module.package_sources(str(tmp_path))]
    assert got == [p.relative_to(tmp_path).as_posix() for p in sorted(tmp_path.rglob("*.py"))] == ["a/z.py", "a.b/x.py", "a_c.py"]
