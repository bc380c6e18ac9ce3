"""``deploy_check``: can this build serve every unfinished execution in a journal? Proved by replay.

For each unfinished execution (``census.unfinished``: running, suspended, waiting on a timer,
parked on ``__loom_diverged__``):

1. **Resolve** the version the candidate build would serve it, with the registry's own D2 rules
   (``Registry.resolve`` over the candidate manifest: structure first, then the pinned codeHash,
   then a later scheme's version listing it in ``rehashedFrom`` (the same code, *rehashed*), then
   the current version's ``compatible_with``; a migrated execution by its migration target).
   Resolving loads no code, so this runs in the checking process; a refusal is the verdict
   (``mismatch`` for ``FlowCodeMismatchError``, ``stranded`` for a flow the build lacks).
2. **Replay** it against its recorded journal in a sandbox (``loom_runtime.sandbox``: the runtime's
   own drive loop and D3 detector, a journal that accepts nothing, deciders never called), in
   worker processes (``replay_pool``, ``loom_runtime.sandbox_worker``): fresh interpreters on the
   service's import path, so the candidate's chunks never load into this process, each version's
   chunk loaded once per worker, each execution's events read once, from the store opened
   read-only. No step, decider, emit or other effect of user code runs.
3. **Judge** (``deploy_report``): servable when the replay reaches its resume point (the recorded
   park it reproduces, or the point where an open journal's new work begins); diverged when D3
   refuses it; mismatch when it does new work before its resume point or ends otherwise; stranded
   when its chunk does not load.

An execution a ``Runtime(strict=True)`` parked on ``__loom_diverged__`` for a live step id its flow
did not declare (``correlationKey: "undeclared step: `id`"``) is judged against the build's
*current* version of its flow, not the one it pins: that one refused it, and the way on is a
release that declares the id plus ``runtime.resume_as(id, "current")``. Diverged (exit 1) when the
current version still does not declare it (a strict runtime would park it again; known from the
manifest, no replay needed), else replayed on the current version as usual.

``--no-replay`` (``replay=False``) keeps the hash-only check: resolution, and each needed chunk
loaded in a fresh interpreter. ``--sample N`` replays the N most recently started executions per
version (flow id and recorded codeHash) plus every one parked on ``__loom_diverged__``; the rest
are judged by resolution (their version's chunk is still loaded by the workers).

Why replay: a hash check trusts ``compatible_with``. A reviewer who lists the old codeHash on a
body that dropped a recorded step gets "servable" from hashes, and a resume that parks the
execution as diverged (the issue this module answers). Rejected: a second implementation of D3 in
the compiler (two detectors drift apart; the runtime's is the one a worker applies after the
deploy) and replaying in this process (``sys.modules`` would hold the candidate's step modules, and
chunk code would run inside the CLI).
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from loom_runtime.definition import RESERVED_GATE
from loom_runtime.errors import FlowCodeMismatchError, FlowNotFoundError, LoomError
from loom_runtime.families import undeclared_check, undeclared_park_step
from loom_runtime.journal import bulk
from loom_runtime.journal.events import ExecutionSummary
from loom_runtime.journal.protocol import JournalStore
from loom_runtime.registry import FlowVersion, Registry

from .census import DIVERGED, census_status, unfinished
from .deploy_report import DeployReport, Verdict, short_digest as _short
from .replay_pool import load_versions, replay_in_workers
from .store import open_store

__all__ = ["deploy_check", "judge", "sample_executions", "default_jobs", "undeclared_parks"]

#: executions per replay worker below which another worker costs more (an interpreter start and
#: a chunk load) than it saves
_PER_WORKER = 250


def default_jobs(executions: int) -> int:
    """One worker per CPU (at most 4), fewer for a small journal."""
    return max(1, min(os.cpu_count() or 1, 4, executions // _PER_WORKER))


def _how(version: FlowVersion, recorded: str | None) -> str:
    if recorded and version.code_hash == recorded:
        return "pinned"
    if recorded and recorded in version.rehashed_from:
        return "rehashed"  # the same code, fingerprinted again under a later scheme
    if recorded and recorded in version.compatible_with:
        return "compatible"
    return "current"


def sample_executions(
    summaries: Sequence[ExecutionSummary], n: int, started: Mapping[str, float]
) -> set[str]:
    """The ids ``--sample n`` replays: per (flow id, codeHash) the ``n`` most recently started, plus
    every execution parked on ``__loom_diverged__``. ``started``: start times by id (a missing one
    sorts oldest)."""
    if n < 1:
        raise ValueError(f"--sample takes a positive number of executions per version, got {n}")
    keep = {s.execution_id for s in summaries if census_status(s) == DIVERGED}
    groups: dict[tuple[str, str | None], list[ExecutionSummary]] = defaultdict(list)
    for s in summaries:
        groups[(s.flow_id, s.code_hash)].append(s)
    for group in groups.values():
        group.sort(key=lambda s: (started.get(s.execution_id, float("-inf")), s.execution_id), reverse=True)
        keep.update(s.execution_id for s in group[:n])
    return keep


def deploy_check(
    store: str,
    manifest: str | os.PathLike[str],
    *,
    import_paths: Sequence[str | os.PathLike[str]] = (),
    replay: bool = True,
    jobs: int | None = None,
    sample: int | None = None,
) -> DeployReport:
    """Judge every unfinished execution of the journal at ``store`` against the build ``manifest``."""
    with open_store(store) as journal:
        summaries = unfinished(journal)
        replay_only: set[str] | None = None
        if replay and sample is not None:
            started = bulk.started_at(journal, [s.execution_id for s in summaries])
            replay_only = sample_executions(summaries, sample, started)
        undeclared = undeclared_parks(journal, summaries)
    return judge(summaries, manifest, store=store, import_paths=import_paths, replay=replay, jobs=jobs,
                 replay_only=replay_only, undeclared=undeclared)


def undeclared_parks(journal: JournalStore, summaries: Iterable[ExecutionSummary]) -> dict[str, str]:
    """The executions among ``summaries`` a strict runtime parked on an undeclared step id, with the
    id. Reads the events of the executions parked on ``__loom_diverged__`` only (an emergency, few)."""
    parked = [s.execution_id for s in summaries if census_status(s) == DIVERGED]
    out: dict[str, str] = {}
    for eid, events in bulk.read_many(journal, parked).items():
        condition = events[-1].payload.get("condition") if events else None
        step_id = undeclared_park_step(condition.get("correlationKey")) if isinstance(condition, dict) else None
        if step_id is not None:
            out[eid] = step_id
    return out


def judge(
    summaries: Iterable[ExecutionSummary],
    manifest: str | os.PathLike[str],
    *,
    store: str | None = None,
    import_paths: Sequence[str | os.PathLike[str]] = (),
    replay: bool = True,
    jobs: int | None = None,
    replay_only: set[str] | None = None,
    undeclared: Mapping[str, str] | None = None,
) -> DeployReport:
    """``deploy_check`` over given ``summaries`` (the journal at ``store`` is read for the replay);
    ``undeclared``: the executions a strict runtime parked on an undeclared step id (``undeclared_parks``)."""
    undeclared = undeclared or {}
    if replay and store is None:
        raise ValueError("a replay reads the executions' events: give the store URL")
    registry = Registry.from_manifest(manifest)
    verdicts: dict[str, Verdict] = {}
    resolved: list[tuple[ExecutionSummary, FlowVersion]] = []
    for s in sorted(summaries, key=lambda s: s.execution_id):
        status = census_status(s)
        refused = undeclared.get(s.execution_id)
        try:
            if refused is None:
                version = registry.resolve(s.flow_id, flow_hash=s.flow_hash, code_hash=s.code_hash,
                                           execution_id=s.execution_id)
            else:  # the pinned version refused it: resume_as(id, "current") is the way on
                version = registry.current(s.flow_id)
                check = undeclared_check(version)
                if check is not None and check(refused):
                    verdicts[s.execution_id] = Verdict(
                        s.execution_id, s.flow_id, status, s.code_hash, "diverged", how="current",
                        served_by=version.code_hash, undeclared=refused, reason=(
                            f"parked on `{RESERVED_GATE}` by a strict runtime that refused undeclared step `{refused}`, "
                            f"and this build's current version {_short(version.code_hash)} does not declare it either: "
                            "a strict runtime would park it again. Declare the id (steps=[...] or step_families=[...]), "
                            "build, then runtime.resume_as(execution_id, \"current\")"))
                    continue
        except FlowNotFoundError:
            verdicts[s.execution_id] = Verdict(
                s.execution_id, s.flow_id, status, s.code_hash, "stranded",
                reason=f"the build has no flow `{s.flow_id}`; ship a build whose manifest lists it")
            continue
        except FlowCodeMismatchError as exc:
            verdicts[s.execution_id] = Verdict(s.execution_id, s.flow_id, status, s.code_hash, "mismatch", reason=str(exc))
            continue
        except LoomError as exc:  # a manifest entry that cannot be read: nothing serves it
            verdicts[s.execution_id] = Verdict(s.execution_id, s.flow_id, status, s.code_hash, "stranded", reason=str(exc))
            continue
        resolved.append((s, version))
    to_replay = [(s, v) for s, v in resolved if replay and (replay_only is None or s.execution_id in replay_only)]
    pool = None
    failures: dict[tuple[str, str], str] = {}
    if to_replay:
        tasks = [(s.execution_id, v.flow_id, v.code_hash or "") for s, v in to_replay]
        pool = replay_in_workers(manifest, store or "", tasks, import_paths=import_paths,
                                 jobs=jobs or default_jobs(len(tasks)))
        failures.update(pool.load_failures)
    replayed = {s.execution_id for s, _ in to_replay}
    unloaded = sorted({(v.flow_id, v.code_hash or "") for s, v in resolved if s.execution_id not in replayed} - {
        (v.flow_id, v.code_hash or "") for _, v in to_replay})
    if unloaded:
        failures.update(load_versions(manifest, unloaded, import_paths=import_paths))
    for s, v in resolved:
        verdicts[s.execution_id] = _verdict(s, v, failures, pool.results if pool else {},
                                            pool.unjudged if pool else {}, s.execution_id in replayed,
                                            undeclared.get(s.execution_id))
    return DeployReport(
        str(manifest),
        tuple(verdicts[k] for k in sorted(verdicts)),
        replay=replay,
        load_failures=tuple((f, h, e) for (f, h), e in sorted(failures.items())),
        sampled_out=len(resolved) - len(to_replay) if replay else 0,
        workers=pool.workers if pool else 0,
        peak_rss_kb=pool.peak_rss_kb if pool else 0,
    )


def _verdict(
    s: ExecutionSummary, v: FlowVersion, failures: Mapping[tuple[str, str], str],
    results: Mapping[str, dict], unjudged: Mapping[str, str], replayed: bool, refused: str | None = None,
) -> Verdict:
    status = census_status(s)
    how = _how(v, s.code_hash)
    base = dict(execution_id=s.execution_id, flow_id=s.flow_id, status=status, recorded_code_hash=s.code_hash,
                served_by=v.code_hash, how=how, undeclared=refused)
    error = failures.get((v.flow_id, v.code_hash or ""))
    if error is not None:
        return Verdict(**base, verdict="stranded",
                       reason=f"it resolves to version {v.code_hash}, whose chunk cannot be loaded: {error}")
    if not replayed:
        return Verdict(**base, verdict="servable", reason=_retry_note(status, refused) if refused else "")
    if s.execution_id in unjudged or s.execution_id not in results:
        why = unjudged.get(s.execution_id, "no replay worker reported it")
        return Verdict(**base, verdict="stranded", replayed=True,
                       reason=f"it could not be replayed: {why}; rerun with --jobs 1, or --no-replay to check hashes only")
    r = results[s.execution_id]
    kind, message = r["kind"], r["message"]
    served = f"served by {_short(v.code_hash)} ({how})"
    if kind == "reached":
        return Verdict(**base, verdict="servable", replayed=True, stopped=f"reaches its resume point: {message}",
                       reason=_retry_note(status, refused))
    if kind == "frontier":
        return Verdict(**base, verdict="servable", replayed=True, stopped=f"next: {message}",
                       reason=_retry_note(status, refused))
    if kind in ("finished", "gone"):
        return Verdict(**base, verdict="servable", replayed=True, stopped=f"nothing to serve: {message}")
    if kind == "diverged":
        skipped = tuple(r.get("skipped") or ())
        now = " (it is parked there now)" if status == DIVERGED else ""
        return Verdict(**base, verdict="diverged", replayed=True, skipped=skipped, reason=(
            f"{served}, but its replay {message}: a resume would refuse it and park it on `{RESERVED_GATE}`{now}. "
            "Ship the version it started on (history), or migrate it with runtime.resume_as(...)"))
    if kind == "undeclared":  # the version's declarations say it declares the id; its replay says otherwise
        return Verdict(**base, verdict="diverged", replayed=True, reason=(
            f"{served}, but in its replay {message}. Declare the id, build, then "
            "runtime.resume_as(execution_id, \"current\")"))
    if kind == "nondeterministic":
        return Verdict(**base, verdict="diverged", replayed=True, reason=(
            f"{served}, but in its replay {message}: a resume would park it on `{RESERVED_GATE}`"))
    if kind == "corrupt":
        return Verdict(**base, verdict="stranded", replayed=True, reason=(
            f"its journal cannot be replayed by any build: {message}; repair or export it before the deploy"))
    if kind == "error":  # the run itself failed (API misuse, a body that exits): not a flow outcome
        return Verdict(**base, verdict="mismatch", replayed=True, reason=(
            f"{served}, but its replay failed: {message}; a resume on this build would fail the same way"))
    # live-work, mismatch: the code does not reproduce what the journal recorded
    return Verdict(**base, verdict="mismatch", replayed=True, reason=(
        f"{served}, but its replay does not reach its resume point: {message}; a resume would do work the recorded "
        "run did not. Ship the version it started on (history), or drop its codeHash from compatible_with"))


def _retry_note(status: str, refused: str | None = None) -> str:
    if status != DIVERGED:
        return ""
    if refused is not None:
        return (f"parked on `{RESERVED_GATE}` by a strict runtime that refused undeclared step `{refused}`, which this "
                "build's current version declares: after the deploy, runtime.resume_as(execution_id, \"current\") "
                "runs it on (retry_diverged resolves by the recorded structure: the version that refused it, or none)")
    return f"parked on `{RESERVED_GATE}`: after the deploy, runtime.retry_diverged(execution_id) runs it on"
