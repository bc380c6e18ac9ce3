"""The ``loom-fp/2`` canonical serialisation of a libcst tree.

The canonical form is a small S-expression text that this module defines and owns:

* a node is ``(Tag key=value ...)`` where ``Tag`` is the syntactic construct and only fields
  that carry meaning are written, in a fixed order, and absent/empty fields are omitted;
* a sequence is ``[item item ...]``;
* a string atom is JSON-encoded (``ensure_ascii``), so every token is unambiguous without a
  length prefix and the text is pure ASCII;
* literals are written by VALUE and TYPE: ``(str "A")``, ``(bytes "41")`` (hex),
  ``(int "1000")`` (decimal digits, any size), ``(float "0x1.0000000000000p+0")``
  (``float.hex``, exact), ``(complex "...")`` — so ``'x'``/``"x"``/``'''x'''``,
  ``"\\x41"``/``"A"``, implicit concatenation and ``1_000``/``0x3E8`` are equal while
  ``1``/``1.0``/``True`` are not.

Everything that is formatting is never written: whitespace, comments, blank lines, parentheses,
commas, semicolons (``a; b`` is two statements of one block, exactly like two lines), the form of a
block (``if x: y`` vs an indented block). Docstrings (the first statement of a function or class
body when it is a plain string expression) are dropped; inside a function body ``x: T = v`` is
written exactly as ``x = v`` and a bare ``x: T`` is dropped (local annotations never run).
Class-level annotations are kept: ``dataclass`` fields depend on them. Identifiers are NFKC
normalised, as the Python tokenizer does. That is the same on every supported Python: Unicode's
normalization stability policy fixes the NFKC form of every assigned character, and CPython (whose
check runs first, ``parsing``) refuses an identifier holding a character its own database does
not know, so no two supported Pythons normalise an identifier they both accept differently.

What changed from ``loom-fp/1``: each a place where a layout rule swallowed behaviour or a
spelling was hashed instead of a value (issue 12, classes 7, 8, 11 and 13):

* a subscript is written by what it indexes with: one element without a comma or a star is the
  index itself, anything else the tuple display of its elements, so ``d[x]`` and ``d[x,]``
  (a tuple) differ and ``d[x, 1]`` and ``d[(x, 1)]`` are equal (``loom-fp/1`` dropped the comma
  as layout and wrote ``d[(x, 1)]`` as another shape);
* f-string text parts, in the string and in format specs, are values under the f-string's own
  prefix: ``rf"\\n"`` and ``f"\\n"`` differ, ``f"\\x41{x}"`` and ``f"A{x}"`` are equal, newlines are
  LF whatever the file's line endings, text merges across implicit concatenation, and an
  f-string without a field is its string; a ``{x=}`` field carries the text it prints;
* integer literals of any size (the int/str conversion limit raised inside ``loom-fp/1``);
* ``\\N{NAME}`` resolves through ``charnames``: the same on every supported Python.

The value a literal stands for comes from the text CPython decodes (``decoding``: a PEP 263
cookie is honoured), so the same bytes under two encodings are two values. The writer recurses
once per tree level; ``analysis`` runs it on ``deep_stack``'s large stack, where every tree
CPython accepts fits.

Independence: the text depends only on the libcst tree, never on ``repr`` of libcst nodes, Python
``ast`` node layout, bytecode or set/dict iteration order; libcst parses with its own grammar, so
the Python version running the compiler does not matter. Tags and keys are libcst's class and
field names: stable, readable, and pinned by golden digests in the tests (a libcst release that
renames a field shows up as a failing golden test, never as a silent change).

Rejected alternatives: ``ast.dump`` (node layout changes between Python versions, e.g. 3.8's
``Constant``), bytecode (changes every minor version), hashing ``Module.code`` after a
reformatter (ties the scheme to the formatter's version), and an iterative writer alone (the
tree walks around it in ``scopes`` and libcst's parser recurse too: one large stack serves all).
"""

from __future__ import annotations

import ast
import dataclasses
import decimal
import json
import re
import operator
import unicodedata
import warnings
from collections.abc import Callable, Iterator, Sequence
from json.encoder import encode_basestring_ascii as _json_ascii
from typing import Any

import libcst as cst

from .charnames import resolve_names

__all__ = [
    "SCHEME",
    "canonical",
    "canonical_statements",
    "dotted_chain",
    "flatten_block",
    "literal_string_value",
    "nfkc",
    "exact_types",
    "CanonicalisationError",
]

SCHEME = "loom-fp/2"

# Fields that only carry layout. Anything named ``whitespace*`` is layout too.
_LAYOUT_FIELDS = frozenset(
    {
        "lpar",
        "rpar",
        "leading_lines",
        "lines_after_decorators",
        "header",
        "footer",
        "indent",
        "comma",
        "semicolon",
        "lbracket",
        "rbracket",
        "lbrace",
        "rbrace",
        "colon",
        "first_colon",
        "second_colon",
        "equal",
        "trailing_comma",
        "trailing_whitespace",
        "leading_whitespace",
        "newline",
        "dot",
        "encoding",
        "default_indent",
        "default_newline",
        "has_trailing_newline",
        "separator",
    }
)

_FIELD_CACHE: dict[type, tuple[str, ...]] = {}

# field values that are not nodes (exact types: ``isinstance`` against libcst's ABCs is slow)
_NOT_NODES = frozenset({type(None), str, bool, int, cst.MaybeSentinel})

# node types the writer treats specially; everything else is written field by field
_WRITER_SPECIAL = frozenset(
    {
        cst.Name, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Integer, cst.Float,
        cst.Imaginary, cst.IndentedBlock, cst.SimpleStatementSuite, cst.SimpleStatementLine, cst.FunctionDef,
        cst.ClassDef, cst.AnnAssign, cst.Subscript,
    }
)


class CanonicalisationError(ValueError):
    """A literal that cannot be evaluated (should not happen for code CPython compiled)."""

    def __init__(self, message: str, node: cst.CSTNode | None = None) -> None:
        super().__init__(message)
        self.node = node


def exact_types(*classes: type) -> frozenset[type]:
    """Every class derived from ``classes`` (themselves included), for ``type(node) in ...``: the
    same answer as ``isinstance`` for libcst's nodes (no class here derives from them), without
    ``ABCMeta.__instancecheck__``, which a failing ``isinstance`` against libcst's classes runs
    (~200,000 times a cold build of 1,200 modules)."""
    out: set[type] = set()
    todo = list(classes)
    while todo:
        cls = todo.pop()
        if cls not in out:
            out.add(cls)
            todo.extend(cls.__subclasses__())
    return frozenset(out)


def nfkc(name: str) -> str:
    # every ASCII character is its own NFKC form; most names are ASCII (called once per name the
    # analysis meets: ~30,000 times for a 15-module closure)
    return name if name.isascii() else unicodedata.normalize("NFKC", name)


def dotted_chain(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for an attribute chain of plain names, else None."""
    if type(node) is cst.Name:  # the common case: no list, no join
        return nfkc(node.value)
    parts: list[str] = []
    while type(node) is cst.Attribute:
        parts.append(nfkc(node.attr.value))
        node = node.value
    if type(node) is not cst.Name:
        return None
    parts.append(nfkc(node.value))
    return ".".join(reversed(parts))


def _fields(cls: type) -> tuple[str, ...]:
    names = _FIELD_CACHE.get(cls)
    if names is None:
        names = tuple(
            f.name
            for f in dataclasses.fields(cls)
            if f.name not in _LAYOUT_FIELDS and not f.name.startswith("whitespace")
        )
        _FIELD_CACHE[cls] = names
    return names


def child_nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    """Children that carry meaning (layout fields skipped), in field order, without libcst's
    ``children`` property, which runs a visitor pass per call. A list built from one
    ``attrgetter`` per node type: the walks call this once per node (~30,000 times for a
    15-module closure), where a generator and a ``getattr`` per field cost twice as much."""
    kind = type(node)
    get = _GETTERS.get(kind)
    if get is None:
        get = _GETTERS[kind] = _getter(_fields(kind))
    out: list[cst.CSTNode] = []
    for value in get(node):
        kind = type(value)
        if kind in _NOT_NODES:
            continue
        if kind is tuple or kind is list:
            out += [item for item in value if type(item) not in _NOT_NODES]
        else:
            out.append(value)
    return out


def _getter(names: tuple[str, ...]) -> Callable[[cst.CSTNode], tuple[Any, ...]]:
    """The values of ``names`` of a node, as a tuple (``attrgetter`` of one name returns the value
    itself)."""
    if not names:
        return lambda node: ()
    if len(names) == 1:
        one = operator.attrgetter(names[0])
        return lambda node: (one(node),)
    return operator.attrgetter(*names)


_GETTERS: dict[type, Callable[[cst.CSTNode], tuple[Any, ...]]] = {}


def flatten_block(body: Sequence[cst.CSTNode]) -> list[cst.CSTNode]:
    """Statements of a block with ``a; b`` lines split into their small statements."""
    out: list[cst.CSTNode] = []
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            out.extend(stmt.body)
        else:
            out.append(stmt)
    return out


def _suite_statements(suite: cst.BaseSuite) -> list[cst.CSTNode]:
    return flatten_block(suite.body)


def is_docstring(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.Expr) and isinstance(stmt.value, (cst.SimpleString, cst.ConcatenatedString)) and not _has_fstring(stmt.value)


def _has_fstring(node: cst.BaseExpression) -> bool:
    return any(type(part) is not cst.SimpleString for part in string_parts(node))


def string_parts(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The pieces of an implicit concatenation, in order; iterative (pydoc's topics.py
    concatenates thousands of literals, deeper than the recursion limit)."""
    parts: list[cst.BaseExpression] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.ConcatenatedString:
            stack.append(current.right)
            stack.append(current.left)
        else:
            parts.append(current)
    return parts


def literal_string_value(node: cst.BaseExpression) -> str | bytes | None:
    """The value of a plain (non-f) string literal, implicit concatenation included."""
    if type(node) is cst.SimpleString:
        return string_token_value(node.value)
    if type(node) is not cst.ConcatenatedString:
        return None
    values = []
    for part in string_parts(node):
        if type(part) is not cst.SimpleString:
            return None
        values.append(string_token_value(part.value))
    if len({type(v) for v in values}) != 1:
        return None
    return values[0][:0].join(values)


class _Writer:
    """Appends canonical tokens to ``out``. ``in_function`` controls local-annotation stripping."""

    __slots__ = ("out", "anonymous")

    def __init__(self, anonymous: cst.CSTNode | None = None) -> None:
        self.out: list[str] = []
        # the flow's own FunctionDef: its name is not part of the code hash
        self.anonymous = anonymous

    # -- entry points ---------------------------------------------------------------------------
    def node(self, node: Any, in_function: bool) -> None:
        out = self.out
        kind = type(node)  # exact types: every class of _WRITER_SPECIAL is a leaf
        if kind not in _WRITER_SPECIAL:
            self.generic(node, in_function)
            return
        if kind is cst.Name:
            out.append('(Name ' + _q(nfkc(node.value)) + ')')
            return
        if kind is cst.SimpleString or kind is cst.ConcatenatedString or kind is cst.FormattedString:
            self.string(node, in_function)
            return
        if kind is cst.Integer:
            out.append('(int ' + _q(int_decimal(node.value)) + ')')
            return
        if kind is cst.Float:
            out.append('(float ' + _q(float(_eval(node)).hex()) + ')')
            return
        if kind is cst.Imaginary:
            value = complex(_eval(node))
            out.append('(complex ' + _q(value.imag.hex()) + ')')
            return
        if kind is cst.IndentedBlock or kind is cst.SimpleStatementSuite:
            self.block(_suite_statements(node), in_function, drop_docstring=False)
            return
        if kind is cst.SimpleStatementLine:
            # only reached for a bare statement line handed in directly
            self.seq(node.body, in_function)
            return
        if kind is cst.Subscript:
            out.append('(Subscript value=')
            self.node(node.value, in_function)
            out.append(' slice=')
            self.subscript_index(node.slice, in_function)
            out.append(')')
            return
        if kind is cst.FunctionDef:
            self.function(node)
            return
        if kind is cst.ClassDef:
            self.class_(node)
            return
        if kind is cst.AnnAssign and in_function:
            if node.value is None:
                return  # bare local annotation: never executed
            self.node(cst.Assign(targets=[cst.AssignTarget(target=node.target)], value=node.value), in_function)
            return
        self.generic(node, in_function)

    def generic(self, node: cst.CSTNode, in_function: bool, skip: frozenset[str] = frozenset()) -> None:
        out = self.out
        out.append('(' + type(node).__name__)
        for name in _fields(type(node)):
            if name in skip:
                continue
            value = getattr(node, name)
            kind = type(value)
            if value is None or kind is cst.MaybeSentinel or ((kind is str or kind is tuple or kind is list) and not value):
                continue
            out.append(' ' + name + '=')
            if kind is tuple or kind is list:
                self.seq(value, in_function)
            elif kind is str:
                out.append(_q(value))
            else:
                self.value(value, in_function)
        out.append(')')

    def value(self, value: Any, in_function: bool) -> None:
        kind = type(value)
        if kind is tuple or kind is list:
            self.seq(value, in_function)
        elif kind is str:
            self.out.append(_q(value))
        elif kind is bool:
            self.out.append("true" if value else "false")
        else:  # a node
            self.node(value, in_function)

    def seq(self, items: Sequence[Any], in_function: bool) -> None:
        self.out.append('[')
        first = True
        for item in items:
            if not first:
                self.out.append(' ')
            first = False
            self.value(item, in_function)
        self.out.append(']')

    def block(self, stmts: list[cst.CSTNode], in_function: bool, *, drop_docstring: bool) -> None:
        if drop_docstring and stmts and is_docstring(stmts[0]):
            stmts = stmts[1:]
        if in_function:
            stmts = [s for s in stmts if not (type(s) is cst.AnnAssign and s.value is None)]
        self.out.append('(Block ')
        self.seq(stmts, in_function)
        self.out.append(')')

    def subscript_index(self, elements: Sequence[cst.SubscriptElement], in_function: bool) -> None:
        """What ``d[...]`` is indexed with, by value: one element without a comma or a star is the
        index itself; anything else (``d[x,]``, ``d[x, 1]``, ``d[1:2,]``, ``d[*a]``) is a tuple,
        written exactly as the tuple display of the same elements, so ``d[x, 1]`` and
        ``d[(x, 1)]`` are equal while ``d[x]`` and ``d[x,]`` differ."""
        if len(elements) == 1 and type(elements[0].comma) is cst.MaybeSentinel:
            only = elements[0].slice
            if type(only) is not cst.Index:
                self.node(only, in_function)  # a slice
                return
            if only.star is None:
                self.node(only.value, in_function)
                return
        out = self.out
        out.append('(Tuple elements=[')
        for i, element in enumerate(elements):
            if i:
                out.append(' ')
            index = element.slice
            if type(index) is not cst.Index:
                self.node(index, in_function)  # a slice inside the tuple: slice objects
            elif index.star is not None:
                out.append('(StarredElement value=')
                self.node(index.value, in_function)
                out.append(')')
            else:
                out.append('(Element value=')
                self.node(index.value, in_function)
                out.append(')')
        out.append('])')

    # -- definitions ----------------------------------------------------------------------------
    def function(self, node: cst.FunctionDef) -> None:
        out = self.out
        out.append('(FunctionDef')
        if node.asynchronous is not None:
            out.append(' async=true')
        if node is self.anonymous:
            out.append(' name=<flow>')
        else:
            out.append(' name=')
            self.node(node.name, False)
        if node.decorators:
            out.append(' decorators=')
            self.seq(node.decorators, False)
        if node.type_parameters is not None:
            out.append(' type_parameters=')
            self.node(node.type_parameters, False)
        out.append(' params=')
        self.node(node.params, False)
        if node.returns is not None:
            out.append(' returns=')
            self.node(node.returns, False)
        out.append(' body=')
        self.block(_suite_statements(node.body), True, drop_docstring=True)
        out.append(')')

    def class_(self, node: cst.ClassDef) -> None:
        out = self.out
        out.append('(ClassDef name=')
        self.node(node.name, False)
        for name in ("decorators", "type_parameters", "bases", "keywords"):
            value = getattr(node, name, None)
            if value:
                out.append(' ' + name + '=')
                self.value(value, False)
        out.append(' body=')
        self.block(_suite_statements(node.body), False, drop_docstring=True)
        out.append(')')

    # -- literals -------------------------------------------------------------------------------
    def string(self, node: cst.BaseExpression, in_function: bool) -> None:
        value = literal_string_value(node)
        if value is not None:
            self.out.append(_literal(value))
            return
        # an f-string, possibly concatenated with plain strings: one part list, adjacent
        # literal text merged so that the spelling of the literal parts never matters
        parts: list[Any] = []
        self._collect_fparts(node, parts)
        if all(isinstance(part, str) for part in parts):  # no replacement field: f"a" is "a"
            self.out.append(_literal("".join(parts)))
            return
        self.out.append('(fstr [')
        first = True
        for part in parts:
            if not first:
                self.out.append(' ')
            first = False
            if isinstance(part, str):
                self.out.append(_q(part))
            else:
                self.fexpr(part, in_function)
        self.out.append('])')

    def _collect_fparts(self, node: cst.BaseExpression, parts: list[Any]) -> None:
        for piece in string_parts(node):
            if type(piece) is cst.SimpleString:
                _append_text(parts, string_token_value(piece.value))
                continue
            assert type(piece) is cst.FormattedString
            raw = "r" in piece.start.lower()
            for part in piece.parts:
                if type(part) is cst.FormattedStringText:
                    _append_text(parts, fstring_text_value(part.value, raw=raw, quote=piece.end))
                else:
                    parts.append((part, raw, piece.end))

    def fexpr(self, item: tuple[cst.FormattedStringExpression, bool, str], in_function: bool) -> None:
        part, raw, quote = item
        out = self.out
        out.append('(fexpr value=')
        self.node(part.expression, in_function)
        if part.equal is not None:
            # f"{x = }" prints the replacement field's own text, "x = ", verbatim (spaces,
            # quotes and identifier spelling included): that text is behaviour
            out.append(' debug=' + _q(_debug_text(part)))
        if part.conversion:
            out.append(' conversion=' + _q(part.conversion))
        if part.format_spec:
            # the spec's text takes the escapes of the f-string it is in (raw or not)
            spec: list[Any] = []
            for sub in part.format_spec:
                if isinstance(sub, cst.FormattedStringText):
                    _append_text(spec, fstring_text_value(sub.value, raw=raw, quote=quote))
                else:
                    spec.append((sub, raw, quote))
            out.append(' spec=[')
            for i, sub in enumerate(spec):
                if i:
                    out.append(' ')
                if isinstance(sub, str):
                    out.append(_q(sub))
                else:
                    self.fexpr(sub, in_function)
            out.append(']')
        out.append(')')


def _debug_text(part: cst.FormattedStringExpression) -> str:
    """What ``{expr=}`` prints before the value: the field's source text from after ``{`` to after
    the ``=`` and its spaces, with newlines as Python reads them."""
    module = cst.Module([])
    text = (
        module.code_for_node(part.whitespace_before_expression)
        + module.code_for_node(part.expression)
        + module.code_for_node(part.whitespace_after_expression)
        + (module.code_for_node(part.equal) if part.equal is not None else "")
    )
    return _NEWLINE_RE.sub("\n", text) if "\r" in text else text


def _append_text(parts: list[Any], text: str | bytes) -> None:
    if isinstance(text, bytes):
        text = text.hex()
    if parts and isinstance(parts[-1], str):
        parts[-1] += text
    elif text:
        parts.append(text)


_NEWLINE_RE = re.compile(r"\r\n|\r")


def fstring_text_value(raw_text: str, *, raw: bool, quote: str) -> str:
    """The value of a literal text part of an f-string or of its format spec, ``raw_text`` as
    written between replacement fields: ``{{``/``}}`` stand for braces, and the escapes are a
    plain string literal's under the same prefix (none when ``raw``), so ``f"\\x41{x}"`` and
    ``f"A{x}"``, or ``rf"\\d{x}"`` and ``f"\\\\d{x}"``, are equal while ``rf"\\n"`` and ``f"\\n"``
    differ. Newlines are LF whatever the file's line endings, as in every Python string."""
    text = raw_text.replace("{{", "{").replace("}}", "}")
    if "\r" in text:
        text = _NEWLINE_RE.sub("\n", text)
    if raw or "\\" not in text:
        return text
    # Evaluated as the body of a plain literal with the f-string's own quotes (valid there by
    # construction). A sentinel keeps a last backslash (``f"\\{x}"``: a literal backslash before
    # the field) or a last quote of a triple-quoted string from touching the closing quote;
    # "X" escapes nothing.
    try:
        value = _quiet_literal_eval(quote + resolve_names(text) + "X" + quote)
    except (SyntaxError, ValueError) as exc:
        raise CanonicalisationError(f"cannot evaluate f-string text {raw_text!r}: {exc}") from None
    return value[:-1]  # type: ignore[no-any-return]


def string_token_value(token: str) -> str | bytes:
    """The value of one string literal token, by Python's own rules (``ast.literal_eval``).

    Fast path, same result: a str token without backslashes (or a raw one) is its body.
    """
    i = 0
    while token[i] not in "'\"":
        i += 1
    prefix = token[:i].lower()
    quote = token[i : i + 3] if token[i : i + 3] in ('"""', "'''") else token[i]
    body = token[i + len(quote) : len(token) - len(quote)]
    if "b" not in prefix and "\r" not in body and ("r" in prefix or "\\" not in body):
        return body
    if "b" not in prefix and "r" not in prefix and "\\N{" in body:
        token = token[:i] + quote + resolve_names(body) + quote  # names newer than this Python's
    try:
        return _quiet_literal_eval(token)  # type: ignore[no-any-return]
    except (SyntaxError, ValueError) as exc:
        raise CanonicalisationError(f"cannot evaluate string literal {token[:60]!r}: {exc}") from None


def _quiet_literal_eval(token: str) -> Any:
    # "\d" is an invalid escape: its value is still backslash + d, but Python 3.12+ warns about
    # it while compiling; a fingerprint run must not print warnings about the user's code
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.literal_eval(token)


def number_value(node: cst.BaseNumber) -> int | float | complex:
    """The value of a number literal token (``1_000``, ``0x3E8``, ``1e3``, ``2j``)."""
    return _eval(node)


def int_decimal(token: str) -> str:
    """The value of an integer literal token (``1_000``, ``0x3E8``, ``0o17``, ``0b1``) as decimal
    digits, at any size: the canonical form of an integer, so that every spelling of one value is
    equal. Python's int/str conversion limit (4,300 digits) is never hit: a decimal token needs no
    conversion at all, and a large power-of-two-base value is printed through ``decimal``,
    whose conversion has no such limit (and is not quadratic)."""
    digits = token.replace("_", "")
    if digits[:2].lower() in ("0x", "0o", "0b"):
        value = int(digits, 0)  # power-of-two bases are exempt from the limit
        return str(value) if value.bit_length() <= _SAFE_STR_BITS else str(decimal.Decimal(value))
    return "0" if digits[0] == "0" else digits  # a decimal with leading zeros is only "0...0"


# below this many bits str(int) has fewer digits than any int/str conversion limit Python allows
_SAFE_STR_BITS = 2000


def _eval(node: cst.BaseNumber) -> Any:
    token = node.value.replace("_", "")
    try:
        if type(node) is cst.Integer:
            if token[:2].lower() in ("0x", "0o", "0b"):
                return int(token, 0)
            digits = int_decimal(token)
            return int(digits) if len(digits) < 600 else int(decimal.Decimal(digits))  # no conversion limit
        if type(node) is cst.Float:
            return float(token)
        return complex(token)
    except ValueError as exc:  # pragma: no cover - libcst validated the token
        raise CanonicalisationError(f"cannot evaluate number literal {node.value!r}: {exc}", node) from None


def _literal(value: str | bytes) -> str:
    if isinstance(value, bytes):
        return '(bytes ' + _q(value.hex()) + ')'
    return '(str ' + _q(value) + ')'


def _q(text: str) -> str:
    # what ``json.dumps(text, ensure_ascii=True)`` returns for a str: its default encoder's
    # ``encode`` hands a str to this C function, here without two Python calls per atom
    return _json_ascii(text)


def canonical(node: cst.CSTNode, *, in_function: bool = False, anonymous: cst.CSTNode | None = None) -> str:
    """The canonical text of one node (a statement, expression or definition).

    ``anonymous`` names a ``FunctionDef`` inside ``node`` whose own name is left out (the flow).
    """
    writer = _Writer(anonymous)
    writer.node(node, in_function)
    return "".join(writer.out)


def canonical_statements(stmts: Sequence[cst.CSTNode], *, in_function: bool = False) -> str:
    """Canonical text of a sequence of statements (a module-level unit, flattened)."""
    writer = _Writer()
    writer.block(flatten_block(stmts), in_function, drop_docstring=False)
    return "".join(writer.out)


def iter_tokens(text: str) -> Iterator[str]:
    """Split canonical text into its tokens (used by ``recanonicalise`` and tests)."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif c in "()[]":
            yield c
            i += 1
        elif c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            yield text[i : j + 1]
            i = j + 1
        else:
            j = i
            while j < n and text[j] not in ' \t\r\n()[]"':
                j += 1
            yield text[i:j]
            i = j


def recanonicalise(text: str) -> str:
    """Re-emit canonical text token by token: the canonical form is a fixpoint of this.

    Spacing is normalised and every string atom is decoded and re-encoded, so any text that is
    not already canonical (stray spaces, a non-ASCII or differently escaped atom) changes.
    """
    out: list[str] = []
    prev = ""
    for tok in iter_tokens(text):
        if tok.startswith('"'):
            tok = _q(json.loads(tok))
        if out and prev not in ("(", "[") and tok not in (")", "]") and not prev.endswith("="):
            out.append(" ")
        out.append(tok)
        prev = tok
    return "".join(out)


def pretty(text: str, width: int = 100) -> str:
    """Canonical text laid out for people (``--explain``): a node that does not fit in ``width``
    columns puts each field on its own indented line. Never hashed."""
    tokens = list(iter_tokens(text))
    pos = 0

    def parse() -> Any:
        nonlocal pos
        tok = tokens[pos]
        pos += 1
        if tok in ("(", "["):
            close = ")" if tok == "(" else "]"
            items = []
            while tokens[pos] != close:
                items.append(parse())
            pos += 1
            return (tok, items, close)
        if tok.endswith("=") and pos < len(tokens) and tokens[pos] not in (")", "]"):
            return (tok, parse())  # key=value
        return tok

    def flat(item: Any) -> str:
        if isinstance(item, str):
            return item
        if len(item) == 2:
            return item[0] + flat(item[1])
        opening, items, close = item
        return opening + " ".join(flat(i) for i in items) + close

    def render(item: Any, indent: int, out: list[str], prefix: str = "") -> None:
        one = prefix + flat(item)
        if len(one) + indent <= width or isinstance(item, str):
            out.append(" " * indent + one)
            return
        if len(item) == 2:
            render(item[1], indent, out, prefix + item[0])
            return
        opening, items, close = item
        head = [] if opening == "[" or not items or not isinstance(items[0], str) else [items[0]]
        out.append(" " * indent + prefix + opening + " ".join(head))
        for child in items[len(head) :]:
            render(child, indent + 2, out)
        out[-1] += close

    out: list[str] = []
    while pos < len(tokens):
        render(parse(), 0, out)
    return "\n".join(out)
