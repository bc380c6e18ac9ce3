"""``loom worker MODULE:ATTR [--concurrency N] [--poll-interval S]``: serve a ``Runtime`` (DESIGN §9).

``MODULE:ATTR`` names a ``loom_runtime.Runtime`` (or a zero-argument callable returning one), as
``gunicorn``/``uvicorn`` name an app: ``loom worker shop.service:runtime``. The current directory is
importable. The worker drives submitted executions, fires due timers and takes over executions
whose worker died, until SIGTERM or SIGINT: then it finishes the step in hand, releases its leases
and exits 0 (``Runtime.serve``).

Output: on a terminal, one progress line per drive (time, status, flow, execution, seconds, and the
gate or error); otherwise one JSON object per line (``event``, ``worker``, ``executionId``,
``flowId``, ``status``, ``gate``, ``error``, ``seconds``, ``ts``) for a log collector. Exit 2 when
the target cannot be imported or is not a Runtime.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from loom_runtime import Runtime

__all__ = ["worker_command", "load_runtime"]


def load_runtime(target: str) -> Runtime:
    """The ``Runtime`` that ``MODULE:ATTR`` names (``click.UsageError`` when it is not one)."""
    from loom_runtime import Runtime

    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise click.UsageError(f"expected MODULE:ATTR (e.g. shop.service:runtime), got {target!r}")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise click.UsageError(f"cannot import `{module_name}` ({exc}); run loom worker from the project root") from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise click.UsageError(f"`{module_name}` has no attribute `{attr}`") from None
    if not isinstance(obj, Runtime) and callable(obj):
        obj = obj()
    if not isinstance(obj, Runtime):
        raise click.UsageError(f"`{target}` is {type(obj).__name__}, not a loom_runtime.Runtime")
    return obj


def _where(runtime: Runtime) -> str:
    from loom_runtime.journal.urls import redact_url

    journal = runtime.journal
    for attr in ("where", "path"):
        value = getattr(journal, attr, None)
        if isinstance(value, str):
            return redact_url(value)
    return type(journal).__name__


class _Reporter:
    def __init__(self, terminal: bool) -> None:
        self.terminal = terminal

    def __call__(self, event: dict[str, Any]) -> None:
        if not self.terminal:
            import json

            click.echo(json.dumps({"ts": round(time.time(), 3), **event}, sort_keys=True, default=str))
            return
        kind = event["event"]
        stamp = time.strftime("%H:%M:%S")
        if kind == "drive":
            status = event["status"]
            detail = event.get("gate") or event.get("error") or ""
            if isinstance(detail, dict):
                detail = f"{detail.get('type')}: {detail.get('message')}"
            colour = {"completed": "green", "failed": "red", "left": "yellow"}.get(status)
            click.echo(f"{stamp}  {click.style(f'{status:<10}', fg=colour)} {event.get('flowId') or '-':<20} "
                       f"{event['executionId']}  {event['seconds']:.2f}s  {detail}".rstrip())
        elif kind == "stopping":
            click.echo(f"{stamp}  {event['signal']}: finishing the steps in hand, claiming nothing new", err=True)
        elif kind == "stopped":
            click.echo(f"{stamp}  stopped after {event['driven']} drive(s)", err=True)
        elif kind == "error":
            click.echo(f"{stamp}  {click.style('error', fg='red')}: {event['error']}", err=True)


@click.command("worker")
@click.argument("target", metavar="MODULE:ATTR")
@click.option("--concurrency", type=click.IntRange(min=1), default=1, show_default=True,
              help="Executions driven at once (threads).")
@click.option("--poll-interval", type=click.FloatRange(min=0.01), default=1.0, show_default=True,
              help="Seconds between looks for work on stores that cannot notify (SQLite).")
def worker_command(target: str, concurrency: int, poll_interval: float) -> None:
    """Serve a Runtime: drive submitted executions, fire due timers, take over dead workers' work."""
    runtime = load_runtime(target)
    terminal = sys.stdout.isatty()
    reporter = _Reporter(terminal)
    if terminal:
        click.echo(f"loom worker {runtime.worker_id}: serving {target} on {_where(runtime)} "
                   f"(concurrency {concurrency}; Ctrl-C or SIGTERM stops it)", err=True)
    runtime.serve(poll_interval=poll_interval, concurrency=concurrency, on_event=reporter)
