"""``loom-fp/2``'s rule for state-changing module statements, over one module's statements.

The rule (DESIGN §6): a module-level statement that can change state belongs to every
module-level name whose state it can change, so a flow that reaches the name reaches the
statement. "Can change" is decided from what the statement does *when the module runs*
(``scopes.References``):

* it stores or deletes through the name (``CFG["a"] = 2``, ``Policy.limit = 5``,
  ``helper.__defaults__ = (2,)``, ``decimal.getcontext().prec = 6``, ``setattr(C, "x", 1)``);
* it calls something and the name is used in the call: the object a method is called on
  (``ITEMS.append(2)``, ``@REGISTRY.register``, ``@render.register(int)``) and the arguments
  (``register(Plugin)``) -- a call can change its callee and its arguments;
* it is a class statement and the name is one of its bases or keywords: subclassing runs the
  bases' ``__init_subclass__`` and the metaclass with the whole new class, and adds it to
  ``__subclasses__()``, so the class statement belongs to each first-party base it names
  (breaker2's C7). Not a class that holds a method flow: its flows reach it member by member
  (DESIGN §6), and belonging to its own bases would make every such flow reach its whole class
  (what the bases' code does with it still counts, through their ``changes``);
* it calls a class that holds a method flow (``inst = Checkout(5)``, a DBOS configured instance
  ``svc = Svc("default", rate=5)``): the instance it builds may be the one the flow runs on, so
  its arguments are the flow's input (breaker2's C14; in another module the call of an imported
  name counted already). Also through a name that stands for the class or its instance, or
  builds one (breaker3's D8, ``_flow_class_names``): an alias (``K = Checkout; inst = K(5)``), an
  instance (``inst.rate = 5``, ``configure()`` storing through ``inst``), a factory (``def make():
  return Checkout(5)``; ``inst = make()``; transitively); in another module, a first-party
  factory's call (``closure.call_effects`` counts calling a flow class as changing it). Widening:
  any use of such a name in a binding expression or any call of one in a function counts;
* a module-level function or class it calls (a decorator is a call) can change the name, through
  its own code or through the functions *it* calls, transitively inside the module: ``@register``
  whose body fills ``HANDLERS``, ``setup()`` whose body writes ``global LIMIT``; a class's code
  includes the defs of the module its body binds as attributes (``__init__ = hook``,
  ``field(default_factory=hook)``: breakT's T5). Only a definition
  above the statement is what it calls when it runs (``@invoke() def invoke`` calls the imported
  ``invoke``, never the function it defines: measured on dbos-demo-apps, 2 collateral flows);
* a first-party name such a function calls that is no plain def of the module counts as changed
  too: an imported function (``def boot(): init()`` with ``init`` from ``shop.g``: the statement
  ``boot()`` then belongs to ``init``, and ``closure.call_effects`` follows what ``init`` changes
  in its own module and beyond, breaker2's C11), a value built by a call, and a decorated def,
  whose wrapper may keep state (``functools.lru_cache``: calling it fills the cache a flow reads
  through ``cache_info()``; also for a statement calling a decorated def above it directly);
* a def or class of the module above it that the statement hands to a call (``run(hook)``,
  ``list(map(hook, xs))``, ``json.loads(s, object_hook=hook)``, a base given to
  ``dataclasses.make_dataclass``) may be called by that call at once: what its code changes counts
  as for a call of it (breakS's S13; widening: ``atexit.register(hook)`` counts too, the chunk's
  order takes such registrations out, ``chunk_runs``);
* an operator, subscript, attribute read, comparison, truth test, iteration, unpacking, ``with``
  or builtin call it applies to a name bound to a first-party object (``OBJ[1]`` after ``OBJ =
  L()``, ``L[int]`` with a first-party metaclass or ``__class_getitem__``, ``D["x"]`` after ``D =
  defaultdict(hook)``) runs that code's dunders: ``analysis.operator_calls`` records it as a
  call of the def or class whose code runs (breakS's S7, ``operator_runs``; a class counts as
  running the defs its body hands to a call, ``__class_getitem__ = classmethod(gi)``). Widening:
  every method of the class counts, not the dunder alone.

A ``def`` or ``class`` statement runs only its decorators, defaults, annotations (and a class its
body) when the module runs: what the *function body* changes is reached by reaching the function
(``@app.post(...) def ep(): DBOS.start_workflow(wf)`` belongs to ``app``, never to ``wf``). A
def of the module a decorator or class keyword reads other than as its callee is handed the
definition and counts as run (``@functools.partial(deco, 1)``, ``@(lambda c: deco(c))``:
``import_time_runs``, breaker7's H1/K2; a class so read is not counted as made). A
decorator that calls the function it decorates at import time is the exception this misses
(``@run_now def init(): CFG["a"] = 1``): a documented precision choice, decided with the lead,
but for a decorator of *another* first-party module (breaker7's R2: ``@util.reg def load``, then
``util.fire()`` in any module): that module may keep the def and call it at load from anywhere,
so the def counts as run by its own statement (``import_time_runs``; for the chunk it is handed
on, ``chunk_runs``, and runs at a later call into that module by the same module). The cost, kept
(strict xfail ``R2``): such a def never fired still counts.

A statement that binds a name is not attached, through its calls, to names that stand for
third-party state (``analysis._Analyser.third_party``): bound by third-party imports
(``@workflow.defn class A``, ``logger = logging.getLogger(__name__)``) or to a value a third-party
call built from no first-party function or class (``app = FastAPI()``, then ``@app.get("/") def
page``). Those decorate or build the value for the framework; attaching them would put every
workflow class of a module into every workflow's closure, and every web route of a DBOS app into
every workflow of its module (measured on dbos-demo-apps: 147 collateral flow changes). A value
built around first-party code (``render = singledispatch(_render)``) stays first-party: a flow
calls its registrations. Statements that bind nothing
(``random.seed(42)``, ``logging.basicConfig(...)``) and stores (``json.dumps = fast_dumps``) are
attached to third-party names too: they exist only to change that state (``DBOS(config=config)``
is part of what ``DBOS`` means to the workflows of its module).

Widening, on purpose: every argument of a call counts as changed (``X = sorted(ITEMS)`` belongs to
``ITEMS``), and so does every root a called function stores through, calls a method on or passes
on. Deciding which calls really mutate would need the callee's code (third-party) or a type
analysis; the cost is a module statement or two more in a closure. One exception is decided
statically: a name every binding of which is an immutable literal (``URL = "..."``, ``N = 3``,
``None``, a tuple of those; or an environment read: ``os.environ.get("X", "d")``,
``os.getenv("X")``, ``os.environ["X"]``, a ``str`` or the literal default, with ``os`` the
standard module; no ``global`` write of it in any function, no ``globals()`` write or star
import in the module) names a value no call can change, so calls that use it are not attached
to it (``client = connect(URL)`` is no part of ``URL``; measured on dbos-demo-apps, where
``database_url = os.environ.get(...)`` passed to ``create_agent()`` made it collateral). A store through it still is
(``N.x = 1`` raises at import), and so is a function that rebinds it after ``global`` or stores
through it (``H = None``; ``def poke(): H["a"] = 7`` runs only once another module rebound it,
``util.H = CFG``: breaker6's G3).

A module-level compound statement is judged per inner statement (rule 2 of the lead's 11:40
note) when it is an ``if`` chain that binds no name and whose tests run no code (no call,
``await``, walrus, lambda or comprehension): each statement of each branch is a *piece*, the
chain with that statement alone in its branch (``if __name__ == "__main__": DBOS.launch()`` and
``if __name__ == "__main__": uvicorn.run(app)``), attached on its own and carrying the tests'
names as inputs (its references). So ``DBOS.launch()`` belongs to ``DBOS`` only and
``uvicorn.run(app)`` to ``uvicorn``/``app`` only, and a flow that reaches ``DBOS`` does not reach
every web route registered on ``app``. ``if __name__ == "__main__":`` blocks are attached like any
other statement: a worker started as a script (``python worker.py``) runs the block before or
while its flows run, so ``CFG["x"] = 2`` there is part of ``CFG``. A piece that can change a name
the tests read (``if not READY: setup()`` with ``setup`` writing ``READY``) keeps the chain
whole. ``for``/``while`` (the iterator runs once, the pieces would interleave differently),
``with`` (the context is entered once around all of them) and ``try`` (an exception in one
statement skips the next) are judged whole, as are chains that bind a name: a chunk replays the
pieces one after another (``ClosureMember.parts``), which only an ``if`` with code-free tests
allows.

Statements that change *another* module's objects (``@register("a") def a`` with ``register``
from ``shop.reg`` filling ``shop.reg.HANDLERS``; ``cfg.LIMIT = 5`` with ``from shop import cfg``)
belong to the importing module's name; ``closure`` follows them the other way too: for every
module that runs for a flow (its own, those it reaches, what they import at module level, what
its code imports lazily, transitively), such a statement that changes something the flow reaches
is in the flow's closure (``<module>#abroad``). Left out (a documented limit): a module nothing
that runs for the flow imports (a plugin loaded by name from configuration, an entry point).

What calling a def or class can change, across modules (breaker2's C11: ``from shop.g import
setup; setup()`` with ``setup`` filling ``shop.cfg.CFG``), is summarised per definition as
chains of its references (``call_refs``: what it stores through, passes on, calls a method on or
calls; targets it imports lazily; its own name when it keeps state), which ``closure`` resolves
in the definition's module and follows into each first-party callee, transitively. Widening, on
purpose: every first-party function it calls or is given counts as called (passing a function
on may call it), a call through a name no global chain names (``cb()``, ``for f in HOOKS: f()``,
``HOOKS[k]()``: ``References.opaque_calls``) makes every chain the function uses count, and a
value that is no def (``partial(init, 5)``, ``make()``) or a module handed on counts whole.
Third-party calls count only when they change process-wide state (``PROCESS_STATE``: the codec
registry, ``copyreg``, the locale, the recursion and int digit limits, warning filters, the
environment, ...): a flow reads that state without naming it (``"x".encode("shout")``), so a
statement changing it belongs to every flow of the process that runs it (C6).

A call the module statement cannot resolve to a known callee (breaker3's D6: ``HOOKS["s"]()``,
``s = setup; s()``, ``for f in [setup]: f()``, ``make()()``) may run any function value that flows
into it: ``import_time_runs`` lists, per statement, the chains of the functions it may run (every
import, def or class of the module and star-bound name among what it reads and, transitively,
what the statements binding or filling those names read: ``HOOKS = {"s": setup}``,
``HOOKS.append(setup)``, ``@hook def boot``), and the defs of the module it calls by name;
``closure`` follows what they change (``Unit.runs``), here the defs' own changes are attached. A
process-wide API counts by the qualified name its spelling resolves to (D7: ``reg =
codecs.register; reg(f)``; in a def, ``call_refs`` keeps every chain that may name one, called
or not). Widening, on purpose: every function that flows in counts as called, whichever key or
loop order the code would pick, and a call's result that is the callee (``make()()``) may be any
function the called code names. Precision kept: a method of a builtin container display
(``HOOKS = []`` then ``HOOKS.append(f)``) or of a value standing for third-party state
(``app.include_router(r)``) is no unresolved call (measured on dbos-demo-apps: routes decorated
by ``@app.get`` would otherwise each belong to what their bodies change); a call's result handed
on as an argument (``loop.run_until_complete(main())``) counts as that call, not as any function
its code names (measured on samples-python: the main block of a worker script otherwise joined
its workflow's closure); and def and class statements are left out (their decorators' results
applied to the definition is the documented ``@run_now`` limit above).

A name a module statement binds to a module-level object or part of one (``c = CFG``, ``K =
Checkout``, ``d = c``, ``for c in (CFG,)``: ``scopes.References.aliases``, lead's L3) stands for
it (``_aliases``): a statement storing through the name, calling a method on it or handing it to
a call that is no read-only builtin (``References.passes``: ``print(c)`` is not), and a def
changing it, change that object too; so ``K = Checkout; INST = K(5)`` in another module builds the
flow's instance (D8), and ``c = CFG; c["a"] = 5`` is a statement abroad changing ``CFG``.

An object held by another (``_Holders``, F6/F7/L4): a display (``HOLD = [CFG]``), a class or
instance attribute (``class K: c = CFG``, ``self.c = CFG``, ``K.c = CFG``), a value a call built
(``NS = SimpleNamespace(c=CFG)``), what a def returns or yields (``def get(): return CFG``), a
name a def binds after ``global`` (``global c; c = CFG``: an alias, ``_aliases``). A statement or
a def that changes a *part* of the holder (``HOLD[0]["a"] = 5``, ``K.c["a"] = 5``, ``get()["a"] =
5``, ``for c in HOLD: c["a"] = 5``), hands it to a call, calls a method of it when it is
first-party code (``K.setup()``), or calls a class whose code changes a part of ``self``, changes
what it holds. Precision kept (the equal pairs): a store into the holder itself (``HOLD[0] = 5``,
``K.x = 5``), a builtin display's method (``HOLD.append(5)``), calling a plain def or a class
whose code only stores on ``self`` (``h = H()``), a holder of what the flow does not reach. In
another module, a def's or class's holdings are its ``call_refs``' ``$`` chains, which
``closure.changed_abroad`` counts for any statement abroad that changes or calls it (``from
shop.k import K; K.c["a"] = 5``). Widening there, on purpose: the statement abroad is not told
apart from a call or a plain store (``h = H()`` or ``K.x = 5`` in another module counts as changing
what ``H``/``K`` hold), because a ``Unit`` keeps which names a statement changes, not how.

Routes Python has to a holder's parts that are not spelled on it (breaker6's G1, G3; fixH): a
class holds what its bases and metaclass hold (``class J(K): pass``, ``J.c["a"] = 5``), a class
whose first-party base changes ``self``'s parts changes its own when called (an imported base
counts as one: its code is not read here), an imported first-party name holds what this module
stores into it (``util.H = CFG``, then ``util.H["a"] = 5`` or ``util.poke()``; also through a
view of the module, ``vars(util)["H"] = CFG``, ``util.__dict__["H"] = CFG``, or the module
fetched by name, ``sys.modules["shop.util"].H = CFG``, whose ``>`` target ``closure`` binds as
``<view>``: breaker7's H4; every value such a statement stores counts; and through a module-level
alias of it, ``u = util; u.H = CFG``, or an item of a display holding it, ``[util][0].H = CFG``,
which ``scopes`` reads as a store into each element: breakS's S8), and the object
stored escapes there: the store belongs to it, so the flows reading ``CFG`` reach ``shop.util.H``
and what changes that abroad (a third module's ``util.poke()``; a store in a def through a name
bound only to a literal counts for that: ``References.stores_later``); ``scopes`` reads namespace
entries, display items, shallow copies and a call's arguments as parts. And a class made with
first-party code that is handed it (G2: a decorator, a metaclass, a base's ``__init_subclass__``,
a value's ``__set_name__``; ``class_creation``) *escapes*: its statement counts as changing its
parts, so it belongs to what the class holds. Not a class holding a method flow (its flows reach
it member by member, and reach its decorators with it). Widening, on purpose: whether that code
really changes the class is not asked; inert bases and body calls are told apart
(``class_creation``), third-party code is left out. The cost, kept (G4, strict xfails): a holder
is one object, not its parts (``self.d["a"] = 5`` beside ``self.c = CFG`` counts as a change of
``CFG``), and holds for ever (``HOLD = [CFG]; HOLD = [{}]``), as aliases do (F8).

Also here: a module's literal ``__all__`` (what ``from m import *`` binds), and the *projection*
of a compound statement onto one name it imports (``with workflow.unsafe.imports_passed_through():``
blocks bind many names; each name's meaning is the block with the imports of other names left
out, so adding an unused import to the block changes nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import libcst as cst

from .canonical import literal_string_value
from .class_creation import CREATION_HOOKS, HANDED, escaping_classes
from .load_calls import NONE as NO_LOAD_CALLS
from .load_calls import LoadCalls
from .scopes import RESULT, References, import_bindings

__all__ = ["StatementFacts", "attachments", "call_refs", "changes_process_state", "chunk_runs", "import_time_runs", "PROCESS_STATE",
           "literal_all", "project_imports", "UNKNOWN_ALL", "split_if", "is_immutable_literal"]


@dataclass(slots=True)
class StatementFacts:
    """What one module-level statement binds and does (internal to the analysis)."""

    index: int
    names: set[str]  # module-level names it binds (imports included)
    own_names: set[str]  # of those, the ones bound other than by an import
    refs: References
    callable: bool  # a def or class: calling the bound name runs its code
    klass: bool = False  # a class: calling or subclassing it runs its bases' and metaclass's code too
    bases: frozenset[str] = frozenset()  # a class: the global roots of its bases and keywords
    flow_class: bool = False  # a class holding a method flow (its bases are reached by the flow)
    #: a decorated def: calling the name runs what the decorators returned, whose state is unknown
    #: (``functools.lru_cache``): a call can change the object itself
    decorated: bool = False
    #: ``NAME = [...]`` / ``{...}``: a builtin container, whose methods run nothing they hold
    display: bool = False
    #: a class: the code Python hands it to as it is made, and the creation hooks its body
    #: defines (``class_creation.creation_roots``, breaker6's G2)
    creation: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
    #: what its calls run at once beyond the names it calls (``load_calls``: ``[1].sort(key=load)``,
    #: an unconsumed ``map(load, xs)``), for the chunk's order
    calls: LoadCalls = NO_LOAD_CALLS


def attachments(facts: Sequence[StatementFacts], third_party: Callable[[str], bool],
                literal: Callable[[str], bool] = lambda name: False, *, star: bool = False,
                ) -> tuple[list[set[str]], dict[int, set[str]], list[set[str]]]:
    """For each statement (or piece of one: several facts may share an index), the module-level
    names (other than those it binds) it belongs to: names some statement of the module binds (a
    builtin such as ``property`` has no member), or, in a module with a star import (``star``),
    may bind (``from shop.g import *`` then ``setup()``: the binding model resolves ``setup``
    through the star import, D6); for each def and class (by index), the names
    of the module calling it can change (engine configuration is taken out afterwards by the
    profiles: ``frameworks.engine_config``); and for each statement what it may run when the
    module runs (``import_time_runs``). ``literal``: names bound only to immutable literals, which no call can change."""
    bound = {name for f in facts for name in f.names | set(f.refs.global_writes)}
    if star:
        bound |= {c.split(".")[0] for f in facts for c in f.refs.globals if _plain(c)}
    callables: dict[str, list[int]] = {}
    for f in facts:
        if f.callable:
            for name in f.own_names:
                callables.setdefault(name, []).append(f.index)
    facts_by = {f.index: f for f in facts if f.callable}
    held = _aliases(facts, literal)
    holders = _Holders(facts, held, literal, third_party, bound)
    #: names the module binds to a value by a statement that is no def, class or import: a table a
    #: call may be handed that holds a def (``T = {"h": hook}``, S13)
    tables = {name for f in facts if not f.callable for name in f.own_names} - set(callables)
    # a class made with first-party code that is handed it (a decorator, a metaclass, a base's
    # ``__init_subclass__``, a value's ``__set_name__``): that code may change its parts (G2)
    escaping = holders.escaping
    changes = _transitive_changes(facts, callables, third_party, literal, holders)
    for i, names in changes.items():
        # a def writing through a module-level alias (``c = CFG``; ``def s(): c["a"] = 5``)
        # changes what it stands for (L3), and the alias may be a part of it: what that holds
        names |= holders.through_aliases(names)
    # a class holding a method flow, called: the instance it builds may be the one the flow runs
    # on (``inst = Checkout(5)``, a DBOS configured instance), so the call is part of the class
    # (breaker2's C14; in another module the call of an imported name already counts)
    flow_classes = {name for f in facts if f.flow_class for name in f.own_names}
    standing = _flow_class_names(facts, flow_classes)
    for f in facts:
        if f.callable and f.index in changes:
            # a factory (``def make(): return Checkout(5)``): calling it builds the instance
            changes[f.index] |= {c for name in f.own_names for c in standing.get(name, ()) if c != name}
    out: list[set[str]] = []
    for f in facts:
        refs = f.refs
        # calling a module-level function or class changes what its code changes (below), not
        # the function or class itself: ``REGISTRY = Registry()`` is no part of ``Registry``.
        # Only a definition *above* the statement can be what it calls when it runs: the name of
        # a later one is not bound yet (``@invoke() def invoke`` calls the imported ``invoke``,
        # never itself)
        earlier = {c: [i for i in callables.get(c, ()) if i < f.index] for c in refs.calls_now}
        mentioned = set(refs.call_mentions) - {c for c in refs.name_calls_now
                                               if earlier.get(c) and c not in f.bases and c not in flow_classes
                                               and not any(facts_by[i].decorated for i in earlier[c])}
        if f.flow_class:
            mentioned -= f.bases  # its flows reach it member by member (and what its bases use, closure.inherited)
        mentioned = {r for r in mentioned if not literal(r)}
        if f.names:
            mentioned = {r for r in mentioned if not third_party(r)}
        attached = set(refs.stores) | mentioned
        # a store through a name bound to a module-level object (``c = CFG`` then ``c["a"] = 5``,
        # ``for c in (CFG,): c["a"] = 5``, ``put(c)``; not ``print(c)``) changes that object (L3)
        # and, the name standing maybe for a part of it, what that object holds (L4);
        # a change of a holder's parts (``HOLD[0]["a"] = 5``, ``K.c["a"] = 5``) or a run of
        # its code (``K.setup()``) changes what it holds (F6, L4: ``_Holders``)
        # (what a name handed on stands for is judged as a mention: not a third-party name when
        # the statement binds one, as above)
        # (a statement calling a name it binds calls the binding before it: ``@invoke() def invoke``)
        # (not a class holding a method flow: its flows reach it member by member, DESIGN §6; what
        # its decorators and bases are is hashed with the class header)
        deep = refs.deep | (f.own_names & escaping) if f.klass and not f.flow_class else refs.deep
        via = holders.through_aliases(mentioned & refs.passes) | holders.changed(
            deep, refs.methods_now - f.names, refs.name_calls_now - f.names)
        if f.names:
            via = {r for r in via if not third_party(r)}
        attached |= via | holders.through_aliases(refs.stores)
        # an object stored into another first-party module's object (``util.H = CFG``,
        # ``setattr(util, "H", CFG)``) escapes: any code reaching ``util.H`` may change it (a third
        # module's ``util.poke()``), so the store belongs to the object too (G3). A flow reading
        # ``CFG`` reaches the store, through it ``shop.util.H``, and what changes that abroad
        # Also through a view of the module (``vars(util)["H"] = CFG``, ``util.__dict__["H"] =
        # CFG``) or the module fetched by name (``sys.modules["shop.util"].H = CFG``: a ``>``
        # target): what the statement holds is keyed by the view there, so every value it stores
        # counts (H4; widening: a second holder stored in the same statement counts too); and
        # through a module-level alias of the module (``u = util; u.H = CFG``: breakS's S8)
        if holders.imported & (refs.stores | {t for s in refs.stores for t in held.get(s, ())}) \
                or any(r[:1] == ">" for r in refs.globals):
            attached |= {r for held in refs.holds.values() for r in held
                         if not r.startswith(RESULT) and r in bound and not third_party(r) and not literal(r)}
        for callee in refs.calls_now:
            for i in earlier[callee]:
                attached |= changes[i]
        # a def or class of the module handed to a call made at load (``run(hook)``, ``list(map(
        # hook, xs))``, ``json.loads(s, object_hook=hook)``): the callee may call it at once, so
        # what its code changes counts as for a call (breakS's S13; a function of another module
        # given to a call counts as called already, ``closure.call_effects``; the chunk's order
        # takes out what only ``DEFERRERS`` are handed, ``chunk_runs``)
        # (not handed to a read-only builtin, ``isinstance(x, K)``, but for those that call it,
        # ``sorted(xs, key=hook)``)
        handed = refs.call_mentions if refs.calls_now & EAGER_BUILTINS - bound else refs.passes
        # (a statement that binds a name: not through third-party names, as for ``via`` above:
        # ``pydantic_data_converter = DataConverter(payload_converter_class=K)``, samples-python)
        # (also a def a handed table holds, ``T = {"h": hook}; list(map(T["h"], xs))``: the holder's
        # items may be what the call is given, S13; widening: every def it holds)
        for name in handed - refs.calls_now:
            for given in {name} | (holders.reach(name) if name in tables else frozenset()):
                for i in callables.get(given, ()):
                    if i < f.index:
                        attached |= {r for r in changes[i] if not third_party(r)} if f.names else changes[i]
        # a name that may stand for a flow class or hold its instance (``K = Checkout``, ``inst =
        # K(5)``, ``make``) used in a call or stored through: the flow class's too (breaker3's D8)
        attached |= {c for name in attached | refs.call_mentions | refs.stores for c in standing.get(name, ())}
        attached &= bound
        attached -= f.names
        out.append(attached)
    runs = import_time_runs(facts, callables, bound, out, third_party)
    for f, attached, chains in zip(facts, out, runs):
        for chain in chains:
            # a def or class of the module the statement may run through a call it cannot
            # resolve (``HOOKS["s"]()``, ``s = setup; s()``): what its code changes here
            for i in callables.get(chain.removeprefix("()"), ()):
                attached |= changes[i] & bound - f.names
    return out, {i: names & bound for i, names in changes.items()}, runs


def import_time_runs(facts: Sequence[StatementFacts], callables: Mapping[str, list[int]], bound: set[str],
                     attached: Sequence[set[str]], third_party: Callable[[str], bool]) -> list[set[str]]:
    """For each statement (aligned with ``facts``), chains of what it may run when the module runs
    that its calls do not spell as a callee ``closure.changed_abroad`` follows by name (D6, D7):

    * a def or class of the module it calls by name (``boot()``): ``closure`` follows what the
      def's code runs into other modules and into process-wide state (``def boot():
      codecs.register(search)``; what it changes in the module itself is ``attachments``' part);
    * when it makes a call whose callee it cannot resolve to a known callee -- a subscript
      (``HOOKS["s"]()``), a call's result (``make()()``), a name or chain whose root the module
      binds by a statement that is no ``def``, ``class`` or import (an alias ``s = setup; s()``,
      ``reg = codecs.register; reg(f)``; a loop variable ``for f in [setup]: f()``; a table
      ``ns.f()``; not a method of a value that stands for third-party state, ``app.run()`` after
      ``app = FastAPI()``, as in ``attachments``): every function value that can flow into it may be what runs. Those are the
      chains rooted at an import, at a def or class of the module, or at a name only a star
      import may bind (``bound`` then holds it), among its references and, transitively, the
      references of the statements binding or changing the names it reads (``HOOKS = {"s":
      setup}``, ``HOOKS.append(setup)``, ``HOOKS["s"] = setup``; a def a decorator registers,
      ``@hook def boot``, is itself such a function). A method of a name bound only to a builtin
      container display (``HOOKS = []``, then ``HOOKS.append(setup)``) is no such call. A
      chain whose *call result* flows in (``make()()``, ``x = build(); x()``) is spelled
      ``()<chain>``: what the callee returns may be any function its code reaches
      (``closure.call_effects`` with ``values``).

    Widening, on purpose: every such function counts as called, whatever the table's key or the
    loop's order; an alias of a third-party function counts by what it resolves to
    (``codecs.register`` is process-wide state, ``codecs.lookup`` is not)."""
    binders: dict[str, list[int]] = {}  # name -> positions in ``facts`` of what binds or changes it
    for k, f in enumerate(facts):
        for name in f.names | f.refs.stores | attached[k]:
            binders.setdefault(name, []).append(k)
    imported = {name for f in facts for name in f.names - f.own_names}
    values = {name for f in facts if not f.callable for name in f.own_names}
    facts_at = {f.index: f for f in facts if f.callable}
    displays = {name for name in values if all(facts[k].display for k in binders[name] if name in facts[k].names)}
    # (a name the module also binds otherwise is not another module's code: ``@route() def route``)
    registering = {name for name in imported if not third_party(name)} - {n for f in facts for n in f.own_names}
    #: imported root -> (index, name) of the defs a decorator spelled on it registers (R2)
    registered: dict[str, list[tuple[int, str]]] = {}
    for f in facts:
        for root in _registered_into(f, registering):
            registered.setdefault(root, []).extend((f.index, name) for name in f.own_names)
    out: list[set[str]] = []
    for k, f in enumerate(facts):
        refs = f.refs
        runs = {c for c in refs.name_calls_now if any(i < f.index for i in callables.get(c, ()))}
        if registered:
            if _registered_into(f, registering):
                # a def another first-party module's decorator registers (``@util.reg def load``):
                # that module's code may call it at load, from anywhere (``util.fire()``, in any
                # module): for the fingerprint it runs here (``chunk_runs``: handed on, for the chunk)
                runs |= f.own_names
            elif not f.callable:
                # a later call into that module (``util.fire()``) may fire it: it runs there (breaker7's R2)
                runs |= {name for root in refs.calls_now & registered.keys() for i, name in registered[root] if i < f.index}
        if f.callable:
            # a def of the module its decorators or class keywords read, not as their callee
            # (``@functools.partial(deco, 1)``, ``@(lambda c: deco(c))``: breaker7's H1/K2):
            # handed the definition, it runs with it
            # (a class handed so is not counted as made: as an argument of any call, ``effects``' rule)
            runs |= {name for r in f.creation[0] if r[:2] == HANDED and (name := r[2:]) not in f.names
                     and any(i < f.index and not facts_at[i].klass for i in callables.get(name, ()))}
        # a def or class statement runs its decorators, defaults and (a class) its body: what a
        # decorator does with the definition is the documented limit of the module docstring
        opaque = not f.callable and (bool(refs.opaque_now) or any(
            c in values and (c in refs.name_calls_now or (c not in displays and not third_party(c)))
            for c in refs.calls_now))
        if opaque:
            runs |= _inputs(facts, k, binders, callables, imported, bound)
        out.append(runs)
    return out


#: builtins that call a function handed to them before they return (``sorted(xs, key=load)``,
#: ``list(map(load, xs))``): a def handed to one of them runs
EAGER_BUILTINS = frozenset({"sorted", "min", "max", "map", "filter"})

#: the standard library's calls that register what they are handed for later, as spelled on
#: what the module's imports bind (``atexit.register(load)``, ``from threading import Thread``):
#: the only third-party calls a def is handed on to. Any other third-party callee may call it at
#: once (``json.loads(s, object_hook=load)``, ``re.sub(p, load, s)``, ``collections.defaultdict(load)``;
#: breaker7's K1): the chunk then counts the def as run
DEFERRERS = frozenset({"atexit.register", "threading.Thread", "threading.Timer", "signal.signal",
                       # ``@dataclass class L: v = field(default_factory=load)``: run as instances are made
                       "dataclasses.dataclass", "dataclasses.field"})


def chunk_runs(facts: Sequence[StatementFacts], attached: Sequence[set[str]], runs: Sequence[set[str]],
               made: Sequence[str | tuple[set[str], set[str]] | None], third_party: Callable[[str], bool],
               targets: Callable[[str], list[str] | None],
               ) -> tuple[list[set[str]], list[set[str]], list[set[str]]]:
    """For each statement (aligned with ``facts``), what the chunk's order (``load_runs``'
    ``chunk_seeds``) takes as NOT run of what ``import_time_runs`` and ``attached`` count
    (breaker6's G7; the fingerprint keeps counting it, a widening that costs it nothing):

    * **handed on**: the names of ``attached`` the statement only hands to a call, when each of
      its calls is one of ``DEFERRERS`` (``atexit.register(load)``, ``T = threading.Thread(target=load)``,
      ``signal.signal(SIGTERM, load)``; none first-party, none ``EAGER_BUILTINS``): a def among them
      is registered for later, not called; the chunk must not start the modules it imports
      (live, they run when the registration fires, or never). A first-party callee may call
      what it is handed (``run(load)``, ``REG.add(load)``: its code is walked, its parameters
      are not): then nothing is taken out; so with any other third-party callee, which may call
      what it is handed at once (``functools.reduce(load, xs)``, ``json.loads(s, object_hook=load)``).
      Since fixX2 (K1, ``load_calls``): a call of a value that is no dotted name
      (``[1].sort(key=load)``) may call what it is handed, so nothing is taken out; a
      ``map``/``filter`` iterator nothing in the statement consumes (``M = map(load, xs)``)
      runs nothing yet; a registration fired at load by hand (``atexit._run_exitfuncs()``,
      ``signal.raise_signal(sig)``) runs at the firing statement (``analysis`` adds the defs
      registered so to its runs: ``load_calls.FIRERS``).
    * **constructed**: the class (or imported name) ``made`` says the statement only calls to
      bind or drop an instance (``OBJ = L()``, ``L(load)``; ``analysis._made``), when it is the
      statement's only first-party callee and nothing calls what it returned (``()L``): its
      construction runs (``__new__``, ``__init__``, ...), not its other methods; and a class
      statement's metaclass (``metaclass=M``: ``M(name, bases, ns)`` makes the class).
    * **subclassed**: a class statement's bases it does not call otherwise: defining a subclass
      runs a base's ``__init_subclass__`` (and its metaclass), not its methods."""
    bound = {name for f in facts for name in f.names}
    registering = {name for f in facts for name in f.names - f.own_names if not third_party(name)} - {
        n for f in facts for n in f.own_names}
    handed_out: list[set[str]] = []
    built_out: list[set[str]] = []
    sub_out: list[set[str]] = []
    for f, names, chains, shape in zip(facts, attached, runs, made):
        refs = f.refs
        first = {c for c in refs.calls_now if c in bound and not third_party(c)}
        first |= {root for c in chains if not third_party(root := c.removeprefix("()").lstrip("[").split(".")[0])}
        handed: set[str] = set()
        # ``M = map(load, xs)`` consumed nowhere in the statement: an iterator, nothing runs yet
        lazy = frozenset({"map", "filter"}) if f.calls.lazy_iterators else frozenset()
        if not first and not (refs.calls_now & EAGER_BUILTINS) - bound - lazy and not f.calls.opaque_call \
                and _only_deferrers(refs, targets, bound, lazy):
            handed = names - refs.calls_now - refs.stores
        if _registered_into(f, registering):
            handed |= f.own_names  # registered for later (``import_time_runs``): it runs where it is fired
        built: set[str] = set()
        sub: set[str] = set()
        if isinstance(shape, tuple):
            sub, built = shape
        elif shape is not None and first == {shape} and shape in refs.name_calls_now and "()" + shape not in chains:
            built = {shape}
        handed_out.append(handed)
        built_out.append(built)
        sub_out.append(sub)
    return handed_out, built_out, sub_out


#: builtins that wrap the function they are handed without calling it (``B.__init_subclass__ =
#: classmethod(hook)``: the hook runs when a subclass is made, ``RunIndex.registered``)
WRAPPING_BUILTINS = frozenset({"classmethod", "staticmethod", "property"})


def _registered_into(f: StatementFacts, registering: set[str]) -> set[str]:
    """The roots of ``registering`` (names bound by imports of first-party modules) a decorator
    of the def ``f`` is spelled on (``@util.reg``, ``@reg(1)`` with ``from shop.util import reg``):
    that module's code is handed the def and may keep it (breaker7's R2)."""
    if not f.callable or f.klass:
        return set()
    return {r[2:] for r in f.creation[0] if r[:2] == "d:" and r[2:] in registering}


def _only_deferrers(refs: References, targets: Callable[[str], list[str] | None], bound: set[str],
                    lazy: frozenset[str] = frozenset()) -> bool:
    """Whether every global root the statement calls is, by the imports binding it (``targets``),
    one of ``DEFERRERS`` called by name (``Thread(target=load)``) or a module the statement calls
    one of them on (``signal.signal(signal.SIGTERM, load)``: its other reads are no calls), or a
    builtin of ``WRAPPING_BUILTINS`` (or ``lazy``: an iterator builder nothing consumes) the
    module does not bind."""
    for root in refs.calls_now:
        if (root in WRAPPING_BUILTINS or root in lazy) and root not in bound:
            continue
        bound_to = targets(root)
        if not bound_to:
            return False
        spelled = [chain[len(root):] for chain in refs.globals if chain.startswith(root + ".")]
        for target in bound_to:
            if not (root in refs.name_calls_now and target in DEFERRERS
                    or any(target + rest in DEFERRERS for rest in spelled)):
                return False
    return True


def _inputs(facts: Sequence[StatementFacts], at: int, binders: Mapping[str, list[int]],
            callables: Mapping[str, list[int]], imported: set[str], bound: set[str]) -> set[str]:
    """The chains of ``import_time_runs``' second case for the statement ``facts[at]``, over a
    visited set (a value bound from itself ends)."""
    out: set[str] = set()
    seen = {at}
    todo = [at]
    while todo:
        f = facts[todo.pop()]
        if f.callable:
            out |= f.own_names  # a def that changes a name read (``@hook def boot``): it flows in
            continue
        refs = f.refs
        # a call whose result is the callee (``make()()``, ``make().run()``) may return the
        # function that runs; so may one that built a value the statement reads (``x = build()``
        # then ``x()``). A call whose result is only an argument (``loop.run_until_complete(main())``)
        # counts as called: its result is a value it computed, not a function it names
        built = {o[2:] for o in refs.opaque_now if o.startswith("()") and o != "()"}
        if f is not facts[at]:
            built |= refs.calls_now
        for chain in refs.globals:
            if not _plain(chain):
                continue
            root = chain.split(".")[0]
            mark = "()" if root in built else ""
            if root in imported or root in callables or (root in bound and root not in binders):
                out.add(mark + chain)
            for k in binders.get(root, ()):
                if k not in seen:
                    seen.add(k)
                    todo.append(k)
    return out


def _aliases(facts: Sequence[StatementFacts], literal: Callable[[str], bool]) -> dict[str, set[str]]:
    """Module-level name -> the other module-level names whose object it may hold or be part of
    (lead's L3): bound by a statement that is no def or class from a value that is one of them or
    part of one (``References.aliases``: ``c = CFG``, ``c = cfg.CFG["sub"]``, ``a, b = CFG, 1``,
    ``for c in (CFG,)``), transitively (``d = c``), in no particular order (a function body may
    store through a name bound below it). A name bound only to an immutable literal holds nothing
    a store can change (``literal``). Widening, on purpose: every name a statement binds stands
    for every root its value may be (``a, b = CFG, OTHER``: both for both)."""
    direct: dict[str, set[str]] = {}
    for f in facts:
        if not f.callable and f.refs.aliases:
            for name in f.own_names:
                direct.setdefault(name, set()).update(r for r in f.refs.aliases if r != name and not literal(r))
        for name, values in f.refs.rebinds.items():  # ``global c; c = CFG`` in a function (F7)
            direct.setdefault(name, set()).update(r for r in values if r != name and not literal(r))
    out: dict[str, set[str]] = {}
    for name in direct:
        found: set[str] = set()
        todo = [name]
        while todo:
            for r in direct.get(todo.pop(), ()):
                if r not in found and r != name:
                    found.add(r)
                    todo.append(r)
        out[name] = found
    return out


class _Holders:
    """What each module-level name may hold as a part of its object, and which changes reach it
    (F6, F7, L4; ``References.holds``/``deep``). A name holds what its bound values name
    (``HOLD = [CFG]``, ``NS = SimpleNamespace(c=CFG)``, ``inst = H()``), what is stored into it or
    given to its methods (``K.c = CFG``, ``HOLD.append(CFG)``), for a class what its body binds and
    its methods store on ``self`` (``class K: c = CFG``, ``self.c = CFG``), for a def what it
    returns or yields (``def get(): return CFG``), and what the names it stands for hold
    (``_aliases``), transitively (``inst = H()`` holds what ``H`` holds).

    A change reaches what a holder holds when it goes through a part (``HOLD[0]["a"] = 5``,
    ``K.c.update(a=5)``, ``get()["a"] = 5``, ``for c in HOLD: c["a"] = 5``), hands the holder to a
    call (``put(HOLD)``), calls a method of a first-party holder that is no builtin display
    (``K.setup()``, ``inst.reset()``: its code may change what it holds), or calls a class whose
    code changes a part of ``self`` (``class H: def __init__(self): self.c["a"] = 5``, then
    ``H()``). Not: a store into the holder itself (``HOLD[0] = 5``, ``K.x = 5``), a builtin
    display's method (``HOLD.append(5)``), a plain def called (what its code changes is its own
    rule), a third-party holder's method (``logger.info(CFG)`` keeps nothing a flow reads). What
    is held is first-party: a third-party object held (``URL = os.environ.get(...)`` holds
    ``os``, ``HOLD = [requests.Session()]``) is reached by the flows through the holder itself,
    and a third-party module's state changed through a holder (``MODS = [json]; MODS[0].dumps =
    f``) is a documented limit; a name bound only to an immutable literal holds nothing.
    Widening, on purpose: a holder holds everything its values name (``len(CFG)``, ``dict(CFG)``:
    no call is told from one that keeps its argument), for ever (no order: ``HOLD = [CFG]`` then
    ``HOLD = []`` still holds it), and a change of any part changes all it holds. A class holds
    what its bases and metaclass hold (G1), and a class statement that hands the class to
    first-party code as it is made (``escaping``, ``class_creation``: G2) changes its parts. A
    name bound by an import holds here only what this module stores into it or gives its
    methods (``util.H = CFG``: G3); what another module's object holds otherwise is that
    module's (``closure._held`` follows a def's or class's holdings, ``call_refs``' ``$`` chains,
    and ``closure.call_effects`` a value's)."""

    def __init__(self, facts: Sequence[StatementFacts], held: Mapping[str, set[str]],
                 literal: Callable[[str], bool], third_party: Callable[[str], bool], bound: set[str]) -> None:
        #: holder -> what it holds, unfiltered (``reach`` leaves out what is no first-party name
        #: of the module: filtering every edge up front cost more than the few walks it serves).
        #: A first-party imported name holds what this module stores into it or gives its methods
        #: (``util.H = CFG``: another module's global as the holder, G3); a third-party one keeps
        #: nothing a flow reads through it (``Deployment.build_from_flow(flow=f)``)
        own = {name for f in facts for name in f.own_names}
        imported = {name for f in facts for name in f.names - f.own_names} - own
        #: the first-party names bound by an import only: another module's objects
        self.imported = {name for name in imported if not third_party(name)}
        edges: dict[str, set[str]] = {}
        for f in facts:
            for key, roots in f.refs.holds.items():
                if key not in imported or not third_party(key):
                    edges.setdefault(key, set()).update(roots)
            if f.klass and f.bases:
                # a class holds what its bases (and metaclass) hold: an attribute it inherits is
                # theirs (``class J(K): pass``, then ``J.c["a"] = 5``: G1)
                for name in f.own_names:
                    edges.setdefault(name, set()).update(f.bases - {name})
        for name, targets in held.items():
            edges.setdefault(name, set()).update(targets)
        self.edges = edges
        self.bound = bound
        self.held = held
        self.third_party = third_party
        self.literal = literal
        binders: dict[str, list[StatementFacts]] = {}
        for f in facts:
            for name in f.own_names:
                binders.setdefault(name, []).append(f)
        self.displays = {name for name, fs in binders.items() if all(f.display for f in fs)}
        #: undecorated defs: calling one runs its code, whose changes are its own rule
        self.plain = {name for name, fs in binders.items()
                      if all(f.callable and not f.klass and not f.decorated for f in fs)}
        #: defs, decorated or not: what they hold is what they return, no part of the function
        self.functions = {name for name, fs in binders.items() if all(f.callable and not f.klass for f in fs)}
        #: classes whose code changes a part of ``self`` (or hands it on): calling one changes what it holds
        self.classes = {name for name, fs in binders.items() if any(f.klass for f in fs)}
        first_party = lambda r: r in bound and not third_party(r) and not literal(r)
        self.self_changing = _self_changing(binders, self.classes, first_party)
        #: classes whose statement hands them to first-party code as they are made (G2)
        creation = {name: [f.creation for f in fs if f.klass] for name, fs in binders.items() if name in self.classes}
        # a creation hook installed on a class of the module by another statement
        # (``B.__init_subclass__ = classmethod(hook)``, ``setattr(B, "__set_name__", f)``; a read
        # counts too: widening): the class runs it as its subclasses or owners are made (H3)
        for f in facts:
            for chain in f.refs.globals:
                root, _, rest = chain.partition(".")
                if rest.partition(".")[0] in CREATION_HOOKS and root in creation:
                    creation[root].append((frozenset(), frozenset({rest.partition(".")[0]})))
        self.escaping = escaping_classes(creation, first_party,
                                         {name for name, fs in binders.items() if not all(f.klass for f in fs)})
        self._reach: dict[str, frozenset[str]] = {}

    def reach(self, name: str) -> frozenset[str]:
        """Everything ``name`` may hold, through the holders and aliases it holds (a walk over a
        visited set: cycles end)."""
        found = self._reach.get(name)
        if found is None:
            out: set[str] = set()
            through: set[str] = set()  # callees whose results are held (``()H``): what they hand out
            todo = [name] if not self.literal(name) else []
            while todo:
                for r in self.edges.get(todo.pop(), ()):
                    if r.startswith(RESULT):
                        r = r[len(RESULT):]
                        if r not in through and r in self.bound and not self.third_party(r):
                            through.add(r)
                            todo.append(r)
                    elif r not in out and r != name and r in self.bound and not self.literal(r) and not self.third_party(r):
                        out.add(r)
                        todo.append(r)
            found = self._reach[name] = frozenset(out)
        return found

    def hits(self, deep: Iterable[str], methods: Iterable[str], called: Iterable[str]) -> set[str]:
        """The holders a change reaches the contents of: those changed through a part or handed
        on (``deep``), a first-party one that is no builtin display whose method is called
        (``methods``), a class called whose code changes a part of ``self`` or a value that is no
        def called (``called``: ``p = partial(f, CFG)``, then ``p()``; calling a def, decorated or
        not, changes nothing it returns)."""
        # (a def's parts are no part of what it returns, decorated or not: ``put(get)``,
        # ``DBOS.start_workflow(wf)`` change nothing ``get`` hands out; ``get()["a"] = 5`` spells
        # ``()get`` too)
        out = {n for n in deep if n in self.edges and n in self.bound and n not in self.functions}
        # a change of what a call returned (``c = get(); c["a"] = 5``): what a def or value
        # returns may be held (``def get(): return CFG``); a class's instance holds only the
        # parts it is given, which its own code changes only if it changes ``self``'s parts
        out |= {r for n in deep if n.startswith(RESULT) and (r := n[len(RESULT):]) in self.edges
                and r in self.bound and (r not in self.classes or r in self.self_changing)}
        out |= {n for n in methods if n in self.edges and n in self.bound and n not in self.displays
                and not self.third_party(n)}
        out |= {n for n in called if n in self.edges and n in self.bound and n not in self.displays and not self.third_party(n)
                and n not in self.functions and (n not in self.classes or n in self.self_changing)}
        return out

    def changed(self, deep: Iterable[str], methods: Iterable[str], called: Iterable[str]) -> set[str]:
        """What a change with these facts changes beyond what its own rules name: a first-party
        root whose part it changes (``HOLD[0].update(a=5)``, a local holding ``CFG`` changed in
        part; not a class whose instance's part changes, ``self.c["a"] = 5``: no call of a class
        changes the class) and what the holders it reaches the contents of hold (``hits``)."""
        deep = set(deep)
        own = {n for n in deep if n in self.bound and n not in self.classes
               and not self.third_party(n) and not self.literal(n)}
        return own | self.held_by(self.hits(deep, methods, called))

    def held_by(self, names: Iterable[str]) -> set[str]:
        """What the holders ``names`` hold (``reach``), together."""
        out: set[str] = set()
        for n in names:
            out |= self.reach(n)
        return out

    def through_aliases(self, names: Iterable[str]) -> set[str]:
        """For names a change goes through: what the module-level aliases among them stand for
        (L3: ``c = CFG`` then ``c["a"] = 5``) and, the alias being maybe a part of it, what that
        holds; for an alias of a call's result (``c = get()``: ``()get``), what the callee holds."""
        out: set[str] = set()
        for n in names:
            for t in self.held.get(n, ()):
                if t.startswith(RESULT):
                    out |= self.held_by(self.hits((t,), (), ()))
                else:
                    out.add(t)
                    out |= self.reach(t)
        return out


def _self_changing(binders: Mapping[str, list[StatementFacts]], classes: set[str],
                   first_party: Callable[[str], bool]) -> set[str]:
    """The classes whose code may change a part of ``self`` (or hand it on): their own methods'
    (``References.deep_later`` names the class), or a first-party base's, which runs on their
    instances too (``class J(K)`` with ``K.__init__`` storing through ``self.c``); an imported
    first-party base's code is not read here, so it may (G1: widening)."""
    out = {name for name in classes if any(f.klass and name in f.refs.deep_later for f in binders[name])}
    changed = True
    while changed:
        changed = False
        for name in classes - out:
            for f in binders[name]:
                if f.klass and any(first_party(b) and (b in out or b not in classes) for b in f.bases if b != name):
                    out.add(name)
                    changed = True
                    break
    return out


def _flow_class_names(facts: Sequence[StatementFacts], flow_classes: set[str]) -> dict[str, set[str]]:
    """The module-level names that may stand for a class holding a method flow, or for an
    instance of it, or build one (breaker3's D8), each with the flow classes it may stand for:
    the classes themselves; a name a statement that is no def or class binds from an expression
    using one (an alias ``K = Checkout``, an instance ``inst = K(5)``, ``INSTS = [Checkout(5)]``,
    ``inst = make()``); a def or class whose code calls one (a factory ``def make(): return
    Checkout(5)``, transitively). To a fixpoint, in no particular order (a function body runs
    after the module: it may call a name bound below it). Widening, on purpose: any use in such
    an expression counts (``name = Checkout.__name__`` too), and so does any call of one or of a
    method on one in a function (``def main(): return inst.run(ctx, 1)``): which value the
    expression or the call yields is not tracked."""
    standing: dict[str, set[str]] = {c: {c} for c in flow_classes}
    changed = bool(flow_classes)
    while changed:
        changed = False
        for f in facts:
            if f.flow_class:
                continue
            if f.callable:
                used = f.refs.calls | f.refs.calls_now | f.refs.method_calls
            else:
                used = {chain.split(".")[0] for chain in f.refs.globals}
            found = {c for name in used for c in standing.get(name, ())}
            for name in f.own_names:
                if found - standing.get(name, set()):
                    standing.setdefault(name, set()).update(found)
                    changed = True
    return standing


def _transitive_changes(facts: Sequence[StatementFacts], callables: Mapping[str, list[int]],
                        third_party: Callable[[str], bool], literal: Callable[[str], bool],
                        holders: _Holders) -> dict[int, set[str]]:
    """Names each def/class can change when called: its own writes, what the holders its code
    reaches the contents of hold (``_Holders``), plus those of the module's functions it calls,
    to a fixpoint (recursion terminates: the sets only grow)."""
    own: dict[int, set[str]] = {}
    calls: dict[int, set[int]] = {}
    stateful = {f.index: f.decorated for f in facts if f.callable}
    for f in facts:
        if not f.callable:
            continue
        refs = f.refs
        own[f.index] = set(refs.global_writes) | {
            r for r in refs.mutates if not literal(r) or r in refs.stores_later  # (G3, as in ``call_refs``)
        } | {r for r in refs.method_calls if not third_party(r) and not literal(r)} | {
            # a first-party name it calls that is no plain def of the module: an imported function
            # (what it changes is followed across modules, ``closure.call_effects``), a value built
            # by a call, a decorated def (its wrapper's state: a cache)
            r for r in refs.calls
            if not third_party(r) and not literal(r)
            and (r not in callables or any(stateful.get(i, False) for i in callables[r]))
        } | {r for r in holders.changed(refs.deep_later, refs.method_calls, refs.calls - refs.method_calls)
             if not third_party(r)}
        # a class: its bases and metaclass, and the defs its body hands to a call as it is made
        # (``__class_getitem__ = classmethod(gi)``, ``p = property(get)``): using the class may
        # run them (breakS's S7: ``L[int]`` runs ``gi``)
        called = refs.calls | refs.calls_now | refs.call_mentions if f.klass else refs.calls
        if f.klass:
            # a def of the module the class body binds as an attribute (``__init__ = hook``,
            # ``run = staticmethod(hook)``) is one of its methods: calling the class or a method
            # may run it (breakT's T5; one of another module is not told from a value here)
            called = called | {r for name in f.own_names for r in refs.holds.get(name, ()) if r in callables}
        calls[f.index] = {i for name in called for i in callables.get(name, ()) if i != f.index}
    changed = True
    while changed:
        changed = False
        for i, targets in calls.items():
            for j in targets:
                extra = own[j] - own[i]
                if extra:
                    own[i] |= extra
                    changed = True
    return own


def call_refs(fact: StatementFacts, third_party: Callable[[str], bool],
              literal: Callable[[str], bool] = lambda name: False,
              process: Callable[[str], bool] = lambda chain: False) -> tuple[str, ...]:
    """What calling the def or class of ``fact`` can change or run, as chains of its references
    (``closure.call_effects`` resolves them in the module and follows the first-party callees,
    across modules, transitively: breaker2's C11). The chains rooted at a name its code stores
    through, passes on, calls a method on or calls (``CFG["a"] = 5``, ``st.N = 5``,
    ``helper(3)``), every target it imports lazily (``=shop.cfg.CFG``: what it does with a local
    import is not tracked), and its own name when calling can change the object itself (a
    decorated def: the wrapper's state, ``functools.lru_cache``; not a class, as in
    ``attachments``: ``Registry()`` changes what its code does, not the class), and for a class
    its first-party bases and keywords (a
    subclass statement runs ``__init_subclass__`` and the metaclass, C7), and the ``>`` targets it
    stores into through a namespace view or a module fetched by name (``sys.modules["shop.h"].RATE
    = 5``: ``References.deferred_stores``, breaker3's D5). Widening: a call
    through something no global chain names (``cb()``, ``HOOKS[k]()``:
    ``References.opaque_calls``) may run any code the function can reach, so every chain it
    uses counts. Third-party names it only calls count only when the
    call changes process-wide state (``*codecs.register``: ``PROCESS_STATE``), as in the module's
    own rule (``json.dumps(x)`` changes no ``json`` state a flow reads); a chain that
    ``process`` says names such an API counts whenever the code uses it, called or not: kept in a
    local name and called through it (``reg = codecs.register; reg(search)``, D7), what it calls
    is the API all the same."""
    refs = fact.refs
    # (a store through a name bound only to a literal here: another module rebound it, G3)
    roots = set(refs.global_writes) | {r for r in refs.mutates if not literal(r) or r in refs.stores_later}
    roots |= {r for r in refs.deep_later - roots if not r.startswith(RESULT) and not literal(r) and not third_party(r)}
    if fact.klass:
        roots |= {r for r in fact.bases if not third_party(r)}  # subclassing, instantiating runs their code
    called = {r for r in refs.method_calls | refs.calls if not third_party(r) and not literal(r)} - roots
    out = set(refs.global_writes)
    for chain in refs.globals:
        root = chain.split(".")[0]
        if chain[0] == "=":
            out.add(chain)
        elif _plain(chain) and (refs.opaque_calls or root in roots):
            out.add(chain)
        elif _plain(chain) and root in called:
            # only called (``helper(3)``, ``REG.load()``, ``mod.init()``): a callee, and changed
            # unless it is a plain function (``closure.call_effects``)
            out.add("+" + chain)
        elif _plain(chain) and chain.split(".")[0] in refs.calls and third_party(chain.split(".")[0]):
            out.add("*" + chain)  # a third-party call: counts only if it changes process state (C6)
        elif _plain(chain) and process(chain):
            out.add("*" + chain)  # a process-state API used as a value (D7)
    if fact.decorated:
        out |= fact.own_names
    # what it holds (``class K: c = CFG``, ``def get(): return CFG``), ``$``-marked: a statement
    # of another module changing it (``K.c["a"] = 5``, ``get()["a"] = 5``) may change those
    # through it (F6, L4; ``closure.changed_abroad``); calling it does not (its code's own chains)
    out |= {"$" + r for name in fact.own_names for r in refs.holds.get(name, ())
            if _plain(r) and not literal(r) and not third_party(r)}
    out |= refs.deferred_stores  # ``>`` targets: stores into other modules through a view (D5)
    return tuple(sorted(out))


def _plain(chain: str) -> bool:
    return all(part.isidentifier() for part in chain.split("."))


#: process-wide state that code reads without naming it, by the qualified names that change it
#: (a call of one, a store into one or through it): ``"x".encode("shout")`` looks the codec up in
#: ``codecs``' registry, ``pickle``/``copy`` consult ``copyreg``, ``format(x, "n")`` and
#: ``time.strftime`` the locale, any deep recursion the recursion limit, ``str(10**5000)`` the
#: int digit limit, every ``print`` ``sys.stdout``, a warning raised by any library the filters,
#: every network library the default socket timeout, every file opened by a relative path the
#: working directory, any library reading the environment (``os.environ.setdefault``/``update``
#: and the like; a store ``os.environ["X"] = v`` is told from a read only by the package rule,
#: for flows that name ``os``) (breaker2's C6). A statement that changes one belongs to every flow of the
#: process that runs it (``closure.PROCESS``), whatever the flow names. Not here, by choice:
#: ``logging`` configuration (output, not behaviour; named by flows that log), ``sys.path``
#: (loom resolves modules from the tree, DESIGN §6), ``sys.stdout``/``sys.excepthook`` and the
#: like (output, as logging), ``random.seed`` (flows name ``random``),
#: ``decimal`` contexts (per thread; flows name ``decimal``: the package rule covers them).
PROCESS_STATE = frozenset({
    "codecs.register", "codecs.register_error", "codecs.unregister",
    "copyreg.pickle", "copyreg.constructor", "copyreg.add_extension", "copyreg.dispatch_table",
    "locale.setlocale", "time.tzset", "mimetypes.add_type", "mimetypes.init",
    "sys.setrecursionlimit", "sys.set_int_max_str_digits", "sys.setswitchinterval", "sys.settrace",
    "sys.setprofile", "sys.addaudithook",
    "threading.settrace", "threading.setprofile", "threading.excepthook", "threading.stack_size",
    "warnings.simplefilter", "warnings.filterwarnings", "warnings.resetwarnings", "warnings.filters",
    "warnings.showwarning", "warnings.formatwarning",
    "os.environ.setdefault", "os.environ.update", "os.environ.pop", "os.environ.popitem", "os.environ.clear",
    "os.putenv", "os.unsetenv", "os.chdir", "os.umask",
    "socket.setdefaulttimeout", "asyncio.set_event_loop_policy", "io.text_encoding",
})


def changes_process_state(target: str) -> bool:
    """Whether a qualified name a statement reaches (``codecs.register``, ``os.environ.update``,
    ``sys.stdout.write``: a call of it or a store through it) is in ``PROCESS_STATE``."""
    parts = target.split(".")
    return any(".".join(parts[:i]) in PROCESS_STATE for i in range(2, len(parts) + 1))


# -- rule 2: a module-level ``if`` chain judged per inner statement ------------------------------

#: expressions that run code when evaluated (a test holding one keeps its chain whole)
_RUNS_CODE = (cst.Call, cst.Await, cst.NamedExpr, cst.Lambda, cst.Yield, cst.ListComp, cst.SetComp,
              cst.DictComp, cst.GeneratorExp, cst.FormattedString)


def split_if(stmt: cst.CSTNode) -> list[cst.If] | None:
    """The pieces of a module-level ``if`` chain: one per statement of each branch, each the chain
    with that statement alone in its branch (the bodies of the branches before it ``pass``, the
    branches after it left out), in source order. None when the chain's tests may run code or
    there is at most one statement (nothing to split). Whether the chain binds a name, and
    whether a piece changes what the tests read, is for the caller to decide."""
    if not isinstance(stmt, cst.If):
        return None
    branches: list[cst.If] = []
    node: cst.If = stmt
    while True:
        if _runs_code(node.test):
            return None
        branches.append(node)
        if not isinstance(node.orelse, cst.If):
            break
        node = node.orelse
    otherwise = node.orelse if isinstance(node.orelse, cst.Else) else None
    slots = [(i, s) for i, b in enumerate(branches) for s in _statements(b.body)]
    if otherwise is not None:
        slots += [(len(branches), s) for s in _statements(otherwise.body)]
    if len(slots) < 2:
        return None
    return [_chain(branches, otherwise, at, inner) for at, inner in slots]


def _runs_code(expr: cst.CSTNode) -> bool:
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, _RUNS_CODE):
            return True
        stack.extend(node.children)
    return False


def _statements(suite: cst.BaseSuite) -> list[cst.CSTNode]:
    # ``if x: a(); b()`` on one line is one statement (its small statements run together)
    return list(suite.body) if isinstance(suite, cst.IndentedBlock) else [suite]


def _only(suite: cst.BaseSuite, inner: cst.CSTNode | None) -> cst.BaseSuite:
    if isinstance(suite, cst.IndentedBlock):
        return suite.with_changes(body=[inner if inner is not None else cst.SimpleStatementLine([cst.Pass()])])
    return suite if inner is not None else suite.with_changes(body=[cst.Pass()])


def _chain(branches: list[cst.If], otherwise: cst.Else | None, at: int, inner: cst.CSTNode) -> cst.If:
    orelse: cst.If | cst.Else | None = None
    if at == len(branches):
        assert otherwise is not None
        orelse = otherwise.with_changes(body=_only(otherwise.body, inner))
    for i in range(min(at, len(branches) - 1), -1, -1):
        b = branches[i]
        orelse = b.with_changes(body=_only(b.body, inner if i == at else None), orelse=orelse)
    assert isinstance(orelse, cst.If)
    return orelse


def is_immutable_literal(node: cst.BaseExpression | None) -> bool:
    """A value no call can change: a number, a string (not an f-string with fields), bytes,
    ``None``/``True``/``False``/``...``, a signed number, or a tuple of those."""
    if node is None:
        return False
    if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.Ellipsis)):
        return True
    if isinstance(node, cst.ConcatenatedString):
        return is_immutable_literal(node.left) and is_immutable_literal(node.right)  # type: ignore[arg-type]
    if isinstance(node, cst.Name):
        return node.value in ("None", "True", "False")
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        return isinstance(node.expression, (cst.Integer, cst.Float, cst.Imaginary))
    if isinstance(node, cst.Tuple):
        return all(isinstance(el, cst.Element) and is_immutable_literal(el.value) for el in node.elements)
    return False


#: ``literal_all`` of a module whose ``__all__`` is computed: every name may be exported
UNKNOWN_ALL = "?"


def literal_all(statements: Iterable[cst.CSTNode]) -> tuple[str, ...] | str | None:
    """The names of ``__all__`` when every statement that binds or changes it is a literal
    assignment or ``+=`` (a list or tuple of strings); ``UNKNOWN_ALL`` otherwise; None when the
    module has no ``__all__`` (a star import then binds its public names)."""
    names: list[str] | None = None
    for stmt in statements:
        small = stmt.body if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        value = None
        if small is not None and isinstance(small[0], cst.Assign) and len(small[0].targets) == 1 \
                and _is_all(small[0].targets[0].target):
            value, extend = small[0].value, False
        elif small is not None and isinstance(small[0], cst.AugAssign) and _is_all(small[0].target) \
                and isinstance(small[0].operator, cst.AddAssign):
            value, extend = small[0].value, True
        items = _literal_strings(value) if value is not None else None
        if items is None or (extend and names is None):
            return UNKNOWN_ALL
        names = (names or []) + items if extend else items
    return None if names is None else tuple(names)


def _is_all(target: cst.BaseExpression) -> bool:
    return isinstance(target, cst.Name) and target.value == "__all__"


def _literal_strings(node: cst.BaseExpression) -> list[str] | None:
    if not isinstance(node, (cst.List, cst.Tuple)):
        return None
    out = []
    for el in node.elements:
        if not isinstance(el, cst.Element):
            return None
        value = literal_string_value(el.value)
        if not isinstance(value, str):
            return None
        out.append(value)
    return out


def project_imports(stmt: cst.CSTNode, name: str, resolve_from) -> cst.CSTNode:  # noqa: ANN001
    """``stmt`` (a ``with`` or ``if`` block) with the imports that bind names other than
    ``name`` left out. A ``try`` body is kept whole: an import that fails there decides which
    handler runs, so every import in it is part of every name it binds."""
    if isinstance(stmt, cst.With):
        return stmt.with_changes(body=_project_suite(stmt.body, name, resolve_from))
    if isinstance(stmt, cst.If):
        orelse = stmt.orelse
        if isinstance(orelse, cst.If):
            orelse = project_imports(orelse, name, resolve_from)  # type: ignore[assignment]
        elif isinstance(orelse, cst.Else):
            orelse = orelse.with_changes(body=_project_suite(orelse.body, name, resolve_from))
        return stmt.with_changes(body=_project_suite(stmt.body, name, resolve_from), orelse=orelse)
    return stmt


def _project_suite(suite: cst.BaseSuite, name: str, resolve_from) -> cst.BaseSuite:  # noqa: ANN001
    kept: list[cst.BaseStatement] = []
    for stmt in suite.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            smalls = []
            for small in stmt.body:
                if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
                    aliases = [a for a, (local, _) in zip(small.names, import_bindings(small, resolve_from))
                               if local == name] if _binds_all_resolved(small, resolve_from) else list(small.names)
                    if not aliases:
                        continue
                    last = aliases[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                    small = small.with_changes(names=[*aliases[:-1], last])
                smalls.append(small)
            if smalls:
                kept.append(stmt.with_changes(body=smalls))
        elif isinstance(stmt, (cst.With, cst.If)):
            kept.append(project_imports(stmt, name, resolve_from))  # type: ignore[arg-type]
        else:
            kept.append(stmt)
    if not kept:
        kept = [cst.SimpleStatementLine([cst.Pass()])]
    return suite.with_changes(body=kept)


def _binds_all_resolved(node: cst.Import | cst.ImportFrom, resolve_from) -> bool:  # noqa: ANN001
    """Whether ``import_bindings`` names every alias of ``node`` (a relative import beyond the
    top package binds nothing it can name: such a statement is kept whole)."""
    return len(import_bindings(node, resolve_from)) == len(node.names)  # type: ignore[arg-type]
