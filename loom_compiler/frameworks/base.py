"""The one interface every framework profile implements (DESIGN §8), and the values it returns.

A profile says what a durable engine replays and what it serves from its history, as data the
compiler's stages read at their one decision point each:

* ``flow_decorators`` / ``step_decorators``: the qualified names that declare a flow and a step
  (``analysis`` resolves every spelling of a decorator to one of them);
* ``handler_decorators`` / ``validators``: which other members of a method flow's class are in its
  closure (Temporal's signal, update and query handlers run on the workflow's replayed state);
* ``name_only_calls``: calls whose argument is referenced by name only (what Temporal's history
  records for ``workflow.execute_activity(fn, ...)`` or ``execute_child_workflow(Cls.run, ...)``
  is the activity or workflow *type*, never the code);
* ``children_by_reference``: a flow reached from another flow is a *child*, referenced by its flow
  id (DBOS: a workflow called from a workflow runs as its own workflow, with its own history);
* ``flow_id_argument``: which argument of the profile's own flow decorators is the flow id
  (Prefect's and DBOS's ``name=``; Temporal's ``@workflow.run`` takes none: the id is the
  workflow type). Every *other* argument of such a decorator is behaviour (``@flow(retries=3)``)
  and feeds the code hash (``analysis``); only ``loom_runtime.flow``'s arguments are structural;
* ``opaque``: the engine's own API objects, whose module-level configuration is not workflow
  behaviour (``engine_config``);
* ``flow_id``: how a flow's id is derived when the flow decorator does not give one.

Each framework is one module of this package defining ``PROFILE``; ``frameworks.PROFILES`` finds
them all, so a fifth framework is one new file.

Rejected: subclass hooks that receive libcst trees and return hashed text (every profile would
then re-implement part of the canonical form, and the scheme would depend on profile code in ways
no golden test pins); keeping the rules in ``analysis``/``closure`` behind ``if framework ==``
branches (adding an engine would touch the core stages).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the configuration imports the profiles; libcst is for the analysis only
    import libcst as cst

__all__ = ["Profile", "NameOnlyArg", "ClassDecorator", "FlowIdError", "FlowIdArgument", "DEFAULT_FLOW_ID", "EngineHooks",
           "HookCandidates", "marker_pattern"]

#: a decorator of the flow's class: (every qualified name it may stand for, the node)
ClassDecorator = "tuple[frozenset[str], cst.Decorator]"


class FlowIdError(ValueError):
    """A flow id the profile cannot read statically; ``node`` locates it."""

    def __init__(self, message: str, node: cst.CSTNode) -> None:
        super().__init__(message)
        self.node = node


@dataclass(frozen=True, slots=True)
class NameOnlyArg:
    """Which argument of a call is referenced by name only: the ``position``-th positional one,
    or the keyword ``keyword``. ``step``: the call runs that function as a step (DBOS's
    ``DBOS.run_step(options, fn, *args)``): a plain function named there is hashed by its name
    and header (decorators, signature), as a declared step is, never by its body."""

    position: int = 0
    keyword: str | None = None
    step: bool = False


@dataclass(frozen=True, slots=True)
class FlowIdArgument:
    """Where a flow decorator's call spells the flow id: its first positional argument when
    ``positional`` (and it is a string), else the first of ``keywords`` given."""

    positional: bool = True
    keywords: tuple[str, ...] = ("id", "name")


@dataclass(frozen=True, slots=True)
class EngineHooks:
    """What of an engine's API takes first-party code that runs around *every* workflow
    (interceptors, data converters, codecs, workflow runners: ``engine_hooks``)."""

    #: the engine's top-level package (a hook base or a configuration callee resolves under it)
    package: str
    #: a first-party class whose base's last name ends with one of these is a hook
    base_suffixes: tuple[str, ...]
    #: the keywords of the engine's configuration calls (``Worker(...)``, ``Client.connect(...)``,
    #: ``DataConverter(...)``, any callee under ``package``) that take code it runs around workflows
    keywords: tuple[str, ...]
    #: a callee under ``package`` with a dotted part ending with one of these takes such code in
    #: every argument (a converter's, plugin's or third-party interceptor's constructor)
    callee_suffixes: tuple[str, ...]
    #: keywords that register the workflows and activities themselves (never hooks)
    registered: tuple[str, ...]
    #: the engine's configuration callables, as the tail of their qualified name (``Worker``,
    #: ``Client.connect``): every keyword argument they take is behaviour, but ``operational``
    configurations: tuple[str, ...] = ()
    #: keywords of ``configurations`` that only decide where and how fast the engine runs (task
    #: queue, concurrency, timeouts, connection): never hashed
    operational: tuple[str, ...] = ()

    @property
    def markers(self) -> frozenset[str]:
        """What a module that holds a hook spells (the byte prefilter): a hook class names its
        base, a call hands a hook over under a hook keyword, to a hook's constructor or to one of
        the configuration callables (an argument of theirs is behaviour unless operational)."""
        return frozenset({*self.base_suffixes, *self.callee_suffixes, *self.keywords,
                          *(c.split(".")[1] for c in self.configurations)})  # ``Client`` of ``Client.connect``

    def is_base(self, qualified: str) -> bool:
        """Whether ``qualified`` (a resolved name) is one of the engine's hook classes."""
        return qualified.startswith(self.package + ".") and qualified.rsplit(".", 1)[-1].endswith(self.base_suffixes)

    def takes(self, qualified: str, keyword: str | None) -> bool:
        """Whether a call of ``qualified`` hands the argument (``keyword`` None: positional, ``**``:
        a mapping of keywords) to the engine as code or configuration it runs workflows with."""
        if not qualified.startswith(self.package + ".") or keyword in self.registered:
            return False
        if keyword in self.keywords:
            return True
        if any(part.endswith(self.callee_suffixes) for part in qualified.split(".")[1:]):
            return True
        # a configuration callable: an unknown keyword (a later SDK's) is behaviour until listed
        return keyword is not None and keyword not in self.operational and self.configures(qualified)

    def configures(self, qualified: str) -> bool:
        """Whether ``qualified`` is one of the engine's configuration callables."""
        return qualified.startswith(self.package + ".") and any(
            qualified == c or qualified.endswith("." + c) for c in self.configurations)


class HookCandidates:
    """Where a tree's engine hooks may be: called with markers, it lists the modules whose bytes
    spell one (``fingerprint_flows(hook_candidates=...)``). ``memo`` keeps the search's result
    (``frameworks.engine_hooks.find_hooks``) for every closure graph over the same tree state: a
    build makes one graph per flow module (each with a listing of its own that records what it
    asked), and the search reads every candidate module."""

    def __init__(self, listing: Callable[[frozenset[str]], list[str]], memo: dict[str, object] | None = None) -> None:
        self._listing = listing
        self.memo: dict[str, object] = memo if memo is not None else {}

    def __call__(self, markers: frozenset[str]) -> list[str]:
        return self._listing(markers)


@lru_cache(maxsize=64)
def marker_pattern(markers: frozenset[str]) -> re.Pattern[bytes]:
    """One pattern matching any of ``markers`` in a module's bytes (``EngineHooks.markers``, grown
    by the names found): one scan per file instead of one per marker."""
    return re.compile(b"|".join(re.escape(m.encode()) for m in sorted(markers, key=lambda m: (-len(m), m))))


#: DESIGN §8's rule, for a decorator no profile describes (``decorators = [...]`` listed
#: explicitly): the first positional string, else ``id=``, else ``name=``
DEFAULT_FLOW_ID = FlowIdArgument()


def _no_flow_id(decorators: Sequence[ClassDecorator], class_name: str | None) -> str | None:
    return None


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    flow_decorators: tuple[str, ...]
    step_decorators: tuple[str, ...] = ()
    #: a method of a flow's class decorated with one of these is in the closure of every method
    #: flow of the class (with what it reaches)
    handler_decorators: tuple[str, ...] = ()
    #: ``@<handler>.validator``: a method decorated with ``<name>.<attr>`` for a class-body
    #: ``<name>`` and an ``<attr>`` listed here is a handler too
    validator_attributes: tuple[str, ...] = ()
    #: qualified callee -> the argument referenced by name only
    name_only_calls: dict[str, NameOnlyArg] = field(default_factory=dict)
    children_by_reference: bool = False
    #: which argument of ``flow_decorators`` is the flow id (the others feed the code hash)
    flow_id_argument: FlowIdArgument = DEFAULT_FLOW_ID
    #: qualified names of the engine's API objects (``engine_config``)
    opaque: tuple[str, ...] = ()
    #: the id of a *method* flow from its class's decorators and name (None: the default id)
    flow_id: Callable[[Sequence[ClassDecorator], str | None], str | None] = _no_flow_id
    #: first-party code the engine runs around every workflow (``engine_hooks``; None: none)
    engine_hooks: EngineHooks | None = None
    #: one line for ``loom --help`` and error messages
    summary: str = ""

    @property
    def step_calls(self) -> bool:
        """Whether a call may run a plain function as a step (``NameOnlyArg.step``): the analysis
        then records every module-level function's header (``Unit.header``)."""
        return any(spec.step for spec in self.name_only_calls.values())

    @property
    def extended(self) -> bool:
        """Whether any rule beyond DESIGN §6 applies (the loom and prefect profiles have none)."""
        return bool(self.handler_decorators or self.name_only_calls or self.children_by_reference
                    or self.opaque or self.flow_id is not _no_flow_id or self.engine_hooks is not None)

    def id_argument(self, decorator: str) -> FlowIdArgument:
        """Which argument of the flow decorator ``decorator`` (a qualified name) is the flow id."""
        return self.flow_id_argument if decorator in self.flow_decorators else DEFAULT_FLOW_ID

    def digest_fields(self) -> dict[str, object]:
        """What of the profile changes ``analyse_module``'s result (``LoomConfig.digest``)."""
        return {"framework": self.name}
