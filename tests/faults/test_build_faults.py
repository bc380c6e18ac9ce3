"""``loom build`` killed (SIGKILL) at every write it makes, and at random moments.

The build's promise: the manifest on disk is always a whole manifest — the previous one or the new
one, byte for byte — and every chunk it names is there with its digest; the next build finishes
the job. Checked after each kill point, by a real process killed by the kernel (``kill_at.py``).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from loom_compiler.bundle.build import build_project
from loom_compiler.config import load_config
from loom_runtime.hashing import sha256_digest
from loom_runtime.manifest import load_manifest

from helpers.git_repo import BUNDLE_SHOP, copy_project, edit

KILL_AT = Path(__file__).with_name("kill_at.py")
pytestmark = pytest.mark.slow


def _intact(out: Path, allowed: tuple[bytes, ...]) -> bytes:
    """The manifest is one of ``allowed`` exactly, loads, and every chunk it names is whole."""
    manifest = out / "manifest.json"
    data = manifest.read_bytes()
    assert data in allowed, "the manifest is neither the previous one nor the new one"
    doc = load_manifest(manifest)
    for flow in doc.flows.values():
        for v in flow.versions.values():
            chunk = out / v.chunk
            assert chunk.is_file(), f"{v.chunk} named by the manifest is missing"
            assert sha256_digest(chunk.read_bytes()) == v.chunk_digest, f"{v.chunk} does not match its digest"
    return data


def _build_in(root: Path, kill_at: int, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(KILL_AT), str(kill_at), str(root / ".writes"), "--", "build", "-q", *extra],
                          cwd=root, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def prepared(tmp_path_factory) -> tuple[Path, bytes, bytes, int]:
    """A project built at v1 and then edited (the build to kill adds v2); the two manifests and
    the number of writes the unkilled build makes."""
    base = tmp_path_factory.mktemp("build-faults")
    root = copy_project(BUNDLE_SHOP, base / "template")
    assert build_project(load_config(root)).ok
    before = (root / "build/loom/manifest.json").read_bytes()
    edit(root / "shop/pricing.py", "RATE = 90", "RATE = 70")
    probe = base / "probe"
    shutil.copytree(root, probe)
    done = _build_in(probe, 0)
    assert done.returncode == 0, done.stderr
    after = (probe / "build/loom/manifest.json").read_bytes()
    assert after != before
    return root, before, after, int((probe / ".writes").read_text())


def test_killed_at_every_write_the_previous_manifest_or_the_new_one_stands(prepared, tmp_path: Path):
    template, before, after, writes = prepared
    assert writes >= 10  # cache entries, chunks, their fsyncs, the manifest: every one is a kill point
    seen = set()
    for n in range(1, writes + 1):
        root = tmp_path / f"kill-{n}"
        shutil.copytree(template, root)
        done = _build_in(root, n)
        assert done.returncode == -signal.SIGKILL, (n, done.returncode, done.stderr)
        seen.add(_intact(root / "build/loom", (before, after)))
        again = build_project(load_config(root))  # the next build finishes the job
        assert again.ok, again.errors
        assert _intact(root / "build/loom", (after,)) == after
        shutil.rmtree(root)
    assert seen == {before, after}  # the kill points reach both sides of the manifest's rename


def test_killed_at_random_moments_including_parallel_parsing(prepared, tmp_path: Path):
    template, before, after, _ = prepared
    rng = random.Random(14)
    started = time.perf_counter()
    probe = _build_in(Path(shutil.copytree(template, tmp_path / "timing")), 0)
    assert probe.returncode == 0
    duration = time.perf_counter() - started
    for i in range(12):
        root = tmp_path / f"random-{i}"
        shutil.copytree(template, root)
        extra = ("--jobs", "2", "--no-cache") if i % 2 else ()
        proc = subprocess.Popen([sys.executable, str(KILL_AT), "0", str(root / ".writes"), "--", "build", "-q", *extra],
                                cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        time.sleep(rng.uniform(0.05, duration * 1.2))
        os.killpg(proc.pid, signal.SIGKILL)  # the build and any parse workers it forked
        proc.wait(30)
        _intact(root / "build/loom", (before, after))
        assert build_project(load_config(root)).ok
        assert _intact(root / "build/loom", (after,)) == after
        shutil.rmtree(root)
