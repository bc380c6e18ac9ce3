"""``loom``'s command group: commands are imported on demand, ``--help`` imports none of them."""

from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from loom_compiler.cli import LAZY_COMMANDS, main

PROBE = """
import json, sys
from loom_compiler.cli import main
try:
    main(sys.argv[1:], prog_name="loom")
except SystemExit:
    pass
loaded = sorted(m for m in sys.modules if m.startswith(("loom_compiler", "loom_runtime", "libcst", "psycopg")))
print(json.dumps(loaded))
"""


def _modules_loaded_by(*args: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_help_imports_no_command_module() -> None:
    assert _modules_loaded_by("--help") == ["loom_compiler", "loom_compiler.cli"]


def test_a_command_imports_only_its_own_module() -> None:
    loaded = _modules_loaded_by("census", "--help")
    # its own module and the ops commands' shared helpers, no other command
    assert [m for m in loaded if m.startswith("loom_compiler.commands.")] == ["loom_compiler.commands._ops",
                                                                             "loom_compiler.commands.census"]
    assert not [m for m in loaded if m.startswith("libcst")]


@pytest.mark.parametrize("name", sorted(LAZY_COMMANDS))
def test_a_commands_help_loads_click_and_its_module_only(name: str) -> None:
    # start-up is what every command pays (a pre-commit hook, each CI step): ``loom <command>
    # --help`` loads click, the group and the command's own module, never the library it runs
    # (loom_runtime alone costs more than click; libcst several times more)
    loaded = _modules_loaded_by(name, "--help")
    own = LAZY_COMMANDS[name][0].partition(":")[0]
    assert own in loaded
    assert [m for m in loaded if m.startswith(("loom_runtime", "libcst", "psycopg"))] == []
    assert [m for m in loaded if m.startswith("loom_compiler.") and m not in (
        "loom_compiler.cli", "loom_compiler.commands", "loom_compiler.commands._ops", own)] == []


def test_the_diff_commands_formats_are_the_renderers() -> None:
    from loom_compiler.commands.diff import FORMATS
    from loom_compiler.review import FORMATS as RENDERED

    assert FORMATS == RENDERED


@pytest.mark.parametrize("name", sorted(LAZY_COMMANDS))
def test_the_listed_help_is_the_commands_own(name: str) -> None:
    command = main.get_command(click.Context(main), name)
    assert command is not None and command.name == name
    assert LAZY_COMMANDS[name][1] == (command.help or "").split("\n\n")[0].strip()


def test_help_lists_every_command_and_unknown_commands_fail() -> None:
    runner = CliRunner()
    listed = runner.invoke(main, ["--help"]).output.split("Commands:")[1]
    assert [line.split()[0] for line in listed.splitlines() if line.startswith("  ") and not line.startswith("   ")] \
        == sorted(LAZY_COMMANDS)
    result = runner.invoke(main, ["biuld"])
    assert result.exit_code == 2 and "No such command 'biuld'" in result.output
