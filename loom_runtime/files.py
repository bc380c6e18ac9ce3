"""Read a file that must be a regular file: never block on a FIFO, never stream a device.

``open(path).read()`` on a FIFO blocks until a writer appears (forever, in a build or a replay run
by CI), and on ``/dev/zero`` never ends. Every input loom reads from a path it was given or found
(source files, cache entries, manifests, chunks, exported histories) goes through
:func:`read_regular_file`: the file is opened with ``O_NONBLOCK`` (which makes opening a FIFO
return at once and is ignored for regular files), checked with ``fstat`` on the open descriptor
(the object actually opened: a symlink swapped after a check cannot sneak another file in), and
refused with :class:`NotRegularFileError` unless it is a regular file.

:func:`file_signature` is the identity of what was read (device, inode, size, mtime and ctime in
nanoseconds, from that same ``fstat``): a caller that must know whether a file changed while it was
being used (``loom build``: never hash a half-seen tree) compares it with :func:`current_signature`
afterwards. It cannot see a rewrite of the same size within one tick of the filesystem's
timestamp clock; everything else (a rename over it, a truncation, an append, a delete) it sees.

Rejected: ``os.path.isfile`` before ``open`` (a race: the path can become a FIFO in between) and
a read timeout (a FIFO with a slow writer would then be read half).
"""

from __future__ import annotations

import os
import stat
from typing import Union

__all__ = ["NotRegularFileError", "Signature", "read_regular_file", "read_with_signature", "current_signature"]

#: ``(st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns)``, or ``("error", errno)`` for a path
#: that could not be opened or stat'ed
Signature = Union[tuple[int, int, int, int, int], tuple[str, int]]

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class NotRegularFileError(OSError):
    """The path names something other than a regular file (``strerror`` says what)."""


def _kind(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def _signature(st: os.stat_result) -> Signature:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def read_with_signature(path: str | os.PathLike[str]) -> tuple[bytes, Signature]:
    """The bytes of the regular file at ``path`` and its signature; ``OSError`` otherwise
    (``NotRegularFileError`` for a directory, FIFO, socket or device)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFileError(0, f"{_kind(st.st_mode)}, not a regular file", os.fspath(path))
        chunks = []
        while True:
            chunk = os.read(fd, max(st.st_size + 1, 65536))
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks), _signature(st)
    finally:
        os.close(fd)


def read_regular_file(path: str | os.PathLike[str]) -> bytes:
    """The bytes of the regular file at ``path`` (see the module docstring)."""
    return read_with_signature(path)[0]


def current_signature(path: str | os.PathLike[str]) -> Signature:
    """The signature ``read_with_signature`` would give ``path`` now (an error as ``("error", errno)``)."""
    try:
        return _signature(os.stat(path))
    except OSError as exc:
        return ("error", exc.errno or 0)
