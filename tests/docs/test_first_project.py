"""The README and docs/guides/first-project.md, followed literally: their commands are read from the
Markdown and run in a fresh virtual environment in a temporary directory, and the output each page
shows must appear. A documented command or snippet that stops working fails here.

Slow (a fresh venv installs loom-toolchain and, for the README, ``./dev`` installs the test tools):
pip's own cache is used, so on a machine that ran ``./dev`` before it takes about a minute.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from helpers.markdown_commands import Block, fenced, runnable

REPO = Path(__file__).resolve().parents[2]
GUIDE = REPO / "docs" / "guides" / "first-project.md"
README = REPO / "README.md"
MARK = "@@loom-doc-block@@"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV")}
    # the interpreter running the tests, first on PATH, so `python3 -m venv` makes a venv of it
    env["PATH"] = str(Path(sys.executable).resolve().parent) + os.pathsep + env.get("PATH", "")
    env.update(extra)
    return env


def run_page(blocks, cwd: Path, env: dict[str, str], timeout: float) -> list[str]:
    """Run every block in one bash process (state carries over, as for a reader in one shell);
    return each block's output."""
    script = "set -euo pipefail\n" + "".join(f"echo '{MARK}'\n{b.text}\n" for b in blocks)
    proc = subprocess.run(["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    outputs = proc.stdout.split(MARK + "\n")[1:]
    assert proc.returncode == 0, (
        f"block {len(outputs)} of the page failed:\n{blocks[len(outputs) - 1].text}\n--- stdout\n{proc.stdout[-3000:]}"
        f"\n--- stderr\n{proc.stderr[-3000:]}")
    return outputs


@pytest.mark.slow
def test_the_first_project_guide_works_as_written(tmp_path: Path):
    blocks = runnable(GUIDE)
    assert len(blocks) >= 8 and any("loom build" in b.text for b in blocks)
    outputs = run_page(blocks, tmp_path, _env(LOOM_TOOLCHAIN=str(REPO)), timeout=600)
    for block, output in zip(blocks, outputs):
        for line in block.expect:
            assert line in output, f"expected {line!r} from\n{block.text}\ngot\n{output}"


@pytest.mark.slow
def test_the_readme_commands_work_in_a_fresh_clone(tmp_path: Path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    # the working tree as it is now (uncommitted edits included), over the clone's HEAD
    changed = subprocess.run(["git", "ls-files", "-m", "-o", "--exclude-standard"], cwd=REPO, check=True,
                             capture_output=True, text=True).stdout.split()
    for rel in changed:
        if (REPO / rel).is_file():
            (clone / rel).parent.mkdir(parents=True, exist_ok=True)
            (clone / rel).write_bytes((REPO / rel).read_bytes())
    commands = [line.split("#")[0].strip() for b in runnable(README) for line in b.text.splitlines()]
    commands = [c for c in commands if c]
    # every command the README gives to run is run below (`./dev test` is this very suite)
    assert commands == ["./dev example", "./dev test"], commands
    # and its `loom worker` illustration (a shell fence) works as written too
    worker = next(line.split("#")[0].strip() for b in fenced(README) if b.lang in ("bash", "shell", "sh")
                  for line in b.text.splitlines() if line.startswith("loom worker "))
    outputs = run_page([Block("bash", "./dev example")], clone, _env(), timeout=600)
    assert "loom build: 2 flows (2 new), 2 new versions, 0 errors" in outputs[0]
    assert "flow `checkout`: 1 version(s)" in outputs[0]
    # the worker, from the example built just now (a source tree: no wheel), until SIGTERM
    env = _env(PATH=str(clone / ".venv" / "bin") + os.pathsep + os.environ.get("PATH", ""),
               SHOP_JOURNAL=str(tmp_path / "shop.db"))
    proc = subprocess.Popen(["bash", "-c", f"exec {worker}"], cwd=clone / "examples" / "shop", env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []  # its JSON log (stdout is no terminal), read as it comes
    errs: list[str] = []
    readers = [threading.Thread(target=lambda st=st, out=out: out.extend(st), daemon=True)
               for st, out in ((proc.stdout, lines), (proc.stderr, errs))]
    for reader in readers:
        reader.start()
    try:
        # SIGTERM once it serves (its handler installed): after a fixed 4 s, a loaded machine could
        # still be importing, and the signal's default action ended it (exit -15)
        deadline = time.monotonic() + 120
        while not any('"event": "serving"' in line for line in list(lines)):
            if proc.poll() is not None:
                pytest.fail(f"`{worker}` exited by itself ({proc.returncode}):\n{''.join(lines)}{''.join(errs)}")
            assert time.monotonic() < deadline, f"`{worker}` never started serving:\n{''.join(errs)}"
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        for reader in readers:
            reader.join(30)
    out, err = "".join(lines), "".join(errs)
    assert proc.returncode == 0, out + err  # on SIGTERM it finishes, releases its leases and exits 0
    assert '"signal": "SIGTERM"' in out and '"event": "stopped"' in out  # stopped by the signal, not by itself
    assert "Traceback" not in err
    # the README's Python snippets are valid Python using names the packages export
    for block in fenced(README):
        if block.lang == "python":
            compile(block.text, "README.md", "exec")
            for name in re.findall(r"from loom_runtime import ([\w, ]+)", block.text):
                for item in (n.strip() for n in name.split(",")):
                    assert hasattr(__import__("loom_runtime"), item), item
