"""Every row of a real journal, damaged in every way a row can be, on every store.

A flow is run until it parks on a timer (steps, a decision, an emit, a parallel scope: one row of
each kind); then one row of one copy of it is damaged — deleted, its type changed, each field
replay reads removed, its payload not JSON or pathologically deep — and a fresh runtime's
``recover()`` (which fires the due timer) drives every copy at once. After it, for every copy: no
step or decision that was done ran again, nothing was appended, and the damaged copy is refused
with a ``LoomError`` naming it on its own handle — all but one: a deleted *last* row cannot be told
from a journal that stops there, and that copy is left waiting, unwritten. The healthy control copy
beside them completed.
"""

from __future__ import annotations

from collections import Counter

import pytest

from loom_runtime import LoomError, Runtime, flow
from loom_runtime.replay import _FIELDS

from helpers.journal_rows import RawRows

RUNS: Counter = Counter()
pytestmark = pytest.mark.slow


def effect(execution_id: str, name: str) -> str:
    RUNS[(execution_id, name)] += 1
    return f"done:{name}"


@flow("rows", steps=["a", "p1", "p2", "c"])
def rows(ctx, _input):
    eid = ctx.execution_id
    ctx.execute("a", effect, eid, "a")
    ctx.decide("route", lambda: effect(eid, "route"))
    ctx.emit("progress", {"n": 1})
    ctx.parallel([("p1", effect, eid, "p1"), ("p2", effect, eid, "p2")])
    ctx.sleep("later", 0)
    ctx.execute("c", effect, eid, "c")
    return "ok"


def _damages(events) -> list[tuple[str, int, str, object]]:
    """(label, seq, how, argument) for every row and every way to damage it."""
    out = []
    for e in events:
        out.append((f"{e.seq}-{e.type}-deleted", e.seq, "delete", None))
        out.append((f"{e.seq}-{e.type}-retyped", e.seq, "type", "STEP_MAYBE"))
        out.append((f"{e.seq}-{e.type}-not-json", e.seq, "payload", '{"stepId": "a", '))
        out.append((f"{e.seq}-{e.type}-deep", e.seq, "payload", "[" * 50_000 + "]" * 50_000))
        for name, _ in _FIELDS[e.type]:
            text = __import__("json").dumps({k: v for k, v in e.payload.items() if k != name})
            out.append((f"{e.seq}-{e.type}-no-{name}", e.seq, "payload", text))
    return out


def test_every_damaged_row_is_refused_and_nothing_done_runs_again(journal_factory):
    RUNS.clear()
    journal = journal_factory()
    rt = Runtime(journal=journal, clock=lambda: 1000.0)
    rt.register(rows)
    assert rt.start("rows", None, execution_id="template").status == "suspended"
    template = rt.journal.read("template")
    cases = _damages(template)
    if journal_factory.kind == "postgres":  # its json column refuses these itself: they cannot be stored
        cases = [c for c in cases if not c[0].endswith(("-deep", "-not-json"))]
    surgery = RawRows(journal)
    for label, seq, how, arg in [("control", 0, "none", None), *cases]:
        assert rt.start("rows", None, execution_id=label).status == "suspended"
        if how == "delete":
            surgery.delete(label, seq)
        elif how == "type":
            surgery.set_type(label, seq, arg)
        elif how == "payload":
            surgery.set_payload(label, seq, arg)
    before = dict(RUNS)
    last_seq = {label: journal.summary(label).last_seq for label, *_ in cases}
    fresh = Runtime(journal=journal_factory(), clock=lambda: 2000.0)  # another process, later: the timer is due
    fresh.register(rows)
    handles = {h.execution_id: h for h in fresh.recover()}
    assert handles["control"].status == "completed"
    for (eid, name), count in before.items():
        if eid not in ("template", "control"):
            assert RUNS[(eid, name)] == count, f"{eid}: `{name}` ran again"
    refused = 0
    for label, *_ in cases:
        handle = handles.get(label)
        assert handle is None or handle.status != "completed", f"{label}: completed past a damaged row"
        if handle is not None and handle.exception is not None:
            assert isinstance(handle.exception, LoomError), (label, repr(handle.exception))
            assert f"execution `{label}`" in str(handle.exception), (label, str(handle.exception))
            refused += 1
        # refused or left waiting, never written on: nothing appended past the damage
        assert fresh.journal.summary(label).last_seq == last_seq[label], f"{label}: appended past a damaged row"
    waiting = {label for label, *_ in cases if handles.get(label) is None or handles[label].exception is None}
    last = template[-1]
    # only a deleted LAST row cannot be told from a journal that stops there: it waits, unwritten
    assert waiting <= {f"{last.seq}-{last.type}-deleted"}, sorted(waiting)
    assert refused == len(cases) - len(waiting)
