"""Cumulative manifest: merge what this build found with every version an earlier build shipped.

The manifest is the code-by-hash registry's table of contents (DESIGN §7, ADR-0113 D5): an
execution that started on an old version must find that version's chunk in every later release
until ``loom gc`` proves no execution pins it. So a rebuild never drops a version; it only adds
versions and moves the ``current`` marker.

Precedence for one codeHash seen in several places (the code behind it is identical by definition,
only metadata such as ``compatibleWith`` or the chunk's comments can differ):

1. the working tree (the version the author now declares: its ``compatible_with`` must win),
2. the previous manifest (its entry stays byte-stable, so an old process keeps verifying its chunk),
3. git history refs, later refs over earlier ones.

**Schemes.** Versions of an earlier fingerprint scheme are kept like any other (journals pin
them by value) and never re-keyed: a version built now carries ``scheme`` and, when it is the same
code as an earlier-scheme version, ``rehashedFrom`` (computed by ``build`` through ``rehash``,
before this merge), so a scheme upgrade adds one version per flow and drops none.

A flow that is gone from the working tree keeps its versions and becomes ``removed: true`` with
``current: null``. Rejected: rebuilding the whole manifest from history on every build (slow and
it would lose versions built from refs that were later garbage-collected from git), and dropping
removed flows (their in-flight executions would strand).

**Closure sources.** ``closure_source_digests`` gives the ``source.closureSources`` of a version
(see ``loom_runtime.manifest``): the sha256 of every first-party module holding a member of the
flow's closure, from the bytes the build already read (the bundler's ``_Source`` hashed each file
once while scanning; nothing is re-read). Step members do not count (a step is hashed by name,
so an edit to its body leaves the codeHash, and the manifest, valid), nor modules outside the
source tree. Entries of earlier manifests keep what they had (they are merged in unchanged); only
versions built in this run carry the field, which the working tree's entry then supplies.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from loom_runtime.manifest import FINGERPRINT_SCHEME, FlowEntry, Manifest, VersionEntry

from ..model import FlowFingerprint

__all__ = ["MergeResult", "closure_source_digests", "merge_manifest"]


def closure_source_digests(fp: FlowFingerprint, sha256_hex: Callable[[str], str | None]) -> dict[str, str]:
    """``{module: "sha256:<hex>"}`` (sorted) for every module of ``fp``'s closure that the source
    tree holds; ``sha256_hex(module)`` is the hex digest of the module's bytes, None if not in it."""
    out: dict[str, str] = {}
    for module in sorted({m.module for m in fp.closure if m.kind != "step"}):
        digest = sha256_hex(module)
        if digest:
            out[module] = "sha256:" + digest
    return out


@dataclass(frozen=True, slots=True)
class MergeResult:
    manifest: Manifest
    #: (flow id, codeHash) pairs that the previous manifest did not hold
    new_versions: tuple[tuple[str, str], ...]
    #: flow ids that were current before and are gone from the working tree now
    newly_removed: tuple[str, ...]


def merge_manifest(
    previous: Manifest | None,
    current: Mapping[str, VersionEntry],
    history: Sequence[Mapping[str, VersionEntry]] = (),
) -> MergeResult:
    """Fold ``history`` (oldest ref first) and ``current`` (flow id → entry) into ``previous``."""
    versions: dict[str, dict[str, VersionEntry]] = {}
    if previous is not None:
        for flow_id, fentry in previous.flows.items():
            versions[flow_id] = dict(fentry.versions)
    known = {(f, h) for f, vs in versions.items() for h in vs}
    for ref_versions in history:
        for flow_id, entry in ref_versions.items():
            slot = versions.setdefault(flow_id, {})
            if (flow_id, entry.code_hash) not in known:
                # Not pinned by a previous manifest: a later ref's metadata supersedes an earlier one's.
                slot[entry.code_hash] = entry
    for flow_id, entry in current.items():
        versions.setdefault(flow_id, {})[entry.code_hash] = entry

    flows: dict[str, FlowEntry] = {}
    newly_removed: list[str] = []
    for flow_id in sorted(versions):
        if flow_id in current:
            flows[flow_id] = FlowEntry(flow_id, current[flow_id].code_hash, versions[flow_id], removed=False)
        else:
            flows[flow_id] = FlowEntry(flow_id, None, versions[flow_id], removed=True)
            was = previous.flows.get(flow_id) if previous is not None else None
            if was is not None and not was.removed:
                newly_removed.append(flow_id)
    new_versions = tuple(sorted((f, h) for f, vs in versions.items() for h in vs if (f, h) not in known))
    # Versions of an older scheme stay (journals pin them by value); the file states the scheme
    # that produced its current versions.
    return MergeResult(
        manifest=Manifest(flows=flows, fingerprint_scheme=FINGERPRINT_SCHEME),
        new_versions=new_versions,
        newly_removed=tuple(newly_removed),
    )
