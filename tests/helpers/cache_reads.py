"""A fixture recording what a build reads back from ``.loom-cache`` (shared by the build-record
and head-entry tests, which assert which entries a rebuild decodes)."""

from __future__ import annotations

from typing import Any

import pytest

from loom_compiler.bundle import cache as cache_module


@pytest.fixture
def decoded(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The value type of every cache entry read back (``cache.decode_entry``), in order."""
    types: list[Any] = []
    real = cache_module.decode_entry

    def spy(key: str, data: bytes, value_type: Any, **kw: Any) -> Any:
        types.append(value_type)
        return real(key, data, value_type, **kw)

    monkeypatch.setattr(cache_module, "decode_entry", spy)
    return types
