"""Flow ids declared more than once: one error per id, at its first declaration.

A flow id names a journal's executions and a manifest entry, so two flows with one id cannot both
be built. The error is reported once per id (at the first site in path order, listing every site):
one line per site repeated the whole list at every site, and a repository root with a few copies
of an example under ``tests/`` printed the same sentence a dozen times. The hint names the usual
cause, copies in test or fixture directories, and its fix (``[tool.loom] exclude``).

Both ``fingerprint_flows`` (one call sees every module) and ``build_project`` (which collects per
module and checks across them) use this one function, so the two commands say the same thing.

Rejected: one error per site (the repetition above; an editor annotation at every site is what
the listed locations are for) and dropping all but one site silently (which one would be kept
would depend on walk order).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from .model import SourceError

__all__ = ["duplicate_id_errors"]


class _Site(Protocol):
    """Where a flow is declared: a ``FlowFingerprint``, or a build's ``VersionFacts``."""

    @property
    def flow_id(self) -> str: ...
    @property
    def function(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def column(self) -> int: ...


_S = TypeVar("_S", bound=_Site)


def duplicate_id_errors(flows: Sequence[_S]) -> list[SourceError]:
    """An error for every flow id declared by two or more distinct functions in ``flows``."""
    by_id: dict[str, dict[tuple[str, str], _S]] = {}
    for f in flows:
        by_id.setdefault(f.flow_id, {}).setdefault((f.path, f.function), f)
    errors = []
    for flow_id, sites in sorted(by_id.items()):
        if len(sites) < 2:
            continue
        group = sorted(sites.values(), key=lambda f: (f.path, f.line, f.column))
        places = ", ".join(f"{f.path}:{f.line}:{f.column} ({f.function})" for f in group)
        first = group[0]
        errors.append(SourceError(
            first.path, first.line, first.column,
            f"flow id `{flow_id}` is declared {len(group)} times: {places}; give each flow its own id "
            "(copies under tests/ or fixtures? list their directories in [tool.loom] exclude)",
            code="duplicate-id",
        ))
    return errors
