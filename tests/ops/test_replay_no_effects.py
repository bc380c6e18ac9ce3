"""`loom replay` never runs a user effect: a step, a decider or an emit that the history does not
hold is where the replay stops, reported as such (DESIGN §10). Every effect of the project writes a
marker file; the replay runs in a fresh process and the marker directory must stay empty."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.git_repo import copy_project

MARKER_SHOP = Path(__file__).parent / "data" / "marker_shop"

RUN = """
import sys
from loom_runtime import Runtime
from marker_shop.flows import order, swallow
rt = Runtime(journal=sys.argv[1])
rt.register(order)
rt.register(swallow)
assert rt.start("order", {"sku": "a", "amount": 5}, execution_id="o1").gate == "go"
assert rt.resume("o1", None, gate="go").gate == "ship"
assert rt.resume("o1", None, gate="ship").status == "completed"
assert rt.start("swallow", {}, execution_id="s1").status == "completed"
"""


def loom(cwd: Path, markers: Path, *args: str) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("loom")
    env = {**os.environ, "LOOM_TEST_MARKERS": str(markers)}
    return subprocess.run([str(exe), *args], cwd=cwd, capture_output=True, text=True, check=False, env=env)


@pytest.fixture
def histories(tmp_path: Path) -> tuple[Path, Path]:
    """The project, and a directory of histories cut just before each kind of effect."""
    root = copy_project(MARKER_SHOP, tmp_path / "proj")
    live = tmp_path / "live-markers"
    live.mkdir()
    journal = tmp_path / "j.db"
    env = {**os.environ, "LOOM_TEST_MARKERS": str(live)}
    subprocess.run([sys.executable, "-c", RUN, str(journal)], cwd=root, check=True, env=env, capture_output=True)
    assert sorted(p.name for p in live.iterdir()) == ["decider-approve", "decider-pick", "step-charge", "step-reserve"]
    exported = tmp_path / "exported"
    done = loom(root, live, "export", "--store", f"sqlite:///{journal}", "--out", str(exported))
    assert done.returncode == 0, done.stderr
    out = tmp_path / "h"
    out.mkdir()
    o1 = json.loads((exported / "o1.json").read_text())
    types = [e["type"] for e in o1["events"]]

    def cut(name: str, upto: int, doc: dict) -> None:
        part = {**doc, "executionId": name, "events": doc["events"][:upto]}
        (out / f"{name}.json").write_text(json.dumps(part))

    resumed = types.index("EXECUTION_RESUMED")
    cut("before-decider", resumed + 1, o1)  # a crash right after the answer to `go` was recorded
    cut("before-emit", types.index("DECISION_RECORDED") + 1, o1)
    cut("before-charge", len(types) - 2, o1)  # after the answer to `ship`, before charge started
    cut("parked-at-ship", types.index("EXECUTION_SUSPENDED", resumed) + 1, o1)
    cut("swallowed", 1, json.loads((exported / "s1.json").read_text()))  # only EXECUTION_STARTED
    return root, out


def test_replay_stops_before_every_effect_and_runs_none(histories, tmp_path: Path):
    root, out = histories
    markers = tmp_path / "replay-markers"
    markers.mkdir()
    done = loom(root, markers, "replay", str(out), "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    results = {r["executionId"]: r for r in json.loads(done.stdout)["results"]}
    assert {eid: (r["kind"], r["frontier"]) for eid, r in results.items()} == {
        "before-decider": ("ok", "decision `approve` would be recorded live"),
        "before-emit": ("ok", "event `approved` would be emitted live"),
        "before-charge": ("ok", "step `charge` would run live"),
        "parked-at-ship": ("ok", None),
        # the body swallowed the stop at its decision and asked for a step: still nothing ran
        "swallowed": ("ok", "decision `way` would be recorded live"),
    }
    assert list(markers.iterdir()) == []  # no step body, no decider ran

    text = loom(root, markers, "replay", str(out / "before-decider.json"))
    assert "next: decision `approve` would be recorded live" in text.stdout, text.stdout + text.stderr
    assert list(markers.iterdir()) == []


def test_a_new_decision_before_the_recorded_park_is_live_work_and_its_decider_does_not_run(histories, tmp_path: Path):
    root, out = histories
    flows = root / "marker_shop/flows.py"
    flows.write_text(flows.read_text().replace(
        '    ctx.suspend("ship")\n', '    ctx.decide("carrier", pick)\n    ctx.suspend("ship")\n'))
    markers = tmp_path / "replay-markers"
    markers.mkdir()
    done = loom(root, markers, "replay", str(out / "parked-at-ship.json"), "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    (result,) = json.loads(done.stdout)["results"]
    assert result["kind"] == "live-work"
    assert "decision `carrier` would be recorded live where the recorded run ends with EXECUTION_SUSPENDED" in result["message"]
    assert list(markers.iterdir()) == []
