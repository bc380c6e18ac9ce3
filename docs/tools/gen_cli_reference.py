"""Write docs/reference/cli.md from click's own help: every command, argument and option.

    python docs/tools/gen_cli_reference.py          # rewrite docs/reference/cli.md
    python docs/tools/gen_cli_reference.py --check  # exit 1 if it is out of date (the test does this)

Generated, not written by hand, so an option cannot exist undocumented: ``tests/docs`` fails when
the file differs from what this script prints for the installed ``loom``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import click

from loom_compiler.cli import main as loom

OUT = Path(__file__).resolve().parents[1] / "reference" / "cli.md"

HEADER = """# Command reference: `loom`

Generated from the commands' own `--help` by `python docs/tools/gen_cli_reference.py`; a test fails
when this file and the installed `loom` disagree. What the commands are for, in order of use:
[guides/operating-a-deploy.md](../guides/operating-a-deploy.md) and
[guides/ci-github-actions.md](../guides/ci-github-actions.md). Exit status, unless a command says
otherwise: 0 success, 1 a finding (an error in the sources, a stranded execution, a failed gate),
2 a usage or configuration error.
"""


def render() -> str:
    # a fixed width: the help must not wrap differently on another terminal
    ctx = click.Context(loom, info_name="loom", terminal_width=100, max_content_width=100,
                        **{k: v for k, v in loom.context_settings.items() if k == "help_option_names"})
    parts = [HEADER]
    for name in loom.list_commands(ctx):
        command = loom.get_command(ctx, name)
        assert command is not None
        sub = click.Context(command, info_name=name, parent=ctx, terminal_width=100, max_content_width=100)
        parts.append(f"\n## `loom {name}`\n")
        parts.append("```text\n" + command.get_help(sub).replace("\r", "") + "\n```\n")
    return "".join(parts)


def run(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/reference/cli.md is out of date")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if current != text:
            print(f"{OUT} is out of date: run python docs/tools/gen_cli_reference.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(run())
