"""Runtime overhead: one flow of N trivial steps on loom's SQLite journal versus DBOS on SQLite.

Each engine runs in its own child process (DBOS starts background threads and keeps process-global
state; a fresh process per trial keeps the two from sharing a warm cache or a thread pool), on a
fresh database file in the same directory, alternating engines trial by trial. Per trial: launch,
one 10-step warm-up workflow (schema creation, first-connection and import costs are not steps),
then the timed N-step workflow. Reported: steps per second (median over trials), and the journal
size per step: the database file after a WAL checkpoint divided by all steps run (warm-up
included), plus the growth caused by the timed flow alone divided by N.

Durability, read back from each engine's own connection and printed with the results:
DBOS 3.4 on SQLite sets no ``journal_mode``/``synchronous`` pragma, so it runs SQLite's defaults:
rollback journal (``DELETE``) with ``synchronous=FULL`` and one ``IMMEDIATE`` transaction per step
record. loom's ``SqliteJournal`` runs ``WAL`` with ``synchronous=FULL`` and one transaction per
append: every acknowledged append is fsync'd before the step's effect is reported, which is equal
durability (a committed record survives power loss in both).

    benchmarks/.venv/bin/python benchmarks/compare_runtime.py [--steps 1000] [--repeat 3] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

WARMUP = 10


def _size_after_checkpoint(db: str) -> int:
    conn = sqlite3.connect(db)
    try:
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        if mode == "wal":
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return os.path.getsize(db)


def _count_rows(db: str, table: str) -> int:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        conn.close()


def _sidecar_bytes(db: str) -> int:
    return sum(os.path.getsize(db + s) for s in ("-wal", "-journal") if os.path.exists(db + s))


# ----------------------------------------------------------------------------------------- DBOS
def run_dbos(db: str, steps: int) -> dict:
    import logging

    from dbos import DBOS

    DBOS(config={
        "name": "loom-bench",
        "system_database_url": f"sqlite:///{db}",
        "log_level": "WARNING",
        "run_admin_server": False,
    })
    logging.getLogger("dbos").setLevel(logging.WARNING)

    @DBOS.step()
    def noop(i: int) -> int:
        return i

    @DBOS.workflow()
    def many(n: int) -> int:
        total = 0
        for i in range(n):
            total += noop(i)
        return total

    DBOS.launch()
    try:
        assert many(WARMUP) == sum(range(WARMUP))
        pragmas = _dbos_pragmas()
        before = os.path.getsize(db) + _sidecar_bytes(db)
        t0 = time.perf_counter()
        result = many(steps)
        elapsed = time.perf_counter() - t0
        assert result == sum(range(steps)), result
    finally:
        DBOS.destroy()
    after = _size_after_checkpoint(db)
    recorded = _count_rows(db, "operation_outputs")
    return {"engine": "dbos", "seconds": elapsed, "steps": steps, "file_bytes": after,
            "growth_bytes": after - before, "recorded_steps": recorded, "pragmas": pragmas}


def _dbos_pragmas() -> dict:
    """journal_mode/synchronous as DBOS's own SQLAlchemy engine sees them."""
    try:
        from dbos._dbos import _get_dbos_instance

        engine = _get_dbos_instance()._sys_db.engine
        with engine.connect() as c:
            return {"journal_mode": c.exec_driver_sql("PRAGMA journal_mode").scalar(),
                    "synchronous": int(c.exec_driver_sql("PRAGMA synchronous").scalar())}
    except Exception as exc:  # private API moved: say so rather than guess
        return {"error": f"could not read DBOS's pragmas: {exc}"}


# ----------------------------------------------------------------------------------------- loom
def run_loom(db: str, steps: int) -> dict:
    from loom_runtime import Runtime, flow, step
    from loom_runtime.journal import SqliteJournal

    @step
    def noop(i: int) -> int:
        return i

    @flow("bench-many")
    def many(ctx, n: int) -> int:
        total = 0
        for i in range(n):
            total += ctx.execute(f"noop#{i}", noop, i)
        return total

    journal = SqliteJournal(db)
    runtime = Runtime(journal=journal)
    runtime.register(many)
    try:
        warm = runtime.start("bench-many", WARMUP)
        _check_completed(runtime, warm, sum(range(WARMUP)))
        pragmas = {"journal_mode": journal._conn.execute("PRAGMA journal_mode").fetchone()[0],
                   "synchronous": journal._conn.execute("PRAGMA synchronous").fetchone()[0]}
        before = _size_after_checkpoint(db)
        t0 = time.perf_counter()
        handle = runtime.start("bench-many", steps)
        elapsed = time.perf_counter() - t0
        _check_completed(runtime, handle, sum(range(steps)))
    finally:
        journal.close()
    after = _size_after_checkpoint(db)
    events = _count_rows(db, "events")
    return {"engine": "loom", "seconds": elapsed, "steps": steps, "file_bytes": after,
            "growth_bytes": after - before, "events": events, "pragmas": pragmas}


def _check_completed(runtime, handle, expected) -> None:
    if handle.status != "completed" or handle.result != expected:
        raise RuntimeError(f"loom flow did not complete as expected: status={handle.status!r} result={handle.result!r}")


# ------------------------------------------------------------------------------- orchestration
def child(engine: str, db: str, steps: int) -> dict:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run([sys.executable, __file__, "--child", engine, "--db", db, "--steps", str(steps)],
                          capture_output=True, text=True, env=env, timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError(f"{engine} trial failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def summarise(trials: list[dict], steps: int) -> dict:
    out = {}
    for engine in ("loom", "dbos"):
        ts = [t for t in trials if t["engine"] == engine]
        if not ts:
            continue
        rates = [t["steps"] / t["seconds"] for t in ts]
        total_steps = steps + WARMUP
        out[engine] = {
            "steps_per_s": statistics.median(rates),
            "steps_per_s_all": [round(r, 1) for r in rates],
            "bytes_per_step_file": statistics.median(t["file_bytes"] / total_steps for t in ts),
            "bytes_per_step_growth": statistics.median(t["growth_bytes"] / steps for t in ts),
            "pragmas": ts[0]["pragmas"],
        }
    return out


def format_table(summary: dict, steps: int) -> str:
    lines = [f"| engine ({steps} trivial steps, one flow) | steps/s (median) | vs DBOS | bytes/step (file) "
             "| bytes/step (growth) | journal_mode / synchronous |",
             "|---|---:|---:|---:|---:|---|"]
    base = summary.get("dbos", {}).get("steps_per_s")
    for engine, s in summary.items():
        ratio = f"{s['steps_per_s'] / base:.2f}x" if base else "n/a"
        p = s["pragmas"]
        sync = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}.get(p.get("synchronous"), p.get("synchronous"))
        pr = p.get("error") or f"{p.get('journal_mode')} / {sync}"
        lines.append(f"| {engine} | {s['steps_per_s']:.0f} | {ratio} | {s['bytes_per_step_file']:.0f} "
                     f"| {s['bytes_per_step_growth']:.0f} | {pr} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--engines", default="loom,dbos")
    ap.add_argument("--dir", type=Path, help="where the database files go (default: a temp dir)")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--child", choices=["loom", "dbos"], help=argparse.SUPPRESS)
    ap.add_argument("--db", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.child:
        result = (run_loom if args.child == "loom" else run_dbos)(args.db, args.steps)
        print(json.dumps(result))
        return 0

    engines = [e for e in args.engines.split(",") if e]
    trials: list[dict] = []
    errors: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="loom-rt-", dir=args.dir) as tmp:
        for r in range(args.repeat):
            for engine in engines if r % 2 == 0 else reversed(engines):
                if engine in errors:
                    continue
                try:
                    trials.append(child(engine, str(Path(tmp) / f"{engine}-{r}.sqlite"), args.steps))
                except Exception as exc:
                    errors[engine] = str(exc)
    summary = summarise(trials, args.steps)
    print(f"## Runtime throughput ({args.repeat} trials per engine, alternating, fresh process and file each)\n")
    print(format_table(summary, args.steps))
    for engine, err in errors.items():
        print(f"\n{engine} FAILED: {err}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"summary": summary, "trials": trials, "errors": errors,
                                         "steps": args.steps}, indent=1), encoding="utf-8")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
