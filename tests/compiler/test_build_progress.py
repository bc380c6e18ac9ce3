"""Progress bar on a terminal only, and the summary line."""

from __future__ import annotations

import io

from loom_compiler.bundle.progress import BuildSummary, NullProgress, TerminalProgress, format_summary, make_progress


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
                     modules_parsed=5, modules_cached=7)
    assert format_summary(s) == (
        "loom build: 3 flows, 1 new version, 2 unchanged, 1 removed, 0 errors in 1.23s (5 modules parsed, 7 from cache)"
    )
