"""setuptools integration: ``build_py`` also builds and ships the loom bundle.

Registered as a ``setuptools.finalize_distribution_options`` entry point, so it runs in *every*
setuptools build of an environment that has loom-toolchain installed. It therefore does nothing
unless the project being built has a ``pyproject.toml`` with a ``[tool.loom]`` table in the
directory setuptools runs from (a byte check before any TOML parsing, and no import of libcst or
of the bundler until a build really needs them). For a loom project it swaps the distribution's
``build_py`` command for a subclass of whatever ``build_py`` was configured:

- **regular builds** (wheel, ``setup.py build``): after the normal ``build_py``, the cumulative
  build of ``package_bundle`` runs and its manifest and chunks are copied to
  ``<build_lib>/<package>/_loom/``; ``get_outputs`` and ``get_output_mapping`` list them, so
  ``install_lib``, ``bdist_wheel`` and ``RECORD`` see them like any package file.
- **editable builds** (``editable_mode``, PEP 660): ``<source package>/_loom`` is linked to the out
  directory, as the hatch hook does.

The package that carries the bundle is ``[tool.loom] packages``'s first entry (setuptools has no
hook table to configure it in). With build isolation (plain ``pip wheel .``/``python -m build``) the
entry point must be installed in the build environment: list it in ``pyproject.toml``::

    [build-system]
    requires = ["setuptools>=64", "loom-toolchain"]
    build-backend = "setuptools.build_meta"

Rejected: ``package_data``/``MANIFEST.in`` (they copy whatever happens to be on disk and would not
run the build); a separate ``build_loom`` sub-command (every ``build`` invocation would need it
listed, and ``bdist_wheel`` would not call it on older setuptools).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

__all__ = ["finalize_distribution_options", "has_loom_table", "wrap_build_py"]


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
    """Entry point: wrap ``build_py`` when the project being built is a loom project."""
    root = Path(getattr(dist, "src_root", None) or os.getcwd()).resolve()
    if not has_loom_table(root / "pyproject.toml"):
        return
    from setuptools.command.build_py import build_py as default_build_py

    base = dist.cmdclass.get("build_py", default_build_py)
    if getattr(base, "_loom_wrapped", False):
        return
    dist.cmdclass["build_py"] = wrap_build_py(base, root)


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

                # setuptools copies the package into build/ (build/lib, build/bdist.*): not source.
                # The source walk skips a top-level build/ by itself; this covers --build-base
                # elsewhere (any name), which the walk cannot tell from a source directory.
                build_base = Path(os.path.abspath(self.get_finalized_command("build").build_base))
                try:
                    exclude: tuple[str, ...] = (build_base.relative_to(self._loom_root.resolve()).as_posix(),)
                except ValueError:
                    exclude = ()
                bundle = build_bundle(
                    self._loom_root, exclude=exclude, on_warn=lambda message: self.warn(f"loom: {message}")
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
