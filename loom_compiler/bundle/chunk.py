"""Emit one chunk per code version: the flow and its first-party closure in one readable file.

A chunk is what the registry executes to serve an execution pinned to an old codeHash, so it must
never import the *current* first-party helper code: every closure member that is a definition
(flow, helper function, class, constant) is copied in with its original text, comments and
formatting; imports of third-party modules and step functions stay ordinary imports of live code
(step bodies are effects served from the journal, not part of the fingerprint).

Layout, top to bottom: a header comment (flow id, codeHash, scheme, entry, source files),
``from __future__ import annotations`` (annotations may name things outside the closure, such as
``TYPE_CHECKING`` imports; evaluating them at load time would fail for no behavioural reason), the
imports sorted, the namespaces that stand for first-party modules (empty of bundled members), then
the members in the order the live modules define them (``chunk_order``: Python's own execution
of the modules replayed, import cycles included, so class bases, decorators and constants computed
at load time resolve exactly when they would live), each followed by the lines that hang it into
the namespaces reaching it (``_Namespaces``).

Names: members of several modules share one namespace in the chunk. Each distinct thing (a member
qualname or an import target) gets one chunk name: its own name when free, else
``<name>__<module>``; a name that is a builtin's is always renamed (``round`` in ``pricing.py``
must not shadow the builtin ``round`` that ``flows.py`` means). The flow keeps its name unless it
is a builtin's, so ``entry`` is normally its qualname. A member reached through a first-party
module alias (``import shop.pricing as p; p.discount()``, ``import shop.util; shop.util.fee()``)
keeps its text: the alias becomes a ``SimpleNamespace`` of the bundled members (and live steps)
reached through it. Only a member whose own references need another name is re-printed through
libcst, renaming global references with scope analysis (a local or a parameter of the same name is
left alone); every other member is copied byte for byte.

Self-containment is checked, not assumed: the chunk is compiled and every global name it uses must
be defined, imported or a builtin (``symtable``), else the build fails naming the flow. For a
method flow only the members the flow reaches (the fingerprinted ones), the docstring and dunder
methods of its class are kept. Known limits: code that relies on ``__name__``/``__file__`` sees the
chunk's private module; a first-party module object passed around whole (nothing of it bundled)
stays a live import.

Rejected: copying whole modules (bundles unrelated code and its imports, which may not even
import in the serving process), renaming by regex (renames attributes and locals too), and
re-printing every member through libcst (slower, and it would reformat nothing anyway: libcst
round-trips, so the only reason to touch a member is a rename).
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
from .chunk_file import Chunk, ChunkError, chunk_path_for, flow_slug, source_digest
from .chunk_order import Schedule, execution_order

__all__ = ["Chunk", "ChunkError", "chunk_path_for", "flow_slug", "emit_chunk", "source_digest"]

_DEFINITION_KINDS = frozenset({"flow", "function", "class", "constant", "method"})
_BUILTINS = frozenset(dir(builtins)) | {"__name__", "__file__", "__doc__", "__builtins__", "__spec__", "__loader__", "__package__"}
# A bundled member or import named like a builtin would shadow it for members of *other* modules
# that mean the builtin; such names are always renamed in a chunk.
_RESERVED = frozenset(n for n in dir(builtins) if not n.startswith("_")) | {"annotations"}
_NAMESPACE_FACTORY = "_loom_namespace"


# -- planning ---------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Unit:
    """One top-level block of the chunk: a bundled member, or a namespace for a module alias."""

    key: str  # member qualname, or "module:<dotted>" for a namespace
    name: str  # top-level name it defines in the chunk
    module: str
    path: str | None
    line: int
    member: ClosureMember | None = None
    text: str = ""
    deps: set[str] = field(default_factory=set)


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
    of its summary), so members are defined in the order the live modules define them; a module
    missing from it is assumed to import what its members use at its top.

    Raises ``ChunkError`` when the closure cannot be made self-contained.

    Stages: the units (``_collect_units``), their chunk names (``_Names``, the flow's own first),
    how each unit spells what it uses (``_plan_spellings``), the namespaces for module aliases, the
    body in dependency order, then rendering and the self-containment check.
    """
    if not fp.closure:
        raise ChunkError(f"flow `{fp.flow_id}` has an empty closure; nothing to bundle", path=fp.path, line=fp.line)
    members = {m.qualname: m for m in fp.closure}
    root = fp.closure[0]
    top_name = fp.function.split(".")[0]
    units, owner = _collect_units(fp, members, class_source, class_line)

    names = _Names()
    # Names: the flow's own unit first (never renamed), then its module's units, then the others.
    root_key = owner[root.qualname]
    names.allocate(root_key, units[root_key].name, "")
    for key in sorted(units, key=lambda k: (units[k].module != fp.module, units[k].module, k)):
        names.allocate(key, units[key].name, units[key].module)

    carried: dict[str, list[ClosureMember]] = {}
    for q, key in owner.items():
        if q in members:
            carried.setdefault(key, []).append(members[q])
    plans = {key: _plan_spellings(units, key, carried.get(key, []), owner, members, names) for key in sorted(units)}

    namespaces = _Namespaces(names, units)
    uses: dict[str, set[str]] = {}
    for u in units.values():
        uses.setdefault(u.module, set()).update(units[d].module for d in u.deps if d in units)
    order = execution_order([(k, u.module, u.line) for k, u in sorted(units.items())], fp.module,
                            import_schedules or {}, uses)
    body, renamed = _body(units, order, plans, namespaces)
    sources = tuple(sorted({u.path for u in units.values() if u.path}))
    entry = names.chunk_name[root_key] + fp.function[len(top_name) :]
    header = _header(fp, entry, sources)
    where = chunk_path or chunk_path_for(fp.flow_id, fp.code_hash)
    fallback = module_imports or {}
    # The flow decorator's names are not in the closure; take them from the decorator lines up
    # front (the check below confirms, so a guess that is wrong only costs a second pass).
    for name in _decorator_names(root.source):
        if name in fallback and name not in names.taken:
            names.import_as(fallback[name], name)
    text = _render(header, body, names)
    missing = _unbound_globals(text, fp, where)
    if missing and all(name in fallback and name not in names.taken for name in missing):
        for name in missing:
            names.import_as(fallback[name], name)
        text = _render(header, body, names)
        missing = _unbound_globals(text, fp, where)
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
) -> tuple[dict[str, _Unit], dict[str, str]]:
    """The chunk's blocks and, for every closure member, the key of the unit carrying its text
    (a method flow's class carries the members it reaches; other definitions carry themselves)."""
    units: dict[str, _Unit] = {}
    owner: dict[str, str] = {}  # member qualname -> key of the unit that carries its text
    top_name = fp.function.split(".")[0]
    if "." in fp.function:
        class_qual = f"{fp.module}.{top_name}"
        inside = {q: m for q, m in members.items() if m.module == fp.module and q.startswith(class_qual + ".")}
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
        units[class_qual] = _Unit(class_qual, top_name, fp.module, fp.path, line, members.get(class_qual), text)
        owner[class_qual] = class_qual
        for q in inside:
            owner[q] = class_qual
    for q, m in members.items():
        if q in owner or m.kind not in _DEFINITION_KINDS:
            continue
        if not m.source:
            raise ChunkError(
                f"flow `{fp.flow_id}`: closure member `{q}` has no source text to bundle",
                path=m.path or fp.path,
                line=m.line,
            )
        units[q] = _Unit(q, _local_name(m).split(".")[0], m.module, m.path, m.line, m, m.source)
        owner[q] = q
    return units, owner


class _Names:
    """The chunk's one namespace: a chunk name per distinct thing (a unit key, ``import:<target>``,
    ``module:<dotted>``), the imports of live code and the first-party module namespaces."""

    def __init__(self) -> None:
        self.taken: dict[str, str] = {}  # chunk name -> thing
        self.chunk_name: dict[str, str] = {}  # thing -> chunk name
        self.imports: dict[str, str] = {}  # import target -> chunk name
        self.submodules: set[str] = set()  # dotted prefixes of chains through a plain ``import x``
        # first-party module -> {attribute path below it: unit key} for chains like ``p.discount``
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
        depends on is the members it reaches through it, which its caller records."""
        ns = f"module:{module}"
        self.namespaces.setdefault(module, {}).update(paths)
        return self.allocate(ns, head, module)


def _plan_spellings(
    units: Mapping[str, _Unit],
    key: str,
    carried: list[ClosureMember],
    owner: Mapping[str, str],
    members: Mapping[str, ClosureMember],
    names: _Names,
) -> dict[str, str]:
    """How the unit ``key`` spells each thing it uses -> that thing's chunk name (recording the
    imports and namespaces it needs in ``names`` and its dependencies in ``unit.deps``)."""
    unit = units[key]
    spellings: dict[str, str] = {}
    heads: dict[str, str] = {}  # spelling -> first-party module it is a namespace for
    later: list[tuple[str, str]] = []
    # Pass 1: bundled members and first-party module objects (they decide the namespaces).
    for m in carried:
        for chain, value in m.bindings:
            thing = owner.get(value)
            if thing is not None:
                if thing == key:  # references to itself (``self.x``, recursion) stay as written
                    continue
                unit.deps.add(thing)
                consumed = _consumed(chain, units[thing], value)
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
                under = {_module_path(units[k], target): k for q, k in owner.items() if q.startswith(target + ".")}
                if under:
                    # The module object of a first-party module used as a value (``p`` passed
                    # on): a namespace of every bundled member under it.
                    head = chain.split(".")[0]
                    heads[head] = target
                    spellings[head] = names.via_namespace(unit, head, target, under)
                    unit.deps.update(k for k in under.values() if k != key)
                    continue
            later.append((chain, target))
    # Pass 2: imports of live code (third-party, steps).
    for chain, target in later:
        head, _, rest = chain.partition(".")
        module = heads.get(head)
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
    spellings.setdefault(unit.name, names.chunk_name[key])
    return spellings


def _body(
    units: Mapping[str, _Unit],
    ordered: list[str],
    plans: Mapping[str, Mapping[str, str]],
    namespaces: _Namespaces,
) -> tuple[list[str], dict[str, str]]:
    """The blocks: the module namespaces (empty of bundled members), then each unit in dependency
    order (renamed where its plan says so) followed by the lines that hang it into every namespace
    reaching it; and the renamed units."""
    body: list[str] = []
    renamed: dict[str, str] = {}
    if namespaces:
        body.append(namespaces.skeleton())
    for key in ordered:
        unit = units[key]
        text = _normalise(unit.text)
        renames = {spelling: new for spelling, new in plans[key].items() if spelling != new}
        if renames:
            text = _rename(text, renames, where=f"{unit.path}:{unit.line}")
        note = ""
        if unit.name in renames:
            renamed[key] = renames[unit.name]
            note = f" (renamed from `{unit.name}`)"
        label = f"{unit.path}:{unit.line}" if unit.path else unit.module
        body.append(f"# --- {key} from {label}{note}\n{text}{namespaces.attach(key)}")
    return body, renamed


class _Namespaces:
    """The ``SimpleNamespace`` objects that stand for first-party modules reached through an alias.

    Built the way Python builds modules, so any import graph Python accepts loads (DESIGN §7):
    each namespace exists, empty of bundled members, before any member is defined (a module object
    exists before its body runs), and each member is hung into every namespace that reaches it
    right after its own definition (``a.fa = fa``: an attribute exists once its ``def`` ran). A
    cycle through module attributes (``a.fa`` calls ``b.fb``, which calls ``a.fa2``) then needs
    nothing at load time, and a load-time use (``X = a.helper()``, a base class ``b.Base``) comes
    after its member by dependency order. One module has one namespace, whatever alias reaches it
    (``import app.a as first`` and ``from app import a as second`` are one object, as live). Live
    imports under a namespace (a step hung into ``shop``) exist before it and are set at creation.

    Rejected: namespaces built whole after the members they hold (a member reaching a namespace
    must then come after it, and a cycle made one of them undefined: ``NameError`` at load), and
    one namespace per alias (``first is second`` would be false, unlike the live modules).
    """

    def __init__(self, names: _Names, units: Mapping[str, _Unit]) -> None:
        self.chunk_name = names.chunk_name
        self.units = units
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
            for path, key in sorted(paths.items()):
                node = tree
                for part in path[:-1]:
                    node = node.setdefault(part, {})  # type: ignore[assignment]
                if key not in self.units:  # a live import: defined at the top already
                    node[path[-1]] = self.chunk_name[key]
                else:
                    node.setdefault(path[-1], None)  # set after the member's definition

            def render(node: Mapping[str, object]) -> str:
                items = ", ".join(f"{k}={render(v) if isinstance(v, dict) else v}"
                                  for k, v in sorted(node.items()) if v is not None)
                return f"{_NAMESPACE_FACTORY}({items})"

            lines.append(f"{self.chunk_name[ns]} = {render(tree)}  # module `{ns[len('module:'):]}`")
        return "\n".join(lines) + "\n"

    def attach(self, key: str) -> str:
        """The lines that hang unit ``key`` into the namespaces reaching it (after its definition)."""
        lines = [
            f"{self.chunk_name[ns]}.{'.'.join(path)} = {self.chunk_name[key]}"
            for ns, paths in self.trees.items()
            for path, k in sorted(paths.items())
            if k == key
        ]
        return "\n" + "\n".join(lines) + "\n" if lines else ""


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
    lines = _import_lines(names.imports)
    if names.namespaces:
        lines.append(f"from types import SimpleNamespace as {_NAMESPACE_FACTORY}")
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


def _consumed(chain: str, unit: _Unit, qualname: str) -> str:
    """The part of a reference chain that names the member: ``p.discount`` of
    ``p.discount.__name__``; the rest is attribute access on the member and stays."""
    parts = chain.split(".")
    name = qualname.rpartition(".")[2] if unit.member is None else _local_name(unit.member).split(".")[0]
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


def _module_path(unit: _Unit, module: str) -> tuple[str, ...]:
    rel = unit.module[len(module) + 1 :] if unit.module != module else ""
    return (*[p for p in rel.split(".") if p], unit.name)


def _import_lines(imports: Mapping[str, str]) -> list[str]:
    """Import statements for ``{target: chunk name}``, one per module, sorted by module."""
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
    lines = {**plain, **{m: f"from {m} import {', '.join(sorted(names))}" for m, names in froms.items()}}
    return [lines[m] for m in sorted(lines)]


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
