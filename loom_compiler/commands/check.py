"""``loom check [PATH] [--base GIT_REF | --base-manifest PATH] [--manifest PATH] [--format text|github]``.

The CI gate (and the pre-commit hook): fails when a flow's code changed against the base and the
build neither keeps the old version nor lists it in ``compatible_with`` (``loom_compiler.review.
policy``). Defaults come from ``[tool.loom.check]`` (``base``, ``manifest``, ``ignore``).

Exit status: 0 when every changed flow is kept or compatible, 1 when any flow would strand its
in-flight executions (one message per flow) or the working tree has source errors, 2 for a usage
or configuration error.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ._ops import base_options, colour_option, project_argument

__all__ = ["check_command"]


@click.command("check")
@project_argument
@base_options
@click.option("--manifest", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The build manifest whose versions count as kept (default: [tool.loom.check] manifest, else <out>/manifest.json).")
@click.option("--format", "fmt", type=click.Choice(("text", "github")), default="text", show_default=True)
@colour_option
def check_command(path: Path, base: str | None, base_manifest: Path | None, manifest: Path | None, fmt: str,
                  color: bool | None) -> None:
    """Fail when a changed flow would strand in-flight executions."""
    from loom_runtime.errors import LoomError

    from ..config import load_config
    from ..review import build_manifest, check_diff, render_check, repository_prefix, review_diff

    try:
        config = load_config(path)
        diff = review_diff(config, base=base, base_manifest=base_manifest)
        built, label = build_manifest(config, manifest)
    except LoomError as exc:
        click.echo(f"loom check: {exc}", err=True)
        raise SystemExit(2) from None
    report = check_diff(diff, manifest=built, manifest_label=label, ignore=config.check.ignore)
    for w in diff.warnings:  # the base could not be read completely: an old commit cannot be fixed
        click.echo(f"warning: {w}", err=True)
    for e in diff.errors:
        click.echo(str(e), err=True)
    colour = sys.stdout.isatty() if color is None else color
    prefix = repository_prefix(config.root) if fmt == "github" else ""
    text = render_check(report, fmt, colour=colour, path_prefix=prefix)
    if text:
        click.echo(text, color=colour)
    raise SystemExit(report.exit_code)
