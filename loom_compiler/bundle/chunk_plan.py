"""What a chunk runs, module by module: the closure's statements and the imports they need.

A chunk holds, for each first-party module it touches, the statements of that module it must run
(``PlannedModule``), each later executed in a module object of its own (``chunk``). Which ones:

1. **The closure's statements** (``ClosureMember.parts``): each module-level statement of a
   member, once, whichever members reach it (``@REGISTRY.register def pay`` belongs to ``pay`` and
   to ``REGISTRY`` and runs once, as live); for a method flow, its class cut down to the members
   the flow reaches (``chunk_class``), unless the closure holds the whole class statement.
2. **The imports they need.** The closure resolves a name imported from elsewhere straight to its
   target (``discount`` -> ``shop.pricing.discount``), so the import statement that binds it in
   the module is no member; but the module's text looks the name up at run time, so the chunk
   runs that statement too. A name a module's bundled text uses and does not bind
   (``chunk_globals``) is looked for, in this order: the module's import statements that bind it
   (all of them, in source order: they run as live, and the last one wins as live); a step
   defined there (its import, ``from shop.steps import charge``: steps stay live, their bodies
   are effects), or a definition the closure reaches by name only (a framework's child flow,
   ``execute_child_workflow(Child.run)``: imported live the same way); a star import that may bind it; a builtin; something binding names at run time
   (``globals()[...] = ...``). Each first-party import pulls what it imports into the module it
   imports from (``from shop import discount`` asks ``shop`` for ``discount``, which its
   ``__init__`` re-exports with an import of its own), so the search runs to a fixed point over
   all modules. A name found nowhere is an error of the build (``missing``): serving would
   raise ``NameError``.
3. **The modules' framing**: each module's docstring (``__doc__``) and ``from __future__`` lines
   (their features apply to all of the module's statements in the chunk; B10: annotations are
   evaluated, or not, exactly as live).

4. **What a lookup by name finds** (``Statement.soft``): names only an annotation spells
   (``x: 'Money'``, every annotation under ``from __future__ import annotations``), which
   ``typing.get_type_hints``, dataclasses and frameworks' argument decoding look up in the
   module later, are bound as live, by the module's own definitions too (which the closure does
   not reach); a module whose text reads ``__annotations__`` runs all its top-level annotated
   assignments (B17). The names such statements use resolve the same way, never as an error.
   These statements are outside the fingerprint (an edit of them keeps the hash: fp2-core's
   side); bundling them keeps the chunk running what live code ran.

A first-party module an import names is in the chunk even when nothing of it is bundled (an
empty module: what the closure reaches of it is nothing, and importing it must not import the
live one); a first-party module the project does not have (``try: from .fast import f / except
ImportError``) is not, so importing it fails in the chunk as it fails live.

What a bundled module does NOT run: its statements the closure does not include. By the
fingerprint's soundness those cannot change what the flow computes; side effects they have live
(a log line at import, a registration in a third-party registry the flow never reads) do not
happen when a chunk loads. Statements it includes run exactly once, in the live order
(``chunk_order``); a module only a lazy import reaches runs at its first use, as live
(``chunk._runs`` names it ``lazy`` in the layout).

Rejected: one namespace for all modules with renames (``Color__shop_b``): every observable name,
``globals()``, ``sys.modules[__name__]``, stores into a module object and star imports behaved
differently from live (breaker's B1, B9, B13, B15, B16, B22, B23, B24); copying whole modules
(unfingerprinted code, and its imports, in the chunk).
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..analysis import ModuleSummary, Unit
from ..load_runs import seeds, units_run
from ..model import ClosureMember, FlowFingerprint
from .chunk_class import keep_class_members
from .chunk_file import ChunkError
from .chunk_globals import ModuleGlobals, statement_names
from .chunk_memo import ChunkMemo

__all__ = ["ChunkPlan", "PlannedModule", "Statement", "plan_chunk", "statement_globals"]

_DEFINITION_KINDS = frozenset({"flow", "function", "class", "constant", "method"})
#: names every module has without binding them
_MODULE_NAMES = frozenset({"__name__", "__file__", "__doc__", "__builtins__", "__spec__", "__loader__",
                           "__package__", "__path__", "__annotations__", "__dict__"})
_BUILTINS = frozenset(dir(builtins)) | _MODULE_NAMES


@dataclass(slots=True)
class Statement:
    module: str
    key: str  # unique in the chunk
    line: int  # its first line in its module (the live order within a module)
    seq: int  # ties on one line: framing first, then source order
    text: str
    origin: str  # "shop/h.py:4", for readers
    binds: frozenset[str] = frozenset()  # the names the closure reached it for
    live: bool = False  # a step's import of itself: never rewritten
    # bundled for what a name lookup by the standard library finds (an annotation's class, the
    # module's annotated assignments), not reached by the closure: its names are looked up as such
    soft: bool = False


@dataclass(slots=True)
class PlannedModule:
    name: str
    summary: ModuleSummary | None
    path: str
    package: bool
    statements: dict[str, Statement] = field(default_factory=dict)
    exports: set[str] = field(default_factory=set)  # names other modules' imports ask of it
    used: frozenset[str] = frozenset()  # global names its bundled text looks up
    bound: frozenset[str] = frozenset()  # global names its bundled text binds
    annotated: frozenset[str] = frozenset()  # names its kept annotations spell (looked up later, by name)
    any_name: bool = False  # a star import, a ``__getattr__`` or a dynamic write: may bind any name
    imports: set[str] = field(default_factory=set)  # first-party modules its statements import
    missing: list[str] = field(default_factory=list)  # used, bound by nothing the chunk runs
    #: the ``__future__`` features of the module (``future``), when the planner has them already
    known_future: tuple[str, ...] | None = None

    @property
    def future(self) -> tuple[str, ...]:
        if self.known_future is not None:
            return self.known_future
        return _future_of(self.summary) if self.summary is not None else ()

    def ordered(self) -> list[Statement]:
        return sorted(self.statements.values(), key=lambda s: (s.line, s.seq))


@dataclass(slots=True)
class ChunkPlan:
    modules: dict[str, PlannedModule]
    summaries: Mapping[str, ModuleSummary]
    first_party: Callable[[str], bool]
    #: modules some bundled text imports as a module (``import a.b``, ``from a import b`` with
    #: ``b`` a module): their running is the import's effect, so they are never deferred
    imported_as_modules: frozenset[str] = frozenset()

    def available(self, module: str, name: str) -> bool:
        """Whether the chunk's ``module`` will hold ``name`` (or it is a submodule of it)."""
        if f"{module}.{name}" in self.modules:
            return True
        m = self.modules.get(module)
        return m is not None and (name in m.bound or m.any_name)

    def binds_live(self, module: str, name: str) -> bool:
        """Whether the live ``module`` may bind ``name`` (its summary says so, or cannot tell)."""
        s = self.summaries.get(module)
        if s is None:
            return False
        return (any(name in u.names for u in s.units) or bool(s.star_imports) or s.getattr_hook
                or not s.exports_known or f"{module}.{name}" in self.summaries or self.replaces_itself(module))

    def replaces_itself(self, module: str) -> bool:
        """Whether ``module`` may put another object in its own ``sys.modules`` entry as it runs
        (``sys.modules[__name__] = _M()``: a ``>.`` store): what importing a name of it gets is that
        object's attribute, which no statement of the module binds (E3)."""
        s = self.summaries.get(module)
        if s is None:
            return False
        if any(">." in u.references for u in s.units):
            return True
        # F2, F13: code the module runs at load (``def _install(): sys.modules[__name__] = _M()``,
        # then ``_install()``, ``@_install``, a class body calling it: ``load_runs``) whose text
        # reads ``sys.modules`` by ``__name__``: a store through it
        # is deferred (a function body's), so the module-level ``>.`` mark is not there; widened
        # to any such use (a read only keeps an import the chunk would otherwise drop)
        bound = dict(a for u in s.units for a in u.aliases)
        modules = {n for n, t in bound.items() if t == "sys.modules"} | {
            f"{n}.modules" for n, t in bound.items() if t == "sys"}
        return any("__name__" in d.references and any(r.split("[")[0] in modules for r in d.references)
                   for d in units_run(s.units, (c for u in s.units for c in seeds(u))))


def plan_chunk(
    fp: FlowFingerprint,
    summaries: Mapping[str, ModuleSummary],
    first_party: Callable[[str], bool],
    *,
    class_source: str | None = None,
    class_line: int = 0,
    module_imports: Mapping[str, str] | None = None,
    memo: ChunkMemo | None = None,
) -> ChunkPlan:
    """The modules and statements of ``fp``'s chunk (module docstring); raises ``ChunkError``
    when the closure cannot be laid out (a member without source, a method flow's class missing)."""
    planner = _Planner(fp, summaries, first_party, module_imports or {}, memo if memo is not None else ChunkMemo())
    planner.closure_statements(class_source, class_line)
    planner.settle()
    return ChunkPlan(planner.modules, summaries, first_party, frozenset(planner.as_modules))


def _normalise(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.removeprefix("\ufeff")
    return text.strip("\n") + "\n"


def _local_name(member: ClosureMember) -> str:
    if member.qualname.startswith(member.module + "."):
        return member.qualname[len(member.module) + 1 :]
    return member.qualname.rpartition(".")[2]


def _is_docstring(unit: Unit, parse: Callable[[str], ast.Module] = ast.parse) -> bool:
    if unit.kind != "statement" or unit.names or not unit.source.lstrip().startswith(("'", '"', "r", "u", "R", "U", "b")):
        return False
    try:
        body = parse(unit.source).body
    except SyntaxError:
        return False
    return len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
        and isinstance(body[0].value.value, str)


class _Planner:
    def __init__(self, fp: FlowFingerprint, summaries: Mapping[str, ModuleSummary],
                 first_party: Callable[[str], bool], module_imports: Mapping[str, str], memo: ChunkMemo) -> None:
        self.fp = fp
        self.memo = memo
        self.summaries = summaries
        self.first_party = first_party
        self.module_imports = module_imports
        self.members = {m.qualname: m for m in fp.closure}
        self.modules: dict[str, PlannedModule] = {}
        self.dirty: set[str] = set()
        self.tried: set[tuple[str, str]] = set()
        self.synthesized = 0
        self.by_name = self._referenced_by_name()
        self.as_modules: set[str] = set()
        self.scans: dict[str, _Scan] = {}  # module -> what ``settle`` has scanned of its statements

    def _referenced_by_name(self) -> frozenset[tuple[str, str]]:
        """``(module, name)`` of the module-level definitions the chunk imports live from where
        they are defined, like a step: a child flow a framework references by name only (a
        Temporal ``execute_child_workflow(Child.run)``, member ``...Child.run#child``: no body
        bundled), and the flow decorator when first-party code defines it."""
        out: set[tuple[str, str]] = set()
        targets = [m.target for m in self.fp.closure if m.kind == "step" and m.target]
        # the flow decorator: outside the fingerprint by DESIGN (it is the engine), so, when the
        # project's own code defines it (dbos-transact-py's tests with ``dbos`` first-party), the
        # chunk imports it live like a step rather than find nothing to bind it to
        targets.append(self.fp.decorator)
        for target in targets:
            if not self.first_party(target):
                continue
            parts = target.split(".")
            depth = max((i for i in range(1, len(parts)) if ".".join(parts[:i]) in self.summaries), default=0)
            if depth:
                out.add((".".join(parts[:depth]), parts[depth]))
        return frozenset(out)

    # -- modules -------------------------------------------------------------------------------
    def module(self, name: str) -> PlannedModule:
        """The chunk's module ``name`` (created with its packages, framed by its docstring and
        ``__future__`` lines, the first time)."""
        m = self.modules.get(name)
        if m is not None:
            return m
        parent = name.rpartition(".")[0]
        if parent:
            self.module(parent).package = True
        s = self.summaries.get(name)
        path = s.path if s is not None else next(
            (mm.path for mm in self.fp.closure if mm.module == name and mm.path), "")
        m = PlannedModule(name, s, path or "", s.is_package if s is not None else path.endswith("__init__.py"))
        self.modules[name] = m
        if s is not None:
            m.known_future = self.facts(s).future
            for u in self._frame(s):
                self.add_unit(m, u, seq=-1)
        self.dirty.add(name)
        return m

    def facts(self, s: ModuleSummary) -> _ModuleFacts:
        """What the planner looks up in ``s`` by name, indexed once per build (every chunk
        bundling the module asks, ~30 names a chunk), by the summary object: a build serves one
        per module."""
        table = self.memo.table("module-facts")
        hit = table.get(id(s))
        if hit is None or hit[0] is not s:
            hit = table[id(s)] = (s, _ModuleFacts.of(s))
        return hit[1]  # type: ignore[no-any-return]

    def _frame(self, s: ModuleSummary) -> list[Unit]:
        """The docstring and ``__future__`` lines of ``s``'s module, once per build (every chunk
        bundling the module asks), by the summary object: a build serves one per module."""
        table = self.memo.table("frame")
        hit = table.get(id(s))
        if hit is None or hit[0] is not s:
            hit = table[id(s)] = (s, [u for u in s.units if _is_docstring(u, self.memo.tree) and u.index == 0
                                      or any(t.startswith("__future__.") for _, t in u.aliases)])
        return hit[1]  # type: ignore[no-any-return]

    def add(self, m: PlannedModule, stmt: Statement) -> None:
        if stmt.key in m.statements:
            return
        m.statements[stmt.key] = stmt
        self.dirty.add(m.name)
        if not stmt.live:
            self.follow_imports(m, stmt.text, where=stmt.origin)

    def add_unit(self, m: PlannedModule, u: Unit, *, seq: int = 0, binds: frozenset[str] = frozenset(),
                 soft: bool = False) -> None:
        key = f"{m.name}:{u.index}"
        if key in m.statements:
            return
        self.add(m, Statement(m.name, key, u.line, seq, _normalise(u.source), f"{m.path}:{u.line}", binds, soft=soft))

    # -- 1. the closure's statements -------------------------------------------------------------
    def closure_statements(self, class_source: str | None, class_line: int) -> None:
        fp, members = self.fp, self.members
        top = fp.function.split(".")[0]
        class_qual = f"{fp.module}.{top}"
        parts_seen: set[tuple[str, int]] = set()
        for m in fp.closure:
            for index, line, source, bound in m.parts:
                parts_seen.add((m.module, index))
                pm = self.module(m.module)
                key = f"{m.module}:{index}"
                if key in pm.statements:
                    old = pm.statements[key]
                    old.binds = old.binds | frozenset(bound)
                    continue
                self.add(pm, Statement(m.module, key, line, 0, _normalise(source), f"{pm.path}:{line}", frozenset(bound)))
        if "." in fp.function:
            self.flow_class(class_qual, top, class_source, class_line, parts_seen)
        for q, m in members.items():
            if m.parts or m.kind not in _DEFINITION_KINDS or "#" in q or q.endswith(".*"):
                continue
            if "." in fp.function and (q.startswith(class_qual + ".") or q == class_qual):
                continue  # in the class statement
            if any(chain == "<getattr>" for chain, _ in m.bindings):
                continue  # served by its module's ``__getattr__``, which is bundled
            if not m.source:
                raise ChunkError(f"flow `{fp.flow_id}`: closure member `{q}` has no source text to bundle",
                                 path=m.path or fp.path, line=m.line)
            pm = self.module(m.module)
            name = _local_name(m).split(".")[0]
            self.add(pm, Statement(m.module, f"{m.module}:member:{q}", m.line, 0, _normalise(m.source),
                                   f"{pm.path}:{m.line}", frozenset({name})))
        self.chain_exports()

    def chain_exports(self) -> None:
        """A chain the closure follows through a first-party module (``ops.charge``, ``shop.b.Color``,
        ``util.np.array``, ``=shop.q.z`` of a lazy import) asks that module for the next name: a
        step there is then imported live into it, a name it imports is imported there too."""
        for member in self.fp.closure:
            if member.module not in self.modules or member.kind in ("import", "step"):
                continue
            s = self.summaries.get(member.module)
            for chain, _ in member.bindings:
                if chain.startswith("<"):
                    continue
                if chain.startswith("="):
                    parts = chain[1:].split(".")
                    depth = max((i for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in self.summaries), default=0)
                    if depth:  # from the top: each package on the way may rebind the next name
                        self.walk(parts[0], parts[1:])
                    continue
                root, *rest = chain.split(".")
                if not rest or s is None:
                    continue
                for target in self.facts(s).aliased.get(root, ()):
                    if target in self.summaries:
                        self.walk(target, rest)

    def walk(self, module: str, rest: list[str]) -> None:
        self.module(module)
        for name in rest:
            full = f"{module}.{name}"
            if full not in self.summaries:
                self.modules[module].exports.add(name)
                self.dirty.add(module)
                return
            self.rebound(module, name)
            self.module(full)
            module = full

    def rebound(self, package: str, name: str) -> None:
        """``package.name`` is a submodule, but the package's own statements may bind ``name`` over
        it (``from .tools import tools`` in ``shop/__init__.py``: live, ``shop.tools`` is then the
        function); the chunk runs what binds it there, as live (breaker4's E2)."""
        s = self.summaries.get(package)
        if s is not None and any(name in u.names for u in s.units):
            self.modules[package].exports.add(name)
            self.dirty.add(package)

    def flow_class(self, class_qual: str, top: str, class_source: str | None, class_line: int,
                   parts_seen: set[tuple[str, int]]) -> None:
        fp, members = self.fp, self.members
        s = self.summaries.get(fp.module)
        indices = [u.index for u in s.units_binding(top) if u.kind == "class"] if s is not None else []
        if any((fp.module, i) in parts_seen for i in indices):
            return  # the whole class statement is bundled already
        text = class_source
        if text is None and class_qual in members:
            text = members[class_qual].source
        if not text:
            raise ChunkError(f"flow `{fp.flow_id}` is the method `{fp.function}`; the source of its class "
                             f"`{top}` is missing", path=fp.path, line=fp.line)
        inside = [q for q, m in members.items() if m.module == fp.module and q.startswith(class_qual + ".")]
        reached = {q[len(class_qual) + 1 :].split(".")[0] for q in inside}
        text = keep_class_members(_normalise(text), reached, where=f"{fp.path}:{fp.line}")
        line = members[class_qual].line if class_qual in members else class_line or fp.line
        pm = self.module(fp.module)
        key = f"{fp.module}:{indices[0]}" if indices else f"{fp.module}:class:{top}"
        self.add(pm, Statement(fp.module, key, line, 0, text, f"{pm.path}:{line}", frozenset({top})))

    # -- 2. what the statements need -------------------------------------------------------------
    def follow_imports(self, m: PlannedModule, text: str, *, where: str) -> None:
        """The first-party modules ``text`` imports (at any depth: a lazy import too) are the
        chunk's, and each name imported from one is asked of it."""
        if "import" not in text:
            return
        try:
            imports = self.memo.get("imports", text, lambda: _imports_of(text, self.memo.tree))
        except SyntaxError as exc:
            raise ChunkError(f"cannot re-parse a bundled statement: {exc.msg}", path=where) from None
        for module, level, names in imports:
            if names is None:
                self.imported_module(m, module)
                self.as_modules.update(".".join(module.split(".")[:i]) for i in range(1, module.count(".") + 2))
            else:
                base = self.absolute(m, module, level)
                if base is None or not self.first_party(base):
                    continue
                self.imported_module(m, base)
                if base not in self.modules:
                    continue  # a module the project does not have: the import fails as live
                m.imports.add(base)
                for alias in names:
                    if alias == "*":
                        m.any_name = True
                        continue
                    full = f"{base}.{alias}"
                    if full in self.summaries:
                        self.imported_module(m, full)
                        self.as_modules.add(full)
                        self.rebound(base, alias)
                    else:
                        self.modules[base].exports.add(alias)
                        self.dirty.add(base)

    def imported_module(self, m: PlannedModule, dotted: str) -> None:
        if not self.first_party(dotted):
            return
        parts = dotted.split(".")
        for i in range(1, len(parts) + 1):
            prefix = ".".join(parts[:i])
            if prefix in self.summaries:
                self.module(prefix)
            if prefix in self.modules:
                m.imports.add(prefix)

    def absolute(self, m: PlannedModule, name: str | None, level: int) -> str | None:
        if level == 0:
            return name
        parts = m.name.split(".") if m.package else m.name.split(".")[:-1]
        if level > len(parts):
            return None  # beyond the top-level package: an ImportError live
        base = parts[: len(parts) - (level - 1)]
        return ".".join([*base, *([name] if name else [])]) or None

    def settle(self) -> None:
        """Scan modules until every name each one needs is bound by what the chunk runs."""
        while self.dirty:
            name = min(self.dirty)  # deterministic
            self.dirty.discard(name)
            m = self.modules[name]
            # per statement, each answer memoised for the build: the module's uses and binds are
            # the union of its statements' (a module-level name is global in every scope), with
            # the module's deferred annotations, which hide annotation names from the tables
            deferred = "annotations" in m.future
            # statements are only ever added to a module: each is scanned once per chunk, into
            # unions kept from the module's previous scans
            scan = self.scans.get(name)
            if scan is None:
                scan = self.scans[name] = _Scan()
            fresh = list(m.statements.values())[scan.count:]
            scan.count += len(fresh)
            for stmt in fresh:
                try:
                    g = self.memo.get("globals", (deferred, stmt.text),
                                      lambda: statement_globals(stmt.text, deferred, self.memo.tree))
                except SyntaxError as exc:
                    raise ChunkError(
                        f"flow `{self.fp.flow_id}`: a statement bundled from `{name}` ({stmt.origin}) is not valid "
                        f"Python on its own ({exc.msg}); this is a loom bug, please report it with the flow's source",
                        path=self.fp.path, line=self.fp.line) from None
                scan.used |= g.used
                if not stmt.soft:
                    scan.hard |= g.used
                scan.bound |= g.bound
                scan.annotated |= g.annotated
            hard = scan.hard  # used by statements the closure reached
            if fresh:
                m.used, m.bound, m.annotated = frozenset(scan.used), frozenset(scan.bound), frozenset(scan.annotated)
                scan.writes = scan.writes or self.writes_names(m, fresh)
            m.any_name = m.any_name or "__getattr__" in m.bound or scan.writes
            if "__annotations__" in m.used and (name, "__annotations__") not in self.tried:
                self.tried.add((name, "__annotations__"))
                self.module_annotations(m)
            for needed in sorted((m.used | m.exports | m.annotated) - m.bound):
                if (name, needed) in self.tried:
                    continue
                self.tried.add((name, needed))
                reached = needed in hard or needed in m.exports
                if not self.resolve(m, needed, definitions=not reached) and needed in m.used \
                        and needed not in _BUILTINS and not m.any_name:
                    m.missing.append(needed)
        for m in self.modules.values():  # a later statement may have bound what was missing
            m.missing = [n for n in m.missing if n not in m.bound and not m.any_name]

    def module_annotations(self, m: PlannedModule) -> None:
        """The module's ``__annotations__`` is read (``sorted(__annotations__)`` in a helper): it
        holds every annotated assignment the module ran at its top level, so the chunk runs them
        all (B17), whether or not the closure reaches their names."""
        if m.summary is None:
            return
        for u in m.summary.units:
            if self.memo.get("module-annotations", u.source, lambda: _annotates_module(u.source, self.memo.tree)):
                self.add_unit(m, u, soft=True)

    def writes_names(self, m: PlannedModule, statements: list[Statement]) -> bool:
        """Whether one of ``statements`` (of ``m``) binds names the symbol tables cannot see
        (``globals()[k] = v``)."""
        s = m.summary
        if s is not None:
            writers = self.facts(s).module_writers
            if writers:
                for stmt in statements:
                    index = stmt.key.rpartition(":")[2]
                    if index.isdigit() and int(index) in writers:
                        return True
        return any("globals()[" in st.text or "exec(" in st.text for st in statements)

    def resolve(self, m: PlannedModule, name: str, *, definitions: bool = False) -> bool:
        """Add to ``m`` what binds ``name`` live; whether something does (or need not).

        ``definitions``: ``name`` is only spelled by an annotation (``x: 'Money'``), so the closure
        need not reach what defines it in ``m``: a definition of the module binding it is bundled
        too, as ``get_type_hints`` finds it live. (A name the code uses is defined by closure
        members, by the fingerprint's construction; only its imports are the chunk's to add.)"""
        s = m.summary
        facts = self.facts(s) if s is not None else None
        named = facts.named.get(name, ()) if facts is not None else ()
        if s is not None and (m.name, name) in self.by_name and not any(
                u.kind == "step" for u in named):  # a step: the steps branch below
            line = min((u.line for u in named), default=0)
            self.add(m, Statement(m.name, f"{m.name}:by-name:{name}", line, 0,
                                  f"from {m.name} import {name}  # live code: a child flow referenced by name, "
                                  "or the flow decorator\n", f"{m.path}:{line}", live=True))
            return True
        if s is not None:
            assert facts is not None
            binding = [u for u in named if u.kind != "step"]
            imports = [u for u in binding if any(local == name for local, _ in u.aliases)]
            # every statement binding it runs, in source order, as live (the last one wins)
            for u in binding if definitions else imports:
                self.add_unit(m, u, soft=definitions and u not in imports)
            if imports or definitions and binding:
                return True
            steps = [u for u in named if u.kind == "step"]
            for u in steps:
                # the step itself stays live: the chunk imports it where it is defined
                self.add(m, Statement(m.name, f"{m.name}:{u.index}", u.line, 0,
                                      f"from {m.name} import {name}  # a step: live code, its body is an effect\n",
                                      f"{m.path}:{u.line}", live=True))
            if steps:
                return True
            found = False
            for u in facts.stars:
                for target in u.stars:
                    if not self.first_party(target):
                        self.add_unit(m, u)  # may bind it; nothing can tell
                        found = True
                    elif target in self.summaries and (name in self.facts(self.summaries[target]).named
                                                       or self.summaries[target].star_imports):
                        self.add_unit(m, u)
                        self.module(target).exports.add(name)
                        self.dirty.add(target)
                        found = True
            if found:
                return True
        if name in _BUILTINS:
            return True
        return self.synthesize(m, name)

    def synthesize(self, m: PlannedModule, name: str) -> bool:
        """An import of ``name`` made from the closure's bindings, for a module whose import
        statements are unknown (a closure given without module summaries; the flow decorator of
        the flow's module, which the fingerprint leaves out on purpose)."""
        target: str | None = None
        chain = name
        for member in self.fp.closure:
            if member.module != m.name:
                continue
            for c, value in member.bindings:
                if c.split(".")[0] != name or c.startswith(("<", "=")):
                    continue
                vm = self.members.get(value)
                if vm is not None and vm.kind in ("import", "step"):
                    target, chain = vm.target or value, c
                elif vm is not None and vm.module != m.name:
                    local = _local_name(vm).split(".")[0]
                    target, chain = f"{vm.module}.{local}", c
                elif vm is None:
                    target, chain = value, c
                break
            if target is not None:
                break
        if target is None and m.name == self.fp.module and name in self.module_imports:
            target = self.module_imports[name]
        if target is None:
            return False
        rest = chain[len(name) + 1 :]
        if not rest:
            module, _, attr = target.rpartition(".")
            line = f"from {module} import {attr}" + (f" as {name}" if attr != name else "") if module else \
                f"import {target}" + (f" as {name}" if target != name else "")
        elif target.split(".")[0] == name:
            line = f"import {target.rpartition('.')[0] or target}"  # ``xml.dom.minidom.parseString``
        else:
            module = target[: -len(rest) - 1] if target.endswith("." + rest) else target
            line = f"import {module} as {name}"
        self.synthesized += 1
        frame = [s for s in m.statements.values() if s.seq < 0]
        at = max((s.line for s in frame), default=0)
        self.add(m, Statement(m.name, f"{m.name}:import:{name}", at, self.synthesized, line + "\n",
                              f"{m.path or m.name} (an import the closure implies)"))
        return True


def _annotates_module(text: str, parse: Callable[[str], ast.Module] = ast.parse) -> bool:
    """Whether the statement ``text`` has an annotated assignment to a simple name at module
    level (inside ``if``/``try``/``with``/``for`` too, never in a def or class), which Python adds
    to the module's ``__annotations__``."""
    if ":" not in text:
        return False
    try:
        tree = parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return False
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.AnnAssign) and node.simple:
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            todo.extend(c for c in getattr(node, field, ()) if isinstance(c, ast.stmt))
        for handler in getattr(node, "handlers", ()):
            todo.extend(handler.body)
        for case in getattr(node, "cases", ()):
            todo.extend(case.body)
    return False


def _imports_of(text: str, parse: Callable[[str], ast.Module] = ast.parse,
                ) -> tuple[tuple[str | None, int, tuple[str, ...] | None], ...]:
    """``(module, level, names)`` per import in ``text`` at any depth; ``names`` None for
    ``import a.b`` (``module`` then the dotted name). Raises ``SyntaxError``."""
    out: list[tuple[str | None, int, tuple[str, ...] | None]] = []
    for node in ast.walk(parse(text)):
        if isinstance(node, ast.Import):
            out.extend((alias.name, 0, None) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            out.append((node.module, node.level, tuple(alias.name for alias in node.names)))
    return tuple(out)


def statement_globals(text: str, deferred: bool, parse: Callable[[str], ast.Module] = ast.parse) -> ModuleGlobals:
    """One statement's uses and binds, and the names its kept annotations spell; ``deferred``:
    its module defers annotations (so its annotations are no uses, as in the whole module);
    ``parse``: ``ast.parse`` or a build's shared trees (``ChunkMemo.tree``). Raises ``SyntaxError``."""
    return statement_names(text, "<chunk statement>", prefix="from __future__ import annotations\n" if deferred else "",
                           parse=parse)


@dataclass(slots=True)
class _Scan:
    """What ``settle`` found in a module's first ``count`` statements (unions of their globals)."""

    count: int = 0
    used: set[str] = field(default_factory=set)
    hard: set[str] = field(default_factory=set)  # used by statements the closure reached (not soft)
    bound: set[str] = field(default_factory=set)
    annotated: set[str] = field(default_factory=set)
    writes: bool = False  # one of them binds names the symbol tables cannot see


def _future_of(s: ModuleSummary) -> tuple[str, ...]:
    return tuple(t.partition(".")[2] for u in s.units for _, t in u.aliases if t.startswith("__future__."))


@dataclass(frozen=True, slots=True)
class _ModuleFacts:
    """Lookups over one summary's statements, made once per build (``_Planner.facts``)."""

    #: name -> every statement binding it (``Unit.names``), in source order
    named: Mapping[str, tuple[Unit, ...]]
    #: local name -> the target of each import binding it (``Unit.aliases``), in source order
    aliased: Mapping[str, tuple[str, ...]]
    stars: tuple[Unit, ...]  # the statements with star imports, in source order
    module_writers: frozenset[int]  # indices of statements that write names dynamically
    future: tuple[str, ...]  # the module's ``__future__`` features

    @classmethod
    def of(cls, s: ModuleSummary) -> _ModuleFacts:
        named: dict[str, list[Unit]] = {}
        aliased: dict[str, list[str]] = {}
        for u in s.units:
            for n in dict.fromkeys(u.names):
                named.setdefault(n, []).append(u)
            for local, target in u.aliases:
                aliased.setdefault(local, []).append(target)
        # ``writes_names`` looked each statement up by index, the last unit of an index winning
        by_index = {u.index: u for u in s.units}
        return cls({n: tuple(us) for n, us in named.items()}, {n: tuple(ts) for n, ts in aliased.items()},
                   tuple(u for u in s.units if u.stars),
                   frozenset(i for i, u in by_index.items() if "module-write" in u.dynamic), _future_of(s))
