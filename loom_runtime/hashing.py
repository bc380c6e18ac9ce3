"""D1: the structural flow hash.

The structural hash covers what a flow *declares* (id, version, deadline, declared steps), not its
body: a rebuild with identical structure yields an identical hash. The canonical form is the JSON
object ``{"deadline":…,"id":…,"steps":[…],"version":…}`` with sorted keys, ``,``/``:``
separators and UTF-8, steps in declared order. ``sha256:`` is what new starts record; ``fnv1a:``
(FNV-1a 32-bit over the same bytes) is the legacy form, still accepted so no recorded execution
strands. The body fingerprint (codeHash) is the compiler's business; this module never looks at
source.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .definition import FlowDefinition

__all__ = [
    "canonical_flow_structure",
    "flow_content_hash",
    "legacy_flow_content_hash",
    "flow_hash_matches",
    "fnv1a_32",
    "sha256_digest",
]

SHA256_PREFIX = "sha256:"
FNV1A_PREFIX = "fnv1a:"

_FNV_OFFSET = 0x811C9DC5
_FNV_PRIME = 0x01000193


def canonical_flow_structure(defn: FlowDefinition) -> bytes:
    """The exact bytes both structural hashes are computed over."""
    doc = {"deadline": defn.deadline, "id": defn.id, "steps": list(defn.steps), "version": defn.version}
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def fnv1a_32(data: bytes) -> int:
    h = _FNV_OFFSET
    for byte in data:
        h = ((h ^ byte) * _FNV_PRIME) & 0xFFFFFFFF
    return h


def sha256_digest(data: bytes) -> str:
    """``sha256:<64 hex>`` of ``data`` (the form every loom digest uses)."""
    return SHA256_PREFIX + hashlib.sha256(data).hexdigest()


def flow_content_hash(defn: FlowDefinition) -> str:
    return sha256_digest(canonical_flow_structure(defn))


def legacy_flow_content_hash(defn: FlowDefinition) -> str:
    return f"{FNV1A_PREFIX}{fnv1a_32(canonical_flow_structure(defn)):08x}"


def flow_hash_matches(recorded: str | None, defn: FlowDefinition) -> bool:
    """Whether a recorded structural hash (either form) names ``defn``'s structure.

    An absent recording (``None`` or ``""``) matches: executions started before hashes were
    recorded must not strand. An unknown prefix never matches.
    """
    if not recorded:
        return True
    if recorded.startswith(SHA256_PREFIX):
        return recorded == flow_content_hash(defn)
    if recorded.startswith(FNV1A_PREFIX):
        return recorded == legacy_flow_content_hash(defn)
    return False
