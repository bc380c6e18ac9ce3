"""Progress bar on a terminal only, and the summary line."""

from __future__ import annotations

import io

from loom_compiler.bundle.progress import (
    BuildSummary,
    NullProgress,
    RefSummary,
    TerminalProgress,
    format_summary,
    make_progress,
)


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_bar_is_drawn_on_a_terminal_outside_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    stream = Tty()
    assert isinstance(make_progress(stream), TerminalProgress)
    progress = TerminalProgress(stream, interval=0.0)
    progress.start("loom build", 4)
    for _ in range(4):
        progress.advance()
    progress.finish()
    out = stream.getvalue()
    assert out.startswith("\rloom build [") and out.endswith("] 4/4\n")


def test_a_short_build_draws_nothing():
    stream = Tty()
    progress = TerminalProgress(stream, delay=60.0)
    progress.start("loom build", 2)
    progress.advance(2)
    progress.finish()
    assert stream.getvalue() == ""


def test_quiet_when_piped_or_in_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    assert isinstance(make_progress(io.StringIO()), NullProgress)
    monkeypatch.setenv("CI", "true")
    assert isinstance(make_progress(Tty()), NullProgress)


def test_summary_names_flows_versions_errors_and_time():
    s = BuildSummary(flows=3, new_versions=1, unchanged=2, removed=1, errors=0, seconds=1.234,
                     modules_parsed=5, modules_cached=7, changed=1)
    assert format_summary(s) == (
        "loom build: 3 flows (1 changed, 2 unchanged), 1 new version, 1 removed, 0 errors in 1.23s "
        "(12 modules: 5 parsed, 7 from cache)"
    )
    refs = BuildSummary(flows=2, new_versions=3, unchanged=0, removed=0, errors=0, seconds=0.5, modules_parsed=4,
                        modules_cached=0, new_flows=2, from_history=1, refs=(RefSummary("v1.0", 4, 1),))
    assert format_summary(refs) == (
        "loom build: 2 flows (2 new), 3 new versions (1 from history refs), 0 errors in 0.50s "
        "(4 modules: 4 parsed, 0 from cache; at v1.0 4 modules: 1 parsed, 3 from cache)"
    )
