"""The cheap byte check that decides which files are flow candidates (``might_define_flows``).

Its own module, free of libcst, so that scanning a tree (every build, a no-change build entirely)
never imports the parser.

Rejected: ``ast.parse`` of every file to look at its decorators (a parse per file is what the check
exists to avoid), and matching ``@name`` only on decorator lines (``from loom_runtime import flow as
durable`` then ``@durable(...)`` would be a false negative: a dropped flow, where a false positive
only costs a parse).
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from .config import DEFAULT_DECORATORS

if TYPE_CHECKING:
    from .config import LoomConfig

__all__ = ["decorator_markers", "might_define_flows", "spells_a_marker_in_code"]


def decorator_markers(config: LoomConfig | None) -> tuple[bytes, ...]:
    return _markers(tuple(config.decorators) if config is not None else DEFAULT_DECORATORS)


@functools.lru_cache(maxsize=64)
def _markers(names: tuple[str, ...]) -> tuple[bytes, ...]:
    # once per configuration, not once per file (a build checks every file of the tree)
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


def spells_a_marker_in_code(data: bytes, config: LoomConfig | None) -> bool:
    """The second, closer check of a file ``might_define_flows`` let through: does a flow
    decorator's last name occur in its *code*, as a name, an attribute or an imported name (not
    only in a docstring, a comment or a string)? A flow decorator is resolved from such a name
    (``@flow``, ``@lr.flow``, ``from loom_runtime import flow as durable`` then ``@durable``), so
    a file that spells it nowhere in code declares no flow (nested ones included) and, unless a
    closure reaches it, is never given to libcst: a library whose docstrings talk about
    ``@DBOS.workflow`` costs its bytes' hash, not a parse (dbos-transact-py: 17 of 66 files).

    CPython's own parser (C, several times faster than libcst's); a file it cannot parse is
    reported as a candidate (True), so its syntax error is found and reported as before.
    """
    import ast  # here: the byte check alone (every scan, a no-change build) needs no parser
    import warnings

    markers = {m.decode("ascii", "replace") for m in decorator_markers(config)}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # no SyntaxWarning about the user's code
            tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    for node in ast.walk(tree):
        kind = type(node)
        if kind is ast.Name:
            if node.id in markers:
                return True
        elif kind is ast.Attribute:
            if node.attr in markers:
                return True
        elif kind is ast.alias:
            if node.name.rpartition(".")[2] in markers or node.asname in markers:
                return True
    return False
