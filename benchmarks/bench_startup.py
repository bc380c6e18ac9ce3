"""Start-up of ``loom`` commands, against ``python -c "import click"``: what every command pays.

Usage: ``.venv/bin/python benchmarks/bench_startup.py [--repeat 21]``

Each figure is a fresh process, as a user or a CI step runs it; the processes are interleaved
(one of each per round, ``--repeat`` rounds) so that a change in the machine's load hits all of
them alike, and the medians are compared:

* ``python -c pass``: the interpreter alone;
* ``python -c "import click"``: the baseline (a click application cannot start with less);
* ``loom --help``, ``loom gc --help``, ``loom census --help``: the command group and one command's
  options, through the ``loom`` console script next to this interpreter (what a user types).

Target (issue 18): ``loom gc --help`` <= 2x ``import click``. Ratios within one run only; each
process's CPU time (``os.wait4``) is printed beside its wall time (under load it moves far less).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

__all__ = ["measure", "measure_cpu", "loom_command"]


def loom_command() -> list[str]:
    """The ``loom`` console script of this interpreter's environment (``-m loom_compiler`` without one)."""
    script = Path(sys.executable).with_name("loom")
    if script.exists():
        return [str(script)]
    found = shutil.which("loom")
    return [found] if found else [sys.executable, "-m", "loom_compiler"]


#: the children's environment: bytecode cached, as users run ``loom`` (a development shell with
#: PYTHONDONTWRITEBYTECODE=1 would compile every module of every process from source)
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _once(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, cwd=ROOT, env=_ENV)
    return time.perf_counter() - start


def _once_cpu(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, ``os.wait4``) of one fresh process."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=_ENV)
    _pid, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode not in (0, 1):
        raise subprocess.CalledProcessError(child.returncode, argv)
    return wall, usage.ru_utime + usage.ru_stime


def measure_cpu(cases: dict[str, list[str]], repeat: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """``measure`` with each process's CPU time too (under load CPU time moves far less than wall):
    ``(wall seconds, CPU seconds)`` of each case, ``repeat`` interleaved rounds."""
    walls: dict[str, list[float]] = {name: [] for name in cases}
    cpus: dict[str, list[float]] = {name: [] for name in cases}
    for argv in cases.values():
        _once_cpu(argv)
    for _ in range(repeat):
        for name, argv in cases.items():
            wall, cpu = _once_cpu(argv)
            walls[name].append(wall)
            cpus[name].append(cpu)
    return walls, cpus


def measure(cases: dict[str, list[str]], repeat: int) -> dict[str, list[float]]:
    """Wall seconds of each case, ``repeat`` rounds, one run of every case per round."""
    times: dict[str, list[float]] = {name: [] for name in cases}
    for name, argv in cases.items():  # warm the page cache and the bytecode caches once
        _once(argv)
    for _ in range(repeat):
        for name, argv in cases.items():
            times[name].append(_once(argv))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=21)
    args = parser.parse_args()
    loom = loom_command()
    cases = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -c 'import click'": [sys.executable, "-c", "import click"],
        "loom --help": [*loom, "--help"],
        "loom gc --help": [*loom, "gc", "--help"],
        "loom census --help": [*loom, "census", "--help"],
    }
    load = os.getloadavg()[0]
    times, cpus = measure_cpu(cases, args.repeat)
    base = statistics.median(times["python -c 'import click'"])
    cpu_base = statistics.median(cpus["python -c 'import click'"])
    print(f"loom start-up benchmark: {args.repeat} interleaved rounds, python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs, load average {load:.2f} -> {os.getloadavg()[0]:.2f}")
    for name, values in times.items():
        median = statistics.median(values)
        cpu = statistics.median(cpus[name])
        print(f"  {name:28s} median {1000 * median:7.1f} ms  (min {1000 * min(values):6.1f})  = {median / base:4.2f}x click"
              f"   CPU {1000 * cpu:6.1f} ms = {cpu / cpu_base:4.2f}x")
    ratio = statistics.median(times["loom gc --help"]) / base
    cpu_ratio = statistics.median(cpus["loom gc --help"]) / cpu_base
    print(f"  target: loom gc --help <= 2.00x import click: {'met' if ratio <= 2 else 'MISSED'} ({ratio:.2f}x wall, "
          f"{cpu_ratio:.2f}x CPU)")


if __name__ == "__main__":
    main()
