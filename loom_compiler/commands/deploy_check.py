"""``loom deploy-check --store URL [--manifest PATH] [--import-path DIR]... [--jobs N] [--sample N]
[--no-replay] [--json | --format text|json|github]``.

Proves that the build (its manifest, default ``<out>/manifest.json`` of the project found from the
working directory) serves every unfinished execution in the journal: each is resolved by the
registry's own rules and replayed against its recorded journal in a sandbox (worker processes whose
import path is ``--import-path``, default the project root and ``src/``), where no step, decider or
emit runs and the journal is only read. ``--no-replay`` checks hashes and chunk loads only.

Exit status: 0 when every execution is servable, 1 when any is diverged, mismatched or stranded
(each listed by id, with why and what to do), 2 when the store, the manifest or the configuration
cannot be read.
"""

from __future__ import annotations

from pathlib import Path

import click

from ._ops import echo_json, fail_on_loom_error, import_path_option, json_option, store_option

__all__ = ["deploy_check_command"]


@click.command("deploy-check")
@store_option
@click.option("--manifest", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The build manifest (default: <out>/manifest.json of the project).")
@import_path_option()
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Replay worker processes (default: one per CPU, up to 4, fewer for a small journal).")
@click.option("--sample", type=click.IntRange(min=1), default=None, metavar="N",
              help="Replay only the N most recently started executions per version, plus every one parked on "
                   "__loom_diverged__; the rest are judged by their hashes.")
@click.option("--no-replay", "no_replay", is_flag=True, help="Check hashes and chunk loads only (no replay).")
@click.option("--format", "fmt", type=click.Choice(("text", "json", "github")), default="text", show_default=True)
@json_option
@fail_on_loom_error("deploy-check")
def deploy_check_command(store: str, manifest: Path | None, import_paths: tuple[Path, ...], jobs: int | None,
                         sample: int | None, no_replay: bool, fmt: str, as_json: bool) -> None:
    """Fail if any unfinished execution could not be served by the build."""
    if no_replay and sample is not None:
        raise click.UsageError("--sample chooses what to replay; it cannot be combined with --no-replay")
    from ..config import load_config
    from ..ops import deploy_check
    from ..ops.deploy_report import render_github, render_text
    from ..ops.replay import import_roots

    config = load_config(".")
    manifest = manifest if manifest is not None else config.out_dir / "manifest.json"
    paths = list(import_paths) or [Path(p) for p in import_roots(config)]
    report = deploy_check(store, manifest, import_paths=paths, replay=not no_replay, jobs=jobs, sample=sample)
    if as_json or fmt == "json":
        echo_json(report.to_json())
    elif fmt == "github":
        click.echo(render_github(report))
    else:
        click.echo(render_text(report))
    raise SystemExit(report.exit_code)
