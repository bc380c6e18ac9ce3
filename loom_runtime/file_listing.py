"""The names a glob pattern matches in one directory: the listing code loaded by a glob depends on.

``for p in sorted(glob.glob(os.path.join(os.path.dirname(__file__), 'plugins', '*.txt'))):
exec(open(p).read(), ns)`` runs every file the pattern matches when it runs: adding or removing
one changes what runs as surely as editing one does. The compiler hashes each matching file's
bytes and this listing (``loom_compiler.static_paths``, ``closure``'s ``<dir>//<pattern>#file``
member), and a chunk pins the listing's digest like a file's (``chunk_modules``: the loader refuses
the chunk when the live directory matches other names). One function decides the names for both,
so the build and the serving process cannot disagree on what "matches" means.

A listing is named ``<dir>//<pattern>`` (``shop/plugins//*.txt``): a normalised POSIX path never
holds ``//``, so the name cannot be a file's. The rules are ``glob``'s for one path component:
``fnmatch`` case-sensitively (the digest must not depend on the machine), and a name starting
with ``.`` only when the pattern does. ``site.addsitedir``'s ``.pth`` files are the listing
``<dir>//*.pth`` (``site`` takes every name ending in ``.pth`` that does not start with ``.``,
sorted: the same set).

Rejected: hashing the whole directory listing (an unrelated file added next to the plugins would
move every flow that loads them) and a recursive pattern (``**``: the compiler widens to a warning
instead, ``static_paths``).
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable

from .files import read_regular_file

__all__ = ["LISTING", "listing_bytes", "matching", "read_listing", "read_project_file", "split_listing"]

#: what separates a listing's directory from its pattern (``shop/plugins//*.txt``)
LISTING = "//"


def split_listing(rel: str) -> tuple[str, str] | None:
    """``(directory, pattern)`` of a listing name, None for a plain path."""
    directory, sep, pattern = rel.partition(LISTING)
    return (directory, pattern) if sep else None


def matching(names: Iterable[str], pattern: str) -> list[str]:
    """The names ``pattern`` matches as ``glob`` would in one directory, sorted."""
    hidden = pattern.startswith(".")
    return sorted(n for n in names if (hidden or not n.startswith(".")) and fnmatch.fnmatchcase(n, pattern))


def listing_bytes(names: Iterable[str]) -> bytes:
    """The bytes hashed for a listing: its names, one a line (``surrogateescape``: any name)."""
    return "".join(f"{n}\n" for n in names).encode("utf-8", "surrogateescape")


def read_listing(directory: str, pattern: str) -> bytes | None:
    """``listing_bytes`` of what ``pattern`` matches in the directory at ``directory`` (an OS
    path); None when there is no such directory. ``OSError`` when it is there and unreadable."""
    try:
        names = os.listdir(directory)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return listing_bytes(matching(names, pattern))


def read_project_file(root: str, rel: str) -> bytes | None:
    """The bytes a build hashes for ``rel`` under the directory ``root``: a project file's (a
    regular file only: ``files.read_regular_file``) or a listing's (``<dir>//<pattern>``,
    ``read_listing``); None when it is not there. The compiler and the chunk loader both read
    through here, so they cannot judge one path differently. ``OSError`` when it is there and
    unreadable (a FIFO or a directory included)."""
    listing = split_listing(rel)
    if listing is not None:
        return read_listing(os.path.join(root, *listing[0].split("/")) if listing[0] else root, listing[1])
    full = os.path.join(root, *rel.split("/"))
    if not os.path.lexists(full):
        return None
    return read_regular_file(full)
