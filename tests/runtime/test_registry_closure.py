"""``register`` checks the whole closure, not only the flow's own file.

A codeHash covers every first-party module the flow reaches; a live process whose helper module
was edited after ``loom build`` must not bind itself to the old codeHash. Each test writes a real
package to disk (so the import system can locate its modules by name) and a manifest by hand
whose ``source.closureSources`` records the digests of its files."""

from __future__ import annotations

import hashlib
import importlib
import sys
import uuid
from pathlib import Path

import pytest

import loom_runtime.live_binding as live_binding_module
import loom_runtime.registry as registry_module
from loom_runtime import FlowDefinition, Registry, StaleManifestError, flow_content_hash, legacy_flow_content_hash
from loom_runtime.manifest import FlowEntry, Manifest, SourceRef, VersionEntry, write_manifest

BUILT = "sha256:" + hashlib.sha256(b"built").hexdigest()

FLOWS = '''\
from loom_runtime import flow

from {pkg} import pricing
from {pkg}.tax import tax


@flow("checkout", steps=["charge"])
def checkout(ctx=None, total=0.0):
    return pricing.needs_review(total), tax(total)


@flow("refund", steps=["pay-back"])
def refund(ctx=None, total=0.0):
    return pricing.needs_review(total)
'''
PRICING = "LIMIT = 500\n\n\ndef needs_review(total):\n    return total > LIMIT\n"
TAX = "def tax(total):\n    return total * 0.2\n"


def digest(path: Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def app(tmp_path, monkeypatch):
    """A fresh package ``loomtest_<hex>`` (``flows``, ``pricing``, ``tax``) importable by name."""
    pkg = f"loomtest_{uuid.uuid4().hex[:12]}"
    root = tmp_path / "src"
    (root / pkg).mkdir(parents=True)
    (root / pkg / "__init__.py").write_text("")
    (root / pkg / "flows.py").write_text(FLOWS.format(pkg=pkg))
    (root / pkg / "pricing.py").write_text(PRICING)
    (root / pkg / "tax.py").write_text(TAX)
    monkeypatch.syspath_prepend(str(root))
    yield pkg, root / pkg
    for name in [n for n in sys.modules if n == pkg or n.startswith(pkg + ".")]:
        del sys.modules[name]


def write_manifest_for(tmp_path: Path, pkg: str, files: Path, *, closure_sources: dict[str, str] | None | str = "built",
                       flow_ids=("checkout",)) -> Path:
    """A manifest whose current version of each flow was 'built' from ``files`` as they are now."""
    if closure_sources == "built":
        closure_sources = {f"{pkg}.{m}": digest(files / f"{m}.py") for m in ("flows", "pricing", "tax")}
    flows = {}
    for flow_id in flow_ids:
        structure = FlowDefinition(id=flow_id, steps=("charge",) if flow_id == "checkout" else ("pay-back",))
        ve = VersionEntry(
            code_hash=BUILT, flow_hash=flow_content_hash(structure), legacy_flow_hash=legacy_flow_content_hash(structure),
            version=1, steps=structure.steps, step_families=(), compatible_with=(), chunk=f"chunks/{flow_id}.py",
            chunk_digest="sha256:" + "0" * 64, entry=flow_id,
            source=SourceRef(f"{pkg}/flows.py", 7, digest(files / "flows.py"), closure_sources=closure_sources),
        )
        flows[flow_id] = FlowEntry(flow_id, BUILT, {BUILT: ve})
    path = tmp_path / "build" / f"manifest-{uuid.uuid4().hex[:6]}.json"
    write_manifest(path, Manifest(flows=flows))
    return path


def test_an_unchanged_closure_binds_without_a_warning(tmp_path, app):
    pkg, files = app
    manifest = write_manifest_for(tmp_path, pkg, files)
    flows = importlib.import_module(f"{pkg}.flows")
    seen: list[str] = []
    v = Registry.from_manifest(manifest, on_warn=seen.append).register(flows.checkout)
    assert seen == [] and v.code_hash == BUILT and v.definition.code_fingerprint == BUILT


def test_a_helper_module_edited_after_the_build_warns_naming_the_module(tmp_path, app):
    pkg, files = app
    manifest = write_manifest_for(tmp_path, pkg, files)
    (files / "pricing.py").write_text(PRICING.replace("total > LIMIT", "total >= LIMIT"))
    flows = importlib.import_module(f"{pkg}.flows")
    seen: list[str] = []
    v = Registry.from_manifest(manifest, on_warn=seen.append).register(flows.checkout)
    assert v.code_hash is None  # never the old codeHash: its chunk holds other helper code
    assert seen == [
        f"flow `checkout`: {pkg}/pricing.py changed since the manifest was built (closure module `{pkg}.pricing`); "
        f"run `loom build` and ship the new manifest ({manifest} is stale); until then `checkout` runs without a "
        "code fingerprint (its executions are not pinned)"
    ]


def test_by_default_the_warning_is_a_stale_manifest_warning_attributed_to_the_caller(tmp_path, app):
    pkg, files = app
    manifest = write_manifest_for(tmp_path, pkg, files)
    (files / "tax.py").write_text(TAX.replace("0.2", "0.21"))
    flows = importlib.import_module(f"{pkg}.flows")
    reg = Registry.from_manifest(manifest)
    with pytest.warns(registry_module.StaleManifestWarning, match=rf"closure module `{pkg}\.tax`") as record:
        reg.register(flows.checkout)
    assert record[0].filename == __file__


def test_strict_raises_and_registers_nothing(tmp_path, app):
    pkg, files = app
    manifest = write_manifest_for(tmp_path, pkg, files)
    (files / "pricing.py").write_text(PRICING.replace("500", "400"))
    flows = importlib.import_module(f"{pkg}.flows")
    reg = Registry.from_manifest(manifest, strict=True)
    with pytest.raises(StaleManifestError, match=rf"flow `checkout`: {pkg}/pricing\.py changed since the manifest was "
                                                 rf"built \(closure module `{pkg}\.pricing`\); run `loom build`") as info:
        reg.register(flows.checkout)
    assert info.value.flow_id == "checkout" and info.value.path == str(manifest)
    assert reg.current("checkout").origin == "chunk"


def test_every_changed_module_is_named_once(tmp_path, app):
    pkg, files = app
    manifest = write_manifest_for(tmp_path, pkg, files)
    (files / "pricing.py").write_text(PRICING + "\n# edited\n")
    (files / "tax.py").write_text(TAX + "\n# edited\n")
    flows = importlib.import_module(f"{pkg}.flows")
    seen: list[str] = []
    Registry.from_manifest(manifest, on_warn=seen.append).register(flows.checkout)
    assert seen[0].startswith(
        f"flow `checkout`: {pkg}/pricing.py, {pkg}/tax.py changed since the manifest was built "
        f"(closure modules `{pkg}.pricing`, `{pkg}.tax`); run `loom build`"
    )


def test_a_module_not_imported_yet_is_located_without_importing_it(tmp_path, app):
    pkg, files = app
    # The manifest says the closure also reached `rates`, which the live process has not imported.
    (files / "rates.py").write_text("RAISE = 1 / 0  # executing this module would fail\n")
    sources = {f"{pkg}.{m}": digest(files / f"{m}.py") for m in ("flows", "pricing", "tax", "rates")}
    manifest = write_manifest_for(tmp_path, pkg, files, closure_sources=sources)
    flows = importlib.import_module(f"{pkg}.flows")
    seen: list[str] = []
    assert Registry.from_manifest(manifest, on_warn=seen.append).register(flows.checkout).code_hash == BUILT
    assert seen == [] and f"{pkg}.rates" not in sys.modules
    (files / "rates.py").write_text("RAISE = 2\n")
    Registry.from_manifest(manifest, on_warn=seen.append).register(flows.checkout)
    assert f"{pkg}/rates.py changed since the manifest was built (closure module `{pkg}.rates`)" in seen[0]
    assert f"{pkg}.rates" not in sys.modules


def test_a_module_that_cannot_be_located_is_stale_with_its_own_message(tmp_path, app):
    pkg, files = app
    sources = {f"{pkg}.{m}": digest(files / f"{m}.py") for m in ("flows", "pricing")}
    sources[f"{pkg}.gone"] = "sha256:" + "1" * 64  # deleted since the build
    sources["loomtest_no_such_package.helpers"] = "sha256:" + "2" * 64  # its parent is not importable
    manifest = write_manifest_for(tmp_path, pkg, files, closure_sources=sources)
    flows = importlib.import_module(f"{pkg}.flows")
    seen: list[str] = []
    v = Registry.from_manifest(manifest, on_warn=seen.append).register(flows.checkout)
    assert v.code_hash is None and len(seen) == 1
    assert f"closure module `{pkg}.gone` cannot be located to compare with the manifest (no such module on sys.path)" in seen[0]
    assert ("closure module `loomtest_no_such_package.helpers` cannot be located to compare with the manifest "
            "(looking it up raised ModuleNotFoundError") in seen[0]
    assert "changed since" not in seen[0] and "run `loom build`" in seen[0]


def test_a_module_without_a_source_file_is_stale(tmp_path, app, monkeypatch):
    pkg, files = app
    sources = {f"{pkg}.{m}": digest(files / f"{m}.py") for m in ("flows", "pricing", "tax")}
    manifest = write_manifest_for(tmp_path, pkg, files, closure_sources=sources)
    flows = importlib.import_module(f"{pkg}.flows")
    monkeypatch.setattr(sys.modules[f"{pkg}.tax"], "__file__", str(files / "__pycache__" / "tax.cpython.pyc"))
    seen: list[str] = []
    Registry.from_manifest(manifest, on_warn=seen.append).register(flows.checkout)
    assert f"closure module `{pkg}.tax` cannot be located" in seen[0] and "is not Python source" in seen[0]


def test_a_manifest_without_closure_sources_checks_the_flows_own_file_as_before(tmp_path, app):
    pkg, files = app
    manifest = write_manifest_for(tmp_path, pkg, files, closure_sources=None)  # an older `loom build`
    (files / "pricing.py").write_text(PRICING.replace("500", "400"))
    flows = importlib.import_module(f"{pkg}.flows")
    seen: list[str] = []
    assert Registry.from_manifest(manifest, on_warn=seen.append).register(flows.checkout).code_hash == BUILT
    assert seen == []
    # ...and its own file is still checked.
    (files / "flows.py").write_text(FLOWS.format(pkg=pkg) + "\n# edited\n")
    Registry.from_manifest(manifest, on_warn=seen.append).register(flows.checkout)
    assert "the loom manifest is stale" in seen[0] and "flows.py" in seen[0]


def test_each_file_is_read_once_per_registry(tmp_path, app, monkeypatch):
    pkg, files = app
    manifest = write_manifest_for(tmp_path, pkg, files, flow_ids=("checkout", "refund"))
    flows = importlib.import_module(f"{pkg}.flows")
    opened: list[str] = []
    real_open = open

    def counting_open(path, *args, **kwargs):
        opened.append(str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(live_binding_module, "open", counting_open, raising=False)
    reg = Registry.from_manifest(manifest)
    assert reg.register(flows.checkout).code_hash == BUILT and reg.register(flows.refund).code_hash == BUILT
    # flows.py is both the flows' own file and a closure module: still one read. Two flows, one read each.
    assert sorted(Path(p).name for p in opened) == ["flows.py", "pricing.py", "tax.py"]
    # A new registry reads again: an edit between two registries is seen.
    (files / "pricing.py").write_text(PRICING.replace("500", "400"))
    seen: list[str] = []
    assert Registry.from_manifest(manifest, on_warn=seen.append).register(flows.checkout).code_hash is None
    assert f"closure module `{pkg}.pricing`" in seen[0]


def test_a_package_module_is_shown_as_its_init_file(tmp_path, app):
    pkg, files = app
    sources = {f"{pkg}.{m}": digest(files / f"{m}.py") for m in ("flows", "pricing", "tax")}
    sources[pkg] = "sha256:" + "3" * 64  # the package's __init__.py had other bytes at build time
    manifest = write_manifest_for(tmp_path, pkg, files, closure_sources=sources)
    flows = importlib.import_module(f"{pkg}.flows")
    seen: list[str] = []
    Registry.from_manifest(manifest, on_warn=seen.append).register(flows.checkout)
    assert f"{pkg}/__init__.py changed since the manifest was built (closure module `{pkg}`)" in seen[0]


def test_an_explicit_code_fingerprint_skips_the_check(tmp_path, app):
    pkg, files = app
    manifest = write_manifest_for(tmp_path, pkg, files)
    (files / "pricing.py").write_text(PRICING.replace("500", "400"))
    flows = importlib.import_module(f"{pkg}.flows")
    mine = "sha256:" + "4" * 64
    defn = FlowDefinition.from_function(flows.checkout).with_fingerprint(mine)
    seen: list[str] = []
    assert Registry.from_manifest(manifest, on_warn=seen.append).register(defn).code_hash == mine and seen == []
