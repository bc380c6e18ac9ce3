"""Packaging lookup: where an installed package carries its loom bundle, as a directory on disk.

A wheel built with the loom build hook carries ``<pkg>/_loom/manifest.json`` and
``<pkg>/_loom/chunks/…``; ``Registry.from_package`` serves it. The bundle is located through
``importlib.resources`` so it works wherever the package is installed. A bundle that is not a
directory on disk (a package imported from a zip) is copied to a private temporary directory,
removed when its owner (the registry) is collected, so that chunk containment and digests are
checked on real files exactly as for an unpacked install.
"""

from __future__ import annotations

import weakref
from pathlib import Path
from typing import Any

from .errors import ManifestError

__all__ = ["PACKAGE_MANIFEST_DIR", "PACKAGE_MANIFEST_NAME", "package_manifest"]

#: Where a wheel carries its bundle: ``<pkg>/_loom/manifest.json`` and ``<pkg>/_loom/chunks/…``.
#: The packaging hook writes there; ``Registry.from_package`` reads there.
PACKAGE_MANIFEST_DIR = "_loom"
PACKAGE_MANIFEST_NAME = "manifest.json"


def package_manifest(package: str, owner: object) -> Path:
    """The path of ``package``'s bundled manifest on disk (extracted for the lifetime of ``owner``)."""
    # Imported here, not at module level: importlib.resources pulls in tempfile, shutil, bz2 and
    # lzma (~5 ms of `import loom_runtime`), and only a service reading a packaged bundle needs it.
    import importlib.resources

    try:
        root = importlib.resources.files(package)
    except ModuleNotFoundError:
        raise ManifestError(
            f"package `{package}` is not importable, so its loom manifest cannot be found; install it",
            path=None,
        ) from None
    bundle = root.joinpath(PACKAGE_MANIFEST_DIR)
    where = f"{package}/{PACKAGE_MANIFEST_DIR}/{PACKAGE_MANIFEST_NAME}"
    if not bundle.joinpath(PACKAGE_MANIFEST_NAME).is_file():
        raise ManifestError(
            f"{where}: package `{package}` ships no loom manifest; build the wheel with the loom build hook "
            "(or run `loom build` and copy build/loom/ there)",
            path=where,
        )
    if isinstance(bundle, Path):
        directory = bundle
    else:
        import shutil
        import tempfile

        directory = Path(tempfile.mkdtemp(prefix=f"loom-bundle-{package}-"))
        weakref.finalize(owner, shutil.rmtree, directory, True)
        try:
            _copy_tree(bundle, directory, where)
        except OSError as exc:
            raise ManifestError(
                f"{where}: cannot extract the bundle of `{package}` ({exc}); install the package unpacked",
                path=where,
            ) from None
    return Path(directory) / PACKAGE_MANIFEST_NAME


def _copy_tree(src: Any, dest: Path, where: str) -> None:
    """Copy a ``Traversable`` directory to disk; names that could climb out are refused."""
    for child in src.iterdir():
        name = child.name
        if name in ("", ".", "..") or "/" in name or "\\" in name:
            raise ManifestError(f"{where}: the bundle holds an unsafe file name {name!r}", path=where)
        if child.is_dir():
            (dest / name).mkdir()
            _copy_tree(child, dest / name, where)
        else:
            (dest / name).write_bytes(child.read_bytes())

