"""A bundled module's ``__spec__``: its data files are read where the live module's are.

Code finds the files shipped next to it in three ways: ``Path(__file__).parent / "prompt.txt"``
(``__file__`` of a bundled module is the live module's file: ``chunk_modules.live_file``),
``importlib.resources.files(__package__)`` and ``pkgutil.get_data(__name__, "prompt.txt")``. The
last two go through the module's ``__spec__``, which was None: both refused (``TypeError`` /
``ValueError``) where the live code read its file. So a bundled module whose live file is known
gets a spec of its own: named as the module (its ``ModuleName``, so ``importlib.util.find_spec``
and the import system's checks of ``__package__`` against ``__spec__.parent`` agree), with the live
file as ``origin``, a package's directory as its search location, and a loader that only reads
data: ``get_data`` (``pkgutil``) and ``get_resource_reader`` whose ``files()`` is the live
module's directory (``importlib.resources``). Data files are inputs, outside the fingerprint, like
a database: what the live code reads today is what the chunk reads.

The loader never executes anything (``exec_module`` refuses), and it has no ``get_source``
(``linecache`` would show the live file's lines for the chunk's code in a traceback). A module
whose live file cannot be found keeps ``__spec__`` None (its data is nowhere the chunk knows).
Not prevented: ``importlib.reload`` of a chunk's module looks its name up again with the finders
(it replaces ``__spec__`` before executing), so where the live package is imported it runs the
live file into the chunk's module, as it did with no spec.
"""

from __future__ import annotations

import importlib.machinery
import os
import pathlib
import types
from typing import Any

__all__ = ["ResourceLoader", "bundled_spec"]


class ResourceLoader:
    """Reads a bundled module's data next to its live file; loads no code."""

    def __init__(self, path: str) -> None:
        self.path = path  # the live module's file

    def get_data(self, path: str) -> bytes:
        with open(path, "rb") as f:
            return f.read()

    def get_resource_reader(self, name: str) -> ResourceLoader:
        return self

    def files(self) -> pathlib.Path:
        return pathlib.Path(self.path).parent

    # the older resource-reader protocol (``importlib.resources.open_binary`` and friends, 3.10)
    def open_resource(self, resource: str) -> Any:
        return (self.files() / resource).open("rb")

    def resource_path(self, resource: str) -> str:
        return str(self.files() / resource)

    def is_resource(self, name: str) -> bool:
        return (self.files() / name).is_file()

    def contents(self) -> list[str]:
        return sorted(os.listdir(self.files()))

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        raise ImportError(f"{module.__name__} is a module of a loom chunk; it cannot be executed again "
                          "(load the chunk again through the registry)", name=str(module.__name__))


def bundled_spec(name: str, live: str | None, package: bool) -> importlib.machinery.ModuleSpec | None:
    """The ``__spec__`` of a bundled module named ``name`` (its ``ModuleName``) whose live file is
    ``live``; None when that is unknown."""
    if live is None:
        return None
    spec = importlib.machinery.ModuleSpec(name, ResourceLoader(live), origin=live, is_package=package)  # type: ignore[arg-type]
    if package:
        spec.submodule_search_locations = [os.path.dirname(live)]
    spec.has_location = True
    return spec
