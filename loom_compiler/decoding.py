"""Source bytes to text exactly as CPython reads a module file (PEP 263, PEP 3120).

The fingerprint hashes what the code *means*, so the text must be the one Python runs: ``é``
saved under ``# coding: latin-1`` is the byte ``e9`` and the same character as ``c3 a9`` under
UTF-8, while the bytes ``c3 a9`` under a Latin-1 cookie are the two characters ``Ã©``. Reading
every file as UTF-8 (what loom did before ``loom-fp/2``) hashed those two different strings
alike and refused valid Latin-1 files.

The rules are CPython's tokenizer's (``Parser/tokenizer.c``: ``check_bom``, ``get_coding_spec``,
``check_coding_spec``), applied to bytes:

* a UTF-8 byte order mark means UTF-8; a cookie naming any other encoding next to it is an error;
* otherwise a cookie (``coding[:=]<name>`` inside a comment that is the only thing on its line) on
  line 1, or on line 2 when line 1 holds nothing but a comment or blanks, names the codec, which
  must be a text encoding (``rot13`` is not);
* otherwise UTF-8.

Lines end at ``\\n`` for the cookie search, as in CPython. NUL bytes are not this module's
business: CPython refuses them before it decodes anything, and ``parsing`` reports them with
their position.

Rejected: ``tokenize.detect_encoding``. It decodes the first two lines as UTF-8 before looking
for the cookie, so it refuses ``# café, coding: latin-1`` (valid for CPython), and its messages
carry no position.
"""

from __future__ import annotations

import codecs
import re

__all__ = ["SourceDecodeError", "decode_source", "line_column", "source_encoding"]

_BOM = b"\xef\xbb\xbf"
# the cookie: a comment that starts the line (after blanks), holding coding: or coding=
_COOKIE_RE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_BLANK_OR_COMMENT_RE = re.compile(rb"^[ \t\f]*(?:[#\r\n]|$)")


class SourceDecodeError(ValueError):
    """The bytes are not text under the encoding Python would use; 1-based line and column."""

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


def _normal_name(name: str) -> str:
    # CPython's get_normal_name: the spellings it maps to the two encodings it knows natively
    low = name[:12].lower().replace("_", "-")
    if low == "utf-8" or low.startswith("utf-8-"):
        return "utf-8"
    for latin in ("latin-1", "iso-8859-1", "iso-latin-1"):
        if low == latin or low.startswith(latin + "-"):
            return "iso-8859-1"
    return name


def _cookie(line: bytes) -> tuple[str, int] | None:
    """(encoding name, 1-based column of the name) of a coding cookie on this line, if any."""
    match = _COOKIE_RE.match(line)
    if match is None:
        return None
    return match.group(1).decode("ascii"), match.start(1) + 1


def source_encoding(data: bytes) -> tuple[str, int]:
    """(codec name, offset where the text starts) under PEP 263. Raises ``SourceDecodeError``
    for an unknown or non-text codec and for a cookie that contradicts a UTF-8 BOM."""
    bom = data.startswith(_BOM)
    start = len(_BOM) if bom else 0
    first_end = data.find(b"\n", start)
    first = data[start:] if first_end < 0 else data[start : first_end + 1]
    found, line_no = _cookie(first), 1
    if found is None and first_end >= 0 and _BLANK_OR_COMMENT_RE.match(first):
        second_end = data.find(b"\n", first_end + 1)
        second = data[first_end + 1 :] if second_end < 0 else data[first_end + 1 : second_end + 1]
        found, line_no = _cookie(second), 2
    if found is None:
        return "utf-8", start
    name, column = found
    try:
        info = codecs.lookup(name)
    except LookupError:
        raise SourceDecodeError(
            f"unknown encoding {name!r} in the coding declaration; name a codec Python knows (utf-8, latin-1, ...)",
            line_no,
            column,
        ) from None
    if not getattr(info, "_is_text_encoding", True):  # what CPython's codec lookup checks
        raise SourceDecodeError(f"{name!r} in the coding declaration is not a text encoding", line_no, column)
    normal = _normal_name(name)
    if bom and normal != "utf-8":
        raise SourceDecodeError(
            f"the file starts with a UTF-8 byte order mark but declares the encoding {name!r}; remove one of them",
            line_no,
            column,
        )
    return (normal if normal in ("utf-8", "iso-8859-1") else info.name), start


_NEWLINE_RE = re.compile(r"\r\n|\r|\n")


def line_column(text: str, index: int) -> tuple[int, int]:
    """1-based (line, column) of ``text[index]``: lines end at CR, LF or CRLF and columns count
    characters, as CPython and editors count them."""
    line, start = 1, 0
    for match in _NEWLINE_RE.finditer(text, 0, index):
        line, start = line + 1, match.end()
    return line, index - start + 1


def decode_source(data: bytes) -> str:
    """The text CPython reads from a module file's bytes. On failure, a ``SourceDecodeError`` at
    the line and column (1-based, in characters) of the first byte that does not decode."""
    encoding, start = source_encoding(data)
    try:
        return data[start:].decode(encoding)
    except UnicodeDecodeError as exc:
        offset = start + exc.start
        head = data[start:offset].decode(encoding, errors="replace")  # decodes: it precedes the error
        line, column = line_column(head, len(head))
        what = "not valid UTF-8" if encoding == "utf-8" else f"not valid {encoding}, the declared encoding"
        advice = "save the file as UTF-8" if encoding == "utf-8" else "fix the bytes or the coding declaration"
        raise SourceDecodeError(
            f"{what} ({exc.reason}, byte 0x{data[offset]:02x}); {advice}" if offset < len(data)
            else f"{what} ({exc.reason} at the end of the file); {advice}",
            line,
            column,
        ) from None
