"""loom_compiler: build-time half of loom-toolchain (libcst, click, tomli).

Finds ``@flow`` functions, computes their ``loom-fp/2`` code fingerprint over the whole closure,
emits a chunk per code version and a cumulative manifest. Imports ``loom_runtime``; never the
reverse.

Fingerprint layers: ``analyse_module`` (parse once -> frozen ``ModuleSummary``, cacheable),
``fingerprint_flows`` (closure + Merkle hashes over summaries), ``fingerprint_project`` (files or
a ``SourceTree``) and ``fingerprint_module`` (one module, for tests).
"""

import sys
from collections.abc import Callable
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .analysis import FlowSite, MemberUnit, ModuleSummary, Unit, analyse_module, might_define_flows
    from .canonical import SCHEME
    from .config import LoomConfig, load_config
    from .fingerprint import (
        FlowsResult,
        ProjectResult,
        fingerprint_flows,
        fingerprint_module,
        fingerprint_project,
        flow_definition,
        tree_loader,
    )
    from .model import ClosureMember, FlowFingerprint, ModuleResult, SourceError
    from .sources import DirectorySourceTree, SourceTree

# Public name -> submodule, imported on first access (PEP 562): the setuptools build hook entry
# point (``loom_compiler.hooks.setuptools``) loads in every setuptools build of the environment and
# must not pay for importing libcst when the project being built is not a loom project.
_LAZY = {
    "FlowSite": "analysis", "MemberUnit": "analysis", "ModuleSummary": "analysis", "Unit": "analysis",
    "analyse_module": "analysis", "might_define_flows": "analysis",
    "SCHEME": "canonical",
    "LoomConfig": "config", "load_config": "config",
    "FlowsResult": "fingerprint", "ProjectResult": "fingerprint", "fingerprint_flows": "fingerprint",
    "fingerprint_module": "fingerprint", "fingerprint_project": "fingerprint", "flow_definition": "fingerprint",
    "tree_loader": "fingerprint",
    "ClosureMember": "model", "FlowFingerprint": "model", "ModuleResult": "model", "SourceError": "model",
    "SourceTree": "sources", "DirectorySourceTree": "sources",
}


def _lazy_getattr(package: str, lazy: dict[str, str]) -> Callable[[str], Any]:
    """A PEP 562 module ``__getattr__`` for ``package``: the public name -> submodule table ``lazy``
    is imported on first access and the value cached in the package (shared with ``bundle``)."""
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        module = lazy.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = namespace[name] = getattr(import_module(f".{module}", package), name)
        return value

    return __getattr__


__getattr__ = _lazy_getattr(__name__, _LAZY)


__all__ = [
    "SCHEME",
    "LoomConfig",
    "load_config",
    "SourceTree",
    "DirectorySourceTree",
    "ModuleSummary",
    "Unit",
    "MemberUnit",
    "FlowSite",
    "analyse_module",
    "might_define_flows",
    "FlowsResult",
    "ProjectResult",
    "fingerprint_flows",
    "fingerprint_project",
    "fingerprint_module",
    "flow_definition",
    "tree_loader",
    "ClosureMember",
    "FlowFingerprint",
    "ModuleResult",
    "SourceError",
]
