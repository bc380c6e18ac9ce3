"""``loom deploy-check --store URL [--manifest PATH] [--import-path DIR]... [--json]``.

Proves that the build (its manifest, default ``<out>/manifest.json`` of the project found from the
working directory) serves every unfinished execution in the journal, by the registry's own
resolution, and that every chunk they need loads (its step imports exist) in a fresh interpreter
whose import path is ``--import-path`` (default: the project root, and ``src/`` if present).

Exit status: 0 when every execution is servable, 1 when any would strand (each listed by id),
2 when the store, the manifest or the configuration cannot be read.
"""

from __future__ import annotations

from pathlib import Path

import click

from ..config import load_config
from ..ops import deploy_check, open_store, unfinished
from ..ops.replay import import_roots
from ._ops import echo_json, fail_on_loom_error, import_path_option, json_option, short, store_option

__all__ = ["deploy_check_command"]


@click.command("deploy-check")
@store_option
@click.option("--manifest", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The build manifest (default: <out>/manifest.json of the project).")
@import_path_option()
@json_option
@fail_on_loom_error("deploy-check")
def deploy_check_command(store: str, manifest: Path | None, import_paths: tuple[Path, ...], as_json: bool) -> None:
    """Fail if any unfinished execution could not be served by the build."""
    config = load_config(".")
    manifest = manifest if manifest is not None else config.out_dir / "manifest.json"
    paths = list(import_paths) or [Path(p) for p in import_roots(config)]
    with open_store(store) as journal:
        summaries = unfinished(journal)
    report = deploy_check(summaries, manifest, import_paths=paths)
    if as_json:
        echo_json(report.to_json())
    else:
        for s in report.stranded:
            click.echo(f"stranded: execution `{s.execution_id}` (flow `{s.flow_id}`, {short(s.recorded_code_hash)}, "
                       f"{s.status}): {s.reason}")
        total = len(report.served) + len(report.stranded)
        click.echo(f"loom deploy-check: {len(report.served)} of {total} unfinished execution(s) servable by {manifest}"
                   + (f"; {len(report.stranded)} would strand" if report.stranded else ""))
    raise SystemExit(report.exit_code)
