"""Operations against a live journal and a build: census, deploy-check, gc, export, replay.

Library calls returning frozen report values; the ``loom`` commands are thin shells over them.
``store.open_store(url)`` opens ``sqlite:///path`` or ``postgresql://…`` (never creating a journal).
"""

from .census import Census, CensusRow, census_of, take_census, unfinished
from .deploy_check import deploy_check, judge, sample_executions
from .deploy_report import DeployReport, Verdict
from .replay_pool import load_versions
from .export import export_histories
from .gc import GcPlan, GcResult, GcVersion, apply_gc, plan_gc
from .replay import ReplayReport, live_flows, manifest_flows, replay_files, replay_histories
from .store import open_store

__all__ = [
    "Census",
    "CensusRow",
    "census_of",
    "take_census",
    "unfinished",
    "DeployReport",
    "Verdict",
    "deploy_check",
    "judge",
    "sample_executions",
    "load_versions",
    "export_histories",
    "GcPlan",
    "GcResult",
    "GcVersion",
    "apply_gc",
    "plan_gc",
    "ReplayReport",
    "live_flows",
    "manifest_flows",
    "replay_files",
    "replay_histories",
    "open_store",
]
