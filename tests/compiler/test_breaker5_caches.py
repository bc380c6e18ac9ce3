"""The build's caches attacked from outside (breaker5, session 6): after a warm build and a change,
``loom build`` (whatever it serves: a summary entry, a head entry, perfC's whole-build record) must
write what an uncached build of the same state writes: the same manifest currents and the same
chunk bytes. The reference is a copy of the state taken just before the cached build, without its
``.loom-cache``, built with ``use_cache=False``.

The changes are those a cache key might miss: an edit keeping size and mtime, two files swapped, an
output chunk deleted or edited, cache entries truncated, a ``pyproject.toml`` change (packages,
exclude, framework, out), a module the closure reaches outside the walk (excluded, under a skipped
``venv/`` directory, a symlink whose target lies outside the tree, a symlink pointed elsewhere), a
package appearing over a same-named module, a module deleted, a module appearing where an import
named an absent one, and (F5) a damaged entry whose JSON stays valid: a miss, never the answer."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.project_files import write_files

from loom_compiler.bundle.build import build_project
from loom_compiler.config import load_config

HEAD = "from loom_runtime import flow\n"
PYPROJECT = "[project]\nname = 'x'\n\n[tool.loom]\npackages = ['shop']\n"
FLOWS = HEAD + "from shop.pricing import discount\n\n\n@flow('checkout')\ndef checkout(ctx, o):\n    return discount(o)\n"
PRICING = "RATE = 1\n\n\ndef discount(x):\n    return x * RATE\n"
BASE = {"pyproject.toml": PYPROJECT, "shop/__init__.py": "", "shop/flows.py": FLOWS, "shop/pricing.py": PRICING,
        "shop/other.py": "X = 1\n", "shop/flows2.py": HEAD + "\n\n@flow('two')\ndef two(ctx, o):\n    return 2\n"}


def _reads(extra: str) -> str:
    return FLOWS.replace("return discount(o)", extra)


def _keep_stat(path: Path, old: str, new: str) -> None:
    st = path.stat()
    text = path.read_text()
    assert old in text and len(old) == len(new)
    path.write_text(text.replace(old, new, 1))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _swap(root: Path) -> None:
    a, b = root / "shop/pricing.py", root / "shop/other.py"
    ta, tb = a.read_text(), b.read_text()
    a.write_text(tb)
    b.write_text(ta)


def _chunks(root: Path) -> list[Path]:
    return sorted((root / "build/loom/chunks").rglob("*.py"))


def _edit_chunks(root: Path) -> None:
    edited = [p for p in _chunks(root) if "RATE = 1" in p.read_text()]
    assert edited
    for p in edited:
        _keep_stat(p, "RATE = 1", "RATE = 9")


def _entries(root: Path) -> list[Path]:
    return [p for p in (root / ".loom-cache").rglob("*") if p.is_file()]


def _outside(root: Path, name: str, rate: int) -> Path:
    target = root.parent / name
    target.write_text(PRICING.replace("RATE = 1", f"RATE = {rate}"))
    return target


def _link(root: Path, target: Path) -> None:
    (root / "shop/pricing.py").unlink()
    (root / "shop/pricing.py").symlink_to(target)


def _pyproject(extra: str) -> Callable[[Path], None]:
    return lambda root: (root / "pyproject.toml").write_text(PYPROJECT + extra)


#: name -> (what the project holds before the warm build, the change)
CHANGES: dict[str, tuple[Callable[[Path], None] | None, Callable[[Path], None]]] = {
    "edit-keeping-size-and-mtime": (None, lambda root: _keep_stat(root / "shop/pricing.py", "RATE = 1", "RATE = 2")),
    "two-files-swapped": (None, _swap),
    "output-chunk-deleted": (None, lambda root: [p.unlink() for p in _chunks(root)]),
    "output-chunk-edited-keeping-size-and-mtime": (None, _edit_chunks),
    "cache-entries-truncated": (None, lambda root: [p.write_bytes(b"") for p in _entries(root)]),
    "pyproject-packages-added": (None, lambda root: (
        (root / "pyproject.toml").write_text(PYPROJECT.replace("['shop']", "['shop', 'extra']")),
        write_files(root, {"extra/__init__.py": "", "extra/flows.py": HEAD + "\n\n@flow('x2')\ndef x2(ctx, o):\n    return 1\n"}))),
    "pyproject-exclude-added": (None, _pyproject("exclude = ['shop/flows2.py']\n")),
    "pyproject-framework-changed": (None, _pyproject("framework = 'prefect'\n")),
    "pyproject-out-changed": (None, _pyproject("out = 'build/loom2'\n")),
    "excluded-module-the-closure-reaches-edited": (
        lambda root: (write_files(root, {"shop/gen.py": "G = 1\n", "shop/flows.py": _reads("from shop.gen import G\n    return discount(o) + G")}),
                      _pyproject("exclude = ['shop/gen.py']\n")(root)),
        lambda root: (root / "shop/gen.py").write_text("G = 2\n")),
    "module-under-a-skipped-venv-directory-edited": (
        lambda root: write_files(root, {"shop/venv/__init__.py": "", "shop/venv/g.py": "G = 1\n",
                                        "shop/flows.py": _reads("from shop.venv.g import G\n    return discount(o) + G")}),
        lambda root: (root / "shop/venv/g.py").write_text("G = 2\n")),
    "symlinked-module-target-outside-the-tree-edited": (
        lambda root: _link(root, _outside(root, "outside.py", 1)), lambda root: _outside(root, "outside.py", 3)),
    "symlinked-module-pointed-elsewhere": (
        lambda root: (_outside(root, "o2.py", 5), _link(root, _outside(root, "o1.py", 1))),
        lambda root: _link(root, root.parent / "o2.py")),
    "package-appearing-over-a-same-named-module": (
        None, lambda root: write_files(root, {"shop/pricing/__init__.py": PRICING.replace("RATE = 1", "RATE = 7")})),
    "module-deleted": (None, lambda root: (root / "shop/other.py").unlink()),
    "absent-module-an-import-names-appearing": (
        lambda root: write_files(root, {"shop/flows.py": _reads("from shop.ghost import V\n    return V")}),
        lambda root: write_files(root, {"shop/ghost.py": "V = 1\n"})),
}


def _outcome(root: Path) -> tuple[object, dict[str, str]]:
    config = load_config(root)
    manifest = root / config.out / "manifest.json"
    currents = sorted((f, v.get("current")) for f, v in json.loads(manifest.read_text())["flows"].items()) \
        if manifest.exists() else None
    out = root / config.out
    files = {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
             for p in sorted(out.rglob("*")) if p.is_file()} if out.exists() else {}
    return currents, files


def _cached_and_uncached(tmp_path: Path, prepare: Callable[[Path], None] | None,
                         change: Callable[[Path], None]) -> tuple[tuple[bool, object], tuple[bool, object]]:
    root = tmp_path / "proj"
    write_files(root, BASE)
    if prepare:
        prepare(root)
    assert build_project(load_config(root)).ok
    assert build_project(load_config(root)).ok  # warm: served from what the first build left
    change(root)
    ref = tmp_path / "ref"
    shutil.copytree(root, ref, symlinks=True, ignore=shutil.ignore_patterns(".loom-cache"))
    cached = build_project(load_config(root))
    uncached = build_project(load_config(ref), use_cache=False)
    return (cached.ok, _outcome(root)), (uncached.ok, _outcome(ref))


@pytest.mark.parametrize("name", list(CHANGES))
def test_a_cached_build_after_a_change_writes_what_an_uncached_one_does(tmp_path: Path, name: str) -> None:
    prepare, change = CHANGES[name]
    cached, uncached = _cached_and_uncached(tmp_path, prepare, change)
    assert cached == uncached


def _flip_rate(root: Path) -> None:
    """``RATE = 1`` -> ``RATE = 0`` in every entry holding it (one bit: the JSON stays valid), and
    the output removed so the next build writes its chunks again."""
    flipped = 0
    for p in _entries(root):
        data = p.read_bytes()
        if b"RATE = 1" in data:
            p.write_bytes(data.replace(b"RATE = 1", b"RATE = 0"))
            flipped += 1
    assert flipped
    shutil.rmtree(root / "build")


def test_a_damaged_cache_entry_is_not_served(tmp_path: Path) -> None:
    cached, uncached = _cached_and_uncached(tmp_path, None, _flip_rate)
    assert cached == uncached
