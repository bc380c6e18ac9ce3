"""The committed loom-fp/1 release fixture is what it claims to be, and its journal is live.

The scheme-upgrade tests rebuild this fixture under the current scheme; these tests pin the
fixture itself, with the code on main, so that a broken fixture is never mistaken for a broken
upgrade: it is an fp/1 manifest (no ``scheme`` field anywhere), its journal holds executions on
both releases in every unfinished state, and every one of them finishes, in a fresh interpreter,
on the code it started on (a release-1 checkout is charged release 1's member rate).
"""

from __future__ import annotations

import json
from pathlib import Path

from loom_compiler.ops import deploy_check
from loom_runtime.journal.sqlite import SqliteJournal
from loom_runtime.manifest import load_manifest

from helpers.fp1_release import FP1_RELEASE, copy_release, finish_all

CLOCK = json.loads((FP1_RELEASE / "expected.json").read_text())["producedBy"]["clock"]


def test_the_fixture_is_an_fp1_build_with_an_old_and_a_current_version(tmp_path: Path):
    release = copy_release(tmp_path)
    manifest = load_manifest(release.manifest)
    assert manifest.fingerprint_scheme == "loom-fp/1"
    raw = json.loads(release.manifest.read_text())
    assert not any("scheme" in v or "rehashedFrom" in v for f in raw["flows"].values() for v in f["versions"].values())
    assert {f: len(e.versions) for f, e in manifest.flows.items()} == {"audit": 1, "checkout": 2, "fulfil": 2, "reminder": 2}
    for e in release.expected.values():
        flow = manifest.flows[e["flow"]]
        assert e["codeHash"] in flow.versions
        # release 2 started on the current version, release 1 on the old one (audit has only one)
        assert (e["codeHash"] == flow.current) == (e["release"] == "r2" or e["flow"] == "audit")


def test_the_journal_holds_every_unfinished_state_on_both_releases(tmp_path: Path):
    release = copy_release(tmp_path)
    journal = SqliteJournal(release.journal)
    try:
        got = {s.execution_id: (s.status, s.gate, s.code_hash) for s in journal.list_executions()}
    finally:
        journal.close()
    assert got == {eid: (e["status"], e["gate"], e["codeHash"]) for eid, e in release.expected.items()}
    kinds = {(e["release"], e["status"], (e["gate"] or "").split(":")[0]) for e in release.unfinished().values()}
    for r in ("r1", "r2"):
        assert {(r, "suspended", "approval"), (r, "suspended", "__loom_timer__"), (r, "running", "")} <= kinds
    assert {e["release"] for e in release.expected.values() if e["status"] == "completed"} == {"r1", "r2"}


def test_its_own_build_serves_every_unfinished_execution(tmp_path: Path):
    release = copy_release(tmp_path)
    report = deploy_check(release.url, release.manifest, import_paths=[release.root])
    assert report.ok, [(v.execution_id, v.verdict, v.reason) for v in report.executions if not v.ok]
    assert report.replayed == len(release.unfinished())
    assert {s.execution_id: s.how for s in report.served} == {eid: "pinned" for eid in release.unfinished()}


def test_every_unfinished_execution_finishes_on_the_code_it_started_on(tmp_path: Path):
    release = copy_release(tmp_path)
    finished = finish_all(release, clock=CLOCK)
    assert set(finished) == set(release.unfinished())
    for eid, e in release.unfinished().items():
        got = finished[eid]
        assert got["status"] == "completed", (eid, got)
        assert got["servedBy"] == e["codeHash"], eid
        if "finish" in e:  # checkout and fulfil totals depend on the release's member rate
            assert got["result"]["total"] == e["finish"]["total"], (eid, got["result"])
