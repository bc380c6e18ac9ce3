"""loom_runtime: the slim, standard-library-only half of loom-toolchain.

Decorators, the structural hashes (D1), the manifest schema, the registry that pins executions to
the code they started with (D2), and the durable execution core with divergence detection (D3) and
step-family replay-check (D4); flows and steps may be ``async def`` (DESIGN §9).
"""

# Every name is loaded on first use (PEP 562): ``import loom_runtime`` costs nothing until a name is
# asked for, and ``from loom_runtime import flow, Context`` loads those modules only. Start-up is
# what every ``loom`` command and every process importing one submodule (``loom_runtime.errors``,
# ``.manifest``) pays: loading the whole runtime (its journals, the async drive loop, asyncio)
# eagerly was most of a warm ``loom fingerprint`` (~110 ms of ~250 ms). Rejected: keeping eager
# imports for the authoring names only (``flow``, ``Context`` pull in most of the runtime anyway).

from __future__ import annotations

from typing import TYPE_CHECKING

#: exported name -> the submodule that defines it
_EXPORTS: dict[str, str] = {
    # definition
    "RESERVED_GATE": ".definition",
    "FlowDefinition": ".definition",
    "StepDefinition": ".definition",
    "flow": ".definition",
    "step": ".definition",
    "Backoff": ".definition",
    "non_retryable": ".definition",
    # errors
    "LoomError": ".errors",
    "ConfigError": ".errors",
    "FlowDefinitionError": ".errors",
    "ManifestError": ".errors",
    "ChunkIntegrityError": ".errors",
    "StaleManifestError": ".errors",
    "UnpinnedExecutionError": ".errors",
    "UndeclaredStepError": ".errors",
    "FlowNotFoundError": ".errors",
    "FlowCodeMismatchError": ".errors",
    "FlowDivergenceError": ".errors",
    "FlowReplayDivergenceError": ".errors",
    "NonDeterminismError": ".errors",
    "JournalError": ".errors",
    "FencingError": ".errors",
    "JournalSchemaError": ".errors",
    "JournalCorruptionError": ".errors",
    "ExecutionNotFoundError": ".errors",
    "FlowRemovedError": ".errors",
    "StepFailedError": ".errors",
    "FlowUsageError": ".errors",
    "ExecutionStateError": ".errors",
    "ReplayCheckError": ".errors",
    # hashing
    "flow_content_hash": ".hashing",
    "legacy_flow_content_hash": ".hashing",
    "flow_hash_matches": ".hashing",
    # manifest
    "Manifest": ".manifest",
    "FlowEntry": ".manifest",
    "VersionEntry": ".manifest",
    "SourceRef": ".manifest",
    "load_manifest": ".manifest",
    # registry
    "Registry": ".registry",
    "FlowVersion": ".registry",
    "StaleManifestWarning": ".registry",
    "PACKAGE_MANIFEST_DIR": ".registry",
    # pinning
    "UnpinnedExecutionWarning": ".pinning",
    # version
    "version_id": ".version",
    "project_version_id": ".version",
    "manifest_version": ".version",
    "ProjectVersion": ".version",
    # context
    "Context": ".context",
    # context_async
    "AsyncContext": ".context_async",
    # runtime
    "Runtime": ".runtime",
    "Handle": ".runtime",
    "ExecutionView": ".runtime",
    # divergence
    "DivergenceWarning": ".divergence",
    # families
    "Orphan": ".families",
    "orphaned_frames": ".families",
    "step_family": ".families",
    # journal
    "JournalStore": ".journal",
    "MemoryJournal": ".journal",
    "SqliteJournal": ".journal",
    "Event": ".journal",
    "NewEvent": ".journal",
    "ExecutionSummary": ".journal",
    "Lease": ".journal",
    "PostgresJournal": ".journal",
    "open_journal": ".journal",
    # history
    "History": ".history",
    "HistoryError": ".history",
    "ReplayResult": ".history",
    "load_history": ".history",
    "read_history": ".history",
    "replay_history": ".history",
}

if TYPE_CHECKING:  # what static analysis sees: the same names, eagerly
    from .definition import RESERVED_GATE, FlowDefinition, StepDefinition, flow, step, Backoff, non_retryable
    from .errors import LoomError, ConfigError, FlowDefinitionError, ManifestError, ChunkIntegrityError, StaleManifestError, UnpinnedExecutionError, UndeclaredStepError, FlowNotFoundError, FlowCodeMismatchError, FlowDivergenceError, FlowReplayDivergenceError, NonDeterminismError, JournalError, FencingError, JournalSchemaError, JournalCorruptionError, ExecutionNotFoundError, FlowRemovedError, StepFailedError, FlowUsageError, ExecutionStateError, ReplayCheckError
    from .hashing import flow_content_hash, legacy_flow_content_hash, flow_hash_matches
    from .manifest import Manifest, FlowEntry, VersionEntry, SourceRef, load_manifest
    from .registry import Registry, FlowVersion, StaleManifestWarning, PACKAGE_MANIFEST_DIR
    from .pinning import UnpinnedExecutionWarning
    from .version import version_id, project_version_id, manifest_version, ProjectVersion
    from .context import Context
    from .context_async import AsyncContext
    from .runtime import Runtime, Handle, ExecutionView
    from .divergence import DivergenceWarning
    from .families import Orphan, orphaned_frames, step_family
    from .journal import JournalStore, MemoryJournal, SqliteJournal, Event, NewEvent, ExecutionSummary, Lease, PostgresJournal, open_journal
    from .history import History, HistoryError, ReplayResult, load_history, read_history, replay_history


def __getattr__(name: str) -> object:
    import importlib

    module = _EXPORTS.get(name)
    if module is None:
        # ``loom_runtime.journal`` and other submodules stay reachable as attributes, as they
        # were when this package imported them eagerly
        try:
            value: object = importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
        return value
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "RESERVED_GATE",
    "FlowDefinition",
    "StepDefinition",
    "flow",
    "step",
    "Backoff",
    "non_retryable",
    "LoomError",
    "ConfigError",
    "FlowDefinitionError",
    "ManifestError",
    "ChunkIntegrityError",
    "StaleManifestError",
    "UnpinnedExecutionError",
    "UndeclaredStepError",
    "FlowNotFoundError",
    "FlowCodeMismatchError",
    "FlowDivergenceError",
    "FlowReplayDivergenceError",
    "NonDeterminismError",
    "JournalError",
    "FencingError",
    "JournalSchemaError",
    "JournalCorruptionError",
    "ExecutionNotFoundError",
    "flow_content_hash",
    "legacy_flow_content_hash",
    "flow_hash_matches",
    "Manifest",
    "FlowEntry",
    "VersionEntry",
    "SourceRef",
    "load_manifest",
    "Registry",
    "FlowVersion",
    "StaleManifestWarning",
    "UnpinnedExecutionWarning",
    "version_id",
    "project_version_id",
    "manifest_version",
    "ProjectVersion",
    "PACKAGE_MANIFEST_DIR",
    "FlowRemovedError",
    "Context",
    "AsyncContext",
    "Runtime",
    "Handle",
    "ExecutionView",
    "DivergenceWarning",
    "StepFailedError",
    "FlowUsageError",
    "ExecutionStateError",
    "ReplayCheckError",
    "Orphan",
    "orphaned_frames",
    "step_family",
    "JournalStore",
    "MemoryJournal",
    "SqliteJournal",
    "Event",
    "NewEvent",
    "ExecutionSummary",
    "Lease",
    "PostgresJournal",
    "open_journal",
    "History",
    "HistoryError",
    "ReplayResult",
    "load_history",
    "read_history",
    "replay_history",
]
