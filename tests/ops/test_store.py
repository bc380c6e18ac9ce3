"""``open_store``: the ops commands open a journal read-only and refuse anything that is not one.

Each command (census, deploy-check, gc, export) is pointed at each kind of file that is not a loom
journal; it must exit 2 with a message that says what the file is, leave it byte for byte as it was
(no tables, no WAL switch) and, for ``gc --yes``, delete nothing.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from loom_compiler.cli import main
from loom_compiler.ops import open_store, take_census
from loom_runtime.errors import JournalError, JournalSchemaError
from loom_runtime.journal.events import NewEvent

from .conftest import Shop


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _text(path: Path) -> None:
    path.write_text("order_id,total\no-1,12.50\n")


def _foreign(path: Path) -> None:
    with sqlite3.connect(path) as db:  # another application's database
        db.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
        db.execute("INSERT INTO users (name) VALUES ('ada')")
    db.close()


def _lookalike(path: Path) -> None:
    with sqlite3.connect(path) as db:  # tables of loom's names, other columns
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT INTO meta VALUES ('journalSchema', '1'), ('eventSchema', '1')")
        db.execute("CREATE TABLE executions (id INTEGER)")
        db.execute("CREATE TABLE events (id INTEGER)")
    db.close()


def _newer(path: Path, shop: Shop) -> None:
    path.write_bytes(shop.journal.read_bytes())
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value='9' WHERE key='journalSchema'")
    db.close()


KINDS = {
    "empty": (_empty, "an empty file, not a loom journal"),
    "text": (_text, "not a SQLite database"),
    "foreign": (_foreign, "a SQLite database without loom's journal tables (its tables: users)"),
    "lookalike": (_lookalike, "table `executions` lacks the journal's columns"),
    "newer": (_newer, "journal written with journalSchema '9'; this runtime reads up to 1"),
    "directory": (lambda p: p.mkdir(), "not a regular file"),
    "fifo": (lambda p: os.mkfifo(p), "not a regular file"),
}


def _make(kind: str, path: Path, shop: Shop) -> None:
    make = KINDS[kind][0]
    make(path, shop) if kind == "newer" else make(path)


def _state(path: Path) -> object:
    """The file's bytes and its siblings, less SQLite's own empty companions of a WAL-mode file (a
    reader of a WAL database must map ``-shm``; the database itself is untouched)."""
    siblings = sorted(os.listdir(path.parent))
    if not path.is_file() or path.is_dir():
        return siblings
    data = path.read_bytes()
    if data[18:20] == b"\x02\x02":  # WAL mode
        wal = path.with_name(path.name + "-wal")
        assert not wal.exists() or wal.stat().st_size == 0, "a read-only open wrote to the WAL"
        siblings = [s for s in siblings if s not in (path.name + "-wal", path.name + "-shm")]
    return data, siblings


COMMANDS = {
    "census": lambda url, shop: ["census", "--store", url],
    "deploy-check": lambda url, shop: ["deploy-check", "--store", url, "--manifest", str(shop.manifest)],
    "gc": lambda url, shop: ["gc", "--store", url, "--manifest", str(shop.manifest), "--yes"],
    "export": lambda url, shop: ["export", "--store", url, "--out", str(shop.root / "histories")],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_an_ops_command_refuses_what_is_not_a_loom_journal_and_leaves_it_alone(shop: Shop, tmp_path: Path,
                                                                             command: str, kind: str):
    target = tmp_path / "store" / "journal.db"
    target.parent.mkdir()
    _make(kind, target, shop)
    before = _state(target)
    chunks_before = sorted(p.name for p in (shop.manifest.parent / "chunks").rglob("*.py"))
    manifest_before = shop.manifest.read_bytes()
    result = CliRunner().invoke(main, COMMANDS[command](f"sqlite:///{target}", shop))
    assert result.exit_code == 2, result.output
    assert KINDS[kind][1] in result.stderr and "Traceback" not in result.output
    assert _state(target) == before  # not a byte written, nothing created beside it
    assert shop.manifest.read_bytes() == manifest_before
    assert sorted(p.name for p in (shop.manifest.parent / "chunks").rglob("*.py")) == chunks_before


def test_the_real_journal_still_opens_and_is_not_written(shop: Shop):
    before = shop.journal.read_bytes()
    with open_store(shop.url) as journal:
        assert take_census(journal).total == 3
        with pytest.raises(JournalError, match="readonly"):
            journal.append("e-current", [NewEvent("STEP_COMPLETED", {"stepId": "reserve", "result": 1})],
                           expected_seq=2)
    assert shop.journal.read_bytes() == before


def test_a_newer_schema_is_a_schema_error(shop: Shop, tmp_path: Path):
    target = tmp_path / "newer.db"
    _newer(target, shop)
    with pytest.raises(JournalSchemaError), open_store(f"sqlite:///{target}"):
        pass


# -- PostgreSQL ----------------------------------------------------------------------------------------


def _tables(dsn: str, schema: str) -> list[str]:
    import psycopg

    with psycopg.connect(dsn) as conn:
        return sorted(r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema=%s", (schema,)))


def _url(dsn: str, schema: str) -> str:
    return f"{dsn}{'&' if '?' in dsn else '?'}schema={schema}"


@pytest.mark.postgres
def test_postgresql_missing_schema_is_refused_and_not_created(postgres_schema):
    import psycopg

    result = CliRunner().invoke(main, ["census", "--store", postgres_schema.url])
    assert result.exit_code == 2 and f"no schema '{postgres_schema.name}'" in result.stderr
    with psycopg.connect(postgres_schema.dsn) as conn:
        assert conn.execute("SELECT 1 FROM pg_namespace WHERE nspname=%s", (postgres_schema.name,)).fetchone() is None


@pytest.mark.postgres
def test_postgresql_schema_without_loom_tables_is_refused_and_left_alone(postgres_schema):
    import psycopg

    with psycopg.connect(postgres_schema.dsn, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{postgres_schema.name}"')
        conn.execute(f'CREATE TABLE "{postgres_schema.name}".orders (id int)')
    for command in ("census", "export"):
        result = CliRunner().invoke(main, [command, "--store", postgres_schema.url])
        assert result.exit_code == 2, result.output
        assert "no loom journal here (tables loom_meta, loom_executions, loom_events missing" in result.stderr
    assert _tables(postgres_schema.dsn, postgres_schema.name) == ["orders"]


@pytest.mark.postgres
def test_postgresql_newer_schema_is_refused_and_a_real_journal_is_read_only(postgres_schema):
    import psycopg

    store = postgres_schema.open()
    store.create("p1", NewEvent("EXECUTION_STARTED", {"flowId": "f", "flowHash": None, "codeHash": None, "input": 1}))
    with open_store(postgres_schema.url) as journal:
        assert take_census(journal).total == 1
        with pytest.raises(JournalError, match="read-only transaction"):
            journal.append("p1", [NewEvent("STEP_STARTED", {"stepId": "a"})], expected_seq=1)
    assert store.summary("p1").last_seq == 1
    with psycopg.connect(postgres_schema.dsn, autocommit=True) as conn:
        conn.execute(f'UPDATE "{postgres_schema.name}".loom_meta SET value=%s WHERE key=%s', ("7", "eventSchema"))
    result = CliRunner().invoke(main, ["census", "--store", postgres_schema.url])
    assert result.exit_code == 2 and "eventSchema '7'; this runtime reads up to 1" in result.stderr
