"""The project version id (DESIGN §8): one value naming the behaviour of every current flow.

``project_version_id(flows)`` is sha256 over the sorted ``(flow id, codeHash)`` pairs of every
current flow, as canonical JSON (``[["checkout","sha256:…"],…]``, separators ``,`` ``:``, UTF-8).
``loom version`` computes it from the source tree (``loom_compiler.commands.version``) and
``version_id(package)`` reads it from the manifest a wheel carries (``<pkg>/_loom/manifest.json``,
written by the build hook): both see the same flows and codeHashes, so both print the same id.

It is the value to hand another engine as its code version: DBOS's ``application_version`` (a
comment-only deploy keeps it, so PENDING workflows are recovered by the new processes; a helper
edit changes it) and a Temporal Worker Deployment build id (a new version exactly when some
workflow's behaviour changed). Because codeHashes are body-aware and stable under formatting, so
is the id.

**Across a scheme upgrade.** A new fingerprint scheme gives unchanged code a new codeHash; the
build links it to the earlier-scheme hashes of the same code (``rehashedFrom``, DESIGN §6). The id
is computed over each flow's *identity hash*: the earliest-scheme hash in its current version's
``rehashedFrom`` (the hash the flow was known by before any upgrade), else its codeHash. So a
release that only upgrades loom keeps the id, and DBOS does not strand the PENDING workflows of
the release before; an edit after the upgrade gives a codeHash with no link, and a new id. A listed
hash whose version ``loom gc`` dropped is older than any version the manifest still holds (two
dropped ones tie on the hash itself: three schemes in, with both old versions gone).

Standard library only, and cheap: ``version_id`` reads one JSON file and never imports the
compiler (a service calls it at start-up). A removed flow (``current`` null) is no current flow.
A manifest with no current flow has no version id: ``ManifestError``, since the sha256 of nothing
would name every empty build alike.

Rejected: hashing the manifest file (it is cumulative: old versions kept for in-flight executions
would change the id without any behaviour change) and the chunk digests (their text carries
comments and formatting).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .errors import ManifestError
from .hashing import sha256_digest
from .manifest import FlowEntry, load_manifest, scheme_number
from .packaging import package_manifest

__all__ = ["ProjectVersion", "project_version_id", "identity_hash", "manifest_version", "version_id"]


@dataclass(frozen=True, slots=True)
class ProjectVersion:
    version_id: str
    #: flow id -> the hash the id is computed over: the identity hash of its current version
    #: (its codeHash, or the earliest-scheme hash of the same code after a scheme upgrade)
    flows: Mapping[str, str]
    #: flow id -> current codeHash, for the flows whose identity hash is an earlier scheme's
    code_hashes: Mapping[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        doc: dict[str, object] = {"versionId": self.version_id, "flows": dict(sorted(self.flows.items()))}
        if self.code_hashes:
            doc["codeHashes"] = dict(sorted(self.code_hashes.items()))
        return doc


def identity_hash(code_hash: str, rehashed_from: Sequence[str], entry: FlowEntry | None = None) -> str:
    """The hash a version is known by across scheme upgrades: the earliest-scheme hash among
    ``rehashed_from`` (the earlier-scheme codeHashes of the same code), else ``code_hash``.
    ``entry`` (the flow's manifest entry) tells each listed hash's scheme; a hash it no longer
    holds counts as the oldest (``loom gc`` dropped its version)."""
    if not rehashed_from:
        return code_hash
    versions = entry.versions if entry is not None else {}

    def age(h: str) -> tuple[int, str]:
        version = versions.get(h)
        return (scheme_number(version.scheme) if version is not None else 0, h)

    return min(rehashed_from, key=age)


def project_version_id(flows: Mapping[str, str]) -> str:
    """sha256 over the sorted (flow id, codeHash) pairs, as ``sha256:<64 hex>``."""
    pairs = sorted([flow_id, code_hash] for flow_id, code_hash in flows.items())
    data = json.dumps(pairs, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return sha256_digest(data)


def manifest_version(path: str | os.PathLike[str]) -> ProjectVersion:
    """The version of the current flows a manifest file lists."""
    manifest = load_manifest(path)
    current = {fid: e.current for fid, e in manifest.flows.items() if e.current is not None and not e.removed}
    if not current:
        raise ManifestError(f"{path}: lists no current flow, so it has no version id; build the project with "
                            "`loom build` (is tool.loom.framework right for your flows?)", path=str(path))
    flows = {fid: identity_hash(h, manifest.flows[fid].versions[h].rehashed_from, manifest.flows[fid])
             for fid, h in current.items()}
    return ProjectVersion(project_version_id(flows), flows, {f: h for f, h in current.items() if flows[f] != h})


class _Owner:
    """Keeps an extracted bundle (a package imported from a zip) alive while it is read."""


def version_id(package: str) -> str:
    """The project version id of ``package``'s packaged manifest (``<package>/_loom/manifest.json``).

    ``DBOS(config={..., "application_version": version_id("shop")})`` or a Temporal worker's
    ``WorkerDeploymentVersion(deployment_name=..., build_id=version_id("shop"))``.
    """
    owner = _Owner()
    return manifest_version(package_manifest(package, owner)).version_id
