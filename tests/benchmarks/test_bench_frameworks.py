"""Keeps ``bench_frameworks.py`` honest on a tiny Temporal project whose answers are known: the
decorators it counts, a handler edit that must move its workflow, an activity edit that must move
none, under the profile and under the default configuration (where handlers were outside)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.bench_frameworks import render, run_repo  # noqa: E402

ACTS = '''from temporalio import activity

class Db:
    def __init__(self, url):
        self.url = url

    @activity.defn
    async def save(self, x):
        return self.url + x

@activity.defn
async def charge(x):
    return x
'''
WF = '''from temporalio import workflow
from app.acts import Db, charge

@workflow.defn
class Order:
    @workflow.signal
    def poke(self, x):
        self.x = x

    @workflow.run
    async def run(self, x):
        await workflow.execute_activity(charge, x)
        return await workflow.execute_activity_method(Db.save, x)
'''


def test_known_answers(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "acts.py").write_text(ACTS)
    (tmp_path / "app" / "wf.py").write_text(WF)
    r = run_repo("temporal-samples", tmp_path)
    assert (r["decorators"], r["profile_flows"], r["default_flows"]) == (1, 1, 1)
    assert (r["handlers"], r["steps"]) == (1, 2)
    assert (r["profile_handlers_ok"], r["default_handlers_ok"]) == (1, 0)  # the default missed the handler
    assert (r["profile_steps_ok"], r["default_steps_ok"]) == (2, 1)  # the default hashed Db.save's class
    assert r["closure_changed"] == 1 and r["ids_changed"] == 1  # Order, not app.wf:Order.run
    assert "| temporal-samples | 1 | 1 / 1 |" in render([r])
