"""Fixtures for the example tests: a built copy of an example, importable in this process."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from loom_compiler.config import load_config
from loom_runtime.chunks import CHUNK_NAMESPACE

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], Path]]:
    """``example("shop")``: a copy of examples/shop on sys.path (modules it imports are dropped after)."""
    before = set(sys.modules)
    packages: list[str] = []

    def make(name: str) -> Path:
        root = tmp_path / name
        shutil.copytree(EXAMPLES / name, root, ignore=shutil.ignore_patterns("build", ".loom-cache", "__pycache__", "_loom"))
        packages.extend(load_config(root).packages)
        monkeypatch.syspath_prepend(str(root))
        return root

    yield make
    for module in set(sys.modules) - before:
        if module.split(".")[0] in packages or module.startswith(CHUNK_NAMESPACE + "."):
            del sys.modules[module]
