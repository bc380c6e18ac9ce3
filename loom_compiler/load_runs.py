"""What a module-level statement runs when its module is imported, and what that code imports.

One rule for the fingerprint and the chunk (issue 12, breaker5's F1/F3/F11/F12/F13): which
modules run for a flow (``analysis``: ``ModuleSummary.runs``; ``closure``: the modules whose
statements abroad count, ``<loads>``, a module's own defs storing through ``sys.modules``) and
where a chunk starts each module (``bundle.chunk_order``; ``bundle.chunk_plan.replaces_itself``)
come from the same walk, so the chunk runs what the hash covers (the chunk's order over a
narrower count of the same seeds, below: never more than the hash covers).

Python runs a module's statements in order; a statement runs the code it calls, that code runs
what it calls in turn, in any module, and an import inside such code (``def load(): import
shop.x``, ``importlib.import_module("shop.x")``) runs its module right then, while the importer
is still loading. The rule, for one statement (``load_imports``):

* **What it runs** (its seeds, ``seeds``): the defs, classes and values of its module it calls
  (``Unit.runs``: by name, through an attribute, as a decorator, a base, in a class body, a value
  flowing into a call it cannot resolve, ``effects.import_time_runs``), and every module-level
  name it hands to a call or stores through (``Unit.attached``). Widening, for the fingerprint: a function
  handed on (``run(helper)``, ``atexit.register(cleanup)``) may be called by what receives it.
* **What that runs in turn** (``RunIndex.run``): a def, class or value of the module reached runs,
  and so may every module-level name its code names (a name read, not proven called: widening);
  a class may run any of its methods (``L().load()``, ``__init__``, ``__init_subclass__``); a
  value may be a lambda or hold one (``load = lambda: ...``, ``HOOKS = {"s": lambda: ...}``).
* **Across modules**: a name bound by an import (``from shop.util import load``; ``util.load``
  after ``from shop import util``; a lazily imported ``=shop.x.f``) is followed into the module
  it names, through re-exports, by the same rule there (``LoadRuns``).
* **What it imports**: each reached piece of code's imports (``!<module>``: its body's import
  statements) and literal importer calls and lazily imported names (``=<target>``).

A statement's *own* imports are not part of it: its import statements and its load-time
importer calls are each caller's to read (``chunk_order`` from the statement's text, exactly;
``analysis`` from its references). What it only defines (a lambda's body, a method) runs when
something calls it: then it is that caller's seed.

The chunk's count is narrower (breaker6's G7; ``chunk_seeds``, ``effects.chunk_runs``). A
module a statement's code imports *starts there* in the chunk (``chunk_order``), so counting
code that does not run makes the chunk run a module live never imports at that point (the flow
then sees what its statements did, or an import cycle back into the half-run module fails).
For the chunk's order, a statement runs what it calls, not what it only hands on:

* a def handed only to the standard library's registering calls (``effects.DEFERRERS``, as
  spelled on their module: ``atexit.register(load)``, ``T = threading.Thread(target=load)``,
  ``signal.signal(SIG, lambda *a: load())``) is not called; handed to any other third-party
  callee it counts as run (``json.loads(s, object_hook=load)``, ``re.sub(p, load, s)``:
  breaker7's K1) (``HANDED``; a value standing for
  one, ``HOOK = load``, hands it on too). Handed to first-party code (``run(load)``,
  ``REG.add(load)``), it may be: the callee's parameters are not tracked, so it counts;
* a class the statement only calls to make an instance (``OBJ = L()``, ``MADE``) runs its
  construction (``__new__``, ``__init__``, ``__post_init__``, ``__del__``, its metaclass's
  ``__call__``, inherited ones through its bases) and what that code reaches through ``self``,
  not its other methods; a class statement runs its bases' ``__init_subclass__``
  (``SUBCLASSED``) and its metaclass's construction, not their methods. Anything else done with
  the class or its instance in the statement (``L().go()``, ``run(L())``), an instance escaping
  its construction (``register(self)``, ``getattr(self, n)``), a base that is no dotted name:
  the whole class, as for the fingerprint;
* an ``if`` with no ``else`` whose test is ``False`` or ``TYPE_CHECKING`` as ``typing`` (or
  ``typing_extensions``) binds it (``chunk_order._false_tests``: not a name the module rebinds,
  ``TYPE_CHECKING = True``, or imports from elsewhere) runs nothing (``chunk_order``), unless a
  module of the chunk may set ``TYPE_CHECKING`` on a module (``typing.TYPE_CHECKING = True``:
  ``chunk_order.sets_type_checking``, breaker7's K3): then every such body counts.

Costs. The fingerprint keeps the wide count: a module counted as running brings only those of
its statements that change what the flow reaches (``closure._imported_effects``), so code
registered for later (``atexit.register(load)``, a thread never started, ``signal.signal``, a
method of an instance nothing calls, an ``if TYPE_CHECKING:`` or ``if False:`` body) moves the
hash when what it imports changes: one more version, never a missed one (breaker6's G6, a
documented cost). The chunk's narrow count is a choice where the chunk cannot be right both
ways: third-party code that calls at once what it is handed (``functools.reduce(load, xs)``, a
library's ``apply(load)``) starts in the chunk, at that statement, nothing of what ``load``
imports (its module's statements then run where a later import starts it, or not at all), and
a thread started at load runs its target's imports in the chunk at ``start()`` (live, at some
point while it runs). Measured on the real repositories of ``benchmarks/bench_closure_width.py``
(session 8, against main without the narrowing): every chunk and codeHash byte-identical
(samples-python 191 chunks; prefect-recipes 27 under the loom and the prefect profile; the
builds that refuse, identically).

Not followed (documented limits): a callee computed from nothing the module names (a parameter
called with a third-party value); a decorator calling the function it decorates at load
(``@run_now def g``: the body is not counted, ``effects``' documented limit; a decorator of
another first-party module, ``@util.reg def load``, is breaker7's R2: the fingerprint counts the
def as run, the chunk runs it at a later call into ``util`` made by the same module, ``util.fire()``,
not at one made by another module, a documented limit); a module handed on
whole (``register(util)``, ``getattr(util, name)()``): what any of its code imports; a metaclass's
``__getitem__`` and an instance's (``REG["k"]`` with ``REG = Registry()``).

Followed since breaker6's G5/G8 (session 8): a def's decorators and defaults run as it is
defined (``def f(a=importlib.import_module("shop.x"))``: ``analysis``' header loads for the hash,
``chunk_order._load_time_nodes`` for the chunk); a code string run at load imports what it
spells (``exec("import shop.x")``: ``scopes.References.code_loads``; the chunk refuses such a
flow, ``chunk_limits.refuse_code_strings``: it cannot rewrite an import inside a string); a
class of the module defining ``__class_getitem__`` subscripted at load runs
(``analysis.subscripted_classes``: ``L[int]``, read from the text); since breaker7's R1
(session 9, ``subscript_runs``) also in a def's annotations evaluated as it is defined, and a
name of another first-party module subscripted (``SUBSCRIPTED``: ``[L``; there a class runs its
``__class_getitem__``, a value nothing); a def or statement
registering code into a name through one of its attributes (``@render.register(int) def _``,
``render.register(int, _impl)``) runs with that name when it is called (``RunIndex.registered``:
a ``singledispatch`` dispatcher; not when the name is only handed on).

Rejected: a walk per consumer (the fingerprint, the chunk's order and its ``sys.modules`` check
each had one and disagreed: F2/F3/F13), and recording call sites in a new pass over the nodes
(every field used here is one the analysis records anyway).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from .analysis import ModuleSummary, Unit

__all__ = ["LoadRuns", "Lookup", "RunIndex", "chunk_seeds", "load_imports", "module_load_imports", "seeds", "units_run"]

#: kinds of unit whose code may run when a statement names it (an import is followed into its module)
_CODE_KINDS = frozenset({"function", "class", "constant", "statement"})


def _global(ref: str) -> bool:
    """Whether a reference is a dotted chain rooted at a global name (no mark: ``!``, ``=``, ...)."""
    return ref[:1] == "_" or ref[:1].isalpha()


def seeds(unit: Unit) -> list[str]:
    """The chains of module-level names ``unit`` may run as it runs at load (module docstring):
    ``Unit.runs`` (``()`` marks dropped: what a call returns is the callee's code too) and
    ``Unit.attached``, each name as the chains the statement spells with it (``util.load()``
    runs ``util.load``, not all of ``util``)."""
    out = [r.removeprefix("()") for r in unit.runs]
    if unit.attached:
        attached = set(unit.attached)
        spelled = [r for r in unit.references if _global(r) and r.partition(".")[0] in attached]
        out += spelled
        out += attached.difference(r.partition(".")[0] for r in spelled)
    return out


#: marks of the chunk's chains (``chunk_seeds``): a name only handed on (a def reached so is not
#: called), a name only called to make an instance (a class reached so runs its construction),
#: a base only subclassed (its ``__init_subclass__``), a class whose instance is called
HANDED, MADE, SUBCLASSED, CALLED = "~", "+", "-", "*"
#: and a name subscripted (``L[int]``; ``subscript_runs``): a class runs its ``__class_getitem__``,
#: any other value nothing of its own (breaker7's R1)
SUBSCRIPTED = "["
_MARKS = HANDED + MADE + SUBCLASSED + CALLED + SUBSCRIPTED
#: per mark, what a class runs of its own code, and how its bases and metaclass are reached in
#: turn: making an instance (``type.__call__``: ``__new__``, ``__init__``; a dataclass's
#: ``__post_init__``; ``__del__`` when the statement drops it; for a metaclass making a class,
#: ``__prepare__``), its metaclass's ``__call__`` doing it; defining a subclass (a base's
#: ``__init_subclass__``; the metaclass makes the class); calling an instance (``__call__``)
_CLASS_RUNS = {
    MADE: (("__new__", "__init__", "__post_init__", "__attrs_post_init__", "__del__", "__prepare__"), MADE, CALLED),
    SUBCLASSED: (("__init_subclass__",), SUBCLASSED, MADE),
    CALLED: (("__call__",), CALLED, ""),
    SUBSCRIPTED: (("__class_getitem__",), SUBSCRIPTED, ""),
}


def chunk_seeds(unit: Unit) -> list[str]:
    """``seeds`` as the chunk's order takes them (breaker6's G7): a chain rooted at a name the
    statement only hands on (``Unit.handed_on``) marked ``HANDED``, at a name it only calls to
    make an instance (``Unit.constructed``) marked ``MADE``, at a base it only subclasses
    (``Unit.subclassed``) marked ``SUBCLASSED`` (``RunIndex.reached`` says what each runs). The fingerprint keeps the unmarked ``seeds``: wider, which costs it nothing."""
    out = seeds(unit)
    handed, made, sub = getattr(unit, "handed_on", ()), getattr(unit, "constructed", ()), getattr(unit, "subclassed", ())
    if not handed and not made and not sub:
        return out
    return [HANDED + c if (root := c.partition(".")[0]) in handed else MADE + c if root in made
            else SUBCLASSED + c if root in sub else c for c in out]


class _Part(NamedTuple):
    """What a statement runs of a class it makes an instance of (``RunIndex.constructed``)."""

    kind: str
    references: tuple[str, ...]


class RunIndex:
    """One module's units by the name they bind, for the walk (built once per summary)."""

    __slots__ = ("_made", "binders", "imported", "registered")

    def __init__(self, units: Sequence[Unit]) -> None:
        self._made: dict[tuple[int, str], tuple[_Part, tuple[str, ...]] | None] = {}
        #: name -> the defs and classes registered into it by a decorator spelled on it
        #: (``@render.register(int) def _``), and the statements handing it code through one of
        #: its attributes (``render.register(int, _impl)``): calling the name may run them (a
        #: ``singledispatch`` function's dispatcher, a registry's ``__call__``; breaker6's G5/G8)
        self.registered: dict[str, list[Unit]] = {}
        #: name -> the units that bind it other than by an import (their code may run)
        self.binders: dict[str, list[Unit]] = {}
        #: name -> what the imports binding it bind it to (absolute: ``shop.util.load``; for
        #: ``import a.b``, the top package ``a``)
        self.imported: dict[str, list[str]] = {}
        for u in units:
            for local, target in u.aliases:
                self.imported.setdefault(local, []).append(target)
            if u.kind in _CODE_KINDS:
                for name in u.names:
                    self.binders.setdefault(name, []).append(u)
            if u.kind in ("function", "class", "statement") and u.attached:
                for name in u.attached:
                    if any(r.startswith(name + ".") for r in u.references):
                        self.registered.setdefault(name, []).append(u)

    def reached(self, chains: Iterable[str], foreign: list[str]) -> list[Unit]:
        """The module's units running the code ``chains`` name may run, in no particular order;
        ``foreign`` gets the absolute chains of other modules' names they name (through the
        module's imports: ``util.load`` -> ``shop.util.load``)."""
        found: dict[int, Unit] = {}
        todo = list(chains)
        seen: set[str] = set()
        imported, binders, registered = self.imported, self.binders, self.registered
        while todo:
            chain = todo.pop()
            if chain in seen:
                continue
            seen.add(chain)
            mark = chain[:1] if chain[:1] in _MARKS else ""
            bare = chain[len(mark):]
            root, dot, rest = bare.partition(".")
            for target in imported.get(root, ()):
                # ``import shop.util`` binds ``shop`` to the package: the chain is absolute already
                foreign.append(mark + (target + dot + rest if target != root else bare))
            for u in binders.get(root, ()):
                if mark == HANDED and u.kind == "function":
                    continue  # a def handed on is not called by handing it on (G7)
                if mark in _CLASS_RUNS and u.kind == "class" and (made := self.constructed(u, mark)) is not None:
                    part, more = made
                    if id(part) not in found:
                        found[id(part)] = part  # type: ignore[assignment]
                        todo.extend(more)
                    continue
                if mark == SUBSCRIPTED and u.kind != "class":
                    continue  # a value subscripted: a builtin's ``__getitem__`` (or a documented limit)
                if id(u) not in found:
                    found[id(u)] = u
                    # a value handed on hands on what it is (``HOOK = load``, then ``atexit.register(HOOK)``)
                    down = HANDED if mark == HANDED and u.kind == "constant" else ""
                    todo.extend(down + ref for ref in u.references if _global(ref))
            if registered and not dot and mark not in (HANDED, SUBSCRIPTED) and root in registered and root in binders:
                # what it dispatches to when called (``render(1)``; not ``render.register``)
                for u in registered[root]:
                    if id(u) not in found:
                        found[id(u)] = u
                        todo.extend(ref for ref in u.references if _global(ref))
        return list(found.values())

    def constructed(self, unit: Unit, mark: str) -> tuple[_Part, tuple[str, ...]] | None:
        """What making an instance of the class ``unit`` runs (a ``MADE`` chain), or defining a
        subclass of it (``SUBCLASSED``): its methods of ``_CLASS_RUNS`` and the methods they
        reach through their first parameter (``self.go()``, ``self.prop``), transitively; made,
        also every method with a decorator other than ``property``/``staticmethod``/
        ``classmethod`` (a validator a base's ``__init__`` may call: pydantic's
        ``@field_validator``) and what the class body names outside its methods (a
        ``default_factory``, a descriptor): the part of the class's references that code spells
        (its imports, its literal importer calls, the module-level names it reads); and its bases (made or
        subclassed in turn: an inherited ``__init__``) and its metaclass (made: its ``__call__``
        makes the instance, its ``__new__`` the subclass). None, the whole class (widening): a
        first parameter that escapes or is read by computed name in that code (``register(self)``,
        ``getattr(self, n)``: anything may then call any method), a base that is no dotted name,
        a source that does not parse as one class."""
        key = (id(unit), mark)
        if key not in self._made:
            self._made[key] = _construction(unit, mark)
        return self._made[key]

    def run(self, chains: Iterable[str], out: list[str], foreign: list[str]) -> None:
        """Add to ``out`` what running the code ``chains`` name imports, and to ``foreign`` the
        absolute chains of other modules' names that code may run (``LoadRuns`` follows them): a
        name it imports lazily (``=shop.x.f``) may be called too."""
        for u in self.reached(chains, foreign):
            for ref in u.references:
                if ref[:1] == "=":
                    out.append(ref[1:])
                    foreign.append(ref[1:])
                elif ref[:1] == "!":
                    out.append(ref[1:])


def _construction(unit: Unit, mark: str) -> tuple[_Part, tuple[str, ...]] | None:
    """``RunIndex.constructed`` of one class statement (computed from its text)."""
    try:
        tree = ast.parse(unit.source)
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.ClassDef):
        return None
    node = tree.body[0]
    bases = [_dotted(b) for b in node.bases]
    metas = [_dotted(k.value) for k in node.keywords if k.arg == "metaclass"]
    if None in bases or None in metas or any(k.arg is None for k in node.keywords):
        return None  # ``class K(make())``, ``class K(**kw)``: what it derives from is computed
    methods = {n.name: n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    own, base_mark, meta_mark = _CLASS_RUNS[mark]
    todo = [m for m in own if m in methods]
    names: set[str] = set()  # names the code reads
    if mark == MADE:
        todo += [m for m, fn in methods.items() if any(not _plain_decorator(d) for d in fn.decorator_list)]
        for statement in node.body:
            if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names.update(n.id for n in ast.walk(statement) if isinstance(n, ast.Name))
    taken: set[str] = set()
    spelled: set[str] = set()  # what its import statements spell (``shop.x``; ``x`` of ``from . import x``)
    strings: set[str] = set()  # its string constants (an importer's literal argument among them)
    while todo:
        name = todo.pop()
        if name in taken:
            continue
        taken.add(name)
        fn = methods[name]
        args = fn.args.posonlyargs + fn.args.args
        me = args[0].arg if args else None
        objects = {id(n.value) for n in ast.walk(fn) if isinstance(n, ast.Attribute)}
        for node in ast.walk(fn):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == me:
                if node.attr in methods:
                    todo.append(node.attr)
            elif isinstance(node, ast.Name):
                if node.id == me and id(node) not in objects:
                    return None  # the instance escapes (or is read by computed name): any method may run
                names.add(node.id)
            elif isinstance(node, ast.Import):
                spelled.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                spelled.add(base)
                spelled.update(f"{base}.{a.name}" if base else a.name for a in node.names)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                strings.add(node.value)
    refs = tuple(r for r in unit.references
                 if (r[:1] == "!" and any(_ends_with(r[1:], s) for s in spelled if s))
                 or (r[:1] == "=" and any(_ends_with(r[1:], s.lstrip(".")) for s in strings if s.strip(".")))
                 or (_global(r) and r.partition(".")[0] in names))
    more = (*(ref for ref in refs if _global(ref)), *(base_mark + b for b in bases if b),
            *(meta_mark + m for m in metas if m and meta_mark))
    return _Part(unit.kind, refs), more


#: decorators that make a method no code a construction runs by itself
_PLAIN_DECORATORS = frozenset({"property", "staticmethod", "classmethod", "cached_property", "functools.cached_property"})


def _plain_decorator(node: ast.expr) -> bool:
    """``@property``, ``@staticmethod``, ``@classmethod``, ``@x.setter``/``.getter``/``.deleter``."""
    dotted = _dotted(node) if not isinstance(node, ast.Subscript) else None
    return dotted is not None and (dotted in _PLAIN_DECORATORS or dotted.rpartition(".")[2] in ("setter", "getter", "deleter"))


def _dotted(node: ast.expr) -> str | None:
    """The dotted chain an expression spells (``B``, ``mod.B``; ``Generic[T]``: ``Generic``, a
    subscript's class); None for anything else."""
    if isinstance(node, ast.Subscript):
        node = node.value
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _ends_with(dotted: str, spelled: str) -> bool:
    return dotted == spelled or dotted.endswith("." + spelled)


def units_run(units: Sequence[Unit], chains: Iterable[str]) -> list[Unit]:
    """The units of one module running the code ``chains`` name may run (module docstring), in no
    particular order; within the module only (``chunk_plan.replaces_itself``)."""
    return RunIndex(units).reached(chains, [])


def load_imports(units: Sequence[Unit], unit: Unit, index: RunIndex | None = None, *,
                 chunk: bool = False) -> tuple[list[str], list[str]]:
    """(what running ``unit`` at load imports through the code of its module it runs, the absolute
    chains of other modules' names that code may run): the module's own part of the rule; for the
    chunk's order (``chunk``), from ``chunk_seeds``."""
    out: list[str] = []
    foreign: list[str] = []
    chains = chunk_seeds(unit) if chunk else seeds(unit)
    if chains:
        (index or RunIndex(units)).run(chains, out, foreign)
    return out, foreign


def module_load_imports(units: Sequence[Unit]) -> list[str]:
    """What running a module's statements imports through the code of the module they run (the
    own part of ``ModuleSummary.runs``; ``analysis``)."""
    out: list[str] = []
    chains = [c for u in units for c in seeds(u)]
    if chains:
        RunIndex(units).run(chains, out, [])
    return out


#: the summary of a first-party module (None: none in the tree, or third-party)
Lookup = Callable[[str], "ModuleSummary | None"]


class LoadRuns:
    """The rule across modules. Answers that depend on one summary only are memoised by the
    summary object, so one instance serves every graph or chunk of a build (history tree states
    included); what another module's summary decides is looked up anew with each call's
    ``lookup``."""

    def __init__(self) -> None:
        self._index: dict[int, tuple[ModuleSummary, RunIndex]] = {}
        self._own: dict[tuple[int, int], tuple[ModuleSummary, tuple[str, ...], tuple[str, ...]]] = {}
        self._called: dict[tuple[int, str], tuple[ModuleSummary, tuple[str, ...], tuple[str, ...]]] = {}
        self._follows: dict[tuple[object, ...], tuple[ModuleSummary, tuple[str, ...],
                                                      tuple[tuple[str, ModuleSummary | None], ...]]] = {}
        self._foreign_units: dict[tuple[int, bool], tuple[ModuleSummary, tuple[Unit, ...]]] = {}

    def index(self, summary: ModuleSummary) -> RunIndex:
        hit = self._index.get(id(summary))
        if hit is None or hit[0] is not summary:
            hit = self._index[id(summary)] = (summary, RunIndex(summary.units))
        return hit[1]

    def own(self, summary: ModuleSummary, unit: Unit, *, chunk: bool = False) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """``load_imports`` of ``unit`` (memoised)."""
        key = (id(summary), unit.index, chunk)
        hit = self._own.get(key)
        if hit is None or hit[0] is not summary:
            out, foreign = load_imports(summary.units, unit, self.index(summary), chunk=chunk)
            hit = self._own[key] = (summary, tuple(out), tuple(foreign))
        return hit[1], hit[2]

    def foreign_units(self, summary: ModuleSummary, *, chunk: bool = False) -> tuple[Unit, ...]:
        """The statements of ``summary`` whose load-time code runs code of other modules (``own``'s
        second part not empty), in order (memoised: every chunk of a build asks of each module
        it bundles, and most modules have none)."""
        key = (id(summary), chunk)
        hit = self._foreign_units.get(key)
        if hit is None or hit[0] is not summary:
            units = tuple(u for u in summary.units if (u.runs or u.attached) and self.own(summary, u, chunk=chunk)[1])
            hit = self._foreign_units[key] = (summary, units)
        return hit[1]

    def statement(self, summary: ModuleSummary, unit: Unit, lookup: Lookup, *,
                  chunk: bool = False) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(what running ``unit`` of ``summary``'s module at load imports, in any module, the
        modules whose summaries the answer looked up); ``chunk``: as the chunk's order counts it
        (``chunk_seeds``)."""
        own, foreign = self.own(summary, unit, chunk=chunk)
        if not foreign:
            return own, ()
        return self._followed(("chunk" if chunk else "unit", id(summary), unit.index), summary, own, foreign, lookup)

    def foreign(self, summary: ModuleSummary, lookup: Lookup) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(what running the whole module at load imports through code of *other* modules its
        statements run, the modules whose summaries the answer looked up): the part of the rule
        a module's own summary cannot know (``closure``; the rest is ``ModuleSummary.runs``)."""
        key = ("module", id(summary))
        hit = self._follows.get(key)
        if hit is not None and hit[0] is summary and all(lookup(m) is was for m, was in hit[2]):
            return hit[1], tuple(m for m, _ in hit[2])
        foreign: list[str] = []
        chains = [c for u in summary.units if u.runs or u.attached for c in seeds(u)]
        if chains:
            # one walk for the whole module: a walk per statement repeated the shared parts
            # (bench_build cold CPU +17% -> back to main's)
            self.index(summary).run(chains, [], foreign)
        if not foreign:  # the common answer: kept too (each graph of a build asks once per module)
            self._follows[key] = (summary, (), ())
            return (), ()
        return self._followed(key, summary, (), foreign, lookup)

    def _followed(self, key: tuple[object, ...], summary: ModuleSummary, own: tuple[str, ...],
                  foreign: Sequence[str], lookup: Lookup) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """``own`` and what following ``foreign`` imports, with the modules looked up; served
        again while each of those looks up as the same summary (another tree state of the
        build, a history ref, reads other objects)."""
        hit = self._follows.get(key)
        if hit is not None and hit[0] is summary and all(lookup(m) is was for m, was in hit[2]):
            return hit[1], tuple(m for m, _ in hit[2])
        out = list(own)
        read: list[str] = []
        self._follow(foreign, lookup, out, read)
        looked = tuple((m, lookup(m)) for m in dict.fromkeys(read))
        self._follows[key] = (summary, tuple(out), looked)
        return tuple(out), tuple(m for m, _ in looked)

    def _follow(self, foreign: Iterable[str], lookup: Lookup, out: list[str], read: list[str]) -> None:
        seen: set[str] = set()
        todo = list(foreign)
        while todo:
            target = todo.pop()
            if target in seen:
                continue
            seen.add(target)
            mark = target[:1] if target[:1] in _MARKS else ""
            found = _module_of(target[len(mark):], lookup, read)
            if found is None:
                continue
            summary, name = found
            imports, more = self._calling(summary, mark + name)
            out.extend(imports)
            todo.extend(more)

    def _calling(self, summary: ModuleSummary, chain: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """What calling ``chain`` of ``summary``'s module imports there, and the other modules'
        names it may run (memoised)."""
        key = (id(summary), chain)
        hit = self._called.get(key)
        if hit is None or hit[0] is not summary:
            out: list[str] = []
            foreign: list[str] = []
            self.index(summary).run([chain], out, foreign)
            hit = self._called[key] = (summary, tuple(out), tuple(foreign))
        return hit[1], hit[2]


def _module_of(target: str, lookup: Lookup, read: list[str]) -> tuple[ModuleSummary, str] | None:
    """(the summary of the deepest first-party module ``target`` is in, the rest of the target):
    ``shop.util.load`` -> (``shop.util``, ``load``); None for a target in no first-party module
    (a module itself names no code to run: importing it is its importer's part). ``read`` gets
    every module looked up."""
    parts = target.split(".")
    for i in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:i])
        read.append(module)
        summary = lookup(module)
        if summary is not None:
            return summary, ".".join(parts[i:])
    return None
