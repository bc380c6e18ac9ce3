"""``output_lock``: writers of one output directory take turns, from any checkout.

The regression: two checkouts (two CI jobs, two worktrees) building into one ``--out`` at the same
time each merged into the manifest they read and dropped the other's new version (13 of 33 rounds),
because each locked a file under its own ``.loom-cache``. Real processes, real concurrent builds.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from loom_compiler.bundle.output_lock import output_lock
from loom_runtime.hashing import sha256_digest
from loom_runtime.manifest import load_manifest

from helpers.git_repo import copy_project, edit

DATA = Path(__file__).parent / "data" / "bundle_shop"


def _build(root: Path, out: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    return subprocess.Popen([sys.executable, "-m", "loom_compiler", "build", str(root), "--out", str(out), "-q"],
                            cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_two_checkouts_building_into_one_out_never_lose_a_version(tmp_path: Path):
    out = tmp_path / "shared-out"
    checkouts = [copy_project(DATA, tmp_path / name) for name in ("a", "b")]
    rates = {checkouts[0]: "90", checkouts[1]: "90"}
    expected_rounds = 4
    for round_no in range(expected_rounds):
        for i, root in enumerate(checkouts):
            new = str(10 + round_no * 2 + i)
            edit(root / "shop/pricing.py", f"RATE = {rates[root]}", f"RATE = {new}")
            rates[root] = new
        procs = [_build(root, out) for root in checkouts]  # started together: the builds overlap
        for p in procs:
            _, err = p.communicate(timeout=120)
            assert p.returncode == 0, err
    manifest = load_manifest(out / "manifest.json")
    versions = manifest.flows["checkout"].versions
    assert len(versions) == 2 * expected_rounds, "a concurrent build dropped another checkout's version"
    for v in versions.values():
        assert sha256_digest((out / v.chunk).read_bytes()) == v.chunk_digest


def test_the_lock_is_the_directory_and_leaves_nothing_in_it(tmp_path: Path):
    out = tmp_path / "out"
    entered = threading.Event()

    def second() -> None:
        with output_lock(out):
            entered.set()

    with output_lock(out):
        t = threading.Thread(target=second)
        t.start()
        assert not entered.wait(0.5)  # another descriptor on the same directory waits
    t.join(10)
    assert entered.is_set() and list(out.iterdir()) == []


def test_a_holder_that_dies_releases_the_lock(tmp_path: Path):
    out = tmp_path / "out"
    code = ("import sys, time\nfrom loom_compiler.bundle.output_lock import output_lock\n"
            f"with output_lock({str(out)!r}):\n    print('held', flush=True)\n    time.sleep(60)\n")
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)})
    try:
        assert holder.stdout.readline().strip() == "held"
        holder.kill()
        holder.wait(10)
        done = threading.Event()

        def take() -> None:
            with output_lock(out):
                done.set()

        threading.Thread(target=take, daemon=True).start()
        assert done.wait(10), "the lock of a killed holder was never released"
    finally:
        holder.kill()
