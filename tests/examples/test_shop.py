"""examples/shop as a user meets it: its flows on a SQLite journal, ``python -m shop``, and
``examples/build_example.py`` (what ``./dev example`` prints)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from example_helpers import build, edit

from loom_runtime import Runtime

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def steps_of(rt: Runtime, execution_id: str) -> list[str]:
    return [e.payload["stepId"] for e in rt.get(execution_id).events if e.type == "STEP_COMPLETED"]


def test_checkout_packs_parcels_and_parks_large_orders_for_approval(example, tmp_path):
    root = example("shop")
    rt = Runtime(registry=build(root), journal=tmp_path / "j.db")
    small = {"id": "o-1", "sku": "mug", "items": [{"sku": "mug", "price": 10.0, "qty": 4}, {"sku": "card", "price": 2.0, "digital": True}]}
    done = rt.start("checkout", small, execution_id="o-1")
    assert done.status == "completed" and done.result["tracking"] == "tracking:o-1:2"
    assert steps_of(rt, "o-1") == ["reserve", "charge", "pack#0", "pack#1", "ship"]  # 4 mugs, 3 per parcel

    big = {"id": "o-2", "sku": "desk", "member": True, "items": [{"sku": "desk", "price": 650.0}]}
    parked = rt.start("checkout", big, execution_id="o-2")
    assert (parked.status, parked.gate) == ("suspended", "manager-approval")
    rejected = rt.resume("o-2", {"approved": False, "by": "dana"})
    assert rejected.result == {"status": "rejected", "by": "dana"} and "charge" not in steps_of(rt, "o-2")


def test_refund_pays_back_and_restocks_each_item(example, tmp_path):
    root = example("shop")
    rt = Runtime(registry=build(root))
    damaged = rt.start("refund", {"order_id": "o-7", "reason": "damaged"})
    assert damaged.result == {"status": "refunded", "amount": 120.0, "receipt": "refund:o-7:120.00"}
    other = rt.start("refund", {"order_id": "o-8"}, execution_id="r-8")
    assert other.result["amount"] == 114.0  # minus the 5% restocking fee
    assert steps_of(rt, "r-8") == ["load-order", "refund", "restock#0", "restock#1"]


def test_helper_edit_changes_exactly_the_flows_that_reach_it(example):
    root = example("shop")
    first = build(root)
    edit(root / "shop" / "shipping.py", "PARCEL_CAPACITY = 3", "PARCEL_CAPACITY = 2")
    second = build(root)
    assert second.current("checkout").code_hash != first.current("checkout").code_hash
    assert second.current("refund").code_hash == first.current("refund").code_hash
    assert [v.code_hash for v in second.versions("checkout")][1] == first.current("checkout").code_hash


def test_python_dash_m_shop_serves_the_old_chunk_and_the_new_code(example, tmp_path):
    root = example("shop")
    build(root)
    journal, manifest = str(tmp_path / "j.db"), str(root / "build" / "loom" / "manifest.json")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def shop(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "shop", "--journal", journal, "--manifest", manifest, *args],
                              cwd=root, capture_output=True, text=True, env=env)

    order = json.dumps({"id": "o-5", "sku": "desk", "member": True, "items": [{"sku": "desk", "price": 650.0}]})
    started = shop("start", "checkout", order, "--id", "o-5")
    assert started.returncode == 0 and "suspended at gate `manager-approval`" in started.stdout
    assert "(this release's live code)" in started.stdout
    edit(root / "shop" / "pricing.py", "DISCOUNT_RATE = 0.1\n", "DISCOUNT_RATE = 0.2\n")
    build(root)
    versions = shop("versions").stdout
    assert "from chunk (kept for in-flight executions)" in versions and "from live (current)" in versions
    finished = shop("resume", "o-5", '{"approved": true}')
    assert "completed" in finished.stdout and "(a chunk shipped from an earlier release)" in finished.stdout
    assert '"total": 585.0' in finished.stdout
    missing = shop("resume", "nope", "{}")
    assert missing.returncode == 1 and missing.stdout.startswith("refused: ")


def test_build_example_prints_a_readable_manifest_summary(tmp_path):
    project = tmp_path / "shop"
    import shutil

    shutil.copytree(EXAMPLES / "shop", project, ignore=shutil.ignore_patterns("build", ".loom-cache", "__pycache__"))
    proc = subprocess.run([sys.executable, str(EXAMPLES / "build_example.py"), str(project)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "loom build: 2 flows (2 new), 2 new versions, 0 errors in" in out
    assert "flow `checkout`: 1 version(s)" in out and "flow `refund`: 1 version(s)" in out
    assert "steps        reserve, charge, ship; families pack#*" in out
    assert "shop.pricing.needs_review" in out and "chunk        shop/build/loom/chunks/checkout/" in out
    edit(project / "shop" / "pricing.py", "REVIEW_LIMIT = 500.0", "REVIEW_LIMIT = 750.0")
    again = subprocess.run([sys.executable, str(EXAMPLES / "build_example.py"), str(project)],
                           capture_output=True, text=True, cwd=tmp_path).stdout
    assert "flow `checkout`: 2 version(s)" in again and "earlier, kept for executions that started on it" in again
    # the earlier version is shown by what differs (the edited constant, then the callers whose hash
    # followed it), not by its whole 13-member closure a second time
    flat = re.sub(r"\s+", " ", again)
    assert "differs from the current version in shop.pricing.REVIEW_LIMIT (edited); the hashes of " in flat
    assert "shop.pricing.needs_review" in flat.split("(edited); the hashes of ")[1].split("(they use it)")[0]
    assert flat.count("closure 13 members:") == 1  # the current version only
    assert "2 flows (1 changed, 1 unchanged), 1 new version, 0 errors" in again


def test_the_cli_docstring_s_commands_run_as_written(example, tmp_path):
    # It used to start without --id and then resume `o-1`, an id the runtime had never heard of.
    import shlex

    root = example("shop")
    build(root)
    from shop import __main__ as cli

    usage = [line.strip() for line in cli.__doc__.splitlines() if line.strip().startswith("python -m shop ...")]
    commands = {shlex.split(line)[4]: shlex.split(line.split("#")[0])[4:] for line in usage}
    assert set(commands) == {"start", "resume", "retry", "status"}
    journal, manifest = str(tmp_path / "j.db"), str(root / "build" / "loom" / "manifest.json")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def run(name: str) -> str:
        proc = subprocess.run([sys.executable, "-m", "shop", "--journal", journal, "--manifest", manifest,
                               *commands[name]], cwd=root, capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout

    assert "checkout o-1: suspended at gate `manager-approval`" in run("start")
    assert "checkout o-1: completed" in run("resume")
    assert "checkout o-1: completed" in run("status")


def test_open_runtime_in_a_source_tree_serves_what_loom_build_wrote(example, tmp_path):
    # no wheel installed, so no shop/_loom/: Registry.from_package alone failed here (what
    # `loom worker shop.service:worker_runtime` in the README ran into)
    root = example("shop")
    build(root)
    from shop.service import open_runtime

    runtime = open_runtime(tmp_path / "j.db")
    assert runtime.registry.manifest_path == str(root / "build" / "loom" / "manifest.json")
    assert runtime.registry.current("checkout").code_hash is not None  # pinned, not unpinned
    runtime.close()
