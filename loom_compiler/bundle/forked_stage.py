"""Run one build stage over many items in worker processes forked from the build: each worker
inherits the build's state as it is at the fork (the analysed summaries, the tree as read) instead
of receiving it pickled, and returns one picklable result per item.

Why fork, and why after the state is built: the per-flow-module stage (closures, fingerprints,
chunks, their cache entries) reads the summaries of ~50 modules per flow module, which are large
object graphs with shared members; pickling the memo to a worker costs more than the stage.
A forked child sees them for free (copy-on-write). So the pool is made only once the parent's
state is complete, and its processes are forked at the first ``submit`` (``ProcessPoolExecutor``
forks all of them then, before its manager thread starts: the parent is single-threaded at the
fork, which the caller checks with ``deep_stack.others_running``). The job function reaches its
state through ``_STAGE``, set before that fork and cleared after the pool is gone; a worker of
another start method would find it unset, and says so (callers fork or stay serial).

Balance: items are submitted one by one (``chunksize`` 1: each is ~10 ms of work and its result is
small next to it), costliest first by the caller's estimate, so that a long item does not start
last and leave one core idle at the end while the other waits (LPT scheduling).

Failures: an exception raised by the job comes back as itself (the pool re-raises it in the
parent, with the worker's traceback as its cause): a bug looks the same as in a serial build. A
worker that dies (killed, out of memory, a crash in native code) is a ``WorkerDied`` naming the
items that had not finished; nothing of the stage's results is used, and the pool is shut down.

Rejected: a serial fallback when a worker fails (it would hide the failure and double the work),
``multiprocessing.Pool.imap`` (no per-item failure, a dead worker hangs it), and threads (the stage
is pure Python: the GIL serialises it).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from loom_runtime.errors import LoomError

__all__ = ["WorkerDied", "map_forked"]

T = TypeVar("T")

#: the job the forked workers run (set by ``map_forked`` before the fork, cleared after)
_STAGE: Callable[[str], Any] | None = None


class WorkerDied(LoomError):
    """A worker process of a forked stage ended without returning its items' results."""


def _how(processes: list[Any]) -> str:
    """`` (exit code 3)``/`` (signal 9)`` of a worker that ended abnormally, if known (the pool
    terminates the others with SIGTERM once one died: that one is named only when alone)."""
    import signal

    codes = [code for p in processes if (code := getattr(p, "exitcode", None))]
    code = next((c for c in codes if c != -signal.SIGTERM), codes[0] if codes else None)
    if code is None:
        return ""
    return f" (signal {-code})" if code < 0 else f" (exit code {code})"


def _run(items: tuple[str, ...]) -> list[Any]:
    stage = _STAGE
    if stage is None:  # not a child forked by ``map_forked``: nothing to run against
        raise RuntimeError("forked_stage: this worker was not forked from the build (start method is not fork)")
    return [stage(item) for item in items]


def _batches(order: list[str], workers: int) -> list[tuple[str, ...]]:
    """``order`` cut into tasks that shrink towards the end (guided scheduling): a task costs the
    pool ~1 ms of the build's time (pickling, its threads' hand-offs), so the first are a few items
    each; the last are single items, so that no worker is left with a long task at the end."""
    out, start = [], 0
    while start < len(order):
        size = max(1, (len(order) - start) // (workers * 4))
        out.append(tuple(order[start:start + size]))
        start += size
    return out


def map_forked(job: Callable[[str], T], items: Iterable[str], *, workers: int, label: str,
               cost: Mapping[str, float] | None = None) -> dict[str, T]:
    """``{item: job(item)}`` computed in ``workers`` forked processes, costliest item first
    (``cost``; ties and unknowns in the given order). ``label`` names the stage in a
    ``WorkerDied`` message. The caller has checked that forking is available and safe."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    global _STAGE
    order = list(dict.fromkeys(items))
    if cost is not None:
        rank = {item: i for i, item in enumerate(order)}
        order.sort(key=lambda item: (-cost.get(item, 0.0), rank[item]))
    results: dict[str, T] = {}
    broken: BrokenProcessPool | None = None
    processes: list[Any] = []
    _STAGE = job
    # The objects that exist now are the state the workers inherit: out of the collector's reach,
    # so that a collection in a worker does not write to (and so copy) every page of it (measured:
    # the stage's CPU time -20 % at 1,200 modules). Left alone if the caller froze objects itself.
    freeze = gc.get_freeze_count() == 0
    if freeze:
        gc.freeze()
    pool = ProcessPoolExecutor(max_workers=max(1, min(workers, len(order))),
                               mp_context=multiprocessing.get_context("fork"))
    try:
        futures: dict[Any, tuple[str, ...]] = {}
        try:
            # a worker may die while later tasks are still being submitted: ``submit`` then raises
            for batch in _batches(order, workers):
                futures[pool.submit(_run, batch)] = batch
                if not processes:  # forked at the first submit; kept to say how one ended
                    processes = list((getattr(pool, "_processes", None) or {}).values())
            for future in as_completed(futures):
                results.update(zip(futures[future], future.result()))
        except BrokenProcessPool as exc:
            broken = exc
    finally:
        _STAGE = None
        pool.shutdown(wait=True, cancel_futures=True)  # joins the workers: their exit codes are known
        if freeze:
            gc.unfreeze()
    if broken is not None:
        unfinished = [item for item in order if item not in results]
        shown = ", ".join(unfinished[:5]) + (f" and {len(unfinished) - 5} more" if len(unfinished) > 5 else "")
        raise WorkerDied(
            f"a worker process of {label} died{_how(processes)} with {len(unfinished)} item(s) unfinished "
            f"({shown}): killed, out of memory or crashed; nothing was written. Run the build again; "
            "`--jobs 1` runs this stage in one process") from broken
    return results
