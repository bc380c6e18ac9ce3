"""A worker killed (SIGKILL) at every journal append, before and after the row commits, on SQLite
and on PostgreSQL; then recovery by a fresh runtime.

After each kill and after the recovery: the sequence is contiguous (``fold`` reads it, and the
numbers are 1..n), no step or decider whose completion the journal held at the kill ran again,
and the execution completes with each step completed exactly once in the journal.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from loom_runtime.journal import open_journal
from loom_runtime.replay import fold

from .flow_worker import drive

WORKER = Path(__file__).with_name("flow_worker.py")
pytestmark = pytest.mark.slow
ONCE = ("a", "route", "p1", "p2", "b", "c")


def _worker(url: str, effects: Path, n: int, mode: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(WORKER), url, str(effects), str(n), mode],
                          capture_output=True, text=True, timeout=120)


def _completed(url: str) -> tuple[set[str], list[int]]:
    """What the journal holds as done (steps and decisions) and its sequence numbers."""
    try:
        store = open_journal(url, read_only=True)  # never creates what the kill left uncreated
    except Exception:  # noqa: BLE001 - no journal at all yet: the kill came before the first write
        return set(), []
    try:
        try:
            events = store.read("e1")
        except Exception:  # noqa: BLE001 - the kill came before the execution existed
            return set(), []
        fold("e1", events)  # contiguous, known types, every field: or this raises
        done = {e.payload["stepId"] for e in events if e.type == "STEP_COMPLETED"}
        done |= {e.payload["decisionId"] for e in events if e.type == "DECISION_RECORDED"}
        return done, [e.seq for e in events]
    finally:
        store.close()


def _effects(path: Path) -> Counter:
    return Counter(path.read_text().split()) if path.exists() else Counter()


def _kill_everywhere(make_url, tmp_path: Path) -> None:
    probe_url = make_url("probe")
    probe = _worker(probe_url, tmp_path / "probe.log", 0, "before")
    assert probe.returncode == 0, probe.stderr
    writes = int(probe.stdout.split()[-1])
    assert writes >= 10  # create, each step's start and end, the scope, the park, the answer, the end
    assert _effects(tmp_path / "probe.log") == Counter({name: 1 for name in ONCE})
    for n in range(1, writes + 1):
        for mode in ("before", "after"):
            url, log = make_url(f"{mode}{n}"), tmp_path / f"{mode}{n}.log"
            killed = _worker(url, log, n, mode)
            assert killed.returncode == -9, (n, mode, killed.returncode, killed.stderr)
            done_at_kill, seqs = _completed(url)
            assert seqs == list(range(1, len(seqs) + 1))
            ran_at_kill = _effects(log)
            rt = drive(url, str(log))  # a fresh runtime recovers it
            rt.close()
            done, seqs = _completed(url)
            assert seqs == list(range(1, len(seqs) + 1)) and done == set(ONCE)
            ran = _effects(log)
            for name in done_at_kill:
                assert ran[name] == ran_at_kill[name], f"kill {mode} write {n}: `{name}` was done, yet ran again"
            assert all(ran[name] >= 1 for name in ONCE)


def test_sqlite_worker_killed_at_every_append(tmp_path: Path):
    _kill_everywhere(lambda label: f"sqlite:///{tmp_path / (label + '.db')}", tmp_path)


@pytest.mark.postgres
def test_postgres_worker_killed_at_every_append(postgres_dsn, tmp_path: Path):
    import uuid

    import psycopg

    prefix = "loom_fault_" + uuid.uuid4().hex[:8]
    made: list[str] = []

    def url(label: str) -> str:
        made.append(f"{prefix}_{label}")
        return f"{postgres_dsn}{'&' if '?' in postgres_dsn else '?'}schema={made[-1]}"

    try:
        _kill_everywhere(url, tmp_path)
    finally:
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            for name in made:
                conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
