"""Fixture project copies and real git repositories for tests of ``--from-git``, ``history``, ``loom diff`` and ``loom check``.

One place for the ``git`` runner, the in-place ``edit`` and the repository set-up, so the compiler
and review tests build their repositories the same way (identity configured, signing off, so a
developer's global git config cannot make a commit fail or prompt). Rejected: a pytest fixture in
the shared ``tests/conftest.py`` (that file belongs to the runtime side and only the two
review/compiler packages need this), and a fake git (what is under test is the plumbing).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

__all__ = ["BUNDLE_SHOP", "commit_all", "copy_project", "edit", "exec_plug_file", "git", "init_repo", "repo_from"]

#: the fixture project used by the bundle snapshots and by every git-based review test
BUNDLE_SHOP = Path(__file__).resolve().parent.parent / "compiler" / "data" / "bundle_shop"

_BUILD_LITTER = ("build", ".loom-cache", "__pycache__")


def copy_project(source: Path, root: Path) -> Path:
    """A copy of a fixture project at ``root``, without build output or caches."""
    shutil.copytree(source, root, ignore=shutil.ignore_patterns(*_BUILD_LITTER))
    return root


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def edit(path: Path, old: str, new: str) -> None:
    """Replace ``old`` by ``new`` in a file; fails loudly if ``old`` is not there (an edit that
    silently does nothing would make the test assert on unchanged code)."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def exec_plug_file(project: Path) -> None:
    """A copy of the bundle shop whose checkout flow calls ``plug()``, a helper that executes the
    project file ``shop/plug.txt`` (``V = 1``), no module (F10: code loaded by path is hashed by its
    bytes, outside the walk of modules)."""
    (project / "shop/plug.txt").write_text("V = 1\n")
    (project / "shop/plugload.py").write_text(
        "import os\n\n\ndef plug():\n    ns = {}\n    exec(open(os.path.join(os.path.dirname(__file__), 'plug.txt')).read(), ns)\n"
        "    return ns['V']\n")
    edit(project / "shop/flows.py", '    ctx.execute("ship", ship', '    plug()\n    ctx.execute("ship", ship')
    edit(project / "shop/flows.py", "from shop.steps import charge, reserve, ship\n",
         "from shop.steps import charge, reserve, ship\nfrom shop.plugload import plug\n")


def init_repo(top: Path) -> None:
    """``git init`` an existing directory on branch ``main`` with a test identity."""
    git(top, "init", "-q", "-b", "main")
    git(top, "config", "user.name", "Loom Test")
    git(top, "config", "user.email", "loom@example.invalid")
    git(top, "config", "commit.gpgsign", "false")


def commit_all(top: Path, message: str, tag: str | None = None) -> None:
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", message)
    if tag:
        git(top, "tag", tag)


def repo_from(source: Path, root: Path, *, tag: str = "v1") -> Path:
    """A copy of ``source`` at ``root`` (build output left out and ignored), committed and tagged."""
    copy_project(source, root)
    (root / ".gitignore").write_text("".join(f"{name}/\n" for name in _BUILD_LITTER))
    init_repo(root)
    commit_all(root, tag, tag)
    return root
