"""What ``loom deploy-check`` found, per execution, and its text, JSON and GitHub renderings.

A ``Verdict`` per unfinished execution, one of:

* ``servable``: the build resolves it (``how``: ``pinned`` to its own codeHash, ``rehashed`` (the
  same code under a later fingerprint scheme), ``compatible`` through the current version's
  ``compatible_with``, or ``current`` when a side has no fingerprint) and, when replayed, its replay reached its resume point (``stopped``: the recorded
  park it reproduced, or where an open journal's new work begins);
* ``diverged``: its replay never asks for recorded steps (``skipped``, named as the runtime names
  them when it parks the execution), or asks for a recorded id as another kind of work;
* ``mismatch``: the build has the flow but refuses the recorded hashes (``FlowCodeMismatchError``),
  or the replay does not reach the resume point (new work before it, another outcome);
* ``stranded``: nothing can serve it: the flow is not in the build, its chunk is missing or does
  not load, its journal cannot be folded (corrupt), or no worker could judge it.

An execution parked on ``__loom_diverged__`` carries the census status ``diverged``
(``census.census_status``, the one definition both commands use), whatever its verdict: when it is
servable the build would run it on, but only after ``runtime.retry_diverged``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from loom_runtime.definition import RESERVED_GATE

from ..workflow_commands import command
from .census import DIVERGED

__all__ = ["VERDICTS", "Verdict", "DeployReport", "render_text", "render_github", "short_digest", "SCHEMA"]

VERDICTS = ("servable", "diverged", "mismatch", "stranded")
SCHEMA = "loom-deploy-check/2"


def short_digest(digest: str | None, n: int = 12) -> str:
    if not digest:
        return "(none)"
    algo, _, hexpart = digest.partition(":")
    return f"{algo}:{hexpart[:n]}"


@dataclass(frozen=True, slots=True)
class Verdict:
    execution_id: str
    flow_id: str
    status: str  # the census status: running | suspended | diverged (parked on __loom_diverged__)
    recorded_code_hash: str | None  # the effective one (a migration's target)
    verdict: str  # servable | diverged | mismatch | stranded
    served_by: str | None = None  # the codeHash of the version that would serve it
    how: str | None = None  # pinned | rehashed | compatible | current
    replayed: bool = False
    stopped: str | None = None  # servable, replayed: where its replay stopped
    skipped: tuple[str, ...] = ()  # diverged: recorded steps never asked for
    reason: str = ""  # why it is not servable (and, for a servable one, anything to do)
    undeclared: str | None = None  # parked by a strict runtime that refused this undeclared step id

    @property
    def ok(self) -> bool:
        return self.verdict == "servable"

    @property
    def parked_on_divergence(self) -> bool:
        return self.status == DIVERGED

    def to_json(self) -> dict[str, Any]:
        return {
            "executionId": self.execution_id, "flowId": self.flow_id, "status": self.status,
            "codeHash": self.recorded_code_hash, "verdict": self.verdict, "servedBy": self.served_by,
            "how": self.how, "replayed": self.replayed, "stoppedAt": self.stopped, "skipped": list(self.skipped),
            "reason": self.reason, "parkedOnDivergence": self.parked_on_divergence, "undeclaredStep": self.undeclared,
        }


@dataclass(frozen=True, slots=True)
class DeployReport:
    manifest: str
    executions: tuple[Verdict, ...]  # sorted by execution id
    replay: bool = True  # False: --no-replay (hashes and chunk loads only)
    #: (flow id, codeHash, error) for every needed version whose chunk did not load
    load_failures: tuple[tuple[str, str, str], ...] = ()
    sampled_out: int = 0  # executions judged by resolution only (--sample)
    workers: int = 0
    peak_rss_kb: int = 0  # the largest replay worker's

    def of(self, verdict: str) -> tuple[Verdict, ...]:
        return tuple(v for v in self.executions if v.verdict == verdict)

    @property
    def served(self) -> tuple[Verdict, ...]:
        return self.of("servable")

    @property
    def stranded(self) -> tuple[Verdict, ...]:
        return self.of("stranded")

    @property
    def diverged(self) -> tuple[Verdict, ...]:
        return self.of("diverged")

    @property
    def mismatched(self) -> tuple[Verdict, ...]:
        return self.of("mismatch")

    @property
    def ok(self) -> bool:
        return all(v.ok for v in self.executions)

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    @property
    def replayed(self) -> int:
        return sum(1 for v in self.executions if v.replayed)

    def counts(self) -> dict[str, int]:
        c = Counter(v.verdict for v in self.executions)
        return {k: c.get(k, 0) for k in VERDICTS}

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "manifest": self.manifest,
            "ok": self.ok,
            "replay": self.replay,
            "replayed": self.replayed,
            "sampledOut": self.sampled_out,
            "workers": self.workers,
            "workerPeakRssKb": self.peak_rss_kb,
            "counts": self.counts(),
            "executions": [v.to_json() for v in self.executions],
            "loadFailures": [{"flowId": f, "codeHash": h, "error": e} for f, h, e in self.load_failures],
        }


def _who(v: Verdict) -> str:
    return f"execution `{v.execution_id}` (flow `{v.flow_id}`, {short_digest(v.recorded_code_hash)}, {v.status})"


def _summary(report: DeployReport) -> str:
    c = report.counts()
    total = len(report.executions)
    how = "hash-only check, nothing replayed" if not report.replay else (
        f"replayed {report.replayed} in {report.workers} worker(s)"
        + (f", {report.sampled_out} sampled out and judged by their hashes" if report.sampled_out else "")
    )
    bad = [f"{c[k]} {k}" for k in ("diverged", "mismatch", "stranded") if c[k]]
    return (f"loom deploy-check: {c['servable']} of {total} unfinished execution(s) servable by {report.manifest} "
            f"({how})" + (f"; {', '.join(bad)}" if bad else ""))


def render_text(report: DeployReport) -> str:
    lines = [f"{v.verdict}: {_who(v)}: {v.reason}" for v in report.executions if not v.ok]
    groups = Counter(
        (v.flow_id, v.served_by, v.how, v.stopped if v.replayed else "judged by its hashes")
        for v in report.executions if v.ok
    )
    for (flow_id, served_by, how, stopped), n in sorted(groups.items(), key=lambda kv: (kv[0][0], str(kv[0][1]), str(kv[0][3]))):
        lines.append(f"servable: {n} execution(s) of `{flow_id}` on {short_digest(served_by)} ({how}): {stopped}")
    retry = [v for v in report.executions if v.ok and v.parked_on_divergence and v.undeclared is None]
    if retry:
        lines.append(
            f"note: {len(retry)} execution(s) parked on `{RESERVED_GATE}` ({_shown(retry)}) replay cleanly on this build; "
            "they stay parked until runtime.retry_diverged(execution_id) is called after the deploy"
        )
    migrate = [v for v in report.executions if v.ok and v.parked_on_divergence and v.undeclared is not None]
    if migrate:
        lines.append(
            f"note: {len(migrate)} execution(s) parked on `{RESERVED_GATE}` by a strict runtime refusing an undeclared "
            f"step ({_shown(migrate)}) replay cleanly on this build's current version; they stay parked until "
            "runtime.resume_as(execution_id, \"current\") is called after the deploy (retry_diverged resolves by "
            "the recorded structure: the version that refused them, or none)"
        )
    lines.append(_summary(report))
    return "\n".join(lines)


def _shown(verdicts: list[Verdict]) -> str:
    n = len(verdicts)
    return ", ".join(f"`{v.execution_id}`" for v in verdicts[:10]) + (f" and {n - 10} more" if n > 10 else "")


def render_github(report: DeployReport) -> str:
    """Workflow commands: an error per execution that is not servable, then a notice with the summary."""
    lines = [command("error", f"{_who(v)}: {v.reason}", title=f"loom deploy-check: {v.verdict} {v.execution_id}")
             for v in report.executions if not v.ok]
    lines.append(command("notice" if report.ok else "error", _summary(report), title="loom deploy-check"))
    return "\n".join(lines)
