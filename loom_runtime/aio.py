"""Running a coroutine to its end from synchronous code: an async flow driven by ``start``/``recover``,
an async step called from a sync flow.

Each thread keeps one event loop for this (created on first use, never closed while the thread
lives), so a worker draining many async executions does not pay for a new loop, thread pool and
signal set-up per drive. A thread that already runs an event loop cannot block on another
coroutine without stalling its own: an async flow there is refused with a clear message (await the
``*_async`` form instead); an async step of a sync flow there runs on a loop in a helper thread.
Rejected: ``asyncio.run`` per call (a loop and an executor per drive, ~1 ms each) and nesting loops
(``nest_asyncio``: a third-party patch of asyncio's internals).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Awaitable, Coroutine
from typing import Any, TypeVar

from .errors import FlowUsageError

__all__ = ["run_blocking", "await_blocking"]

_T = TypeVar("_T")
_local = threading.local()


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _thread_loop() -> asyncio.AbstractEventLoop:
    loop = getattr(_local, "loop", None)
    if loop is None or loop.is_closed():
        loop = asyncio.new_event_loop()
        _local.loop = loop
    return loop


def run_blocking(coro: Coroutine[Any, Any, _T], *, flow_id: str) -> _T:
    """Drive an async flow's coroutine to its end in this thread (``FlowUsageError`` inside a loop)."""
    if _loop_running():
        coro.close()
        raise FlowUsageError(
            f"flow `{flow_id}` is async and this thread is running an event loop: await the async form "
            "(runtime.start_async, resume_async, recover_async, tick_async) instead of blocking the loop"
        )
    return _thread_loop().run_until_complete(coro)


def await_blocking(awaitable: Awaitable[_T]) -> _T:
    """The result of an awaitable (an async step called from a sync flow)."""

    async def wait() -> _T:
        return await awaitable

    if not _loop_running():
        return _thread_loop().run_until_complete(wait())
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="loom-async-step") as pool:
        return pool.submit(lambda: asyncio.run(wait())).result()
