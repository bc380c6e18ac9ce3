"""``deep_stack``: calls run on a large-stack worker thread, errors come back, the recursion limit
is raised only where that is safe and always restored, and a fork leaves no thread behind."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from loom_compiler import deep_stack

ROOT = Path(__file__).resolve().parents[2]


def _depth(n: int) -> int:
    return 0 if n == 0 else 1 + _depth(n - 1)


def test_a_call_returns_its_value_and_raises_its_error_in_the_caller() -> None:
    assert deep_stack.call(lambda a, b: a + b, 2, 3) == 5
    with pytest.raises(ZeroDivisionError):
        deep_stack.call(lambda: 1 / 0)
    assert deep_stack.call(lambda: threading.current_thread().name) == "loom-deep-stack"
    assert not deep_stack.others_running()  # the idle worker does not count


FORK = textwrap.dedent(
    """
    import os, sys, threading, warnings
    sys.path.insert(0, sys.argv[1])
    warnings.simplefilter("error")  # 3.12+ warns about a fork with threads alive
    from loom_compiler import analyse_module
    assert not isinstance(analyse_module("x = 1\\n", module="m", path="m.py"), Exception)
    assert threading.active_count() == 2  # the worker
    pid = os.fork()
    if pid == 0:
        ok = threading.active_count() == 1 and analyse_module("y = 2\\n", module="m", path="m.py").units
        os._exit(0 if ok else 3)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert analyse_module("z = 3\\n", module="m", path="m.py").units  # a new worker in the parent
    print("ok")
    """
)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_fork_stops_the_worker_first_and_both_sides_go_on() -> None:
    proc = subprocess.run([sys.executable, "-c", FORK, str(ROOT)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_recursion_far_past_the_default_limit_runs_on_the_large_stack() -> None:
    def deep() -> int:
        with deep_stack.recursion_limit(deep_stack.RECURSION_LIMIT) as raised:
            assert raised
            return _depth(50_000)

    before = sys.getrecursionlimit()
    assert deep_stack.call(deep) == 50_000
    assert sys.getrecursionlimit() == before
    with pytest.raises(RecursionError):  # the caller's own stack keeps its limit
        _depth(before + 10)


def test_the_limit_is_left_alone_where_raising_it_is_unsafe() -> None:
    before = sys.getrecursionlimit()
    with deep_stack.recursion_limit(before * 10) as raised:  # the caller's small stack
        assert not raised and sys.getrecursionlimit() == before
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        def under_other_thread() -> bool:
            with deep_stack.recursion_limit(deep_stack.RECURSION_LIMIT) as raised:
                return raised or sys.getrecursionlimit() != before

        assert deep_stack.call(under_other_thread) is False
    finally:
        stop.set()
        other.join()


def test_nested_calls_run_inline() -> None:
    def outer() -> str:
        return deep_stack.call(lambda: threading.current_thread().name)

    assert deep_stack.call(outer) == "loom-deep-stack"
