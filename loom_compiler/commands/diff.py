"""``loom diff [PATH] [--base GIT_REF | --base-manifest PATH] [--format text|json|markdown|github]``.

A thin shell over ``loom_compiler.review.review_diff``: per flow unchanged/changed/new/removed, the
closure members that changed with their code before and after (normalised: formatting and comments
never show), the recorded steps the new body could skip (a static estimate), a Mermaid graph of the
route to each change (``markdown``), and the ``compatible_with=[...]`` line a reviewer may add. ``text``
is coloured when stdout is a terminal (``--color/--no-color`` decides otherwise).

Exit status: 0 when the diff was computed (changes are information, not failure; ``loom check`` is
the gate), 1 when the working tree has source errors, 2 for a usage or configuration error (an
unknown ref, a bad manifest, a ``[tool.loom]`` key).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ._ops import base_options, colour_option, project_argument

__all__ = ["diff_command", "FORMATS"]

#: ``loom_compiler.review.FORMATS``, spelled here so that ``--help`` need not import the review
#: package (``tests/compiler/test_cli.py`` checks they are the same)
FORMATS = ("text", "json", "markdown", "github")


@click.command("diff")
@project_argument
@base_options
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@colour_option
def diff_command(path: Path, base: str | None, base_manifest: Path | None, fmt: str, color: bool | None) -> None:
    """Show which flows changed against a base and which closure members changed."""
    from loom_runtime.errors import LoomError

    from ..config import load_config
    from ..review import render_diff, repository_prefix, review_diff

    try:
        config = load_config(path)
        diff = review_diff(config, base=base, base_manifest=base_manifest)
    except LoomError as exc:
        click.echo(f"loom diff: {exc}", err=True)
        raise SystemExit(2) from None
    colour = sys.stdout.isatty() if color is None else color
    prefix = repository_prefix(config.root) if fmt == "github" else ""
    text = render_diff(diff, fmt, colour=colour, path_prefix=prefix)
    if text:
        click.echo(text, color=colour)
    raise SystemExit(1 if diff.errors else 0)


