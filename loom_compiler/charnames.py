"""``\\N{NAME}`` escapes resolved alike on every supported Python.

CPython resolves ``\\N{NAME}`` with the Unicode database of the interpreter that compiles the
code: 3.10 has Unicode 13.0, 3.13 has 15.1. ``"\\N{MELTING FACE}"`` (Unicode 14.0) was a
``SyntaxError`` under a 3.10 compiler and a string under 3.12: the result depended on the Python
running loom, which DESIGN §6 forbids. ``charnames_table`` (generated, committed) lists every
character name the newest supported Python's database has and the oldest one's lacks; a name is
looked up in the running Python's database first, then in the table. So every supported Python
knows exactly the names the newest one knows, and a name unknown to that one too is an error on
every Python alike (CPython's own error, from ``parsing``'s check).

What the table cannot hold: name *aliases* (``NameAliases.txt``) added after the oldest
database; no Python API lists them (none were added for Unicode 14.0-15.1 characters that
``\\N{}`` users are likely to write; such a name stays CPython's error on the older Python).

Regenerate with ``python -m loom_compiler.charnames_gen`` (see its docstring) when the supported
Python versions change. The toolchain never needs ``unicodedata2`` or another interpreter at
run time.

Rejected: bundling a full Unicode name database (megabytes, and a second source of truth next
to the interpreter's own), and refusing ``\\N{}`` names that the oldest Python lacks (valid code
on the Python the project runs would not build).
"""

from __future__ import annotations

import re
import unicodedata

from .charnames_table import NAMES, RANGES, SOURCE_UNICODE

__all__ = ["SOURCE_UNICODE", "lookup", "patch_unknown_names", "resolve_names"]

# one backslash escape: ``\N{...}`` (group 1: the name) or a backslash and the character after it,
# so that scanning left to right pairs every backslash with what it escapes (``\\N{X}`` is no
# escape of ``X``)
_CJK = "CJK UNIFIED IDEOGRAPH-"
_ESCAPE_RE = re.compile(r"\\(?:N\{([^}]*)\}|.)", re.DOTALL)


def lookup(name: str) -> str | None:
    """The character ``\\N{name}`` stands for, or None when no supported Python knows the name."""
    try:
        char = unicodedata.lookup(name)  # the running Python's own (aliases included)
    except KeyError:
        pass
    else:
        return char if len(char) == 1 else None  # a named sequence is no ``\N{}`` name
    code = NAMES.get(name.upper())  # CPython compares names case-insensitively
    if code is not None:
        return chr(code)
    # CJK unified ideographs are named by their code point, as CPython's ``_getcode`` reads them:
    # the prefix in any case, then four or five upper-case hex digits
    if name[: len(_CJK)].upper() == _CJK:
        digits = name[len(_CJK) :]
        if len(digits) in (4, 5) and all(c in "0123456789ABCDEF" for c in digits):
            code = int(digits, 16)
            if any(first <= code <= last for first, last in RANGES):
                return chr(code)
    return None


def _known_here(name: str) -> bool:
    try:
        unicodedata.lookup(name)
    except KeyError:
        return False
    return True


def resolve_names(body: str) -> str:
    """A (non-raw) string literal's body with every ``\\N{NAME}`` the running Python does not
    know but the table does written as the equivalent ``\\UXXXXXXXX`` escape."""
    if "\\N{" not in body:
        return body

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name is None or _known_here(name):
            return match.group(0)
        char = lookup(name)
        return match.group(0) if char is None else f"\\U{ord(char):08x}"

    return _ESCAPE_RE.sub(replace, body)


def patch_unknown_names(text: str) -> str:
    """Source text in which every ``\\N{NAME}`` the running Python does not know but the table
    does is an escape of the same length (``\\x41AAA...``), so CPython's check accepts what the
    newest supported Python accepts, at the same lines and columns. For that check only: the
    values of such strings are wrong in it; they are never used."""
    if "\\N{" not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name is None or _known_here(name) or lookup(name) is None:
            return match.group(0)
        return "\\x41" + "A" * (len(match.group(0)) - 4)

    return _ESCAPE_RE.sub(replace, text)
