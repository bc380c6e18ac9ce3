"""``replay_files``: replay exported histories against the current code (``loom replay``).

Each history is replayed by ``loom_runtime.history.replay_history`` on the *current* version of
its flow: no step effect runs; divergence is detected in ``fail`` mode over an in-memory journal
seeded with the history. "Current" is one of:

* ``live_flows(config)`` (the default): the working tree's flows, found by fingerprinting the
  project and imported from it, each carrying the codeHash the fingerprint gives the source on disk;
* ``manifest_flows(path)``: the current version of each flow in a build manifest (its chunk), to
  check the very artefact that will be deployed.

A history whose flow the current code does not define is an ``error`` result, not a skip, and an
empty set of histories is an error before anything runs (``load_histories``).

Rejected: replaying against the production journal (a check must not append to it, nor need
access to it in CI) and running the step functions (replay serves recorded results; running
effects in CI would charge cards).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

from loom_runtime.definition import FlowDefinition
from loom_runtime.errors import LoomError
from loom_runtime.history import History, ReplayResult, load_histories, replay_history
from loom_runtime.registry import FlowVersion, Registry

from ..config import LoomConfig
from ..sources import DirectorySourceTree

__all__ = ["ReplayReport", "replay_files", "replay_histories", "live_flows", "manifest_flows", "import_roots", "add_import_paths"]

Target = Union[FlowVersion, FlowDefinition, Callable[..., Any], str]  # a str: why it is unavailable


@dataclass(frozen=True, slots=True)
class ReplayReport:
    results: tuple[ReplayResult, ...]

    @property
    def ok(self) -> bool:
        return bool(self.results) and all(r.ok for r in self.results)

    @property
    def failures(self) -> tuple[ReplayResult, ...]:
        return tuple(r for r in self.results if not r.ok)

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    def to_json(self) -> dict:
        return {
            "schema": "loom-replay/1",
            "ok": self.ok,
            "results": [
                {"executionId": r.execution_id, "flowId": r.flow_id, "kind": r.kind, "message": r.message,
                 "file": r.source, "recordedCodeHash": r.recorded_code_hash, "replayedCodeHash": r.replayed_code_hash,
                 "skipped": list(r.skipped), "frontier": r.frontier}
                for r in self.results
            ],
        }


def replay_histories(histories: Iterable[History], flows: Mapping[str, Target]) -> ReplayReport:
    results = []
    for h in histories:
        target = flows.get(h.flow_id)
        if target is None or isinstance(target, str):
            why = target or f"the current code defines no flow `{h.flow_id}` (known: {', '.join(sorted(flows)) or 'none'})"
            results.append(ReplayResult(h.execution_id, h.flow_id, "error", f"execution `{h.execution_id}`: {why}",
                                        recorded_code_hash=h.summary.code_hash, source=h.source))
            continue
        results.append(replay_history(h, target))
    return ReplayReport(tuple(results))


def replay_files(paths: Iterable[str | os.PathLike[str]], flows: Mapping[str, Target]) -> ReplayReport:
    """Load every history under ``paths`` (an empty set is a ``HistoryError``) and replay each."""
    return replay_histories(load_histories(list(paths)), flows)


def add_import_paths(paths: Iterable[str | os.PathLike[str]]) -> None:
    """Put ``paths`` first on ``sys.path`` (in order): where flows, and chunks' step imports, come from."""
    for root in reversed([str(Path(p).resolve()) for p in paths]):
        if root in sys.path:
            sys.path.remove(root)
        sys.path.insert(0, root)


def manifest_flows(manifest: str | os.PathLike[str], *, import_paths: Iterable[str | os.PathLike[str]] = ()) -> dict[str, Target]:
    """The current version of every flow in ``manifest``; its chunk imports live step functions,
    which are looked up on ``import_paths`` first."""
    add_import_paths(import_paths)
    registry = Registry.from_manifest(manifest)
    out: dict[str, Target] = {}
    for flow_id in registry.flow_ids():
        try:
            out[flow_id] = registry.current(flow_id)
        except LoomError as exc:  # a removed flow has no current version
            out[flow_id] = f"the manifest has no current version of `{flow_id}` ({exc})"
    return out


def import_roots(config: LoomConfig) -> list[str]:
    roots = [str(config.root)]
    if (config.root / "src").is_dir():
        roots.append(str(config.root / "src"))
    return roots


def live_flows(config: LoomConfig) -> dict[str, Target]:
    """The working tree's flows, imported (the project root, and ``src/``, go on ``sys.path``)."""
    from ..fingerprint import fingerprint_project  # libcst: only when live flows are asked for

    result = fingerprint_project(DirectorySourceTree(config.root, config), config)
    add_import_paths(import_roots(config))
    out: dict[str, Target] = {}
    for fp in result.flows:
        if "." in fp.function:
            out[fp.flow_id] = f"flow `{fp.flow_id}` is the method {fp.module}.{fp.function}; replay it with assert_replays on an instance's definition"
            continue
        try:
            fn = getattr(importlib.import_module(fp.module), fp.function)
        except Exception as exc:  # noqa: BLE001 - any import failure is a finding about this flow
            out[fp.flow_id] = f"importing {fp.module}.{fp.function} ({fp.path}:{fp.line}) failed: {type(exc).__name__}: {exc}"
            continue
        out[fp.flow_id] = FlowDefinition.from_function(fn).with_fingerprint(fp.code_hash)
    return out  # a flow in a file with source errors is simply absent: its histories report that


