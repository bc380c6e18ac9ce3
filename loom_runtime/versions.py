"""``FlowVersion``: one servable version of a flow, its hashes known without loading its code.

A version is *live* (registered from code imported in this process) or a *chunk* (listed by a
``loom build`` manifest; its code is verified and executed on the first access to ``definition`` or
``runner()``, see :mod:`loom_runtime.chunks`). Copies of one version share its loaded code.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .definition import FlowDefinition, StepFamily
from .errors import FlowDefinitionError

__all__ = ["FlowVersion", "DefinitionSource", "LIVE", "CHUNK"]

LIVE = "live"
CHUNK = "chunk"


class DefinitionSource:
    """The (possibly not yet loaded) definition behind one version; shared by its FlowVersion copies."""

    __slots__ = ("_definition", "_loader", "_lock")

    def __init__(self, definition: FlowDefinition | None, loader: Callable[[], FlowDefinition] | None = None) -> None:
        self._definition = definition
        self._loader = loader
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._definition is not None

    def get(self) -> FlowDefinition:
        defn = self._definition
        if defn is not None:
            return defn
        with self._lock:
            if self._definition is None:
                assert self._loader is not None
                self._definition = self._loader()
                self._loader = None
            return self._definition


@dataclass(frozen=True, slots=True)
class FlowVersion:
    """One servable version of a flow. Hashes and declared metadata are known without loading code."""

    flow_id: str
    code_hash: str | None  # None: no fingerprint known
    flow_hash: str  # sha256: form
    legacy_flow_hash: str  # fnv1a: form
    origin: str  # "live" | "chunk"
    is_current: bool
    version: int = 1
    steps: tuple[str, ...] = ()
    step_families: tuple[StepFamily, ...] = ()
    compatible_with: tuple[str, ...] = ()
    #: earlier-scheme codeHashes of exactly this code (the manifest's ``rehashedFrom``)
    rehashed_from: tuple[str, ...] = ()
    _code: DefinitionSource = field(default=None, repr=False, compare=False)  # type: ignore[assignment]

    @property
    def definition(self) -> FlowDefinition:
        """The definition, ``code_fingerprint`` = ``code_hash``. A chunk version loads on first access."""
        if self._code is None:
            raise FlowDefinitionError(
                f"flow `{self.flow_id}`: this FlowVersion was built by hand and carries no code; "
                "get versions from a Registry (register, versions, resolve)"
            )
        return self._code.get()

    @property
    def loaded(self) -> bool:
        """Whether the code of this version is in the process (always true for live versions)."""
        return self._code is not None and self._code.loaded

    def runner(self) -> Callable[..., Any]:
        """The flow function of this version (loads its chunk lazily)."""
        fn = self.definition.fn
        if fn is None:
            raise FlowDefinitionError(
                f"flow `{self.flow_id}` version {self.code_hash or self.flow_hash} was registered as a bare "
                "definition without a function; register the decorated function instead"
            )
        return fn

    def matches_flow_hash(self, recorded: str | None) -> bool:
        """``flow_hash_matches`` without the definition: either recorded form, absent matches."""
        return not recorded or recorded == self.flow_hash or recorded == self.legacy_flow_hash


