"""What a module-level statement runs when its module is imported, and what that code imports.

One rule for the fingerprint and the chunk (issue 12, breaker5's F1/F3/F11/F12/F13): which
modules run for a flow (``analysis``: ``ModuleSummary.runs``; ``closure``: the modules whose
statements abroad count, ``<loads>``, a module's own defs storing through ``sys.modules``) and
where a chunk starts each module (``bundle.chunk_order``; ``bundle.chunk_plan.replaces_itself``)
come from the same walk, so the chunk runs what the hash covers.

Python runs a module's statements in order; a statement runs the code it calls, that code runs
what it calls in turn, in any module, and an import inside such code (``def load(): import
shop.x``, ``importlib.import_module("shop.x")``) runs its module right then, while the importer
is still loading. The rule, for one statement (``load_imports``):

* **What it runs** (its seeds, ``seeds``): the defs, classes and values of its module it calls
  (``Unit.runs``: by name, through an attribute, as a decorator, a base, in a class body, a value
  flowing into a call it cannot resolve, ``effects.import_time_runs``), and every module-level
  name it hands to a call or stores through (``Unit.attached``). Widening: a function handed on
  (``run(helper)``, ``atexit.register(cleanup)``) may be called by what receives it.
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

Costs of the widening. For the fingerprint, a module counted as running brings only those of its
statements that change what the flow reaches (``closure._imported_effects``); code registered for
later (``atexit.register(load)``, ``threading.Thread(target=load)`` never started, a method of an
instance nothing calls) moves the hash when what it imports changes (one more version, breaker6's
G6). For the chunk the same widening is NOT free (breaker6's G7, known, to be fixed): a module
counted as imported by a statement starts there, so a def only handed on (``atexit.register``,
``Thread(target=...)``) or a method nothing calls (``OBJ = L()``) runs its imports in the chunk
where live never does; the flow then sees what that module's statements did (or an import cycle
back into the half-run module fails). The fix: the chunk's order takes only what a statement
*calls* (own and imported callees, a call's result's methods), the hash keeps the handed-on
names. Measured on the real repositories of ``benchmarks/bench_closure_width.py``: every chunk
byte-identical to main (samples-python 191 chunks; prefect-recipes 27 under the loom and the
prefect profile), every codeHash the same, collateral unchanged (loom profile 9 / 8 / 0).

Not followed (documented limits): a callee computed from nothing the module names (a parameter
called with a third-party value); a decorator calling the function it decorates at load
(``@run_now def g``: the body is not counted, ``effects``' documented limit); a module handed on
whole (``register(util)``, ``getattr(util, name)()``): what any of its code imports; a default
argument, ``__class_getitem__``, a ``singledispatch`` implementation run through its dispatcher,
``exec`` of a literal (breaker6's G5/G8).

Rejected: a walk per consumer (the fingerprint, the chunk's order and its ``sys.modules`` check
each had one and disagreed: F2/F3/F13), and recording call sites in a new pass over the nodes
(every field used here is one the analysis records anyway).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .analysis import ModuleSummary, Unit

__all__ = ["LoadRuns", "Lookup", "RunIndex", "load_imports", "module_load_imports", "seeds", "units_run"]

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


class RunIndex:
    """One module's units by the name they bind, for the walk (built once per summary)."""

    __slots__ = ("binders", "imported")

    def __init__(self, units: Sequence[Unit]) -> None:
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

    def reached(self, chains: Iterable[str], foreign: list[str]) -> list[Unit]:
        """The module's units running the code ``chains`` name may run, in no particular order;
        ``foreign`` gets the absolute chains of other modules' names they name (through the
        module's imports: ``util.load`` -> ``shop.util.load``)."""
        found: dict[int, Unit] = {}
        todo = list(chains)
        seen: set[str] = set()
        imported, binders = self.imported, self.binders
        while todo:
            chain = todo.pop()
            if chain in seen:
                continue
            seen.add(chain)
            root, dot, rest = chain.partition(".")
            for target in imported.get(root, ()):
                # ``import shop.util`` binds ``shop`` to the package: the chain is absolute already
                foreign.append(target + dot + rest if target != root else chain)
            for u in binders.get(root, ()):
                if id(u) not in found:
                    found[id(u)] = u
                    todo.extend(ref for ref in u.references if _global(ref))
        return list(found.values())

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


def units_run(units: Sequence[Unit], chains: Iterable[str]) -> list[Unit]:
    """The units of one module running the code ``chains`` name may run (module docstring), in no
    particular order; within the module only (``chunk_plan.replaces_itself``)."""
    return RunIndex(units).reached(chains, [])


def load_imports(units: Sequence[Unit], unit: Unit, index: RunIndex | None = None) -> tuple[list[str], list[str]]:
    """(what running ``unit`` at load imports through the code of its module it runs, the absolute
    chains of other modules' names that code may run): the module's own part of the rule."""
    out: list[str] = []
    foreign: list[str] = []
    chains = seeds(unit)
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

    def index(self, summary: ModuleSummary) -> RunIndex:
        hit = self._index.get(id(summary))
        if hit is None or hit[0] is not summary:
            hit = self._index[id(summary)] = (summary, RunIndex(summary.units))
        return hit[1]

    def own(self, summary: ModuleSummary, unit: Unit) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """``load_imports`` of ``unit`` (memoised)."""
        key = (id(summary), unit.index)
        hit = self._own.get(key)
        if hit is None or hit[0] is not summary:
            out, foreign = load_imports(summary.units, unit, self.index(summary))
            hit = self._own[key] = (summary, tuple(out), tuple(foreign))
        return hit[1], hit[2]

    def statement(self, summary: ModuleSummary, unit: Unit, lookup: Lookup) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(what running ``unit`` of ``summary``'s module at load imports, in any module, the
        modules whose summaries the answer looked up)."""
        own, foreign = self.own(summary, unit)
        if not foreign:
            return own, ()
        return self._followed(("unit", id(summary), unit.index), summary, own, foreign, lookup)

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
        if not foreign:
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
            found = _module_of(target, lookup, read)
            if found is None:
                continue
            summary, name = found
            imports, more = self._calling(summary, name)
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
