"""Fixtures for the packaging tests; the helpers live in ``packaging_helpers``."""

from __future__ import annotations

from pathlib import Path

import pytest

from packaging_helpers import Venv, make_venv


@pytest.fixture
def venv(tmp_path: Path) -> Venv:
    """A fresh virtualenv (no pip, loom-toolchain from the repository via a .pth line)."""
    return make_venv(tmp_path / "venv")
