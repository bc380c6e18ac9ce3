"""An async flow started in one process and resumed in another (real processes, a real SQLite file):
``asyncio.gather`` of two steps, then a gate. Driven through the blocking calls and through
``start_async``/``resume_async`` inside ``asyncio.run``."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent(
    """
    import asyncio, json, os, sys
    from loom_runtime import Runtime, flow

    journal, effects, mode, api = sys.argv[1:5]

    def log(name):
        with open(effects, "a") as fh:
            fh.write(f"{name} {os.getpid()}\\n")

    async def reserve(sku):
        await asyncio.sleep(0.01)
        log("reserve")
        return f"held:{sku}"

    def charge(amount):  # a sync step: runs off the event loop
        log("charge")
        return amount * 100

    def ship(order):
        log("ship")
        return "shipped"

    @flow("checkout", steps=["reserve", "charge", "ship"])
    async def checkout(ctx, order):
        held, cents = await asyncio.gather(
            ctx.execute("reserve", reserve, order["sku"]), ctx.execute("charge", charge, order["total"])
        )
        approval = await ctx.suspend("manager-approval")
        shipped = await ctx.execute("ship", ship, order)
        return {"held": held, "cents": cents, "approved": approval["by"], "shipped": shipped}

    rt = Runtime(journal=journal, divergence="fail")
    rt.register(checkout)
    order = {"sku": "A1", "total": 12}
    if api == "sync":
        h = rt.start("checkout", order, execution_id="o1") if mode == "start" else rt.resume("o1", {"by": "ann"}, gate="manager-approval")
    else:
        async def main():
            if mode == "start":
                return await rt.start_async("checkout", order, execution_id="o1")
            return await rt.resume_async("o1", {"by": "ann"}, gate="manager-approval")
        h = asyncio.run(main())
    print(json.dumps({"status": h.status, "gate": h.gate, "result": h.result}))
    """
)


def _run(tmp_path: Path, mode: str, api: str) -> dict:
    import json

    script = tmp_path / "child.py"
    script.write_text(CHILD)
    proc = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "j.sqlite3"), str(tmp_path / "effects.log"), mode, api],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("api", ["sync", "async"])
def test_an_async_flow_started_in_one_process_finishes_in_another(tmp_path, api):
    first = _run(tmp_path, "start", api)
    assert (first["status"], first["gate"]) == ("suspended", "manager-approval")
    second = _run(tmp_path, "resume", api)
    assert second == {"status": "completed", "gate": None,
                      "result": {"held": "held:A1", "cents": 1200, "approved": "ann", "shipped": "shipped"}}
    lines = (tmp_path / "effects.log").read_text().splitlines()
    assert Counter(line.split()[0] for line in lines) == {"reserve": 1, "charge": 1, "ship": 1}  # every effect once
    pids = {line.split()[0]: line.split()[1] for line in lines}
    assert pids["reserve"] == pids["charge"] != pids["ship"]  # two processes did the work
