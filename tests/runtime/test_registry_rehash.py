"""D2 after a scheme upgrade: an execution that recorded a loom-fp/1 hash is served by the version
that lists it in ``rehashedFrom`` (the same code, rehashed), with no ``compatible_with`` line.

The bundles are hand-built (real chunk files, the real manifest writer): ``v1`` is the fp/1 entry,
``v1-fp2`` the fp/2 entry of the same code. The two chunks return different strings only so the
test can see which one served; in a real bundle they are built from the same bytes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "registry"))
from registry_kit import Spec, code, flow_chunk, write_bundle, forget_chunk_modules  # noqa: E402,F401 (autouse fixture)

from loom_runtime import FlowCodeMismatchError, Registry, flow  # noqa: E402

STEPS = ("a",)


def spec(label: str, result: str, **over) -> Spec:
    return Spec("checkout", label, flow_chunk("checkout", result=result, steps=STEPS), steps=STEPS, **over)


def upgraded(tmp_path: Path, *, extra: tuple[Spec, ...] = (), current: str = "v1-fp2") -> Path:
    return write_bundle(
        tmp_path,
        [
            spec("v0", "fp/1 chunk of v0"),
            spec("v1", "fp/1 chunk of v1"),
            spec("v1-fp2", "fp/2 entry of v1", scheme="loom-fp/2", rehashed_from=("v1",)),
            *extra,
        ],
        current={"checkout": current},
    )


def test_a_recorded_fp1_hash_is_served_by_the_version_that_rehashes_it(tmp_path):
    reg = Registry.from_manifest(upgraded(tmp_path))
    served = reg.resolve("checkout", code_hash=code("v1"))
    assert served.code_hash == code("v1-fp2") and served.rehashed_from == (code("v1"),)
    assert served.runner()() == "fp/2 entry of v1"
    assert code("v1") not in served.compatible_with  # no compatible_with line is involved


def test_an_fp1_hash_nothing_rehashes_stays_pinned_to_its_old_chunk(tmp_path):
    reg = Registry.from_manifest(upgraded(tmp_path))
    pinned = reg.resolve("checkout", code_hash=code("v0"))
    assert pinned.code_hash == code("v0") and pinned.runner()() == "fp/1 chunk of v0"


def test_the_rehashing_version_serves_after_it_stops_being_current(tmp_path):
    later = spec("v2-fp2", "fp/2 entry of v2", scheme="loom-fp/2")
    reg = Registry.from_manifest(upgraded(tmp_path, extra=(later,), current="v2-fp2"))
    assert reg.current("checkout").code_hash == code("v2-fp2")
    assert reg.resolve("checkout", code_hash=code("v1")).code_hash == code("v1-fp2")


def test_it_still_serves_after_gc_dropped_the_fp1_version(tmp_path):
    path = write_bundle(
        tmp_path, [spec("v1-fp2", "fp/2 entry of v1", scheme="loom-fp/2", rehashed_from=("v1",))],
        current={"checkout": "v1-fp2"},
    )
    reg = Registry.from_manifest(path)
    assert reg.resolve("checkout", code_hash=code("v1")).code_hash == code("v1-fp2")


def test_the_structure_must_match_or_the_link_is_not_taken(tmp_path):
    reg = Registry.from_manifest(upgraded(tmp_path))
    other_structure = "sha256:" + "7" * 64
    with pytest.raises(FlowCodeMismatchError) as info:
        reg.resolve("checkout", flow_hash=other_structure, code_hash=code("v1"))
    assert info.value.kind == "structure"
    recorded = reg.versions("checkout")[0].flow_hash
    assert reg.resolve("checkout", flow_hash=recorded, code_hash=code("v1")).code_hash == code("v1-fp2")


def test_an_unknown_hash_is_still_a_mismatch(tmp_path):
    reg = Registry.from_manifest(upgraded(tmp_path))
    with pytest.raises(FlowCodeMismatchError) as info:
        reg.resolve("checkout", code_hash=code("never built"))
    assert info.value.kind == "code"


def test_live_code_bound_to_the_rehashing_version_serves_its_fp1_executions(tmp_path):
    # register() binds live code to the manifest's current version when its sources match; the
    # live version replaces that chunk version and must keep what it was rehashed from.
    @flow("checkout", steps=list(STEPS), code_fingerprint=code("v1-fp2"))
    def run(ctx=None):
        return "live code"

    reg = Registry.from_manifest(upgraded(tmp_path))
    live = reg.register(run)
    assert live.origin == "live" and live.rehashed_from == (code("v1"),)
    served = reg.resolve("checkout", code_hash=code("v1"))
    assert served.origin == "live" and served.runner()() == "live code"
