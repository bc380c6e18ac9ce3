"""Calls a chunk cannot run as live code runs them: refused at build time, at the call.

``chunk_dynamic`` points the resolvers it can at the chunk's own modules and refuses those that
take no name relative to a package (``pkgutil.resolve_name``, ``pydoc.locate``, ...: breakS's S3).
Two more families name a bundled module, or need its live registration, where no literal is the
first argument of a resolver (``refuse_text_imports``, asked of every bundled statement whose text
spells one of their words):

* ``importlib.reload(m)`` of a bundled module (breakS's S6): a chunk registers its modules under
  private keys (``_loom_chunks.<slug>_<hex>.shop.m``) whose parent packages ``reload`` looks up
  by the module's ``__name__``: it raises ``ImportError: parent 'shop' not in sys.modules`` where
  live code re-ran the module. Refused when the argument is a name (or chain) the module binds by
  an import of a bundled module (``from shop import m``, ``import shop.m``: ``shop.m``). A reload
  of third-party code is left alone (live code, as its import is), and so is an argument the
  build cannot name (a parameter, ``sys.modules[k]``): if it is a bundled module, the chunk fails
  loudly there, as above, rather than running other code.
* ``logging.config`` importing by text (breakS's S3, the rest): ``dictConfig``'s ``'()'``
  factories, ``'class'`` handlers, ``'filters'``/``ext://`` values, ``fileConfig``'s
  ``class=``, and ``BaseConfigurator(...).resolve('shop.x.f')`` / ``.importer(...)`` import the
  named module by its absolute name: the live module, code this version did not pin. Refused
  when a string literal anywhere in such a call (a ``logging.config`` function or class by its
  binding, or a method of a ``logging.config`` configurator built in the same expression) names a
  bundled module (any leading part of its dotted text before ``:``; ``ext://`` stripped). A
  configuration read from a file or built elsewhere is not seen (the fingerprint follows the
  dotted strings it can: ``scopes``' ``"<dotted>`` references).

Both raise ``ChunkError`` with the statement's path, the call's line and column and what to do.
Rejected: rewriting ``reload`` to reload the chunk's module (a chunk's module is shared by every
execution of its version in the process; re-running its statements under a running flow is what
the journal's determinism cannot see); rewriting ``logging.config``'s strings (the configuration is
often a dict built from several statements or a file).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Mapping

from .chunk_file import ChunkError
from .chunk_limits import ast_chain

__all__ = ["WORDS", "refuse_text_imports"]

#: a statement's text must spell one of these for ``refuse_text_imports`` to parse it
WORDS = ("reload", "logging", "Config")

_RELOAD = frozenset({"importlib.reload", "imp.reload"})
_CONFIGURATORS = ("logging.config.BaseConfigurator", "logging.config.DictConfigurator")


def refuse_text_imports(text: str, bundled: Collection[str], module_bindings: Mapping[str, str | None], *,
                        where: str, parse: Callable[[str], ast.Module] = ast.parse) -> None:
    """Raise ``ChunkError`` at the first call of the module docstring's families in ``text``
    (one module-level statement, ``where``: its ``path:line``) that a chunk cannot run as live
    code does. ``module_bindings``: what each module-level name is bound to (an import target or
    None); ``bundled``: the modules the chunk holds."""
    if not any(word in text for word in WORDS):
        return
    try:
        tree = parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return  # the rewrite that parses it next reports it
    path, _, first = where.rpartition(":")
    start = int(first) if first.isdigit() else 1

    def qualified(node: ast.expr) -> str | None:
        chain = ast_chain(node, {})
        if chain is None:
            return None
        root, _, rest = chain.partition(".")
        target = module_bindings.get(root)
        return None if target is None else target + ("." + rest if rest else "")

    def names_bundled(value: str) -> bool:
        parts = value.removeprefix("ext://").partition(":")[0].split(".")
        return any(".".join(parts[:i]) in bundled for i in range(1, len(parts) + 1))

    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        callee = qualified(node.func)
        at = {"path": path or where, "line": start + node.lineno - 1, "column": node.col_offset + 1}
        if callee in _RELOAD and node.args:
            target = qualified(node.args[0])
            if target is not None and target in bundled:
                raise ChunkError(
                    f"`{callee}({ast.unparse(node.args[0])})` reloads the bundled module `{target}`, which a chunk "
                    "cannot do (its modules are registered under the chunk's private names: the reload raises "
                    "ImportError where live code re-ran the module). Keep the state to reset in a function of the "
                    "module and call it, or leave the reload out of code the flow runs", **at)
        if _logging_config(node, qualified):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Constant) and isinstance(inner.value, str) and names_bundled(inner.value):
                    raise ChunkError(
                        f"`{_name(node, qualified)}` imports {inner.value!r} by text, a bundled module, which a chunk "
                        "cannot point at its own module: as written it would import the live module, code this version "
                        "did not pin. Pass the factory, class or filter object itself (logging.config accepts a "
                        "callable for '()') instead of its dotted name", **at)


def _logging_config(call: ast.Call, qualified: Callable[[ast.expr], str | None]) -> bool:
    """A call of a ``logging.config`` function or class, or a method of a configurator built
    in the same expression (``BaseConfigurator({}).resolve(...)``)."""
    callee = qualified(call.func)
    if callee is not None and callee.startswith("logging.config."):
        return True
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
        built = qualified(func.value.func)
        return built is not None and built.startswith(_CONFIGURATORS)
    return False


def _name(call: ast.Call, qualified: Callable[[ast.expr], str | None]) -> str:
    callee = qualified(call.func)
    if callee is not None:
        return callee
    func = call.func
    built = qualified(func.value.func) if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call) else None
    return f"{built}(...).{func.attr}" if built is not None and isinstance(func, ast.Attribute) else "logging.config"
