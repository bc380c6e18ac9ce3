"""``plan_gc`` / ``apply_gc``: drop manifest versions (and their chunks) no unfinished execution needs.

The versions to keep are, per flow: the current version (never removed), and every version that
``Registry.resolve`` picks for an unfinished execution in the given journals: the registry's own
rules decide which chunk serves whom, so a version that an execution pins is kept while one that
is only *compatible* with the current version goes.

**Scheme upgrades.** After a rebuild under a new scheme an execution that recorded an fp/1 hash
``h1`` is served by the fp/2 version ``h2`` that lists ``h1`` in ``rehashedFrom`` (the registry's
rule): ``h2`` is kept because it serves. ``h1`` is kept too, as long as any unfinished execution
recorded it: a runtime that predates ``rehashedFrom`` (an older ``loom_runtime`` deployed with a
manifest from a newer build) resolves ``h1`` by its exact hash only, and dropping it would strand
the execution there; one chunk per linked version until those executions drain is cheap next to
that. Once no execution records ``h1`` it goes like any other version, and ``h2`` keeps its
``rehashedFrom`` (the claim that they are the same code stays true). Rejected: treating
``rehashedFrom`` as making ``h1`` redundant at once (it is, for this runtime only). If any execution of a flow cannot be resolved
(it is already stranded), nothing of that flow is removed: the operator may still fix it by
shipping or migrating, and a gc must never make a bad state worse. A removed flow whose every
version goes is dropped from the manifest.

``apply_gc`` holds the output directory's lock (``bundle.output_lock``, which ``loom build`` holds
from reading the previous manifest to writing the new one), and under it refuses when the manifest
changed since the plan (another build ran): the plan's digest of the manifest bytes must still
match. Without the lock a build in flight had read the old manifest, the gc deleted a chunk, and
the build then wrote a manifest naming it again (8 of 8 trials). It writes the new manifest atomically first and
only then deletes the chunk files no remaining version references, so a crash in between leaves
stray files, never a manifest that points at a missing chunk.

Rejected: age-based retention (age says nothing about whether an execution pins a version) and
rewriting the manifest in place (a reader in another process could see half a file).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from loom_runtime.errors import LoomError, ManifestError
from loom_runtime.hashing import sha256_digest
from loom_runtime.journal.events import ExecutionSummary
from loom_runtime.manifest import FlowEntry, Manifest, load_manifest, write_manifest
from loom_runtime.registry import Registry

from ..bundle.output_lock import output_lock

__all__ = ["GcVersion", "GcPlan", "GcResult", "plan_gc", "apply_gc"]


@dataclass(frozen=True, slots=True)
class GcVersion:
    flow_id: str
    code_hash: str
    chunk: str
    reason: str  # why it is kept ("current", "pinned by 2 execution(s)", …) or removed


@dataclass(frozen=True, slots=True)
class GcPlan:
    manifest_path: str
    manifest_digest: str  # sha256 of the manifest bytes the plan was made from
    keep: tuple[GcVersion, ...]
    remove: tuple[GcVersion, ...]
    notes: tuple[str, ...] = ()
    executions: int = 0

    def to_json(self) -> dict:
        row = lambda v: {"flowId": v.flow_id, "codeHash": v.code_hash, "chunk": v.chunk, "reason": v.reason}  # noqa: E731
        return {
            "schema": "loom-gc/1",
            "manifest": self.manifest_path,
            "executions": self.executions,
            "keep": [row(v) for v in self.keep],
            "remove": [row(v) for v in self.remove],
            "notes": list(self.notes),
        }


@dataclass(frozen=True, slots=True)
class GcResult:
    plan: GcPlan
    deleted_chunks: tuple[str, ...]


def _digest(path: Path) -> str:
    return sha256_digest(path.read_bytes())


def plan_gc(manifest: str | os.PathLike[str], summaries: Iterable[ExecutionSummary]) -> GcPlan:
    path = Path(manifest)
    # the digest first: a build that replaces the manifest while the plan reads it makes apply_gc refuse
    digest = _digest(path)
    doc = load_manifest(path)
    registry = Registry.from_manifest(path)
    summaries = tuple(summaries)
    pins: dict[tuple[str, str], int] = {}
    recorded: dict[tuple[str, str], int] = {}  # by the exact codeHash an execution recorded
    blocked: dict[str, str] = {}
    notes: list[str] = []
    for s in summaries:
        if s.flow_id not in doc.flows:
            notes.append(f"execution `{s.execution_id}` runs flow `{s.flow_id}`, which this manifest does not list")
            continue
        try:
            v = registry.resolve(s.flow_id, flow_hash=s.flow_hash, code_hash=s.code_hash, execution_id=s.execution_id)
        except LoomError:
            blocked.setdefault(s.flow_id, s.execution_id)
            continue
        if v.code_hash is not None:
            pins[(s.flow_id, v.code_hash)] = pins.get((s.flow_id, v.code_hash), 0) + 1
            if s.code_hash and s.code_hash != v.code_hash and s.code_hash in v.rehashed_from:
                recorded[(s.flow_id, s.code_hash)] = recorded.get((s.flow_id, s.code_hash), 0) + 1
    for flow_id, eid in sorted(blocked.items()):
        notes.append(
            f"flow `{flow_id}`: execution `{eid}` cannot be served by this manifest (see `loom deploy-check`); "
            "every version of the flow is kept"
        )
    keep: list[GcVersion] = []
    remove: list[GcVersion] = []
    for flow_id in sorted(doc.flows):
        entry = doc.flows[flow_id]
        for code_hash in sorted(entry.versions):
            ve = entry.versions[code_hash]
            n = pins.get((flow_id, code_hash), 0)
            r = recorded.get((flow_id, code_hash), 0)
            if code_hash == entry.current:
                reason = "current" + (f"; serves {n} unfinished execution(s)" if n else "")
            elif n:
                reason = f"serves {n} unfinished execution(s)"
            elif r:
                reason = (f"recorded by {r} unfinished execution(s) that a rehashed version of the same code serves "
                          "(kept for runtimes that resolve by the exact hash)")
            elif flow_id in blocked:
                reason = "kept: the flow has an execution this manifest cannot serve"
            else:
                remove.append(GcVersion(flow_id, code_hash, ve.chunk, "no unfinished execution needs it"))
                continue
            keep.append(GcVersion(flow_id, code_hash, ve.chunk, reason))
    return GcPlan(str(path), digest, tuple(keep), tuple(remove), tuple(notes), len(summaries))


def apply_gc(plan: GcPlan) -> GcResult:
    """Write the manifest without ``plan.remove`` (atomically), then delete their unreferenced chunks,
    holding the output directory's lock (``output_lock``, the one ``loom build`` holds)."""
    path = Path(plan.manifest_path)
    with output_lock(path.parent):
        return _apply_locked(plan, path)


def _apply_locked(plan: GcPlan, path: Path) -> GcResult:
    if _digest(path) != plan.manifest_digest:
        raise ManifestError(
            f"{path}: the manifest changed since the gc plan was made (a build ran?); run `loom gc` again",
            path=str(path),
        )
    if not plan.remove:
        return GcResult(plan, ())
    doc = load_manifest(path)
    gone = {(v.flow_id, v.code_hash) for v in plan.remove}
    flows: dict[str, FlowEntry] = {}
    for flow_id, entry in doc.flows.items():
        versions = {h: ve for h, ve in entry.versions.items() if (flow_id, h) not in gone}
        if entry.current is not None and entry.current not in versions:  # never: the plan keeps current
            raise ManifestError(f"{path}: gc would remove the current version of `{flow_id}`", path=str(path), flow_id=flow_id)
        if versions:
            flows[flow_id] = FlowEntry(flow_id, entry.current, versions, removed=entry.removed)
    write_manifest(path, Manifest(flows=flows, schema=doc.schema, fingerprint_scheme=doc.fingerprint_scheme))
    still = {ve.chunk for e in flows.values() for ve in e.versions.values()}
    root = path.parent.resolve()
    deleted: list[str] = []
    for chunk in sorted({v.chunk for v in plan.remove} - still):
        target = (path.parent / chunk).resolve()
        if root not in target.parents:  # the reader refuses such paths; never delete outside the bundle
            continue
        try:
            target.unlink()
            deleted.append(chunk)
        except FileNotFoundError:
            pass
    return GcResult(plan, tuple(deleted))
