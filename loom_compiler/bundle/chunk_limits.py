"""What a chunk cannot bundle: code run from files by path (checked when served) and reads it cannot reproduce.

A chunk must run exactly what the live modules ran (DESIGN §7). Two things the fingerprint covers
(issue 12's L2 and E10) are not statements a chunk can bundle:

* **Code loaded by path** (``static_paths``: ``exec(open(os.path.join(os.path.dirname(__file__),
  'plug.txt')).read())``, ``runpy.run_path``, ``spec_from_file_location``, ...). The path is
  computed from ``__file__``, which in a chunk is the live module's file (``loom_runtime.
  chunk_modules``: data files next to it are read as live code reads them), so the chunk runs the
  file as it is when the execution is served. The fingerprint hashes that file's bytes (its
  ``<path>#file`` member); ``code_files`` lists them with their digests for the chunk's header
  (``# file:`` lines, ``loom_runtime.chunk_layout``), and the loader refuses the chunk when a
  file no longer holds those bytes: an old execution then fails with an error naming the file,
  never runs other code than it started on. A file whose bytes the build could not read is a
  build error of the flow (nothing to pin).
* **A submodule read as its package's attribute that no module that runs imports**
  (``closure``'s ``submodule-unloaded`` warning: ``import shop.a`` then ``shop.b.f()``): live
  the attribute exists only once some other import loaded ``shop.b``, a fact of the serving
  process; a chunk's packages hold every bundled submodule from the start. The build fails for
  that flow (``refuse_unreproducible``) with the read's file, line and column and what to do.

Rejected: bundling a file's text and rewriting the loading call (the call can be any of several
loaders, through helpers, with the path computed anywhere: a rewrite that misses one spelling runs
the live file again); refusing to build any flow that loads code by path (the code is served
right as long as the file is unchanged, which is what the check establishes); and leaving such a
submodule out of its package in the chunk (live, another import usually did load it: the chunk
would then fail where live code worked).
"""

from __future__ import annotations

from ..model import FlowFingerprint
from .chunk_file import ChunkError

__all__ = ["code_files", "refuse_unreproducible"]


def refuse_unreproducible(fp: FlowFingerprint) -> None:
    """Raise ``ChunkError`` when ``fp``'s code reads a submodule a chunk could not hold as live
    code does (above)."""
    for w in fp.warnings:
        if w.code == "submodule-unloaded":
            raise ChunkError(f"flow `{fp.flow_id}`: {w.message}; a chunk cannot reproduce a read that depends on "
                             "which other imports ran first", path=w.path, line=w.line, column=w.column)


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
