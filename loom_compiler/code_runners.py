"""Code that runs text: where a statement reaches a runner of text, and whether the text is decidable.

``loom-fp/2`` follows the imports of text the code spells (``exec("import shop.x")``: ``scopes``'
rule for code strings) and widens where it cannot read the text (``exec(src)`` of a parameter:
every first-party module, a statement that can bind any name, and a ``path-undecidable`` warning).
That rule was written for a *direct call* of ``exec``/``eval``/``compile`` by name. A runner is
reached in many other ways (issue 12's P1/P2): read as a value (``R = {'x': exec}; R['x'](src)``,
``def f(run=exec)``, ``run, _ = exec, 1``, ``map(exec, codes)``, ``functools.partial(exec, s)``),
through the builtins namespace (``getattr(builtins, 'ex' + 'ec')``, ``vars(builtins)['exec']``,
``builtins.__dict__``, ``sys.modules['builtins'].exec``, ``__builtins__``, a frame's
``f_builtins``, a builtin's ``__self__``), from text (``eval('exec')``), or as one of the standard
library's own runners of text (``code.InteractiveInterpreter().runsource(src)``, ``pdb.run``,
``cProfile.run``, ``timeit.timeit(stmt)``, ``types.FunctionType(code, g)``, ...).

The rule, one for all of them (``reaches``): **a reach of a runner of text is decidable only as a
direct call whose text arguments the code spells**. Then, as for ``exec``, the text's imports are
followed (``Reach.kind`` "text": a literal or a concatenation of literals; "constant": a module
name bound to one, ``?%<name>``, which ``closure`` checks). Any other reach, the runner read as a
value, handed on, called with text of another origin, or an object of the standard library whose
methods run text given later (``code.InteractiveConsole()``, ``bdb.Bdb()``, ``trace.Trace()``,
``profile.Profile()``), is undecidable ("any"): ``scopes.references`` widens the unit exactly as a
direct ``exec`` of computed text (``?``: every first-party module; ``module``/``module-write``: a
statement that can bind any name) and ``analysis`` warns at the reach's file:line:col
(``path-undecidable``, ``warning``). Reading the builtins namespace as a value is a reach of
``exec`` (what is taken out of it cannot be told). Literal text handed to a runner is read by the
same rule (``eval('exec')`` reaches ``exec`` as a value). A bare ``exec``/``eval``/``compile``
called directly stays ``scopes``' own rule (``code_argument``); ``reaches`` leaves those calls
alone and reads their literal text only.

An importer (``runner_names.IMPORTERS``: ``importlib.import_module``, ``__import__``,
``pkgutil.resolve_name``, ...) is read by the same rule (breakS's S15): called directly it is
``scopes``' resolver rule (its literal is followed, ``bundle.chunk_dynamic`` rewrites it), but
read as a value (``f = importlib.import_module``, ``map(__import__, names)``) or by its literal
name (``getattr(importlib, "import_module")``, ``__builtins__["__import__"]``; also a runner so
read, ``getattr(timeit, "timeit")``) what it imports is undecidable ("any"), widening as ``exec``
read as a value does. And a code object compiled from text and run (``types.FunctionType(compile(
"import shop.x", ...), {})()``) is a statement that runs code, as ``exec`` of that text is
("text": ``module-write``, so it is bundled and the chunk's limits see the text). Cost on the four
measured repositories: none of their 270 codeHashes moves (none reads an importer as a value).

Not a reach: the module's builtins rebound to a copy of themselves (``__builtins__ =
{**__builtins__, "oct": f}``: still read by name), a non-runner builtin read from the namespace by its literal name
(``__builtins__["open"]``, ``vars(builtins)["len"]``, ``getattr(builtins, "open")``: what is read
is named; dbos-transact-py's tests keep ``original_open`` so), and a runner's class compared in a type test (``isinstance(f, FunctionType)``,
``type(f) is FunctionType``: dbos-transact-py's registrations do so), which calls nothing.
Width, chosen: the objects of ``RUNNER_OBJECTS`` widen wherever they are made, whatever their
methods later run (``cProfile.Profile()`` used only to ``enable``/``disable`` widens too: the
object is not followed to its method calls); a ``timeit`` statement given as a module-level name
is a constant (``?%``: a def bound there is no certain string, so it widens). A name is taken for
the builtin runner unless an import binds it to something else (rebinding ``exec`` by a def moves
more flows, never fewer). Cost on the four measured repositories: none of their 272 codeHashes
moves (``benchmarks/README.md`` §5, session 10).

A runner another first-party module re-exports (``from shop.tools import timeit`` where
``shop.tools`` holds ``from timeit import timeit``) resolves only across modules:
``closure._runner_through`` widens such a use the same way (the tables live in ``runner_names``,
which the closure and ``bundle.chunk_limits`` read without the parser).

Rejected: listing spellings one by one in ``scopes``' walk (each new route would be one more
miss, the flaw issue 12 names), and tracking a runner through the values it is kept in (``R['x']``
is ``exec`` only after a flow analysis the compiler does not do: the read itself is the reach).
"""

from __future__ import annotations

import ast
import builtins as _builtins
import re
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import libcst as cst

from .canonical import child_nodes, dotted_chain, literal_string_value, nfkc
from .runner_names import BUILTIN_RUNNERS as _BUILTIN_RUNNERS
from .runner_names import CODE_TAKERS, IMPORTERS, RUNNER_FUNCTIONS, RUNNER_OBJECTS

__all__ = ["CODE_TAKERS", "RUNNER_FUNCTIONS", "RUNNER_OBJECTS", "RUNNER_WORDS", "Reach", "may_reach", "reaches",
           "text_reaches_runner"]

#: the names through which the builtins namespace is read
_NAMESPACES = frozenset({"builtins", "__builtins__"})
#: attributes that reach the builtins namespace from an object (a frame's; a builtin function's module)
_NAMESPACE_ATTRIBUTES = frozenset({"f_builtins", "__builtins__"})
_BUILTIN_NAMES = frozenset(dir(_builtins))

#: words a statement's text must hold for ``reaches`` to find anything (the cheap test first)
RUNNER_WORDS = re.compile(r"\b(?:exec|eval|compile|builtins|__builtins__|f_builtins|__self__|code|bdb|pdb|cProfile|"
                          r"profile|timeit|trace|types|doctest|FunctionType|LambdaType|CodeType|Interactive\w*|"
                          r"compile_command|run|runctx|runeval|testmod|testfile|run_docstring_examples|DocTestRunner|"
                          r"DebugRunner|Timer|repeat|Bdb|Pdb|Profile|Trace|"
                          r"importlib|import_module|__import__|find_spec|pkgutil|resolve_name|get_loader|pydoc|"
                          r"locate|runpy|run_module)\b")
#: the roots of every chain ``reaches`` may judge a reach (a runner, its module, the builtins)
_ROOTS = frozenset({*_BUILTIN_RUNNERS, *_NAMESPACES, "__import__",
                    *(t.split(".")[0] for t in (*RUNNER_FUNCTIONS, *RUNNER_OBJECTS, *CODE_TAKERS, *IMPORTERS))})
_MARKS = "\"'?>&%!@"


def may_reach(chains: Iterable[str], imports: Callable[[str], list[str] | None] | None) -> bool:
    """The cheap test before ``reaches``: whether any of the global chains a walk found
    (``References.globals``, marks and all) may stand for a runner, its module or the builtins
    namespace (``imports``: a module-level name's import targets)."""
    for chain in chains:
        chain = chain.lstrip("^=")
        if not chain or chain[0] in _MARKS:
            continue
        root = chain.split(".", 1)[0]
        if root in _ROOTS or "f_builtins" in chain or "__self__" in chain or "__builtins__" in chain:
            return True
        targets = imports(root) if imports is not None else None
        if targets and any(t.split(".", 1)[0] in _ROOTS for t in targets):
            return True
    return False


@dataclass(frozen=True, slots=True)
class Reach:
    """A reach of a runner of text: ``node`` (where it is), ``spelled`` (how, for a warning),
    ``kind`` "text" (a direct call with spelled text ``value``: its imports are followed),
    "constant" (a direct call with text a module-level name holds, ``value``: ``?%<name>``) or
    "any" (undecidable); ``deferred``: inside a def's or a lambda's body (runs when called)."""

    node: cst.CSTNode
    spelled: str
    kind: str
    value: str
    deferred: bool


def reaches(node: cst.CSTNode, qualify: Callable[[str], Iterable[str]]) -> list[Reach]:
    """Every reach of a runner of text in ``node`` (a module-level statement or definition, nested
    code included), in no particular order. ``qualify`` says what a dotted chain of the module
    may stand for (through its module-level imports; the chain itself for a builtin or a plain
    global); imports inside ``node`` are read here (``import timeit`` in a def)."""
    lazy: dict[str, set[str]] = {}
    calls: dict[int, cst.Call] = {}
    inner: set[int] = set()
    #: operands of a type test (``isinstance(f, FunctionType)``, ``type(f) is FunctionType``): a
    #: runner's class compared, never called
    tested: set[int] = set()
    #: namespaces read by a literal name (a subscript, ``vars(ns)[...]``, ``getattr(ns, "...")``)
    keyed: dict[int, str] = {}
    chains: list[tuple[cst.BaseExpression, str, bool, bool]] = []  # (node, chain, deferred, at module level)
    strings: list[tuple[cst.BaseExpression, str, bool]] = []
    stack: list[tuple[cst.CSTNode, bool, bool]] = [(node, False, True)]
    while stack:
        n, deferred, top = stack.pop()
        kind = type(n)
        if kind is cst.Import or kind is cst.ImportFrom:
            for name, target in _import_targets(n):  # type: ignore[arg-type]
                lazy.setdefault(name, set()).add(target)
            continue
        if kind is cst.Call:
            calls[id(n.func)] = n  # type: ignore[attr-defined]
            inner.update(id(a.keyword) for a in n.args if a.keyword is not None)  # type: ignore[attr-defined]
            if type(n.func) is cst.Name and n.func.value in ("isinstance", "issubclass") and len(n.args) == 2:  # type: ignore[attr-defined]
                tested.update(_type_operands(n.args[1].value))  # type: ignore[attr-defined]
            elif type(n.func) is cst.Name and n.func.value == "getattr" and len(n.args) in (2, 3):  # type: ignore[attr-defined]
                name = literal_string_value(n.args[1].value)  # type: ignore[attr-defined]
                if isinstance(name, str):  # ``getattr(builtins, "open")``: a lookup by a literal name
                    keyed[id(n.args[0].value)] = name  # type: ignore[attr-defined]
        elif kind is cst.Assign and len(n.targets) == 1 and dotted_chain(n.targets[0].target) == "__builtins__" \
                and type(n.value) is cst.Dict:  # type: ignore[attr-defined]
            # ``__builtins__ = {**__builtins__, "oct": f}``: the module's builtins rebound to a copy
            # of themselves (breakS S2), read by name as before; no escape of the namespace
            tested.update(id(e.value) for e in n.value.elements  # type: ignore[attr-defined]
                          if type(e) is cst.StarredDictElement and dotted_chain(e.value) == "__builtins__")
        elif kind is cst.Subscript:
            name = _literal_key(n)  # type: ignore[arg-type]
            if name is not None:  # ``__builtins__["open"]``, ``vars(builtins)["open"]``, ``builtins.__dict__["open"]``
                value = n.value  # type: ignore[attr-defined]
                if type(value) is cst.Call and type(value.func) is cst.Name and value.func.value == "vars" \
                        and len(value.args) == 1:
                    value = value.args[0].value
                keyed[id(value)] = name
        elif kind is cst.Comparison:
            tested.update(_type_operands(n.left))  # type: ignore[attr-defined]
            for c in n.comparisons:  # type: ignore[attr-defined]
                tested.update(_type_operands(c.comparator))
        elif kind is cst.FunctionDef or kind is cst.ClassDef or kind is cst.Param:
            inner.add(id(n.name))  # type: ignore[attr-defined]
        elif kind is cst.AssignTarget and type(n.target) is cst.Name:  # type: ignore[attr-defined]
            inner.add(id(n.target))  # type: ignore[attr-defined]  # a name bound, not read
        elif kind is cst.Name or kind is cst.Attribute:
            if kind is cst.Attribute:
                inner.add(id(n.attr))  # type: ignore[attr-defined]  # ``x.exec``: an attribute, not the builtin
            if id(n) not in inner:
                chain = dotted_chain(n)  # type: ignore[arg-type]
                if chain is not None:
                    chains.append((n, chain, deferred, top))  # type: ignore[arg-type]
                    if kind is cst.Attribute:
                        _mark_inner(n, inner)  # type: ignore[arg-type]
        elif kind is cst.SimpleString or kind is cst.ConcatenatedString:
            value = literal_string_value(n)  # type: ignore[arg-type]
            if isinstance(value, str) and value in _NAMESPACES:
                strings.append((n, value, deferred))  # type: ignore[arg-type]
            continue
        elif kind is cst.BinaryOperation and type(n.operator) is cst.Add:  # type: ignore[attr-defined]
            # ``importlib.import_module('built' + 'ins')``, ``globals()['__buil' + 'tins__']``: the
            # namespace named by text folded from literals is named (breakT's T7)
            value = _folded(n)  # type: ignore[arg-type]
            if value in _NAMESPACES:
                strings.append((n, value, deferred))  # type: ignore[arg-type]
                continue
        body = kind is cst.FunctionDef or kind is cst.Lambda
        scope = kind is cst.FunctionDef or kind is cst.Lambda or kind is cst.ClassDef
        for child in reversed(child_nodes(n)):
            # a def's decorators, defaults and annotations run with the def; its body later
            later = deferred or (body and (child is getattr(n, "body", None)))
            stack.append((child, later, top and not (scope and child is getattr(n, "body", None))))

    def targets(chain: str) -> list[str]:
        root, _, rest = chain.partition(".")
        tail = "." + rest if rest else ""
        if root in lazy:
            return [t + tail for t in lazy[root]]
        return list(qualify(chain)) or []

    out: list[Reach] = []
    for n, value, deferred in strings:
        out.append(Reach(n, f"the builtins module named by a string (`{value!r}`)", "any", "", deferred))
    for n, chain, deferred, top in chains:
        call = calls.get(id(n))
        if call is None and id(n) in tested:
            continue
        if id(n) in keyed:
            # ``getattr(importlib, "import_module")``, ``__builtins__["__import__"]``: an importer
            # (or a runner) read by its literal name is read as a value (breakS's S15)
            found = _keyed_reach(n, chain, keyed[id(n)], targets(chain), deferred)
            if found is not None:
                out.append(found)
                continue
        if id(n) in keyed and keyed[id(n)] not in _BUILTIN_RUNNERS and keyed[id(n)] not in _NAMESPACES \
                and keyed[id(n)] != "__dict__":
            continue  # a builtin read by its literal name (``__builtins__["open"]``): no runner
        for target in targets(chain):
            found = _judge(n, chain, target, call, top, deferred)
            if found is not None:
                out.append(found)
                break
    return out


def _keyed_reach(n: cst.BaseExpression, chain: str, key: str, targets: Iterable[str], deferred: bool) -> Reach | None:
    """The reach of an importer or a standard-library runner read out of a module or the builtins
    namespace by a literal name (``getattr(importlib, "import_module")``, ``__builtins__["__import__"]``,
    ``getattr(timeit, "timeit")``): the value read is the callable itself, handed on or called
    where the compiler does not look (``reaches``' callee rule is for chains)."""
    for target in targets:
        base = "builtins" if target in _NAMESPACES else target
        full = f"{base}.{key}"
        if full in IMPORTERS or full in RUNNER_FUNCTIONS or full in RUNNER_OBJECTS or full in CODE_TAKERS:
            return Reach(n, f"`{full}` read by its name from `{chain}` as a value", "any", "", deferred)
    return None


def _literal_key(node: cst.Subscript) -> str | None:
    """The literal string a subscript indexes by (``ns["open"]``), if that is all it does."""
    if len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Index:
        return None
    value = literal_string_value(node.slice[0].slice.value)
    return value if isinstance(value, str) else None


def _type_operands(node: cst.BaseExpression) -> list[int]:
    """The ids of the chains a type test compares (a tuple's items too)."""
    if type(node) is cst.Tuple:
        return [id(e.value) for e in node.elements]
    return [id(node)]


def _judge(n: cst.BaseExpression, chain: str, target: str, call: cst.Call | None, top: bool,
           deferred: bool) -> Reach | None:
    """The reach a chain standing for ``target`` is, if any (``reaches``)."""
    root, _, rest = target.partition(".")
    attrs = rest.split(".") if rest else []
    if root in _BUILTIN_RUNNERS and not attrs:
        if call is None:
            return Reach(n, f"`{chain}` read as a value", "any", "", deferred)
        # a direct call: ``scopes``' own rule; its literal text is read for runners in it
        source = _argument(call, 0, "source") if call.args else None
        text = _folded(source) if source is not None else None  # ``eval('ex' + 'ec')`` too
        if isinstance(text, str) and text_reaches_runner(text):
            return Reach(call, f"`{chain}` of text reaching a runner", "any", "", deferred)
        return None
    if root in _NAMESPACES and (not attrs or attrs[0] == "__dict__" or root == "__builtins__"):
        return Reach(n, f"the builtins namespace read as a value (`{chain}`)", "any", "", deferred)
    if any(a in _NAMESPACE_ATTRIBUTES for a in attrs) or (
            "__self__" in attrs and root in _BUILTIN_NAMES and chain.split(".")[0] == root):
        return Reach(n, f"the builtins namespace reached through `{chain}`", "any", "", deferred)
    if target in RUNNER_OBJECTS or any(target.startswith(o + ".") for o in RUNNER_OBJECTS):
        return Reach(n, f"`{chain}` (it runs text or code given later)", "any", "", deferred)
    if target in CODE_TAKERS:
        code = _argument(call, 0, "code") if call is not None else None
        if isinstance(code, cst.Call) and dotted_chain(code.func) in ("compile", "builtins.compile"):
            # the text is the compile call's (``scopes``' rule follows its imports), and it runs
            # here as ``exec``'s would: a statement that runs code (``module-write``: bundled whole,
            # so a chunk sees the text it must refuse; breakS's S15)
            source = _argument(code, 0, "source") if code.args else None
            text = _folded(source) if source is not None else None
            if isinstance(text, str) and not text_reaches_runner(text):
                return Reach(code, f"`{chain}` of compiled text", "text", text, deferred)
            return Reach(code, f"`{chain}` of compiled text the compiler cannot read", "any", "", deferred)
        return Reach(n, f"`{chain}` of a code object of undecidable origin", "any", "", deferred)
    if target in IMPORTERS or (root == "__import__" and not attrs):
        # an importer: a direct call is ``scopes``' resolver rule (its literal is followed); read as
        # a value, what it is handed to imports a module the compiler cannot name (breakS's S15)
        if call is None:
            return Reach(n, f"`{chain}` read as a value (it imports a module named by text)", "any", "", deferred)
        return None
    spec = RUNNER_FUNCTIONS.get(target)
    if spec is None:
        return None
    if call is None:
        return Reach(n, f"`{chain}` read as a value", "any", "", deferred)
    if any(a.star for a in call.args):
        return Reach(call, f"`{chain}` of text handed through `*`/`**`", "any", "", deferred)
    for position, keyword in spec:
        arg = _argument(call, position, keyword)
        if arg is None:
            continue
        kind, value = _text(arg, top)
        if kind == "any":
            return Reach(call, f"`{chain}` of text whose origin the compiler cannot decide", "any", "", deferred)
        if kind == "text" and text_reaches_runner(value):
            return Reach(call, f"`{chain}` of text reaching a runner", "any", "", deferred)
        if kind:
            return Reach(call, chain, kind, value, deferred)
    return None


def _text(arg: cst.BaseExpression, top: bool) -> tuple[str, str]:
    """("text", value) for text the code spells (a literal, a concatenation of literals);
    ("constant", name) for a module-level name read at module level; ("", "") for code that is
    no text (a lambda: ``timeit.timeit(lambda: f())``, its code is in the closure); ("any", "")
    for anything else."""
    if type(arg) is cst.Lambda:
        return "", ""
    value = _folded(arg)
    if value is not None:
        return "text", value
    if type(arg) is cst.Name and top:
        return "constant", nfkc(arg.value)
    return "any", ""


def _folded(node: cst.BaseExpression) -> str | None:
    value = literal_string_value(node)
    if isinstance(value, str):
        return value
    if type(node) is cst.BinaryOperation and type(node.operator) is cst.Add:
        left, right = _folded(node.left), _folded(node.right)
        return left + right if left is not None and right is not None else None
    return None


def text_reaches_runner(text: str) -> bool:
    """Whether literal text run as code reaches a runner other than by a direct call of
    ``exec``/``eval``/``compile`` with literal text (whose text is read the same way): a runner
    or the builtins namespace named in it (``eval('exec')``), or an import of a module of
    runners (``exec('import timeit; ...')``). Text that is no code reaches nothing."""
    if not RUNNER_WORDS.search(text):
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # about the user's data
            tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return False
    direct: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _BUILTIN_RUNNERS:
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str) and not text_reaches_runner(first.value):
                direct.add(id(node.func))
    runner_modules = {t.split(".")[0] for t in (*RUNNER_FUNCTIONS, *RUNNER_OBJECTS, *CODE_TAKERS)} - {"builtins"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and (node.id in _BUILTIN_RUNNERS or node.id in _NAMESPACES) and id(node) not in direct:
            return True
        if isinstance(node, ast.Attribute) and node.attr in _NAMESPACE_ATTRIBUTES:
            return True
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] in runner_modules | _NAMESPACES for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in runner_modules | _NAMESPACES:
            return True
        if isinstance(node, ast.Constant) and node.value in _NAMESPACES:
            return True
    return False


def _argument(call: cst.Call, position: int, keyword: str) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return positional[position].value if position < len(positional) else None


def _mark_inner(node: cst.Attribute, inner: set[int]) -> None:
    inner.add(id(node.attr))
    value: cst.BaseExpression = node.value
    while True:
        inner.add(id(value))
        if type(value) is not cst.Attribute:
            return
        inner.add(id(value.attr))
        value = value.value


def _import_targets(node: cst.Import | cst.ImportFrom) -> list[tuple[str, str]]:
    """``(name, absolute target)`` an absolute import binds (a relative one names no runner)."""
    out: list[tuple[str, str]] = []
    if type(node) is cst.Import:
        for alias in node.names:
            chain = dotted_chain(alias.name) or ""
            if alias.asname is not None and type(alias.asname.name) is cst.Name:
                out.append((nfkc(alias.asname.name.value), chain))
            else:
                out.append((chain.split(".")[0], chain.split(".")[0]))
        return out
    if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
        return out
    base = dotted_chain(node.module) or ""
    for alias in node.names:
        name = nfkc(alias.name.value)  # type: ignore[union-attr]
        local = nfkc(alias.asname.name.value) if alias.asname is not None else name  # type: ignore[union-attr]
        out.append((local, f"{base}.{name}"))
    return out
