"""Emit one chunk per code version: the flow and its first-party closure in one readable file.

A chunk is what the registry executes to serve an execution pinned to an old codeHash, so it must
never import the *current* first-party code and must run exactly what the live modules ran: every
closure member that is a definition (flow, helper function, class, constant, the statements that
change them) is copied in with its original text, comments and formatting; imports of third-party
modules and step functions stay ordinary imports of live code (step bodies are effects served
from the journal, not part of the fingerprint).

Statements, not members, are the blocks (``loom-fp/2``). A member is every statement about one
name (``ClosureMember.parts``), and one statement can be about several names:
``@REGISTRY.register def pay`` belongs to ``pay`` and to ``REGISTRY``, ``a, b = f()`` to both
names. Each statement is emitted once, whichever members reach it, so a registration or an
``ITEMS.append(2)`` runs exactly as often as it did in its module; a module's statements keep
their order.

Layout, top to bottom: a header comment (flow id, codeHash, scheme, entry, source files),
``from __future__ import annotations`` (annotations may name things outside the closure, such as
``TYPE_CHECKING`` imports; evaluating them at load time would fail for no behavioural reason), the
imports sorted, the namespaces that stand for first-party modules (empty of bundled members), then
the statements in the order the live modules run them (``chunk_order``: Python's own execution of
the modules replayed, import cycles included, so class bases, decorators and constants computed
at load time resolve exactly when they would live), each followed by the lines that hang what it
binds into the namespaces reaching it (``_Namespaces``).

Names: statements of several modules share one namespace in the chunk. Each distinct thing (a
module-level name ``<module>.<name>``, an import target) gets one chunk name: its own name when
free, else ``<name>__<module>``; a name that is a builtin's is always renamed (``round`` in
``pricing.py`` must not shadow the builtin ``round`` that ``flows.py`` means). The flow keeps its
name unless it is a builtin's, so ``entry`` is normally its qualname. A member reached through a
first-party module alias (``import shop.pricing as p; p.discount()``, ``import shop.util;
shop.util.fee()``) keeps its text: the alias becomes a ``SimpleNamespace`` of the bundled members
(and live steps) reached through it; a module used as a value (``helper(pricing)``, a widened
module) is a namespace of all its names. Only a statement whose references need another name is
re-printed through libcst, renaming global references with scope analysis (a local or a parameter
of the same name is left alone); every other statement is copied byte for byte.

First-party imports inside bundled text are rewritten to what they bind in the chunk: at module
level ``from shop.conf import LIMIT`` becomes ``LIMIT = LIMIT__shop_conf`` (it was a binding of a
name with several bindings), ``from shop.a import *`` binds each name it bound that the closure
reaches; inside a function (a lazy import) ``from shop.pricing import discount`` becomes
``discount = globals()["discount__shop_pricing"]`` (``globals()`` because a local of the same
name would shadow the chunk's name). An import alias the closure does not reach in a module-level
``with``/``if`` block or import line is dropped (its code is not in the fingerprint); one in a
``try`` body is kept (whether it fails decides the branch). Third-party star imports stay
``from math import *``.

Self-containment is checked, not assumed: the chunk is compiled and every global name it uses must
be defined, imported or a builtin (``symtable``), else the build fails naming the flow. For a
method flow only the members the flow reaches (the fingerprinted ones), the docstring and dunder
methods of its class are kept (the whole class when the closure reaches all of it). Known limits:
code that relies on ``__name__``/``__file__`` sees the chunk's private module; a lazy import the
code never uses, and an import in a ``try`` body the closure does not reach, stay live imports; a
guarded ``try: from .fast import f / except ImportError: from .slow import f`` always binds the
first alternative in the chunk (both are bundled and fingerprinted).

Rejected: copying whole modules (bundles unrelated code and its imports, which may not even
import in the serving process), renaming by regex (renames attributes and locals too), an import
hook that serves first-party modules from the chunk (process-wide: the live modules of the same
names are imported by the serving process itself), and re-printing every statement through libcst
(slower, and it would reformat nothing anyway: libcst round-trips, so the only reason to touch a
statement is a rename or an import to rewrite).
"""

from __future__ import annotations

import builtins
import io
import keyword
import symtable
import tokenize
from collections.abc import Mapping
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import BuiltinScope, GlobalScope, MetadataWrapper, ScopeProvider

from loom_runtime.manifest import FINGERPRINT_SCHEME

from ..model import ClosureMember, FlowFingerprint
from ..scopes import dotted_chain, import_bindings
from .chunk_file import Chunk, ChunkError, chunk_path_for, flow_slug, source_digest
from .chunk_order import Schedule, execution_order

__all__ = ["Chunk", "ChunkError", "chunk_path_for", "flow_slug", "emit_chunk", "source_digest"]

_DEFINITION_KINDS = frozenset({"flow", "function", "class", "constant", "method"})
_BUILTINS = frozenset(dir(builtins)) | {"__name__", "__file__", "__doc__", "__builtins__", "__spec__", "__loader__", "__package__"}
# A bundled member or import named like a builtin would shadow it for members of *other* modules
# that mean the builtin; such names are always renamed in a chunk.
_RESERVED = frozenset(n for n in dir(builtins) if not n.startswith("_")) | {"annotations"}
_NAMESPACE_FACTORY = "_loom_namespace"
_HOOKED_FACTORY = "_loom_module"  # a namespace whose module has a PEP 562 ``__getattr__``


# -- planning ---------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Unit:
    """One top-level block of the chunk: a module-level statement, a method flow's class, a
    member given without statements (hand-made closures), or a namespace for a module alias."""

    key: str  # "stmt:<module>:<index>", a member qualname, or "module:<dotted>" for a namespace
    name: str  # the top-level name it defines in the chunk (a label for a statement binding none)
    module: str
    path: str | None
    line: int
    members: list[ClosureMember] = field(default_factory=list)  # whose bindings its text uses
    text: str = ""
    deps: set[str] = field(default_factory=set)  # keys of the units it needs
    binds: dict[str, str] = field(default_factory=dict)  # module-level name it binds -> thing
    index: int = -1  # its position in its module (statements only)
    star: bool = False  # a ``from x import *`` statement
    #: first-party imports in its text -> what they bind in the chunk (see ``_rewrite_imports``)
    table: dict[str, list[str]] = field(default_factory=dict)
    rewritten: str | None = None  # its text with those imports rewritten (planned with the spellings)
    hook: tuple[str, str] | None = None  # (module, attribute) its module's ``__getattr__`` serves


@dataclass(slots=True)
class _Plan:
    units: dict[str, _Unit]
    thing: dict[str, str]  # member qualname -> the thing naming it (itself; its class for a class member)
    carriers: dict[str, list[str]]  # thing -> keys of the units carrying its text
    preferred: dict[str, str]  # thing -> the name it would like in the chunk
    module_of: dict[str, str]  # thing -> its module
    #: (module, name) -> (tail, member) for every chain spelled through a name with several
    #: bindings whose import also binds it (``try: from shop import util`` then ``util.fmt``)
    alias_uses: dict[tuple[str, str], list[tuple[str, str]]] = field(default_factory=dict)
    allowed: set[str] = field(default_factory=set)  # names bound by third-party star imports
    member_units: dict[str, list[str]] = field(default_factory=dict)  # member qualname -> its units
    defined: set[str] = field(default_factory=set)  # things some unit binds
    bundled_modules: set[str] = field(default_factory=set)  # modules some bundled statement comes from


def _local_name(member: ClosureMember) -> str:
    if member.qualname.startswith(member.module + "."):
        return member.qualname[len(member.module) + 1 :]
    return member.qualname.rpartition(".")[2]


def emit_chunk(
    fp: FlowFingerprint,
    *,
    class_source: str | None = None,
    class_line: int = 0,
    module_imports: Mapping[str, str] | None = None,
    chunk_path: str = "",
    import_schedules: Mapping[str, Schedule] | None = None,
) -> Chunk:
    """Render the chunk of one flow version. Pure: text in, text out.

    ``class_source``: for a method flow (``Shop.run``), the original text of its class, bundled
    with only the members the flow reaches (the fingerprinted ones) and the dunder methods.
    ``module_imports``: the flow module's import bindings (local name -> target); consulted only
    for names the closure does not bind, i.e. the flow decorator itself (the fingerprint leaves
    it out on purpose) and the arguments of that decorator (``re.compile`` in ``step_families``).

    ``import_schedules``: where each first-party module imports what (``chunk_order.import_schedule``
    of its summary), so statements run in the order the live modules run them; a module missing
    from it is assumed to import what its members use at its top.

    Raises ``ChunkError`` when the closure cannot be made self-contained.

    Stages: the units (``_collect_units``), the chunk names of the things they bind (``_Names``,
    the flow's own first), how each unit spells what it uses (``_plan_spellings``), the namespaces
    for module aliases, the body in dependency order, then rendering and the self-containment check.
    """
    if not fp.closure:
        raise ChunkError(f"flow `{fp.flow_id}` has an empty closure; nothing to bundle", path=fp.path, line=fp.line)
    members = {m.qualname: m for m in fp.closure}
    root = fp.closure[0]
    top_name = fp.function.split(".")[0]
    plan = _collect_units(fp, members, class_source, class_line)
    units = plan.units

    names = _Names()
    # Names: the flow's own thing first (never renamed), then its module's things, then the others.
    root_thing = plan.thing[root.qualname]
    names.allocate(root_thing, plan.preferred[root_thing], "")
    for thing in sorted(plan.preferred, key=lambda t: (plan.module_of[t] != fp.module, plan.module_of[t], t)):
        names.allocate(thing, plan.preferred[thing], plan.module_of[thing])

    _alias_uses(plan, members)
    plans = {key: _plan_spellings(plan, key, members, names) for key in sorted(units)}
    for key in sorted(units):  # before the namespaces are laid out: a rewrite may need one
        unit = units[key]
        text = _normalise(unit.text)
        if unit.hook is None and "import" in text:
            unit.rewritten = _rewrite_imports(text, unit, plan, names)

    namespaces = _Namespaces(names, plan)
    uses: dict[str, set[str]] = {}
    for u in units.values():
        uses.setdefault(u.module, set()).update(units[d].module for d in u.deps if d in units)
    order = execution_order([(k, u.module, u.line) for k, u in sorted(units.items())], fp.module,
                            import_schedules or {}, uses)
    body, renamed = _body(plan, order, plans, namespaces, names)
    sources = tuple(sorted({u.path for u in units.values() if u.path}))
    entry = names.chunk_name[root_thing] + fp.function[len(top_name) :]
    header = _header(fp, entry, sources)
    where = chunk_path or chunk_path_for(fp.flow_id, fp.code_hash)
    fallback = module_imports or {}
    # The flow decorator's names are not in the closure; take them from the decorator lines up
    # front (the check below confirms, so a guess that is wrong only costs a second pass).
    for name in _decorator_names(root.source):
        if name in fallback and name not in names.taken:
            names.import_as(fallback[name], name)
    text = _render(header, body, names)
    missing = [n for n in _unbound_globals(text, fp, where) if n not in plan.allowed]
    if missing and all(name in fallback and name not in names.taken for name in missing):
        for name in missing:
            names.import_as(fallback[name], name)
        text = _render(header, body, names)
        missing = [n for n in _unbound_globals(text, fp, where) if n not in plan.allowed]
    if missing:
        listed = ", ".join(f"`{n}`" for n in missing)
        raise ChunkError(
            f"flow `{fp.flow_id}`: the closure uses {listed} but nothing in it defines or imports "
            f"{'it' if len(missing) == 1 else 'them'}; define the name at module level or import it "
            "(a chunk cannot fall back to the live module)",
            path=fp.path,
            line=fp.line,
        )
    return Chunk(fp.flow_id, fp.code_hash, entry, text, sources, renamed)


def _collect_units(
    fp: FlowFingerprint, members: Mapping[str, ClosureMember], class_source: str | None, class_line: int
) -> _Plan:
    """The chunk's blocks: one per module-level statement of the members (``parts``), a method
    flow's class (only the members it reaches, unless the closure reaches all of the class), and
    a block per member given without statements. Records, for every member, the thing naming it
    and the units carrying its text."""
    plan = _Plan({}, {}, {}, {}, {})
    units = plan.units
    top_name = fp.function.split(".")[0]
    root = fp.closure[0]
    root_line = root.parts[0][1] if root.parts else root.line
    if "." in fp.function:
        class_qual = f"{fp.module}.{top_name}"
        inside = [q for q, m in members.items() if m.module == fp.module and q.startswith(class_qual + ".")]
        whole = class_qual in members and bool(members[class_qual].parts)
        for q in inside:
            plan.thing[q] = class_qual
        if not whole:
            text = class_source
            if text is None and class_qual in members:
                text = members[class_qual].source
            if not text:
                raise ChunkError(
                    f"flow `{fp.flow_id}` is the method `{fp.function}`; the source of its class `{top_name}` is missing",
                    path=fp.path,
                    line=fp.line,
                )
            reached = {q[len(class_qual) + 1 :].split(".")[0] for q in inside}
            text = _keep_class_members(text, reached, where=f"{fp.path}:{fp.line}")
            line = members[class_qual].line if class_qual in members else class_line or fp.line
            unit = _Unit(class_qual, top_name, fp.module, fp.path, line, text=text, binds={top_name: class_qual})
            unit.members = [members[q] for q in inside] + ([members[class_qual]] if class_qual in members else [])
            units[class_qual] = unit
            plan.thing[class_qual] = class_qual
            plan.carriers[class_qual] = [class_qual]
    for q, m in members.items():
        if m.parts:
            if "#" not in q and m.kind != "module":
                plan.thing.setdefault(q, q)  # a module-level name (``<q>#bindings`` and ``<m>.*`` name none)
            for index, line, source, bound in m.parts:
                key = f"stmt:{m.module}:{index:08d}"
                unit = units.get(key)
                if unit is None:
                    star = not bound and "*" in source and "import" in source
                    unit = units[key] = _Unit(key, bound[0] if bound else _local_name(m).split("#")[0], m.module,
                                              m.path, line, text=source, index=index, star=star,
                                              binds={n: f"{m.module}.{n}" for n in bound})
                unit.members.append(m)
                if unit.star and m.kind != "module":
                    name = _local_name(m).split("#")[0]
                    unit.binds.setdefault(name, f"{m.module}.{name}")
                plan.member_units.setdefault(q, []).append(key)
                if q in plan.thing:
                    plan.carriers.setdefault(q, []).append(key)
            continue
        if q in plan.thing or m.kind not in _DEFINITION_KINDS:
            continue
        if any(chain == "<getattr>" for chain, _ in m.bindings) and m.target:
            # served by a bundled module's ``__getattr__``: ``thing = <that module>.thing``
            module, _, attr = m.target.rpartition(".")
            # run where the import that asks for it ran: in the flow's module, before the flow
            units[q] = _Unit(q, attr, fp.module, fp.path, root_line, [m], binds={attr: q}, hook=(module, attr))
            plan.thing[q] = q
            plan.carriers[q] = [q]
            continue
        if not m.source:
            raise ChunkError(
                f"flow `{fp.flow_id}`: closure member `{q}` has no source text to bundle",
                path=m.path or fp.path,
                line=m.line,
            )
        name = _local_name(m).split(".")[0]
        units[q] = _Unit(q, name, m.module, m.path, m.line, [m], m.source, binds={name: q})
        plan.thing[q] = q
        plan.carriers[q] = [q]
    # the statements of the whole class carry its members too
    if "." in fp.function:
        class_qual = f"{fp.module}.{top_name}"
        if class_qual in members and members[class_qual].parts:
            carriers = plan.carriers.get(class_qual, [])
            for key in carriers:
                for q, m in members.items():
                    if plan.thing.get(q) == class_qual and m not in units[key].members:
                        units[key].members.append(m)
    for unit in units.values():
        plan.bundled_modules.add(unit.module)
        for name, thing in unit.binds.items():
            plan.defined.add(thing)
            plan.preferred.setdefault(thing, name)
            plan.module_of.setdefault(thing, unit.module)
            if thing in members and unit.key not in plan.carriers.setdefault(thing, []):
                plan.carriers[thing].append(unit.key)
    for q, thing in plan.thing.items():
        if thing not in plan.preferred:  # a member whose statements bind no name of its own
            plan.preferred[thing] = _local_name(members[q]).split("#")[0].split(".")[0]
            plan.module_of[thing] = members[q].module
    return plan


def _alias_uses(plan: _Plan, members: Mapping[str, ClosureMember]) -> None:
    """Record, for each name with several bindings, the members reached through its imports with
    the attribute tail used (``util.fmt`` -> ``("fmt", "shop.util.fmt")``)."""
    for m in members.values():
        grouped: dict[str, list[str]] = {}
        for chain, value in m.bindings:
            if not chain.startswith(("<", "=")):
                grouped.setdefault(chain, []).append(value)
        for chain, values in grouped.items():
            root, _, tail = chain.partition(".")
            local = f"{m.module}.{root}"
            if local in values and len(values) > 1:
                for value in values:
                    if value != local:
                        plan.alias_uses.setdefault((m.module, root), []).append((tail, value))


class _Names:
    """The chunk's one namespace: a chunk name per distinct thing (a module-level name, a class,
    ``import:<target>``, ``module:<dotted>``), the imports of live code and the first-party module
    namespaces."""

    def __init__(self) -> None:
        self.taken: dict[str, str] = {}  # chunk name -> thing
        self.chunk_name: dict[str, str] = {}  # thing -> chunk name
        self.imports: dict[str, str] = {}  # import target -> chunk name
        self.stars: set[str] = set()  # third-party modules imported with ``*``
        self.submodules: set[str] = set()  # dotted prefixes of chains through a plain ``import x``
        # first-party module -> {attribute path below it: thing} for chains like ``p.discount``
        self.namespaces: dict[str, dict[tuple[str, ...], str]] = {}

    def allocate(self, thing: str, preferred: str, module: str) -> str:
        if thing in self.chunk_name:
            return self.chunk_name[thing]
        taken = self.taken
        name = preferred
        if (name in taken and taken[name] != thing) or name in _RESERVED:
            base = f"{preferred}__{module.replace('.', '_')}" if module else preferred
            name, n = base, 2
            while name in taken or name in _RESERVED:
                name, n = f"{base}_{n}", n + 1
        taken[name] = thing
        self.chunk_name[thing] = name
        return name

    def import_as(self, target: str, preferred: str) -> str:
        if target not in self.imports:
            self.imports[target] = self.allocate(f"import:{target}", preferred, target.rpartition(".")[0])
        return self.imports[target]

    def via_namespace(self, unit: _Unit, head: str, module: str, paths: Mapping[tuple[str, ...], str]) -> str:
        """The chunk name of the namespace standing for ``module``, now also holding ``paths``.
        The namespace itself exists from the top of the chunk (``_Namespaces``): what ``unit``
        depends on is the things it reaches through it, which its caller records."""
        ns = f"module:{module}"
        self.namespaces.setdefault(module, {}).update(paths)
        return self.allocate(ns, head, module)


def _things_under(plan: _Plan, module: str, members: Mapping[str, ClosureMember]) -> dict[tuple[str, ...], str]:
    """Every bundled module-level name at or below ``module``, by attribute path (a namespace)."""
    out: dict[tuple[str, ...], str] = {}
    for thing, mod in plan.module_of.items():
        if not plan.carriers.get(thing) or thing not in members and not any(
                plan.thing.get(q) == thing for q in members):
            continue
        if mod == module or mod.startswith(module + "."):
            rel = mod[len(module) + 1 :] if mod != module else ""
            out[(*[p for p in rel.split(".") if p], plan.preferred[thing])] = thing
    return out


def _plan_spellings(plan: _Plan, key: str, members: Mapping[str, ClosureMember], names: _Names) -> dict[str, str]:
    """How the unit ``key`` spells each thing it uses -> that thing's chunk name (recording the
    imports and namespaces it needs in ``names``, its dependencies in ``unit.deps`` and the
    resolution of the imports in its text in ``unit.table``)."""
    units = plan.units
    unit = units[key]
    spellings: dict[str, str] = {}
    heads: dict[str, str] = {}  # spelling -> first-party module it is a namespace for
    later: list[tuple[str, str]] = []
    own = set(unit.binds.values())
    grouped: dict[str, list[str]] = {}
    for m in unit.members:
        for chain, value in m.bindings:
            values = grouped.setdefault(chain, [])
            if value not in values:
                values.append(value)

    def need(value: str) -> None:
        thing = plan.thing.get(value)
        if thing is not None and thing not in own:
            unit.deps.update(k for k in plan.carriers.get(thing, ()) if k != key)
        elif thing is None:
            unit.deps.update(k for k in plan.member_units.get(value, ()) if k != key)

    # Pass 1: bundled members and first-party module objects (they decide the namespaces).
    for chain, values in sorted(grouped.items()):
        for value in values:
            need(value)
        if chain.startswith("<"):
            continue  # a widening edge: what it reaches is bundled, nothing is spelled
        if chain.startswith("="):
            unit.table[chain[1:]] = values  # an import target: rewritten in ``_rewrite_imports``
            continue
        local = f"{unit.module}.{chain.partition('.')[0]}"
        value = local if local in values else values[0]
        thing = plan.thing.get(value)
        if thing is not None and thing not in plan.defined:
            # a name only a dynamic statement binds (``globals()["LIMIT"] = 5``, ``exec``): it
            # keeps its spelling, and the self-containment check cannot see it bound
            plan.allowed.add(chain.partition(".")[0])
            continue
        if thing is not None:
            if thing in own:  # references to itself (``self.x``, recursion) stay as written
                continue
            consumed = _consumed(chain, plan.preferred[thing])
            head, _, tail = consumed.partition(".")
            if tail and value.endswith("." + tail):
                # ``p.discount`` with ``p`` a first-party module: ``p`` becomes a namespace
                # of the bundled members, so the member's text stays byte for byte.
                module = value[: -len(tail) - 1]
                heads[head] = module
                spellings[head] = names.via_namespace(unit, head, module, {tuple(tail.split(".")): thing})
            else:
                spellings[consumed] = names.chunk_name[thing]
            continue
        vm = members.get(value)
        target = (vm.target or value) if vm is not None else value
        if vm is None or vm.kind != "step":
            under = _things_under(plan, target, members) if vm is None or vm.kind != "import" else {}
            if under or (vm is not None and vm.kind == "module"):
                # The module object of a first-party module used as a value (``p`` passed on, a
                # widened module): a namespace of every bundled name under it.
                head = chain.split(".")[0]
                heads[head] = target
                spellings[head] = names.via_namespace(unit, head, target, under)
                for thing in under.values():
                    need(thing)
                continue
        later.append((chain, target))
    # Pass 2: imports of live code (third-party, steps).
    for chain, target in later:
        head, _, rest = chain.partition(".")
        module = heads.get(head)
        if target.endswith(".*"):
            # ``from math import *``: whatever it binds keeps its name
            names.stars.add(target[:-2])
            plan.allowed.add(head)
            continue
        if module is not None and target.startswith(module + "."):
            # ``shop.steps.charge`` beside ``shop.pricing.discount``: the step is imported live
            # and hung into the namespace ``shop`` already stands for.
            names.import_as(target, target.rpartition(".")[2])
            names.via_namespace(unit, head, module, {tuple(target[len(module) + 1 :].split(".")): f"import:{target}"})
            continue
        if rest and target.endswith("." + rest):
            # ``math.floor`` -> import ``math`` under the spelling the code uses
            spellings[head] = names.import_as(target[: -len(rest) - 1], head)
            if "." in rest:
                # ``import urllib.parse`` binds ``urllib`` only; the summary keeps the
                # binding, not the submodule, so load what may be one (see _render).
                names.submodules.add(target.rpartition(".")[0])
        elif rest:
            spellings[chain] = names.import_as(target, chain.rpartition(".")[2])
        else:
            spellings[head] = names.import_as(target, head)
    for name, thing in unit.binds.items():
        # what it binds is that name in the chunk, whatever else the name may mean elsewhere
        spellings[name] = names.chunk_name[thing]
    if unit.hook is not None:
        module, attr = unit.hook
        ns = names.via_namespace(unit, module.rpartition(".")[2], module, _things_under(plan, module, members))
        unit.rewritten = f"{attr} = {ns}.{attr}\n"
    if unit.star:
        for name in unit.binds:
            if any(v.startswith("import:") or v.endswith(".*") and v not in plan.thing
                   for v in unit.table.get(f"{_star_target(unit.text)}.{name}", ())):
                plan.allowed.add(names.chunk_name[unit.binds[name]])
    return spellings


def _star_target(text: str) -> str:
    """The module a ``from <module> import *`` statement names (relative dots kept)."""
    head = text.split("import", 1)[0]
    return head.replace("from", "", 1).strip()


def _body(
    plan: _Plan,
    ordered: list[str],
    plans: Mapping[str, Mapping[str, str]],
    namespaces: _Namespaces,
    names: _Names,
) -> tuple[list[str], dict[str, str]]:
    """The blocks: the module namespaces (empty of bundled members), then each unit in the order
    the live modules run them (imports rewritten and renamed where its plan says so) followed by
    the lines that hang what it binds into every namespace reaching it; and the renamed things."""
    body: list[str] = []
    renamed: dict[str, str] = {}
    units = plan.units
    if namespaces:
        body.append(namespaces.skeleton())
    for key in ordered:
        unit = units[key]
        text = unit.rewritten if unit.rewritten is not None else _normalise(unit.text)
        renames = {spelling: new for spelling, new in plans[key].items() if spelling != new}
        if renames:
            text = _rename(text, renames, where=f"{unit.path}:{unit.line}")
        note = ""
        for name, thing in sorted(unit.binds.items()):
            new = names.chunk_name[thing]
            if new != name:
                renamed[thing] = new
                note = f" (renamed from `{name}`)" if name == unit.name else note
        label = f"{unit.path}:{unit.line}" if unit.path else unit.module
        shown = unit.key if not key.startswith("stmt:") else ", ".join(
            sorted({m.qualname for m in unit.members if m.kind != "module"} or {f"{unit.module}.{unit.name}"}))
        body.append(f"# --- {shown} from {label}{note}\n{text}{namespaces.attach(unit)}")
    return body, renamed


class _Namespaces:
    """The ``SimpleNamespace`` objects that stand for first-party modules reached through an alias.

    Built the way Python builds modules, so any import graph Python accepts loads (DESIGN §7):
    each namespace exists, empty of bundled members, before any statement runs (a module object
    exists before its body runs), and each name is hung into every namespace that reaches it right
    after each statement that binds it (``a.fa = fa``: an attribute exists once its ``def`` ran,
    and a later rebinding is seen as live). A cycle through module attributes (``a.fa`` calls
    ``b.fb``, which calls ``a.fa2``) then needs nothing at load time, and a load-time use
    (``X = a.helper()``, a base class ``b.Base``) comes after its member in the live order. One
    module has one namespace, whatever alias reaches it (``import app.a as first`` and ``from app
    import a as second`` are one object, as live). Live imports under a namespace (a step hung
    into ``shop``) exist before it and are set at creation. A module with a PEP 562
    ``__getattr__`` is a ``_loom_module``: a name it does not bind is served by that function once
    it is hung in.

    Rejected: namespaces built whole after the members they hold (a member reaching a namespace
    must then come after it, and a cycle made one of them undefined: ``NameError`` at load), and
    one namespace per alias (``first is second`` would be false, unlike the live modules).
    """

    def __init__(self, names: _Names, plan: _Plan) -> None:
        self.chunk_name = names.chunk_name
        self.plan = plan
        self.trees: dict[str, dict[tuple[str, ...], str]] = {
            f"module:{prefix}": dict(paths) for prefix, paths in sorted(names.namespaces.items())
        }

    def __bool__(self) -> bool:
        return bool(self.trees)

    def skeleton(self) -> str:
        """Every namespace, nested namespaces in place, live imports set, bundled members not yet."""
        lines = ["# --- module namespaces: their bundled members are set below, each after its definition"]
        for ns, paths in self.trees.items():
            tree: dict[str, object] = {}
            for path, thing in sorted(paths.items()):
                node = tree
                for part in path[:-1]:
                    node = node.setdefault(part, {})  # type: ignore[assignment]
                if not self.plan.carriers.get(thing):  # a live import: defined at the top already
                    node[path[-1]] = self.chunk_name[thing]
                else:
                    node.setdefault(path[-1], None)  # set after the statement that binds it

            def render(node: Mapping[str, object]) -> str:
                items = ", ".join(f"{k}={render(v) if isinstance(v, dict) else v}"
                                  for k, v in sorted(node.items()) if v is not None)
                factory = _HOOKED_FACTORY if "__getattr__" in node else _NAMESPACE_FACTORY
                return f"{factory}({items})"

            lines.append(f"{self.chunk_name[ns]} = {render(tree)}  # module `{ns[len('module:'):]}`")
        return "\n".join(lines) + "\n"

    def attach(self, unit: _Unit) -> str:
        """The lines that hang what ``unit`` binds into the namespaces reaching it (after it)."""
        things = set(unit.binds.values())
        lines = [
            f"{self.chunk_name[ns]}.{'.'.join(path)} = {self.chunk_name[thing]}"
            for ns, paths in self.trees.items()
            for path, thing in sorted(paths.items())
            if thing in things
        ]
        return "\n" + "\n".join(lines) + "\n" if lines else ""


def _rewrite_imports(text: str, unit: _Unit, plan: _Plan, names: _Names) -> str:
    """``text`` with its first-party imports bound to the chunk's copies (module docstring)."""
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        raise ChunkError(f"cannot re-parse a closure member to rewrite its imports: {exc.message}",
                         path=f"{unit.path}:{unit.line}") from None
    rewriter = _ImportRewriter(unit, plan, names)
    new = module.visit(rewriter)
    return new.code if rewriter.changed else text


class _ImportRewriter(cst.CSTTransformer):
    def __init__(self, unit: _Unit, plan: _Plan, names: _Names) -> None:
        super().__init__()
        self.unit = unit
        self.plan = plan
        self.names = names
        self.deferred = 0  # inside a function or class body: a lazy import
        self.in_try = 0
        self.changed = False
        self.package = (unit.path or "").endswith("__init__.py")

    # scopes
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.deferred += 1

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        self.deferred -= 1
        return updated

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.deferred += 1

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        self.deferred -= 1
        return updated

    def visit_Try(self, node: cst.Try) -> None:
        self.in_try += 1

    def leave_Try(self, original: cst.Try, updated: cst.Try) -> cst.Try:
        self.in_try -= 1
        return updated

    def resolve_from(self, node: cst.ImportFrom) -> str | None:
        level = len(node.relative)
        module = dotted_chain(node.module) if node.module is not None else ""
        if level == 0:
            return module
        parts = self.unit.module.split(".") if self.package else self.unit.module.split(".")[:-1]
        if level - 1 > len(parts):
            return None
        base = parts[: len(parts) - (level - 1)]
        return ".".join([*base, *([module] if module else [])])

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine,
                                  updated: cst.SimpleStatementLine) -> cst.BaseStatement | cst.RemovalSentinel:
        body: list[cst.BaseSmallStatement] = []
        touched = False
        for small in updated.body:
            if isinstance(small, (cst.Import, cst.ImportFrom)):
                replaced = self.rewrite(small)
                if replaced is not None:
                    body.extend(replaced)
                    touched = True
                    continue
            body.append(small)
        if not touched:
            return updated
        self.changed = True
        if not body:
            body = [cst.Pass()]
        body = [b.with_changes(semicolon=cst.MaybeSentinel.DEFAULT) for b in body]
        return updated.with_changes(body=body)

    def bound(self, thing: str) -> cst.BaseExpression:
        name = self.names.chunk_name[thing]
        if self.deferred:
            return cst.parse_expression(f'globals()["{name}"]')
        return cst.Name(name)

    def target_of(self, target: str) -> str | None:
        """The thing (or namespace) an import of ``target`` binds in the chunk, if bundled."""
        plan = self.plan
        for value in self.unit.table.get(target, ()):
            thing = plan.thing.get(value)
            if thing is not None and plan.carriers.get(thing):
                return thing
        # a module: the bundled names reached through it (lazy ``import shop.pricing`` then
        # ``shop.pricing.discount``; ``try: from shop import util`` then ``util.fmt``)
        paths: dict[tuple[str, ...], str] = {}
        for chain, values in self.unit.table.items():
            if chain.startswith(target + "."):
                for value in values:
                    thing = plan.thing.get(value)
                    if thing is not None and plan.carriers.get(thing):
                        paths[tuple(chain[len(target) + 1 :].split("."))] = thing
                        break
        if paths:
            return self._namespace(target, paths)
        if any(m == target or m.startswith(target + ".") for m in self.plan.bundled_modules):
            # ``import shop.patch`` run for what it does: its statements are bundled, and the
            # name it binds stands for the bundled package (nothing of it is used by name)
            return self._namespace(target, {})
        return None

    def _namespace(self, target: str, paths: dict[tuple[str, ...], str]) -> str:
        ns = f"module:{target}"
        self.names.namespaces.setdefault(target, {}).update(paths)
        self.names.allocate(ns, target.rpartition(".")[2], target.rpartition(".")[0])
        for thing in paths.values():
            self.unit.deps.update(k for k in self.plan.carriers.get(thing, ()) if k != self.unit.key)
        return ns

    def through_uses(self, local: str, target: str) -> str | None:
        """What a module-level import of ``target`` as ``local`` binds, from the chains the closure
        spelled through ``local`` (a name with several bindings: ``try: from shop import util``)."""
        direct: str | None = None
        paths: dict[tuple[str, ...], str] = {}
        for tail, value in self.plan.alias_uses.get((self.unit.module, local), ()):
            thing = self.plan.thing.get(value)
            if thing is None or not self.plan.carriers.get(thing):
                continue
            if not tail:
                direct = thing
            elif value.startswith(target + ".") or value.endswith("." + tail):
                paths[tuple(tail.split("."))] = thing
        if direct is not None:
            return direct
        if paths:
            return self._namespace(target, paths)
        if any(m == target or m.startswith(target + ".") for m in self.plan.bundled_modules):
            # ``import shop.patch`` run for what it does: its statements are bundled, and the
            # name it binds stands for the bundled package (nothing of it is used by name)
            return self._namespace(target, {})
        return None

    def rewrite(self, node: cst.Import | cst.ImportFrom) -> list[cst.BaseSmallStatement] | None:
        unit = self.unit
        if isinstance(node, cst.ImportFrom) and isinstance(node.names, cst.ImportStar):
            base = self.resolve_from(node)
            out: list[cst.BaseSmallStatement] = []
            for name in sorted(unit.binds):
                thing = self.target_of(f"{base}.{name}")
                if thing is not None:
                    out.append(_assign(name, self.bound(thing)))
            return out if out else None
        aliases = import_bindings(node, self.resolve_from)
        if len(aliases) != len(node.names):  # type: ignore[arg-type]
            return None
        assigns: list[cst.BaseSmallStatement] = []
        kept: list[cst.ImportAlias] = []
        for alias, (local, target) in zip(node.names, aliases):  # type: ignore[arg-type]
            thing = self.target_of(target)
            if thing is None and not self.deferred:
                thing = self.through_uses(local, target)
            if thing is not None:
                assigns.append(_assign(local, self.bound(thing)))
            elif not self.deferred and not self.in_try and local in unit.binds and \
                    not self.plan.carriers.get(unit.binds[local]):
                continue  # an import of a name the closure does not reach: not bundled
            else:
                kept.append(alias)
        if not assigns and len(kept) == len(node.names):  # type: ignore[arg-type]
            return None
        out = list(assigns)
        if kept:
            last = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            out.append(node.with_changes(names=[*kept[:-1], last]))
        return out


def _assign(name: str, value: cst.BaseExpression) -> cst.Assign:
    return cst.Assign(targets=[cst.AssignTarget(target=cst.Name(name))], value=value)


def _header(fp: FlowFingerprint, entry: str, sources: tuple[str, ...]) -> str:
    return "\n".join(
        [
            "# Loom chunk: generated by `loom build`, do not edit (the manifest pins its sha256).",
            f"# flow: {fp.flow_id}",
            f"# codeHash: {fp.code_hash}",
            f"# scheme: {FINGERPRINT_SCHEME}",
            f"# entry: {entry}",
            "# sources:",
            *(f"#   {p}" for p in sources),
            "from __future__ import annotations",
            "",
            "",
        ]
    )


def _render(header: str, body: list[str], names: _Names) -> str:
    lines = _import_lines(names.imports) + [f"from {m} import *" for m in sorted(names.stars)]
    if names.namespaces:
        lines.append(f"from types import SimpleNamespace as {_NAMESPACE_FACTORY}")
    if any(path[-1] == "__getattr__" for paths in names.namespaces.values() for path in paths):
        lines += [
            "",
            "",
            f"class {_HOOKED_FACTORY}({_NAMESPACE_FACTORY}):",
            '    """A bundled module with a PEP 562 ``__getattr__``: it serves the names the module does not bind."""',
            "",
            "    def __getattr__(self, name):",
            '        hook = self.__dict__.get("__getattr__")',
            "        if hook is None:",
            "            raise AttributeError(name)",
            "        return hook(name)",
        ]
    if names.submodules:
        listed = ", ".join(f'"{m}"' for m in sorted(names.submodules))
        lines += [
            "",
            "# Submodules the source's `import` statements may have loaded (an attribute such as",
            "# a class is no submodule: that import fails and is skipped).",
            f"for _loom_submodule in ({listed},):",
            "    try:",
            "        __import__(_loom_submodule)",
            "    except ImportError:",
            "        pass",
            "del _loom_submodule",
        ]
    head = header + ("\n".join(lines) + "\n\n\n" if lines else "")
    return (head + "\n\n".join(body)).rstrip("\n") + "\n"


def _decorator_names(source: str) -> list[str]:
    """Global names in the decorator lines of a definition (``flow`` of ``@flow(...)``, ``lr`` of
    ``@lr.flow(...)``, ``re`` of ``re.compile`` in its arguments): names, not strings, attributes
    or keyword argument names."""
    head: list[str] = []
    for line in source.splitlines(keepends=True):
        if line.lstrip().startswith(("def ", "async def ", "class ")):
            break
        head.append(line)
    names: list[str] = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO("".join(head)).readline))
    except (tokenize.TokenError, SyntaxError):
        return names
    for i, tok in enumerate(tokens):
        if tok.type != tokenize.NAME or keyword.iskeyword(tok.string):
            continue
        before = tokens[i - 1].string if i else ""
        after = tokens[i + 1].string if i + 1 < len(tokens) else ""
        if before != "." and after != "=":
            names.append(tok.string)
    return list(dict.fromkeys(names))


def _consumed(chain: str, name: str) -> str:
    """The part of a reference chain that names the thing ``name``: ``p.discount`` of
    ``p.discount.__name__``; the rest is attribute access on it and stays."""
    parts = chain.split(".")
    for i, part in enumerate(parts):
        if part == name:
            return ".".join(parts[: i + 1])
    return chain


def _keep_class_members(text: str, reached: set[str], *, where: str) -> str:
    """The class with only the members the flow reaches, its docstring and its dunder methods.

    Members the flow never reaches are not in its fingerprint; bundling them would pin code the
    hash does not cover and drag in their imports."""
    try:
        module = cst.parse_module(_normalise(text))
    except cst.ParserSyntaxError as exc:
        raise ChunkError(f"cannot re-parse the class of a method flow: {exc.message}", path=where) from None
    (cls,) = [s for s in module.body if isinstance(s, cst.ClassDef)] or [None]
    if cls is None:
        raise ChunkError("the source of a method flow's class holds no class", path=where)
    kept = []
    body = list(cls.body.body)
    for i, stmt in enumerate(body):
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            name = stmt.name.value
            keep = name in reached or (name.startswith("__") and name.endswith("__"))
        elif isinstance(stmt, cst.SimpleStatementLine):
            is_doc = i == 0 and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr) and isinstance(
                stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)
            )
            names = {n.value for n in _assigned_names(stmt)}
            # ``x: int`` (a dataclass field) shapes ``__init__`` and, annotations being lazy in a
            # chunk, needs nothing at load time: kept like the dunders.
            fields = all(isinstance(small, cst.AnnAssign) and small.value is None for small in stmt.body)
            keep = is_doc or fields or bool(names & reached) or (
                bool(names) and all(n.startswith("__") and n.endswith("__") for n in names)
            )
        else:
            keep = False
        if keep:
            kept.append(stmt)
    if len(kept) == len(body):
        return text
    if not kept:
        kept = [cst.SimpleStatementLine([cst.Pass()])]
    new = cls.with_changes(body=cls.body.with_changes(body=kept))
    return module.code_for_node(new)


def _assigned_names(stmt: cst.SimpleStatementLine) -> list[cst.Name]:
    out: list[cst.Name] = []
    for small in stmt.body:
        targets: list[cst.BaseExpression] = []
        if isinstance(small, cst.Assign):
            targets = [t.target for t in small.targets]
        elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
            targets = [small.target]
        for t in targets:
            if isinstance(t, cst.Name):
                out.append(t)
            elif isinstance(t, (cst.Tuple, cst.List)):
                out.extend(e.value for e in t.elements if isinstance(e.value, cst.Name))
    return out


def _import_lines(imports: Mapping[str, str]) -> list[str]:
    """Import statements for ``{target: chunk name}``, one per module and kind, sorted by module
    (``import loom_runtime as lr`` and ``from loom_runtime import Context`` are two lines)."""
    plain: dict[str, str] = {}
    froms: dict[str, list[str]] = {}
    for target, name in imports.items():
        module, _, attr = target.rpartition(".")
        if not module:
            plain[target] = f"import {target}" if name == target else f"import {target} as {name}"
        elif name == target.split(".")[0]:
            plain[target] = f"import {target}"  # ``import os.path`` binds ``os``
        else:
            froms.setdefault(module, []).append(attr if attr == name else f"{attr} as {name}")
    lines = [(m, 0, line) for m, line in plain.items()]
    lines += [(m, 1, f"from {m} import {', '.join(sorted(names))}") for m, names in froms.items()]
    return [line for _, _, line in sorted(lines)]


def _normalise(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.strip("\n") + "\n"


class _Renamer(cst.CSTTransformer):
    """Rename references that resolve to the module scope; locals and attributes are left alone."""

    def __init__(self, renames: Mapping[str, str], global_names: set[int], dotted: Mapping[tuple[str, ...], str]) -> None:
        super().__init__()
        self.renames = renames
        self.global_names = global_names
        self.dotted = dotted

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        if id(original) in self.global_names and original.value in self.renames:
            return updated.with_changes(value=self.renames[original.value])
        return updated

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        chain = _attribute_chain(original)
        if chain is not None and chain in self.dotted:
            base = original
            while isinstance(base, cst.Attribute):
                base = base.value  # type: ignore[assignment]
            if id(base) in self.global_names:
                return cst.Name(self.dotted[chain])
        return updated

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        if id(original) in self.global_names and original.name.value in self.renames:
            return updated.with_changes(name=cst.Name(self.renames[original.name.value]))
        return updated

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        if id(original) in self.global_names and original.name.value in self.renames:
            return updated.with_changes(name=cst.Name(self.renames[original.name.value]))
        return updated

    def leave_NameItem(self, original: cst.NameItem, updated: cst.NameItem) -> cst.NameItem:
        # ``global counter`` inside a function names a module-level binding
        if original.name.value in self.renames:
            return updated.with_changes(name=cst.Name(self.renames[original.name.value]))
        return updated


def _attribute_chain(node: cst.BaseExpression) -> tuple[str, ...] | None:
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return tuple(reversed(parts))


def _rename(text: str, renames: Mapping[str, str], *, where: str) -> str:
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        raise ChunkError(f"cannot re-parse a closure member to rename it: {exc.message}", path=where) from None
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    scopes = {s for s in wrapper.resolve(ScopeProvider).values() if s is not None}
    global_ids: set[int] = set()
    for scope in scopes:
        for access in scope.accesses:
            if isinstance(access.node, cst.Name) and all(isinstance(a.scope, (GlobalScope, BuiltinScope)) for a in access.referents):
                global_ids.add(id(access.node))
        if isinstance(scope, GlobalScope):
            for assignment in scope.assignments:
                node = getattr(assignment, "node", None)
                if node is not None:
                    global_ids.add(id(node))
    dotted = {tuple(k.split(".")): v for k, v in renames.items() if "." in k}
    simple = {k: v for k, v in renames.items() if "." not in k}
    return module.visit(_Renamer(simple, global_ids, dotted)).code


def _unbound_globals(text: str, fp: FlowFingerprint, chunk_path: str) -> list[str]:
    """Global names the chunk uses but neither defines, imports nor gets from builtins: each would
    be a ``NameError`` when the registry runs an old execution, so the build refuses the chunk."""
    try:
        table = symtable.symtable(text, chunk_path, "exec")
    except SyntaxError as exc:
        raise ChunkError(
            f"flow `{fp.flow_id}`: the emitted chunk is not valid Python ({exc.msg} at chunk line {exc.lineno}); "
            "this is a loom bug, please report it with the flow's source",
            path=fp.path,
            line=fp.line,
        ) from None
    return _raw_unbound(table) if _RAW_SYMTABLE is not None else _wrapped_unbound(table)


def _wrapped_unbound(table: symtable.SymbolTable) -> list[str]:
    defined = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}
    missing: dict[str, None] = {}

    def walk(t: symtable.SymbolTable) -> None:
        for s in t.get_symbols():
            name = s.get_name()
            if s.is_referenced() and (s.is_global() or t.get_type() == "module") and not s.is_declared_global():
                if name not in defined and name not in _BUILTINS:
                    missing[name] = None
        for child in t.get_children():
            walk(child)

    walk(table)
    return list(missing)


def _raw_unbound(table: symtable.SymbolTable) -> list[str]:
    """``_wrapped_unbound`` over the C tables' flag words: the ``Symbol`` objects the wrapper makes
    for every name of every scope cost about as much as building the tables (one per chunk)."""
    raw = _RAW_SYMTABLE
    assert raw is not None
    use, local, imported, scope_off, scope_mask, implicit, explicit = raw
    top = table._table  # type: ignore[attr-defined]
    defined = {name for name, flags in top.symbols.items() if flags & (local | imported)}
    missing: dict[str, None] = {}
    stack = [(top, True)]
    while stack:
        entry, is_module = stack.pop()
        for name, flags in entry.symbols.items():
            if not flags & use:
                continue
            scope = (flags >> scope_off) & scope_mask
            if (scope == implicit or (is_module and scope != explicit)) and name not in defined \
                    and name not in _BUILTINS:
                missing[name] = None
        stack.extend((child, False) for child in reversed(entry.children))
    return list(missing)  # the wrapper's order: module first, then scopes depth first


def _raw_symtable_flags() -> tuple[int, ...] | None:
    try:
        import _symtable

        table = symtable.symtable("x = 1\n", "<probe>", "exec")
        if not hasattr(table, "_table") or not hasattr(table._table, "symbols"):  # type: ignore[attr-defined]
            return None
        return (_symtable.USE, _symtable.DEF_LOCAL, _symtable.DEF_IMPORT, _symtable.SCOPE_OFF, _symtable.SCOPE_MASK,
                _symtable.GLOBAL_IMPLICIT, _symtable.GLOBAL_EXPLICIT)
    except (ImportError, AttributeError):  # pragma: no cover - another interpreter
        return None


_RAW_SYMTABLE = _raw_symtable_flags()
