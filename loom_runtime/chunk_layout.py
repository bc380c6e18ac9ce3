"""The layout of a chunk file (``loom-chunk/2``): which of its lines run in which bundled module.

A chunk bundles statements of several first-party modules, and each must run in a namespace of
its own, as it did live: ``LIMIT`` of ``shop/h.py`` and ``LIMIT`` of ``shop/flows.py`` are two
names, ``globals()`` of a helper is its module's, a store into ``shop.pricing.RATE`` reaches the
functions of ``shop.pricing``. So the file is ordinary Python text, the modules' original
statements in the order the live modules ran them, and its header says where each module's
statements are:

    # layout: loom-chunk/2 ...
    # module: shop package - shop/__init__.py
    # module: shop.pricing module annotations shop/pricing.py
    # module: shop.flows module - shop/flows.py
    # run: shop.pricing 14-22
    # run: shop.flows 25-40

A ``file`` line (``# file: sha256:<hex> shop/plug.txt``) names a project file that no bundled module
is, whose text bundled code runs by a path computed from ``__file__`` (``exec(open(...).read())``,
``runpy.run_path``): such code is not in the chunk, so the loader checks, before anything runs,
that the file next to the live modules still holds the bytes the version was built from
(``chunk_modules``), and refuses the chunk otherwise.

A ``module`` line declares a bundled module (its name, whether it is a package, the
``from __future__`` features its source enables, its file); a ``lazy`` line names a module only a
lazy import reached live (an import inside a function: ``def serve(): from ._fastapi import
setup``), whose runs the loader defers to its first use, as live code ran it only then; a ``run`` line says that lines
``first``-``last`` of the file run, in that module's namespace, next (runs execute top to bottom; a
module can have several runs when an import cycle interleaves it with another). The loader
(``chunk_modules``) compiles each run on its own, at its own line numbers, so tracebacks and
``inspect`` point at the chunk's lines. The header is the leading block of ``#`` lines; the
manifest's ``chunkDigest`` covers it with the rest.

Both sides use this module: the compiler writes the header with ``render``, the runtime reads it
with ``parse``, so the format has one definition. A chunk without a ``layout`` line is the
one-namespace layout of the releases before (``parse`` returns None; ``chunks`` executes it as
one module, as they did).

How this keeps to DESIGN §7 (which names the chunk's properties, not its bytes): still one file
per code version, pinned whole by ``chunkDigest``; readable (the modules' statements copied with
their comments, a header naming the flow, its codeHash and source files); deterministic (the
same inputs write the same bytes); self-contained (first-party code runs from the chunk's own
modules, only third-party imports and steps, and child flows a framework references by name, are
live imports); and its ``entry`` resolves inside the chunk, now as ``<module>.<qualname>`` in the
chunk's modules. The manifest's fields (``chunk``, ``chunkDigest``, ``entry``) keep their names
and meaning; a manifest of the last release pairs its old ``entry`` values with chunks of the old
layout, which load as they did.

Rejected: markers between the sections (a marker-shaped line inside a string literal of the
user's code would split it), and the modules' code as string literals passed to ``exec`` (the
chunk would no longer read as the code it runs).
"""

from __future__ import annotations
import __future__

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["LAYOUT", "ChunkLayout", "ChunkLayoutError", "ChunkModule", "ChunkRun", "parse", "render"]

LAYOUT = "loom-chunk/2"
_LAYOUT_LINE = (f"# layout: {LAYOUT} (each `module` below runs in its own module object; "
                "the `run` lines say which lines run in which module, in order)")
_MODULE_RE = re.compile(r"# module: (?P<name>\S+) (?P<kind>package|module) (?P<future>\S+) (?P<path>.+)\Z")
_LAZY_RE = re.compile(r"# lazy: (?P<name>\S+)\Z")
_RUN_RE = re.compile(r"# run: (?P<name>\S+) (?P<first>[0-9]+)-(?P<last>[0-9]+)\Z")
_FILE_RE = re.compile(r"# file: (?P<digest>sha256:[0-9a-f]{64}|absent) (?P<path>\S.*)\Z")


class ChunkLayoutError(ValueError):
    """The header of a ``loom-chunk/2`` file is malformed; ``line`` is 1-based."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True, slots=True)
class ChunkModule:
    name: str  # the module's own dotted name ("shop.pricing")
    package: bool
    future: tuple[str, ...]  # ``from __future__`` features of its source ("annotations")
    path: str  # its source file, relative to the project root (for readers)


@dataclass(frozen=True, slots=True)
class ChunkRun:
    module: str
    first: int  # 1-based, inclusive
    last: int


@dataclass(frozen=True, slots=True)
class ChunkLayout:
    modules: tuple[ChunkModule, ...]  # parents before children
    runs: tuple[ChunkRun, ...]  # in execution order (ascending lines)
    lazy: tuple[str, ...] = ()  # modules whose runs wait for their first use
    #: project files (no bundled module) whose text bundled code runs by path, with the digest of
    #: the bytes the version was built from ("absent": there was none): ``(path, digest)``
    files: tuple[tuple[str, str], ...] = ()


def render(head: Sequence[str], modules: Sequence[ChunkModule], runs: Sequence[tuple[str, str]],
           lazy: Sequence[str] = (), files: Sequence[tuple[str, str]] = ()) -> str:
    """The chunk text: ``head`` (comment lines without the ``# `` prefix), the layout header, then
    each run's text (``(module, text)``, in execution order) with two blank lines between runs."""
    header = [f"# {line}" if line else "#" for line in head]
    header.append(_LAYOUT_LINE)
    for m in modules:
        future = ",".join(m.future) or "-"
        header.append(f"# module: {m.name} {'package' if m.package else 'module'} {future} {m.path or '-'}")
    header.extend(f"# lazy: {name}" for name in lazy)
    header.extend(f"# file: {digest} {path}" for path, digest in files)
    lineno = len(header) + len(runs) + 3  # the run lines, then two blank lines before the first run
    body: list[str] = []
    for module, text in runs:
        lines = text.rstrip("\n").split("\n")
        header.append(f"# run: {module} {lineno}-{lineno + len(lines) - 1}")
        body.append("\n".join(lines))
        lineno += len(lines) + 2
    return "\n".join(header) + "\n\n\n" + "\n\n\n".join(body) + "\n"


def parse(text: str) -> ChunkLayout | None:
    """The layout the header of ``text`` declares; None for a chunk of the one-namespace layout
    (no ``layout`` line). Raises ``ChunkLayoutError`` for a header that does not hold together."""
    lines = text.split("\n")
    header: list[tuple[int, str]] = []
    for i, line in enumerate(lines, 1):
        if not line.startswith("#"):
            break
        header.append((i, line.rstrip("\r")))
    layout_at = [i for i, line in header if line.startswith("# layout:")]
    if not layout_at:
        return None
    if header[layout_at[0] - 1][1] != _LAYOUT_LINE:
        raise ChunkLayoutError(f"unknown chunk layout {header[layout_at[0] - 1][1][len('# layout: '):]!r} "
                               f"(this runtime reads {LAYOUT})", layout_at[0])
    modules: dict[str, ChunkModule] = {}
    runs: list[ChunkRun] = []
    lazy: list[str] = []
    files: list[tuple[str, str]] = []
    end = header[-1][0]
    for i, line in header:
        if m := _MODULE_RE.match(line):
            name = m["name"]
            if name in modules or not all(part.isidentifier() for part in name.split(".")):
                raise ChunkLayoutError(f"module `{name}` is declared twice or is not a dotted name", i)
            parent = name.rpartition(".")[0]
            if parent and (parent not in modules or not modules[parent].package):
                raise ChunkLayoutError(f"module `{name}` is declared before its package `{parent}`", i)
            future = () if m["future"] == "-" else tuple(m["future"].split(","))
            unknown = [f for f in future if f not in __future__.all_feature_names]
            if unknown:
                raise ChunkLayoutError(f"module `{name}` names unknown __future__ features {unknown}", i)
            modules[name] = ChunkModule(name, m["kind"] == "package", future, m["path"])
        elif m := _LAZY_RE.match(line):
            if m["name"] not in modules or m["name"] in lazy:
                raise ChunkLayoutError(f"lazy module `{m['name']}` is not declared, or named twice", i)
            lazy.append(m["name"])
        elif m := _RUN_RE.match(line):
            run = ChunkRun(m["name"], int(m["first"]), int(m["last"]))
            if run.module not in modules:
                raise ChunkLayoutError(f"run of undeclared module `{run.module}`", i)
            floor = runs[-1].last if runs else end
            if not floor < run.first <= run.last <= len(lines):
                raise ChunkLayoutError(f"run lines {run.first}-{run.last} overlap the header or the run "
                                       f"before, or pass the end of the file", i)
            runs.append(run)
        elif m := _FILE_RE.match(line):
            files.append((m["path"], m["digest"]))
        elif line.startswith(("# module:", "# run:", "# lazy:", "# file:")):
            raise ChunkLayoutError(f"unreadable layout line {line!r}", i)
    return ChunkLayout(tuple(modules.values()), tuple(runs), tuple(lazy), tuple(files))
