"""Scheme upgrades: which earlier-scheme versions a version built now is *the same code* as.

A new fingerprint scheme gives new codeHashes to unchanged code, but journals pin executions by
the hash they recorded at start. DESIGN §6 "Scheme change": a rebuild links each version it builds
to every earlier-scheme version whose closure sources are byte-identical, and records those hashes
in ``rehashedFrom`` (``loom_runtime.manifest``). The registry then serves an execution that
recorded a linked hash with the new version, and ``loom diff``/``check`` call the flow *rehashed,
unchanged* instead of changed.

**The rule** (``same_code``). An earlier-scheme version ``old`` is the same code as a version built
now from sources whose closure modules have digests ``closure_sources`` when:

1. ``old`` is of an *earlier* scheme (two hashes of one scheme for one code do not exist: the
   scheme is deterministic; two of them means the code differs);
2. the declared structure is the same (``flowHash``): same id, version, deadline and steps;
3. ``old`` recorded ``source.closureSources`` (builds before that field cannot be linked), and
4. **every module of the new closure** is among them with the same sha256.

Why the *new* closure and not the old one, or their intersection: loom-fp/2 is wider than fp/1 by
design (imports inside bodies, every binding statement, module-level statements that change
state, dynamic reach widened to the whole module): it reaches modules fp/1 never recorded. A
module fp/1 did not record cannot be proven unchanged since that build, so such a flow is not
linked; it gets a new version, the old version and its chunk stay in the cumulative manifest, and
executions pinned to the old hash keep their old chunk: nothing strands, it just is not *called*
unchanged. Conversely a module fp/1 recorded that fp/2 no longer reaches (fp/1 over-reached: a
name used only in a local annotation) does not matter: fp/2 is sound by construction, so code
outside its closure cannot change what the flow does. The check trusts exactly two things: that
fp/2's closure is sound (DESIGN §6, the rule above all others) and that the earlier build wrote
the digests of the bytes it hashed (it is our own output; a digest that does not match today's
bytes, whether the file was edited or the manifest tampered with, just prevents the link).

Links are transitive and sticky: a version linked to an fp/2 version also inherits that version's
``rehashedFrom``, and a rebuild keeps what the previous manifest already recorded for the same
codeHash (a link, once proven, stays true; ``loom gc`` may drop the old version later, the claim
remains). Rejected: recomputing the old scheme's hash (the old scheme's code is gone from this
release; importing two compilers would double its size for a one-time upgrade), comparing chunk
text (a chunk bundles the *old* scheme's closure, so it says nothing about the modules fp/2 adds),
and linking by ``sourceDigest`` alone (the flow's own file: a helper edit elsewhere would be missed).
"""

from __future__ import annotations

from collections.abc import Mapping

from loom_runtime.manifest import FlowEntry, VersionEntry, scheme_number

__all__ = ["same_code", "sources_match", "rehashed_from"]


def same_code(old: VersionEntry, *, scheme: str, flow_hash: str, closure_sources: Mapping[str, str] | None) -> bool:
    """Whether ``old`` is an earlier-scheme hash of the code whose closure modules hash to
    ``closure_sources`` (module -> ``sha256:<hex>``) under ``scheme`` (see the module docstring)."""
    return sources_match(old.scheme, old.flow_hash, old.source.closure_sources,
                         scheme=scheme, flow_hash=flow_hash, closure_sources=closure_sources)


def sources_match(old_scheme: str, old_flow_hash: str, old_sources: Mapping[str, str] | None, *,
                  scheme: str, flow_hash: str, closure_sources: Mapping[str, str] | None) -> bool:
    """``same_code`` over the bare facts (review compares snapshots, not manifest entries)."""
    if scheme_number(old_scheme) >= scheme_number(scheme):
        return False
    if old_flow_hash != flow_hash:
        return False
    if old_sources is None or not closure_sources:
        return False  # nothing recorded, or nothing to compare: no proof
    return all(old_sources.get(module) == digest for module, digest in closure_sources.items())


def rehashed_from(
    previous: FlowEntry | None,
    *,
    code_hash: str,
    scheme: str,
    flow_hash: str,
    closure_sources: Mapping[str, str] | None,
    already: tuple[str, ...] = (),
) -> tuple[str, ...]:
    """The sorted earlier-scheme codeHashes of the code built now as ``code_hash``: every version
    of ``previous`` (the flow's entry in the previous manifest) that is ``same_code``, what those
    versions were rehashed from in turn, and ``already`` (what the previous manifest recorded)."""
    out = set(already)
    if previous is not None:
        for old in previous.versions.values():
            if old.code_hash != code_hash and same_code(old, scheme=scheme, flow_hash=flow_hash,
                                                        closure_sources=closure_sources):
                out.add(old.code_hash)
                out.update(old.rehashed_from)
    out.discard(code_hash)
    return tuple(sorted(out))
