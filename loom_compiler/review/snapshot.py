"""What a review compares: each flow's fingerprint reduced to a frozen, comparable snapshot.

A ``FlowSnapshot`` comes from one of three places: a fingerprint of the working tree, a fingerprint
of a git ref (``GitSourceTree``: read from git objects, the checkout untouched), or the *current*
versions of a build manifest (``--base-manifest``). Fingerprints carry each closure member's
canonical form and bindings, so a snapshot knows a member's *own* digest (what its text says,
without the Merkle hashes of what it calls) and can tell an edited member from one whose hash
moved only because a callee changed. A manifest records only member → Merkle hash; such members
have ``own=None`` and the diff falls back to the call graph of the other side.

A fingerprint snapshot also keeps what the review shows a person: each member's code normalised
for reading (``review.code.readable``), its bindings and canonical form (the fallbacks when two
readings look alike), and the step ids the flow's code can ask for (``review.step_calls``, the
static "could skip" estimate). A manifest snapshot has none of them (``None``): the manifest
records hashes, not source.

Each snapshot also carries the fingerprint ``scheme`` that computed its codeHash and its
``closure_sources`` (module -> sha256 of the bytes of every first-party module of its closure;
for a source tree computed here, for a manifest what the build recorded), so that a review across
a scheme upgrade can tell *rehashed* (the same bytes, a new scheme's hash: ``bundle.rehash``) from
changed.

Rejected: keeping the ``FlowFingerprint`` values themselves in the diff (they hold source text and
the whole definition; a review value should be small and serialisable), and re-parsing a manifest
version's chunk to recover canonical forms (the chunk is the bundled text, not the canonical form).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import PurePosixPath

import hashlib
from collections.abc import Mapping

from loom_runtime.hashing import sha256_digest
from loom_runtime.manifest import Manifest

from ..canonical import SCHEME
from ..config import LoomConfig
from ..model import FlowFingerprint, SourceError
from ..sources import DirectorySourceTree, SourceReadError, SourceTree
from .code import readable
from .step_calls import StepCalls, step_calls

__all__ = [
    "MemberSnapshot",
    "FlowSnapshot",
    "Snapshot",
    "snapshot_from_fingerprints",
    "snapshot_from_manifest",
    "snapshot_tree",
    "snapshot_git",
    "snapshot_working_tree",
]


@dataclass(frozen=True, slots=True)
class MemberSnapshot:
    qualname: str
    hash: str  # Merkle: covers the members it references
    kind: str | None = None  # None when read from a manifest
    path: str | None = None
    line: int = 0
    own: str | None = None  # digest of its own canonical form and binding names; None: unknown
    refs: tuple[str, ...] = ()  # qualnames of the closure members it references
    code: str | None = None  # its source normalised for reading (review.code); None: unknown
    bindings: tuple[tuple[str, str], ...] = ()  # name -> what it resolves to
    canonical: str | None = None  # its canonical form; None: unknown


@dataclass(frozen=True, slots=True)
class FlowSnapshot:
    flow_id: str
    code_hash: str
    flow_hash: str
    path: str | None
    line: int
    function: str | None = None
    compatible_with: tuple[str, ...] = ()
    members: tuple[MemberSnapshot, ...] = ()  # root first when known
    step_calls: StepCalls | None = None  # what its code can ask for; None: no source (a manifest)
    scheme: str = SCHEME  # the fingerprint scheme of ``code_hash``
    #: (module, "sha256:<hex>") of every first-party closure module, sorted; None: not recorded
    closure_sources: tuple[tuple[str, str], ...] | None = None
    #: a manifest version's ``rehashedFrom`` (earlier-scheme hashes of this code)
    rehashed_from: tuple[str, ...] = ()

    def sources(self) -> Mapping[str, str] | None:
        return dict(self.closure_sources) if self.closure_sources is not None else None


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Every flow of one side of a review, by id, and the problems met reading it."""

    label: str
    flows: tuple[FlowSnapshot, ...]
    errors: tuple[SourceError, ...] = ()

    def by_id(self) -> dict[str, FlowSnapshot]:
        return {f.flow_id: f for f in self.flows}


def _own_digest(canonical: str, bindings: tuple[tuple[str, str], ...]) -> str:
    data = canonical + "\0" + "\0".join(f"{name}={target}" for name, target in sorted(bindings))
    return sha256_digest(data.encode("utf-8"))


def snapshot_from_fingerprint(fp: FlowFingerprint, tree: SourceTree | None = None) -> FlowSnapshot:
    names = {m.qualname for m in fp.closure}
    root = fp.closure[0].qualname if fp.closure else None
    members = tuple(
        MemberSnapshot(
            qualname=m.qualname,
            hash=m.hash,
            kind=m.kind,
            path=m.path,
            line=m.line,
            own=_own_digest(m.canonical, m.bindings),
            refs=tuple(sorted({target for _name, target in m.bindings if target in names and target != m.qualname})),
            code=readable(m.source, flow_id=fp.flow_id, decorator=fp.decorator) if m.qualname == root else readable(m.source),
            bindings=tuple(m.bindings),
            canonical=m.canonical,
        )
        for m in fp.closure
    )
    return FlowSnapshot(
        flow_id=fp.flow_id,
        code_hash=fp.code_hash,
        flow_hash=fp.flow_hash,
        path=fp.path,
        line=fp.line,
        function=f"{fp.module}.{fp.function}",
        compatible_with=tuple(fp.definition.compatible_with),
        members=members,
        step_calls=step_calls(m.source for m in fp.closure),
        closure_sources=_closure_sources(fp, tree) if tree is not None else None,
    )


def _closure_sources(fp: FlowFingerprint, tree: SourceTree) -> tuple[tuple[str, str], ...] | None:
    """The build's own ``closureSources`` of ``fp`` over ``tree``; None when a module of the closure
    cannot be read now (left out, it would go unverified: a rehash must cover every module)."""
    from ..bundle.manifest_build import closure_source_digests  # the build's own rule, not a copy

    def sha256_hex(module: str) -> str | None:
        data = tree.read(module)
        return hashlib.sha256(data).hexdigest() if data is not None else None

    try:
        return tuple(sorted(closure_source_digests(fp, sha256_hex).items()))
    except SourceReadError:
        return None


def snapshot_from_fingerprints(label: str, flows: tuple[FlowFingerprint, ...], errors: tuple[SourceError, ...] = (),
                               tree: SourceTree | None = None) -> Snapshot:
    """``tree``, when given, is what the flows were fingerprinted from: their closure sources are
    read from it (without it a snapshot cannot be recognised as rehashed)."""
    return Snapshot(label, tuple(snapshot_from_fingerprint(f, tree) for f in flows), errors)


def snapshot_from_manifest(label: str, manifest: Manifest) -> Snapshot:
    """The current version of every flow the manifest does not mark removed."""
    flows = []
    for flow_id in sorted(manifest.flows):
        entry = manifest.flows[flow_id]
        if entry.removed or entry.current is None:
            continue
        ve = entry.versions[entry.current]
        flows.append(
            FlowSnapshot(
                flow_id=flow_id,
                code_hash=ve.code_hash,
                flow_hash=ve.flow_hash,
                path=ve.source.path,
                line=ve.source.line,
                compatible_with=tuple(ve.compatible_with),
                members=tuple(MemberSnapshot(q, h) for q, h in sorted(ve.closure.items())),
                scheme=ve.scheme,
                closure_sources=(tuple(sorted(ve.source.closure_sources.items()))
                                 if ve.source.closure_sources is not None else None),
                rehashed_from=ve.rehashed_from,
            )
        )
    return Snapshot(label, tuple(flows))


def scan_config(config: LoomConfig) -> LoomConfig:
    """``config`` with ``[tool.loom.check] manifest``'s directory excluded from the scan: its chunks
    declare the same flows. ``out`` needs nothing here (``LoomConfig.walk_exclude`` has it); a
    manifest kept elsewhere is skipped by the working-tree walk (``sources.is_loom_output``) but not
    by a git ref's listing, which sees only paths."""
    if not config.check.manifest:
        return config
    directory = PurePosixPath(config.check.manifest).parent.as_posix()
    if directory in (".", "") or directory.startswith(("/", "..")) or directory == config.out.strip("/"):
        return config
    return replace(config, exclude=(*config.exclude, directory))


def snapshot_tree(label: str, tree: SourceTree, config: LoomConfig) -> Snapshot:
    # through the build's content-addressed cache (``bundle.fingerprint_tree``): a pre-commit
    # ``loom check`` on an unchanged tree parses nothing
    from ..bundle.fingerprint_tree import fingerprint_tree

    result = fingerprint_tree(config, tree)
    return snapshot_from_fingerprints(label, result.flows, result.errors, tree=tree)


def snapshot_working_tree(config: LoomConfig) -> Snapshot:
    config = scan_config(config)
    return snapshot_tree("working tree", DirectorySourceTree(config.root, config), config)


def snapshot_git(config: LoomConfig, ref: str, *, key: str = "--base") -> Snapshot:
    """The flows as they were at ``ref`` (``GitError`` names ``key`` when the ref is unknown)."""
    from ..bundle.history import GitSourceTree

    config = scan_config(config)
    return snapshot_tree(ref, GitSourceTree(config, ref, key=key), config)
