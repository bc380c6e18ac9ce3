"""``VersionFacts``: what the manifest stage of a build needs of one flow version, without its text.

A flow module's build entry (``build.FlowsEntry``) holds every version's whole ``FlowFingerprint``
(each closure member's source, canonical form and statements) and its chunk's text: ~30 KB per
flow, most of a no-change ``loom build``'s work to read back through the typed codec (120 flows:
~40 ms of ~150). The manifest needs none of that text: the fingerprint's scalars, the closure's
``qualname -> hash`` pairs, the chunk's digest and entry, and the facts the build computed when it
emitted the chunk. A build therefore writes, beside each flow module's entry, a small **head**
entry (``build.FlowsHead``: the same dependencies, these facts, the module's errors) and reads the
head alone when its caller does not want the fingerprints (``build_project(fingerprints=False)``,
which ``loom build`` uses: it prints none). A chunk's text is read from the full entry only when
the output directory lacks a file with its digest.

Rejected: decoding the full entry lazily (a corrupt entry would surface after the build said it
succeeded: an entry must be a value of its type when it is used, or a miss), and a second, faster
serialisation of the full entry (the codec's safety rules are the cache's; one format is enough).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from loom_runtime.definition import FlowDefinition

from ..model import FlowFingerprint, SourceError

__all__ = ["VersionFacts", "version_facts"]


@dataclass(frozen=True, slots=True)
class VersionFacts:
    """One built flow version as the manifest records it (``build._build_locked``)."""

    flow_id: str
    function: str
    module: str
    path: str
    line: int
    column: int
    code_hash: str
    flow_hash: str
    legacy_flow_hash: str
    definition: FlowDefinition
    #: ``(qualname, hash)`` of every closure member, root first (the manifest's ``closure``)
    closure: tuple[tuple[str, str], ...]
    #: the fingerprint's warnings (a first-party import with no source file, ...)
    warnings: tuple[SourceError, ...]
    chunk_digest: str  # ``sha256:<hex>`` of the chunk file's bytes
    chunk_entry: str
    source_sha: str  # hex sha256 of the defining file
    closure_sources: Mapping[str, str] = field(default_factory=dict)  # module -> sha256:<hex>
    #: step ids the flow executes that its declaration does not cover (``step_ids``)
    undeclared: tuple[SourceError, ...] = ()


def version_facts(fp: FlowFingerprint, *, chunk_digest: str, chunk_entry: str, source_sha: str,
                  closure_sources: Mapping[str, str], undeclared: tuple[SourceError, ...]) -> VersionFacts:
    """The facts of ``fp`` built into a chunk of ``chunk_digest`` whose flow is ``chunk_entry``."""
    return VersionFacts(
        flow_id=fp.flow_id, function=fp.function, module=fp.module, path=fp.path, line=fp.line, column=fp.column,
        code_hash=fp.code_hash, flow_hash=fp.flow_hash, legacy_flow_hash=fp.legacy_flow_hash,
        definition=fp.definition, closure=tuple((m.qualname, m.hash) for m in fp.closure), warnings=fp.warnings,
        chunk_digest=chunk_digest, chunk_entry=chunk_entry, source_sha=source_sha,
        closure_sources=dict(closure_sources), undeclared=undeclared,
    )
