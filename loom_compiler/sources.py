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
from collections.abc import Callable, Iterable, Iterator
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
    "is_loom_output",
    "iter_python_files",
]

# Never descended into when walking a directory (nor resolved into by a lookup), unless a
# configured package lies there: tool, VCS and environment directories, and build output, which
# holds copies of the package (setuptools' ``build/lib``, an unpacked wheel) or loom chunks that
# declare the same flows again ("flow id declared 2 times"). Names starting with "." are skipped too.
_SKIP_DIRS = frozenset({
    "__pycache__", "node_modules", "site-packages", ".git", ".hg", ".venv", "venv", ".tox", ".nox",
    ".loom-cache", "build", "dist",
})
# ``build``/``dist`` holding an ``__init__.py`` are packages (``shop/build/``), not output
_OUTPUT_NAMES = frozenset({"build", "dist"})
#: a directory holding this file is a copy of a loom bundle made by the packaging hooks
BUNDLE_MARKER = ".loom-editable-copy"
_MANIFEST_NAME = "manifest.json"
_MANIFEST_SCHEMA = b'"loom-manifest/1"'


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
    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
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
        column = offset - head.rfind(b"\n")  # 1-based
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


def is_loom_output(directory: Path, filenames: Iterable[str] | None = None) -> bool:
    """Whether ``directory`` holds loom build output: a ``manifest.json`` of the loom schema (an
    out directory, a wheel's ``_loom``) or the packaging hooks' bundle marker. ``filenames`` (its
    listing, when the caller has one) saves the probes: the manifest is read only when listed."""
    names = None if filenames is None else set(filenames)
    if names is None or BUNDLE_MARKER in names:
        if (directory / BUNDLE_MARKER).is_file():
            return True
    if names is not None and _MANIFEST_NAME not in names:
        return False
    try:
        with open(directory / _MANIFEST_NAME, "rb") as fh:
            head = fh.read(65536)
    except OSError:
        return False
    # a loose byte check is enough here: any JSON naming the loom schema is loom's output
    return _MANIFEST_SCHEMA in head


def kept_dirs(packages: Iterable[str]) -> frozenset[str]:
    """Relative directories the user named in ``packages`` (with their parents, at the root and
    under ``src/``): never skipped, even when called ``build`` or ``dist``."""
    kept: set[str] = set()
    for pkg in packages:
        parts = pkg.split(".")
        for base in ((), ("src",)):
            full = [*base, *parts]
            kept.update("/".join(full[:i]) for i in range(1, len(full) + 1))
    return frozenset(kept)


def skipped_by_name(directory: Path, name: str) -> bool:
    """A tool, environment or build-output directory (``build``/``dist`` only when not a package)."""
    return skipped_dir_name(name, lambda: (directory / "__init__.py").is_file())


def skipped_dir_name(name: str, is_package: Callable[[], bool]) -> bool:
    """``skipped_by_name`` for any tree (a directory, a git ref's listing): ``is_package`` says
    whether the directory holds an ``__init__.py``; it is asked only for ``build``/``dist``."""
    if name in _SKIP_DIRS or name.startswith(".") or name.endswith(".egg-info"):
        return not (name in _OUTPUT_NAMES and is_package())
    return False


def package_prefixes(packages: Iterable[str], exists: Callable[[str], bool]) -> tuple[str, ...]:
    """Where module names are computed from, as POSIX prefixes of paths relative to the project
    root (``"src/"``, ``""``): the parent of each configured package found at the root or under
    ``src/`` (``exists(rel)``: a directory or a ``rel + ".py"`` file is there), then the root.
    Longest first, so that in a tree with packages both at the root and under ``src/`` a file under
    ``src/<pkg>`` is named ``<pkg>.…``, not ``src.<pkg>.…``. One rule for every ``SourceTree``."""
    prefixes: set[str] = {""}
    for pkg in packages:
        parts = pkg.split(".")
        for base in ("", "src/"):
            if exists(base + "/".join(parts)):
                prefixes.add(base)  # ``a.b`` lives at ``<base>a/b``: named from ``base``
                break
    return tuple(sorted(prefixes, key=lambda p: (-len(p), p)))


def module_name_of(rel: str, prefixes: Iterable[str]) -> str:
    """Dotted module name of a ``.py`` file from its POSIX path relative to the project root
    (``src/shop/__init__.py`` -> ``shop``), named from the first of ``prefixes`` it lies under."""
    for prefix in prefixes:
        if rel.startswith(prefix):
            return _dotted_posix(rel[len(prefix):])
    return _dotted_posix(rel)


def iter_python_files(top: Path, root: Path, exclude: Iterable[str] = (), *,
                      packages: Iterable[str] = ()) -> Iterator[Path]:
    """``*.py`` files under ``top`` in sorted order, honouring ``exclude`` (relative to ``root``).

    Below ``top``, non-source directories are not entered: tool and environment directories,
    build output (``build``, ``dist``, ``*.egg-info``) and any directory holding loom output
    (``is_loom_output``), unless ``packages`` names them. ``top`` itself was asked for.
    """
    if top.is_file():
        yield top
        return
    for full, _ in _walk(top, root, tuple(exclude), kept_dirs(packages)):
        yield Path(full)


def _walk(top: Path, root: Path, exclude: tuple[str, ...], kept: frozenset[str]) -> Iterator[tuple[str, str]]:
    """``iter_python_files`` below a directory as strings: (path, POSIX path relative to ``root``)."""
    # from the root, every directory on a file's path was checked on the way down
    from_root = os.path.abspath(top) == os.path.abspath(root)
    for dirpath, dirnames, filenames in os.walk(top):
        here = Path(dirpath)
        base = _rel(here, root)
        prefix = "" if base in ("", ".") else base + "/"
        if dirpath != str(top) and base not in kept and is_loom_output(here, filenames):
            dirnames[:] = []
            continue
        kept_here = []
        for d in sorted(dirnames):
            if (prefix + d) not in kept:
                if skipped_by_name(here / d, d):
                    continue
                if exclude and is_excluded(prefix + d, exclude):
                    continue
            kept_here.append(d)
        dirnames[:] = kept_here
        for name in sorted(filenames):
            if name.endswith(".py"):
                if exclude and (_own_name_excluded(prefix + name, exclude) if from_root
                                else is_excluded(prefix + name, exclude)):
                    continue
                yield os.path.join(dirpath, name), prefix + name


def _own_name_excluded(rel: str, patterns: Iterable[str]) -> bool:
    # the walk has already pruned every excluded directory above ``rel``
    return any(fnmatch.fnmatchcase(rel, p.rstrip("/")) for p in patterns)


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
    path: str
    rel: str


class DirectorySourceTree:
    """The working tree under ``root`` (``config.root`` by default).

    Walking names each file with string operations on its path relative to the root (the walk
    starts at the resolved root, so no file needs resolving again); a lookup before any walk
    probes the candidate files and checks their directories against the same skip rules.
    """

    def __init__(self, root: Path | str | None = None, config: LoomConfig | None = None) -> None:
        if config is None:
            config = LoomConfig(root=Path(root or ".").resolve())
        self.config = config
        self.root = Path(root).resolve() if root is not None else config.root
        self._index: dict[str, _Entry] | None = None
        self._base_prefixes: tuple[str, ...] | None = None
        self._kept = kept_dirs(config.packages)
        self._dir_skipped: dict[str, bool] = {}

    # -- naming ---------------------------------------------------------------------------------
    def _prefixes(self) -> tuple[str, ...]:
        if self._base_prefixes is None:
            root = self.root
            self._base_prefixes = package_prefixes(
                self.config.packages, lambda rel: (root / rel).is_dir() or (root / (rel + ".py")).is_file()
            )
        return self._base_prefixes

    def module_name_for(self, path: Path) -> str:
        """Dotted module name of a file (``pkg/__init__.py`` -> ``pkg``); a file outside the root
        is named by its stem."""
        for candidate in _absolute_then_resolved(path):
            try:
                rel = candidate.relative_to(self.root)
            except ValueError:
                continue
            return self.module_name_of_rel(rel.as_posix())
        return path.stem

    def module_name_of_rel(self, rel: str) -> str:
        """``module_name_for`` of a file given by its POSIX path relative to the root."""
        return module_name_of(rel, self._prefixes())

    def relpath(self, path: Path) -> str:
        return _rel(path, self.root)

    def walk(self) -> Iterator[tuple[str, str, str]]:
        """``(module, rel, path)`` of every module file, in sorted order, with the skip rules and
        ``walk_exclude`` applied; a module name bound twice keeps its first file. Builds the index
        as it goes, so lookups after a walk cost nothing."""
        index: dict[str, _Entry] = {}
        for full, rel in _walk(self.root, self.root, self.config.walk_exclude, self._kept):
            name = self.module_name_of_rel(rel)
            if name and name not in index:
                index[name] = _Entry(full, rel)
                yield name, rel, full
        self._index = index

    # -- SourceTree -----------------------------------------------------------------------------
    def module_names(self) -> Iterable[str]:
        if self._index is None:
            for _ in self.walk():
                pass
        assert self._index is not None
        return sorted(self._index)

    def _skipped_dir(self, rel_dir: str) -> bool:
        """Whether a directory (relative to the root) or one of its parents is one the walk skips."""
        if not rel_dir:
            return False
        known = self._dir_skipped.get(rel_dir)
        if known is None:
            parent, _, name = rel_dir.rpartition("/")
            directory = self.root / rel_dir
            known = self._skipped_dir(parent) or (
                rel_dir not in self._kept
                and (skipped_by_name(directory, name) or is_loom_output(directory)
                     or is_excluded(rel_dir, self.config.walk_exclude))
            )
            self._dir_skipped[rel_dir] = known
        return known

    def _lookup(self, module: str) -> _Entry | None:
        if self._index is not None:
            return self._index.get(module)
        # fast path without walking the whole tree: probe the candidate files directly
        parts = module.split(".")
        if not all(p.isidentifier() for p in parts):
            return None
        for prefix in self._prefixes():
            for tail in ("/".join(parts) + ".py", "/".join(parts) + "/__init__.py"):
                rel = prefix + tail
                cand = self.root / rel
                if cand.is_file():
                    if self._skipped_dir(rel.rpartition("/")[0]) or is_excluded(rel, self.config.walk_exclude):
                        return None
                    return _Entry(str(cand), rel)
        return None

    def path_of(self, module: str) -> str | None:
        entry = self._lookup(module)
        return entry.rel if entry else None

    def read(self, module: str) -> bytes | None:
        entry = self._lookup(module)
        if entry is None:
            return None
        try:
            with open(entry.path, "rb") as fh:
                return fh.read()
        except OSError:
            return None


def _dotted_posix(rel: str) -> str:
    parts = rel[:-3].split("/") if rel.endswith(".py") else rel.split("/")
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)

