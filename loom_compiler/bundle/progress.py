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

__all__ = ["Progress", "NullProgress", "TerminalProgress", "make_progress", "BuildSummary", "RefSummary", "format_summary"]


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
class RefSummary:
    """What a history ref (``[tool.loom] history``, ``--from-git``) cost: the modules its flows
    used and how many of them were parsed (the rest came from the cache)."""

    ref: str
    modules: int
    parsed: int


@dataclass(frozen=True, slots=True)
class BuildSummary:
    """The counts behind the summary line. Flow counts are the working tree's flows; version
    counts are what the cumulative manifest gained (from the working tree and from history refs);
    module counts are per source tree (the working tree here, each ref in ``refs``), never summed
    across trees: a module read at two refs is two analyses but still one module of the project."""

    flows: int
    new_versions: int
    #: working-tree flows whose current codeHash the previous manifest already held
    unchanged: int
    removed: int
    errors: int
    seconds: float
    #: working-tree modules parsed in this build, and those whose analysis came from the cache
    modules_parsed: int
    modules_cached: int
    #: new versions that are an earlier scheme's code under a new hash (``rehash``)
    rehashed: int = 0
    #: working-tree flows the previous manifest did not list, and listed flows with a new codeHash
    new_flows: int = 0
    changed: int = 0
    #: of ``new_versions``, those that came from history refs (not the working tree)
    from_history: int = 0
    refs: tuple[RefSummary, ...] = ()


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def format_summary(s: BuildSummary) -> str:
    """``loom build: 2 flows (1 changed, 1 unchanged), 1 new version, 0 errors in 0.47s (4 modules:
    1 parsed, 3 from cache)``; history refs add their versions and their own module counts."""
    kinds = [f"{count} {word}" for count, word in
             ((s.new_flows, "new"), (s.changed, "changed"), (s.unchanged, "unchanged")) if count]
    flows = _n(s.flows, "flow") + (f" ({', '.join(kinds)})" if kinds else "")
    notes = []
    if s.rehashed:
        notes.append(f"{s.rehashed} rehashed: the same code under a new fingerprint scheme")
    if s.from_history:
        notes.append(f"{s.from_history} from history refs")
    parts = [flows, _n(s.new_versions, "new version") + (f" ({'; '.join(notes)})" if notes else "")]
    if s.removed:
        parts.append(f"{s.removed} removed")
    parts.append(_n(s.errors, "error"))
    modules = [f"{_n(s.modules_parsed + s.modules_cached, 'module')}: {s.modules_parsed} parsed, "
               f"{s.modules_cached} from cache"]
    modules += [f"at {r.ref} {_n(r.modules, 'module')}: {r.parsed} parsed, {r.modules - r.parsed} from cache"
                for r in s.refs]
    return f"loom build: {', '.join(parts)} in {s.seconds:.2f}s ({'; '.join(modules)})"
