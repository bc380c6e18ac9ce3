"""A hint when a scan finds no flow but the tree spells another framework's flow decorator.

A DBOS, Temporal or Prefect service scanned with the default profile (``framework = "loom"``)
finds no flow and exits 0; "0 flows" reads as "nothing to pin", and the service then deploys with
no fingerprint at all. When a scan found no flow, ``framework_hint`` looks at the same files for
what another profile would take as a flow (the profile's byte check, ``precheck.might_define_flows``,
in a file that imports the profile's package) and says which ``framework`` to set.

Only the bytes are read (no parse): the hint costs one more read of the tree, and only when no
flow was found. It is a hint, not a guess acted on: the profile in force is never changed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from .config import LoomConfig
from .frameworks import FRAMEWORKS, profile_for
from .precheck import might_define_flows
from .sources import iter_python_files

__all__ = ["framework_hint"]

#: files named in the hint (the count says how many more)
_SHOWN = 3


def framework_hint(config: LoomConfig, command: str, paths: Iterable[Path] = ()) -> str | None:
    """One line naming the framework whose flows the scanned files declare, or None.

    ``paths``: what was scanned (files or directories; none: the project root). Call it only when
    the scan found no flow."""
    found: dict[str, list[str]] = {}
    for file in _files(config, tuple(paths)):
        try:
            data = file.read_bytes()
        except OSError:
            continue  # the scan itself reported an unreadable file; a hint never adds an error
        for name in _other_frameworks(config):
            if _declares(data, name, config):
                found.setdefault(name, []).append(_shown(file, config.root))
    if not found:
        return None
    name, files = max(found.items(), key=lambda item: (len(item[1]), item[0]))
    flow_decorator = profile_for(name).flow_decorators[0]
    listed = ", ".join(files[:_SHOWN]) + (f" and {len(files) - _SHOWN} more" if len(files) > _SHOWN else "")
    return (f"{command}: no flow found with framework \"{config.framework}\", but {len(files)} "
            f"module(s) use {flow_decorator} ({listed}); to fingerprint them, set [tool.loom] "
            f"framework = \"{name}\" in pyproject.toml")


def _files(config: LoomConfig, paths: tuple[Path, ...]) -> Iterable[Path]:
    for top in paths or (config.root,):
        yield from iter_python_files(Path(top).resolve(), config.root, config.walk_exclude, packages=config.packages)


def _other_frameworks(config: LoomConfig) -> list[str]:
    return [name for name in FRAMEWORKS if name not in (config.framework, "loom")]


def _declares(data: bytes, name: str, config: LoomConfig) -> bool:
    profile = profile_for(name)
    packages = {d.split(".", 1)[0] for d in profile.flow_decorators}
    if not any(_imports(package).search(data) for package in packages):
        return False
    return might_define_flows(data, replace(config, framework=name, decorators=(), step_decorators=()))


_IMPORT_CACHE: dict[str, re.Pattern[bytes]] = {}


def _imports(package: str) -> re.Pattern[bytes]:
    pattern = _IMPORT_CACHE.get(package)
    if pattern is None:
        word = re.escape(package.encode())
        pattern = _IMPORT_CACHE[package] = re.compile(rb"^[ \t]*(?:from|import)[ \t]+" + word + rb"(?![\w])", re.M)
    return pattern


def _shown(file: Path, root: Path) -> str:
    try:
        return file.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(file)
