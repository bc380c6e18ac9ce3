"""``loom version [PATH] [--json]``: the project version id (DESIGN §8) of the source tree at PATH.

It fingerprints the project as ``loom fingerprint`` does (same configuration lookup, same
framework profile) and prints ``loom_runtime.project_version_id`` over every flow's codeHash:
the same value ``loom_runtime.version_id(package)`` reads from the wheel built from that tree.
Text output is the id alone on one line (``DBOS_APP_VERSION=$(loom version)``); ``--json``
prints ``{"versionId": ..., "flows": {flow id: codeHash}}``. Exit status 1 on any fingerprint
error (an id over the flows that happened to parse would name a build that does not exist) or
when no flow is found; 2 for a configuration error.

Across a scheme upgrade (``loom_runtime.version``: each flow counts by its identity hash, the
earliest-scheme hash of the same code), the command reads the build manifest at ``out`` if there
is one: a current codeHash it holds counts by its recorded ``rehashedFrom``; one it does not hold
yet is linked as the next ``loom build`` will link it (``bundle/rehash``: every closure module
byte-identical to what the earlier build recorded), so the id printed before the build is the one
``version_id(package)`` reads after it. An unreadable manifest is an error, not an absence: the id
it would silently leave out could differ from the deployed one.
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

    from ..bundle.fingerprint_tree import fingerprint_tree
    from ..config import load_config

    config = load_config(path, framework=framework)
    result = fingerprint_tree(config)  # through the build's cache: a warm run parses nothing
    errors = [str(e) for e in result.errors]
    if errors:
        return None, errors
    current = {f.flow_id: f.code_hash for f in result.flows}
    if not current:
        return None, [f"{config.root}: no flow found (decorators: {', '.join(config.decorators)}); "
                      "set tool.loom.framework or tool.loom.decorators"]
    try:
        flows = _identities(config, result)
    except ValueError as exc:
        return None, [str(exc)]
    return ProjectVersion(project_version_id(flows), flows, {f: h for f, h in current.items() if flows[f] != h}), []


def _identities(config, result) -> dict[str, str]:  # noqa: ANN001 - LoomConfig, ProjectResult
    """flow id -> identity hash (``loom_runtime.version.identity_hash``), with the links the build
    recorded or would record (ValueError: the manifest cannot be read)."""
    import functools
    import hashlib

    from loom_runtime.errors import ManifestError
    from loom_runtime.manifest import FINGERPRINT_SCHEME, load_manifest
    from loom_runtime.version import identity_hash

    from ..bundle.build import MANIFEST_NAME
    from ..bundle.manifest_build import closure_source_digests
    from ..bundle.rehash import rehashed_from
    from ..sources import DirectorySourceTree

    path = Path(config.root, config.out) / MANIFEST_NAME
    previous = None
    if path.exists():
        try:
            previous = load_manifest(path)
        except ManifestError as exc:
            raise ValueError(f"{exc}; `loom version` needs it to know which flows a scheme upgrade rehashed "
                             "(restore it, or delete it to start a new history)") from None

    # read through the source tree, not result.summaries: a cached run (fingerprint_tree) has no
    # summaries, and without the bytes nothing would link (the id moved at the first build)
    tree = DirectorySourceTree(config=config)

    @functools.cache  # closure_source_digests asks per flow: a module shared by N flows is read once
    def sha(module: str) -> str | None:
        try:
            data = tree.read(module)
        except OSError as exc:  # an unreadable module is no absence: dropped, it would leave the proof easier
            raise ValueError(f"{module}: cannot read it to check a scheme upgrade's link ({exc}); fix its "
                             "permissions or encoding and run `loom version` again") from None
        return None if data is None else hashlib.sha256(data).hexdigest()

    out: dict[str, str] = {}
    for fp in result.flows:
        entry = previous.flows.get(fp.flow_id) if previous is not None else None
        known = entry.versions.get(fp.code_hash) if entry is not None else None
        if known is not None:
            links = known.rehashed_from
        elif entry is not None:
            links = rehashed_from(entry, code_hash=fp.code_hash, scheme=FINGERPRINT_SCHEME, flow_hash=fp.flow_hash,
                                  closure_sources=closure_source_digests(fp, sha))
        else:
            links = ()
        out[fp.flow_id] = identity_hash(fp.code_hash, links, entry)
    return out


@click.command("version")
@click.argument("path", required=False, type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help='Print {"versionId": ..., "flows": {id: codeHash}} (a flow rehashed by a scheme upgrade: its earlier hash, '
              'the current one under "codeHashes").')
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
