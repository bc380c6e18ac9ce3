"""``loom gc --store URL... [--manifest PATH] [--yes] [--json]``: drop versions nobody needs.

Dry run by default (prints the plan); ``--yes`` writes the manifest atomically and deletes the
chunks no remaining version references. Several ``--store`` options: a version is kept if an
unfinished execution in *any* of them needs it. The current version of a flow is never removed.

Exit status: 0 (plan printed or applied), 2 when a store or the manifest cannot be read, or the
manifest changed while planning.
"""

from __future__ import annotations

from pathlib import Path

import click

from ._ops import echo_json, fail_on_loom_error, json_option, short

__all__ = ["gc_command"]


@click.command("gc")
@click.option("--store", "stores", required=True, multiple=True, metavar="URL",
              help="A journal whose unfinished executions must stay servable (repeatable).")
@click.option("--manifest", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The build manifest (default: <out>/manifest.json of the project).")
@click.option("--yes", is_flag=True, help="Apply the plan (default: dry run).")
@json_option
@fail_on_loom_error("gc")
def gc_command(stores: tuple[str, ...], manifest: Path | None, yes: bool, as_json: bool) -> None:
    """Remove manifest versions (and chunks) that no unfinished execution needs."""
    from ..config import load_config
    from ..ops import apply_gc, open_store, plan_gc, unfinished

    manifest = manifest if manifest is not None else load_config(".").out_dir / "manifest.json"
    summaries = []
    for url in stores:
        with open_store(url) as journal:
            summaries.extend(unfinished(journal))
    plan = plan_gc(manifest, summaries)
    result = apply_gc(plan) if yes else None
    if as_json:
        doc = plan.to_json()
        doc["applied"] = bool(yes)
        doc["deletedChunks"] = list(result.deleted_chunks) if result else []
        echo_json(doc)
        return
    for note in plan.notes:
        click.echo(f"note: {note}")
    for v in plan.remove:
        click.echo(f"{'removed' if yes else 'would remove'}: {v.flow_id} {short(v.code_hash)} ({v.chunk})")
    click.echo(
        f"loom gc: {len(plan.remove)} version(s) {'removed' if yes else 'removable'}, {len(plan.keep)} kept "
        f"({plan.executions} unfinished execution(s))" + ("" if yes or not plan.remove else "; run with --yes to apply")
    )
