"""A replay worker process: ``python -m loom_runtime.sandbox_worker`` (``loom deploy-check``).

``deploy-check`` judges every unfinished execution of a production journal against a candidate
build. The candidate's chunks must not load into the process that runs the check (a chunk runs its
imports of live step modules; ``sys.modules`` of the checking process would mix two builds), and a
large journal wants more than one core, so the replay runs in worker processes, each a fresh
interpreter whose import path is the service's (the parent sets ``PYTHONPATH`` and the working
directory). A worker:

1. reads one JSON request on stdin: ``{"manifest": path, "store": url, "tasks": [[execution id,
   flow id, codeHash], …]}`` (the parent already resolved each execution to the version the
   candidate serves it, by the registry's own D2 rules: resolution needs no code);
2. opens the candidate manifest and loads each version its tasks need *once* (a ``Sandbox`` per
   version: its chunk is verified and executed on first use, as in a worker after the deploy);
3. opens the journal **read-only** (``open_journal(url, read_only=True)``: never created, migrated
   or written) and reads its executions in batches (``journal.bulk.read_many``): each execution's
   events once, a bounded number in memory at a time;
4. replays each in the sandbox and writes one JSON line per execution to stdout, then a final
   ``{"done": …}`` line with its peak memory.

Only the flow bodies and the helpers they call run (orchestration code, as in every resume); no
step, decider or emit does (``loom_runtime.sandbox``). What the bodies print goes to stderr: stdout
carries only the protocol. A version whose chunk fails to load is one ``{"load": …}`` line and its
executions are not replayed (the parent reports them stranded); a body that kills its interpreter
(``SystemExit``, ``os._exit``) ends the worker, which the parent reports for the executions it left.

Rejected: threads in one process (the GIL makes a replay CPU-bound on one core), a
``multiprocessing`` pool (it would fork the checking process, chunks and all, or pickle across a
spawn for no gain over one JSON request), and shipping events from the parent (see
``journal.bulk``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import IO, Any

__all__ = ["main", "run"]


def _peak_rss_kb() -> int:
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Windows
        return 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak // 1024) if sys.platform == "darwin" else int(peak)  # bytes on macOS, KiB elsewhere


def _result_line(eid: str, r: Any, status: str | None) -> dict[str, Any]:
    return {
        "id": eid, "kind": r.kind, "message": r.message, "skipped": list(r.skipped), "unasked": list(r.unasked),
        "status": status, "events": r.events, "undeclared": r.undeclared,
    }


def run(request: dict[str, Any], out: IO[str]) -> None:
    """Serve one request (see the module docstring), writing JSON lines to ``out``."""
    from .journal import bulk
    from .journal import events as ev
    from .journal.urls import open_journal
    from .registry import Registry
    from .sandbox import Sandbox

    def emit(doc: dict[str, Any]) -> None:
        out.write(json.dumps(doc, ensure_ascii=False, allow_nan=False) + "\n")

    registry = Registry.from_manifest(request["manifest"])
    tasks: list[tuple[str, str, str]] = [tuple(t) for t in request["tasks"]]  # type: ignore[misc]
    boxes: dict[tuple[str, str], Sandbox] = {}
    for flow_id, code_hash in dict.fromkeys((f, h) for _, f, h in tasks):
        try:
            version = next(v for v in registry.versions(flow_id) if v.code_hash == code_hash)
            version.definition  # verify and execute the chunk once: its imports of live steps run here
            boxes[(flow_id, code_hash)] = Sandbox(version)
        except Exception as exc:  # noqa: BLE001 - any failure to load is a finding about this version
            emit({"load": [flow_id, code_hash], "error": f"{type(exc).__name__}: {exc}"})
    todo = [t for t in tasks if (t[1], t[2]) in boxes]
    store = open_journal(request["store"], read_only=True)
    try:
        for part in _batches(todo, int(request.get("batch") or bulk.BATCH)):
            journals = bulk.read_many(store, [eid for eid, _, _ in part])
            for eid, flow_id, code_hash in part:
                events = journals.pop(eid, None)
                if not events:
                    emit({"id": eid, "kind": "gone", "message": "it is no longer in the journal", "status": None})
                    continue
                status = _status(events, ev)
                if status not in (ev.RUNNING, ev.SUSPENDED):  # it finished while the check ran
                    emit({"id": eid, "kind": "finished", "message": f"it {status} while the check ran", "status": status})
                    continue
                try:
                    result = boxes[(flow_id, code_hash)].replay(eid, events)
                except (Exception, SystemExit) as exc:  # noqa: BLE001 - the sandbox reports LoomErrors; a body that exits is a finding too
                    emit({"id": eid, "kind": "error", "message": f"{type(exc).__name__}: {exc}", "status": status})
                    continue
                emit(_result_line(eid, result, status))
            out.flush()
    finally:
        store.close()
    emit({"done": True, "peakRssKb": _peak_rss_kb()})
    out.flush()


def _status(events: tuple[Any, ...], ev: Any) -> str:
    last = events[-1].type
    return {
        ev.EXECUTION_SUSPENDED: ev.SUSPENDED, ev.EXECUTION_COMPLETED: ev.COMPLETED,
        ev.EXECUTION_FAILED: ev.FAILED, ev.EXECUTION_CONTINUED: ev.CONTINUED,
    }.get(last, ev.RUNNING)


def _batches(tasks: list[tuple[str, str, str]], size: int) -> Iterator[list[tuple[str, str, str]]]:
    for i in range(0, len(tasks), size):
        yield tasks[i : i + size]


def main() -> int:
    request = json.loads(sys.stdin.read())
    out = sys.stdout
    sys.stdout = sys.stderr  # a flow body's print() must not corrupt the protocol
    try:
        run(request, out)
    except Exception as exc:  # noqa: BLE001 - reported to the parent as one line, then a failing exit
        out.write(json.dumps({"fatal": f"{type(exc).__name__}: {exc}"}) + "\n")
        out.flush()
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
