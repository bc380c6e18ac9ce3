"""D2 resolution: the index of one flow id's versions, and which version a recorded execution resumes on.

``resolve(slot, flow_hash=…, code_hash=…)`` (the rules are in :mod:`loom_runtime.registry`'s
docstring) is a few dictionary lookups over an immutable :class:`FlowIndex`: ``register`` builds a
new index and swaps it in with one assignment, so a lock-free ``resolve`` never sees half an
update, and resolving never loads a chunk. Rejected: a per-call cache of ``resolve`` results (the
indexes already make a call a handful of dict lookups, and a cache would need invalidation on
``register``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Union

from .errors import FlowCodeMismatchError
from .versions import FlowVersion

__all__ = ["FlowIndex", "FlowSlot", "VersionKey", "version_key", "resolve"]

#: How a slot keys its versions: the codeHash, or the structural hash for a version without one.
VersionKey = Union[str, tuple[str, str]]


def version_key(code_hash: str | None, flow_hash: str) -> VersionKey:
    return code_hash if code_hash is not None else ("no-fingerprint", flow_hash)


class FlowIndex:
    """What ``resolve`` reads for one flow id. Immutable once built: ``register`` builds a new one
    and swaps it in with one assignment, so a lock-free ``resolve`` never sees half an update."""

    __slots__ = ("ordered", "current", "by_code", "by_rehash", "by_flow_hash")

    def __init__(self, versions: dict[VersionKey, FlowVersion], current_key: VersionKey | None) -> None:
        current = versions.get(current_key) if current_key is not None else None
        rest = [v for k, v in reversed(versions.items()) if k != current_key]
        ordered = ([current] if current is not None else []) + rest
        self.ordered: tuple[FlowVersion, ...] = tuple(ordered)  # current first, then most recent first
        self.current: FlowVersion | None = current
        self.by_code: dict[str, FlowVersion] = {v.code_hash: v for v in ordered if v.code_hash is not None}
        # earlier-scheme hash -> the versions that rehash it, in ``ordered`` order (current first)
        by_rehash: dict[str, list[FlowVersion]] = {}
        for v in ordered:
            for h in v.rehashed_from:
                by_rehash.setdefault(h, []).append(v)
        self.by_rehash: dict[str, tuple[FlowVersion, ...]] = {h: tuple(vs) for h, vs in by_rehash.items()}
        by_fh: dict[str, list[FlowVersion]] = {}
        for v in ordered:
            by_fh.setdefault(v.flow_hash, []).append(v)
            if v.legacy_flow_hash != v.flow_hash:
                by_fh.setdefault(v.legacy_flow_hash, []).append(v)
        self.by_flow_hash: dict[str, tuple[FlowVersion, ...]] = {h: tuple(vs) for h, vs in by_fh.items()}


class FlowSlot:
    """The versions of one flow id (changed under the registry lock) and their current index."""

    __slots__ = ("flow_id", "versions", "current_key", "index")

    def __init__(self, flow_id: str) -> None:
        self.flow_id = flow_id
        self.versions: dict[VersionKey, FlowVersion] = {}  # insertion order: oldest first
        self.current_key: VersionKey | None = None
        self.index = FlowIndex({}, None)

    def put(self, key: VersionKey, version: FlowVersion, *, make_current: bool) -> None:
        self.versions.pop(key, None)  # re-insert at the end: the newest registration
        self.versions[key] = version
        if make_current or self.current_key is None:
            self.current_key = key
        self.reindex()

    def reindex(self) -> None:
        cur = self.current_key
        # FlowVersion is frozen: a version whose is_current flips is replaced by a copy (sharing its
        # loaded code), so a FlowVersion a caller holds is a snapshot; current() is the truth.
        self.versions = {
            k: (v if v.is_current == (k == cur) else replace(v, is_current=(k == cur))) for k, v in self.versions.items()
        }
        self.index = FlowIndex(self.versions, cur)


def resolve(
    slot: FlowSlot,
    *,
    flow_hash: str | None = None,
    code_hash: str | None = None,
    allow_code_mismatch: bool = False,
    execution_id: str | None = None,
    server: str = "this process",
) -> FlowVersion:
    """The version of ``slot``'s flow an execution that recorded ``flow_hash``/``code_hash`` resumes on.

    Raises ``FlowCodeMismatchError`` (``kind`` ``"structure"`` or ``"code"``) when no version may
    serve it; ``server`` names what does not serve it in the message ("this process", or "the build
    <manifest>" for a registry that only reads a build, as ``loom deploy-check`` does). Never loads a
    chunk.
    """
    index = slot.index
    if flow_hash:
        candidates = index.by_flow_hash.get(flow_hash)
        if candidates is None:
            raise _structure_error(slot, flow_hash, execution_id)
    else:
        candidates = index.ordered
    # Candidates are ordered current-first, so candidates[0] is the current version whenever its
    # structure fits, else the most recently added match.
    current = index.current
    if not code_hash:
        return candidates[0]
    for v in index.by_rehash.get(code_hash, ()):
        if not flow_hash or v.matches_flow_hash(flow_hash):
            return v  # the same code under a later scheme (registry docstring: the new entry serves)
    pinned = index.by_code.get(code_hash)
    if pinned is not None and (not flow_hash or pinned.matches_flow_hash(flow_hash)):
        return pinned
    for v in candidates:
        if v.code_hash is None or (v is current and code_hash in v.compatible_with):
            return v
    if allow_code_mismatch:
        return candidates[0]
    raise _code_error(slot, code_hash, execution_id, server)


def _structure_error(slot: FlowSlot, recorded: str, execution_id: str | None) -> FlowCodeMismatchError:
    available = tuple(dict.fromkeys(v.flow_hash for v in slot.index.ordered))
    who = f"execution `{execution_id}` of flow" if execution_id else "flow"
    return FlowCodeMismatchError(
        f"{who} `{slot.flow_id}` recorded structural flowHash {recorded}, which no registered version has "
        f"(available: {', '.join(available) or 'none'}). The declared id, version, deadline or steps changed. "
        "Ways out: ship the version that started it (add its release to [tool.loom] history and run "
        "`loom build`), or migrate it with runtime.resume_as(...)",
        kind="structure",
        flow_id=slot.flow_id,
        recorded=recorded,
        available=available,
        execution_id=execution_id,
    )

def _code_error(slot: FlowSlot, recorded: str, execution_id: str | None, server: str) -> FlowCodeMismatchError:
    ordered = slot.index.ordered
    available = tuple(v.code_hash for v in ordered if v.code_hash is not None)
    shown = ", ".join(f"{v.code_hash}{' (current)' if v.is_current else ''}" for v in ordered if v.code_hash is not None)
    who = f"execution `{execution_id}` of flow" if execution_id else "flow"
    return FlowCodeMismatchError(
        f"{who} `{slot.flow_id}` started on codeHash {recorded}, which {server} does not serve "
        f"(available: {shown or 'none'}). Ways out: (1) ship the old chunk: add the release that started it to "
        "[tool.loom] history and run `loom build`; (2) if the edit is replay-safe, list it on the current flow: "
        f"@flow(..., compatible_with=[\"{recorded}\"]); (3) migrate it with "
        "runtime.resume_as(execution_id, target, strategy=\"replay-check\")",
        kind="code",
        flow_id=slot.flow_id,
        recorded=recorded,
        available=available,
        execution_id=execution_id,
    )

