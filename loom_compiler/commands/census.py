"""``loom census --store URL [--json]``: unfinished executions per flow id, codeHash and status.

Executions parked on ``__loom_diverged__`` are counted under the status ``diverged`` (not
``suspended``), and the table ends with a line saying how many and what to do about them.

Exit status: 0 (the census is information), 2 when the store cannot be opened.
"""

from __future__ import annotations

import click

from ._ops import echo_json, fail_on_loom_error, json_option, short, store_option, table

__all__ = ["census_command"]


@click.command("census")
@store_option
@json_option
@fail_on_loom_error("census")
def census_command(store: str, as_json: bool) -> None:
    """Count unfinished (running or suspended) executions by flow, codeHash and status.

    A suspended execution parked on __loom_diverged__ (refused: its body diverged from its journal,
    or a strict runtime refused an undeclared step) is counted under the status `diverged`.
    """
    from loom_runtime.definition import RESERVED_GATE

    from ..ops import open_store, take_census

    with open_store(store) as journal:
        census = take_census(journal)
    if as_json:
        echo_json(census.to_json())
        return
    rows = [(r.flow_id, short(r.code_hash), r.status, str(r.count)) for r in census.rows]
    click.echo(table(("FLOW", "CODEHASH", "STATUS", "COUNT"), rows))
    click.echo(f"{census.total} unfinished execution(s)")
    if census.diverged:
        click.echo(
            f"{census.diverged} DIVERGED: refused and parked on `{RESERVED_GATE}` (no step effect ran); deploy the "
            "version they started on, list their codeHash in compatible_with or migrate them, then retry_diverged "
            "(one a strict runtime parked on an undeclared step: declare the id, deploy, then "
            "resume_as(execution_id, \"current\"); deploy-check names them)"
        )
