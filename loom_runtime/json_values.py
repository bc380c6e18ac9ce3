"""JSON values loom stores and reads: the limits, checked without recursion, and clear errors.

Everything loom persists as JSON — journal payloads (step results, flow inputs, signals), exported
histories, manifests — goes through this module, so one set of limits holds everywhere and a
hostile or accidental value fails with a message instead of a ``RecursionError`` traceback, a
``ValueError`` from the integer parser, or a store error after the effect ran:

* nesting: at most :data:`MAX_DEPTH` levels of arrays and objects;
* integers: at most :data:`MAX_INT_DIGITS` decimal digits (CPython 3.11's own conversion limit,
  applied on 3.10 too, so a journal written on one Python reads on another);
* one stored event: at most :data:`MAX_EVENT_BYTES` bytes of UTF-8 JSON (far below SQLite's 1 GB
  row and PostgreSQL's 1 GB field limits, so a store never refuses what passed this check);
* no cycles, no ``NaN``/``Infinity``, object keys are strings, values are ``dict``/``list``/
  ``tuple``/``str``/``int``/``float``/``bool``/``None``.

:func:`check` walks a value with an explicit stack (a 100,000-deep list costs a loop, not the C
stack) and raises :class:`JsonValueError` naming where the value breaks a rule (``result[0][0]…``,
abbreviated); :func:`encode` checks, then serialises (sorted keys, compact); :func:`decode` parses
text and turns the parser's ``RecursionError`` and integer-limit ``ValueError`` into
``JsonValueError`` too.

Rejected: ``sys.setrecursionlimit`` (it moves the crash, from a ``RecursionError`` to a segfault
of the C stack), a size limit per field (a step returns one value; the row is what the store
limits), and silently truncating (a journal must hold exactly what the effect returned).
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

__all__ = ["MAX_DEPTH", "MAX_INT_DIGITS", "MAX_EVENT_BYTES", "JsonValueError", "check", "encode", "decode"]

#: Levels of arrays/objects a stored value may nest.
MAX_DEPTH = 512
#: Decimal digits an integer may have.
MAX_INT_DIGITS = 4300
#: Bytes of UTF-8 JSON one stored event payload may take (16 MiB).
MAX_EVENT_BYTES = 16 * 1024 * 1024

_INT_LIMIT = 10**MAX_INT_DIGITS  # the smallest integer with one digit too many
_INT_BITS_SAFE = 14_000  # 2**14000 has 4215 digits: below this no comparison is needed


class JsonValueError(ValueError):
    """A value loom cannot store or a text it cannot read as JSON; ``where`` is the path to it."""

    def __init__(self, what: str, where: str = "", *, line: int = 0, column: int = 0) -> None:
        super().__init__(f"{where}: {what}" if where else what)
        self.what = what
        self.where = where
        self.line = line  # of a syntax error in the text, 1-based (0: none)
        self.column = column


def _too_many_digits(value: int) -> bool:
    # compared, never converted: str() of a huge int is quadratic, and raises on 3.11+
    return value.bit_length() > _INT_BITS_SAFE and abs(value) >= _INT_LIMIT


def check(value: Any, *, where: str = "value") -> None:
    """Raise ``JsonValueError`` unless ``value`` is a JSON value within the limits (see above)."""
    _check_scalar(value, where, None)
    if not isinstance(value, (list, tuple, dict)):
        return
    # Containers still to walk: (container, depth, link). A link is (parent link, key): the path
    # is spelled out only for an error, so a hit costs one small tuple per container.
    stack: list[tuple[Any, int, Any]] = [(value, 0, None)]
    on_path: set[int] = set()  # containers whose walk is under way (meeting one again: a cycle)
    leave: list[tuple[int, int]] = []  # (stack height, id): leave ``on_path`` once back at it
    while stack:
        while leave and len(stack) <= leave[-1][0]:
            on_path.discard(leave.pop()[1])
        v, depth, link = stack.pop()
        if depth >= MAX_DEPTH:
            raise JsonValueError(f"nested deeper than {MAX_DEPTH} levels", _path(where, link))
        if id(v) in on_path:
            raise JsonValueError("a cyclic value (it contains itself)", _path(where, link))
        on_path.add(id(v))
        leave.append((len(stack), id(v)))
        if isinstance(v, dict):
            for k in v:
                if type(k) is not str and not isinstance(k, str):
                    raise JsonValueError(f"object key {k!r} is not a string", _path(where, link))
            items: Any = v.items()
        else:
            items = enumerate(v)
        for k, item in items:
            t = type(item)  # exact types first: the common case costs no call
            if t is str or t is bool or item is None:
                continue
            if t is int:
                if item.bit_length() > _INT_BITS_SAFE and abs(item) >= _INT_LIMIT:
                    raise JsonValueError(f"an integer with more than {MAX_INT_DIGITS} digits", _path(where, (link, k)))
                continue
            if t is float:
                if item - item != 0.0:  # NaN and ±Infinity
                    raise JsonValueError(f"{item!r} is not a JSON number", _path(where, (link, k)))
                continue
            if t is list or t is dict or t is tuple or isinstance(item, (list, tuple, dict)):
                stack.append((item, depth + 1, (link, k)))
                continue
            _check_scalar(item, where, (link, k))


def _check_scalar(v: Any, where: str, link: Any) -> None:
    if v is None or isinstance(v, (str, bool, list, tuple, dict)):
        return
    if isinstance(v, int):
        if _too_many_digits(v):
            raise JsonValueError(f"an integer with more than {MAX_INT_DIGITS} digits", _path(where, link))
        return
    if isinstance(v, float):
        if not math.isfinite(v):
            raise JsonValueError(f"{v!r} is not a JSON number", _path(where, link))
        return
    raise JsonValueError(f"{type(v).__name__} is not a JSON value", _path(where, link))


def _path(where: str, link: Any) -> str:
    keys: list[Any] = []
    while link is not None:
        link, key = link
        keys.append(key)
    parts = [f"[{k!r}]" for k in reversed(keys)]
    if len(parts) > 8:
        parts = [*parts[:4], f"…({len(parts) - 7} more)…", *parts[-3:]]
    return where + "".join(parts)


def encode(value: Any, *, where: str = "value", max_bytes: int | None = MAX_EVENT_BYTES) -> str:
    """``value`` as compact JSON text with sorted keys, after ``check``; ``JsonValueError`` when it
    breaks a limit, or when the text would exceed ``max_bytes`` (``None``: no size limit)."""
    check(value, where=where)
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False,
                      check_circular=False)
    if max_bytes is not None and len(text) > max_bytes // 4 and len(text.encode("utf-8")) > max_bytes:
        size = len(text.encode("utf-8"))
        raise JsonValueError(f"{size:,} bytes of JSON, more than the {max_bytes:,} one journal event may hold", where)
    return text


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"integer of {len(digits)} digits")
    return int(digits)


def decode(text: str | bytes, *, where: str = "") -> Any:
    """Parse JSON text; ``JsonValueError`` (with line and column where known) for anything else,
    including nesting the parser cannot follow and integers past :data:`MAX_INT_DIGITS` digits."""
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")  # never json's own guess at UTF-16/32
        if sys.version_info >= (3, 11):
            return json.loads(text)
        return json.loads(text, parse_int=_bounded_int)
    except json.JSONDecodeError as exc:
        raise JsonValueError(f"not valid UTF-8 JSON at line {exc.lineno} column {exc.colno} ({exc.msg})", where,
                             line=exc.lineno, column=exc.colno) from None
    except UnicodeDecodeError as exc:
        raise JsonValueError(f"not valid UTF-8 JSON ({exc.reason} at byte {exc.start})", where) from None
    except RecursionError:
        raise JsonValueError("JSON nested too deeply to read (arrays or objects thousands of levels deep)", where) from None
    except ValueError:  # the integer-conversion limit of int()
        raise JsonValueError(f"JSON holding an integer of more than {MAX_INT_DIGITS} digits", where) from None
