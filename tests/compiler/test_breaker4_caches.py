"""The session-5 caches attacked from outside (breaker4): a cached answer must be the answer.

``loom fingerprint``'s whole-project report (``bundle.tree_report``) is driven through the real
CLI in subprocesses: a warm run, an edit the report's key might miss, then the run under test,
compared with a run of the same tree that has no cache at all. And the build's ``GraphMemo``
(``closure``: one per build, shared by every flow module's graph): a flow's hash must not depend
on which other flows the build fingerprinted with it.

These held when written (the findings of the same round are the strict xfails in
``fp2_cases_adversarial``, ``E<n>``); they guard the directions an optimisation of either cache
would be tempted to cut.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from helpers.git_repo import copy_project, edit
from helpers.project_files import write_files

from loom_compiler import LoomConfig, fingerprint_project
from loom_compiler.bundle.build import build_project

DATA = Path(__file__).parent / "data" / "bundle_shop"
LOOM = [sys.executable, "-m", "loom_compiler"]


def _loom(root: Path, *args: str) -> tuple[str, str, int]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "COVERAGE_PROCESS_START")}
    done = subprocess.run([*LOOM, "fingerprint", str(root), *args], capture_output=True, text=True, env=env,
                          cwd=root, timeout=120)
    return done.stdout, done.stderr, done.returncode


def _uncached(root: Path, *args: str) -> tuple[str, str, int]:
    """The same command on the same tree with no ``.loom-cache`` at all (the cache is moved aside
    and put back, so the run under test is not disturbed)."""
    cache, aside = root / ".loom-cache", root / ".loom-cache.aside"
    if cache.exists():
        cache.rename(aside)
    try:
        return _loom(root, *args)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        if aside.exists():
            aside.rename(cache)


def _served_after(root: Path, change: Callable[[Path], None], *args: str) -> tuple[tuple[str, str, int], tuple[str, str, int], tuple[str, str, int]]:
    """(the warm report before ``change``, the cached run after it, an uncached run after it)."""
    before = _loom(root, *args)
    assert _loom(root, *args) == before  # served
    change(root)
    return before, _loom(root, *args), _uncached(root, *args)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(DATA, tmp_path / "bundle_shop")


def _checkout(out: str) -> str:
    return next(line.split()[3] for line in out.splitlines() if line.split()[:1] == ["checkout"])


@pytest.mark.slow
def test_a_symlinked_module_edited_behind_its_link_with_its_size_and_mtime_kept(project: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere" / "util.py"
    target.parent.mkdir()
    shutil.move(project / "shop/util.py", target)
    os.symlink(target, project / "shop/util.py")

    def change(_root: Path) -> None:
        st = os.stat(target)
        edit(target, "return 1", "return 7")  # same size
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))

    before, cached, fresh = _served_after(project, change)
    assert cached == fresh and _checkout(cached[0]) != _checkout(before[0])


@pytest.mark.slow
def test_a_module_turned_into_a_package_and_a_package_shadowing_a_module(project: Path) -> None:
    def to_package(root: Path) -> None:
        text = (root / "shop/util.py").read_text()
        (root / "shop/util.py").unlink()
        write_files(root, {"shop/util/__init__.py": text.replace("return 1", "return 4")})

    before, cached, fresh = _served_after(project, to_package)
    assert cached == fresh and _checkout(cached[0]) != _checkout(before[0])

    def shadow(root: Path) -> None:  # a package beside the module file: Python imports the package
        (root / "shop/util/__init__.py").rename(root / "shop/util.py")
        write_files(root, {"shop/util/__init__.py": (root / "shop/util.py").read_text().replace("return 4", "return 5")})

    before, cached, fresh = _served_after(project, shadow)
    assert cached == fresh and _checkout(cached[0]) != _checkout(before[0])


@pytest.mark.slow
def test_a_module_of_a_symlinked_directory_the_walk_does_not_enter(project: Path, tmp_path: Path) -> None:
    # os.walk does not follow a directory link: the module is outside the walk, read by the closure
    outside = tmp_path / "outside"
    write_files(outside, {"__init__.py": "", "h.py": "def bonus():\n    return 1\n"})
    os.symlink(outside, project / "shop/sub")
    edit(project / "shop/flows.py", "import shop.util as u\n", "import shop.util as u\nfrom shop.sub.h import bonus\n")
    edit(project / "shop/flows.py", "+ u.fee(0)", "+ u.fee(0) + bonus()")
    before, cached, fresh = _served_after(project, lambda _root: edit(outside / "h.py", "return 1", "return 2"))
    assert cached == fresh and _checkout(cached[0]) != _checkout(before[0])


@pytest.mark.slow
def test_a_flag_on_the_command_line_is_part_of_the_report(project: Path) -> None:
    write_files(project, {"shop/extra.py": "from shop.deco import job\n\n\n@job\ndef nightly(ctx, x):\n    return x\n",
                          "shop/deco.py": "def job(fn):\n    return fn\n"})
    plain = _loom(project)
    assert "nightly" not in plain[0]
    flagged = _loom(project, "--decorator", "shop.deco.job")
    assert flagged == _uncached(project, "--decorator", "shop.deco.job") and "nightly" in flagged[0]
    assert _loom(project) == plain  # each report under its own key


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["truncated", "garbage", "fifo", "directory", "device"])
def test_a_damaged_report_entry_is_a_miss(project: Path, damage: str) -> None:
    first = _loom(project)
    entries = project / ".loom-cache" / "entries"
    (report,) = [p for p in entries.iterdir() if b"CODEHASH" in p.read_bytes()]
    data = report.read_bytes()
    report.unlink()
    if damage == "truncated":
        report.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        report.write_bytes(b"\xff\xfe" * 64)
    elif damage == "fifo":
        os.mkfifo(report)  # refused, never waited on
    elif damage == "directory":
        report.mkdir()
    else:
        os.symlink("/dev/zero", report)  # never streamed
    assert _loom(project) == first


GRAPH_SHARED = {
    "shop/__init__.py": "",
    # statements abroad (a store into another module's object) and import prefixes (a.b.c): what
    # GraphMemo keeps per summary and hands to every flow module's graph of the build
    "shop/reg.py": "HANDLERS = {}\nRATE = 1\n",
    "shop/wire.py": "import shop.reg\nfrom shop.a.b import c\n\nshop.reg.RATE = 3\nshop.reg.HANDLERS['c'] = c.handle\n",
    "shop/a/__init__.py": "", "shop/a/b/__init__.py": "",
    "shop/a/b/c.py": "def handle(x):\n    return x * 2\n",
    "shop/one.py": ("from loom_runtime import flow\nimport shop.wire\nfrom shop import reg\n\n\n@flow(\"one\")\n"
                    "def one(ctx, o):\n    return reg.RATE\n"),
    "shop/two.py": ("from loom_runtime import flow\nimport shop.wire\nfrom shop import reg\n\n\n@flow(\"two\")\n"
                    "def two(ctx, o):\n    return reg.HANDLERS['c'](o)\n"),
    "shop/three.py": ("from loom_runtime import flow\nfrom shop import reg\n\n\n@flow(\"three\")\n"
                      "def three(ctx, o):\n    return reg.RATE\n"),
}


def _built(root: Path, exclude: tuple[str, ...] = ()) -> dict[str, str]:
    report = build_project(LoomConfig(root=root, packages=("shop",), exclude=exclude), use_cache=False)
    assert report.ok, report.errors
    return {f.flow_id: f.code_hash for f in report.flows}


@pytest.mark.slow
def test_a_flows_hash_does_not_depend_on_the_other_flows_of_the_build(tmp_path: Path) -> None:
    root = tmp_path / "p"
    write_files(root, GRAPH_SHARED)
    together = _built(root)
    assert set(together) == {"one", "two", "three"}
    whole = fingerprint_project([root], LoomConfig(root=root, packages=("shop",)))  # one graph for every flow
    assert {f.flow_id: f.code_hash for f in whole.flows} == together
    flows = ("shop/one.py", "shop/two.py", "shop/three.py")
    for own in flows:  # each flow module alone in the walk (the others still import as before)
        alone = _built(root, exclude=tuple(f for f in flows if f != own))
        (flow_id,) = alone
        assert alone[flow_id] == together[flow_id], own
    # and what wire stores still moves the flow that reads it, whichever flows are built with it
    edited = tmp_path / "q"
    write_files(edited, {**GRAPH_SHARED, "shop/wire.py": GRAPH_SHARED["shop/wire.py"].replace("RATE = 3", "RATE = 4")})
    assert _built(edited)["one"] != together["one"]
    assert _built(edited, exclude=("shop/two.py", "shop/three.py"))["one"] != together["one"]
