"""The parse entry (``loom_compiler.parsing``): CPython's verdict first, located errors for what
it refuses (deep nesting, NUL bytes), correct hashes for deep code it accepts, never a crash.

Issue 14 items 11 (deep nesting) and 12 (NUL bytes) have their regression tests here. Deep inputs
run in a subprocess: a native stack overflow (SIGSEGV) must fail the test, not end the run; the
timeout catches a parse that takes minutes.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import libcst as cst
import pytest

from loom_compiler import analyse_module, fingerprint_module
from loom_compiler import deep_stack, parsing
from loom_compiler.model import SourceError

ROOT = Path(__file__).resolve().parents[2]


def _in_function(statement: str) -> str:
    """A module whose function ``f`` holds ``statement`` on line 6, column 5."""
    return f"import os\n\n\ndef f(a, b, d):\n    y = 1\n    {statement}\n    return y\n"


# every case CPython refuses: (source, line, column, words the message must hold); no line and
# column: CPython's own (it moves between versions), else the deep statement loom finds
REFUSED = {
    "1000-parentheses": ("x = " + "(" * 1000 + "1" + ")" * 1000 + "\n", 1, 205, "too many nested parentheses"),
    # at the 201st bracket
    "1000-lists": (_in_function("x = " + "[" * 1000 + "1" + "]" * 1000), 6, 209, "too many nested parentheses"),
    "1000-calls": (_in_function("x = " + "f(" * 1000 + "1" + ")" * 1000), 6, 410, "too many nested parentheses"),
    "10000-term-sum": (_in_function("x = " + " + ".join(["a"] * 10_000)), 6, 5, "nested too deeply"),
    "10000-attribute-chain": (_in_function("x = a" + ".b" * 10_000), 6, 5, "nested too deeply"),
    "10000-call-chain": (_in_function("x = a" + "()" * 10_000), 6, 5, "nested too deeply"),
    "10000-unary-minus": (_in_function("x = " + "-" * 10_000 + "1"), 6, 5, "nested too deeply"),
    "20000-elif-chain": (
        _in_function("if a:\n        pass\n" + "    elif a:\n        pass\n" * 20_000), 6, 5, "nested too deeply",
    ),
    "101-indentation-levels": (
        "".join("    " * i + "if x:\n" for i in range(101)) + "    " * 101 + "pass\n", 101, 1, "indentation",
    ),
    "25-nested-loops": (
        "".join("    " * i + f"for x{i} in y:\n" for i in range(25)) + "    " * 25 + "pass\n", None, None,
        "too many statically nested blocks",
    ),
    "return-outside-function": ("x = 1\nreturn x\n", 2, 1, "'return' outside function"),
}


# every case CPython accepts that once crashed or failed: (module, a reformatted equal module,
# an edited module that must hash differently)
def _accepted() -> dict[str, tuple[str, str, str]]:
    chain = " and ".join(["a"] * 10_000)
    return {
        # libcst's native parser overflowed the 8 MiB main-thread stack (SIGSEGV)
        "10000-operand-and-chain": (
            _in_function(f"x = {chain}"),
            _in_function(f"x = ({chain.replace(' and ', '  and ')})"),
            _in_function(f"x = {chain} and b"),
        ),
        # deeper than Python's default recursion limit in libcst and in the analysis
        "1500-attribute-chain": (
            _in_function("x = a" + ".b" * 1500),
            _in_function("x = (a" + " . b" * 1500 + ")"),
            _in_function("x = a" + ".b" * 1499 + ".c"),
        ),
        "1500-term-sum": (
            _in_function("x = " + " + ".join(["a"] * 1500)),
            _in_function("x = (" + "+".join(["a"] * 1500) + ")"),
            _in_function("x = " + " + ".join(["a"] * 1499) + " - a"),
        ),
        "1200-subscript-chain": (
            _in_function("x = d" + "[0]" * 1200),
            _in_function("x = d" + "[(0)]" * 1200),
            _in_function("x = d" + "[0]" * 1199 + "[0,]"),
        ),
        "3000-part-import": (
            "import a" + ".b" * 3000 + "\n\n\ndef f():\n    return a\n",
            "import a" + " . b" * 3000 + "  # the same import\n\n\ndef f():\n    return a\n",
            "import a" + ".b" * 3000 + "\n\n\ndef f():\n    return a.c\n",
        ),
    }


SCRIPT = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, sys.argv[1])
    from loom_compiler import analyse_module, fingerprint_module
    out = {}
    for name, sources in json.load(sys.stdin).items():
        results = []
        for source in sources:
            summary = analyse_module(source.encode(), module="m", path="m.py", all_functions=True)
            if not hasattr(summary, "units"):
                results.append({"error": [summary.line, summary.column, summary.message, summary.code]})
                continue
            flows = fingerprint_module(source.encode(), module="m", path="m.py", all_functions=True).flows
            results.append({"hashes": sorted(f.code_hash for f in flows)})
        out[name] = results
    print(json.dumps(out))
    """
)


def _run_in_subprocess(cases: dict[str, list[str]], timeout: float) -> dict[str, list[dict]]:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(ROOT)],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, f"exit {proc.returncode} (a negative one is a signal): {proc.stderr[-2000:]}"
    return json.loads(proc.stdout)


def test_input_cpython_refuses_is_a_located_error_and_never_reaches_libcst() -> None:
    # all of them within one short timeout: on main the deep ones ran libcst for minutes
    results = _run_in_subprocess({name: [case[0]] for name, case in REFUSED.items()}, timeout=60)
    for name, (source, line, column, words) in REFUSED.items():
        if line is None:
            with pytest.raises(SyntaxError) as cpython:
                compile(source, "m.py", "exec")
            line, column = cpython.value.lineno, cpython.value.offset
        (result,) = results[name]
        assert "error" in result, f"{name}: {result}"
        got_line, got_column, message, code = result["error"]
        assert (got_line, got_column, code) == (line, column, "syntax"), f"{name}: {result['error']}"
        assert words in message, f"{name}: {message}"


@pytest.mark.slow
def test_deep_input_cpython_accepts_hashes_correctly_without_crashing() -> None:
    cases = _accepted()
    results = _run_in_subprocess({name: list(variants) for name, variants in cases.items()}, timeout=300)
    for name, (plain, reformatted, edited) in results.items():
        assert all("hashes" in r for r in (plain, reformatted, edited)), f"{name}: {plain, reformatted, edited}"
        assert plain["hashes"] == reformatted["hashes"], f"{name}: layout changed the hash"
        assert plain["hashes"] != edited["hashes"], f"{name}: an edit kept the hash"


def test_chains_past_loom_limit_are_a_located_error() -> None:
    operands = " or ".join(["a"] * (parsing.MAX_CHAIN + 1))
    error = analyse_module(_in_function(f"x = {operands}").encode(), module="m", path="m.py")
    assert isinstance(error, SourceError)
    assert (error.line, error.column) == (6, 9) and f"{parsing.MAX_CHAIN + 1:,} `and`/`or` operands" in error.message
    dotted = "import a" + ".b" * parsing.MAX_CHAIN + "\n"
    error = analyse_module(dotted.encode(), module="m", path="m.py")
    assert isinstance(error, SourceError) and (error.line, error.column) == (1, 1) and "dotted parts" in error.message


def test_valid_code_libcst_cannot_parse_names_the_statement_and_says_so() -> None:
    strings = " ".join(['"a"'] * 5000)  # CPython accepts this; libcst 1.9 refuses it
    error = analyse_module(_in_function(f"x = {strings}").encode(), module="m", path="m.py")
    assert isinstance(error, SourceError) and error.code == "syntax"
    assert (error.line, error.column) == (6, 5)
    assert "libcst" in error.message and "CPython" in error.message and "accepts it" in error.message
    # the installed version, read when the message is written (not at import: parsing_imports_no_metadata)
    assert f"libcst {importlib.metadata.version('libcst')} cannot parse" in error.message


def test_parsing_a_module_does_not_import_package_metadata() -> None:
    # importlib.metadata (email, zipfile, csv, ...) cost every run that parses ~25 ms at start-up,
    # for the version in one rare message: a fresh interpreter that parses must not load it
    probe = (
        "import sys\n"
        "from loom_compiler import analyse_module\n"
        "assert analyse_module(b'def f():\\n    return 1\\n', module='m', path='m.py').module == 'm'\n"
        "print('importlib.metadata' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False", done.stderr


# ------------------------------------------------------------------------------------ NUL bytes


@pytest.mark.parametrize(
    ("source", "line", "column"),
    [
        (b"x = 1\ny = 'a\x00b'\n", 2, 7),  # inside a string literal: fingerprinted with exit 0 on main
        (b"x = 1\nprint(x)\x00\n", 2, 9),  # after code: was reported at 1:1
        (b"x = 1  # \x00 in a comment\n", 1, 10),
        (b"# coding: latin-1\nx = '\xe9\xe9'\r\n\x00", 3, 1),  # columns count characters, CRLF ends a line
        ("x = 1\ry = 'é'\x00\n", 2, 8),  # text input; CR ends a line as in Python
    ],
)
def test_a_nul_byte_is_refused_at_its_line_and_column(source: bytes | str, line: int, column: int) -> None:
    error = analyse_module(source, module="m", path="m.py")
    assert isinstance(error, SourceError), error
    assert (error.line, error.column, error.code) == (line, column, "syntax")
    assert "NUL byte" in error.message and "remove it" in error.message


def test_a_nul_byte_in_a_flow_module_fails_the_fingerprint() -> None:
    source = b'from loom_runtime import flow\n\n\n@flow("f")\ndef f(ctx):\n    return "a\x00b"\n'
    result = fingerprint_module(source, module="m", path="m.py")
    assert not result.flows and [(e.line, e.column) for e in result.errors] == [(6, 14)]


# ---------------------------------------------------------------------------- CPython's verdict


def test_cpython_syntax_errors_keep_cpythons_message_and_position() -> None:
    error = analyse_module(b"def f(:\n    pass\n", module="m", path="m.py")
    assert isinstance(error, SourceError) and (error.line, error.column) == (1, 7)
    assert error.message.startswith("syntax error: ")
    newer = analyse_module(b"x = 1\ndef f(x) -> int:\n    return x $ 1\n", module="m", path="m.py")
    assert isinstance(newer, SourceError) and newer.line == 3 and "invalid syntax" in newer.message
    assert f"CPython {sys.version_info[0]}.{sys.version_info[1]}" in newer.message  # which parser said so


@pytest.mark.parametrize(
    ("source", "since", "column"),
    [
        (b"def first[T](xs: list[T]) -> T:\n    return xs[0]\n", (3, 12), 10),
        (b"class Box[T]:\n    pass\n", (3, 12), 10),
        (b"type Pair = tuple[int, int]\n", (3, 12), 6),
        (b"try:\n    pass\nexcept* ValueError:\n    pass\n", (3, 11), 7),
    ],
    ids=["def-type-params", "class-type-params", "type-alias", "except-star"],
)
def test_syntax_newer_than_the_running_python_says_which_python_to_run(source: bytes, since: tuple[int, int],
                                                                       column: int) -> None:
    error = analyse_module(source, module="m", path="m.py")
    if sys.version_info[:2] >= since:  # the running Python has it: compiled and fingerprinted
        assert not isinstance(error, SourceError), error
        return
    assert isinstance(error, SourceError) and error.code == "syntax" and error.column == column
    assert f"run loom with Python {since[0]}.{since[1]} or newer" in error.message, error.message


def test_the_newer_python_hint_does_not_fire_on_an_ordinary_syntax_error() -> None:
    # ``type`` as a plain name and an indexing typo are not PEP 695 statements
    assert not isinstance(analyse_module(b"type = 3\nx = type\n", module="m", path="m.py"), SourceError)
    error = analyse_module(b"def f(x):\n    return x[\n", module="m", path="m.py")
    assert isinstance(error, SourceError) and "or newer" not in error.message, error


def test_no_warning_about_the_users_code_is_printed_and_warnings_as_errors_change_nothing() -> None:
    # "\d" is a SyntaxWarning on 3.12+ (a DeprecationWarning before); "is" with a literal warns too
    source = 'from loom_runtime import flow\n\n\n@flow("w")\ndef w(ctx, x):\n    return ("\\d", x is 1, f"\\d{x}")\n'
    probe = (
        "import sys\nsys.path.insert(0, sys.argv[1])\nfrom loom_compiler import fingerprint_module\n"
        "result = fingerprint_module(sys.stdin.buffer.read(), module='m', path='m.py')\n"
        "assert not result.errors, result.errors\nprint(result.flows[0].code_hash)\n"
    )
    hashes = []
    for flag in ("always", "error"):
        proc = subprocess.run(
            [sys.executable, "-W", flag, "-c", probe, str(ROOT)], input=source.encode(), capture_output=True, check=True
        )
        assert proc.stderr == b"", proc.stderr.decode()
        hashes.append(proc.stdout)
    assert hashes[0] == hashes[1]


# ------------------------------------------------------------------------------ libcst's parse


def test_unvalidated_parse_builds_the_same_tree_and_leaves_validation_on() -> None:
    source = 'from loom_runtime import flow\n\n@flow("x")\ndef x(ctx):\n    return 1\n'
    source += "\nclass C((A)):\n    x: int = (1 if y else [z for z in w])\n"
    tree = parsing.parse_module_unvalidated(source)
    assert tree.deep_equals(cst.parse_module(source)) and tree.code == source
    with pytest.raises(cst.CSTValidationError, match="empty name"):
        cst.Name("")  # nodes built after the parse are validated again
    with pytest.raises(cst.ParserSyntaxError):
        parsing.parse_module_unvalidated("def f(:\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("")


def test_unvalidated_parse_is_taken_only_when_safe_and_always_undone(monkeypatch) -> None:
    original = cst.CSTNode.__dict__["__post_init__"]
    seen: list[object] = []
    real_parse = cst.parse_module

    def spy(text: str) -> cst.Module:
        seen.append(cst.CSTNode.__dict__["__post_init__"])
        return real_parse(text)

    monkeypatch.setattr(cst, "parse_module", spy)
    assert not deep_stack.others_running()  # else the first check below tests nothing
    parsing.parse_module_unvalidated("x = 1\n")
    assert seen.pop() is parsing._skip_validation  # the fast path is really taken
    assert cst.CSTNode.__dict__["__post_init__"] is original
    # the same on the large-stack thread analyse_module runs on, whose caller waits for it
    assert not isinstance(analyse_module("x = 1\n", module="m", path="m.py"), SourceError)
    assert seen.pop() is parsing._skip_validation

    # an interrupt inside the parse leaves validation on
    def interrupted(text: str) -> cst.Module:
        raise KeyboardInterrupt

    monkeypatch.setattr(cst, "parse_module", interrupted)
    with pytest.raises(KeyboardInterrupt):
        parsing.parse_module_unvalidated("x = 1\n")
    assert cst.CSTNode.__dict__["__post_init__"] is original
    monkeypatch.setattr(cst, "parse_module", spy)

    # another thread alive: a plain parse, on the caller's thread and on the large-stack one
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        parsing.parse_module_unvalidated("x = 1\n")
        assert seen.pop() is original
        analyse_module("x = 1\n", module="m", path="m.py")
        assert seen.pop() is original
    finally:
        stop.set()
        other.join()

    # a libcst whose __post_init__ does more than validate: a plain parse, never skipped
    built: list[str] = []

    def post_init(self) -> None:
        self._validate()
        built.append(type(self).__name__)

    monkeypatch.setattr(cst.CSTNode, "__post_init__", post_init)
    assert parsing.parse_module_unvalidated("x = 1\n").code == "x = 1\n"
    assert seen.pop() is post_init and "Name" in built


@pytest.mark.slow
def test_a_project_whose_helper_nests_deeply_builds_and_its_chunk_compiles(tmp_path: Path) -> None:
    # on main: a SIGSEGV for the `and` chain, "no source text" for the helper's chunk unit
    (tmp_path / "shop").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.loom]\npackages = ["shop"]\n')
    (tmp_path / "shop" / "__init__.py").write_text("")
    (tmp_path / "shop" / "flows.py").write_text(
        'from loom_runtime import flow\nfrom shop.helpers import deep, chain\n\n\n@flow("f")\n'
        "def f(ctx, d):\n    return deep(d), chain(d)\n"
    )
    (tmp_path / "shop" / "helpers.py").write_text(
        "def deep(d):\n    return d" + ".real" * 1500 + "\n\n\ndef chain(a):\n    return " + " and ".join(["a"] * 10_000) + "\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "loom_compiler", "build"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (chunk,) = (tmp_path / "build" / "loom" / "chunks").rglob("*.py")
    text = chunk.read_text(encoding="utf-8")
    assert ".real" * 1500 in text and text.count(" and a") == 9_999
    compile(text, str(chunk), "exec")
