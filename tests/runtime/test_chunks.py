"""Low-level chunk loading: containment, integrity, private module names, failure hygiene."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "registry"))
from registry_kit import code, digest, flow_chunk, forget_chunk_modules  # noqa: E402,F401 (autouse fixture)

from loom_runtime import ChunkIntegrityError, ManifestError  # noqa: E402
from loom_runtime.chunks import (  # noqa: E402
    CHUNK_NAMESPACE,
    chunk_module_name,
    load_chunk,
    read_verified_chunk,
    resolve_chunk_path,
)
from loom_runtime.manifest import SourceRef, VersionEntry  # noqa: E402



def version_entry(chunk: str, data: bytes, *, label: str = "v1", entry: str = "run") -> VersionEntry:
    return VersionEntry(
        code_hash=code(label),
        flow_hash="sha256:" + "0" * 64,
        legacy_flow_hash="fnv1a:00000000",
        version=1,
        steps=(),
        step_families=(),
        compatible_with=(),
        chunk=chunk,
        chunk_digest=digest(data),
        entry=entry,
        source=SourceRef(path="app/flows.py", line=1, source_digest=digest(b"")),
    )


def put(root: Path, rel: str, text: str) -> tuple[VersionEntry, Path]:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return version_entry(rel, text.encode()), path


def test_module_names_are_private_and_distinct_per_version():
    a = chunk_module_name("checkout", code("v1"))
    b = chunk_module_name("checkout", code("v2"))
    assert a.startswith("_loom_chunks.checkout_") and len(a.rpartition("_")[2]) == 16
    assert a != b
    assert chunk_module_name("billing/refund-v2", code("v1")).startswith("_loom_chunks.billing_refund_v2_")
    assert chunk_module_name("1st.flow", code("v1")).startswith("_loom_chunks.f1st_flow_")


@pytest.mark.parametrize("rel", ["../x.py", "/abs/x.py", "a/../../x.py", "C:/x.py", "a\\x.py", ""])
def test_containment_is_checked_even_for_entries_built_in_code(tmp_path, rel):
    # Defence in depth: a VersionEntry built without the reader still cannot escape.
    with pytest.raises(ManifestError, match=r"flow `checkout` version sha256:\w+: chunk path .*a chunk must be a relative path"):
        resolve_chunk_path(tmp_path, version_entry(rel, b""), flow_id="checkout", manifest_path="m.json")


def test_symlinked_directory_out_of_the_bundle_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.py").write_text("pass\n")
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "chunks").symlink_to(outside, target_is_directory=True)
    with pytest.raises(ManifestError, match="resolves outside the manifest directory"):
        resolve_chunk_path(bundle, version_entry("chunks/x.py", b"pass\n"), flow_id="f", manifest_path="m.json")


def test_symlink_inside_the_bundle_is_allowed(tmp_path):
    entry, path = put(tmp_path, "chunks/real.py", "pass\n")
    (tmp_path / "chunks" / "alias.py").symlink_to(path)
    aliased = version_entry("chunks/alias.py", b"pass\n")
    assert read_verified_chunk(tmp_path, aliased, flow_id="f", manifest_path="m.json") == (path.resolve(), b"pass\n")


def test_digest_mismatch_is_an_integrity_error(tmp_path):
    entry, path = put(tmp_path, "chunks/c.py", "x = 1\n")
    path.write_text("x = 2\n")
    with pytest.raises(ChunkIntegrityError, match=rf"{path.name}: chunk of flow `f` version .* does not match the manifest"):
        read_verified_chunk(tmp_path, entry, flow_id="f", manifest_path="m.json")


def test_missing_chunk_file_says_to_ship_the_chunks(tmp_path):
    with pytest.raises(ManifestError, match=r"cannot read the chunk of flow `f`.*ship the chunks/ directory next to m\.json"):
        read_verified_chunk(tmp_path, version_entry("chunks/none.py", b""), flow_id="f", manifest_path="m.json")


def test_load_registers_a_private_module_and_returns_a_fingerprinted_definition(tmp_path):
    entry, path = put(tmp_path, "chunks/checkout/v1.py", flow_chunk("checkout", result="one"))
    defn = load_chunk(tmp_path, entry, flow_id="checkout", manifest_path="m.json")
    name = chunk_module_name("checkout", code("v1"))
    module = sys.modules[name]
    assert defn.fn is module.run and defn.fn() == "one"
    assert defn.code_fingerprint == code("v1")
    assert module.__file__ == str(path.resolve())
    assert getattr(sys.modules[CHUNK_NAMESPACE], name.rpartition(".")[2]) is module
    # The same bytes again (another registry over the same bundle) reuse the executed module.
    assert load_chunk(tmp_path, entry, flow_id="checkout", manifest_path="m.json").fn is module.run


def test_same_code_hash_with_different_bytes_gets_its_own_module(tmp_path):
    e1, _ = put(tmp_path / "a", "chunks/c.py", flow_chunk("checkout", result="bundle a"))
    e2, _ = put(tmp_path / "b", "chunks/c.py", flow_chunk("checkout", result="bundle b"))
    assert e1.code_hash == e2.code_hash and e1.chunk_digest != e2.chunk_digest
    d1 = load_chunk(tmp_path / "a", e1, flow_id="checkout", manifest_path="a.json")
    d2 = load_chunk(tmp_path / "b", e2, flow_id="checkout", manifest_path="b.json")
    assert d1.fn() == "bundle a" and d2.fn() == "bundle b"
    assert d1.fn.__module__ != d2.fn.__module__


def test_a_chunk_that_fails_to_execute_leaves_no_module_behind(tmp_path):
    entry, path = put(tmp_path, "chunks/c.py", "import loomtest_not_installed_anywhere\n")
    with pytest.raises(ManifestError, match=r"executing the chunk of flow `f` .* failed \(ModuleNotFoundError") as info:
        load_chunk(tmp_path, entry, flow_id="f", manifest_path="m.json")
    assert isinstance(info.value.__cause__, ModuleNotFoundError)
    assert chunk_module_name("f", code("v1")) not in sys.modules


def test_a_chunk_with_a_syntax_error_names_line_and_column(tmp_path):
    entry, path = put(tmp_path, "chunks/c.py", "x = 1\ndef broken(:\n")
    with pytest.raises(ManifestError, match=rf"{path.name}:2:\d+: the chunk of flow `f` is not valid Python"):
        load_chunk(tmp_path, entry, flow_id="f", manifest_path="m.json")


def test_chunk_with_dataclasses_works_because_its_module_is_registered(tmp_path):
    extra = "import dataclasses\n\n@dataclasses.dataclass\nclass Order:\n    id: str\n"
    entry, _ = put(tmp_path, "chunks/c.py", flow_chunk("checkout", result="r", extra=extra))
    defn = load_chunk(tmp_path, entry, flow_id="checkout", manifest_path="m.json")
    module = sys.modules[defn.fn.__module__]
    assert module.Order("o1").id == "o1"


def test_dotted_entry_resolves_inside_the_chunk(tmp_path):
    text = flow_chunk("checkout", result="r") + "\n\nclass Holder:\n    flow = staticmethod(run)\n"
    path = tmp_path / "chunks" / "c.py"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    entry = version_entry("chunks/c.py", text.encode(), entry="Holder.flow")
    assert load_chunk(tmp_path, entry, flow_id="checkout", manifest_path="m.json").fn() == "r"
    missing = version_entry("chunks/c.py", text.encode(), entry="Holder.nope", label="v2")
    with pytest.raises(ManifestError, match=r"has no entry `Holder\.nope`"):
        load_chunk(tmp_path, missing, flow_id="checkout", manifest_path="m.json")


@pytest.mark.parametrize("entry, why", [
    ("shop_live.flows.run", r"goes through the module `shop_live`, which the chunk imports"),
    ("live_checkout", r"is not defined in the chunk \(its code comes from .*shop_live"),
    ("Alias.flow", r"is not defined in the chunk"),
])
def test_an_entry_that_reaches_live_code_is_refused(tmp_path, monkeypatch, entry, why):
    """``entry: "shop.flows.checkout"`` resolved through the chunk's imports and served a pinned
    execution on the current code while chunkDigest still matched."""
    live = tmp_path / "live" / "shop_live"
    live.mkdir(parents=True)
    (live / "__init__.py").write_text("")
    (live / "flows.py").write_text(flow_chunk("checkout", result="LIVE"))
    monkeypatch.syspath_prepend(str(tmp_path / "live"))
    for name in ("shop_live", "shop_live.flows"):
        sys.modules.pop(name, None)
    text = (flow_chunk("checkout", result="pinned") + "\n\nimport shop_live.flows\n"
            "from shop_live.flows import run as live_checkout\n\n"
            "class Alias:\n    flow = staticmethod(live_checkout)\n")
    bundle = tmp_path / "bundle"
    path = bundle / "chunks" / "c.py"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    assert load_chunk(bundle, version_entry("chunks/c.py", text.encode()), flow_id="checkout",
                      manifest_path="m.json").fn() == "pinned"
    hostile = version_entry("chunks/c.py", text.encode(), entry=entry, label="v2")
    with pytest.raises(ManifestError, match=why):
        load_chunk(bundle, hostile, flow_id="checkout", manifest_path="m.json")
