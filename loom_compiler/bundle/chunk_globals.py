"""The global names a bundled module's text uses and binds, from CPython's own symbol tables.

The bundler asks this of each module it puts in a chunk: a name the module's bundled statements
use but do not bind must come from one of its import statements (which the chunk then runs too),
a builtin, or something that binds names at run time (``global x`` in a function, a star import,
``globals()[...] = ...``); anything else would be a ``NameError`` when an old execution is
served, so the build refuses it (``chunk_plan``). ``symtable`` is the compiler's own scope
analysis, so what counts as a global use is exactly what Python will look up in the module.

Rejected: libcst's scope provider (an order of magnitude slower on a whole module, and a second
opinion on Python's scoping rules), and reading the symbols through ``symtable``'s wrapper classes
alone (one Python object per symbol of every scope cost about as much as building the tables):
the raw flag words are read when the running CPython has them, the wrapper otherwise.
"""

from __future__ import annotations

import symtable
from dataclasses import dataclass

__all__ = ["ModuleGlobals", "module_globals"]


@dataclass(frozen=True, slots=True)
class ModuleGlobals:
    used: frozenset[str]  # names looked up in the module's namespace, in any of its scopes
    bound: frozenset[str]  # names its statements bind there (``global x`` in a function included)


def module_globals(text: str, filename: str) -> ModuleGlobals:
    """``SyntaxError`` when ``text`` is not valid Python."""
    table = symtable.symtable(text, filename, "exec")
    return _raw(table) if _RAW is not None else _wrapped(table)


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
