"""Emit one chunk per code version: the flow and its first-party closure in one readable file.

A chunk is what the registry executes to serve an execution pinned to an old codeHash, so it must
never import the *current* first-party helper code: every closure member that is a definition
(flow, helper function, class, constant) is copied in with its original text, comments and
formatting; imports of third-party modules and step functions stay ordinary imports of live code
(step bodies are effects served from the journal, not part of the fingerprint).

Layout, top to bottom: a header comment (flow id, codeHash, scheme, entry, source files),
``from __future__ import annotations`` (annotations may name things outside the closure, such as
``TYPE_CHECKING`` imports; evaluating them at load time would fail for no behavioural reason), the
imports sorted, then the members in dependency order (a member after everything it binds, so class
bases, decorators and constants resolve at load time), the flow last.

Names: members of several modules share one namespace in the chunk. Each distinct thing (a member
qualname or an import target) gets one chunk name: its own name when free, else
``<name>__<module>`` (the flow itself is never renamed, so ``entry`` is its qualname). Only a
member whose references actually need renaming is re-printed through libcst, renaming global
references with scope analysis (a local or a parameter of the same name is left alone); every
other member is copied byte for byte. ``import shop.pricing as p; p.discount()`` works two ways:
a binding keyed ``p.discount`` is rewritten to the bundled ``discount``; a binding of ``p`` to the
module itself gets a namespace object holding the bundled members reached through it.

Rejected: copying whole modules (bundles unrelated code and its imports, which may not even
import in the serving process), renaming by regex (renames attributes and locals too), and
re-printing every member through libcst (slower, and it would reformat nothing anyway: libcst
round-trips, so the only reason to touch a member is a rename).
"""

from __future__ import annotations

import builtins
import hashlib
import re
import symtable
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import GlobalScope, MetadataWrapper, ScopeProvider

from loom_runtime.manifest import FINGERPRINT_SCHEME

from ..model import ClosureMember, FlowFingerprint

__all__ = ["Chunk", "ChunkError", "chunk_path_for", "flow_slug", "emit_chunk", "source_digest"]

_DEFINITION_KINDS = frozenset({"flow", "function", "class", "constant", "method"})
_SLUG_RE = re.compile(r"[^0-9A-Za-z_.-]+")
_BUILTINS = frozenset(dir(builtins)) | {"__name__", "__file__", "__doc__", "__builtins__", "__spec__", "__loader__", "__package__"}
_NAMESPACE_FACTORY = "_loom_namespace"


class ChunkError(Exception):
    """A chunk could not be emitted for a flow; carries the location for a ``SourceError``."""

    def __init__(self, message: str, *, path: str, line: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.path = path
        self.line = line
        self.column = column


@dataclass(frozen=True, slots=True)
class Chunk:
    flow_id: str
    code_hash: str
    entry: str  # dotted attribute path of the @flow function inside the chunk
    text: str
    sources: tuple[str, ...]  # POSIX paths of the files the bundled members come from
    renamed: Mapping[str, str] = field(default_factory=dict)  # qualname -> chunk name, when renamed

    @property
    def data(self) -> bytes:
        return self.text.encode("utf-8")

    @property
    def digest(self) -> str:
        return "sha256:" + hashlib.sha256(self.data).hexdigest()


def flow_slug(flow_id: str) -> str:
    """A safe directory name for a flow id (``orders/checkout v2`` -> ``orders_checkout_v2``)."""
    slug = _SLUG_RE.sub("_", flow_id).strip("._") or "flow"
    return slug[:80]


def chunk_path_for(flow_id: str, code_hash: str, *, variant: str | None = None) -> str:
    """``chunks/<slug>/<16 hex of codeHash>.py``; ``variant`` suffixes a second text of one codeHash."""
    hex16 = code_hash.partition(":")[2][:16]
    if len(hex16) < 16 or not all(c in "0123456789abcdef" for c in hex16):
        raise ValueError(f"codeHash {code_hash!r} is not a 'sha256:<hex>' value")
    name = f"{hex16}-{variant}" if variant else hex16
    return f"chunks/{flow_slug(flow_id)}/{name}.py"


def source_digest(files: Mapping[str, bytes] | Mapping[str, str], paths: Iterable[str]) -> str:
    """``sourceDigest``: sha256 of the one source file, or over ``sha256sum``-style lines
    (``<hex>  <path>\\n``, sorted by path) when the closure spans several files.

    ``files`` maps a path to its bytes or to the hex sha256 of its bytes.
    """
    digests: dict[str, str] = {}
    for path in sorted(set(paths)):
        value = files[path]
        digests[path] = hashlib.sha256(value).hexdigest() if isinstance(value, bytes) else value
    if len(digests) == 1:
        return "sha256:" + next(iter(digests.values()))
    listing = "".join(f"{hexd}  {path}\n" for path, hexd in digests.items())
    return "sha256:" + hashlib.sha256(listing.encode("utf-8")).hexdigest()


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
    read_source: Callable[[str], str | None] | None = None,
    chunk_path: str = "",
) -> Chunk:
    """Render the chunk of one flow version. Pure apart from ``read_source`` (only consulted for a
    flow that is a method, to bundle its whole class).

    Raises ``ChunkError`` when the closure cannot be made self-contained (a global name with no
    binding, a method flow whose class cannot be found).
    """
    members = {m.qualname: m for m in fp.closure}
    root = fp.closure[0] if fp.closure else None
    if root is None:
        raise ChunkError(f"flow `{fp.flow_id}` has an empty closure; nothing to bundle", path=fp.path, line=fp.line)

    units: dict[str, _Unit] = {}
    owner: dict[str, str] = {}  # member qualname -> key of the unit that carries its text
    top_name = fp.function.split(".")[0]
    if "." in fp.function:
        # A method flow: bundle its class whole (the registry resolves entry ``Shop.run``).
        class_qual = f"{fp.module}.{top_name}"
        cls_member = members.get(class_qual)
        text = cls_member.source if cls_member is not None and cls_member.source else _class_source(fp, top_name, read_source)
        units[class_qual] = _Unit(class_qual, top_name, fp.module, fp.path, _class_line(cls_member, fp), cls_member, text)
        for q, m in members.items():
            if q == class_qual or (m.module == fp.module and q.startswith(class_qual + ".")):
                owner[q] = class_qual
    for q, m in members.items():
        if q in owner or m.kind not in _DEFINITION_KINDS:
            continue
        if m.kind == "method":
            # A sibling method of a class that is not bundled whole: its class must be a member.
            cls_q = q.rpartition(".")[0]
            if cls_q in members:
                owner[q] = cls_q
                continue
        if not m.source:
            raise ChunkError(
                f"flow `{fp.flow_id}`: closure member `{q}` has no source text to bundle",
                path=m.path or fp.path,
                line=m.line,
            )
        units[q] = _Unit(q, _local_name(m).split(".")[0], m.module, m.path, m.line, m, m.source)
        owner[q] = q

    # Import targets: what each non-bundled binding value means to the chunk.
    def import_target(value: str) -> str | None:
        m = members.get(value)
        if m is not None and m.kind in ("import", "step"):
            return m.target or m.qualname
        if m is None:
            return value
        return None

    # Allocate chunk names: root first, then units in (module, qualname) order, then imports.
    taken: dict[str, str] = {}  # chunk name -> thing key
    chunk_name: dict[str, str] = {}  # thing key -> chunk name

    def allocate(thing: str, preferred: str, module: str) -> str:
        if thing in chunk_name:
            return chunk_name[thing]
        name = preferred
        if name in taken and taken[name] != thing:
            base = f"{preferred}__{module.replace('.', '_')}" if module else preferred
            name, n = base, 2
            while name in taken:
                name, n = f"{base}_{n}", n + 1
        taken[name] = thing
        chunk_name[thing] = name
        return name

    root_unit_key = owner.get(root.qualname, root.qualname)
    allocate(root_unit_key, units[root_unit_key].name, "")
    taken.setdefault("annotations", "__future__.annotations")
    for key in sorted(units, key=lambda k: (units[k].module != fp.module, units[k].module, k)):
        allocate(key, units[key].name, units[key].module)

    # Bindings per unit: local spelling -> thing; namespaces for first-party module aliases.
    namespaces: dict[str, set[str]] = {}  # module prefix -> unit keys reached through it
    imports: dict[str, str] = {}  # import target -> chunk name
    plans: dict[str, dict[str, str]] = {}  # unit key -> {spelling in its text: chunk name}
    carried: dict[str, list[ClosureMember]] = {}
    for q, key in owner.items():
        carried.setdefault(key, []).append(members[q])
    for key in sorted(units):
        unit = units[key]
        spellings: dict[str, str] = {}
        for m in carried.get(key, [unit.member] if unit.member else []):
            for local, value in m.bindings:
                thing = owner.get(value)
                if thing is not None:
                    if thing != key:  # a unit's references to itself (``self.x``, recursion) stay as written
                        unit.deps.add(thing)
                        spellings[local] = chunk_name[thing]
                    continue
                prefix = value + "."
                reached = sorted(k for q, k in owner.items() if q.startswith(prefix))
                if reached and value not in members:
                    # ``import shop.pricing as p``: ``p`` is a first-party module; give it a namespace.
                    ns_key = f"module:{value}"
                    namespaces.setdefault(value, set()).update(reached)
                    name = allocate(ns_key, local.split(".")[0], value)
                    unit.deps.add(ns_key)
                    spellings[local.split(".")[0]] = name
                    continue
                target = import_target(value)
                if target is None:
                    continue
                head, _, rest = local.partition(".")
                if rest:
                    # ``np.array`` -> ``numpy.array``: import the head's module and keep the spelling
                    if not target.endswith("." + rest):
                        spellings[local] = _import(imports, allocate, target, local.rpartition(".")[2])
                        continue
                    target = target[: -len(rest) - 1]
                spellings[head] = _import(imports, allocate, target, head)
        # the member's own top-level name
        spellings.setdefault(unit.name, chunk_name[key])
        plans[key] = spellings

    for prefix, keys in sorted(namespaces.items()):
        ns_key = f"module:{prefix}"
        # A unit that uses the namespace cannot be in it (it is defined after it); in practice the
        # users are the flow and its same-module helpers, which nobody reaches through an alias.
        reached = {k for k in keys if ns_key not in units[k].deps}
        units[ns_key] = _Unit(ns_key, chunk_name[ns_key], prefix, None, 0, None, "", reached)

    ordered = _dependency_order(units, root_unit_key)
    sources = tuple(sorted({u.path for u in units.values() if u.path}))
    body: list[str] = []
    renamed: dict[str, str] = {}
    for key in ordered:
        unit = units[key]
        if key.startswith("module:"):
            body.append(_namespace_text(unit, units, chunk_name))
            continue
        text = _normalise(unit.text)
        renames = {local: new for local, new in plans[key].items() if local != new}
        if renames:
            text = _rename(text, renames, where=f"{unit.path}:{unit.line}")
            if unit.name in renames:
                renamed[key] = renames[unit.name]
        label = f"{unit.path}:{unit.line}" if unit.path else unit.module
        note = f" (renamed from `{unit.name}`)" if unit.name in renames else ""
        body.append(f"# --- {key} from {label}{note}\n{text}")

    entry = chunk_name[root_unit_key] + fp.function[len(top_name) :]
    header = [
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
    import_lines = sorted(_import_line(target, name) for target, name in imports.items())
    if namespaces:
        import_lines.append(f"from types import SimpleNamespace as {_NAMESPACE_FACTORY}")
    text = "\n".join(header) + ("\n".join(import_lines) + "\n\n\n" if import_lines else "") + "\n\n".join(body)
    text = text.rstrip("\n") + "\n"
    _check_self_contained(text, fp, chunk_path or chunk_path_for(fp.flow_id, fp.code_hash))
    return Chunk(fp.flow_id, fp.code_hash, entry, text, sources, renamed)


def _import(imports: dict[str, str], allocate: Callable[[str, str, str], str], target: str, preferred: str) -> str:
    if target not in imports:
        imports[target] = allocate(f"import:{target}", preferred, target.rpartition(".")[0])
    return imports[target]


def _class_line(member: ClosureMember | None, fp: FlowFingerprint) -> int:
    return member.line if member is not None else fp.line


def _class_source(fp: FlowFingerprint, class_name: str, read_source: Callable[[str], str | None] | None) -> str:
    text = read_source(fp.path) if read_source is not None else None
    if text is None:
        raise ChunkError(
            f"flow `{fp.flow_id}` is the method `{fp.function}`; its class `{class_name}` could not be read",
            path=fp.path,
            line=fp.line,
        )
    module = cst.parse_module(text)
    for stmt in module.body:
        if isinstance(stmt, cst.ClassDef) and stmt.name.value == class_name:
            return module.code_for_node(stmt)
    raise ChunkError(
        f"flow `{fp.flow_id}`: class `{class_name}` is not a top-level class of {fp.path}; "
        "a method flow must belong to a module-level class",
        path=fp.path,
        line=fp.line,
    )


def _dependency_order(units: Mapping[str, _Unit], root: str) -> list[str]:
    """Depth-first post-order from the flow: every unit after the units it binds. Cycles (mutually
    recursive helpers) are cut where they are met; only load-time references could notice."""
    order: list[str] = []
    state: dict[str, int] = {}

    def sort_key(k: str) -> tuple[str, int, str]:
        u = units[k]
        return (u.path or "~", u.line, k)

    def visit(k: str) -> None:
        if state.get(k):
            return
        state[k] = 1
        for dep in sorted((d for d in units[k].deps if d in units), key=sort_key):
            visit(dep)
        order.append(k)

    visit(root)
    for k in sorted(units, key=sort_key):
        visit(k)
    # the flow reads best at the end; it depends on everything else anyway
    if root in order:
        order.remove(root)
        order.append(root)
    return order


def _namespace_text(unit: _Unit, units: Mapping[str, _Unit], chunk_name: Mapping[str, str]) -> str:
    prefix = unit.module
    tree: dict[str, object] = {}
    for key in sorted(unit.deps):
        target = units[key]
        rel_module = target.module[len(prefix) + 1 :] if target.module != prefix else ""
        path = [p for p in rel_module.split(".") if p] + [target.name]
        node = tree
        for part in path[:-1]:
            node = node.setdefault(part, {})  # type: ignore[assignment]
        node[path[-1]] = chunk_name[key]

    def render(node: Mapping[str, object]) -> str:
        items = ", ".join(f"{k}={render(v) if isinstance(v, dict) else v}" for k, v in sorted(node.items()))
        return f"{_NAMESPACE_FACTORY}({items})"

    return f"# --- module `{prefix}`: the bundled members reached through it\n{unit.name} = {render(tree)}"


def _import_line(target: str, name: str) -> str:
    module, _, attr = target.rpartition(".")
    if not module:
        return f"import {target}" if name == target else f"import {target} as {name}"
    if name == target.split(".")[0]:
        return f"import {target}"  # ``import os.path`` binds ``os``
    return f"from {module} import {attr}" if attr == name else f"from {module} import {attr} as {name}"


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
            if isinstance(access.node, cst.Name) and all(isinstance(a.scope, GlobalScope) for a in access.referents):
                global_ids.add(id(access.node))
        if isinstance(scope, GlobalScope):
            for assignment in scope.assignments:
                node = getattr(assignment, "node", None)
                if node is not None:
                    global_ids.add(id(node))
    dotted = {tuple(k.split(".")): v for k, v in renames.items() if "." in k}
    simple = {k: v for k, v in renames.items() if "." not in k}
    return module.visit(_Renamer(simple, global_ids, dotted)).code


def _check_self_contained(text: str, fp: FlowFingerprint, chunk_path: str) -> None:
    """Compile the chunk and refuse one that would raise ``NameError``: every global a bundled
    member uses must be defined in the chunk or be a builtin."""
    try:
        table = symtable.symtable(text, chunk_path, "exec")
    except SyntaxError as exc:
        raise ChunkError(
            f"flow `{fp.flow_id}`: the emitted chunk is not valid Python ({exc.msg} at chunk line {exc.lineno}); "
            "this is a loom bug, please report it with the flow's source",
            path=fp.path,
            line=fp.line,
        ) from None
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
    if missing:
        names = ", ".join(f"`{n}`" for n in missing)
        raise ChunkError(
            f"flow `{fp.flow_id}`: the closure uses {names} but nothing in it defines or imports "
            f"{'it' if len(missing) == 1 else 'them'}; define the name at module level or import it "
            "(a chunk cannot fall back to the live module)",
            path=fp.path,
            line=fp.line,
        )


def chunk_sources(members: Sequence[ClosureMember]) -> tuple[str, ...]:
    return tuple(sorted({m.path for m in members if m.path and m.kind in _DEFINITION_KINDS}))
