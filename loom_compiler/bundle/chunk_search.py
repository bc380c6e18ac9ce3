"""Modules found through a search path a package adds, bundled under the name Python gives them (E9).

``import helper`` with ``shop/__init__.py`` putting ``shop/vendor`` on ``sys.path`` loads
``shop/vendor/helper.py`` as the top-level module ``helper``; ``from shop.plug import f`` with
``__path__ = [here, os.path.join(here, 'extra')]`` loads ``shop/extra/plug.py`` as ``shop.plug``.
The fingerprint follows those files (``search_order.found_through``), naming them as the tree
does (``shop.vendor.helper``, ``shop.extra.plug``). A chunk must run them as live code does:
under the name the import gave them (``__name__``, the ``__module__`` of what they define, the
error type a journal records, the package attribute ``shop.plug``), with the importing statement
resolving to them. So before planning, every such module is renamed, in the closure and in the
summaries the plan reads, to its live name (``renamed``); the import is then an ordinary
first-party import of the chunk's module (``chunk_imports`` writes it relative: ``from .. import
helper``), and the runtime makes and wires the module under that name. A directory a ``.pth``
file of a ``site.addsitedir`` directory names is such a search path too: the fingerprint read the
``.pth`` files and records what they add (``closure``'s ``<dir>#site`` members), read back here.

Refused (``ChunkError`` naming the import, with what to do), rather than bundled differently from
live code: one file imported under two names (its tree name and a search-path name, or two
search-path names: live those are two module objects, each running the file), and a module found
through a search path whose name is also the tree name of another bundled module.

Rejected: rewriting the import to the tree name (``from .vendor import helper``): the module
would then be named ``shop.vendor.helper`` in the chunk and ``helper`` live, and a class it
defines would be journaled under another name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping

from ..analysis import ModuleSummary
from ..model import FlowFingerprint
from ..search_order import found_through
from .chunk_file import ChunkError

__all__ = ["renamed"]


def renamed(fp: FlowFingerprint, summaries: Mapping[str, ModuleSummary], first_party: Callable[[str], bool]
            ) -> tuple[FlowFingerprint, Mapping[str, ModuleSummary], Callable[[str], bool]]:
    """``fp``, ``summaries`` and ``first_party`` with every module an import found through a
    search path a package adds named as that import names it (the same values when none is)."""
    if not any(s.search_paths for s in summaries.values()):
        return fp, summaries, first_party  # the common case: nothing to look up
    names = _live_names(fp, summaries)
    bundled = {m.module for m in fp.closure if m.kind not in ("import", "step")}
    names = {tree: live for tree, live in names.items() if tree in bundled or any(b.startswith(tree + ".") for b in bundled)}
    if not names:
        return fp, summaries, first_party

    def rename(dotted: str) -> str:
        for tree, live in names.items():
            if dotted == tree or dotted.startswith(tree + "."):
                return live + dotted[len(tree):]
        return dotted

    closure = tuple(dataclasses.replace(
        m, module=rename(m.module), qualname=rename(m.qualname.removesuffix(".*")) + (".*" if m.qualname.endswith(".*") else ""),
        bindings=tuple((name, rename(target)) for name, target in m.bindings)) for m in fp.closure)
    out = {rename(module): dataclasses.replace(s, module=rename(module)) if rename(module) != module else s
           for module, s in summaries.items()}
    tops = {live.split(".")[0] for live in names.values()}
    return (dataclasses.replace(fp, closure=closure), out,
            lambda dotted: first_party(dotted) or dotted.split(".")[0] in tops and any(
                ".".join(dotted.split(".")[:i]) in out for i in range(1, dotted.count(".") + 2)))


def _live_names(fp: FlowFingerprint, summaries: Mapping[str, ModuleSummary]) -> dict[str, str]:
    """tree name -> the name an import gives it, for each module of ``summaries`` found so."""
    names: dict[str, str] = {}
    where: dict[str, tuple[str, int]] = {}
    # what the ``.pth`` files of each site directory add, as the fingerprint read them
    # (``closure``'s ``<dir>#site`` members: ``(site shop.vendor shop.vendor.extra)``)
    sites: dict[str, list[str]] = {}
    for m in fp.closure:
        if m.qualname.endswith("#site") and m.canonical.startswith("(site "):
            directory, *dirs = ["" if d == "." else d for d in m.canonical[len("(site "):-1].split(" ")]
            sites[directory] = dirs
    asked_as: list[tuple[str, str, ModuleSummary, int]] = []  # (what the import names, its tree module, ...)
    for summary in summaries.values():
        for target, line in _imports(summary):
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                asked = ".".join(parts[:i])
                tree = found_through(asked, summary.module, summaries.get, summaries.__contains__,
                                     summaries.__contains__, lambda _s, d: sites.get(d, ()))
                if tree in summaries:
                    asked_as.append((asked, tree, summary, line))
    for asked, tree, summary, line in asked_as:
        if tree != asked:
            if names.setdefault(tree, asked) != asked:
                raise _twice(fp, tree, (names[tree], where[tree]), (asked, (summary.path, line)))
            where.setdefault(tree, (summary.path, line))
    for asked, tree, summary, line in asked_as:
        # a module imported by its tree name too: two modules live (a renamed module's own
        # imports are in the tree's naming, a relative ``from . import x`` among them: not that)
        if tree == asked and tree in names and not _under(summary.module, names):
            raise _twice(fp, tree, (names[tree], where[tree]), (tree, (summary.path, line)))
    for tree, live in names.items():
        if live in summaries and live not in names:
            path, line = where[tree]
            raise ChunkError(f"flow `{fp.flow_id}`: `{live}` is loaded from `{summaries[tree].path}` through a "
                             f"directory a package puts on a search path, and the project has a module `{live}` of "
                             "its own too: a chunk cannot hold both under one name. Rename one of them",
                             path=path, line=line)
    return names


def _under(module: str, names: Mapping[str, str]) -> bool:
    return any(module == tree or module.startswith(tree + ".") for tree in names)


def _imports(summary: ModuleSummary) -> Iterator[tuple[str, int]]:
    """(absolute target, line) of every import the module's code makes: its statements' (module
    level or nested) and its functions' (lazy) imports."""
    for u in summary.units:
        for _, target in u.aliases:
            yield target, u.line
        for target in u.stars:
            yield target, u.line
        for ref in u.references:
            if ref[0] == "!":
                yield ref[1:], u.line
    for f in summary.flows:
        for ref in f.references:
            if ref[0] == "!":
                yield ref[1:], f.line
    for m in summary.members:
        for ref in m.references:
            if ref[0] == "!":
                yield ref[1:], m.line


def _twice(fp: FlowFingerprint, tree: str, one: tuple[str, tuple[str, int]], other: tuple[str, tuple[str, int]]
           ) -> ChunkError:
    (a, (path_a, line_a)), (b, (path_b, line_b)) = one, other
    return ChunkError(
        f"flow `{fp.flow_id}`: `{tree.replace('.', '/')}` is imported as `{a}` ({path_a}:{line_a}) and as `{b}` "
        f"({path_b}:{line_b}): live those are two modules, each running the file, and a chunk bundles a file once. "
        "Import it by one name everywhere", path=path_b, line=line_b)
