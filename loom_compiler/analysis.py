"""Per-module analysis: source bytes in, a frozen ``ModuleSummary`` out. Pure and cacheable.

``analyse_module`` parses one module with libcst exactly once and records everything the later
stages need without parsing again: every module-level statement as a ``Unit``, the flows the
module declares with their decorator arguments, their own canonical form and references, and the
members of the classes that hold method flows. The result depends only on ``(source bytes,
module, path, config.digest, the compiler's code)``: the bundler caches it under that key.

With ``defer=True`` (the build, ``fingerprint_module``) the canonical forms of plain statements
are left to be computed when a closure first reads them (``deferred_forms``: a helper module's
unreached functions are never canonicalised); everything else, references included, is computed
as before, and every form is the one the eager analysis writes.

The binding model (``loom-fp/2``, DESIGN §6). A module-level name means *every* statement that
binds it, in source order, and nothing else decides it:

* definitions, assignments, augmented assignments, loop, ``with`` and ``except`` targets, ``del``,
  imports at module level or nested under ``if``/``try``/``with`` (an import is a binding to its
  target: ``Unit.aliases``), star imports that may bind it (``Unit.stars``; which names a star
  import binds is decided in ``closure``, where the target module is known), and functions that
  write it after ``global`` (``Unit.global_writes``);
* statements that can change its state (``Unit.attached``, the rule of ``effects``);
* a statement that can bind *any* name (``globals()`` used other than to read, ``exec``) is part of
  every name (``Unit.dynamic``).

Imports inside function and class bodies are bindings too: ``scopes`` reports their uses as
absolute targets. A later binding is not taken to replace an earlier one even when it always runs:
module-level code between the two may have captured the earlier value (``REGISTRY = [helper]``),
and telling which code ran in between would mean resolving each use at its position in the file.
So all bindings are kept (widening: an edit to a dead earlier binding changes the hash).

``loom_runtime.flow``'s arguments never feed any canonical form: wherever a flow definition is
written (the flow itself, its class, a whole module), its flow decorator is replaced by the
placeholder ``@__loom_flow__``, which keeps the decorator's *position* among the others hashed
(``@wrap @flow`` and ``@flow @wrap`` differ) and drops its arguments (``version``,
``compatible_with``, ``code_fingerprint`` belong to the structural hash and the manifest).
Another framework's flow decorator has no structural fields but its id: its placeholder keeps
every other argument (``@__loom_flow__(retries=3)`` for Prefect's ``@flow(name="x", retries=3)``),
and what those arguments reach is followed like any reference (``discovery.flow_arguments``).

A step contributes its header: its decorators (with their arguments and what they reach) and its
signature are hashed, only its body is left out (``@step(max_attempts=3)`` -> ``4`` changes the
flows that reach it; ``@twice @step def charge`` follows ``twice``). Its body is an effect served
from the journal; its header decides how the flow calls it and how the runtime retries it.

Flows that cannot be pinned (defined inside a function, in a class defined inside a function, or
inside a module-level ``if``/``try``/``with`` block) are reported with their location, never
skipped: the registry finds a flow by the module attribute path of its definition.

Paths computed from ``__file__`` (``static_paths``, issue 12's E9/L2): a statement whose text
names ``sys.path``, ``__path__``, a loader by path or ``exec`` is searched for them; a directory
it puts on ``sys.path``/``__path__`` is ``ModuleSummary.search_paths`` (in the tree's naming), a
file of the project it loads by path is a reference ``"&<path>|<module>`` of the unit (and of a
flow or method flow in it: ``closure`` hashes the file's bytes and follows the module whole when
it is first-party code, F10), and a path it cannot decide is
``ModuleSummary.path_warnings`` (``closure`` warns on the flows it concerns). The text test keeps
the cost to the statements that may hold one.

Parsing is ``parsing.parse_source``: CPython compiles the text first (what it refuses is refused
with its message and position), then libcst parses it without re-validating its own nodes.

No cyclic garbage: once its summary is dropped, a module's libcst tree and the analysis state
are freed by reference counting. A cycle through them (a nested function calling itself through
its closure while holding a bound method of the analyser, ``ModuleRules`` holding
``chain_names``) kept every tree alive until the cyclic collector walked and freed it: 0.30 of
2.0 CPU seconds in collections for the build benchmark's 174 modules, 0.02 without the cycles
(``tests/compiler/test_analysis_garbage.py`` keeps them out).

Rejected: storing libcst trees in the summary (not picklable across libcst versions, large),
per-definition re-parsing later (doubles the parse cost that dominates the build), and ``ast``
instead of libcst for the hashed forms (the scheme is defined over libcst's trees).
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import re
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from loom_compiler.model import SourceError
from loom_runtime.file_listing import LISTING

from . import deep_stack
from .class_creation import creation_roots
from .subscript_runs import SUBSCRIPTED, annotations_deferred, header_code, subscripted
from .operator_runs import operands, operator_calls
from .canonical import (
    SCHEME,
    CanonicalisationError,
    canonical,
    canonical_statements,
    child_nodes,
    exact_types,
    flatten_block,
    literal_string_value,
    nfkc,
)
from .frameworks.base import DEFAULT_FLOW_ID, FlowIdArgument, FlowIdError
from .discovery import (
    LOOM_FLOW,
    FlowArgError,
    FlowArgs,
    extract_flow_args,
    flow_arguments,
    normalise_decorator,
    star_may_bind,
)
from .frameworks.engine_config import exempt_engine_config
from .frameworks.engine_hooks import hook_records
from .frameworks.rules import ModuleRules
from .effects import (
    UNKNOWN_ALL,
    StatementFacts,
    attachments,
    chunk_runs,
    call_refs,
    changes_process_state,
    is_immutable_literal,
    literal_all,
    project_imports,
    split_if,
)
from .binding_order import order_marks
from .code_runners import RUNNER_WORDS, reaches
from .deferred_forms import MAX_DEFERRED_CHARS, MAX_DEFERRED_MODULE, DeferredForms, ReloadError
from .load_calls import NONE as NO_LOAD_CALLS
from .load_calls import fired_registrations, load_calls, might_matter
from .load_runs import module_load_imports
from .parsing import node_position, parse_module_unvalidated, parse_source, too_deep_error
from .precheck import decorator_markers, might_define_flows
from .scopes import References, _Binder, bound_names, dotted_chain, references, target_names
from .static_paths import FILE_REF, might_use_paths, path_uses, runner_aliases

if TYPE_CHECKING:
    from .config import LoomConfig

__all__ = [
    "Unit",
    "DeferredUnit",
    "MemberUnit",
    "FlowSite",
    "ModuleSummary",
    "analyse_module",
    "cacheable",
    "defer_missing",
    "deferred_forms",
    "reload_from",
    "might_define_flows",
    "decorator_markers",
    "parse_module_unvalidated",
    "FLOW_PLACEHOLDER",
]

UnitKind = str  # "function" | "class" | "constant" | "import" | "step" | "statement"

#: what a flow decorator is written as in every canonical form (its position kept; its arguments
#: only for a decorator other than ``loom_runtime.flow``, the flow id left out)
FLOW_PLACEHOLDER = "__loom_flow__"
_PLACEHOLDER = cst.Decorator(decorator=cst.Name(FLOW_PLACEHOLDER))
#: the name of a method flow's class in the class header its canonical form starts with
FLOW_CLASS_PLACEHOLDER = "__loom_flow_class__"
_PASS_BODY = cst.IndentedBlock(body=[cst.SimpleStatementLine([cst.Pass()])])


@dataclass(frozen=True, slots=True)
class _Later:
    """A canonical form not computed yet: ``compute`` writes it from the statement's nodes."""

    compute: Callable[[], str]


@dataclass(frozen=True, slots=True)
class Unit:
    """One module-level statement and what it means for the names of the module."""

    index: int
    kind: UnitKind
    names: tuple[str, ...]  # module-level names it binds (imports included), sorted
    #: canonical form (flow decorators as the placeholder; for a step its header, body left out);
    #: for a flow function, the flow's own form (its name left out). None: deferred (``canonical``
    #: of a ``DeferredUnit`` computes it; a cached summary holds None for the forms no closure of
    #: its build asked for). Read it as ``canonical``.
    form: str | None
    #: dotted chains rooted at global names, sorted; "=<target>" is an absolute target (a lazy
    #: import inside a function, ``importlib.import_module("x")``)
    references: tuple[str, ...]
    source: str  # original text: leading comments, decorators, formatting
    line: int  # first line of the statement proper (decorator or keyword)
    step_name: str | None = None  # for kind "step": the step's qualified name
    aliases: tuple[tuple[str, str], ...] = ()  # (name, absolute target) of each import it runs, in order
    stars: tuple[str, ...] = ()  # absolute targets of its star imports
    global_writes: tuple[str, ...] = ()  # names its functions bind after ``global``
    attached: tuple[str, ...] = ()  # names whose state it can change (``effects``)
    dynamic: tuple[str, ...] = ()  # "module" (reads the namespace by computed name), "module-write"
    simple_import: bool = False  # a line of plain import statements and nothing else
    #: (name, canonical form of the part of the statement that binds it) for ``with``/``if``
    #: blocks that import several names (``effects.project_imports``)
    projections: tuple[tuple[str, str], ...] = ()
    #: a def or class: the module-level names of its module that calling it can change
    #: (``effects``; read by another module's statement calling it, ``closure``)
    changes: tuple[str, ...] = ()
    #: a module-level ``if`` judged per inner statement (``effects.split_if``): each piece's
    #: (ordinal line, source, canonical, references, names it is attached to), in order; what a
    #: name it is attached to means is its pieces, and a chunk replays the pieces, never the
    #: whole. Empty: the statement is judged whole.
    pieces: tuple[tuple[int, str, str, tuple[str, ...], tuple[str, ...]], ...] = ()
    #: a module-level function, under a profile whose calls run plain functions as steps
    #: (``NameOnlyArg.step``: DBOS's ``run_step``): its header's canonical form (decorators and
    #: signature, body left out) and what the header references; what a step call of it hashes
    header: str = ""
    header_references: tuple[str, ...] = ()
    #: a class (or a def holding classes): the names its methods reach through ``self``/``cls``/
    #: ``type(self)``, and whether one reaches its instance by a computed name or lets it escape
    #: ("read": "class" of ``scopes``) or only writes to it by one ("write": "class-write"). A
    #: subclass's instance runs these methods with ``self`` an instance of the subclass:
    #: ``closure`` looks the names up on a method flow's class (breaker2's C1)
    self_members: tuple[str, ...] = ()
    self_dynamic: str = ""
    #: a class: its bases and metaclass as global chains (``_base_chains``; "?" for one that is
    #: computed), what a subclass's MRO continues with
    bases: tuple[str, ...] = ()
    #: a def or class: the chains of its references a call of it can change or run
    #: (``effects.call_refs``; followed across modules by ``closure.call_effects``)
    call_refs: tuple[str, ...] = ()
    #: a class: the descriptor-protocol methods its body defines (``DESCRIPTOR_METHODS``): an
    #: instance of it held as a class attribute is handed the instance or the owner class
    #: (``closure``: breaker3's D4)
    descriptor: tuple[str, ...] = ()
    #: chains of what the statement may run when the module runs beyond the callees it spells
    #: (``effects.import_time_runs``: a def of the module it calls, the function values flowing
    #: into a call it cannot resolve; ``()<chain>``: what calling it returns may run)
    runs: tuple[str, ...] = ()
    #: of ``attached``, the names the statement only hands to third-party code (``atexit.register(load)``,
    #: ``Thread(target=load)``): the chunk counts no def among them as run (``effects.chunk_runs``, G7)
    handed_on: tuple[str, ...] = ()
    #: the name the statement only calls to bind or drop what it returns (``OBJ = L()``): the chunk
    #: counts a class's construction as run, not all its methods (``effects.chunk_runs``, G7)
    constructed: tuple[str, ...] = ()
    #: a class statement: the roots of its bases it only subclasses (not called in the statement): the
    #: chunk counts their ``__init_subclass__`` as run, not all their methods (``effects.chunk_runs``, G7)
    subclassed: tuple[str, ...] = ()

    @property
    def canonical(self) -> str:
        """The canonical form (see ``form``)."""
        form = self.form
        if form is None:
            raise LookupError(f"unit {self.index} ({', '.join(self.names) or self.kind}): its canonical form was "
                              "deferred and this unit cannot compute it (a summary read back without "
                              "analysis.defer_missing)")
        return form

    def canonical_for(self, name: str) -> str:
        for bound, text in self.projections:
            if bound == name:
                return text
        return self.canonical


class DeferredUnit(Unit):
    """A ``Unit`` whose canonical form is computed when first read (``deferred_forms``), by the
    module's ``DeferredForms``. Not a cache value: ``cacheable`` turns it back into a ``Unit``."""

    __slots__ = ("_forms",)
    _forms: DeferredForms

    @property
    def canonical(self) -> str:
        form = self.form
        return form if form is not None else self._forms.form(self.index)

    def __reduce__(self) -> object:
        raise TypeError("a DeferredUnit holds libcst nodes and cannot be pickled: analyse with defer=False")


_UNIT_FIELDS = tuple(f.name for f in dataclasses.fields(Unit))


def _deferred(unit: Unit, forms: DeferredForms) -> DeferredUnit:
    out = DeferredUnit(**{name: getattr(unit, name) for name in _UNIT_FIELDS})
    object.__setattr__(out, "_forms", forms)
    return out


@dataclass(frozen=True, slots=True)
class MemberUnit:
    """A member of a class that declares a method flow (reached through ``self.``/``cls.``)."""

    qualname: str  # "Checkout.total"
    canonical: str
    references: tuple[str, ...]
    members: tuple[str, ...]  # self./cls. names it uses in turn (and class-body names it reads)
    source: str
    line: int
    kind: str = "method"  # "method" | "step" (hashed by qualified name only)
    dynamic: tuple[str, ...] = ()  # "class": reaches the instance by a computed name; "class-write"
    #: an undecorated ``def``: a plain function, no data descriptor (a computed write to the
    #: instance, ``setattr(self, key, v)``, never runs it)
    plain: bool = False


@dataclass(frozen=True, slots=True)
class FlowSite:
    """A flow declared in the module: where, with which decorator arguments, and what its own
    code (flow decorator as the placeholder, name left out) canonicalises to and uses."""

    qualname: str  # "checkout" or "Checkout.run"
    args: FlowArgs
    decorator: str  # qualified name of the flow decorator
    line: int
    column: int
    unit: int  # index of the module-level unit holding it
    canonical: str  # flow decorator as the placeholder, own name left out
    references: tuple[str, ...]
    members: tuple[str, ...]  # self./cls. names (method flows)
    class_qualname: str | None
    source: str
    dynamic: tuple[str, ...] = ()  # "module" / "module-write" / "class" (see ``scopes``)
    #: canonical form of its decorators and signature (body left out), under a framework profile:
    #: what a parent that references this flow as a *child* hashes (``closure``)
    header: str = ""
    #: a method flow: its class's bases and metaclass as global chains (``_base_chains``)
    bases: tuple[str, ...] = ()
    #: a method flow: the global chains its class's statement evaluates into the class (its
    #: decorators, its body's assignments, the decorators of its defs): what may hand the
    #: instance to code as a descriptor, a wrapper or an installed function (``closure``, D4)
    values: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ModuleSummary:
    """Everything the closure, hashing and bundling stages need from one module, as plain values
    (str, int, bool, tuples and frozen dataclasses of them: picklable, comparable, JSON-able).
    ``errors`` are per-flow problems; a module that cannot be parsed at all is a ``SourceError``
    instead of a summary. Lines and columns are 1-based, as compilers and editors print
    ``file:line:column``."""

    module: str
    path: str
    is_package: bool
    units: tuple[Unit, ...]
    imports: tuple[tuple[str, str], ...]  # module-level import bindings, local name -> target (last wins)
    star_imports: tuple[str, ...]
    flows: tuple[FlowSite, ...]
    members: tuple[MemberUnit, ...]  # of classes holding method flows
    errors: tuple[SourceError, ...]
    scheme: str = SCHEME
    #: ``__all__`` when it is a literal (what a star import of the module binds); None: no
    #: ``__all__`` (a star import binds the public names)
    exports: tuple[str, ...] | None = None
    exports_known: bool = True  # False: ``__all__`` is computed, a star import may bind anything
    getattr_hook: bool = False  # a module-level ``__getattr__`` (PEP 562) serves unbound names
    #: what its module-level imports load (``import a.b`` -> ``a.b``, ``from a import b`` -> ``a``,
    #: ``a.b``), sorted: the modules that run when it runs (``closure``)
    runs: tuple[str, ...] = ()
    #: plain aliases that may stand for a flow decorator: (name, what it stands for, line) for
    #: ``durable = flow`` or ``flow = core.flow`` (a flow decorator or another first-party name);
    #: another module's decorator resolving to such a name is a re-export (``hidden_flows``
    #: follows the first-party ones; imports are read from ``imports``)
    flow_names: tuple[tuple[str, str, int], ...] = ()
    #: module-level names that hide a flow decorator: (name, line, how): a function that calls one
    #: (a wrapper factory), a value built from one (``partial(flow, ...)``)
    flow_wrappers: tuple[tuple[str, int, str], ...] = ()
    #: decorators of module-level functions and methods that may stand for another first-party
    #: module's name: (function qualname, line, column, the decorator as written, candidates);
    #: ``hidden_flows`` checks they are no flow decorator reached through first-party code
    foreign_decorators: tuple[tuple[str, int, int, str, tuple[str, ...]], ...] = ()
    #: under a profile with engine hooks (``frameworks.engine_hooks``): (class name, base chains)
    #: of its module-level classes, the chains its code hands to the engine's configuration, and
    #: the canonical text of what it hands there (every workflow's ``<module>#engine`` member)
    engine_classes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    engine_arguments: tuple[str, ...] = ()
    engine_values: tuple[str, ...] = ()
    #: directories its code puts on ``sys.path`` ("sys") or its ``__path__`` ("pkg"), decided
    #: statically (``static_paths``): (kind, how: "first" put before the others, "last" after
    #: them, "reset" the first of a list assigned over the whole search path, the dotted package
    #: the directory is in the tree's naming, "" for a top-level one), in source order
    #: (``closure`` looks imports up there, E9)
    search_paths: tuple[tuple[str, str, str], ...] = ()
    #: what the fingerprint cannot follow in its code, to warn about: (unit index, line, column,
    #: kind "sys"/"pkg"/"load", message) of each ``sys.path``/``__path__`` change and each load of
    #: a file by path whose path is undecidable (``static_paths``); and (..., "file", path) where
    #: it loads a project file that is no module (no warning itself: ``closure`` warns there if
    #: the file cannot be read, or imports), (..., "site", directory) where ``site.addsitedir``
    #: adds a directory whose ``.pth`` files ``closure`` reads
    path_warnings: tuple[tuple[int, int, int, str, str], ...] = ()

    def import_map(self) -> dict[str, str]:
        return dict(self.imports)

    def units_binding(self, name: str) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if name in u.names)

    def member(self, qualname: str) -> MemberUnit | None:
        for m in self.members:
            if m.qualname == qualname:
                return m
        return None


def deferred_forms(summary: ModuleSummary) -> DeferredForms | None:
    """The ``DeferredForms`` serving ``summary``'s deferred units (None: every form is computed)."""
    for unit in summary.units:
        if type(unit) is DeferredUnit:
            return unit._forms
    return None


def cacheable(summary: ModuleSummary) -> ModuleSummary:
    """``summary`` as a plain value (what ``.loom-cache`` stores): each ``DeferredUnit`` a ``Unit``
    holding its form if some closure asked for it, else None (``defer_missing`` serves those)."""
    forms = deferred_forms(summary)
    if forms is None:
        return summary
    known = forms.known()
    units = tuple(_plain(u, known.get(u.index)) if type(u) is DeferredUnit else u for u in summary.units)
    return dataclasses.replace(summary, units=units)


def _plain(unit: DeferredUnit, form: str | None) -> Unit:
    return Unit(**{**{name: getattr(unit, name) for name in _UNIT_FIELDS}, "form": form})


def defer_missing(summary: ModuleSummary, reload: Callable[[], ModuleSummary | SourceError]) -> ModuleSummary:
    """A summary read back (``cacheable``'s value) whose units lack forms, made whole again: those
    become ``DeferredUnit`` values computed, on first read, from ``reload()`` (the module analysed
    again from the same bytes, once, with ``defer=True``). A reload of another shape (other units:
    the bytes or the compiler are not what the summary came from) raises ``ReloadError``."""
    if all(u.form is not None for u in summary.units):
        return summary
    forms = DeferredForms(summary.module, {})
    forms.reload = functools.partial(_fresh_forms, summary, reload)
    units = tuple(_deferred(u, forms) if u.form is None else u for u in summary.units)
    return dataclasses.replace(summary, units=units)


def reload_from(summary: ModuleSummary, reload: Callable[[], ModuleSummary | SourceError]) -> None:
    """Where ``summary``'s deferred forms come from once its nodes are dropped
    (``DeferredForms.release``): ``reload()``, as for ``defer_missing``."""
    forms = deferred_forms(summary)
    if forms is not None:
        forms.reload = functools.partial(_fresh_forms, summary, reload)


def _fresh_forms(summary: ModuleSummary, reload: Callable[[], ModuleSummary | SourceError]) -> DeferredForms:
    fresh = reload()
    if isinstance(fresh, SourceError) or len(fresh.units) != len(summary.units) or any(
            (a.index, a.kind, a.names, a.source) != (b.index, b.kind, b.names, b.source)
            for a, b in zip(fresh.units, summary.units)):
        raise ReloadError(f"{summary.path}: analysed again for a deferred canonical form, the module gave "
                          "other statements than its summary; delete .loom-cache and build again")
    found = deferred_forms(fresh)
    if found is None:  # analysed eagerly this time (``analyse_module`` decides): its forms as they are
        found = DeferredForms(summary.module, {u.index: (lambda text=u.canonical: text) for u in fresh.units})
    return found


def _load_time_imports(units: Sequence[Unit]) -> set[str]:
    """Modules a module's statements import as they run beyond its import statements (breaker5's
    F1, F12): a literal importer call at load (``x = __import__("shop.x", fromlist=["f"])``,
    ``importlib.import_module("shop.y")``), and the imports of the code of the module a statement
    runs (``def load(): import shop.z`` then ``load()``, a decorator, a class body, a method, a
    lambda: ``load_runs``, one rule with the chunk). Wider than Python where a class body's or a
    value's ``=`` reference comes from a method or a lambda nothing calls at load: the module then
    counts as run, which only adds statements to a closure. What code of *another* module a
    statement runs imports is ``closure``'s to add (it needs that module's summary)."""
    out = {ref[1:] for u in units if u.kind != "function" for ref in u.references if ref[:1] == "="}
    out.update(module_load_imports(units))
    return out


def analyse_module(
    source: bytes | str,
    *,
    module: str,
    path: str,
    config: LoomConfig | None = None,
    all_functions: bool = False,
    defer: bool = False,
) -> ModuleSummary | SourceError:
    """Parse and summarise one module. Whole-file failures come back as a ``SourceError``.

    Runs on ``deep_stack``'s large-stack thread: code nested deeper than a default stack allows
    is hashed, or past loom's limits a located error, never a crash (``parsing`` says how).
    ``all_functions`` (tests, benchmarks) treats every function and method as a flow.
    ``defer``: leave the canonical forms of plain statements to be computed when first read
    (``deferred_forms``; the summary then holds ``DeferredUnit`` values, which keep libcst nodes:
    ``cacheable`` gives the value to cache, and such a summary cannot be pickled).
    """
    return deep_stack.call(_analyse_module, source, module, path, config, all_functions, defer)


def _analyse_module(
    source: bytes | str, module: str, path: str, config: LoomConfig | None, all_functions: bool, defer: bool = False,
) -> ModuleSummary | SourceError:
    parsed = parse_source(source, path)
    if isinstance(parsed, SourceError):
        return parsed
    tree, text = parsed.tree, parsed.text
    with deep_stack.recursion_limit(deep_stack.RECURSION_LIMIT):
        try:
            analyser = _Analyser(
                tree, text, module=module, path=path, config=config, all_functions=all_functions, syntax=parsed.syntax,
                # a name lookup in a string literal (``\N{...}``) is the one canonicalisation that can
                # fail; with other threads running the recursion limit cannot be raised later
                defer=defer and len(text) <= MAX_DEFERRED_MODULE and "\\N{" not in text and not deep_stack.others_running(),
            )
            # CPython's tree served the layout's positions; kept alive, its objects would lengthen
            # every garbage collection the analysis triggers
            del parsed
            try:
                return analyser.run()
            finally:
                analyser.rules = None  # it holds ``analyser.chain_names``: a cycle (the module docstring)
        except (RecursionError, MemoryError) as exc:
            return too_deep_error(text, None, path, exc)
        except CanonicalisationError as exc:
            line, column = node_position(tree, exc.node)
            return SourceError(path, line, column, str(exc), code="syntax")


def _suffixed(compute: Callable[[], str], suffix: str) -> Callable[[], str]:
    """A deferred form with ``suffix`` (``binding_order``'s mark) after it."""
    return lambda: compute() + suffix


@dataclass(slots=True)
class _Statement:
    """Pass-1 facts of one module-level statement (what it binds), used to resolve decorators."""

    names: set[str]
    own_names: set[str]  # bound other than by an import
    aliases: list[tuple[str, str]]
    stars: list[str]
    simple: bool  # a plain statement (replaces earlier bindings when resolving a decorator)
    modules: tuple[str, ...] = ()  # modules its imports load (``scopes._Binder.modules``)
    #: ``app = FastAPI()``: the root of the callee that built the value it binds (None otherwise),
    #: and the global roots its arguments name
    built_by: str | None = None
    built_from: frozenset[str] = frozenset()
    literal: str = ""  # ``NAME = <immutable literal>`` (``"literal"``) or an environment read (``"environ"``)


#: a module that may bind a name to ``exec``/``eval`` (``run = exec``): only there are its
#: names bound so looked for (``static_paths.runner_aliases``)
_RUNNER_ALIAS = re.compile(r"=\s*(?:builtins\s*\.\s*)?(?:exec|eval)\b|\b(?:exec|eval)\s+as\b")


class _Analyser:
    def __init__(
        self, tree: cst.Module, text: str, *, module: str, path: str, config: LoomConfig | None, all_functions: bool,
        syntax: ast.Module | None = None, defer: bool = False,
    ) -> None:
        self.tree = tree
        self.defer = defer
        self.text = text
        self.walrus = ":=" in text  # a walrus is one token: without it no walrus target is looked for
        # nested flows can only be where a flow decorator's name is spelled (``precheck``)
        self.may_nest = all_functions or might_define_flows(text.encode("utf-8", "surrogatepass"), config)
        self.layout = _Layout(tree, text, syntax, nested=self.may_nest)
        self.module = module
        self.path = path
        self.config = config
        self.is_package = path.replace("\\", "/").endswith("__init__.py")
        self.flow_decorators = {normalise_decorator(d) for d in (config.decorators if config is not None else (LOOM_FLOW,))}
        self.step_decorators = {normalise_decorator(d) for d in (config.step_decorators if config is not None else ("loom_runtime.step",))}
        self.all_functions = all_functions
        # the framework profile's rules (DESIGN §8); the loom profile adds none
        # (a stand-in config without a profile, as some tests pass, means the loom profile)
        self.profile = getattr(config, "profile", None) if config is not None else None
        self.rules = ModuleRules(self.profile, self.chain_names) if self.profile is not None and self.profile.extended else None
        self.flow_last_names = {d.rsplit(".", 1)[-1] for d in self.flow_decorators}
        self.errors: list[SourceError] = []
        self._positions: Mapping[cst.CSTNode, object] | None = None
        self._current: cst.CSTNode | None = None  # the module-level statement being analysed
        self._import_errors: set[int] = set()
        self.nested_units: set[int] = set()  # module-level statements holding a flow reported as nested
        self._class_effects: dict[int, tuple[set[str], set[str]]] = {}
        self._class_values: dict[int, tuple[str, ...]] = {}

    # -- positions (computed only when a flow or an error needs one) -----------------------------
    def position(self, node: cst.CSTNode) -> tuple[int, int]:
        """(line, column), both 1-based as editors and compilers print them (libcst's and ast's
        columns are 0-based)."""
        known = self.layout.position(node)
        if known is None and self._positions is None and self._current is not None:
            known = self.layout.position_within(self._current, node)
        if known is not None:
            return known[0], known[1] + 1
        if self._positions is None:
            self._positions = MetadataWrapper(self.tree, unsafe_skip_copy=True).resolve(PositionProvider)
        rng = self._positions[node]
        return rng.start.line, rng.start.column + 1  # type: ignore[attr-defined]

    def error(self, node: cst.CSTNode, message: str, code: str) -> None:
        line, column = self.position(node)
        self.errors.append(SourceError(self.path, line, column, message, code=code))

    def refs(self, node: cst.CSTNode, *, method_of_class: bool = False) -> References:
        """``scopes.references`` with the profile's name-only call arguments (``^chain``)."""
        return references(node, method_of_class=method_of_class, resolve_from=self.resolve_from,
                          name_only=self.rules.name_only if self.rules is not None else None,
                          package=self.module if self.is_package else self.module.rpartition(".")[0],
                          imports=self.stands_for, modules_names=self.modules_names, walrus=self.walrus)

    def header_of(self, node: cst.FunctionDef) -> cst.FunctionDef:
        """A definition with its body left out: what a step contributes besides its name
        (decorators and signature run at import, or are read by the runtime or the engine)."""
        return node.with_changes(body=_PASS_BODY)

    def step_header(self, node: cst.FunctionDef, *, method_of_class: bool = False) -> tuple[str, References]:
        """(canonical form, references) of a step's header (DESIGN §6: decorators with their
        arguments and what they reach, and the signature; the body is an effect).

        A third-party step decorator itself (``@step``, ``@DBOS.step()``) is hashed by the name
        it resolves to, written into the form, not reached as an import member of the step's
        module: it is what makes the function a step, and a chunk imports the step live, so the
        step's module holds no bundled code on its account. That keeps a module of steps out of
        a flow's ``closureSources`` unless the header reaches its code (a scheme upgrade links a
        version only when every closure module is byte-identical: ``bundle/rehash``, and fp/1
        never recorded the modules of steps). A first-party step decorator is followed like any
        other decorator (its code wraps the step), and so is an engine's API object the profile
        names opaque (``@DBOS.step()`` reaches ``DBOS``: the engine's configuration, a serializer
        that decodes recorded results, stays with the flows that use the engine, ``engine_config``)."""
        header = self.header_of(node)
        refs = self.refs(header, method_of_class=method_of_class)
        marks: set[str] = set()
        engine = self.profile.opaque if self.profile is not None else ()
        for chain in sorted(refs.globals):
            if not all(part.isidentifier() for part in chain.split(".")):
                continue  # synthetic (``=<target>``, ``!<module>``) or name-only (``^chain``) references
            names = self.chain_names(chain)
            found = names & self.step_decorators
            if found and not any(self.first_party(n) or any(n == o or n.startswith(o + ".") for o in engine)
                                 for n in names):
                refs.globals.discard(chain)
                marks |= found
        return canonical(header) + "".join(f"\n(step decorator {m})" for m in sorted(marks)), refs

    def subscripted_classes(self, stmts: Sequence[cst.CSTNode], drafts: Sequence[tuple[Any, ...]],
                            runs: list[set[str]]) -> None:
        """Add to ``runs`` what a statement subscripts as it runs (``L[int]``: Python calls
        ``__class_getitem__`` then; breaker6's G5/G8, breaker7's R1; ``subscript_runs``): each
        class of the module defining ``__class_getitem__``, and each name imported from a
        first-party module (marked ``SUBSCRIPTED``: ``load_runs`` runs it there only if it is a
        class). Read from the text of a statement other than a def and the class's own, and of
        the part of a def that runs as it is defined (``subscript_runs.header_code``)."""
        named = [n for i, stmt in enumerate(stmts) if type(stmt) is cst.ClassDef and "__class_getitem__" in drafts[i][4]
                 for n in self.statements[i].names]
        own = {n for st in self.statements for n in st.own_names}
        imported = {local for st in self.statements for local, target in st.aliases
                    if local not in own and self.first_party(target)}
        if not named and not imported:
            return
        deferred: bool | None = None
        for index, (kind, _, _, _, code, _) in enumerate(drafts):
            if "[" not in code:
                continue
            if kind == "function":
                if type(stmts[index]) is not cst.FunctionDef:
                    continue
                if deferred is None:
                    deferred = annotations_deferred(stmts)
                code = header_code(stmts[index], deferred)  # type: ignore[arg-type]
            names = self.statements[index].names
            runs[index].update(n for n in subscripted(code, named) if n not in names)
            runs[index].update(SUBSCRIPTED + c for c in subscripted(code, imported, dotted=True) if c not in names)

    def imported_operands(self, stmts: Sequence[cst.CSTNode], drafts: Sequence[tuple[Any, ...]],
                          runs: list[set[str]]) -> None:
        """Add to ``runs`` each name imported from a first-party module that a statement applies
        an operator to (``from shop.o import OBJ``, then ``OBJ[1]`` or ``OBJ.p``: breakS's S7;
        ``operator_runs``), marked ``SUBSCRIPTED`` as ``subscripted_classes`` marks ``L[int]``:
        what it is, is that module's binding, which ``closure`` reads (a class's
        ``__class_getitem__``, an instance of a class whose code defines operators)."""
        own = {n for st in self.statements for n in st.own_names}
        imported = {local for st in self.statements for local, target in st.aliases
                    if local not in own and self.first_party(target)}
        if not imported:
            return
        spelled = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(imported))) + r")\b")
        bound = set(self.binders)
        for index, stmt in enumerate(stmts):
            if drafts[index][0] == "import" or not _header_spells(stmt, drafts[index][4], spelled):
                continue
            names = self.statements[index].names
            runs[index].update(SUBSCRIPTED + n for n in operands(stmt, bound) if n in imported and n not in names)

    # -- main -----------------------------------------------------------------------------------
    def run(self) -> ModuleSummary:
        stmts = self.stmts = list(self.tree.body)
        self.statements = []
        for stmt in stmts:
            self._current = stmt
            self.statements.append(self.bindings_of(stmt))
        self.binders: dict[str, list[int]] = {}
        for i, st in enumerate(self.statements):
            for name in st.names:
                self.binders.setdefault(name, []).append(i)
        self.star_units = [i for i, st in enumerate(self.statements) if st.stars]
        self._stands: dict[str, list[str]] = {}  # memo of ``stands_for``
        self._modules_names: frozenset[str] | None = None
        self._literal: dict[str, bool] = {}
        self._third_party: dict[str, bool] = {}  # memo of ``third_party`` asked from outside
        # the module-level import bindings, last one winning (flow arguments' ``re.compile``)
        self.import_map: dict[str, str] = {}
        for st in self.statements:
            for local, target in st.aliases:
                self.import_map[local] = target

        self.flows: list[FlowSite] = []
        self.members: list[MemberUnit] = []
        drafts: list[tuple[str, str | _Later, References | None, str | None, str, int]] = []
        facts: list[StatementFacts] = []
        projections: list[tuple[tuple[str, str], ...]] = []
        #: a statement judged per inner statement (rule 2, ``effects.split_if``): its pieces, their
        #: references and the global roots its tests read; the pieces' facts follow the statements'
        split: dict[int, tuple[list[cst.If], list[References], set[str]]] = {}
        for index, stmt in enumerate(stmts):
            self._current = stmt
            kind, text, refs, step_name = self.unit(index, stmt)
            code, start = self.layout.source(stmt)
            drafts.append((kind, text, refs, step_name, code, start))
            st = self.statements[index]
            facts.append(StatementFacts(index, st.names, st.own_names, refs or References(),
                                        type(stmt) in (cst.FunctionDef, cst.ClassDef) and kind != "step",
                                        type(stmt) is cst.ClassDef, _base_roots(stmt),
                                        any(f.unit == index and f.class_qualname for f in self.flows),
                                        type(stmt) is cst.FunctionDef and bool(stmt.decorators),
                                        _display_assignment(stmt), creation_roots(stmt),
                                        load_calls(stmt, self._qualified_chain) if might_matter(code) else NO_LOAD_CALLS))
            projections.append(self.projections(stmt, st))
            pieces = split_if(stmt) if not st.names and refs is not None and not refs.dynamic \
                and not refs.global_writes else None
            if pieces:
                split[index] = (pieces, [self.refs(p) for p in pieces], _test_roots(stmt, self.refs))
        self.global_written = {n for f in facts for n in f.refs.global_writes}
        self.any_writer = any("module-write" in f.refs.dynamic for f in facts)
        for index, (pieces, piece_refs, _) in split.items():
            facts += [StatementFacts(index, set(), set(), r, False) for r in piece_refs]
        # an operator applied at load to a name standing for the module's code: a call of that code (S7)
        operator_calls(facts, [*stmts, *(p for pieces, _, _ in split.values() for p in pieces)], [d[4] for d in drafts],
                       set(self.binders), self.third_party, self.literal)
        attached, changes, runs = attachments(facts, self.third_party, self.literal, star=bool(self.star_units))
        fired_registrations(facts, attached, runs, self._qualified_chain)
        self.subscripted_classes(stmts, drafts, runs)
        if self.profile is not None and self.profile.opaque:
            attached = exempt_engine_config(facts, attached, self.profile.opaque, self.import_targets, self.third_party)
        attached_pieces = self.pieces_of(split, attached[len(stmts):], attached)
        handed_on, constructed, subclassed = chunk_runs(
            facts, attached, runs, [_made(s, d[4]) for s, d in zip(stmts, drafts)] + [None] * (len(facts) - len(stmts)),
            self.third_party, self.import_targets)
        # (after ``chunk_runs``: a mark there is no callee, ``atexit.register(util.load)`` hands on)
        self.imported_operands(stmts, drafts, runs)

        # where a read at load of a name bound more than once falls among its bindings (T1)
        ordered = order_marks(stmts, self.binders,
                              lambda name, i: drafts[i][0] == "import" and (name, name) in self.statements[i].aliases,
                              lambda i: drafts[i][2].globals if drafts[i][2] is not None else None,
                              lambda node: self.refs(node).globals)
        units: list[Unit] = []
        pending: dict[int, Callable[[], str]] = {}
        step_calls = self.profile is not None and self.profile.step_calls
        # the module's ``__future__`` mark on every form, applied as each unit is made (a second
        # pass of ``dataclasses.replace`` over every unit of a module with ``annotations`` cost more)
        stamp = _future_stamp(stmts)
        mark: Callable[[str], str] = stamp if stamp is not None else _unmarked
        search_paths: list[tuple[str, str, str]] = []
        path_warnings: list[tuple[int, int, int, str, str]] = []
        loaded_by_path: dict[int, list[str]] = {}
        #: statements that run code from a path or text the compiler cannot decide as the module
        #: loads: as ``exec`` of computed text, any first-party module and any name of this one
        undecided_at_load: set[int] = set()
        runners = runner_aliases(self._module_value, self.binders, self._qualified_chain) if _RUNNER_ALIAS.search(
            self.text) else frozenset()
        for index, (kind, later, refs, step_name, code, start) in enumerate(drafts):
            if might_use_paths(code, runners):
                self._current = stmts[index]
                before = len(path_warnings)
                loaded = self.path_uses(index, stmts[index], search_paths, path_warnings)
                if kind not in ("function", "class") and any(w[3] == "load" for w in path_warnings[before:]):
                    undecided_at_load.add(index)
                if loaded:
                    loaded_by_path[index] = loaded
            if refs is not None and "?" in refs.globals and RUNNER_WORDS.search(code):
                self._current = stmts[index]
                self.runner_warnings(index, stmts[index], path_warnings)
        #: what the decorators and signatures of the module's defs import as they run (breaker6's G5:
        #: ``def f(a=importlib.import_module("shop.x"))``): a def's lazy ``=`` references are its
        #: body's, which runs later, unless its header spells them; and what code strings read
        #: at load import (``exec("import shop.x")``)
        header_loads: set[str] = set()
        for index, (kind, later, refs, step_name, code, start) in enumerate(drafts):
            st = self.statements[index]
            refs = refs or References()
            if kind == "function" and type(stmts[index]) is cst.FunctionDef and any(r[:1] == "=" for r in refs.globals):
                header_loads.update(r[1:] for r in self.refs(self.header_of(stmts[index])).globals if r[:1] == "=")
            header_loads |= refs.code_loads  # ``exec("import shop.x")`` at load (G5)
            if kind not in ("function", "class"):
                # a first-party module run by path as the module loads (``runpy.run_path(os.path.join(
                # os.path.dirname(__file__), 'plug.py'))``) runs as an import of it would (fixX2)
                header_loads.update(m for ref in loaded_by_path.get(index, ()) if (m := ref.rpartition("|")[2]))
            text: str | None
            order = ordered.get(index, "")
            if not isinstance(later, _Later):
                text = later + order
            elif self.defer and len(code) <= MAX_DEFERRED_CHARS:
                text, pending[index] = None, (later.compute if not order else _suffixed(later.compute, order))
            else:
                text = later.compute() + order
            header, header_refs = "", References()
            if step_calls and kind == "function" and type(stmts[index]) is cst.FunctionDef:
                header, header_refs = self.step_header(stmts[index])
            units.append(Unit(
                index=index, kind=kind, names=_sorted(st.names), form=mark(text) if text is not None else None,
                references=_sorted([*refs.globals, *("!" + m for m in st.modules), *loaded_by_path.get(index, ()),
                                    *(("?",) if index in undecided_at_load else ())]),
                source=code, line=start, step_name=step_name, aliases=tuple(st.aliases), stars=tuple(st.stars),
                global_writes=_sorted(refs.global_writes), attached=_sorted(attached[index]),
                dynamic=_sorted((refs.dynamic | ({"module", "module-write"} if index in undecided_at_load else set()))
                                - {"class", "class-write"}), simple_import=kind == "import" and type(stmts[index]) is cst.SimpleStatementLine,
                projections=tuple((n, mark(t + order)) for n, t in projections[index]),
                changes=_sorted(changes.get(index, ())),
                self_members=_sorted(refs.members) if kind in ("class", "function") else (),
                self_dynamic=("read" if "class" in refs.dynamic else "write" if "class-write" in refs.dynamic else "")
                if kind in ("class", "function") else "",
                bases=_base_chains(stmts[index], nested=False) if kind == "class" else (),
                descriptor=_descriptor_methods(stmts[index]) if kind == "class" else (),
                call_refs=call_refs(facts[index], self.third_party, self.literal, self.process_state)
                if facts[index].callable else (),
                runs=_sorted(runs[index]), handed_on=_sorted(handed_on[index]), constructed=_sorted(constructed[index]),
                subclassed=_sorted(subclassed[index]),
                pieces=tuple((start + k, text_, mark(canon + order), refs_, names)
                             for k, (text_, canon, refs_, names) in enumerate(attached_pieces.get(index, ()))),
                header=mark(header) if header else "", header_references=_sorted(header_refs.globals),
            ))
        if loaded_by_path:  # a flow or method flow loading a file by path reaches it like its own code
            self.flows = [dataclasses.replace(f, references=_sorted({*f.references, *loaded_by_path[f.unit]}))
                          if f.unit in loaded_by_path else f for f in self.flows]
            classes = {f.class_qualname.split(".")[0]: f.unit for f in self.flows if f.class_qualname}
            self.members = [dataclasses.replace(m, references=_sorted({*m.references, *loaded_by_path[u]}))
                            if (u := classes.get(m.qualname.split(".")[0], -1)) in loaded_by_path else m
                            for m in self.members]
        if ordered:  # a module-level flow's defaults and decorators read as its def runs
            self.flows = [dataclasses.replace(f, canonical=f.canonical + ordered[f.unit])
                          if f.unit in ordered and not f.class_qualname else f for f in self.flows]
        self.flows = self.one_flow_per_name(self.flows)
        hidden = self.hidden_flow_decorators(units)  # before ``errors`` is read: it may add some
        exports = literal_all(stmts[i] for i, u in enumerate(units) if "__all__" in u.names or "__all__" in u.attached)
        if stamp is not None:
            self.flows = [dataclasses.replace(f, canonical=stamp(f.canonical), header=stamp(f.header)) for f in self.flows]
            self.members = [dataclasses.replace(m, canonical=stamp(m.canonical)) for m in self.members]
        if pending:  # the forms no one asked for yet: computed from the nodes on first read
            forms = DeferredForms(self.module, pending, stamp)
            units = [_deferred(u, forms) if u.index in pending else u for u in units]
        return ModuleSummary(
            module=self.module,
            path=self.path,
            is_package=self.is_package,
            units=tuple(units),
            imports=tuple(sorted(self.import_map.items())),
            star_imports=tuple(s for st in self.statements for s in st.stars),
            flows=tuple(self.flows),
            members=tuple(self.members),
            errors=tuple(self.errors),
            exports=exports if isinstance(exports, tuple) else None,
            exports_known=exports != UNKNOWN_ALL,
            getattr_hook=any(type(stmts[i]) is cst.FunctionDef for i in self.binders.get("__getattr__", ())),
            runs=_sorted({*(m for st in self.statements for m in (*st.modules, *st.stars)), *_load_time_imports(units),
                          *header_loads}),
            search_paths=tuple(search_paths),
            path_warnings=tuple(path_warnings),
            **hidden,
            **self.engine_hooks(stmts),
        )

    # -- paths computed from ``__file__`` (``static_paths``: E9, L2) -------------------------------
    def path_uses(self, index: int, stmt: cst.CSTNode, search_paths: list[tuple[str, str, str]],
                  warnings: list[tuple[int, int, int, str, str]]) -> list[str]:
        """Record the ``sys.path``/``__path__`` directories ``stmt`` adds (``search_paths``) and
        warn about those it adds undecidably; return the references of the files it loads by
        path: ``"&<path>|<module>`` (``static_paths.FILE_REF``), the file relative to the root and
        the module it is in the tree's naming ("" when it is none): ``closure`` reaches that module
        whole when it is first-party code, else hashes the file's bytes (F10: ``exec(open(
        'plug.txt').read())`` runs whatever the file holds)."""
        loaded: list[str] = []
        path = self.path.replace("\\", "/")
        for use in path_uses(stmt, path, self._qualified_chain, self._module_value, self.position, self._package_dir):
            if use.kind == "load":
                if use.path is not None and use.path:
                    # the file (or the listing of a glob's matches), and the module it is in the
                    # tree's naming: ``closure`` follows the module when it is first-party code,
                    # else hashes the file's bytes (a listing: each match's and the names matched)
                    module = self._module_at(use.path) if LISTING not in use.path else None
                    loaded.append(f"{FILE_REF}{use.path}|{module or ''}")
                    # where it is loaded, for ``closure``'s warning should the file be unreadable
                    warnings.append((index, use.line, use.column, "file", use.path))
                    continue
                if use.spelled in ("exec", "eval"):
                    message = (f"`{use.spelled}` runs text whose origin the compiler cannot decide (not spelled in "
                               "the code, nor read from a file whose path is spelled from `__file__` with "
                               "literals): the fingerprint does not see that code, so an edit to it keeps the hash "
                               "of the flows that run it. Read it from a file named from `__file__` (os.path.join("
                               "os.path.dirname(__file__), 'plug.txt')), import a module instead, or bump the "
                               "flow's version= whenever that code changes")
                else:
                    message = (f"`{use.spelled}` loads code from a path the compiler cannot decide: the "
                               "fingerprint does not follow it, so an edit to that code keeps the hash of the flows "
                               "that run it. Spell the path from `__file__` with literals (os.path.join("
                               "os.path.dirname(__file__), 'plug.py')), import the module instead, or bump the "
                               "flow's version= whenever that code changes")
                warnings.append((index, use.line, use.column, "load", message))
                continue
            dotted = self._package_at(use.path) if use.path is not None else None
            if dotted is not None:
                search_paths.append((use.kind, use.mode, dotted))
                if use.site:  # its ``.pth`` files: read by ``closure`` (what they add, their code)
                    warnings.append((index, use.line, use.column, "site", use.path))
                continue
            what = ("a directory the compiler cannot decide" if use.path is None
                    else f"`{use.path}`, which is no package directory of the project")
            warnings.append((index, use.line, use.column, use.kind,
                             f"`{use.spelled}` adds {what}: the fingerprint does not look imports up there, so a "
                             "module found through it is hashed by name only. Spell the directory from "
                             "`__file__` with literals (os.path.join(os.path.dirname(__file__), 'vendor')), or "
                             "bump the flow's version= whenever code there changes"))
        return loaded

    def runner_warnings(self, index: int, stmt: cst.CSTNode, warnings: list[tuple[int, int, int, str, str]]) -> None:
        """A ``path-undecidable`` warning at each reach of a runner of text in ``stmt`` that the
        compiler cannot decide (``code_runners``: ``exec`` read as a value, the builtins namespace
        read dynamically, ``code.InteractiveConsole()``, ...): ``scopes`` widened the statement."""
        def qualify(chain: str) -> list[str]:
            found = self._qualified_chain(chain)
            return [found] if found is not None else []
        for reach in sorted(reaches(stmt, qualify), key=lambda r: self.position(r.node)):
            if reach.kind != "any":
                continue
            line, column = self.position(reach.node)
            warnings.append((index, line, column, "load", (
                f"code here may run text the compiler cannot read ({reach.spelled}): the fingerprint widens to "
                "every first-party module, but the text itself is not hashed, so when it changes the hash of the "
                "flows that run it stays. Call `exec`/`eval` by name with text spelled in the code, import a "
                "module instead, or bump the flow's version= whenever that text changes")))

    def _qualified_chain(self, chain: str) -> str | None:
        """What a dotted chain of this module stands for (``join`` -> ``os.path.join``); a name
        nothing binds is a builtin (``open``); None when it is bound otherwise."""
        root, _, rest = chain.partition(".")
        if root not in self.binders:
            return chain
        targets = set(self.import_targets(root) or ())
        if len(targets) != 1:
            return None
        return targets.pop() + ("." + rest if rest else "")

    def _module_value(self, name: str) -> cst.BaseExpression | None:
        """The expression a module-level name is bound to, when one plain assignment binds it."""
        binders = self.binders.get(name, ())
        if len(binders) != 1:
            return None
        stmt = self.stmts[binders[0]]
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign):
            assign = stmt.body[0]
            if len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name):
                return assign.value
        return None

    def _prefix(self) -> str:
        """The directory (POSIX, relative to the root, "" or ending in "/") module names are
        computed from: the module's path minus its dotted name as a path."""
        path = self.path.replace("\\", "/")
        own = self.module.replace(".", "/") + ("/__init__.py" if self.is_package else ".py")
        return path[: len(path) - len(own)] if path.endswith(own) and self.module else ""

    def _package_dir(self, dotted: str) -> str | None:
        """The project directory of a package named by a string (``pkgutil.get_data('shop', ...)``,
        ``importlib.resources.files('shop')``): where the tree's naming puts it (``_prefix``);
        None for a name that is no dotted identifier. A module's name (``shop.load``) gives its
        own directory only when it is this module; any other name is taken as a package, whose
        directory may then hold no such file: ``closure`` warns of an absent file."""
        parts = dotted.split(".")
        if not dotted or not all(p.isidentifier() for p in parts):
            return None
        if dotted == self.module and not self.is_package:
            return self.path.replace("\\", "/").rpartition("/")[0]
        return self._prefix() + "/".join(parts)

    def _package_at(self, directory: str) -> str | None:
        """The dotted name of a project directory in the tree's naming ("" for the prefix itself),
        None when it cannot be one (outside the prefix, a part that is no identifier)."""
        prefix = self._prefix()
        if directory + "/" == prefix or (directory == "" and prefix == ""):
            return ""
        if not (directory + "/").startswith(prefix):
            return None
        parts = directory[len(prefix):].split("/")
        return ".".join(parts) if all(p.isidentifier() for p in parts) else None

    def _module_at(self, file: str) -> str | None:
        """The dotted name of a project ``.py`` file in the tree's naming, None when it is none."""
        if not file.endswith(".py"):
            return None
        directory, _, name = file[:-3].rpartition("/")
        package = self._package_at(directory)
        if package is None or not name.isidentifier():
            return None
        if name == "__init__":
            return package or None
        return f"{package}.{name}" if package else name

    def engine_hooks(self, stmts: Sequence[cst.CSTNode]) -> dict[str, tuple]:
        """``ModuleSummary.engine_classes``/``engine_arguments``/``engine_values`` under a profile
        with engine hooks."""
        hooks = self.profile.engine_hooks if self.profile is not None else None
        if hooks is None:
            return {}
        classes, arguments, values = hook_records(stmts, hooks, self.chain_names, self.resolve_from, self.first_party)
        return {"engine_classes": classes, "engine_arguments": arguments, "engine_values": values}

    def pieces_of(self, split: Mapping[int, tuple[list[cst.If], list[References], set[str]]],
                  piece_attached: Sequence[set[str]], attached: list[set[str]]) -> dict[int, list[tuple[str, str, tuple[str, ...], tuple[str, ...]]]]:
        """(source, canonical, references, attached) of each piece of the statements judged per
        inner statement; ``attached`` of such a statement becomes the union of its pieces'. A
        statement one of whose pieces can change a name its tests read stays whole: the tests
        would read another value when the pieces run one after another (a chunk)."""
        out: dict[int, list[tuple[str, str, tuple[str, ...], tuple[str, ...]]]] = {}
        at = 0
        for index, (pieces, piece_refs, tests) in split.items():
            mine = piece_attached[at: at + len(pieces)]
            at += len(pieces)
            if any(names & tests for names in mine):
                continue
            attached[index] = set().union(*mine)
            out[index] = [(self.module_code(p), canonical(p), _sorted(r.globals), _sorted(names))
                          for p, r, names in zip(pieces, piece_refs, mine)]
        return out

    def module_code(self, stmt: cst.CSTNode) -> str:
        code = self.tree.code_for_node(stmt)
        return code if code.endswith("\n") else code + "\n"

    def literal(self, name: str) -> bool:
        """Whether every binding of a module-level name is an immutable literal or an environment
        variable read (``effects``): then no call can change what it names. Not when a function
        rebinds it after ``global``, or the module may bind any name (``globals()[k] = v``, a star
        import)."""
        known = self._literal.get(name)
        if known is None:
            indices = self.binders.get(name, ())
            kinds = {self.statements[i].literal for i in indices}
            known = bool(indices) and not self.star_units and not self.any_writer and name not in self.global_written \
                and "" not in kinds and ("environ" not in kinds or self.import_targets("os") == ["os"])
            self._literal[name] = known
        return known

    def one_flow_per_name(self, flows: list[FlowSite]) -> list[FlowSite]:
        """B19: two flow declarations binding one name (``@flow("a") def checkout`` and later
        ``@flow("b") def checkout``): the module attribute, which the registry serves, is the last
        one only, so the first would be built and never served. An error naming both sites;
        neither is built (which one the author meant is not ours to guess)."""
        if self.all_functions:  # every function is a "flow" there (a property's getter and setter too)
            return flows
        by_name: dict[str, list[FlowSite]] = {}
        for site in flows:
            by_name.setdefault(site.qualname, []).append(site)
        out = []
        for site in flows:
            group = by_name[site.qualname]
            if len(group) == 1:
                out.append(site)
            elif site is group[-1]:
                places = ", ".join(f"{self.path}:{g.line}:{g.column} (flow id `{g.args.id}`)" for g in group)
                self.errors.append(SourceError(
                    self.path, site.line, site.column,
                    f"`{site.qualname}` is declared as a flow {len(group)} times: {places}; the later definition "
                    "replaces the earlier one at import, so only the last could be served: give each flow "
                    "function its own name", "flow-redefined"))
        return out

    # -- flow decorators reached other than directly (``hidden_flows``) --------------------------
    def _flow_chain(self, chain: str, before: int) -> set[str]:
        """The flow decorators a reference chain may stand for at statement ``before``."""
        chain = chain.lstrip("^")
        if not all(part.isidentifier() for part in chain.split(".")):
            return set()  # synthetic references: ``=<target>``, ``!<module>``, ``<...>``
        return self.decorator_names(_chain_expr(chain), before) & self.flow_decorators

    def hidden_flow_decorators(self, units: Sequence[Unit]) -> dict[str, tuple]:
        """B18: a flow decorator reached through code the build does not follow as a declaration
        (a wrapper factory, a call ``flow("x")(fn)``, ``partial(flow)``) is reported here, with its
        position, never dropped in silence; plain aliases are followed (``decorator_names``), and
        what another module's name stands for is left to ``hidden_flows`` (``foreign_decorators``)."""
        if self.all_functions:
            return {}
        flow_names: list[tuple[str, str, int]] = []
        wrappers: dict[str, tuple[int, str]] = {}
        # a reference can stand for a flow decorator only where its last name is spelled (or a
        # star import may bind it); plain aliases of first-party names are recorded everywhere
        spelled = self.star_units or any(name in self.text for name in self.flow_last_names)
        for index, stmt in enumerate(self.stmts):
            unit = units[index]
            if unit.kind in ("import", "step") or isinstance(stmt, cst.ClassDef) or index in self.nested_units \
                    or (unit.kind == "function" and any(f.unit == index for f in self.flows)):
                continue  # imports: ``ModuleSummary.imports`` says what they bind; nested flows: reported
            name = nfkc(stmt.name.value) if isinstance(stmt, cst.FunctionDef) else None
            alias = self._alias_of(index, unit.names[0]) if len(unit.names) == 1 else None
            if alias is not None:  # ``durable = flow``: followed where it is used
                for target in sorted(self.decorator_names(_chain_expr(alias), index)):
                    if target in self.flow_decorators or (self.first_party(target) and target != f"{self.module}.{alias}"):
                        flow_names.append((unit.names[0], target, unit.line))
                continue
            found = sorted({d for chain in unit.references for d in self._flow_chain(chain, index)}) if spelled else []
            if not found:
                continue
            if name is not None:
                wrappers[name] = (unit.line, f"is a function that calls {found[0]}")
            else:
                for bound in unit.names:
                    wrappers[bound] = (unit.line, f"is built from {found[0]}")
                line, column = self.position(stmt)
                self.errors.append(SourceError(
                    self.path, line, column,
                    f"{found[0]} is used here other than as the decorator of a module-level function or method "
                    f"(`{_first_line(unit.source)}`): the build cannot find the flow it declares, so the flow would "
                    "run unpinned; write the decorator on the definition (@flow(\"my-flow\") def ...)", "flow-hidden"))
        own = {f"{self.module}.{n}": (line, how) for n, (line, how) in wrappers.items()}
        foreign: list[tuple[str, int, int, str, tuple[str, ...]]] = []
        for index, stmt in enumerate(self.stmts):
            if isinstance(stmt, cst.FunctionDef):
                defs = [(nfkc(stmt.name.value), stmt)]
            elif isinstance(stmt, cst.ClassDef):
                defs = [(f"{nfkc(stmt.name.value)}.{nfkc(m.name.value)}", m) for m in stmt.body.body
                        if isinstance(m, cst.FunctionDef)]
            else:
                continue
            for qualname, node in defs:
                if self.flow_decorator(node, index) is not None:
                    continue
                for dec in node.decorators:
                    expr = dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator
                    chain = dotted_chain(expr)
                    if chain is None:
                        continue
                    names = self.decorator_names(dec.decorator, index)
                    hit = sorted(n for n in names if n in own)
                    if hit:
                        line, column = self.position(dec.decorator)
                        wline, how = own[hit[0]]
                        self.errors.append(SourceError(
                            self.path, line, column,
                            f"`@{chain}` on `{qualname}` is {hit[0]}, which {how} ({self.path}:{wline}): the build "
                            "cannot read the flow it declares, so the flow would run unpinned; decorate the function "
                            "with the flow decorator itself (@flow(\"my-flow\"))", "flow-hidden"))
                        continue
                    abroad = tuple(sorted(n for n in names if self.first_party(n) and not n.startswith(self.module + ".")))
                    if abroad:
                        line, column = self.position(dec.decorator)
                        foreign.append((qualname, line, column, chain, abroad))
        return {"flow_names": tuple(flow_names), "flow_wrappers": tuple((n, l, h) for n, (l, h) in sorted(wrappers.items())),
                "foreign_decorators": tuple(foreign)}

    def _alias_of(self, index: int, name: str) -> str | None:
        """``name = <dotted chain>`` at statement ``index`` (a plain alias): the chain, else None."""
        stmt = self.stmts[index]
        if not (type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 and type(stmt.body[0]) is cst.Assign):
            return None
        assign = stmt.body[0]
        if len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Name \
                or nfkc(assign.targets[0].target.value) != name:
            return None
        return dotted_chain(assign.value) if type(assign.value) in (cst.Name, cst.Attribute) else None

    def bindings_of(self, stmt: cst.CSTNode) -> _Statement:
        if type(stmt) in (cst.FunctionDef, cst.ClassDef):
            name = nfkc(stmt.name.value)
            binder = _Binder(self.resolve_from, walrus=self.walrus)
            binder.walk(stmt)  # its name, and what a walrus in its header binds (``def f(x=(N := 5))``)
            return _Statement(binder.bound - binder.declared_global, binder.bound - binder.declared_global,
                              [], [], True, ())
        binder = _Binder(self.resolve_from, walrus=self.walrus)
        binder.walk(stmt)
        names = binder.bound - binder.declared_global
        aliases = [(local, t) for local, targets in binder.imports.items() for t in targets]
        imported = set(binder.imports)
        if type(stmt) in (cst.FunctionDef, cst.ClassDef):
            own = {nfkc(stmt.name.value)}
        elif type(stmt) is cst.SimpleStatementLine:
            own = bound_names([s for s in stmt.body if type(s) not in (cst.Import, cst.ImportFrom)])
        else:
            own = names - imported
        # keep import order as written (the binder's dict groups by name)
        if len(aliases) > 1:
            aliases = self._ordered_aliases(stmt) or aliases
        built_by, built_from = None, frozenset()
        if type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 and type(stmt.body[0]) is cst.Assign:
            value = stmt.body[0].value
            if type(value) is cst.Call and all(type(t.target) is cst.Name for t in stmt.body[0].targets):
                chain = dotted_chain(value.func)
                if chain is not None:
                    built_by = chain.split(".")[0]
                    built_from = frozenset(c.split(".")[0] for a in value.args for c in references(a.value).globals)
        return _Statement(names, own, aliases, list(binder.stars), not _is_compound(stmt), tuple(binder.modules),
                          built_by, built_from, _literal_assignment(stmt))

    def _ordered_aliases(self, stmt: cst.CSTNode) -> list[tuple[str, str]]:
        from .scopes import import_bindings

        out: list[tuple[str, str]] = []
        stack = [stmt]
        while stack:
            node = stack.pop()
            if type(node) in (cst.Import, cst.ImportFrom):
                out.extend(import_bindings(node, self.resolve_from))
                continue
            if type(node) is cst.SimpleStatementLine:
                stack.extend(reversed([s for s in node.body if type(s) in (cst.Import, cst.ImportFrom)]))
            elif type(node) in _STATEMENT_PART_TYPES and type(node) not in (cst.FunctionDef, cst.ClassDef):
                stack.extend(reversed([c for c in child_nodes(node) if type(c) in _STATEMENT_LINE_TYPES]))
        return out

    def third_party(self, name: str, seen: frozenset[str] = frozenset()) -> bool:
        """Whether a module-level name stands only for third-party state (for the rule of
        ``effects``): every statement binding it imports it from a third-party module, or builds
        it by calling third-party code with no function or class of this module as an argument
        (``app = FastAPI()``: a route registered on ``app`` changes what FastAPI serves; but
        ``render = singledispatch(_render)`` wraps first-party code, whose registrations a flow
        calls). First-party: the configured packages, else the module's own top-level package
        (relative imports resolve there).

        Memoised for a name asked from outside (``seen`` empty): the effects rules ask it of every
        root of every statement (~20,000 times for the build benchmark's 174 modules), and it reads
        only the statements' pass-1 facts, fixed before any of them asks."""
        if not seen:
            known = self._third_party.get(name)
            if known is None:
                known = self._third_party[name] = self._is_third_party(name, seen)
            return known
        return self._is_third_party(name, seen)

    def _is_third_party(self, name: str, seen: frozenset[str]) -> bool:
        indices = self.binders.get(name)
        if not indices or name in seen:
            return False
        targets = []
        for i in indices:
            st = self.statements[i]
            if st.stars:
                return False
            if name in st.own_names:
                if st.built_by is None or st.built_by == name or not self.third_party(st.built_by, seen | {name}):
                    return False
                if any(self._callable(arg) for arg in st.built_from):
                    return False
                continue
            targets += [t for local, t in st.aliases if local == name]
        return not any(self.first_party(t) for t in targets)

    def process_state(self, chain: str) -> bool:
        """Whether a global chain may name an API that changes process-wide state
        (``effects.PROCESS_STATE``), by what its root is imported as (``r`` after ``from codecs
        import register as r``; ``c.register`` after ``import codecs as c``), whichever import
        of the root binds it."""
        root, _, rest = chain.partition(".")
        return any(changes_process_state(target + ("." + rest if rest else ""))
                   for i in self.binders.get(root, ()) for local, target in self.statements[i].aliases if local == root)

    def _callable(self, name: str) -> bool:
        return any(isinstance(self.stmts[i], (cst.FunctionDef, cst.ClassDef)) for i in self.binders.get(name, ()))

    def first_party(self, target: str) -> bool:
        if self.config is not None and self.config.packages:
            return self.config.is_first_party(target)
        return target.split(".")[0] == self.module.split(".")[0]

    def unit(self, index: int, stmt: cst.CSTNode) -> tuple[str, str | _Later, References | None, str | None]:
        """(kind, canonical, references, step name) of one module-level statement; the canonical
        form of a plain statement as a ``_Later`` (``run`` computes it now or defers it)."""
        if type(stmt) is cst.FunctionDef:
            if self.is_step(stmt, index):
                header = stmt.with_changes(body=_PASS_BODY)  # its decorators run; its body is an effect
                self.nested_flows(stmt, index, f"function `{nfkc(stmt.name.value)}`")
                text, refs = self.step_header(stmt)
                return "step", text, refs, f"{self.module}.{nfkc(stmt.name.value)}"
            found = len(self.flows)
            refs, _ = self.discover(stmt, prefix="", unit=index, cls=None)
            self.nested_flows(stmt, index, f"function `{nfkc(stmt.name.value)}`")
            if len(self.flows) > found:
                site = self.flows[-1]  # its canonical form is already the flow's own
                return "function", site.canonical, refs, None
            return "function", _Later(lambda: canonical(stmt)), self.refs(stmt), None
        if type(stmt) is cst.ClassDef:
            hashed = self.discover_class(stmt, prefix="", unit=index)
            self.nested_flows(stmt, index, None)
            return "class", _Later(lambda: canonical(hashed)), self.refs(hashed), None
        st = self.statements[index]
        if type(stmt) is cst.SimpleStatementLine:
            body = list(stmt.body)
            if len(body) == 1:  # the common line: its one statement's references as they are
                refs = self.refs(body[0])
            else:
                refs = References()
                for small in body:
                    _merge(refs, self.refs(small))
            if all(type(s) in (cst.Import, cst.ImportFrom) for s in body):
                kind = "import"
            else:
                kind = "constant" if st.names else "statement"
            return kind, _Later(lambda: canonical_statements(body)), refs, None
        self.nested_flows(stmt, index, "a module-level block")
        return ("constant" if st.names else "statement"), _Later(lambda: canonical(stmt)), self.refs(stmt), None

    def projections(self, stmt: cst.CSTNode, st: _Statement) -> tuple[tuple[str, str], ...]:
        if type(stmt) not in (cst.With, cst.If):
            return ()
        imported = sorted({local for local, _ in st.aliases})
        if len(imported) < 2:
            return ()
        return tuple((name, canonical(project_imports(stmt, name, self.resolve_from))) for name in imported)

    # -- decorators -------------------------------------------------------------------------------
    def decorator_names(self, expr: cst.BaseExpression, before: int) -> set[str]:
        """Every qualified name a decorator expression may stand for, by the binding model:
        the statements before ``before`` that bind its root, in order (see ``discovery``)."""
        if isinstance(expr, cst.Call):
            expr = expr.func
        chain = dotted_chain(expr)
        if chain is None:
            return set()
        root, _, rest = chain.partition(".")
        tail = "." + rest if rest else ""
        candidates: set[str] | None = None
        for i in self.binders.get(root, ()):
            if i >= before:
                break
            st = self.statements[i]
            here = {t + tail for local, t in st.aliases if local == root}
            if root in st.own_names:
                here.add(f"{self.module}.{root}{tail}")
                alias = self._alias_of(i, root)
                if alias is not None:  # ``durable = flow``: what ``flow`` stood for there
                    here |= self.decorator_names(_chain_expr(alias + tail), i)
                if tail and self.rules is not None:
                    # ``ds = SQLAlchemyDatasource(url)`` then ``@ds.transaction()``: also the
                    # method of what the call builds, spelled ``<class>().transaction``
                    here |= {f"{c}(){tail}" for c in self.instance_of(i, root)}
            candidates = here if st.simple or candidates is None else candidates | here
        for i in self.star_units:
            if i >= before:
                break
            for star in self.statements[i].stars:
                if star_may_bind(star, root):
                    candidates = (candidates or set()) | {f"{star}.{root}{tail}"}
        if candidates is None:
            return {chain}  # a builtin or an undefined name
        return {normalise_decorator(c) for c in candidates}

    def instance_of(self, index: int, name: str) -> set[str]:
        """The qualified callees of ``name = <call>(...)`` at statement ``index`` (else empty)."""
        stmt = self.stmts[index]
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign)):
            return set()
        assign = stmt.body[0]
        if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name) \
                or nfkc(assign.targets[0].target.value) != name or not isinstance(assign.value, cst.Call):
            return set()
        return self.decorator_names(assign.value.func, index)

    def holds_steps(self, cls: cst.ClassDef, unit: int) -> bool:
        return any(isinstance(s, cst.FunctionDef) and self.is_step(s, unit) for s in cls.body.body)

    def chain_names(self, chain: str) -> set[str]:
        """Every qualified name a dotted chain used in deferred code may stand for (all of the
        module's bindings of its root count: a function body runs after the module)."""
        return self.decorator_names(_chain_expr(chain), len(self.statements))

    def import_targets(self, name: str) -> list[str] | None:
        """The absolute targets of every import binding ``name`` at module level; None when some
        other statement binds it too."""
        targets: list[str] = []
        for i in self.binders.get(name, ()):
            st = self.statements[i]
            if name in st.own_names or st.stars:
                return None
            targets += [t for local, t in st.aliases if local == name]
        return targets or None

    def stands_for(self, name: str) -> list[str] | None:
        """What a module-level name may stand for where any code uses it (``scopes``'
        ``qualified``): the target of every import binding it and, for a plain alias (``mods =
        sys.modules``, ``im = importlib.import_module``), what the aliased chain stands for, over
        every binding (not the last one only: an import-time statement may run between two).
        None: no import or plain alias binds it."""
        memo = self._stands
        found = memo.get(name)
        if found is None:
            memo[name] = []  # a cycle of aliases (``a = b``, ``b = a``) stands for nothing more
            out: list[str] = []
            for i in self.binders.get(name, ()):
                st = self.statements[i]
                out += [t for local, t in st.aliases if local == name]
                if name in st.own_names and (alias := self._alias_of(i, name)) is not None:
                    root, _, rest = alias.partition(".")
                    inner = self.stands_for(root) if root != name else None
                    out += [t + ("." + rest if rest else "") for t in inner] if inner else [alias]
            found = memo[name] = list(dict.fromkeys(out))
        return found or None

    @property
    def modules_names(self) -> frozenset[str]:
        """The module-level names that may stand for ``sys.modules`` (``from sys import
        modules``, ``mods = sys.modules``): ``scopes`` judges their uses as its uses."""
        if self._modules_names is None:
            self._modules_names = frozenset(n for n in self.binders if "sys.modules" in (self.stands_for(n) or ()))
        return self._modules_names

    def is_step(self, node: cst.FunctionDef, unit: int) -> bool:
        return any(self.decorator_names(d.decorator, unit) & self.step_decorators for d in node.decorators)

    def flow_decorator(self, node: cst.FunctionDef, unit: int) -> tuple[cst.Decorator, str] | None:
        for dec in node.decorators:
            found = self.decorator_names(dec.decorator, unit) & self.flow_decorators
            if found:
                return dec, min(found)
        return None

    def id_argument(self, decorator: str) -> FlowIdArgument:
        return self.profile.id_argument(decorator) if self.profile is not None else DEFAULT_FLOW_ID

    def flow_mark(self, dec: cst.Decorator, decorator: str) -> tuple[cst.Decorator, cst.Decorator]:
        """(the flow decorator, what stands for it in canonical forms): the bare placeholder for
        ``loom_runtime.flow``, the placeholder called with every argument but the id otherwise."""
        kept = flow_arguments(dec.decorator, loom=decorator == LOOM_FLOW, id_argument=self.id_argument(decorator))
        if kept is None:
            return dec, _PLACEHOLDER
        if kept:  # the id may have been the last argument: no dangling comma to canonicalise
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return dec, cst.Decorator(decorator=cst.Call(func=cst.Name(FLOW_PLACEHOLDER), args=kept))

    # -- flows ----------------------------------------------------------------------------------
    def discover_class(self, node: cst.ClassDef, *, prefix: str, unit: int) -> cst.ClassDef:
        """Find the method flows of a class (nested classes included); returns the class with
        their flow decorators as the placeholder (what its canonical form is computed over)."""
        qual = prefix + nfkc(node.name.value)
        flows_before = len(self.flows)
        body = list(node.body.body)
        changed = False
        for i, stmt in enumerate(body):
            if isinstance(stmt, cst.FunctionDef):
                _, mark = self.discover(stmt, prefix=qual + ".", unit=unit, cls=node)
                if mark is not None:
                    body[i] = _with_placeholder(stmt, mark)
                    changed = True
            elif isinstance(stmt, cst.ClassDef):
                inner = self.discover_class(stmt, prefix=qual + ".", unit=unit)
                if inner is not stmt:
                    body[i] = inner
                    changed = True
        if len(self.flows) > flows_before or (self.rules is not None and self.holds_steps(node, unit)):
            # a class of step methods too: ``Db.save`` is then reached as the step, not the class
            self.collect_members(node, qual, unit)
        return node.with_changes(body=node.body.with_changes(body=body)) if changed else node

    def discover(self, node: cst.FunctionDef, *, prefix: str, unit: int, cls: cst.ClassDef | None,
                 ) -> tuple[References | None, tuple[cst.Decorator, cst.Decorator] | None]:
        """Record ``node`` as a flow when a flow decorator decorates it: (its references, that
        decorator and its placeholder); (None, None) when it is no flow or its declaration is an error."""
        found = self.flow_decorator(node, unit)
        if found is None and not self.all_functions:
            return None, None
        qualname = prefix + nfkc(node.name.value)
        kept_refs: References | None = None
        if found is not None:
            dec, decorator = found
            try:
                args = extract_flow_args(dec.decorator, loom=decorator == LOOM_FLOW, imports=self.import_map,
                                         id_argument=self.id_argument(decorator))
            except FlowArgError as exc:
                self.error(exc.node, f"flow `{qualname}`: {exc}", exc.code)
                return None, None
            mark: tuple[cst.Decorator, cst.Decorator] | None = self.flow_mark(dec, decorator)
            hashed = _with_placeholder(node, mark)
            stripped = node.with_changes(decorators=[d for d in node.decorators if d is not dec])
            if isinstance(mark[1].decorator, cst.Call):
                # the kept arguments run where the decorator does (module or class body)
                kept_refs = self.refs(cst.Tuple([cst.Element(a.value) for a in mark[1].decorator.args]))
        else:
            mark, decorator, args, hashed, stripped = None, "", FlowArgs(id=None), node, node
        if cls is not None and self.rules is not None and args.id is None:
            try:
                args = dataclasses.replace(args, id=self.rules.flow_id(cls))
            except FlowIdError as exc:
                self.error(exc.node, f"flow `{qualname}`: {exc}", "flow-id")
                return None, None
        refs = self.refs(stripped, method_of_class=cls is not None)
        if kept_refs is not None:
            if cls is not None:  # a class-body name in a decorator argument is the class's
                class_names = {n for s in cls.body.body for n in self.bindings_of(s).names}
                for chain in list(kept_refs.globals):
                    if chain.lstrip("^").split(".")[0] in class_names:
                        kept_refs.globals.discard(chain)
                        kept_refs.members.add(chain.lstrip("^").split(".")[0])
            _merge(refs, kept_refs)
        globals_ = set(refs.globals)
        members = set(refs.members)
        if cls is not None and not any(dotted_chain(d.decorator) == "staticmethod" for d in node.decorators):
            # the instance a method flow runs on is built by these, and attribute access, writes
            # and deletes are served by these: what they do is input
            members |= {"__init__", "__post_init__", "__new__", "__getattr__", "__getattribute__",
                        "__setattr__", "__delattr__", "__slots__"}
            if self.rules is not None:
                # the framework replays these on the flow's state (Temporal's signal/update/query handlers)
                members |= self.rules.handler_members(cls)
            if cls.decorators or cls.bases or cls.keywords or "__annotations__" in self.layout.source(cls)[0]:
                # a decorated class (``@dataclass``) or a model of a base (pydantic, NamedTuple,
                # TypedDict) may generate code from its field annotations, and code of its own
                # may read them (``for key in type(self).__annotations__``, ``scopes.for_loop``)
                members |= {n for s in cls.body.body if isinstance(s, cst.SimpleStatementLine)
                            for small in s.body if isinstance(small, cst.AnnAssign) for n in _names_of(small.target)}
            extra, dynamic = self._class_body_effects(cls)
            members |= extra
            refs.dynamic |= dynamic
        own = canonical(hashed, anonymous=hashed)
        child = canonical(_with_placeholder(self.header_of(node), mark)) if self.rules is not None else ""
        if cls is not None:
            header = cls.with_changes(body=_PASS_BODY)
            globals_ |= self.refs(header).globals
            # the class statement's header runs around the method: its decorators with their
            # arguments (``@dataclass(frozen=True)``, Temporal's ``@workflow.defn(sandboxed=False,
            # failure_exception_types=[...])``: C10), bases and keywords are the flow's code; its
            # name is left out, as the flow function's own (the registry's path, or the id)
            shell = canonical(header.with_changes(name=cst.Name(FLOW_CLASS_PLACEHOLDER))) + "\n"
            own, child = shell + own, (shell + child if child else child)
        line, column = self.position(node)
        self.flows.append(
            FlowSite(
                qualname=qualname,
                args=args,
                decorator=decorator,
                line=line,
                column=column,
                unit=unit,
                canonical=own,
                references=_sorted(globals_),
                members=_sorted(members),
                class_qualname=prefix[:-1] if cls is not None else None,
                source=self.layout.source(node)[0],
                dynamic=_sorted(refs.dynamic),
                header=child,
                bases=_base_chains(cls, nested="." in prefix[:-1]) if cls is not None else (),
                values=self.class_values(cls) if cls is not None else (),
            )
        )
        return refs, mark

    def class_values(self, cls: cst.ClassDef) -> tuple[str, ...]:
        """The global chains a class statement evaluates into the class object (``FlowSite.values``):
        its decorators, its body's assignments and other statements (a class-body name is the
        class's, not a global), the decorators of its defs, the bases of its nested classes, and
        ``NESTED_DESCRIPTOR`` when a nested class defines a descriptor method (``val = D()`` with
        ``D`` defined in the body: its name is the class's, no global chain names it). Not method
        bodies (they run later, with ``self``, and are analysed as such)."""
        found = self._class_values.get(id(cls))
        if found is None:
            class_names = {n for s in cls.body.body for n in self.bindings_of(s).names}
            chains: set[str] = set()
            decorators = list(cls.decorators)
            for stmt in cls.body.body:
                if isinstance(stmt, cst.FunctionDef):
                    decorators += stmt.decorators
                elif isinstance(stmt, cst.ClassDef):
                    chains.update(c for c in _base_chains(stmt, nested=False) if c != "?")
                    if _descriptor_methods(stmt):
                        chains.add(NESTED_DESCRIPTOR)
                else:
                    chains |= self.refs(stmt).globals
            for dec in decorators:
                chains |= self.refs(dec.decorator).globals
            found = self._class_values[id(cls)] = _sorted(
                c for c in chains if c[0] == "=" or c == NESTED_DESCRIPTOR
                or (c[0] not in _NOT_CHAINS and c.split(".")[0] not in class_names))
        return found

    def _class_body_effects(self, cls: cst.ClassDef) -> tuple[set[str], set[str]]:
        """Names bound by the class-body statements that run code (a descriptor's
        ``__set_name__``, ``register(...)``: they can change the class, so they are members of
        every method flow), and "class" when the body writes its namespace by a computed name
        (``vars()["X"] = 2``). Once per class."""
        found = self._class_effects.get(id(cls))
        if found is None:
            names: set[str] = set()
            dynamic: set[str] = set()
            for stmt in cls.body.body:
                if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                    continue
                body_refs = self.refs(stmt)
                if body_refs.call_mentions or body_refs.stores:
                    names |= self.bindings_of(stmt).names
                if {"class", "module-write"} & body_refs.dynamic:
                    dynamic.add("class")
            found = self._class_effects[id(cls)] = (names, dynamic)
        return found

    def nested_flows(self, stmt: cst.CSTNode, unit: int, where: str | None) -> None:
        """Report every flow that cannot be pinned: defined inside a function body (``where`` names
        the enclosing function), in a class inside one, or inside a module-level block."""
        if not self.may_nest or self.all_functions:
            return
        if isinstance(stmt, cst.ClassDef):
            for inner in stmt.body.body:
                if isinstance(inner, cst.FunctionDef):
                    self._search(inner.body, unit, f"method `{nfkc(inner.name.value)}`")
                elif isinstance(inner, cst.ClassDef):
                    self.nested_flows(inner, unit, None)
        elif isinstance(stmt, cst.FunctionDef):
            self._search(stmt.body, unit, where or "a function")
        else:
            keyword = _BLOCK_KEYWORDS.get(type(stmt), "compound")
            self._search(stmt, unit, f"a module-level `{keyword}` block")

    def _search(self, node: cst.CSTNode, unit: int, where: str) -> None:
        # statements only (a definition is never inside an expression), through ``child_nodes``
        # (libcst's ``children`` runs a visitor pass per node)
        stack: list[cst.CSTNode] = [node]
        while stack:
            current = stack.pop()
            if type(current) is cst.FunctionDef and current.decorators and self._may_be_flow(current) \
                    and self.flow_decorator(current, unit):
                self.nested_units.add(unit)
                self.error(current, f"flow `{nfkc(current.name.value)}` is defined inside {where}; a flow must be a "
                           "module-level function or a method of a module-level class, so that the registry can "
                           "find it by name (it cannot be pinned where it is)", "flow-nested")
            stack.extend(child for child in child_nodes(current) if type(child) in _STATEMENT_PART_TYPES)

    def _may_be_flow(self, node: cst.FunctionDef) -> bool:
        """A cheap test before the binding model: a decorator spells a flow decorator's last name."""
        for dec in node.decorators:
            expr = dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator
            last = expr.attr.value if isinstance(expr, cst.Attribute) else expr.value if isinstance(expr, cst.Name) else None
            if last is not None and last in self.flow_last_names:
                return True
        return False

    def collect_members(self, cls: cst.ClassDef, qual: str, unit: int) -> None:
        class_names: set[str] = set()
        for stmt in cls.body.body:
            class_names |= self.bindings_of(stmt).names
        for stmt in cls.body.body:
            kind = "method"
            dynamic: set[str] = set()
            if isinstance(stmt, cst.FunctionDef):
                names = {nfkc(stmt.name.value)}
                if self.is_step(stmt, unit):
                    kind = "step"
                    text, refs = self.step_header(stmt, method_of_class=True)
                else:
                    refs = self.refs(stmt, method_of_class=True)
                    text = canonical(_with_placeholder(stmt, self._flow_of(stmt, unit)))
                    # decorators and defaults run in the class body: ``@limit.setter`` is a member
                    for dec in stmt.decorators:
                        chain = dotted_chain(dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator)
                        if chain is not None and chain.split(".")[0] in class_names:
                            refs.members.add(chain.split(".")[0])
                    dynamic = refs.dynamic
            elif isinstance(stmt, cst.ClassDef):
                names = {nfkc(stmt.name.value)}
                refs = self.refs(stmt)
                text = canonical(stmt)
            else:
                small = flatten_block([stmt])
                st = self.bindings_of(stmt)
                names = st.names
                if not names:
                    continue
                refs = self.refs(stmt)
                for local, target in st.aliases:
                    refs.globals.add("=" + target)
                # ``import shop.m`` binds the class attribute ``shop``, through which
                # ``self.shop.m.a()`` reads the submodule the import loaded: all of it (G11 dotted)
                refs.globals.update("=" + m for m in st.modules if m.split(".")[0] in names)
                # class-body code sees the class's own names first (``limit = property(_get)``)
                for chain in list(refs.globals):
                    root = chain.split(".")[0]
                    if root in class_names and root not in names:
                        refs.members.add(root)
                        refs.globals.discard(chain)
                text = canonical_statements(small)
            code, line = self.layout.source(stmt)
            for name in sorted(names):
                self.members.append(
                    MemberUnit(f"{qual}.{name}", text, _sorted(refs.globals), _sorted(refs.members), code, line,
                               kind=kind, dynamic=_sorted(dynamic),
                               plain=isinstance(stmt, cst.FunctionDef) and not stmt.decorators)
                )

    def _flow_of(self, node: cst.FunctionDef, unit: int) -> tuple[cst.Decorator, cst.Decorator] | None:
        found = self.flow_decorator(node, unit)
        return self.flow_mark(*found) if found is not None else None

    # -- imports --------------------------------------------------------------------------------
    def resolve_from(self, node: cst.ImportFrom) -> str | None:
        module = dotted_chain(node.module) if node.module is not None else ""
        level = len(node.relative)
        if level == 0:
            return module
        package = self.module.split(".") if self.is_package else self.module.split(".")[:-1]
        if level - 1 > len(package) or (level - 1 == len(package) and not module):
            if id(node) not in self._import_errors:
                self._import_errors.add(id(node))
                self.error(node, "relative import goes beyond the top-level package", "import")
            return None
        base = package[: len(package) - (level - 1)]
        return ".".join([*base, *([module] if module else [])])


def _chain_expr(chain: str) -> cst.BaseExpression:
    parts = chain.split(".")
    expr: cst.BaseExpression = cst.Name(parts[0])
    for part in parts[1:]:
        expr = cst.Attribute(value=expr, attr=cst.Name(part))
    return expr


def _with_placeholder(node: cst.FunctionDef, mark: tuple[cst.Decorator, cst.Decorator] | None) -> cst.FunctionDef:
    """``node`` with its flow decorator ``mark[0]`` written as ``mark[1]`` (``flow_mark``)."""
    if mark is None:
        return node
    dec, placeholder = mark
    return node.with_changes(decorators=[placeholder if d is dec else d for d in node.decorators])


#: what a statement-only walk descends into (bodies, branches, handlers; never expressions)
_STATEMENT_PARTS = (cst.BaseSuite, cst.BaseCompoundStatement, cst.Else, cst.Finally, cst.ExceptHandler,
                    cst.ExceptStarHandler, cst.MatchCase)
#: the same as a set of exact types (a failing ``isinstance`` against libcst's ABCs is slow)
_STATEMENT_PART_TYPES = exact_types(*_STATEMENT_PARTS)
_STATEMENT_LINE_TYPES = _STATEMENT_PART_TYPES | {cst.SimpleStatementLine}

_BLOCK_KEYWORDS = {cst.If: "if", cst.Try: "try", cst.TryStar: "try", cst.With: "with", cst.For: "for",
                   cst.While: "while", cst.Match: "match"}


def _lone_assignment(stmt: cst.CSTNode) -> tuple[bool, cst.BaseExpression | None]:
    """(True, the value) for ``A = B = <value>`` or ``A: T = <value>`` (the value may be None)
    alone on its line, names as targets; (False, None) for anything else."""
    if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1:
        return False, None
    small = stmt.body[0]
    if type(small) is cst.Assign and all(type(t.target) is cst.Name for t in small.targets):
        return True, small.value
    if type(small) is cst.AnnAssign and type(small.target) is cst.Name:
        return True, small.value
    return False, None


def _header_spells(stmt: cst.CSTNode, code: str, spelled: re.Pattern[str]) -> bool:
    """Whether the code of ``stmt`` that runs as the module runs may spell a name of ``spelled``:
    for a def, only its decorators and defaults are read (its body is most of its text)."""
    if type(stmt) is cst.FunctionDef:
        params = stmt.params
        return bool(stmt.decorators) or any(
            p.default is not None for p in (*params.posonly_params, *params.params, *params.kwonly_params))
    return spelled.search(code) is not None


def _made(stmt: cst.CSTNode, code: str) -> str | tuple[set[str], set[str]] | None:
    """What ``effects.chunk_runs`` may count as made or subclassed only: ``L`` for ``X = L(...)``,
    ``X: T = L(...)`` or ``L(...)`` alone on its line (its result bound to names, or dropped); for
    a class statement (``code``: its text), (the roots of its bases, of its metaclass), each only
    where the text calls nothing through that root (``class K(B): v = B()`` calls ``B``; read
    from the text: a spelling in a string or a method counts too, which only widens)."""
    if type(stmt) is cst.ClassDef:
        if not stmt.bases and not stmt.keywords:
            return None
        bases = {r for a in stmt.bases if (r := _chain_root(a.value)) is not None}
        metas = {r for a in stmt.keywords if a.keyword is not None and a.keyword.value == "metaclass"
                 and (r := _chain_root(a.value)) is not None}
        called = {r for r in bases | metas if re.search(r"\b" + re.escape(r) + r"\b[\w.]*\s*\(", code)}
        # a decorator is called with the class (``@B.register``)
        called |= {r for d in stmt.decorators
                   if (r := _chain_root(d.decorator.func if type(d.decorator) is cst.Call else d.decorator)) is not None}
        return bases - called, metas - called
    lone, value = _lone_assignment(stmt)
    if not lone:
        if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1 or type(stmt.body[0]) is not cst.Expr:
            return None
        value = stmt.body[0].value
    if type(value) is cst.Call and type(value.func) is cst.Name:
        return value.func.value
    return None


def _chain_root(node: cst.BaseExpression) -> str | None:
    """The root name of a dotted chain (``B``, ``mod.B``); None for anything else (``make()``)."""
    while type(node) is cst.Attribute:
        node = node.value
    return node.value if type(node) is cst.Name else None


def _display_assignment(stmt: cst.CSTNode) -> bool:
    """``NAME = [...]`` (or ``{...}``, a set, a tuple) alone on its line: the value is a builtin
    container, whose methods (``HOOKS.append(f)``) call nothing they are given (``effects``)."""
    return type(_lone_assignment(stmt)[1]) in (cst.List, cst.Dict, cst.Set, cst.Tuple)


def _literal_assignment(stmt: cst.CSTNode) -> str:
    """``"literal"``: ``A = B = <immutable literal>`` or ``A: T = <immutable literal>`` alone on its
    line; ``"environ"``: the value is ``os.environ.get(<literals>)``, ``os.getenv(<literals>)`` or
    ``os.environ[<literal>]`` (a ``str`` or the literal default; immutable when ``os`` is the
    standard module, which ``_Analyser.literal`` checks); else ``""``."""
    assigned, value = _lone_assignment(stmt)
    if not assigned:
        return ""
    if is_immutable_literal(value):
        return "literal"
    return "environ" if _environ_read(value) else ""


def _environ_read(node: cst.BaseExpression | None) -> bool:
    if isinstance(node, cst.Call) and dotted_chain(node.func) in ("os.environ.get", "os.getenv"):
        return 1 <= len(node.args) <= 2 and all(a.keyword is None and not a.star and is_immutable_literal(a.value)
                                                for a in node.args)
    if isinstance(node, cst.Subscript) and dotted_chain(node.value) == "os.environ" and len(node.slice) == 1:
        index = node.slice[0].slice
        return isinstance(index, cst.Index) and literal_string_value(index.value) is not None
    return False


def _base_roots(stmt: cst.CSTNode) -> frozenset[str]:
    """The roots of a class statement's bases and keywords spelled as names or dotted chains."""
    if type(stmt) is not cst.ClassDef:
        return frozenset()
    # ``Base[int]`` names ``Base`` (its ``__class_getitem__`` runs, then the class is subclassed)
    chains = (dotted_chain(arg.value.value if type(arg.value) is cst.Subscript else arg.value)
              for arg in (*stmt.bases, *stmt.keywords))
    return frozenset(c.split(".")[0] for c in chains if c is not None)


#: the descriptor protocol: a class attribute whose value's class defines one of these is handed
#: the instance (``__get__(self, obj, owner)``, ``__set__``, ``__delete__``) or the owner class
#: (``__set_name__(self, owner, name)``, run when the class is built)
DESCRIPTOR_METHODS = frozenset({"__get__", "__set__", "__delete__", "__set_name__"})
#: in ``FlowSite.values``: a class nested in the flow's class defines a descriptor method
NESTED_DESCRIPTOR = "<descriptor>"

#: reference kinds that are no global chain (``scopes``: lazy imports ``=``, modules ``!``,
#: strings ``"``, computed names ``?``, constants ``'``, name-only ``^``, imports ``~``, views ``>``)
_NOT_CHAINS = frozenset("=!\"?'^~>")


def _descriptor_methods(stmt: cst.CSTNode) -> tuple[str, ...]:
    """The descriptor-protocol methods a class statement's own body defines or assigns."""
    if type(stmt) is not cst.ClassDef:
        return ()
    found: set[str] = set()
    body = stmt.body.body
    for inner in body:
        smalls = inner.body if type(inner) is cst.SimpleStatementLine else [inner]
        for small in smalls:
            if type(small) is cst.FunctionDef:
                found.add(nfkc(small.name.value))
            elif type(small) is cst.Assign:
                found |= {n for t in small.targets for n in target_names(t.target)}
            elif type(small) is cst.AnnAssign and small.value is not None:
                found |= target_names(small.target)
    return _sorted(found & DESCRIPTOR_METHODS)


def _base_chains(stmt: cst.CSTNode, *, nested: bool) -> tuple[str, ...]:
    """A class statement's bases and metaclass as the global chains they are spelled with
    (``Base``, ``shop.base.Base``, ``Generic`` for ``Generic[T]``: a subscript's arguments are no
    base), "?" for a base that is computed (``make_base()``, ``*BASES``) or, in a class nested in
    a class, any base at all (its names may be the enclosing class body's): the MRO a subclass's
    ``self`` continues with (``closure``). Other keywords are arguments to the bases'
    ``__init_subclass__``, hashed with the class header."""
    if type(stmt) is not cst.ClassDef:
        return ()
    out: list[str] = []
    for arg in (*stmt.bases, *(k for k in stmt.keywords if k.keyword is not None and k.keyword.value == "metaclass")):
        expr = arg.value
        if type(expr) is cst.Subscript:
            expr = expr.value
        chain = dotted_chain(expr) if arg.star == "" and not nested else None
        out.append(chain if chain is not None else "?")
    return tuple(out)


def _test_roots(stmt: cst.If, refs_of) -> set[str]:  # noqa: ANN001
    """The global roots the tests of an ``if`` chain read."""
    roots: set[str] = set()
    node: cst.BaseSuite | cst.If | cst.Else | None = stmt
    while type(node) is cst.If:
        roots |= {c.split(".")[0] for c in refs_of(node.test).globals}
        node = node.orelse
    return roots


#: ``__future__`` features that change nothing on the Pythons loom supports (mandatory since 3.7)
_NO_OP_FEATURES = frozenset({"nested_scopes", "generators", "division", "absolute_import", "with_statement",
                             "print_function", "unicode_literals", "generator_stop"})


def _unmarked(form: str) -> str:
    return form


def _future_stamp(stmts: Sequence[cst.CSTNode]) -> Callable[[str], str] | None:
    """How a module's ``__future__`` flags mark the canonical forms of its members (B25), None when
    it has none that matter. A future import is a compile flag of the whole module, so it is part
    of what every statement of the module means, not a binding any member reaches:
    ``annotations`` turns every annotation into a string (``__annotations__``, dataclasses,
    pydantic read them), so it marks each form holding an annotation (a form without one compiles
    to the same code either way); a feature loom does not know marks every form (widening)."""
    features: set[str] = set()
    for stmt in stmts:  # future imports come first (after the docstring); CPython refuses others
        if not isinstance(stmt, cst.SimpleStatementLine):
            if features or not _is_docstring_line(stmt):
                break
            continue
        smalls = [s for s in stmt.body if isinstance(s, cst.ImportFrom) and s.module is not None
                  and not s.relative and dotted_chain(s.module) == "__future__"]
        if not smalls:
            if _is_docstring_line(stmt):
                continue
            break
        for small in smalls:
            if not isinstance(small.names, cst.ImportStar):
                features.update(alias.name.value for alias in small.names if isinstance(alias.name, cst.Name))
    features -= _NO_OP_FEATURES
    if not features:
        return None
    marker = "(__future__ " + " ".join(sorted(features)) + ")\n"
    every = bool(features - {"annotations"})

    def stamp(text: str) -> str:
        if text and (every or "(Annotation " in text):
            return marker + text
        return text

    return stamp


def _is_docstring_line(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr) \
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))


def _first_line(source: str) -> str:
    lines = [ln.strip() for ln in source.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    return (lines[0][:77] + "...") if lines and len(lines[0]) > 80 else (lines[0] if lines else "")


def _is_compound(stmt: cst.CSTNode) -> bool:
    return type(stmt) not in (cst.SimpleStatementLine, cst.FunctionDef, cst.ClassDef)


def _names_of(target: cst.BaseExpression) -> set[str]:
    return {nfkc(target.value)} if isinstance(target, cst.Name) else set()


def _merge(into: References, other: References) -> None:
    for name in References.__slots__:  # type: ignore[attr-defined]
        getattr(into, name).update(getattr(other, name))


class _Layout:
    """Lines and original text of statements, from CPython's ``ast`` line numbers.

    libcst only knows positions through a ``MetadataWrapper`` pass (a full code generation with
    position tracking, about the cost of the parse itself) and per-statement ``code_for_node``
    (the same again). ``ast.parse`` is C and several times faster; its top-level and class-level
    statements align one-to-one with libcst's (a ``a; b`` line is one libcst statement holding two
    small statements). Only positions and source slices come from it, never anything hashed;
    when it cannot parse the file (syntax newer than the running Python) or the alignment fails,
    libcst code generation is used instead.
    """

    def __init__(self, tree: cst.Module, text: str, syntax: ast.Module | None = None, *, nested: bool = False) -> None:
        self.tree = tree
        self.spans: dict[int, tuple[int, int]] = {}  # id(cst stmt) -> (first line incl. decorators, last line)
        self.heads: dict[int, tuple[int, int]] = {}  # id(cst stmt) -> (line, column) of its keyword
        #: with ``nested``: id(module-level cst stmt) -> the decorated defs inside it, in source
        #: order, as (NFKC name, line, 0-based column of ``def``/``async``) from CPython's tree
        self.nested: dict[int, list[tuple[str, int, int]]] = {}
        self._nested_cst: dict[int, dict[int, int]] = {}  # the same defs' cst nodes: id(node) -> index
        self._want_nested = nested
        self._wrapper: Mapping[cst.CSTNode, object] | None = None
        self._within: dict[int, tuple[Mapping[cst.CSTNode, object], int] | None] = {}
        self.lines: list[str] = []
        parsed = syntax  # CPython's tree from ``parsing``'s check, when the caller has it
        if parsed is None:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # no SyntaxWarning about the user's code
                    parsed = ast.parse(text)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return
        self.lines = _LINE_RE.findall(text)
        self._align(tree.body, parsed.body)

    def _align(self, cst_body: Sequence[cst.CSTNode], ast_body: list[ast.stmt]) -> None:
        j = 0
        for stmt in cst_body:
            n = len(stmt.body) if type(stmt) is cst.SimpleStatementLine else 1
            group = ast_body[j : j + n]
            if len(group) != n:
                return
            j += n
            first, last = group[0], group[-1]
            decorators = getattr(first, "decorator_list", ())
            start = min([first.lineno, *(d.lineno for d in decorators)])
            self.spans[id(stmt)] = (start, last.end_lineno or last.lineno)
            self.heads[id(stmt)] = (first.lineno, first.col_offset)
            if self._want_nested and n == 1:
                found: list[tuple[str, int, int]] = []
                _ast_decorated_defs(first, found)
                if found:
                    self.nested[id(stmt)] = found
            if type(stmt) is cst.ClassDef and isinstance(first, ast.ClassDef):
                inner = stmt.body.body if type(stmt.body) is cst.IndentedBlock else stmt.body.body
                self._align(inner, first.body)

    def position(self, node: cst.CSTNode) -> tuple[int, int] | None:
        return self.heads.get(id(node))

    def position_within(self, stmt: cst.CSTNode, node: cst.CSTNode) -> tuple[int, int] | None:
        """(line, 0-based column) of ``node`` inside the module-level statement ``stmt``, from a
        position pass over that statement alone (None: not found there, or not aligned).

        The statement is code-generated as a one-statement module with the file's indentation and
        newline, so its columns are the file's; its lines are shifted by where its keyword is
        (``heads``, CPython's line, which libcst's position of a statement also starts at). A pass
        over the whole module, for a nested flow's error in a 2,000-line test file, cost about
        two parses of it (38 of 66 s of ``loom fingerprint`` on dbos-transact-py's tests).

        A decorated ``def`` (a nested flow's error) needs no pass at all: it is the k-th decorated
        def inside ``stmt`` in source order in libcst's tree and in CPython's (``nested``), whose
        position is known; the names must agree one to one, else the pass decides. The pass over
        one big test function still cost twice its parse (41 of 78 s of analysis on dbos-transact-py)."""
        key = id(stmt)
        defs = self.nested.get(key)
        if defs is not None and type(node) is cst.FunctionDef:
            found_def = self._nested_def(stmt, node, defs)
            if found_def is not None:
                return found_def
        if key not in self._within:
            self._within[key] = None
            head = self.heads.get(key)
            if head is not None and head[1] == 0:
                alone = cst.Module(body=[stmt], default_indent=self.tree.default_indent,
                                   default_newline=self.tree.default_newline)
                try:
                    where = MetadataWrapper(alone, unsafe_skip_copy=True).resolve(PositionProvider)
                except RecursionError:  # pragma: no cover - as deep as the whole-module pass
                    where = None
                if where is not None and stmt in where and where[stmt].start.column == 0:  # type: ignore[attr-defined]
                    self._within[key] = (where, head[0] - where[stmt].start.line)  # type: ignore[attr-defined]
        found = self._within[key]
        if found is None:
            return None
        where, shift = found
        rng = where.get(node)  # type: ignore[attr-defined]
        if rng is None:
            return None
        return rng.start.line + shift, rng.start.column  # type: ignore[attr-defined]

    def _nested_def(self, stmt: cst.CSTNode, node: cst.FunctionDef, defs: list[tuple[str, int, int]]) -> tuple[int, int] | None:
        key = id(stmt)
        index = self._nested_cst.get(key)
        if index is None:
            nodes: list[cst.FunctionDef] = []
            _cst_decorated_defs(stmt, nodes)
            aligned = len(nodes) == len(defs) and all(nfkc(n.name.value) == d[0] for n, d in zip(nodes, defs))
            index = self._nested_cst[key] = {id(n): i for i, n in enumerate(nodes)} if aligned else {}
        i = index.get(id(node))
        if i is None:
            return None
        _name, line, column = defs[i]
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if not text.isascii():  # CPython's columns count UTF-8 bytes, libcst's characters
            column = len(text.encode("utf-8", "surrogatepass")[:column].decode("utf-8", "replace"))
        return line, column

    def source(self, stmt: cst.CSTNode) -> tuple[str, int]:
        """(original text with leading comments, first line) of a module- or class-level statement."""
        span = self.spans.get(id(stmt))
        if span is None:
            return self._codegen(stmt)
        return self._slice(stmt, *span)

    def _slice(self, stmt: cst.CSTNode, start: int, end: int) -> tuple[str, int]:
        # whole original lines: indentation, trailing comments and CRLF kept as in the file
        lead = len(getattr(stmt, "leading_lines", ()))
        return _strip_blank_head("".join(self.lines[start - 1 - lead : end])), start

    def _codegen(self, stmt: cst.CSTNode) -> tuple[str, int]:
        # the slow path: positions from libcst itself (a metadata pass over the whole module)
        if self._wrapper is None:
            self._wrapper = MetadataWrapper(self.tree, unsafe_skip_copy=True).resolve(PositionProvider)
        decorators = getattr(stmt, "decorators", ())
        start = self._wrapper[decorators[0] if decorators else stmt].start.line  # type: ignore[attr-defined]
        end = self._wrapper[stmt].end.line  # type: ignore[attr-defined]
        return self._slice(stmt, start, end)


_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")




def _strip_blank_head(code: str) -> str:
    lines = code.splitlines(keepends=True)
    while lines and not lines[0].strip():
        lines.pop(0)
    return "".join(lines)


def _sorted(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(set(items)))


_AST_BLOCKS = ("body", "orelse", "handlers", "finalbody", "cases")


def _ast_decorated_defs(node: ast.AST, out: list[tuple[str, int, int]]) -> None:
    """The decorated function definitions strictly inside ``node``, in source order (statement
    blocks only: a definition is never inside an expression). Recursive: as deep as the
    statement nesting, which CPython's parser bounded already."""
    for field_name in _AST_BLOCKS:
        for child in getattr(node, field_name, ()):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and child.decorator_list:
                out.append((child.name, child.lineno, child.col_offset))
            _ast_decorated_defs(child, out)


def _cst_decorated_defs(node: cst.CSTNode, out: list[cst.FunctionDef]) -> None:
    """``_ast_decorated_defs`` over libcst's tree (``child_nodes`` keeps field order: source order)."""
    for child in child_nodes(node):
        if type(child) in _STATEMENT_PART_TYPES:
            if type(child) is cst.FunctionDef and child.decorators:
                out.append(child)
            _cst_decorated_defs(child, out)
