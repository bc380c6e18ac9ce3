"""A 5 MB first-party module reached by a flow: ``loom build`` against libcst's own parse of it.

Usage: ``.venv/bin/python benchmarks/bench_big_module.py [--megabytes 5] [--repeat 3]``

The generated module (``bigapp/tables.py``) is what code generators write: thousands of rate
tables and small pricing functions, one flow at the end calling two of them. Each figure is a
fresh process waited for with ``os.wait4`` (its wall time, CPU time and peak RSS), alternating:

* **floor**: ``libcst.parse_module`` of that file alone (read, decode, parse), nothing else;
* **build**: ``loom build -q --no-cache --jobs 1`` of the project (scan, parse, analysis,
  closure, chunk, manifest), a cold build in one process.

Targets (issue 18): build time <= 2x and peak memory <= 1.5x the floor's. On a loaded machine
wall time swings with the other jobs: the CPU time (user + system) is printed beside it, and
each ratio is taken within one round.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FLOOR = "import sys, libcst\nlibcst.parse_module(open(sys.argv[1], 'rb').read().decode('utf-8'))\n"


def generate(root: Path, megabytes: float) -> Path:
    pkg = root / "bigapp"
    pkg.mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "bigapp"\nversion = "0"\n\n[tool.loom]\npackages = ["bigapp"]\n')
    (pkg / "__init__.py").write_text("")
    (pkg / "steps.py").write_text("from loom_runtime import step\n\n\n@step\ndef charge(total: float) -> float:\n    return total\n")
    target = int(megabytes * 1_000_000)
    parts = ['"""A generated module: rate tables and per-region pricing."""\n\nfrom loom_runtime import Context, flow\n\n'
             "from .steps import charge\n\n"]
    size, i = len(parts[0]), 0
    while size < target:
        part = (f"RATE_{i} = {{'base': {i}.5, 'region': 'r{i % 97}', 'tiers': [{i}, {i + 1}, {i + 2}]}}\n\n\n"
                f"def price_{i}(order: dict) -> float:\n"
                f"    # price of region {i}: base, then tier rebates\n"
                f"    total = order.get('n', 0) * RATE_{i}['base']\n"
                f"    for tier in RATE_{i}['tiers']:\n"
                f"        if total > tier * 10:\n"
                f"            total -= tier\n"
                f"    return round(total, 2)\n\n\n")
        parts.append(part)
        size += len(part)
        i += 1
    parts.append("@flow('big', steps=['charge'])\ndef big(ctx: Context, order: dict) -> float:\n"
                 "    return ctx.execute('charge', charge, price_7(order) + price_11(order))\n")
    path = pkg / "tables.py"
    path.write_text("".join(parts))
    return path


def run(argv: list[str], cwd: Path) -> tuple[float, float, int]:
    """(wall s, CPU s, peak RSS KiB) of one process."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as users run it: bytecode cached
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {proc.stderr.read().decode()[-2000:] if proc.stderr else ''}")
    peak = usage.ru_maxrss // 1024 if sys.platform == "darwin" else usage.ru_maxrss
    return wall, usage.ru_utime + usage.ru_stime, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=5.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="loom-bench-big-"))
    try:
        path = generate(tmp / "proj", args.megabytes)
        rounds = []
        for _ in range(args.repeat):
            load = os.getloadavg()[0]
            floor = run([sys.executable, "-c", FLOOR, str(path)], tmp)
            shutil.rmtree(tmp / "proj" / "build", ignore_errors=True)
            build = run([sys.executable, "-m", "loom_compiler", "build", "-q", "--no-cache", "--jobs", "1"], tmp / "proj")
            rounds.append((load, floor, build))
        print(f"loom build of a {path.stat().st_size / 1e6:.1f} MB module: python {sys.version.split()[0]}, "
              f"{os.cpu_count()} CPUs, {args.repeat} rounds")
        for load, (fw, fc, fm), (bw, bc, bm) in rounds:
            print(f"  load {load:5.2f}: floor {fw:6.1f} s wall / {fc:6.1f} s CPU / {fm / 1024:6.0f} MiB;  build {bw:6.1f} s / "
                  f"{bc:6.1f} s / {bm / 1024:6.0f} MiB;  ratios: wall {bw / fw:4.2f}x, CPU {bc / fc:4.2f}x, peak {bm / fm:4.2f}x")
        time_ratio = statistics.median(b[1] / f[1] for _l, f, b in rounds)
        wall_ratio = statistics.median(b[0] / f[0] for _l, f, b in rounds)
        peak_ratio = statistics.median(b[2] / f[2] for _l, f, b in rounds)
        print(f"  medians: time {wall_ratio:.2f}x wall, {time_ratio:.2f}x CPU (target <= 2.00x); "
              f"peak memory {peak_ratio:.2f}x (target <= 1.50x)")
        met = max(time_ratio, wall_ratio) <= 2 and peak_ratio <= 1.5
        print(f"  targets: {'met' if met else 'MISSED'}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
