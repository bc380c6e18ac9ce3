"""Run a command in this process and SIGKILL it at its N-th write to the filesystem.

    python kill_at.py N COUNT_FILE -- build [ARGS...]     loom build, killed at write N (0: never)
    python kill_at.py N COUNT_FILE -- worker SCRIPT ...   a worker script, killed at write N

A *write* is every call that changes the filesystem: opening a file for writing (``open``/
``io.open``/``os.open`` with a write flag), ``os.replace``/``os.rename``, ``os.unlink``/
``os.remove``, ``os.mkdir``, ``os.fsync``. The process kills itself with SIGKILL just *before*
the N-th one, so every state the program can be caught in between two writes is reached by some N:
a temp file created but empty, written but not yet renamed, renamed but not yet fsynced, a manifest
written with its chunks only half there. ``COUNT_FILE`` receives how many writes a run made (the
N=0 run tells the test how many kill points there are).

SIGKILL, not an exception: nothing the program wrote in ``finally`` or ``except`` may help it,
exactly as for a power cut seen by the process or the OOM killer.
"""

from __future__ import annotations

import builtins
import io
import os
import signal
import sys

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def arm(kill_at: int, count_file: str) -> None:
    state = {"n": 0}

    def hit() -> None:
        state["n"] += 1
        with _real_open(count_file, "w") as fh:
            fh.write(str(state["n"]))
        if kill_at and state["n"] >= kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    _real_open = builtins.open
    real_os_open, real_replace, real_rename = os.open, os.replace, os.rename
    real_unlink, real_remove, real_mkdir, real_fsync = os.unlink, os.remove, os.mkdir, os.fsync

    def wrap_open(real):
        def open_(file, mode="r", *args, **kwargs):
            if isinstance(file, int) or not any(c in mode for c in "wax+"):
                return real(file, mode, *args, **kwargs)
            if os.fspath(file) != count_file:
                hit()
            return real(file, mode, *args, **kwargs)
        return open_

    def os_open(path, flags, *args, **kwargs):
        if flags & _WRITE_FLAGS:
            hit()
        return real_os_open(path, flags, *args, **kwargs)

    def before(real):
        def call(*args, **kwargs):
            hit()
            return real(*args, **kwargs)
        return call

    builtins.open = wrap_open(_real_open)
    io.open = wrap_open(io.open)
    os.open = os_open
    os.replace, os.rename = before(real_replace), before(real_rename)
    os.unlink, os.remove, os.mkdir, os.fsync = before(real_unlink), before(real_remove), before(real_mkdir), before(real_fsync)


def main(argv: list[str]) -> int:
    kill_at, count_file, sep, what, *rest = argv
    assert sep == "--"
    arm(int(kill_at), os.path.abspath(count_file))
    if what == "build":
        from loom_compiler.cli import main as loom

        try:
            loom(["build", *rest])
        except SystemExit as exc:
            return int(exc.code or 0)
        return 0
    if what == "worker":
        script, *args = rest
        sys.argv = [script, *args]
        import runpy

        runpy.run_path(script, run_name="__main__")
        return 0
    raise SystemExit(f"unknown command {what!r}")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
