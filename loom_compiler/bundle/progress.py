"""Progress on a terminal, silence in CI, one summary line at the end.

The bar is drawn on stderr only when stderr is a TTY and ``CI`` is unset (CI logs would otherwise
fill with carriage-return frames); it redraws at most ten times a second so a fast build spends no
time printing. The summary is a value (``BuildSummary``) rendered by ``format_summary`` so the CLI,
a build hook and tests all print the same line.

Rejected: a dependency such as ``tqdm``/``rich`` for one line of output, and click's progress bar
(click stays in ``loom_compiler.commands``).
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from typing import TextIO

__all__ = ["Progress", "NullProgress", "TerminalProgress", "make_progress", "BuildSummary", "format_summary"]


class Progress:
    """Interface: ``start(label, total)``, ``advance(n, total=None)``, ``finish()``."""

    def start(self, label: str, total: int) -> None: ...

    def advance(self, n: int = 1, *, total: int | None = None) -> None: ...

    def finish(self) -> None: ...


class NullProgress(Progress):
    pass


class TerminalProgress(Progress):
    def __init__(self, stream: TextIO, *, width: int = 28, interval: float = 0.1, delay: float = 0.0) -> None:
        self.stream = stream
        self.width = width
        self.interval = interval
        self.delay = delay  # a build that finishes sooner never shows a bar
        self._started = time.monotonic()
        self.label = ""
        self.total = 0
        self.done = 0
        self._last = 0.0
        self._drawn = False

    def start(self, label: str, total: int) -> None:
        self.label, self.total, self.done = label, total, 0
        self._started = time.monotonic()
        self._draw()

    def advance(self, n: int = 1, *, total: int | None = None) -> None:
        self.done += n
        if total is not None:
            self.total = total
        self._draw()

    def finish(self) -> None:
        if self._drawn:
            self._draw(force=True)
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False

    def _draw(self, *, force: bool = False) -> None:
        now = time.monotonic()
        if not force and (now - self._last < self.interval or now - self._started < self.delay or not self.total):
            return
        self._last = now
        total = max(self.total, self.done, 1)
        filled = int(self.width * self.done / total)
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {self.done}/{total}")
        self.stream.flush()
        self._drawn = True


def make_progress(stream: TextIO | None = None, *, enabled: bool | None = None) -> Progress:
    """A bar on an interactive stderr, nothing in CI or when piped."""
    stream = stream if stream is not None else sys.stderr
    if enabled is None:
        enabled = bool(getattr(stream, "isatty", lambda: False)()) and not os.environ.get("CI")
    return TerminalProgress(stream, delay=0.5) if enabled else NullProgress()


@dataclass(frozen=True, slots=True)
class BuildSummary:
    flows: int
    new_versions: int
    unchanged: int
    removed: int
    errors: int
    seconds: float
    modules_parsed: int
    modules_cached: int
    #: new versions that are an earlier scheme's code under a new hash (``rehash``)
    rehashed: int = 0


def format_summary(s: BuildSummary) -> str:
    parts = [
        f"{s.flows} flow{'s' if s.flows != 1 else ''}",
        f"{s.new_versions} new version{'s' if s.new_versions != 1 else ''}"
        + (f" ({s.rehashed} rehashed: the same code under a new fingerprint scheme)" if s.rehashed else ""),
        f"{s.unchanged} unchanged",
    ]
    if s.removed:
        parts.append(f"{s.removed} removed")
    parts.append(f"{s.errors} error{'s' if s.errors != 1 else ''}")
    cache = f"{s.modules_parsed} module{'s' if s.modules_parsed != 1 else ''} parsed, {s.modules_cached} from cache"
    return f"loom build: {', '.join(parts)} in {s.seconds:.2f}s ({cache})"
