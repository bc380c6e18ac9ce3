"""The parse entry: module bytes to a libcst tree, or a ``SourceError`` at the place CPython
would name. Runs inside ``deep_stack.call`` (``analysis.analyse_module`` does that).

Order, and why:

1. **Text** as CPython reads it (``decoding``: BOM, PEP 263 cookie, else UTF-8). A NUL anywhere
   is refused first, at its line and column, as CPython refuses the whole file before decoding
   (3.10/3.11 raise ``ValueError``, 3.12+ ``SyntaxError``, neither with a position).
2. **CPython compiles it first** (``compile(..., "exec")``, warnings about the user's code
   silenced): what CPython rejects, loom rejects, with CPython's message and position, in
   milliseconds. This also bounds what libcst is ever given: CPython refuses more than 200
   nested brackets, 100 indentation levels and expressions nested deeper than its compiler's
   limit (about 3,000), inputs on which libcst took minutes, raised ``KeyError`` or crashed.
   The recursion limit is 1,000 (CPython's default) while it compiles, so which files pass does
   not depend on a limit some caller raised. An over-deep input has no position in CPython's
   error (``RecursionError``, ``MemoryError``): the statement is found by compiling statements
   alone, top-level ones first and then down into the one that fails (``_deep_statement``).
3. **Chains CPython keeps flat** but libcst nests one level per link (``a and b and ...``,
   ``import a.b.c...``) are checked against ``MAX_CHAIN`` on CPython's tree (only when a
   cheap count says a chain that long can exist), so libcst's native parser stays within the
   worker's stack.
4. **libcst parses** (``parse_module_unvalidated``), under ``deep_stack.RECURSION_LIMIT``.
   A file CPython accepts but libcst cannot parse (libcst refuses some valid inputs, such as
   more than about 4,000 implicitly concatenated strings) is an error saying exactly that.

``\\N{NAME}`` escapes that the running Python's Unicode database does not know but the newest
supported Python does (``charnames``) are replaced, for CPython's check only, by an escape of
the same length; so ``"\\N{MELTING FACE}"`` compiles on 3.10 as on 3.13 and hashes the same.
CPython's tree (kept as ``ParsedModule.syntax``) serves positions only, never anything hashed.

Rejected: libcst alone (it accepts what CPython refuses, so a module that cannot be imported was
fingerprinted, and it crashed on deep input); ``ast.parse`` alone as the check (3.10's
accepts a 50,000-term sum that its compiler, and so every import, refuses; "'return' outside
function" and "too many statically nested blocks" are compiler errors); running libcst in a
subprocess to survive its crashes (an interpreter start per module).
"""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
import warnings
from dataclasses import dataclass
from typing import NamedTuple

import libcst as cst

from . import deep_stack
from .charnames import patch_unknown_names
from .decoding import SourceDecodeError, decode_source, line_column, source_encoding
from .model import SourceError


def _libcst_version() -> str:
    """libcst's installed version, for the message of a statement it cannot parse. Read when that
    message is written: ``importlib.metadata`` costs ~25 ms to import (email, zipfile, csv, ...),
    which every run that parses a module paid at start-up for a message it almost never prints."""
    try:
        from importlib.metadata import version

        return version("libcst")
    except Exception:  # pragma: no cover - metadata missing in odd installs
        return "?"


__all__ = [
    "MAX_CHAIN",
    "ParsedModule",
    "deepest_position",
    "node_position",
    "parse_module_unvalidated",
    "parse_source",
    "too_deep_error",
]

#: the most ``and``/``or`` operands in one chain, or parts in one dotted import, loom fingerprints:
#: CPython keeps such chains flat, libcst nests one level per part (20,000 parse in well under
#: the worker's stack; 100,000 still did, 10,000 overflowed the 8 MiB main-thread stack)
MAX_CHAIN = 20_000
_CPYTHON_DEFAULT_RECURSION_LIMIT = 1000
_PYTHON = f"{sys.version_info[0]}.{sys.version_info[1]}"
_NEWLINE_RE = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class ParsedModule:
    text: str  # the decoded source, BOM removed
    tree: cst.Module
    #: CPython's tree of the same text, for positions only; None if CPython's AST could not be
    #: built although the file compiled (a depth between its AST and compiler limits)
    syntax: ast.Module | None


def parse_source(source: bytes | str, path: str) -> ParsedModule | SourceError:
    """Decode, check with CPython, parse with libcst. Whole-file failures come back as values."""
    if isinstance(source, bytes):
        nul = source.find(b"\0")
        if nul >= 0:
            return _nul_error_in_bytes(source, nul, path)
        try:
            text = decode_source(source)
        except SourceDecodeError as exc:
            return SourceError(path, exc.line, exc.column, str(exc), code="encoding")
    else:
        text = source[1:] if source.startswith("\ufeff") else source
        nul = text.find("\0")
        if nul >= 0:
            line, column = line_column(text, nul)
            return _nul_error(path, line, column)
    refused = _cpython_check(text, path)
    if refused is not None:
        return refused
    syntax: ast.Module | None = None
    if _may_hold_a_long_chain(text):
        syntax = _cpython_tree(text)
        chain = _overlong_chain(syntax, path)
        if chain is not None:
            return chain
    with deep_stack.recursion_limit(deep_stack.RECURSION_LIMIT):
        try:
            tree = parse_module_unvalidated(text)
        except cst.ParserSyntaxError as exc:
            syntax = syntax or _cpython_tree(text)
            # libcst's position (the one in its message; ``raw_line`` can disagree with it) can
            # lie past the statement it gave up on: the statement of CPython's tree is named
            at = re.match(r"^parser error: error at (\d+):(\d+): ", exc.message)
            detail = exc.message[at.end() :] if at else exc.message
            raw = (int(at.group(1)), int(at.group(2))) if at else (exc.raw_line, exc.raw_column)
            line, column = _statement_at(text, syntax, *raw) or (raw[0], raw[1] + 1)
            return SourceError(
                path,
                line,
                column,
                f"libcst {_libcst_version()} cannot parse this statement, though CPython {_PYTHON} accepts it"
                f" ({detail}); write it more simply (for example, fewer implicitly concatenated strings)",
                code="syntax",
            )
        except (RecursionError, MemoryError) as exc:
            return too_deep_error(text, syntax, path, exc)
    # CPython's tree is built after libcst's: alive during libcst's parse, its objects made every
    # garbage collection the parse triggers longer
    return ParsedModule(text, tree, syntax or _cpython_tree(text))


def too_deep_error(text: str, syntax: ast.Module | None, path: str, exc: BaseException) -> SourceError:
    """A ``RecursionError``/``MemoryError`` while parsing or analysing accepted code: the error at
    its deepest point (in CPython's tree: ``syntax``, or built again)."""
    line, column = deepest_position(text, syntax if syntax is not None else _cpython_tree(text))
    what = "recursion limit" if isinstance(exc, RecursionError) else "memory"
    return SourceError(
        path,
        line,
        column,
        f"expression nested too deeply to fingerprint (ran out of {what}); split it into smaller expressions",
        code="syntax",
    )


def node_position(tree: cst.Module, node: cst.CSTNode | None) -> tuple[int, int]:
    """1-based (line, column) of ``node`` in ``tree`` (1, 1 when unknown). A metadata pass over
    the whole tree: for error paths only."""
    if node is None:
        return 1, 1
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        where = MetadataWrapper(tree, unsafe_skip_copy=True).resolve(PositionProvider)[node]
    except (KeyError, RecursionError):
        return 1, 1
    return where.start.line, where.start.column + 1  # type: ignore[attr-defined]


# ------------------------------------------------------------------------------ CPython's check


def _cpython_check(text: str, path: str) -> SourceError | None:
    """CPython's verdict on ``text``: None when it compiles, else the error CPython reports."""
    with warnings.catch_warnings():
        # SyntaxWarning/DeprecationWarning about the user's code ("\d", "is" with a literal) are
        # not loom's to print; "error" filters (-W error) would turn them into failures
        warnings.simplefilter("ignore")
        try:
            with deep_stack.recursion_limit(_CPYTHON_DEFAULT_RECURSION_LIMIT):
                compile(patch_unknown_names(text), path, "exec", dont_inherit=True)
        except SyntaxError as exc:
            return _syntax_error(exc, path)
        except (RecursionError, MemoryError) as exc:
            line, column = _deep_statement(text)
            cause = str(exc) or type(exc).__name__
            return SourceError(
                path,
                line,
                column,
                f"syntax error: expression nested too deeply for CPython {_PYTHON} ({cause}); split it",
                code="syntax",
            )
        except ValueError as exc:  # pragma: no cover - NUL bytes are refused before this
            return SourceError(path, 1, 1, f"syntax error: {exc}", code="syntax")
    return None


def _cpython_tree(text: str) -> ast.Module | None:
    """CPython's AST of text it compiled (None in the rare case that only the AST cannot be
    built: its depth limit sits a level below the compiler's)."""
    with warnings.catch_warnings(), deep_stack.recursion_limit(deep_stack.RECURSION_LIMIT):
        warnings.simplefilter("ignore")
        try:
            return compile(patch_unknown_names(text), "<module>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)  # type: ignore[no-any-return]
        except (SyntaxError, RecursionError, MemoryError):
            return None


#: statements whose syntax is newer than some supported Python, by the line CPython stopped on:
#: there an older CPython's message ("expected '('" for ``def f[T]``) does not say the file is
#: fine for the Python it is written for
_NEWER_SYNTAX: tuple[tuple[tuple[int, int], re.Pattern[str], str], ...] = (
    ((3, 11), re.compile(r"\s*except\s*\*"), "except* (PEP 654)"),
    ((3, 12), re.compile(r"\s*(?:async\s+)?def\s+\w+\s*\["), "type parameters (PEP 695)"),
    ((3, 12), re.compile(r"\s*class\s+\w+\s*\["), "type parameters (PEP 695)"),
    ((3, 12), re.compile(r"\s*type\s+\w+\s*(?:\[.*\])?\s*="), "a type alias statement (PEP 695)"),
)


def _syntax_error(exc: SyntaxError, path: str) -> SourceError:
    line = exc.lineno or 1
    column = exc.offset if exc.offset is not None and exc.offset > 0 else 1  # already 1-based
    message = exc.msg or "invalid syntax"
    newer = _newer_syntax(exc.text or "")
    if newer is not None:
        message += newer
    elif message == "invalid syntax":
        message += f" (CPython {_PYTHON}; if the file is written for a newer Python, run loom with that one)"
    return SourceError(path, line, column, f"syntax error: {message}", code="syntax")


def _newer_syntax(line: str) -> str | None:
    """The hint for a line that reads as syntax newer than the running Python, else None."""
    for version, pattern, what in _NEWER_SYNTAX:
        if sys.version_info[:2] < version and pattern.match(line):
            wanted = f"{version[0]}.{version[1]}"
            return (f" (this reads as {what}, new in Python {wanted}; CPython {_PYTHON} cannot compile it:"
                    f" run loom with Python {wanted} or newer, as the project does)")
    return None


def _nul_error_in_bytes(data: bytes, offset: int, path: str) -> SourceError:
    try:
        encoding, start = source_encoding(data)
    except SourceDecodeError:
        encoding, start = "utf-8", 0
    start = min(start, offset)
    head = data[start:offset].decode(encoding, errors="replace")
    line, column = line_column(head, len(head))
    return _nul_error(path, line, column)


def _nul_error(path: str, line: int, column: int) -> SourceError:
    return SourceError(
        path,
        line,
        column,
        "source contains a NUL byte, and Python refuses to compile such a file: remove it (in a string literal,"
        " write the escape \\0 instead)",
        code="syntax",
    )


# ------------------------------------------------------------------------------ depth


def _may_hold_a_long_chain(text: str) -> bool:
    # each part past the first needs an ``and``/``or`` keyword or a dot: fewer in the text, no chain
    return text.count("and") + text.count("or") >= MAX_CHAIN or text.count(".") >= MAX_CHAIN


def _overlong_chain(syntax: ast.Module | None, path: str) -> SourceError | None:
    """The first ``and``/``or`` chain or dotted import longer than ``MAX_CHAIN``, as an error.
    Without CPython's tree (its AST limit is one level below its compiler's on 3.12+) nothing is
    checked: libcst's parse of such a chain still fits the worker's stack up to about 100,000."""
    if syntax is None:
        return None
    for node in ast.walk(syntax):
        parts, what = 0, ""
        if isinstance(node, ast.BoolOp):
            parts, what = len(node.values), "`and`/`or` operands"
        elif isinstance(node, ast.Import):
            parts, what = max(alias.name.count(".") + 1 for alias in node.names), "dotted parts in an imported name"
        elif isinstance(node, ast.ImportFrom) and node.module:
            parts, what = node.module.count(".") + 1, "dotted parts in an imported name"
        if parts > MAX_CHAIN:
            return SourceError(
                path,
                node.lineno,
                node.col_offset + 1,
                f"{parts:,} {what}: loom fingerprints at most {MAX_CHAIN:,} (its parser nests one level per"
                " part); split the expression",
                code="syntax",
            )
    return None


def _statement_at(text: str, syntax: ast.Module | None, line: int, column: int) -> tuple[int, int] | None:
    """1-based (line, column) of the statement libcst gave up on at ``line``/``column`` (0-based):
    the innermost statement spanning the position, or, when the position is the blank start of a
    line (libcst failing on the token after a construct it could not finish), the last statement
    that ends before that line."""
    if syntax is None:
        return None
    physical = _NEWLINE_RE.sub("\n", text).split("\n")
    here = physical[line - 1] if 0 < line <= len(physical) else ""
    at_line_start = not here[:column].strip()
    best: ast.stmt | None = None
    best_key: tuple[int, int] = (-1, -1)
    for node in ast.walk(syntax):
        if not isinstance(node, ast.stmt):
            continue
        end = node.end_lineno or node.lineno
        if at_line_start:
            key = (end, node.lineno) if end < line else (-1, -1)
        else:
            key = (1, node.lineno) if node.lineno <= line <= end else (-1, -1)
        if key > best_key:
            best, best_key = node, key
    return None if best is None else (best.lineno, best.col_offset + 1)


def deepest_position(text: str, syntax: ast.Module | None) -> tuple[int, int]:
    """1-based (line, column) of the most deeply nested node of CPython's tree (an ``and``/``or``
    operand counts one level per operand before it, as libcst nests them), or, with no tree,
    of the deepest statement found by compiling statements one by one."""
    if syntax is None:
        return _deep_statement(text)
    best, where = -1, (1, 1)
    stack: list[tuple[ast.AST, int]] = [(syntax, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > best and hasattr(node, "lineno"):
            best, where = depth, (node.lineno, node.col_offset + 1)  # type: ignore[attr-defined]
        if isinstance(node, ast.BoolOp):
            stack.extend((value, depth + 1 + i) for i, value in enumerate(node.values))
        else:
            stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return where


_CONTINUATIONS = frozenset({"elif", "else", "except", "finally"})


class _Line(NamedTuple):
    """A logical line: 1-based first and last physical line, 0-based column, indentation
    level, first token, number of tokens."""

    start: int
    column: int
    end: int
    level: int
    first: str
    tokens: int


def _deep_statement(text: str) -> tuple[int, int]:
    """Where CPython ran out of depth, when it does not say. The statement that fails to compile
    alone with ``RecursionError``/``MemoryError`` (a top-level one, then, inside it, the body
    statement that fails alone, and so on down), reported at its logical line holding most of
    its tokens (the expression that nests) or, when none does (a long ``elif`` chain), at its
    first line. Error path only: a tokenize pass and a compile per statement tried."""
    text = _NEWLINE_RE.sub("\n", text)  # line numbers as CPython counts them (CR and CRLF end lines)
    try:
        lines = _logical_lines(text)
    except (tokenize.TokenError, SyntaxError):
        return 1, 1
    physical = text.split("\n")
    found = _failing_statement(lines, 0, physical)
    if found is None:
        return (lines[0].start, lines[0].column + 1) if lines else (1, 1)
    most = max(found, key=lambda line: line.tokens)
    if most.tokens * 2 <= sum(line.tokens for line in found):
        most = found[0]
    return most.start, most.column + 1


# fewer tokens than this cannot nest past any of CPython's limits (200 brackets, ~3,000 levels)
_SHALLOW_TOKENS = 200


def _failing_statement(lines: list[_Line], level: int, physical: list[str]) -> list[_Line] | None:
    for statement in _statements(lines, level):
        if sum(line.tokens for line in statement) < _SHALLOW_TOKENS:
            continue
        if _too_deep_alone(statement, physical, nested=level > 0):
            body = [line for line in statement[1:] if line.level > level]
            return (_failing_statement(body, level + 1, physical) if body else None) or statement
    return None


def _statements(lines: list[_Line], level: int) -> list[list[_Line]]:
    """``lines`` (all at ``level`` or deeper) grouped into the statements at ``level``: a clause
    (``elif``, ``else``, ...) or a decorated definition belongs to the statement before it."""
    groups: list[list[_Line]] = []
    for line in lines:
        if groups and (line.level > level or line.first in _CONTINUATIONS or groups[-1][-1].first == "@"):
            groups[-1].append(line)
        else:
            groups.append([line])
    return groups


def _too_deep_alone(statement: list[_Line], physical: list[str], *, nested: bool) -> bool:
    snippet = "\n".join(physical[statement[0].start - 1 : statement[-1].end]) + "\n"
    if nested:  # an indented body statement: inside a function, where return/yield/await parse
        snippet = "async def _():\n" + snippet
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with deep_stack.recursion_limit(_CPYTHON_DEFAULT_RECURSION_LIMIT):
                compile(snippet, "<statement>", "exec", dont_inherit=True)
    except (RecursionError, MemoryError):
        return True
    except Exception:  # any other error is not the depth this search is after
        return False
    return False


def _logical_lines(text: str) -> list[_Line]:
    out: list[_Line] = []
    level = 0
    head: tuple[int, int, int, str] | None = None
    tokens = 0
    quiet = {tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.INDENT:
            level += 1
        elif tok.type == tokenize.DEDENT:
            level -= 1
        elif tok.type == tokenize.NEWLINE:
            if head is not None:
                out.append(_Line(head[0], head[1], tok.start[0], head[2], head[3], tokens))
            head, tokens = None, 0
        elif tok.type not in quiet:
            if head is None:
                head = (tok.start[0], tok.start[1], level, tok.string)
            tokens += 1
    if head is not None:
        out.append(_Line(head[0], head[1], head[0], head[2], head[3], tokens))
    return out


# ------------------------------------------------------------------------------ libcst


#: what each node's ``__post_init__`` is during an unvalidated parse: a do-nothing method in C
#: (``object.__init__`` bound to the node, called with no arguments, returns None), not a Python
#: function: the parse runs it once per node it builds (~30,000 for a 15-module closure), and a
#: Python call each was ~5 % of the parse
_skip_validation = object.__init__


def parse_module_unvalidated(text: str) -> cst.Module:
    """``libcst.parse_module(text)`` without re-validating the nodes the parser builds.

    Every node libcst constructs runs ``_validate()`` in ``__post_init__``: checks of invariants
    (balanced parentheses, whitespace that is whitespace) its own parser guarantees. Validation
    only ever raises, so the trees and every hash are identical; the parse is ~15 % faster, and
    parsing is most of a cold build.

    The switch is ``CSTNode.__post_init__`` for the duration of the call, so only the parser's
    own nodes skip it: nodes built later (``with_changes``) are validated as usual, and
    ``finally`` puts it back whatever the parse raises. It is thrown only when it is safe to: no
    other thread runs (``deep_stack.others_running``: the switch is process-wide) and libcst's
    ``__post_init__`` is exactly ``self._validate()`` (checked on its code, so a libcst that
    moves validation or gives ``__post_init__`` other work gets a plain parse, never a
    half-initialised tree). A nested call (a signal handler parsing while the switch is thrown)
    sees the switch, not ``_validate``, and parses plainly.
    """
    base = cst.CSTNode
    validate = base.__dict__.get("__post_init__")
    if not _only_validates(validate) or deep_stack.others_running():
        return cst.parse_module(text)
    try:
        base.__post_init__ = _skip_validation  # type: ignore[method-assign]
        return cst.parse_module(text)
    finally:
        base.__post_init__ = validate  # type: ignore[method-assign]


def _only_validates(post_init: object) -> bool:
    """Whether ``post_init`` is libcst's ``def __post_init__(self): self._validate()`` (every
    release pyproject allows: checked in 1.1.0 and 1.9.0): one argument, ``_validate`` the only
    name it looks up."""
    code = getattr(post_init, "__code__", None)
    return code is not None and code.co_argcount == 1 and code.co_names == ("_validate",)
