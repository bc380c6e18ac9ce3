"""What a chunk cannot bundle: code run from files by path (checked when served) and reads it cannot reproduce.

A chunk must run exactly what the live modules ran (DESIGN §7). Two things the fingerprint covers
(issue 12's L2 and E10) are not statements a chunk can bundle:

* **Code loaded by path** (``static_paths``: ``exec(open(os.path.join(os.path.dirname(__file__),
  'plug.txt')).read())``, ``runpy.run_path``, ``spec_from_file_location``, ...). The path is
  computed from ``__file__``, which in a chunk is the live module's file (``loom_runtime.
  chunk_modules``: data files next to it are read as live code reads them), so the chunk runs the
  file as it is when the execution is served. The fingerprint hashes that file's bytes (its
  ``<path>#file`` member; a glob's list of matches is the member ``<dir>//<pattern>#file``, G9);
  ``code_files`` lists them with their digests for the chunk's header
  (``# file:`` lines, ``loom_runtime.chunk_layout``), and the loader refuses the chunk when a
  file no longer holds those bytes: an old execution then fails with an error naming the file,
  never runs other code than it started on. A file whose bytes the build could not read is a
  build error of the flow (nothing to pin).
* **A submodule read as its package's attribute that no module that runs imports**
  (``closure``'s ``submodule-unloaded`` warning: ``import shop.a`` then ``shop.b.f()``): live
  the attribute exists only once some other import loaded ``shop.b``, a fact of the serving
  process; a chunk's packages hold every bundled submodule from the start. The build fails for
  that flow (``refuse_unreproducible``) with the read's file, line and column and what to do.

* **Code given as a string that imports first-party code** (``exec("import shop.x")``,
  ``eval``/``compile`` of such a literal, in a bundled statement: breaker6's G8). The chunk
  rewrites every first-party import to its own module (``chunk_imports``), but not one inside a
  string: run in the chunk, it would import the live module, code the fingerprint did not pin
  for this version. The build fails for that flow (``refuse_code_strings``) with the call's file,
  line and column and what to do (write the import as a statement).
* **Code run at load from text the build cannot read** (breaker7's K4: ``exec('import shop.' +
  'x')``, ``exec(CODE)``, an f-string, ``' '.join(...)``, ``%``, ``eval("__import__('shop.x')")``,
  ``exec`` read as a value, the builtins module read dynamically, an import by a computed name, an
  importer read as a value, ``f = importlib.import_module``, ``getattr(importlib, "import_module")``,
  ``__builtins__["__import__"]``: breakS's S15):
  the text may import first-party code the chunk cannot rewrite, so the build fails for that flow
  (``_refuse_computed_text``) with the call's file, line and column. What runs at load is read by
  name over the chunk's statements: a statement outside its defs' and lambdas' bodies, and the
  body of a def (a method of a class) whose name such code reads (an over-approximation: a def
  only registered for later counts too). Refusal, not evaluation of constant text: safe by
  default. Held: a literal free of first-party imports, computed text in a def no load-time code
  reads. Open: such a statement the closure does not bundle is not seen (the chunk skips it).

Rejected: bundling a file's text and rewriting the loading call (the call can be any of several
loaders, through helpers, with the path computed anywhere: a rewrite that misses one spelling runs
the live file again); refusing to build any flow that loads code by path (the code is served
right as long as the file is unchanged, which is what the check establishes); and leaving such a
submodule out of its package in the chunk (live, another import usually did load it: the chunk
would then fail where live code worked).
"""

from __future__ import annotations

import ast
import builtins
import warnings
from collections.abc import Callable, Iterable

from .. import deep_stack
from ..runner_names import CODE_TAKERS, IMPORTERS, RUNNER_FUNCTIONS, RUNNER_OBJECTS
from ..model import FlowFingerprint
from .chunk_file import ChunkError
from .chunk_memo import ChunkMemo

__all__ = ["ast_chain", "code_files", "refuse_code_strings", "refuse_unreproducible"]

#: builtins that run a string as code
_CODE_RUNNERS = frozenset({"exec", "eval", "compile"})


def refuse_unreproducible(fp: FlowFingerprint) -> None:
    """Raise ``ChunkError`` when ``fp``'s code reads a submodule a chunk could not hold as live
    code does (above)."""
    for w in fp.warnings:
        if w.code == "submodule-unloaded":
            raise ChunkError(f"flow `{fp.flow_id}`: {w.message}; a chunk cannot reproduce a read that depends on "
                             "which other imports ran first", path=w.path, line=w.line, column=w.column)


def refuse_code_strings(fp: FlowFingerprint, statements: Iterable[tuple[str, str, int]],
                        first_party: Callable[[str], bool], memo: ChunkMemo) -> None:
    """Raise ``ChunkError`` when a bundled statement (``(text, path, first line)``) hands
    ``exec``/``eval``/``compile`` a literal string that imports a first-party module, or imports
    relatively, or when code the chunk runs at load runs text the build cannot read (above)."""
    statements = list(statements)
    for text, path, line in statements:
        if "import" not in text or not any(name in text for name in _CODE_RUNNERS):
            continue
        for row, column, module, spelled in memo.get("code-strings", text,
                                                     lambda text=text: _string_imports(text, memo.tree)):
            if module.startswith(".") or first_party(module):
                raise ChunkError(
                    f"flow `{fp.flow_id}`: a string run as code imports first-party code (`{spelled}`); a chunk cannot "
                    "rewrite an import inside a string to its own module, so it would import the live module, code "
                    f"this version did not pin. Write `{spelled}` as a statement and run the rest",
                    path=path, line=line + row - 1, column=column + 1)
    _refuse_computed_text(fp, statements, first_party, memo)


def _string_imports(text: str, parse: Callable[[str], ast.Module] = ast.parse) -> list[tuple[int, int, str, str]]:
    """``(line in text, column, module, the import as written)`` of each import in a literal
    string a code runner of ``text`` is given (a relative module keeps its dots). ``parse``:
    ``ast.parse`` or a build's shared trees (``ChunkMemo.tree``)."""
    try:
        tree = parse(text)
    except SyntaxError:
        return []
    out: list[tuple[int, int, str, str]] = []
    if not tree.body:
        return out
    # the text may open with comment lines: rows count from the statement proper (its decorator)
    first = tree.body[0]
    top = min([first.lineno, *(d.lineno for d in getattr(first, "decorator_list", ()))]) - 1
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _CODE_RUNNERS
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # about the user's data
                code = ast.parse(node.args[0].value)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            continue
        for inner in ast.walk(code):
            if isinstance(inner, ast.Import):
                out += [(node.lineno - top, node.col_offset, a.name, ast.unparse(inner)) for a in inner.names]
            elif isinstance(inner, ast.ImportFrom):
                out.append((node.lineno - top, node.col_offset, "." * inner.level + (inner.module or ""), ast.unparse(inner)))
    return out


#: calls that import a module named by their first argument
_IMPORTERS = frozenset({"__import__", "import_module"})
#: why an importer read as a value is refused (breakS's S15)
_IMPORTER_VALUE = ("what it is handed to imports a module named by text, which a chunk cannot rewrite to its own; "
                   "call `importlib.import_module` with the name directly")
#: the names through which the builtins module is read
_BUILTINS = frozenset({"builtins", "__builtins__"})

#: ``(row in text, column, what)`` of code run at load that runs text the build cannot read
_Hit = tuple[int, int, str]


def _refuse_computed_text(fp: FlowFingerprint, statements: list[tuple[str, str, int]],
                          first_party: Callable[[str], bool], memo: ChunkMemo) -> None:
    """Raise ``ChunkError`` when code the chunk runs at load hands ``exec``/``eval``/``compile``
    text that is not a literal string (breaker7's K4: ``exec('import shop.' + 'x')``, a constant,
    an f-string), reads one of them as a value (``R = {'x': exec}``), reads the builtins module
    dynamically, or imports a module by a computed name or through a string (``eval("__import__(
    'shop.x')")``): such text may import first-party code, which the chunk cannot rewrite to its
    own module. What runs at load: each statement outside the bodies of its defs and lambdas, and
    the body of each def (each method of a class) whose name code run at load reads, by name,
    over the whole chunk (a name-based over-approximation: a def registered for later counts)."""
    aliases = _runner_aliases(statements, memo)
    shapes = []
    for text, path, line in statements:
        # what the module's imports bind a runner's module or name to (``from timeit import Timer``)
        mine = tuple(sorted((k, v) for k, v in aliases.get(path, {}).items() if k in text))
        key = text if not mine else text + "\0" + repr(mine)
        shapes.append((memo.get("computed-text", key, lambda text=text, mine=mine: deep_stack.call(
            _deep_shape, text, first_party, dict(mine), memo.tree)), path, line))
    reached: set[str] = set()
    for shape, _, _ in shapes:
        reached |= shape[1]
    defs: dict[str, list[tuple[list[_Hit], set[str], str, int]]] = {}
    for shape, path, line in shapes:
        for name, hits, names in shape[2]:
            defs.setdefault(name, []).append((hits, names, path, line))
    todo = list(reached & defs.keys())
    while todo:
        for _, names, _, _ in defs[todo.pop()]:
            new = (names - reached) & defs.keys()
            reached |= names
            todo += new
    found = [(path, line, hit) for shape, path, line in shapes for hit in shape[0]]
    found += [(path, line, hit) for name in sorted(reached & defs.keys()) for hits, _, path, line in defs[name]
              for hit in hits]
    if found:
        path, line, (row, column, what) = min(found, key=lambda f: (f[0], f[1] + f[2][0], f[2][1]))
        raise ChunkError(
            f"flow `{fp.flow_id}`: code run at load {what}; text the build cannot read may import first-party "
            "code, which a chunk cannot rewrite to its own module (it would import the live module, code this "
            "version did not pin). Write the code as statements (an import as an import statement), or run the "
            "text from a function nothing calls at load", path=path, line=line + row - 1, column=column + 1)


def _runner_aliases(statements: list[tuple[str, str, int]], memo: ChunkMemo) -> dict[str, dict[str, str]]:
    """path -> {name or dotted prefix: what it stands for} of the names the imports of the
    chunk's statements bind to the standard library's runners of text or their modules (``import
    timeit as t``, ``from code import InteractiveConsole``), also through another bundled module
    that binds them (``from shop.tools import timeit``, ``tools.code``: ``closure._runner_through``'s
    case), over each module's statements holding an import."""
    out: dict[str, dict[str, str]] = {}
    others: list[tuple[str, str, str, str | None]] = []  # (path, local, module, name) of other imports
    for text, path, _ in statements:
        if "import" not in text:
            continue
        runners, rest = memo.get("runner-imports", text, lambda text=text: _imports_of(text, memo.tree))
        for local, target in runners:
            out.setdefault(path, {})[local] = target
        others += [(path, *r) for r in rest]
    if not out or not others:
        return out
    def path_of(dotted: str) -> str | None:
        base = dotted.replace(".", "/")
        return next((p for p in (base + ".py", base + "/__init__.py") if p in out), None)
    for _ in range(2):  # a re-export of a re-export
        for path, local, module, name in others:
            source = path_of(module)
            if name is not None and source is not None and name in out[source]:
                out.setdefault(path, {})[local] = out[source][name]
            whole = path_of(f"{module}.{name}" if name else module)
            if whole is not None:  # a module bound whole: its runner names through it
                for n, target in list(out[whole].items()):
                    out.setdefault(path, {})[f"{local}.{n}"] = target
    return out


def _imports_of(text: str, parse: Callable[[str], ast.Module] = ast.parse,
                ) -> tuple[list[tuple[str, str]], list[tuple[str, str, str | None]]]:
    """``(local, runner or runner module)`` and ``(local, module, name)`` of the other absolute
    imports in a statement's text (``_runner_aliases``); ``parse``: ``ast.parse`` or a build's
    shared trees (``ChunkMemo.tree``)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return [], []
    runners: list[tuple[str, str]] = []
    rest: list[tuple[str, str, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if (a.name + ".").startswith(_RUNNER_MODULES):
                    runners.append((a.asname or a.name, a.name))
                elif a.asname:
                    rest.append((a.asname, a.name, None))
        elif isinstance(node, ast.ImportFrom) and not node.level:
            for a in node.names:
                if (node.module or "") + "." in _RUNNER_MODULES:
                    runners.append((a.asname or a.name, f"{node.module}.{a.name}"))
                elif a.name != "*":
                    rest.append((a.asname or a.name, node.module or "", a.name))
    return runners, rest


def _deep_shape(text: str, first_party: Callable[[str], bool], aliases: dict[str, str] | None = None,
                parse: Callable[[str], ast.Module] = ast.parse,
                ) -> tuple[list[_Hit], set[str], list[tuple[str, list[_Hit], set[str]]]]:
    """``_shape`` with the stack and recursion limit the parser has (``deep_stack``): the walk is
    recursive, and a statement libcst parsed (deeply nested code) must not fail it."""
    with deep_stack.recursion_limit(deep_stack.RECURSION_LIMIT):
        return _shape(text, first_party, aliases or {}, parse)


def _shape(text: str, first_party: Callable[[str], bool], aliases: dict[str, str],
           parse: Callable[[str], ast.Module] = ast.parse,
           ) -> tuple[list[_Hit], set[str], list[tuple[str, list[_Hit], set[str]]]]:
    """``(hits at load, names read at load, (def name, hits in its body, names its body reads) of
    each def)`` of a statement ``text``; ``parse``: ``ast.parse`` or a build's shared trees
    (``ChunkMemo.tree``, which the walk only reads)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return [], set(), []
    if not tree.body:
        return [], set(), []
    first = tree.body[0]
    top = min([first.lineno, *(d.lineno for d in getattr(first, "decorator_list", ()))]) - 1
    load = _Reads(top, first_party, aliases)
    bodies: list[tuple[str, ast.AST]] = []
    load.bodies = bodies
    load.visit(tree)
    out = []
    for name, node in bodies:
        body = _Reads(top, first_party, aliases)
        for child in (node.body if isinstance(node.body, list) else [node.body]):
            body.visit(child)
        out.append((name, body.hits, body.names))
    # a class read at load: any of its methods may run (``K()`` runs ``__init__``)
    out += [(name, [], methods) for name, methods in load.classes]
    return load.hits, load.names, out


class _Reads(ast.NodeVisitor):
    """The hits and names read of the code a visit runs; a def's (a lambda's) body goes to
    ``bodies`` when that list is given (the load-time pass), else is visited too (a body pass:
    what a def runs when called, nested defs included)."""

    def __init__(self, top: int, first_party: Callable[[str], bool], aliases: dict[str, str]) -> None:
        self.top, self.first_party, self.aliases = top, first_party, aliases
        self.hits: list[_Hit] = []
        self.names: set[str] = set()
        self.bodies: list[tuple[str, ast.AST]] | None = None
        self.classes: list[tuple[str, set[str]]] = []
        #: callees of direct calls of the standard library's runners of text (judged by ``visit_Call``)
        self.direct: set[int] = set()

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.classes.append((node.name, {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}))
        self.generic_visit(node)

    def _hit(self, node: ast.AST, what: str) -> None:
        self.hits.append((node.lineno - self.top, node.col_offset, what))

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        if self.bodies is None:
            self.generic_visit(node)
            return
        for part in (*getattr(node, "decorator_list", ()), node.args, getattr(node, "returns", None)):
            if part is not None:
                self.visit(part)
        self.bodies.append((getattr(node, "name", "<lambda>"), node))

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_Lambda = visit_FunctionDef

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.names.add(node.id)
            if node.id in _CODE_RUNNERS:
                self._hit(node, f"reads `{node.id}` as a value (what it is handed to runs text the build cannot read)")
            elif node.id in _BUILTINS and id(node) not in self.direct:
                self._hit(node, f"reads the builtins namespace as a value (`{node.id}`)")
            elif node.id in self.aliases and id(node) not in self.direct and _stdlib_runner(self.aliases[node.id]):
                self._hit(node, f"reaches `{self.aliases[node.id]}`, which runs text the build cannot read")
            elif node.id == "__import__" or self.aliases.get(node.id) in IMPORTERS:
                self._hit(node, f"reads `{node.id}` as a value ({_IMPORTER_VALUE})")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.names.add(node.attr)
        chain = ast_chain(node, self.aliases)
        if chain is not None and id(node) not in self.direct and _stdlib_runner(chain):
            # ``code.InteractiveConsole()``, ``timeit.timeit`` read as a value (``code_runners``)
            self._hit(node, f"reaches `{chain}`, which runs text the build cannot read")
            return
        if chain is not None and id(node) not in self.direct and (chain in IMPORTERS or chain == "builtins.__import__"):
            # ``f = importlib.import_module`` (breakS's S15; a direct call is ``chunk_dynamic``'s)
            self._hit(node, f"reads `{_short(node)}` as a value ({_IMPORTER_VALUE})")
            return
        if isinstance(node.value, ast.Name) and node.value.id in _BUILTINS:
            if node.attr in _CODE_RUNNERS or node.attr == "__dict__" or node.value.id == "__builtins__":
                self._hit(node, f"reads `{ast.unparse(node)}` as a value")
            return  # ``builtins.len``: a builtin read by its name
        if node.attr in _NAMESPACE_ATTRIBUTES or node.attr == "__self__" and isinstance(node.value, ast.Name) \
                and node.value.id in _BUILTIN_NAMES:
            # a frame's ``f_builtins``; a builtin function's module (``len.__self__``), not a bound method's object
            self._hit(node, f"reaches the builtins namespace (`{_short(node)}`)")
            return
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        # sys.modules['builtins']
        if isinstance(node.slice, ast.Constant) and node.slice.value in _BUILTINS:
            self._hit(node, f"reads the builtins module dynamically (`{ast.unparse(node)}`)")
        elif isinstance(node.value, ast.Name) and node.value.id in _BUILTINS and isinstance(node.slice, ast.Constant) \
                and node.slice.value == "__import__":
            self._hit(node, f"reads `{_short(node)}` as a value ({_IMPORTER_VALUE})")  # breakS's S15
        elif isinstance(node.value, ast.Name) and node.value.id in _BUILTINS and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, str) and node.slice.value not in _CODE_RUNNERS | {"__dict__"}:
            self.visit(node.slice)  # ``__builtins__["open"]``: a builtin read by its name, as ``builtins.open``
            return
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        # ``__builtins__ = {**__builtins__, "oct": f}``: the builtins rebound to a copy of
        # themselves (breakS S2), read by name as before (``code_runners``)
        if [t.id for t in node.targets if isinstance(t, ast.Name)] == ["__builtins__"] and isinstance(node.value, ast.Dict):
            self.direct.update(id(v) for k, v in zip(node.value.keys, node.value.values)
                               if k is None and isinstance(v, ast.Name) and v.id == "__builtins__")
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        # ``type(f) is FunctionType``: a runner's class compared, nothing called (``code_runners``)
        self.direct.update(id(o) for o in (node.left, *node.comparators))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("isinstance", "issubclass") and len(node.args) == 2:
            tested = node.args[1]  # ``isinstance(f, (FunctionType, type))``: compared, not called
            self.direct.update(id(e) for e in (tested.elts if isinstance(tested, ast.Tuple) else [tested]))
        name = func.id if isinstance(func, ast.Name) else (
            func.attr if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            and func.value.id in _BUILTINS | {"importlib"} else None)
        first = node.args[0] if node.args else None
        if name in _CODE_RUNNERS:
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                self._text(node, first.value)
            elif not (isinstance(first, ast.Call) and isinstance(first.func, ast.Name) and first.func.id == "compile"):
                self._hit(node, f"runs text the build cannot read (`{name}({_short(first)})`)")
        elif name in _IMPORTERS:
            self.direct.add(id(func))
            if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                self._hit(node, f"imports a module by a computed name (`{name}({_short(first)})`)")
        elif name in ("getattr", "vars") and isinstance(first, ast.Name) and first.id in _BUILTINS:
            self._hit(node, f"reads the builtins module dynamically (`{_short(node)}`)")
        elif name == "getattr" and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                and isinstance(key := node.args[1].value, str) and (base := ast_chain(first, self.aliases)) is not None \
                and (f"{base}.{key}" in IMPORTERS or _stdlib_runner(f"{base}.{key}")):
            # ``getattr(importlib, "import_module")``: the importer (or runner) read as a value (breakS's S15)
            self._hit(node, f"reads `{_short(node)}` as a value ({_IMPORTER_VALUE})")
        chain = ast_chain(func, self.aliases)
        if chain in IMPORTERS:
            self.direct.add(id(func))  # ``im("shop.x")``, ``il.import_module(...)``: ``chunk_dynamic``'s call
        spec = RUNNER_FUNCTIONS.get(chain) if chain is not None and chain.startswith(_RUNNER_MODULES) else None
        if spec is not None or chain in CODE_TAKERS:
            # a standard-library runner of text called directly (``timeit.timeit(stmt)``): its text
            # as ``exec``'s; a code object of any origin but ``compile`` is text unread
            self.direct.add(id(func))
            for position, keyword in spec or ():
                text = _ast_argument(node, position, keyword)
                if text is None or isinstance(text, ast.Lambda):
                    continue
                if isinstance(text, ast.Constant) and isinstance(text.value, str):
                    self._text(node, text.value)
                else:
                    self._hit(node, f"runs text the build cannot read (`{_short(node)}`)")
            code = _ast_argument(node, 0, "code") if spec is None else None
            if spec is None and not (isinstance(code, ast.Call) and _called(code) == "compile"):
                self._hit(node, f"runs a code object the build cannot read (`{_short(node)}`)")
        if isinstance(func, ast.Name):
            self.names.add(func.id)
        else:
            self.visit(func)
        for part in (*node.args, *node.keywords):
            self.visit(part)

    def _text(self, node: ast.Call, text: str) -> None:
        """A literal run as code: whatever it runs (a def's body in it too) runs here."""
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                code = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            return
        inner = _Reads(0, self.first_party, self.aliases)
        inner.visit(code)
        for inner_node in ast.walk(code):
            if isinstance(inner_node, ast.Import) and any(self.first_party(a.name) for a in inner_node.names) or (
                    isinstance(inner_node, ast.ImportFrom) and (inner_node.level or self.first_party(inner_node.module or ""))):
                inner.hits.append((0, 0, ""))
            if (isinstance(inner_node, ast.Call) and inner_node.args and isinstance(inner_node.args[0], ast.Constant)
                    and isinstance(inner_node.args[0].value, str) and _called(inner_node) in _IMPORTERS):
                module = inner_node.args[0].value
                if module.startswith(".") or self.first_party(module):
                    inner.hits.append((0, 0, ""))
        if inner.hits:
            self._hit(node, f"runs a string that imports code the build cannot rewrite (`{_short(node)}`)")
        self.names |= inner.names


#: the modules of the standard library's runners of text (``code_runners``), as chains start
_RUNNER_MODULES = tuple({t.split(".")[0] + "." for t in (*RUNNER_FUNCTIONS, *RUNNER_OBJECTS, *CODE_TAKERS, *IMPORTERS)})
#: attributes reaching the builtins namespace from an object (a frame's, a builtin function's module)
_NAMESPACE_ATTRIBUTES = frozenset({"f_builtins", "__builtins__"})
_BUILTIN_NAMES = frozenset(dir(builtins))


def _stdlib_runner(chain: str) -> bool:
    """A chain naming one of the standard library's runners of text (``code_runners``), a
    function or an object whose methods run text given later (``code.InteractiveInterpreter``)."""
    return chain.startswith(_RUNNER_MODULES) and (
        chain in RUNNER_FUNCTIONS or chain in CODE_TAKERS or chain in RUNNER_OBJECTS
        or any(chain.startswith(o + ".") for o in RUNNER_OBJECTS))


def ast_chain(node: ast.AST, aliases: dict[str, str]) -> str | None:
    """The dotted chain ``node`` spells, its root read through ``aliases`` (``_runner_aliases``)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    names = [node.id, *reversed(parts)]
    for i in range(len(names), 0, -1):  # the longest prefix an import binds (``tools.code``)
        bound = aliases.get(".".join(names[:i]))
        if bound is not None:
            return ".".join([bound, *names[i:]])
    return ".".join(names)


def _ast_argument(node: ast.Call, position: int, keyword: str) -> ast.expr | None:
    for k in node.keywords:
        if k.arg == keyword:
            return k.value
    positional = [a for a in node.args if not isinstance(a, ast.Starred)]
    return positional[position] if position < len(positional) else None


def _called(node: ast.Call) -> str | None:
    return node.func.id if isinstance(node.func, ast.Name) else (
        node.func.attr if isinstance(node.func, ast.Attribute) else None)


def _short(node: ast.AST | None) -> str:
    text = "" if node is None else ast.unparse(node)
    return text if len(text) <= 60 else text[:57] + "..."


def code_files(fp: FlowFingerprint) -> list[tuple[str, str]]:
    """``(path, digest)`` of each project file whose text the flow's code runs by path (its
    ``<path>#file`` members), sorted: what the chunk's loader checks. ``ChunkError`` for one the
    build could not read (absent is a digest: ``absent``)."""
    out: list[tuple[str, str]] = []
    for m in fp.closure:
        if not m.qualname.endswith("#file") or not m.canonical.startswith("(file "):
            continue
        path = m.qualname[: -len("#file")]
        state = m.canonical[len("(file ") + len(path) + 1: -1]
        if not (state.startswith("sha256:") or state == "absent"):
            raise ChunkError(f"flow `{fp.flow_id}` runs code loaded by path from `{path}`, which the build could not "
                             f"read ({state}): its chunk could not tell that file's code from another. Make it a readable "
                             "file of the project", path=m.path or fp.path, line=m.line)
        out.append((path, state))
    return sorted(out)
