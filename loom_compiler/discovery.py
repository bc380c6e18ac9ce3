"""Finding flows: decorator qualified-name resolution and the decorator's literal arguments.

A decorator expression (``@flow(...)``, ``@durable``, ``@lr.flow(...)``, ``@DBOS.workflow()``,
``@workflow.run``) is reduced to a dotted chain, and its root resolved with the same binding model
as the closure (``analysis``): every statement before the decorated definition that binds the
root, in source order. An import binds it to its target (``from loom_runtime import flow as
durable`` binds ``durable`` to ``loom_runtime.flow``), a star import *may* bind it
(``from loom_runtime import *``: checked against ``loom_runtime.__all__``; another module's star
import may bind anything), a definition or assignment in the module binds it to
``<module>.<name>``. A plain statement replaces the candidates seen so far; a compound one (``try:
from loom_runtime import flow / except ImportError: flow = None``) adds to them. The decorator
is a flow decorator when any candidate is a configured one (a false positive costs an error
message; a false negative would ship a flow unpinned). ``loom_runtime``'s decorators are known
under every name they are defined at (``loom_runtime.definition.flow`` is ``loom_runtime.flow``).

The flow id is the decorator's first positional argument if it is a string, else its ``id=`` or
``name=`` keyword, else ``<module>:<qualname>`` (DESIGN §8); ``loom_runtime.flow`` itself takes
no ``name=`` and requires its id (as the runtime does at import), so a build refuses it without one. For ``loom_runtime.flow`` the other
arguments (``version``, ``steps``, ``deadline``, ``compatible_with``, ``step_families``,
``code_fingerprint``) must be literals: they feed the structural hash and the manifest, and a
build must not import user code to evaluate them. ``re.compile("...")`` is accepted in
``step_families``. Another framework's decorator contributes its id here (the profile says which
argument is the id: ``FlowIdArgument``); its other arguments (Prefect's ``retries=`` and string
``version=``, DBOS's ``max_recovery_attempts=``) mean something else than loom's and are no
structural fields: they are behaviour, kept in the flow's canonical form where the flow decorator
stands (``flow_arguments``), so they feed the code hash with what they reach.

Rejected: evaluating decorator arguments by importing the module (runs user code at build time,
needs the dependencies installed) and matching decorators by their last name only (``@app.flow``
of an unrelated library would be picked up).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import libcst as cst

from .canonical import literal_string_value, nfkc, number_value
from .frameworks.base import DEFAULT_FLOW_ID, FlowIdArgument
from .scopes import dotted_chain

__all__ = [
    "resolve_decorator", "FlowArgs", "extract_flow_args", "FlowArgError", "LOOM_FLOW", "normalise_decorator",
    "star_may_bind", "flow_arguments",
]

LOOM_FLOW = "loom_runtime.flow"


def _loom_aliases() -> dict[str, str]:
    """``loom_runtime``'s public decorators under the name of the module that defines them
    (read off the objects, so a move inside ``loom_runtime`` cannot drop flows)."""
    import loom_runtime

    out: dict[str, str] = {}
    for public in ("flow", "step"):
        obj = getattr(loom_runtime, public)
        out[f"{obj.__module__}.{obj.__qualname__}"] = f"loom_runtime.{public}"
    return out


_LOOM_ALIASES = _loom_aliases()


def _loom_exports() -> frozenset[str]:
    import loom_runtime

    return frozenset(loom_runtime.__all__)


_LOOM_EXPORTS = _loom_exports()


def normalise_decorator(qualname: str) -> str:
    """The public qualified name of a decorator (``loom_runtime.definition.flow`` ->
    ``loom_runtime.flow``); any other name is returned as it is."""
    return _LOOM_ALIASES.get(qualname, qualname)


def star_may_bind(module: str, name: str) -> bool:
    """Whether ``from <module> import *`` may bind ``name``: exactly for ``loom_runtime`` (its
    ``__all__``), always for any other module (its exports are not known without importing it)."""
    if module == "loom_runtime":
        return name in _LOOM_EXPORTS
    return True

_LOOM_KEYWORDS = ("id", "version", "steps", "deadline", "compatible_with", "step_families", "code_fingerprint")


class FlowArgError(ValueError):
    """A decorator argument the compiler cannot read statically; ``node`` locates it."""

    def __init__(self, message: str, node: cst.CSTNode, code: str = "flow-args") -> None:
        super().__init__(message)
        self.node = node
        self.code = code


def resolve_decorator(expr: cst.BaseExpression, imports: Mapping[str, str], module: str, local_names: set[str]) -> str | None:
    """Qualified name of a decorator expression (the callee when it is called)."""
    if isinstance(expr, cst.Call):
        expr = expr.func
    chain = dotted_chain(expr)
    if chain is None:
        return None
    return resolve_chain(chain, imports, module, local_names)


def resolve_chain(chain: str, imports: Mapping[str, str], module: str, local_names: set[str]) -> str:
    root, _, rest = chain.partition(".")
    if root in local_names:
        base = f"{module}.{root}"
    elif root in imports:
        base = imports[root]
    else:
        return chain  # a builtin or an undefined name
    return f"{base}.{rest}" if rest else base


@dataclass(frozen=True, slots=True)
class FlowArgs:
    """The decorator's literal arguments, as plain picklable values."""

    id: str | None  # None: the default id applies
    version: int = 1
    steps: tuple[str, ...] = ()
    deadline: int | float | str | None = None
    compatible_with: tuple[str, ...] = ()
    #: ("str", name, 0) or ("re", pattern, flags)
    step_families: tuple[tuple[str, str, int], ...] = ()
    code_fingerprint: str | None = None


#: ``loom_runtime.flow``'s ``id`` is required (the runtime refuses ``@flow`` and ``@flow()`` at
#: import), so the default ``module:qualname`` id is for other frameworks' decorators only: a build
#: must not record a flow that the deployed code cannot register.
_LOOM_NEEDS_ID = '@flow needs an id: write @flow("my-flow") (loom_runtime.flow has no default id)'


#: ``loom_runtime.flow``'s id: its first positional argument, else ``id=`` (``name=`` is found to be refused)
_LOOM_ID = FlowIdArgument(positional=True, keywords=("id", "name"))


def _id_arg(call: cst.Call, where: FlowIdArgument) -> cst.Arg | None:
    """The argument of ``call`` that spells the flow id (None: the call gives none)."""
    if where.positional:
        for arg in call.args:
            if arg.keyword is None and not arg.star:
                return arg
    keywords = {nfkc(a.keyword.value): a for a in call.args if a.keyword is not None}
    for key in where.keywords:
        if key in keywords:
            return keywords[key]
    return None


def flow_arguments(decorator: cst.BaseExpression, *, loom: bool,
                   id_argument: FlowIdArgument = DEFAULT_FLOW_ID) -> list[cst.Arg] | None:
    """The arguments of a flow decorator that are *behaviour* (they feed the code hash): none for
    ``loom_runtime.flow`` (its arguments are the structural hash's, and ``compatible_with`` must
    never feed the code hash); every argument but the flow id for any other decorator. None when
    the decorator is not called (``@flow``: nothing to keep, and distinct from ``@flow()``)."""
    if loom or not isinstance(decorator, cst.Call):
        return None
    id_arg = _id_arg(decorator, id_argument)
    return [a for a in decorator.args if a is not id_arg]


def extract_flow_args(decorator: cst.BaseExpression, *, loom: bool, imports: Mapping[str, str],
                      id_argument: FlowIdArgument = DEFAULT_FLOW_ID) -> FlowArgs:
    """Read the flow id (and, for ``loom_runtime.flow``, the other arguments) from a decorator;
    ``id_argument`` says where another framework's decorator spells the id (its profile's)."""
    if not isinstance(decorator, cst.Call):
        if loom:
            raise FlowArgError(_LOOM_NEEDS_ID, decorator, "flow-id")
        return FlowArgs(id=None)
    positional = [a for a in decorator.args if a.keyword is None and not a.star]
    keywords = {nfkc(a.keyword.value): a for a in decorator.args if a.keyword is not None}
    for arg in decorator.args:
        if arg.star:
            raise FlowArgError(f"`{arg.star}` arguments cannot be read statically; write the flow's arguments out", arg)
    flow_id: str | None = None
    found = _id_arg(decorator, _LOOM_ID if loom else id_argument)
    id_node: cst.CSTNode | None = found.value if found is not None else None
    if id_node is not None:
        value = literal_string_value(id_node) if isinstance(id_node, (cst.SimpleString, cst.ConcatenatedString)) else None
        if not isinstance(value, str):
            if loom or found.keyword is None or nfkc(found.keyword.value) == "id":
                raise FlowArgError("flow id must be a string literal (the build reads it without running your code)", id_node, "flow-id")
            raise FlowArgError("flow name must be a string literal (the build reads it without running your code)", id_node, "flow-id")
        if not value:
            raise FlowArgError("flow id must not be empty", id_node, "flow-id")
        flow_id = value
    if not loom:
        return FlowArgs(id=flow_id)
    if flow_id is None:
        raise FlowArgError(_LOOM_NEEDS_ID, decorator, "flow-id")
    if len(positional) > 1:
        raise FlowArgError("@flow takes one positional argument (the id); pass the others by keyword", positional[1])
    for name, arg in keywords.items():
        if name not in _LOOM_KEYWORDS:
            raise FlowArgError(f"unknown @flow argument `{name}`; expected one of {', '.join(_LOOM_KEYWORDS)}", arg)
    out: dict[str, Any] = {"id": flow_id}
    if "version" in keywords:
        version = _literal(keywords["version"].value, "version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise FlowArgError(f"version must be a positive int literal, got {version!r}", keywords["version"].value)
        out["version"] = version
    for key in ("steps", "compatible_with"):
        if key in keywords:
            node = keywords[key].value
            value = _literal(node, key)
            if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
                raise FlowArgError(f"{key} must be a list of string literals", node)
            out[key] = tuple(value)
    if "deadline" in keywords:
        node = keywords["deadline"].value
        value = _literal(node, "deadline")
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float, str))):
            raise FlowArgError("deadline must be seconds (int/float), a string or None", node)
        out["deadline"] = value
    if "code_fingerprint" in keywords:
        node = keywords["code_fingerprint"].value
        value = _literal(node, "code_fingerprint")
        if value is not None and not isinstance(value, str):
            raise FlowArgError("code_fingerprint must be a string literal", node)
        out["code_fingerprint"] = value
    if "step_families" in keywords:
        out["step_families"] = _families(keywords["step_families"].value, imports)
    return FlowArgs(**out)


def _families(node: cst.BaseExpression, imports: Mapping[str, str]) -> tuple[tuple[str, str, int], ...]:
    if not isinstance(node, (cst.List, cst.Tuple)):
        raise FlowArgError("step_families must be a list literal of strings or re.compile(\"...\") patterns", node)
    out: list[tuple[str, str, int]] = []
    for el in node.elements:
        value = el.value
        if isinstance(value, cst.Call) and _is_re_compile(value.func, imports):
            args = [a for a in value.args]
            if not args or args[0].keyword is not None:
                raise FlowArgError("re.compile(...) in step_families needs a literal pattern", value)
            pattern = _literal(args[0].value, "step_families pattern")
            flags = 0
            for extra in args[1:]:
                flags |= _regex_flags(extra.value, imports)
            if not isinstance(pattern, str):
                raise FlowArgError("re.compile(...) in step_families needs a string pattern", args[0].value)
            try:
                re.compile(pattern, flags)
            except re.error as exc:
                raise FlowArgError(f"invalid step family pattern {pattern!r}: {exc}", args[0].value) from None
            out.append(("re", pattern, flags))
            continue
        family = _literal(value, "step_families")
        if not isinstance(family, str):
            raise FlowArgError("step_families entries must be strings or re.compile(\"...\")", value)
        out.append(("str", family, 0))
    return tuple(out)


def _is_re_compile(func: cst.BaseExpression, imports: Mapping[str, str]) -> bool:
    chain = dotted_chain(func)
    return chain is not None and resolve_chain(chain, imports, "", set()) == "re.compile"


def _regex_flags(node: cst.BaseExpression, imports: Mapping[str, str]) -> int:
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        return _regex_flags(node.left, imports) | _regex_flags(node.right, imports)
    chain = dotted_chain(node)
    if chain is not None:
        target = resolve_chain(chain, imports, "", set())
        if target.startswith("re.") and isinstance(getattr(re, target[3:], None), re.RegexFlag):
            return int(getattr(re, target[3:]))
    raise FlowArgError("regex flags in step_families must be re.<FLAG> names", node)


_CONSTANT_NAMES = {"True": True, "False": False, "None": None}


def _literal(node: cst.BaseExpression, what: str) -> Any:
    """Evaluate a literal expression safely (``ast.literal_eval`` on its own source text).

    The common shapes (strings, numbers, lists/tuples of them) are read straight off the tree;
    ``literal_eval`` compiles, which costs more than the rest of a small module's analysis.
    """
    kind = type(node)
    if kind is cst.SimpleString or kind is cst.ConcatenatedString:
        value = literal_string_value(node)
        if value is not None:
            return value
    elif kind is cst.Integer or kind is cst.Float:
        return number_value(node)
    elif kind is cst.Name and node.value in _CONSTANT_NAMES:  # type: ignore[attr-defined]
        return _CONSTANT_NAMES[node.value]  # type: ignore[attr-defined]
    elif (kind is cst.List or kind is cst.Tuple) and all(type(e) is cst.Element for e in node.elements):  # type: ignore[attr-defined]
        items = [_literal(e.value, what) for e in node.elements]  # type: ignore[attr-defined]
        return items if kind is cst.List else tuple(items)
    code = cst.Module([]).code_for_node(node)
    try:
        return ast.literal_eval(code.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise FlowArgError(
            f"`{what}` must be a literal (the build reads it without running your code); got `{code.strip()}`", node
        ) from None
