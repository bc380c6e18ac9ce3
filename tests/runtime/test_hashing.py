import hashlib

import pytest

from loom_runtime import FlowDefinition, flow, flow_content_hash, flow_hash_matches, legacy_flow_content_hash
from loom_runtime.hashing import canonical_flow_structure, fnv1a_32, sha256_digest


@pytest.mark.parametrize(
    ("data", "expected"),
    [(b"", 0x811C9DC5), (b"a", 0xE40C292C), (b"foobar", 0xBF9CF968)],
)
def test_fnv1a_32_reference_vectors(data, expected):
    assert fnv1a_32(data) == expected


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (b"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (
            b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
        ),
    ],
)
def test_sha256_fips_180_4_vectors(data, expected):
    assert sha256_digest(data) == "sha256:" + expected


def test_canonical_structure_is_sorted_compact_utf8_in_declared_order():
    d = FlowDefinition(id="checkout", version=2, steps=("reserve", "charge", "ship"))
    assert canonical_flow_structure(d) == (
        b'{"deadline":null,"id":"checkout","steps":["reserve","charge","ship"],"version":2}'
    )
    assert canonical_flow_structure(FlowDefinition(id="\u00e9")) == b'{"deadline":null,"id":"\xc3\xa9","steps":[],"version":1}'


def test_golden_structural_hashes():
    d = FlowDefinition(id="checkout", version=2, steps=("reserve", "charge", "ship"))
    assert flow_content_hash(d) == "sha256:c70066d655b2900172d4610aa485f0ed0953cf5385257bce28d9630a406c4d3b"
    assert legacy_flow_content_hash(d) == "fnv1a:8b8dcaac"
    assert flow_content_hash(d) == "sha256:" + hashlib.sha256(canonical_flow_structure(d)).hexdigest()


def test_structure_ignores_compatible_with_and_fingerprint_but_not_steps_order():
    base = FlowDefinition(id="f", steps=("a", "b"))
    assert flow_content_hash(base) == flow_content_hash(
        FlowDefinition(id="f", steps=("a", "b"), compatible_with=("fnv1a:00000000",), code_fingerprint="sha256:" + "0" * 64)
    )
    assert flow_content_hash(base) != flow_content_hash(FlowDefinition(id="f", steps=("b", "a")))
    assert flow_content_hash(base) != flow_content_hash(FlowDefinition(id="f", steps=("a", "b"), version=2))
    assert flow_content_hash(base) != flow_content_hash(FlowDefinition(id="f", steps=("a", "b"), deadline=60))


def test_flow_hash_matches_accepts_both_forms_and_absent():
    d = FlowDefinition(id="f", steps=("a",))
    other = FlowDefinition(id="f", steps=("a", "b"))
    assert flow_hash_matches(flow_content_hash(d), d)
    assert flow_hash_matches(legacy_flow_content_hash(d), d)
    assert flow_hash_matches(None, d) and flow_hash_matches("", d)
    assert not flow_hash_matches(flow_content_hash(other), d)
    assert not flow_hash_matches(legacy_flow_content_hash(other), d)
    assert not flow_hash_matches("md5:abc", d)


def test_flow_decorator_returns_function_unchanged_and_attaches_definition():
    def body(ctx):
        return 1

    decorated = flow("f", version=3, steps=["a"], step_families=["pack"])(body)
    assert decorated is body
    defn = FlowDefinition.from_function(body)
    assert defn.id == "f" and defn.version == 3 and defn.steps == ("a",) and defn.fn is body


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"id": ""}, "non-empty string"),
        ({"id": "f", "version": 0}, "positive int"),
        ({"id": "f", "steps": "abc"}, "must be a list"),
        ({"id": "f", "steps": ("a", "a")}, "declared twice: a"),
        ({"id": "f", "compatible_with": ("nope",)}, "compatible_with"),
        ({"id": "f", "step_families": (3,)}, "step_families"),
        ({"id": "f", "deadline": True}, "deadline"),
    ],
)
def test_bad_definitions_are_refused_with_the_key(kwargs, match):
    from loom_runtime import FlowDefinitionError

    with pytest.raises(FlowDefinitionError, match=match):
        FlowDefinition(**kwargs)
