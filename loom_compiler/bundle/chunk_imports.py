"""First-party imports in a chunk resolve to the chunk's own modules: rewritten as relative imports.

In a chunk every bundled module runs in a module object of its own, registered below the chunk's
private module (``loom_runtime.chunk_modules``), with its private package as ``__package__``. A
relative import there resolves, through the ordinary import system, to the chunk's sibling
module, never to the live package. So a first-party import in bundled text (at module level or
inside a function body: a lazy import) is written as the relative import that names the same
module from where it stands, and means what it meant live:

    from shop.b import Color as C2      ->  from .b import Color as C2          (in shop/flows.py)
    import shop.b as bb                 ->  from . import b as bb
    import shop.b                       ->  from .. import shop                 (binds ``shop``)
    from shop.a import *                ->  from .a import *

A relative import in the source is left as written (it already resolves there); third-party
imports are left as written (live code, as DESIGN §7 wants). ``import a.b`` binds ``a`` and loads
``a.b``: the chunk made ``a.b`` already, so binding ``a`` is all there is to do.

Which names of an import stay is the caller's decision (``keep``), because it depends on what the
chunk's modules hold: an alias the closure does not reach is dropped where its target binds it
live (``from .pricing import discount, unused``: the chunk's ``pricing`` has no ``unused``, and
nothing uses it) and kept where the live import would fail too (``try: from .fast import f`` with
no ``fast``: the ``except`` branch runs, as live). A statement left with no alias becomes ``pass``
(or, at module level, is dropped by the caller). Every other byte of the statement is kept: only a
statement with an import to change is re-printed through libcst.

Rejected: absolute imports of private names (``from _loom_chunks.checkout_ab12.shop.b import ..``:
the chunk's module name depends on the bundle it is loaded from, and would have to be written
into the text), and an ``__import__`` hook (see ``loom_runtime.chunk_modules``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from ..scopes import dotted_chain
from .chunk_file import ChunkError
from .chunk_memo import ChunkMemo

__all__ = ["FAIL", "ImportSite", "absolute_base", "parse_statement", "rewrite_imports"]


@dataclass(frozen=True, slots=True)
class ImportSite:
    """One alias of an import statement, as the caller's ``keep`` sees it."""

    local: str  # the name it binds
    module: str  # absolute module it imports from (``from m import x``), or imports (``import m``)
    attr: str | None  # ``x`` of ``from m import x``; None for ``import m`` and star imports
    first_party: bool
    top: bool  # a line of imports directly at module level (not in a block, not in a function)


#: ``keep(site)``: True (the alias stays), False (it is left out), or ``FAIL``: the import of it
#: must fail here as it failed live, without the import system looking further (below)
Keep = Callable[[ImportSite], "bool | str"]

#: ``keep``'s answer for a name the chunk's module lacks and the live module lacked too. The alias
#: becomes ``raise ImportError(...)``: left as an import, ``from . import fast`` on a chunk package
#: without ``fast`` makes the import system try the submodule by the package's ``__name__``, the
#: live ``shop.fast`` (running the live package, and binding a live ``shop/fast.py`` added since)
FAIL = "fail"


def absolute_base(module: str, is_package: bool, node: cst.ImportFrom) -> str | None:
    """The absolute module ``from <...> import`` names in ``module``; None beyond the top."""
    name = dotted_chain(node.module) if node.module is not None else ""
    return _absolute(module, is_package, name or "", len(node.relative))


def _absolute(module: str, is_package: bool, name: str, level: int) -> str | None:
    if level == 0:
        return name or None
    parts = module.split(".") if is_package else module.split(".")[:-1]
    if level > len(parts):
        return None  # beyond the top-level package (``from ..x import f`` in ``shop/flows.py`` too): an ImportError live
    base = parts[: len(parts) - (level - 1)]
    return ".".join([*base, *([name] if name else [])]) or None


@dataclass(frozen=True, slots=True)
class _ImportNode:
    """One import statement of a text, as CPython's parser sees it (``_import_nodes``)."""

    star: bool
    base: str | None  # ``from``: the absolute module (None beyond the top); ``import``: None
    relative: bool
    top: bool
    aliases: tuple[tuple[str, str], ...]  # (local, attr) for ``from``; (local, dotted target) for ``import``
    is_from: bool
    #: where ``from <module> import`` spells its module, for a rewrite of that span alone
    #: (``_module_span``); None where only libcst's rewrite is known to print what it means
    span: tuple[int, int] | None = None


def _import_nodes(text: str, module: str, is_package: bool, parse: Callable[[str], ast.Module] = ast.parse,
                  ) -> tuple[_ImportNode, ...] | None:
    """Every import statement of ``text``; None when CPython cannot parse it (libcst decides).
    ``parse``: ``ast.parse`` or a build's shared trees (``ChunkMemo.tree``)."""
    try:
        tree = parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    top = {id(n) for n in tree.body}
    lines: list[str] | None = None
    out: list[_ImportNode] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = _absolute(module, is_package, node.module or "", node.level)
            star = any(a.name == "*" for a in node.names)
            aliases = tuple((a.asname or a.name, a.name) for a in node.names if a.name != "*")
            span = None
            if node.level == 0 and node.module:
                lines = lines if lines is not None else _LINE.findall(text)
                span = _module_span(text, lines, node)
            out.append(_ImportNode(star, base, node.level > 0, id(node) in top, aliases, True, span))
        elif isinstance(node, ast.Import):
            aliases = tuple((a.asname or a.name.split(".")[0], a.name) for a in node.names)
            out.append(_ImportNode(False, None, False, id(node) in top, aliases, False))
    return tuple(out)


#: one physical line as CPython counts them (``str.splitlines`` also breaks at a form feed,
#: ``\x0b``, ``\x1c``-``\x1e``, ``\x85``, ``\u2028``, ``\u2029``: breaker4's E5)
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
#: ``from<ws><dotted><ws>import``: the start of an absolute ``from`` import that spells its
#: module plainly (no comments, continuations or spaces around the dots inside it)
_FROM_HEAD = re.compile(r"from([ \t]+)([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)[ \t]+import\b")
#: what may follow the statement on its last line: nothing but a comment (no ``;``, no ``\``)
_LINE_END = re.compile(r"[ \t]*(?:#[^\r\n]*)?(?:\r\n|\n|\r)?\Z")


def _module_span(text: str, lines: list[str], node: ast.ImportFrom) -> tuple[int, int] | None:
    """The character offsets in ``text`` of the module ``node`` spells, when a rewrite that
    replaces them alone prints what libcst's rewrite prints: the statement alone on its lines
    (libcst re-prints every small statement of a line it touches, ``;`` included), its head on
    one line in ASCII (CPython's columns are UTF-8 bytes)."""
    first, last = lines[node.lineno - 1], lines[(node.end_lineno or node.lineno) - 1]
    before = first[: node.col_offset]
    if before.strip(" \t") or not first.isascii() or not last.isascii():
        return None
    if node.lineno > 1 and lines[node.lineno - 2].rstrip("\r\n").endswith("\\"):
        return None  # continues a line above (``x = 1; \``): a second small statement of it
    if not _LINE_END.match(last, node.end_col_offset or 0):
        return None
    head = _FROM_HEAD.match(first, node.col_offset)
    if head is None or head.group(2) != node.module:
        return None
    start = sum(len(line) for line in lines[: node.lineno - 1]) + head.start(2)
    return start, start + len(head.group(2))


def rewrite_imports(text: str, module: str, is_package: bool, first_party: Callable[[str], bool], keep: Keep,
                    *, where: str, memo: ChunkMemo | None = None) -> str | None:
    """``text`` (one module-level statement of ``module``) with its first-party imports relative
    and the aliases ``keep`` refuses left out; the same string when nothing changes; None when the
    statement is a line of imports that keeps no alias.

    CPython's parser finds the import sites first and ``keep`` decides each; a statement none of
    whose imports changes (a third-party import, a relative one, nothing dropped) is returned as
    it is without libcst. Otherwise the libcst rewrite is memoised in ``memo`` by the text and every
    decision (``chunk_memo``): the same library statement in the next chunk of the build, with
    the same decisions, costs a dictionary lookup."""
    if "import" not in text:
        return text
    memo = memo if memo is not None else ChunkMemo()
    nodes = memo.get("import-nodes", (text, module, is_package), lambda: _import_nodes(text, module, is_package, memo.tree))
    if nodes is None:
        return _rewrite(text, module, is_package, first_party, keep, where=where)
    decisions: dict[ImportSite, bool | str] = {}
    firsts: dict[str, bool] = {}
    changed = False
    for node in nodes:
        if node.is_from:
            if node.base is None:
                changed = True  # beyond the top-level package: written higher (``_Rewriter._import``, F4)
                continue
            if node.base not in firsts:
                firsts[node.base] = first_party(node.base)
            first = firsts[node.base]
            if node.star:
                changed = changed or (first and not node.relative)
                continue
            sites = [ImportSite(local, node.base, attr, first, node.top) for local, attr in node.aliases]
            kept = [_decide(decisions, site, keep) for site in sites]
            changed = changed or (first and not node.relative) or not all(k is True for k in kept)
        else:
            for local, target in node.aliases:
                if target not in firsts:
                    firsts[target] = first_party(target)
                first = firsts[target]
                kept_one = _decide(decisions, ImportSite(local, target, None, first, node.top), keep)
                changed = changed or first or kept_one is not True
    if not changed:
        return text
    # the rewrite depends on the module's package, not the module: flows of one package share it
    key = (text, _package(module, is_package), tuple(decisions.items()), tuple(firsts.items()))
    table = memo.table("rewrite")
    if key in table:
        return table[key]  # type: ignore[no-any-return]
    spliced = _spliced(text, module, is_package, nodes, decisions, firsts)
    if spliced is not None:
        table[key] = spliced
        return spliced
    asked_sites: set[ImportSite] = set()
    asked_modules: set[str] = set()

    def keep_recorded(site: ImportSite) -> bool | str:
        asked_sites.add(site)
        return decisions[site] if site in decisions else keep(site)

    def first_recorded(dotted: str) -> bool:
        asked_modules.add(dotted)
        return firsts[dotted] if dotted in firsts else first_party(dotted)

    result = _rewrite(text, module, is_package, first_recorded, keep_recorded, where=where)
    if asked_sites <= decisions.keys() and asked_modules <= firsts.keys():
        table[key] = result  # every decision the rewrite made is in its key
    return result


def _package(module: str, is_package: bool) -> tuple[str, ...]:
    parts = module.split(".")
    return tuple(parts if is_package else parts[:-1])


def _spliced(text: str, module: str, is_package: bool, nodes: tuple[_ImportNode, ...],
             decisions: dict[ImportSite, bool | str], firsts: dict[str, bool]) -> str | None:
    """``text`` rewritten without libcst where every change is an absolute first-party ``from``
    import keeping all its names, written alone on its lines (``_module_span``): its module
    becomes the relative one, every other byte stays, which is what ``_Rewriter`` prints (pinned
    by tests/compiler/test_chunk.py against it). None for anything else (libcst rewrites it).
    A build's chunks bundle each flow module's own imports: ~400 libcst parses per build at 120
    flows were these."""
    spans: list[tuple[int, int, str]] = []
    package = list(_package(module, is_package))
    for node in nodes:
        if not node.is_from:
            for local, target in node.aliases:
                site = ImportSite(local, target, None, firsts[target], node.top)
                if firsts[target] or decisions[site] is not True:
                    return None
            continue
        if node.base is None:
            return None  # beyond the top-level package: ``_Rewriter`` writes it higher
        first = firsts[node.base]
        kept = all(decisions[ImportSite(local, node.base, attr, first, node.top)] is True for local, attr in node.aliases)
        if node.relative or not first:
            if not kept:
                return None
            continue
        if not kept or node.span is None:
            return None
        dots, rest = _relative_parts(package, node.base)
        spans.append((*node.span, "." * dots + rest))
    out = text
    for start, end, new in sorted(spans, reverse=True):
        out = out[:start] + new + out[end:]
    return out


def _relative_parts(package: list[str], target: str) -> tuple[int, str]:
    """The level and module of the relative import naming ``target`` from ``package`` (as
    ``_Rewriter._relative`` writes them)."""
    parts = target.split(".") if target else []
    common = 0
    while common < min(len(parts), len(package)) and parts[common] == package[common]:
        common += 1
    return len(package) - common + 1, ".".join(parts[common:])


def _decide(decisions: dict[ImportSite, bool | str], site: ImportSite, keep: Keep) -> bool | str:
    if site not in decisions:
        decisions[site] = keep(site)
    return decisions[site]


def parse_statement(text: str, *, where: str) -> cst.Module:
    """libcst's tree of a bundled statement CPython parsed; ``ChunkError`` where libcst cannot."""
    try:
        return cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        raise ChunkError(f"cannot re-parse a bundled statement to rewrite its imports: {exc.message}", path=where) from None


def _rewrite(text: str, module: str, is_package: bool, first_party: Callable[[str], bool], keep: Keep,
             *, where: str) -> str | None:
    tree = parse_statement(text, where=where)
    rewriter = _Rewriter(module, is_package, first_party, keep)
    new = tree.visit(rewriter)
    if rewriter.emptied:
        return None
    return new.code if rewriter.changed else text


class _Rewriter(cst.CSTTransformer):
    def __init__(self, module: str, is_package: bool, first_party: Callable[[str], bool], keep: Keep) -> None:
        super().__init__()
        self.module = module
        self.is_package = is_package
        self.package = module.split(".") if is_package else module.split(".")[:-1]
        self.first_party = first_party
        self.keep = keep
        self.depth = 0  # inside a block, a function or a class body: not a top-level import line
        self.changed = False
        self.emptied = False

    # -- where we are --------------------------------------------------------------------------
    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.BaseCompoundStatement):
            self.depth += 1
        return True

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):  # type: ignore[no-untyped-def]
        if isinstance(original, cst.BaseCompoundStatement):
            self.depth -= 1
        if isinstance(original, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            return self._line(original, updated)  # type: ignore[arg-type]
        return updated

    # -- rewriting -----------------------------------------------------------------------------
    def _line(self, original: cst.SimpleStatementLine | cst.SimpleStatementSuite,
              updated: cst.SimpleStatementLine | cst.SimpleStatementSuite) -> cst.CSTNode | cst.RemovalSentinel:
        body: list[cst.BaseSmallStatement] = []
        touched = False
        top = self.depth == 0 and isinstance(original, cst.SimpleStatementLine)
        for small in updated.body:
            if isinstance(small, (cst.Import, cst.ImportFrom)):
                replaced = self._import(small, top)
                if replaced is not None:
                    body.extend(replaced)
                    touched = True
                    continue
            body.append(small)
        if not touched:
            return updated
        self.changed = True
        if not body:
            if top and self.depth == 0:
                self.emptied = True
            body = [cst.Pass()]
        body = [b.with_changes(semicolon=cst.MaybeSentinel.DEFAULT) for b in body]
        if len(body) > 1:
            body = [b.with_changes(semicolon=cst.Semicolon(whitespace_after=cst.SimpleWhitespace(" ")))
                    for b in body[:-1]] + [body[-1]]
        return updated.with_changes(body=body)

    def _relative(self, target: str) -> tuple[list[cst.Dot], cst.Attribute | cst.Name | None]:
        """The dots and module of a relative import naming ``target`` from this module's package
        (``target`` "" names the chunk's root, which holds the top-level packages)."""
        level, rest = _relative_parts(self.package, target)
        node = cst.parse_expression(rest) if rest else None
        return [cst.Dot() for _ in range(level)], node  # type: ignore[return-value]

    def _import(self, node: cst.Import | cst.ImportFrom, top: bool) -> list[cst.BaseSmallStatement] | None:
        """The statements replacing ``node``, or None to leave it as it is."""
        if isinstance(node, cst.ImportFrom):
            base = absolute_base(self.module, self.is_package, node)
            if base is None:
                # beyond the top-level package: written two levels higher, so that from the
                # chunk's private package (two names deeper) it fails as live, with the same
                # ImportError, not as a missing module of the chunk (breaker5's F4)
                return [node.with_changes(relative=[cst.Dot() for _ in range(len(node.relative) + 2)])]
            first = self.first_party(base)
            if isinstance(node.names, cst.ImportStar):
                if not first or node.relative:
                    return None
                dots, mod = self._relative(base)
                return [node.with_changes(relative=dots, module=mod)]
            kept: list[cst.ImportAlias] = []
            failing: cst.ImportAlias | None = None
            for a in node.names:
                decision = self.keep(ImportSite(_local(a), base, _name(a), first, top))
                if decision == FAIL:
                    failing = a  # Python imports the names in order: the ones before it are bound
                    break
                if decision:
                    kept.append(a)
            if failing is None and not first and len(kept) == len(node.names):
                return None
            if first and not node.relative:
                dots, mod = self._relative(base)
                node = node.with_changes(relative=dots, module=mod)
            elif failing is None and len(kept) == len(node.names):
                return None
            out: list[cst.BaseSmallStatement] = []
            if kept:
                if node.lpar is None or kept[-1] is not node.names[-1] and not _has_comment(kept[-1].comma):
                    kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)  # a trailing comma needs parentheses
                out.append(node.with_changes(names=kept))
            if failing is not None:
                why = f"cannot import name {_name(failing)!r} from {base!r}"
                out.append(cst.Raise(exc=cst.parse_expression(f"ImportError({why!r}, name={base!r})")))
            return out
        out: list[cst.BaseSmallStatement] = []
        plain: list[cst.ImportAlias] = []
        changed = False
        for alias in node.names:
            target = _name(alias)
            local = _local(alias)
            first = self.first_party(target)
            if self.keep(ImportSite(local, target, None, first, top)) is not True:
                changed = True
                continue
            if not first:
                plain.append(alias)
                continue
            changed = True
            if plain:
                out.append(node.with_changes(names=[*plain[:-1], plain[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]))
                plain = []
            if alias.asname is None:
                # ``import shop.b`` binds ``shop``: the chunk's ``shop``, from its root
                dots, mod = self._relative("")
                names = [cst.ImportAlias(name=cst.Name(target.split(".")[0]))]
            else:
                parent, _, leaf = target.rpartition(".")
                dots, mod = self._relative(parent)
                names = [cst.ImportAlias(name=cst.Name(leaf), asname=alias.asname)]
            out.append(cst.ImportFrom(module=mod, names=names, relative=dots))
        if not changed:
            return None
        if plain:
            out.append(node.with_changes(names=[*plain[:-1], plain[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]))
        return out


def _has_comment(comma: cst.Comma | cst.MaybeSentinel) -> bool:
    return isinstance(comma, cst.Comma) and "#" in cst.Module([]).code_for_node(comma)


def _name(alias: cst.ImportAlias) -> str:
    return dotted_chain(alias.name) or ""


def _local(alias: cst.ImportAlias) -> str:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    return _name(alias).split(".")[0]
