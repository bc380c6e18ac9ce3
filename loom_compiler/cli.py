"""``loom``: a thin click shell over library calls. No logic lives here that a test can't reach
through the library; each command module under ``loom_compiler.commands`` registers itself."""

from __future__ import annotations

import click


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="loom-toolchain")
def main() -> None:
    """Body-aware fingerprints and per-version chunks for durable flows."""


from .commands.fingerprint import fingerprint_command  # noqa: E402

main.add_command(fingerprint_command)

from .commands.build import build_command  # noqa: E402

main.add_command(build_command)

from .commands.diff import diff_command  # noqa: E402

main.add_command(diff_command)

from .commands.check import check_command  # noqa: E402

main.add_command(check_command)
