"""``loom gc``: keep what the journal needs (by registry resolution) and every current version."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from loom_compiler.cli import main
from loom_compiler.ops import apply_gc, open_store, plan_gc, unfinished
from loom_runtime.errors import ManifestError
from loom_runtime.manifest import load_manifest
from loom_runtime.registry import Registry

from .conftest import Shop


def plan(shop: Shop):
    with open_store(shop.url) as journal:
        return plan_gc(shop.manifest, unfinished(journal))


def test_plan_removes_only_the_version_no_unfinished_execution_needs(shop: Shop):
    v1, v2, v3 = shop.checkout
    p = plan(shop)
    assert [(v.flow_id, v.code_hash) for v in p.remove] == [("checkout", v2)]  # only e-done (completed) used it
    keep = {(v.flow_id, v.code_hash): v.reason for v in p.keep}
    assert keep[("checkout", v1)] == "serves 1 unfinished execution(s)"
    assert keep[("checkout", v3)] == "current; serves 1 unfinished execution(s)"
    # refund has a stranded execution: nothing of it is touched
    assert keep[("refund", shop.refund)].startswith("current")
    assert any("execution `e-lost` cannot be served" in n for n in p.notes)


def test_dry_run_by_default_then_yes_writes_atomically_and_deletes_the_chunk(shop: Shop, monkeypatch):
    v1, v2, v3 = shop.checkout
    monkeypatch.chdir(shop.root)
    before = shop.manifest.read_bytes()
    chunk = shop.root / "build/loom" / load_manifest(shop.manifest).flows["checkout"].versions[v2].chunk
    result = CliRunner().invoke(main, ["gc", "--store", shop.url])
    assert result.exit_code == 0, result.output
    assert f"would remove: checkout {v2[:19]}" in result.stdout and "run with --yes to apply" in result.stdout
    assert shop.manifest.read_bytes() == before and chunk.exists()

    result = CliRunner().invoke(main, ["gc", "--store", shop.url, "--yes", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["applied"] is True and doc["deletedChunks"] == [chunk.relative_to(shop.root / "build/loom").as_posix()]
    assert not chunk.exists()
    after = load_manifest(shop.manifest)
    assert set(after.flows["checkout"].versions) == {v1, v3} and after.flows["checkout"].current == v3
    assert not list(shop.manifest.parent.glob(".manifest.json.*"))  # no temporary file left behind
    registry = Registry.from_manifest(shop.manifest)  # still a valid, servable manifest
    assert registry.resolve("checkout", code_hash=v1).code_hash == v1
    assert plan(shop).remove == ()


def test_never_removes_a_current_version_even_with_an_empty_journal(shop: Shop, tmp_path):
    from loom_runtime.journal.sqlite import SqliteJournal

    SqliteJournal(tmp_path / "empty.db").close()
    with open_store(f"sqlite:///{tmp_path / 'empty.db'}") as journal:
        p = plan_gc(shop.manifest, unfinished(journal))
    assert {(v.flow_id, v.code_hash) for v in p.keep} == {("checkout", shop.checkout[2]), ("refund", shop.refund)}
    manifest = load_manifest(shop.manifest)
    every = {(f, h) for f, e in manifest.flows.items() for h in e.versions}
    assert {(v.flow_id, v.code_hash) for v in p.remove} == every - {(v.flow_id, v.code_hash) for v in p.keep}
    assert len(p.remove) == 4  # two older versions of each flow (the pricing edits reach refund too)


def test_a_manifest_changed_since_the_plan_is_refused(shop: Shop):
    p = plan(shop)
    shop.manifest.write_bytes(shop.manifest.read_bytes() + b"\n")
    with pytest.raises(ManifestError, match="changed since the gc plan"):
        apply_gc(p)


def test_a_manifest_rewritten_while_the_plan_reads_it_is_refused(shop: Shop, monkeypatch):
    # a build replacing the manifest between the plan's reads: the digest must be of the bytes
    # the plan was made from (taken first), or apply_gc would accept a plan of a manifest now gone
    from loom_compiler.ops import gc

    real_load = gc.load_manifest

    def load_during_a_build(path):
        doc = real_load(path)
        shop.manifest.write_bytes(shop.manifest.read_bytes() + b"\n")
        return doc

    monkeypatch.setattr(gc, "load_manifest", load_during_a_build)
    p = plan(shop)
    monkeypatch.setattr(gc, "load_manifest", real_load)
    with pytest.raises(ManifestError, match="changed since the gc plan"):
        apply_gc(p)


def test_gc_waits_for_a_build_holding_the_output_and_then_refuses_its_stale_plan(shop: Shop):
    """A build in flight holds the output lock from reading the old manifest to writing the new
    one; a gc that did not wait deleted chunks the build then listed again."""
    import threading

    from loom_compiler.bundle.output_lock import output_lock

    p = plan(shop)
    chunk = shop.manifest.parent / p.remove[0].chunk
    outcome: list[BaseException | None] = []

    def gc_now() -> None:
        try:
            apply_gc(p)
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - recorded for the assertion
            outcome.append(exc)

    with output_lock(shop.manifest.parent):  # the build: read the manifest, ...
        worker = threading.Thread(target=gc_now)
        worker.start()
        worker.join(1.0)
        assert worker.is_alive() and chunk.exists()  # gc waits, deletes nothing
        shop.manifest.write_bytes(shop.manifest.read_bytes() + b"\n")  # ... write the merged one
    worker.join(30)
    assert isinstance(outcome[0], ManifestError) and "changed since the gc plan" in str(outcome[0])
    assert chunk.exists()
