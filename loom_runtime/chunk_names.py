"""The names a bundled module and what it defines go by: the original's text where code reads a
name, the chunk's private module where the import system, ``sys.modules`` and pickle resolve one.

A chunk's module of ``shop.m`` is registered as ``_loom_chunks.<slug>_<hex>.shop.m`` (the live
``shop.m`` is in the same process and must never be shadowed), yet its code must see the names
live code saw. Two kinds of name serve the two readers:

* ``ModuleName``, the module's ``__name__``: the *text* of the original (``shop.m``: logger names,
  ``if __name__ == ...``, error messages, ``logging``'s parent loggers found by cutting it at its
  dots), the *hash* and key of the private name (``sys.modules[__name__]``, ``typing`` and
  ``dataclasses`` resolving string annotations through ``sys.modules[cls.__module__]``).
* ``PrivateName``, the ``__module__`` of every class and function a bundled module defines at
  module level (and of the methods and nested classes of those classes), and the module's
  ``__package__``: the *text* of the private name, shown as the original (``str()``, ``repr()``,
  ``format()``, ``%s`` and f-strings give ``shop.m``; ``==`` holds for either text).

**Why the definitions carry the private text.** Pickle finds a class or function by
``__module__`` and ``__qualname__`` (instances and enum members reduce to their class), and it
uses the text: to pickle, it imports the module by name (``__import__`` imports the name's first
component, so the original text made pickling import the live ``shop`` package, or fail where it
is not installed) and writes the name into the stream; to unpickle, it imports the name written.
With the original text a value a chunk pickled came back as the *live* class (``isinstance``
false, an enum member not ``is`` itself, a pickled function running the live code): DBOS pickles
step results and workflow inputs, so a resumed execution decoded its journal into another
version's classes. With the private text a value pickled by version A's chunk names A's module
(``_loom_chunks.checkout_ab12...shop.m``), which the chunk registered, and unpickles into A's
class; in a new process, after the registry loaded A (``FlowVersion.definition``: the private
name depends only on the flow id and codeHash), it does again. A value pickled by live code names
``shop.m`` and unpickles into the live class, also inside a chunk (it is another version's
object; a chunk's ``isinstance`` is false for it, as for a live object handed to it as input).

**What the private text changes** (found by what reads ``__module__`` as raw text rather than
formatting it): ``repr()`` of a class and the default ``repr()`` of an instance (C's ``%U``), a
traceback's exception type line (``traceback`` concatenates), ``json.dumps`` of a ``__module__``,
``cls.__module__.startswith("shop")``, and a ``__module__`` or ``__package__`` pickled *as a
value* (it unpickles as the private text). Unchanged, because they format it: the journal's error
type names (``loom_runtime.run.qualname``) and step names, ``typing``'s reprs, pydantic's type
references, Temporal's and DBOS's names (they use ``__name__``/``__qualname__``), logging
(``__name__`` is a ``ModuleName``).

Rejected: the private text for ``__name__`` too (logger names and every ``__name__ == "shop.m"``
test would read ``_loom_chunks...``, and a level set on the ``shop`` logger would no longer reach
the chunk's loggers); the original text with a ``__reduce__`` naming the private module (pickle
imports the live top-level package before it asks the name to reduce, and C pickle writes
protocols 0-3 as raw text); a pickler ``reducer_override`` or ``copyreg`` entry (pickle never asks
them for plain classes and functions, and DBOS calls ``pickle.dumps``); rewriting the text of
``__module__`` after pickling (there is no hook between the two).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

__all__ = ["ModuleName", "PrivateName", "adopt_definitions"]


class ModuleName(str):
    """The ``__name__`` of a bundled module: the text of its original name, the hash and key of
    its private registration (module docstring). ``==`` holds for both strings; the pair breaks
    the hash contract only for a dict keyed by the plain original name, which a lookup by a
    ``ModuleName`` misses, as it must for ``sys.modules``. ``private`` is the ``__module__`` its
    definitions get."""

    key: str
    private: PrivateName

    def __new__(cls, name: str, key: str) -> ModuleName:
        self = super().__new__(cls, name)
        self.key = key
        self.private = PrivateName(key, name)
        return self

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return str.__eq__(self.key, other) or str.__eq__(self, other)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __getitem__(self, index: Any) -> str:
        # ``importlib.import_module(name)`` looks ``name[0:]`` up: the whole name stays this name
        if isinstance(index, slice) and index.step in (None, 1) and index.start in (None, 0) and (
                index.stop is None or index.stop >= len(self)):
            return self
        return str.__getitem__(self, index)

    def __reduce__(self) -> tuple[Callable[..., str], tuple[str]]:
        return str, (str.__str__(self),)  # pickled and copied as the plain original name


class PrivateName(str):
    """The private name as text (what the import system, ``sys.modules`` and pickle read), the
    original when shown (``str``, ``repr``, ``format``); ``==`` holds for both (module docstring)."""

    original: str

    def __new__(cls, key: str, original: str) -> PrivateName:
        self = super().__new__(cls, key)
        self.original = original
        return self

    __hash__ = str.__hash__  # the private text's: ``sys.modules[cls.__module__]`` finds the chunk's module

    def __eq__(self, other: object) -> bool:
        # ``str(other)``: the original of another chunk's name of the same module too (two
        # versions' ``Order.__module__`` are both ``shop.m``), as for ``ModuleName``
        if isinstance(other, str):
            return str.__eq__(self, other) or str.__eq__(self.original, str(other))
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __str__(self) -> str:
        return self.original

    def __repr__(self) -> str:
        return repr(self.original)

    def __format__(self, spec: str) -> str:
        return format(self.original, spec)

    def __reduce__(self) -> tuple[Callable[..., str], tuple[str]]:
        # protocols 4+ save the module half of a pickled global like any value: it must be the
        # private text, which is what protocols 0-3 write for it too
        return str, (str.__str__(self),)

    def __copy__(self) -> PrivateName:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> PrivateName:
        return self


def adopt_definitions(namespace: dict[str, Any], name: ModuleName) -> None:
    """Give what ``namespace`` (a bundled module's ``__dict__``) defined the private ``__module__``:
    every class and function whose ``__module__`` is ``name`` itself (so made by this module's
    code: a class statement, a ``def``, ``namedtuple``/``Enum(...)`` called here, a decorator's
    ``functools.wraps`` copy), with the methods, nested classes and property functions of those
    classes. Imported objects, other modules' definitions and third-party objects keep theirs.
    Called after a module's last run: what its code creates later (a class a function builds at
    run time) keeps the ``ModuleName``."""
    seen: set[int] = set()
    for value in list(namespace.values()):
        _adopt(value, name, name.private, seen, 0)


def _adopt(obj: Any, old: ModuleName, new: PrivateName, seen: set[int], depth: int) -> None:
    if id(obj) in seen or depth > 20:
        return
    seen.add(id(obj))
    if isinstance(obj, (staticmethod, classmethod)):
        _adopt(obj.__func__, old, new, seen, depth + 1)
        return
    if isinstance(obj, property):
        for f in (obj.fget, obj.fset, obj.fdel):
            if f is not None:
                _adopt(f, old, new, seen, depth + 1)
        return
    if isinstance(obj, type):
        if obj.__dict__.get("__module__") is not old:
            return
        try:
            obj.__module__ = new
        except (AttributeError, TypeError):  # a class that refuses: it keeps the original name
            return
        for member in list(obj.__dict__.values()):
            _adopt(member, old, new, seen, depth + 1)
        return
    if isinstance(obj, types.FunctionType):
        if obj.__module__ is old:
            obj.__module__ = new
        return
    own = getattr(obj, "__dict__", None)
    if isinstance(own, dict) and own.get("__module__") is old and not isinstance(obj, types.ModuleType):
        # a wrapper ``functools.wraps`` named after one of this module's functions
        # (``functools.lru_cache``, a framework's decorator object): pickled by that name too
        try:
            obj.__module__ = new
        except (AttributeError, TypeError):
            pass
