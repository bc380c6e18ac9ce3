"""What a subscript run at load runs: a class's ``__class_getitem__`` (breaker6's G5/G8; breaker7's R1).

``L[int]`` calls ``type(L).__getitem__`` or, for a class that defines none there,
``L.__class_getitem__(int)``, right where the subscript is evaluated. ``analysis.subscripted_classes``
reads the spellings from each statement's text (wider than Python where the text is in a string
or a method body, which only counts the class as run) and adds what they name to the statement's
``Unit.runs``:

* a class of the module defining ``__class_getitem__``, by name (``L``: the whole class runs, as
  for any class a statement names);
* a name the module imports from a first-party module, subscripted (``from shop.gen import L``
  then ``L[int]``; ``gen.L[int]``): marked ``SUBSCRIPTED`` (``[L``, ``[gen.L``), the chain
  ``load_runs`` follows into that module, where a class runs its ``__class_getitem__`` (and what
  that reaches through ``cls``, inherited ones through its bases) and any other value nothing
  (its ``__getitem__`` is a builtin's, or an instance's: a documented limit with a metaclass's
  ``__getitem__``). Per module the analysis cannot tell a class from a dict there
  (``CONFIG["db"]`` is the common case), hence the mark rather than a plain run.

Where a def's header is evaluated as it is defined: its decorators and defaults always, its
parameter and return annotations unless the module has ``from __future__ import annotations``
(``def f(a: L[int])`` runs ``__class_getitem__`` then; a def's body runs later; a string
annotation, ``-> "Handle[Any]"``, never). A class statement's text is read whole (its body runs
as it is made). For the fingerprint (``closure``), what a subscripted class of another module
runs counts only when its code or a first-party base's defines ``__class_getitem__``
(``class Handle(Generic[T])`` runs ``typing``'s; measured on dbos-transact-py, whose string
annotations and ``Generic`` classes otherwise moved every flow's hash).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import libcst as cst

__all__ = ["SUBSCRIPTED", "annotations_deferred", "header_code", "subscripted"]

#: the mark of a chain ``Unit.runs`` holds for a subscripted imported name (``load_runs``)
SUBSCRIPTED = "["

_EMPTY = cst.Module(body=[])


def annotations_deferred(stmts: Sequence[cst.CSTNode]) -> bool:
    """Whether the module has ``from __future__ import annotations`` (annotations are then never
    evaluated as a def runs). Future imports come first; CPython refuses later ones."""
    for stmt in stmts:
        if type(stmt) is not cst.SimpleStatementLine:
            return False
        for small in stmt.body:
            if type(small) is cst.ImportFrom and small.module is not None and not small.relative \
                    and type(small.module) is cst.Name and small.module.value == "__future__" \
                    and not isinstance(small.names, cst.ImportStar) \
                    and any(type(a.name) is cst.Name and a.name.value == "annotations" for a in small.names):
                return True
    return False


def header_code(node: cst.FunctionDef, deferred: bool) -> str:
    """The code of a def that runs as it is defined: its decorators, defaults and, unless
    ``deferred`` (``annotations_deferred``), its annotations; one part a line."""
    parts: list[cst.CSTNode] = [d.decorator for d in node.decorators]
    params = node.params
    for p in (*params.posonly_params, *params.params, *params.kwonly_params,
              *(p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param))):
        if p.default is not None:
            parts.append(p.default)
        if p.annotation is not None and not deferred and not _string(p.annotation.annotation):
            parts.append(p.annotation.annotation)
    if node.returns is not None and not deferred and not _string(node.returns.annotation):
        parts.append(node.returns.annotation)
    return "\n".join(_EMPTY.code_for_node(p) for p in parts)


def _string(node: cst.BaseExpression) -> bool:
    """A string annotation (``-> "Handle[Any]"``): evaluated by no one as the def runs."""
    return type(node) in (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def subscripted(code: str, names: Iterable[str], *, dotted: bool = False) -> set[str]:
    """The names of ``names`` that ``code`` spells subscripted (``L[``); ``dotted``: with the
    attribute chain spelled on them (``gen.L[`` -> ``gen.L``)."""
    names = sorted(names)
    if not names or "[" not in code:
        return set()
    tail = r"((?:\s*\.\s*[A-Za-z_]\w*)*)" if dotted else r"()"
    spelled = re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")" + tail + r"\s*\[")
    return {root + re.sub(r"\s", "", rest) for root, rest in spelled.findall(code)}
