"""The bundle a package ships: run ``loom build`` for a packaging backend and say what to ship.

Both build hooks (``hooks.hatch``, ``hooks.setuptools``) do the same three things, which live here
so the two backends cannot drift:

1. **Build** with ``build_project`` into the project's own ``[tool.loom] out`` directory (default
   ``build/loom``). That directory is the cumulative manifest ``loom build`` maintains, so a wheel
   carries every version earlier builds and ``[tool.loom] history`` added, not just the code in
   the working tree: an execution started on the previous release finds its chunk in the new one.
2. **List** what ships: ``manifest.json`` plus exactly the chunk files it references (checked to
   exist), as POSIX paths relative to the out directory. Stray files in the out directory (an old
   chunk ``loom gc`` has not removed yet, an editor's backup) are not shipped. Each lands at
   ``<package>/_loom/<path>`` (``loom_runtime.registry.PACKAGE_MANIFEST_DIR``), which is where
   ``Registry.from_package`` looks.
3. **Editable installs** import the package from the source tree, so ``Registry.from_package``
   reads ``<source package>/_loom``. That path becomes a symbolic link to the out directory: every
   later ``loom build`` (or reinstall) keeps what an editable install sees current, and the
   registry's stale-manifest check warns when the source moved on without a build. ``os.walk`` does
   not follow the link, so the bundler never scans the chunks behind it as source. Where links
   cannot be made, a marked copy is written instead (refreshed by the next editable install).

The package that carries the bundle is the hook's ``package`` option, else the first
``[tool.loom] packages`` entry's top-level name. Building from an unpacked sdist (``PKG-INFO``
at the root) skips ``[tool.loom] history``: there is no git history there, and the sdist carries
the cumulative manifest that already holds those versions.

Rejected: building straight into ``<package>/_loom`` (a second cumulative manifest beside the one
``loom build`` maintains, and chunks the bundler would then scan as source); shipping the whole out
directory (it may hold files the manifest no longer names); computing the bundle in the wheel's
temporary directory only (an editable install would then have no manifest at all).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from loom_runtime.errors import LoomError
from loom_runtime.registry import PACKAGE_MANIFEST_DIR, PACKAGE_MANIFEST_NAME

from ..config import LoomConfig, load_config
from ..sources import BUNDLE_MARKER

__all__ = [
    "PackagingError",
    "PackageBundle",
    "EDITABLE_COPY_MARKER",
    "build_bundle",
    "bundle_files",
    "find_package_dir",
    "link_editable",
    "copy_bundle",
    "sdist_paths",
]

#: Written into a copied (not linked) editable bundle, so a later install may replace it. The
#: source walk's marker by definition: it must skip the copy, whose chunks declare the flows again.
EDITABLE_COPY_MARKER = BUNDLE_MARKER


class PackagingError(LoomError):
    """A build hook cannot produce the bundle: source errors, a missing package, a bad option."""


@dataclass(frozen=True, slots=True)
class PackageBundle:
    """What one hook run built and what ships: ``files`` lie under ``out_dir``."""

    config: LoomConfig
    package: str  # import name of the package that carries the bundle, e.g. "shop"
    package_dir: Path  # its directory in the source tree
    out_dir: Path
    files: tuple[str, ...]  # POSIX, relative to out_dir: manifest.json, then the chunks, sorted
    flows: int
    new_versions: int

    @property
    def package_bundle_dir(self) -> Path:
        """``<source package>/_loom``: what an editable install's registry reads."""
        return self.package_dir / PACKAGE_MANIFEST_DIR

    def install_path(self, rel: str) -> str:
        """Where ``rel`` lands inside an installed distribution (``shop/_loom/chunks/…``)."""
        return "/".join([*self.package.split("."), PACKAGE_MANIFEST_DIR, rel])


def find_package_dir(config: LoomConfig, package: str | None, *, option: str) -> tuple[str, Path]:
    """The import name and source directory of the package that carries the bundle."""
    if package is None:
        if not config.packages:
            raise PackagingError(
                f"{config.pyproject or config.root}: `tool.loom.packages` is empty, so the loom build hook does not "
                f"know which package carries the manifest; list your package there or set `{option}`"
            )
        package = config.packages[0].split(".")[0]
    if not package or not all(part.isidentifier() for part in package.split(".")):
        raise PackagingError(f"`{option}` must be a dotted Python package name, got {package!r}")
    rel = Path(*package.split("."))
    for base in (config.root, config.root / "src"):
        if (base / rel / "__init__.py").is_file():
            return package, base / rel
    raise PackagingError(
        f"package `{package}` (from `{option}` or `tool.loom.packages`) has no {rel}/__init__.py under "
        f"{config.root} or {config.root / 'src'}; the manifest must live inside a regular package"
    )


def build_bundle(
    root: str | os.PathLike[str],
    *,
    package: str | None = None,
    option: str = "package",
    on_warn: Callable[[str], None] | None = None,
    exclude: tuple[str, ...] = (),
) -> PackageBundle:
    """Run the cumulative ``loom build`` for the project at ``root``; raise on any source error.

    ``exclude`` adds ``[tool.loom] exclude`` patterns: a backend's own build directory holds copies
    of the package (setuptools' ``build/lib``) that must not be scanned as a second source tree.
    """
    from ..bundle.build import build_project  # libcst is imported only when a hook really builds

    config = load_config(Path(root))
    warn = on_warn or (lambda message: None)
    name, package_dir = find_package_dir(config, package, option=option)
    if config.history and (config.root / "PKG-INFO").is_file():
        warn(
            "building from an sdist: `tool.loom.history` is skipped (no git history here); the sdist's "
            "manifest already holds the versions it named"
        )
        config = replace(config, history=())
    # The editable link (or copy) inside the package is output, never source: the source walk
    # skips any directory holding a loom manifest or the copy marker (``sources.is_loom_output``).
    report = build_project(replace(config, exclude=(*config.exclude, *exclude)) if exclude else config,
                           fingerprints=False)  # it counts the flows (summary), prints none
    for warning in report.warnings:
        warn(warning)
    if report.errors:
        listed = "\n".join(f"  {error}" for error in report.errors)
        raise PackagingError(
            f"loom build of {config.root} found {len(report.errors)} error(s); fix them and build again "
            f"(nothing was written to {report.out_dir}):\n{listed}"
        )
    return PackageBundle(
        config=config,
        package=name,
        package_dir=package_dir,
        out_dir=report.out_dir,
        files=bundle_files(report.out_dir),
        flows=report.summary.flows,
        new_versions=len(report.new_versions),
    )


def bundle_files(out_dir: Path) -> tuple[str, ...]:
    """``manifest.json`` and every chunk it references, each checked to exist."""
    manifest = out_dir / PACKAGE_MANIFEST_NAME
    try:
        doc = json.loads(manifest.read_bytes())
    except (OSError, ValueError) as exc:
        raise PackagingError(f"{manifest}: cannot read the manifest loom build wrote ({exc})") from None
    chunks: set[str] = set()
    for flow_id, flow_entry in sorted(doc.get("flows", {}).items()):
        for code_hash, version in sorted(flow_entry.get("versions", {}).items()):
            rel = version.get("chunk")
            pure = PurePosixPath(rel) if isinstance(rel, str) else None
            if pure is None or pure.is_absolute() or ".." in pure.parts:
                raise PackagingError(f"{manifest}: flow `{flow_id}` version {code_hash} has a bad chunk path {rel!r}")
            if not (out_dir / pure).is_file():
                raise PackagingError(
                    f"{manifest}: flow `{flow_id}` version {code_hash}: chunk {rel} is missing, so a wheel would "
                    f"strand executions pinned to it; rebuild it with `loom build --from-git <ref>`"
                )
            chunks.add(pure.as_posix())
    return (PACKAGE_MANIFEST_NAME, *sorted(chunks))


def sdist_paths(bundle: PackageBundle, root: str | os.PathLike[str]) -> tuple[str, ...]:
    """The shipped files as POSIX paths relative to the project ``root``, for an sdist (``build/loom/…``).

    An sdist must carry the cumulative manifest at its own path: a wheel rebuilt from the unpacked
    sdist (``python -m build`` does exactly that) then builds on it and keeps every version.
    """
    real_root = os.path.realpath(root)
    out = os.path.realpath(bundle.out_dir)
    if os.path.commonpath([real_root, out]) != real_root:
        raise PackagingError(
            f"`tool.loom.out` ({bundle.out_dir}) lies outside the project ({root}), so the sdist cannot "
            "carry the cumulative manifest a rebuild needs; set it to a directory inside the project"
        )
    prefix = os.path.relpath(out, real_root).replace(os.sep, "/")
    return tuple(rel if prefix == "." else f"{prefix}/{rel}" for rel in bundle.files)


def copy_bundle(bundle: PackageBundle, dest: Path) -> list[Path]:
    """Copy the shipped files into ``dest`` (a fresh ``_loom`` directory); return what was written."""
    written = []
    for rel in bundle.files:
        target = dest.joinpath(*rel.split("/"))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(bundle.out_dir.joinpath(*rel.split("/")), target)
        written.append(target)
    return written


def link_editable(bundle: PackageBundle) -> Path:
    """Point ``<source package>/_loom`` at the out directory (or copy it there); return the path."""
    link = bundle.package_bundle_dir
    target = bundle.out_dir
    if os.path.realpath(link) == os.path.realpath(target) and not link.is_symlink():
        return link  # [tool.loom] out is the package directory itself: nothing to point
    if link.is_symlink():
        link.unlink()
    elif link.exists():
        if not (link / EDITABLE_COPY_MARKER).is_file():
            raise PackagingError(
                f"{link} exists and was not made by the loom build hook; an editable install needs it to point at "
                f"{target}. Remove it, or set `tool.loom.out` to it"
            )
        shutil.rmtree(link)
    try:
        # relative, so the checkout can move without breaking the link
        os.symlink(os.path.relpath(target, link.parent), link, target_is_directory=True)
    except (OSError, NotImplementedError):
        copy_bundle(bundle, link)
        (link / EDITABLE_COPY_MARKER).write_text(
            "Copied by the loom build hook for an editable install; reinstall to refresh it.\n", encoding="utf-8"
        )
    return link
