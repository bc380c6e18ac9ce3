"""``loom``: a thin click shell over library calls. No logic lives here that a test can't reach
through the library; each command lives in a module under ``loom_compiler.commands``.

Commands are imported on demand (click's "lazy group" pattern): ``loom build`` imports the build
command and what it needs, never libpq bindings or the review renderer, and ``loom --help`` lists
every command from the one-line help kept here, importing none of them. A fresh interpreter used
to pay about half a second importing every command module (and libcst, twice over) before doing
anything. A test checks that each line below matches its command's own help.

Rejected: entry-point discovery of commands (a metadata scan on every start, slower than the
imports it saves) and keeping eager imports behind ``if TYPE_CHECKING`` (click needs the objects).
"""

from __future__ import annotations

from importlib import import_module

import click

__all__ = ["main", "LazyGroup", "LAZY_COMMANDS"]

#: command name -> ("module:attribute", the first sentence of its help, for ``loom --help``)
LAZY_COMMANDS: dict[str, tuple[str, str]] = {
    "fingerprint": ("loom_compiler.commands.fingerprint:fingerprint_command",
                    "Fingerprint the flows under PATH... (files or directories; default: the project root)."),
    "build": ("loom_compiler.commands.build:build_command",
              "Write per-version chunks and the cumulative manifest for the project at PATH."),
    "version": ("loom_compiler.commands.version:version_command",
                "Print the project's version id: sha256 over every current flow's (id, codeHash)."),
    "diff": ("loom_compiler.commands.diff:diff_command",
             "Show which flows changed against a base and which closure members changed."),
    "check": ("loom_compiler.commands.check:check_command",
              "Fail when a changed flow would strand in-flight executions."),
    "census": ("loom_compiler.commands.census:census_command",
               "Count unfinished (running or suspended) executions by flow, codeHash and status."),
    "deploy-check": ("loom_compiler.commands.deploy_check:deploy_check_command",
                     "Fail if any unfinished execution could not be served by the build."),
    "gc": ("loom_compiler.commands.gc:gc_command",
           "Remove manifest versions (and chunks) that no unfinished execution needs."),
    "export": ("loom_compiler.commands.export:export_command",
               "Export execution histories as JSON files (one per execution) for `loom replay`."),
    "replay": ("loom_compiler.commands.replay:replay_command",
               "Check that the current code replays exported histories without divergence."),
    "worker": ("loom_compiler.commands.worker:worker_command",
               "Serve a Runtime: drive submitted executions, fire due timers, take over dead workers' work."),
}


class LazyGroup(click.Group):
    """A ``click.Group`` whose commands in ``lazy`` are imported the first time they are asked for."""

    def __init__(self, *args: object, lazy: dict[str, tuple[str, str]] | None = None, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            target = self.lazy[cmd_name][0]
            module_name, _, attr = target.partition(":")
            command = getattr(import_module(module_name), attr)
            if not isinstance(command, click.Command):  # pragma: no cover - a wrong table entry
                raise TypeError(f"{target} is not a click command")
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # click's own layout, with the table's help for commands not imported yet: listing the
        # commands must not import them
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            command = self.commands.get(name)
            if command is None:
                rows.append((name, click.utils.make_default_short_help(self.lazy[name][1], limit)))
            elif not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, lazy=LAZY_COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="loom-toolchain")
def main() -> None:
    """Body-aware fingerprints and per-version chunks for durable flows."""
