"""Bundler: per-version chunks, the cumulative ``loom-manifest/1`` and ``loom build``.

Public subpackage of ``loom_compiler``; the modules each do one thing:
``chunk`` (emit a chunk from a flow's closure), ``manifest_build`` (cumulative merge),
``rehash`` (which earlier-scheme versions a version built now is the same code as),
``history`` (a git-ref ``SourceTree``), ``cache`` (content-addressed analysis cache),
``progress`` (terminal bar and summary) and ``build`` (``build_project``, the orchestration).
"""

from typing import TYPE_CHECKING

from .. import _lazy_getattr

if TYPE_CHECKING:
    from .build import MANIFEST_NAME, BuildReport, build_project
    from .cache import SummaryCache
    from .chunk import Chunk, ChunkError, chunk_path_for, emit_chunk, flow_slug, source_digest
    from .history import GitError, GitSourceTree
    from .manifest_build import MergeResult, merge_manifest
    from .rehash import rehashed_from, same_code, sources_match
    from .progress import BuildSummary, format_summary, make_progress

# Public name -> submodule, imported on first access (PEP 562): ``loom build`` served from the
# cache must not import libcst through ``chunk``.
_LAZY = {
    "MANIFEST_NAME": "build", "BuildReport": "build", "build_project": "build",
    "SummaryCache": "cache",
    "Chunk": "chunk_file", "ChunkError": "chunk_file", "chunk_path_for": "chunk_file", "flow_slug": "chunk_file",
    "source_digest": "chunk_file", "emit_chunk": "chunk",
    "GitError": "history", "GitSourceTree": "history",
    "MergeResult": "manifest_build", "merge_manifest": "manifest_build",
    "rehashed_from": "rehash", "same_code": "rehash", "sources_match": "rehash",
    "BuildSummary": "progress", "format_summary": "progress", "make_progress": "progress",
}


__getattr__ = _lazy_getattr(__name__, _LAZY)


__all__ = [
    "build_project",
    "BuildReport",
    "MANIFEST_NAME",
    "Chunk",
    "ChunkError",
    "chunk_path_for",
    "emit_chunk",
    "flow_slug",
    "source_digest",
    "GitError",
    "GitSourceTree",
    "MergeResult",
    "merge_manifest",
    "rehashed_from",
    "same_code",
    "sources_match",
    "SummaryCache",
    "BuildSummary",
    "format_summary",
    "make_progress",
]
