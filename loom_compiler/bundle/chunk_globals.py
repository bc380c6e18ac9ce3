"""The global names a bundled module's text uses and binds, from CPython's own symbol tables.

The bundler asks this of each module it puts in a chunk: a name the module's bundled statements
use but do not bind must come from one of its import statements (which the chunk then runs too),
a builtin, or something that binds names at run time (``global x`` in a function, a star import,
``globals()[...] = ...``); anything else would be a ``NameError`` when an old execution is
served, so the build refuses it (``chunk_plan``). ``symtable`` is the compiler's own scope
analysis, so what counts as a global use is exactly what Python will look up in the module.

Annotations are looked up later, by name, in the module's namespace: a string annotation
(``x: 'Money'``) and every annotation of a module with ``from __future__ import annotations`` are
evaluated by ``typing.get_type_hints``, dataclasses (``ClassVar``), pydantic, Temporal's and
DBOS's argument decoding, none of which the symbol tables see. ``annotation_names`` lists them, so
that the chunk's module binds them as the live one did (an import nothing else uses is kept, a
class only a string names is bundled) — but only where the live module binds them: a name an
annotation spells and nothing binds (a ``TYPE_CHECKING``-only import) is no error.

Rejected: libcst's scope provider (an order of magnitude slower on a whole module, and a second
opinion on Python's scoping rules), and reading the symbols through ``symtable``'s wrapper classes
alone (one Python object per symbol of every scope cost about as much as building the tables):
the raw flag words are read when the running CPython has them, the wrapper otherwise.
"""

from __future__ import annotations

import ast
import symtable
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["ModuleGlobals", "annotation_names", "module_globals", "statement_names"]

#: how deep a string annotation may nest strings (``List['Dict["str", "Money"]']``)
_STRING_DEPTH = 4


@dataclass(frozen=True, slots=True)
class ModuleGlobals:
    used: frozenset[str]  # names looked up in the module's namespace, in any of its scopes
    bound: frozenset[str]  # names its statements bind there (``global x`` in a function included)
    #: the names its kept annotations spell (``annotation_names``; ``statement_names`` only)
    annotated: frozenset[str] = frozenset()


def module_globals(text: str, filename: str) -> ModuleGlobals:
    """``SyntaxError`` when ``text`` is not valid Python."""
    table = symtable.symtable(_without_local_annotations(text), filename, "exec")
    return _raw(table) if _RAW is not None else _wrapped(table)


def statement_names(text: str, filename: str, *, prefix: str = "",
                    parse: Callable[[str], ast.Module] = ast.parse) -> ModuleGlobals:
    """``module_globals(prefix + text)`` with ``annotated``, ``annotation_names(text)``, from one
    parse of ``text`` (the bundler asks both of every statement it bundles; ``prefix``: lines
    that go before it, such as its module's ``from __future__ import annotations``; ``parse``:
    ``ast.parse`` or a build's shared trees, ``ChunkMemo.tree``, left as they were).
    ``SyntaxError`` when ``text`` is not valid Python."""
    if ":" not in text:  # no annotation, local or kept
        return module_globals(prefix + text, filename)
    tree = parse(text)
    annotated = _annotation_names_of(tree)  # before the local annotations are taken out
    code = _strip_local_annotations(tree, text)
    table = symtable.symtable(prefix + code, filename, "exec")
    found = _raw(table) if _RAW is not None else _wrapped(table)
    return ModuleGlobals(found.used, found.bound, annotated)


def _without_local_annotations(text: str) -> str:
    """``text`` with the annotations of a function's local variables replaced by ``None``: Python
    never evaluates them (PEP 526), yet the symbol tables count their names as uses
    (``state: AgentState = {...}`` in a method would need ``AgentState`` in the chunk, which the
    closure rightly leaves out). The assignment stays: ``x: int`` still makes ``x`` local. Code
    nested too deeply for ``ast`` to re-print is left as it is (its names count as uses)."""
    if ":" not in text:
        return text
    return _strip_local_annotations(ast.parse(text), text)


def _strip_local_annotations(tree: ast.Module, text: str) -> str:
    """``text`` (whose tree is ``tree``) without its local annotations. The tree is changed to
    print that text and restored before this returns (it may be a build's shared tree)."""
    replaced: list[tuple[ast.AnnAssign, ast.expr]] = []
    # statements only: an annotated assignment is a statement, and statements sit only in the
    # bodies of statements (a lambda's body is an expression), so the expressions, most of the
    # tree, are never visited
    todo: list[tuple[ast.stmt, bool]] = [(stmt, False) for stmt in tree.body]
    while todo:  # iterative: deeply nested code must not exhaust the interpreter's stack here
        node, in_function = todo.pop()
        if isinstance(node, ast.AnnAssign):
            if in_function:
                replaced.append((node, node.annotation))
                node.annotation = ast.Constant(None)
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            in_function = True
        elif isinstance(node, ast.ClassDef):
            in_function = False  # a class body's annotations are evaluated and kept
        todo.extend((child, in_function) for child in _inner_statements(node))
    if not replaced:
        return text
    try:
        return ast.unparse(tree)
    except RecursionError:
        return text
    finally:
        for node, annotation in replaced:
            node.annotation = annotation


def annotation_names(text: str) -> frozenset[str]:
    """The names the annotations of ``text`` that Python keeps spell (parameters and returns of
    its functions, assignments at module or class level; never a local variable's, which no one
    can read), inside string annotations too. Empty for text that does not parse. (The bundler
    asks once per statement text and build: ``chunk_memo``.)"""
    if ":" not in text and "->" not in text:
        return frozenset()
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return frozenset()
    return _annotation_names_of(tree)


def _annotation_names_of(tree: ast.Module) -> frozenset[str]:
    names: set[str] = set()

    def spelled(node: ast.AST | None, depth: int = 0) -> None:
        if node is None:
            return
        for n in ast.walk(node):
            if isinstance(n, ast.Name):
                names.add(n.id)
            elif isinstance(n, ast.Constant) and isinstance(n.value, str) and depth < _STRING_DEPTH:
                try:
                    inner = ast.parse(n.value.strip(), mode="eval")
                except (SyntaxError, ValueError, RecursionError):
                    continue
                spelled(inner.body, depth + 1)

    def body(statements: list[ast.stmt]) -> None:
        for stmt in statements:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = stmt.args
                for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
                    if arg is not None:
                        spelled(arg.annotation)
                spelled(stmt.returns)
                body(_nested_definitions(stmt))  # nested defs and classes: their headers are kept annotations too
            elif isinstance(stmt, ast.ClassDef):
                body(stmt.body)
            elif isinstance(stmt, ast.AnnAssign):
                spelled(stmt.annotation)
            else:
                body(_inner_statements(stmt))

    try:
        body(tree.body)
    except RecursionError:  # statements nested past the stack: the names found so far
        pass
    return frozenset(names)


def _nested_definitions(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.stmt]:
    """The ``def`` and ``class`` statements in ``function``'s body, through its blocks (not into
    the definitions found: ``annotation_names`` reads those as it reads any). Statements sit only
    in statements' bodies, so no expression is visited."""
    out: list[ast.stmt] = []
    todo: list[ast.stmt] = list(function.body)
    while todo:
        stmt = todo.pop()
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(stmt)
            continue
        todo.extend(_inner_statements(stmt))
    return out


def _inner_statements(stmt: ast.stmt) -> list[ast.stmt]:
    """The statements directly in ``stmt``'s bodies (``except`` and ``case`` clauses' included)."""
    out: list[ast.stmt] = []
    for field in ("body", "orelse", "finalbody", "handlers", "cases"):
        for child in getattr(stmt, field, ()):
            if isinstance(child, (ast.excepthandler, ast.match_case)):
                out.extend(child.body)
            elif isinstance(child, ast.stmt):
                out.append(child)
    return out


def _wrapped(table: symtable.SymbolTable) -> ModuleGlobals:
    bound = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}
    used: set[str] = set()

    def walk(t: symtable.SymbolTable) -> None:
        for s in t.get_symbols():
            if t.get_type() != "module" and s.is_declared_global() and s.is_assigned():
                bound.add(s.get_name())
            if s.is_referenced() and (s.is_global() or t.get_type() == "module"):
                used.add(s.get_name())
        for child in t.get_children():
            walk(child)

    walk(table)
    return ModuleGlobals(frozenset(used), frozenset(bound))


def _raw(table: symtable.SymbolTable) -> ModuleGlobals:
    assert _RAW is not None
    use, local, imported, declared, scope_off, scope_mask, implicit, explicit = _RAW
    top = table._table  # type: ignore[attr-defined]
    bound = {name for name, flags in top.symbols.items() if flags & (local | imported)}
    used: set[str] = set()
    stack = [(top, True)]
    while stack:
        entry, is_module = stack.pop()
        for name, flags in entry.symbols.items():
            scope = (flags >> scope_off) & scope_mask
            if not is_module and flags & declared and flags & local:
                bound.add(name)  # ``global x`` then ``x = ...`` in a function binds a module name
            if flags & use and (is_module or scope in (implicit, explicit)):
                used.add(name)
        stack.extend((child, False) for child in entry.children)
    return ModuleGlobals(frozenset(used), frozenset(bound))


def _raw_flags() -> tuple[int, ...] | None:
    try:
        import _symtable

        table = symtable.symtable("x = 1\n", "<probe>", "exec")
        if not hasattr(table, "_table") or not hasattr(table._table, "symbols"):  # type: ignore[attr-defined]
            return None
        return (_symtable.USE, _symtable.DEF_LOCAL, _symtable.DEF_IMPORT, _symtable.DEF_GLOBAL, _symtable.SCOPE_OFF,
                _symtable.SCOPE_MASK, _symtable.GLOBAL_IMPLICIT, _symtable.GLOBAL_EXPLICIT)
    except (ImportError, AttributeError):  # pragma: no cover - another interpreter
        return None


_RAW = _raw_flags()
