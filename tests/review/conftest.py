"""A real git repository holding the bundled shop example (v1 committed and tagged)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data" / "shop_project"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(DATA, root, ignore=shutil.ignore_patterns("build", ".loom-cache", "__pycache__"))
    (root / ".gitignore").write_text("build/\n.loom-cache/\n__pycache__/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Loom Test")
    git(root, "config", "user.email", "loom@example.invalid")
    git(root, "config", "commit.gpgsign", "false")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "v1")
    git(root, "tag", "v1")
    return root
