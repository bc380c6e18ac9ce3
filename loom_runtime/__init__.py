"""loom_runtime: the slim, standard-library-only half of loom-toolchain.

Decorators, the structural hashes (D1), the manifest schema, the registry that pins executions to
the code they started with (D2), and the durable execution core with divergence detection (D3) and
step-family replay-check (D4); flows and steps may be ``async def`` (DESIGN §9).
"""

# Authoring
from .definition import RESERVED_GATE, Backoff, FlowDefinition, StepDefinition, flow, non_retryable, step
from .context import Context
from .context_async import AsyncContext

# Errors: one root, LoomError
from .errors import (
    ChunkIntegrityError,
    ConfigError,
    ExecutionNotFoundError,
    ExecutionStateError,
    FencingError,
    FlowCodeMismatchError,
    FlowDefinitionError,
    FlowDivergenceError,
    FlowNotFoundError,
    FlowRemovedError,
    FlowReplayDivergenceError,
    FlowUsageError,
    JournalError,
    JournalSchemaError,
    JournalCorruptionError,
    LoomError,
    ManifestError,
    NonDeterminismError,
    ReplayCheckError,
    StaleManifestError,
    UndeclaredStepError,
    UnpinnedExecutionError,
    StepFailedError,
)

# D1 hashes, the manifest schema and the registry (D2)
from .hashing import flow_content_hash, flow_hash_matches, legacy_flow_content_hash
from .manifest import FlowEntry, Manifest, SourceRef, VersionEntry, load_manifest
from .registry import PACKAGE_MANIFEST_DIR, FlowVersion, Registry, StaleManifestWarning
from .pinning import UnpinnedExecutionWarning
from .version import ProjectVersion, manifest_version, project_version_id, version_id

# The durable core: runtime, journals (psycopg is imported only when a PostgresJournal is created),
# divergence (D3), step families (D4), exported histories
from .runtime import ExecutionView, Handle, Runtime
from .journal import (
    Event,
    ExecutionSummary,
    JournalStore,
    Lease,
    MemoryJournal,
    NewEvent,
    PostgresJournal,
    SqliteJournal,
    open_journal,
)
from .divergence import DivergenceWarning
from .families import Orphan, orphaned_frames, step_family

# Exported histories (loom replay, tests) are loaded on first use (PEP 562): most processes never
# replay one, and the module's dataclasses cost about 5% of `import loom_runtime`.
_LAZY = {name: ".history" for name in ("History", "HistoryError", "ReplayResult", "load_history", "read_history", "replay_history")}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


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
