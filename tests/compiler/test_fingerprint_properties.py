"""Property tests: the canonical form is a fixpoint and hashes survive every formatting change.

Modules are generated from a small grammar (assignments, branches, loops, calls, comprehensions,
lambdas, f-strings, literals of every type) around a flow that reaches a helper and a constant.
Formatting changes are applied as libcst transformations of the tree (not text substitutions), so
each one is valid Python by construction.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings

import libcst as cst
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loom_compiler import analyse_module, fingerprint_module
from loom_compiler.canonical import canonical, recanonicalise

NAMES = st.sampled_from(["a", "b", "total", "item", "helper", "LIMIT", "ctx", "order"])
STRINGS = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=0x24F, blacklist_characters="\\{}'\""), max_size=8)


def _string(value: str) -> st.SearchStrategy[str]:
    return st.sampled_from([repr(value), '"' + value + '"', "'''" + value + "'''", "u" + repr(value)])


LITERALS = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(repr),
    st.sampled_from(["True", "False", "None", "0x1F", "1_000", "3j"]),
    STRINGS.flatmap(_string),
)


def _expr() -> st.SearchStrategy[str]:
    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.tuples(inner, st.sampled_from(["+", "-", "*", "<", "==", "and", "or", "%"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(NAMES, st.lists(inner, max_size=2)).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
            st.tuples(NAMES, NAMES, inner).map(lambda t: f"{t[0]}({t[1]}={t[2]})"),
            st.lists(inner, max_size=2).map(lambda xs: "[" + ", ".join(xs) + "]"),
            st.tuples(inner, inner).map(lambda t: "{" + f"{t[0]}: {t[1]}" + "}"),
            st.tuples(inner, NAMES).map(lambda t: f"[{t[0]} for {t[1]} in order]"),
            inner.map(lambda e: f"(lambda x: {e})"),
            st.tuples(STRINGS, inner).map(lambda t: f'f"{t[0]}{{({t[1]})!r}}"'),
            st.tuples(NAMES, NAMES).map(lambda t: f"{t[0]}.{t[1]}"),
            inner.map(lambda e: f"(not {e})"),
        )

    return st.recursive(st.one_of(NAMES, LITERALS), extend, max_leaves=4)


EXPR = _expr()


def _stmts(depth: int) -> st.SearchStrategy[list[str]]:
    simple = st.one_of(
        st.tuples(NAMES, EXPR).map(lambda t: [f"{t[0]} = {t[1]}"]),
        st.tuples(NAMES, EXPR).map(lambda t: [f"{t[0]} += {t[1]}"]),
        EXPR.map(lambda e: [e]),
        EXPR.map(lambda e: [f"return {e}"]),
    )
    if depth == 0:
        return simple

    def block(head: str) -> st.SearchStrategy[list[str]]:
        return st.lists(_stmts(depth - 1), min_size=1, max_size=2).map(
            lambda groups: [head] + ["    " + line for g in groups for line in g]
        )

    compound = st.one_of(
        EXPR.flatmap(lambda e: block(f"if {e}:")),
        NAMES.flatmap(lambda n: block(f"for {n} in order:")),
        EXPR.flatmap(lambda e: block(f"while {e}:")),
    )
    return st.one_of(simple, compound)


def _compiles(lines: list[str]) -> bool:
    """Whether the running Python compiles the module: loom refuses what CPython refuses, and
    before 3.12 an f-string may not hold a string in its own quotes (``f"{("")!r}"``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(module_source(lines), "m.py", "exec", dont_inherit=True)
        except SyntaxError:
            return False
    return True


BODIES = (
    st.lists(_stmts(2), min_size=1, max_size=3)
    .map(lambda groups: [line for g in groups for line in g])
    .filter(lambda lines: sum(map(len, lines)) < 1500)
    .filter(_compiles)
)


def module_source(body: list[str]) -> str:
    lines = "\n".join("    " + line for line in body)
    return (
        "from loom_runtime import flow\n\nLIMIT = 10\n\n\ndef helper(x):\n    return x + LIMIT\n\n\n"
        f'@flow("generated")\ndef run(ctx, order, a=1, *b, total=None, **item):\n{lines}\n'
    )


def code_hash(source: str | bytes) -> str:
    result = fingerprint_module(source)
    assert not result.errors, result.errors
    (flow,) = result.flows
    return flow.code_hash


# --------------------------------------------------------------------------- reformatting as CST edits


class Reindent(cst.CSTTransformer):
    def __init__(self, indent: str) -> None:
        self.indent = indent

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        return updated.with_changes(indent=self.indent)


class AddComments(cst.CSTTransformer):
    """A comment line and a blank line before every statement, and a trailing comment."""

    def _lead(self, node):  # type: ignore[no-untyped-def]
        extra = [cst.EmptyLine(), cst.EmptyLine(comment=cst.Comment("# note: 'x' = 1"))]
        return node.with_changes(leading_lines=[*extra, *node.leading_lines])

    def leave_SimpleStatementLine(self, original, updated):  # type: ignore[no-untyped-def]
        updated = self._lead(updated)
        return updated.with_changes(
            trailing_whitespace=cst.TrailingWhitespace(whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment("# why"))
        )

    def leave_If(self, original, updated):  # type: ignore[no-untyped-def]
        return self._lead(updated)

    def leave_For(self, original, updated):  # type: ignore[no-untyped-def]
        return self._lead(updated)


class AddParens(cst.CSTTransformer):
    """Redundant parentheses around every literal and call."""

    def _wrap(self, node):  # type: ignore[no-untyped-def]
        return node.with_changes(lpar=[cst.LeftParen(), *node.lpar], rpar=[*node.rpar, cst.RightParen()])

    def leave_Integer(self, original, updated):  # type: ignore[no-untyped-def]
        return self._wrap(updated)

    def leave_SimpleString(self, original, updated):  # type: ignore[no-untyped-def]
        return self._wrap(updated)

    def leave_Call(self, original, updated):  # type: ignore[no-untyped-def]
        return self._wrap(updated)


class WideSpaces(cst.CSTTransformer):
    """Every single space around operators and after commas becomes three."""

    def leave_SimpleWhitespace(self, original, updated):  # type: ignore[no-untyped-def]
        return updated.with_changes(value="   ") if updated.value == " " else updated


def _transform(source: str, transformer: cst.CSTTransformer) -> str:
    return cst.parse_module(source).visit(transformer).code


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@SETTINGS
@given(BODIES)
def test_canonical_form_is_a_fixpoint(body: list[str]) -> None:
    source = module_source(body)
    summary = analyse_module(source, module="m", path="m.py")
    (site,) = summary.flows
    assert recanonicalise(site.canonical) == site.canonical
    # canonicalising the tree printed back from the tree gives the same text again
    tree = cst.parse_module(source)
    again = cst.parse_module(tree.code)
    assert canonical(tree.body[-1]) == canonical(again.body[-1])
    for unit in summary.units:
        assert recanonicalise(unit.canonical) == unit.canonical


@SETTINGS
@given(BODIES)
def test_hash_survives_a_libcst_round_trip(body: list[str]) -> None:
    source = module_source(body)
    assert code_hash(source) == code_hash(cst.parse_module(source).deep_clone().code)


@SETTINGS
@given(BODIES, st.sampled_from(["  ", "\t", "        ", "   "]))
def test_hash_survives_reindentation(body: list[str], indent: str) -> None:
    source = module_source(body)
    assert code_hash(source) == code_hash(_transform(source, Reindent(indent)))


@SETTINGS
@given(BODIES)
def test_hash_survives_comments_blank_lines_parens_and_spacing(body: list[str]) -> None:
    source = module_source(body)
    expected = code_hash(source)
    for transformer in (AddComments(), AddParens(), WideSpaces()):
        assert code_hash(_transform(source, transformer)) == expected, type(transformer).__name__


@SETTINGS
@given(BODIES)
def test_hash_survives_crlf_and_bom(body: list[str]) -> None:
    source = module_source(body)
    assert code_hash(source) == code_hash(b"\xef\xbb\xbf" + source.replace("\n", "\r\n").encode())


@SETTINGS
@given(BODIES)
def test_a_behavioural_edit_changes_the_hash(body: list[str]) -> None:
    source = module_source(body)
    edited = source.rstrip("\n") + "\n    return LIMIT\n"
    assert code_hash(source) != code_hash(edited)


HASHSEED_SCRIPT = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, sys.argv[1])
    from test_fingerprint_properties import module_source, code_hash
    bodies = json.loads(sys.stdin.read())
    print(json.dumps([code_hash(module_source(b)) for b in bodies]))
    """
)


def test_hashes_do_not_depend_on_pythonhashseed() -> None:
    bodies = [
        ["x = {1, 2, 3}", "return {'a': x, 'b': {item for item in order}}"],
        ["for a in order:", "    total += a", "return f'{total!r:>10}'"],
        ["return helper(LIMIT) + sorted({'z', 'y', 'x'})"],
    ]
    import json

    here = os.path.dirname(__file__)
    outputs = []
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run(
            [sys.executable, "-c", HASHSEED_SCRIPT, here],
            input=json.dumps(bodies),
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        outputs.append(json.loads(proc.stdout))
    assert outputs[0] == outputs[1] == outputs[2]
    assert outputs[0] == [code_hash(module_source(b)) for b in bodies]


# --------------------------------------------------------------------------- real formatters
# black and ruff format rewrite exactly what loom-fp/2 must see through: quotes and string
# prefixes, hex escapes (lower-cased) and \N{} names (upper-cased), number spellings, redundant
# parentheses, line splitting with magic trailing commas (inside subscripts too), spacing.

FMT_ATOMS = st.one_of(
    NAMES,
    LITERALS,
    st.sampled_from([
        "0XAB", "0O17", "0B101", "1E5", "10J", "1_000_000", "0xdead_beef",
        "'\\xAB'", "U'caf\\xe9'", "R'\\d+'", "b'\\x0A'", "'\\N{em dash}'", "'''a\\tb'''", "'it\\'s'", '"say \\"x\\""',
    ]),
)
LONG_NAMES = st.sampled_from(["a_rather_long_argument_name", "another_fairly_long_name", "order"])


def _fmt_expr() -> st.SearchStrategy[str]:
    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.tuples(inner, st.sampled_from(["+", "-", "*", "**", "<", "==", "and", "or", "in", "is not"]), inner).map(
                lambda t: f"({t[0]} {t[1]} {t[2]})"
            ),
            st.tuples(NAMES, st.lists(inner, max_size=3)).map(lambda t: f"{t[0]}( {', '.join(t[1])} )"),
            st.tuples(NAMES, st.lists(LONG_NAMES, min_size=3, max_size=4)).map(  # long: the formatters split it
                lambda t: f"{t[0]}({', '.join(n + '_value=' + n for n in t[1])})"
            ),
            st.tuples(NAMES, inner).map(lambda t: f"{t[0]}[{t[1]}]"),
            st.tuples(NAMES, inner, inner).map(lambda t: f"{t[0]}[{t[1]}, {t[2]}]"),
            st.tuples(NAMES, inner, inner).map(lambda t: f"{t[0]}[({t[1]}, {t[2]})]"),
            st.tuples(NAMES, inner).map(lambda t: f"{t[0]}[{t[1]},]"),
            st.tuples(NAMES, inner, inner).map(lambda t: f"{t[0]}[{t[1]}:{t[2]}]"),
            st.tuples(NAMES, st.lists(LONG_NAMES, min_size=3, max_size=4)).map(lambda t: f"{t[0]}[{', '.join(t[1])}]"),
            st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
            st.tuples(inner, inner).map(lambda t: "{" + f"{t[0]}: {t[1]}" + "}"),
            st.tuples(inner, NAMES).map(lambda t: f"[{t[0]} for {t[1]} in order if {t[1]}]"),
            inner.map(lambda e: f"(lambda x: {e})"),
            st.tuples(NAMES, st.sampled_from(["", "!r", ":>10", "!r:>{a}", "=", " = "])).map(
                lambda t: f"F'\\xAB{{{t[0]}{t[1]}}}\\N{{em dash}}'"
            ),
            st.tuples(NAMES, NAMES).map(lambda t: f"rf'\\d{{{t[0]}}}' f\"{{{t[1]}}}\\n\""),
            inner.map(lambda e: f"(not {e})"),
            inner.map(lambda e: f"( ( {e} ) )"),
        )

    return st.recursive(FMT_ATOMS, extend, max_leaves=5)


FMT_EXPR = _fmt_expr()


def _fmt_stmts(depth: int) -> st.SearchStrategy[list[str]]:
    simple = st.one_of(
        st.tuples(NAMES, FMT_EXPR).map(lambda t: [f"{t[0]} = {t[1]}"]),
        st.tuples(NAMES, FMT_EXPR).map(lambda t: [f"{t[0]}[1, 2] = {t[1]}"]),
        st.tuples(NAMES, FMT_EXPR).map(lambda t: [f"{t[0]} += {t[1]} ;  b = 1"]),
        FMT_EXPR.map(lambda e: [f"return ({e})"]),
        FMT_EXPR.map(lambda e: [f"print ( {e} )  # a comment"]),
        NAMES.map(lambda n: [f"del ({n})"]),
    )
    if depth == 0:
        return simple

    def block(head: str) -> st.SearchStrategy[list[str]]:
        return st.lists(_fmt_stmts(depth - 1), min_size=1, max_size=2).map(
            lambda groups: [head] + ["  " + line for g in groups for line in g]
        )

    compound = st.one_of(
        FMT_EXPR.flatmap(lambda e: block(f"if ({e}):")),
        NAMES.flatmap(lambda n: block(f"for ({n}) in order:")),
        FMT_EXPR.flatmap(lambda e: block(f"while {e} :")),
    )
    return st.one_of(simple, compound)


FMT_BODIES = (
    st.lists(_fmt_stmts(2), min_size=1, max_size=4)
    .map(lambda groups: [line for g in groups for line in g])
    .filter(lambda lines: sum(map(len, lines)) < 2500)
    .filter(_compiles)
)


def _all_hashes(source: str) -> list[tuple[str, str]]:
    result = fingerprint_module(source, all_functions=True)
    assert not result.errors, result.errors
    return sorted((f.function, f.code_hash) for f in result.flows)


def _black(source: str) -> str:
    import black

    return black.format_str(source, mode=black.Mode())


def _ruff(source: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--no-cache", "--isolated", "--stdin-filename", "m.py", "-"],
        input=source, capture_output=True, text=True, check=True,
    )
    return proc.stdout


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(FMT_BODIES)
def test_black_and_ruff_format_keep_every_hash(body: list[str]) -> None:
    source = module_source(body)
    expected = _all_hashes(source)
    for name, formatter in (("black", _black), ("ruff format", _ruff)):
        formatted = formatter(source)
        assert _all_hashes(formatted) == expected, f"{name} changed a hash:\n{source}\n---\n{formatted}"
