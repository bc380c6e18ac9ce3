"""Helpers for the example tests."""

from __future__ import annotations

from pathlib import Path

from loom_compiler.bundle.build import build_project
from loom_compiler.config import load_config
from loom_runtime import Registry


def build(root: Path) -> Registry:
    """``loom build`` the project; a registry over what it wrote."""
    report = build_project(load_config(root), use_cache=False)
    assert report.ok, report.errors
    return Registry.from_manifest(report.manifest_path)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path} no longer contains {old!r}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
