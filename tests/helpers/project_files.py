"""Writing a small project tree from ``{relative path: text}`` and running a harness script in a
fresh interpreter: the fingerprint pair tables and the chunk-versus-live tests build their
projects and run their harnesses the same way (one copy, not one per test module)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

__all__ = ["run_harness", "write_files"]


def write_files(root: Path, files: dict[str, str]) -> None:
    """Write every ``rel: text`` under ``root`` (UTF-8), creating directories."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def run_harness(harness: str, mode: str, cases: list, cwd: Path) -> dict[str, Any]:
    """Run ``harness`` (source text; argv: the JSON cases, the mode) in a fresh interpreter without
    the caller's PYTHONPATH, and return the JSON object on its LAST line of output (a module may
    print while it loads)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(harness), json.dumps(cases), mode],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])
