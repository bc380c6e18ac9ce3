"""loom_compiler: build-time half of loom-toolchain (libcst, click, tomli).

Finds ``@flow`` functions, computes their ``loom-fp/1`` code fingerprint over the whole closure,
emits a chunk per code version and a cumulative manifest. Imports ``loom_runtime``; never the
reverse.

Fingerprint layers: ``analyse_module`` (parse once -> frozen ``ModuleSummary``, cacheable),
``fingerprint_flows`` (closure + Merkle hashes over summaries), ``fingerprint_project`` (files or
a ``SourceTree``) and ``fingerprint_module`` (one module, for tests).
"""

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
