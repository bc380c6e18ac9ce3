"""Helpers for the Temporal and DBOS example tests: fingerprint a copy, edit one member, compare."""

from __future__ import annotations

import shutil
from pathlib import Path

from loom_compiler.config import load_config
from loom_compiler.fingerprint import fingerprint_project

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def copy_example(name: str, into: Path) -> Path:
    root = into / name
    shutil.copytree(EXAMPLES / name, root, ignore=shutil.ignore_patterns("build", ".loom-cache", "__pycache__", "_loom"))
    return root


def hashes(root: Path) -> dict[str, str]:
    """flow id -> codeHash of the project at ``root`` (its own [tool.loom], framework included)."""
    config = load_config(root)
    result = fingerprint_project([config.root], config)
    assert result.ok, result.errors
    return {f.flow_id: f.code_hash for f in result.flows}


def changed_by(root: Path, rel: str, old: str, new: str) -> set[str]:
    """The flows whose codeHash an edit of ``rel`` (``old`` -> ``new``, once) changes; undone after."""
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{rel} must contain {old!r} exactly once"
    before = hashes(root)
    path.write_text(text.replace(old, new), encoding="utf-8")
    try:
        after = hashes(root)
    finally:
        path.write_text(text, encoding="utf-8")
    assert set(before) == set(after)
    return {flow for flow in before if before[flow] != after[flow]}
