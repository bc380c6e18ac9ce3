"""Several worker processes over one PostgreSQL journal: ownership by lease, failover after SIGKILL.

The workers are real processes (``pg_worker.py``), each with its own connections, driving the
``pgjob`` flow through ``Runtime.recover()`` with ``worker_id`` set. Every step effect logs
``(execution, step, worker, started, ended)`` with the database's clock into a table beside the
journal; the checks below read that log and the journal, never the workers' own claims.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

from loom_runtime import Runtime
from loom_runtime.journal import NewEvent

pytestmark = pytest.mark.postgres

HERE = Path(__file__).resolve().parent
WORKER = HERE / "pg_worker.py"
REPO = HERE.parents[1]


def _worker_module():
    spec = importlib.util.spec_from_file_location("loom_test_pg_worker", WORKER)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def setup(postgres_schema):
    """The journal (with the effects table beside it) and a way to seed executions and spawn workers."""
    import psycopg

    worker_mod = _worker_module()
    store = postgres_schema.open()
    with psycopg.connect(postgres_schema.dsn, autocommit=True) as conn:
        conn.execute(f'SET search_path TO "{postgres_schema.name}"')
        conn.execute(worker_mod.EFFECTS_DDL)
    version = Runtime(journal=store).register(worker_mod.pgjob)
    procs: list[subprocess.Popen] = []

    def seed(eid: str, kind: str) -> None:
        store.create(eid, NewEvent("EXECUTION_STARTED", {
            "flowId": "pgjob", "flowHash": version.flow_hash, "codeHash": version.code_hash, "input": {"kind": kind},
        }))

    def spawn(worker_id: str, *extra: str) -> subprocess.Popen:
        proc = subprocess.Popen(
            [sys.executable, str(WORKER), postgres_schema.dsn, postgres_schema.name, worker_id, *extra],
            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        procs.append(proc)
        return proc

    def effects() -> list[tuple]:
        with psycopg.connect(postgres_schema.dsn, autocommit=True) as conn:
            conn.execute(f'SET search_path TO "{postgres_schema.name}"')
            return conn.execute(
                "SELECT execution_id, step_id, worker, started, ended FROM loom_test_effects ORDER BY id"
            ).fetchall()

    def lease_of(eid: str) -> tuple:
        with psycopg.connect(postgres_schema.dsn, autocommit=True) as conn:
            conn.execute(f'SET search_path TO "{postgres_schema.name}"')
            return conn.execute(
                "SELECT lease_owner, lease_epoch, lease_expires FROM loom_executions WHERE execution_id=%s", (eid,)
            ).fetchone()

    yield store, seed, spawn, effects, lease_of
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()


def _finish(proc: subprocess.Popen, timeout: float) -> dict:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, f"worker exited {proc.returncode}\n{err[-3000:]}"
    return json.loads(out.strip().splitlines()[-1])


def _check_journal(store, eid: str) -> list:
    """One driver at a time, as the journal shows it: contiguous seqs, each step started then completed
    with nothing of another step in between, and each step completed once."""
    events = store.read(eid)
    assert [e.seq for e in events] == list(range(1, len(events) + 1)), eid
    open_step = None
    completed = []
    for e in events:
        if e.type == "STEP_STARTED":
            # a re-started step (crash takeover) may follow its own unfinished STEP_STARTED, nothing else
            assert open_step in (None, e.payload["stepId"]), (eid, [x.type for x in events])
            open_step = e.payload["stepId"]
        elif e.type == "STEP_COMPLETED":
            assert open_step == e.payload["stepId"], eid
            completed.append((e.payload["stepId"], e.payload["result"]))
            open_step = None
        else:
            assert open_step is None, (eid, e.type)
    assert [s for s, _ in completed] == ["a", "b", "c", "d"], eid
    assert events[-1].type == "EXECUTION_COMPLETED"
    return completed


def _no_overlap(rows) -> None:
    """No two effects of one execution ever ran at the same time (an unfinished one runs until its end)."""
    by_exec = defaultdict(list)
    for eid, step, worker, started, ended in rows:
        by_exec[eid].append((started, ended if ended is not None else float("inf"), worker, step))
    for eid, spans in by_exec.items():
        spans.sort()
        for (s1, e1, w1, st1), (s2, e2, w2, st2) in zip(spans, spans[1:]):
            assert s2 >= e1, f"execution {eid}: {w1} ran `{st1}` until {e1} while {w2} started `{st2}` at {s2}"


def test_four_workers_drive_200_executions_one_driver_each(setup, tmp_path):
    store, seed, spawn, effects, _ = setup
    kinds = {}
    for i in range(200):
        kinds[f"x{i:03d}"] = ("gate", "timer", "plain", "plain")[i % 4]
        seed(f"x{i:03d}", kinds[f"x{i:03d}"])
    go = tmp_path / "go"
    workers = [spawn(f"w{n}", "--answer-gates", "--deadline", "100", "--go", str(go)) for n in range(4)]
    for p in workers:  # every worker set up before any starts: none is still importing while the others drain it all
        assert p.stdout.readline().strip() == "ready", p.stderr.read()[-3000:]
    go.write_text("go")
    stats = [_finish(p, timeout=130) for p in workers]

    summaries = store.list_executions()
    assert len(summaries) == 200 and {s.status for s in summaries} == {"completed"}
    rows = effects()
    # every step effect ran exactly once: nobody crashed, so nothing may be re-run
    counts = defaultdict(int)
    for eid, step, *_ in rows:
        counts[(eid, step)] += 1
    assert set(counts) == {(eid, s) for eid in kinds for s in "abcd"}
    assert {k: n for k, n in counts.items() if n != 1} == {}
    assert all(r[4] is not None for r in rows)
    _no_overlap(rows)
    ran_by = {(eid, step): worker for eid, step, worker, *_ in rows}
    for eid in kinds:
        for step, result in _check_journal(store, eid):
            assert result == ran_by[(eid, step)]  # the journal records the worker whose effect ran
    # the work really was shared, and parked executions were answered by whichever worker saw them
    assert len({r[2] for r in rows}) >= 3, stats
    assert sum(s["resumed"] for s in stats) == 50, stats
    # a parked execution belongs to nobody: its timer or its answer is taken up by whichever worker
    # gets there first, and that worker drives it on
    moved = {k: sum(1 for eid in kinds if kinds[eid] == k and ran_by[(eid, "b")] != ran_by[(eid, "c")])
             for k in ("gate", "timer", "plain")}
    assert moved["gate"] > 0 and moved["timer"] > 0 and moved["plain"] == 0, moved


def _wait_for(what: str, cond, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert proc.poll() is None, f"worker died while waiting for {what}: {proc.stderr.read()[-3000:]}"
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_a_killed_worker_loses_its_executions_to_another_after_the_lease_expires(setup):
    store, seed, spawn, effects, lease_of = setup
    ttl = 2.0
    for i in range(8):
        seed(f"f{i}", "plain")
    doomed = spawn("doomed", "--ttl", str(ttl), "--hang", "f2:c")
    _wait_for("the doomed worker to hang in f2:c", lambda: any(r[:3] == ("f2", "c", "doomed") for r in effects()), doomed)
    hung_at = time.monotonic()

    # A second worker starts meanwhile: it takes the untouched executions at once, but not f2, whose
    # lease the hanging (still alive) worker's heartbeat keeps renewing well past one ttl.
    # (its own lease is long: whether a healthy worker's lease survives a loaded machine is not this
    # test's question; the dead worker's short one decides when the takeover may happen)
    survivor = spawn("survivor", "--ttl", "30", "--deadline", "60")
    # a worker visits executions in an order of its own: whatever it finished before f2 is its
    done_by_doomed = {r[0] for r in effects() if r[1] == "d" and r[2] == "doomed"}
    untouched = {f"f{i}" for i in range(8)} - done_by_doomed - {"f2"}
    _wait_for("the survivor to finish the untouched executions",
              lambda: untouched <= {s.execution_id for s in store.list_executions(statuses=["completed"])}, survivor)
    time.sleep(max(0.0, hung_at + 2.5 * ttl - time.monotonic()))
    assert not any(r[:2] == ("f2", "c") and r[2] == "survivor" for r in effects())
    assert store.summary("f2").status == "running"

    doomed.send_signal(signal.SIGKILL)
    doomed.wait()
    owner, epoch, expires = lease_of("f2")  # renewed until the kill; nothing renews it now
    assert owner == "doomed"
    _finish(survivor, timeout=90)

    assert {s.status for s in store.list_executions()} == {"completed"}
    rows = effects()
    _no_overlap([r for r in rows if r[4] is not None])
    redone = [r for r in rows if r[:2] == ("f2", "c")]
    assert [(r[2], r[4] is None) for r in redone] == [("doomed", True), ("survivor", False)]
    assert redone[1][3] >= expires  # the survivor waited for the dead worker's lease to run out
    # nothing the doomed worker completed ran again
    per_step = defaultdict(list)
    for eid, step, worker, started, ended in rows:
        per_step[(eid, step)].append(worker)
    assert {k: v for k, v in per_step.items() if len(v) > 1} == {("f2", "c"): ["doomed", "survivor"]}
    assert all(per_step[(eid, s)] == ["doomed"] for eid in done_by_doomed for s in "abcd")
    assert all(per_step[(eid, s)] == ["survivor"] for eid in untouched for s in "abcd")
    completed = _check_journal(store, "f2")
    assert dict(completed) == {"a": "doomed", "b": "doomed", "c": "survivor", "d": "survivor"}
    new_owner, new_epoch, _ = lease_of("f2")
    assert new_owner is None and new_epoch > epoch  # taken over with a new fencing token, then released
