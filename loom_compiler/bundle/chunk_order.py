"""The order a chunk defines its bundled members: the order the live modules define them.

A chunk puts the members of several modules into one file, so it must choose an order, and
load-time code depends on it: a base class, a decorator, a default argument, a constant computed
by calling a helper (``LIMIT = pricing.limit()``) needs what it uses defined before it runs, and
in an import cycle Python itself accepts such a use in one direction only. So the chunk does not
invent an order: it replays how Python would execute the modules (``execution_order``). Starting
at the flow's module (after its parent packages, as ``import shop.flows`` runs ``shop`` first),
each module's statements run in line order; an import statement of a first-party module not yet
started runs that module's statements first, then goes on (a module already started — a cycle —
is skipped, as Python's ``sys.modules`` entry is); ``import a.b.c`` starts ``a``, ``a.b``,
``a.b.c``; ``from a import b`` starts ``a`` then ``a.b`` when ``b`` is a module. A bundled member
gets the place of its own statement in that run. Whatever load-time use works live therefore
works in the chunk, and a use that would fail live fails the same way.

Where the imports are comes from each module's summary (``import_schedule``: every module-level
statement that imports, with its line and first-party targets; imports inside function bodies
are lazy and run later). A load-time call of an importer with a literal name (``__import__("shop.x",
fromlist=["f"])``, ``importlib.import_module(".x", __package__)``: the importer recognised by what
the module binds its name to, as ``chunk_dynamic`` does) imports as the statement would. A module without a schedule (a caller that gave none) is assumed to
import, at its top, the modules its bundled members use (the common layout). Members of a module
the run never reaches (reached only through a lazy import) come last: each such module, in module
order, is replayed as its lazy import would run it (its own imports first).

A ``from`` import guarded by a module-level ``try`` with a handler (``try: from shop.c import g``
/ ``except ImportError: def g(): ...``, breakS's S4; ``guarded_from_imports``) does not start the
module it names: the chunk runs that module lazily, at the import's own lookup of ``g``, which is
inside the ``try``, so a module that raises as it runs takes the handler as live code does (run in
a segment of its own before the ``try``, it failed the chunk's load). Not when the module must run
eagerly (imported as a module somewhere: ``execution_order``'s ``eager``) or another import starts
it first: then it starts at the guarded import, as before. A guarded plain ``import shop.c`` asks
no lookup of ``c`` and still runs it in a segment of its own (strict xfail ``S4``).

Rejected: a dependency order over the members' references (it cannot tell a call-time reference
from a load-time one, and a cycle had to be cut somewhere: a constant computed at load time could
land before the function it calls), and a fixed module order (alphabetical, or by first use: an
import cycle resolves in the order the statements say, which only the statements know).
"""

from __future__ import annotations

import ast
import importlib.util
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from ..load_runs import LoadRuns, Lookup, load_imports
from .chunk_dynamic import folded_string

if TYPE_CHECKING:
    from ..analysis import ModuleSummary

__all__ = ["Schedule", "guarded_from_imports", "import_schedule", "sets_type_checking", "with_foreign_imports",
           "execution_order"]

#: ``(line, modules imported by the statement on that line, in order)`` per importing statement
Schedule = tuple[tuple[int, tuple[str, ...]], ...]


class _UnitLike(Protocol):
    line: int
    source: str


class _SummaryLike(Protocol):
    module: str
    is_package: bool
    units: Sequence[_UnitLike]


def import_schedule(summary: _SummaryLike, *, checking: bool = False,
                    parse: Callable[[str], ast.Module] = ast.parse) -> Schedule:
    """Every module-level statement of ``summary`` that imports, with the absolute module names it
    imports (``import a.b`` -> ``a``, ``a.b``; ``from a import b`` -> ``a``, ``a.b``: whether
    ``a.b`` is a module is for ``execution_order`` to decide; relative imports resolved; a literal
    importer call at load counts, ``_dynamic_targets``). ``checking``: ``TYPE_CHECKING`` may be
    true at run time (``sets_type_checking``): an ``if TYPE_CHECKING:`` body imports too.
    ``parse``: ``ast.parse`` or a build's shared trees (``ChunkMemo.tree``)."""
    parsed: list[tuple[int, ast.Module]] = []
    rest: list[_UnitLike] = []
    for unit in summary.units:
        if "import" not in unit.source:
            rest.append(unit)
        elif (tree := _parsed(unit.source, parse)) is not None:
            parsed.append((unit.line, tree))
    resolvers = _resolver_names(tree for _, tree in parsed)
    called = _called_imports(summary, checking)
    # an importer bound under another name (``import_module as im``) is called in statements
    # that never spell "import"
    aliases = [name for name in resolvers if "import" not in name]
    if aliases:
        parsed += [(unit.line, tree) for unit in rest if any(a in unit.source for a in aliases)
                   and (tree := _parsed(unit.source, parse)) is not None]
        parsed.sort(key=lambda p: p[0])
    out: list[tuple[int, tuple[str, ...]]] = []
    trees = dict(parsed)
    for line in sorted(set(trees) | set(called)):
        tree = trees.get(line)
        targets: list[str] = []
        if tree is None:
            out.append((line, tuple(dict.fromkeys(called[line]))))
            continue
        for node in _load_time_nodes(tree, checking):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    targets.extend(_chain(alias.name))
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(summary.module, summary.is_package, node.module, node.level)
                if base is None:
                    continue
                targets.extend(_chain(base))
                targets.extend(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
            elif isinstance(node, ast.Call) and resolvers:
                targets.extend(_dynamic_targets(node, resolvers, summary.module, summary.is_package))
        targets += called.get(line, ())
        if targets:
            out.append((line, tuple(dict.fromkeys(targets))))
    return tuple(out)


def guarded_from_imports(summary: _SummaryLike, parse: Callable[[str], ast.Module] = ast.parse) -> frozenset[tuple[int, str]]:
    """``(line, module)`` of each module a ``from`` import guarded by a module-level ``try`` with a
    handler imports a name from (``try: from shop.c import g`` / ``except ImportError:``; under an
    ``if`` too): ``execution_order`` leaves such a module to run at the lookup itself, lazily,
    inside the ``try`` (breakS's S4). The module's own name only: ``from shop import c`` (a
    submodule bound from its package, whose attribute a chunk sets from the start) and ``import
    shop.c`` ask no lookup of ``c`` and are not guarded so."""
    out: set[tuple[int, str]] = set()
    for unit in summary.units:
        if "try" not in unit.source or "import" not in unit.source:
            continue
        tree = _parsed(unit.source, parse)
        if tree is None:
            continue
        for node in _load_time_nodes(tree):
            if not isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))) or not node.handlers:
                continue
            for stmt in node.body:
                for inner in _load_time_nodes(stmt):
                    if isinstance(inner, ast.ImportFrom) and not any(a.name == "*" for a in inner.names):
                        base = _absolute(summary.module, summary.is_package, inner.module, inner.level)
                        if base is not None:
                            out.add((unit.line, base))  # the statement's line: its schedule's
    return frozenset(out)


def _called_imports(summary: _SummaryLike, checking: bool = False) -> dict[int, list[str]]:
    """Per line of a statement that runs code of its module as it runs (``F = load().f()``, a
    decorator, a class body, a method, a lambda), the modules that code imports (``load_runs``:
    the rule the fingerprint uses too). F3: ``def load(): return importlib.import_module("shop.x")``
    called at load ran ``shop.x`` after its user. A summary without those fields (a caller's
    stand-in) has none."""
    units = summary.units
    if not all(hasattr(u, "runs") for u in units):
        return {}
    out: dict[int, list[str]] = {}
    false = _false_tests(units, checking)
    for unit in units:
        if (unit.runs or unit.attached) and not _never_runs(unit, false):  # type: ignore[attr-defined]
            targets = [t for m in load_imports(units, unit, chunk=True)[0] for t in _chain(m)]  # type: ignore[arg-type]
            if targets:
                out[unit.line] = targets
    return out


#: where Python binds the constant that is False at run time and True for a type checker
_TYPE_CHECKING = frozenset({"typing.TYPE_CHECKING", "typing_extensions.TYPE_CHECKING"})


def _false_tests(units: Sequence[_UnitLike], checking: bool = False) -> frozenset[str]:
    """The spellings that are ``False`` when the module runs: ``TYPE_CHECKING`` when every statement
    binding it imports ``typing.TYPE_CHECKING`` (or ``typing_extensions``'), ``typing.TYPE_CHECKING``
    when ``typing`` is bound only to that module (likewise ``typing_extensions``). A name the
    module binds otherwise (``TYPE_CHECKING = True``, a def, a ``global`` write) is not one; none
    is with ``checking`` (a first-party module sets ``typing.TYPE_CHECKING``: breaker7's K3)."""
    if checking:
        return frozenset({"False"})
    binders: dict[str, set[str]] = {}
    for unit in units:
        aliases = dict(getattr(unit, "aliases", ()))
        for name in getattr(unit, "names", ()):
            binders.setdefault(name, set()).add(aliases.get(name, "?"))
        for name in getattr(unit, "global_writes", ()):
            binders.setdefault(name, set()).add("?")
    out = {"False"}
    if binders.get("TYPE_CHECKING") and binders["TYPE_CHECKING"] <= _TYPE_CHECKING:
        out.add("TYPE_CHECKING")
    for module in ("typing", "typing_extensions"):
        if binders.get(module) == {module}:
            out.add(f"{module}.TYPE_CHECKING")
    return frozenset(out)


_SETS_TYPE_CHECKING = re.compile(r"TYPE_CHECKING\W{0,3}\s*(?:=(?!=)|:=)|setattr\s*\(")


def sets_type_checking(units: Iterable[_UnitLike]) -> bool:
    """Whether a statement of a module may set ``TYPE_CHECKING`` on a module (``typing.TYPE_CHECKING
    = True``, ``vars(typing)["TYPE_CHECKING"] = 1``, ``setattr(typing, name, v)``; in a def's body
    too): then ``if TYPE_CHECKING:`` may run in any module imported after it (breaker7's K3), and
    the chunk's order must not skip such a body (``import_schedule``'s ``checking``). Read from the
    text, wider than Python (a module's own ``TYPE_CHECKING = True`` counts too)."""
    return any("TYPE_CHECKING" in u.source and _SETS_TYPE_CHECKING.search(u.source) for u in units)


def _never_runs(unit: _UnitLike, false: frozenset[str]) -> bool:
    """Whether the statement is an ``if`` with no ``else`` whose test is one of ``false``
    (``_false_tests``: ``if TYPE_CHECKING: load()``, ``if False: ...``): its body never runs, so
    what its code would import starts nothing (breaker6's G7)."""
    source = unit.source
    if "TYPE_CHECKING" not in source and "False" not in source:
        return False
    tree = _parsed(source)
    if tree is None or len(tree.body) != 1:
        return False
    node = tree.body[0]
    if not isinstance(node, ast.If) or node.orelse:
        return False
    test = node.test
    if isinstance(test, ast.Constant):
        return test.value is False
    spelled = test.id if isinstance(test, ast.Name) else (
        f"{test.value.id}.{test.attr}" if isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name) else None)
    return spelled in false


def with_foreign_imports(schedule: Schedule, summary: ModuleSummary, runs: LoadRuns, lookup: Lookup, *,
                         checking: bool = False) -> Schedule:
    """``schedule`` (``import_schedule(summary)``) with, at each statement's line, what the code of
    *other* first-party modules the statement runs imports (F12: ``from shop.util import load``
    then ``load()``, where ``def load(): import shop.x``, ran ``shop.x`` after ``shop.m``'s later
    statements). ``lookup``: the summaries the chunk knows; a build-wide ``runs`` memoises."""
    extra: dict[int, list[str]] = {}
    false: frozenset[str] | None = None
    for unit in runs.foreign_units(summary, chunk=True):  # those that run code of other modules
        own = runs.own(summary, unit, chunk=True)[0]
        if false is None:
            false = _false_tests(summary.units, checking)
        if _never_runs(unit, false):
            continue
        found = runs.statement(summary, unit, lookup, chunk=True)[0][len(own):]
        if found:
            extra[unit.line] = [t for m in found for t in _chain(m)]
    if not extra:
        return schedule
    lines = dict(schedule)
    for line, targets in extra.items():
        lines[line] = tuple(dict.fromkeys((*lines.get(line, ()), *targets)))
    return tuple(sorted(lines.items()))


def _parsed(source: str, parse: Callable[[str], ast.Module] = ast.parse) -> ast.Module | None:
    try:
        return parse(source)
    except SyntaxError:  # a unit is a statement of a module that parsed: never, but not fatal
        return None


#: what a module-level import of a resolver binds: ``import importlib`` -> ``importlib``
_RESOLVER_MODULES = frozenset({"importlib", "builtins"})
_RESOLVERS = frozenset({"importlib.import_module", "importlib.__import__", "builtins.__import__"})


def _resolver_names(trees: Iterable[ast.Module]) -> dict[str, str]:
    """The module-level names that mean an importer where a load-time call spells them: each bound
    only by an import of ``importlib``/``builtins`` or of one of their importers (``import
    importlib as il``, ``from importlib import import_module``), and ``__import__`` unless the
    module binds it otherwise. A name the module also binds by anything else (``def import_module``)
    is left out: a call of it is the project's function, not an import."""
    imported: dict[str, str] = {}
    other: set[str] = set()
    for tree in trees:
        for node in _load_time_nodes(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    if isinstance(node, ast.Import):
                        target = alias.name if alias.asname else alias.name.split(".")[0]
                        name = alias.asname or target
                    else:
                        target, name = f"{node.module}.{alias.name}" if not node.level else "", alias.asname or alias.name
                    if target in _RESOLVER_MODULES or target in _RESOLVERS:
                        imported[name] = target
                    else:
                        other.add(name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                other.add(node.id)
        for statement in tree.body:  # a def or class binds its name (its node is not walked above)
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                other.add(statement.name)
    names = {name: target for name, target in imported.items() if name not in other}
    if "__import__" not in other:
        names.setdefault("__import__", "builtins.__import__")
    return names


def _dynamic_targets(call: ast.Call, resolvers: Mapping[str, str], module: str, is_package: bool) -> list[str]:
    """The modules a load-time importer call with a literal name starts (E7: ``mod =
    __import__("shop.x", fromlist=["f"])`` or ``importlib.import_module("shop.x")`` at load, then
    a use of ``mod`` at load; scheduling it as no import ran ``shop.x`` after its user): its chain,
    and for ``__import__`` each literal ``fromlist`` entry, which may name a submodule. Relative
    names resolve against a literal package, ``__package__``, or ``__import__``'s ``level``."""
    func = call.func
    if isinstance(func, ast.Name):
        resolver = resolvers.get(func.id)
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        resolver = f"{resolvers.get(func.value.id)}.{func.attr}"
    else:
        return []
    if resolver not in _RESOLVERS:
        return []
    first = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "name"), None)
    name = folded_string(first) if first is not None else None
    if not name:  # a literal, or one folded from literals (``"shop." + "x"``: the name it spells, K4)
        return []
    if resolver == "importlib.import_module":
        package = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "package"), None)
        if name.startswith("."):
            if isinstance(package, ast.Name) and package.id == "__package__":
                anchor = module if is_package else module.rpartition(".")[0]
            elif isinstance(package, ast.Constant) and isinstance(package.value, str):
                anchor = package.value
            else:
                return []
            try:
                name = importlib.util.resolve_name(name, anchor)
            except (ImportError, ValueError):  # beyond the top-level package: an error live too
                return []
        return _chain(name)
    # ``__import__(name, globals, locals, fromlist, level)``
    level_node = call.args[4] if len(call.args) > 4 else next((k.value for k in call.keywords if k.arg == "level"), None)
    level = level_node.value if isinstance(level_node, ast.Constant) and isinstance(level_node.value, int) else 0
    base = _absolute(module, is_package, name, level) if level else name
    if not base:
        return []
    fromlist = call.args[3] if len(call.args) > 3 else next((k.value for k in call.keywords if k.arg == "fromlist"), None)
    entries = [e.value for e in fromlist.elts if isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value != "*"] \
        if isinstance(fromlist, (ast.List, ast.Tuple)) else []
    return _chain(base) + [f"{base}.{entry}" for entry in entries]


def _load_time_nodes(tree: ast.AST, checking: bool = False) -> Iterable[ast.AST]:
    """Nodes that run when the statement runs: function and lambda bodies run later (their
    decorators and defaults now), and the body
    of ``if TYPE_CHECKING:`` never (``typing.TYPE_CHECKING`` is False at run time: an import cycle
    written only for the type checker, dbos's ``_logger`` -> ``_dbos_config`` -> ``_serialization``,
    would otherwise start a module early and fail the chunk's imports of a half-run module);
    with ``checking`` (``sets_type_checking``) only ``if False:``'s."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in reversed(list(ast.iter_child_nodes(node))):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                # its decorators and defaults run as it is defined (G8: ``def f(a=import_module("x"))``)
                stack.extend(child.decorator_list if not isinstance(child, ast.Lambda) else ())
                stack.extend(d for d in (*child.args.defaults, *child.args.kw_defaults) if d is not None)
                continue
            if isinstance(child, ast.If) and _type_checking_only(child.test) and (
                    not checking or isinstance(child.test, ast.Constant)):
                stack.append(child.test)
                stack.extend(reversed(child.orelse))
                continue
            stack.append(child)


def _type_checking_only(test: ast.expr) -> bool:
    """``TYPE_CHECKING``, ``typing.TYPE_CHECKING`` (any module's attribute of that name), ``False``."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    if isinstance(test, ast.Attribute):
        return test.attr == "TYPE_CHECKING"
    return isinstance(test, ast.Constant) and test.value is False


def _import_events(schedule: Schedule) -> tuple[list[tuple[int, int, object]], tuple[str, ...]]:
    """``execution_order``'s events of a schedule's imports (never mutated: a build's chunks share
    them) and the modules they name, in order, without repeats."""
    events: list[tuple[int, int, object]] = sorted(((line, 0, targets) for line, targets in schedule), key=_event_order)
    return events, tuple(dict.fromkeys(t for _, _, targets in events for t in targets))  # type: ignore[attr-defined]


def _event_order(event: tuple[int, int, object]) -> tuple[int, int]:
    return event[0], event[1]


def _chain(dotted: str) -> list[str]:
    parts = dotted.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def _absolute(module: str, is_package: bool, name: str | None, level: int) -> str | None:
    if level == 0:
        return name
    parts = module.split(".") if is_package else module.split(".")[:-1]
    if level > len(parts):
        return None  # beyond the top-level package (``from ..x import f`` in ``shop/flows.py`` too): an ImportError live
    base = parts[: len(parts) - (level - 1)]
    return ".".join([*base, *([name] if name else [])]) or None


def execution_order(
    members: Sequence[tuple[str, str, int]],
    start: str,
    schedules: Mapping[str, Schedule],
    uses: Mapping[str, Iterable[str]],
    started_out: set[str] | None = None,
    *,
    events: dict[int, tuple[Schedule, tuple[list[tuple[int, int, object]], tuple[str, ...]]]] | None = None,
    guarded: Mapping[str, frozenset[tuple[int, str]]] | None = None,
    eager: frozenset[str] = frozenset(),
) -> list[str]:
    """The keys of ``members`` (``(key, module, line)``) in the order the live modules would
    define them when ``start`` is imported (see the module docstring). ``schedules``: the import
    schedule of each module known; ``uses``: for a module without one, the modules its members
    use (assumed imported at its top). ``started_out`` receives the modules importing ``start``
    runs; the others' members (reached only by a lazy import) are the ones that come last.
    ``events``: a table the chunks of one build share (``chunk_memo``), holding each schedule's
    imports as the walk's events, in order, by the schedule object (a build gives every chunk
    the same schedule object of a module, and each chunk walks the ~55 modules it runs).
    ``guarded``: per module, ``guarded_from_imports``: such an import does not start the module
    it names, which then runs at the import's own lookup (a lazy module of the chunk), inside its
    ``try``, as live; unless another import starts it, which would leave the guarded lookup
    before it finding the module not run yet: then the walk is done again with it started there.
    ``eager``: modules the chunk cannot run lazily (imported as modules: started there always)."""
    if guarded:
        forced = set(eager)
        while True:
            out_started: set[str] = set()
            order = _execution_order(members, start, schedules, uses, out_started, events, guarded, frozenset(forced))
            again = {t for marks in guarded.values() for _, t in marks if t in out_started} - forced
            if not again:
                if started_out is not None:
                    started_out.update(out_started)
                return order
            forced |= again
    return _execution_order(members, start, schedules, uses, started_out, events, None, frozenset())


def _execution_order(
    members: Sequence[tuple[str, str, int]],
    start: str,
    schedules: Mapping[str, Schedule],
    uses: Mapping[str, Iterable[str]],
    started_out: set[str] | None,
    events: dict[int, tuple[Schedule, tuple[list[tuple[int, int, object]], tuple[str, ...]]]] | None,
    guarded: Mapping[str, frozenset[tuple[int, str]]] | None,
    forced: frozenset[str],
) -> list[str]:
    by_module: dict[str, list[tuple[int, str]]] = {}
    for key, module, line in members:
        by_module.setdefault(module, []).append((line, key))
    known = set(by_module) | set(schedules)
    rank: dict[str, int] = {}
    started: set[str] = set()
    shared = events if events is not None else {}

    def schedule_of(module: str) -> Schedule:
        if module in schedules:
            return schedules[module]
        used = sorted({m for m in uses.get(module, ()) if m != module})
        return ((0, tuple(t for m in used for t in _chain(m))),) if used else ()

    def imports_of(module: str) -> tuple[list[tuple[int, int, object]], tuple[str, ...]]:
        """The schedule's imports as events, sorted as the walk sorts them (stable, by line), and
        every module they name, in that order, each once (a module without members of its own
        runs nothing but them: a name met again is started by then, or still unknown)."""
        if module not in schedules:
            return _import_events(schedule_of(module))
        schedule = schedules[module]
        hit = shared.get(id(schedule))
        if hit is None or hit[0] is not schedule:
            hit = shared[id(schedule)] = (schedule, _import_events(schedule))
        return hit[1]  # type: ignore[return-value]

    def run(m: str) -> Iterator[str]:
        """Run ``m``'s events in order: rank each member, and yield each module an import starts
        (the caller runs it to its end before this resumes; ``import a, b`` runs ``a`` fully, then
        looks at ``b``, which ``a`` may have started meanwhile)."""
        events, named = imports_of(m)
        own = by_module.get(m)
        if not own:
            for target in named:
                if target not in started and target in known:
                    yield target
            return
        # the imports first, then the members, sorted stably by (line, kind): on one line the
        # import runs before the member it binds
        marks = guarded.get(m, frozenset()) if guarded else frozenset()
        for line, kind, what in sorted([*events, *((line, 1, key) for line, key in own)], key=_event_order):
            if kind == 1:
                rank.setdefault(what, len(rank))  # type: ignore[arg-type]
                continue
            for target in what:  # type: ignore[attr-defined]
                if target not in started and target in known and ((line, target) not in marks or target in forced):
                    yield target

    def drive(module: str) -> None:
        # An explicit stack of the started modules' runs: an import chain thousands of modules
        # deep must not recurse.
        for first in _chain(module):
            if first in started or first not in known:
                continue
            started.add(first)
            stack = [run(first)]
            while stack:
                target = next(stack[-1], None)
                if target is None:
                    stack.pop()
                elif target not in started:
                    started.add(target)
                    stack.append(run(target))

    drive(start)
    if started_out is not None:
        started_out.update(started)
    # The modules importing ``start`` does not run are imported later, by a lazy import; each is
    # replayed as that import would run it (its own top-level imports first), in module order:
    # ``from shop import a, s`` in a function, where ``a`` does ``from shop.s import X``, runs ``s``
    # before ``a``'s statements, as Python does (module and line order ran ``a`` first: E1).
    for module in sorted({m for _, m, _ in members} - started):
        drive(module)
    late = sorted((module, line, key) for key, module, line in members if key not in rank)
    return sorted((key for key, _, _ in members if key in rank), key=rank.__getitem__) + [key for _, _, key in late]
