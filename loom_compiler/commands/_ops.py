"""Shared bits of the commands: the ops commands' options and error exits (census, deploy-check,
gc, export, replay) and the short-digest and table rendering (those and ``fingerprint``).

Like every command module, this one imports click and the standard library only: ``loom <command>
--help`` and the start of every command load nothing else (``loom_runtime`` alone costs more than
click). A command imports the library it runs inside its function; ``tests/compiler/test_cli.py``
checks which modules ``--help`` loads.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any

import click

__all__ = [
    "store_option", "json_option", "project_argument", "base_options", "colour_option", "import_path_option",
    "fail_on_loom_error", "short", "echo_json", "table",
]

store_option = click.option(
    "--store", "store", required=True, metavar="URL",
    help="The journal: sqlite:///relative.db, sqlite:////absolute.db or postgresql://user@host/db.",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print a JSON document instead of a table.")
project_argument = click.argument(
    "path", required=False, default=".", type=click.Path(exists=True, file_okay=False, path_type=Path)
)
colour_option = click.option(
    "--color/--no-color", "color", default=None, help="Colour text output (default: when stdout is a terminal)."
)


def base_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--base GIT_REF`` and ``--base-manifest PATH``: what ``loom diff`` and ``loom check`` compare against."""
    fn = click.option("--base-manifest", type=click.Path(dir_okay=False, path_type=Path), default=None,
                      help="Compare against the current versions of this manifest instead of a git ref.")(fn)
    return click.option("--base", metavar="GIT_REF", default=None,
                        help="Compare against this git ref (default: [tool.loom.check] base).")(fn)


def import_path_option(*, only_with_manifest: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--import-path DIR`` (repeatable): where the chunks' imports are found (deploy-check, replay)."""
    what = "where the chunks' imports (live step functions) are found (default: project root and src/)."
    return click.option(
        "--import-path", "import_paths", multiple=True, type=click.Path(file_okay=False, path_type=Path),
        help=f"With --manifest: {what}" if only_with_manifest else what[0].upper() + what[1:],
    )


def fail_on_loom_error(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Exit 2 with ``loom <name>: <message>`` on a ``LoomError`` (bad URL, manifest, config)."""

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                from loom_runtime.errors import ConfigError, LoomError  # loaded by the command already

                if not isinstance(exc, (ConfigError, LoomError)):
                    raise
                click.echo(f"loom {name}: {exc}", err=True)
                raise SystemExit(2) from None

        return run

    return wrap


def short(digest: str | None, n: int = 12) -> str:
    if not digest:
        return "(none)"
    algo, _, hexpart = digest.partition(":")
    return f"{algo}:{hexpart[:n]}"


def echo_json(doc: Any) -> None:
    import json

    click.echo(json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False))


def table(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    return "\n".join(lines)
