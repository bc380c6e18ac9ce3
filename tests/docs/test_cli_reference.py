"""docs/reference/cli.md is click's own help for every command: an option added, renamed or
re-worded without regenerating the reference fails here (prose that drifts cannot)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import click

from loom_compiler.cli import main as loom

TOOL = Path(__file__).resolve().parents[2] / "docs" / "tools" / "gen_cli_reference.py"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_cli_reference", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_command_reference_is_what_click_prints():
    gen = _generator()
    assert gen.OUT.read_text(encoding="utf-8") == gen.render(), (
        "docs/reference/cli.md is out of date: run python docs/tools/gen_cli_reference.py")


def test_every_command_and_option_appears_in_the_reference():
    text = _generator().OUT.read_text(encoding="utf-8")
    ctx = click.Context(loom, info_name="loom", **loom.context_settings)
    for name in loom.list_commands(ctx):
        assert f"## `loom {name}`" in text
        command = loom.get_command(ctx, name)
        for param in command.params:
            for opt in getattr(param, "opts", ()):
                if opt.startswith("-"):
                    assert opt in text, f"loom {name} {opt} is not documented"
