"""``deploy_check``: can this build serve every unfinished execution in a journal?

For each unfinished execution (``census.unfinished``) the registry built from the manifest answers
with its own resolution rules (``Registry.resolve``: structure first, then the pinned codeHash,
then the current version's ``compatible_with``; a version of a later scheme that lists the recorded
hash in ``rehashedFrom`` serves it as *rehashed*, the same code; a migrated execution resolves by its migration
target, which is the summary's effective codeHash). The rules are not re-implemented here, so this
check and a worker after the deploy can never disagree.

Resolving never loads code, so the versions the executions need are then *loaded*: each chunk is
verified and executed in a fresh Python process (``sys.executable``) with the project's import
path. Executing a chunk runs its imports, so a step function that was renamed or deleted from the
live package (chunks import steps by name: ``from shop.steps import charge``) fails here instead
of in production. A fresh process is what a worker after the deploy is, and no module cached by
this process (or by a previous check) can hide a missing name. Every execution on a version that
fails to load is stranded too.

Rejected: loading chunks in this process (``sys.modules`` would keep a step module imported by an
earlier check; chunk code would run inside the CLI) and checking only that a chunk file exists
(an existing chunk whose step import fails strands its executions just the same).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from loom_runtime.errors import FlowNotFoundError, LoomError
from loom_runtime.journal.events import ExecutionSummary
from loom_runtime.registry import FlowVersion, Registry

__all__ = ["Served", "Stranded", "DeployReport", "deploy_check", "load_versions"]


@dataclass(frozen=True, slots=True)
class Served:
    execution_id: str
    flow_id: str
    status: str
    recorded_code_hash: str | None
    served_by: str | None  # the codeHash of the version that serves it
    how: str  # "pinned" | "rehashed" | "compatible" | "unfingerprinted"


@dataclass(frozen=True, slots=True)
class Stranded:
    execution_id: str
    flow_id: str
    status: str
    recorded_code_hash: str | None
    reason: str


@dataclass(frozen=True, slots=True)
class DeployReport:
    manifest: str
    served: tuple[Served, ...]
    stranded: tuple[Stranded, ...]
    #: (flow id, codeHash) -> error, for every needed version whose chunk did not load
    load_failures: tuple[tuple[str, str, str], ...] = ()

    @property
    def ok(self) -> bool:
        return not self.stranded

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    def to_json(self) -> dict:
        return {
            "schema": "loom-deploy-check/1",
            "manifest": self.manifest,
            "ok": self.ok,
            "served": [
                {"executionId": s.execution_id, "flowId": s.flow_id, "status": s.status,
                 "codeHash": s.recorded_code_hash, "servedBy": s.served_by, "how": s.how}
                for s in self.served
            ],
            "stranded": [
                {"executionId": s.execution_id, "flowId": s.flow_id, "status": s.status,
                 "codeHash": s.recorded_code_hash, "reason": s.reason}
                for s in self.stranded
            ],
        }


def _how(version: FlowVersion, recorded: str | None) -> str:
    if recorded and version.code_hash == recorded:
        return "pinned"
    if recorded and recorded in version.rehashed_from:
        return "rehashed"  # the same code, fingerprinted again under a later scheme
    if recorded and recorded in version.compatible_with:
        return "compatible"
    return "unfingerprinted"


def deploy_check(
    summaries: Iterable[ExecutionSummary],
    manifest: str | os.PathLike[str],
    *,
    import_paths: Sequence[str | os.PathLike[str]] = (),
    load: bool = True,
) -> DeployReport:
    """Judge each execution in ``summaries`` against the build ``manifest`` (see the module docstring)."""
    registry = Registry.from_manifest(manifest)
    resolved: list[tuple[ExecutionSummary, FlowVersion]] = []
    stranded: list[Stranded] = []
    for s in sorted(summaries, key=lambda s: s.execution_id):
        try:
            version = registry.resolve(s.flow_id, flow_hash=s.flow_hash, code_hash=s.code_hash, execution_id=s.execution_id)
        except FlowNotFoundError:
            stranded.append(Stranded(s.execution_id, s.flow_id, s.status, s.code_hash,
                                     f"the build has no flow `{s.flow_id}`; ship a build whose manifest lists it"))
            continue
        except LoomError as exc:  # FlowCodeMismatchError, a divergence, …: the message says why
            stranded.append(Stranded(s.execution_id, s.flow_id, s.status, s.code_hash, str(exc)))
            continue
        resolved.append((s, version))
    needed = sorted({(v.flow_id, v.code_hash) for _, v in resolved if v.code_hash is not None})
    failures = load_versions(manifest, needed, import_paths=import_paths) if load and needed else {}
    served: list[Served] = []
    for s, v in resolved:
        error = failures.get((v.flow_id, v.code_hash or ""))
        if error is not None:
            stranded.append(Stranded(s.execution_id, s.flow_id, s.status, s.code_hash,
                                     f"it resolves to version {v.code_hash}, whose chunk cannot be loaded: {error}"))
        else:
            served.append(Served(s.execution_id, s.flow_id, s.status, s.code_hash, v.code_hash, _how(v, s.code_hash)))
    stranded.sort(key=lambda x: x.execution_id)
    return DeployReport(
        str(manifest),
        tuple(served),
        tuple(stranded),
        tuple((f, h, e) for (f, h), e in sorted(failures.items())),
    )


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
    env = dict(os.environ)
    paths = [str(Path(p).resolve()) for p in import_paths]
    cwd = paths[0] if paths else None
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    request = json.dumps({"manifest": str(Path(manifest).resolve()), "versions": [list(v) for v in versions]})
    proc = subprocess.run(
        [sys.executable, "-c", _LOADER], input=request, capture_output=True, text=True, env=env, check=False,
        cwd=cwd,
    )
    marker = proc.stdout.rfind("@@loom-load@@")
    if proc.returncode != 0 or marker < 0:
        detail = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        return {tuple(v): f"the loader process failed ({detail})" for v in versions}  # type: ignore[misc]
    rows = json.loads(proc.stdout[marker + len("@@loom-load@@"):])
    return {(f, h): err for f, h, err in rows if err is not None}
