"""Is an execution pinned to code the manifest knows? The runtime's loud warning when it is not.

Pinning is what makes a deploy safe: an execution records the codeHash of the version it started
on, and every later resume resolves that exact version (or one that lists it in
``compatible_with``). It silently stops working when the version has no codeHash: no manifest was
loaded (``Runtime()`` without a registry, ``Registry()`` without ``from_manifest``), the manifest is
stale (``loom build`` was forgotten after an edit) or does not list the flow. The registry warns
once at ``register`` time (``StaleManifestWarning``); what followed was quiet:

* a **start** recorded no codeHash, so the execution would resume on whatever code is current
  after the next deploy;
* a **resume** of an execution that recorded codeHash ``H`` resolved to live code without a
  fingerprint ("absent compares as equal", D2) and finished on code nothing proves is ``H``;
* a resume of an execution that recorded nothing ran on whatever was registered.

``problem(version, ...)`` names which of these a start or resume is (``None``: pinned), why the
version has no codeHash, and the fix. The runtime warns (``UnpinnedExecutionWarning`` through
``on_warn``, once per flow and case per ``Runtime`` so a worker loop does not flood its log; the
counter ``Runtime.unpinned_runs`` counts every occurrence) or, under ``strict=True``, raises
``UnpinnedExecutionError`` before anything is appended.

An author-supplied ``code_fingerprint=`` counts as a fingerprint: the author took responsibility.

Rejected: refusing unpinned executions by default (ADR-0113 G2: "absent never fails"; journals
written before fingerprints existed must keep resuming) and warning at every start (a service
without a manifest would log one line per request).
"""

from __future__ import annotations

from .versions import FlowVersion

__all__ = ["UnpinnedExecutionWarning", "problem", "why_unfingerprinted"]


class UnpinnedExecutionWarning(UserWarning):
    """An execution started or resumed on code the manifest does not know (see the module docstring)."""


def why_unfingerprinted(manifest_path: str | None) -> str:
    if manifest_path is None:
        return ("this runtime's registry has no manifest: pass registry=Registry.from_manifest("
                "\"build/loom/manifest.json\") (from a source tree) or Registry.from_package(\"<package>\") "
                "(an installed wheel), after `loom build`")
    return (f"the manifest {manifest_path} does not fingerprint the registered code (it is stale or does not "
            "list the flow; see the StaleManifestWarning when it was registered): run `loom build` and ship "
            "the new manifest")


def problem(version: FlowVersion, *, manifest_path: str | None, execution_id: str | None,
            recorded: str | None, starting: bool) -> str | None:
    """What is unpinned about starting (``starting``) or resuming ``execution_id`` (which recorded
    codeHash ``recorded``) on ``version``; None when the version is fingerprinted."""
    if version.code_hash is not None:
        return None
    why = why_unfingerprinted(manifest_path)
    flow = f"flow `{version.flow_id}`"
    if starting:
        return (f"{flow}: a new execution starts without a codeHash, so it is not pinned: after a deploy it "
                f"resumes on whatever code is current then. Cause: {why}")
    who = f"execution `{execution_id}` of {flow}"
    if recorded:
        return (f"{who} started on codeHash {recorded} but resumes on live code that has no codeHash; nothing "
                f"proves it is the code it started on. Cause: {why}")
    return (f"{who} recorded no codeHash when it started and resumes on live code that has none either; "
            f"nothing proves it is the code it started on. Cause: {why}")
