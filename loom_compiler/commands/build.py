"""``loom build [PATH] [--out DIR] [--jobs N] [--from-git REF]...``: chunks and the manifest.

A thin shell over ``loom_compiler.bundle.build_project``. The configuration is found by walking up
from PATH (default: the working directory); ``--out`` is taken relative to the working directory
like any path typed on a command line (``[tool.loom] out`` is relative to the project root).
``--from-git`` adds refs to ``[tool.loom] history``.

Exit status: 0 when the build succeeded (warnings included), 1 when any source error was found
(nothing was written: the previous manifest and chunks are as they were), 2 for a usage or
configuration error (a bad flag, a ``[tool.loom]`` key, an unknown git ref).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from ..config import LoomConfig

__all__ = ["build_command"]


@click.command("build")
@click.argument("path", required=False, default=".", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Output directory (default: [tool.loom] out, else build/loom under the project root).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Worker processes for parsing (default: one per CPU, up to 4, when many modules need parsing; "
                   "1 parses in this process).")
@click.option("--from-git", "from_git", multiple=True, metavar="REF",
              help="Also add the versions of flows as they were at this git ref (repeatable).")
@click.option("--no-cache", is_flag=True, help="Ignore and do not fill .loom-cache/.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no summary line.")
def build_command(path: Path, out: Path | None, jobs: int | None, from_git: tuple[str, ...], no_cache: bool, quiet: bool) -> None:
    """Write per-version chunks and the cumulative manifest for the project at PATH."""
    from loom_runtime.errors import ConfigError, LoomError

    import time

    from ..bundle.progress import format_summary, make_progress
    from ..config import load_config, scan_notice

    started = time.perf_counter()
    try:
        config = load_config(path)
        notice = scan_notice(config, "loom build")
        if notice:
            click.echo(notice, err=True)
        read_tree = None
        if not no_cache and not from_git and not config.history:
            # a tree that reads as the last build left it: that build's record, without importing
            # the pipeline (``bundle.build_record``); else the tree as read goes to the build
            from ..bundle.build_record import serve

            served, read_tree = serve(config, out.resolve() if out is not None else None)
            if served is not None:
                for warning in served.warnings:
                    click.echo(f"warning: {warning}", err=True)
                if not quiet:
                    click.echo(format_summary(replace(served.summary, seconds=time.perf_counter() - started)))
                _hint(config, served.summary.flows)
                raise SystemExit(0)
        from ..bundle.build import build_project

        report = build_project(
            config,
            out=out.resolve() if out is not None else None,
            jobs=jobs,
            from_git=from_git,
            progress=make_progress(enabled=False) if quiet else make_progress(),
            use_cache=not no_cache,
            fingerprints=False,  # it prints none: unchanged flow modules are served from their small head entries
            read_tree=read_tree,
        )
    except ConfigError as exc:
        click.echo(f"loom build: {exc}", err=True)
        raise SystemExit(2) from None
    except LoomError as exc:
        click.echo(f"loom build: {exc}", err=True)
        raise SystemExit(1) from None
    except OSError as exc:
        # Chunks are written before the manifest, each atomically: the previous manifest stands.
        click.echo(f"loom build: cannot write {exc.filename or 'the output'}: {exc.strerror}; "
                   "the previous manifest was left as it was", err=True)
        raise SystemExit(1) from None
    for warning in report.warnings:
        click.echo(f"warning: {warning}", err=True)
    for error in report.errors:
        click.echo(str(error), err=True)
    if report.errors:
        click.echo(f"loom build: {len(report.errors)} error(s); nothing was written to {report.out_dir}", err=True)
    if not quiet:
        click.echo(format_summary(report.summary), err=bool(report.errors))
    if not report.errors:
        _hint(config, report.summary.flows)
    raise SystemExit(report.exit_code)


def _hint(config: LoomConfig, flows: int) -> None:
    """Say which framework the tree's flows are written for when none was found (``framework_hint``)."""
    if not flows:
        from ..framework_hint import framework_hint

        hint = framework_hint(config, "loom build")
        if hint:
            click.echo(hint, err=True)
