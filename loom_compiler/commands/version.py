"""``loom version [PATH] [--json]``: the project version id (DESIGN §8) of the source tree at PATH.

It fingerprints the project as ``loom fingerprint`` does (same configuration lookup, same
framework profile) and prints ``loom_runtime.project_version_id`` over every flow's codeHash:
the same value ``loom_runtime.version_id(package)`` reads from the wheel built from that tree.
Text output is the id alone on one line (``DBOS_APP_VERSION=$(loom version)``); ``--json``
prints ``{"versionId": ..., "flows": {flow id: codeHash}}``. Exit status 1 on any fingerprint
error (an id over the flows that happened to parse would name a build that does not exist) or
when no flow is found; 2 for a configuration error.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from loom_runtime.version import ProjectVersion

__all__ = ["version_command", "project_version"]


def project_version(path: Path, *, framework: str | None = None) -> tuple[ProjectVersion | None, list[str]]:
    """(the version of the project at ``path`` or None, the error lines)."""
    from loom_runtime.version import ProjectVersion, project_version_id

    from ..config import load_config
    from ..fingerprint import fingerprint_project

    config = load_config(path, framework=framework)
    result = fingerprint_project([config.root], config)
    errors = [str(e) for e in result.errors]
    if errors:
        return None, errors
    flows = {f.flow_id: f.code_hash for f in result.flows}
    if not flows:
        return None, [f"{config.root}: no flow found (decorators: {', '.join(config.decorators)}); "
                      "set tool.loom.framework or tool.loom.decorators"]
    return ProjectVersion(project_version_id(flows), flows), []


@click.command("version")
@click.argument("path", required=False, type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help='Print {"versionId": ..., "flows": {id: codeHash}}.')
@click.option("--framework", "framework", metavar="NAME", help="Framework profile (overrides tool.loom.framework).")
def version_command(path: Path | None, as_json: bool, framework: str | None) -> None:
    """Print the project's version id: sha256 over every current flow's (id, codeHash)."""
    import json

    from loom_runtime.errors import ConfigError

    from ..config import load_config, scan_notice

    start = path or Path.cwd()
    try:
        config = load_config(start, framework=framework)
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None
    notice = scan_notice(config, "loom version")
    if notice:
        click.echo(notice, err=True)
    version, errors = project_version(start, framework=framework)
    if version is None:
        for error in errors:
            click.echo(f"error: {error}", err=True)
        raise SystemExit(1)
    click.echo(json.dumps(version.to_json(), indent=2) if as_json else version.version_id)
