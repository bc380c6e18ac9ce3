"""The CI gate's rule (``loom check``) over a ``ReviewDiff`` and the build manifest.

A flow passes when in-flight executions that started on the base version can still be served by
the build, by the registry's own rules (``Registry.resolve``: structure first, then the exact
codeHash, then the current version's ``compatible_with``):

* unchanged (a *rehashed* flow included: the same code under a new scheme's hash) or new:
  nothing to serve differently;
* changed: the build **keeps** the base version, or the code alone changed and the head **lists**
  the base codeHash in ``compatible_with`` (a reviewer asserted the edit is replay-safe). Kept
  means resolution finds the base code: the manifest lists the base codeHash with the base
  flowHash (pinned), or a version that lists it in ``rehashedFrom`` (rehashed), or, across a scheme
  upgrade, an earlier-scheme version that is the base's code (``bundle.rehash``): a base ref is
  fingerprinted by this release, so its hash is the new scheme's, while the executions that
  started on it recorded the old scheme's hash, which the manifest keeps;
* removed: the build keeps the base version (a removed flow has no current code to be compatible).

Anything else is a failure with a message naming the flow, where it is, which members changed and
the ways out. Flow ids in ``[tool.loom.check] ignore`` are not judged (reported as notes).
Rejected: failing on every change (the gate exists to make a change safe, not to forbid it) and
trusting ``compatible_with`` after a structure change (resolution would never reach it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from loom_runtime.manifest import Manifest

from ..bundle.rehash import same_code
from .diff import FlowChange, ReviewDiff

__all__ = ["CheckFailure", "CheckReport", "check_diff"]


@dataclass(frozen=True, slots=True)
class CheckFailure:
    flow_id: str
    path: str | None
    line: int
    message: str


@dataclass(frozen=True, slots=True)
class CheckReport:
    diff: ReviewDiff
    failures: tuple[CheckFailure, ...]
    notes: tuple[str, ...] = ()
    manifest_path: str | None = None

    @property
    def ok(self) -> bool:
        return not self.failures and not self.diff.errors

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1


def _kept(manifest: Manifest | None, f: FlowChange) -> bool:
    if manifest is None or f.base_code_hash is None:
        return False
    entry = manifest.flows.get(f.flow_id)
    if entry is None:
        return False
    version = entry.versions.get(f.base_code_hash)
    if version is not None and version.flow_hash == f.base_flow_hash:
        return True
    if any(f.base_code_hash in v.rehashed_from and v.flow_hash == f.base_flow_hash for v in entry.versions.values()):
        return True
    if f.base_closure_sources is None or f.base_scheme is None or f.base_flow_hash is None:
        return False
    sources = dict(f.base_closure_sources)
    return any(
        same_code(v, scheme=f.base_scheme, flow_hash=f.base_flow_hash, closure_sources=sources)
        for v in entry.versions.values()
    )


def check_diff(
    diff: ReviewDiff,
    *,
    manifest: Manifest | None,
    manifest_label: str | None = None,
    ignore: Iterable[str] = (),
) -> CheckReport:
    """Judge every changed or removed flow of ``diff`` against the build ``manifest`` (None: no build)."""
    ignored = set(ignore)
    failures: list[CheckFailure] = []
    notes: list[str] = []
    where_build = manifest_label or "the build manifest"
    for f in diff.flows:
        if f.status in ("unchanged", "new"):
            continue
        if f.flow_id in ignored:
            notes.append(f"flow `{f.flow_id}` is {f.status} but listed in [tool.loom.check] ignore")
            continue
        if _kept(manifest, f):
            continue
        if f.status == "changed" and f.code_changed and not f.structure_changed and f.compatible:
            continue
        keep_how = (
            f"add `{diff.base}` to [tool.loom] history (or `loom build --from-git {diff.base}`) and rebuild"
            if diff.base_is_ref
            else f"build on top of the manifest that shipped it ({diff.base}) so the cumulative build keeps it"
        )
        failures.append(CheckFailure(f.flow_id, f.path, f.line, _message(f, diff.base, where_build, manifest is not None, keep_how)))
    return CheckReport(diff, tuple(failures), tuple(notes), manifest_label)


def _message(f: FlowChange, base: str, where_build: str, have_build: bool, keep_how: str) -> str:
    at = f" ({f.path}:{f.line})" if f.path else ""
    kept = (
        f"{where_build} does not keep its version {f.base_code_hash}"
        if have_build
        else f"there is no build manifest ({where_build}) to keep its version {f.base_code_hash}"
    )
    if f.status == "removed":
        return (
            f"flow `{f.flow_id}`{at} was removed since {base} and {kept}: its in-flight executions would strand; "
            f"{keep_how}"
        )
    members = ", ".join(f"{m.change} {m.qualname}" for m in f.members)
    what = f"its code changed since {base} ({members})" if members else f"it changed since {base}"
    if f.structure_changed:
        return (
            f"flow `{f.flow_id}`{at}: {what} and its declared structure changed (flowHash "
            f"{f.base_flow_hash} -> {f.head_flow_hash}), and {kept}; compatible_with cannot serve another "
            f"structure: {keep_how}, or migrate the executions with runtime.resume_as(...)"
        )
    return (
        f"flow `{f.flow_id}`{at}: {what}; {kept} and it does not list {f.base_code_hash} in compatible_with. "
        f"Either {keep_how}, or, if the edit is replay-safe, add {f.suggestion} to its @flow decorator"
    )
