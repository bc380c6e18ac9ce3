"""Loader of the equal/changed pair suite: turns each :class:`Pair` into two projects on disk.

``sides(pair)`` returns the before and after file sets as bytes; ``write_project(files, root)``
lays one side out under ``root`` (a fresh directory per side, so no two sides ever share a path,
a ``linecache`` entry or a ``__pycache__``). ``load_pairs()`` applies every pair once and raises
:class:`PairError` naming the pair and the edit whose ``old`` text is missing or ambiguous.

Rejected: reusing the fingerprint engineer's ``tests/compiler`` cases. They are pinned to the
compiler's own API (one source string per case); the competitor schemes need importable
multi-module projects, so this suite is a project-level superset kept beside the benchmarks.
"""

from __future__ import annotations

from pathlib import Path

from . import base
from .cases import PAIRS, Edit, Pair

__all__ = ["PAIRS", "Pair", "Edit", "PairError", "sides", "write_project", "load_pairs", "base"]

BOM = b"\xef\xbb\xbf"


class PairError(ValueError):
    """A pair whose edit does not apply to the base project exactly once."""


def _apply(pair: Pair, files: dict[str, str]) -> dict[str, str]:
    out = dict(files)
    for i, edit in enumerate(pair.edits):
        if edit.path not in out:
            raise PairError(f"pair `{pair.name}`, edit {i + 1}: no file {edit.path!r} in the base project")
        n = out[edit.path].count(edit.old)
        if n != 1:
            raise PairError(
                f"pair `{pair.name}`, edit {i + 1} in {edit.path}: the text to replace occurs {n} times "
                f"(it must occur exactly once): {edit.old[:60]!r}"
            )
        out[edit.path] = out[edit.path].replace(edit.old, edit.new)
    return out


def _encode(files: dict[str, str], *, crlf: tuple[str, ...] = (), bom: tuple[str, ...] = ()) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for path, text in files.items():
        data = (text.replace("\n", "\r\n") if path in crlf else text).encode("utf-8")
        out[path] = BOM + data if path in bom else data
    return out


def sides(pair: Pair) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """(before, after) file sets of ``pair``, POSIX paths relative to the project root -> bytes."""
    for path in (*pair.crlf, *pair.bom):
        if path not in base.FILES:
            raise PairError(f"pair `{pair.name}`: crlf/bom names {path!r}, which is not in the base project")
    before = _encode(base.FILES)
    after_text = _apply(pair, base.FILES)
    after = _encode(after_text, crlf=pair.crlf, bom=pair.bom)
    if pair.expect not in ("equal", "changed"):
        raise PairError(f"pair `{pair.name}`: expect must be 'equal' or 'changed', got {pair.expect!r}")
    if pair.name != "identical" and after == before:
        raise PairError(f"pair `{pair.name}`: the after side is byte-identical to the before side")
    return before, after


def write_project(files: dict[str, bytes], root: Path) -> Path:
    """Write one side under ``root`` (created) with a ``pyproject.toml`` naming ``shop`` first-party."""
    root.mkdir(parents=True, exist_ok=False)
    for rel, data in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "pair-shop"\nversion = "0"\n\n'
        f'[tool.loom]\npackages = ["{base.PACKAGE}"]\n',
        encoding="utf-8",
    )
    return root


def load_pairs() -> tuple[Pair, ...]:
    """Every pair, each checked to apply cleanly; names are unique."""
    seen: set[str] = set()
    for pair in PAIRS:
        if pair.name in seen:
            raise PairError(f"pair name `{pair.name}` is used twice")
        seen.add(pair.name)
        sides(pair)
    return PAIRS
