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
``site.addsitedir`` (mode "site") also runs the ``.pth`` files of its directory: ``closure``
reads them as ``site`` does (``ClosureGraph.site_packages``: their directories are searched after
it, their bytes hashed). ``__path__ = pkgutil.extend_path(__path__, __name__)`` adds the portions
of the package installed elsewhere on ``sys.path``: installed code, hashed by name like any
third-party import, no warning. A load by path whose path is decided names a file of the
project (``FILE_REF``): ``closure`` hashes its bytes (any edit moves the flows that run it,
formatting included: the text of ``plug.txt`` is not parsed) and, when it is a first-party module
file, follows that module whole too. A file only read (``open(p).read()`` returned, not executed)
is data, outside the fingerprint like a database: only a read whose text reaches ``exec``/``eval``
(directly or through ``compile``) counts.

Text run by ``exec``/``eval`` (G9) is followed back to where it comes from (``_text_origin``):
through a function's names bound once (an assignment, a ``with open(p) as fh`` target, a loop over
a glob), ``compile``, ``strip``/``decode``/``textwrap.dedent``, to the read (``_file_read``:
``open(p).read()``, ``Path(p).read_text()``, ``Path(p).open().read()``, ``pkgutil.get_data(pkg,
res)``, ``importlib.resources``). Paths are strings as Python computes them: ``+``, f-strings,
``%`` and ``str.format`` of an anchored path and literals, ``Path.with_name``/``with_suffix``/
``with_stem``, a package's directory named by a string (``importlib.resources.files('shop')``:
``package_dir``, the tree's naming). A glob (``glob.glob(p)``, ``Path.glob``, a loop over one) is
the listing ``<dir>//<pattern>`` (``loom_runtime.file_listing``): ``closure`` hashes the names it
matches and each match's bytes, so adding or removing a match moves the flow, a name it does not
match does not. Widened, never guessed: text whose origin cannot be decided (a parameter, a name
bound twice, a call the evaluator does not know) is an undecidable load (a ``path-undecidable``
warning where it runs), and so is a glob with a wildcard directory or ``**``. Text the code spells
itself (literals, constants, f-strings of those) is no load: ``scopes``' rule for code strings
follows what it imports. Cost on the measured repositories: none of them execs text (benchmarks
README, session 8).

Rejected: running the module's path code (it is user code; the build never runs it), and
``ast.literal_eval`` of the whole expression (it decides only literals, not ``__file__``).
``realpath`` is taken as ``abspath``: a symlink inside the checkout is followed by neither reader
of the tree either (``sources``).
"""

from __future__ import annotations

import ast
import glob
import posixpath
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import libcst as cst

from loom_runtime.file_listing import LISTING

__all__ = ["FILE_REF", "PathUse", "TRIGGERS", "evaluate", "might_use_paths", "path_uses", "runner_aliases"]

#: the reference prefix of a project file whose text code runs, ``"&<path>|<module or "">``
#: (``"&shop/plug.txt|``): a string naming something, so every rule that skips strings skips it;
#: ``closure`` follows the module when it is first-party code, else hashes the file's bytes
FILE_REF = '"&'

#: words a statement's source must hold for ``path_uses`` to look at it (a cheap text test first)
TRIGGERS = ("sys.path", "path.insert", "path.append", "path.extend", "path[", "__path__",
            "spec_from_file_location", "run_path", "FileLoader", "addsitedir", "load_source")
#: a code runner named in a statement, however called (``exec(src)``, ``run = exec``; not
#: ``execute_activity``): the text test for ``exec``/``eval`` and for names bound to them
_RUNNER_WORD = re.compile(r"\b(?:exec|eval)\b")


def might_use_paths(code: str, runners: frozenset[str] = frozenset()) -> bool:
    """Whether a statement's source may hold a use ``path_uses`` finds (the cheap text test
    first): a word of ``TRIGGERS``, ``exec``/``eval`` as a word, or a name of ``runners`` (the
    module's names bound to ``exec``/``eval``: ``run = exec`` then ``run(src)`` elsewhere)."""
    if any(word in code for word in TRIGGERS) or _RUNNER_WORD.search(code):
        return True
    return any(re.search(rf"\b{re.escape(name)}\b", code) for name in runners)


def runner_aliases(value_of: ValueOf, names: Iterable[str], resolve: Callable[[str], str | None]) -> frozenset[str]:
    """The module-level ``names`` bound once to ``exec`` or ``eval`` (``run = exec``,
    ``run = builtins.exec``, ``from builtins import exec as run``): a call of one is a code
    runner wherever it is spelled."""
    found = set()
    for name in names:
        value = value_of(name)
        if resolve(name) in _RUNNERS or (  # ``from builtins import exec as run``
                isinstance(value, (cst.Name, cst.Attribute)) and _qualified(value, resolve) in _RUNNERS):
            found.add(name)
    return frozenset(found)

_IDENTITY = frozenset({"os.path.abspath", "os.path.realpath", "os.path.normpath", "os.fspath", "str",
                       "builtins.str", "pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath",
                       "pathlib.PurePosixPath", "os.path.expanduser"})
_LOADERS = {  # callee -> (positional index, keyword) of its path argument
    "importlib.util.spec_from_file_location": (1, "location"),
    "runpy.run_path": (0, "path_name"),
    "importlib.machinery.SourceFileLoader": (1, "path"),
    "importlib.machinery.SourcelessFileLoader": (1, "path"),
    "imp.load_source": (1, "pathname"),  # Python <= 3.11 (breakS's S9: it was not followed)
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
    #: ``site.addsitedir``: appended, then the directories its ``.pth`` files name (``closure``)
    site: bool = False

    @property
    def mode(self) -> str:
        """"reset", "first", "last" or "site": how the entry enters its search path
        (``ModuleSummary.search_paths``; "site" is appended like "last")."""
        return "reset" if self.reset else "first" if self.first else "site" if self.site else "last"


class _Path:
    """A decided value: an anchored path (relative to the project root) or a literal string;
    ``pattern`` when it is a glob pattern (what ``glob.glob`` or a loop over it yields)."""

    __slots__ = ("anchored", "text", "pattern")

    def __init__(self, anchored: bool, text: str, pattern: bool = False) -> None:
        self.anchored = anchored
        self.text = text
        self.pattern = pattern


class _Each:
    """What a loop target is bound to: each item of ``iterable`` in turn (``for p in
    sorted(glob.glob(...))``), a value of ``value_of`` that only a glob decides."""

    __slots__ = ("iterable",)

    def __init__(self, iterable: cst.BaseExpression) -> None:
        self.iterable = iterable


#: what a name may be bound to for the evaluator: an expression, each item of a loop, or None
Value = "cst.BaseExpression | _Each | None"
ValueOf = Callable[[str], "cst.BaseExpression | _Each | None"]
#: the project directory of a dotted package (``pkgutil.get_data('shop', ...)``), None if unknown
PackageDir = Callable[[str], "str | None"]


def evaluate(expr: cst.BaseExpression, file: str, resolve: Callable[[str], str | None], value_of: ValueOf,
             package_dir: PackageDir | None = None) -> str | None:
    """The project-relative POSIX path ``expr`` names (``""``: the root), None when undecidable;
    a glob pattern as the listing ``<dir>//<pattern>`` (``loom_runtime.file_listing``), None when
    its directory part holds a wildcard too.

    ``file``: the module's path relative to the root; ``resolve(chain)``: the qualified name a
    dotted chain of the module stands for (``join`` -> ``os.path.join``), None if unknown;
    ``value_of(name)``: the one expression a name is bound to, None if it is not bound once;
    ``package_dir(dotted)``: where a package named by a string is (``importlib.resources``)."""
    return _key(_eval(expr, _Context(file, resolve, value_of, package_dir), 0))


def _key(found: _Path | None) -> str | None:
    if found is None or not found.anchored:
        return None
    found = _relative(found.text, found.pattern) if found.text else found
    if found is None:
        return None
    if not found.pattern or not glob.has_magic(found.text):
        return found.text
    directory, _, name = found.text.rpartition("/")
    if glob.has_magic(directory) or "**" in name:
        return None  # a wildcard directory or a recursive pattern: not one listing
    return f"{directory}{LISTING}{name}"


class _Context:
    __slots__ = ("file", "resolve", "value_of", "package_dir")

    def __init__(self, file: str, resolve: Callable[[str], str | None], value_of: ValueOf,
                 package_dir: PackageDir | None) -> None:
        self.file, self.resolve, self.value_of, self.package_dir = file, resolve, value_of, package_dir


_ROOT = "\0root"  # an anchored path spelled as text, for string arithmetic (``dirname(__file__) + '/x'``)


def _eval(expr: cst.BaseExpression | _Each, ctx: _Context, depth: int) -> _Path | None:
    if depth > 32:
        return None  # a name bound (through others) to itself
    again = lambda e: _eval(e, ctx, depth + 1)  # noqa: E731
    resolve = ctx.resolve
    if isinstance(expr, _Each):
        return _each(expr.iterable, ctx, depth + 1)
    if isinstance(expr, cst.SimpleString):
        try:
            value = ast.literal_eval(expr.value)
        except (ValueError, SyntaxError):
            return None
        return _Path(False, value) if isinstance(value, str) else None
    if isinstance(expr, cst.ConcatenatedString):
        return _concat([again(expr.left), again(expr.right)])
    if isinstance(expr, cst.FormattedString):
        return _concat(_fstring_parts(expr, again))
    if isinstance(expr, cst.Name):
        if expr.value == "__file__":
            return _Path(True, ctx.file)
        bound = ctx.value_of(expr.value)
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
    if isinstance(expr, cst.BinaryOperation):
        if isinstance(expr.operator, cst.Divide):
            return _join(again(expr.left), [again(expr.right)])
        if isinstance(expr.operator, cst.Add):  # ``os.path.dirname(__file__) + '/plug.txt'``
            return _concat([again(expr.left), again(expr.right)])
        if isinstance(expr.operator, cst.Modulo):  # ``'%s/plug.txt' % here``
            form = again(expr.left)
            items = expr.right.elements if isinstance(expr.right, cst.Tuple) else None
            values = [again(e.value) for e in items] if items is not None else [again(expr.right)]
            return _formatted(form, values, "%s")
        return None
    if isinstance(expr, cst.Call):
        if isinstance(expr.func, cst.Attribute) and _qualified(expr.func, resolve) not in _FUNCTIONS:
            method, obj = expr.func.attr.value, expr.func.value
            if any(a.keyword is not None or a.star for a in expr.args):
                return None
            args = [a.value for a in expr.args]
            if method in ("resolve", "absolute", "expanduser") and not args:
                return again(obj)
            if method == "joinpath":
                return _join(again(obj), [again(a) for a in args])
            if method in ("with_name", "with_suffix", "with_stem") and len(args) == 1:
                return _with(again(obj), method, again(args[0]))
            if method in ("glob",) and len(args) == 1:  # ``Path(here).glob('*.txt')``: each match
                found = _join(again(obj), [again(args[0])])
                return _Path(True, found.text, True) if found is not None else None
            if method == "format" and isinstance(obj, (cst.SimpleString, cst.ConcatenatedString)):
                return _formatted(again(obj), [again(a) for a in args], "{}")
            return None
        callee = _qualified(expr.func, resolve)
        if callee is None or any(a.keyword is not None or a.star for a in expr.args):
            return None
        args = [a.value for a in expr.args]
        if callee in _IDENTITY and len(args) == 1:
            inner = again(args[0])
            return inner if callee != "os.path.expanduser" or inner is None or not inner.text.startswith("~") else None
        if callee.startswith("pathlib.") and callee in _IDENTITY and len(args) > 1:  # ``Path(here, 'x')``
            return _join(again(args[0]), [again(a) for a in args[1:]])
        if callee == "os.path.dirname" and len(args) == 1:
            return _parent(again(args[0]), 1)
        if callee == "os.path.join" and args:
            return _join(again(args[0]), [again(a) for a in args[1:]])
        if callee in _RESOURCE_ROOTS and len(args) == 1:  # ``importlib.resources.files('shop')``
            return _package(args[0], ctx, depth)
        if callee in _RESOURCE_PATHS and len(args) == 2:  # ``importlib.resources.path('shop', 'x')``
            return _join(_package(args[0], ctx, depth), [again(args[1])])
        if callee in ("glob.glob", "glob.iglob") and len(args) == 1:
            found = again(args[0])
            return _Path(True, found.text, True) if found is not None and found.anchored else None
    return None


def _each(iterable: cst.BaseExpression, ctx: _Context, depth: int) -> _Path | None:
    """What each item of a loop over ``iterable`` is: a glob pattern (``glob.glob(p)``, also
    through ``sorted``/``list``/``reversed``/..., a name bound once to it, ``Path.glob``), or
    undecidable (a directory listing of any name, a list of several paths)."""
    if depth > 32:
        return None
    if isinstance(iterable, cst.Name):
        bound = ctx.value_of(iterable.value)
        return _each(bound, ctx, depth + 1) if isinstance(bound, cst.BaseExpression) else None
    if isinstance(iterable, cst.Call) and len(iterable.args) == 1 and iterable.args[0].keyword is None \
            and not iterable.args[0].star and _qualified(iterable.func, ctx.resolve) in _ORDERINGS:
        return _each(iterable.args[0].value, ctx, depth + 1)
    found = _eval(iterable, ctx, depth + 1)
    return found if found is not None and found.pattern else None


def _package(arg: cst.BaseExpression, ctx: _Context, depth: int) -> _Path | None:
    """The directory of the package a resource call names: a literal dotted name, ``__name__``
    (the module's own: its file's directory) or ``__package__``."""
    if isinstance(arg, cst.Name) and arg.value in ("__name__", "__package__", "__spec__"):
        return _parent(_Path(True, ctx.file), 1)
    found = _eval(arg, ctx, depth + 1)
    if found is None or found.anchored or ctx.package_dir is None:
        return None
    directory = ctx.package_dir(found.text)
    return _Path(True, directory) if directory is not None else None


def _fstring_parts(expr: cst.FormattedString, again: Callable[[cst.BaseExpression], _Path | None]) -> list[_Path | None]:
    """The values of an f-string's parts: its text parts as Python reads them (escapes, ``{{``),
    each ``{expression}`` evaluated; None for one with a conversion other than ``!s`` or a format
    spec (the value is then no path the compiler decides)."""
    try:
        tree = ast.parse(cst.Module([]).code_for_node(expr), mode="eval").body
    except SyntaxError:
        return [None]
    texts = [v.value for v in getattr(tree, "values", ()) if isinstance(v, ast.Constant)]
    out: list[_Path | None] = []
    for part in expr.parts:
        if isinstance(part, cst.FormattedStringText):
            out.append(None)  # filled below, in order, from ``ast``'s decoded texts
        elif part.conversion not in (None, "s") or part.format_spec:
            return [None]
        else:
            out.append(again(part.expression))
    # ``ast`` merges nothing across an expression: one decoded text per run of text parts
    decoded = iter(texts)
    merged: list[_Path | None] = []
    previous_text = False
    for part, value in zip(expr.parts, out):
        if isinstance(part, cst.FormattedStringText):
            if not previous_text:
                merged.append(_Path(False, next(decoded, "")))
            previous_text = True
        else:
            merged.append(value)
            previous_text = False
    return merged


def _concat(values: list[_Path | None]) -> _Path | None:
    """String concatenation of decided values: literals only, or an anchored path first and
    literals after it (``dirname(__file__) + '/x'``, ``f'{here}/x'``)."""
    if any(v is None for v in values):
        return None
    parts = [v for v in values if v is not None]
    if any(v.anchored for v in parts[1:]):
        return None
    pattern = any(v.pattern for v in parts)
    if not parts or not parts[0].anchored:
        return _Path(False, "".join(v.text for v in parts), pattern)
    head = _ROOT + ("/" + parts[0].text if parts[0].text else "")
    text = head + "".join(v.text for v in parts[1:])
    if text == _ROOT:
        return _Path(True, "", pattern)
    if not text.startswith(_ROOT + "/"):
        return None  # ``dirname(__file__) + 'x'`` at the root: a sibling of the project
    if _relative(text[len(_ROOT) + 1:], pattern) is None:
        return None  # leaves the project
    # the string as computed (``here + '/' + 'x'``: the separator stays for what comes next);
    # ``_key`` and every path operation normalise it
    return _Path(True, text[len(_ROOT) + 1:], pattern)


def _formatted(form: _Path | None, values: list[_Path | None], field: str) -> _Path | None:
    """``'{}/x'.format(here)`` / ``'%s/x' % here``: a literal form with bare fields only."""
    if form is None or form.anchored or any(v is None for v in values):
        return None
    pieces = form.text.split(field)
    if len(pieces) != len(values) + 1 or any(c in p for p in pieces for c in "{}%" if c in field):
        return None
    out: list[_Path | None] = [_Path(False, pieces[0])]
    for value, piece in zip(values, pieces[1:]):
        out += [value, _Path(False, piece)]
    return _concat([p for p in out if p is None or p.anchored or p.text])


def _with(value: _Path | None, method: str, part: _Path | None) -> _Path | None:
    """``Path.with_name``/``with_suffix``/``with_stem`` of a decided path."""
    if value is None or not value.anchored or part is None or part.anchored or not value.text:
        return None
    directory, _, name = posixpath.normpath(value.text).rpartition("/")  # ``Path`` drops a trailing ``/``
    stem, dot, suffix = name.rpartition(".")
    if not dot or not stem:
        stem, suffix = name, ""
    else:
        suffix = "." + suffix
    new = part.text if method == "with_name" else stem + part.text if method == "with_suffix" else part.text + suffix
    if not new or "/" in new:
        return None  # ``pathlib`` refuses it
    return _Path(True, f"{directory}/{new}" if directory else new, value.pattern or part.pattern)


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
    pattern = base.pattern or any(r is not None and r.pattern for r in rest)
    return _relative(posixpath.join(base.text or ".", *(r.text for r in rest if r is not None)), pattern)


def _relative(text: str, pattern: bool) -> _Path | None:
    text = posixpath.normpath(text)
    if text == ".":
        return _Path(True, "", pattern)
    if text == ".." or text.startswith(("../", "/")):
        return None  # leaves the project
    return _Path(True, text, pattern)


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


def path_uses(stmt: cst.CSTNode, file: str, resolve: Callable[[str], str | None], value_of: ValueOf,
              position: Callable[[cst.CSTNode], tuple[int, int]],
              package_dir: PackageDir | None = None) -> list[PathUse]:
    """Every ``sys.path``/``__path__`` addition and every load of a file by path in ``stmt``
    (nested functions included), in source order, each with its path evaluated. A function's own
    names bound once are looked up before the module's (``p = os.path.join(...)`` then
    ``spec_from_file_location('plug', p)``; ``with open(p) as fh: src = fh.read()`` then
    ``exec(src)``; ``for p in glob.glob(...)``)."""
    out: list[PathUse] = []
    for node, local in _walk(stmt, {}):
        lookup = _scoped(local, value_of)
        ctx = _Context(file, resolve, lookup, package_dir)
        use = _use(node, ctx)
        if use is not None:
            kind, mode, exprs, spelled = use
            line, column = position(node)
            if exprs is None:
                out.append(PathUse(kind, None, line, column, spelled, mode == "first", mode == "reset", mode == "site"))
                continue
            if mode == "first":
                exprs = exprs[::-1]  # each put before the others in turn: the last one put first
            for i, expr in enumerate(exprs):
                path = _key(expr) if isinstance(expr, _Path) or expr is None else _key(_eval(expr, ctx, 0))
                out.append(PathUse(kind, path, line, column, spelled, mode == "first", mode == "reset" and i == 0,
                                   mode == "site"))
    return out


def _scoped(local: dict[str, cst.BaseExpression | _Each | None], value_of: ValueOf) -> ValueOf:
    def lookup(name: str) -> cst.BaseExpression | _Each | None:
        if name in local:
            return local[name]
        return value_of(name)
    return lookup


def _walk(node: cst.CSTNode, local: dict[str, cst.BaseExpression | _Each | None]
          ) -> Iterator[tuple[cst.Call | cst.AugAssign | cst.Assign, dict[str, cst.BaseExpression | _Each | None]]]:
    if isinstance(node, (cst.FunctionDef, cst.Lambda)):
        local = dict(local)
        if isinstance(node, cst.FunctionDef):
            local.update(_single_assignments(node.body))
        # a parameter is whatever the caller passes (never a module name of the same spelling),
        # also where the body assigns it once: the use may see either
        local.update(dict.fromkeys(_parameters(node.params), None))
    if isinstance(node, cst.For) and isinstance(node.target, cst.Name) and node.target.value not in local:
        # a module-level loop: its body sees each item (a function's loops: ``_single_assignments``)
        name = node.target.value
        if _single_assignments(cst.IndentedBlock(body=[node])).get(name) is not None:
            local = {**local, name: _Each(node.iter)}
    if isinstance(node, (cst.Call, cst.AugAssign, cst.Assign)):
        yield node, local
    for child in node.children:
        yield from _walk(child, local)


def _parameters(params: cst.Parameters) -> list[str]:
    found = [*params.posonly_params, *params.params, *params.kwonly_params]
    found += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    return [p.name.value for p in found]


def _single_assignments(body: cst.CSTNode) -> dict[str, cst.BaseExpression | _Each | None]:
    """The names a function body binds: the value of those bound by exactly one plain
    assignment, ``with`` item (``with open(p) as fh``: ``open(p)``) or ``for`` loop (each item of
    its iterable), None for any other (bound twice, a tuple target; a parameter is not here)."""
    seen: dict[str, cst.BaseExpression | _Each | None] = {}

    def bind(name: str, value: cst.BaseExpression | _Each | None) -> None:
        seen[name] = None if name in seen else value

    def visit(node: cst.CSTNode) -> None:
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            bind(node.targets[0].target.value, node.value)
        elif isinstance(node, cst.For) and isinstance(node.target, cst.Name):
            bind(node.target.value, _Each(node.iter))
        elif isinstance(node, cst.With):
            for item in node.items:
                if item.asname is not None and isinstance(item.asname.name, cst.Name):
                    bind(item.asname.name.value, item.item)
                elif item.asname is not None:
                    for sub in _target_names(item.asname.name):
                        seen[sub] = None
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr, cst.Assign)):
            for sub in _names_in(node):
                seen[sub] = None
        for child in node.children:
            visit(child)

    for child in body.children:
        visit(child)
    return seen


def _names_in(node: cst.CSTNode) -> list[str]:
    if isinstance(node, cst.Assign):
        return [n for t in node.targets for n in _target_names(t.target)]
    target = getattr(node, "target", None)
    return _target_names(target) if target is not None else []


def _target_names(node: cst.CSTNode) -> list[str]:
    if isinstance(node, cst.Name):
        return [node.value]
    return [n for child in node.children for n in _target_names(child)]


def _use(node: cst.CSTNode, ctx: _Context
         ) -> tuple[str, str, list[cst.BaseExpression | _Path | None] | None, str] | None:
    """(kind, mode "first"/"last"/"reset"/"site", the path expressions in the order given or None
    when they are not a literal list of paths, how it is spelled)."""
    resolve = ctx.resolve
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
    if isinstance(func, cst.Name) and callee not in _FUNCTIONS:
        # a name bound once to a runner (``run = exec``, in the function or at module level)
        bound = ctx.value_of(func.value)
        if isinstance(bound, (cst.Name, cst.Attribute)) and _qualified(bound, resolve) in _RUNNERS:
            callee = _qualified(bound, resolve)
    if callee == "site.addsitedir":
        # appended to sys.path, then the directories and code of its .pth files (``closure``)
        return "sys", "site", [_argument(node, 0, "sitedir")] if _argument(node, 0, "sitedir") is not None else None, \
            "site.addsitedir"
    if callee in _LOADERS:
        index, keyword = _LOADERS[callee]
        found = _argument(node, index, keyword)
        return "load", "last", [found] if found is not None else None, callee.rsplit(".", 1)[-1]
    if callee in _RUNNERS and node.args:
        if node.args[0].keyword is not None or node.args[0].star:
            return "load", "last", None, callee.rsplit(".", 1)[-1]
        reads = _text_origin(node.args[0].value, ctx, 0)
        if reads is None:
            return "load", "last", None, callee.rsplit(".", 1)[-1]  # text of unknown origin
        if reads:
            return "load", "last", reads, callee.rsplit(".", 1)[-1]
    return None


#: code runners whose first argument is the text they run (``exec(src)``; ``compile(src, ...)``
#: counts only where its code object is not handed to ``exec`` in the same expression)
_RUNNERS = frozenset({"exec", "builtins.exec", "eval", "builtins.eval"})
#: calls handing their argument's items on in some order (a loop over them sees each)
_ORDERINGS = frozenset({"sorted", "builtins.sorted", "list", "builtins.list", "tuple", "builtins.tuple",
                        "reversed", "builtins.reversed", "set", "builtins.set", "iter", "builtins.iter"})
#: text a method returns from the text it is called on (``src.strip()``, ``data.decode()``)
_TEXT_METHODS = frozenset({"strip", "lstrip", "rstrip", "decode", "replace", "expandtabs", "encode"})
#: functions returning (text from) their first argument (``textwrap.dedent(src)``, ``str(src)``)
_TEXT_FUNCTIONS = frozenset({"textwrap.dedent", "str", "builtins.str", "bytes", "builtins.bytes",
                             "compile", "builtins.compile"})
#: where a package's resources are (``importlib.resources.files('shop')``: its directory)
_RESOURCE_ROOTS = frozenset({"importlib.resources.files", "importlib_resources.files"})
#: a package and a resource name: that file (``importlib.resources.path('shop', 'plug.txt')``)
_RESOURCE_PATHS = frozenset({"importlib.resources.path", "importlib_resources.path"})
#: reads of a package's resource: ``pkgutil.get_data('shop', 'plug.txt')`` and the legacy
#: ``importlib.resources`` functions (the resource's text or bytes)
_RESOURCE_READS = frozenset({"pkgutil.get_data", "importlib.resources.read_text", "importlib.resources.read_binary",
                             "importlib.resources.open_text", "importlib.resources.open_binary",
                             "importlib_resources.read_text", "importlib_resources.read_binary"})
_OPENERS = frozenset({"open", "builtins.open", "io.open", "codecs.open"})
#: every function the evaluator knows by name: a chain resolving to anything else is a method
#: call on a value (``fh.read()``, ``here.joinpath('x')``: a local's chain resolves to itself)
_FUNCTIONS = frozenset({*_IDENTITY, *_LOADERS, *_RUNNERS, *_ORDERINGS, *_TEXT_FUNCTIONS, *_RESOURCE_ROOTS,
                        *_RESOURCE_PATHS, *_RESOURCE_READS, *_OPENERS, "os.path.dirname", "os.path.join",
                        "glob.glob", "glob.iglob", "site.addsitedir"})


def _text_origin(expr: cst.BaseExpression | _Each, ctx: _Context, depth: int
                 ) -> list[cst.BaseExpression | _Path | None] | None:
    """Where the text a code runner gets comes from: ``[]`` when the code spells it (string
    literals, f-strings, arithmetic and formatting of those: ``scopes``' rule for code strings
    covers it), the paths of the files read into it (each a path expression, or None when the
    read's path is undecidable), and None when its origin cannot be decided (a parameter, a
    value bound twice, a call the compiler does not know): a warning, never a guess."""
    if depth > 32:
        return None
    again = lambda e: _text_origin(e, ctx, depth + 1)  # noqa: E731
    if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString)):
        return []
    if isinstance(expr, cst.FormattedString):
        return _all([again(p.expression) for p in expr.parts if isinstance(p, cst.FormattedStringExpression)])
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Modulo)):
        return _all([again(expr.left), again(expr.right)])
    if isinstance(expr, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement) for e in expr.elements):
        return _all([again(e.value) for e in expr.elements])  # ``'%s' % (a, b)``
    if isinstance(expr, (cst.Integer, cst.Float)):
        return []
    if isinstance(expr, cst.Name):
        bound = ctx.value_of(expr.value)
        return again(bound) if isinstance(bound, cst.BaseExpression) else None
    if not isinstance(expr, cst.Call):
        return None
    read = _file_read(expr, ctx, depth)
    if read is not None:
        return [read[0]]
    func = expr.func
    positional = [a.value for a in expr.args if a.keyword is None and not a.star]
    callee = _qualified(func, ctx.resolve)
    if isinstance(func, cst.Attribute) and callee not in _FUNCTIONS:
        method, obj = func.attr.value, func.value
        if method in _TEXT_METHODS:
            return again(obj)
        if method == "format":
            return _all([again(obj), *(again(a.value) for a in expr.args if not a.star)])
        if method == "join" and isinstance(obj, cst.SimpleString) and len(positional) == 1:
            return again(positional[0])
        return None
    if callee in _TEXT_FUNCTIONS and positional:
        return again(positional[0])
    return None


def _all(parts: list[list[cst.BaseExpression | _Path | None] | None]) -> list[cst.BaseExpression | _Path | None] | None:
    if any(p is None for p in parts):
        return None
    return [x for p in parts if p is not None for x in p]


def _file_read(expr: cst.Call, ctx: _Context, depth: int) -> tuple[cst.BaseExpression | _Path | None] | None:
    """``(path,)`` when ``expr`` reads a file's text: ``open(p).read()`` (also through a name
    bound to ``open(p)``, a ``with`` target), ``Path(p).read_text()``/``read_bytes()``,
    ``Path(p).open().read()``, ``pkgutil.get_data(pkg, res)``, ``importlib.resources.files(pkg)
    .joinpath(res).read_text()``; the path None when it reads a file the compiler cannot name;
    None when it reads no file."""
    func = expr.func
    callee = _qualified(func, ctx.resolve)
    if callee in _RESOURCE_READS:
        positional = [a.value for a in expr.args if a.keyword is None and not a.star]
        if len(positional) != 2 or len(positional) != len(expr.args):
            return (None,)
        return (_join(_package(positional[0], ctx, depth), [_eval(positional[1], ctx, depth + 1)]),)
    if not isinstance(func, cst.Attribute) or callee in _FUNCTIONS:
        return None
    method, obj = func.attr.value, func.value
    if method == "read":
        opened = obj
        if isinstance(opened, cst.Name):
            bound = ctx.value_of(opened.value)
            opened = bound if isinstance(bound, cst.BaseExpression) else None
        if not isinstance(opened, cst.Call):
            return None
        if _qualified(opened.func, ctx.resolve) in _OPENERS:
            path = _argument(opened, 0, "file") or _argument(opened, 0, "filename")
            return (path,)
        if isinstance(opened.func, cst.Attribute) and opened.func.attr.value == "open" \
                and _qualified(opened.func, ctx.resolve) not in _FUNCTIONS:
            return (opened.func.value,)  # ``Path(p).open().read()``
        return None
    if method in ("read_text", "read_bytes"):
        if isinstance(obj, cst.Call) and _qualified(obj.func, ctx.resolve) in _IDENTITY and len(obj.args) == 1:
            return (obj.args[0].value,)
        return (obj,)
    return None


def _slice_at_start(target: cst.Subscript) -> bool:
    """``x[0:0]`` or ``x[:0]``: a slice assignment that puts its items first."""
    if len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Slice):
        return False
    part = target.slice[0].slice
    lower_ok = part.lower is None or (isinstance(part.lower, cst.Integer) and part.lower.value == "0")
    return lower_ok and isinstance(part.upper, cst.Integer) and part.upper.value == "0"


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
