"""Parsing ahead of the fingerprint stage: the stale flow modules and the first-party modules they
import, analysed in worker processes as a stream (``ParseAhead``), for ``build._Pipeline``.

What is parsed: the stale flow modules, the first-party packages above them, and transitively
every first-party module an analysed module imports (``_Pipeline._imported_modules``); the modules
a closure reaches at load are among those, so the fingerprint stage finds their summaries ready.

One stream, not waves. The set used to be parsed in waves (the flow modules, then what they
import, then what that imports), each a ``map`` over the pool that had to finish before the next
could start: the end of each wave left a core idle, and the flow modules waited for the scan's
marker check of every candidate before the first was parsed. Now a module is submitted as soon as
it is known: the flow modules while the scan still checks the later candidates, a module's
imports as soon as its summary comes back. Both cores stay busy until the last summary.

What the build sees does not depend on the order summaries come back in: ``finish`` puts the
modules parsed into ``_Pipeline.parsed`` in the order the waves gave (the flow modules as the scan
found them, then each wave's new modules sorted), and returns the import graph the waves would
have built; the summaries, the cache entries and every byte written are the same.

When workers: as before, a pool starts once ``AUTO_MIN_MODULES`` modules wait to be parsed
(``jobs=None``; any two with an explicit ``jobs``), one worker per CPU; modules that never make that
many (a one-edit rebuild) are analysed in the build's process, lazily, as a serial build does.
Once a pool runs, every module that waits goes to it.

Rejected: finding the imports of the flow modules before parsing them from CPython's tree (the scan
parses each already): a cheap reading that sees an import the analysis does not count parses a
module no closure asks for, and reports it parsed; the stream gets the same overlap from the
analysis's own answer a module's parse later.
"""

from __future__ import annotations

import pickle
import queue
from collections import deque
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..model import SourceError
from .cache import encode_entry, write_entries

if TYPE_CHECKING:
    from concurrent.futures import Future

    from ..config import LoomConfig
    from .build import _Pipeline, _Source

__all__ = ["ParseAhead", "analyse_batch", "stale_threshold"]

#: modules per task sent to a worker: a task costs the build ~0.3 ms (pickling, the pool's
#: threads), a module ~10 ms of a worker; two keep that small and the last task short
BATCH = 2

#: one module's job: (its bytes, its name, its path, the configuration, the cache directory or
#: None, its summary's cache key)
Job = tuple[bytes, str, str, "LoomConfig", "str | None", str]


def analyse_batch(jobs: list[Job]) -> list[bytes]:
    """In a worker: each job's summary, pickled, its cache entry written. The worker writes the
    entry itself, in parallel with the others; the summary goes back to the build pickled: that is
    the pipe between a process and the workers it forked (as every ``ProcessPoolExecutor`` result
    does), never a file anyone else can write. A worker analyses eagerly: a summary with deferred
    forms keeps libcst nodes, which do not pickle."""
    from .. import analysis
    from .build import _summary_type

    out = []
    for data, module, path, config, cache_dir, key in jobs:
        summary = analysis.analyse_module(data, module=module, path=path, config=config)
        if cache_dir is not None:
            write_entries(cache_dir, {key: encode_entry(key, summary, _summary_type())})
        out.append(pickle.dumps(summary, protocol=pickle.HIGHEST_PROTOCOL))
    return out


class ParseAhead:
    """The stream of one ``collect``: ``want`` the stale flow modules as the scan finds them,
    ``poll`` between them, ``finish`` once the scan is done. ``threshold``: how many modules must
    wait before a pool starts (when none runs yet)."""

    def __init__(self, pipeline: _Pipeline, src: _Source, memo: dict[str, Any], *, threshold: int) -> None:
        self.pipeline = pipeline
        self.src = src
        self.memo = memo
        self.threshold = threshold
        self.stale: list[str] = []
        self._seen: set[str] = set()
        self._waiting: list[str] = []  # cache misses not yet submitted
        self._flying = 0  # tasks submitted and not taken back
        self._done: queue.SimpleQueue[Future[list[bytes]]] = queue.SimpleQueue()
        self._tasks: dict[int, tuple[str, ...]] = {}  # id(future) -> its modules
        self._ahead: list[str] = []  # modules the workers analysed
        self._parsed_before = len(pipeline.parsed)
        self._import_memo: dict[str, set[str]] = {}  # module -> the first-party modules it imports

    # -- feeding ---------------------------------------------------------------------------------
    def want_stale(self, module: str) -> None:
        """A stale flow module found by the scan: it, its packages and what it imports."""
        self.stale.append(module)
        self._want([module, *sorted(self.pipeline._packages_of(self.src, [module]))])

    def _want(self, modules: Iterable[str]) -> None:
        todo = deque(modules)  # in the order given: the flow modules first, as the scan finds them
        pipeline, src, memo = self.pipeline, self.src, self.memo
        while todo:
            module = todo.popleft()
            if module in self._seen:
                continue
            self._seen.add(module)
            if module in memo or src.data(module) is None:
                continue
            key = pipeline._summary_key(src, module)
            hit = pipeline.cache.get(key, _summary_type())
            if hit is None:
                self._waiting.append(module)
                continue
            memo[module] = pipeline._served(src, module, key, hit)
            todo.extend(self._imports(module))
        self._submit()

    def _imports(self, module: str) -> set[str]:
        found = self._import_memo.get(module)
        if found is None:
            summary = self.memo.get(module)
            found = set() if summary is None or isinstance(summary, SourceError) \
                else self.pipeline._imported_modules(self.src, summary)
            self._import_memo[module] = found
        return found

    def _submit(self, *, all_of_them: bool = False) -> None:
        pipeline = self.pipeline
        if not self._waiting:
            return
        if pipeline._pool is None:
            if len(self._waiting) < self.threshold:
                return
            from .build import _process_pool

            pipeline._pool_workers = pipeline._max_workers()
            pipeline._pool = _process_pool(pipeline._pool_workers)
        # pairs while the scan still finds modules; at the end (or when the pool would go idle) all
        while self._waiting and (len(self._waiting) >= BATCH or all_of_them or self._flying < pipeline._pool_workers):
            batch, self._waiting = self._waiting[:BATCH], self._waiting[BATCH:]
            self._send(tuple(batch))

    def _send(self, batch: tuple[str, ...]) -> None:
        pipeline, src = self.pipeline, self.src
        cache_dir = str(pipeline.cache.directory) if pipeline.cache.enabled else None
        jobs = [(src.data(m) or b"", m, src.path(m) or "", pipeline.config, cache_dir, pipeline._summary_key(src, m))
                for m in batch]
        assert pipeline._pool is not None
        pipeline.progress_total += len(batch)
        pipeline.progress.advance(0, total=pipeline.progress_total)
        future = pipeline._pool.submit(analyse_batch, jobs)
        self._tasks[id(future)] = batch
        self._flying += 1
        future.add_done_callback(self._done.put)  # the pool's thread: a queue put, nothing more

    # -- taking results --------------------------------------------------------------------------
    def poll(self) -> None:
        """Take the summaries that came back, and submit what they import (never waits)."""
        while True:
            try:
                future = self._done.get_nowait()
            except queue.Empty:
                return
            self._take(future)

    def _take(self, future: Future[list[bytes]]) -> None:
        self._flying -= 1
        batch = self._tasks.pop(id(future))
        found: list[str] = []
        for module, pickled in zip(batch, future.result()):  # a worker's exception is raised here
            self.memo[module] = pickle.loads(pickled)
            self._ahead.append(module)
            self.pipeline.progress.advance(1)
            found.extend(self._imports(module))
        self._want(found)

    def finish(self) -> dict[str, set[str]]:
        """Wait for every summary; the import graph of the analysed modules, as the waves built it
        (``_reach_sizes``' input), and ``_Pipeline.parsed`` in the waves' order."""
        pipeline = self.pipeline
        while True:
            self._submit(all_of_them=True)
            if self._flying:
                self._take(self._done.get())
                continue
            if not self._waiting:
                break
            # fewer than ``threshold`` wait and no pool runs: analysed here (deferred, as serially)
            module = self._waiting.pop(0)
            pipeline.summary(self.src, self.memo, module)
            self._want(self._imports(module))
        order, imports = self._waves()
        rank = {m: i for i, m in enumerate(order)}
        parsed = [*pipeline.parsed[self._parsed_before:], *self._ahead]
        pipeline.parsed[self._parsed_before:] = sorted(parsed, key=lambda m: (rank.get(m, len(rank)), m))
        return imports

    def _waves(self) -> tuple[list[str], dict[str, set[str]]]:
        """The modules in the order the waves reached them, and each analysed module's imports."""
        stale = list(dict.fromkeys(self.stale))
        order, seen, frontier = list(stale), set(stale), set(stale)
        imports: dict[str, set[str]] = {}
        nxt = self.pipeline._packages_of(self.src, stale) - seen
        while frontier:
            for module in frontier:
                summary = self.memo.get(module)
                if summary is not None and not isinstance(summary, SourceError):
                    imports[module] = set(self._imports(module))
                    nxt |= imports[module] - seen
            seen |= nxt
            order.extend(sorted(nxt))
            frontier, nxt = nxt, set()
        return order, imports


def _summary_type() -> Any:
    from .build import _summary_type as summary_type

    return summary_type()


def stale_threshold(pipeline: _Pipeline) -> int:
    """Modules that must wait to be parsed before workers start (when none run yet)."""
    from .build import AUTO_MIN_MODULES

    return 2 if pipeline.jobs is not None else AUTO_MIN_MODULES

