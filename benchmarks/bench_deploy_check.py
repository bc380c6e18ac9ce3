"""``loom deploy-check`` (a full replay of every unfinished execution) against ``loom census`` on the
same journal, each a fresh ``loom`` process as an operator runs them.

    .venv/bin/python benchmarks/bench_deploy_check.py [--executions 10000] [--events 20] [--jobs 2]
        [--repeat 5] [--store sqlite,postgres] [--dsn postgresql://…] [--json OUT]

The journal holds N executions of one flow, each parked at an approval gate after (events-2)/2
steps (``STEP_STARTED`` + ``STEP_COMPLETED`` each, plus ``EXECUTION_STARTED`` and the park): what a
service with N orders waiting for approval has in flight. It is written through the stores' own
API (``create``/``append``), on SQLite (``synchronous=NORMAL`` while filling: the figures are for
reading) and on PostgreSQL in a schema of its own, dropped afterwards (``--dsn``, default
``$LOOM_BENCH_POSTGRES_DSN`` or ``$LOOM_TEST_POSTGRES_DSN``; skipped without one).

Per store, alternating, ``--repeat`` times, the text forms an operator runs: ``loom census``,
``loom deploy-check`` (replay, ``--jobs`` workers) and ``loom deploy-check --no-replay`` (the
hash-only check). Reported: median wall time of each, the ratio of the replay to census (target:
≤ 3× on 2 cores), and peak memory: the deploy-check process (``os.wait4``: its own peak) and its
largest replay worker (from one more run with ``--json``: each worker reports its ``ru_maxrss``),
and the check plus ``--jobs`` times the largest worker as the bound on what it holds at once
(target: ≤ 200 MB). Every run's output is checked: N executions replayed, all servable.

``run(...)`` is what ``tests/benchmarks/test_bench_deploy_check.py`` calls at a quick size (no
timing asserted): the benchmark keeps working on both stores in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loom_runtime.journal.events import NewEvent  # noqa: E402
from loom_runtime.manifest import load_manifest  # noqa: E402

__all__ = ["run", "write_project", "fill"]


def write_project(root: Path, steps: int) -> Path:
    """A one-flow project: ``steps`` steps, then an approval gate. Returns the built manifest."""
    from loom_compiler.bundle.build import build_project
    from loom_compiler.config import load_config

    pkg = root / "benchshop"
    pkg.mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "benchshop"\nversion = "0"\n\n'
                                         '[tool.loom]\npackages = ["benchshop"]\nout = "build/loom"\n')
    (pkg / "__init__.py").write_text("")
    (pkg / "steps.py").write_text("from loom_runtime import step\n\n\n@step\ndef work(i: int) -> int:\n    return i * 2\n")
    declared = ", ".join(f'"s{i}"' for i in range(steps))
    (pkg / "flows.py").write_text(textwrap.dedent(f"""\
        from loom_runtime import Context, flow

        from .steps import work

        RATE = 0.1


        def total(order: dict) -> float:
            return order["n"] * (1 - RATE)


        @flow("order", steps=[{declared}])
        def order(ctx: Context, order: dict) -> dict:
            out = [ctx.execute(f"s{{i}}", work, i) for i in range({steps})]
            answer = ctx.suspend("approval")
            return {{"total": total(order), "out": out, "answer": answer}}
        """))
    report = build_project(load_config(root), use_cache=False)
    if not report.ok:
        raise SystemExit(f"building the benchmark project failed: {report.errors}")
    return root / "build" / "loom" / "manifest.json"


def fill(store: Any, n: int, steps: int, manifest: Path, *, start: int = 0) -> None:
    entry = load_manifest(manifest).flows["order"]
    version = entry.versions[entry.current]
    for k in range(start, start + n):
        eid = f"e{k:06d}"
        store.create(eid, NewEvent("EXECUTION_STARTED", {"flowId": "order", "flowHash": version.flow_hash,
                                                         "codeHash": version.code_hash, "input": {"n": k}}))
        events = []
        for i in range(steps):
            events += [NewEvent("STEP_STARTED", {"stepId": f"s{i}"}),
                       NewEvent("STEP_COMPLETED", {"stepId": f"s{i}", "result": i * 2})]
        events.append(NewEvent("EXECUTION_SUSPENDED", {"condition": {"on": "approval"}}))
        store.append(eid, events, expected_seq=1)


def _fill_parallel(open_store: Any, n: int, steps: int, manifest: Path, threads: int) -> None:
    """PostgreSQL: each append is a round trip and a commit; several connections fill in parallel."""
    import threading

    size = -(-n // threads)
    errors: list[BaseException] = []

    def work(i: int) -> None:
        store = open_store()
        try:
            fill(store, min(size, n - i * size), steps, manifest, start=i * size)
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            errors.append(exc)
        finally:
            store.close()

    ts = [threading.Thread(target=work, args=(i,)) for i in range(threads) if i * size < n]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if errors:
        raise errors[0]


def _peak_of(pid_args: list[str], cwd: Path) -> tuple[float, int, str]:
    """(wall seconds, peak RSS KiB, stdout) of one ``loom`` command, waited for with ``os.wait4``:
    the process's own peak (its replay workers report theirs in the JSON)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "loom_compiler", *pid_args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"loom {' '.join(pid_args)} exited {proc.returncode}:\n{out}")
    peak = usage.ru_maxrss // 1024 if sys.platform == "darwin" else usage.ru_maxrss
    return wall, peak, out


def measure(url: str, root: Path, manifest: Path, *, executions: int, jobs: int, repeat: int) -> dict[str, Any]:
    census_t, replay_t, hashes_t = [], [], []
    parent_peak = 0
    common = ["--store", url, "--manifest", str(manifest), "--import-path", str(root)]
    want = f"{executions} of {executions} unfinished execution(s) servable"
    for _ in range(repeat):  # the text forms, as an operator runs them
        wall, _peak, out = _peak_of(["census", "--store", url], root)
        census_t.append(wall)
        assert f"{executions} unfinished execution(s)" in out, out[-300:]
        wall, peak, out = _peak_of(["deploy-check", *common, "--jobs", str(jobs)], root)
        replay_t.append(wall)
        if want not in out or f"replayed {executions} in" not in out:
            raise SystemExit(f"deploy-check did not replay every execution as servable:\n{out[-500:]}")
        parent_peak = max(parent_peak, peak)
        wall, _peak, out = _peak_of(["deploy-check", *common, "--no-replay"], root)
        hashes_t.append(wall)
        assert want in out, out[-300:]
    # once more with --json: the workers' peak memory is in the report
    _wall, peak, out = _peak_of(["deploy-check", *common, "--jobs", str(jobs), "--json"], root)
    doc = json.loads(out)
    if not (doc["ok"] and doc["replayed"] == executions and doc["counts"]["servable"] == executions):
        raise SystemExit(f"deploy-check did not replay every execution as servable: {doc['counts']}")
    parent_peak = max(parent_peak, peak)
    worker_peak = int(doc.get("workerPeakRssKb") or 0)
    census, replay, hashes = (statistics.median(x) for x in (census_t, replay_t, hashes_t))
    return {
        "executions": executions, "jobs": jobs, "repeat": repeat,
        "census_s": round(census, 3), "deploy_check_s": round(replay, 3), "no_replay_s": round(hashes, 3),
        "ratio_to_census": round(replay / census, 2), "no_replay_ratio": round(hashes / census, 2),
        "best_census_s": round(min(census_t), 3), "best_deploy_check_s": round(min(replay_t), 3),
        "parent_peak_mib": round(parent_peak / 1024, 1), "worker_peak_mib": round(worker_peak / 1024, 1),
        "total_peak_mib": round((parent_peak + jobs * worker_peak) / 1024, 1),
    }


def _postgres_url(dsn: str) -> tuple[str, Any, Any]:
    """A fresh schema: (journal URL, opener of a writable store, dropper)."""
    import psycopg

    from loom_runtime.journal import PostgresJournal

    schema = "loom_bench_" + uuid.uuid4().hex[:10]

    def open_store() -> Any:
        return PostgresJournal(dsn, schema=schema)

    def drop() -> None:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')

    sep = "&" if "?" in dsn else "?"
    return f"{dsn}{sep}schema={schema}", open_store, drop


def run(*, executions: int, events: int, jobs: int, repeat: int, stores: tuple[str, ...], dsn: str | None,
        workdir: Path | None = None) -> dict[str, Any]:
    """Build the project, fill each store, measure; return the figures per store."""
    if events < 4 or events % 2:
        raise SystemExit("--events must be even and at least 4 (start, a step's two events, the park)")
    steps = (events - 2) // 2
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="loom-bench-dc-", dir=workdir) as tmp:
        root = Path(tmp) / "proj"
        manifest = write_project(root, steps)
        for kind in stores:
            t0 = time.perf_counter()
            if kind == "sqlite":
                from loom_runtime.journal.sqlite import SqliteJournal

                path = Path(tmp) / "journal.db"
                store = SqliteJournal(path, synchronous="NORMAL")
                fill(store, executions, steps, manifest)
                store.close()
                url, drop = f"sqlite:///{path}", None
            elif kind == "postgres":
                if not dsn:
                    results[kind] = {"skipped": "no PostgreSQL DSN (--dsn, $LOOM_BENCH_POSTGRES_DSN or $LOOM_TEST_POSTGRES_DSN)"}
                    continue
                url, open_store, drop = _postgres_url(dsn)
                open_store().close()  # creates the schema's tables
                _fill_parallel(open_store, executions, steps, manifest, threads=4)
            else:
                raise SystemExit(f"unknown store {kind!r}; choose sqlite, postgres")
            filled = time.perf_counter() - t0
            try:
                results[kind] = {**measure(url, root, manifest, executions=executions, jobs=jobs, repeat=repeat),
                                 "fill_s": round(filled, 1), "events": events}
            finally:
                if drop is not None:
                    drop()
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--executions", type=int, default=10_000)
    ap.add_argument("--events", type=int, default=20, help="events per execution (even, >= 4)")
    ap.add_argument("--jobs", type=int, default=2, help="deploy-check replay workers")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--store", default="sqlite,postgres")
    ap.add_argument("--dsn", default=os.environ.get("LOOM_BENCH_POSTGRES_DSN") or os.environ.get("LOOM_TEST_POSTGRES_DSN"))
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    stores = tuple(s.strip() for s in args.store.split(",") if s.strip())
    results = run(executions=args.executions, events=args.events, jobs=args.jobs, repeat=args.repeat,
                  stores=stores, dsn=args.dsn)
    print(f"## deploy-check replay vs census: {args.executions} unfinished executions x {args.events} events, "
          f"--jobs {args.jobs}, median of {args.repeat}\n")
    print("| store | census | deploy-check (replay) | ratio | --no-replay | ratio | peak: check / worker / total |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for kind, r in results.items():
        if "skipped" in r:
            print(f"| {kind} | skipped: {r['skipped']} | | | | | |")
            continue
        print(f"| {kind} | {r['census_s']:.2f} s | {r['deploy_check_s']:.2f} s | {r['ratio_to_census']:.1f}x | "
              f"{r['no_replay_s']:.2f} s | {r['no_replay_ratio']:.1f}x | "
              f"{r['parent_peak_mib']:.0f} / {r['worker_peak_mib']:.0f} / {r['total_peak_mib']:.0f} MiB |")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
