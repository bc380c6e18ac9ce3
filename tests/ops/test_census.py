"""``loom census`` over a SQLite journal with executions on three code versions."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from loom_compiler.cli import main
from loom_compiler.ops import CensusRow, open_store, take_census

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
