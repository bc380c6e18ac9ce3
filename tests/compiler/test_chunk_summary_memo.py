"""The chunks of one build share what they ask of a module's summary (``chunk_memo``), and only
for that very summary object: a table entry left by another summary at the same ``id`` (an older
tree state of the module, freed and its address reused) is never taken for this one's."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from loom_compiler import LoomConfig
from loom_compiler.bundle import chunk as chunk_mod
from loom_compiler.bundle.build import build_project
from loom_compiler.bundle.chunk_memo import ChunkMemo
from loom_compiler.bundle.chunk_order import import_schedule

FLOW = ("from loom_runtime import flow\nfrom shop.lib import price\n\n\n"
        "@flow('checkout')\ndef checkout(ctx, o):\n    return price(o)\n")
#: the same module in two tree states: what binds ``unit``, where it imports from, in what order,
#: and whether ``importlib`` is bound (the dynamic import's rewrite) all differ
OLD = {"shop/lib.py": "from shop.util import unit\n\n\ndef price(x):\n    return unit(x)\n",
       "shop/util.py": "def unit(x):\n    return x\n"}
NEW = {"shop/lib.py": ("import importlib\nfrom shop.other import unit\n\n\ndef price(x):\n"
                       "    return unit(x) + importlib.import_module('shop.other').K\n"),
       "shop/other.py": "K = 1\n\n\ndef unit(x):\n    return x\n"}


def _emit_calls(root: Path, files: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The ``emit_chunk`` calls of a build of ``files``: each flow version's arguments."""
    for rel, text in {"shop/__init__.py": "", "shop/flows.py": FLOW, **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text), encoding="utf-8")
    calls: list[dict[str, Any]] = []
    real = chunk_mod.emit_chunk

    def recording(fp, **kw):
        calls.append({"fp": fp, **kw})
        return real(fp, **kw)

    monkeypatch.setattr(chunk_mod, "emit_chunk", recording)
    report = build_project(LoomConfig(root=root, packages=("shop",)), jobs=1)
    monkeypatch.setattr(chunk_mod, "emit_chunk", real)
    assert report.ok, [str(e) for e in report.errors]
    assert len(calls) == 1
    return calls


def _emit(call: dict[str, Any], memo: ChunkMemo, schedules: dict[str, Any]) -> str:
    args = {k: v for k, v in call.items() if k not in ("fp", "memo")}
    return chunk_mod.emit_chunk(call["fp"], **args, memo=memo, import_schedules=schedules).text


def test_a_memo_entry_of_another_summary_at_the_same_id_is_not_used(tmp_path, monkeypatch):
    old = _emit_calls(tmp_path / "old", OLD, monkeypatch)[0]
    new = _emit_calls(tmp_path / "new", NEW, monkeypatch)[0]
    old_summaries, new_summaries = old["summaries"], new["summaries"]
    old_schedules = {m: import_schedule(s) for m, s in old_summaries.items()}
    new_schedules = {m: import_schedule(s) for m, s in new_summaries.items()}
    stale = ChunkMemo()
    _emit(old, stale, old_schedules)  # fills the tables with the old tree state's answers
    expected = _emit(new, ChunkMemo(), new_schedules)
    # the new state's chunk: its import made relative, its literal import of a bundled module too
    assert "from .other import unit" in expected and "import_module('shop.other')" not in expected

    # every answer kept for an old summary (or schedule) moved to the id of the new one of its module
    seeded = ChunkMemo()
    moved = 0
    for kind, table in stale._tables.items():
        for value in table.values():
            if not (isinstance(value, tuple) and len(value) == 2):
                continue
            for module, summary in old_summaries.items():
                if value[0] is summary and module in new_summaries:
                    seeded.table(kind)[id(new_summaries[module])] = value
                    moved += 1
                elif value[0] is old_schedules[module] and module in new_schedules:
                    seeded.table(kind)[id(new_schedules[module])] = value
                    moved += 1
    kinds = {kind for kind, table in seeded._tables.items() if table}
    assert {"module-facts", "module-bindings", "schedule-events"} <= kinds, kinds
    assert moved
    assert _emit(new, seeded, new_schedules) == expected


@pytest.mark.parametrize("kind", ["module-facts", "module-bindings", "schedule-events"])
def test_each_shared_answer_changes_the_chunk_when_it_is_wrong(kind, tmp_path, monkeypatch):
    """The other direction: each table's answer is read (a wrong one makes another chunk), so the
    identity check above is what keeps each of them right."""
    old = _emit_calls(tmp_path / "old", OLD, monkeypatch)[0]
    new = _emit_calls(tmp_path / "new", NEW, monkeypatch)[0]
    old_schedules = {m: import_schedule(s) for m, s in old["summaries"].items()}
    new_schedules = {m: import_schedule(s) for m, s in new["summaries"].items()}
    stale = ChunkMemo()
    _emit(old, stale, old_schedules)
    expected = _emit(new, ChunkMemo(), new_schedules)
    # the wrong answer, as a table that forgot its identity check would give it: the old module's
    # under the new object itself
    wrong = ChunkMemo()
    for value in stale.table(kind).values():
        for module, summary in old["summaries"].items():
            if module not in new["summaries"]:
                continue
            if value[0] is summary:
                new_object = new["summaries"][module]
            elif value[0] is old_schedules.get(module):
                new_object = new_schedules[module]
            else:
                continue
            wrong.table(kind)[id(new_object)] = (new_object, value[1])
    assert wrong.table(kind)
    try:
        served = _emit(new, wrong, new_schedules)
    except chunk_mod.ChunkError as exc:  # as wrong: the new module planned by the old one's facts
        served = str(exc)
    assert served != expected
