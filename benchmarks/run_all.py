#!/usr/bin/env python3
"""Run every comparison benchmark from a fresh checkout and print the tables.

    python3 benchmarks/run_all.py            # everything
    python3 benchmarks/run_all.py --only fingerprints,runtime --quick

It creates ``benchmarks/.venv`` on first use (and again whenever ``benchmarks/requirements.txt`` or
``pyproject.toml`` changes), installs the competitor libraries from ``benchmarks/requirements.txt``
plus this project in editable mode, then runs each benchmark in that venv as a child process. The
children print their own tables; this runner adds the machine description, each child's wall time
and peak RSS (``os.wait4`` of that child: exact per child, unlike ``RUSAGE_CHILDREN``, which is a
maximum over every child reaped so far), and writes ``benchmarks/results/summary.md`` and one JSON
per benchmark next to it.

Rejected: installing DBOS/Prefect/joblib/temporalio into the project's ``.venv`` or as extras —
they are heavy, pin their own SQLAlchemy/pydantic stacks and are never needed to use loom.
Benchmarks are not tests: nothing here runs under ``./dev test``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
VENV = HERE / ".venv"
RESULTS = HERE / "results"
REQUIREMENTS = HERE / "requirements.txt"
STAMP = VENV / ".bench-installed"

#: name -> (script, extra args for a full run, extra args for --quick)
BENCHMARKS: dict[str, tuple[str, list[str], list[str]]] = {
    "fingerprints": ("compare_fingerprints.py", [], []),
    "runtime": ("compare_runtime.py", [], ["--steps", "200", "--repeat", "1"]),
    "replay": ("bench_divergence.py", [], ["--steps", "2000", "--repeat", "3"]),
    "build": ("bench_build.py", [], ["--modules", "200", "--flows", "20"]),
    "closure-width": ("bench_closure_width.py", [], ["--quick"]),
    "soundness": ("bench_real_soundness.py", [], ["--mutations", "30"]),
    "frameworks": ("bench_frameworks.py", [], []),
    "deploy-check": ("bench_deploy_check.py", [], ["--executions", "1000", "--repeat", "2"]),
    "workers": ("bench_workers.py", [], ["--steps", "200", "--executions", "200", "--repeat", "1", "--idle", "10"]),
    "startup": ("bench_startup.py", [], ["--repeat", "3"]),
    "hook": ("bench_hook.py", [], ["--repeat", "3"]),
    "big-module": ("bench_big_module.py", [], ["--megabytes", "0.5", "--repeat", "1"]),
}


def venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _install_digest() -> str:
    h = hashlib.sha256()
    for path in (REQUIREMENTS, ROOT / "pyproject.toml"):
        h.update(path.read_bytes())
    return h.hexdigest()


def ensure_venv(*, force: bool = False) -> Path:
    """Create/refresh the benchmark venv; return its interpreter."""
    if sys.version_info < (3, 10):
        sys.exit(f"benchmarks need Python 3.10 or newer (this is {platform.python_version()})")
    py = venv_python()
    if not py.exists():
        print(f"creating {VENV.relative_to(ROOT)} ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    digest = _install_digest()
    if force or not STAMP.exists() or STAMP.read_text().strip() != digest:
        print("installing benchmarks/requirements.txt and the project (editable) ...", flush=True)
        pip = [str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        subprocess.run([*pip, "--upgrade", "pip"], check=True)
        subprocess.run([*pip, "-r", str(REQUIREMENTS)], check=True)
        subprocess.run([*pip, "-e", str(ROOT)], check=True)
        STAMP.write_text(digest + "\n")
    return py


def machine() -> dict[str, str]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    py = subprocess.run([str(venv_python()), "-c", "import platform; print(platform.python_version())"],
                        capture_output=True, text=True).stdout.strip()
    mem = ""
    try:
        kb = int(next(l for l in Path("/proc/meminfo").read_text().splitlines() if l.startswith("MemTotal")).split()[1])
        mem = f"{kb / 1024 / 1024:.0f} GiB"
    except (OSError, StopIteration, ValueError):
        pass
    return {"nproc": str(os.cpu_count()), "cpu": cpu, "memory": mem, "python": py,
            "os": f"{platform.system()} {platform.release()}"}


def run_child(py: Path, script: Path, args: list[str], env: dict[str, str]) -> tuple[int, float, int, str]:
    """Run one benchmark, echoing its output; return (exit status, wall seconds, peak RSS in KiB, stdout).

    Peak RSS comes from ``os.wait4`` of that child: Linux reports the larger of the child's own
    peak and that of the descendants it waited for, so a benchmark that runs ``loom build`` in a
    subprocess is covered too.
    """
    t0 = time.perf_counter()
    proc = subprocess.Popen([str(py), str(script), *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, text=True, bufsize=1)
    captured = []
    assert proc.stdout is not None
    for line in proc.stdout:
        print(line, end="", flush=True)
        captured.append(line)
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    # ru_maxrss is KiB on Linux, bytes on macOS
    peak_kib = usage.ru_maxrss // 1024 if sys.platform == "darwin" else usage.ru_maxrss
    return proc.returncode, wall, peak_kib, "".join(captured)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Run the comparison benchmarks (creates benchmarks/.venv).")
    ap.add_argument("--only", help=f"comma-separated subset of: {', '.join(BENCHMARKS)}")
    ap.add_argument("--quick", action="store_true", help="smaller sizes: a smoke run, not for the README")
    ap.add_argument("--reinstall", action="store_true", help="reinstall the benchmark venv")
    args = ap.parse_args(argv)

    names = list(BENCHMARKS)
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        if unknown := [n for n in names if n not in BENCHMARKS]:
            ap.error(f"unknown benchmark(s) {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}")

    py = ensure_venv(force=args.reinstall)
    RESULTS.mkdir(exist_ok=True)
    env = {
        **os.environ,
        "PYTHONDONTWRITEBYTECODE": "1",
        # keep the competitors quiet and local: no analytics, state under results/
        "PREFECT_HOME": str(RESULTS / "prefect-home"),
        "DO_NOT_TRACK": "1",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    }
    info = machine()
    header = (f"machine: {info['cpu']}, nproc={info['nproc']}, {info['memory']} RAM, "
              f"Python {info['python']}, {info['os']}")
    print(header + "\n", flush=True)

    runs = []
    failed = []
    for name in names:
        script_name, full, quick = BENCHMARKS[name]
        script = HERE / script_name
        out_json = RESULTS / f"{name}.json"
        if not script.exists():
            print(f"## {name}: {script.relative_to(ROOT)} is not in this checkout; skipped\n", flush=True)
            runs.append({"name": name, "status": "missing"})
            continue
        extra = list(quick if args.quick else full)
        if name != "build":  # bench_build.py is the bundler's script with its own arguments
            extra += ["--json", str(out_json)]
        print(f"# running {name}: {script.relative_to(ROOT)} {' '.join(extra)}\n", flush=True)
        code, wall, peak, out = run_child(py, script, extra, env)
        print(f"\n[{name}: exit {code}, {wall:.1f}s wall, peak RSS {peak / 1024:.1f} MiB]\n", flush=True)
        runs.append({"name": name, "status": code, "wall_s": round(wall, 2), "peak_rss_mib": round(peak / 1024, 1),
                     "output": out})
        if code != 0:
            failed.append(name)

    lines = [f"# Benchmark run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", "", header, "",
             "| benchmark | exit | wall | peak RSS |", "|---|---:|---:|---:|"]
    for r in runs:
        if r["status"] == "missing":
            lines.append(f"| {r['name']} | missing | | |")
        else:
            lines.append(f"| {r['name']} | {r['status']} | {r['wall_s']:.1f} s | {r['peak_rss_mib']:.1f} MiB |")
    for r in runs:
        if r.get("output"):
            lines += ["", f"## {r['name']}", "", "```", r["output"].rstrip(), "```"]
    summary = "\n".join(lines) + "\n"
    (RESULTS / "summary.md").write_text(summary, encoding="utf-8")
    (RESULTS / "machine.json").write_text(json.dumps({"machine": info, "runs": runs}, indent=1), encoding="utf-8")
    print("\n".join(lines[:6 + len(runs)]))
    print(f"\nfull output: {(RESULTS / 'summary.md').relative_to(ROOT)}")
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
