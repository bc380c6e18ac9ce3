"""`loom deploy-check` proves by replay: real SQLite journals written by the real runtime, real
candidate builds, and marker files proving that no step, decider or emit body ran."""

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
from loom_compiler.ops import deploy_check, open_store, take_census
from loom_runtime.manifest import load_manifest

from helpers.git_repo import copy_project, edit

HERE = Path(__file__).parent
MARKER_SHOP = HERE / "data" / "marker_shop"
EXAMPLE_SHOP = HERE.parents[1] / "examples" / "shop"

LIVE = """
import json, sys
from loom_runtime import Registry, Runtime, open_journal
from loom_runtime.journal.events import NewEvent
from marker_shop.flows import order
rt = Runtime(journal=sys.argv[1], registry=Registry.from_manifest(sys.argv[2], strict=True), divergence="fail")
assert rt.register(order).code_hash  # the live code, bound to the build it was built into
assert rt.start("order", {"sku": "a", "amount": 5}, execution_id="at-go").gate == "go"
rt.start("order", {"sku": "b", "amount": 6}, execution_id="at-ship")
assert rt.resume("at-ship", None, gate="go").gate == "ship"
assert rt.start("order", {"sku": "c", "amount": 7}, execution_id="crashed").gate == "go"
rt.close()
# a crash right after the answer to `go` was recorded: running, its decision not taken yet
j = open_journal(sys.argv[1])
j.append("crashed", [NewEvent("EXECUTION_RESUMED", {"gate": "go", "payload": None})], expected_seq=j.summary("crashed").last_seq)
j.close()
"""

RESUME_ON = """
import sys
from loom_runtime import FlowReplayDivergenceError, Registry, Runtime
rt = Runtime(journal=sys.argv[1], registry=Registry.from_manifest(sys.argv[2]), divergence="fail")
try:
    rt.resume(sys.argv[3], None, gate="go")
except FlowReplayDivergenceError as exc:
    print("parked", exc.skipped)
"""


def build(root: Path, out: Path) -> Path:
    report = build_project(load_config(root), out=out, use_cache=False)
    assert report.ok, report.errors
    return out / "manifest.json"


def current(manifest: Path, flow_id: str) -> str:
    return load_manifest(manifest).flows[flow_id].current


def run(root: Path, script: str, *args: str, markers: Path) -> str:
    env = {**os.environ, "LOOM_TEST_MARKERS": str(markers)}
    done = subprocess.run([sys.executable, "-c", script, *args], cwd=root, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def make_shop(tmp_path: Path, monkeypatch, url: str | None = None) -> dict:
    """marker_shop built (v1), a journal (SQLite, or ``url``) of three in-flight executions on v1,
    and an empty marker directory the replay workers write to if any effect runs."""
    root = copy_project(MARKER_SHOP, tmp_path / "proj")
    v1 = build(root, tmp_path / "v1")
    live = tmp_path / "live-markers"
    live.mkdir()
    journal = tmp_path / "journal.db"
    url = url or f"sqlite:///{journal}"
    run(root, LIVE, url, str(v1), markers=live)
    assert sorted(p.name for p in live.iterdir()) == ["decider-approve", "step-reserve"]
    markers = tmp_path / "markers"
    markers.mkdir()
    monkeypatch.setenv("LOOM_TEST_MARKERS", str(markers))  # the replay workers inherit it
    return {"root": root, "v1": v1, "url": url, "journal": journal, "markers": markers, "tmp": tmp_path}


@pytest.fixture
def shop(tmp_path: Path, monkeypatch) -> dict:
    return make_shop(tmp_path, monkeypatch)


def candidate(shop, name: str, *edits: tuple[str, str], compatible: bool = True) -> Path:
    """A fresh build (no history) of the project with ``edits`` to flows.py, listing v1 as compatible."""
    flows = shop["root"] / "marker_shop/flows.py"
    original = flows.read_text()
    for old, new in edits:
        edit(flows, old, new)
    if compatible:
        v1 = current(shop["v1"], "order")
        edit(flows, '@flow("order", steps=["reserve", "charge"])', f'@flow("order", steps=["reserve", "charge"], compatible_with=["{v1}"])')
    try:
        return build(shop["root"], shop["tmp"] / name)
    finally:
        flows.write_text(original)


def verdicts(report) -> dict[str, tuple[str, str | None]]:
    return {v.execution_id: (v.verdict, v.how) for v in report.executions}


def test_the_build_they_started_on_serves_every_execution_and_nothing_runs(shop):
    report = deploy_check(shop["url"], shop["v1"], import_paths=[shop["root"]])
    assert report.ok and report.replayed == 3
    assert {v.execution_id: (v.verdict, v.how, v.stopped) for v in report.executions} == {
        "at-go": ("servable", "pinned", "reaches its resume point: it would park on `go`"),
        "at-ship": ("servable", "pinned", "reaches its resume point: it would park on `ship`"),
        "crashed": ("servable", "pinned", "next: decision `approve` would be recorded live"),
    }
    assert list(shop["markers"].iterdir()) == []  # no step body, no decider ran


def test_a_dropped_step_listed_compatible_is_diverged_naming_the_executions(shop):
    manifest = candidate(shop, "dropped", ('    ctx.execute("reserve", reserve, o["sku"])\n', ""))
    report = deploy_check(shop["url"], manifest, import_paths=[shop["root"]])
    assert not report.ok and report.exit_code == 1
    assert verdicts(report) == {"at-go": ("diverged", "compatible"), "at-ship": ("diverged", "compatible"),
                                "crashed": ("mismatch", "compatible")}
    assert {v.execution_id: v.skipped for v in report.diverged} == {"at-go": ("reserve",), "at-ship": ("reserve",)}
    # running, its next work a decision (not judged by D3): the replay stops before the decider, and
    # says which recorded steps are still unasked there
    (crashed,) = report.mismatched
    assert "decision `approve` would be recorded live while recorded step(s) `reserve` are not asked for yet" in crashed.reason
    text = CliRunner().invoke(main, ["deploy-check", "--store", shop["url"], "--manifest", str(manifest),
                                     "--import-path", str(shop["root"])])
    assert text.exit_code == 1
    assert "diverged: execution `at-go` (flow `order`" in text.stdout and "never asks for recorded step(s) `reserve`" in text.stdout
    assert "0 of 3 unfinished execution(s) servable" in text.stdout and "2 diverged, 1 mismatch" in text.stdout
    assert list(shop["markers"].iterdir()) == []


@pytest.mark.postgres
def test_on_postgresql_too(tmp_path: Path, monkeypatch, postgres_schema):
    shop = make_shop(tmp_path, monkeypatch, postgres_schema.url)
    assert deploy_check(shop["url"], shop["v1"], import_paths=[shop["root"]]).ok
    manifest = candidate(shop, "dropped", ('    ctx.execute("reserve", reserve, o["sku"])\n', ""))
    report = deploy_check(shop["url"], manifest, import_paths=[shop["root"]], jobs=2)
    assert {v.execution_id: v.skipped for v in report.diverged} == {"at-go": ("reserve",), "at-ship": ("reserve",)}
    assert list(shop["markers"].iterdir()) == []


def test_a_replay_safe_edit_with_compatible_with_is_servable(shop):
    manifest = candidate(shop, "fee", ("FEE = 1", "FEE = 2"))
    report = deploy_check(shop["url"], manifest, import_paths=[shop["root"]], jobs=2)
    assert report.ok, [v.reason for v in report.executions]
    assert verdicts(report) == {eid: ("servable", "compatible") for eid in ("at-go", "at-ship", "crashed")}
    assert list(shop["markers"].iterdir()) == []


def test_new_work_before_the_recorded_park_is_a_mismatch(shop):
    # a new decision before the `ship` gate: at-ship's recorded park is not reached without running it
    manifest = candidate(shop, "carrier", ('    ctx.suspend("ship")\n', '    ctx.decide("carrier", pick)\n    ctx.suspend("ship")\n'))
    report = deploy_check(shop["url"], manifest, import_paths=[shop["root"]])
    assert verdicts(report)["at-ship"] == ("mismatch", "compatible")
    (v,) = report.mismatched
    assert "decision `carrier` would be recorded live where the recorded run ends with EXECUTION_SUSPENDED" in v.reason
    assert verdicts(report)["at-go"] == ("servable", "compatible")  # it parks at `go` before the new decision
    assert list(shop["markers"].iterdir()) == []


def test_a_missing_chunk_is_stranded(shop):
    chunk = shop["v1"].parent / load_manifest(shop["v1"]).flows["order"].versions[current(shop["v1"], "order")].chunk
    chunk.unlink()
    report = deploy_check(shop["url"], shop["v1"], import_paths=[shop["root"]])
    assert {v.verdict for v in report.executions} == {"stranded"}
    assert all("whose chunk cannot be loaded" in v.reason for v in report.executions)
    hashes_only = deploy_check(shop["url"], shop["v1"], import_paths=[shop["root"]], replay=False)
    assert {v.verdict for v in hashes_only.executions} == {"stranded"}


def test_a_corrupt_journal_is_stranded_naming_the_event(shop):
    import sqlite3

    conn = sqlite3.connect(shop["journal"])
    conn.execute("DELETE FROM events WHERE execution_id='at-go' AND seq=3")  # reserve's STEP_COMPLETED
    conn.commit()
    conn.close()
    got = {v.execution_id: v for v in deploy_check(shop["url"], shop["v1"], import_paths=[shop["root"]]).executions}
    assert got["at-go"].verdict == "stranded", got["at-go"].reason
    assert "cannot be replayed by any build" in got["at-go"].reason
    assert "at-go" in got["at-go"].reason and got["at-ship"].verdict == "servable"
    assert list(shop["markers"].iterdir()) == []


def test_a_flow_the_build_lacks_is_stranded_and_a_code_it_refuses_is_a_mismatch(shop):
    (shop["root"] / "marker_shop/flows.py").write_text(
        (shop["root"] / "marker_shop/flows.py").read_text().replace('@flow("order"', '@flow("orders"'))
    renamed = build(shop["root"], shop["tmp"] / "renamed")
    assert {v.verdict for v in deploy_check(shop["url"], renamed, import_paths=[shop["root"]]).executions} == {"stranded"}
    (shop["root"] / "marker_shop/flows.py").write_text((MARKER_SHOP / "marker_shop/flows.py").read_text().replace("FEE = 1", "FEE = 3"))
    refused = deploy_check(shop["url"], build(shop["root"], shop["tmp"] / "fee3"), import_paths=[shop["root"]])
    assert {v.verdict for v in refused.executions} == {"mismatch"}
    assert all(not v.replayed and "compatible_with" in v.reason for v in refused.executions)


def test_census_and_deploy_check_judge_a_diverged_park_the_same_way(shop):
    dropped = candidate(shop, "dropped", ('    ctx.execute("reserve", reserve, o["sku"])\n', ""))
    live = shop["tmp"] / "resume-markers"  # a real resume: it runs the (unjudged) decider before refusing
    live.mkdir()
    out = run(shop["root"], RESUME_ON, str(shop["journal"]), str(dropped), "at-go", markers=live)
    assert out.strip() == "parked ('reserve',)"
    with open_store(shop["url"]) as journal:
        census = take_census(journal)
    (row,) = [r for r in census.rows if r.status == "diverged"]
    assert (row.count, census.diverged) == (1, 1)

    on_the_same_build = {v.execution_id: v for v in deploy_check(shop["url"], dropped, import_paths=[shop["root"]]).executions}
    parked = on_the_same_build["at-go"]
    assert (parked.status, parked.verdict, parked.skipped) == ("diverged", "diverged", ("reserve",))
    assert "it is parked there now" in parked.reason

    # on the build it started on, its replay passes: servable, and still reported as parked
    fixed = {v.execution_id: v for v in deploy_check(shop["url"], shop["v1"], import_paths=[shop["root"]]).executions}
    assert (fixed["at-go"].status, fixed["at-go"].verdict) == ("diverged", "servable")
    assert "retry_diverged" in fixed["at-go"].reason
    text = CliRunner().invoke(main, ["deploy-check", "--store", shop["url"], "--manifest", str(shop["v1"]),
                                     "--import-path", str(shop["root"])]).stdout
    assert "1 execution(s) parked on `__loom_diverged__` (`at-go`) replay cleanly" in text
    assert list(shop["markers"].iterdir()) == []


def test_a_body_that_kills_its_interpreter_is_reported_not_hidden(shop):
    exits = candidate(shop, "exits", ('    ctx.execute("reserve", reserve, o["sku"])\n',
                                      '    import os, sys\n    if o["sku"] == "b":\n        sys.exit(4)\n'
                                      '    if o["sku"] == "c":\n        os._exit(3)\n    ctx.execute("reserve", reserve, o["sku"])\n'))
    report = deploy_check(shop["url"], exits, import_paths=[shop["root"]], jobs=1)
    got = {v.execution_id: v for v in report.executions}
    assert got["at-ship"].verdict == "mismatch" and "SystemExit: 4" in got["at-ship"].reason
    # os._exit ends the worker: what it had not reported is stranded, saying why and what to do
    assert got["crashed"].verdict == "stranded"
    assert "its replay worker exited with status 3" in got["crashed"].reason and "--jobs 1" in got["crashed"].reason
    assert not report.ok


def test_json_and_github_formats(shop):
    manifest = candidate(shop, "dropped", ('    ctx.execute("reserve", reserve, o["sku"])\n', ""))
    args = ["deploy-check", "--store", shop["url"], "--manifest", str(manifest), "--import-path", str(shop["root"])]
    doc = json.loads(CliRunner().invoke(main, [*args, "--json"]).stdout)
    assert doc["schema"] == "loom-deploy-check/2" and doc["ok"] is False
    assert doc["counts"] == {"servable": 0, "diverged": 2, "mismatch": 1, "stranded": 0}
    (at_go,) = [e for e in doc["executions"] if e["executionId"] == "at-go"]
    assert (at_go["verdict"], at_go["skipped"], at_go["how"], at_go["replayed"]) == ("diverged", ["reserve"], "compatible", True)
    github = CliRunner().invoke(main, [*args, "--format", "github"])
    assert github.exit_code == 1
    lines = github.stdout.splitlines()
    assert lines[0].startswith("::error title=loom deploy-check%3A diverged at-go::execution `at-go`")
    assert lines[-1].startswith("::error title=loom deploy-check::loom deploy-check: 0 of 3")


def test_sample_replays_the_most_recent_per_version_and_every_parked_one(shop):
    report = deploy_check(shop["url"], shop["v1"], import_paths=[shop["root"]], sample=1)
    assert report.ok and report.replayed == 1 and report.sampled_out == 2
    (replayed,) = [v.execution_id for v in report.executions if v.replayed]
    assert replayed == "crashed"  # started last
    cli = CliRunner().invoke(main, ["deploy-check", "--store", shop["url"], "--manifest", str(shop["v1"]),
                                    "--import-path", str(shop["root"]), "--sample", "1", "--no-replay"])
    assert cli.exit_code == 2 and "cannot be combined" in cli.output


def test_the_journal_is_not_written(shop):
    before = shop["journal"].read_bytes()
    deploy_check(shop["url"], shop["v1"], import_paths=[shop["root"]])
    assert shop["journal"].read_bytes() == before


def test_the_issue_repro_on_examples_shop_is_diverged(tmp_path: Path):
    """examples/shop: an execution parked at its approval gate after `reserve`; a candidate that drops
    `reserve` and lists the old codeHash in compatible_with must be *diverged*, exit 1."""
    root = tmp_path / "shop"
    shutil.copytree(EXAMPLE_SHOP, root, ignore=shutil.ignore_patterns("build", ".loom-cache", "__pycache__"))
    v1 = build(root, tmp_path / "v1")
    journal = tmp_path / "shop.db"
    start = (
        "import sys\nfrom loom_runtime import Registry, Runtime\n"
        "rt = Runtime(journal=sys.argv[1], registry=Registry.from_manifest(sys.argv[2]))\n"
        "h = rt.start('checkout', {'id': 'o-1', 'sku': 'mug', 'items': [{'price': 600.0}]}, execution_id='o-1')\n"
        "assert h.gate == 'manager-approval', h\n"
    )
    done = subprocess.run([sys.executable, "-c", start, str(journal), str(v1)], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    flows = root / "shop/flows.py"
    edit(flows, '    ctx.execute("reserve", reserve, order["sku"])\n', "")
    edit(flows, '    step_families=["pack"],\n', f'    step_families=["pack"],\n    compatible_with=["{current(v1, "checkout")}"],\n')
    candidate_manifest = build(root, tmp_path / "candidate")
    result = CliRunner().invoke(main, ["deploy-check", "--store", f"sqlite:///{journal}", "--manifest",
                                       str(candidate_manifest), "--import-path", str(root)])
    assert result.exit_code == 1, result.output
    assert result.stdout.startswith("diverged: execution `o-1` (flow `checkout`")
    assert "never asks for recorded step(s) `reserve`" in result.stdout
    assert "0 of 1 unfinished execution(s) servable" in result.stdout
    hashes_only = CliRunner().invoke(main, ["deploy-check", "--store", f"sqlite:///{journal}", "--manifest",
                                            str(candidate_manifest), "--import-path", str(root), "--no-replay"])
    assert hashes_only.exit_code == 0 and "1 of 1 unfinished execution(s) servable" in hashes_only.stdout


STRICT_PARK = """
import sys
from loom_runtime import Registry, Runtime, UndeclaredStepError
rt = Runtime(journal=sys.argv[1], registry=Registry.from_manifest(sys.argv[2], strict=True), strict=True,
             on_warn=lambda _m: None)
assert rt.start("order", {"sku": "u", "amount": 1}, execution_id="undeclared").gate == "go"
try:
    rt.resume("undeclared", None, gate="go")
except UndeclaredStepError as exc:
    print("parked", exc.step_id, exc.parked)
"""

RESUME_AS = """
import sys
from loom_runtime import Registry, Runtime
rt = Runtime(journal=sys.argv[1], registry=Registry.from_manifest(sys.argv[2], strict=True), strict=True)
print(rt.resume_as("undeclared", "current").gate)
"""


def test_a_strict_park_on_an_undeclared_step_is_judged_on_the_current_version_and_names_resume_as(shop):
    wrap = ('    ctx.suspend("go")\n', '    ctx.suspend("go")\n    ctx.execute("wrap", reserve, o["sku"])\n')
    unfixed = candidate(shop, "unfixed", wrap, compatible=False)
    declared = ('@flow("order", steps=["reserve", "charge"])', '@flow("order", steps=["reserve", "charge", "wrap"])')
    fixed = candidate(shop, "fixed", wrap, declared, compatible=False)
    live = shop["tmp"] / "strict-markers"
    live.mkdir()
    out = run(shop["root"], STRICT_PARK, str(shop["journal"]), str(unfixed), markers=live)
    assert out.strip() == "parked wrap True"
    assert sorted(p.name for p in live.iterdir()) == ["step-reserve"]  # `wrap` never ran
    text = CliRunner().invoke(main, ["census", "--store", shop["url"]]).stdout
    assert "1 DIVERGED" in text and 'resume_as(execution_id, "current")' in text

    # the build that refused it still does not declare `wrap`: a strict runtime would park it again
    same = {v.execution_id: v for v in deploy_check(shop["url"], unfixed, import_paths=[shop["root"]]).executions}
    v = same["undeclared"]
    assert (v.status, v.verdict, v.how, v.undeclared, v.replayed) == ("diverged", "diverged", "current", "wrap", False)
    assert "does not declare it either" in v.reason

    # a release declaring it: its structure differs from the recorded one (D2 would refuse it as a
    # mismatch), so it is judged on the current version, servable by replay, and the way on is
    # resume_as, not retry_diverged
    report = deploy_check(shop["url"], fixed, import_paths=[shop["root"]])
    v = {v.execution_id: v for v in report.executions}["undeclared"]
    assert (v.verdict, v.served_by, v.replayed) == ("servable", current(fixed, "order"), True)
    assert v.stopped == "next: step `wrap` would run live" and 'resume_as(execution_id, "current")' in v.reason
    assert v.to_json()["undeclaredStep"] == "wrap"
    text = CliRunner().invoke(main, ["deploy-check", "--store", shop["url"], "--manifest", str(fixed),
                                     "--import-path", str(shop["root"])]).stdout
    assert "by a strict runtime refusing an undeclared step (`undeclared`)" in text
    assert list(shop["markers"].iterdir()) == []  # deploy-check ran nothing

    assert run(shop["root"], RESUME_AS, str(shop["journal"]), str(fixed), markers=live).strip() == "ship"
    assert sorted(p.name for p in live.iterdir()) == ["decider-approve", "step-reserve"]  # `wrap` ran (it reserves)
