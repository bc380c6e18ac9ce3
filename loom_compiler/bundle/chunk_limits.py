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

Rejected: bundling a file's text and rewriting the loading call (the call can be any of several
loaders, through helpers, with the path computed anywhere: a rewrite that misses one spelling runs
the live file again); refusing to build any flow that loads code by path (the code is served
right as long as the file is unchanged, which is what the check establishes); and leaving such a
submodule out of its package in the chunk (live, another import usually did load it: the chunk
would then fail where live code worked).
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Callable, Iterable

from ..model import FlowFingerprint
from .chunk_file import ChunkError
from .chunk_memo import ChunkMemo

__all__ = ["code_files", "refuse_code_strings", "refuse_unreproducible"]

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
    relatively (above)."""
    for text, path, line in statements:
        if "import" not in text or not any(name in text for name in _CODE_RUNNERS):
            continue
        for row, column, module, spelled in memo.get("code-strings", text, lambda text=text: _string_imports(text)):
            if module.startswith(".") or first_party(module):
                raise ChunkError(
                    f"flow `{fp.flow_id}`: a string run as code imports first-party code (`{spelled}`); a chunk cannot "
                    "rewrite an import inside a string to its own module, so it would import the live module, code "
                    f"this version did not pin. Write `{spelled}` as a statement and run the rest",
                    path=path, line=line + row - 1, column=column + 1)


def _string_imports(text: str) -> list[tuple[int, int, str, str]]:
    """``(line in text, column, module, the import as written)`` of each import in a literal
    string a code runner of ``text`` is given (a relative module keeps its dots)."""
    try:
        tree = ast.parse(text)
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
