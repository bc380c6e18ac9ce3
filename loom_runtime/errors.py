"""One rooted error hierarchy for the whole toolchain.

Every error carries structured fields (so tools can act on them) and a message that says what
happened, where, and what to do about it. ``loom_compiler`` raises these too; it never defines a
second root.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "LoomError",
    "FlowDefinitionError",
    "ConfigError",
    "ManifestError",
    "ChunkIntegrityError",
    "StaleManifestError",
    "UnpinnedExecutionError",
    "UndeclaredStepError",
    "FlowNotFoundError",
    "FlowCodeMismatchError",
    "FlowDivergenceError",
    "FlowReplayDivergenceError",
    "JournalError",
    "FencingError",
    "JournalSchemaError",
    "JournalCorruptionError",
    "ExecutionNotFoundError",
    "NonDeterminismError",
    "StepFailedError",
    "FlowUsageError",
    "ExecutionStateError",
    "ReplayCheckError",
    "FlowRemovedError",
]


class LoomError(Exception):
    """Root of every error loom raises."""


class FlowDefinitionError(LoomError, ValueError):
    """A ``@flow``/``@step`` declaration is malformed (bad id, steps, families...)."""


class ConfigError(LoomError):
    """A ``[tool.loom]`` key or a command-line option is wrong. ``key`` names it."""

    def __init__(self, message: str, *, key: str | None = None, path: str | None = None) -> None:
        super().__init__(message)
        self.key = key
        self.path = path


class ManifestError(LoomError):
    """A manifest cannot be trusted: unknown schema, missing field, bad chunk path."""

    def __init__(
        self, message: str, *, path: str | None = None, flow_id: str | None = None, key: str | None = None
    ) -> None:
        super().__init__(message)
        self.path = path
        self.flow_id = flow_id
        self.key = key


class ChunkIntegrityError(ManifestError):
    """A chunk's bytes do not match the manifest's ``chunkDigest``; it is never executed."""


class StaleManifestError(ManifestError):
    """The live source differs from the ``sourceDigest`` the manifest was built from."""


class UnpinnedExecutionError(LoomError):
    """``Runtime(strict=True)`` refused to start or resume an execution on code that no manifest
    fingerprints (no manifest loaded, a stale one, or a flow it does not list): the execution would
    record no codeHash, or run code nothing proves it started on. Nothing was appended."""

    def __init__(self, message: str, *, flow_id: str, execution_id: str | None = None,
                 recorded: str | None = None) -> None:
        super().__init__(message)
        self.flow_id = flow_id
        self.execution_id = execution_id
        self.recorded = recorded


class FlowNotFoundError(LoomError, LookupError):
    def __init__(self, flow_id: str, *, known: Sequence[str] = ()) -> None:
        hint = f" Known flows: {', '.join(sorted(known))}." if known else " No flows are registered."
        super().__init__(f"flow `{flow_id}` is not registered.{hint} Register it or ship its manifest.")
        self.flow_id = flow_id
        self.known = tuple(known)


class FlowCodeMismatchError(LoomError):
    """The recorded hashes of an execution match no version this process can serve.

    ``kind`` is ``"structure"`` (the structural flow hash matches no version) or ``"code"``
    (the structure matches but the recorded codeHash is neither shipped nor listed in
    ``compatible_with``).
    """

    def __init__(
        self,
        message: str,
        *,
        kind: str,
        flow_id: str,
        recorded: str | None,
        available: Sequence[str] = (),
        execution_id: str | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.flow_id = flow_id
        self.recorded = recorded
        self.available = tuple(available)
        self.execution_id = execution_id


class FlowDivergenceError(LoomError):
    """A re-run asked for a different shape of work than its journal records."""

    def __init__(self, message: str, *, execution_id: str | None = None, flow_id: str | None = None) -> None:
        super().__init__(message)
        self.execution_id = execution_id
        self.flow_id = flow_id


class FlowReplayDivergenceError(FlowDivergenceError):
    """D3: completed steps recorded before the resume point were never asked for by this re-run.

    ``skipped`` lists them. The execution is parked on ``__loom_diverged__`` (``parked`` says
    whether the park landed); no step effect ran.
    """

    def __init__(
        self,
        message: str,
        *,
        skipped: Sequence[str],
        execution_id: str | None = None,
        flow_id: str | None = None,
        parked: bool = False,
    ) -> None:
        super().__init__(message, execution_id=execution_id, flow_id=flow_id)
        self.skipped = tuple(skipped)
        self.parked = parked


class NonDeterminismError(FlowDivergenceError):
    """A re-run asked for a recorded id with a different kind of work (a step where a decision was).

    ``ident`` is the id, ``recorded``/``asked`` the two kinds (``"step"``, ``"decision"``). Like a
    divergence refusal, the execution is parked on ``__loom_diverged__`` (``parked`` says whether the
    park landed) and ``Runtime.retry_diverged`` re-runs it once the code is fixed.
    """

    def __init__(
        self,
        message: str,
        *,
        ident: str | None = None,
        recorded: str | None = None,
        asked: str | None = None,
        execution_id: str | None = None,
        flow_id: str | None = None,
        parked: bool = False,
    ) -> None:
        super().__init__(message, execution_id=execution_id, flow_id=flow_id)
        self.ident = ident
        self.recorded = recorded
        self.asked = asked
        self.parked = parked


class JournalError(LoomError):
    """A journal store refused an operation."""


class FencingError(JournalError):
    """An append came from a stale writer (wrong expected sequence or lost lease); nothing was written."""


class JournalSchemaError(JournalError):
    """The journal was written by a newer (or unknown) event schema than this runtime reads."""


class JournalCorruptionError(JournalError):
    """An execution's events cannot be replayed as they are: a sequence gap, an unknown event type,
    a missing or ill-typed field. ``problem`` says which, ``seq`` where; nothing was served from it."""

    def __init__(self, message: str, *, execution_id: str, seq: int, problem: str) -> None:
        super().__init__(message)
        self.execution_id = execution_id
        self.seq = seq
        self.problem = problem


class ExecutionNotFoundError(JournalError, LookupError):
    def __init__(self, execution_id: str) -> None:
        super().__init__(f"execution `{execution_id}` is not in the journal; check the id and the store URL.")
        self.execution_id = execution_id


class StepFailedError(LoomError):
    """A step raised. The flow sees this on the run where it raised and on every replay.

    ``error_type`` is the qualified name of the original exception class and ``message`` its text
    (both recorded in ``STEP_FAILED``); on the live run ``__cause__`` is the original exception.
    ``attempts``: how many attempts ran (``@step(max_attempts=…)``; the last one's error is this one).
    """

    def __init__(
        self, message: str, *, step_id: str, error_type: str, error_message: str, execution_id: str | None = None,
        attempts: int = 1,
    ) -> None:
        super().__init__(message)
        self.step_id = step_id
        self.error_type = error_type
        self.error_message = error_message
        self.execution_id = execution_id
        self.attempts = attempts


class UndeclaredStepError(FlowDefinitionError):
    """``Runtime(strict=True)``: a flow that declares ``steps``/``step_families`` asked for a live
    step id they do not cover. Raised inside the body before ``STEP_STARTED`` is written, so the
    step's effect never ran; ``step_id`` is the id. The run is refused like a divergence: the
    execution is parked on ``__loom_diverged__`` (``parked``), never failed, and
    ``runtime.resume_as(id, "current")`` runs it on once a release declares the id."""

    def __init__(
        self, message: str, *, step_id: str, flow_id: str, execution_id: str | None = None, parked: bool = False
    ) -> None:
        super().__init__(message)
        self.step_id = step_id
        self.flow_id = flow_id
        self.execution_id = execution_id
        self.parked = parked


class FlowUsageError(LoomError, ValueError):
    """A flow body used its Context wrongly: a step id asked for twice, a reserved gate, a non-JSON value."""


class ExecutionStateError(LoomError):
    """The execution is not in a state that allows the operation (resume of a running one, …)."""

    def __init__(self, message: str, *, execution_id: str, status: str | None = None) -> None:
        super().__init__(message)
        self.execution_id = execution_id
        self.status = status


class ReplayCheckError(FlowDivergenceError):
    """D4: ``resume_as(strategy="replay-check")`` found recorded frames the target does not know.

    ``orphans`` holds one entry per family (``pack#* (2 frames)``); nothing was appended.
    """

    def __init__(self, message: str, *, orphans: Sequence[object], execution_id: str | None = None, flow_id: str | None = None) -> None:
        super().__init__(message, execution_id=execution_id, flow_id=flow_id)
        self.orphans = tuple(orphans)


class FlowRemovedError(FlowNotFoundError):
    """The flow is still servable for executions in flight (old versions ship) but has no current
    version: the release removed it, so nothing new may start on it."""

    def __init__(self, flow_id: str, *, available: Sequence[str] = (), manifest: str | None = None) -> None:
        LoomError.__init__(
            self,
            f"flow `{flow_id}` was removed in this release{f' ({manifest})' if manifest else ''}: executions already "
            f"running on it can still resume ({len(available)} version(s) ship), but none can start. "
            "Start a flow that exists, or restore it and run `loom build`",
        )
        self.flow_id = flow_id
        self.known = ()
        self.available = tuple(available)
        self.manifest = manifest
