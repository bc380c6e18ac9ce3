"""``loom export --store URL [--out DIR] [--execution ID]... [--unfinished]``: histories for replay.

Writes one ``loom-history/1`` JSON file per execution (default: every execution) into ``--out``
(default ``loom-histories``). Exit status: 0 when at least one history was written, 2 when the
store cannot be read, an execution id is unknown, or there is nothing to export.
"""

from __future__ import annotations

from pathlib import Path

import click

from ._ops import fail_on_loom_error, store_option

__all__ = ["export_command"]


@click.command("export")
@store_option
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("loom-histories"), show_default=True)
@click.option("--execution", "executions", multiple=True, metavar="ID", help="Export only this execution (repeatable).")
@click.option("--unfinished", is_flag=True, help="Only running and suspended executions.")
@fail_on_loom_error("export")
def export_command(store: str, out: Path, executions: tuple[str, ...], unfinished: bool) -> None:
    """Export execution histories as JSON files (one per execution) for `loom replay`."""
    from ..ops import export_histories, open_store

    with open_store(store) as journal:
        written = export_histories(journal, out, execution_ids=executions, unfinished_only=unfinished)
    click.echo(f"loom export: {len(written)} history file(s) written to {out}")
