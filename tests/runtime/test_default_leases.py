"""Leases by default (DESIGN §9), with real processes: two plain ``Runtime()`` processes on one SQLite
file. One's ``recover()`` during the other's long step does not run it (the README snippet that
used to re-run a healthy process's step)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent(
    """
    import json, os, sys, time
    from loom_runtime import Runtime, flow

    journal, effects, gate, mode = sys.argv[1:5]

    def long_step():
        with open(effects, "a") as fh:
            fh.write(f"long {os.getpid()}\\n")
        deadline = time.monotonic() + 60
        while os.path.exists(gate) and time.monotonic() < deadline:  # held open by the test
            time.sleep(0.02)
        return "done"

    @flow("job")
    def job(ctx, _):
        return ctx.execute("long", long_step)

    rt = Runtime(journal=journal)  # no worker_id, the README's spelling
    rt.register(job)
    if mode == "start":
        h = rt.start("job", execution_id="e1")
        print(json.dumps([h.status, h.result]))
    else:
        print(json.dumps([[h.execution_id, h.status] for h in rt.recover()]))
    """
)


def test_a_plain_runtimes_recover_does_not_run_another_live_processs_step(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    effects, gate = tmp_path / "effects.log", tmp_path / "gate"
    gate.write_text("hold")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = [sys.executable, str(script), str(tmp_path / "j.sqlite3"), str(effects), str(gate)]
    first = subprocess.Popen([*args, "start"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not effects.exists():  # the first process is inside its step
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline, "the first process never reached its step"
            time.sleep(0.02)
        second = subprocess.run([*args, "recover"], env=env, capture_output=True, text=True, timeout=60)
        assert second.returncode == 0, second.stderr
        assert second.stdout.strip() == "[]"  # leased by the first process: not listed, not run
    finally:
        gate.unlink()
    out, err = first.communicate(timeout=60)
    assert first.returncode == 0, err  # no FencingError: nobody took its execution
    assert out.strip() == '["completed", "done"]'
    assert len(effects.read_text().splitlines()) == 1  # the step ran once
