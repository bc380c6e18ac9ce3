"""``loom replay PATH... [--manifest PATH] [--json]``: replay exported histories on the current code.

PATH: history files or directories of them (``loom export``). The current code is the working
tree's flows, imported (default), or the current versions of ``--manifest``. No step effect runs.

Exit status: 0 when every history replays, 1 when any diverges, would do live work, ends
differently or cannot be replayed, 2 when no history was found or a file is malformed.
"""

from __future__ import annotations

from pathlib import Path

import click

from ._ops import echo_json, fail_on_loom_error, import_path_option, json_option

__all__ = ["replay_command"]


@click.command("replay")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--manifest", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Replay on this manifest's current versions instead of the working tree's code.")
@import_path_option(only_with_manifest=True)
@json_option
@fail_on_loom_error("replay")
def replay_command(paths: tuple[Path, ...], manifest: Path | None, import_paths: tuple[Path, ...], as_json: bool) -> None:
    """Check that the current code replays exported histories without divergence."""
    from loom_runtime.history import load_histories

    from ..config import load_config
    from ..ops import live_flows, manifest_flows, replay_histories
    from ..ops.replay import import_roots

    histories = load_histories(paths)  # none at all is an error, not a pass
    config = load_config(".")
    if manifest is not None:
        flows = manifest_flows(manifest, import_paths=list(import_paths) or import_roots(config))
    else:
        flows = live_flows(config)
    report = replay_histories(histories, flows)
    if as_json:
        echo_json(report.to_json())
    else:
        for r in report.results:
            where = f" [{r.source}]" if r.source else ""
            click.echo(f"{'ok' if r.ok else r.kind.upper()}: {r.message}{where}")
        click.echo(f"loom replay: {len(report.results) - len(report.failures)} of {len(report.results)} history(ies) replay"
                   + (f"; {len(report.failures)} failed" if report.failures else ""))
    raise SystemExit(report.exit_code)
