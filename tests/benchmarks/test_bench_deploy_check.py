"""Keeps ``benchmarks/bench_deploy_check.py`` working on both stores at a quick size (CI runs it
against the PostgreSQL server ``.ci/run`` starts). Nothing is timed: the benchmark itself checks
that every execution was replayed and judged servable, and fails otherwise."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.bench_deploy_check import run  # noqa: E402


def test_the_benchmark_runs_on_sqlite(tmp_path):
    (r,) = run(executions=60, events=8, jobs=2, repeat=1, stores=("sqlite",), dsn=None, workdir=tmp_path).values()
    assert r["executions"] == 60 and r["deploy_check_s"] > 0 and r["worker_peak_mib"] > 0


@pytest.mark.postgres
def test_the_benchmark_runs_on_postgres(tmp_path, postgres_dsn):
    (r,) = run(executions=60, events=8, jobs=2, repeat=1, stores=("postgres",), dsn=postgres_dsn, workdir=tmp_path).values()
    assert r["executions"] == 60 and r["deploy_check_s"] > 0
