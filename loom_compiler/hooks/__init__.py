"""Packaging build hooks: ship the loom bundle (manifest and chunks) inside a service's wheel.

``hooks.hatch`` is the hatchling build hook ``loom`` (entry-point group ``hatch``);
``hooks.setuptools`` wraps ``build_py`` (entry point ``setuptools.finalize_distribution_options``);
``hooks.package_bundle`` is what both share. Nothing is imported here: the setuptools entry point
loads on every setuptools build in the environment and must stay cheap, and the hatch module needs
hatchling, which only a build environment has.
"""
