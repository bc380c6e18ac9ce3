"""setuptools integration: ``build_py`` ships the loom bundle, ``sdist`` the cumulative manifest.

Registered as a ``setuptools.finalize_distribution_options`` entry point, so it runs in *every*
setuptools build of an environment that has loom-toolchain installed. It therefore does nothing
unless the project being built has a ``pyproject.toml`` with a ``[tool.loom]`` table in the
directory setuptools runs from (a byte check before any TOML parsing, and no import of libcst or
of the bundler until a build really needs them). For a loom project it swaps the distribution's
``build_py``, ``sdist`` and ``egg_info`` commands for subclasses of whatever was configured:

- **regular builds** (wheel, ``setup.py build``): after the normal ``build_py``, the cumulative
  build of ``package_bundle`` runs and its manifest and chunks are copied to
  ``<build_lib>/<package>/_loom/``; ``get_outputs`` and ``get_output_mapping`` list them, so
  ``install_lib``, ``bdist_wheel`` and ``RECORD`` see them like any package file.
- **editable builds** (``editable_mode``, PEP 660): ``<source package>/_loom`` is linked to the out
  directory, as the hatch hook does.
- **sdist**: ``sdist`` runs the cumulative build first, and ``egg_info`` adds the out directory's
  manifest and chunks (``build/loom/…``) to its file list and ``SOURCES.txt`` *after* setuptools
  pruned the build directory. ``python -m build`` builds the wheel from the unpacked sdist: there
  ``build_py`` builds on that manifest (``PKG-INFO`` at the root: ``[tool.loom] history`` is
  skipped), so the wheel keeps every version, as with hatchling.

The package that carries the bundle is ``[tool.loom] packages``'s first entry (setuptools has no
hook table to configure it in). With build isolation (plain ``pip wheel .``/``python -m build``) the
entry point must be installed in the build environment: list it in ``pyproject.toml``::

    [build-system]
    requires = ["setuptools>=64", "loom-toolchain"]
    build-backend = "setuptools.build_meta"

Rejected: ``package_data``/``MANIFEST.in`` (they copy whatever happens to be on disk and would not
run the build; ``manifest_maker`` prunes ``build/`` after reading ``MANIFEST.in`` anyway); a separate
``build_loom`` sub-command (every ``build`` invocation would need it listed, and ``bdist_wheel`` would
not call it on older setuptools); a ``setuptools.file_finders`` entry point (it runs before the prune
of ``build/``, and for every project in the environment); adding the files only in
``sdist.make_distribution`` (the archive would hold files ``SOURCES.txt`` does not list, and an sdist
rebuilt from the unpacked sdist, which reads ``SOURCES.txt``, would lose them).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

__all__ = ["finalize_distribution_options", "has_loom_table", "wrap_build_py", "wrap_egg_info", "wrap_sdist"]


def has_loom_table(pyproject: Path) -> bool:
    """Whether ``pyproject`` has ``[tool.loom]``; cheap (a byte check first) because it runs everywhere."""
    try:
        data = pyproject.read_bytes()
    except OSError:
        return False
    if b"loom" not in data:
        return False
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    try:
        doc = tomllib.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False  # setuptools reports a broken pyproject.toml itself
    tool = doc.get("tool")
    return isinstance(tool, dict) and "loom" in tool


def finalize_distribution_options(dist: Any) -> None:
    """Entry point: wrap ``build_py``, ``sdist`` and ``egg_info`` when the project is a loom project."""
    root = Path(getattr(dist, "src_root", None) or os.getcwd()).resolve()
    if not has_loom_table(root / "pyproject.toml"):
        return
    from setuptools.command.build_py import build_py as default_build_py
    from setuptools.command.egg_info import egg_info as default_egg_info
    from setuptools.command.sdist import sdist as default_sdist

    for name, default, wrap in (
        ("build_py", default_build_py, wrap_build_py),
        ("sdist", default_sdist, wrap_sdist),
        ("egg_info", default_egg_info, wrap_egg_info),
    ):
        base = dist.cmdclass.get(name, default)
        if not getattr(base, "_loom_wrapped", False):
            dist.cmdclass[name] = wrap(base, root)


# after setuptools' own hooks (order 0), so a cmdclass they set is the one we wrap
finalize_distribution_options.order = 100  # type: ignore[attr-defined]


def wrap_build_py(base: type, root: Path) -> type:
    """A ``build_py`` subclass of ``base`` that also ships the loom bundle of the project at ``root``."""

    class LoomBuildPy(base):  # type: ignore[valid-type, misc]
        _loom_wrapped = True
        _loom_root = root

        def _loom_bundle(self) -> Any:
            bundle = getattr(self, "_loom_built", None)
            if bundle is None:
                from .package_bundle import build_bundle

                bundle = build_bundle(
                    self._loom_root, exclude=_build_exclude(self, self._loom_root),
                    on_warn=lambda message: self.warn(f"loom: {message}"),
                )
                self._loom_built = bundle
            return bundle

        def _loom_dest(self) -> Path:
            bundle = self._loom_bundle()
            return Path(self.build_lib, *bundle.package.split("."), "_loom")

        def _loom_mapping(self) -> dict[str, str]:
            bundle = self._loom_bundle()
            dest = self._loom_dest()
            return {str(dest.joinpath(*rel.split("/"))): str(bundle.out_dir.joinpath(*rel.split("/"))) for rel in bundle.files}

        def run(self) -> None:
            super().run()
            from .package_bundle import copy_bundle, link_editable

            bundle = self._loom_bundle()
            if getattr(self, "editable_mode", False):
                link_editable(bundle)
                return
            dest = self._loom_dest()
            if dest.exists():
                shutil.rmtree(dest)  # a previous build's chunks may no longer be in the manifest
            copy_bundle(bundle, dest)

        def get_outputs(self, include_bytecode: int = 1) -> list[str]:
            outputs = list(super().get_outputs(include_bytecode))
            if getattr(self, "editable_mode", False):
                return outputs
            return outputs + sorted(self._loom_mapping())

        def get_output_mapping(self) -> dict[str, str]:
            mapping = dict(super().get_output_mapping())
            mapping.update(self._loom_mapping())
            return dict(sorted(mapping.items()))

    LoomBuildPy.__name__ = LoomBuildPy.__qualname__ = f"loom_{base.__name__}"
    return LoomBuildPy


def _build_exclude(cmd: Any, root: Path) -> tuple[str, ...]:
    """``[tool.loom] exclude`` for setuptools' build directory, relative to ``root`` (if inside it)."""
    # setuptools copies the package into build/ (build/lib, build/bdist.*): not source. The source
    # walk skips a top-level build/ by itself; this covers --build-base elsewhere (any name), which
    # the walk cannot tell from a source directory.
    build_base = Path(os.path.abspath(cmd.get_finalized_command("build").build_base))
    try:
        return (build_base.relative_to(root.resolve()).as_posix(),)
    except ValueError:
        return ()


def wrap_sdist(base: type, root: Path) -> type:
    """An ``sdist`` subclass of ``base`` that builds first and ships the cumulative manifest and chunks.

    The paths reach the archive through ``egg_info`` (see ``wrap_egg_info``), so ``SOURCES.txt``
    lists them too; ``make_distribution`` adds any still missing, for an ``egg_info`` that ran
    before this command (``setup.py egg_info sdist``) and will not run again.
    """

    class LoomSdist(base):  # type: ignore[valid-type, misc]
        _loom_wrapped = True
        _loom_root = root

        def run(self) -> None:
            from .package_bundle import build_bundle, sdist_paths

            bundle = build_bundle(
                self._loom_root, exclude=_build_exclude(self, self._loom_root),
                on_warn=lambda message: self.warn(f"loom: {message}"),
            )
            paths = sdist_paths(bundle, self._loom_root)
            self._loom_sdist_paths = paths
            # egg_info lists them after setuptools prunes build/ from the file list
            self.distribution.get_command_obj("egg_info")._loom_sdist_paths = paths
            super().run()

        def make_distribution(self) -> None:
            have = set(self.filelist.files)
            missing = [p for p in map(_native, getattr(self, "_loom_sdist_paths", ())) if p not in have]
            if missing:
                self.filelist.extend(missing)
            super().make_distribution()

    LoomSdist.__name__ = LoomSdist.__qualname__ = f"loom_{base.__name__}"
    return LoomSdist


def wrap_egg_info(base: type, root: Path) -> type:
    """An ``egg_info`` subclass of ``base`` whose file list (and ``SOURCES.txt``) holds what ``sdist`` asked for.

    Only an ``sdist`` run sets the paths: a wheel or editable build's ``egg_info`` is unchanged.
    """

    class LoomEggInfo(base):  # type: ignore[valid-type, misc]
        _loom_wrapped = True
        _loom_root = root
        _loom_sdist_paths: tuple[str, ...] = ()

        def find_sources(self) -> None:
            super().find_sources()
            if not self._loom_sdist_paths:
                return
            from setuptools.command.egg_info import write_file

            # after manifest_maker's prune of the build directory (which holds build/loom)
            self.filelist.extend([_native(p) for p in self._loom_sdist_paths])
            self.filelist.sort()
            self.filelist.remove_duplicates()
            files = [f.replace(os.sep, "/") for f in self.filelist.files]
            self.execute(write_file, (os.path.join(self.egg_info, "SOURCES.txt"), files),
                         "loom: adding the cumulative manifest and chunks to SOURCES.txt")

    LoomEggInfo.__name__ = LoomEggInfo.__qualname__ = f"loom_{base.__name__}"
    return LoomEggInfo


def _native(posix: str) -> str:
    return os.path.join(*posix.split("/"))
