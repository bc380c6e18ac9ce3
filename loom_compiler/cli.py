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

from .commands.census import census_command  # noqa: E402
from .commands.deploy_check import deploy_check_command  # noqa: E402
from .commands.export import export_command  # noqa: E402
from .commands.gc import gc_command  # noqa: E402
from .commands.replay import replay_command  # noqa: E402

main.add_command(census_command)
main.add_command(deploy_check_command)
main.add_command(gc_command)
main.add_command(export_command)
main.add_command(replay_command)
