"""Run ``loom_runtime.sandbox_worker`` processes over a set of resolved executions, and load chunks.

The parent half of ``deploy-check``'s replay: partition the executions (sorted by id, contiguous
blocks, so a worker's batched reads stay close in the store's index) over ``jobs`` fresh
interpreters, hand each its JSON request, collect their JSON lines concurrently (one thread per
worker: a worker blocked on a full stdout pipe would otherwise stall until its turn), and report
what a worker could not judge (it died, or its store could not be opened) per execution.

``load_versions`` is the hash-only check's chunk probe (``--no-replay``): load each needed chunk in
a fresh interpreter, replay nothing.

Both put the service's import path (``import_paths``) on ``PYTHONPATH`` and run in the first of
them: the chunks import live step functions by name, as a worker after the deploy would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["PoolResult", "replay_in_workers", "load_versions", "worker_environment"]


def worker_environment(import_paths: Sequence[str | os.PathLike[str]]) -> tuple[dict[str, str], str | None]:
    """The environment and working directory of a process that loads the service's chunks."""
    env = dict(os.environ)
    paths = [str(Path(p).resolve()) for p in import_paths]
    cwd = paths[0] if paths else None
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env, cwd


@dataclass(slots=True)
class PoolResult:
    results: dict[str, dict[str, Any]] = field(default_factory=dict)  # execution id -> the worker's line
    load_failures: dict[tuple[str, str], str] = field(default_factory=dict)  # (flow id, codeHash) -> error
    unjudged: dict[str, str] = field(default_factory=dict)  # execution id -> why no worker judged it
    peak_rss_kb: int = 0  # the largest worker's
    workers: int = 0


def _last_line(text: str, default: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else default


def replay_in_workers(
    manifest: str | os.PathLike[str],
    store: str,
    tasks: Sequence[tuple[str, str, str]],
    *,
    import_paths: Sequence[str | os.PathLike[str]] = (),
    jobs: int = 1,
) -> PoolResult:
    """Replay each ``(execution id, flow id, codeHash)`` in ``jobs`` worker processes."""
    pool = PoolResult()
    ordered = sorted(tasks)
    if not ordered:
        return pool
    jobs = max(1, min(jobs, len(ordered)))
    size = -(-len(ordered) // jobs)
    parts = [ordered[i : i + size] for i in range(0, len(ordered), size)]
    env, cwd = worker_environment(import_paths)
    manifest_path = str(Path(manifest).resolve())
    outputs: list[tuple[int, str, str] | None] = [None] * len(parts)

    def work(i: int, part: list[tuple[str, str, str]]) -> None:
        request = json.dumps({"manifest": manifest_path, "store": store, "tasks": [list(t) for t in part]})
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "loom_runtime.sandbox_worker"], input=request, capture_output=True,
                text=True, env=env, cwd=cwd, check=False,
            )
            outputs[i] = (proc.returncode, proc.stdout, proc.stderr)
        except OSError as exc:
            outputs[i] = (-1, "", f"cannot start a replay worker: {exc}")

    threads = [threading.Thread(target=work, args=(i, part), daemon=True) for i, part in enumerate(parts)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    pool.workers = len(parts)
    for part, output in zip(parts, outputs):
        assert output is not None
        code, stdout, stderr = output
        done = False
        fatal: str | None = None
        for line in stdout.splitlines():
            if not line.strip():
                continue
            doc = json.loads(line)
            if "id" in doc:
                pool.results[doc["id"]] = doc
            elif "load" in doc:
                pool.load_failures[tuple(doc["load"])] = doc["error"]  # type: ignore[index]
            elif "done" in doc:
                done = True
                pool.peak_rss_kb = max(pool.peak_rss_kb, int(doc.get("peakRssKb") or 0))
            elif "fatal" in doc:
                fatal = doc["fatal"]
        if done and code == 0:
            continue
        why = fatal or f"its replay worker exited with status {code} ({_last_line(stderr, 'no output')})"
        for eid, flow_id, code_hash in part:
            if eid not in pool.results and (flow_id, code_hash) not in pool.load_failures:
                pool.unjudged[eid] = why
    return pool


_LOADER = r"""
import json, sys
from loom_runtime.registry import Registry
request = json.loads(sys.stdin.read())
registry = Registry.from_manifest(request["manifest"])
out = []
for flow_id, code_hash in request["versions"]:
    try:
        version = next(v for v in registry.versions(flow_id) if v.code_hash == code_hash)
        version.definition  # verify and execute the chunk: runs its imports of live step functions
        out.append([flow_id, code_hash, None])
    except Exception as exc:
        out.append([flow_id, code_hash, f"{type(exc).__name__}: {exc}"])
sys.stdout.write("\n@@loom-load@@" + json.dumps(out) + "\n")
"""


def load_versions(
    manifest: str | os.PathLike[str],
    versions: Sequence[tuple[str, str]],
    *,
    import_paths: Sequence[str | os.PathLike[str]] = (),
) -> dict[tuple[str, str], str]:
    """Load each (flow id, codeHash) chunk in a fresh interpreter; return the ones that failed."""
    env, cwd = worker_environment(import_paths)
    request = json.dumps({"manifest": str(Path(manifest).resolve()), "versions": [list(v) for v in versions]})
    proc = subprocess.run(
        [sys.executable, "-c", _LOADER], input=request, capture_output=True, text=True, env=env, check=False, cwd=cwd,
    )
    marker = proc.stdout.rfind("@@loom-load@@")
    if proc.returncode != 0 or marker < 0:
        detail = _last_line(proc.stderr, f"exit {proc.returncode}")
        return {tuple(v): f"the loader process failed ({detail})" for v in versions}  # type: ignore[misc]
    rows = json.loads(proc.stdout[marker + len("@@loom-load@@"):])
    return {(f, h): err for f, h, err in rows if err is not None}
