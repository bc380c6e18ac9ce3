"""Crash safety with real processes: SIGKILL between a step's start and its completion.

A child process drives a flow over a SQLite journal file; a step blocks after announcing itself,
and the test kills the child with SIGKILL (no cleanup, no atexit, no rollback in Python). A fresh
process then calls ``recover`` until the dead process's lease has expired (every ``Runtime`` leases
what it drives). The step runs again (at-least-once), no completed step runs twice,
and the journal's sequence numbers stay contiguous and unique.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX SIGKILL")

ROOT = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent(
    """
    import os, sys, time
    from loom_runtime import Runtime, SqliteJournal, flow

    journal_path, effects_path, marker_path, mode = sys.argv[1:5]
    hang_at = os.environ.get("LOOM_HANG_AT", "")

    def effect(name):
        def run():
            with open(effects_path, "a") as fh:
                fh.write(f"{name} {os.getpid()}\\n")
                fh.flush()
                os.fsync(fh.fileno())
            if name == hang_at:
                with open(marker_path, "w") as fh:
                    fh.write(name)
                time.sleep(120)  # the parent SIGKILLs us here: STEP_STARTED is durable, no completion
            return name
        return run

    @flow("crashy", steps=[f"s{i}" for i in range(5)])
    def crashy(ctx, _):
        out = []
        for i in range(5):
            out.append(ctx.execute(f"s{i}", effect(f"s{i}")))
        return out

    # a short lease: the killed process's lease must run out before another process takes over
    rt = Runtime(journal=SqliteJournal(journal_path), divergence="fail", lease_ttl=1.0)
    rt.register(crashy)
    if mode == "start":
        h = rt.start("crashy", None, execution_id="e1")
    else:
        deadline = time.monotonic() + 60
        handles = rt.recover()
        while not handles and time.monotonic() < deadline:  # leased to the dead process until it expires
            time.sleep(0.1)
            handles = rt.recover()
        [h] = handles
    print(h.status, h.result)
    """
)


def _spawn(tmp_path: Path, mode: str, hang_at: str = "") -> subprocess.Popen[str]:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = {**os.environ, "LOOM_HANG_AT": hang_at, "PYTHONPATH": str(ROOT)}
    args = [sys.executable, str(script), str(tmp_path / "j.sqlite3"), str(tmp_path / "effects.log"),
            str(tmp_path / "marker"), mode]
    return subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _kill_when_hanging(tmp_path: Path, proc: subprocess.Popen[str]) -> None:
    marker = tmp_path / "marker"
    deadline = time.monotonic() + 60
    while not marker.exists():
        if proc.poll() is not None:
            raise AssertionError(f"child exited early: {proc.communicate()}")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("child never reached the hanging step")
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    marker.unlink()


def _journal(tmp_path: Path) -> list[tuple[int, str, str]]:
    with sqlite3.connect(tmp_path / "j.sqlite3") as raw:
        return raw.execute(
            "SELECT seq, type, json_extract(payload, '$.stepId') FROM events WHERE execution_id='e1' ORDER BY rowid"
        ).fetchall()


@pytest.mark.slow
def test_sigkill_mid_step_then_recover(tmp_path):
    _kill_when_hanging(tmp_path, _spawn(tmp_path, "start", hang_at="s2"))
    rows = _journal(tmp_path)
    assert rows[-1][1:] == ("STEP_STARTED", "s2")  # died between the start and the completion
    # a second crash, in the recovering process, mid-step again
    _kill_when_hanging(tmp_path, _spawn(tmp_path, "recover", hang_at="s4"))
    proc = _spawn(tmp_path, "recover")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out.strip() == "completed ['s0', 's1', 's2', 's3', 's4']"

    effects = Counter(line.split()[0] for line in (tmp_path / "effects.log").read_text().splitlines())
    assert effects == {"s0": 1, "s1": 1, "s2": 2, "s3": 1, "s4": 2}  # interrupted steps re-ran, completed never

    rows = _journal(tmp_path)
    seqs = [r[0] for r in rows]
    assert seqs == list(range(1, len(rows) + 1))  # no gap, no duplicate, stored in order
    completed = Counter(step for _, t, step in rows if t == "STEP_COMPLETED")
    assert completed == {f"s{i}": 1 for i in range(5)}
    assert [r[1] for r in rows].count("EXECUTION_COMPLETED") == 1
