"""Integration: what ``loom build`` writes for examples/shop is what the registry serves.

The only runtime test that imports ``loom_compiler`` (tests may; ``loom_runtime`` itself never
does): it proves the chunk contract end to end, on the bundler's real output.
"""

from __future__ import annotations

import importlib
import shutil
import sys
from pathlib import Path

import pytest

from loom_runtime import Registry, Runtime, StaleManifestError
from loom_runtime.chunks import CHUNK_NAMESPACE

build = pytest.importorskip("loom_compiler.bundle.build")
config = pytest.importorskip("loom_compiler.config")

SHOP = Path(__file__).resolve().parents[2] / "examples" / "shop"


@pytest.fixture
def shop(tmp_path, monkeypatch):
    root = tmp_path / "shop"
    shutil.copytree(SHOP, root, ignore=shutil.ignore_patterns("build", ".loom-cache", "__pycache__"))
    monkeypatch.syspath_prepend(str(root))
    before = set(sys.modules)
    yield root
    for name in set(sys.modules) - before:
        if name == "shop" or name.startswith(("shop.", CHUNK_NAMESPACE + ".")):
            del sys.modules[name]


def build_shop(root: Path) -> Path:
    report = build.build_project(config.load_config(root), use_cache=False)
    assert not report.errors, report.errors
    return root / "build" / "loom" / "manifest.json"


def test_built_chunks_load_side_by_side_and_live_code_binds_to_the_build(shop):
    first = build_shop(shop)
    release1 = Registry.from_manifest(first)  # read now: the rebuild below rewrites the same file
    v1_hash = release1.current("checkout").code_hash
    pricing = shop / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text().replace("return total > REVIEW_LIMIT", "return total >= REVIEW_LIMIT"))
    manifest = build_shop(shop)  # cumulative: v1 stays
    reg = Registry.from_manifest(manifest)
    reg.verify(chunks=True)
    versions = reg.versions("checkout")
    assert len(versions) == 2 and versions[1].code_hash == v1_hash
    old, new = reg.resolve("checkout", code_hash=v1_hash).runner(), reg.current("checkout").runner()
    # named as the live module, each registered under its own chunk's private name
    assert old.__module__ == new.__module__ == "shop.flows"
    assert sys.modules[old.__module__] is not sys.modules[new.__module__]
    assert all(sys.modules[f.__module__].__name__.key.startswith(CHUNK_NAMESPACE + ".") for f in (old, new))
    assert "shop.flows" not in sys.modules or sys.modules["shop.flows"].__dict__ is not old.__globals__
    # Each chunk carries its own copy of the helper: the edit shows in exactly one of them.
    assert old.__globals__ is not new.__globals__
    # And each runs its own helper: at exactly the limit, v1 ships and v2 asks for approval.
    order = {"id": "o1", "sku": "A", "items": [{"sku": "A", "price": 500.0}]}
    rt = Runtime(registry=reg)
    assert rt.start("checkout", order, execution_id="on-v2").status == "suspended"
    pinned = Runtime(registry=release1)
    assert pinned.start("checkout", order, execution_id="on-v1").status == "completed"

    seen: list[str] = []
    reg = Registry.from_manifest(manifest, on_warn=seen.append)
    import shop.flows

    live = reg.register(shop.flows.checkout)
    assert seen == [] and live.origin == "live" and live.code_hash == versions[0].code_hash
    assert reg.resolve("checkout", code_hash=v1_hash).origin == "chunk"


def test_an_edit_to_a_helper_module_after_the_build_is_not_bound_to_the_old_code_hash(shop):
    manifest = build_shop(shop)
    built = Registry.from_manifest(manifest).current("checkout").code_hash
    pricing = shop / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text().replace("return total > REVIEW_LIMIT", "return total >= REVIEW_LIMIT"))
    flows = importlib.import_module("shop.flows")  # the live process runs the edited helper

    seen: list[str] = []
    live = Registry.from_manifest(manifest, on_warn=seen.append).register(flows.checkout)
    assert live.code_hash is None and live.code_hash != built
    assert len(seen) == 1
    assert seen[0].startswith(
        "flow `checkout`: shop/pricing.py changed since the manifest was built (closure module `shop.pricing`); "
        "run `loom build`"
    )
    strict = Registry.from_manifest(manifest, strict=True)
    with pytest.raises(StaleManifestError, match=r"flow `checkout`: shop/pricing\.py changed .*closure module `shop\.pricing`"):
        strict.register(flows.checkout)
    assert strict.current("checkout").origin == "chunk"  # nothing was registered

    # The rebuild the message asks for makes the live code bind again, to the new codeHash.
    rebuilt = build_shop(shop)
    seen.clear()
    again = Registry.from_manifest(rebuilt, on_warn=seen.append).register(flows.checkout)
    assert seen == [] and again.code_hash not in (None, built)


def test_an_edit_to_a_step_body_keeps_the_binding(shop):
    # Step bodies are not in the codeHash (served from the journal), so steps.py is not a closure source.
    manifest = build_shop(shop)
    steps = shop / "shop" / "steps.py"
    steps.write_text(steps.read_text() + "\n\ndef added_later():\n    return 1\n")
    flows = importlib.import_module("shop.flows")

    seen: list[str] = []
    live = Registry.from_manifest(manifest, on_warn=seen.append).register(flows.checkout)
    assert seen == [] and live.code_hash == Registry.from_manifest(manifest).current("checkout").code_hash
