"""``loom fingerprint`` on a generated 1,000-module project, against libcst's bare parse.

    .venv/bin/python benchmarks/bench_fingerprint.py [--modules 1000] [--flows 100] [--repeat 3]

The generated package ``app`` has ``--modules`` modules: ``--flows`` of them declare a flow
(``@flow`` with literal arguments, a loop, an f-string step id, a suspend), each flow calls two
helpers in *other* modules (``app.helpers_<k>``, which call each other and read constants) and a
step in ``app.steps_<k>``; the remaining modules are ordinary code (classes, functions, decorators
such as ``@property``) without flows. Figures, each best of ``--repeat``:

1. baseline: ``libcst.parse_module`` of the files that hold flows (read + decode + parse), and,
   for the analysis overhead alone, of every file fingerprinting parses (flows + closure modules);
2. ``fingerprint_project`` (the library call behind the command), in process: the byte check
   over every file, parsing and analysing the flow files and the helper/step modules their
   closures reach, closure resolution and Merkle hashing;
3. ``loom fingerprint --json`` as a user runs it (a fresh interpreter: start-up, imports, JSON).

Printed as seconds and as ratios to the baseline. Also printed: how many files were parsed (the
rest never reach libcst) and, for reference, the cost of libcst's ``ScopeProvider`` +
``QualifiedNameProvider`` on the same flow files (what the hand-written scope analysis avoids).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import libcst as cst  # noqa: E402
from libcst.metadata import MetadataWrapper, QualifiedNameProvider, ScopeProvider  # noqa: E402

import loom_compiler.fingerprint as fp  # noqa: E402
from loom_compiler import fingerprint_project, load_config  # noqa: E402

FLOW_MODULE = '''\
"""Orders, batch {i}."""
from __future__ import annotations

from loom_runtime import Context, flow

from app import helpers_{a} as pricing
from app.helpers_{b} import shipping_cost
from app.steps_{s} import charge, pack, ship

RETRIES = {i}


@flow("order-{i}", version=1, steps=["charge", "ship"], step_families=["pack"])
def order_{i}(ctx: Context, order: dict) -> dict:
    """Charge, pack and ship one order."""
    total = pricing.total_{a}(order["items"]) + shipping_cost(order)
    if total > pricing.LIMIT:
        approval = ctx.suspend("manager-approval")
        if not approval.get("approved"):
            return {{"status": "rejected", "total": total}}
    receipt = ctx.execute("charge", charge, order["id"], total)
    parcels = [ctx.execute(f"pack#{{n}}", pack, item) for n, item in enumerate(order["items"])]
    tracking = ctx.execute("ship", ship, order["id"], parcels)
    return {{"status": "shipped", "receipt": receipt, "tracking": tracking, "retries": RETRIES}}
'''

HELPER_MODULE = '''\
"""Pricing helpers {k}."""
from __future__ import annotations

import math

LIMIT = {limit}
RATE = 0.{k}


def total_{k}(items: list[dict]) -> float:
    subtotal = sum(item["price"] * item.get("qty", 1) for item in items)
    return round(subtotal * (1 + RATE), 2)


def shipping_cost(order: dict) -> float:
    weight = sum(item.get("weight", 1.0) for item in order["items"])
    return math.ceil(weight) * 2.5 + _surcharge(order)


def _surcharge(order: dict) -> float:
    return 5.0 if order.get("express") else 0.0


class Ledger:
    def __init__(self) -> None:
        self.entries: list[tuple[str, float]] = []

    def add(self, name: str, amount: float) -> None:
        self.entries.append((name, amount))

    @property
    def balance(self) -> float:
        return sum(amount for _, amount in self.entries)
'''

STEPS_MODULE = '''\
"""Effects {k}."""
from loom_runtime import step


@step
def charge(order_id: str, amount: float) -> str:
    return f"receipt:{{order_id}}:{{amount:.2f}}"


@step
def pack(item: dict) -> str:
    return f"parcel:{{item['sku']}}"


@step
def ship(order_id: str, parcels: list[str]) -> str:
    return f"tracking:{{order_id}}:{{len(parcels)}}"
'''

PLAIN_MODULE = '''\
"""Plain module {k}: no flows."""
from __future__ import annotations

import dataclasses
import functools


@dataclasses.dataclass(frozen=True)
class Record{k}:
    name: str
    value: int = {k}

    @property
    def doubled(self) -> int:
        return self.value * 2


@functools.lru_cache(maxsize=128)
def lookup_{k}(key: str) -> int:
    total = 0
    for i, ch in enumerate(key):
        total += (i + 1) * ord(ch)
    return total % {mod}


def describe_{k}(records: list[Record{k}]) -> str:
    parts = [f"{{r.name}}={{r.doubled}}" for r in records if r.value > 0]
    return ", ".join(sorted(parts))
'''


def generate(root: Path, modules: int, flows: int) -> list[Path]:
    """Write the project; returns the paths of the files that hold flows."""
    pkg = root / "app"
    pkg.mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "bench-app"\nversion = "0"\n\n[tool.loom]\npackages = ["app"]\n')
    (pkg / "__init__.py").write_text("")
    helpers = max(flows // 2, 1)
    steps = max(flows // 10, 1)
    plain = modules - flows - helpers - steps - 1
    if plain < 0:
        raise SystemExit(f"--modules {modules} is too small for --flows {flows}")
    for k in range(helpers):
        (pkg / f"helpers_{k}.py").write_text(HELPER_MODULE.format(k=k, limit=100 + k))
    for k in range(steps):
        (pkg / f"steps_{k}.py").write_text(STEPS_MODULE.format(k=k))
    for k in range(plain):
        (pkg / f"plain_{k}.py").write_text(PLAIN_MODULE.format(k=k, mod=97 + k))
    flow_files = []
    for i in range(flows):
        path = pkg / f"orders_{i}.py"
        path.write_text(FLOW_MODULE.format(i=i, a=i % helpers, b=(i + 1) % helpers, s=i % steps))
        flow_files.append(path)
    return flow_files


def best(fn, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modules", type=int, default=1000)
    parser.add_argument("--flows", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="loom-bench-fp-") as tmp:
        root = Path(tmp)
        flow_files = generate(root, args.modules, args.flows)
        all_files = sorted((root / "app").glob("*.py"))
        config = load_config(root)

        def parse_flow_files() -> int:
            for path in flow_files:
                cst.parse_module(path.read_bytes().decode("utf-8"))
            return len(flow_files)

        parsed: list[str] = []
        real_analyse = fp.analyse_module

        def counting(*a, **kw):  # noqa: ANN002, ANN003
            parsed.append(kw["module"])
            return real_analyse(*a, **kw)

        def fingerprint() -> object:
            parsed.clear()
            result = fingerprint_project([root], config)
            assert not result.errors, result.errors[:3]
            assert len(result.flows) == args.flows
            return result

        def cli() -> object:
            proc = subprocess.run(
                [sys.executable, "-m", "loom_compiler", "fingerprint", str(root), "--json"],
                capture_output=True,
                text=True,
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
            )
            assert proc.returncode == 0, proc.stderr[-500:]
            return json.loads(proc.stdout)

        def providers() -> int:
            for path in flow_files:
                wrapper = MetadataWrapper(cst.parse_module(path.read_bytes().decode("utf-8")))
                wrapper.resolve(ScopeProvider)
                wrapper.resolve(QualifiedNameProvider)
            return len(flow_files)

        base, _ = best(parse_flow_files, args.repeat)
        fp.analyse_module = counting
        try:
            lib, result = best(fingerprint, args.repeat)
        finally:
            fp.analyse_module = real_analyse
        needed = [root / (m.replace(".", "/") + ".py") for m in sorted(set(parsed))]
        needed = [p if p.exists() else p.with_suffix("") / "__init__.py" for p in needed]

        def parse_needed_files() -> int:
            for path in needed:
                cst.parse_module(path.read_bytes().decode("utf-8"))
            return len(needed)

        base_all, _ = best(parse_needed_files, args.repeat)
        cmd, doc = best(cli, args.repeat)
        prov, _ = best(providers, args.repeat)
        flows = result.flows  # type: ignore[attr-defined]
        closure = sum(len(f.closure) for f in flows) / len(flows)
        assert [f["codeHash"] for f in doc["flows"]] == [f.code_hash for f in flows]  # type: ignore[index]

        print(f"project: {len(all_files)} modules, {len(flow_files)} with flows, mean closure {closure:.1f} members")
        print(f"files parsed by libcst: {len(set(parsed))} of {len(all_files)} "
              f"({len(flow_files)} flow files + {len(set(parsed)) - len(flow_files)} reached by closures)")
        print(f"{'baseline: libcst.parse_module of the flow files':58s} {base:8.3f} s   1.00x")
        print(f"{'libcst.parse_module of every file parsed (flows + closures)':58s} {base_all:8.3f} s   {base_all / base:.2f}x")
        print(f"{'fingerprint_project (in process)':58s} {lib:8.3f} s   {lib / base:.2f}x"
              f"   ({lib / base_all:.2f}x the parse of the files it parses)")
        print(f"{'loom fingerprint --json (fresh interpreter)':58s} {cmd:8.3f} s   {cmd / base:.2f}x")
        print(f"{'reference: parse + ScopeProvider + QualifiedNameProvider':58s} {prov:8.3f} s   {prov / base:.2f}x")


if __name__ == "__main__":
    main()
