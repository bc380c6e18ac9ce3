"""``./dev`` (the README's two commands) tells a first-time user what it is doing before the
install's silence (about 30 s) instead of printing nothing."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

DEV = Path(__file__).resolve().parents[2] / "dev"

# A stand-in interpreter: answers the version check, and `-m venv DIR` makes DIR/bin/python a
# stand-in that logs what it was asked to do (pip installs, the example) and succeeds at once.
FAKE_PYTHON = """#!/usr/bin/env bash
case "$1" in
  -V) echo "Python 3.99.0" ;;
  -c) exit 0 ;;
  -m) if [ "$2" = venv ]; then
        mkdir -p "$3/bin"
        printf '#!/usr/bin/env bash\\necho "ran: $*" >> "%s/log"\\n' "$PWD" > "$3/bin/python"
        chmod +x "$3/bin/python"
      fi ;;
esac
"""


def _executable(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def test_first_run_says_it_creates_the_venv_and_installs_before_doing_it(tmp_path: Path):
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    shutil.copy(DEV, checkout / "dev")
    (checkout / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    _executable(tmp_path / "python", FAKE_PYTHON)
    env = {**os.environ, "PYTHON": str(tmp_path / "python")}
    first = subprocess.run(["bash", "./dev", "example"], cwd=checkout, capture_output=True, text=True, env=env)
    assert first.returncode == 0, first.stderr
    lines = first.stderr.splitlines()
    assert lines[0] == "./dev: first run: creating .venv with Python 3.99.0"
    assert lines[1].startswith("./dev: installing loom-toolchain and its test tools into .venv (about 30 s")
    log = (checkout / "log").read_text().splitlines()
    assert log[-1] == "ran: examples/build_example.py" and any("install" in line for line in log[:-1])
    # later runs start at once and say nothing
    again = subprocess.run(["bash", "./dev", "example"], cwd=checkout, capture_output=True, text=True, env=env)
    assert again.returncode == 0 and again.stderr == ""
    # an edited pyproject.toml re-installs, and says so
    os.utime(checkout / "pyproject.toml", (2**31 - 10, 2**31 - 10))
    changed = subprocess.run(["bash", "./dev", "example"], cwd=checkout, capture_output=True, text=True, env=env)
    assert changed.stderr.splitlines() == ["./dev: pyproject.toml changed: updating .venv"]
