"""Helpers (shared by tests/packaging and tests/examples) for building real wheels of the examples and running them from a fresh virtualenv.

Builds use ``pip wheel --no-build-isolation --no-deps --no-index`` with the interpreter running the
tests, so the backends (hatchling, setuptools) and the loom hooks come from this environment and
no network is needed. The target virtualenv is created ``--without-pip`` (fast) and sees
loom-toolchain through a ``.pth`` line naming the repository: ``loom_runtime`` is standard library
only, which is exactly what an installed service needs. Wheels are installed into it with this
environment's pip (``pip --python``), and code runs there in a subprocess whose working directory
is outside every project copy, so ``import shop`` can only find the installed package.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
IGNORE = shutil.ignore_patterns("build", "dist", ".loom-cache", "__pycache__", "_loom", "*.egg-info")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def run(args: list[str], *, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=300)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, args))} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def copy_example(name: str, dest: Path) -> Path:
    shutil.copytree(EXAMPLES / name, dest, ignore=IGNORE)
    return dest


def build_wheel(project: Path, out: Path) -> Path:
    """``pip wheel`` the project into ``out`` (fresh); return the one wheel it made."""
    out.mkdir(parents=True)
    run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index", "-w", str(out),
         str(project)], cwd=project.parent)
    (wheel,) = out.glob("*.whl")
    return wheel


def pep517(project: Path, backend: str, hook: str, out: Path) -> Path:
    """Call ``backend``'s PEP 517 ``hook`` (``build_sdist``/``build_wheel``) from ``project`` in a subprocess.

    This is what ``python -m build --no-isolation`` does for each artefact (``build`` itself is not
    a test dependency); return the artefact the hook named.
    """
    out.mkdir(parents=True, exist_ok=True)
    code = f"import {backend} as backend; print(backend.{hook}({str(out)!r}))"
    name = run([sys.executable, "-c", code], cwd=project).stdout.strip().splitlines()[-1]
    return out / name


def unpack_sdist(sdist: Path, dest: Path) -> tuple[Path, list[str]]:
    """Extract ``sdist`` into ``dest``; return its top directory and its files relative to it."""
    with tarfile.open(sdist) as tar:
        members = sorted(m.name.split("/", 1)[1] for m in tar.getmembers() if m.isfile())
        top = tar.getmembers()[0].name.split("/")[0]
        tar.extractall(dest, filter="data")
    return dest / top, members


def wheel_names(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as zf:
        return zf.namelist()


def wheel_json(wheel: Path, name: str) -> dict:
    with zipfile.ZipFile(wheel) as zf:
        return json.loads(zf.read(name))


class Venv:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.python = path / "bin" / "python"

    def install(self, wheel: Path) -> None:
        run([sys.executable, "-m", "pip", "--python", str(self.python), "install", "--no-deps", "--no-index",
             "--force-reinstall", "--quiet", str(wheel)], cwd=self.path)

    def run_json(self, code: str, *, cwd: Path) -> dict:
        """Run ``code`` in the venv; its last stdout line is JSON."""
        proc = run([str(self.python), "-c", code], cwd=cwd)
        return json.loads(proc.stdout.strip().splitlines()[-1])


def make_venv(path: Path) -> Venv:
    run([sys.executable, "-m", "venv", "--without-pip", str(path)], cwd=path.parent)
    venv = Venv(path)
    purelib = run([str(venv.python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                  cwd=path.parent).stdout.strip()
    assert sysconfig.get_paths()["purelib"] != purelib
    Path(purelib, "loom_toolchain_repo.pth").write_text(str(REPO) + "\n", encoding="utf-8")
    return venv
