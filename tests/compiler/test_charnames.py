"""``charnames``: ``\\N{NAME}`` escapes resolve alike on every supported Python, from the running
Python's Unicode database and the committed table of names the oldest one lacks."""

from __future__ import annotations

import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from loom_compiler import charnames, charnames_gen, fingerprint_module
from loom_compiler.charnames_table import BASE_UNICODE, NAMES, RANGES, SOURCE_UNICODE

TABLE = Path(charnames.__file__).with_name("charnames_table.py")


def test_the_table_spans_the_supported_pythons_databases() -> None:
    assert BASE_UNICODE == "13.0.0"  # Python 3.10, the oldest supported
    assert SOURCE_UNICODE == "15.1.0"  # Python 3.13, the newest supported
    assert NAMES["MELTING FACE"] == 0x1FAE0 and len(NAMES) > 1000


def test_the_table_agrees_with_this_pythons_database_wherever_both_know_a_name() -> None:
    for name, code in NAMES.items():
        try:
            known = unicodedata.lookup(name)
        except KeyError:
            continue  # newer than this Python: the table is the only source
        assert known == chr(code), name
    for first, last in RANGES:
        for code in (first, last):
            name = f"CJK UNIFIED IDEOGRAPH-{code:X}"
            assert charnames.lookup(name) == chr(code)


def test_lookup_follows_cpythons_rules() -> None:
    assert charnames.lookup("EM DASH") == "\u2014"
    assert charnames.lookup("melting face") == "\U0001fae0"  # names are case-insensitive
    assert charnames.lookup("CJK UNIFIED IDEOGRAPH-2EBF0") == "\U0002ebf0"  # Unicode 15.1, algorithmic
    assert charnames.lookup("cjk unified ideograph-2EBF0") == "\U0002ebf0"
    assert charnames.lookup("CJK UNIFIED IDEOGRAPH-2ebf0") is None  # the code point's hex is upper-case
    assert charnames.lookup("NO SUCH CHARACTER") is None


def test_names_this_python_lacks_are_resolved_and_patched_to_the_same_length(monkeypatch) -> None:
    # pretend the running Python's database stops before Unicode 14, as 3.10's does
    real = unicodedata.lookup

    def old_lookup(name: str) -> str:
        if name.upper() in NAMES:
            raise KeyError(name)
        return real(name)

    monkeypatch.setattr(charnames.unicodedata, "lookup", old_lookup)
    body = r"a\N{MELTING FACE}b\\N{MELTING FACE}\N{EM DASH}"
    assert charnames.resolve_names(body) == r"a\U0001fae0b\\N{MELTING FACE}\N{EM DASH}"  # \\N is no escape
    source = 'x = "\\N{MELTING FACE}"  # and \\N{NO SUCH NAME}\n'
    patched = charnames.patch_unknown_names(source)
    assert len(patched) == len(source) and "\\x41AAAAAAAAAAAA" in patched and "NO SUCH NAME" in patched


def test_a_name_no_supported_python_knows_is_cpythons_error() -> None:
    source = b'from loom_runtime import flow\n\n\n@flow("s")\ndef s(ctx):\n    return "\\N{NO SUCH NAME}"\n'
    (error,) = fingerprint_module(source, module="m", path="m.py").errors
    assert (error.line, error.code) == (6, "syntax") and "unknown Unicode character name" in error.message


OTHERS = os.environ.get("LOOM_OTHER_PYTHONS", "").split()


def _python(version: tuple[int, int]) -> str | None:
    """The first of LOOM_OTHER_PYTHONS (or this interpreter) that is ``version``."""
    for python in [*OTHERS, sys.executable]:
        asked = subprocess.run([python, "-c", "import sys; print(*sys.version_info[:2])"], capture_output=True, text=True)
        if asked.returncode == 0 and tuple(map(int, asked.stdout.split())) == version:
            return python
    return None


@pytest.mark.skipif(
    not OTHERS or not (_python((3, 10)) and _python((3, 13))),
    reason="set LOOM_OTHER_PYTHONS to interpreters including a 3.10 and a 3.13 one to regenerate the table",
)
def test_the_committed_table_is_what_the_generator_writes() -> None:
    generated = charnames_gen.generate(_python((3, 10)), _python((3, 13)))  # type: ignore[arg-type]
    assert generated == TABLE.read_text(encoding="utf-8")
