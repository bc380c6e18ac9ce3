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

__all__ = ["Backoff", "FlowDefinition", "StepDefinition", "StepFamily", "flow", "non_retryable", "step", "RESERVED_GATE"]

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
class Backoff:
    """How long a failed step attempt waits before the next: ``initial * multiplier**(n-1)`` seconds
    after the n-th failure, capped at ``maximum``. The wait is a durable timer (DESIGN §9).

    No jitter: the delay is recorded as a timer, and workers fire due timers in an order of their
    own, so retries of many executions do not stampede in lock-step anyway; a deterministic delay is
    also what a reviewer can read in the journal."""

    initial: float = 1.0
    multiplier: float = 2.0
    maximum: float = 60.0

    def __post_init__(self) -> None:
        for key in ("initial", "multiplier", "maximum"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise FlowDefinitionError(f"Backoff.{key} must be a number >= 0, got {value!r}")
        if self.multiplier < 1:
            raise FlowDefinitionError(f"Backoff.multiplier must be >= 1 (exponential backoff), got {self.multiplier!r}")

    def delay(self, failed_attempt: int) -> float:
        """Seconds to wait after attempt ``failed_attempt`` (1-based) failed."""
        return float(min(self.maximum, self.initial * self.multiplier ** (failed_attempt - 1)))


@dataclass(frozen=True, slots=True)
class StepDefinition:
    """An effect function. ``name`` is its qualified name (what the compiler hashes for it).

    ``max_attempts``: how many times a failing step runs in all (1: no retry). ``backoff``: the wait
    between attempts. ``non_retryable``: exception classes that fail the step at once (as does any
    class marked with :func:`non_retryable`)."""

    name: str
    fn: Callable[..., Any] | None = field(default=None, compare=False, repr=False)
    max_attempts: int = 1
    backoff: Backoff = Backoff()
    non_retryable: tuple[type[BaseException], ...] = ()

    @classmethod
    def from_function(cls, fn: Callable[..., Any]) -> StepDefinition | None:
        defn = getattr(fn, "__loom_step__", None)
        if defn is None:
            target = getattr(fn, "func", None)  # functools.partial of a step
            defn = getattr(target, "__loom_step__", None) if target is not None else None
        return defn if isinstance(defn, StepDefinition) else None

    def retries(self, exc: BaseException, attempt: int) -> bool:
        """Whether attempt ``attempt`` failing with ``exc`` is followed by another attempt."""
        if attempt >= self.max_attempts:
            return False
        if getattr(type(exc), "__loom_non_retryable__", False):
            return False
        return not isinstance(exc, self.non_retryable)


E = TypeVar("E", bound=type)


def non_retryable(cls: E) -> E:
    """Mark an exception class (and its subclasses) as a failure no retry can fix: a step that raises
    it fails at once, whatever its ``max_attempts`` (``@non_retryable class CardDeclined(Exception)``)."""
    if not (isinstance(cls, type) and issubclass(cls, BaseException)):
        raise FlowDefinitionError(f"@non_retryable marks exception classes, got {cls!r}")
    cls.__loom_non_retryable__ = True  # type: ignore[attr-defined]
    return cls


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


def step(
    fn: F | None = None,
    *,
    name: str | None = None,
    max_attempts: int = 1,
    backoff: Backoff | float | None = None,
    non_retryable: Iterable[type[BaseException]] = (),
) -> Any:
    """Mark an effect function: ``@step`` or ``@step(name="billing.charge", max_attempts=3)``.

    ``backoff``: a :class:`Backoff`, or a number of seconds (the first wait; doubling, capped at 60 s).
    """
    if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
        raise FlowDefinitionError(f"@step: max_attempts must be an int >= 1, got {max_attempts!r}")
    if backoff is None:
        policy = Backoff()
    elif isinstance(backoff, Backoff):
        policy = backoff
    elif isinstance(backoff, (int, float)) and not isinstance(backoff, bool):
        policy = Backoff(initial=float(backoff))
    else:
        raise FlowDefinitionError(f"@step: backoff must be a Backoff or a number of seconds, got {backoff!r}")
    classes = tuple(non_retryable)
    for c in classes:
        if not (isinstance(c, type) and issubclass(c, BaseException)):
            raise FlowDefinitionError(f"@step: non_retryable takes exception classes, got {c!r}")

    def attach(f: F) -> F:
        _refuse_generator(f, f"step `{name or getattr(f, '__qualname__', f)}`")
        f.__loom_step__ = StepDefinition(  # type: ignore[attr-defined]
            name=name or f"{f.__module__}.{f.__qualname__}", fn=f,
            max_attempts=max_attempts, backoff=policy, non_retryable=classes,
        )
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
