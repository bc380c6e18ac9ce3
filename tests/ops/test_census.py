"""``loom census`` over a SQLite journal with executions on three code versions."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from loom_compiler.cli import main
from loom_compiler.ops import CensusRow, open_store, take_census
from loom_runtime import FlowReplayDivergenceError, Runtime, flow
from loom_runtime.journal.events import NewEvent
from loom_runtime.journal.sqlite import SqliteJournal

from .conftest import HOTFIX, Shop


def test_census_counts_unfinished_executions_by_flow_code_and_status(shop: Shop):
    v1, _v2, v3 = shop.checkout
    with open_store(shop.url) as journal:
        census = take_census(journal)
    assert census.rows == tuple(sorted(
        [CensusRow("checkout", v1, "suspended", 1), CensusRow("checkout", v3, "running", 1),
         CensusRow("refund", HOTFIX, "running", 1)],
        key=lambda r: (r.flow_id, r.code_hash or "", r.status),
    ))
    assert census.total == 3  # the completed execution is not counted


def test_cli_census_table_and_json(shop: Shop):
    result = CliRunner().invoke(main, ["census", "--store", shop.url])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0].split() == ["FLOW", "CODEHASH", "STATUS", "COUNT"]
    assert f"checkout  {shop.checkout[0][:19]}  suspended  1" in result.stdout
    assert result.stdout.rstrip().endswith("3 unfinished execution(s)")
    doc = json.loads(CliRunner().invoke(main, ["census", "--store", shop.url, "--json"]).stdout)
    assert doc["schema"] == "loom-census/1" and doc["total"] == 3


def _park_diverged(shop: Shop, eid: str = "e-diverged") -> None:
    """An execution on v2 refused and parked on the reserved gate, as the runtime writes it."""
    with SqliteJournal(shop.journal) as j:
        summary = j.summary("e-done")  # the v2 execution's recorded hashes
        j.create(eid, NewEvent("EXECUTION_STARTED", {"flowId": "checkout", "flowHash": summary.flow_hash,
                                                     "codeHash": summary.code_hash, "input": {"id": "o"}}))
        j.append(eid, [NewEvent("EXECUTION_SUSPENDED", {"condition": {"on": "__loom_diverged__",
                                                                      "correlationKey": "skipped 1: reserve"}})],
                 expected_seq=1)


def test_a_diverged_park_is_counted_as_diverged_not_suspended(shop: Shop):
    v1, v2, _v3 = shop.checkout
    _park_diverged(shop)
    with open_store(shop.url) as journal:
        census = take_census(journal)
    assert CensusRow("checkout", v2, "diverged", 1) in census.rows
    assert CensusRow("checkout", v1, "suspended", 1) in census.rows  # an ordinary gate stays suspended
    assert not any(r.code_hash == v2 and r.status == "suspended" for r in census.rows)
    assert (census.total, census.diverged) == (4, 1)


def test_cli_census_shows_diverged_parks_in_the_table_and_json(shop: Shop):
    _park_diverged(shop)
    result = CliRunner().invoke(main, ["census", "--store", shop.url])
    assert result.exit_code == 0, result.output
    assert f"checkout  {shop.checkout[1][:19]}  diverged   1" in result.stdout
    lines = result.stdout.rstrip().splitlines()
    assert lines[-2] == "4 unfinished execution(s)"
    assert lines[-1].startswith("1 DIVERGED: refused and parked on `__loom_diverged__`")
    doc = json.loads(CliRunner().invoke(main, ["census", "--store", shop.url, "--json"]).stdout)
    assert (doc["total"], doc["diverged"]) == (4, 1)
    assert {"flowId": "checkout", "codeHash": shop.checkout[1], "status": "diverged", "count": 1} in doc["rows"]


def test_without_diverged_parks_the_table_has_no_diverged_line(shop: Shop):
    result = CliRunner().invoke(main, ["census", "--store", shop.url])
    assert "DIVERGED" not in result.stdout
    assert json.loads(CliRunner().invoke(main, ["census", "--store", shop.url, "--json"]).stdout)["diverged"] == 0


def test_a_refusal_the_runtime_parks_shows_in_the_census(tmp_path):
    url = f"sqlite:///{tmp_path / 'j.db'}"
    ran = []

    def v1(ctx, _):
        ctx.execute("reserve", lambda: ran.append("reserve"))
        ctx.suspend("approval")
        ctx.execute("ship", lambda: ran.append("ship"))

    def v2(ctx, _):  # `reserve` dropped
        ctx.suspend("approval")
        ctx.execute("ship", lambda: ran.append("ship"))

    with Runtime(journal=tmp_path / "j.db") as rt:
        rt.register(flow("order", steps=["reserve", "ship"])(v1))
        rt.start("order", execution_id="o1")
    with Runtime(journal=tmp_path / "j.db", divergence="fail", on_warn=lambda _m: None) as rt:
        rt.register(flow("order", steps=["reserve", "ship"])(v2))
        with pytest.raises(FlowReplayDivergenceError):
            rt.resume("o1")
    assert ran == ["reserve"]
    with open_store(url) as journal:
        assert [(r.flow_id, r.status, r.count) for r in take_census(journal).rows] == [("order", "diverged", 1)]


def test_a_missing_sqlite_journal_is_not_created(shop: Shop, tmp_path):
    missing = tmp_path / "typo.db"
    result = CliRunner().invoke(main, ["census", "--store", f"sqlite:///{missing}"])
    assert result.exit_code == 2
    assert f"no SQLite journal at {missing}" in result.stderr
    assert not missing.exists()


def test_memory_and_unknown_schemes_are_refused():
    runner = CliRunner()
    assert "empty in-memory journal" in runner.invoke(main, ["census", "--store", "memory:"]).stderr
    result = runner.invoke(main, ["census", "--store", "redis://x"])
    assert result.exit_code == 2 and "unsupported scheme" in result.stderr


@pytest.mark.postgres
def test_census_on_postgresql(postgres_schema):
    """The same census through a ``postgresql://`` URL (tests/conftest.py: skipped locally without a server)."""
    from loom_runtime.journal.events import NewEvent

    store = postgres_schema.open()
    for eid, code in (("p1", "sha256:" + "1" * 64), ("p2", "sha256:" + "1" * 64), ("p3", None)):
        store.create(eid, NewEvent("EXECUTION_STARTED", {"flowId": "f", "flowHash": None, "codeHash": code, "input": None}))
    store.append("p3", [NewEvent("EXECUTION_COMPLETED", {"result": None})], expected_seq=1)
    result = CliRunner().invoke(main, ["census", "--store", postgres_schema.url, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["rows"] == [
        {"flowId": "f", "codeHash": "sha256:" + "1" * 64, "status": "running", "count": 2}
    ]
