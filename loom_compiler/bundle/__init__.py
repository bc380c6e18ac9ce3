"""Bundler: per-version chunks, the cumulative ``loom-manifest/1`` and ``loom build``.

Public subpackage of ``loom_compiler``; the modules each do one thing:
``chunk`` (emit a chunk from a flow's closure), ``manifest_build`` (cumulative merge),
``history`` (a git-ref ``SourceTree``), ``cache`` (content-addressed analysis cache),
``progress`` (terminal bar and summary) and ``build`` (``build_project``, the orchestration).
"""

from .build import MANIFEST_NAME, BuildReport, build_project
from .cache import SummaryCache
from .chunk import Chunk, ChunkError, chunk_path_for, emit_chunk, flow_slug, source_digest
from .history import GitError, GitSourceTree
from .manifest_build import MergeResult, merge_manifest
from .progress import BuildSummary, format_summary, make_progress

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
    "SummaryCache",
    "BuildSummary",
    "format_summary",
    "make_progress",
]
