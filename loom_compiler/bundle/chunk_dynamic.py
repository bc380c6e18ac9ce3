"""A first-party module a chunk's code names by a literal resolves to the chunk's module.

``importlib.import_module("shop.pricing")`` and ``__import__("shop.pricing", fromlist=[...])``
name a module by text, and the text ``shop.pricing`` is the live module's: in a chunk they
imported the live code (or failed where it is not installed) while the fingerprint, which follows
such literals (``scopes``: ``"<dotted>`` references), hashed the bundled one. So a call of one of
these resolvers with a literal naming a module the chunk holds is written as the relative import
that names the same module from the chunk's own package (``__package__`` of a bundled module is
the chunk's private package: ``loom_runtime.chunk_names``):

    importlib.import_module('shop.pricing')           ->  importlib.import_module('..shop.pricing', __package__)
    __import__('shop.pricing', fromlist=['x'])         ->  __import__('shop.pricing', globals(), None, ['x'], 2)

(in ``shop/flows.py``: two levels up from package ``shop`` is the chunk's root, which holds the
top-level packages). Both return what they returned live: the module, or for ``__import__``
without a ``fromlist`` the top-level package, the chunk's ``shop``. The literal stays readable in
the text. A resolver is recognised by what its name is bound to where it is called (an import in
an enclosing function or at module level: ``import importlib as il``, ``from importlib import
import_module as im``), never by spelling alone: a project function called ``import_module`` is
left alone. A literal naming a module the chunk does not hold (a step's module, third-party code)
is left as written: that is live code, as a plain import of it is.

``sys.modules`` is keyed by name the same way: the chunk registers its modules under private keys
(``_loom_chunks.<slug>_<hex>.shop.svc``, ``loom_runtime.chunk_names``), so a literal key naming a
bundled module (``sys.modules["shop.svc"].go = f``, ``sys.modules.get("shop.svc")``, ``.setdefault``,
``.pop``, ``"shop.svc" in sys.modules``; a folded concatenation too) is spelled from the module's
own ``__package__``, the chunk's private package cut at the module's depth:

    sys.modules['shop.svc']                   ->  sys.modules[__package__.rsplit('.', 1)[0] + '.shop.svc']

(in ``shop/ext.py``; ``__package__`` alone in a top-level module). Live, that code changed or read
the module the flow runs (a ``KeyError`` in a fresh interpreter otherwise, or the live module with
the project importable: C12). ``sys`` and ``sys.modules`` are recognised by binding as the
resolvers are (``import sys as s``, ``from sys import modules``); a module-level alias (``mods =
sys.modules``) is not, and reaches the live entries.

A computed key (``sys.modules[name]``, ``sys.modules.get(prefix + kind)``) is left as written,
decided: it looks up the live entry of that name. The text it computes is not known when the
chunk is written (the fingerprint widens such a key to every first-party module it may name,
``scopes``); rewriting it would mean a lookup helper that maps a run-time name to the chunk's
entry when the chunk holds one, a second name resolution at run time for a spelling none of the
measured repositories uses. ``sys.modules[__name__]`` needs nothing: ``__name__`` is a
``ModuleName`` whose hash is the private key's.

Rejected: a ``sys.meta_path`` finder serving ``shop.pricing`` while a chunk runs (``sys.modules``
answers before any finder once the live module is imported, and with two versions of a flow
running in one process no finder can tell which one asks); an ``__import__`` in the chunk's
builtins (``chunk_modules``). Left as they are, and so reaching the live module: a name computed at
run time (the closure widens to every module it can name, but the text is not known).

Package data (breakS's S10): ``pkgutil.get_data("shop", "plug.txt")`` and
``importlib.resources.files("shop")`` (``read_text``, ``open_binary``, ... of the legacy API)
import the package their first argument names to find its files: the live package, its
``__init__`` run. A literal naming a bundled package is written as the chunk's ``sys.modules``
key, as above: the chunk's module answers, through its own spec (``loom_runtime.chunk_resources``:
the live files next to its ``__file__``, read as live code reads them). A third-party package's
name is left as written (its data is live code's, as its import is).

Refused: the other resolvers of ``scopes._RESOLVERS`` given a literal naming a bundled module
(``pkgutil.resolve_name("shop.x:f")``, ``pydoc.locate("shop.x.f")``, ``runpy.run_module("shop.x")``,
``pkgutil.get_loader``, ``importlib.util.find_spec``; breakS's S3). None takes a name relative to
the chunk's package, and as written each imports (or runs, or finds) the live module, code this
version did not pin: the build fails for that flow at the call (``ChunkError``), saying to import
the module with an import statement or ``importlib.import_module`` instead. So are
``importlib.reload`` of a bundled module and ``logging.config`` importing one by text
(``chunk_text_imports``: breakS's S6 and the rest of S3).
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

import libcst as cst

from ..scopes import _has_fromlist, _pattern, dotted_chain, target_names
from .chunk_file import ChunkError
from .chunk_imports import absolute_base, parse_statement
from .chunk_memo import ChunkMemo
from .chunk_text_imports import refuse_text_imports

__all__ = ["DynamicImports", "rewrite_dynamic_imports"]

_IMPORT_MODULE = "importlib.import_module"
_MODULES = "sys.modules"
#: methods of ``sys.modules`` whose first argument is a key (``entry``)
_ENTRY_METHODS = frozenset({"get", "setdefault", "pop", "__getitem__", "__setitem__", "__delitem__", "__contains__"})
_DUNDER_IMPORTS = frozenset({"builtins.__import__", "importlib.__import__"})
#: resolvers a chunk cannot point at its own module (module docstring, "Refused")
_UNREWRITABLE = frozenset({"pkgutil.resolve_name", "pkgutil.get_loader", "pydoc.locate", "runpy.run_module",
                           "importlib.util.find_spec"})
#: readers of a package's data files given the package by name (module docstring, "Package data")
_PACKAGE_DATA = frozenset({"pkgutil.get_data", *(f"importlib.resources.{f}" for f in (
    "files", "read_text", "read_binary", "open_text", "open_binary", "path", "contents", "is_resource"))})


@dataclass(frozen=True, slots=True)
class DynamicImports:
    text: str  # the statement, its literal imports of bundled modules made relative
    modules: frozenset[str]  # the bundled modules they import (they run when imported, as live)


def rewrite_dynamic_imports(text: str, module: str, is_package: bool, bundled: Collection[str],
                            module_bindings: Mapping[str, str | None], *, roots: Collection[str], where: str,
                            memo: ChunkMemo | None = None) -> DynamicImports:
    """``text`` (one module-level statement of ``module``) with every resolver call given a
    literal naming a ``bundled`` module rewritten (module docstring). ``module_bindings``: the
    names the module binds at module level, each to the absolute target of the import binding it,
    or to None when something else binds it; ``roots``: the top-level names of the bundled
    modules (a statement spelling none is returned at once). Unchanged (and without libcst) when
    no call qualifies. A call no rewrite can point at the chunk (``importlib.reload`` of a bundled
    module, ``logging.config`` importing one by text) raises ``ChunkError`` (``chunk_text_imports``)."""
    memo = memo if memo is not None else ChunkMemo()
    refuse_text_imports(text, bundled, module_bindings, where=where, parse=memo.tree)
    if not any(root in text for root in roots) and "__package__" not in text and "__import__" not in text:
        return DynamicImports(text, frozenset())  # no literal can name a bundled module, nor go beyond the top
    literals = memo.get("dynamic-literals", text, lambda: _literals(text, memo.tree))
    depth = len(module.split(".")) if is_package else len(module.split(".")) - 1
    targets = tuple(sorted({t for t in literals if t in bundled or _beyond_top(t, depth)}))
    if not targets:
        return DynamicImports(text, frozenset())
    names = {"__package__", "globals", "importlib", "builtins", "import_module", "__import__", "sys", "modules"}
    key = (text, module, is_package, targets, tuple(sorted((n, module_bindings.get(n, "-")) for n in names)),
           tuple(sorted((a, module_bindings[a]) for a in module_bindings if module_bindings[a] in (
               _IMPORT_MODULE, *_DUNDER_IMPORTS, "importlib", "builtins", "sys", _MODULES))))
    return memo.get("dynamic-rewrite", key,
                    lambda: _rewrite(text, module, is_package, frozenset(targets), module_bindings, where))


def _literals(text: str, parse: Callable[[str], ast.Module] = ast.parse) -> frozenset[str]:
    """Absolute dotted names given as the first argument (or ``name=``) of any call: the
    candidates (whatever the callee is spelled: ``im('shop.pricing')``), found with CPython's
    parser; which calls are resolvers the rewrite decides, by their bindings. ``parse``:
    ``ast.parse`` or a build's shared trees (``ChunkMemo.tree``)."""
    try:
        tree = parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return frozenset()
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and (key := folded_string(node.slice)) is not None:
            out.add(key)  # ``sys.modules["shop.svc"]`` (whatever is subscripted)
        elif isinstance(node, ast.Compare) and (key := folded_string(node.left)) is not None:
            out.add(key)  # ``"shop.svc" in sys.modules``
        if not isinstance(node, ast.Call):
            continue
        first = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "name"), None)
        if isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value[:1] != ".":
            out.add(first.value)
            # ``pkgutil.resolve_name("shop.x:f")``, ``pydoc.locate("shop.x.f")``: the modules it may name
            parts = first.value.partition(":")[0].split(".")
            out.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
            level = node.args[4] if len(node.args) > 4 else next((k.value for k in node.keywords if k.arg == "level"), None)
            if isinstance(level, ast.Constant) and type(level.value) is int and level.value > 0:
                out.add("." * level.value + first.value)  # ``__import__("x", globals(), None, [], 3)``
        elif isinstance(first, ast.Constant) and isinstance(first.value, str) and (
                absolute := _resolved(first.value, node)) is not None:
            out.add(absolute)  # ``import_module(".x", "shop")``: a relative name with a literal package
        elif isinstance(first, ast.Constant) and isinstance(first.value, str) and len(node.args) == 2 \
                and isinstance(node.args[1], ast.Name) and node.args[1].id == "__package__":
            out.add(first.value)  # ``import_module("..x", __package__)``: relative to the module
    return frozenset(out)


def _beyond_top(name: str, depth: int) -> bool:
    """Whether a relative name (``..x``) goes beyond the top-level package from a module whose
    package is ``depth`` names deep: live, its import raises ``ImportError`` ("attempted relative
    import beyond top-level package", breaker5's F4)."""
    dots = len(name) - len(name.lstrip("."))
    return dots > depth >= 1


def _resolved(name: str, call: ast.Call) -> str | None:
    """The absolute name ``import_module(name, package)`` imports when both are literals."""
    package = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "package"), None)
    if not (isinstance(package, ast.Constant) and isinstance(package.value, str) and package.value):
        return None
    try:
        return importlib.util.resolve_name(name, package.value)
    except (ImportError, ValueError):
        return None


def _string(node: cst.BaseExpression) -> str | None:
    """The value of a plain string literal node, else None."""
    if not isinstance(node, cst.SimpleString):
        return None
    try:
        value = ast.literal_eval(node.value)
    except (SyntaxError, ValueError):
        return None
    return value if isinstance(value, str) else None


def folded_string(node: ast.expr) -> str | None:
    """The value of a string literal or a concatenation of literals (``"shop." + "svc"``)."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = folded_string(node.left), folded_string(node.right)
        return left + right if left is not None and right is not None else None
    return None


def _rewrite(text: str, module: str, is_package: bool, targets: frozenset[str],
             module_bindings: Mapping[str, str | None], where: str) -> DynamicImports:
    rewriter = _Rewriter(module, is_package, targets, module_bindings)
    new = parse_statement(text, where=where).visit(rewriter)
    if rewriter.refused:
        _refuse(text, where, *rewriter.refused[0])
    return DynamicImports(new.code if rewriter.done or rewriter.beyond else text, frozenset(rewriter.done))


def _refuse(text: str, where: str, resolver: str, value: str) -> None:
    """Raise ``ChunkError`` at the call handing ``resolver`` the literal ``value`` (``where``: the
    statement's ``path:line``)."""
    path, _, first = where.rpartition(":")
    line, column = int(first) if first.isdigit() else 0, 0
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        tree = None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and any(isinstance(a, ast.Constant) and a.value == value
                                              for a in (*node.args[:1], *(k.value for k in node.keywords))):
            line, column = line + node.lineno - 1, node.col_offset + 1
            break
    raise ChunkError(
        f"`{resolver}({value!r})` names a bundled module by text, which a chunk cannot point at its own "
        "module: as written it would import the live module, code this version did not pin. Import the module "
        "with an import statement (or `importlib.import_module`) and read the attribute from it",
        path=path or where, line=line, column=column)


@dataclass(slots=True)
class _Scope:
    binds: dict[str, str | None]  # name -> import target, or None (bound otherwise, or both ways)
    globals: frozenset[str]
    is_class: bool


class _Rewriter(cst.CSTTransformer):
    def __init__(self, module: str, is_package: bool, targets: frozenset[str],
                 module_bindings: Mapping[str, str | None]) -> None:
        super().__init__()
        self.module = module
        self.is_package = is_package
        self.level = len(module.split(".")) if is_package else len(module.split(".")) - 1
        self.targets = targets
        self.module_bindings = module_bindings
        self.scopes: list[_Scope] = []
        self.done: set[str] = set()
        self.beyond = False  # a relative name beyond the top-level package was written higher (F4)
        self.refused: list[tuple[str, str]] = []  # (resolver, literal) of each ``_UNREWRITABLE`` call

    # -- scopes --------------------------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scopes.append(_bindings(node.params, node.body, self.module, self.is_package))

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        self.scopes.pop()
        return updated

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.scopes.append(_bindings(node.params, None, self.module, self.is_package))

    def leave_Lambda(self, original: cst.Lambda, updated: cst.Lambda) -> cst.Lambda:
        self.scopes.pop()
        return updated

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        scope = _bindings(None, node.body, self.module, self.is_package)
        scope.is_class = True
        self.scopes.append(scope)

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        self.scopes.pop()
        return updated

    def _resolve(self, name: str) -> str | None:
        """What ``name`` is bound to where the call stands: an import target, or None."""
        for i, scope in enumerate(reversed(self.scopes)):
            if scope.is_class and i > 0:
                continue  # a class body's names are not visible in the functions inside it
            if name in scope.globals:
                break
            if name in scope.binds:
                return scope.binds[name]
        if name in self.module_bindings:
            return self.module_bindings[name]
        return f"builtins.{name}"  # a builtin (``__import__``), or a name nothing binds

    # -- calls ---------------------------------------------------------------------------------
    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        chain = dotted_chain(updated.func)
        if chain is None:
            return updated
        root, _, rest = chain.partition(".")
        target = self._resolve(root)
        if target is None:
            return updated
        qualified = target + ("." + rest if rest else "")
        if qualified == _IMPORT_MODULE:
            return self._import_module(updated)
        if qualified in _DUNDER_IMPORTS:
            return self._dunder_import(updated, qualified)
        if qualified in _UNREWRITABLE:
            self._unrewritable(updated, qualified)
            return updated
        if qualified in _PACKAGE_DATA and updated.args and updated.args[0].keyword is None and not updated.args[0].star:
            key = self._entry(updated.args[0].value)  # the chunk's package answers (``chunk_resources``)
            if key is not None:
                return updated.with_changes(args=[updated.args[0].with_changes(value=key), *updated.args[1:]])
        method = qualified.rpartition(".")[2]
        if method in _ENTRY_METHODS and qualified == f"{_MODULES}.{method}" and updated.args \
                and updated.args[0].keyword is None and not updated.args[0].star:
            key = self._entry(updated.args[0].value)
            if key is not None:
                return updated.with_changes(args=[updated.args[0].with_changes(value=key), *updated.args[1:]])
        return updated

    # -- sys.modules keys ----------------------------------------------------------------------
    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        """``sys.modules["shop.svc"]`` (``sys`` and ``sys.modules`` by binding: ``import sys as s``,
        ``from sys import modules``): the key of the chunk's module."""
        if len(updated.slice) != 1 or not isinstance(updated.slice[0].slice, cst.Index) or not self._is_modules(updated.value):
            return updated
        key = self._entry(updated.slice[0].slice.value)
        if key is None:
            return updated
        return updated.with_changes(slice=[updated.slice[0].with_changes(slice=cst.Index(key))])

    def leave_Comparison(self, original: cst.Comparison, updated: cst.Comparison) -> cst.BaseExpression:
        """``"shop.svc" in sys.modules``: asked of the chunk's module, as the lookups are."""
        if len(updated.comparisons) != 1 or not isinstance(updated.comparisons[0].operator, (cst.In, cst.NotIn)) \
                or not self._is_modules(updated.comparisons[0].comparator):
            return updated
        key = self._entry(updated.left)
        return updated if key is None else updated.with_changes(left=key)

    def _is_modules(self, node: cst.BaseExpression) -> bool:
        chain = dotted_chain(node)
        if chain is None:
            return False
        root, _, rest = chain.partition(".")
        target = self._resolve(root)
        return target is not None and target + ("." + rest if rest else "") == _MODULES

    def _entry(self, key: cst.BaseExpression) -> cst.BaseExpression | None:
        """The chunk's ``sys.modules`` key of the bundled module a literal names, spelled from the
        module's own ``__package__`` (the chunk's private package, ``loom_runtime.chunk_names``):
        ``__package__.rsplit(".", 1)[0] + ".shop.svc"`` in ``shop/ext.py``; None: no literal
        naming a bundled module, or ``__package__`` rebound where the key stands."""
        value, exact = _pattern(key)  # a folded concatenation too, as the fingerprint reads it
        if not exact or value not in self.targets or not self._module_global("__package__"):
            return None
        self.done.add(value)
        root = "__package__" if self.level == 0 else f"__package__.rsplit('.', {self.level})[0]"
        return cst.parse_expression(f"{root} + {'.' + value!r}")

    def _module_global(self, name: str) -> bool:
        """Whether ``name`` at the call is the module's own global (not rebound anywhere)."""
        return self._resolve(name) == f"builtins.{name}" if name != "__package__" else (
            all(name not in s.binds for s in self.scopes) and name not in self.module_bindings)

    def _relative_literal(self, call: cst.Call) -> tuple[cst.Arg, str] | None:
        """``import_module(".x", "shop")``: a relative literal name with a literal package (live, it
        imports ``shop.x``; as written in a chunk, the live module too: breaker4's E8)."""
        if len(call.args) != 2 or any(a.keyword is not None or a.star for a in call.args):
            return None
        name, package = (_string(a.value) for a in call.args)
        if name is None or package is None or name[:1] != "." or not package:
            return None
        try:
            absolute = importlib.util.resolve_name(name, package)
        except (ImportError, ValueError):
            return None
        return (call.args[0], absolute) if absolute in self.targets else None

    def _literal(self, call: cst.Call) -> tuple[cst.Arg, str] | None:
        if call.args and call.args[0].keyword is None and call.args[0].star == "":
            first: cst.Arg | None = call.args[0]
        else:
            first = next((a for a in call.args if a.keyword is not None and a.keyword.value == "name"), None)
        if first is None or not isinstance(first.value, cst.SimpleString):
            return None
        try:
            value = ast.literal_eval(first.value.value)
        except (SyntaxError, ValueError):
            return None
        if not isinstance(value, str) or value not in self.targets:
            return None
        return first, value

    def _beyond(self, name: cst.BaseExpression) -> cst.SimpleString | None:
        """A relative name beyond the top-level package (``_beyond_top``), written two levels
        higher: from the chunk's private package (``_loom_chunks.<slug>.shop``, two names deeper
        than ``shop``) it then fails as live does, with the same error, instead of naming a
        module of ``_loom_chunks`` (F4)."""
        value = _string(name)
        if value is None or not _beyond_top(value, self.level) or not self._module_global("__package__"):
            return None
        self.beyond = True
        return cst.SimpleString(repr(".." + value))

    def _unrewritable(self, call: cst.Call, qualified: str) -> None:
        """Note a call of a resolver the chunk cannot point at its own module given a literal that
        names a bundled module (its first argument or any keyword: ``path=``, ``mod_name=``)."""
        for arg in call.args:
            if arg.star or (arg.keyword is None and arg is not call.args[0]):
                continue
            value = _string(arg.value)
            if value is None:
                continue
            parts = value.partition(":")[0].split(".")
            if any(".".join(parts[:i]) in self.targets for i in range(1, len(parts) + 1)):
                self.refused.append((qualified, value))
                return

    def _import_module(self, call: cst.Call) -> cst.Call:
        if len(call.args) == 2 and all(a.keyword is None and not a.star for a in call.args) \
                and isinstance(call.args[1].value, cst.Name) and call.args[1].value.value == "__package__":
            beyond = self._beyond(call.args[0].value)
            if beyond is not None:
                return call.with_changes(args=[call.args[0].with_changes(value=beyond), *call.args[1:]])
        found = self._literal(call) or self._relative_literal(call)
        if found is None or any(a.star for a in call.args) or len(call.args) > 2 or not self._module_global("__package__"):
            return call
        _, name = found
        relative = "." * (self.level + 1) + name
        self.done.add(name)
        return call.with_changes(args=[cst.Arg(cst.SimpleString(repr(relative)), comma=_comma()),
                                       cst.Arg(cst.Name("__package__"))])

    def _dunder_import(self, call: cst.Call, qualified: str) -> cst.Call:
        slots = ["name", "globals", "locals", "fromlist", "level"]
        given: dict[str, cst.BaseExpression] = {}
        for i, arg in enumerate(call.args):
            key = arg.keyword.value if arg.keyword is not None else slots[i] if i < len(slots) else None
            if key not in slots or key in given or arg.star:
                return call
            given[key] = arg.value
        level = given.get("level")
        name_value = _string(given["name"]) if "name" in given else None
        if isinstance(level, cst.Integer) and name_value is not None and self.level >= 1 \
                and level.evaluated_value > self.level and _plain(given.get("globals", cst.Name("None"))) \
                and self._module_global("globals") and self._module_global("__package__"):
            # beyond the top-level package (F4): two levels more fail from the chunk's package as live
            higher = cst.Integer(str(level.evaluated_value + 2))
            self.beyond = True
            return call.with_changes(args=[a.with_changes(value=higher) if a.value is level else a for a in call.args])
        found = self._literal(call)
        if found is None:
            return call
        name_arg, name = found
        if level is not None and not (isinstance(level, cst.Integer) and level.evaluated_value == 0):
            return call  # relative already: resolves against the chunk's own package
        namespace = given.get("globals")
        if namespace is not None and not _plain(namespace):
            return call  # a namespace computed by a call: evaluating it may matter
        # at level 0 the namespace is not read (it names the package of a relative import only);
        # the relative form needs this module's
        if not self._module_global("globals"):
            return call
        fromlist = given.get("fromlist")
        if qualified == "importlib.__import__" and not _has_fromlist(call.args):
            # without a non-empty fromlist importlib's __import__ cuts the top package from the module's
            # __name__ text, the original's, and returns the live package; the builtin (same API)
            # cuts the name it resolved
            if not self._module_global("__import__"):
                return call
            call = call.with_changes(func=cst.Name("__import__"))
        args = [name_arg.value, cst.parse_expression("globals()"), given.get("locals", cst.Name("None")),
                fromlist if fromlist is not None else cst.Tuple([]), cst.Integer(str(self.level + 1))]
        self.done.add(name)
        return call.with_changes(args=[cst.Arg(a, comma=_comma() if i < len(args) - 1 else cst.MaybeSentinel.DEFAULT)
                                       for i, a in enumerate(args)])


def _comma() -> cst.Comma:
    return cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def _plain(node: cst.BaseExpression) -> bool:
    """A namespace argument whose evaluation does nothing: a name, a dict display of constants,
    ``globals()``/``locals()``/``vars()``."""
    if isinstance(node, (cst.Name, cst.SimpleString, cst.Integer)):
        return True
    if isinstance(node, cst.Dict):
        return all(isinstance(e, cst.DictElement) and _plain(e.key) and _plain(e.value) for e in node.elements)
    return (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and not node.args
            and node.func.value in ("globals", "locals", "vars"))


def _bindings(params: cst.Parameters | None, body: cst.BaseSuite | None, module: str, is_package: bool) -> _Scope:
    """What a function (or class) body binds, not counting nested functions' and classes' bodies."""
    collector = _Binder(module, is_package)
    if params is not None:
        params.visit(collector)
    if body is not None:
        body.visit(collector)
    return _Scope(collector.binds, frozenset(collector.globals), False)


class _Binder(cst.CSTVisitor):
    def __init__(self, module: str, is_package: bool) -> None:
        super().__init__()
        self.module = module
        self.is_package = is_package
        self.binds: dict[str, str | None] = {}
        self.globals: set[str] = set()

    def _bind(self, name: str, target: str | None) -> None:
        if name in self.binds and self.binds[name] != target:
            target = None  # bound two ways: not known to be the resolver
        self.binds[name] = target

    def visit_Param(self, node: cst.Param) -> bool:
        self._bind(node.name.value, None)
        return False  # defaults and annotations are evaluated outside

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self._bind(node.name.value, None)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self._bind(node.name.value, None)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Global(self, node: cst.Global) -> None:
        self.globals.update(n.name.value for n in node.names)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            dotted = dotted_chain(alias.name) or ""
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self._bind(alias.asname.name.value, dotted)
            else:
                self._bind(dotted.split(".")[0], dotted.split(".")[0])

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        base = absolute_base(self.module, self.is_package, node)
        for alias in node.names:
            name = dotted_chain(alias.name) or ""
            local = alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) else name
            self._bind(local, f"{base}.{name}" if base else None)

    def _targets(self, target: cst.CSTNode | None) -> None:
        for name in target_names(target):
            self._bind(name, None)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._targets(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._targets(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._targets(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._targets(node.asname.name)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._targets(node.name.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._targets(node.target)
