"""A worker process for the multi-worker PostgreSQL tests (``test_workers_postgres.py``).

    python pg_worker.py DSN SCHEMA WORKER_ID [--ttl S] [--deadline S] [--hang EXEC:STEP] [--answer-gates] [--go PATH]

It opens the journal by URL (``DSN?schema=SCHEMA``, through ``open_journal``), registers the test
flow ``pgjob`` and loops: ``recover()`` (fires due timers, re-drives running executions under a
lease), optionally answers executions parked on the ``approval`` gate (a signal reaching whichever
worker sees it first), until no execution is running or suspended, or the deadline passes (exit 3).

Every step effect writes a row to ``loom_test_effects`` in the same schema on its own autocommit
connection *before* it does its work and stamps ``ended`` after, with the database's clock; a row
with no ``ended`` is an effect cut short (SIGKILL). The test reads these rows to prove that no step
ran twice and that no two workers ever drove one execution at the same time. ``--hang EXEC:STEP``
makes that one effect block (the failover test kills the worker there). ``--go PATH``: print
``ready`` once set up, then start only once PATH exists (the test starts every worker at once).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time

import psycopg

from loom_runtime import LoomError, Runtime, flow
from loom_runtime.journal import open_journal

EFFECTS_DDL = """
CREATE TABLE IF NOT EXISTS loom_test_effects (
    id bigserial PRIMARY KEY,
    execution_id text NOT NULL,
    step_id text NOT NULL,
    worker text NOT NULL,
    started double precision NOT NULL,
    ended double precision
)"""

_NOW = "extract(epoch from clock_timestamp())::double precision"


class Effects:
    def __init__(self, dsn: str, schema: str, worker: str, hang: tuple[str, str] | None) -> None:
        self.conn = psycopg.connect(dsn, autocommit=True)
        self.conn.execute("SELECT set_config('search_path', %s, false)", (f'"{schema}"',))
        self.worker = worker
        self.hang = hang

    def run(self, execution_id: str, step_id: str) -> str:
        row = self.conn.execute(
            f"INSERT INTO loom_test_effects (execution_id, step_id, worker, started) VALUES (%s, %s, %s, {_NOW})"
            " RETURNING id",
            (execution_id, step_id, self.worker),
        ).fetchone()
        if self.hang == (execution_id, step_id):
            time.sleep(600)  # the test SIGKILLs this process here
        time.sleep(random.uniform(0.001, 0.008))  # widen the window in which a second driver would show
        self.conn.execute(f"UPDATE loom_test_effects SET ended={_NOW} WHERE id=%s", (row[0],))
        return self.worker


EFFECTS: Effects | None = None


def _effect(execution_id: str, step_id: str) -> str:
    assert EFFECTS is not None
    return EFFECTS.run(execution_id, step_id)


@flow("pgjob", steps=["a", "b", "c", "d"])
def pgjob(ctx, inp):
    eid = ctx.execution_id
    ctx.execute("a", _effect, eid, "a")
    ctx.execute("b", _effect, eid, "b")
    if inp["kind"] == "gate":
        ctx.suspend("approval")
    elif inp["kind"] == "timer":
        ctx.sleep("nap", 0.2)
    ctx.execute("c", _effect, eid, "c")
    ctx.execute("d", _effect, eid, "d")
    return "done"


def main(argv: list[str] | None = None) -> int:
    global EFFECTS
    ap = argparse.ArgumentParser()
    ap.add_argument("dsn")
    ap.add_argument("schema")
    ap.add_argument("worker")
    ap.add_argument("--ttl", type=float, default=30.0)
    ap.add_argument("--deadline", type=float, default=120.0)
    ap.add_argument("--hang", default=None)
    ap.add_argument("--answer-gates", action="store_true")
    ap.add_argument("--go", default=None)
    args = ap.parse_args(argv)
    hang = tuple(args.hang.split(":", 1)) if args.hang else None
    EFFECTS = Effects(args.dsn, args.schema, args.worker, hang)  # type: ignore[arg-type]
    rt = Runtime(journal=open_journal(f"{args.dsn}?schema={args.schema}"), worker_id=args.worker, lease_ttl=args.ttl)
    rt.register(pgjob)
    if args.go:
        print("ready", flush=True)
        while not os.path.exists(args.go):
            time.sleep(0.01)
    stop_at = time.monotonic() + args.deadline
    stats = {"worker": args.worker, "handles": 0, "refused": 0, "resumed": 0, "passes": 0}
    while time.monotonic() < stop_at:
        stats["passes"] += 1
        for h in rt.recover():
            stats["handles"] += 1
            stats["refused"] += h.exception is not None
        if args.answer_gates:
            for s in rt.journal.list_executions(statuses=["suspended"]):
                if s.gate != "approval":
                    continue
                try:
                    rt.resume(s.execution_id, {"by": args.worker}, gate="approval")
                    stats["resumed"] += 1
                except LoomError:
                    pass  # another worker answered it first, or holds its lease
        if not rt.journal.list_executions(statuses=["running", "suspended"]):
            print(json.dumps(stats), flush=True)
            return 0
        time.sleep(0.02)
    print(json.dumps(stats), flush=True)
    return 3


if __name__ == "__main__":
    sys.exit(main())
