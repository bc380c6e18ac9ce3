"""``loom deploy-check --no-replay``: registry resolution for every unfinished execution, and chunks
that load (the replay itself: ``test_deploy_check_replay.py``). The fixture's journal is written by
hand with inputs no flow body could run on, so only the hash-only check is asked of it here."""

from __future__ import annotations

import json

from click.testing import CliRunner

from loom_compiler.cli import main
from loom_compiler.ops import deploy_check

from .conftest import HOTFIX, Shop, edit


def check(shop: Shop):
    return deploy_check(shop.url, shop.manifest, import_paths=[shop.root], replay=False)


def test_an_execution_the_build_refuses_is_reported_by_id(shop: Shop):
    v1, _v2, v3 = shop.checkout
    report = check(shop)
    assert not report.ok and report.exit_code == 1
    assert [(s.execution_id, s.flow_id, s.recorded_code_hash) for s in report.mismatched] == [("e-lost", "refund", HOTFIX)]
    # the build does not serve it: "this process" (the CLI) was the wrong subject
    assert f"started on codeHash {HOTFIX}, which the build {shop.manifest} does not serve" in report.mismatched[0].reason
    assert [(s.execution_id, s.served_by, s.how) for s in report.served] == [
        ("e-current", v3, "pinned"),
        ("e-pinned", v1, "pinned"),  # an old version: its chunk ships in the cumulative manifest
    ]
    assert report.load_failures == ()


def test_cli_lists_each_unservable_execution_and_exits_non_zero(shop: Shop, monkeypatch):
    monkeypatch.chdir(shop.root)  # the manifest and import path default to the project's
    result = CliRunner().invoke(main, ["deploy-check", "--store", shop.url, "--no-replay"])
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines()[0].startswith("mismatch: execution `e-lost` (flow `refund`, sha256:abababababab, running):")
    assert "2 of 3 unfinished execution(s) servable" in result.stdout and "hash-only check" in result.stdout
    doc = json.loads(CliRunner().invoke(main, ["deploy-check", "--store", shop.url, "--no-replay", "--json"]).stdout)
    assert [s["executionId"] for s in doc["executions"] if s["verdict"] == "mismatch"] == ["e-lost"]
    assert doc["ok"] is False and doc["replay"] is False


def test_a_compatible_current_version_serves_an_execution_whose_chunk_is_gone(shop: Shop, tmp_path):
    # e-lost's hotfix hash listed in refund's compatible_with: resolution serves it on the current chunk
    edit(shop.root / "shop/refunds.py", '@loom_flow("refund", steps=["charge"])',
         f'@loom_flow("refund", steps=["charge"], compatible_with=["{HOTFIX}"])')
    from loom_compiler.bundle.build import build_project
    from loom_compiler.config import load_config

    assert build_project(load_config(shop.root)).ok
    report = check(shop)
    assert report.ok, report.stranded
    assert {s.execution_id: s.how for s in report.served}["e-lost"] == "compatible"


def test_a_deleted_step_function_strands_every_execution_whose_chunk_imports_it(shop: Shop):
    # the chunks import the live step `ship`; renaming it breaks every checkout chunk on load
    edit(shop.root / "shop/steps.py", "def ship(", "def dispatch(")
    report = check(shop)
    stranded = {s.execution_id: s.reason for s in report.stranded}
    assert set(stranded) == {"e-current", "e-pinned"} and [v.execution_id for v in report.mismatched] == ["e-lost"]
    assert "whose chunk cannot be loaded" in stranded["e-pinned"] and "ship" in stranded["e-pinned"]
    assert {(f, h) for f, h, _ in report.load_failures} == {("checkout", shop.checkout[0]), ("checkout", shop.checkout[2])}


def test_a_migrated_execution_is_judged_by_its_migration_target(shop: Shop):
    from loom_runtime.journal.events import NewEvent
    from loom_runtime.journal.sqlite import SqliteJournal
    from loom_runtime.manifest import load_manifest

    with SqliteJournal(shop.journal) as journal:  # the service's own store: open_store is read-only
        target = load_manifest(shop.manifest).flows["refund"].versions[shop.refund]
        journal.append("e-lost", [NewEvent("EXECUTION_MIGRATED", {
            "toFlowHash": target.flow_hash, "toCodeHash": shop.refund, "strategy": "replay-check",
        })], expected_seq=2)
    report = check(shop)
    assert report.ok, report.stranded
    assert {s.execution_id: s.served_by for s in report.served}["e-lost"] == shop.refund


def test_a_pathological_manifest_is_a_clear_error(shop: Shop):
    shop.manifest.write_text('{"schema": "loom-manifest/1", "flows": ' + "[" * 100_000 + "]" * 100_000 + "}")
    result = CliRunner().invoke(main, ["deploy-check", "--store", shop.url, "--manifest", str(shop.manifest)])
    assert result.exit_code == 2 and not isinstance(result.exception, RecursionError), result.output
    assert "nested too deeply to read" in result.stderr
