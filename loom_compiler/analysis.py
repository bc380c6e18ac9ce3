"""Per-module analysis: source bytes in, a frozen ``ModuleSummary`` out. Pure and cacheable.

``analyse_module`` parses one module with libcst exactly once and records everything the later
stages need without parsing again: every module-level statement as a ``Unit`` (the names it
binds, its ``loom-fp/1`` canonical form, the global names it uses, its original source text and
line), the module's import bindings (relative imports resolved), and the flows it declares with
their decorator arguments, their own canonical form and references. The result depends only on
``(source bytes, module, path, config.digest, SCHEME)``: the bundler caches it under that key.

A module-level name maps to *all* the units that bind it (``X = 1`` ... ``X += 1``; a function
defined in both branches of an ``if``), in file order: an edit to any of them is an edit to what
the name means. Statements that bind nothing (``main()``) are kept as units without a canonical
form so the bundler sees the whole file.

Parsing skips libcst's node validation (``parse_module_unvalidated``): every node libcst
constructs runs ``_validate()`` in ``__post_init__``, checks of invariants (balanced parentheses,
whitespace that is whitespace) its own parser guarantees. Validation only ever raises, so the trees
and every hash are identical; the parse is ~15 % faster, and parsing is most of a cold build.

Rejected: storing libcst trees in the summary (not picklable across libcst versions, large),
per-definition re-parsing later (doubles the parse cost that dominates the build), and ``ast``
instead of libcst for the hashed forms (``loom-fp/1`` is defined over libcst's trees).
"""

from __future__ import annotations

import ast
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from loom_compiler.model import SourceError

from .canonical import SCHEME, CanonicalisationError, canonical, canonical_statements, flatten_block, nfkc
from .discovery import LOOM_FLOW, FlowArgError, FlowArgs, extract_flow_args, resolve_decorator
from .precheck import decorator_markers, might_define_flows
from .scopes import bound_names, dotted_chain, references
from .sources import SourceDecodeError, decode_source

if TYPE_CHECKING:
    from .config import LoomConfig

try:
    from importlib.metadata import version as _dist_version

    _LIBCST_VERSION = _dist_version("libcst")
except Exception:  # pragma: no cover - metadata missing in odd installs
    _LIBCST_VERSION = "?"

__all__ = [
    "Unit",
    "MemberUnit",
    "FlowSite",
    "ModuleSummary",
    "analyse_module",
    "might_define_flows",
    "decorator_markers",
    "parse_module_unvalidated",
]

UnitKind = str  # "function" | "class" | "constant" | "step" | "statement"


@dataclass(frozen=True, slots=True)
class Unit:
    """One module-level statement."""

    index: int
    kind: UnitKind
    names: tuple[str, ...]  # module-level names it binds
    canonical: str  # loom-fp/1 form ("" for statements that bind nothing and for steps; for a
    # flow function the flow's own form: its name and the flow decorator left out)
    #: dotted chains rooted at global names, sorted; "=<target>" is an absolute import target
    #: (imports inside a compound statement such as ``try: import x / except: import y``)
    references: tuple[str, ...]
    source: str  # original text: leading comments, decorators, formatting
    line: int  # first line of the statement proper (decorator or keyword)
    step_name: str | None = None  # for kind "step": the step's qualified name


@dataclass(frozen=True, slots=True)
class MemberUnit:
    """A member of a class that declares a method flow (reached through ``self.``/``cls.``)."""

    qualname: str  # "Checkout.total"
    canonical: str
    references: tuple[str, ...]
    members: tuple[str, ...]  # self./cls. names it uses in turn
    source: str
    line: int


@dataclass(frozen=True, slots=True)
class FlowSite:
    """A flow declared in the module: where, with which decorator arguments, and what its own
    code (flow decorator removed, name left out) canonicalises to and uses."""

    qualname: str  # "checkout" or "Checkout.run"
    args: FlowArgs
    decorator: str  # qualified name of the flow decorator
    line: int
    column: int
    unit: int  # index of the module-level unit holding it
    canonical: str  # flow decorator removed, own name left out
    references: tuple[str, ...]
    members: tuple[str, ...]  # self./cls. names (method flows)
    class_qualname: str | None
    source: str


@dataclass(frozen=True, slots=True)
class ModuleSummary:
    """Everything the closure, hashing and bundling stages need from one module, as plain values
    (picklable, comparable). ``errors`` are per-flow problems; a module that cannot be parsed at
    all is a ``SourceError`` instead of a summary. Lines and columns are 1-based, as
    compilers and editors print ``file:line:column``."""

    module: str
    path: str
    is_package: bool
    units: tuple[Unit, ...]
    imports: tuple[tuple[str, str], ...]  # local name -> dotted target, sorted
    star_imports: tuple[str, ...]
    flows: tuple[FlowSite, ...]
    members: tuple[MemberUnit, ...]  # of classes holding method flows
    errors: tuple[SourceError, ...]
    scheme: str = SCHEME

    def import_map(self) -> dict[str, str]:
        return dict(self.imports)

    def units_binding(self, name: str) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if name in u.names)

    def member(self, qualname: str) -> MemberUnit | None:
        for m in self.members:
            if m.qualname == qualname:
                return m
        return None


def analyse_module(
    source: bytes | str,
    *,
    module: str,
    path: str,
    config: LoomConfig | None = None,
    all_functions: bool = False,
) -> ModuleSummary | SourceError:
    """Parse and summarise one module. Whole-file failures come back as a ``SourceError``.

    ``all_functions`` (tests, benchmarks) treats every function and method as a flow.
    """
    if isinstance(source, bytes):
        try:
            text = decode_source(source)
        except SourceDecodeError as exc:
            return SourceError(path, exc.line, exc.column, str(exc), code="encoding")
    else:
        text = source[1:] if source.startswith("\ufeff") else source
    try:
        tree = parse_module_unvalidated(text)
    except cst.ParserSyntaxError as exc:
        return _syntax_error(text, path, exc)
    except RecursionError:
        return SourceError(path, 1, 1, "too deeply nested for the parser", code="syntax")
    try:
        return _Analyser(tree, text, module=module, path=path, config=config, all_functions=all_functions).run()
    except RecursionError:
        return SourceError(path, 1, 1, "expression nesting too deep to fingerprint", code="syntax")
    except CanonicalisationError as exc:
        return SourceError(path, 1, 1, str(exc), code="syntax")


def _skip_validation(self: cst.CSTNode) -> None:
    return None


def parse_module_unvalidated(text: str) -> cst.Module:
    """``libcst.parse_module(text)`` without re-validating the nodes the parser builds.

    The switch is ``CSTNode.__post_init__`` (where libcst calls ``_validate``) for the duration of
    the call, so only the parser's own nodes skip it: nodes built later (``with_changes``) are
    validated as usual, and ``finally`` puts it back whatever the parse raises. It is thrown only
    when it is safe to: this is the only thread (the switch is process-wide; the CLI and the build
    workers are single-threaded) and libcst's ``__post_init__`` is exactly ``self._validate()``
    (checked on its code, so a libcst that moves validation or gives ``__post_init__`` other work
    gets a plain parse, never a half-initialised tree). A nested call (a signal handler parsing
    while the switch is thrown) sees the switch, not ``_validate``, and parses plainly.
    """
    base = cst.CSTNode
    validate = base.__dict__.get("__post_init__")
    if not _only_validates(validate) or threading.active_count() != 1:
        return cst.parse_module(text)
    try:
        base.__post_init__ = _skip_validation  # type: ignore[method-assign]
        return cst.parse_module(text)
    finally:
        base.__post_init__ = validate  # type: ignore[method-assign]


def _only_validates(post_init: object) -> bool:
    """Whether ``post_init`` is libcst's ``def __post_init__(self): self._validate()`` (every
    release pyproject allows: checked in 1.1.0 and 1.9.0): one argument, ``_validate`` the only
    name it looks up."""
    code = getattr(post_init, "__code__", None)
    return code is not None and code.co_argcount == 1 and code.co_names == ("_validate",)


class _Analyser:
    def __init__(
        self, tree: cst.Module, text: str, *, module: str, path: str, config: LoomConfig | None, all_functions: bool
    ) -> None:
        self.tree = tree
        self.layout = _Layout(tree, text)
        self.module = module
        self.path = path
        self.is_package = path.replace("\\", "/").endswith("__init__.py")
        self.flow_decorators = set(config.decorators) if config is not None else {LOOM_FLOW}
        self.step_decorators = set(config.step_decorators) if config is not None else {"loom_runtime.step"}
        self.all_functions = all_functions
        self.errors: list[SourceError] = []
        self._positions: Mapping[cst.CSTNode, object] | None = None

    # -- positions (computed only when a flow or an error needs one) -----------------------------
    def position(self, node: cst.CSTNode) -> tuple[int, int]:
        """(line, column), both 1-based as editors and compilers print them (libcst's and ast's
        columns are 0-based)."""
        known = self.layout.position(node)
        if known is not None:
            return known[0], known[1] + 1
        if self._positions is None:
            self._positions = MetadataWrapper(self.tree, unsafe_skip_copy=True).resolve(PositionProvider)
        rng = self._positions[node]
        return rng.start.line, rng.start.column + 1  # type: ignore[attr-defined]

    def error(self, node: cst.CSTNode, message: str, code: str) -> None:
        line, column = self.position(node)
        self.errors.append(SourceError(self.path, line, column, message, code=code))

    # -- main -----------------------------------------------------------------------------------
    def run(self) -> ModuleSummary:
        tree = self.tree
        self.imports, self.star_imports = self.collect_imports(tree.body)
        stmts = list(tree.body)
        self.local_names: set[str] = set()
        unit_names: list[tuple[str, ...]] = []
        for stmt in stmts:
            names = tuple(sorted(self.binds(stmt)))
            unit_names.append(names)
            self.local_names.update(names)
        # for decorators, a name bound by a module-level def/class or plain assignment is not the
        # import of the same name; one bound inside ``try: from x import flow / except: flow = None``
        # still is (the import is what runs when the dependency is installed)
        shadowing: set[str] = set()
        for stmt, names in zip(stmts, unit_names):
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef, cst.SimpleStatementLine)):
                shadowing.update(names)
        self.decorator_imports = {k: v for k, v in self.imports.items() if k not in shadowing}
        self.local_names = shadowing

        units: list[Unit] = []
        self.flows: list[FlowSite] = []
        self.members: list[MemberUnit] = []
        for index, stmt in enumerate(stmts):
            code, start = self.layout.source(stmt)
            units.append(self.unit(index, stmt, unit_names[index], code, start))
        return ModuleSummary(
            module=self.module,
            path=self.path,
            is_package=self.is_package,
            units=tuple(units),
            imports=tuple(sorted(self.imports.items())),
            star_imports=tuple(self.star_imports),
            flows=tuple(self.flows),
            members=tuple(self.members),
            errors=tuple(self.errors),
        )

    def binds(self, stmt: cst.CSTNode) -> set[str]:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            return {nfkc(stmt.name.value)}
        if isinstance(stmt, cst.SimpleStatementLine):
            return bound_names([s for s in stmt.body if not isinstance(s, (cst.Import, cst.ImportFrom))])
        return bound_names([stmt])

    def unit(self, index: int, stmt: cst.CSTNode, names: tuple[str, ...], source: str, line: int) -> Unit:
        if isinstance(stmt, cst.FunctionDef):
            kind = "function"
            step_name = None
            for dec in stmt.decorators:
                qn = resolve_decorator(dec.decorator, self.decorator_imports, self.module, self.local_names)
                if qn in self.step_decorators:
                    kind = "step"
                    step_name = f"{self.module}.{nfkc(stmt.name.value)}"
                    break
            found = len(self.flows)
            self.discover(stmt, prefix="", unit=index, cls=None)
            if kind == "step":
                return Unit(index, kind, names, "", (), source, line, step_name)
            if len(self.flows) > found:
                # a flow: its canonical form already leaves out its name and the flow decorator
                # (what its hash covers); computing the plain one too would double the work
                site = self.flows[-1]
                return Unit(index, kind, names, site.canonical, site.references, source, line)
            return Unit(index, kind, names, canonical(stmt), _sorted(references(stmt).globals), source, line)
        if isinstance(stmt, cst.ClassDef):
            self.discover_class(stmt, prefix="", unit=index)
            return Unit(index, "class", names, canonical(stmt), _sorted(references(stmt).globals), source, line)
        if not names:
            return Unit(index, "statement", (), "", (), source, line)
        body = [stmt] if not isinstance(stmt, cst.SimpleStatementLine) else [
            s for s in stmt.body if not isinstance(s, (cst.Import, cst.ImportFrom))
        ]
        refs: set[str] = set()
        for s in body:
            refs |= references(s).globals
        if not isinstance(stmt, cst.SimpleStatementLine):
            # ``try: from .fast import f / except ImportError: from .slow import f``: every
            # alternative's target is reached ("=" marks an absolute target, not a local name)
            for node in _module_level_imports([stmt]):
                refs.update("=" + t for t in self.import_targets.get(id(node), ()) if t)
        return Unit(index, "constant", names, canonical_statements(body), _sorted(refs), source, line)

    # -- flows ----------------------------------------------------------------------------------
    def flow_decorator(self, node: cst.FunctionDef) -> tuple[cst.Decorator, str] | None:
        for dec in node.decorators:
            qn = resolve_decorator(dec.decorator, self.decorator_imports, self.module, self.local_names)
            if qn in self.flow_decorators:
                return dec, qn
        return None

    def discover_class(self, node: cst.ClassDef, *, prefix: str, unit: int) -> None:
        qual = prefix + nfkc(node.name.value)
        flows_before = len(self.flows)
        for stmt in node.body.body:
            if isinstance(stmt, cst.FunctionDef):
                self.discover(stmt, prefix=qual + ".", unit=unit, cls=node)
            elif isinstance(stmt, cst.ClassDef):
                self.discover_class(stmt, prefix=qual + ".", unit=unit)
        if len(self.flows) > flows_before:
            self.collect_members(node, qual)

    def discover(self, node: cst.FunctionDef, *, prefix: str, unit: int, cls: cst.ClassDef | None) -> None:
        found = self.flow_decorator(node)
        if found is None and not self.all_functions:
            return
        qualname = prefix + nfkc(node.name.value)
        if found is not None:
            dec, decorator = found
            try:
                args = extract_flow_args(dec.decorator, loom=decorator == LOOM_FLOW, imports=self.decorator_imports)
            except FlowArgError as exc:
                self.error(exc.node, f"flow `{qualname}`: {exc}", exc.code)
                return
            stripped = node.with_changes(decorators=[d for d in node.decorators if d is not dec])
        else:
            decorator, args, stripped = "", FlowArgs(id=None), node
        refs = references(stripped, method_of_class=cls is not None)
        globals_ = set(refs.globals)
        members = set(refs.members)
        if cls is not None and not any(dotted_chain(d.decorator) == "staticmethod" for d in node.decorators):
            # the instance a method flow runs on is built by these: state they set is input
            members |= {"__init__", "__post_init__"}
        if cls is not None:
            header = cls.with_changes(body=cst.IndentedBlock(body=[cst.SimpleStatementLine([cst.Pass()])]))
            globals_ |= references(header).globals
        line, column = self.position(node)
        self.flows.append(
            FlowSite(
                qualname=qualname,
                args=args,
                decorator=decorator,
                line=line,
                column=column,
                unit=unit,
                canonical=canonical(stripped, anonymous=stripped),
                references=_sorted(globals_),
                members=_sorted(members),
                class_qualname=prefix[:-1] if cls is not None else None,
                source=self.layout.source(node)[0],
            )
        )

    def collect_members(self, cls: cst.ClassDef, qual: str) -> None:
        for stmt in cls.body.body:
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                names = {nfkc(stmt.name.value)}
                refs = references(stmt, method_of_class=isinstance(stmt, cst.FunctionDef))
                text = canonical(stmt)
            else:
                small = flatten_block([stmt])
                names = bound_names(small)
                if not names:
                    continue
                refs = references(stmt)
                text = canonical_statements(small)
            code, line = self.layout.source(stmt)
            for name in sorted(names):
                self.members.append(
                    MemberUnit(f"{qual}.{name}", text, _sorted(refs.globals), _sorted(refs.members), code, line)
                )

    # -- imports --------------------------------------------------------------------------------
    def collect_imports(self, stmts: Sequence[cst.CSTNode]) -> tuple[dict[str, str], list[str]]:
        imports: dict[str, str] = {}
        stars: list[str] = []
        self.import_targets: dict[int, list[str]] = {}  # id(import statement) -> its targets
        for node in _module_level_imports(stmts):
            targets = self.import_targets.setdefault(id(node), [])
            if isinstance(node, cst.Import):
                for alias in node.names:
                    target = dotted_chain(alias.name) or ""
                    targets.append(target)
                    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                        imports[nfkc(alias.asname.name.value)] = target
                    else:
                        root = target.split(".")[0]
                        imports[root] = root
                continue
            base = self.resolve_from(node)
            if base is None:
                continue
            if isinstance(node.names, cst.ImportStar):
                stars.append(base)
                continue
            for alias in node.names:
                name = nfkc(alias.name.value)  # type: ignore[union-attr]
                local = nfkc(alias.asname.name.value) if alias.asname is not None else name  # type: ignore[union-attr]
                imports[local] = f"{base}.{name}" if base else name
                targets.append(imports[local])
        return imports, stars

    def resolve_from(self, node: cst.ImportFrom) -> str | None:
        module = dotted_chain(node.module) if node.module is not None else ""
        level = len(node.relative)
        if level == 0:
            return module
        package = self.module.split(".") if self.is_package else self.module.split(".")[:-1]
        if level - 1 > len(package):
            self.error(node, "relative import goes beyond the top-level package", "import")
            return None
        base = package[: len(package) - (level - 1)]
        return ".".join([*base, *([module] if module else [])])


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

    def __init__(self, tree: cst.Module, text: str) -> None:
        self.tree = tree
        self.spans: dict[int, tuple[int, int]] = {}  # id(cst stmt) -> (first line incl. decorators, last line)
        self.heads: dict[int, tuple[int, int]] = {}  # id(cst stmt) -> (line, column) of its keyword
        self._wrapper: Mapping[cst.CSTNode, object] | None = None
        self.lines: list[str] = []
        try:
            parsed = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return
        self.lines = _LINE_RE.findall(text)
        self._align(tree.body, parsed.body)

    def _align(self, cst_body: Sequence[cst.CSTNode], ast_body: list[ast.stmt]) -> None:
        j = 0
        for stmt in cst_body:
            n = len(stmt.body) if isinstance(stmt, cst.SimpleStatementLine) else 1
            group = ast_body[j : j + n]
            if len(group) != n:
                return
            j += n
            first, last = group[0], group[-1]
            decorators = getattr(first, "decorator_list", ())
            start = min([first.lineno, *(d.lineno for d in decorators)])
            self.spans[id(stmt)] = (start, last.end_lineno or last.lineno)
            self.heads[id(stmt)] = (first.lineno, first.col_offset)
            if isinstance(stmt, cst.ClassDef) and isinstance(first, ast.ClassDef):
                inner = stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else stmt.body.body
                self._align(inner, first.body)

    def position(self, node: cst.CSTNode) -> tuple[int, int] | None:
        return self.heads.get(id(node))

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


def _syntax_error(text: str, path: str, exc: cst.ParserSyntaxError) -> SourceError:
    """Locate a syntax error. libcst's native parser reports the line but not always the column,
    so the error path (only) asks CPython's parser, whose messages are also clearer ("'(' was
    never closed"). The hash never depends on this."""
    try:
        ast.parse(text, filename=path)
    except SyntaxError as err:
        line = err.lineno or exc.raw_line
        column = max(err.offset or 1, 1)  # CPython's offset is already 1-based
        return SourceError(path, line, column, f"syntax error: {err.msg}", code="syntax")
    except (ValueError, RecursionError, MemoryError):
        pass
    detail = re.sub(r"^parser error: error at \d+:\d+: ", "", exc.message)
    return SourceError(
        path,
        exc.raw_line,
        exc.raw_column + 1,
        f"syntax error: {detail} (libcst {_LIBCST_VERSION} cannot parse this; is it newer Python syntax?)",
        code="syntax",
    )


def _module_level_imports(stmts: Iterable[cst.CSTNode]) -> Iterable[cst.Import | cst.ImportFrom]:
    for stmt in stmts:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    yield small
        elif isinstance(stmt, (cst.If, cst.Try, cst.With, cst.For, cst.While, cst.Else, cst.ExceptHandler, cst.Finally)):
            for child in stmt.children:
                if isinstance(child, cst.BaseSuite):
                    yield from _module_level_imports(child.body)
                elif isinstance(child, (cst.If, cst.Else, cst.ExceptHandler, cst.Finally)):
                    yield from _module_level_imports([child])


def _strip_blank_head(code: str) -> str:
    lines = code.splitlines(keepends=True)
    while lines and not lines[0].strip():
        lines.pop(0)
    return "".join(lines)


def _sorted(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(set(items)))
