"""Where module source comes from: the ``SourceTree`` protocol and its filesystem implementation.

The analysis core never touches the filesystem; it is handed bytes. A ``SourceTree`` maps dotted
module names to paths and bytes, so the closure stage can load the first-party modules a flow
reaches *on demand* (only those are parsed). The bundler adds a git-ref implementation of the same
protocol to fingerprint an older revision without checking it out.

Module names derive from the configured package roots: a file under ``<root>/<pkg>`` or
``<root>/src/<pkg>`` is named from the package's parent directory; any other file is named from
the project root (``scripts/run.py`` -> ``scripts.run``).

Rejected: importing modules to find their files (``importlib.util.find_spec``) — it would run
user code at build time and see the installed version instead of the checkout.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from .config import LoomConfig

__all__ = [
    "SourceTree",
    "DirectorySourceTree",
    "decode_source",
    "SourceDecodeError",
    "is_excluded",
    "iter_python_files",
]

# never descended into when walking a directory
_SKIP_DIRS = frozenset({"__pycache__", "node_modules", "site-packages", ".git", ".hg", ".venv", "venv", ".tox", ".nox"})


@runtime_checkable
class SourceTree(Protocol):
    """A read-only view of a project's Python modules."""

    def module_names(self) -> Iterable[str]: ...

    def path_of(self, module: str) -> str | None:
        """POSIX path relative to the project root, or None when the module is not in the tree."""
        ...

    def read(self, module: str) -> bytes | None:
        """The module's bytes, or None when it is not in the tree (or cannot be read)."""
        ...


class SourceDecodeError(ValueError):
    def __init__(self, message: str, line: int = 1, column: int = 0) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


def decode_source(data: bytes) -> str:
    """UTF-8 with an optional BOM (PEP 3120). Line/column of the first bad byte on failure."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        offset = exc.start + (3 if data.startswith(b"\xef\xbb\xbf") else 0)
        head = data[:offset]
        line = head.count(b"\n") + 1
        column = offset - (head.rfind(b"\n") + 1)
        raise SourceDecodeError(
            f"not valid UTF-8 ({exc.reason}, byte 0x{data[offset]:02x}); save the file as UTF-8",
            line,
            column,
        ) from None


def is_excluded(rel_posix: str, patterns: Iterable[str]) -> bool:
    """``exclude`` globs match the POSIX path relative to the root, or any of its leading dirs."""
    candidates = [rel_posix] + [rel_posix[:i] for i, ch in enumerate(rel_posix) if ch == "/" and i]
    for pattern in patterns:
        pat = pattern.rstrip("/")
        for cand in candidates:
            if fnmatch.fnmatchcase(cand, pat) or fnmatch.fnmatchcase(cand, pat + "/**"):
                return True
    return False


def iter_python_files(top: Path, root: Path, exclude: Iterable[str] = ()) -> Iterator[Path]:
    """``*.py`` files under ``top`` in sorted order, honouring ``exclude`` (relative to ``root``)."""
    exclude = tuple(exclude)
    if top.is_file():
        yield top
        return
    for dirpath, dirnames, filenames in os.walk(top):
        here = Path(dirpath)
        base = _rel(here, root) if exclude else ""
        prefix = "" if base in ("", ".") else base + "/"
        kept = []
        for d in sorted(dirnames):
            if d in _SKIP_DIRS or d.startswith("."):
                continue
            if exclude and is_excluded(prefix + d, exclude):
                continue
            kept.append(d)
        dirnames[:] = kept
        for name in sorted(filenames):
            if name.endswith(".py"):
                if exclude and is_excluded(prefix + name, exclude):
                    continue
                yield here / name


def _rel(path: Path, root: Path) -> str:
    # the absolute path first: a symlinked file keeps the name it is listed under; then the
    # resolved one, for a checkout reached through a symlinked directory
    for candidate in _absolute_then_resolved(path):
        try:
            return candidate.relative_to(root).as_posix()
        except ValueError:
            continue
    return path.as_posix()


def _absolute_then_resolved(path: Path) -> Iterator[Path]:
    yield Path(os.path.abspath(path))
    yield path.resolve()  # only when the absolute path is not under the root (rare: costs lstat calls)


@dataclass(frozen=True, slots=True)
class _Entry:
    path: Path
    rel: str


class DirectorySourceTree:
    """The working tree under ``root`` (``config.root`` by default)."""

    def __init__(self, root: Path | str | None = None, config: LoomConfig | None = None) -> None:
        if config is None:
            config = LoomConfig(root=Path(root or ".").resolve())
        self.config = config
        self.root = Path(root).resolve() if root is not None else config.root
        self._index: dict[str, _Entry] | None = None
        self._bases: tuple[Path, ...] | None = None

    # -- naming ---------------------------------------------------------------------------------
    def package_bases(self) -> tuple[Path, ...]:
        """Directories that module names are computed from (a package root's parent first)."""
        if self._bases is not None:
            return self._bases
        bases: list[Path] = []
        for pkg in self.config.packages:
            rel = Path(*pkg.split("."))
            for base in (self.root, self.root / "src"):
                if (base / rel).is_dir() or (base / rel).with_suffix(".py").is_file():
                    top = base / rel
                    for _ in pkg.split("."):
                        top = top.parent
                    if top not in bases:
                        bases.append(top)
                    break
        self._bases = tuple(bases)
        return self._bases

    def module_name_for(self, path: Path) -> str:
        """Dotted module name of a file (``pkg/__init__.py`` -> ``pkg``)."""
        for candidate in _absolute_then_resolved(path):
            for base in (*self.package_bases(), self.root):
                try:
                    rel = candidate.relative_to(base)
                except ValueError:
                    continue
                return _dotted(rel)
        return path.stem

    def relpath(self, path: Path) -> str:
        return _rel(path, self.root)

    # -- SourceTree -----------------------------------------------------------------------------
    def _build_index(self) -> dict[str, _Entry]:
        index: dict[str, _Entry] = {}
        for path in iter_python_files(self.root, self.root, self.config.walk_exclude):
            name = self.module_name_for(path)
            if name and name not in index:
                index[name] = _Entry(path, self.relpath(path))
        return index

    def module_names(self) -> Iterable[str]:
        if self._index is None:
            self._index = self._build_index()
        return sorted(self._index)

    def _lookup(self, module: str) -> _Entry | None:
        if self._index is not None:
            return self._index.get(module)
        # fast path without walking the whole tree: probe the candidate files directly
        parts = module.split(".")
        if not all(p.isidentifier() for p in parts):
            return None
        for base in (*self.package_bases(), self.root):
            for cand in (base.joinpath(*parts).with_suffix(".py"), base.joinpath(*parts, "__init__.py")):
                if cand.is_file():
                    rel = self.relpath(cand)
                    if is_excluded(rel, self.config.walk_exclude):
                        return None
                    return _Entry(cand, rel)
        return None

    def path_of(self, module: str) -> str | None:
        entry = self._lookup(module)
        return entry.rel if entry else None

    def read(self, module: str) -> bytes | None:
        entry = self._lookup(module)
        if entry is None:
            return None
        try:
            return entry.path.read_bytes()
        except OSError:
            return None


def _dotted(rel: Path) -> str:
    parts = list(rel.with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)
