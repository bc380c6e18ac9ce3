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


_MARKER_CACHE: dict[tuple[bytes, ...], tuple[re.Pattern[bytes], re.Pattern[bytes]]] = {}


def might_define_flows(data: bytes, config: LoomConfig | None) -> bool:
    """Cheap byte check: can this file declare a flow at all?

    It needs, as a whole word, the last name of a configured decorator: that name must be spelled
    somewhere, on the decorator line (``@flow``, ``@lr.flow``, ``@DBOS.workflow``) or in the
    import that aliases it (``from loom_runtime import flow as durable``); and an ``@``, or that
    name called (``run = flow("x")(impl)``: a flow declared without decorator syntax, which the
    analysis reports, B18). "flows" or "workflows" in a docstring do not count. Conservative by
    design: a false positive costs a parse, a false negative would drop a flow.
    """
    markers = decorator_markers(config)
    if not any(marker in data for marker in markers):
        return False  # a substring search (C, memchr) rules out most files before the regex
    found = _MARKER_CACHE.get(markers)
    if found is None:
        words = b"|".join(map(re.escape, markers))
        found = _MARKER_CACHE[markers] = (re.compile(rb"(?<![\w])(?:" + words + rb")(?![\w])"),
                                          re.compile(rb"(?<![\w])(?<!def )(?:" + words + rb")\s*\("))
    word, call = found
    return (b"@" in data and word.search(data) is not None) or call.search(data) is not None
