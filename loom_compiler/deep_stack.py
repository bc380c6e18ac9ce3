"""Run the parse and analysis of a module on a thread with a large stack: deep code is an error
with a location or a correct hash, never a crash.

Why: CPython accepts code whose trees are far deeper than a default stack allows for libcst and
for the analysis. A chain of 10,000 ``and`` operands is flat in CPython's AST but a 10,000-deep
binary tree in libcst's, whose native parser recurses in Rust on the calling thread's stack:
on the 8 MiB main thread it was a SIGSEGV. ``import a.b.c...`` with 3,000 parts and attribute,
call or subscript chains of 3,000 links (CPython's own limit) exceed Python's default recursion
limit of 1,000 in libcst and in the recursive walks of the analysis (``canonical``, ``scopes``).

Mechanism: one long-lived daemon worker thread per process, started with ``STACK_BYTES`` of
stack (address space: the pages are touched only as deep as a parse goes), runs the calls
handed to ``call`` one at a time while their callers wait. While a call runs with no thread but
its waiting caller (the CLI, a build worker process), ``recursion_limit`` can raise the limit
for it: Python frames then use the large stack, so a deeper recursion is still a
``RecursionError``, never an overflow. ``RECURSION_LIMIT`` x the largest frame measured (under
1 KiB on 3.10, whose every Python call also uses C stack) stays far below ``STACK_BYTES``. With
other threads alive the limit is left alone (it is process-wide and their stacks are small):
deep code is then a located error instead of a hash.

Why one worker and not a thread per call: a new thread made every analysis 12-17 % slower in
CPU (measured on the build benchmark's modules: each new thread starts with cold interpreter and
allocator state), a hand-off to a warm worker costs microseconds. The worker is invisible to the
"is this process single-threaded?" questions (``others_running``: an idle worker runs no code)
and to ``fork``: a ``before`` hook stops it, so the child has none (``call`` starts one again,
in the child and in the parent) and 3.12+ sees no thread to warn about. When no thread can be
started (a process limit, a platform refusing the stack size) calls run on the caller's thread.

Rejected: making every walk iterative (libcst's native parser cannot be changed, and it is the
part that crashed), ``resource.setrlimit(RLIMIT_STACK)`` (applies to the main thread of a new
process only), raising the recursion limit on the caller's thread (a deeper recursion on an
8 MiB stack is a SIGSEGV instead of a ``RecursionError``), and a subprocess per module (starting
an interpreter costs more than parsing most modules).
"""

from __future__ import annotations

import contextlib
import os
import queue
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

__all__ = ["STACK_BYTES", "RECURSION_LIMIT", "call", "others_running", "recursion_limit"]

T = TypeVar("T")

STACK_BYTES = 512 * 1024 * 1024
RECURSION_LIMIT = 120_000

_local = threading.local()  # .deep: this is the worker thread
_lock = threading.Lock()  # guards _worker: a job is queued before a stop, or after a restart
_worker: _Worker | None = None


class _Worker:
    def __init__(self) -> None:
        self.pid = os.getpid()
        self.jobs: queue.SimpleQueue[tuple[Callable[..., Any], tuple[Any, ...], queue.SimpleQueue[Any]] | None]
        self.jobs = queue.SimpleQueue()
        previous = threading.stack_size(STACK_BYTES)
        try:
            self.thread = threading.Thread(target=self._serve, name="loom-deep-stack", daemon=True)
            self.thread.start()
        finally:
            threading.stack_size(previous)

    def _serve(self) -> None:
        _local.deep = True
        while True:
            job = self.jobs.get()
            if job is None:
                return
            fn, args, reply = job
            try:
                reply.put((True, fn(*args)))
            except BaseException as exc:  # handed to the caller, which re-raises it
                reply.put((False, exc))
            del job, fn, args, reply

    def alive(self) -> bool:
        return self.pid == os.getpid() and self.thread.is_alive()


def call(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on the large-stack worker thread (inline when already on it, or when no
    worker can be started); its exception, if any, is raised here."""
    global _worker
    if getattr(_local, "deep", False):
        return fn(*args)
    reply: queue.SimpleQueue[Any] = queue.SimpleQueue()
    with _lock:
        if _worker is None or not _worker.alive():
            try:
                _worker = _Worker()
            except (RuntimeError, ValueError, MemoryError, OSError):  # no thread with that stack here
                _worker = None
        if _worker is not None:
            _worker.jobs.put((fn, args, reply))
    if _worker is None:
        return fn(*args)
    ok, value = reply.get()
    if ok:
        return value  # type: ignore[no-any-return]
    raise value


def _stop_before_fork() -> None:
    """``os.fork`` hook: let the worker finish the jobs queued so far and end, so that the child
    is forked from a single-threaded process."""
    global _worker
    with _lock:
        worker, _worker = _worker, None
    if worker is not None and worker.alive() and threading.current_thread() is not worker.thread:
        worker.jobs.put(None)
        worker.thread.join()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_stop_before_fork)


def others_running() -> bool:
    """Whether a thread other than the current one (and, on the worker, the caller waiting for
    it; an idle worker, which waits on its queue) may be running Python code: process-wide
    switches (the recursion limit, libcst's validation hook, forking the build's workers) are
    thrown only when none is."""
    worker = _worker
    alive = worker is not None and worker.alive()
    return threading.active_count() > (2 if alive or getattr(_local, "deep", False) else 1)


@contextlib.contextmanager
def recursion_limit(limit: int) -> Iterator[bool]:
    """Set the recursion limit to ``limit`` for the block when that is safe: no other thread
    running, and on the worker's large stack unless it lowers the limit. Yields whether it was
    set; the previous limit is always restored."""
    previous = sys.getrecursionlimit()
    if others_running() or (limit > previous and not getattr(_local, "deep", False)):
        yield False
        return
    try:
        sys.setrecursionlimit(limit)
    except RecursionError:  # lower than the current depth
        yield False
        return
    try:
        yield True
    finally:
        sys.setrecursionlimit(previous)
