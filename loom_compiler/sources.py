"""Where module source comes from: the ``SourceTree`` protocol and its filesystem implementation.

The analysis core never touches the filesystem; it is handed bytes. A ``SourceTree`` maps dotted
module names to paths and bytes, so the closure stage can load the first-party modules a flow
reaches *on demand* (only those are parsed). The bundler adds a git-ref implementation of the same
protocol to fingerprint an older revision without checking it out.

Module names derive from the configured package roots: a file under ``<root>/<pkg>`` or
``<root>/src/<pkg>`` is named from the package's parent directory; any other file is named from
the project root (``scripts/run.py`` -> ``scripts.run``).

Two questions, two answers (``loom-fp/2``, DESIGN §6). *Where are flows looked for*
(``module_names``, ``walk``): every module file except those under tool, environment and build
output directories and ``exclude``. *What does an import load* (``path_of``, ``read``: what a
closure follows): the file Python imports, whatever directory it is in -- a first-party
subpackage called ``venv/`` or ``build/``, or one under ``exclude``, is still the code the flow
runs. In both, a package wins over a module file of the same name (``shop/pricing/__init__.py``
over ``shop/pricing.py``), as in Python's import system; the shadowed file is never imported, so
it is neither walked nor looked up.

Rejected: importing modules to find their files (``importlib.util.find_spec``) — it would run
user code at build time and see the installed version instead of the checkout.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from loom_runtime.file_listing import read_listing, split_listing
from loom_runtime.files import Signature, current_signature, read_with_signature

from .config import LoomConfig
from .decoding import SourceDecodeError, decode_source

__all__ = [
    "SourceTree",
    "DirectorySourceTree",
    "decode_source",
    "SourceDecodeError",
    "SourceReadError",
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
        """The module's bytes, or None when it is not in the tree; ``SourceReadError`` when it is
        in the tree but cannot be read (never None: an unreadable module is not an absent one)."""
        ...


class SourceReadError(OSError):
    """A module the tree lists could not be read: ``rel`` (its POSIX path) and why (``reason``).

    Raised instead of returning None, so that no caller can take an unreadable helper for a
    missing one (it would be hashed as an import of the live package, and bundled as one)."""

    def __init__(self, rel: str, reason: str) -> None:
        super().__init__(f"{rel}: cannot read ({reason})")
        self.strerror = reason  # what ``except OSError`` callers print
        self.rel = rel
        self.reason = reason


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


def _walk(top: Path, root: Path, exclude: tuple[str, ...], kept: frozenset[str], *,
          on_dir: Callable[[str], None] | None = None,
          on_listing: Callable[[str, str, tuple[str, ...]], None] | None = None,
          on_error: Callable[[OSError], None] | None = None) -> Iterator[tuple[str, str]]:
    """``iter_python_files`` below a directory as strings: (path, POSIX path relative to ``root``).

    ``on_dir(path)`` is called for ``top`` and for every directory the walk will enter, *before*
    it is listed; ``on_listing(path, prefix, names)`` with what the walk took from each listing
    (``_listing``). ``on_error`` gets every directory that could not be listed (by default those
    are silently skipped). A *directory* named ``x.py`` is yielded as a file: it is where a
    module's source should be, and reading it fails with a clear error instead of the module
    silently disappearing."""
    from_root = os.path.abspath(top) == os.path.abspath(root)
    if on_dir is not None:
        on_dir(str(top))
    for dirpath, dirnames, filenames in os.walk(top, onerror=on_error):
        here = Path(dirpath)
        base = _rel(here, root)
        prefix = "" if base in ("", ".") else base + "/"
        if dirpath != str(top) and base not in kept and is_loom_output(here, filenames):
            dirnames[:] = []
            continue
        files, dirs = _listing(here, prefix, dirnames, filenames, exclude, kept, from_root)
        dirnames[:] = dirs
        if on_dir is not None:
            for d in dirs:
                on_dir(os.path.join(dirpath, d))
        if on_listing is not None:
            on_listing(dirpath, prefix, (*files, *(d + "/" for d in dirs)))
        for name in files:
            yield os.path.join(dirpath, name), prefix + name


def _listing(here: Path, prefix: str, dirnames: Iterable[str], filenames: Iterable[str], exclude: tuple[str, ...],
             kept: frozenset[str], from_root: bool) -> tuple[list[str], list[str]]:
    """What the walk takes from one directory's listing: its module file names (``*.py``, and
    directories so named), sorted, and the subdirectories it enters, sorted."""
    dirs: list[str] = []
    # a module file beside a package of its name is shadowed: Python imports the package
    files = [n for n in filenames if n.endswith(".py") and not (n[:-3] in dirnames and
                                                                 os.path.isfile(here / n[:-3] / "__init__.py"))]
    for d in sorted(dirnames):
        if d.endswith(".py"):
            files.append(d)  # not a package: a module path that is not a file
            continue
        if (prefix + d) not in kept:
            if skipped_by_name(here / d, d):
                continue
            if exclude and is_excluded(prefix + d, exclude):
                continue
        dirs.append(d)
    if exclude:
        files = [n for n in files if not (_own_name_excluded(prefix + n, exclude) if from_root
                                          else is_excluded(prefix + n, exclude))]
    return sorted(files), dirs


def _own_name_excluded(rel: str, patterns: Iterable[str]) -> bool:
    # the walk has already pruned every excluded directory above ``rel``
    return _own_name_matcher(tuple(patterns))(rel) is not None


@functools.lru_cache(maxsize=64)
def _own_name_matcher(patterns: tuple[str, ...]) -> Callable[[str], object]:
    """``any(fnmatch.fnmatchcase(rel, p.rstrip("/")) for p in patterns)`` as one regex match:
    called for every file of the tree (``fnmatchcase`` once per file and pattern cost a no-change
    build of 1,200 modules ~3 ms)."""
    return re.compile("|".join(f"(?:{fnmatch.translate(p.rstrip('/'))})" for p in patterns) or "(?!)").match


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
    starts at the resolved root, so no file needs resolving again); a lookup the walk did not
    answer probes the candidate files, package first.

    Reads never guess. A module path the tree lists but cannot read (permissions, a dangling
    symlink, a symlink loop, a directory or FIFO named ``x.py``, a file deleted since the walk) is
    a ``SourceReadError`` naming it, never "not in the tree"; a FIFO is refused, never waited on
    (``loom_runtime.files``). Every file read and every directory walked is remembered with its
    signature, so ``changed()`` can tell afterwards whether the tree moved under the reader: a
    caller that hashes what it read (``loom build``) retries or fails then, rather than emit the
    hash of a tree that never existed as a whole.
    """

    def __init__(self, root: Path | str | None = None, config: LoomConfig | None = None) -> None:
        if config is None:
            config = LoomConfig(root=Path(root or ".").resolve())
        self.config = config
        self.root = Path(root).resolve() if root is not None else config.root
        self._index: dict[str, _Entry] | None = None
        self._base_prefixes: tuple[str, ...] | None = None
        self._kept = kept_dirs(config.packages)
        self._seen: dict[str, Signature] = {}  # file path -> its signature when read
        self._listings: dict[tuple[str, str], bytes | None] = {}  # (directory, glob pattern) -> what it matched
        # directory path -> (signature before it was listed, its prefix, what the walk took from it)
        self._listed: dict[str, tuple[Signature, str, tuple[str, ...]]] = {}
        self._absent: set[str] = set()  # modules looked up and not found
        #: directories the walk could not list (``OSError`` each): part of the tree went unseen
        self.walk_errors: list[OSError] = []

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
        before: dict[str, Signature] = {}

        def on_dir(path: str) -> None:
            before[path] = current_signature(path)

        def on_listing(path: str, prefix: str, names: tuple[str, ...]) -> None:
            self._listed[path] = (before[path], prefix, names)

        for full, rel in _walk(self.root, self.root, self.config.walk_exclude, self._kept, on_dir=on_dir,
                               on_listing=on_listing, on_error=self.walk_errors.append):
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

    def _lookup(self, module: str) -> _Entry | None:
        """The file ``import <module>`` loads: the walk's index when it has the name, else a probe
        of the candidate files, package first, with no skip rule and no ``exclude`` (see the
        module docstring)."""
        if self._index is not None:
            hit = self._index.get(module)
            if hit is not None:
                return hit
        parts = module.split(".")
        if not all(p.isidentifier() for p in parts):
            return None
        for prefix in self._prefixes():
            for tail in ("/".join(parts) + "/__init__.py", "/".join(parts) + ".py"):
                rel = prefix + tail
                cand = self.root / rel
                # lexists: a dangling link, a FIFO or a directory there is the module's file,
                # unreadable (an error when read), not an absent module
                if os.path.lexists(cand):
                    return _Entry(str(cand), rel)
        return None

    def path_of(self, module: str) -> str | None:
        entry = self._lookup(module)
        if entry is None:
            self._absent.add(module)
            return None
        return entry.rel

    def read(self, module: str) -> bytes | None:
        entry = self._lookup(module)
        if entry is None:
            return None
        return self.read_file(entry.path, entry.rel)

    def read_data(self, rel: str) -> bytes | None:
        """The bytes of any file of the project by its POSIX path relative to the root (code a
        module loads by path, ``closure``'s file members), remembered for ``changed()``; None
        when nothing is there, ``SourceReadError`` when something is and cannot be read. A
        listing ``<dir>//<pattern>`` (``loom_runtime.file_listing``: what a glob matches) reads
        the names it matches, remembered so (a directory's own signature moves on any file added
        there, an editor's swap file too: only the matching names count)."""
        listing = split_listing(rel)
        if listing is not None:
            directory = os.path.join(str(self.root), *listing[0].split("/")) if listing[0] else str(self.root)
            try:
                found = read_listing(directory, listing[1])
            except OSError as exc:
                raise SourceReadError(rel, exc.strerror or str(exc)) from None
            self._listings[(directory, listing[1])] = found
            return found
        full = os.path.join(str(self.root), *rel.split("/"))
        if not os.path.lexists(full):
            self._seen[full] = current_signature(full)  # created later: the tree moved
            return None
        return self.read_file(full, rel)

    def read_file(self, path: str, rel: str) -> bytes:
        """The bytes of a file of this tree (``rel``: its POSIX path, for the error), remembered
        for ``changed()``; ``SourceReadError`` when it is not a readable regular file."""
        try:
            data, signature = read_with_signature(path)
        except OSError as exc:
            self._seen[path] = current_signature(path)
            raise SourceReadError(rel, exc.strerror or str(exc)) from None
        self._seen[path] = signature
        return data

    def read_log(self) -> tuple[dict[str, Signature], frozenset[str]]:
        """What ``changed()`` will check: every file read with its signature, and the modules
        looked up and not found (a forked worker's, handed to the build: ``adopt_reads``)."""
        return dict(self._seen), frozenset(self._absent)

    def adopt_reads(self, seen: dict[str, Signature], absent: Iterable[str]) -> None:
        """Check in ``changed()`` the files and absences another process read from this tree
        (a file read here too keeps its own signature: the earlier read)."""
        for path, signature in seen.items():
            self._seen.setdefault(path, signature)
        self._absent.update(absent)

    def changed(self) -> tuple[str, ...]:
        """POSIX paths (relative to the root) of what moved since it was read: a file whose
        signature differs now, a directory whose module files or subdirectories differ now (a
        directory whose only changes are elsewhere — the cache, an editor's swap file, a log — has
        not moved). Costs a ``stat`` per file and directory, a listing only where a directory's
        signature changed."""
        out = []
        for path, signature in self._seen.items():
            if current_signature(path) != signature:
                out.append(_rel(Path(path), self.root))
        for (path, pattern), listed in self._listings.items():
            try:
                now = read_listing(path, pattern)
            except OSError:
                now = b"\0"  # unreadable now: moved
            if now != listed:
                out.append(_rel(Path(path), self.root))
        moved_dirs = {path for path, (signature, _, _) in self._listed.items() if current_signature(path) != signature}
        for path in moved_dirs:
            _, prefix, names = self._listed[path]
            if self._names_now(path, prefix) != names:
                out.append(_rel(Path(path), self.root) + "/")
        # A module looked for and not found, in a directory that changed since: it may have been
        # there in between (a file unlinked and rewritten), whatever the directory holds now.
        for module in sorted(self._absent):
            for rel_dir in self._dirs_of(module):
                if (os.path.join(str(self.root), rel_dir) if rel_dir else str(self.root)) in moved_dirs:
                    out.append((rel_dir + "/" if rel_dir else "") + module.rpartition(".")[2] + ".py")
                    break
        return tuple(sorted(set(out)))

    def _dirs_of(self, module: str) -> list[str]:
        """The directories (relative, no trailing slash) whose listing decides whether ``module`` exists."""
        parts = module.split(".")
        if not all(p.isidentifier() for p in parts):
            return []
        out = []
        for prefix in self._prefixes():
            out.append((prefix + "/".join(parts[:-1])).rstrip("/"))  # <dir>/<name>.py
            out.append((prefix + "/".join(parts)).rstrip("/"))  # <dir>/<name>/__init__.py
        return out

    def _names_now(self, path: str, prefix: str) -> tuple[str, ...] | None:
        try:
            with os.scandir(path) as it:
                entries = [(e.name, e.is_dir()) for e in it]
        except OSError:
            return None
        dirnames = [n for n, is_dir in entries if is_dir]
        filenames = [n for n, is_dir in entries if not is_dir]
        # ``walk`` starts at the root: excluded directories above ``path`` were never entered
        files, dirs = _listing(Path(path), prefix, dirnames, filenames, self.config.walk_exclude, self._kept, True)
        return (*files, *(d + "/" for d in dirs))


def _dotted_posix(rel: str) -> str:
    parts = rel[:-3].split("/") if rel.endswith(".py") else rel.split("/")
    if parts and parts[-1] == "__init__":
        parts.pop()
    # a dot inside one part (``shop.flows.py`` at the root, ``shop/checkout.v2.py``, ``my.pkg/``) is
    # no package boundary: no import reaches that file by any name. Read as one, the file took the
    # name of a real module (``shop.flows``) and, first in the walk, hid it (breakT's T9). Kept in
    # the part as ``/``, which no file name holds, the name is one no import spells and no other
    # file has: ``unimportable`` reports it (warned by ``fingerprint``, refused by ``build``)
    return ".".join(p.replace(".", "/") for p in parts)

