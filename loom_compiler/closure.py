"""A flow's closure and its Merkle hashes, computed over ``ModuleSummary`` values (no parsing).

Resolution (``loom-fp/2``, DESIGN §6): starting at the flow, every global chain a member uses is
resolved in the member's own module, as Python resolves it:

* A module-level name is a *name member* ``<module>.<name>``: every statement of the module that
  binds it, can bind it or can change it (``analysis``, ``effects``), in source order. Its own
  hash covers their canonical forms in that order, so reordering two bindings changes it.
* Each import among those statements is also followed to its target, with the attribute tail the
  use spells (``import shop.pricing as m; m.helper`` -> ``shop.pricing.helper``); into the target
  module when it is first-party (configured package roots, or any module the caller can supply
  when no roots are configured), re-exports included; otherwise the target is an ``import``
  member hashed by its dotted name only (``math.floor``). A name whose *only* binding is one
  plain import line is that target and nothing more (the usual ``from x import y``).
* A star import may bind a name: from a first-party module when that module exports it (its
  literal ``__all__``, else its public names, star imports of its own included, transitively),
  from any other module always (its exports are unknown without importing it): the member
  ``math.*`` stands for "whatever ``from math import *`` binds", so ``math`` -> ``cmath`` changes
  every name it may bind. When several candidates bind one name, all are in the closure.
* A lazy import inside a function (``=<target>`` chains from ``scopes``) is followed the same way.
* A first-party module used as a value (``helper(pricing)``, ``importlib.import_module
  ("shop.pricing")``, ``pricing.__dict__``) or reached through its PEP 562 ``__getattr__`` is the
  *module member* ``<module>.*``: every statement of the module, hashed in order.
  A package so used reaches every first-party module under it whole too (``<submodules>``,
  breakS's S5: ``operator.attrgetter("m.RATE")(shop)``, ``getattr(shop, name)``, ``h.get(shop)``
  read a submodule as an attribute the package has once any import loaded it). Widening, on
  purpose: whether code imports each submodule is not asked (the direction was "those code run
  for the flow imports"; which those are is known only once the walk ends, and a process may have
  imported others). A chunk's package holds every bundled submodule from the start, so a flow
  whose code uses a package as a value with a submodule under it that no module that runs imports
  is refused (``submodule-unloaded``, ``_unloaded_warnings``: live, that attribute depends on
  which other imports ran first). Measured: the 21 dbos-transact-py flows, whose closures held
  every module already, move once (the new bindings); no other flow of the four repositories.
* Code that reads its module's namespace by a computed name (``globals()[k]``, ``getattr
  (sys.modules[__name__], k)``, ``eval``) reaches its module member; code that may bind any name
  (``globals()[k] = v``, ``exec``) is one more binding of every name of its module.
* Modules named by strings (``scopes``): a dotted string naming first-party code reaches what an
  import of it would (the module whole, or the attribute); a module name computed at run time
  reaches every first-party module whose name starts with its known prefix (``modules``: the
  tree's listing; nothing known: every module); a constant given to a resolver or to ``exec`` is
  followed through its bindings when each is a string constant, else widened the same way.
* A star import from a first-party module whose ``__all__`` is computed reaches that module's
  ``__all__`` statements: they decide whether the import binds the name.

For method flows, ``self.x``/``cls.x``/``type(self).x``/``self.__class__.x`` reach the sibling
``method`` members of the class, with ``__init__``/``__post_init__``/``__new__`` (which build the
instance the flow runs on) and ``__getattr__``/``__getattribute__`` (which serve attribute
access) when the class defines them; class-body names a member reads are members too
(``limit = property(_get_limit)``). The class's bases and decorators are references of the flow
itself; module statements that change the class (``Checkout.RATE = 5``) are the member
``<class>#effects``. A member that reaches its instance by a computed name or lets it escape
(``getattr(self, name)``, ``helper(self)``) reaches the whole class (its name member).

Inherited code runs with ``self`` an instance of the flow's class (breaker2's C1): the first-party
classes of its MRO (its bases and metaclass, ``FlowSite.bases``, followed transitively through
aliases and factories: ``inherited``) are hashed whole as references of the flow, and every name
their methods use through ``self``/``cls``/``type(self)`` is looked up on the flow's class first:
``Base.process`` calling ``self.hook()`` reaches the flow class's ``hook``, and so do
``super().process()``, a base ``__init__`` calling ``self.setup()``, ``cls.HOOK`` in an inherited
classmethod, a metaclass's ``__call__`` reading ``cls.RATE``. Precise, not "the flow class belongs
to its bases": an override nothing inherited uses stays out. Widened where the MRO cannot be read:
a third-party or builtin base (``Mapping.get`` calls ``__getitem__``, ``JSONEncoder.encode`` calls
``default``, ``dict`` calls ``__missing__``, pydantic's ``__init__`` the validators: C2), a computed
base, or a base method reaching the instance by a computed name or letting it escape
(``getattr(self, "on_" + kind)()``) reaches the whole class; ``INERT_BASES`` (``object``,
``abc.ABC``/``ABCMeta``, ``typing.Generic``/``Protocol``) call no member of a subclass. A base that
only *writes* to the instance by a computed name (``setattr(self, key, value)``) reaches the flow
class's members that may be data descriptors (anything but an undecorated ``def``): a write runs
only those and ``__setattr__``. Left out (documented limit): a module-level function installed as
a method of a base (``process = _process`` in its body) is not read as a method (in the flow's
own class it widens, below).

Class attributes handed the instance (breaker3's D4, ``_hands_instance``): Python itself calls a
descriptor's ``__get__(self, obj, owner)``/``__set__``/``__delete__`` with the instance and
``__set_name__`` with the class, so what their code does to ``obj`` is ``self`` use spelled on a
parameter (``obj.hook()``). A method flow's class is hashed whole when what its class statement
evaluates into the class (``FlowSite.values``: decorators, class-body assignments, decorators of
its defs, bases of nested classes) uses a first-party descriptor class (``_descriptor``: one
defining those methods, or with such a first-party base, or with a builtin or third-party base
that may be one, ``_foreign_descriptor``, ``PLAIN_BASES`` aside; one nested in the class,
``NESTED_DESCRIPTOR``; a value or a factory that uses one, transitively) or any first-party
function (installed as a method, ``process = _process``; wrapped, ``functools.cached_property
(compute)``; a decorator; a factory whose result is unknown); and when a first-party base's code
uses a first-party descriptor class (``inherited``: level "hands"). A module statement that
changes the class (``Checkout.val = D()``) reaches it whole already (``<class>#effects`` spells
its name). Rejected: reading the descriptor's ``obj`` parameter as ``self`` (precise, but which
value ends up an attribute is a run-time fact: a factory, a module-level instance, a subclass).

A step, function or method, is a ``step`` member hashed by its qualified name only. Unknown names
(builtins) are not members; they are spelled out in the canonical form of the code that uses
them. A flow function reached by name from its own closure is the flow node; if its name is bound
by other statements too (``checkout = wrap(checkout)``), those are the member ``<flow>#bindings``.

One graph per run. Every flow of a ``fingerprint_flows`` call shares one ``ClosureGraph``: a
member is resolved and hashed once however many flows reach it (the stdlib, fingerprinted as
14,500 flows, would otherwise re-walk the same helpers thousands of times). Sharing cannot change
a hash: a member's hash depends only on what it reaches, and strongly connected components are
the same in any subgraph closed under reachability.

Hashes. A member's hash is sha256 over a length-prefixed record of the scheme, its kind, its
canonical form and, for each binding in sorted order, the name used, the qualified name it
resolves to and that member's hash. Cycles (recursion, mutual recursion, import cycles) are
broken by hashing each strongly connected component together: inside a component a binding
contributes the target's qualified name instead of its hash; the component digest is the hash
over the sorted (qualname, inner digest) pairs of its members; each member's final hash covers
its inner digest and the component digest. So an edit anywhere in a cycle changes every hash in
it, and the result does not depend on the order in which the graph was walked.

Framework profiles (DESIGN §8, ``loom_compiler.frameworks``) add three kinds of reference, each
a ``step`` member (hashed by what it names, never by a body; a chunk imports it live):

* a *name-only* reference (``^chain`` from ``scopes``: the argument of ``workflow.execute_activity``
  and the like) resolves like any chain, then stands for the step it names, the child flow it
  names, or else a ``ref:`` member hashed by the qualified name alone;
* a class member that is a step (``Db.save`` for an ``@activity.defn`` method) is the ``member:``
  step, not the whole class, wherever the chain is used;
* under ``children_by_reference`` (DBOS) every other flow reached is a ``child:`` member: its
  flow id and header (decorators, signature), not its body. A name-only reference to a flow is
  a child under every profile (Temporal's ``execute_child_workflow(Child.run)``).

Under a profile with engine hooks (Temporal: ``frameworks.engine_hooks``), every flow binds
``<engine hooks>`` to the project's first-party interceptors, data converters, codecs and what is
handed to the worker's and client's configuration: the engine runs that code around every
workflow, on replay too.

A step also hashes its header (decorators, their arguments, the signature) and what the header
reaches; only its body is left out (``analysis.step_header``).

Widening, where the reach cannot be decided statically (each costs a version more when code the
flow does not really reach changes; none can keep a hash when behaviour changed):
every binding of a name, dead ones included; every candidate of a star import; the whole module
for a module used as a value, a PEP 562 ``__getattr__``, a computed-name read of the namespace;
the whole class for a computed-name access to ``self`` or ``self`` escaping, for a method flow's
class with a base whose code is not read (third-party, builtin, computed), and for one whose
first-party base reaches ``self`` by a computed name (C2: cost 0 collateral on the three measured
repositories, whose flow classes have no such base; ``DBOSConfiguredInstance`` is inert), and for
one whose class attributes may be handed the instance (D4: a first-party descriptor, function,
decorator or factory in its class statement or its bases; cost 0 collateral on the same three
repositories, whose flow classes hold none).

Importing a first-party module runs it. For a flow, the modules that run (its own, those of what
it reaches, what they import at module level and what its code imports lazily, transitively;
"import" includes what the code a module's statements run at load imports, in that module or
another: ``from shop.util import load; load()`` with ``def load(): import shop.x``, a decorator,
a class body, a method, a lambda: ``load_runs``, the rule the chunk's order uses too) are
searched for statements that change another module's objects (``effects``); those that change
something the flow reaches are bound to the flow as ``<module>#abroad`` (named by the content of
the statements, so code inserted above them changes nothing), to a fixpoint.

What a statement abroad changes includes what the functions it calls or hands on change when
called (``call_effects``, breaker2's C11): ``setup()`` with ``setup`` imported from ``shop.g``
changes what ``setup``'s body stores through or calls, resolved in ``shop.g`` (``CFG`` is
``shop.cfg.CFG``), and what its first-party callees change, across modules, transitively; a
decorated callee changes itself (an ``lru_cache`` warmed at import time). What a flow reaches,
for this comparison, includes the names its code reads that its module does not bind (C22:
``return x + EXTRA`` in ``shop.h`` with ``h.EXTRA = 1`` elsewhere; builtins too, ``h.len = f``
shadows ``len`` there); a module whose namespace the code reads whole (``globals().get(k)``, a
module used as a value) is touched by a store of any of its attributes, and a store into a module
by a computed name (``setattr(h, name, v)``, ``vars(h)[k].x = v``) touches every flow reaching
anything of that module. Process-wide state a flow reads without naming it (``codecs.register``,
``copyreg.pickle``, ``locale.setlocale``, ``sys.setrecursionlimit``, ...:
``effects.PROCESS_STATE``) makes the statement relevant to every flow the module runs for (C6).
A statement also changes what the code it may run beyond the callees it spells changes
(``Unit.runs``, breaker3's D6/D7: the function values flowing into a call it cannot resolve,
``HOOKS["s"]()``; a def of its own module it calls): ``_runs_effects`` follows them with
``call_effects`` (for ``()<chain>``, whose result is called, with ``values``: every chain the
reached code names is a callee too), and a third-party function among them counts when the name
it resolves to changes process state (``reg = codecs.register; reg(f)``). A name only a star
import binds is imported like any other (``GraphMemo.imported``: ``from shop.g import *; setup()``;
through a third-party star, ``from codecs import *; register(f)`` names ``codecs.register``:
``_star_named``). What a def of the statement's own module changes there is ``effects``' part;
``_runs_effects`` adds what it changes elsewhere through code that rule does not follow (a call it
cannot resolve, ``def boot(): HOOKS["s"]()``; third-party state by the name its code spells,
``builtins.len = f`` being that builtin, not every flow using some builtin).

Code the compiler cannot read, run as a module loads (fixX2: a reference ``?``/``?<prefix>``, text
of undecidable origin, ``exec`` reached as a value, an import by a computed name, a file run by an
undecidable path; ``_runs_unknown_code``), may change anything: such a statement is abroad and
relevant to every flow its module runs for (``PROCESS``), and so is a statement that calls a def
or class whose code may (``_call_step``). Widening, on purpose: what that code changes cannot be
named. Cost: none of the four measured repositories' 272 flows moves (benchmarks/README.md §5,
session 10).

A statement abroad that changes a third-party module's process state (``decimal.getcontext()
.prec = 3``, ``warnings.simplefilter(...)``, ``os.environ.setdefault(...)``, also through a
first-party function it calls) is relevant to a flow that reaches anything of the same top-level
package (``package:<name>`` keys, compared only): a third-party module's functions read state of
their own, whatever name the flow spells. ``builtins`` stays per name (a flow spells builtins by
name; B3). The flow's own module is among the modules that run, so ``from decimal import
Decimal`` next to ``decimal.getcontext().prec = 3`` in one module is covered too. Engine
configuration (``DBOS(config=...)``) is exempt under a profile (``frameworks.engine_config``: such
statements are attached to nothing, so they are never abroad).

Namespace views (``scopes``, breaker2's C13/C17). A statement that stores through a view into
another module (``sys.modules["shop.svc"].go = f``, ``sys.modules["shop.svc"] = m``,
``__builtins__["len"] = f``: ``>`` references) is a statement abroad changing what it names
(``_view_stores``); an attribute the module does not bind counts as all of that module, and a
statement that changes a module as a whole (the entry replaced, ``setattr(svc, name, f)``,
``patch(svc)`` at import time) is relevant to a flow reaching any member of that module (widening:
it may change any of them). ``f.__globals__`` (and ``inspect.getmodule(f)``) is the namespace of
the module that defines ``f`` (``namespace_keys``): certain for a plain ``def``/``class`` named by
the chain; for a decorated one, a value, or an attribute a base may define (``Order.__init__``),
every first-party module (the object may be code of any of them). A module fetched by name
(``sys.modules.get("shop.h")``, ``__import__("shop.h", fromlist=[...])``, an alias of
``sys.modules``, ``sys.modules[f.__module__]``: ``scopes``, breaker3's D5) is stored into the same
way (``_view_target``); a function's such stores are what calling it changes (``call_effects``,
and ``_own_view_targets`` for a module's own function called as it runs), so a ``def`` that is
never called at import time is no statement abroad.

A module's ``__annotations__`` read by its code (or through the module: ``m.__annotations__``)
reaches every statement annotating a module-level name (``annotated``): what it holds is their
annotations, whose names ``scopes`` references (string annotations parsed, A1).

Python's import system beside the statements (breaker4's E6/E9/E10, the lead's L2). A submodule
is an attribute of its package only once an import loaded it, set over whatever the package bound
under that name (``def tools()`` beside ``shop/tools.py``): a chain that reads a submodule as its
package's attribute (``import shop.a`` then ``shop.b.f()``) where neither its own module's
module-level imports, the import that binds its root, the node's own lazy imports nor the
package's ``__init__`` load it (``_note_reads``; those load it for certain), or that reads a name
the package binds over a submodule (wherever it is spelled, ``from shop import tools`` included),
binds the flow to ``<loads>`` (``_submodule_loads``): for each such submodule, which of the
modules that run for the flow import it and with which statements (an import inside a function
as the function's name; a literal importer call, F11; a statement running code that imports it,
``load_runs``; in the package, its own bindings of the name in order with them). Widened
so: a module starting or stopping to import it moves the flow, whether or not its import runs
before the read (the order of modules' imports is a run-time fact), and where the package binds
the name both that binding and the submodule are candidates (``resolve_target``). Cost: 0
collateral on the three measured repositories (none reads a submodule so). Directories a
package puts on ``sys.path`` or its ``__path__`` (``ModuleSummary.search_paths``, decided from
``__file__`` by ``static_paths``) are searched as Python does (``_through_search_paths``:
``insert(0, d)`` before the package's own directory, ``append`` after; ``sys.path`` entries of
the module whose code imports and of its packages, for a name that is no first-party module
already; ``search_order.found_through``; ``site.addsitedir`` and lists assigned over the whole
path too), and a file loaded by path (``spec_from_file_location``, ``run_path``, ...) is the member
``<path>#file`` hashed by its bytes (``_file_node``, F10: ``exec(open('plug.txt').read())`` runs
whatever the file holds; a chunk pins that digest, ``bundle.chunk_limits``), with the module it
is reached whole when it is first-party code (a glob's matches: the listing member
``<dir>//<pattern>#file`` binding each match, G9; the ``.pth`` files of a ``site.addsitedir``
directory the flow's modules add: their listing, bound from the flow, and what they put on
``sys.path``, ``site_packages``, searched like any ``sys.path`` entry). A path the compiler
cannot decide, text run whose origin it cannot decide, or a file it cannot read, is a
``path-undecidable`` warning (``_load_warnings``, ``_search_warnings``,
``_file_node``); a submodule read as its package's attribute that no module that runs imports is
a ``submodule-unloaded`` warning (``_unloaded_warnings``: a chunk cannot reproduce it).

Not followed (documented limits): a module nothing that runs for the flow imports (loaded by name
from configuration); a computed module name handed to code that is not recognisably an importer
(a third-party function importing it deep inside).

Rejected: hashing the concatenation of all closure sources in traversal order (depends on the
walk order and cannot say which member changed), breaking cycles by DFS back-edges (the hash of a
member would depend on where the walk entered the cycle), and resolving each use at its position
in the file to drop dead bindings (it needs a per-position binding table for a rare gain).
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from loom_compiler.model import ClosureMember, MemberKind, SourceError
from loom_runtime.file_listing import LISTING, read_project_file, split_listing

from .analysis import NESTED_DESCRIPTOR, FlowSite, MemberUnit, ModuleSummary, Unit
from .canonical import SCHEME
from .frameworks.engine_hooks import ENGINE_HOOKS, ENGINE_VALUES, engine_text, find_hooks
from .effects import changes_process_state
from .load_runs import LoadRuns, RunIndex, seeds
from .runner_names import is_runner
from .subscript_runs import SUBSCRIPTED
from .operator_runs import defines_operators
from .search_order import found_through
from .static_paths import FILE_REF

if TYPE_CHECKING:
    from .config import LoomConfig

__all__ = ["ClosureGraph", "FileReader", "GraphMemo", "Loader", "hash_record"]

#: Supplies the summary of a module that is not in the given mapping (None: not in the tree).
Loader = Callable[[str], "ModuleSummary | SourceError | None"]
#: The bytes of a file of the project by its POSIX path relative to the root (None: no such
#: regular file; ``SourceReadError``: it is there and cannot be read).
FileReader = Callable[[str], "bytes | None"]

#: binding names that are no spelling in the member's text (the chunk skips them)
WIDEN_MODULE = "<globals>"  # the code reads its module's namespace by a computed name
WIDEN_CLASS = "<self>"  # the code reaches its instance by a computed name
OPAQUE_BASE = "<base>"  # a method flow's class has a base whose methods cannot be read
HANDS_INSTANCE = "<descriptor>"  # a class attribute of a method flow's class (or a base's) may be handed the instance
FLOW_BINDINGS = "<bindings>"  # the flow's name is bound by other statements too
CLASS_EFFECTS = "<effects>"  # module statements that change the flow's class
MODULE_GETATTR = "<getattr>"  # the module whose ``__getattr__`` serves the member
IMPORTED_EFFECTS = "<imported>"  # statements of a module the flow's code imports that change what it reaches
VIEW_STORE = "<view>"  # another module's name a statement stores into through a view (it holds what is stored)
SUBMODULE_LOADS = "<loads>"  # which modules that run import a submodule the code reads as its package's attribute
PACKAGE_SUBMODULES = "<submodules>"  # a package used as a value: its submodules are attributes of it once imported
NAMED = "<named {}>"  # a string that names first-party code (``"shop.pricing"``)
SITE_DIRS = "<site dirs>"  # the directories the ``.pth`` files of a site directory the flow's modules add name
LOADED_FILE = "<file {}>"  # a project file (no module) whose text the code runs (``exec(open(p).read())``)
COMPUTED = "<computed {}>"  # a module name computed at run time, known to start with ``{}``
CONSTANT = "<value {}>"  # a constant whose value names a module
#: the key of process-wide state every flow reads (``changed_abroad``; compared only, never a node)
PROCESS = "process:"


#: classes whose methods call no member of a subclass (their instances' own state only): as a
#: base of a method flow's class they are no reason to hash the whole class. DBOS's
#: ``DBOSConfiguredInstance`` (the base of every DBOS configured instance) has one method,
#: ``__init__(self, config_name)``, which stores ``config_name`` and registers the instance by its
#: class's name (dbos ``_dbos.py``): hashing its subclasses whole would put every step body of a
#: ``@DBOS.dbos_class`` into its workflows (examples/dbos_orders)
INERT_BASES = frozenset({"object", "builtins.object", "abc.ABC", "abc.ABCMeta", "typing.Generic", "typing.Protocol",
                         "typing_extensions.Generic", "typing_extensions.Protocol",
                         "dbos.DBOSConfiguredInstance", "dbos._dbos.DBOSConfiguredInstance"})

#: third-party classes known to be no descriptor (no ``__get__``/``__set__``/``__delete__``/
#: ``__set_name__``): a first-party subclass's instance held as a class attribute is handed
#: nothing (``STATUS = Status.OK`` in a flow class, D4's rule); any other third-party base may be
PLAIN_BASES = frozenset({"enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag", "enum.IntFlag",
                         "typing.NamedTuple", "typing.TypedDict", "typing_extensions.TypedDict",
                         "pydantic.BaseModel"})


@dataclass(slots=True)
class _Node:
    key: str
    kind: MemberKind
    module: str
    canonical: str
    path: str | None = None
    line: int = 0
    source: str = ""
    target: str | None = None
    refs: tuple[str, ...] = ()  # global chains its code uses ("~t": an import target, modules skipped)
    members: tuple[str, ...] = ()  # self./cls. names its code uses
    cls: str | None = None  # qualname of the class whose members ``members`` name
    dynamic: tuple[str, ...] = ()
    flow_name: str | None = None  # a module-level flow: its name (for ``FLOW_BINDINGS``)
    name: str | None = None  # a name member: the module-level name it is about
    hook: bool = False  # an attribute a module's PEP 562 ``__getattr__`` serves
    lazy: tuple[str, ...] | None = None  # modules its lazy imports name (memo of ``_walk``)
    free: tuple[str, ...] = ()  # names its code uses that nothing binds (builtins), once expanded
    parts: tuple[tuple[int, int, str, tuple[str, ...]], ...] = ()  # (index, line, source, names bound)
    bindings: list[tuple[str, str]] | None = None  # (name used, key); None until expanded
    warnings: tuple[SourceError, ...] = ()  # first-party imports its code uses with no source, once expanded
    bases: tuple[str, ...] = ()  # a method flow: its class's bases and metaclass (``FlowSite.bases``)
    values: tuple[str, ...] = ()  # a method flow: what its class statement evaluates into it (``FlowSite.values``)
    #: submodules its code reads as an attribute of their package without importing them
    #: (``(package, name)``; ``SUBMODULE_LOADS``), once expanded
    loads: tuple[tuple[str, str], ...] = ()
    #: the keys ``bindings`` reaches, each once, in their order (``_Walk.run``), and the bindings
    #: list they were read from (a flow's root gains bindings in its fixpoint: a new list)
    succ: tuple[str, ...] | None = None
    succ_of: list[tuple[str, str]] | None = None


def hash_record(*fields: str) -> str:
    """sha256 over length-prefixed UTF-8 fields: no separator can be forged by content."""
    h = hashlib.sha256()
    for f in fields:
        data = f.encode("utf-8")
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return "sha256:" + h.hexdigest()


@dataclass(slots=True)
class _ModuleIndex:
    """Lookup tables over one summary (summaries are tuples; these make lookups O(1))."""

    summary: ModuleSummary
    direct: dict[str, list[Unit]]  # name -> units that bind it, write it after ``global`` or change it
    stars: list[Unit]  # units with star imports
    writers: list[Unit]  # units that may bind any name (``globals()[k] = v``, ``exec``)
    members: dict[str, MemberUnit]
    flows: dict[str, FlowSite]
    binders: dict[str, list[Unit]]  # memo of ``ClosureGraph.binders``
    #: statements that change another module's objects (memo of ``ClosureGraph.abroad``)
    abroad: list[Unit] | None = None
    #: memos of ``ClosureGraph._abroad_changes`` and ``_abroad_key``
    abroad_changes: list[tuple[Unit, frozenset[str], frozenset[str]]] | None = None
    abroad_keys: dict[tuple[str, tuple[int, ...]], str] | None = None

    @classmethod
    def of(cls, summary: ModuleSummary) -> _ModuleIndex:
        direct: dict[str, list[Unit]] = {}
        for unit in summary.units:
            for name in {*unit.names, *unit.global_writes, *unit.attached}:
                direct.setdefault(name, []).append(unit)
        members: dict[str, MemberUnit] = {}
        for m in summary.members:
            seen = members.get(m.qualname)
            if seen is None:
                members[m.qualname] = m
            elif seen.source != m.source:
                # bound twice in the class body (a property and its setter): like module-level
                # names, the member is every statement that binds it, in order
                members[m.qualname] = MemberUnit(
                    m.qualname,
                    seen.canonical + "\n" + m.canonical,
                    tuple(sorted({*seen.references, *m.references})),
                    tuple(sorted({*seen.members, *m.members})),
                    seen.source + m.source,
                    seen.line,
                    kind="method",
                    dynamic=tuple(sorted({*seen.dynamic, *m.dynamic})),
                )
        stars = [u for u in summary.units if u.stars]
        writers = [u for u in summary.units if "module-write" in u.dynamic]
        flows = {f.qualname: f for f in summary.flows}
        return cls(summary, direct, stars, writers, members, flows, {})


class GraphMemo:
    """What the closure graphs of one build share: answers that are functions of one module's
    summary alone (a build makes a graph per flow module, and the 120 flow modules of the build
    benchmark each walked the same ~55 modules' statements again for their effects abroad).

    Only answers that read nothing but the summary are kept: whatever loads another module goes
    through each graph's own ``summary`` (its loader records what the flow module depends on).
    Keyed by the summary object (its ``id``, with the object kept to tell a reused ``id``):
    a build serves each module's summary as one object."""

    def __init__(self) -> None:
        self._abroad: dict[int, tuple[ModuleSummary, list[Unit]]] = {}
        self._prefixes: dict[int, tuple[ModuleSummary, tuple[str, ...]]] = {}
        self._viewing: dict[int, tuple[ModuleSummary, bool]] = {}
        self._imported: dict[int, tuple[ModuleSummary, frozenset[str]]] = {}
        #: module -> (the modules running it runs, transitively, and every module whose summary
        #: that answer read, with the summary read): ``ClosureGraph.executed`` of one module, for
        #: the graphs that agree on what is first-party (``ClosureGraph._shares_reach``)
        self._reach: dict[str, tuple[frozenset[str], tuple[tuple[str, ModuleSummary | None], ...]]] = {}
        self._reach_config: tuple[object] | None = None  # (the configuration answers are for,)
        self._first_party: dict[str, bool] = {}  # ``configured_first_party``
        #: what the code a module's statements run at load imports (``load_runs``)
        self.load_runs = LoadRuns()

    def abroad(self, summary: ModuleSummary) -> list[Unit]:
        """The statements of ``summary``'s module that change the objects of another module
        (``ClosureGraph.abroad``)."""
        hit = self._abroad.get(id(summary))
        if hit is None or hit[0] is not summary:
            imported = self.imported(summary)
            runs = self.load_runs.index(summary) if self.view_storing(summary) else None
            hit = self._abroad[id(summary)] = (
                summary, [u for u in summary.units if imported & set(u.attached) or u.runs or _stores_through_view(u)
                          or runs is not None and _own_view_targets(runs, u) or _runs_unknown_code(u)])
        return hit[1]

    def imported(self, summary: ModuleSummary) -> frozenset[str]:
        """The module-level names of a module an import binds: by name, or -- a name no statement
        binds, in a module with a star import -- by the star import (``from shop.g import *``
        then ``setup()``: ``ClosureGraph.resolve_chain`` finds ``shop.g.setup``, D6)."""
        hit = self._imported.get(id(summary))
        if hit is None or hit[0] is not summary:
            names = {local for u in summary.units for local, _ in u.aliases}
            if summary.star_imports:
                binds = {n for u in summary.units for n in (*u.names, *u.global_writes)}
                names |= {n for u in summary.units for n in u.attached} - binds
            hit = self._imported[id(summary)] = (summary, frozenset(names))
        return hit[1]

    def view_storing(self, summary: ModuleSummary) -> bool:
        """Whether a function or class of the module stores into another module through a view
        (``>`` call refs: ``scopes.References.deferred_stores``, breaker3's D5)."""
        hit = self._viewing.get(id(summary))
        if hit is None or hit[0] is not summary:
            hit = self._viewing[id(summary)] = (summary, any(
                c[0] == ">" for u in summary.units if u.kind in ("function", "class") for c in u.call_refs))
        return hit[1]

    def configured_first_party(self, config: LoomConfig, module: str) -> bool:
        """``config.is_first_party(module)``, once per build and module (every graph asks it of the
        ~150 names its flows' modules import)."""
        if not self.same_config(config):
            return config.is_first_party(module)
        known = self._first_party.get(module)
        if known is None:
            known = self._first_party[module] = config.is_first_party(module)
        return known

    def same_config(self, config: object) -> bool:
        """Whether ``config`` is the configuration of the graphs that asked before (the first one
        asking sets it): answers of ``reach`` and ``configured_first_party`` hold for one."""
        if self._reach_config is None:
            self._reach_config = (config,)
        return self._reach_config[0] is config

    def reach(self, module: str) -> tuple[frozenset[str], tuple[tuple[str, ModuleSummary | None], ...]] | None:
        """What ``remember_reach`` kept for ``module`` (``ClosureGraph.executed``)."""
        return self._reach.get(module)

    def remember_reach(self, module: str, runs: frozenset[str],
                       read: tuple[tuple[str, ModuleSummary | None], ...]) -> None:
        self._reach[module] = (runs, read)

    def run_prefixes(self, summary: ModuleSummary) -> tuple[str, ...]:
        """Every module an import the module's statements run at module level may run (``a``,
        ``a.b`` for ``import a.b``), each once, in order; which of them are first-party modules
        of the tree is each graph's question (``ClosureGraph._imports_of``)."""
        hit = self._prefixes.get(id(summary))
        if hit is None or hit[0] is not summary:
            found: dict[str, None] = {}
            for target in summary.runs:
                parts = target.split(".")
                for i in range(1, len(parts) + 1):
                    found.setdefault(".".join(parts[:i]))
            hit = self._prefixes[id(summary)] = (summary, tuple(found))
        return hit[1]


class ClosureGraph:
    """Every member reached from the flows asked for, resolved once and hashed once.

    Flows of one module (or project) share helpers; a member's hash does not depend on which flow
    reached it (see the module docstring), so the graph and its hashes are shared too.
    """

    def __init__(self, summaries: Mapping[str, ModuleSummary], config: LoomConfig | None, loader: Loader | None,
                 modules: Callable[[], Iterable[str]] | None = None,
                 hook_candidates: Callable[[frozenset[str]], Iterable[str]] | None = None,
                 memo: GraphMemo | None = None, files: FileReader | None = None) -> None:
        self.summaries = summaries
        #: the bytes of a project file that is no module (code loaded by path, ``file_node``)
        self.files = files if files is not None else _disk_reader(config)
        self.memo = memo if memo is not None else GraphMemo()
        self.config = config
        self.loader = loader
        self.indices: dict[str, _ModuleIndex | None] = {}
        self.errors: list[SourceError] = []
        self.nodes: dict[str, _Node] = {}
        self._hashes: dict[str, str] | None = None
        self._members: dict[str, ClosureMember] = {}
        self._exporting: set[tuple[str, str]] = set()  # star exports being decided (cycles)
        self._first_party: dict[str, bool] = {}
        self._loaded: dict[str, ModuleSummary | None] = {}
        self._targets: dict[tuple[str, int], frozenset[str]] = {}  # what a statement abroad changes
        self._abroad_sets: dict[str, list[Unit]] = {}  # "abroad:<module>:<digest>" -> its statements
        self._executed: dict[frozenset[str], list[str]] = {}  # seed modules -> what runs
        self._reach: dict[str, tuple[list[str], set[str]]] = {}  # root key -> what it reaches
        self._effects: dict[tuple[str, bool], frozenset[str]] = {}  # memo of ``call_effects``
        self._widened_by: dict[str, set[str]] = {}  # key -> the widening edges that reach it
        self._runs: dict[str, list[str]] = {}  # dotted import target -> first-party modules it runs
        self._imports: dict[str, list[str]] = {}  # module -> first-party modules it imports
        self._imports_read: dict[str, tuple[str, ...]] = {}  # module -> what ``_imports_of`` looked up for it
        self._shared_reach: bool | None = None  # memo of ``_shares_reach``
        self._missing: dict[str, str] = {}  # import target -> the sourceless module it names ("": none)
        self._mro: dict[tuple[str, tuple[str, ...]], tuple[frozenset[str], str]] = {}  # memo of ``inherited``
        self._mro_open: set[tuple[str, tuple[str, ...]]] = set()  # ``inherited`` computations under way (a cycle)
        self._descriptors: dict[str, bool] = {}  # memo of ``_descriptor`` (final answers only)
        #: memo of ``_have_of`` (a reached key's part of what a flow reaches, for its statements
        #: abroad); emptied when ``_found`` makes a module first-party
        self._have: dict[str, tuple[tuple[str, ...], str | None]] = {}
        self._spelled: dict[tuple[str, str], bool] = {}  # memo of ``_spells_read``
        self._have_generation = 0  # how many times ``_found`` emptied it (``_Walk.have``'s check)
        self._reasons: dict[str, tuple[int, str]] = {}  # memo of ``_reason`` (key -> (widenings seen, reason))
        #: (module, site directory) -> what ``site_packages`` read there
        self._site_memo: dict[tuple[str, str], tuple[str, list[str], list[str], list[tuple[str, str]]]] = {}
        #: while a node is expanded: the submodule reads its resolution meets (``_note_reads``),
        #: and the modules certainly loaded where the chain being resolved is read (None: the
        #: target is an import's own, which loads it)
        self._reads: set[tuple[str, str]] | None = None
        self._loaded_here: frozenset[str] | None = None
        self._tail_start = 1 << 30  # the index in the chain resolved of the first name the code spells on an import
        self._search_from: str | None = None  # the module whose code's chain is being resolved (``sys.path``)
        self._importers: dict[tuple[str, str], str] = {}  # (module, submodule) -> its ``<loads>`` text
        self.modules = modules
        self._listing: list[str] | None = None  # every module of the tree (memo of ``modules``)
        profile = getattr(config, "profile", None) if config is not None else None
        self.children = profile is not None and profile.children_by_reference
        self.refined = profile is not None and profile.extended  # class-member steps, name-only refs
        #: engine hooks (``frameworks.engine_hooks``): found in the modules ``hook_candidates`` lists
        self.engine_hooks = profile.engine_hooks if profile is not None and hook_candidates is not None else None
        self.hook_candidates = hook_candidates
        self._hook_keys: list[str] | None = None

    # -- modules --------------------------------------------------------------------------------
    def first_party(self, module: str) -> bool:
        known = self._first_party.get(module)
        if known is None:
            if module in self.summaries:
                known = True
            elif self.config is not None and self.config.packages:
                known = self.memo.configured_first_party(self.config, module)
            else:
                known = self.loader is not None
            self._first_party[module] = known
        return known

    def summary(self, module: str) -> ModuleSummary | None:
        """The summary of a first-party module (loaded on demand), None when it is not in the tree."""
        if module in self._loaded:
            return self._loaded[module]
        summary: ModuleSummary | SourceError | None = self.summaries.get(module)
        if summary is None and self.loader is not None and self.first_party(module):
            summary = self.loader(module)
        if isinstance(summary, SourceError):
            self.errors.append(summary)
            summary = None
        self._loaded[module] = summary
        return summary

    def index(self, module: str) -> _ModuleIndex | None:
        if module in self.indices:
            return self.indices[module]
        summary = self.summary(module)
        index = _ModuleIndex.of(summary) if summary is not None else None
        self.indices[module] = index
        return index

    def binders(self, where: _ModuleIndex, name: str) -> list[Unit]:
        """Every statement of ``where``'s module that binds, may bind or changes ``name``, in order."""
        found = where.binders.get(name)
        if found is None:
            units = {u.index: u for u in where.direct.get(name, ())}
            for u in where.writers:
                units[u.index] = u
            for u in where.stars:
                if u.index not in units and any(self.may_export(t, name) for t in u.stars):
                    units[u.index] = u
            found = where.binders[name] = [units[i] for i in sorted(units)]
        return found

    def may_export(self, module: str, name: str) -> bool:
        """Whether ``from <module> import *`` may bind ``name`` (Python's rule: ``__all__``, else
        the names not starting with an underscore; unknown for a third-party module)."""
        if not self.first_party(module):
            return True
        other = self.index(module)
        if other is None:
            return False  # not in the tree: the import fails, it binds nothing
        s = other.summary
        if not s.exports_known:
            return True
        if s.exports is not None:
            return name in s.exports
        if name.startswith("_"):
            return False
        key = (module, name)
        if key in self._exporting:
            return False  # a cycle of star imports: nothing more is bound by going round it
        self._exporting.add(key)
        try:
            return bool(self.binders(other, name))
        finally:
            self._exporting.discard(key)

    # -- resolution -----------------------------------------------------------------------------
    def resolve_chain(self, where: _ModuleIndex, chain: str, seen: frozenset[tuple[str, str]] = frozenset()) -> list[str]:
        """Keys of the members a global chain used in ``where``'s module may stand for ([]: a
        builtin or an undefined name)."""
        module = where.summary.module
        if (module, chain) in seen:
            return []  # a re-export cycle: the name is never defined
        seen = seen | {(module, chain)}
        if ".__globals__" in chain:
            head, _, rest = chain.partition(".__globals__")
            return self.namespace_keys(head, self.resolve_chain(where, head, seen), rest[1:])
        root, _, rest = chain.partition(".")
        tail = "." + rest if rest else ""
        units = self.binders(where, root)
        if not units:
            if root == "__annotations__":
                return self.annotated(where)
            return []
        if root in where.flows:
            if self.children:
                return [f"child:{module}|{root}"]  # DBOS: a workflow reached from a workflow
            return [f"{module}.{root}"]  # the flow node (its other bindings hang off it)
        if self.refined and rest and len(units) == 1 and units[0].kind == "class":
            member = f"{root}.{rest.split('.')[0]}"
            if member in where.flows and self.children:
                return [f"child:{module}|{member}"]
            found = where.members.get(member)
            if found is not None and found.kind == "step":
                return [f"member:{module}|{member}"]  # ``Db.save``: the step, not the class
        if len(units) == 1:
            (u,) = units
            targets = [t for local, t in u.aliases if local == root]
            if u.simple_import and len(targets) == 1:
                return self._resolve_bound(where, targets[0], tail, seen)  # the plain ``from x import y``
            if u.stars and root not in u.names and "module-write" not in u.dynamic:
                return self._star_keys(u, root, chain, seen)
        keys = [f"{module}.{root}"]
        for u in units:
            for local, target in u.aliases:
                if local == root:
                    keys += self._resolve_bound(where, target, tail, seen)
            if u.stars:
                keys += self._star_keys(u, root, chain, seen)
        return keys

    def _resolve_bound(self, where: _ModuleIndex, target: str, tail: str, seen: frozenset[tuple[str, str]],
                       loaded: frozenset[str] | None = None) -> list[str]:
        """``resolve_target`` of what an import binds (``target``) with the tail the code spells on
        it (``import shop.a`` then ``shop.b.f``: ``shop`` and ``.b.f``): a submodule on the way
        that neither ``where``'s module-level imports nor ``loaded`` load is read as an attribute
        of its package (``_note_reads``), and in the tail a name the package binds itself over a
        submodule is that binding or the submodule (E6)."""
        outer = self._loaded_here, self._tail_start, self._search_from
        self._loaded_here = self._module_loads(where.summary) | (loaded or frozenset())
        self._search_from = where.summary.module
        searched = self._through_search_paths(target)
        if searched != target:  # what the imports load, as the tree names the files they find
            self._loaded_here = self._loaded_here | {self._through_search_paths(p) for p in self._loaded_here}
        self._tail_start = searched.count(".") + 1
        try:
            return self.resolve_target(searched + tail, seen)
        finally:
            self._loaded_here, self._tail_start, self._search_from = outer

    def _through_search_paths(self, target: str) -> str:
        """``target`` as the tree names the module an import of it loads (E9, F9;
        ``search_order.found_through``): through a directory the importing module or a package
        above it puts on ``sys.path`` (``import helper`` -> ``shop.vendor.helper``), and through
        a directory a package puts on its ``__path__`` (``shop.plug`` -> ``shop.extra.plug``), in
        Python's search order; ``target`` itself when neither applies."""
        return found_through(target, self._search_from,
                             lambda m: self.summary(m) if self.first_party(m) else None, self._found,
                             lambda m: self.first_party(m) and self.index(m) is not None,
                             lambda s, d: self.site_packages(s, d)[2])

    def site_packages(self, summary: object, dotted: str) -> tuple[str, list[str], list[str], list[tuple[str, str]]]:
        """What ``site.addsitedir`` of a directory (``dotted``, in the tree's naming of
        ``summary``'s module) reads there, as Python's ``site.addpackage`` does: (the listing key
        of its ``.pth`` files, their paths, the directories their lines name in the tree's naming,
        in order, and (``.pth`` path, problem) for what cannot be followed: a line naming a
        directory outside the tree or no package directory of it, a file that cannot be read or
        decoded). A line starting ``import`` is code ``site`` runs: the file's bytes are hashed
        (``_site_keys``), what it imports is not followed (``_file_node`` warns)."""
        assert isinstance(summary, ModuleSummary)
        memo = (summary.module, dotted)
        found = self._site_memo.get(memo)
        if found is not None:
            return found
        prefix = _tree_prefix(summary)
        directory = prefix + dotted.replace(".", "/") if dotted else prefix.rstrip("/")
        listing = f"{directory}{LISTING}*.pth"
        names: list[str] = []
        dirs: list[str] = []
        problems: list[tuple[str, str]] = []
        try:
            data = self.files(listing) if self.files is not None else None
        except OSError as exc:
            data = None
            problems.append((listing, f"its directory cannot be listed ({exc})"))
        for name in (data or b"").decode("utf-8", "surrogateescape").splitlines():
            pth = f"{directory}/{name}" if directory else name
            names.append(pth)
            try:
                raw = self.files(pth) if self.files is not None else None
                text = raw.decode("utf-8-sig") if raw is not None else ""
            except (OSError, UnicodeDecodeError) as exc:
                problems.append((pth, f"it cannot be read as UTF-8 ({type(exc).__name__})"))
                continue
            for line in text.splitlines():
                if line.startswith("#") or not line.strip() or line.startswith(("import ", "import\t")):
                    continue
                line = line.rstrip()
                dotted_dir = None  # the directory in the tree's naming, None: none the tree names
                if not line.startswith("/"):  # ``site`` joins a relative line to the site directory
                    where = posixpath.normpath(posixpath.join(directory or ".", line))
                    where = "" if where == "." else where
                    if where == prefix.rstrip("/"):
                        dotted_dir = ""
                    elif where != ".." and not where.startswith("../") and (where + "/").startswith(prefix):
                        parts = where[len(prefix):].split("/")
                        dotted_dir = ".".join(parts) if all(p.isidentifier() for p in parts) else None
                if dotted_dir is None:
                    problems.append((pth, f"its line `{line}` names a directory the fingerprint does not search"))
                    continue
                dirs.append(dotted_dir)
        found = self._site_memo[memo] = (listing, names, dirs, problems)
        return found

    def _site_node(self, key: str) -> _Node:
        """``site:<module>:<directory>``: the directories the ``.pth`` files of a site directory
        add, in order (``(site shop.vendor shop.vendor.extra)``): no code, what the chunk needs
        to name the modules found there as the import does."""
        module, _, dotted = key[len("site:"):].partition(":")
        s = self.summary(module)
        dirs = self.site_packages(s, dotted)[2] if s is not None else []
        node = _Node(key, "constant", module, "(site " + " ".join([dotted or ".", *(d or "." for d in dirs)]) + ")",
                     s.path if s is not None else "")
        node.bindings = []
        return node

    def _site_keys(self, seeds: frozenset[str]) -> dict[str, str]:
        """The listing members of the ``.pth`` files of every site directory the modules that run
        for a flow add (``site.addsitedir``): ``site`` runs their ``import`` lines and puts the
        directories they name on ``sys.path``, so their bytes and which of them there are are the
        flow's (any edit moves it, a comment too: widened, like every file loaded by path)."""
        keys: dict[str, str] = {}  # key -> the module that adds the directory
        for module in self.executed(seeds):
            s = self.summary(module)
            for entry in s.search_paths if s is not None else ():
                if entry[1] == "site":
                    keys.setdefault("file:" + self.site_packages(s, entry[2])[0] + "|", module)
                    # the directories they add, as the tree names them (``bundle.chunk_search``
                    # names the modules found there as the import does)
                    keys.setdefault(f"site:{module}:{entry[2]}", module)
        return keys

    def _found(self, module: str) -> bool:
        """Whether the tree holds ``module`` (a module found through a directory a package puts
        on a search path is first-party code, whatever ``packages`` says)."""
        if self.first_party(module):
            return self.index(module) is not None
        summary = self.loader(module) if self.loader is not None else None
        if summary is None or isinstance(summary, SourceError):
            return False
        for prefix in _prefixes(module):
            self._first_party.setdefault(prefix, True)
        self._first_party[module] = True
        self._loaded.pop(module, None)
        self.indices.pop(module, None)
        self._have.clear()  # what is first-party changed: ``_have_of``'s answers may too
        self._have_generation += 1
        return self.index(module) is not None

    def _module_loads(self, summary: ModuleSummary) -> frozenset[str]:
        """Every module a module's own module-level imports load (``import a.b.c``: ``a``, ``a.b``,
        ``a.b.c``): loaded before any of its functions runs."""
        return frozenset(self.memo.run_prefixes(summary))

    def _note_reads(self, parts: list[str], upto: int) -> None:
        """Record, for the node being expanded, each submodule among ``parts[:upto]`` (``a.b`` of
        ``a.b.c``) that the code reads as an attribute of its package: Python sets ``a.b`` only
        when some import loads ``a.b`` (E10), and over a name the package binds itself (E6), so
        what it is depends on which modules that run import it. Certain, so not noted: a
        submodule the reading module or the resolved import loads (``_loaded_here``), or its
        package's own module-level imports load, when the package binds no such name."""
        if self._reads is None:
            return
        for j in range(2, upto + 1):
            package, sub = ".".join(parts[: j - 1]), ".".join(parts[:j])
            pkg = self.index(package) if self.first_party(package) else None
            if pkg is None or not pkg.summary.is_package or self.index(sub) is None:
                continue
            name = parts[j - 1]
            if self._rebinds(pkg, name, sub):  # E6: the package's own binding, or the submodule once imported
                self._reads.add((package, name))
            elif self._loaded_here is not None and sub not in self._loaded_here \
                    and sub not in self._module_loads(pkg.summary):
                self._reads.add((package, name))

    def _rebinds(self, pkg: _ModuleIndex, name: str, sub: str) -> bool:
        """Whether package ``pkg`` binds ``name`` by a statement other than an import of its
        submodule ``sub`` itself (``def tools()``, ``from .tools import tools``): ``pkg.name`` is
        then that binding or the submodule, whichever was set last (E6)."""
        return any(not any(local == name and target == sub for local, target in u.aliases)
                   for u in pkg.direct.get(name, ()))

    def annotated(self, where: _ModuleIndex) -> list[str]:
        """What the module's ``__annotations__`` holds (``__annotations__`` read by its code,
        ``m.__annotations__``, ``vars(m)["__annotations__"]``; B17 and A1): every statement
        annotating a module-level name (``X: Money = 1``, ``Y: "Money"``), as the name members
        of the names they bind, so their annotations (and what those reference) are hashed."""
        module = where.summary.module
        names = sorted({n for u in where.summary.units if u.kind not in ("function", "class", "step")
                        and "(AnnAssign " in u.canonical for n in u.names})
        return [f"{module}.{n}" for n in names]

    def namespace_keys(self, head: str, keys: list[str], rest: str) -> list[str]:
        """What ``<head>.__globals__`` (``scopes`` spells ``inspect.getmodule(f)`` so too) reaches,
        ``rest`` read in it (``helper.__globals__["K"]``: ``K``; nothing: the whole namespace):
        the namespace of the module whose code the object is (breaker2's C17). Certain for a
        module-level ``def`` or ``class`` without decorators (and a flow, whose decorator returns
        it), named by the chain itself: its module. Anything else may be code of any module (a
        decorator's wrapper, a method a base defines, a value built elsewhere): every first-party
        module. A third-party object leads to no first-party namespace."""
        out: list[str] = list(keys)  # the object itself is used (a chunk provides it)
        for key in keys:
            module = self._defining_module(key, head)
            if module is None:
                out += self.computed_keys("")
                continue
            index = self.index(module) if module else None
            if index is None:
                continue
            found = self.resolve_chain(index, rest) if rest else []
            out += found or ["module:" + module]
        return list(dict.fromkeys(out))

    def _defining_module(self, key: str, head: str) -> str | None:
        """The module whose namespace the object ``head`` (resolved to ``key``) runs in, "" when it
        is no first-party code, None when it cannot be told (see ``namespace_keys``): an attribute
        of what ``key`` names (``Order.__init__``) may be defined by a base elsewhere."""
        if key.startswith("import:"):
            target = key[len("import:"):]
            return None if self.first_party(target.split(".")[0]) else ""
        if key.startswith("module:"):
            return key[len("module:"):]  # ``inspect.getmodule(module)`` is the module itself
        if key.startswith(("member:", "child:")):
            return key.partition(":")[2].partition("|")[0]  # defined in the class body of its module
        if key.startswith(("hook:", "ref:", "abroad:", "loads:", ENGINE_VALUES)) or "#" in key:
            return None
        module, _, name = key.rpartition(".")
        index = self.index(module)
        if index is None or (name != head.rsplit(".", 1)[-1] and "." in head):
            return None
        if name in index.flows:
            return module
        units = self.binders(index, name)
        if units and all(u.kind in ("function", "class") and name in u.names and not _decorated(u) for u in units):
            return module
        return None

    def _star_keys(self, unit: Unit, root: str, chain: str, seen: frozenset[tuple[str, str]]) -> list[str]:
        keys: list[str] = []
        for target in unit.stars:
            index = self.index(target) if self.first_party(target) else None
            if index is not None and not index.summary.exports_known:
                # a computed ``__all__`` decides whether the import binds the name (C8): its
                # statements are part of what the name means, whichever way they decide
                keys.append(f"{target}.__all__")
            if not self.may_export(target, root):
                continue
            if index is not None:
                keys += self.resolve_target(f"{target}.{chain}", seen)
            else:
                keys.append(f"import:{target}.*")
        return keys

    def resolve_target(self, target: str, seen: frozenset[tuple[str, str]] = frozenset()) -> list[str]:
        if ".__globals__" in target:
            head, _, rest = target.partition(".__globals__")
            return self.namespace_keys(head, self.resolve_target(head, seen), rest[1:])
        parts = target.split(".")
        # ``from a import b`` (and ``import a.b as c``) is the attribute ``b`` of package ``a``:
        # what ``a`` binds as ``b`` itself (``from .pricing import pricing`` in ``a/__init__.py``,
        # a function named like its submodule), or the submodule ``a.b`` once an import loaded it
        # (Python sets the attribute then, over the package's binding: E6), so both when both exist
        own: list[str] = []
        if len(parts) > 1:
            package = ".".join(parts[:-1])
            index = self.index(package) if self.first_party(package) else None
            if index is not None and index.summary.is_package and parts[-1] in index.direct:
                own = self.resolve_chain(index, parts[-1], seen)
                if own and not (self.first_party(target) and self.index(target) is not None
                                and self._rebinds(index, parts[-1], target)):
                    return own
        for i in range(len(parts), 0, -1):
            module = ".".join(parts[:i])
            if not self.first_party(module):
                continue
            other = self.index(module)
            if other is None:
                continue
            self._note_reads(parts, i)
            if i == len(parts) or parts[i] == "__dict__":
                return [*own, "module:" + module]  # the module object itself, used as a value: all of it
            if 1 < i <= len(parts) and i - 1 >= self._tail_start:
                # E6 on the way: ``a.b.x`` where ``a`` binds ``b`` itself is that binding's ``x``
                # too, until an import of ``a.b`` sets the attribute
                package = ".".join(parts[: i - 1])
                pkg = self.index(package) if self.first_party(package) else None
                if pkg is not None and pkg.summary.is_package and self._rebinds(pkg, parts[i - 1], module):
                    own = self.resolve_chain(pkg, ".".join(parts[i - 1:]), seen)
            found = self.resolve_chain(other, ".".join(parts[i:]), seen)
            if found:
                return [*own, *found]
            if other.summary.getattr_hook:
                # served by its PEP 562 ``__getattr__``: that attribute of all of the module
                return [*own, f"hook:{module}:{parts[i]}"]
            return [*own, "import:" + target]
        return ["import:" + target]

    # -- nodes ----------------------------------------------------------------------------------
    def flow_node(self, module: str, qualname: str) -> _Node:
        key = f"{module}.{qualname}"
        node = self.nodes.get(key)
        if node is None:
            index = self.index(module)
            assert index is not None
            node = self._flow_node(key, index, index.flows[qualname])
            self.nodes[key] = node
        return node

    def _flow_node(self, key: str, index: _ModuleIndex, flow: FlowSite) -> _Node:
        s = index.summary
        unit = s.units[flow.unit]
        return _Node(
            key, "flow", s.module, flow.canonical, s.path, flow.line, flow.source,
            refs=flow.references, members=flow.members, cls=flow.class_qualname, dynamic=flow.dynamic,
            flow_name=None if flow.class_qualname else flow.qualname,
            parts=((unit.index, unit.line, unit.source, unit.names),) if flow.class_qualname is None else (),
            bases=flow.bases, values=flow.values,
        )

    def name_only_keys(self, where: _ModuleIndex, chain: str) -> list[str]:
        """What a name-only reference (``^chain``) stands for: the step or child flow it names, or
        a ``ref:`` member hashed by its qualified name (never a body)."""
        if chain.startswith("="):
            keys = self.resolve_target(chain[1:])
            parts = chain[1:].split(".")
        else:
            keys = self.resolve_chain(where, chain)
            parts = chain.split(".")
        out = []
        for key in keys:
            if key.startswith(("import:", "module:", "hook:", "child:", "member:", "ref:")) or "#" in key:
                out.append(key)
                continue
            module, _, name = key.rpartition(".")
            index = self.index(module)
            if index is None:
                out.append(key)
                continue
            if any(local == name for u in self.binders(index, name) for local, _ in u.aliases):
                # bound by an import (``with workflow.unsafe.imports_passed_through(): from x import
                # Db``): what it imports is among ``keys`` too, mapped the same way; its statements
                # (and the whole class they import) are not named by a name-only use
                continue
            tail = parts[parts.index(name) + 1:] if name in parts[1:] else parts[1:]
            qual = ".".join([name, *tail[:1]])
            if qual in index.flows or name in index.flows:
                out.append(f"child:{module}|{qual if qual in index.flows else name}")
            elif tail and (m := index.members.get(qual)) is not None and m.kind == "step":
                out.append(f"member:{module}|{qual}")
            elif not tail and len(units := self.binders(index, name)) == 1 and units[0].kind == "step":
                out.append(key)
            else:
                out.append(f"ref:{module}|{'.'.join([name, *tail])}")
        return out

    def _profile_node(self, key: str) -> _Node:
        kind, _, rest = key.partition(":")
        module, _, qual = rest.partition("|")
        index = self.index(module)
        assert index is not None
        s = index.summary
        target = f"{module}.{qual}"
        if kind == "member":
            return self._member_node(key, index, qual, qual.rsplit(".", 1)[0])
        if kind == "child":
            flow = index.flows[qual]
            flow_id = flow.args.id or f"{module}:{qual}"
            return _Node(key, "step", module, f"(child {flow_id})\n{flow.header}", s.path, flow.line, "", target=target)
        units = self.binders(index, qual) if "." not in qual else []
        if units and all(u.kind == "constant" for u in units):
            # an alias (``ACT = charge``, ``NAME = "charge"``, C9): what history records is what the
            # alias names, so its statements are hashed and what they use is followed by name only
            # in turn (``charge`` is still the step, never its body)
            refs = tuple(sorted({"^" + r.lstrip("^") for u in units for r in u.references if r[0] not in "!>"}))
            return _Node(key, "step", module, "\n".join(_unit_canonical(u, qual) for u in units), s.path, units[0].line, "",
                         target=target, refs=refs)
        if len(units) == 1 and units[0].kind == "function" and units[0].header:
            # a plain function a step call runs (DBOS's ``run_step(options, fn)``, C18): its header,
            # as every step's, never its body (its result is served from the journal)
            u = units[0]
            return _Node(key, "step", module, u.header, s.path, u.line, "", target=target, refs=u.header_references)
        return _Node(key, "step", module, "", s.path, 0, "", target=target)  # "ref"

    def _make_node(self, key: str, reached_from: str) -> _Node:
        if key.startswith(("member:", "child:", "ref:")):
            return self._profile_node(key)
        if key.startswith("file:"):
            return self._file_node(key, reached_from)
        if key.startswith("import:"):
            # ``module``: the module whose code reached it (the chunk imports it for that code)
            return _Node(key, "import", reached_from, "", target=key[len("import:") :])
        if key.startswith("module:"):
            return self._module_node(key, key[len("module:") :])
        if key.startswith("abroad:"):
            module = key[len("abroad:") :].rpartition(":")[0]
            index = self.index(module)
            assert index is not None
            return self._units_node(key, "constant", index, None, self._abroad_sets[key])
        if key.startswith("hook:"):
            module, _, attr = key[len("hook:") :].partition(":")
            return _Node(key, "constant", module, f"(getattr {attr})", target=f"{module}.{attr}", hook=True)
        if key.startswith(ENGINE_VALUES):
            # what a module hands to the engine's configuration, as text (breaker3's D1): no code
            # of its own to bundle (``<module>#engine``), what first-party code it names is bound
            # to the flow beside it (``find_hooks``)
            module = key[len(ENGINE_VALUES):]
            summary = self.summary(module)
            return _Node(key, "constant", module, engine_text(self, module),
                         summary.path if summary is not None else None)
        base, _, part = key.partition("#")
        module, _, name = base.rpartition(".")
        index = self.index(module)
        assert index is not None
        s = index.summary
        if part:
            units = self._partial_units(index, name, part)
            kinds = {u.kind for u in units} if part == "defined" else set()
            return self._units_node(key, "function" if "function" in kinds else "class" if "class" in kinds else "constant",
                                    index, name, units)
        if name in index.flows:  # the flow function itself, reached from its own closure
            return self._flow_node(key, index, index.flows[name])
        units = self.binders(index, name)
        if len(units) == 1 and units[0].kind == "step":
            u = units[0]
            # its header is hashed and followed (its refs); its body is not
            return _Node(key, "step", module, u.canonical, s.path, u.line, "", target=u.step_name or key,
                         refs=u.references if u.canonical else ())
        kinds = {u.kind for u in units}
        kind: MemberKind = "function" if "function" in kinds else "class" if "class" in kinds else "constant"
        return self._units_node(key, kind, index, name, units)

    def _file_node(self, key: str, reached_from: str) -> _Node:
        """A project file that is no module whose text the code runs (F10: ``exec(open(os.path.join(
        os.path.dirname(__file__), 'plug.txt')).read(), ns)``), hashed by its bytes: any edit moves
        the flows that run it, formatting included (widening: its text is not parsed, so it
        cannot be canonicalised, and what it imports is not followed: warned when it spells an
        import). A file that is absent or cannot be read hashes as such, with a warning: the code
        run at that path is then unknown."""
        path, _, followed = key[len("file:"):].partition("|")  # ``followed``: the module it is, reached whole
        where = self.summary(reached_from)
        at = (path, 0, 0)
        if where is not None:
            at = next(((where.path, line, column) for _, line, column, kind, p in where.path_warnings
                       if _loads(kind, p, path)), (where.path, 0, 0))
        try:
            data = self.files(path) if self.files is not None else None
            state = "unknown" if self.files is None else "absent" if data is None else \
                "sha256:" + hashlib.sha256(data).hexdigest()
        except OSError as exc:
            data, state = None, f"unreadable {type(exc).__name__}"
        warnings: tuple[SourceError, ...] = ()
        if data is None:
            warnings = (SourceError(*at, f"code is loaded by path from `{path}`, which the fingerprint cannot read "
                                    f"({state}): an edit to the code run there keeps the hash of the flows that run "
                                    "it. Make the file a readable part of the project, or bump the flow's version= "
                                    "whenever that code changes", code="path-undecidable"),)
        elif b"import" in data and not followed:
            warnings = (SourceError(*at, f"code loaded by path from `{path}` imports: the fingerprint hashes the "
                                    "file's bytes but does not follow what it imports, so an edit to that code keeps "
                                    "the hash of the flows that run it. Import those modules in a module of the "
                                    "package instead, or bump the flow's version= whenever they change",
                                    code="path-undecidable"),)
        node = _Node(key, "constant", reached_from, f"(file {path} {state})", path)
        node.warnings = warnings
        node.bindings = []
        listing = split_listing(path)
        if listing is not None and data is not None:
            # the names a glob matched: each one's bytes too (an edit to one moves the flow, and
            # so does adding or removing one: the listing's own bytes)
            directory = listing[0] + "/" if listing[0] else ""
            names = data.decode("utf-8", "surrogateescape").splitlines()
            for name in names:
                child = f"file:{directory}{name}|"
                node.bindings.append((LOADED_FILE.format(directory + name), child))
                if child not in self.nodes:
                    self.nodes[child] = self._file_node(child, reached_from)
            node.warnings = ()  # the listing spells no code: its files' nodes warn for theirs
        return node

    def _partial_units(self, index: _ModuleIndex, name: str, part: str) -> list[Unit]:
        if part == "bindings":  # a flow's name: every statement about it but the flow's own
            own = index.flows[name].unit
            return [u for u in self.binders(index, name) if u.index != own]
        if part == "defined":
            # an engine hook: the statements that bind it or name it (``Codec.decode = f``,
            # ``register(Codec)``), not those tied to it only through what a function they call may
            # change (a worker script's main block calling the ``main()`` that hands it over)
            return [u for u in self.binders(index, name) if name in u.names or name in u.global_writes
                    or u.stars or "module-write" in u.dynamic
                    or any(r == name or r.startswith(name + ".") for r in u.references)]
        return [u for u in index.direct.get(name, ()) if name not in u.names]  # "effects"

    def _units_node(self, key: str, kind: MemberKind, index: _ModuleIndex, name: str | None, units: list[Unit]) -> _Node:
        """A member made of statements: for a name, a statement judged per inner statement
        (``Unit.pieces``, ``effects.split_if``) contributes only the pieces attached to it."""
        s = index.summary
        texts: list[str] = []
        sources: list[str] = []
        refs: set[str] = set()
        parts: list[tuple[int, int, str, tuple[str, ...]]] = []
        for u in units:
            pieces = [(k, p) for k, p in enumerate(u.pieces) if name in p[4]] if name is not None else []
            if pieces:
                texts += [p[2] for _, p in pieces]
                sources += [p[1] for _, p in pieces]
                refs.update(r for _, p in pieces for r in p[3])
                parts += [_piece_part(u, k) for k, _ in pieces]
                continue
            texts.append(_unit_canonical(u, name))
            sources.append(u.source)
            refs.update(u.references)
            parts += _unit_parts(u)
        return _Node(
            key, kind, s.module, "\n".join(texts), s.path,
            units[0].line if units else 0, _joined(sources),
            refs=tuple(sorted(refs)),
            dynamic=tuple(sorted({d for u in units for d in u.dynamic})),
            parts=tuple(parts), name=name,
        )

    def _module_node(self, key: str, module: str) -> _Node:
        index = self.index(module)
        assert index is not None
        s = index.summary
        units = list(s.units)
        refs = {r for u in units for r in u.references}
        refs |= {"~" + t for u in units for _, t in u.aliases}
        refs |= {"~" + t + ".*" for u in units for t in u.stars}
        # every name of the module is reached (a chunk must provide them all)
        refs |= {n for u in units for n in u.names}
        return _Node(
            key, "module", module, "\n".join(_unit_canonical(u, None) for u in units), s.path, 1,
            _joined(u.source for u in units), target=module, refs=tuple(sorted(refs)),
            parts=tuple(part for u in units for part in _unit_parts(u)),
        )

    def _member_node(self, key: str, index: _ModuleIndex, qualname: str, cls: str) -> _Node:
        if qualname in index.flows:
            return self._flow_node(key, index, index.flows[qualname])
        m = index.members[qualname]
        s = index.summary
        if m.kind == "step":
            return _Node(key, "step", s.module, m.canonical, s.path, m.line, "", target=f"{s.module}.{qualname}",
                         refs=m.references if m.canonical else (), members=m.members if m.canonical else (),
                         cls=cls if m.canonical else None)
        return _Node(key, "method", s.module, m.canonical, s.path, m.line, m.source, refs=m.references,
                     members=m.members, cls=cls, dynamic=m.dynamic)

    def _bind(self, bindings: dict[tuple[str, str], None], node: _Node, name: str, keys: list[str],
              maker: Callable[[str], _Node] | None = None) -> None:
        for key in keys:
            if key == node.key:
                continue
            bindings[(name, key)] = None
            if name[0] == "<":
                self._widened_by.setdefault(key, set()).add(name)  # for ``ClosureMember.reason``
            if key not in self.nodes:
                self.nodes[key] = maker(key) if maker is not None else self._make_node(key, node.module)

    def expand(self, node: _Node) -> list[tuple[str, str]]:
        """Resolve what ``node`` uses (once), creating the nodes it reaches."""
        if node.bindings is not None:
            return node.bindings
        self._hashes = None
        outer_reads, self._reads = self._reads, set()
        try:
            self._expand(node)
        finally:
            node.loads = tuple(sorted(self._reads))
            self._reads = outer_reads
        return node.bindings  # type: ignore[return-value]

    def _expand(self, node: _Node) -> None:
        bindings: dict[tuple[str, str], None] = {}
        free: set[str] = set()
        where: _ModuleIndex | None = None
        if node.hook:
            self._bind(bindings, node, MODULE_GETATTR, ["module:" + node.module])
        elif node.kind != "import" and (node.kind != "step" or node.canonical):
            where = self.index(node.module)
            assert where is not None
            for chain in node.refs:
                if chain[0] == ">":
                    # what a statement stores into through a view (``changed_abroad``), and, when
                    # that is a name of another module (``sys.modules["shop.util"].H = CFG``), the
                    # holder of what it stores: what changes it there changes that (breaker7's H4)
                    self._bind(bindings, node, VIEW_STORE, [k for k in self._view_target(where, chain[1:]) if ":" not in k])
                    continue
                if chain[0] == "!":
                    continue  # a module an import loads (followed by ``executed``): not a use
                if chain[0] in "\"?'":
                    self._bind_dynamic(bindings, node, where, chain)
                    continue
                if chain.startswith("^"):
                    # a name-only reference: bound under the chain as spelled (a chunk reads it so)
                    self._bind(bindings, node, chain[1:], self.name_only_keys(where, chain[1:]))
                elif chain.startswith("="):
                    # a lazy import's target with the tail spelled on it: the node's own imports
                    # ("!" refs) and its module's load what they name
                    imports = [r[1:] for r in node.refs if r[0] == "!"]
                    loaded = frozenset(p for r in imports for p in _prefixes(r))
                    # the import it spells: the longest the node makes that the chain starts with
                    target = max((r for r in imports if chain[1:] == r or chain[1:].startswith(r + ".")),
                                 key=len, default=chain[1:].split(".")[0])
                    bound = self._resolve_bound(where, target, chain[1 + len(target):], frozenset(), loaded)
                    self._bind(bindings, node, chain, bound)
                    if self.first_party(chain[1:]) and any(k.startswith("import:") and is_runner(k[len("import:"):])
                                                           for k in bound):
                        # a lazy import of a runner another first-party module re-exports (``_runner_through``)
                        self._bind(bindings, node, COMPUTED.format(""), self.computed_keys(""))
                elif chain.startswith("~"):
                    # an import of a whole module's statements: its target, unless it is a module
                    # (what is used through a module binding is resolved at the use)
                    target = chain[1:]
                    if target.endswith(".*"):
                        keys = ["module:" + target[:-2]] if self.first_party(target[:-2]) and self.index(target[:-2]) \
                            else ["import:" + target]
                    else:
                        keys = [k for k in self.resolve_target(target) if not k.startswith("module:")]
                    self._bind(bindings, node, "import " + target, keys)
                else:
                    keys = self.resolve_chain(where, chain)
                    if not keys:
                        free.add(chain.split(".")[0])  # a builtin (or undefined): ``builtins.len = f`` may patch it
                        # a module binding ``__builtins__`` makes its defs look builtins up there
                        # (``__builtins__ = dict(vars(builtins), len=f)``: breakS's S2)
                        if "__builtins__" in where.direct:
                            keys = self.resolve_chain(where, "__builtins__")
                    self._bind(bindings, node, chain, keys)
                    if self._runner_through(where, chain, keys):
                        self._bind(bindings, node, COMPUTED.format(""), self.computed_keys(""))
            if node.name is not None:
                # what each import among its statements binds the name to (the use resolves the
                # same targets with its tail; listed here too so a chunk can rewrite the import)
                for u in self.binders(where, node.name):
                    for local, target in u.aliases:
                        if local == node.name:
                            keys = [k for k in self.resolve_target(target) if not k.startswith("module:")]
                            self._bind(bindings, node, "=" + target, keys)
                    if u.stars:
                        for target in u.stars:
                            if self.may_export(target, node.name):
                                self._bind(bindings, node, f"={target}.{node.name}",
                                           self._star_keys(u, node.name, node.name, frozenset()))
            if {"module", "module-write"} & set(node.dynamic):
                self._bind(bindings, node, WIDEN_MODULE, ["module:" + node.module])
            if node.kind == "module" and where.summary.is_package:
                # a package used as a value (``operator.attrgetter("m.RATE")(shop)``, ``getattr(shop,
                # name)``, ``h.get(shop)``): its submodules are attributes of it once any code imported
                # them, so every first-party module under it is reached whole (breakS's S5)
                self._bind(bindings, node, PACKAGE_SUBMODULES, self.computed_keys(node.module + "."))
            if node.kind == "flow" and self.engine_hooks is not None:
                # code the engine runs around every workflow (interceptors, converters, codecs)
                self._bind(bindings, node, ENGINE_HOOKS, self.hook_keys())
            if node.flow_name is not None and self._partial_units(where, node.flow_name, "bindings"):
                self._bind(bindings, node, FLOW_BINDINGS, [f"{node.key}#bindings"])
            if node.cls is not None:
                top = node.cls.split(".")[0]
                if {"class", "class-write"} & set(node.dynamic):
                    self._bind(bindings, node, WIDEN_CLASS, [f"{node.module}.{top}"])
                if self._partial_units(where, top, "effects"):
                    self._bind(bindings, node, CLASS_EFFECTS, [f"{node.module}.{top}#effects"])
                names: Iterable[str] = node.members
                if node.kind == "flow" and self._hands_instance(where, node, top):
                    # a class attribute that is handed the instance (a descriptor: breaker3's D4)
                    # or a first-party function that may be: what its code does to it is ``self``
                    # use, by names no one spells here
                    self._bind(bindings, node, HANDS_INSTANCE, [f"{node.module}.{top}"])
                if node.kind == "flow" and node.bases:
                    # the inherited methods run with ``self`` an instance of this class: the names
                    # they use through it are looked up here first (breaker2's C1)
                    inherited, opaque = self.inherited(where, node.bases)
                    if opaque == "read":
                        self._bind(bindings, node, OPAQUE_BASE, [f"{node.module}.{top}"])
                    elif opaque == "hands":
                        self._bind(bindings, node, HANDS_INSTANCE, [f"{node.module}.{top}"])
                    elif opaque == "write":
                        # a base writes to the instance by a computed name (``setattr(self, k, v)``):
                        # that runs the data descriptors of this class, never a plain method
                        prefix = node.cls + "."
                        inherited |= {q[len(prefix):] for q, m in where.members.items()
                                      if q.startswith(prefix) and "." not in q[len(prefix):] and not m.plain}
                    names = sorted({*node.members, *inherited})
                for name in names:
                    qualname = f"{node.cls}.{name}"
                    if qualname not in where.members and qualname not in where.flows:
                        continue  # inherited or dynamic: the class's bases are already in the closure
                    key = f"{node.module}.{qualname}"
                    if self.children and qualname in where.flows:
                        key = f"child:{node.module}|{qualname}"  # DBOS: ``self.other_workflow()``
                    cls = node.cls
                    self._bind(bindings, node, "self." + name, [key],
                               lambda k, q=qualname, c=cls: self._profile_node(k) if k.startswith("child:")
                               else self._member_node(k, where, q, c))
        node.bindings = sorted(bindings)
        node.free = tuple(sorted(free))
        if node.kind != "import" and node.kind != "step":
            node.warnings = tuple(self._sourceless(node, name, key[len("import:"):]) for name, key in node.bindings
                                  if key.startswith("import:") and self._missing_module(key[len("import:"):]))
            node.warnings += self._load_warnings(node, where)

    def _load_warnings(self, node: _Node, where: _ModuleIndex | None) -> tuple[SourceError, ...]:
        """Warnings at each load of a file by path in the node's code whose path is undecidable
        (``static_paths``, L2): the code it runs is not in the closure."""
        s = where.summary if where is not None else None
        if s is None or not s.path_warnings:
            return ()
        units = {p[0] % PIECE_STRIDE for p in node.parts}
        if node.kind == "flow" and node.key.startswith(s.module + "."):
            flow = where.flows.get(node.key[len(s.module) + 1:])
            if flow is not None:
                units.add(flow.unit)
        if node.cls is not None:
            units.update(u.index for u in where.direct.get(node.cls.split(".")[0], ()))
        return tuple(SourceError(s.path, line, column, message, code="path-undecidable")
                     for index, line, column, kind, message in s.path_warnings if kind == "load" and index in units)

    def _search_warnings(self, seeds: frozenset[str]) -> tuple[SourceError, ...]:
        """Warnings at each ``sys.path``/``__path__`` change with an undecidable directory in the
        modules that run for a flow (E9): an import may be served from there unseen."""
        out: list[SourceError] = []
        for module in self.executed(seeds):
            s = self.summary(module)
            for _, line, column, kind, message in s.path_warnings if s is not None else ():
                if kind in ("sys", "pkg"):
                    out.append(SourceError(s.path, line, column, message, code="path-undecidable"))
            sites = [e[2] for e in s.search_paths if e[1] == "site"] if s is not None else []
            records = [(line, column) for _, line, column, kind, _ in s.path_warnings if kind == "site"] if s else []
            for dotted, (line, column) in zip(sites, records):
                for pth, problem in self.site_packages(s, dotted)[3]:
                    out.append(SourceError(s.path, line, column, f"`site.addsitedir` runs `{pth}`, and {problem}: an "
                                           "import found through it is hashed by name only. Put the directory on "
                                           "sys.path from `__file__` yourself, or bump the flow's version= whenever "
                                           "code there changes", code="path-undecidable"))
        return tuple(out)

    def hook_keys(self) -> list[str]:
        """Keys of the project's engine hooks (``frameworks.engine_hooks.find_hooks``), once."""
        if self._hook_keys is None:
            assert self.engine_hooks is not None and self.hook_candidates is not None
            self._hook_keys = find_hooks(self, self.engine_hooks, self.hook_candidates)
        return self._hook_keys

    def inherited(self, where: _ModuleIndex, chains: tuple[str, ...]) -> tuple[set[str], str]:
        """What the first-party classes of an MRO (``chains``: a class's bases and metaclass, in
        ``where``'s module, followed transitively) use through ``self``/``cls``/``type(self)``,
        and "read" when the MRO holds a class whose methods cannot be read (``INERT_BASES`` aside:
        a third-party or builtin class, a computed base) or that reaches the instance by a computed
        name or lets it escape: those may call any member of the subclass (``Mapping.get`` calls
        ``__getitem__``, ``Thread.start`` calls ``run``, pydantic's ``__init__`` the validators,
        ``getattr(self, "on_" + kind)()`` a handler); "write" when one only writes to the instance
        by a computed name (``setattr(self, key, value)``); "" otherwise."""
        names, level, _ = self._inherited(where, chains)
        return set(names), level

    def _inherited(self, where: _ModuleIndex, chains: tuple[str, ...]) -> tuple[frozenset[str], str, frozenset[object]]:
        """``inherited``, and the MROs still being computed that this answer read (a cycle of
        bases): an answer that read one is not final and is not memoised — it stood for less
        than that MRO holds (a later flow asking for the same bases got the short answer)."""
        memo = (where.summary.module, chains)
        found = self._mro.get(memo)
        if found is not None:
            return found[0], found[1], frozenset()
        if memo in self._mro_open:
            return frozenset(), "", frozenset({memo})  # a cycle: the open computation collects the rest
        self._mro_open.add(memo)
        read_open: set[object] = set()
        try:
            names: set[str] = set()
            levels: set[str] = set()
            for chain in chains:
                keys = self.resolve_chain(where, chain) if chain != "?" else ["?"]
                if not keys and chain not in INERT_BASES:
                    levels.add("read")  # a builtin (``dict.__getitem__`` calls ``__missing__``) or undefined
                for key in keys:
                    if key.startswith("import:"):
                        if key[len("import:"):] not in INERT_BASES:
                            levels.add("read")
                        continue
                    module, _, name = key.rpartition(".")
                    index = self.index(module) if ":" not in key and "#" not in key else None
                    if index is None:
                        levels.add("read")  # computed, a module, served by ``__getattr__``: unknown
                        continue
                    for u in self.binders(index, name):
                        if u.kind == "import":
                            continue  # what it imports is among ``keys`` already
                        if name not in u.names and name not in u.global_writes:
                            if "module-write" in u.dynamic:
                                levels.add("read")  # ``globals()[k] = v``: it may bind the base to anything
                            # else a statement that changes the class (``Base.x = 1``): hashed with
                            # it, no other base (a function installed so as a method is a limit)
                            continue
                        names.update(u.self_members)
                        levels.add(u.self_dynamic)
                        if u.kind == "class" and self._holds_descriptor(index, u.references):
                            levels.add("hands")  # ``val = D()`` in a base: D's methods are handed the instance
                        if u.kind == "class":
                            more = u.bases
                        else:
                            # an alias or a factory (``Base = A``, ``Base = make_base()``): any
                            # class it names may be the base
                            more = tuple(r for r in u.references if r[0] not in "=!\"'?^~")
                        inner, level, still_open = self._inherited(index, more)
                        names |= inner
                        levels.add(level)
                        read_open |= still_open
        finally:
            self._mro_open.discard(memo)
        read_open.discard(memo)
        result = (frozenset(names), next((level for level in ("read", "hands", "write") if level in levels), ""))
        if not read_open:
            self._mro[memo] = result
        return result[0], result[1], frozenset(read_open)

    def _hands_instance(self, where: _ModuleIndex, flow: _Node, top: str) -> bool:
        """Whether a method flow's class may hand its instance to code whose use of it no
        ``self.`` names (breaker3's D4): what its class statement evaluates into the class
        (``FlowSite.values``) uses a first-party descriptor class (``_descriptor``: ``val = D()`` with
        ``D.__get__(self, obj, owner)`` calling ``obj.hook()``; ``__set_name__`` is handed the
        class) or a first-party function: one installed as a method or wrapped into one
        (``property(compute)``, ``functools.cached_property(compute)``, a decorator of a method
        or of the class, ``process = _process``) is called with the instance, and a factory
        (``val = make()``) may return any of those. Undecidable without running the class body:
        widened to the whole class. A third-party descriptor of no first-party code (``val =
        dataclasses.field(...)``) and a value of a first-party class that is no descriptor
        (``DEFAULTS = Settings()``, an enum member) are not. (Module statements that change the
        class, ``Checkout.val = D()``, ``register(Checkout)``, reach it whole already: its
        ``#effects`` member uses its name.)"""
        for chain in flow.values:
            if chain == NESTED_DESCRIPTOR:
                return True
            if chain[0] in "!\"?'^~>":
                continue
            for key in self.resolve_target(chain[1:]) if chain[0] == "=" else self.resolve_chain(where, chain):
                module, _, name = key.rpartition(".")
                index = self.index(module) if ":" not in key and "#" not in key else None
                if index is None:
                    continue
                if any(u.kind == "function" for u in self.binders(index, name)) or self._descriptor(key):
                    return True
        return False

    def _holds_descriptor(self, where: _ModuleIndex, chains: Iterable[str]) -> bool:
        """Whether any of ``chains`` (resolved in ``where``) may be a first-party descriptor."""
        return any(self._descriptor(key) for chain in chains if chain[0] not in "=!\"?'^~>"
                   for key in self.resolve_chain(where, chain))

    def _descriptor(self, key: str) -> bool:
        """Whether the first-party member ``key`` may be, build or return an instance of a
        descriptor class: a class defining ``__get__``/``__set__``/``__delete__``/``__set_name__``
        (``Unit.descriptor``) or with such a first-party base (a computed base: unknown, so yes);
        a value or a function whose code uses one (a factory), transitively. A search over what
        ``key`` reaches, memoised for ``key`` only: an answer for a member met on the way is not
        final while a cycle through it is open (the MRO memo's lesson)."""
        found = self._descriptors.get(key)
        if found is not None:
            return found
        seen = {key}
        todo = [key]
        result = False
        while todo and not result:
            k = todo.pop()
            known = self._descriptors.get(k)
            if known is not None:
                result = known
                continue  # a final answer: what it reaches was searched
            module, _, name = k.rpartition(".")
            index = self.index(module) if ":" not in k and "#" not in k else None
            if index is None:
                continue
            for u in self.binders(index, name):
                if u.kind in ("import", "step"):
                    continue  # what it imports is its own key; a step's body is not run here
                if u.kind == "class" and name in u.names:
                    if u.descriptor or "?" in u.bases or any(self._foreign_descriptor(index, b) for b in u.bases):
                        result = True
                        break
                    chains: Iterable[str] = u.bases
                else:
                    chains = [r for r in u.references if r.split(".")[0] != name]
                for chain in chains:
                    if chain[0] in "=!\"?'^~>":
                        continue
                    for nxt in self.resolve_chain(index, chain):
                        if nxt not in seen:
                            seen.add(nxt)
                            todo.append(nxt)
        self._descriptors[key] = result
        return result

    def _foreign_descriptor(self, where: _ModuleIndex, base: str) -> bool:
        """Whether a class's base ``base`` (a chain in ``where``) may be a descriptor class whose
        code is not read: a builtin one (``property``, ``classmethod``, ``staticmethod``), or a
        third-party class (its ``__get__`` may call a method of the first-party subclass with
        the instance: a template method) other than ``INERT_BASES`` and ``PLAIN_BASES``."""
        keys = self.resolve_chain(where, base)
        if not keys:
            return base in ("property", "classmethod", "staticmethod")
        return any(k.startswith("import:") and not self._first_party_key(k)
                   and k[len("import:"):] not in INERT_BASES and k[len("import:"):] not in PLAIN_BASES for k in keys)

    def _missing_module(self, target: str) -> str | None:
        """The first-party module ``target`` names that has no source in the tree (B12): a
        submodule of a package of the tree that no file and no binding of the package provides
        (``sys.modules["shop.alias"] = real``, a compiled extension, a generated module). None
        for a third-party target and for a missing attribute of a plain module (an
        ``ImportError`` on both sides, no module to read). A dunder read of a package
        (``shop.__file__``, ``shop.__path__``: P3) is the attribute the import system sets on
        every module, not a submodule."""
        found = self._missing.get(target)
        if found is None:
            found = ""
            parts = target.split(".")
            if self.first_party(parts[0]) and self.index(parts[0]) is not None:
                for i in range(len(parts) - 1, 0, -1):
                    module = ".".join(parts[:i])
                    index = self.index(module) if self.first_party(module) else None
                    if index is not None:
                        if index.summary.is_package and not _is_dunder(parts[i]):
                            found = ".".join(parts[: i + 1])
                        break
            self._missing[target] = found
        return found or None

    def _sourceless(self, node: _Node, name: str, target: str) -> SourceError:
        """A warning at the import that binds what ``name`` (a chain the code uses) reaches."""
        index = self.index(node.module)
        assert index is not None
        root = name.lstrip("=").split(".")[0]
        missing = self._missing_module(target) or target
        line = node.line
        if name.startswith("="):
            line = _import_line(node, missing.rsplit(".", 1)[-1])
        else:
            for u in self.binders(index, root):
                if any(local == root for local, _ in u.aliases):
                    line = u.line
                    break
        return SourceError(
            index.summary.path, line, 1 if line else 0,
            f"`{missing}` is imported as first-party code but has no source file in the project (made at run "
            "time through sys.modules, a compiled extension or a generated module?): the fingerprint hashes it "
            f"by name only, so an edit to the code behind it keeps the hash of the flows that use `{target}`. "
            "Import the module that holds the source instead, or bump the flow's version= whenever that code "
            "changes", code="import-sourceless")

    def warnings_of(self, keys: list[str]) -> tuple[SourceError, ...]:
        """The warnings of the reached nodes, each once, in order."""
        return tuple(dict.fromkeys(w for key in keys for w in self.nodes[key].warnings))

    # -- modules named by strings (``scopes``: ``"<name>``, ``?<prefix>``, ``?@``/``?%<chain>``) -----
    def _bind_dynamic(self, bindings: dict[tuple[str, str], None], node: _Node, where: _ModuleIndex, ref: str) -> None:
        if ref[0] == "'":
            return  # ``'NAME=value``: a string constant's binding, read by ``constant_values``
        if ref.startswith(FILE_REF):
            # a file loaded by path: its bytes (``_file_node``: what a chunk checks before it runs,
            # the code being read from the file next to the live module), and the first-party
            # module it is, reached whole (as a string naming it would be: what it imports)
            path, _, dotted = ref[len(FILE_REF):].rpartition("|")
            keys = self.named_keys(dotted) if dotted and self.first_party(dotted) and self.index(dotted) else []
            self._bind(bindings, node, LOADED_FILE.format(path), [*keys, "file:" + path + ("|" + dotted if keys else "")])
            return
        if ref[0] == '"':
            self._bind(bindings, node, NAMED.format(ref[1:]), self.named_keys(ref[1:]))
            return
        rest = ref[1:]
        if rest[:1] in ("@", "%"):
            values = self.constant_values(where, rest[1:])
            if values is None:
                self._bind(bindings, node, COMPUTED.format(""), self.computed_keys(""))  # not certain
            elif rest[0] == "@":
                for value in values:
                    if value.startswith("."):
                        self._bind(bindings, node, COMPUTED.format(""), self.computed_keys(""))
                    else:
                        self._bind(bindings, node, CONSTANT.format(rest[1:]), self.named_keys(value))
            # ``%``: a code string constant; its own imports are references of its statement
            return
        self._bind(bindings, node, COMPUTED.format(rest), self.computed_keys(rest))

    def named_keys(self, name: str) -> list[str]:
        """What a string naming a dotted path (``shop.pricing``, ``shop.pricing:discount``)
        reaches when it names first-party code: the module (all of it) or the attribute, as an
        import of it would ([]: it names nothing first-party)."""
        dotted = name.replace(":", ".")
        if not self.first_party(dotted):
            return []
        return [k for k in self.resolve_target(dotted) if not k.startswith("import:")]

    def computed_keys(self, prefix: str) -> list[str]:
        """Every first-party module (all of it) whose dotted name starts with ``prefix``: what a
        module name computed at run time may name (``importlib.import_module("shop." + name)``)."""
        if self._listing is None:
            listed = self.modules() if self.modules is not None else ()
            self._listing = sorted({*listed, *self.summaries, *(m for m, s in self._loaded.items() if s is not None)})
        return [f"module:{m}" for m in self._listing
                if m.startswith(prefix) and self.first_party(m) and self.index(m) is not None]

    def constant_values(self, where: _ModuleIndex, chain: str) -> list[str] | None:
        """The string values a global chain certainly has: every statement binding what it
        resolves to is a plain string constant (``MOD = "shop.pricing"``); None when one is not
        (it is computed, rebound, star-imported, or written through ``globals()``)."""
        keys = self.resolve_chain(where, chain)
        if not keys:
            return None
        values: list[str] = []
        for key in keys:
            if key.startswith(("import:", "module:", "hook:", "child:", "member:", "ref:", "abroad:", ENGINE_VALUES)) \
                    or "#" in key:
                return None
            module, _, name = key.rpartition(".")
            index = self.index(module)
            if index is None or name in index.flows:
                return None
            units = [u for u in self.binders(index, name)
                     if name in u.names or name in u.global_writes or u.stars or "module-write" in u.dynamic]
            mark = f"'{name}="
            for u in units:
                found = [r[len(mark):] for r in u.references if r.startswith(mark)]
                if not found:
                    return None
                values += found
            if not units:
                return None
        return values

    def reachable(self, root: _Node) -> list[str]:
        """Every key the node reaches; for a flow, with the statements of the modules its code
        imports that change what it reaches (``_imported_effects``), to a fixpoint."""
        known = self._reach.get(root.key)
        if known is not None:
            return known[0]
        walk = _Walk(self, root)
        walk.run()
        if root.kind == "flow":
            while True:
                added, dropped = self._imported_effects(root, walk)
                loads = self._submodule_loads(root, walk)
                if loads is not None:
                    added.append(loads[0])
                    if loads[1] is not None:
                        dropped.append(loads[1])
                if not added:
                    break
                # a flow reached by another flow reaches more now: so does the other one
                for key in [k for k, (_, keys) in self._reach.items() if root.key in keys]:
                    del self._reach[key]
                walk.replace(dropped, added)
                walk.run()
            adders = self._site_keys(frozenset(walk.seeds))
            site = [k for k in adders if k not in walk.seen]
            if site:  # the ``.pth`` files ``site.addsitedir`` runs for the flow's modules
                for key in site:
                    if key not in self.nodes:
                        self.nodes[key] = self._file_node(key, adders[key]) if key.startswith("file:") else \
                            self._site_node(key)
                root.bindings = sorted({*(root.bindings or ()), *((LOADED_FILE.format(k[5:-1]) if k.startswith("file:")
                                                                   else SITE_DIRS, k) for k in site)})
                self._hashes = None
                walk.replace([], site)
                walk.run()
            extra = self._search_warnings(frozenset(walk.seeds)) + self._unloaded_warnings(walk.order, frozenset(walk.seeds))
            if extra:
                root.warnings = tuple(dict.fromkeys((*root.warnings, *extra)))
        self._reach[root.key] = (walk.order, set(walk.order))
        return walk.order

    # -- import-time effects on other modules ---------------------------------------------------
    def abroad(self, index: _ModuleIndex) -> list[Unit]:
        """The statements of a module that change the objects of another module: those that
        belong (``effects``) to a name the module binds by an import (``@register("a") def a``
        with ``register`` from ``shop.reg``; ``cfg.LIMIT = 5`` with ``from shop import cfg``)."""
        if index.abroad is None:
            index.abroad = self.memo.abroad(index.summary)
        return index.abroad

    def _runner_through(self, where: _ModuleIndex, chain: str, keys: Iterable[str]) -> bool:
        """Whether ``chain`` reaches a runner of text (``runner_names.is_runner``) through a name
        another first-party module binds (``from shop.tools import timeit``, ``shop.tools`` holding
        ``from timeit import timeit``; ``tools.code.InteractiveConsole``): ``code_runners`` judges a
        runner where its module's own imports name it, and cannot see it here, so the use counts
        as reaching any first-party code, and, at load, as relevant to every flow (fixX2)."""
        if not any(k.startswith("import:") and is_runner(k[len("import:"):]) for k in keys):
            return False
        target = dict(where.summary.imports).get(chain.split(".")[0])
        return target is not None and self.first_party(target)

    def _has_abroad(self, summary: ModuleSummary) -> bool:
        return bool(self.memo.abroad(summary))

    def _own_view_stores(self, index: _ModuleIndex, unit: Unit) -> set[str]:
        """Keys of what the module's own functions a statement calls store into other modules
        through a view (``_own_view_targets``, breaker3's D5)."""
        keys: set[str] = set()
        for target in _own_view_targets(self.memo.load_runs.index(index.summary), unit):
            keys |= self._view_target(index, target)
        return keys

    def changed_abroad(self, index: _ModuleIndex, unit: Unit) -> frozenset[str]:
        """Keys of what a statement abroad changes: the members its chains through imported names
        resolve to, and what those functions and classes change when called."""
        memo = (index.summary.module, unit.index)
        found = self._targets.get(memo)
        if found is None:
            imported = self.memo.imported(index.summary)
            keys: set[str] = set()
            chains = [c for c in unit.references if c.split(".")[0] in imported and c.split(".")[0] in unit.attached]
            # an imported name it changes without spelling it (``setup()`` whose body sets
            # ``decimal.getcontext().prec``): what the name is bound to
            unspelled = sorted(imported & set(unit.attached) - {c.split(".")[0] for c in chains})
            chains += unspelled
            keys |= self._view_stores(index, unit)
            if self.memo.view_storing(index.summary):
                keys |= self._own_view_stores(index, unit)
            runs = self._runs_effects(index, unit)
            for chain in chains:
                if self._runner_through(index, chain, self.resolve_chain(index, chain)):
                    keys.add(PROCESS)  # a runner of text re-exported by another module, called here
                for key in self.resolve_chain(index, chain):
                    module, _, name = key.rpartition(".")
                    if module == index.summary.module:
                        continue  # its own name for the import: not another module's object
                    if chain in unspelled and key.startswith("import:") and any(k.startswith(key + ".") for k in runs):
                        # a third-party module a def it runs changes: what of it the def's code
                        # names (``builtins.len = f`` in ``boot()`` is ``builtins.len``, not all of
                        # ``builtins``: B3's per-name rule)
                        continue
                    # (a ``module:`` key: the module as a whole, handed on or written by a computed
                    # name, ``setattr(h, name, v)``: relevant to every flow reaching anything of it)
                    keys.add(self._absent_attribute(key))
                    keys |= _star_named(key, chain)
                    # what calling it changes, in its module and the modules its callees live in
                    # (C11: ``setup()`` whose body fills ``shop.cfg.CFG``), and what it holds
                    keys |= self.call_effects(key) | self._held(key)
            keys |= runs
            # a third-party module's process state (``decimal.getcontext().prec = 3``,
            # ``warnings.simplefilter(...)``, ``os.environ.setdefault(...)``) is read through any
            # name of it: the top-level package stands for all of it (C6). Only for a statement
            # that binds nothing: it exists for its effect. One that binds a name builds a value
            # (``agent = create_agent()``, ``loop = asyncio.new_event_loop()``); the third-party
            # names its calls are given count as changed only by name (measured: dbos-demo-apps'
            # refund flow otherwise took in a whole agent graph through the langchain decorator
            # it shares a package with, temporal's worker scripts their main blocks via asyncio)
            if not unit.names:
                keys |= {_package_key(k) for k in keys if k.startswith("import:") and not self._first_party_key(k)
                         and _package_state(k)}
            # process-wide state a flow reads without naming it (``codecs.register(search)``,
            # ``locale.setlocale(...)``, ``sys.setrecursionlimit(...)``): relevant to every flow
            # the module runs for (C6; ``effects.PROCESS_STATE``)
            if any(k.startswith("import:") and changes_process_state(k[len("import:"):]) for k in keys):
                keys.add(PROCESS)
            if _runs_unknown_code(unit):
                # code the compiler cannot read run as the module loads (``exec`` read as a value,
                # an import by a computed name, a file by an undecidable path): it may change
                # anything, so it is relevant to every flow the module runs for (fixX2)
                keys.add(PROCESS)
            found = self._targets[memo] = frozenset(keys)
        return found

    def _held(self, key: str) -> set[str]:
        """Keys of what the def or class ``key`` holds (``effects.call_refs``' ``$`` chains:
        ``class K: c = CFG``, ``self.c = CFG``, ``def get(): return CFG``), which a statement of
        another module changing it may change through it (``K.c["a"] = 5``, ``get()["a"] = 5``:
        F6, L4). Widening, on purpose: any change of it counts, not only one through a part
        (the statement's own facts do not say which; ``effects._Holders`` tells them apart in
        the module)."""
        if ":" in key or "#" in key:
            return set()
        module, _, name = key.rpartition(".")
        index = self.index(module)
        out: set[str] = set()
        for u in index.direct.get(name, ()) if index is not None else ():
            if u.kind in ("function", "class"):
                for chain in u.call_refs:
                    if chain[0] == "$":  # (a builtin or third-party object held: no first-party state)
                        out.update(k for k in map(self._absent_attribute, self.resolve_chain(index, chain[1:]))
                                   if not k.startswith("import:") or self._first_party_key(k))
        return out

    def _runs_effects(self, index: _ModuleIndex, unit: Unit) -> set[str]:
        """Keys of what the code a statement may run beyond the callees it spells changes
        (``Unit.runs``: a def of its own module it calls, the function values flowing into a call
        it cannot resolve, D6/D7): for first-party code, what calling it changes
        (``call_effects``; ``()<chain>``: with what its result may be); for a third-party
        function, whether it changes process-wide state, by the qualified name the chain
        resolves to (``reg = codecs.register; reg(f)`` is ``codecs.register``)."""
        keys: set[str] = set()
        module = index.summary.module
        for chain in unit.runs:
            if chain[:1] == SUBSCRIPTED:
                # a name of another module subscripted at load (``L[int]``, breaker7's R1): a
                # class's ``__class_getitem__`` runs (what calling the class changes: widening)
                for key in self.resolve_chain(index, chain[1:]):
                    if self._class_getitem(key.removeprefix("import:"), set()):
                        keys |= self.call_effects(key.removeprefix("import:"))
                    # an instance of a class whose code defines operators (``OBJ[1]``, ``OBJ.p``
                    # after ``from shop.o import OBJ``, breakS's S7; ``operator_runs``): what
                    # calling that class changes (widening: every method of it)
                    for made in self._operator_classes(key.removeprefix("import:"), set()):
                        keys |= self.call_effects(made)
                continue
            values = chain.startswith("()")
            chain = chain.removeprefix("()")
            for key in self.resolve_chain(index, chain):
                key = self._absent_attribute(key)
                if key.startswith("import:") and not self._first_party_key(key):
                    keys.update(k for k in (key, *_star_named(key, chain)) if changes_process_state(k[len("import:"):]))
                    continue
                found = self.call_effects(key, values=values)
                if not values and key.rpartition(".")[0] == module:
                    # a def of the module, called: what it changes in the module, and the
                    # third-party names it stores through or hands on, are ``effects.attachments``'
                    # part already (by their roots); what it changes elsewhere through code that
                    # rule does not follow is not: process-wide state and a builtin by the name
                    # its code spells (``def boot(): codecs.register(search)``, D7;
                    # ``builtins.len = f``), first-party code a call it cannot resolve runs
                    # (``def boot(): HOOKS["s"]()``)
                    found = frozenset(k for k in found if _runs_key(k, module) or (
                        k.startswith("import:") and self._first_party_key(k)))
                keys |= found
        return keys

    def _operator_classes(self, key: str, seen: set[str]) -> set[str]:
        """Keys of the first-party classes whose code an operator on the value ``key`` may run
        (``operator_runs``): for a value bound by a statement that is no def or class, each
        class its binding statements reference (``OBJ = L()``; through an alias or a re-export
        too) whose code, or a first-party base's, defines an operator dunder, a property or a
        decorated method (``operator_runs.defines_operators``); for a def (a factory the
        statement called: ``OBJ = make()``), each such class its code names. Nothing for a class
        or a module (their operators are their metaclass's, ``_class_getitem``'s part, or a
        builtin's). A visited set ends cycles."""
        if key in seen:
            return set()
        seen.add(key)
        module, _, name = key.rpartition(".")
        where = self.index(module)
        if where is None:
            return set()
        out: set[str] = set()
        for u in where.direct.get(name, ()):
            if u.kind in ("class", "step", "import"):
                continue
            # (a def: what it returns may be an instance of a class its code names: ``make()``)
            for ref in u.references:
                if not all(part.isidentifier() for part in ref.split(".")):
                    continue
                for k in self.resolve_chain(where, ref):
                    k = k.removeprefix("import:")
                    if self._defines_operators(k, set()):
                        out.add(k)
                    elif k != key and u.kind != "function":
                        out |= self._operator_classes(k, seen)
        return out

    def _defines_operators(self, key: str, seen: set[str]) -> bool:
        """Whether ``key`` is a first-party class whose code, or a first-party base's, defines
        what an operator on its instance runs (``operator_runs.defines_operators``)."""
        return self._class_code_has(key, defines_operators, seen)

    def _class_getitem(self, key: str, seen: set[str]) -> bool:
        """Whether ``key`` is a first-party class whose code, or a first-party base's, defines
        ``__class_getitem__`` (``subscript_runs``: what ``L[int]`` runs)."""
        return self._class_code_has(key, lambda source: "__class_getitem__" in source, seen)

    def _class_code_has(self, key: str, test: Callable[[str], bool], seen: set[str]) -> bool:
        """Whether ``test`` holds for the source of the first-party class ``key`` or of a
        first-party base of it, followed through the bases (a visited set ends cycles)."""
        if key in seen:
            return False
        seen.add(key)
        module, _, name = key.rpartition(".")
        where = self.index(module)
        if where is None:
            return False
        for u in where.direct.get(name, ()):
            if u.kind != "class":
                continue
            if test(u.source):
                return True
            if any(self._class_code_has(k.removeprefix("import:"), test, seen) for b in u.bases
                   for k in self.resolve_chain(where, b)):
                return True
        return False

    def call_effects(self, key: str, *, values: bool = False) -> frozenset[str]:
        """Keys of what calling the member ``key`` can change (breaker2's C11): what its code
        stores through, passes on, calls a method on or calls (``effects.call_refs``), resolved in
        its own module, and the same for every first-party callee among those, across modules,
        transitively (a walk over a visited set: recursion ends). A third-party name among them
        stands for its package's state too (``package:`` keys, as in ``changed_abroad``). A value
        that is no def or class (``warm = partial(helper, 3)``, ``setup = make()``), and a module
        handed on (``init(st)``, ``getattr(st, name)()``), widen: the value itself counts as
        changed and everything its binding statements use (every function of the module) is a
        callee. ``values``: what the call returns is called too (``make()()``, D6): any function
        a reached function's code names may be that result, so every chain a function uses is a
        callee (transitively; widening, used only for a module statement's call it cannot
        resolve)."""
        memo = (key, values)
        found = self._effects.get(memo)
        if found is None:
            out: set[str] = set()
            seen: set[str] = set()
            todo = [key]
            while todo:
                k = todo.pop()
                if k in seen:
                    continue
                seen.add(k)
                changed, callees = self._call_step(k, values)
                out |= changed
                todo += callees
            found = self._effects[memo] = frozenset(out)
        return found

    def _call_step(self, key: str, values: bool = False) -> tuple[set[str], list[str]]:
        """(what calling ``key`` changes itself, the first-party members it may call in turn)."""
        if key.startswith("module:"):
            index = self.index(key[len("module:"):])
            if index is None:
                return set(), []
            module = index.summary.module
            return set(), [f"{module}.{name}" for name, units in index.direct.items()
                           if any(u.call_refs or u.kind not in ("import", "function", "class") for u in units)]
        if key.startswith(("import:", "hook:", "child:", "member:", "ref:", "abroad:", "package:", ENGINE_VALUES)) \
                or "#" in key:
            return set(), []
        module, _, name = key.rpartition(".")
        index = self.index(module)
        if index is None:
            return set(), []
        changed: set[str] = set()
        callees: list[str] = []
        for u in index.direct.get(name, ()):
            if u.kind == "import":
                continue  # what it imports is its own key (``resolve_chain`` returns both)
            if u.kind in ("function", "class"):
                chains: Iterable[str] = u.call_refs
                if _unknown_code(u):
                    changed.add(PROCESS)  # it runs code the compiler cannot read: it may change anything
                if values:  # what it returns may be any function its code names (``call_effects``)
                    chains = [*chains, *("+" + c for c in u.references if c[0] not in "!\"?'^~=>")]
                if {"module", "module-write"} & set(u.dynamic):
                    # it reaches its module's namespace by a computed name (``globals()["CFG"]
                    # ["a"] = 5``): any name of the module, and what each is imported from
                    chains = [*chains, *sorted(index.direct)]
            else:
                # a value built by a statement, or a statement changing it: calling it runs
                # whatever that built (a step: its body is not analysed)
                changed.add(key)
                chains = ["+" + c for c in u.references if c[0] not in "!\"?'^~="]
                chains += [c for c in u.references if c[0] == "="]
            for chain in chains:
                if chain[0] == "$":  # what it holds: changed through it abroad only (``_held``)
                    continue
                if chain[0] == ">":  # a store into another module through a view (D5)
                    changed |= self._view_target(index, chain[1:])
                    continue
                if chain[0] == "*":  # a third-party call: only process-wide state counts (C6)
                    changed.update(k for k in self.resolve_chain(index, chain[1:])
                                   if k.startswith("import:") and changes_process_state(k[len("import:"):]))
                    continue
                called = chain[0] == "+"  # a callee (``effects.call_refs``), or what a value was built from
                keys = self.resolve_target(chain[1:]) if chain[0] == "=" else \
                    self.resolve_chain(index, chain[1:] if called else chain)
                if (self.first_party(chain[1:]) if chain[0] == "=" else self._runner_through(
                        index, chain[1:] if called else chain, keys)) and any(
                        k.startswith("import:") and is_runner(k[len("import:"):]) for k in keys):
                    changed.add(PROCESS)  # a runner another module re-exports: any code may run (fixX2)
                for k in keys:
                    if k == key:
                        changed.add(k)  # its own name: the object keeps state (``effects.call_refs``)
                        continue
                    k = self._absent_attribute(k)
                    if k.startswith("import:") and not self._first_party_key(k):
                        if called:  # a third-party call: only process-wide state counts (C6)
                            if changes_process_state(k[len("import:"):]):
                                changed.add(k)
                        else:  # stored through or handed on: that package's state (``package:`` keys)
                            # (a builtin by name only: ``builtins.len = f`` in ``boot()`` is
                            # no change of every flow that uses some builtin, B3)
                            changed |= {k, _package_key(k)} if _package_state(k) else {k}
                        continue
                    if not (called and self._plain_callee(k)) or self._flow_class(k):
                        # calling a plain def or class changes what its code does, not itself; but
                        # calling a class holding a method flow builds the instance it may run on
                        # (C14 through a first-party factory of another module: breaker3's D8)
                        changed.add(k)
                    if not k.startswith(("import:", "module:")):
                        callees.append(k)
        return changed, callees

    def _plain_callee(self, key: str) -> bool:
        """Whether ``key`` names a module-level function or class that only ``def``/``class``
        statements bind and change, no def decorated: a call runs its code, whose effects are
        followed, but does not change the object itself (as ``effects``' own rule:
        ``REGISTRY = Registry()`` is no part of ``Registry``)."""
        if ":" in key or "#" in key:
            return False
        module, _, name = key.rpartition(".")
        index = self.index(module)
        units = index.direct.get(name, ()) if index is not None else ()
        return bool(units) and all(u.kind in ("function", "class") and name in u.names and name not in u.call_refs
                                   for u in units)

    def _flow_class(self, key: str) -> bool:
        """Whether ``key`` names a module-level class that holds a method flow."""
        module, _, name = key.rpartition(".")
        index = self.index(module) if ":" not in key and "#" not in key else None
        return index is not None and any(f.class_qualname is not None and f.class_qualname.split(".")[0] == name
                                         for f in index.flows.values())

    def _first_party_key(self, key: str) -> bool:
        """Whether an ``import:`` key names something under a first-party package of the tree (a
        module with no source, an attribute no statement binds): no third-party package state."""
        top = key[len("import:"):].split(".")[0]
        return self.first_party(top) and self.index(top) is not None

    def _absent_attribute(self, key: str) -> str:
        """``shop.h.EXTRA`` for ``import:shop.h.EXTRA``, the attribute of a first-party module no
        statement of it binds (``h.EXTRA = 1`` abroad creates it; C22): the name member key a
        read of it in ``shop.h`` is compared with (``_imported_effects``). Other keys unchanged."""
        if not key.startswith("import:"):
            return key
        parts = key[len("import:"):].split(".")
        for i in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:i])
            if self.first_party(module) and self.index(module) is not None:
                return f"{module}.{parts[i]}"
        return key

    def _view_stores(self, index: _ModuleIndex, unit: Unit) -> set[str]:
        """Keys of what a statement stores into through a namespace view (``scopes``' ``>``
        references, breaker2's C13, breaker3's D5; ``_view_target``)."""
        keys: set[str] = set()
        for ref in unit.references:
            if ref[0] == ">":
                keys |= self._view_target(index, ref[1:])
        return keys

    def _view_target(self, index: _ModuleIndex, target: str) -> set[str]:
        """Keys of what a store into ``target`` (a ``>`` reference without its mark) in ``index``'s
        module changes: ``sys.modules["shop.svc"].go = f`` changes ``shop.svc.go``,
        ``sys.modules["shop.svc"] = m`` the module ``shop.svc`` (all of it), ``__builtins__["len"]
        = f`` the builtin ``len``; an attribute the module does not bind is one more name of
        all of it (it creates a global its code may read); ``.`` (``sys.modules[__name__] =
        obj``) its own module; ``%<chain>`` the namespace of the module defining what a global
        chain names (``sys.modules[helper.__module__].RATE``); ``?@<chain>`` the modules a
        constant's values name (any, when it is not certain); ``?<prefix>`` every first-party
        module a computed name may name."""
        keys: set[str] = set()
        if target == ".":
            keys.add("module:" + index.summary.module)
        elif target.startswith("%"):
            for key in self.resolve_chain(index, target[1:]):
                keys.add(key)
                if key.startswith("import:"):
                    keys.add(self._absent_attribute(key))
        elif target.startswith("?@"):
            values = self.constant_values(index, target[2:])
            if values is None or any(v.startswith(".") for v in values):
                keys.update(self.computed_keys(""))
            else:
                keys.update("module:" + v for v in values if self.first_party(v) and self.index(v) is not None)
        elif target.startswith("?"):
            keys.update(self.computed_keys(target[1:]))
        else:
            for key in self.resolve_target(target):
                keys.add(key)
                if key.startswith("import:"):
                    owner = target.rpartition(".")[0]
                    if owner and self.first_party(owner) and self.index(owner) is not None:
                        keys.add("module:" + owner)
        return keys

    def executed(self, seeds: frozenset[str]) -> list[str]:
        """First-party modules that run for a flow's code, from ``seeds`` (its module, the modules
        of what it reaches, the modules its lazy imports name): those and every module they import
        at module level (and the packages above each), transitively."""
        frozen = seeds
        found = self._executed.get(frozen)
        if found is None:
            seen: set[str] = set()
            todo = [m for dotted in sorted(seeds) for m in self._modules_of(dotted)]
            while todo:
                module = todo.pop()
                if module not in seen:
                    seen.add(module)
                    # a seed's imports by the build's answers (a flow module is seldom another's import)
                    for imported in self._imports_of(module):
                        if imported not in seen:
                            seen |= self._reach_of(imported)
            found = self._executed[frozen] = sorted(seen)
        return found

    def _reach_of(self, start: str) -> frozenset[str]:
        """``start`` and every first-party module it imports at module level, transitively.

        Once per build for graphs that agree on what is first-party (``_shares_reach``): the 120
        flow modules of the build benchmark each walked the imports of the same ~55 modules. A
        graph served the build's answer still reads, through its own ``summary`` (its loader
        records what the flow module depends on; an unreadable module is its error), every
        module the answer was computed from, and takes the answer only if each reads as the
        same summary object (a tree state of another ``collect`` reads new objects)."""
        shared = self._shares_reach()
        if shared:
            hit = self.memo.reach(start)
            if hit is not None:
                runs, read = hit
                summary, loaded = self.summary, self._loaded
                if all((loaded[name] if name in loaded else summary(name)) is was for name, was in read):
                    return runs
        seen: set[str] = set()
        order: list[str] = []
        todo = [start]
        while todo:
            module = todo.pop()
            if module not in seen:
                seen.add(module)
                order.append(module)
                todo += self._imports_of(module)
        runs = frozenset(seen)
        if shared:
            # what the walk read: each module's summary, and each first-party module its imports
            # may run (``_imports_of``), in the walk's order
            read: dict[str, ModuleSummary | None] = {}
            for module in order:
                read.setdefault(module, self.summary(module))
                summary = self.summary(module)
                for name in self.memo.run_prefixes(summary) if summary is not None else ():
                    if name not in read and self.first_party(name):
                        read[name] = self.summary(name)
                for name in self._imports_read.get(module, ()):  # what ``load_runs`` looked up
                    if name not in read:
                        read[name] = self._run_lookup(name)
            self.memo.remember_reach(start, runs, tuple(read.items()))
        return runs

    def _shares_reach(self) -> bool:
        """Whether this graph decides first-party-ness as every other graph of its build does
        (by the configuration alone, or every module with a loader), so that the build's answers
        of ``_reach_of`` are this graph's too."""
        shares = self._shared_reach
        if shares is None:
            config = self.config
            if self.loader is None or not self.memo.same_config(config):
                shares = False
            elif config is not None and config.packages:
                shares = all(config.is_first_party(m) for m in self.summaries)
            else:
                shares = True
            self._shared_reach = shares
        return shares

    def _modules_of(self, dotted: str) -> list[str]:
        """The first-party modules an import of ``dotted`` runs (``a``, ``a.b``, ``a.b.c``)."""
        found = self._runs.get(dotted)
        if found is None:
            parts = dotted.split(".")
            found = [m for i in range(1, len(parts) + 1)
                     if self.first_party(m := ".".join(parts[:i])) and self.summary(m) is not None]
            self._runs[dotted] = found
        return found

    def _imports_of(self, module: str) -> list[str]:
        """The first-party modules ``module``'s statements import as it runs: its imports at module
        level and what the code of its module they run imports (``ModuleSummary.runs``), and what
        the code of other modules they run imports (``load_runs``, F12: ``from shop.util import
        load`` then ``load()``, where ``def load(): import shop.x``)."""
        found = self._imports.get(module)
        if found is None:
            summary = self.summary(module)
            prefixes: Iterable[str] = self.memo.run_prefixes(summary) if summary is not None else ()
            if summary is not None and any(u.runs or u.attached for u in summary.units):
                extra, read = self.memo.load_runs.foreign(summary, self._run_lookup)
                if extra:
                    prefixes = dict.fromkeys([*prefixes, *(p for m in extra for p in _prefixes(m))])
                if read:
                    self._imports_read[module] = read
            found = self._imports[module] = [m for m in prefixes if self.first_party(m) and self.summary(m) is not None]
        return found

    def _run_lookup(self, module: str) -> ModuleSummary | None:
        """A first-party module's summary, for ``load_runs`` (None for third-party code)."""
        return self.summary(module) if self.first_party(module) else None

    def _imported_effects(self, root: _Node, walk: _Walk) -> tuple[list[str], list[str]]:
        """Bind the flow to the statements abroad of every module that runs for it and changes
        something it reaches (a builtin it uses counts: ``builtins.len = mylen``): (the keys
        bound now, the keys they replace)."""
        seeds = frozenset(walk.seeds)
        # what the flow reaches, each key's part memoised per graph (``_have_of``) and gathered
        # on the walk from where the last round stopped (a round only appends, unless it dropped
        # keys: ``_Walk.replace`` starts it again): every flow of a module that reaches a whole
        # tree (a computed module name) reached the same thousands of keys, in each round
        reached = walk.order
        if walk.generation != self._have_generation:  # ``_found`` changed a part: count again
            walk.have, walk.whole, walk.counted, walk.generation = set(), set(), 0, self._have_generation
        have, whole, have_of = walk.have, walk.whole, self._have_of
        for key in reached[walk.counted:]:
            part, module = have_of(key)
            have.update(part)
            if module is not None:
                whole.add(module)
        walk.counted = len(reached)
        for name in walk.free:  # (it only grows: its parts join the walk's union as they are)
            have.update(self._have_of_builtin(name))
        have.add(PROCESS)  # every flow reads process-wide state (C6)
        bound = {key.rpartition(":")[0]: key for name, key in root.bindings or () if name == IMPORTED_EFFECTS}
        added: list[str] = []
        dropped: list[str] = []
        for module in self.executed(seeds):
            summary = self.summary(module)
            if summary is None or not self._has_abroad(summary):
                continue
            index = self.index(module)
            assert index is not None
            relevant = [u for u, changed, owners in self._abroad_changes(index)
                        if not changed.isdisjoint(have) or not owners.isdisjoint(whole)]
            if not relevant:
                continue
            # named by the content of the statements it holds, not their positions: code inserted
            # above them changes nothing
            key = self._abroad_key(index, relevant)
            old = bound.get(f"abroad:{module}")
            if old == key:
                continue
            self._abroad_sets[key] = relevant
            if key not in self.nodes:
                self.nodes[key] = self._make_node(key, root.module)
            root.bindings = sorted({*(b for b in root.bindings or () if b[1] != old), (IMPORTED_EFFECTS, key)})
            self._hashes = None
            added.append(key)
            if old is not None:
                dropped.append(old)  # its statements are a subset of the new set's
        return added, dropped

    def _abroad_changes(self, index: _ModuleIndex) -> list[tuple[Unit, frozenset[str], frozenset[str]]]:
        """Each statement abroad of a module with what it changes (``changed_abroad``, computed
        for all of them in order, as a flow's first round did) and the modules of those keys that
        are module members: a statement changes what a flow reaches when it changes one of the
        flow's keys (``have``: ``module:<m>`` of every module it reaches anything of among them,
        so a module changed as a whole counts for all of it), or any attribute of a module whose
        namespace the flow reads whole (``whole``). Asked by every round of every flow the module
        runs for."""
        found = index.abroad_changes
        if found is None:
            found = []
            for u in self.abroad(index):
                changed = self.changed_abroad(index, u)
                owners = frozenset(key.rpartition(".")[0] for key in changed if ":" not in key and "#" not in key)
                found.append((u, changed, owners))
            index.abroad_changes = found
        return found

    def _abroad_key(self, index: _ModuleIndex, relevant: list[Unit]) -> str:
        """``abroad:<module>:<digest>`` of a module's statements abroad a flow's code is changed
        by: named by their content (``hash_record`` of their canonical forms), not positions."""
        memo = (index.summary.module, tuple(u.index for u in relevant))
        found = index.abroad_keys.get(memo) if index.abroad_keys is not None else None
        if found is None:
            found = f"abroad:{index.summary.module}:" + hash_record(*(u.canonical for u in relevant))[7:19]
            if index.abroad_keys is None:
                index.abroad_keys = {}
            index.abroad_keys[memo] = found
        return found

    def _have_of(self, key: str) -> tuple[tuple[str, ...], str | None]:
        """A reached key's part of what a flow reaches for ``_imported_effects`` (the keys a
        statement abroad is compared with) and, for a ``module:<m>`` key, the module whose
        namespace the flow reads whole (where a store into any attribute counts): the key; the
        class whose members its code uses through ``self``/``cls`` (B27: ``Checkout.rate = 5`` in
        another module changes what ``self.rate`` reads); for code, the names it reads that no
        statement of its module binds, as reads of its module's namespace (C22: ``return x +
        EXTRA``, created by ``h.EXTRA = 1`` abroad; a builtin too: ``h.len = f``) and its module as
        a whole (C13: ``sys.modules["shop.svc"] = m`` changes every member); for an ``import:``
        key, the first-party module attribute it names (``_absent_attribute``), a third-party
        package's state (C6) and the first-party module it is an attribute of. A node's facts
        are fixed once it is expanded (every reached key is), what is first-party only by
        ``_found`` (which empties the memo)."""
        found = self._have.get(key)
        if found is None:
            part = [key]
            n = self.nodes.get(key)
            if n is not None:
                if n.cls is not None:
                    part.append(f"{n.module}.{n.cls.split('.')[0]}")
                if n.kind != "import" and not key.startswith(ENGINE_VALUES):
                    part += [f"{n.module}.{name}" for name in n.free]
                    if not n.key.startswith("abroad:"):
                        part.append("module:" + n.module)
            if key.startswith("import:"):
                part.append(self._absent_attribute(key))
                if not self._first_party_key(key):
                    part.append(_package_key(key))
                owner = self._owner(key[len("import:"):])
                if owner:
                    part.append("module:" + owner)
            whole = key[len("module:"):] if key.startswith("module:") else None
            found = self._have[key] = (tuple(part), whole)
        return found[0], found[1]

    def _have_of_builtin(self, name: str) -> tuple[str, ...]:
        """``_have_of``'s part for a builtin the reached code uses (``builtins.len = mylen`` in
        another module changes it): its ``import:builtins.<name>`` key, read as a first-party
        module's attribute or a package's state as any ``import:`` key is."""
        key = f"import:builtins.{name}"
        part = [key, self._absent_attribute(key)]
        if not self._first_party_key(key):
            part.append(_package_key(key))
        return tuple(part)

    def _submodule_loads(self, root: _Node, walk: _Walk) -> tuple[str, str | None] | None:
        """Bind the flow to ``<loads>`` (E6/E10): for each submodule its reached code reads as an
        attribute of its package without importing it (``_note_reads``), which of the modules
        that run for the flow import it, and how (the import statements; one inside a function as
        such): whether ``shop.b`` is there, or which of the package's ``tools`` and the submodule
        ``shop.tools`` it is, depends on exactly that. (the key bound now, the key it replaces),
        None when nothing changed."""
        nodes = self.nodes
        reached, gathered = walk.order, walk.reads  # (gathered from where the last round stopped)
        for key in reached[walk.reads_counted:]:
            n = nodes.get(key)
            if n is not None and n.loads:
                gathered.update(n.loads)
        walk.reads_counted = len(reached)
        reads = sorted(gathered)
        seeds = frozenset(walk.seeds)
        old = next((key for name, key in root.bindings or () if name == SUBMODULE_LOADS), None)
        if not reads:
            return None
        executed = self.executed(seeds)
        lines = [self._importers_text(module, package, name) for package, name in reads for module in executed]
        text = "\n".join(["(loads " + " ".join(f"{p}.{n}" for p, n in reads) + ")", *filter(None, lines)])
        key = f"loads:{root.module}:" + hash_record(text)[7:19]
        if key == old:
            return None
        if key not in nodes:
            nodes[key] = _Node(key, "constant", root.module, text)
        root.bindings = sorted({*(b for b in root.bindings or () if b[1] != old), (SUBMODULE_LOADS, key)})
        self._hashes = None
        return key, old

    def _unloaded_warnings(self, reached: list[str], seeds: frozenset[str]) -> tuple[SourceError, ...]:
        """A warning (``submodule-unloaded``) at each read of a submodule as its package's
        attribute (``<loads>``) that none of the modules that run for the flow imports (E10): live
        the attribute is there only if some other import loaded the submodule first, so the
        fingerprint widens and a chunk cannot reproduce it (``bundle.chunk_limits`` refuses to
        bundle such a flow)."""
        nodes = self.nodes
        spelled: dict[tuple[str, str], _Node] = {}  # each read, with the first node spelling it
        #: a package used as a value (``PACKAGE_SUBMODULES``, S5) -> its submodules, with the first
        #: node using it
        packages: dict[str, tuple[list[str], _Node | None]] = {}
        for key in reached:
            n = nodes.get(key)
            for read in n.loads if n is not None else ():
                # an attribute chain its code spells on an import; not a module named by a string
                # or an importer's argument (which loads it: ``<loads>`` widens anyway)
                if read not in spelled and self._spells_read(n, read[1]):
                    spelled[read] = n
            if n is not None and n.kind == "module" and n.bindings:
                subs = [k[len("module:"):] for name, k in n.bindings if name == PACKAGE_SUBMODULES]
                if subs:
                    packages[n.module] = (subs, None)
        if packages:
            for key in reached:
                n = nodes.get(key)
                for name, k in (n.bindings or ()) if n is not None and n.kind != "module" else ():
                    # (code using the package by a name; not a widening reaching every module)
                    if name[:1] != "<" and k.startswith("module:") and packages.get(k[len("module:"):], ([], 0))[1] is None:
                        packages[k[len("module:"):]] = (packages[k[len("module:"):]][0], n)
        if not spelled and not packages:
            return ()
        executed = self.executed(seeds)
        out: list[SourceError] = []
        # (the modules that run without the submodules the widening reached: reaching one is no import of it)
        # (the flow's own module runs; a seed the widening made may not, and is left out: a
        # refusal too many where a lazy import alone names it, never one too few)
        widened = {m for subs, _ in packages.values() for m in subs}
        own = {nodes[reached[0]].module} if reached and reached[0] in nodes else set()
        running: set[str] = set()
        base = frozenset({*(m for m in seeds if m not in widened), *own})
        while packages:
            running = set(self.executed(base))
            # and what the reached code of the modules that run imports (``import shop.m`` in a def
            # or a class body, ``__import__("shop.m")``: ``!``/``=`` references), with its packages
            more = {p for key in reached if (n := nodes.get(key)) is not None and n.module in running
                    for r in n.refs if r[:1] in "!=" and self.first_party(r[1:]) for p in _prefixes(r[1:])}
            if more <= base:
                break
            base = base | more
        for package, (subs, n) in sorted(packages.items()):
            missing = [m for m in subs if m not in running]
            if not missing or n is None:
                continue
            # a chunk's package holds every bundled submodule from the start; live, one no module
            # that runs imports is no attribute of it (unless another import ran first): S5
            out.append(SourceError(
                n.path or "", n.line, 1,
                f"the package `{package}` is used as a value and no module that runs for this flow imports "
                f"`{missing[0]}`" + (f" (nor {len(missing) - 1} other submodules)" if len(missing) > 1 else "")
                + ": Python sets a submodule as its package's attribute only once some import loads it, so what "
                "the code finds on the package depends on which other imports ran first. Import the submodules "
                f"it reads (`import {missing[0]}`), or read them by name", code="submodule-unloaded"))
        for (package, name), n in sorted(spelled.items()):
            if any(self._importers_text(m, package, name) for m in executed):
                continue
            line, column = _spelled_at(n, name)
            out.append(SourceError(
                n.path or "", line, column,
                f"`{package}.{name}` is read as an attribute of the package `{package}`, and no module that runs "
                f"for this flow imports `{package}.{name}`: Python sets that attribute only once some import "
                "loads the submodule, so this works only if another import ran first. Import it where it is "
                f"read (`import {package}.{name}`)", code="submodule-unloaded"))
        return tuple(out)

    def _spells_read(self, node: _Node, name: str) -> bool:
        """``_spells_read``, memoised per node and name (it reads only the node's references)."""
        memo = (node.key, name)
        found = self._spelled.get(memo)
        if found is None:
            found = self._spelled[memo] = _spells_read(node, name)
        return found

    def _importers_text(self, module: str, package: str, name: str) -> str:
        """How ``module`` imports ``package.name`` ("": it does not): its statements that do, in
        order (a function's, whose import runs only when it is called, as the function's name);
        in the package itself, its statements binding ``name`` too, in order with them (the last
        one to run decides what ``package.name`` is)."""
        found = self._importers.get((module, f"{package}.{name}"))
        if found is None:
            sub = f"{package}.{name}"
            summary = self.summary(module)
            out: list[str] = []
            below = sub + "."
            for u in summary.units if summary is not None else ():
                # an import statement, a literal importer call (``importlib.import_module("shop.b")``,
                # F11), a lazily imported name, a file loaded by path naming it
                imports = any((r[0] in "!=" and (r[1:] == sub or r[1:].startswith(below))) or r == '"' + sub
                              for r in u.references)
                if imports and u.kind in ("function", "step"):
                    out.append(f"(in {' '.join(u.names)})")
                elif imports:
                    out.append(u.canonical)
                elif module == package and name in u.names:
                    out.append(f"(binds {name})")
                elif (u.runs or u.attached) and u.kind != "step" and any(
                        m == sub or m.startswith(below)
                        for m in self.memo.load_runs.statement(summary, u, self._run_lookup)[0]):
                    # code it runs at load imports it (``load()``, ``@deco``; ``load_runs``): the
                    # statement's code says whether it runs (F11's family, F12)
                    out.append("(runs) " + u.canonical)
            found = self._importers[(module, sub)] = f"(module {module} {sub})\n" + "\n".join(out) if out else ""
        return found

    def _owner(self, target: str) -> str | None:
        """The first-party module (in the tree) an import target that resolved to no member is an
        attribute of (``shop.svc.go`` when ``shop.svc`` binds no ``go``)."""
        parts = target.split(".")
        for i in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:i])
            if self.first_party(module) and self.index(module) is not None:
                return module
        return None

    # -- results --------------------------------------------------------------------------------
    def hashes(self) -> dict[str, str]:
        if self._hashes is None:
            self._hashes = _merkle(self.nodes)
        return self._hashes

    def closure(self, flow: FlowSite, module: str) -> tuple[ClosureMember, ...]:
        """Root first, then the other members by qualified name."""
        root = self.flow_node(module, flow.qualname)
        keys = self.reachable(root)
        hashes = self.hashes()
        ordered = [root.key] + sorted(keys[1:])
        return tuple(self._member(key, hashes, self._reason_of(key)) for key in ordered)

    def _reason_of(self, key: str) -> str:
        """``_reason`` of a node, memoised: it reads only the node and the widening edges that
        reach it, which only ever grow (``_bind``), so a memo is good while their count is."""
        incoming = self._widened_by.get(key)
        seen = len(incoming) if incoming is not None else 0
        found = self._reasons.get(key)
        if found is None or found[0] != seen:
            found = self._reasons[key] = (seen, _reason(self.nodes[key], incoming if incoming is not None else set()))
        return found[1]

    def _member(self, key: str, hashes: Mapping[str, str], reason: str = "") -> ClosureMember:
        member = self._members.get(key)
        if member is not None and member.reason != reason:
            member = None
        if member is None or member.hash != hashes[key]:
            n = self.nodes[key]
            member = ClosureMember(
                qualname=_name(n.key),
                kind=n.kind,
                module=n.module,
                hash=hashes[key],
                path=n.path,
                line=n.line,
                source=n.source,
                # a whole module's import edges ("import <target>") are hashed but not listed: its
                # text binds those names itself, so they are not names it *uses*
                bindings=tuple((name, _name(k)) for name, k in n.bindings or () if not name.startswith("import ")),
                target=n.target,
                canonical=n.canonical,
                parts=n.parts,
                reason=reason,
            )
            self._members[key] = member
        return member


def _prefixes(dotted: str) -> list[str]:
    """``a``, ``a.b``, ``a.b.c`` of ``a.b.c``: the modules an import of it loads."""
    parts = dotted.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def _text_start_line(node: _Node, lines: list[str]) -> int:
    """The file line of ``lines[0]`` (``node``'s text): its own line, but a flow's line is its
    ``def``'s where its text starts at its first decorator."""
    if node.kind != "flow":
        return node.line
    heads = [i for i, text in enumerate(lines) if text.lstrip().startswith(("def ", "async def "))]
    return node.line - (heads[0] if heads else 0)


def _import_line(node: _Node, last: str) -> int:
    """The line of the lazy import of a module whose last name is ``last`` in ``node``'s text
    (the summary records what code imports, not where); the node's own line if none is found."""
    lines = node.source.splitlines()
    base = _text_start_line(node, lines)
    word = re.compile(rf"\b{re.escape(last)}\b")
    for i, text in enumerate(lines):
        if "import" in text and word.search(text):
            return base + i
    return node.line


def _spells_read(node: _Node, name: str) -> bool:
    """Whether the node's code spells ``<chain>.name`` on a name an import statement binds: a
    module-level import (a plain chain) or one of its own (a lazy ``=`` chain whose root one of its
    ``!`` imports binds); a lazy chain of an importer call (``importlib.import_module('shop.b')``
    reads as ``=shop.b``) is not one."""
    spelled = re.compile(rf"(=?)([A-Za-z_]\w*)(?:\.\w+)*\.{re.escape(name)}(?:\.|$)")
    roots = {r[1:].split(".")[0] for r in node.refs if r[0] == "!"}
    for r in node.refs:
        m = spelled.match(r)
        if m is not None and (not m.group(1) or m.group(2) in roots):
            return True
    return False


def _spelled_at(node: _Node, name: str) -> tuple[int, int]:
    """(line, column) of the first ``.name`` attribute read in the node's text; its own line if none."""
    lines = node.source.splitlines()
    base = _text_start_line(node, lines)
    word = re.compile(rf"[A-Za-z_][\w.]*\.{re.escape(name)}\b")
    for i, text in enumerate(lines):
        found = word.search(text)
        if found is not None:
            return base + i, found.start() + 1
    return node.line, 1 if node.line else 0


def _reason(node: _Node, incoming: set[str]) -> str:
    """Why ``node`` is in a closure beyond the names its code spells (``ClosureMember.reason``)."""
    key = node.key
    if any(name.startswith(COMPUTED[:10]) for name in incoming):
        return "whole module: a module name computed at run time may name it"
    if any(name.startswith((NAMED[:7], CONSTANT[:7])) for name in incoming):
        return ("whole module: " if key.startswith("module:") else "") + "named by a string in the code"
    if key.startswith("module:"):
        if WIDEN_MODULE in incoming:
            return "whole module: its namespace is read or written by a computed name"
        if MODULE_GETATTR in incoming:
            return "whole module: its __getattr__ serves a name"
        if PACKAGE_SUBMODULES in incoming:
            return "whole module: a submodule of a package used as a value"
        return "whole module: used as a value"
    if WIDEN_CLASS in incoming:
        return "whole class: its instance is reached by a computed name or escapes"
    if ENGINE_HOOKS in incoming and key.startswith(ENGINE_VALUES):
        return "engine hook: what the module hands to the engine's configuration (runner, converter, failure types)"
    if ENGINE_HOOKS in incoming:
        return "engine hook: code the engine runs around every workflow (interceptor, data converter, codec)"
    if HANDS_INSTANCE in incoming:
        return "whole class: a class attribute (a descriptor, a function installed or wrapped) is handed the instance"
    if OPAQUE_BASE in incoming:
        return "whole class: a base whose code is not read (third-party, builtin, computed) may call any member"
    if key.startswith("abroad:"):
        return "module statements that change another module's objects, run by an import of the flow's code"
    if key.startswith("loads:"):
        return "which modules that run import a submodule the code reads as an attribute of its package"
    if key.endswith("#bindings"):
        return "every other statement binding the flow's name"
    if key.endswith("#effects"):
        return "module statements that change the flow's class"
    if key.startswith("import:") and key.endswith(".*"):
        return "what a third-party star import may bind"
    if node.name is not None and any(node.name not in names for _, _, _, names in node.parts):
        return "module statements that change it"
    return ""


class _Walk:
    """A breadth-first walk from a node that can be resumed when the node gains bindings."""

    def __init__(self, graph: ClosureGraph, root: _Node) -> None:
        self.graph = graph
        self.order = [root.key]
        self.seen = {root.key}
        self.seeds = {root.module}  # modules the reached code comes from or lazily imports
        self.free: set[str] = set()  # builtins the reached code uses
        self.i = 0
        #: ``ClosureGraph._imported_effects``' union of ``_have_of`` over ``order[:counted]``
        self.have: set[str] = set()
        self.whole: set[str] = set()
        self.counted = 0
        self.generation = 0  # the graph's ``_have_generation`` the union was gathered under
        #: ``ClosureGraph._submodule_loads``' union of ``loads`` over ``order[:reads_counted]``
        self.reads: set[tuple[str, str]] = set()
        self.reads_counted = 0

    def run(self) -> None:
        graph = self.graph
        nodes, order, seen, seeds, free, expand = graph.nodes, self.order, self.seen, self.seeds, self.free, graph.expand
        i = self.i
        # the hot loop of every closure (a flow reaching a whole tree walks tens of thousands of
        # edges): each node's distinct keys are listed once, the new ones taken in one pass
        while i < len(order):
            node = nodes[order[i]]
            bindings = node.bindings
            if bindings is None:
                bindings = expand(node)
            succ = node.succ
            if succ is None or node.succ_of is not bindings:
                succ = node.succ = tuple(dict.fromkeys([key for _, key in bindings]))
                node.succ_of = bindings
            fresh = [key for key in succ if key not in seen]
            if fresh:
                seen.update(fresh)
                order += fresh
            if node.kind != "import" and node.kind != "step" and not node.key.startswith(ENGINE_VALUES):
                # (a ``#engine`` member is text about its module's calls, no code of it that runs
                # for the flow: samples-python's 299 worker and starter scripts, seeded, brought the
                # statements abroad of all they import into every workflow, median 472 -> 3,273)
                seeds.add(node.module)
                lazy = node.lazy
                if lazy is None:
                    lazy = node.lazy = tuple(r[1:] for r in node.refs if r[0] in "=!")
                if lazy:
                    seeds.update(lazy)
                if node.free:
                    free.update(node.free)
            i += 1
            self.i = i

    def replace(self, dropped: list[str], added: list[str]) -> None:
        """The root now binds ``added`` instead of ``dropped`` (what those reached, the new keys
        reach too: each replaces a subset of its statements)."""
        for key in dropped:
            if key in self.seen:
                at = self.order.index(key)
                del self.order[at]
                self.seen.discard(key)
                if at < self.i:
                    self.i -= 1
                # a part may be gone: count again
                self.have, self.whole, self.counted, self.reads, self.reads_counted = set(), set(), 0, set(), 0
        for key in added:
            if key not in self.seen:
                self.seen.add(key)
                self.order.append(key)


#: ``ClosureMember.parts`` index of a piece of a statement: ``index + (k + 1) * PIECE_STRIDE`` for
#: its k-th piece, so a chunk emits each piece once, however many members reach it, and never the
#: whole statement beside one of its pieces (the whole is always given as its pieces)
PIECE_STRIDE = 1 << 32


def _piece_part(unit: Unit, k: int) -> tuple[int, int, str, tuple[str, ...]]:
    line, source, _, _, _ = unit.pieces[k]
    return (unit.index + (k + 1) * PIECE_STRIDE, line, source, ())


def _unit_parts(unit: Unit) -> list[tuple[int, int, str, tuple[str, ...]]]:
    if unit.pieces:
        return [_piece_part(unit, k) for k in range(len(unit.pieces))]
    return [(unit.index, unit.line, unit.source, unit.names)]


#: the canonical form of a ``def``/``class`` statement with decorators (after a ``__future__`` stamp line)
_DECORATED = re.compile(r'(?:\(__future__ [^\n]*\)\n)?\((?:FunctionDef|ClassDef)(?: async=true)? name=\(Name "[^"]*"\) decorators=')


def _decorated(unit: Unit) -> bool:
    """Whether a ``def``/``class`` statement has decorators (what the name is bound to may then be
    code of another module)."""
    return _DECORATED.match(unit.canonical) is not None


def _own_view_targets(runs: RunIndex, unit: Unit) -> set[str]:
    """The ``>`` targets (without the mark) the module's own code a statement runs at load stores
    into (breaker3's D5; ``load_runs``, the rule the chunk uses: its defs called by name, as a
    decorator or in a class body, F13, and those they name in turn): ``boot()`` stores into what
    ``def boot(): sys.modules["shop.h"].RATE = 5`` does. (An imported function's are followed by
    ``ClosureGraph.call_effects``.) A ``def`` or ``class`` statement runs nothing of its body but
    its decorators, bases and class body (``Unit.runs``)."""
    if unit.kind in ("import", "step"):
        return set()
    return {chain[1:] for u in runs.reached(seeds(unit), []) if u.kind in ("function", "class")
            for chain in u.call_refs if chain[0] == ">"}


def _stores_through_view(unit: Unit) -> bool:
    """Whether a statement stores into another module through a namespace view (``>`` references)."""
    return any(r[0] == ">" for r in unit.references)


def _runs_key(key: str, module: str) -> bool:
    """Whether ``key``, changed by a def of ``module`` a statement of it calls, is a change
    ``effects.attachments`` does not already give that statement (``ClosureGraph._runs_effects``):
    process-wide state, one builtin, or a first-party member of another module."""
    if key.startswith("import:"):
        return changes_process_state(key[len("import:"):]) or key.startswith("import:builtins.")
    if key == PROCESS:
        return True
    if key.startswith("package:") or key == "module:" + module:
        return False
    return key.startswith("module:") or (":" not in key and key.rpartition(".")[0] != module)


def _star_named(key: str, chain: str) -> set[str]:
    """For ``import:<module>.*`` (a third-party star import that may bind the chain's root), the
    target the chain names through it (``from codecs import *`` then ``register(f)``:
    ``import:codecs.register``, matched against ``effects.PROCESS_STATE`` like any spelling)."""
    if key.startswith("import:") and key.endswith(".*"):
        return {key[:-1] + chain}
    return set()


def _package_state(key: str) -> bool:
    """Whether a change through the third-party ``import:`` key ``key`` stands for its package's
    state (``_package_key``): always, but for one builtin changed by name (``builtins.len``). The
    namespace itself, or a method of it called (``builtins.__dict__.update(len=f)``: breakS's S1,
    which counted as the builtin ``__dict__`` alone), is the whole package's state."""
    return not key.startswith("import:builtins.") or key == "import:builtins.__dict__" \
        or key.startswith("import:builtins.__dict__.")


def _package_key(key: str) -> str:
    """``package:decimal`` for ``import:decimal.getcontext``: a third-party top-level package (only
    ever compared, never a node). For ``builtins`` only when the namespace itself is changed
    (``vars(builtins)[k] = f``, ``builtins.__dict__.update(...)``): a flow uses builtins by name
    and a patch of one (``builtins.len = mylen``, B3) is matched by that name."""
    return "package:" + key[len("import:"):].split(".")[0]


def _unit_canonical(unit: Unit, name: str | None) -> str:
    if unit.kind == "step":  # its header too (DESIGN §6), when another binding joins it
        return f"(step {unit.step_name})\n{unit.canonical}" if unit.canonical else f"(step {unit.step_name})"
    return unit.canonical_for(name) if name is not None else unit.canonical


def _joined(sources) -> str:  # noqa: ANN001
    return "".join(s if s.endswith("\n") else s + "\n" for s in sources)


def _name(key: str) -> str:
    if key.startswith(("member:", "ref:")):
        return key.partition(":")[2].replace("|", ".")
    if key.startswith("child:"):
        return key.partition(":")[2].replace("|", ".") + "#child"  # never the flow node itself
    if key.startswith("import:"):
        return key[len("import:") :]
    if key.startswith("module:"):
        return key[len("module:") :] + ".*"  # all of the module (``*`` is no Python name: no clash)
    if key.startswith("hook:"):
        return key[len("hook:") :].replace(":", ".")
    if key.startswith("abroad:"):
        return key[len("abroad:") :].rpartition(":")[0] + "#abroad"  # its statements that change other modules
    if key.startswith("loads:"):
        return key[len("loads:") :].rpartition(":")[0] + "#loads"  # which modules import the submodules it reads
    if key.startswith(ENGINE_VALUES):
        return key[len(ENGINE_VALUES):] + "#engine"  # what the module hands to the engine's configuration
    if key.startswith("file:"):
        return key[len("file:"):].partition("|")[0] + "#file"  # a file's bytes (``#``: no chunk statement)
    if key.startswith("site:"):
        return key.rpartition(":")[2] + "#site"  # the directories a site directory's ``.pth`` files add
    return key


def _tree_prefix(summary: ModuleSummary) -> str:
    """The directory (POSIX, "" or ending in "/") the tree names ``summary``'s module from: its
    path minus its dotted name as a path (``analysis``' ``_prefix``)."""
    path = summary.path.replace("\\", "/")
    own = summary.module.replace(".", "/") + ("/__init__.py" if summary.is_package else ".py")
    return path[: len(path) - len(own)] if path.endswith(own) and summary.module else ""


def _loads(kind: str, recorded: str, path: str) -> bool:
    """Whether a ``path_warnings`` record (``kind``, its path) is where ``path`` is loaded: the
    file's own load, the glob whose listing holds it, the ``site.addsitedir`` of its ``.pth``."""
    if kind not in ("file", "site"):
        return False
    if kind == "file" and recorded == path:
        return True
    directory = path.rpartition("/")[0]
    listing = split_listing(recorded)
    return (listing is not None and listing[0] == directory) or (kind == "site" and recorded == directory)


def _merkle(nodes: Mapping[str, _Node]) -> dict[str, str]:
    """Hash every node bottom-up, strongly connected components hashed together."""
    edges = {k: sorted({t for _, t in n.bindings or () if t in nodes}) for k, n in nodes.items()}
    hashes: dict[str, str] = {}
    for component in _tarjan(sorted(nodes), edges):
        members = set(component)
        cyclic = len(component) > 1 or component[0] in edges[component[0]]
        inner: dict[str, str] = {}
        for key in component:
            n = nodes[key]
            fields = [SCHEME, "member", n.kind]
            if n.kind == "import" or (n.kind == "step" and not n.canonical):
                fields.append(n.target or key)
            else:
                if n.kind == "step":
                    fields.append(n.target or key)  # a step: its name, then its header
                fields.append(n.canonical)
                for name, target in n.bindings or ():
                    shown = _name(target)
                    fields += [name, shown, "<cycle>" if target in members else hashes[target]]
            inner[key] = hash_record(*fields)
        if not cyclic:
            hashes[component[0]] = inner[component[0]]
            continue
        pairs: list[str] = []
        for key in sorted(component):
            pairs += [key, inner[key]]
        scc = hash_record(SCHEME, "component", *pairs)
        for key in component:
            hashes[key] = hash_record(SCHEME, "in-component", inner[key], scc)
    return hashes


def _tarjan(order: list[str], edges: Mapping[str, list[str]]) -> list[list[str]]:
    """Strongly connected components in reverse topological order (dependencies first). Iterative."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    result: list[list[str]] = []
    counter = 0
    for start in order:
        if start in index:
            continue
        work: list[tuple[str, int]] = [(start, 0)]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, i = work[-1]
            succ = edges[node]
            if i < len(succ):
                work[-1] = (node, i + 1)
                nxt = succ[i]
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == node:
                        break
                result.append(sorted(component))
    return result


def _disk_reader(config: LoomConfig | None) -> FileReader | None:
    """Read project files from ``config.root`` on disk (a caller without a tree of its own:
    ``fingerprint_module``, tests); None without a configuration: such a file is then unknown."""
    if config is None:
        return None
    root = config.root

    return lambda path: read_project_file(str(root), path)


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _runs_unknown_code(unit: Unit) -> bool:
    """A statement that runs at load code the compiler cannot name (``_unknown_code``). A class
    counts (its body runs at load: ``run = staticmethod(exec)``, then ``K.run(src)``; widening: the
    reach may be in a method only), a def does not (its body runs when called: ``_call_step``)."""
    return unit.kind not in ("function", "import") and _unknown_code(unit)


def _unknown_code(unit: Unit) -> bool:
    """Whether a unit's code may run code the compiler cannot name (``?``/``?<prefix>``: text of
    undecidable origin, ``exec`` reached as a value, an import by a computed name)."""
    return any(r[:1] == "?" and r[1:2] not in ("@", "%") for r in unit.references)
