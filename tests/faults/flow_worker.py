"""The flow the worker-kill tests drive, and a worker process that SIGKILLs itself at an append.

    python flow_worker.py JOURNAL_URL EFFECTS_LOG N before|after

drives execution ``e1`` of ``faulty`` to completion (``start``, then ``recover()`` passes: timers,
crashed runs) and kills itself with SIGKILL just before the N-th journal write (``create``,
``create_leased``, ``append``) reaches the store, or just after it returned (the row committed,
the runtime not yet told). ``N=0`` never kills; the run then prints how many writes it made.

Every effect (each step, the decider) appends a line to ``EFFECTS_LOG`` and fsyncs it before it
returns, so the test can count how often each one ran, kills included.
"""

from __future__ import annotations

import os
import signal
import sys

from loom_runtime import Runtime, flow
from loom_runtime.journal import MemoryJournal, PostgresJournal, SqliteJournal, open_journal

EFFECTS_LOG = {"path": ""}


def effect(name: str) -> str:
    fd = os.open(EFFECTS_LOG["path"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, f"{name}\n".encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    return f"done:{name}"


@flow("faulty", steps=["a", "b", "p1", "p2", "c"])
def faulty(ctx, order):
    first = ctx.execute("a", effect, "a")
    choice = ctx.decide("route", lambda: effect("route"))
    ctx.emit("progress", {"after": first})
    ctx.parallel([("p1", effect, "p1"), ("p2", effect, "p2")])
    ctx.execute("b", effect, "b")
    ctx.sleep("cool-down", 0)
    ctx.execute("c", effect, "c")
    return {"route": choice, "order": order}


def drive(journal_url: str, effects: str) -> Runtime:
    """Run ``e1`` to completion on ``journal_url`` (a fresh start, or recovery of what is there)."""
    EFFECTS_LOG["path"] = effects
    rt = Runtime(journal=open_journal(journal_url), worker_id="w-test", lease_ttl=0.5)
    rt.register(faulty)
    try:
        rt.journal.summary("e1")
    except Exception:  # noqa: BLE001 - not created yet (or its creation was the killed write)
        rt.start("faulty", {"id": "o-1"}, execution_id="e1")
    for _ in range(50):
        if rt.journal.summary("e1").status == "completed":
            return rt
        rt.recover()
    raise SystemExit("e1 did not complete in 50 recovery passes")


def _arm(kill_at: int, mode: str, counter: list[int]) -> None:
    for cls in (MemoryJournal, SqliteJournal, PostgresJournal):
        for name in ("create", "create_leased", "append"):
            real = getattr(cls, name)

            def wrapped(self, *args, __real=real, **kwargs):
                counter[0] += 1
                if kill_at and counter[0] == kill_at and mode == "before":
                    os.kill(os.getpid(), signal.SIGKILL)
                out = __real(self, *args, **kwargs)
                if kill_at and counter[0] == kill_at and mode == "after":
                    os.kill(os.getpid(), signal.SIGKILL)
                return out

            setattr(cls, name, wrapped)


def main(argv: list[str]) -> int:
    url, effects, n, mode = argv
    counter = [0]
    _arm(int(n), mode, counter)
    drive(url, effects)
    print(counter[0])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
