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
