"""Fixtures of the compiler tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The modules ``analyse_module`` parses from now on, in order (what a test of "which modules
    were parsed" asserts): the build, ``fingerprint_tree`` and ``fingerprint_project`` all count."""
    calls: list[str] = []
    from loom_compiler import analysis, fingerprint

    real = analysis.analyse_module

    def spy(data, *, module, path, config=None, **kw):  # noqa: ANN001, ANN202
        calls.append(module)
        return real(data, module=module, path=path, config=config, **kw)

    monkeypatch.setattr(analysis, "analyse_module", spy)
    monkeypatch.setattr(fingerprint, "analyse_module", spy)  # fingerprint_project's own import
    return calls
