"""Code review of flow changes: ``loom diff`` and the ``loom check`` gate, as library calls.

``snapshot`` (what each side's flows are: working tree, git ref, or a manifest), ``diff``
(``compute_diff`` → ``ReviewDiff``: per flow unchanged/changed/new/removed and the closure members
that changed), ``policy`` (``check_diff`` → ``CheckReport``) and ``render`` (text, json, markdown,
github). ``review_diff`` is the one-call entry the commands use.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from loom_runtime.errors import ConfigError
from loom_runtime.manifest import Manifest, load_manifest

from ..config import LoomConfig
from .diff import FlowChange, FlowStatus, MemberChange, ReviewDiff, compatible_with_line, compute_diff, is_rehash
from .policy import CheckFailure, CheckReport, check_diff
from .render import FORMATS, render_check, render_diff, render_github, render_json, render_markdown, render_text
from .snapshot import (
    FlowSnapshot,
    MemberSnapshot,
    Snapshot,
    snapshot_from_fingerprints,
    snapshot_from_manifest,
    snapshot_git,
    snapshot_working_tree,
)

__all__ = [
    "FlowChange",
    "FlowStatus",
    "MemberChange",
    "ReviewDiff",
    "compatible_with_line",
    "compute_diff",
    "is_rehash",
    "review_diff",
    "build_manifest",
    "repository_prefix",
    "CheckFailure",
    "CheckReport",
    "check_diff",
    "FORMATS",
    "render_check",
    "render_diff",
    "render_github",
    "render_json",
    "render_markdown",
    "render_text",
    "FlowSnapshot",
    "MemberSnapshot",
    "Snapshot",
    "snapshot_from_fingerprints",
    "snapshot_from_manifest",
    "snapshot_git",
    "snapshot_working_tree",
]


def review_diff(config: LoomConfig, *, base: str | None = None, base_manifest: str | Path | None = None) -> ReviewDiff:
    """The working tree against a git ref (``base``) or a manifest's current versions.

    ``base`` defaults to ``[tool.loom.check] base``; one of the two is required.
    """
    if base is not None and base_manifest is not None:
        raise ConfigError("give either --base or --base-manifest, not both", key="--base")
    if base_manifest is not None:
        before = snapshot_from_manifest(str(base_manifest), load_manifest(base_manifest))
    else:
        ref = base or config.check.base
        if ref is None:
            raise ConfigError(
                "no base to compare against: pass --base GIT_REF or --base-manifest PATH, "
                "or set [tool.loom.check] base = \"origin/main\"",
                key="--base",
            )
        before = snapshot_git(config, ref)
    return compute_diff(before, snapshot_working_tree(config), base_is_ref=base_manifest is None)


def build_manifest(config: LoomConfig, given: str | Path | None = None) -> tuple[Manifest | None, str]:
    """The manifest whose versions count as kept, and how to name it in messages.

    ``given`` (a flag) > ``[tool.loom.check] manifest`` (relative to the root) > ``<out>/manifest.json``.
    A missing default is ``None`` (no build yet); a missing explicit path is an error.
    """
    if given is not None:
        return load_manifest(given), str(given)
    if config.check.manifest is not None:
        path = config.root / config.check.manifest
        return load_manifest(path), config.check.manifest
    path = config.out_dir / "manifest.json"
    label = f"{config.out}/manifest.json"
    return (load_manifest(path) if path.is_file() else None), label


def repository_prefix(root: Path) -> str:
    """The project's directory inside its git repository (``"services/shop/"``), ``""`` at the top
    or outside git: GitHub annotations are resolved against the repository top."""
    try:
        proc = subprocess.run(["git", "rev-parse", "--show-prefix"], cwd=root, capture_output=True, text=True, check=False)
    except OSError:
        return ""
    return proc.stdout.strip() if proc.returncode == 0 else ""
