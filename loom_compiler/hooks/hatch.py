"""Hatchling build hook ``loom``: wheels and sdists that carry every version of their flows.

Enable it in the service's ``pyproject.toml`` (hatchling finds it through the ``hatch`` entry-point
group, so ``loom-toolchain`` must be in ``build-system.requires``)::

    [build-system]
    requires = ["hatchling>=1.21", "loom-toolchain"]
    build-backend = "hatchling.build"

    [tool.hatch.build.hooks.loom]
    # package = "shop"   # which package carries _loom/ (default: first [tool.loom] packages entry)

What each target gets (``initialize`` runs the cumulative build of ``package_bundle`` first):

- **wheel, standard**: ``<package>/_loom/manifest.json`` and its chunks through
  ``build_data["force_include"]``. The files are staged in a temporary directory outside the
  project, which makes hatchling treat each target path as reserved: a ``_loom`` link or copy left
  in the source tree by an editable install is never shipped twice. ``finalize`` removes the stage.
- **wheel, editable**: nothing is added to the wheel (it only puts the source tree on ``sys.path``);
  ``<source package>/_loom`` is linked to the out directory so the registry of the editable
  install reads the manifest ``loom build`` keeps current.
- **sdist**: the out directory's manifest and chunks at their own relative path (``build/loom/…``),
  so a wheel rebuilt from the sdist keeps every version: the cumulative manifest is the only record
  of the versions earlier releases shipped.

Options are checked like hatchling's own: an unknown key under ``[tool.hatch.build.hooks.loom]``
is an error naming it (a typo must not silently ship a wheel without its manifest).

``clean`` (``hatch clean``, ``hatch build -c``) is deliberately not implemented: the out directory
holds the cumulative manifest, the only record of the versions earlier releases shipped; deleting it
with the wheels would strand every in-flight execution of those releases.

Rejected: ``build_data["artifacts"]`` (it only un-ignores files that already sit inside the package,
which would mean building into the source tree for every wheel); a separate builder plugin (users
keep hatchling's wheel and sdist and just add a hook).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from hatchling.plugin import hookimpl

from .package_bundle import PackageBundle, PackagingError, build_bundle, copy_bundle, link_editable, sdist_paths

__all__ = ["LoomBuildHook", "hatch_register_build_hook"]

# Keys hatchling itself reads from every hook table; anything else must be ours.
_HATCH_KEYS = frozenset({"dependencies", "require-runtime-dependencies", "require-runtime-features", "enable-by-default"})
_OUR_KEYS = frozenset({"package"})


class LoomBuildHook(BuildHookInterface):
    """Build hook ``loom`` (see the module docstring)."""

    PLUGIN_NAME = "loom"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._stage: str | None = None

    def _option_key(self, key: str) -> str:
        return f"tool.hatch.build.hooks.{self.PLUGIN_NAME}.{key}"

    def _package_option(self) -> str | None:
        for key in self.config:
            if key not in _HATCH_KEYS and key not in _OUR_KEYS:
                raise PackagingError(
                    f"unknown option `{self._option_key(key)}`; the loom hook knows: {', '.join(sorted(_OUR_KEYS))}"
                )
        package = self.config.get("package")
        if package is not None and not isinstance(package, str):
            raise PackagingError(f"`{self._option_key('package')}` must be a string, got {package!r}")
        return package

    def _build(self) -> PackageBundle:
        bundle = build_bundle(
            self.root,
            package=self._package_option(),
            option=self._option_key("package"),
            on_warn=lambda message: self.app.display_warning(f"loom: {message}"),
        )
        self.app.display_info(
            f"loom: {bundle.flows} flow(s), {len(bundle.files) - 1} chunk(s) in the manifest, "
            f"{bundle.new_versions} new version(s) ({bundle.out_dir})"
        )
        return bundle

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name not in ("wheel", "sdist"):
            self.app.display_warning(f"loom: the build hook does nothing for the `{self.target_name}` target")
            return
        bundle = self._build()
        if self.target_name == "sdist":
            self._include_out_dir(bundle, build_data)
        elif version == "editable":
            link = link_editable(bundle)
            self.app.display_info(f"loom: editable install reads {link} -> {bundle.out_dir}")
        else:
            self._stage = tempfile.mkdtemp(prefix="loom-wheel-")
            copy_bundle(bundle, Path(self._stage))
            for rel in bundle.files:
                source = os.path.join(self._stage, *rel.split("/"))
                build_data["force_include"][source] = bundle.install_path(rel)

    def _include_out_dir(self, bundle: PackageBundle, build_data: dict[str, Any]) -> None:
        root = os.path.realpath(self.root)
        for rel in sdist_paths(bundle, root):
            build_data["force_include"][os.path.join(root, *rel.split("/"))] = rel

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if self._stage is not None:
            shutil.rmtree(self._stage, ignore_errors=True)
            self._stage = None


@hookimpl
def hatch_register_build_hook() -> type[LoomBuildHook]:
    return LoomBuildHook
