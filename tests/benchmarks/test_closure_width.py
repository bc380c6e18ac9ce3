"""Keeps ``bench_closure_width.py`` honest: on a small project whose answers are known, an edit to a
helper a flow calls is *reach*, an edit to an unrelated helper moves nothing, a step body edit that
moves a hash is collateral, a method edit inside a class the closure holds whole is counted apart,
and a change no member explains is collateral attributed to the member the edit landed in. Both sides run this checkout (the previous release's tree needs the
repository's history; the benchmark itself checks that each child imported the tree it was given).
Nothing is timed."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.bench_closure_width import analyse, helpers, run_worker, width  # noqa: E402

FLOWS = '''\
from loom_runtime import flow, step
from app.lib import price, Box
from app.steps import charge


@flow("checkout", steps=["charge"])
def checkout(ctx, order):
    ctx.execute("charge", charge, price(order))
    return Box().size()


@flow("ping")
def ping(ctx, x):
    """Reaches nothing in app.lib."""
    return x
'''

LIB = '''\
def price(order):
    return order["total"] * 2


def unrelated(x):
    return x - 1


class Box:
    def size(self):
        return 1

    def other(self):
        return 2
'''

STEPS = '''\
from loom_runtime import step


@step
def charge(amount):
    return amount
'''


def test_reach_collateral_and_step_edits_are_told_apart(tmp_path: Path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "flows.py").write_text(FLOWS)
    (tmp_path / "app" / "lib.py").write_text(LIB)
    (tmp_path / "app" / "steps.py").write_text(STEPS)
    request = {"root": str(tmp_path), "decorators": ["loom_runtime.flow"], "steps": ["loom_runtime.step"]}
    scan = run_worker(ROOT, request)
    assert {f["id"] for f in scan["flows"]} == {"checkout", "ping"}
    edits = helpers(tmp_path, scan["modules"], {f["key"] for f in scan["flows"]}, request["steps"])
    by_name = {f"{e['module']}.{e['qualname']}": e for e in edits}
    assert "app.flows.checkout" not in by_name  # the flows themselves are not helpers
    assert by_name["app.lib.Box.other"]["kind"] == "method"
    wire = [{"module": e["module"], "line": e["line"], "text": e["text"]} for e in edits]
    done = run_worker(ROOT, {**request, "edits": wire})
    moved = {f"{e['module']}.{e['qualname']}": [c["key"] for c in changed] for e, changed in zip(edits, done["edits"])}
    assert moved["app.lib.price"] == ["app.flows:checkout"]
    assert moved["app.lib.unrelated"] == []
    assert moved["app.steps.charge"] == []  # a step body: never in the hash
    assert by_name["app.steps.charge"]["kind"] == "step"
    result = analyse("synthetic", "0" * 7, edits, done, done)
    c = result["collateral"]["fp2"]
    assert c["reach"] >= 1 and c["collateral"] == 0 and (c["stepEdits"], c["stepMoves"]) == (1, 0)
    assert c["changes"] == c["reach"] + c["inClass"] + c["collateral"] == sum(len(m) for m in moved.values())
    members, lines = width(next(f for f in scan["flows"] if f["id"] == "checkout"))
    assert members >= 3 and lines >= 4


def test_a_change_no_member_holds_is_collateral_and_names_the_rule_it_came_by():
    # what analyse does with a widened member (a whole module), without waiting for a scheme that has one
    flow = {"key": "app.flows:f", "id": "f", "members": [
        {"q": "app.flows.f", "kind": "flow", "path": "app/flows.py", "line": 1, "lines": 3},
        {"q": "app.lib", "kind": "module", "path": "app/lib.py", "line": 1, "lines": 20}]}
    edit = {"module": "app.lib", "qualname": "helper", "kind": "function", "line": 2, "text": "_loom_probe = 0",
            "decorators": []}
    side = {"flows": [flow], "edits": [[{"key": "app.flows:f", "touched": [["module", "app.lib", "dynamic reach"]],
                                         "added": []}]], "scanSeconds": 0}
    c = analyse("synthetic", "0" * 7, [edit], side, side)["collateral"]["fp2"]
    assert (c["reach"], c["inClass"], c["collateral"]) == (0, 0, 1)
    assert c["rules"] == {"module: dynamic reach": 1}
    assert c["worst"] == [{"helper": "app.lib.helper", "flows": 1, "rules": ["module: dynamic reach `app.lib`"]}]


def test_a_registering_decorator_is_named_as_the_rule():
    # ``@app.post(...) def handler``: the statement belongs to ``app``; a flow that reaches ``app``
    # moves when the handler is edited, although it never calls it
    flow = {"key": "m:f", "id": "f", "members": [
        {"q": "m.f", "kind": "flow", "path": "m.py", "line": 1, "lines": 3},
        {"q": "m.app", "kind": "constant", "path": "m.py", "line": 5, "lines": 40}]}
    edit = {"module": "m", "qualname": "handler", "kind": "function", "line": 9, "text": "    _loom_probe = 0",
            "decorators": ["app"]}
    side = {"flows": [flow], "edits": [[{"key": "m:f", "touched": [["constant", "m.app", None]], "added": []}]],
            "scanSeconds": 0}
    c = analyse("synthetic", "0" * 7, [edit], side, side)["collateral"]["fp2"]
    assert c["rules"] == {"registering decorator": 1}
    assert c["worst"][0]["rules"] == ["registering decorator `@app…`; members `m.app`"]


def test_a_helper_brought_in_by_a_module_statement_is_collateral_of_that_rule():
    # ``if __name__ == "__main__": asyncio.run(main())`` belongs to the workflow class (main passes
    # it to a Worker): ``main`` is a member only through that statement's ``#effects`` member
    flow = {"key": "m:W.run", "id": "W", "members": [
        {"q": "m.W.run", "kind": "flow", "path": "m.py", "line": 5, "lines": 3, "via": None},
        {"q": "m.W#effects", "kind": "constant", "path": "m.py", "line": 30, "lines": 2, "via": "m.W#effects"},
        {"q": "m.main", "kind": "function", "path": "m.py", "line": 20, "lines": 8, "via": "m.W#effects"}]}
    edit = {"module": "m", "qualname": "main", "kind": "function", "line": 21, "text": "    _loom_probe = 0",
            "decorators": []}
    side = {"flows": [flow], "edits": [[{"key": "m:W.run", "touched": [["function", "m.main", None, "m.W#effects"]],
                                         "added": []}]], "scanSeconds": 0}
    fp1 = {"flows": [dict(flow, members=flow["members"][:1])], "edits": [[]], "scanSeconds": 0}
    result = analyse("synthetic", "0" * 7, [edit], fp1, side)
    c = result["collateral"]["fp2"]
    assert (c["reach"], c["collateral"]) == (0, 1) and c["rules"] == {"module-statement effects": 1}
    assert c["worst"][0]["rules"] == ["module-statement effects via `m.W#effects`"]
    assert result["fp1Misses"] == []  # reached only through widening: not something fp/1 missed
