"""A real git repository holding the bundle_shop fixture project (v1 committed and tagged)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.git_repo import BUNDLE_SHOP, repo_from


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return repo_from(BUNDLE_SHOP, tmp_path / "repo")
