"""Registry resolution rules (D2) for live registrations: pinning, compatible_with, absent hashes,
structure vs code mismatches, re-registration as a simulated deploy."""

from __future__ import annotations

import dataclasses

import pytest

from loom_runtime import (
    FlowCodeMismatchError,
    FlowDefinition,
    FlowDefinitionError,
    FlowNotFoundError,
    Registry,
    flow,
    flow_content_hash,
    legacy_flow_content_hash,
)

C0 = "sha256:" + "0" * 64
C1 = "sha256:" + "1" * 64
C2 = "sha256:" + "2" * 64
C3 = "sha256:" + "3" * 64


def make(flow_id="checkout", *, fp=None, compat=(), steps=("reserve", "charge"), version=1, result="v1"):
    @flow(flow_id, version=version, steps=steps, compatible_with=compat, code_fingerprint=fp)
    def body(ctx=None):
        return result

    return body


def test_in_memory_register_makes_the_current_version():
    reg = Registry()
    fn = make(fp=C1)
    v = reg.register(fn)
    assert v.origin == "live" and v.is_current and v.code_hash == C1
    assert v.flow_hash == flow_content_hash(fn.__loom_flow__)
    assert v.legacy_flow_hash == legacy_flow_content_hash(fn.__loom_flow__)
    assert reg.current("checkout") is v
    assert reg.versions("checkout") == (v,)
    assert reg.flow_ids() == ("checkout",)
    assert v.runner() is fn
    assert v.definition.code_fingerprint == C1 and v.definition.steps == ("reserve", "charge")
    assert reg.resolve("checkout") is v


def test_register_accepts_a_definition():
    fn = make(fp=C1)
    reg = Registry()
    v = reg.register(fn.__loom_flow__)
    assert v.runner() is fn


def test_register_refuses_an_undecorated_function():
    with pytest.raises(FlowDefinitionError, match="not a flow; decorate it with @loom_runtime.flow"):
        Registry().register(lambda ctx: None)


def test_a_bare_definition_resolves_but_cannot_run():
    reg = Registry()
    v = reg.register(FlowDefinition(id="bare", steps=("a",)))
    assert reg.resolve("bare", flow_hash=v.flow_hash) is v
    with pytest.raises(FlowDefinitionError, match="register the decorated function"):
        v.runner()


def test_unknown_flow_id_names_the_known_ones():
    reg = Registry()
    reg.register(make(fp=C1))
    with pytest.raises(FlowNotFoundError, match=r"flow `nope` is not registered\. Known flows: checkout"):
        reg.resolve("nope")
    with pytest.raises(FlowNotFoundError):
        reg.current("nope")
    with pytest.raises(FlowNotFoundError, match="No flows are registered"):
        Registry().versions("nope")


def test_flow_version_is_frozen():
    v = Registry().register(make(fp=C1))
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.code_hash = C2  # type: ignore[misc]


def test_deploy_in_one_process_pins_old_executions_to_their_code():
    reg = Registry()
    v1 = reg.register(make(fp=C1, result="old body"))
    v2 = reg.register(make(fp=C2, result="new body"))
    assert reg.current("checkout") is v2
    assert [v.code_hash for v in reg.versions("checkout")] == [C2, C1]
    assert [v.is_current for v in reg.versions("checkout")] == [True, False]
    pinned = reg.resolve("checkout", flow_hash=v1.flow_hash, code_hash=C1)
    assert pinned.code_hash == C1 and not pinned.is_current
    assert pinned.runner()() == "old body"
    assert reg.resolve("checkout", flow_hash=v2.flow_hash, code_hash=C2).runner()() == "new body"
    # New starts (nothing recorded) take the current version.
    assert reg.resolve("checkout") is reg.current("checkout")


def test_reregistering_the_same_fingerprint_replaces_it():
    reg = Registry()
    reg.register(make(fp=C1, result="a"))
    reg.register(make(fp=C2, result="b"))
    again = reg.register(make(fp=C1, result="c"))
    assert again.is_current
    assert [v.code_hash for v in reg.versions("checkout")] == [C1, C2]
    assert reg.resolve("checkout", code_hash=C1).runner()() == "c"


def test_compatible_with_lets_an_old_recording_run_on_the_current_version():
    reg = Registry()
    current = reg.register(make(fp=C2, compat=[C1], result="new"))
    v = reg.resolve("checkout", flow_hash=current.flow_hash, code_hash=C1)
    assert v is current and v.runner()() == "new"


def test_nothing_but_compatible_with_lets_an_unknown_code_hash_run():
    reg = Registry()
    # A non-current version's compatible_with does not count: only the current flow's assertion does.
    reg.register(make(fp=C1, compat=[C0], result="old"))
    current = reg.register(make(fp=C2, compat=[C3], result="new"))
    with pytest.raises(FlowCodeMismatchError) as info:
        reg.resolve("checkout", flow_hash=current.flow_hash, code_hash=C0)
    err = info.value
    assert err.kind == "code" and err.flow_id == "checkout" and err.recorded == C0
    assert set(err.available) == {C1, C2}
    msg = str(err)
    assert "flow `checkout`" in msg and C0 in msg and f"{C2} (current)" in msg
    assert "ship the old chunk" in msg and "loom build" in msg
    assert f'compatible_with=["{C0}"]' in msg and "resume_as" in msg


def test_code_mismatch_message_names_the_execution_when_given():
    reg = Registry()
    reg.register(make(fp=C2))
    with pytest.raises(FlowCodeMismatchError, match=r"execution `ex-7` of flow `checkout` started on codeHash") as info:
        reg.resolve("checkout", code_hash=C1, execution_id="ex-7")
    assert info.value.execution_id == "ex-7"


def test_allow_code_mismatch_bypasses_the_code_check_only():
    reg = Registry()
    current = reg.register(make(fp=C2))
    assert reg.resolve("checkout", flow_hash=current.flow_hash, code_hash=C1, allow_code_mismatch=True) is current
    with pytest.raises(FlowCodeMismatchError) as info:
        reg.resolve("checkout", flow_hash="sha256:" + "f" * 64, code_hash=C1, allow_code_mismatch=True)
    assert info.value.kind == "structure"


def test_absent_code_hash_on_either_side_compares_as_equal():
    reg = Registry()
    unfingerprinted = reg.register(make(fp=None))
    assert unfingerprinted.code_hash is None
    # Recorded a codeHash, the version has none: equal.
    assert reg.resolve("checkout", flow_hash=unfingerprinted.flow_hash, code_hash=C1) is unfingerprinted
    reg2 = Registry()
    fingerprinted = reg2.register(make(fp=C2))
    # Recorded none, the version has one: equal.
    assert reg2.resolve("checkout", flow_hash=fingerprinted.flow_hash, code_hash=None) is fingerprinted
    assert reg2.resolve("checkout", flow_hash=fingerprinted.flow_hash, code_hash="") is fingerprinted


def test_structure_mismatch_is_its_own_kind():
    reg = Registry()
    v = reg.register(make(fp=C1, steps=("reserve", "charge")))
    old = make(fp=C1, steps=("reserve", "charge", "ship")).__loom_flow__
    with pytest.raises(FlowCodeMismatchError) as info:
        reg.resolve("checkout", flow_hash=flow_content_hash(old), code_hash=C1)
    err = info.value
    assert err.kind == "structure" and err.recorded == flow_content_hash(old)
    assert err.available == (v.flow_hash,)
    assert "ship the version that started it" in str(err) and "resume_as" in str(err)


def test_unknown_flow_hash_prefix_is_a_structure_mismatch():
    reg = Registry()
    reg.register(make(fp=C1))
    with pytest.raises(FlowCodeMismatchError, match="structural flowHash md5:abc"):
        reg.resolve("checkout", flow_hash="md5:abc")


def test_legacy_fnv1a_recording_resolves_to_its_structure():
    reg = Registry()
    v1 = reg.register(make(fp=C1, version=1, result="one"))
    v2 = reg.register(make(fp=C2, version=2, result="two"))
    assert v1.legacy_flow_hash.startswith("fnv1a:")
    assert reg.resolve("checkout", flow_hash=v1.legacy_flow_hash, code_hash=C1).runner()() == "one"
    # No codeHash recorded (an old log): the structure alone picks the version.
    assert reg.resolve("checkout", flow_hash=v1.legacy_flow_hash).runner()() == "one"
    assert reg.resolve("checkout", flow_hash=v2.legacy_flow_hash).runner()() == "two"


def test_pinned_version_must_also_match_the_recorded_structure():
    reg = Registry()
    v1 = reg.register(make(fp=C1, version=1))
    reg.register(make(fp=C2, version=2))
    # Recorded structure of v1 with v2's codeHash: inconsistent, refused as a code mismatch.
    with pytest.raises(FlowCodeMismatchError) as info:
        reg.resolve("checkout", flow_hash=v1.flow_hash, code_hash=C2)
    assert info.value.kind == "code"


def test_unfingerprinted_live_versions_are_kept_per_structure():
    reg = Registry()
    v1 = reg.register(make(version=1, result="one"))
    v2 = reg.register(make(version=2, result="two"))
    assert reg.current("checkout").flow_hash == v2.flow_hash
    assert reg.resolve("checkout", flow_hash=v1.flow_hash, code_hash=C1).runner()() == "one"
    assert len(reg.versions("checkout")) == 2


def test_import_leaves_out_what_only_a_packaged_bundle_or_a_writer_needs():
    # importlib.resources (Registry.from_package) and tempfile (atomic writes, a zipped bundle)
    # pull in shutil, bz2 and lzma: a service that never uses them must not pay for them at import.
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import sys, loom_runtime\n"
        "eager = sorted({'importlib.resources', 'tempfile', 'shutil'} & set(sys.modules))\n"
        "assert not eager, eager\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
