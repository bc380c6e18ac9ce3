"""Equal/changed pairs for the syntax rules of ``loom-fp/2`` (issue 12 classes 7, 8, 11b and 13):
subscript tuples, string and f-string values, the source encoding, numbers of any size, ``\\N{}``
names. Every example the issue lists is here, each rule in both directions (the edit that must
move the hash and the one that must not). Run by ``test_fingerprint_pairs.py`` with the pairs of
``fp_cases`` (and so by ``test_cross_python.py`` under every other Python).

``before``/``after`` are text (encoded as UTF-8) or, for the encoding rules, the file's bytes.
"""

from __future__ import annotations

import decimal
import sys

from fp_cases import Pair

FLOW = 'from loom_runtime import flow\n\n\n@flow("s")\ndef s(ctx, x, d, a):\n'


def _flow(body: str) -> str:
    return FLOW + "".join(f"    {line}\n" for line in body.splitlines())


def E(name: str, rule: str, before: str | bytes, after: str | bytes) -> Pair:
    return Pair(name, "equal", rule, _flow(before) if isinstance(before, str) else before,
                _flow(after) if isinstance(after, str) else after)


def C(name: str, rule: str, before: str | bytes, after: str | bytes) -> Pair:
    return Pair(name, "changed", rule, _flow(before) if isinstance(before, str) else before,
                _flow(after) if isinstance(after, str) else after)


def _cookie(encoding: str | None, body: str, data_encoding: str = "utf-8", *, line: int = 1) -> bytes:
    """A flow module whose string literal is ``body``, saved in ``data_encoding`` under a coding
    cookie naming ``encoding`` on ``line`` (no cookie when None)."""
    head = ["#!/usr/bin/env python"] * (line - 1)
    if encoding is not None:
        head.append(f"# -*- coding: {encoding} -*-")
    text = "\n".join(head) + ("\n" if head else "") + _flow(f"return {body!r}")
    return text.encode(data_encoding)


# the UTF-8 bytes of "é", c3 a9: under a Latin-1 cookie they are the two characters "Ã©"
_E_ACUTE_UTF8 = "é".encode("utf-8").decode("latin-1")

BIG = "7" * 4000  # below CPython's 4,300-digit conversion limit, its hex spelling is above it
HUGE = "12345678" * 12_500  # 100,000 digits


def _hex(decimal_digits: str) -> str:
    return hex(int(decimal.Decimal(decimal_digits)))  # no int/str conversion limit on this path


def _oct(decimal_digits: str) -> str:
    return oct(int(decimal.Decimal(decimal_digits)))


SYNTAX_PAIRS: tuple[Pair, ...] = (
    # ------------------------------------------------------------ class 7/11b: subscripts
    C("subscript-tuple-of-one", "d[x] vs d[x,]: a tuple index", "return d[x]", "return d[x,]"),
    C("subscript-slice-tuple", "d[1:2] vs d[1:2,]: a tuple of one slice", "return d[1:2]", "return d[1:2,]"),
    C("subscript-slice-step", "slice(1, 2, None) vs slice(1, 2, 1)", "return d[1:2]", "return d[1:2:1]"),
    C("subscript-tuple-order", "tuple elements in order", "return d[x, 1]", "return d[1, x]"),
    C("subscript-nested-tuple", "d[(x,), 1] vs d[x, 1]", "return d[x, 1]", "return d[(x,), 1]"),
    E("subscript-parenthesised-tuple", "d[x, 1] vs d[(x, 1)]: the same tuple", "return d[x, 1]", "return d[(x, 1)]"),
    E("subscript-trailing-comma-of-many", "a trailing comma that does not make a tuple", "return d[x, 1]",
      "return d[x, 1,]"),
    E("subscript-redundant-parens", "redundant parentheses in a subscript", "return d[x]", "return d[(x)]"),
    E("subscript-empty-step", "d[1:2:] vs d[1:2]", "return d[1:2]", "return d[1:2:]"),
    E("subscript-tuple-of-one-parenthesised", "d[x,] vs d[(x,)]", "return d[x,]", "return d[(x,)]"),
    E("subscript-assign-target", "d[x, 1] = v vs d[(x, 1)] = v", "d[x, 1] = 2\nreturn d",
      "d[(x, 1)] = 2\nreturn d"),
    C("subscript-assign-target-tuple", "d[x] = v vs d[x,] = v", "d[x] = 2\nreturn d", "d[x,] = 2\nreturn d"),
    # ------------------------------------------------------------ class 7/8: f-string text by value
    C("fstring-raw-vs-escape", 'rf"a\\nb{x}" vs f"a\\nb{x}"', 'return rf"a\\nb{x}"', 'return f"a\\nb{x}"'),
    C("fstring-raw-spec", "a raw f-string's format spec keeps its backslashes (3.10/3.11)",
      'return f"{x:\\x3e10}"', 'return rf"{x:\\x3e10}"'),
    C("string-raw-vs-escape", 'r"\\n" vs "\\n"', 'return r"\\n"', 'return "\\n"'),
    E("fstring-hex-escape", 'f"\\x41{x}" vs f"A{x}"', 'return f"\\x41{x}"', 'return f"A{x}"'),
    E("fstring-named-escape", 'f"\\N{EM DASH}{x}" vs f"—{x}"', 'return f"\\N{EM DASH}{x}"', 'return f"—{x}"'),
    E("fstring-raw-backslash", 'rf"\\d{x}" vs f"\\\\d{x}"', 'return rf"\\d{x}"', 'return f"\\\\d{x}"'),
    E("fstring-implicit-concatenation", 'f"{x}\\n" vs f"{x}" "\\n"', 'return f"{x}\\n"', 'return f"{x}" "\\n"'),
    E("fstring-concatenation-of-fstrings", 'f"{x}{a}" vs f"{x}" f"{a}"', 'return f"{x}-{a}"',
      'return f"{x}" f"-{a}"'),
    E("fstring-raw-without-escapes", 'rf"ab{x}" vs f"ab{x}"', 'return rf"ab{x}"', 'return f"ab{x}"'),
    E("fstring-spec-escape", 'f"{x:\\x3e10}" vs f"{x:>10}": the spec by value', 'return f"{x:\\x3e10}"',
      'return f"{x:>10}"'),
    E("fstring-backslash-before-field", 'f"\\{x}": a literal backslash before the field', 'return f"\\{x}"',
      'return "\\\\" f"{x}"'),
    E("fstring-brace-after-name-escape", 'f"\\N{EM DASH}{{x}}": the name escape, then a brace',
      'return f"\\N{EM DASH}{{x}}"', 'return "—{x}"'),
    E("fstring-braces", 'f"{{{x}}}" vs "{" f"{x}" "}"', 'return f"{{{x}}}"', 'return "{" f"{x}" "}"'),
    E("fstring-quotes", "f'...' vs f\"...\"", "return f'n={x!r:>8}'", 'return f"n={x!r:>8}"'),
    E("fstring-nested-quotes", "a nested f-string's quotes", "return f\"{f'A{x}'}\"", "return f'{f\"A{x}\"}'"),
    E(
        "fstring-multiline-crlf",
        "a triple-quoted f-string saved with CRLF",
        _flow('return f"""a\n  b{x}\n"""').encode(),
        _flow('return f"""a\n  b{x}\n"""').replace("\n", "\r\n").encode(),
    ),
    C("fstring-conversion", "!r vs !s", 'return f"{x!r:>10}"', 'return f"{x!s:>10}"'),
    C("fstring-spec-width", "a format spec", 'return f"{x!r:>10}"', 'return f"{x!r:>11}"'),
    C("fstring-conversion-vs-none", "a conversion is behaviour", 'return f"{x:>10}"', 'return f"{x!r:>10}"'),
    C("fstring-nested-spec", "a nested field in the spec", 'return f"{x:>{a}}"', 'return f"{x:<{a}}"'),
    C("fstring-nested-fstring", "a nested f-string's conversion", "return f\"{f'{x}'}\"", "return f\"{f'{x!r}'}\""),
    C("fstring-debug-spaces", 'f"{x=}" vs f"{x = }": the printed text', 'return f"{x=}"', 'return f"{x = }"'),
    C("fstring-debug-vs-plain", 'f"{x=}" vs f"{x}"', 'return f"{x}"', 'return f"{x=}"'),
    C("fstring-debug-expression-spelling", "f\"{x+1=}\" prints the expression's text", 'return f"{x+1=}"',
      'return f"{x + 1=}"'),
    E("fstring-debug-quotes", "the quotes of the f-string around a debug field", "return f'{x=}'",
      'return f"{x=}"'),
    # ------------------------------------------------------------ class 7: the source's encoding
    C(
        "encoding-cookie-changes-meaning",
        "the same bytes under a Latin-1 cookie are other characters",
        _cookie(None, "é"),
        _cookie("latin-1", _E_ACUTE_UTF8, "latin-1"),
    ),
    C(
        "encoding-cookie-on-line-three-is-no-cookie",
        "a cookie is read on line 1 or 2 only",
        _cookie("latin-1", "é", line=3),
        _cookie("latin-1", _E_ACUTE_UTF8, "latin-1", line=2),
    ),
    E("encoding-same-text-latin-1", "the same text in two encodings", _cookie(None, "é"),
      _cookie("latin-1", "é", "latin-1")),
    E("encoding-same-text-cp1252-line-two", "a cookie on line 2 after a shebang", _cookie(None, "€ é", line=2),
      _cookie("cp1252", "€ é", "cp1252", line=2)),
    E("encoding-utf-8-cookie-and-bom", "a UTF-8 cookie next to a BOM", _cookie(None, "é"),
      b"\xef\xbb\xbf" + _cookie("utf-8", "é")),
    # ------------------------------------------------------------ class 13: numbers of any size
    E("int-4000-digits-underscores", "the spelling of a 4,000-digit number", f"return {BIG}",
      "return " + "_".join(BIG[i : i + 3] for i in range(0, len(BIG), 3))),
    E("int-4000-digits-hex", "a 4,000-digit number in hex (4,000+ digits past the conversion limit)",
      f"return {BIG}", f"return {_hex(BIG)}"),
    # CPython refuses a decimal literal of more than 4,300 digits (test_parsing); hex, octal and
    # binary spellings of any size it accepts
    E("int-100000-digits-hex-octal", "a 100,000-digit number in hex vs octal", f"return {_hex(HUGE)}",
      f"return {_oct(HUGE)}"),
    E("int-4000-hex-digits", "a 4,000-hex-digit number (4,817 decimal digits) in hex vs octal",
      "return 0x" + "F" * 4000, f"return {oct(int('F' * 4000, 16))}"),
    C("int-4000-digits-last-digit", "a 4,000-digit number's value", f"return {BIG}", f"return {BIG[:-1]}8"),
    C("int-100000-digits-value", "a 100,000-digit number's value", f"return {_hex(HUGE)}",
      f"return {_hex(HUGE)[:-1]}{'0' if _hex(HUGE)[-1] != '0' else '1'}"),
    E("fstring-without-fields", 'f"a" is "a"', 'return f"a{{b}}"', 'return "a{b}"'),
    E("int-spellings", "1_000 == 1000 == 0x3E8 == 0o1750 == 0b1111101000", "return (1_000, 0x3E8)",
      "return (0o1750, 0b1111101000)"),
    C("int-vs-float-large", "a large int vs the float of it", "return 10" + "0" * 30, "return 1e31"),
    # ------------------------------------------------------------ class 13: \N{} on every Python
    E("named-escape-newer-unicode", '"\\N{MELTING FACE}" (Unicode 14) vs its code point',
      'return "\\N{MELTING FACE}"', 'return "\\U0001FAE0"'),
    E("named-escape-unicode-15", '"\\N{SHAKING FACE}" (Unicode 15.0: unknown to 3.10 and 3.11)',
      'return "\\N{SHAKING FACE}"', 'return "\\U0001FAE8"'),
    E("named-escape-case", "\\N{} names are case-insensitive", 'return "\\N{MELTING FACE}"',
      'return "\\N{melting face}"'),
    E("named-escape-cjk-range", "an algorithmic name of Unicode 15.1", 'return "\\N{CJK UNIFIED IDEOGRAPH-2EBF0}"',
      'return "\\U0002EBF0"'),
    E("named-escape-in-fstring", "a newer name in f-string text", 'return f"\\N{MELTING FACE}{x}"',
      'return f"\\U0001FAE0{x}"'),
    C("named-escape-other-face", "two Unicode 14 names", 'return "\\N{MELTING FACE}"',
      'return "\\N{FACE WITH OPEN EYES AND HAND OVER MOUTH}"'),
    C("named-escape-escaped-backslash", "\\\\N{...} is a backslash and text, not an escape",
      'return "\\N{MELTING FACE}"', 'return "\\\\N{MELTING FACE}"'),
)

if sys.version_info >= (3, 11):  # a starred subscript is 3.11 syntax (PEP 646)
    SYNTAX_PAIRS += (
        C("subscript-star-is-a-tuple", "d[*a] is d[(*a,)], not d[a]", "return d[a]", "return d[*a]"),
        E("subscript-star-parenthesised", "d[*a] vs d[(*a,)]", "return d[*a]", "return d[(*a,)]"),
    )
