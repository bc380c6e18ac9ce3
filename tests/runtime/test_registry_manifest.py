"""The registry over a ``loom build`` bundle: side-by-side versions, lazy verified chunks, the
binding of live code to the manifest and stale-manifest detection."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "registry"))
from registry_kit import Spec, code, digest, flow_chunk, write_bundle, forget_chunk_modules  # noqa: E402,F401 (autouse fixture)

from loom_runtime import (  # noqa: E402
    ChunkIntegrityError,
    FlowCodeMismatchError,
    ManifestError,
    Registry,
    StaleManifestError,
    StaleManifestWarning,
    flow,
)
from loom_runtime.chunks import CHUNK_NAMESPACE  # noqa: E402
from loom_runtime.registry import PACKAGE_MANIFEST_DIR  # noqa: E402



def chunk_modules() -> set[str]:
    return {n for n in sys.modules if n.startswith(CHUNK_NAMESPACE + ".")}


def two_version_bundle(tmp_path: Path, flow_id: str = "checkout") -> Path:
    return write_bundle(
        tmp_path,
        [
            Spec(flow_id, "v1", flow_chunk(flow_id, result="helper of v1", steps=("a",)), steps=("a",)),
            Spec(flow_id, "v2", flow_chunk(flow_id, result="helper of v2", steps=("a",)), steps=("a",)),
        ],
        current={flow_id: "v2"},
    )


def test_two_versions_of_one_flow_run_side_by_side_each_with_its_own_helper(tmp_path):
    reg = Registry.from_manifest(two_version_bundle(tmp_path))
    before = chunk_modules()
    assert reg.current("checkout").code_hash == code("v2")
    assert [v.origin for v in reg.versions("checkout")] == ["chunk", "chunk"]
    v1 = reg.resolve("checkout", code_hash=code("v1"))
    v2 = reg.resolve("checkout", code_hash=code("v2"))
    # Resolution is metadata only: nothing was executed yet.
    assert not v1.loaded and not v2.loaded and chunk_modules() == before
    r1, r2 = v1.runner(), v2.runner()
    assert r1() == "helper of v1" and r2() == "helper of v2"
    assert r1.__module__ != r2.__module__
    assert {r1.__module__, r2.__module__} <= chunk_modules()
    assert all(m.startswith("_loom_chunks.checkout_") for m in (r1.__module__, r2.__module__))
    # Each helper is resolved in its own chunk's globals: the two never see each other.
    assert sys.modules[r1.__module__].helper is not sys.modules[r2.__module__].helper
    assert r1.__code__.co_filename.endswith(".py") and "chunks/checkout" in r1.__code__.co_filename
    # The registry's definition carries the version's codeHash although the chunk's decorator has none.
    assert v1.definition.code_fingerprint == code("v1") and r1.__loom_flow__.code_fingerprint is None
    assert v1.definition.fn is r1


def test_versions_load_lazily_once(tmp_path):
    reg = Registry.from_manifest(two_version_bundle(tmp_path))
    v1 = reg.resolve("checkout", code_hash=code("v1"))
    assert v1.runner() is v1.runner()
    assert v1.loaded
    assert not reg.resolve("checkout", code_hash=code("v2")).loaded


def test_a_chunk_edited_by_one_byte_is_refused_before_it_runs(tmp_path):
    marker = tmp_path / "executed"
    source = flow_chunk("checkout", result="x", extra=f"open({str(marker)!r}, 'w').close()\n")
    path = write_bundle(tmp_path, [Spec("checkout", "v1", source)], current={"checkout": "v1"})
    chunk = next((tmp_path / "chunks").rglob("*.py"))
    data = bytearray(chunk.read_bytes())
    data[-2] ^= 0x01  # one byte in the last line
    chunk.write_bytes(bytes(data))
    reg = Registry.from_manifest(path)
    v = reg.resolve("checkout", code_hash=code("v1"))  # resolving needs no chunk
    with pytest.raises(ChunkIntegrityError, match=r"chunk of flow `checkout` .* does not match the manifest") as info:
        v.runner()
    assert info.value.path == str(chunk.resolve()) and info.value.flow_id == "checkout"
    assert "it was not executed" in str(info.value)
    assert not marker.exists()
    assert chunk_modules() == set()
    # And stays refused: a failed load is not cached as a success.
    with pytest.raises(ChunkIntegrityError):
        v.definition


def test_an_untouched_chunk_with_the_same_marker_does_run(tmp_path):
    # The counterpart of the tamper test: proves the marker would have been written.
    marker = tmp_path / "executed"
    source = flow_chunk("checkout", result="x", extra=f"open({str(marker)!r}, 'w').close()\n")
    reg = Registry.from_manifest(write_bundle(tmp_path, [Spec("checkout", "v1", source)], current={"checkout": "v1"}))
    assert reg.current("checkout").runner()() == "x"
    assert marker.exists()


def test_a_path_traversal_chunk_path_is_refused(tmp_path):
    (tmp_path / "evil.py").write_text(flow_chunk("checkout", result="evil"))
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    spec = Spec("checkout", "v1", flow_chunk("checkout", result="evil"), chunk="../evil.py")
    path = write_bundle(bundle, [spec], current={"checkout": "v1"})
    reg = Registry.from_manifest(path)  # the schema is fine; each flow's entry is checked on first use
    assert reg.flow_ids() == ("checkout",)
    message = r"flow `checkout` key `.*\.chunk` must be a relative POSIX path.*'\.\./evil\.py'"
    for lookup in (lambda: reg.resolve("checkout"), lambda: reg.current("checkout"), reg.verify):
        with pytest.raises(ManifestError, match=message) as info:
            lookup()
        assert info.value.flow_id == "checkout" and info.value.path == str(path)
    assert chunk_modules() == set()


def test_a_bad_entry_refuses_its_flow_and_only_its_flow(tmp_path):
    path = write_bundle(
        tmp_path,
        [Spec("good", "g", flow_chunk("good", result="ok")), Spec("bad", "b", flow_chunk("bad", result="x"))],
        current={"good": "g", "bad": "b"},
    )
    path.write_text(path.read_text().replace('"entry": "run"', '"entry": "no such thing!"', 1))
    reg = Registry.from_manifest(path)
    with pytest.raises(ManifestError, match=r"flow `bad` key `flows\.bad\.versions\.sha256:\w+\.entry` must be a dotted"):
        reg.resolve("bad")
    assert reg.resolve("good").runner()() == "ok"
    with pytest.raises(ManifestError, match="flow `bad`"):
        reg.verify()


def test_verify_with_chunks_checks_every_digest_without_executing(tmp_path):
    path = two_version_bundle(tmp_path)
    reg = Registry.from_manifest(path)
    reg.verify(chunks=True)
    assert chunk_modules() == set()
    chunk = sorted((tmp_path / "chunks").rglob("*.py"))[0]
    chunk.write_bytes(chunk.read_bytes() + b"\n")
    with pytest.raises(ChunkIntegrityError, match="does not match the manifest"):
        Registry.from_manifest(path).verify(chunks=True)


def test_a_symlink_out_of_the_bundle_is_refused(tmp_path):
    outside = tmp_path / "outside.py"
    source = flow_chunk("checkout", result="outside")
    outside.write_text(source)
    bundle = tmp_path / "bundle"
    (bundle / "chunks").mkdir(parents=True)
    (bundle / "chunks" / "link.py").symlink_to(outside)
    path = write_bundle(bundle, [Spec("checkout", "v1", source, chunk="chunks/link.py")], current={"checkout": "v1"})
    reg = Registry.from_manifest(path)
    with pytest.raises(ManifestError, match=r"flow `checkout` .*chunk path 'chunks/link\.py' resolves outside the manifest directory"):
        reg.current("checkout").runner()
    assert chunk_modules() == set()


def test_a_symlinked_bundle_directory_is_fine(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    write_bundle(real, [Spec("checkout", "v1", flow_chunk("checkout", result="ok"))], current={"checkout": "v1"})
    (tmp_path / "alias").symlink_to(real, target_is_directory=True)
    reg = Registry.from_manifest(tmp_path / "alias" / "manifest.json")
    assert reg.current("checkout").runner()() == "ok"


def test_unknown_schema_is_refused_by_the_registry(tmp_path):
    path = two_version_bundle(tmp_path)
    path.write_text(path.read_text().replace("loom-manifest/1", "loom-manifest/9"))
    with pytest.raises(ManifestError, match=r"unknown manifest schema 'loom-manifest/9'"):
        Registry.from_manifest(path)


def test_compatible_with_in_the_manifest_serves_an_unshipped_recording(tmp_path):
    gone = code("v0")  # the version that started the execution is no longer shipped
    path = write_bundle(
        tmp_path,
        [Spec("checkout", "v2", flow_chunk("checkout", result="v2", compatible_with=[gone]), compatible_with=(gone,))],
        current={"checkout": "v2"},
    )
    reg = Registry.from_manifest(path)
    current = reg.current("checkout")
    v = reg.resolve("checkout", flow_hash=current.flow_hash, code_hash=gone)
    assert v is current and not v.loaded
    with pytest.raises(FlowCodeMismatchError) as info:
        reg.resolve("checkout", flow_hash=current.flow_hash, code_hash=code("v-unknown"))
    assert info.value.kind == "code" and info.value.available == (code("v2"),)


def test_structure_is_checked_without_loading(tmp_path):
    path = write_bundle(
        tmp_path,
        [
            Spec("checkout", "v1", flow_chunk("checkout", result="1", steps=("a",), version=1), steps=("a",), version=1),
            Spec("checkout", "v2", flow_chunk("checkout", result="2", steps=("a", "b"), version=2), steps=("a", "b"), version=2),
        ],
        current={"checkout": "v2"},
    )
    reg = Registry.from_manifest(path)
    v1_hash = next(v.legacy_flow_hash for v in reg.versions("checkout") if v.version == 1)
    v = reg.resolve("checkout", flow_hash=v1_hash)
    assert v.code_hash == code("v1") and not v.loaded
    assert v.steps == ("a",)
    with pytest.raises(FlowCodeMismatchError) as info:
        reg.resolve("checkout", flow_hash="sha256:" + "0" * 64, code_hash=code("v1"))
    assert info.value.kind == "structure" and len(info.value.available) == 2
    assert chunk_modules() == set()


def test_chunk_whose_entry_is_not_the_flow_is_refused(tmp_path):
    other = flow_chunk("refund", result="r")
    reg = Registry.from_manifest(write_bundle(tmp_path, [Spec("checkout", "v1", other)], current={"checkout": "v1"}))
    with pytest.raises(ManifestError, match=r"the chunk listed for flow `checkout` declares flow `refund`"):
        reg.current("checkout").runner()
    (tmp_path / "b").mkdir()
    spec = Spec("checkout", "v1", flow_chunk("checkout", result="x"), entry="helper")
    reg = Registry.from_manifest(write_bundle(tmp_path / "b", [spec], current={"checkout": "v1"}))
    with pytest.raises(ManifestError, match=r"entry `helper` .* is not decorated with @flow"):
        reg.current("checkout").runner()


def test_chunk_whose_structure_differs_from_the_manifest_is_refused(tmp_path):
    spec = Spec("checkout", "v1", flow_chunk("checkout", result="x", steps=("a", "b")), steps=("a",))
    reg = Registry.from_manifest(write_bundle(tmp_path, [spec], current={"checkout": "v1"}))
    with pytest.raises(ManifestError, match=r"its chunk declares structure sha256:\w+ but the manifest records flowHash"):
        reg.current("checkout").runner()


def test_a_live_version_is_current_and_chunks_stay_resolvable(tmp_path):
    reg = Registry.from_manifest(two_version_bundle(tmp_path))

    @flow("checkout", steps=["a"], code_fingerprint=code("v3"))
    def live(ctx=None):
        return "live v3"

    v3 = reg.register(live)
    assert reg.current("checkout") is v3 and v3.origin == "live"
    assert [v.code_hash for v in reg.versions("checkout")] == [code("v3"), code("v2"), code("v1")]
    assert reg.resolve("checkout", code_hash=code("v1")).runner()() == "helper of v1"
    assert reg.resolve("checkout", code_hash=code("v3")).runner() is live


# -- live code bound to the manifest ----------------------------------------------------------


LIVE_FLOWS = textwrap.dedent(
    """\
    from loom_runtime import flow


    @flow("checkout", steps=["a"])
    def checkout(ctx=None):
        return "live"
    """
)


def import_live(tmp_path: Path, text: str = LIVE_FLOWS):
    src = tmp_path / "app" / "flows.py"
    src.parent.mkdir(parents=True, exist_ok=True)
    src.write_text(text)
    name = f"loomtest_{uuid.uuid4().hex}"
    spec = importlib.util.spec_from_file_location(name, src)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module, src


def bundle_for_live(tmp_path: Path, src: Path, *, fresh: bool, steps=("a",)) -> Path:
    bundle = tmp_path / "build"
    bundle.mkdir()
    source_digest = digest(src.read_bytes()) if fresh else digest(b"an older flows.py")
    return write_bundle(
        bundle,
        [
            Spec("checkout", "old", flow_chunk("checkout", result="old chunk", steps=steps), steps=steps,
                 source_digest=digest(b"older")),
            Spec("checkout", "built", flow_chunk("checkout", result="built chunk", steps=steps), steps=steps,
                 source_digest=source_digest),
        ],
        current={"checkout": "built"},
    )


def test_register_binds_live_code_to_the_manifests_current_version(tmp_path):
    module, src = import_live(tmp_path)
    warnings_seen: list[str] = []
    reg = Registry.from_manifest(bundle_for_live(tmp_path, src, fresh=True), on_warn=warnings_seen.append)
    v = reg.register(module.checkout)
    assert warnings_seen == []
    assert v.code_hash == code("built") and v.origin == "live" and v.is_current
    assert v.definition.code_fingerprint == code("built")
    # The live code replaces the chunk of its own version; no chunk is loaded for it.
    assert v.runner() is module.checkout and v.runner()() == "live"
    assert [x.origin for x in reg.versions("checkout")] == ["live", "chunk"]
    assert reg.resolve("checkout", code_hash=code("old")).runner()() == "old chunk"
    assert chunk_modules() == {reg.resolve("checkout", code_hash=code("old")).runner().__module__}


def test_a_stale_manifest_warns_and_runs_without_a_fingerprint(tmp_path):
    module, src = import_live(tmp_path)
    seen: list[str] = []
    reg = Registry.from_manifest(bundle_for_live(tmp_path, src, fresh=False), on_warn=seen.append)
    v = reg.register(module.checkout)
    assert len(seen) == 1
    assert "flow `checkout`" in seen[0] and "stale" in seen[0] and "Run `loom build`" in seen[0]
    assert str(src.resolve()) in seen[0] and "app/flows.py" in seen[0]
    assert v.code_hash is None and v.is_current


def test_a_stale_manifest_warns_through_warnings_by_default(tmp_path):
    module, src = import_live(tmp_path)
    reg = Registry.from_manifest(bundle_for_live(tmp_path, src, fresh=False))
    with pytest.warns(StaleManifestWarning, match=r"flow `checkout`: the loom manifest is stale") as record:
        reg.register(module.checkout)
    assert record[0].filename == __file__  # attributed to the caller of register()


def test_a_stale_manifest_fails_under_strict(tmp_path):
    module, src = import_live(tmp_path)
    path = bundle_for_live(tmp_path, src, fresh=False)
    reg = Registry.from_manifest(path, strict=True)
    with pytest.raises(StaleManifestError, match=r"flow `checkout`: the loom manifest is stale.*Run `loom build`") as info:
        reg.register(module.checkout)
    assert info.value.flow_id == "checkout" and info.value.path == str(path)
    assert reg.current("checkout").origin == "chunk"  # nothing was registered


def test_a_changed_declaration_is_stale_even_with_the_same_file(tmp_path):
    module, src = import_live(tmp_path)
    seen: list[str] = []
    reg = Registry.from_manifest(bundle_for_live(tmp_path, src, fresh=True, steps=("a", "b")), on_warn=seen.append)
    assert reg.register(module.checkout).code_hash is None
    assert "flowHash" in seen[0]


def test_a_flow_missing_from_the_manifest_is_stale(tmp_path):
    module, src = import_live(tmp_path, LIVE_FLOWS.replace('"checkout"', '"refund"'))
    seen: list[str] = []
    reg = Registry.from_manifest(bundle_for_live(tmp_path, src, fresh=True), on_warn=seen.append)
    reg.register(module.checkout)
    assert "flow `refund`" in seen[0] and "does not list it" in seen[0]


def test_an_explicit_code_fingerprint_wins(tmp_path):
    module, src = import_live(
        tmp_path, LIVE_FLOWS.replace('steps=["a"]', f'steps=["a"], code_fingerprint="{code("mine")}"')
    )
    seen: list[str] = []
    reg = Registry.from_manifest(bundle_for_live(tmp_path, src, fresh=False), on_warn=seen.append, strict=False)
    v = reg.register(module.checkout)
    assert v.code_hash == code("mine") and seen == []


def test_registry_without_a_manifest_never_warns(tmp_path):
    module, _ = import_live(tmp_path)
    seen: list[str] = []
    assert Registry(on_warn=seen.append, strict=True).register(module.checkout).code_hash is None
    assert seen == []


# -- from_package -----------------------------------------------------------------------------


def test_from_package_reads_the_bundle_shipped_in_the_package(tmp_path, monkeypatch):
    name = f"loomtest_pkg_{uuid.uuid4().hex[:8]}"
    pkg = tmp_path / "site" / name
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / PACKAGE_MANIFEST_DIR).mkdir()
    spec = Spec("checkout", "v1", flow_chunk("checkout", result="packaged"))
    write_bundle(pkg / PACKAGE_MANIFEST_DIR, [spec], current={"checkout": "v1"})
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    reg = Registry.from_package(name)
    assert reg.current("checkout").runner()() == "packaged"


def test_from_package_without_a_bundle_says_how_to_get_one(tmp_path, monkeypatch):
    name = f"loomtest_pkg_{uuid.uuid4().hex[:8]}"
    (tmp_path / name).mkdir()
    (tmp_path / name / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ManifestError, match=rf"{name}/_loom/manifest.json: package `{name}` ships no loom manifest"):
        Registry.from_package(name)
    with pytest.raises(ManifestError, match="is not importable"):
        Registry.from_package(f"{name}_missing")


def test_from_package_reads_a_bundle_inside_a_zipped_package(tmp_path, monkeypatch):
    import zipfile

    name = f"loomtest_zip_{uuid.uuid4().hex[:8]}"
    staging = tmp_path / "staging"
    (staging / PACKAGE_MANIFEST_DIR).mkdir(parents=True)
    write_bundle(staging / PACKAGE_MANIFEST_DIR,
                 [Spec("checkout", "v1", flow_chunk("checkout", result="zipped v1")),
                  Spec("checkout", "v2", flow_chunk("checkout", result="zipped v2"))],
                 current={"checkout": "v2"})
    archive = tmp_path / "app.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(f"{name}/__init__.py", "")
        for f in sorted((staging / PACKAGE_MANIFEST_DIR).rglob("*")):
            if f.is_file():
                zf.write(f, f"{name}/{f.relative_to(staging)}")
    monkeypatch.syspath_prepend(str(archive))
    reg = Registry.from_package(name)
    assert reg.current("checkout").runner()() == "zipped v2"
    assert reg.resolve("checkout", code_hash=code("v1")).runner()() == "zipped v1"


def test_chunks_are_found_after_a_chdir(tmp_path, monkeypatch):
    write_bundle(tmp_path, [Spec("checkout", "v1", flow_chunk("checkout", result="ok"))], current={"checkout": "v1"})
    monkeypatch.chdir(tmp_path)
    reg = Registry.from_manifest("manifest.json")
    monkeypatch.chdir(tmp_path.parent)
    assert reg.current("checkout").runner()() == "ok"


def test_concurrent_first_use_executes_a_chunk_once(tmp_path):
    import threading

    log = tmp_path / "executions.log"
    extra = f"import time\nwith open({str(log)!r}, 'a') as _f:\n    _f.write('x')\ntime.sleep(0.05)\n"
    path = write_bundle(tmp_path, [Spec("checkout", "v1", flow_chunk("checkout", result="once", extra=extra))],
                        current={"checkout": "v1"})
    reg = Registry.from_manifest(path)
    version = reg.current("checkout")
    runners: list = []
    threads = [threading.Thread(target=lambda: runners.append(version.runner())) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert log.read_text() == "x"
    assert len(runners) == 8 and all(r is runners[0] for r in runners)


def test_a_removed_flow_still_serves_executions_in_flight_but_starts_nothing(tmp_path):
    from loom_runtime import FlowNotFoundError, FlowRemovedError

    path = write_bundle(tmp_path, [Spec("legacy", "v1", flow_chunk("legacy", result="still here"))], current={})
    reg = Registry.from_manifest(path)
    assert reg.flow_ids() == ("legacy",)
    assert reg.resolve("legacy", code_hash=code("v1")).runner()() == "still here"
    with pytest.raises(FlowRemovedError, match=r"flow `legacy` was removed in this release .*can still resume \(1 version\(s\) ship\)") as info:
        reg.current("legacy")
    assert isinstance(info.value, FlowNotFoundError) and info.value.available == (code("v1"),)


def test_a_hand_built_flow_version_says_where_versions_come_from():
    from loom_runtime import FlowDefinitionError, FlowVersion

    v = FlowVersion(flow_id="x", code_hash=None, flow_hash="sha256:" + "0" * 64, legacy_flow_hash="fnv1a:00000000",
                    origin="live", is_current=True)
    assert not v.loaded
    with pytest.raises(FlowDefinitionError, match="get versions from a Registry"):
        v.runner()
