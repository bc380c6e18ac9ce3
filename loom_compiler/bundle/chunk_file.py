"""A chunk as a value (``Chunk``), its place under ``chunks/`` and its digests: what a rebuild needs
from a chunk without emitting one.

Kept apart from ``chunk`` (emission, which needs libcst) so that a build served from the cache, and
the cached chunks it unpickles, never import libcst: in a fresh ``loom build`` process with nothing
to parse, that import was most of the run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from loom_runtime.hashing import sha256_digest

__all__ = ["Chunk", "ChunkError", "chunk_path_for", "flow_slug", "source_digest"]

_SLUG_RE = re.compile(r"[^0-9A-Za-z_.-]+")


class ChunkError(Exception):
    """A chunk could not be emitted for a flow; carries the location for a ``SourceError``."""

    def __init__(self, message: str, *, path: str, line: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.path = path
        self.line = line
        self.column = column


@dataclass(frozen=True, slots=True)
class Chunk:
    flow_id: str
    code_hash: str
    entry: str  # ``<module>.<qualname>`` of the @flow function inside the chunk (``shop.flows.checkout``)
    text: str
    sources: tuple[str, ...]  # POSIX paths of the files the bundled statements come from

    @property
    def data(self) -> bytes:
        return self.text.encode("utf-8")

    @property
    def digest(self) -> str:
        return sha256_digest(self.data)


def flow_slug(flow_id: str) -> str:
    """A safe directory name for a flow id (``orders/checkout v2`` -> ``orders_checkout_v2``)."""
    slug = _SLUG_RE.sub("_", flow_id).strip("._") or "flow"
    return slug[:80]


def chunk_path_for(flow_id: str, code_hash: str, *, variant: str | None = None) -> str:
    """``chunks/<slug>/<16 hex of codeHash>.py``; ``variant`` suffixes a second text of one codeHash."""
    hex16 = code_hash.partition(":")[2][:16]
    if len(hex16) < 16 or not all(c in "0123456789abcdef" for c in hex16):
        raise ValueError(f"codeHash {code_hash!r} is not a 'sha256:<hex>' value")
    name = f"{hex16}-{variant}" if variant else hex16
    return f"chunks/{flow_slug(flow_id)}/{name}.py"


def source_digest(data: bytes) -> str:
    """``sourceDigest``: sha256 of the bytes of the file that defines the flow (``source.path``).

    The file alone, not the closure's other files: ``loom_runtime.registry`` checks a live flow's
    own file (``inspect.getsourcefile``) against it to tell a stale manifest, and an installed
    service has no project root to find the others by. Edits elsewhere in the closure move the
    codeHash, which the ``closure`` map attributes to a member.
    """
    return sha256_digest(data)
