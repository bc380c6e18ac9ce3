"""A loom-fp/1 project rebuilt by this release: nothing strands, nothing is flagged (DESIGN §6).

Every test starts from the committed fp/1 release fixture (``tests/data/fp1_release``: the
``orders`` project, its cumulative fp/1 manifest and chunks, and a real SQLite journal with
executions of both releases parked on a gate, on a timer, and running) and runs the real
``loom build`` over it, so the previous manifest is what the previous release really wrote.

What a user relies on, each asserted below: the rebuild links every provably unchanged flow to its
fp/1 version and keeps every fp/1 version and chunk; ``loom deploy-check`` passes against the
fixture journal; every unfinished execution finishes in a fresh interpreter on the code it
started on; ``loom diff``/``check`` say *rehashed, unchanged* in every format and exit 0; a helper
edited after the upgrade is *changed* (never linked); a closure source that does not match what
the fp/1 build recorded is not linked; the manifest stays deterministic.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from loom_compiler.bundle.build import build_project
from loom_compiler.cli import main
from loom_compiler.config import load_config
from loom_compiler.ops import open_store, plan_gc, take_census, unfinished
from loom_runtime.manifest import load_manifest

from helpers.fp1_release import FP1_RELEASE, Release, copy_release, finish_all
from helpers.git_repo import commit_all, edit, init_repo

CLOCK = json.loads((FP1_RELEASE / "expected.json").read_text())["producedBy"]["clock"]
FP1_MANIFEST = FP1_RELEASE / "project" / "build" / "loom" / "manifest.json"
#: flows whose loom-fp/2 closure reaches only modules the fp/1 build recorded (audit: see below)
PROVABLE = ("checkout", "fulfil", "reminder")


def upgrade(tmp_path: Path, *, tamper=None) -> tuple[Release, object]:
    release = copy_release(tmp_path)
    if tamper is not None:
        doc = json.loads(release.manifest.read_text())
        tamper(doc)
        release.manifest.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    report = build_project(load_config(release.root))
    assert report.ok, report.errors
    return release, report


def loom(release: Release, *args: str) -> subprocess.CompletedProcess[str]:
    """The real command line, in the project, as an operator runs it after the deploy."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-m", "loom_compiler", *args], cwd=release.root, env=env,
                          capture_output=True, text=True, check=False)


def fp1_current(flow_id: str) -> str:
    return load_manifest(FP1_MANIFEST).flows[flow_id].current


# -- the rebuild ---------------------------------------------------------------------------------


def test_the_rebuild_links_each_unchanged_flow_to_its_fp1_version_and_drops_nothing(tmp_path: Path):
    before = json.loads(FP1_MANIFEST.read_text())
    release, report = upgrade(tmp_path)
    manifest = load_manifest(release.manifest)
    assert manifest.fingerprint_scheme == "loom-fp/2"
    for flow_id in PROVABLE:
        entry = manifest.flows[flow_id]
        current = entry.versions[entry.current]
        assert current.scheme == "loom-fp/2"
        assert current.rehashed_from == (fp1_current(flow_id),), flow_id
        assert (flow_id, entry.current) in report.rehashed
    # every fp/1 version is still there, byte for byte, and so is its chunk
    after = json.loads(release.manifest.read_text())
    for flow_id, fentry in before["flows"].items():
        for code_hash, version in fentry["versions"].items():
            assert after["flows"][flow_id]["versions"][code_hash] == version
            chunk = release.manifest.parent / version["chunk"]
            assert chunk.read_bytes() == (FP1_MANIFEST.parent / version["chunk"]).read_bytes()


def test_the_build_summary_says_which_new_versions_are_rehashed(tmp_path: Path):
    release = copy_release(tmp_path)
    out = loom(release, "build", ".", "--no-cache")
    assert out.returncode == 0, out.stderr
    manifest = load_manifest(release.manifest)
    linked = sum(1 for e in manifest.flows.values() if e.versions[e.current].rehashed_from)
    assert linked >= len(PROVABLE)
    assert f"4 new versions ({linked} rehashed: the same code under a new fingerprint scheme)" in out.stdout + out.stderr


def test_the_manifest_is_deterministic_across_rebuilds(tmp_path: Path):
    release, _ = upgrade(tmp_path / "a")
    first = release.manifest.read_bytes()
    again = build_project(load_config(release.root))  # on top of the upgraded manifest, from the cache
    assert again.ok and again.new_versions == () and "manifest.json" not in again.written
    assert release.manifest.read_bytes() == first
    other, _ = upgrade(tmp_path / "b")  # another checkout, another directory, no shared cache
    cold = build_project(load_config(other.root), use_cache=False)
    assert cold.ok
    assert other.manifest.read_bytes() == first


# -- serving the journal -------------------------------------------------------------------------


def test_deploy_check_against_the_fixture_journal_passes(tmp_path: Path):
    release, _ = upgrade(tmp_path)
    out = loom(release, "deploy-check", "--store", release.url, "--json")
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads(out.stdout)
    manifest = load_manifest(release.manifest)
    how = {s["executionId"]: (s["how"], s["servedBy"]) for s in report["executions"] if s["verdict"] == "servable"}
    assert set(how) == set(release.unfinished()) and report["ok"] and report["replayed"] == len(how)
    for eid, e in release.unfinished().items():
        entry = manifest.flows[e["flow"]]
        if e["codeHash"] == fp1_current(e["flow"]) and e["flow"] in PROVABLE:
            assert how[eid] == ("rehashed", entry.current), eid  # the fp/2 entry of the same code
        elif e["flow"] in PROVABLE:
            assert how[eid] == ("pinned", e["codeHash"]), eid  # release 1's code: its own fp/1 chunk


def test_every_unfinished_execution_finishes_on_the_code_it_started_on(tmp_path: Path):
    release, _ = upgrade(tmp_path)
    manifest = load_manifest(release.manifest)
    finished = finish_all(release, clock=CLOCK)
    assert set(finished) == set(release.unfinished())
    for eid, e in release.unfinished().items():
        got = finished[eid]
        assert got["status"] == "completed", (eid, got)
        if "finish" in e:  # the member rate of the release it started on: 0.10 vs 0.15
            assert got["result"]["total"] == e["finish"]["total"], (eid, got["result"])
        if e["flow"] in PROVABLE and e["codeHash"] == fp1_current(e["flow"]):
            # release 2's executions run on the live code, bound to the fp/2 version that rehashes theirs
            assert got["servedBy"] == manifest.flows[e["flow"]].current and got["origin"] == "live", eid
        elif e["flow"] in PROVABLE:
            assert got["servedBy"] == e["codeHash"] and got["origin"] == "chunk", eid


def test_census_deploy_check_and_gc_agree(tmp_path: Path):
    release, _ = upgrade(tmp_path)
    with open_store(release.url) as journal:
        census = take_census(journal)
        summaries = unfinished(journal)
    assert census.total == len(release.unfinished()) == len(summaries)
    plan = plan_gc(release.manifest, summaries)
    assert plan.remove == ()  # every fp/1 version is recorded by an execution; every fp/2 one serves or is current
    reasons = {(v.flow_id, v.code_hash): v.reason for v in plan.keep}
    for flow_id in PROVABLE:
        assert "recorded by 1 unfinished execution(s) that a rehashed version" in reasons[(flow_id, fp1_current(flow_id))]
        current = load_manifest(release.manifest).flows[flow_id].current
        assert reasons[(flow_id, current)].startswith("current; serves 1 unfinished execution(s)")


def test_gc_after_the_executions_drain_keeps_the_link_and_the_rebuild_keeps_it_too(tmp_path: Path):
    release, _ = upgrade(tmp_path)
    finish_all(release, clock=CLOCK)
    out = loom(release, "gc", "--store", release.url, "--yes")
    assert out.returncode == 0, out.stdout + out.stderr
    manifest = load_manifest(release.manifest)  # reads although rehashedFrom names dropped versions
    for flow_id in PROVABLE:
        entry = manifest.flows[flow_id]
        assert list(entry.versions) == [entry.current]
        assert entry.versions[entry.current].rehashed_from == (fp1_current(flow_id),)
    after_gc = release.manifest.read_bytes()
    assert build_project(load_config(release.root)).ok
    assert release.manifest.read_bytes() == after_gc  # the link is sticky: nothing to recompute it from


# -- review ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "github"])
def test_diff_against_the_fp1_manifest_says_rehashed_unchanged_in_every_format(tmp_path: Path, fmt: str):
    release, _ = upgrade(tmp_path)
    result = CliRunner().invoke(main, ["diff", str(release.root), "--base-manifest", str(FP1_MANIFEST), "--format", fmt])
    assert result.exit_code == 0, result.output
    out = result.stdout
    if fmt == "json":
        flows = {f["id"]: f for f in json.loads(out)["flows"]}
        for flow_id in PROVABLE:
            f = flows[flow_id]
            assert (f["status"], f["rehashed"], f["baseScheme"], f["headScheme"]) == ("unchanged", True, "loom-fp/1", "loom-fp/2")
            assert f["members"] == [] and f["suggestion"] is None and f["baseCodeHash"] == fp1_current(flow_id)
        assert not any(f["status"] == "changed" for f in flows.values() if f["id"] in PROVABLE)
    elif fmt == "github":
        for flow_id in PROVABLE:
            assert "::notice file=orders/flows.py" in out and f"flow `{flow_id}` rehashed, unchanged" in out
        # audit's fp/2 closure follows its lazy import into orders/pricing.py, which its fp/1 record
        # never covered: it is a new version (changed), never a link (see the test at the end)
        assert [line for line in out.splitlines() if line.startswith("::warning")] == [
            line for line in out.splitlines() if line.startswith("::warning") and "flow `audit` changed" in line]
        assert "::error" not in out
    else:
        assert "1 changed" in out  # audit (see above); every PROVABLE flow is rehashed, unchanged
        for flow_id in PROVABLE:
            assert flow_id in out
        assert out.count("rehashed, unchanged") >= len(PROVABLE)
        # nothing for a reviewer to add but audit's advice (one compatible_with line, its fp/1 hash)
        assert out.count("compatible_with=") == 1 and f'compatible_with=["{fp1_current("audit")}"]' in out


def test_check_against_the_fp1_manifest_passes_and_flags_nothing(tmp_path: Path):
    release, _ = upgrade(tmp_path)
    for fmt in ("text", "github"):
        result = CliRunner().invoke(main, ["check", str(release.root), "--base-manifest", str(FP1_MANIFEST), "--format", fmt])
        assert result.exit_code == 0, result.output
        assert "error" not in result.stdout
        if fmt == "text":
            assert "rehashed, unchanged)" in result.stdout
        else:
            assert result.stdout.strip() == ""  # no annotation at all


def _git_project(tmp_path: Path) -> Release:
    """The fixture as a repository whose HEAD is what release 2 shipped (the build output ignored)."""
    release = copy_release(tmp_path)
    (release.root / ".gitignore").write_text("build/\n.loom-cache/\n__pycache__/\n")
    init_repo(release.root)
    commit_all(release.root, "release 2 (built with loom-fp/1)", tag="r2")
    return release


def test_check_with_a_git_base_finds_the_base_code_under_its_fp1_hash(tmp_path: Path):
    # The upgrade and an edit in one pull request: the base ref is fingerprinted by this release
    # (its fp/2 hash is in no manifest), but the executions that started on it recorded the fp/1
    # hash, which the cumulative build keeps: the flow is kept, not flagged.
    release = _git_project(tmp_path)
    # (MEMBER_RATE: checkout reaches it, audit does not; audit's fp/2 closure reaches pricing.py,
    # which its fp/1 record cannot vouch for, so an edit it reaches is rightly flagged)
    edit(release.root / "orders/pricing.py", "MEMBER_RATE = 0.15", "MEMBER_RATE = 0.2")
    assert build_project(load_config(release.root)).ok
    result = CliRunner().invoke(main, ["check", str(release.root), "--base", "r2"])
    assert result.exit_code == 0, result.output
    assert "loom check: ok (" in result.stdout and "error" not in result.stdout
    diff = CliRunner().invoke(main, ["diff", str(release.root), "--base", "r2", "--format", "json"])
    flows = {f["id"]: f for f in json.loads(diff.stdout)["flows"]}
    assert flows["checkout"]["status"] == "changed" and not flows["checkout"]["rehashed"]


def test_check_with_a_git_base_still_fails_when_no_version_of_the_base_code_is_kept(tmp_path: Path):
    release = _git_project(tmp_path)
    shutil.rmtree(release.root / "build")  # no previous manifest: nothing was kept
    # (MEMBER_RATE: checkout reaches it, audit does not; audit's fp/2 closure reaches pricing.py,
    # which its fp/1 record cannot vouch for, so an edit it reaches is rightly flagged)
    edit(release.root / "orders/pricing.py", "MEMBER_RATE = 0.15", "MEMBER_RATE = 0.2")
    assert build_project(load_config(release.root)).ok
    result = CliRunner().invoke(main, ["check", str(release.root), "--base", "r2"])
    assert result.exit_code == 1
    assert "flow `checkout`" in result.stdout


# -- what must not be linked ---------------------------------------------------------------------


def test_a_helper_edited_after_the_upgrade_is_changed_not_linked(tmp_path: Path):
    release, _ = upgrade(tmp_path)
    upgraded = release.manifest.read_bytes()
    upgraded_copy = tmp_path / "upgraded.json"
    upgraded_copy.write_bytes(upgraded)
    edit(release.root / "orders/shipping.py", "if item.get(\"heavy\")]", "if item.get(\"heavy\") or item.get(\"fragile\")]")
    report = build_project(load_config(release.root))
    assert report.ok
    entry = load_manifest(release.manifest).flows["fulfil"]
    assert entry.versions[entry.current].rehashed_from == ()  # new code: no earlier hash is this code
    assert [f for f, _ in report.new_versions] == ["fulfil"] and report.rehashed == ()
    for base in (FP1_MANIFEST, upgraded_copy):
        result = CliRunner().invoke(main, ["diff", str(release.root), "--base-manifest", str(base), "--format", "json"])
        flows = {f["id"]: f for f in json.loads(result.stdout)["flows"]}
        assert flows["fulfil"]["status"] == "changed" and not flows["fulfil"]["rehashed"], base
        assert "orders.shipping.parcels" in [m["name"] for m in flows["fulfil"]["members"]]
    # the others are still rehashed-unchanged against the fp/1 manifest
    assert flows["checkout"]["status"] == "unchanged"


def test_an_edit_made_together_with_the_upgrade_is_changed_not_linked(tmp_path: Path):
    release = copy_release(tmp_path)
    edit(release.root / "orders/pricing.py", "MEMBER_RATE = 0.15", "MEMBER_RATE = 0.20")
    assert build_project(load_config(release.root)).ok
    manifest = load_manifest(release.manifest)
    for flow_id in ("checkout", "fulfil"):  # reach MEMBER_RATE
        entry = manifest.flows[flow_id]
        assert entry.versions[entry.current].rehashed_from == (), flow_id
    # both share orders/pricing.py, so reminder is not provably unchanged either (module granularity)
    reminder = manifest.flows["reminder"]
    assert reminder.versions[reminder.current].rehashed_from == ()
    result = CliRunner().invoke(main, ["diff", str(release.root), "--base-manifest", str(FP1_MANIFEST), "--format", "json"])
    flows = {f["id"]: f for f in json.loads(result.stdout)["flows"]}
    assert flows["checkout"]["status"] == "changed"
    # and still nothing strands: release 2's fp/1 versions are kept, pinned
    out = loom(release, "deploy-check", "--store", release.url)
    assert out.returncode == 0, out.stdout + out.stderr


def _drop(flow_id: str, module: str):
    def tamper(doc: dict) -> None:
        entry = doc["flows"][flow_id]
        del entry["versions"][entry["current"]]["source"]["closureSources"][module]
    return tamper


def _forge(flow_id: str, module: str):
    def tamper(doc: dict) -> None:
        entry = doc["flows"][flow_id]
        entry["versions"][entry["current"]]["source"]["closureSources"][module] = "sha256:" + "0" * 64
    return tamper


@pytest.mark.parametrize("tamper", [_forge("fulfil", "orders.shipping"), _drop("fulfil", "orders.shipping")],
                         ids=["digest-differs", "module-not-recorded"])
def test_a_closure_module_the_fp1_build_did_not_record_identically_is_not_linked(tmp_path: Path, tamper):
    release, report = upgrade(tmp_path, tamper=tamper)
    manifest = load_manifest(release.manifest)
    fulfil = manifest.flows["fulfil"]
    assert fulfil.versions[fulfil.current].rehashed_from == ()
    for flow_id in ("checkout", "reminder"):  # untouched entries still link
        entry = manifest.flows[flow_id]
        assert entry.versions[entry.current].rehashed_from == (fp1_current(flow_id),)
    result = CliRunner().invoke(main, ["diff", str(release.root), "--base-manifest", str(FP1_MANIFEST), "--format", "json"])
    # against the untampered fp/1 manifest the code *is* provably the same: the rule reads the base's record
    assert {f["id"]: f["rehashed"] for f in json.loads(result.stdout)["flows"]}["fulfil"] is True
    # nothing strands: the fp/1 version stays and its executions stay pinned to its chunk
    out = loom(release, "deploy-check", "--store", release.url, "--json")
    assert out.returncode == 0, out.stdout + out.stderr
    how = {s["executionId"]: s["how"] for s in json.loads(out.stdout)["executions"] if s["verdict"] == "servable"}
    assert how["r2-fulfil-running"] == "pinned"
    finished = finish_all(release, clock=CLOCK)
    assert finished["r2-fulfil-running"]["result"]["total"] == release.expected["r2-fulfil-running"]["finish"]["total"]


def test_a_tampered_record_is_not_rehashed_in_review_either(tmp_path: Path):
    release = copy_release(tmp_path)
    doc = json.loads(FP1_MANIFEST.read_text())
    _forge("checkout", "orders.pricing")(doc)
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(doc))
    result = CliRunner().invoke(main, ["diff", str(release.root), "--base-manifest", str(forged), "--format", "json"])
    flows = {f["id"]: f for f in json.loads(result.stdout)["flows"]}
    assert flows["checkout"]["status"] == "changed" and not flows["checkout"]["rehashed"]
    assert flows["reminder"]["status"] == "unchanged" and flows["reminder"]["rehashed"]


def test_a_flow_whose_fp2_closure_reaches_a_module_fp1_never_recorded_is_not_linked(tmp_path: Path):
    # audit imports orders.pricing inside its body: fp/1 never followed it, so its fp/1 record has
    # orders.flows only and cannot prove pricing.py unchanged. A new version, not a link; the fp/1
    # version stays and r1-audit-review stays pinned to it.
    release, _ = upgrade(tmp_path)
    audit = load_manifest(release.manifest).flows["audit"]
    current = audit.versions[audit.current]
    assert "orders.pricing" in (current.source.closure_sources or {})
    assert current.rehashed_from == ()
    out = loom(release, "deploy-check", "--store", release.url, "--json")
    assert out.returncode == 0
    assert {s["executionId"]: s["how"] for s in json.loads(out.stdout)["executions"]}["r1-audit-review"] == "pinned"


def test_a_history_ref_built_under_fp2_links_to_the_fp1_version_of_its_code(tmp_path: Path):
    # `--from-git r2` after an edit: r2's code is rebuilt under fp/2 from git objects; it is the
    # code the fp/1 build recorded as current, so its new version rehashes that one.
    release = _git_project(tmp_path)
    edit(release.root / "orders/pricing.py", "APPROVAL_LIMIT = 300.0", "APPROVAL_LIMIT = 250.0")
    report = build_project(load_config(release.root), from_git=["r2"])
    assert report.ok, report.errors
    checkout = load_manifest(release.manifest).flows["checkout"]
    from_ref = [v for h, v in checkout.versions.items() if v.scheme == "loom-fp/2" and h != checkout.current]
    assert [v.rehashed_from for v in from_ref] == [(fp1_current("checkout"),)]
    assert checkout.versions[checkout.current].rehashed_from == ()  # the edited working tree: new code


def test_a_closure_module_review_cannot_read_again_is_never_called_rehashed(tmp_path: Path):
    # Left out of the head's record, the module would go unverified: no record, no rehash.
    from loom_compiler.fingerprint import fingerprint_project
    from loom_compiler.review.diff import is_rehash
    from loom_compiler.review.snapshot import snapshot_from_fingerprint, snapshot_from_manifest
    from loom_compiler.sources import DirectorySourceTree, SourceReadError

    release = copy_release(tmp_path)
    config = load_config(release.root)
    tree = DirectorySourceTree(config.root, config)
    flows = {f.flow_id: f for f in fingerprint_project(tree, config).flows}

    class Vanished(DirectorySourceTree):
        def read(self, module: str) -> bytes | None:
            if module == "orders.shipping":
                raise SourceReadError("orders/shipping.py", "vanished since it was fingerprinted")
            return super().read(module)

    base = snapshot_from_manifest("fp1", load_manifest(FP1_MANIFEST)).by_id()
    gone = Vanished(config.root, config)
    fulfil = snapshot_from_fingerprint(flows["fulfil"], gone)  # reaches orders.shipping
    assert fulfil.closure_sources is None and not is_rehash(base["fulfil"], fulfil)
    checkout = snapshot_from_fingerprint(flows["checkout"], gone)  # does not
    assert checkout.closure_sources is not None and is_rehash(base["checkout"], checkout)
