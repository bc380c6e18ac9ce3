"""What a pre-commit hook pays: ``loom fingerprint`` warm and cold, against start-up and the parse floor.

Usage: ``.venv/bin/python benchmarks/bench_hook.py [--repeat 11]``

Two figures (issue 18), each a ratio against a baseline measured in the same run:

* **warm**: ``loom fingerprint`` on the unchanged example project (``examples/shop``, a copy) with
  a warm ``.loom-cache``, as a fresh process (what a hook runs on every commit), against the
  start-up of a command that parses nothing (``loom gc --help``); fresh processes interleaved
  (``bench_startup.measure_cpu``), medians of wall and of CPU time. Target: <= 1.5x start-up.
* **cold, 100 files**: a generated tree of 100 modules of which one holds a flow; the flow's
  closure reaches 12 helper modules, 8 other modules talk about ``@flow`` in their docstrings
  (the byte check lets them through; nothing reaches them), the rest are ordinary code.
  ``fingerprint_tree`` with no cache, in this process, against the parse floor:
  ``libcst.parse_module`` of the files the closure reaches (the flow file and its helpers), in
  the same process. Target: <= 1.3x the floor. Alternating, ``--repeat`` rounds, medians.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_startup import loom_command, measure_cpu  # noqa: E402

HELPERS = 12
TALKERS = 8
FILES = 100

FLOW = '''"""The one flow of the generated tree."""

from loom_runtime import Context, flow

from hookapp.steps import charge
{imports}


@flow("order", steps=["charge"])
def order(ctx: Context, data: dict) -> float:
    total = 0.0
{calls}
    return ctx.execute("charge", charge, total)
'''


def helper(j: int) -> str:
    body = "\n\n".join(
        f'''def h{j}_{k}(data: dict) -> float:
    # helper {k} of module {j}
    rows = [r for r in data.get("rows", ()) if r.get("kind") == "k{k}"]
    total = sum(float(r.get("amount", 0)) * {k + 1} for r in rows)
    if total > {100 * (k + 1)}:
        total = total * 0.9
    return round(total, 2)''' for k in range(12))
    return f'"""Helpers {j}."""\n\nimport math\n\nLIMIT_{j} = {j * 10}\n\n\n{body}\n'


def other(k: int, talks: bool) -> str:
    doc = ("Views. Durable work goes in a function decorated with @flow(\"id\") in hookapp.flows."
           if talks else "Views of the web layer.")
    body = "\n\n".join(
        f'''class View{k}_{i}:
    def get(self, page: int = 1) -> list:
        rows = list(range(page * 10))
        return [{{"id": r, "label": f"row {{r}}"}} for r in rows if r % {i + 2}]''' for i in range(8))
    return f'"""{doc}"""\n\n{body}\n'


def generate(root: Path) -> list[Path]:
    """The tree; returns the files the flow's closure reaches (the parse floor's)."""
    pkg = root / "hookapp"
    pkg.mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.loom]\npackages = ["hookapp"]\n')
    (pkg / "__init__.py").write_text("")
    (pkg / "steps.py").write_text("from loom_runtime import step\n\n\n@step\ndef charge(total):\n    return total\n")
    imports = "\n".join(f"from hookapp import lib_{j:02d}" for j in range(HELPERS))
    calls = "\n".join(f"    total += lib_{j:02d}.h{j}_{j % 12}(data)" for j in range(HELPERS))
    (pkg / "flows.py").write_text(FLOW.format(imports=imports, calls=calls))
    for j in range(HELPERS):
        (pkg / f"lib_{j:02d}.py").write_text(helper(j))
    rest = FILES - HELPERS - 3
    for k in range(rest):
        (pkg / f"mod_{k:03d}.py").write_text(other(k, k < TALKERS))
    assert len(list(pkg.glob("*.py"))) == FILES
    return [pkg / "flows.py", pkg / "__init__.py", pkg / "steps.py", *(pkg / f"lib_{j:02d}.py" for j in range(HELPERS))]


def warm(repeat: int) -> dict[str, float]:
    tmp = Path(tempfile.mkdtemp(prefix="loom-bench-hook-"))
    try:
        shop = tmp / "shop"
        shutil.copytree(ROOT / "examples" / "shop", shop, ignore=shutil.ignore_patterns("build", ".loom-cache", "__pycache__"))
        loom = loom_command()
        import subprocess

        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        subprocess.run([*loom, "fingerprint"], cwd=shop, check=True, capture_output=True, env=env)  # fills the cache
        cases = {"loom gc --help": [*loom, "gc", "--help"],
                 "loom fingerprint (warm)": [*loom, "fingerprint", str(shop)]}
        walls, cpus = measure_cpu(cases, repeat)
        return {**{name: statistics.median(v) for name, v in walls.items()},
                **{f"cpu {name}": statistics.median(v) for name, v in cpus.items()}}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def cold(repeat: int) -> dict[str, float | int]:
    import libcst

    from loom_compiler.bundle.fingerprint_tree import fingerprint_tree
    from loom_compiler.config import load_config

    tmp = Path(tempfile.mkdtemp(prefix="loom-bench-hook-"))
    try:
        reached = generate(tmp / "proj")
        config = load_config(tmp / "proj")
        floors, runs, cpu_floors, cpu_runs = [], [], [], []
        parsed = 0
        for _ in range(repeat):
            start, cpu = time.perf_counter(), time.process_time()
            for path in reached:
                libcst.parse_module(path.read_bytes().decode("utf-8"))
            floors.append(time.perf_counter() - start)
            cpu_floors.append(time.process_time() - cpu)
            start, cpu = time.perf_counter(), time.process_time()  # every thread of this process
            result = fingerprint_tree(config, use_cache=False, jobs=1)
            runs.append(time.perf_counter() - start)
            cpu_runs.append(time.process_time() - cpu)
            assert result.ok and len(result.flows) == 1, result.errors
            closure_modules = {m.module for m in result.flows[0].closure if m.module}
            parsed = len(closure_modules)
        return {"floor": statistics.median(floors), "cold": statistics.median(runs), "reached": len(reached),
                "closure_modules": parsed, "cpu_floor": statistics.median(cpu_floors),
                "cpu_cold": statistics.median(cpu_runs)}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=11)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    w = warm(args.repeat)
    c = cold(args.repeat)
    print(f"loom hook benchmark: python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
          f"load average {load:.2f} -> {os.getloadavg()[0]:.2f}, medians of {args.repeat}")
    start_up, fp = w["loom gc --help"], w["loom fingerprint (warm)"]
    print(f"  start-up (loom gc --help)            {1000 * start_up:8.1f} ms")
    print(f"  loom fingerprint, warm (examples/shop) {1000 * fp:6.1f} ms  = {fp / start_up:4.2f}x start-up (target <= 1.50x)")
    cpu_start, cpu_fp = w["cpu loom gc --help"], w["cpu loom fingerprint (warm)"]
    print(f"    CPU time: start-up {1000 * cpu_start:.1f} ms, warm fingerprint {1000 * cpu_fp:.1f} ms = "
          f"{cpu_fp / cpu_start:4.2f}x")
    print(f"  parse floor ({c['reached']} files the closure reaches) {1000 * c['floor']:6.1f} ms")
    print(f"  fingerprint_tree, cold, {FILES} files        {1000 * c['cold']:6.1f} ms  = {c['cold'] / c['floor']:4.2f}x floor "
          f"(target <= 1.30x)")
    print(f"    CPU time: floor {1000 * c['cpu_floor']:.1f} ms, fingerprint_tree {1000 * c['cpu_cold']:.1f} ms = "
          f"{c['cpu_cold'] / c['cpu_floor']:4.2f}x")
    met = fp <= 1.5 * start_up and c["cold"] <= 1.3 * c["floor"]
    print(f"  targets: {'all met' if met else 'MISSED'}")


if __name__ == "__main__":
    main()
