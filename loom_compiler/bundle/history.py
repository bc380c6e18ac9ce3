"""A ``SourceTree`` over a git revision: versions of flows as they were at ``--from-git REF``.

The tree is read with ``git ls-tree`` and ``git cat-file --batch`` (one process for every blob),
never by checking the ref out: the work tree, the index and ``HEAD`` are left exactly as they were,
so building history is safe in a dirty checkout and in parallel with an editor. Module names follow
the same rules as ``DirectorySourceTree`` (``sources.package_prefixes``/``module_name_of``: package
roots at the project root or under ``src/``; ``exclude`` globs and the ``out`` directory, whose
chunks repeat the flows; tool, environment and build-output directories skipped by
``sources.skipped_dir_name``), applied to the paths of the ref.

The project root may sit below the repository's top directory (a monorepo); paths are relative
to the project root in both trees, so a flow's ``source.path`` means the same file at every ref.

Rejected: ``git worktree add`` into a temporary directory (writes into ``.git``, leaves debris on a
crash, slow for large trees), ``git archive | tar`` (a full extraction to read a few modules),
and GitPython/dulwich (a dependency for three plumbing commands).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable
from pathlib import Path

from loom_runtime.errors import ConfigError
from loom_runtime.file_listing import listing_bytes, matching, split_listing

from ..config import LoomConfig
from ..sources import is_excluded, kept_dirs, module_name_of, package_prefixes, skipped_dir_name

__all__ = ["GitSourceTree", "GitError", "resolve_ref"]

class GitError(ConfigError):
    """A ref cannot be read (not a repository, unknown ref, git missing). ``key`` names the option."""


def _git(cwd: Path, *args: str, data: bytes | None = None, key: str) -> bytes:
    try:
        proc = subprocess.run(
            ["git", *args], cwd=cwd, input=data, capture_output=True, check=False
        )
    except FileNotFoundError:
        raise GitError("`git` is not installed or not on PATH; it is needed to build history refs", key=key) from None
    if proc.returncode != 0:
        msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {' '.join(args[:2])} failed in {cwd}: {msg[-1] if msg else 'exit ' + str(proc.returncode)}", key=key)
    return proc.stdout


def resolve_ref(root: Path, ref: str, *, key: str = "--from-git") -> str:
    """The commit id a ref names, or ``GitError`` saying which ref is wrong."""
    if not ref or ref.startswith("-"):
        raise GitError(f"{key}: {ref!r} is not a git ref", key=key)
    try:
        out = _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", key=key)
    except GitError as exc:
        raise GitError(
            f"{key}: cannot resolve git ref {ref!r} in {root} ({exc}); check the name with `git rev-parse {ref}`",
            key=key,
        ) from None
    return out.decode().strip()


class GitSourceTree:
    """The Python modules of ``ref`` under ``config.root``, read from git objects."""

    def __init__(self, config: LoomConfig, ref: str, *, key: str = "--from-git") -> None:
        self.config = config
        self.ref = ref
        self.key = key
        self.root = config.root
        self.commit = resolve_ref(self.root, ref, key=key)
        top = Path(_git(self.root, "rev-parse", "--show-toplevel", key=key).decode().strip())
        self._prefix = _git(self.root, "rev-parse", "--show-prefix", key=key).decode().strip()
        self._top = top
        self._blobs: dict[str, str] = {}  # relative path -> blob id
        self._index: dict[str, str] = {}  # module -> relative path, where flows are looked for
        self._lookup: dict[str, str] = {}  # module -> relative path, what an import loads
        self._data: dict[str, bytes] | None = None
        self._list()

    def _list(self) -> None:
        spec = self._prefix or "."
        out = _git(self._top, "ls-tree", "-r", "-z", "--full-tree", self.commit, "--", spec, key=self.key)
        paths: dict[str, str] = {}
        for record in out.split(b"\0"):
            if not record:
                continue
            meta, _, raw_path = record.partition(b"\t")
            mode, kind, oid = meta.decode().split(" ")
            if kind != "blob" or mode == "120000":
                continue  # submodules and symlinks are not module source
            full = raw_path.decode("utf-8", "surrogateescape")
            if not full.endswith(".py") or not full.startswith(self._prefix):
                continue
            paths[full[len(self._prefix) :]] = oid
        # What an import loads (``path_of``/``read``): every module file, package before module
        # file; where flows are looked for (``module_names``): not ``exclude``, the out directory
        # or skipped directories (``sources`` docstring).
        self._blobs = paths
        listing = set(paths)
        dirs = {rel[:i] for rel in listing for i, ch in enumerate(rel) if ch == "/"}
        prefixes = package_prefixes(self.config.packages, lambda rel: rel in dirs or rel + ".py" in listing)
        self._lookup = _package_first(paths, prefixes)
        walked = self._skip_dirs({rel: oid for rel, oid in paths.items() if not is_excluded(rel, self.config.walk_exclude)})
        self._index = {name: rel for name, rel in _package_first(walked, prefixes).items() if self._lookup.get(name) == rel}

    def _skip_dirs(self, paths: dict[str, str]) -> dict[str, str]:
        """The directory skip rules of ``DirectorySourceTree`` (tool, environment and build-output
        directories, unless ``packages`` names them), judged on the ref's listing."""
        kept = kept_dirs(self.config.packages)
        skipped: dict[str, bool] = {}

        def is_skipped(rel_dir: str) -> bool:
            if rel_dir not in skipped:
                parent, _, name = rel_dir.rpartition("/")
                skipped[rel_dir] = (bool(parent) and is_skipped(parent)) or (
                    rel_dir not in kept and skipped_dir_name(name, lambda: f"{rel_dir}/__init__.py" in paths)
                )
            return skipped[rel_dir]

        return {rel: oid for rel, oid in paths.items() if "/" not in rel or not is_skipped(rel.rpartition("/")[0])}

    # -- SourceTree -----------------------------------------------------------------------------
    def module_names(self) -> Iterable[str]:
        return sorted(self._index)

    def path_of(self, module: str) -> str | None:
        return self._lookup.get(module)

    def read(self, module: str) -> bytes | None:
        rel = self._lookup.get(module)
        if rel is None:
            return None
        if self._data is None:
            self._data = self._read_all()
        return self._data.get(rel)

    def read_data(self, rel: str) -> bytes | None:
        """The bytes of any file of the ref by its POSIX path relative to the project root (code a
        module loads by path: ``closure``'s file members); None when the ref has no such blob. A
        listing ``<dir>//<pattern>`` (``loom_runtime.file_listing``) reads the names it matches
        among the ref's entries of that directory; None when the ref has no such directory."""
        listing = split_listing(rel)
        if listing is not None:
            where = self._prefix + (listing[0] + "/" if listing[0] else "")
            listed = _git(self._top, "ls-tree", "-z", "--name-only", "--full-tree", self.commit, "--", where, key=self.key)
            names = [n.decode("utf-8", "surrogateescape").rpartition("/")[2] for n in listed.split(b"\0") if n]
            if not names and listing[0]:
                return None
            return listing_bytes(matching(names, listing[1]))
        try:
            return _git(self._top, "show", f"{self.commit}:{self._prefix}{rel}", key=self.key)
        except GitError:
            listed = _git(self._top, "ls-tree", "-z", "--full-tree", self.commit, "--", self._prefix + rel, key=self.key)
            if listed.strip(b"\0"):
                raise  # there, and git cannot show it: never an absence
            return None

    def _read_all(self) -> dict[str, bytes]:
        """Every blob in one ``git cat-file --batch`` round trip."""
        order = sorted(self._blobs)
        request = "".join(f"{self._blobs[rel]}\n" for rel in order).encode()
        out = _git(self._top, "cat-file", "--batch", data=request, key=self.key)
        data: dict[str, bytes] = {}
        pos = 0
        for rel in order:
            nl = out.index(b"\n", pos)
            header = out[pos:nl].split(b" ")
            if len(header) != 3:  # "<oid> missing"
                raise GitError(f"{self.key}: git object for {rel} at {self.ref} is missing", key=self.key)
            size = int(header[2])
            data[rel] = out[nl + 1 : nl + 1 + size]
            pos = nl + 1 + size + 1  # content is followed by a newline
        return data

    def __repr__(self) -> str:
        return f"GitSourceTree(ref={self.ref!r}, commit={self.commit[:12]})"


def _package_first(paths: Iterable[str], prefixes: tuple[str, ...]) -> dict[str, str]:
    """Module name -> file, a package's ``__init__.py`` winning over a module file of its name
    (Python's rule), else the first path in sorted order."""
    index: dict[str, str] = {}
    for rel in sorted(paths):
        name = module_name_of(rel, prefixes)
        if not name:
            continue
        seen = index.get(name)
        if seen is None or (rel.endswith("/__init__.py") and not seen.endswith("/__init__.py")):
            index[name] = rel
    return index
