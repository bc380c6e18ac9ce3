"""Production runtime: async flows and the worker loop against DBOS's async workflows, and what an idle
worker costs its PostgreSQL server.

Three measurements, in one run:

1. **A 1,000-step async flow**: steps/s of one ``async def`` flow whose 1,000 steps are trivial
   ``async def`` functions, started with ``await runtime.start_async(...)`` on loom's
   ``SqliteJournal``, against a DBOS async workflow of 1,000 async ``@DBOS.step()`` calls started
   with ``await DBOS.start_workflow_async(...)`` on DBOS's SQLite system database.
2. **The worker loop draining 1,000 executions**: 1,000 one-step executions submitted first
   (``runtime.submit``), then one ``runtime.serve(concurrency=4, poll_interval=0.05)`` drains them;
   against 1,000 async one-step DBOS workflows enqueued on a DBOS queue (``concurrency=4``,
   ``polling_interval_sec=0.05``) and drained by the DBOS process's own queue runner. Timed from the moment the worker starts (loom) / the first enqueue
   returns (DBOS) until every execution completed; reported as executions/s and steps/s.
3. **An idle worker's queries per minute on PostgreSQL**: ``runtime.serve()`` (defaults:
   ``poll_interval=1.0``, ``lease_ttl=30``) on an empty PostgreSQL journal for ``--idle`` seconds,
   counting every statement its connections send (each ``execute`` on the store's connections,
   two per transaction), against the same worker on a store without ``LISTEN/NOTIFY``
   (its ``wait_for_work`` hidden), which must poll every ``poll_interval``. Needs
   ``LOOM_TEST_POSTGRES_DSN`` (or ``--postgres DSN``); skipped, and said so, without one.

Durability, read back from each engine's own connection and printed with the results: both commit
each journal record in its own transaction with ``synchronous=FULL`` (loom: ``WAL``; DBOS 3.4 sets no
pragma: SQLite's rollback journal, ``FULL``), so a reported step survives power loss in both. loom
writes two records per step (``STEP_STARTED`` before the effect, ``STEP_COMPLETED`` after), DBOS one
(the step's output). Each trial is a fresh process and database file; engines alternate; medians.

    benchmarks/.venv/bin/python benchmarks/bench_workers.py [--steps 1000] [--executions 1000]
        [--repeat 3] [--idle 30] [--postgres DSN] [--json OUT]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

WARMUP = 10
CONCURRENCY = 4


# ----------------------------------------------------------------------------------------- loom
def loom_async_flow(db: str, steps: int) -> dict:
    from loom_runtime import Runtime, flow, step
    from loom_runtime.journal import SqliteJournal

    @step
    async def noop(i: int) -> int:
        return i

    @flow("bench-async")
    async def many(ctx, n: int) -> int:
        total = 0
        for i in range(n):
            total += await ctx.execute(f"noop#{i}", noop, i)
        return total

    journal = SqliteJournal(db)
    rt = Runtime(journal=journal)
    rt.register(many)

    async def main() -> float:
        warm = await rt.start_async("bench-async", WARMUP)
        assert warm.result == sum(range(WARMUP)), warm
        t0 = time.perf_counter()
        h = await rt.start_async("bench-async", steps)
        elapsed = time.perf_counter() - t0
        assert (h.status, h.result) == ("completed", sum(range(steps))), h
        return elapsed

    try:
        elapsed = asyncio.run(main())
        pragmas = _sqlite_pragmas(journal._conn)
    finally:
        journal.close()
    return {"engine": "loom", "seconds": elapsed, "steps": steps, "pragmas": pragmas}


def loom_drain(db: str, executions: int) -> dict:
    from loom_runtime import Runtime, flow, step
    from loom_runtime.journal import SqliteJournal

    @step
    async def one(i: int) -> int:
        return i

    @flow("bench-one")
    async def single(ctx, i: int) -> int:
        return await ctx.execute("one", one, i)

    journal = SqliteJournal(db)
    rt = Runtime(journal=journal)
    rt.register(single)
    try:
        ids = [rt.submit("bench-one", i) for i in range(executions)]
        stop = threading.Event()
        done = threading.Event()
        remaining = [executions]

        def on_event(event: dict) -> None:
            if event["event"] == "drive" and event["status"] == "completed":
                remaining[0] -= 1
                if remaining[0] == 0:
                    done.set()

        worker = threading.Thread(target=rt.serve, kwargs={"stop": stop, "concurrency": CONCURRENCY,
                                                           "poll_interval": 0.05, "on_event": on_event})
        t0 = time.perf_counter()
        worker.start()
        if not done.wait(1800):
            raise RuntimeError("loom worker did not drain the executions")
        elapsed = time.perf_counter() - t0
        stop.set()
        worker.join(60)
        results = [rt.get(i).result for i in ids]
        assert results == list(range(executions)), "a result is missing or wrong"
        pragmas = _sqlite_pragmas(journal._conn)
    finally:
        journal.close()
    return {"engine": "loom", "seconds": elapsed, "executions": executions, "pragmas": pragmas}


# ----------------------------------------------------------------------------------------- DBOS
def _dbos(db: str):
    import logging

    from dbos import DBOS

    DBOS(config={"name": "loom-bench", "system_database_url": f"sqlite:///{db}", "log_level": "WARNING",
                 "run_admin_server": False})
    logging.getLogger("dbos").setLevel(logging.WARNING)
    return DBOS


def dbos_async_flow(db: str, steps: int) -> dict:
    DBOS = _dbos(db)

    @DBOS.step()
    async def noop(i: int) -> int:
        return i

    @DBOS.workflow()
    async def many(n: int) -> int:
        total = 0
        for i in range(n):
            total += await noop(i)
        return total

    DBOS.launch()

    async def main() -> float:
        warm = await DBOS.start_workflow_async(many, WARMUP)
        assert await warm.get_result() == sum(range(WARMUP))
        t0 = time.perf_counter()
        handle = await DBOS.start_workflow_async(many, steps)
        result = await handle.get_result()
        elapsed = time.perf_counter() - t0
        assert result == sum(range(steps)), result
        return elapsed

    try:
        elapsed = asyncio.run(main())
        pragmas = _dbos_pragmas()
    finally:
        DBOS.destroy()
    return {"engine": "dbos", "seconds": elapsed, "steps": steps, "pragmas": pragmas}


def dbos_drain(db: str, executions: int) -> dict:
    DBOS = _dbos(db)

    @DBOS.step()
    async def one(i: int) -> int:
        return i

    @DBOS.workflow()
    async def single(i: int) -> int:
        return await one(i)

    DBOS.launch()
    # the same look-for-work interval as the loom worker's poll_interval below (DBOS's default: 1 s)
    queue = DBOS.register_queue("bench", concurrency=CONCURRENCY, polling_interval_sec=0.05)

    async def main() -> float:
        handles = []
        t0 = None
        for i in range(executions):
            handles.append(await queue.enqueue_async(single, i))
            if t0 is None:
                t0 = time.perf_counter()
        results = [await h.get_result() for h in handles]
        elapsed = time.perf_counter() - t0
        assert results == list(range(executions)), "a result is missing or wrong"
        return elapsed

    try:
        elapsed = asyncio.run(main())
        pragmas = _dbos_pragmas()
    finally:
        DBOS.destroy()
    return {"engine": "dbos", "seconds": elapsed, "executions": executions, "pragmas": pragmas}


def _sqlite_pragmas(conn) -> dict:
    return {"journal_mode": conn.execute("PRAGMA journal_mode").fetchone()[0],
            "synchronous": conn.execute("PRAGMA synchronous").fetchone()[0]}


def _dbos_pragmas() -> dict:
    try:
        from dbos._dbos import _get_dbos_instance

        engine = _get_dbos_instance()._sys_db.engine
        with engine.connect() as c:
            return {"journal_mode": c.exec_driver_sql("PRAGMA journal_mode").scalar(),
                    "synchronous": int(c.exec_driver_sql("PRAGMA synchronous").scalar())}
    except Exception as exc:  # private API moved: say so rather than guess
        return {"error": f"could not read DBOS's pragmas: {exc}"}


# ------------------------------------------------------------------------------ idle on postgres
def idle_queries(dsn: str, seconds: float, notify: bool) -> dict:
    """Statements an idle ``serve()`` sends in ``seconds``: every ``execute`` on the store's
    connections (the writing one and the listening one), and two per transaction (BEGIN, COMMIT)."""
    import uuid

    import psycopg

    from loom_runtime import Runtime
    from loom_runtime.journal import PostgresJournal

    schema = "loom_bench_idle_" + uuid.uuid4().hex[:8]
    sent = [0]

    class Counted:
        def __init__(self, conn):
            self._conn = conn

        def execute(self, *args, **kwargs):
            sent[0] += 1
            return self._conn.execute(*args, **kwargs)

        def transaction(self, *args, **kwargs):
            sent[0] += 2
            return self._conn.transaction(*args, **kwargs)

        def cursor(self, *args, **kwargs):
            sent[0] += 1
            return self._conn.cursor(*args, **kwargs)

        def __getattr__(self, name):
            return getattr(self._conn, name)

    class CountedJournal(PostgresJournal):
        def _connection(self):
            return Counted(super()._connection())

        def _listener(self):
            return Counted(super()._listener())

    class Polling(CountedJournal):
        wait_for_work = None  # a store that cannot notify: the worker polls every poll_interval

    journal = (CountedJournal if notify else Polling)(dsn, schema=schema)
    rt = Runtime(journal=journal)
    stop = threading.Event()
    worker = threading.Thread(target=rt.serve, kwargs={"stop": stop})
    try:
        worker.start()
        time.sleep(2.0)  # started and idle
        before = sent[0]
        time.sleep(seconds)
        after = sent[0]
        stop.set()
        worker.join(30)
    finally:
        journal.close()
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    return {"notify": notify, "seconds": seconds, "statements": after - before,
            "per_minute": (after - before) * 60.0 / seconds}


# ------------------------------------------------------------------------------- orchestration
KINDS = {"async-flow": (loom_async_flow, dbos_async_flow), "drain": (loom_drain, dbos_drain)}


def child(kind: str, engine: str, db: str, n: int) -> dict:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run([sys.executable, __file__, "--child", kind, engine, "--db", db, "--n", str(n)],
                          capture_output=True, text=True, env=env, timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError(f"{engine} {kind} trial failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _sync(p: dict) -> str:
    if "error" in p:
        return p["error"]
    s = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}.get(p.get("synchronous"), p.get("synchronous"))
    return f"{p.get('journal_mode')} / {s}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--executions", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--idle", type=float, default=30.0, help="seconds the idle worker is watched")
    ap.add_argument("--postgres", default=os.environ.get("LOOM_TEST_POSTGRES_DSN"))
    ap.add_argument("--engines", default="loom,dbos")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--db", help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.child:
        kind, engine = args.child
        fn = KINDS[kind][0 if engine == "loom" else 1]
        print(json.dumps(fn(args.db, args.n)))
        return 0

    engines = [e for e in args.engines.split(",") if e]
    trials: dict[str, list[dict]] = {"async-flow": [], "drain": []}
    errors: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="loom-workers-") as tmp:
        for kind, n in (("async-flow", args.steps), ("drain", args.executions)):
            for r in range(args.repeat):
                for engine in engines if r % 2 == 0 else list(reversed(engines)):
                    key = f"{engine} {kind}"
                    if key in errors:
                        continue
                    try:
                        trials[kind].append(child(kind, engine, str(Path(tmp) / f"{engine}-{kind}-{r}.sqlite"), n))
                    except Exception as exc:
                        errors[key] = str(exc)

    summary: dict[str, dict] = {}
    print(f"## Async flow and worker loop on SQLite ({args.repeat} trials per engine, alternating, fresh process and file each)\n")
    print("| measurement | engine | per second (median) | vs DBOS | journal_mode / synchronous |")
    print("|---|---|---:|---:|---|")
    for kind, unit, per in (("async-flow", "steps/s", "steps"), ("drain", "executions/s", "executions")):
        rates = {}
        for engine in engines:
            ts = [t for t in trials[kind] if t["engine"] == engine]
            if ts:
                rates[engine] = (statistics.median(t[per] / t["seconds"] for t in ts), ts[0]["pragmas"],
                                 [round(t[per] / t["seconds"], 1) for t in ts])
        base = rates.get("dbos", (None,))[0]
        label = {"async-flow": f"{args.steps}-step async flow", "drain": f"drain {args.executions} executions (concurrency {CONCURRENCY})"}[kind]
        for engine, (rate, pragmas, all_rates) in rates.items():
            ratio = f"{rate / base:.2f}x" if base else "n/a"
            print(f"| {label} ({unit}) | {engine} | {rate:,.0f} | {ratio} | {_sync(pragmas)} |")
            summary[f"{engine} {kind}"] = {"per_second": rate, "all": all_rates, "pragmas": pragmas}

    idle: list[dict] = []
    if args.postgres:
        for notify in (True, False):
            try:
                idle.append(idle_queries(args.postgres, args.idle, notify))
            except Exception as exc:
                errors[f"idle notify={notify}"] = str(exc)
        print(f"\n## An idle worker on PostgreSQL (serve() defaults, watched {args.idle:.0f} s)\n")
        print("| store | statements sent | per minute |")
        print("|---|---:|---:|")
        for r in idle:
            name = "PostgresJournal (LISTEN/NOTIFY)" if r["notify"] else "the same, polling (no wait_for_work)"
            print(f"| {name} | {r['statements']} | {r['per_minute']:.1f} |")
    else:
        print("\nidle worker on PostgreSQL: skipped (no LOOM_TEST_POSTGRES_DSN / --postgres)")
    for key, err in errors.items():
        print(f"\n{key} FAILED: {err}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"summary": summary, "trials": trials, "idle": idle, "errors": errors},
                                        indent=1), encoding="utf-8")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
