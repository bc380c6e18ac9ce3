"""Authoring API: ``@flow`` and ``@step`` attach frozen metadata and return the function unchanged.

A decorator that wrapped the function would change what the compiler fingerprints against what
runs, and would make ``inspect`` lie; attaching ``__loom_flow__``/``__loom_step__`` keeps the
function itself the runner. Read the metadata back with ``FlowDefinition.from_function``.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar, Union

from .errors import FlowDefinitionError

__all__ = ["FlowDefinition", "StepDefinition", "StepFamily", "flow", "step", "RESERVED_GATE"]

F = TypeVar("F", bound=Callable[..., Any])

StepFamily = Union[str, "re.Pattern[str]"]

#: The gate a diverged execution parks on (D3). ``ctx.suspend`` refuses it.
RESERVED_GATE = "__loom_diverged__"

_HASH_RE = re.compile(r"^(sha256:[0-9a-f]{64}|fnv1a:[0-9a-f]{8})$")


@dataclass(frozen=True, slots=True)
class FlowDefinition:
    """What a flow declares. ``flow_content_hash`` covers id, version, deadline and steps."""

    id: str
    version: int = 1
    steps: tuple[str, ...] = ()
    deadline: int | float | str | None = None
    compatible_with: tuple[str, ...] = ()
    step_families: tuple[StepFamily, ...] = ()
    code_fingerprint: str | None = None
    fn: Callable[..., Any] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise FlowDefinitionError(f"flow id must be a non-empty string, got {self.id!r}")
        if not isinstance(self.version, int) or isinstance(self.version, bool) or self.version < 1:
            raise FlowDefinitionError(f"flow `{self.id}`: version must be a positive int, got {self.version!r}")
        steps = _as_tuple(self.steps, "steps", self.id)
        for s in steps:
            if not isinstance(s, str) or not s:
                raise FlowDefinitionError(f"flow `{self.id}`: every declared step must be a non-empty string, got {s!r}")
        if len(set(steps)) != len(steps):
            dup = sorted({s for s in steps if steps.count(s) > 1})
            raise FlowDefinitionError(f"flow `{self.id}`: step ids declared twice: {', '.join(dup)}")
        object.__setattr__(self, "steps", steps)
        if self.deadline is not None and (
            isinstance(self.deadline, bool) or not isinstance(self.deadline, (int, float, str))
        ):
            raise FlowDefinitionError(
                f"flow `{self.id}`: deadline must be seconds (int/float), a string or None, got {self.deadline!r}"
            )
        compat = _as_tuple(self.compatible_with, "compatible_with", self.id)
        for h in compat:
            if not isinstance(h, str) or not _HASH_RE.match(h):
                raise FlowDefinitionError(
                    f"flow `{self.id}`: compatible_with entries must be codeHash values like 'sha256:<64 hex>', got {h!r}"
                )
        object.__setattr__(self, "compatible_with", compat)
        families = _as_tuple(self.step_families, "step_families", self.id)
        for fam in families:
            if not isinstance(fam, (str, re.Pattern)):
                raise FlowDefinitionError(
                    f"flow `{self.id}`: step_families entries must be strings or compiled regexes, got {fam!r}"
                )
        object.__setattr__(self, "step_families", families)
        if self.fn is not None:
            _refuse_generator(self.fn, f"flow `{self.id}`")
        if self.code_fingerprint is not None and not _HASH_RE.match(self.code_fingerprint):
            raise FlowDefinitionError(
                f"flow `{self.id}`: code_fingerprint must look like 'sha256:<64 hex>', got {self.code_fingerprint!r}"
            )

    @classmethod
    def from_function(cls, fn: Callable[..., Any]) -> FlowDefinition:
        defn = getattr(fn, "__loom_flow__", None)
        if not isinstance(defn, FlowDefinition):
            name = getattr(fn, "__qualname__", repr(fn))
            raise FlowDefinitionError(f"{name} is not a flow; decorate it with @loom_runtime.flow(...)")
        return defn

    def with_fingerprint(self, code_hash: str | None) -> FlowDefinition:
        return replace(self, code_fingerprint=code_hash)


@dataclass(frozen=True, slots=True)
class StepDefinition:
    """An effect function. ``name`` is its qualified name (what the compiler hashes for it)."""

    name: str
    fn: Callable[..., Any] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_function(cls, fn: Callable[..., Any]) -> StepDefinition | None:
        defn = getattr(fn, "__loom_step__", None)
        return defn if isinstance(defn, StepDefinition) else None


def flow(
    id: str,
    *,
    version: int = 1,
    steps: Iterable[str] = (),
    deadline: int | float | str | None = None,
    compatible_with: Iterable[str] = (),
    step_families: Iterable[StepFamily] = (),
    code_fingerprint: str | None = None,
) -> Callable[[F], F]:
    """Declare a durable flow. Returns a decorator that attaches ``fn.__loom_flow__``."""
    if callable(id):
        raise FlowDefinitionError("@flow needs an id: write @flow(\"my-flow\"), not bare @flow")

    def attach(fn: F) -> F:
        fn.__loom_flow__ = FlowDefinition(  # type: ignore[attr-defined]
            id=id,
            version=version,
            steps=tuple(steps),
            deadline=deadline,
            compatible_with=tuple(compatible_with),
            step_families=tuple(step_families),
            code_fingerprint=code_fingerprint,
            fn=fn,
        )
        return fn

    return attach


def step(fn: F | None = None, *, name: str | None = None) -> Any:
    """Mark an effect function: ``@step`` or ``@step(name="billing.charge")``."""

    def attach(f: F) -> F:
        _refuse_generator(f, f"step `{name or getattr(f, '__qualname__', f)}`")
        f.__loom_step__ = StepDefinition(name=name or f"{f.__module__}.{f.__qualname__}", fn=f)  # type: ignore[attr-defined]
        return f

    return attach(fn) if fn is not None else attach


def _refuse_generator(fn: Callable[..., Any], what: str) -> None:
    """A generator (sync or async) as a flow or step would only fail when it first runs (its result
    is a generator, not a JSON value): refuse it where it is declared. A coroutine function is fine
    (an async flow or step, DESIGN §9)."""
    target = inspect.unwrap(fn)
    if inspect.isasyncgenfunction(target) or inspect.isgeneratorfunction(target):
        kind = "an async generator" if inspect.isasyncgenfunction(target) else "a generator"
        raise FlowDefinitionError(
            f"{what}: {getattr(fn, '__qualname__', fn)} is {kind} function; a flow or step must return its "
            "result (use `async def` with `return`, not `yield`)"
        )


def _as_tuple(value: Any, key: str, flow_id: str) -> tuple[Any, ...]:
    if isinstance(value, (str, bytes)):
        raise FlowDefinitionError(f"flow `{flow_id}`: {key} must be a list, not a single string {value!r}")
    try:
        return tuple(value)
    except TypeError:
        raise FlowDefinitionError(f"flow `{flow_id}`: {key} must be a list, got {value!r}") from None
