"""The cheap byte check that decides which files are flow candidates (``might_define_flows``).

Its own module, free of libcst, so that scanning a tree (every build, a no-change build entirely)
never imports the parser.

Rejected: ``ast.parse`` of every file to look at its decorators (a parse per file is what the check
exists to avoid), and matching ``@name`` only on decorator lines (``from loom_runtime import flow as
durable`` then ``@durable(...)`` would be a false negative: a dropped flow, where a false positive
only costs a parse).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .config import DEFAULT_DECORATORS

if TYPE_CHECKING:
    from .config import LoomConfig

__all__ = ["decorator_markers", "might_define_flows"]


def decorator_markers(config: LoomConfig | None) -> tuple[bytes, ...]:
    names = config.decorators if config is not None else DEFAULT_DECORATORS
    return tuple(sorted({d.rsplit(".", 1)[-1].encode() for d in names}))


_MARKER_CACHE: dict[tuple[bytes, ...], re.Pattern[bytes]] = {}


def might_define_flows(data: bytes, config: LoomConfig | None) -> bool:
    """Cheap byte check: can this file declare a flow at all?

    It needs an ``@`` and, as a whole word, the last name of a configured decorator: that name
    must be spelled somewhere, on the decorator line (``@flow``, ``@lr.flow``,
    ``@DBOS.workflow``) or in the import that aliases it (``from loom_runtime import flow as
    durable``). "flows" or "workflows" in a docstring do not count. Conservative by design: a
    false positive costs a parse, a false negative would drop a flow.
    """
    if b"@" not in data:
        return False
    markers = decorator_markers(config)
    if not any(marker in data for marker in markers):
        return False  # a substring search (C, memchr) rules out most files before the regex
    pattern = _MARKER_CACHE.get(markers)
    if pattern is None:
        pattern = _MARKER_CACHE[markers] = re.compile(rb"(?<![\w])(?:" + b"|".join(map(re.escape, markers)) + rb")(?![\w])")
    return pattern.search(data) is not None
