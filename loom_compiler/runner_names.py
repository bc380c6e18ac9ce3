"""The standard library's runners of text, by qualified name (``code_runners``' tables).

Data only, no parser: ``bundle.chunk_limits`` reads them on every build, also one served from the
cache, which must not import libcst (``code_runners`` walks libcst trees with them).
"""

from __future__ import annotations

__all__ = ["BUILTIN_RUNNERS", "CODE_TAKERS", "IMPORTERS", "RUNNER_FUNCTIONS", "RUNNER_OBJECTS", "is_runner"]

#: builtins that run (or compile) text, and the argument holding it; also reached as ``builtins.<name>``
BUILTIN_RUNNERS: dict[str, tuple[tuple[int, str], ...]] = {
    "exec": ((0, "source"),), "eval": ((0, "source"),), "compile": ((0, "source"),)}
#: standard-library functions (and a class) that run text given as these arguments (position, keyword)
RUNNER_FUNCTIONS: dict[str, tuple[tuple[int, str], ...]] = {
    **{"builtins." + name: spec for name, spec in BUILTIN_RUNNERS.items()},
    "code.compile_command": ((0, "source"),),
    "pdb.run": ((0, "statement"),), "pdb.runeval": ((0, "expression"),), "pdb.runctx": ((0, "statement"),),
    "cProfile.run": ((0, "statement"),), "cProfile.runctx": ((0, "statement"),),
    "profile.run": ((0, "statement"),), "profile.runctx": ((0, "statement"),),
    "timeit.timeit": ((0, "stmt"), (1, "setup")), "timeit.repeat": ((0, "stmt"), (1, "setup")),
    "timeit.Timer": ((0, "stmt"), (1, "setup")),
}
#: standard-library objects whose methods (or themselves) run text or code the compiler cannot
#: read at the place they are reached: undecidable wherever reached
RUNNER_OBJECTS = frozenset({
    "code.interact", "code.InteractiveInterpreter", "code.InteractiveConsole",
    "bdb.Bdb", "pdb.Pdb", "profile.Profile", "cProfile.Profile", "trace.Trace",
    "types.CodeType", "doctest.testmod", "doctest.testfile", "doctest.run_docstring_examples",
    "doctest.DocTestRunner", "doctest.DebugRunner",
})
#: runs the code object given as its first argument: decidable only as ``compile(<spelled text>)``
CODE_TAKERS = frozenset({"types.FunctionType", "types.LambdaType"})

#: the standard library's callables that import (or resolve, importing its module) a module named
#: by text (``scopes._RESOLVERS``): decidable only as a direct call (``scopes``' resolver rule follows
#: its literal, ``bundle.chunk_dynamic`` rewrites or refuses it); reached any other way (read as a
#: value, ``getattr(importlib, "import_module")``, ``__builtins__["__import__"]``) what they import
#: is undecidable, as text handed to ``exec`` read as a value is (``code_runners``, breakS's S15)
IMPORTERS = frozenset({"importlib.import_module", "importlib.__import__", "builtins.__import__",
                       "importlib.util.find_spec", "pkgutil.resolve_name", "pkgutil.get_loader", "pydoc.locate",
                       "runpy.run_module"})


def is_runner(target: str) -> bool:
    """Whether a qualified name is a runner of text (``builtins.exec``, ``timeit.timeit``,
    ``code.InteractiveConsole`` and its methods) that a first-party module may re-export by name
    (``from timeit import timeit`` in ``shop.tools``, called from ``shop.m`` with any text):
    ``closure`` counts reaching it as reaching any first-party code, and calling it as changing
    process-wide state (``changes_process_state``). ``types.FunctionType`` is no such name (a type
    tested far more often than called: its uses are judged where spelled, ``code_runners``)."""
    root, _, rest = target.partition(".")
    if not rest:
        return False
    return target in RUNNER_FUNCTIONS or target in RUNNER_OBJECTS or any(
        target.startswith(o + ".") for o in RUNNER_OBJECTS) or (root == "builtins" and rest in BUILTIN_RUNNERS)
