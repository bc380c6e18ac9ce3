"""File-system paths a module computes from its own ``__file__``, decided without running it.

Two rules of ``loom-fp/2`` (DESIGN §6, "module lookup follows Python"; issue 12's E9 and L2) need
to know which file of the project a path expression names: a directory a package puts on
``sys.path`` or its ``__path__`` (``sys.path.insert(0, os.path.join(os.path.dirname(__file__),
'vendor'))``: ``import helper`` then loads ``shop/vendor/helper.py``), and a file loaded by path
(``importlib.util.spec_from_file_location(name, path)``, ``runpy.run_path(path)``,
``SourceFileLoader(name, path)``, ``exec(open(path).read())``): that file is code the flow runs.
This module is the one evaluator both use, and the finder of those uses (``path_uses``).

What it decides: ``__file__`` (the module's own file, a POSIX path relative to the project root),
and what ``os.path.dirname``/``abspath``/``realpath``/``normpath``/``join``, ``os.fspath``,
``str``, ``pathlib.Path``/``PurePath`` (``.parent``, ``.parents[n]``, ``/``, ``.joinpath``,
``.resolve()``, ``.absolute()``), string literals and module-level (or, in a function, local)
names bound once to such an expression make of it. Anything else (an environment variable, the
working directory, a parameter, a value bound twice, a path leaving the project) is undecidable:
``None``, which the caller turns into a warning at the use's file:line:col, never a guess. A path
relative to the working directory (a bare literal ``'vendor'``) is undecidable too: it depends on
where the process starts.

Rejected: running the module's path code (it is user code; the build never runs it), and
``ast.literal_eval`` of the whole expression (it decides only literals, not ``__file__``).
``realpath`` is taken as ``abspath``: a symlink inside the checkout is followed by neither reader
of the tree either (``sources``).
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import libcst as cst

__all__ = ["PathUse", "evaluate", "path_uses", "TRIGGERS"]

#: words a statement's source must hold for ``path_uses`` to look at it (a cheap text test first)
TRIGGERS = ("sys.path", "path.insert", "path.append", "path.extend", "path[", "__path__", "spec_from_file_location",
            "run_path", "FileLoader", "exec(")

_IDENTITY = frozenset({"os.path.abspath", "os.path.realpath", "os.path.normpath", "os.fspath", "str",
                       "builtins.str", "pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath",
                       "pathlib.PurePosixPath", "os.path.expanduser"})
_LOADERS = {  # callee -> (positional index, keyword) of its path argument
    "importlib.util.spec_from_file_location": (1, "location"),
    "runpy.run_path": (0, "path_name"),
    "importlib.machinery.SourceFileLoader": (1, "path"),
    "importlib.machinery.SourcelessFileLoader": (1, "path"),
}


@dataclass(frozen=True, slots=True)
class PathUse:
    """A use of a path the module computes: ``kind`` "sys" (a ``sys.path`` entry), "pkg" (a
    ``__path__`` entry) or "load" (a file run by path); ``first`` for an entry put before the
    others (``insert(0, ...)``); ``path`` the POSIX path relative to the project root, None when
    undecidable; where it is (1-based line and column) and how it is spelled (for a warning)."""

    kind: str
    path: str | None
    line: int
    column: int
    spelled: str
    first: bool = False


class _Path:
    """A decided value: an anchored path (relative to the project root) or a literal string."""

    __slots__ = ("anchored", "text")

    def __init__(self, anchored: bool, text: str) -> None:
        self.anchored = anchored
        self.text = text


def evaluate(expr: cst.BaseExpression, file: str, resolve: Callable[[str], str | None],
             value_of: Callable[[str], cst.BaseExpression | None]) -> str | None:
    """The project-relative POSIX path ``expr`` names (``""``: the root), None when undecidable.

    ``file``: the module's path relative to the root; ``resolve(chain)``: the qualified name a
    dotted chain of the module stands for (``join`` -> ``os.path.join``), None if unknown;
    ``value_of(name)``: the one expression a name is bound to, None if it is not bound once."""
    found = _eval(expr, file, resolve, value_of, 0)
    if found is None or not found.anchored:
        return None
    return found.text


def _eval(expr: cst.BaseExpression, file: str, resolve: Callable[[str], str | None],
          value_of: Callable[[str], cst.BaseExpression | None], depth: int) -> _Path | None:
    if depth > 32:
        return None  # a name bound (through others) to itself
    again = lambda e: _eval(e, file, resolve, value_of, depth + 1)  # noqa: E731
    if isinstance(expr, cst.SimpleString):
        try:
            value = ast.literal_eval(expr.value)
        except (ValueError, SyntaxError):
            return None
        return _Path(False, value) if isinstance(value, str) else None
    if isinstance(expr, cst.Name):
        if expr.value == "__file__":
            return _Path(True, file)
        bound = value_of(expr.value)
        return again(bound) if bound is not None else None
    if isinstance(expr, cst.Attribute):
        if expr.attr.value == "parent":
            inner = again(expr.value)
            return _parent(inner, 1)
        return None
    if isinstance(expr, cst.Subscript):  # ``Path(__file__).parents[1]``
        if isinstance(expr.value, cst.Attribute) and expr.value.attr.value == "parents" and len(expr.slice) == 1:
            index = expr.slice[0].slice
            if isinstance(index, cst.Index) and isinstance(index.value, cst.Integer):
                return _parent(again(expr.value.value), int(index.value.value) + 1)
        return None
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Divide):
        left, right = again(expr.left), again(expr.right)
        return _join(left, [right])
    if isinstance(expr, cst.Call):
        if isinstance(expr.func, cst.Attribute) and not _qualified(expr.func, resolve):
            method, obj = expr.func.attr.value, expr.func.value
            if method in ("resolve", "absolute") and not expr.args:
                return again(obj)
            if method == "joinpath":
                return _join(again(obj), [again(a.value) for a in expr.args])
            return None
        callee = _qualified(expr.func, resolve)
        if callee is None or any(a.keyword is not None or a.star for a in expr.args):
            return None
        args = [a.value for a in expr.args]
        if callee in _IDENTITY and len(args) == 1:
            inner = again(args[0])
            return inner if callee != "os.path.expanduser" or inner is None or not inner.text.startswith("~") else None
        if callee == "os.path.dirname" and len(args) == 1:
            return _parent(again(args[0]), 1)
        if callee == "os.path.join" and args:
            return _join(again(args[0]), [again(a) for a in args[1:]])
    return None


def _parent(value: _Path | None, levels: int) -> _Path | None:
    if value is None or not value.anchored:
        return None
    text = value.text
    for _ in range(levels):
        if text in ("", "."):
            return None  # above the project root: no file of the project
        text = posixpath.dirname(text)
    return _Path(True, text)


def _join(base: _Path | None, rest: list[_Path | None]) -> _Path | None:
    if base is None or not base.anchored or any(r is None or r.anchored or r.text.startswith("/") for r in rest):
        return None
    text = posixpath.normpath(posixpath.join(base.text or ".", *(r.text for r in rest if r is not None)))
    if text == ".":
        return _Path(True, "")
    if text == ".." or text.startswith("../"):
        return None  # leaves the project
    return _Path(True, text)


def _qualified(func: cst.BaseExpression, resolve: Callable[[str], str | None]) -> str | None:
    chain = _chain(func)
    return resolve(chain) if chain is not None else None


def _chain(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = _chain(node.value)
        return f"{inner}.{node.attr.value}" if inner is not None else None
    return None


def path_uses(stmt: cst.CSTNode, file: str, resolve: Callable[[str], str | None],
              value_of: Callable[[str], cst.BaseExpression | None],
              position: Callable[[cst.CSTNode], tuple[int, int]]) -> list[PathUse]:
    """Every ``sys.path``/``__path__`` addition and every load of a file by path in ``stmt``
    (nested functions included), in source order, each with its path evaluated. A function's own
    names bound once are looked up before the module's (``p = os.path.join(...)`` then
    ``spec_from_file_location('plug', p)``)."""
    out: list[PathUse] = []
    for node, local in _walk(stmt, {}):
        lookup = _scoped(local, value_of)
        use = _use(node, file, resolve, lookup)
        if use is not None:
            kind, first, expr, spelled = use
            line, column = position(node)
            path = evaluate(expr, file, resolve, lookup) if expr is not None else None
            out.append(PathUse(kind, path, line, column, spelled, first))
    return out


def _scoped(local: dict[str, cst.BaseExpression | None],
            value_of: Callable[[str], cst.BaseExpression | None]) -> Callable[[str], cst.BaseExpression | None]:
    def lookup(name: str) -> cst.BaseExpression | None:
        if name in local:
            return local[name]
        return value_of(name)
    return lookup


def _walk(node: cst.CSTNode, local: dict[str, cst.BaseExpression | None]
          ) -> Iterator[tuple[cst.Call | cst.AugAssign | cst.Assign, dict[str, cst.BaseExpression | None]]]:
    if isinstance(node, (cst.FunctionDef, cst.Lambda)):
        local = dict(local)
        if isinstance(node, cst.FunctionDef):
            local.update(_single_assignments(node.body))
    if isinstance(node, (cst.Call, cst.AugAssign, cst.Assign)):
        yield node, local
    for child in node.children:
        yield from _walk(child, local)


def _single_assignments(body: cst.CSTNode) -> dict[str, cst.BaseExpression | None]:
    """The names a function body binds: the value of those bound by exactly one plain
    assignment, None for any other (bound twice, a loop target, a parameter is not here)."""
    seen: dict[str, cst.BaseExpression | None] = {}

    def visit(node: cst.CSTNode) -> None:
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            name = node.targets[0].target.value
            seen[name] = None if name in seen else node.value
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.With, cst.NamedExpr)):
            for sub in _names_in(node):
                seen[sub] = None
        for child in node.children:
            visit(child)

    for child in body.children:
        visit(child)
    return seen


def _names_in(node: cst.CSTNode) -> list[str]:
    target = getattr(node, "target", None)
    if isinstance(node, cst.With):
        return [n for item in node.items if item.asname is not None for n in _target_names(item.asname.name)]
    return _target_names(target) if target is not None else []


def _target_names(node: cst.CSTNode) -> list[str]:
    if isinstance(node, cst.Name):
        return [node.value]
    return [n for child in node.children for n in _target_names(child)]


def _use(node: cst.CSTNode, file: str, resolve: Callable[[str], str | None],
         value_of: Callable[[str], cst.BaseExpression | None]
         ) -> tuple[str, bool, cst.BaseExpression | None, str] | None:
    """(kind, first, the path expression or None when it is not one path, how it is spelled)."""
    if isinstance(node, cst.AugAssign):
        kind = _path_list(node.target, resolve) if isinstance(node.operator, cst.AddAssign) else None
        if kind is not None:
            return kind, False, _single_item(node.value), f"{_spelled(kind)} +="
        return None
    if isinstance(node, cst.Assign):
        for target in node.targets:
            kind = None
            if isinstance(target.target, cst.Subscript):
                kind = _path_list(target.target.value, resolve)  # ``sys.path[0:0] = [...]``
            elif isinstance(target.target, cst.Name) and target.target.value == "__path__":
                kind = "pkg"
                if _extends_path(node.value, resolve):
                    return None  # ``pkgutil.extend_path``: the same package's portions elsewhere on sys.path
            if kind is not None:
                return kind, True, _single_item(node.value), f"{_spelled(kind)} ="
        return None
    assert isinstance(node, cst.Call)
    func = node.func
    if isinstance(func, cst.Attribute) and func.attr.value in ("insert", "append", "extend"):
        kind = _path_list(func.value, resolve)
        if kind is None:
            return None
        method = func.attr.value
        args = [a for a in node.args]
        if method == "insert":
            first = len(args) == 2 and isinstance(args[0].value, cst.Integer) and args[0].value.value == "0"
            return kind, first, args[1].value if len(args) == 2 else None, f"{_spelled(kind)}.insert"
        if method == "append":
            return kind, False, args[0].value if len(args) == 1 else None, f"{_spelled(kind)}.append"
        return kind, False, _single_item(args[0].value) if len(args) == 1 else None, f"{_spelled(kind)}.extend"
    callee = _qualified(func, resolve)
    if callee in _LOADERS:
        index, keyword = _LOADERS[callee]
        return "load", False, _argument(node, index, keyword), callee.rsplit(".", 1)[-1]
    if callee in ("exec", "builtins.exec") and node.args:
        source = _file_text(node.args[0].value, resolve)
        if source is not None:
            return "load", False, source, "exec"
    return None


def _file_text(expr: cst.BaseExpression, resolve: Callable[[str], str | None]) -> cst.BaseExpression | None:
    """The path whose text ``expr`` reads: ``open(p).read()``, ``Path(p).read_text()``,
    ``compile(open(p).read(), ...)``; None when it reads no file."""
    if isinstance(expr, cst.Call) and _qualified(expr.func, resolve) in ("compile", "builtins.compile") and expr.args:
        return _file_text(expr.args[0].value, resolve)
    if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)):
        return None
    method, obj = expr.func.attr.value, expr.func.value
    if method == "read" and isinstance(obj, cst.Call) and _qualified(obj.func, resolve) in ("open", "builtins.open",
                                                                                            "io.open") and obj.args:
        return obj.args[0].value
    if method in ("read_text", "read_bytes"):
        if isinstance(obj, cst.Call) and _qualified(obj.func, resolve) in _IDENTITY and len(obj.args) == 1:
            return obj.args[0].value
        return obj
    return None


def _argument(call: cst.Call, index: int, keyword: str) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return positional[index].value if len(positional) > index else None


def _single_item(expr: cst.BaseExpression) -> cst.BaseExpression | None:
    if isinstance(expr, (cst.List, cst.Tuple)) and len(expr.elements) == 1 and not isinstance(
            expr.elements[0], cst.StarredElement):
        return expr.elements[0].value
    return None


def _path_list(node: cst.BaseExpression, resolve: Callable[[str], str | None]) -> str | None:
    if isinstance(node, cst.Name) and node.value == "__path__":
        return "pkg"
    chain = _chain(node)
    if chain is not None and resolve(chain) == "sys.path":
        return "sys"
    return None


def _extends_path(expr: cst.BaseExpression, resolve: Callable[[str], str | None]) -> bool:
    # ``pkgutil.extend_path`` however spelled (``__import__("pkgutil").extend_path``)
    return isinstance(expr, cst.Call) and (_qualified(expr.func, resolve) == "pkgutil.extend_path" or (
        isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "extend_path"))


def _spelled(kind: str) -> str:
    return "sys.path" if kind == "sys" else "__path__"
