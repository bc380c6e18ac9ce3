"""Run the parse and analysis of a module on a thread with a large stack: deep code is an error
with a location or a correct hash, never a crash.

Why: CPython accepts code whose trees are far deeper than a default stack allows for libcst and
for the analysis. A chain of 10,000 ``and`` operands is flat in CPython's AST but a 10,000-deep
binary tree in libcst's, whose native parser recurses in Rust on the calling thread's stack:
on the 8 MiB main thread it was a SIGSEGV. ``import a.b.c...`` with 3,000 parts and attribute,
call or subscript chains of 3,000 links (CPython's own limit) exceed Python's default recursion
limit of 1,000 in libcst and in the recursive walks of the analysis (``canonical``, ``scopes``).

Mechanism: ``call`` runs a function on a new daemon thread started with ``STACK_BYTES`` of
stack (address space: the pages are touched only as deep as a parse goes) and waits for it. While
it runs with no other thread but its waiting caller (the CLI, a build worker process),
``recursion_limit`` can raise the limit for it: Python frames then use the large stack, so a
deeper recursion is still a ``RecursionError``, never an overflow. ``RECURSION_LIMIT`` x the
largest frame measured (under 1 KiB on 3.10, whose every Python call also uses C stack) stays
far below ``STACK_BYTES``. With other threads alive the limit is left alone (it is process-wide
and their stacks are small): deep code is then a located error instead of a hash.

A thread per call costs about 0.1 ms (1-2 % of a cold build). A long-lived worker thread cost
5 microseconds a call but is a thread alive between calls: the build forks its workers only
from a single-threaded process (3.12+ warns on any ``fork`` with threads), and every
"no other thread" check would have to know about it. When no thread can be started (a process
limit, a platform refusing the stack size) the call runs on the caller's own thread.

Rejected: making every walk iterative (libcst's native parser cannot be changed, and it is the
part that crashed), ``resource.setrlimit(RLIMIT_STACK)`` (applies to the main thread of a new
process only), raising the recursion limit on the caller's thread (a deeper recursion on an
8 MiB stack is a SIGSEGV instead of a ``RecursionError``), and a subprocess per module (starting
an interpreter costs more than parsing most modules).
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

__all__ = ["STACK_BYTES", "RECURSION_LIMIT", "call", "others_running", "recursion_limit"]

T = TypeVar("T")

STACK_BYTES = 512 * 1024 * 1024
RECURSION_LIMIT = 120_000

_local = threading.local()  # .deep: this thread was started by ``call``


def call(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on a thread with a large stack (inline when already on one, or when no
    thread can be started); its exception, if any, is raised here."""
    if getattr(_local, "deep", False):
        return fn(*args)
    box: list[Any] = []

    def run() -> None:
        _local.deep = True
        try:
            box.append((True, fn(*args)))
        except BaseException as exc:  # handed to the caller, which re-raises it
            box.append((False, exc))

    try:
        previous = threading.stack_size(STACK_BYTES)
    except (ValueError, RuntimeError):  # the platform refuses the size
        return fn(*args)
    try:
        thread = threading.Thread(target=run, name="loom-deep-stack", daemon=True)
        thread.start()
    except (RuntimeError, MemoryError, OSError):  # no thread can be started here
        return fn(*args)
    finally:
        threading.stack_size(previous)
    thread.join()
    ok, value = box[0]
    if ok:
        return value  # type: ignore[no-any-return]
    raise value


def others_running() -> bool:
    """Whether a thread other than the current one (and, on a ``call`` thread, its waiting
    caller) may be running Python code: process-wide switches (the recursion limit, libcst's
    validation hook) are thrown only when none is."""
    return threading.active_count() > (2 if getattr(_local, "deep", False) else 1)


@contextlib.contextmanager
def recursion_limit(limit: int) -> Iterator[bool]:
    """Set the recursion limit to ``limit`` for the block when that is safe: no other thread
    running, and on a ``call`` thread's large stack unless it lowers the limit. Yields whether it
    was set; the previous limit is always restored."""
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
