"""``output_lock(out_dir)``: one writer at a time for a build output directory, whoever it is.

Everything that rewrites ``manifest.json`` reads the previous manifest first and merges into it:
``loom build`` (cumulative versions) and ``loom gc --yes`` (drops versions, then deletes their
chunks). Two of them interleaving lose work: two builds each write a manifest without the other's
new version; a gc deletes chunks that a build in flight then lists again. So each holds this lock
from reading the previous manifest to writing the new one.

The lock is the *output directory itself* (``fcntl.flock`` on a descriptor of the directory), not
a file under a project's ``.loom-cache``: two checkouts (two CI jobs, a worktree) building into one
``--out`` are two projects with two caches, and locks in their caches never met (13 of 33 rounds
lost a version). Locking the directory needs no file in it, so nothing extra is shipped in a wheel
that packages the directory, and the kernel releases it when the holder dies (a killed build never
leaves a stale lock). The directory is created if missing (the writer would create it anyway).

Limits: ``flock`` coordinates processes on one machine (and on NFS only where the server supports
it); where ``fcntl`` is missing (Windows) writers are not coordinated. A lock held by this process
through another descriptor blocks too: do not nest a build inside a gc.

Rejected: a lock file beside the manifest (it would be packaged with the bundle, and ``rm -rf`` of
the output while it is held splits writers between two files just the same), and ``O_EXCL``
lock files (a killed build leaves one behind, and every later build must guess whether it is stale).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

__all__ = ["output_lock"]


@contextlib.contextmanager
def output_lock(out_dir: Path | str) -> Iterator[None]:
    """Hold the exclusive lock of ``out_dir`` (created if missing) for the ``with`` body."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    directory = Path(out_dir)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        # A directory we cannot create or open cannot be written either: the writer fails on its
        # own, with the error that says why.
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
