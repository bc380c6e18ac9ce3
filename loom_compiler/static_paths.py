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

The whole family of spellings, and what widens (F9, F10): a directory list is read item by item
(``sys.path.extend([a, b])``, ``sys.path[0:0] = [a, b]``, ``__path__ += [...]``), an assignment
over the whole path (``sys.path = [...]``, ``__path__ = [os.path.dirname(__file__), extra]``) is
a new start (``PathUse.reset``: the package's own directory is searched only if listed), and
``site.addsitedir(d)`` appends ``d``. A value that is no literal list (a name bound to a list, a
comprehension, a starred item) is one undecidable use: a warning, not a guess of its items.
``site.addsitedir`` also runs the ``.pth`` files of its directory, which the compiler does not
read: ``analysis`` warns at every such call (the directory itself is searched). ``__path__ =
pkgutil.extend_path(__path__, __name__)`` adds the portions of the package installed elsewhere
on ``sys.path``: installed code, hashed by name like any third-party import, no warning. A load
by path whose path is decided names a file of the project (``FILE_REF``): ``closure`` hashes its
bytes (any edit moves the flows that run it, formatting included: the text of ``plug.txt`` is
not parsed) and, when it is a first-party module file, follows that module whole too. A file
only read (``open(p).read()`` returned, not executed) is data, outside the fingerprint like a
database: only a read whose text reaches ``exec``/``compile`` counts.

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

__all__ = ["FILE_REF", "PathUse", "evaluate", "path_uses", "TRIGGERS"]

#: the reference prefix of a project file whose text code runs, ``"&<path>|<module or "">``
#: (``"&shop/plug.txt|``): a string naming something, so every rule that skips strings skips it;
#: ``closure`` follows the module when it is first-party code, else hashes the file's bytes
FILE_REF = '"&'

#: words a statement's source must hold for ``path_uses`` to look at it (a cheap text test first)
TRIGGERS = ("sys.path", "path.insert", "path.append", "path.extend", "path[", "__path__",
            "spec_from_file_location", "run_path", "FileLoader", "exec(", "addsitedir")

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
    others (``insert(0, ...)``, each item of ``sys.path[0:0] = [...]``); ``reset`` for the first
    item of a list assigned over the whole search path (``__path__ = [a, b]``: the package's own
    directory is searched only if it is one of them; the items after it are appended); ``path``
    the POSIX path relative to the project root, None when undecidable; where it is (1-based line
    and column) and how it is spelled (for a warning).

    One use per item: a list of several directories (``__path__ = [a, b]``, ``sys.path.extend([a,
    b])``) is several uses at the same position, in the order the search meets them; a value that
    is no literal list (a name, a comprehension, a starred item) is one undecidable use."""

    kind: str
    path: str | None
    line: int
    column: int
    spelled: str
    first: bool = False
    reset: bool = False

    @property
    def mode(self) -> str:
        """"reset", "first" or "last": how the entry enters its search path (``ModuleSummary``)."""
        return "reset" if self.reset else "first" if self.first else "last"


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
            kind, mode, exprs, spelled = use
            line, column = position(node)
            if exprs is None:
                out.append(PathUse(kind, None, line, column, spelled, mode == "first", mode == "reset"))
                continue
            if mode == "first":
                exprs = exprs[::-1]  # each put before the others in turn: the last one put first
            for i, expr in enumerate(exprs):
                path = evaluate(expr, file, resolve, lookup)
                out.append(PathUse(kind, path, line, column, spelled, mode == "first", mode == "reset" and i == 0))
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
         ) -> tuple[str, str, list[cst.BaseExpression] | None, str] | None:
    """(kind, mode "first"/"last"/"reset", the path expressions in the order given or None when
    they are not a literal list of paths, how it is spelled)."""
    if isinstance(node, cst.AugAssign):
        kind = _path_list(node.target, resolve) if isinstance(node.operator, cst.AddAssign) else None
        if kind is not None:
            return kind, "last", _items(node.value), f"{_spelled(kind)} +="
        return None
    if isinstance(node, cst.Assign):
        for target in node.targets:
            kind = None
            mode = "reset"
            if isinstance(target.target, cst.Subscript):
                kind = _path_list(target.target.value, resolve)  # ``sys.path[0:0] = [...]``
                mode = "first" if _slice_at_start(target.target) else "last"
            elif (kind := _path_list(target.target, resolve)) == "pkg" and _extends_path(node.value, resolve):
                return None  # ``pkgutil.extend_path``: the same package's portions elsewhere on sys.path
            if kind is not None:
                return kind, mode, _items(node.value), f"{_spelled(kind)} ="
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
            return kind, "first" if first else "last", [args[1].value] if len(args) == 2 else None, \
                f"{_spelled(kind)}.insert"
        if method == "append":
            return kind, "last", [args[0].value] if len(args) == 1 else None, f"{_spelled(kind)}.append"
        return kind, "last", _items(args[0].value) if len(args) == 1 else None, f"{_spelled(kind)}.extend"
    callee = _qualified(func, resolve)
    if callee == "site.addsitedir":
        # appended to sys.path (its .pth files are read there too: ``closure`` warns of them)
        return "sys", "last", [_argument(node, 0, "sitedir")] if _argument(node, 0, "sitedir") is not None else None, \
            "site.addsitedir"
    if callee in _LOADERS:
        index, keyword = _LOADERS[callee]
        found = _argument(node, index, keyword)
        return "load", "last", [found] if found is not None else None, callee.rsplit(".", 1)[-1]
    if callee in ("exec", "builtins.exec") and node.args:
        source = _file_text(node.args[0].value, resolve)
        if source is not None:
            return "load", "last", [source], "exec"
    return None


def _slice_at_start(target: cst.Subscript) -> bool:
    """``x[0:0]`` or ``x[:0]``: a slice assignment that puts its items first."""
    if len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Slice):
        return False
    part = target.slice[0].slice
    lower_ok = part.lower is None or (isinstance(part.lower, cst.Integer) and part.lower.value == "0")
    return lower_ok and isinstance(part.upper, cst.Integer) and part.upper.value == "0"


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


def _items(expr: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    """The items of a literal list or tuple with no starred item; None for anything else."""
    if isinstance(expr, (cst.List, cst.Tuple)) and expr.elements and not any(
            isinstance(e, cst.StarredElement) for e in expr.elements):
        return [e.value for e in expr.elements]
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
