"""What a module-level statement's calls run at once, where the names it calls do not tell.

The chunk's order (``effects.chunk_runs``, ``load_runs.chunk_seeds``) must start the modules a
statement's code imports where live Python runs that code (issue 12's K1): a def handed only to
the standard library's registering calls (``atexit.register(load)``) is not run by the handing
statement, and one handed to an eager builtin (``sorted(xs, key=load)``) is. Three things the
global names a statement calls do not say, read here from its tree (the code outside its defs'
and lambdas' bodies, which runs as the module loads):

* ``opaque_call``: a call whose callee is no dotted name given arguments (``[1].sort(key=load)``,
  ``make()(load)``, ``(lambda f: f())(load)``): a builtin method or a value's may call what it is
  handed at once, so nothing the statement hands on counts as only handed; not a method of the
  builtin containers or ``str`` that only stores, looks up or formats (``{}.get(k, load)``,
  ``[].append(load)``: ``_STORING_METHODS``);
* ``lazy_iterators``: every ``map``/``filter`` call of the statement builds an iterator nothing
  in the statement consumes (``M = map(load, xs)``): the def runs when the iterator is consumed,
  not here (a ``list(...)``, ``sorted``, ``for``, ``*``, a comprehension, or any call given it
  consumes it or may);
* ``firers``: the qualified names (``FIRERS``) of calls that run registrations made earlier by
  hand (``atexit._run_exitfuncs()``, ``signal.raise_signal(sig)``, ``os.kill(os.getpid(), sig)``):
  ``analysis`` adds the defs the module registered so to the firing statement's runs, so the
  chunk starts what they import there, as live Python does.

Neither direction is safe for the chunk's order (a def run where live code does not run it starts
its imports too early, as one not run starts them too late), so these are read as Python runs
them; where the code cannot tell (a call of a value it cannot name, an iterator handed to a call
that may keep it), the def counts as run at once, the rule ``chunk_runs`` already applies to a
third-party callee. Left: a registration fired
by code of another module, or from inside a def called at load (the def's registrations are
counted by the defs it calls, not by where it fires), and signals delivered by the operating
system (``signal.alarm``) at an unknown later statement.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import libcst as cst

from .canonical import child_nodes, dotted_chain
from .scopes import _all_params

__all__ = ["FIRERS", "NONE", "LoadCalls", "fired_registrations", "load_calls", "might_matter"]

#: calls that run, at once, what a registering call (``effects.DEFERRERS``) stored: qualified
#: name -> the registering call whose registrations it fires
FIRERS: dict[str, str] = {
    "atexit._run_exitfuncs": "atexit.register",
    "signal.raise_signal": "signal.signal",
    "signal.pthread_kill": "signal.signal",
    "os.kill": "signal.signal",
    "os.killpg": "signal.signal",
}
_LAZY = frozenset({"map", "filter"})
#: methods of the builtin containers and of ``str`` that store, look up or format what they are
#: handed, never call it (``{}.get(k, load)``, ``[].append(load)``, ``'{}'.format(load)``)
_STORING_METHODS = frozenset({"get", "setdefault", "pop", "append", "extend", "insert", "add", "update", "remove",
                              "discard", "index", "count", "join", "split", "rsplit", "replace", "startswith",
                              "endswith", "format", "copy", "keys", "values", "items", "fromkeys", "encode",
                              "decode", "strip", "lstrip", "rstrip", "partition", "rpartition", "union",
                              "intersection", "difference"})
#: marks of ``References.globals`` entries that are no plain chains
_MARKS = "^=\"'?>&%!@~+"


class LoadCalls:
    """``load_calls``' answer for one statement."""

    __slots__ = ("firers", "lazy_iterators", "opaque_call")

    def __init__(self, opaque_call: bool, lazy_iterators: bool, firers: frozenset[str]) -> None:
        self.opaque_call, self.lazy_iterators, self.firers = opaque_call, lazy_iterators, firers


NONE = LoadCalls(False, False, frozenset())

#: the cheap text test before ``load_calls``: a call of something that is no plain name
#: (``].sort(``, ``)(``, ``'-'.join(``), ``map``/``filter``, a firer's name
_MIGHT = re.compile(r"[\])'\"}]\s*(?:\.\s*\w+\s*)?\(|\b(?:map|filter|_run_exitfuncs|raise_signal|pthread_kill|kill|killpg)\s*\(")


def might_matter(code: str) -> bool:
    """Whether ``load_calls`` may find anything in a statement's source."""
    return _MIGHT.search(code) is not None


def load_calls(stmt: cst.CSTNode, qualify: Callable[[str], str | None]) -> LoadCalls:
    """The facts above for a module-level statement (``qualify``: what a dotted chain of the
    module stands for, None when bound otherwise)."""
    opaque = False
    lazy: list[bool] = []
    firers: set[str] = set()
    consumed: set[int] = set()
    stack: list[cst.CSTNode] = [stmt]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Lambda or kind is cst.FunctionDef:
            # a def's decorators and defaults run now, its body later
            if kind is cst.FunctionDef:
                stack.extend(d.decorator for d in node.decorators)  # type: ignore[attr-defined]
            stack.extend(p.default for p in _all_params(node.params) if p.default is not None)  # type: ignore[attr-defined]
            continue
        if kind is cst.Call:
            func = node.func  # type: ignore[attr-defined]
            chain = dotted_chain(func)
            args = node.args  # type: ignore[attr-defined]
            consumed.update(id(a.value) for a in args)
            if chain is None and args and not (type(func) is cst.Attribute and func.attr.value in _STORING_METHODS):
                opaque = True
            elif chain is not None:
                target = qualify(chain) or chain
                if chain in _LAZY:
                    lazy.append(id(node) not in consumed)
                if target in FIRERS:
                    firers.add(FIRERS[target])
        elif kind is cst.For or kind is cst.CompFor:
            consumed.add(id(node.iter))  # type: ignore[attr-defined]
        elif kind is cst.StarredElement or kind is cst.StarredDictElement:
            consumed.add(id(node.value))  # type: ignore[attr-defined]
        stack.extend(reversed(child_nodes(node)))
    if not (opaque or lazy or firers):
        return NONE
    return LoadCalls(opaque, bool(lazy) and all(lazy), frozenset(firers))


def fired_registrations(facts: Sequence[Any], attached: Sequence[set[str]], runs: Sequence[set[str]],
                        qualify: Callable[[str], str | None]) -> None:
    """Add to each firing statement's ``runs`` (``load_calls``' ``firers``) the defs and classes
    of the module registered before it by the registering call it fires (``atexit.register(load)``,
    ``@atexit.register def load``, ``signal.signal(sig, handler)``): live, they run there."""
    firing = [(i, f.calls.firers) for i, f in enumerate(facts) if f.calls.firers]
    if not firing:
        return
    callables = {n for f in facts if f.callable for n in f.own_names}
    registered: list[tuple[int, str, set[str]]] = []
    for i, f in enumerate(facts):
        calls = {q for c in f.refs.globals if c[:1] not in _MARKS and (q := qualify(c)) is not None}
        for registering in set(FIRERS.values()) & calls:
            registered.append((i, registering, (attached[i] | f.own_names) & callables))
    for i, kinds in firing:
        for j, registering, names in registered:
            if j < i and registering in kinds:
                runs[i].update(names)
