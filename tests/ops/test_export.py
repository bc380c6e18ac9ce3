"""``loom export`` and the ``loom-history/1`` file format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from loom_compiler.cli import main
from loom_compiler.ops import export_histories, open_store
from loom_runtime.errors import ExecutionNotFoundError, JournalError
from loom_runtime.history import HistoryError, history_filename, history_from_json, load_history

from .conftest import Shop


def test_every_execution_round_trips_through_its_file(shop: Shop, tmp_path: Path):
    out = tmp_path / "histories"
    with open_store(shop.url) as journal:
        written = export_histories(journal, out)
        assert [p.name for p in written] == ["e-current.json", "e-done.json", "e-lost.json", "e-pinned.json"]
        for path in written:
            history = load_history(path)
            assert [(e.seq, e.type, dict(e.payload)) for e in history.events] == [
                (e.seq, e.type, dict(e.payload)) for e in journal.read(history.execution_id)
            ]
    doc = json.loads((out / "e-pinned.json").read_text())
    assert doc["schema"] == "loom-history/1" and doc["flowId"] == "checkout"
    # golden-file stable: no timestamp under any spelling, and a later export writes the same bytes
    assert all(set(event) == {"seq", "type", "payload"} for event in doc["events"]), doc["events"]
    with open_store(shop.url) as journal:
        again = export_histories(journal, tmp_path / "again", execution_ids=["e-pinned"])
    assert again[0].read_bytes() == (out / "e-pinned.json").read_bytes()


def test_unfinished_only_and_selected_ids(shop: Shop, tmp_path: Path):
    with open_store(shop.url) as journal:
        assert {p.stem for p in export_histories(journal, tmp_path / "u", unfinished_only=True)} == {"e-current", "e-lost", "e-pinned"}
        assert [p.stem for p in export_histories(journal, tmp_path / "s", execution_ids=["e-done"])] == ["e-done"]
        with pytest.raises(ExecutionNotFoundError):
            export_histories(journal, tmp_path / "missing", execution_ids=["e-done", "nope"])
    assert not (tmp_path / "missing").exists()  # all read before anything is written


def test_exporting_nothing_is_an_error(tmp_path: Path):
    from loom_runtime.journal.sqlite import SqliteJournal

    SqliteJournal(tmp_path / "empty.db").close()
    with open_store(f"sqlite:///{tmp_path / 'empty.db'}") as journal, pytest.raises(JournalError, match="nothing to export"):
        export_histories(journal, tmp_path / "out")
    result = CliRunner().invoke(main, ["export", "--store", f"sqlite:///{tmp_path / 'empty.db'}", "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "nothing to export" in result.stderr


def test_file_names_are_safe_for_any_execution_id():
    assert history_filename("o1") == "o1.json"
    assert history_filename("a/b:c") == "a%2Fb%3Ac.json"
    assert history_filename("../x") == "%2E.%2Fx.json"


@pytest.mark.parametrize("a, b", [
    ("\U0001F600", "\x1f600"),   # one %1F600.json for both: a history silently lost
    ("Order-1", "order-1"),       # one file on a case-insensitive filesystem (macOS, Windows)
    ("x" * 300, "x" * 301),       # both cut to one prefix
    ("con", "%63on"),
    ("a.", "a%2E"),
])
def test_distinct_ids_get_distinct_file_names(a: str, b: str):
    names = {history_filename(a), history_filename(b)}
    assert len(names) == 2 and len({n.lower() for n in names}) == 2


def test_file_names_are_one_to_one_and_fit_every_filesystem():
    from hypothesis import given, settings, strategies as st

    seen: dict[str, str] = {}

    @settings(max_examples=400, deadline=None)
    @given(st.text(min_size=1, max_size=400))
    def one_to_one(eid: str) -> None:
        name = history_filename(eid)
        assert len(name.encode()) <= 255 and name.isascii() and "/" not in name and "\\" not in name
        assert not name.startswith(".") and name == name.strip()
        folded = name.lower()
        assert seen.setdefault(folded, eid) == eid, f"{eid!r} and {seen[folded]!r} share {name}"

    one_to_one()


def test_ids_that_collided_or_overflowed_all_export_to_their_own_file(tmp_path: Path):
    from loom_runtime.journal.memory import MemoryJournal
    from loom_runtime.journal.events import NewEvent

    journal = MemoryJournal()
    ids = ["\U0001F600", "\x1f600", "Order-1", "order-1", "x" * 300, "é" * 200]
    for eid in ids:
        journal.create(eid, NewEvent("EXECUTION_STARTED", {"flowId": "f", "flowHash": None, "codeHash": None, "input": eid}))
    written = export_histories(journal, tmp_path / "out")  # a 300-character id was an OSError
    assert len({p.name.lower() for p in written}) == len(ids)
    assert sorted(load_history(p).execution_id for p in (tmp_path / "out").iterdir()) == sorted(ids)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(schema="loom-history/9"), "unknown history schema 'loom-history/9'"),
        (lambda d: d.update(events=[]), "`events` must be a non-empty list"),
        (lambda d: d["events"][0].update(type="STEP_STARTED"), r"events\[0\]: .*first event must be EXECUTION_STARTED"),
        (lambda d: d["events"][1].update(type="NOPE"), r"events\[1\]: unknown event type 'NOPE'"),
        (lambda d: d.update(flowId="other"), "`flowId` 'other' disagrees"),
    ],
)
def test_malformed_documents_are_refused_with_the_place(mutate, message):
    doc = {
        "schema": "loom-history/1",
        "executionId": "x",
        "flowId": "f",
        "events": [
            {"seq": 1, "type": "EXECUTION_STARTED", "payload": {"flowId": "f", "flowHash": None, "codeHash": None, "input": None}},
            {"seq": 2, "type": "EXECUTION_COMPLETED", "payload": {"result": 1}},
        ],
    }
    mutate(doc)
    with pytest.raises(HistoryError, match=message):
        history_from_json(doc, where="h.json")
