"""Replaying histories on current code: divergence caught, compatible edits pass, no effect runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from loom_compiler.cli import main
from loom_runtime import Runtime, flow
from loom_runtime.history import HistoryError, dump_history, history_from_json, load_histories, read_history, replay_history

from helpers.git_repo import copy_project

from .conftest import DATA, edit

EFFECTS: list[str] = []


def reserve(sku: str) -> str:
    EFFECTS.append("reserve")
    return f"reserved:{sku}"


def charge(amount: int) -> str:
    EFFECTS.append("charge")
    return f"charged:{amount}"


def notify() -> None:
    EFFECTS.append("notify")


def price(order: dict) -> int:
    return order["total"]


@flow("order", steps=["reserve", "charge"])
def v1(ctx, order):
    ctx.execute("reserve", reserve, order["sku"])
    receipt = ctx.execute("charge", charge, price(order))
    approval = ctx.suspend("approval")
    return {"receipt": receipt, "approval": approval}


def price_with_rounding(order: dict) -> int:
    return round(order["total"])


@flow("order", steps=["reserve", "charge"])
def compatible(ctx, order):  # a helper changed; the same steps are asked for
    ctx.execute("reserve", reserve, order["sku"])
    receipt = ctx.execute("charge", charge, price_with_rounding(order))
    approval = ctx.suspend("approval")
    return {"receipt": receipt, "approval": approval}


@flow("order", steps=["charge"])
def divergent(ctx, order):  # reserve dropped: the recorded reserve frame is never asked for
    receipt = ctx.execute("charge", charge, price(order))
    approval = ctx.suspend("approval")
    return {"receipt": receipt, "approval": approval}


@flow("order", steps=["reserve", "charge", "notify"])
def more_work(ctx, order):  # a new step before the park the history recorded
    ctx.execute("reserve", reserve, order["sku"])
    receipt = ctx.execute("charge", charge, price(order))
    ctx.execute("notify", notify)
    approval = ctx.suspend("approval")
    return {"receipt": receipt, "approval": approval}


@flow("order", steps=["reserve", "charge"])
def other_gate(ctx, order):
    ctx.execute("reserve", reserve, order["sku"])
    receipt = ctx.execute("charge", charge, price(order))
    return {"receipt": receipt, "approval": ctx.suspend("manager")}


@pytest.fixture
def parked():
    """A history parked on `approval` after both steps ran, as exported JSON and back."""
    rt = Runtime()
    rt.register(v1)
    rt.start("order", {"sku": "a", "total": 10}, execution_id="o1")
    history = history_from_json(json.loads(dump_history(read_history(rt.journal, "o1"))))
    EFFECTS.clear()
    return history


def test_the_unchanged_code_replays_its_own_history(parked):
    result = replay_history(parked, v1)
    assert result.ok and result.kind == "ok"
    assert EFFECTS == []


def test_a_compatible_edit_replays(parked):
    assert replay_history(parked, compatible).ok
    assert EFFECTS == []


def test_a_divergent_history_is_caught_and_no_effect_runs(parked):
    result = replay_history(parked, divergent)
    assert result.kind == "diverged" and not result.ok
    assert result.skipped == ("reserve",)
    assert "never asks for recorded step(s) `reserve`" in result.message
    assert EFFECTS == []


def test_new_live_work_before_the_recorded_outcome_is_a_finding(parked):
    result = replay_history(parked, more_work)
    assert result.kind == "live-work"
    assert "step `notify` would run live where the recorded run ends with EXECUTION_SUSPENDED" in result.message
    assert EFFECTS == []  # notify was refused before its function was called


def test_another_outcome_is_a_mismatch(parked):
    result = replay_history(parked, other_gate)
    assert result.kind == "mismatch" and "parks on `approval`, this code parks on `manager`" in result.message


def test_a_completed_history_replays_through_its_resume():
    rt = Runtime()
    rt.register(v1)
    rt.start("order", {"sku": "a", "total": 10}, execution_id="o2")
    rt.resume("o2", "yes")
    history = read_history(rt.journal, "o2")
    EFFECTS.clear()
    assert replay_history(history, compatible).ok
    result = replay_history(history, divergent)
    assert result.kind == "diverged" and EFFECTS == []


def test_an_open_history_replays_to_its_frontier():
    rt = Runtime()
    rt.register(v1)
    rt.start("order", {"sku": "a", "total": 10}, execution_id="o3")
    events = read_history(rt.journal, "o3").events[:4]  # crashed after reserve completed, before charge
    from loom_runtime.history import History

    result = replay_history(History("o3", events), v1)
    assert result.ok and result.frontier == "step `charge` would run live"
    assert EFFECTS.count("charge") == 1  # only the original run's


def test_a_timer_park_is_reproduced_and_a_shorter_body_diverges():
    @flow("timed", steps=["reserve"])
    def timed(ctx, _):
        ctx.execute("reserve", reserve, "s")
        ctx.sleep("cool-off", 60)
        return "done"

    @flow("timed", steps=[])
    def untimed(ctx, _):
        ctx.sleep("cool-off", 60)
        return "done"

    rt = Runtime(clock=lambda: 1000.0)
    rt.register(timed)
    assert rt.start("timed", execution_id="t1").gate == "__loom_timer__:cool-off"
    history = read_history(rt.journal, "t1")
    EFFECTS.clear()
    assert replay_history(history, timed).ok
    assert replay_history(history, untimed).skipped == ("reserve",)
    assert EFFECTS == []


def test_a_continuation_is_reproduced_with_its_input():
    @flow("loop", steps=["tick"])
    def loop(ctx, n):
        ctx.execute("tick", reserve, str(n))
        if n < 1:
            ctx.continue_as_new(n + 1)
        return n

    @flow("loop", steps=["tick"])
    def loop_by_two(ctx, n):
        ctx.execute("tick", reserve, str(n))
        if n < 1:
            ctx.continue_as_new(n + 2)
        return n

    rt = Runtime()
    rt.register(loop)
    assert rt.start("loop", 0, execution_id="l").result == 1
    first = read_history(rt.journal, "l")
    assert first.events[-1].type == "EXECUTION_CONTINUED"
    EFFECTS.clear()
    assert replay_history(first, loop).ok
    result = replay_history(first, loop_by_two)
    assert result.kind == "mismatch" and "continued as new with 1, this code with 2" in result.message
    assert EFFECTS == []


def test_a_history_for_another_flow_is_an_error(parked):
    @flow("other")
    def other(ctx, _):
        return None

    assert replay_history(parked, other).kind == "error"


def test_a_step_where_the_history_records_a_decision_is_a_clear_error():
    rt = Runtime()

    @flow("route")
    def decided(ctx, _):
        way = ctx.decide("way", lambda: "air")
        ctx.suspend("go")
        return way

    rt.register(decided)
    rt.start("route", execution_id="r")
    history = read_history(rt.journal, "r")

    @flow("route")
    def stepped(ctx, _):
        way = ctx.execute("way", notify)
        ctx.suspend("go")
        return way

    EFFECTS.clear()
    result = replay_history(history, stepped)
    assert result.kind == "error"
    assert result.message == (
        "execution `r`: `way` is recorded as a decision but this code asks for it as a step; "
        "a resume on it would be parked on `__loom_diverged__` (no effect ran during the replay)"
    )
    assert EFFECTS == []


def test_malformed_history_files_name_the_file_and_event(tmp_path: Path, parked):
    doc = json.loads(dump_history(parked))
    doc["events"][2]["seq"] = 7
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(HistoryError, match=r"bad\.json: execution `o1` events\[2\]: `seq` must be 3"):
        load_histories([bad])
    doc["events"][2]["seq"] = 3
    del doc["events"][2]["payload"][next(k for k in ("stepId", "condition", "decisionId") if k in doc["events"][2]["payload"])]
    bad.write_text(json.dumps(doc))
    with pytest.raises(HistoryError, match=r"bad\.json: execution `o1` events\[2\]: \w+ payload lacks field '\w+'"):
        load_histories([bad])
    (tmp_path / "empty").mkdir()
    with pytest.raises(HistoryError, match="no histories found"):
        load_histories([tmp_path / "empty"])


def test_cli_replay_of_an_empty_set_is_an_error(tmp_path: Path):
    (tmp_path / "none").mkdir()
    result = CliRunner().invoke(main, ["replay", str(tmp_path / "none")])
    assert result.exit_code == 2
    assert "no histories found" in result.stderr and "not a passing replay" in result.stderr
    assert CliRunner().invoke(main, ["replay"]).exit_code == 2


# -- end to end: run the real shop flow, export, edit, `loom replay` (fresh processes: the shop
#    package is imported from the project, never from this test process's sys.modules)

RUN = """
import sys
from loom_runtime import Runtime
from shop.flows import checkout
rt = Runtime(journal=sys.argv[1])
rt.register(checkout)
h = rt.start("checkout", {"sku": "a", "id": "o1", "items": [{"price": 600}]}, execution_id="o1")
assert h.status == "suspended", h
rt.start("checkout", {"sku": "b", "id": "o2", "items": [{"price": 10}]}, execution_id="o2")
"""


def loom(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("loom")
    return subprocess.run([str(exe), *args], cwd=cwd, capture_output=True, text=True, check=False)


def test_export_then_replay_against_edited_code(tmp_path: Path):
    root = tmp_path / "shop"
    copy_project(DATA, root)
    journal = tmp_path / "j.db"
    subprocess.run([sys.executable, "-c", RUN, str(journal)], cwd=root, check=True, capture_output=True)

    result = CliRunner().invoke(main, ["export", "--store", f"sqlite:///{journal}", "--out", str(tmp_path / "h")])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "h").iterdir()) == ["o1.json", "o2.json"]
    unknown = CliRunner().invoke(main, ["export", "--store", f"sqlite:///{journal}", "--execution", "nope", "--out", str(tmp_path / "x")])
    assert unknown.exit_code == 2 and "nope" in unknown.stderr and not (tmp_path / "x").exists()

    ok = loom(root, "replay", str(tmp_path / "h"))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "2 of 2 history(ies) replay" in ok.stdout

    # a compatible edit (a helper's arithmetic) still replays both
    edit(root / "shop/pricing.py", "math.floor(total", "math.ceil(total")
    assert loom(root, "replay", str(tmp_path / "h")).returncode == 0

    # the built artefact: the manifest's current chunk replays them too
    assert loom(root, "build", "-q").returncode == 0
    assert loom(root, "replay", str(tmp_path / "h"), "--manifest", "build/loom/manifest.json").returncode == 0

    # dropping the reserve step diverges from both recorded histories
    edit(root / "shop/flows.py", '    ctx.execute("reserve", reserve, order["sku"])\n', "")
    assert loom(root, "build", "-q").returncode == 0
    chunk = loom(root, "replay", str(tmp_path / "h"), "--manifest", "build/loom/manifest.json")
    assert chunk.returncode == 1 and chunk.stdout.count("DIVERGED: ") == 2, chunk.stdout + chunk.stderr
    bad = loom(root, "replay", str(tmp_path / "h"), "--json")
    assert bad.returncode == 1, bad.stderr
    doc = json.loads(bad.stdout)
    assert {(r["executionId"], r["kind"], tuple(r["skipped"])) for r in doc["results"]} == {
        ("o1", "diverged", ("reserve",)),
        ("o2", "diverged", ("reserve",)),
    }


def test_the_history_names_load_on_first_use():
    # `import loom_runtime` leaves the history module out (most processes never replay one), yet
    # every exported history name is there on first access and in `from loom_runtime import *`.
    code = (
        "import sys, loom_runtime\n"
        "assert 'loom_runtime.history' not in sys.modules, 'imported eagerly'\n"
        "from loom_runtime.history import History\n"
        "assert loom_runtime.History is History\n"
        "ns = {}\n"
        "exec('from loom_runtime import *', ns)\n"
        "assert ns['replay_history'] is sys.modules['loom_runtime.history'].replay_history\n"
        "try:\n"
        "    loom_runtime.no_such_name\n"
        "except AttributeError as exc:\n"
        "    assert 'no_such_name' in str(exc)\n"
        "else:\n"
        "    raise SystemExit('no AttributeError')\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("junk, message", [
    ("[" * 100_000 + "]" * 100_000, "nested too deeply to read"),
    ("1" + "0" * 5000, "integer of more than 4300 digits"),
], ids=["deep", "big-int"])
def test_cli_replay_of_a_pathological_history_is_a_clear_error(tmp_path: Path, parked, junk: str, message: str):
    doc = json.loads(dump_history(parked))
    text = json.dumps(doc).replace('"payload": {', '"payload": {"junk": ' + junk + ", ", 1)
    (tmp_path / "h.json").write_text(text)
    result = CliRunner().invoke(main, ["replay", str(tmp_path / "h.json"), "--manifest", str(tmp_path / "none.json")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert message in result.stderr and "h.json" in result.stderr


def test_cli_replay_of_a_fifo_is_refused_not_waited_on(tmp_path: Path):
    import os

    os.mkfifo(tmp_path / "h.json")
    result = CliRunner().invoke(main, ["replay", str(tmp_path / "h.json")])
    assert result.exit_code == 2 and "cannot read history" in result.stderr
