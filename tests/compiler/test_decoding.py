"""``decoding``: module bytes to text by CPython's rules (BOM, PEP 263 cookie, else UTF-8),
checked against CPython itself, and located errors."""

from __future__ import annotations

import pytest

from loom_compiler.decoding import SourceDecodeError, decode_source
from loom_compiler.sources import SourceDecodeError as ReExported
from loom_compiler.sources import decode_source as reexported


def _cpython_text(data: bytes) -> str:
    """The string value CPython gives ``s`` in a module of these bytes."""
    namespace: dict = {}
    exec(compile(data, "m.py", "exec"), namespace)
    return namespace["s"]


CASES = {
    "utf-8": "s = 'é €'\n".encode(),
    "bom": b"\xef\xbb\xbf" + "s = 'é'\n".encode(),
    "bom-and-utf-8-cookie": b"\xef\xbb\xbf# coding: utf-8\n" + "s = 'é'\n".encode(),
    "latin-1-cookie": "# -*- coding: latin-1 -*-\ns = 'é'\n".encode("latin-1"),
    "utf-8-bytes-under-latin-1": "# coding: latin-1\ns = 'é'\n".encode("utf-8"),  # 'Ã©' for Python
    "cookie-on-line-two": "#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\ns = '€'\n".encode("cp1252"),
    "cookie-on-line-three-is-ignored": "#!/bin/sh\n#\n# coding: latin-1\ns = 'é'\n".encode("utf-8"),
    "line-one-code-stops-the-search": "s = 'é'\n# coding: latin-1\n".encode("utf-8"),
    "cookie-in-a-non-utf-8-comment": b"# caf\xe9, coding: latin-1\ns = '\xe9'\n",  # tokenize refuses this one
    "spellings": "# coding=ISO_8859_1\ns = 'é'\n".encode("latin-1"),
    "euc-jp": "# coding: euc-jp\ns = 'あ'\n".encode("euc-jp"),
    "crlf": "# coding: latin-1\r\ns = 'é'\r\n".encode("latin-1"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_text_is_what_cpython_reads(name: str) -> None:
    data = CASES[name]
    text = decode_source(data)
    namespace: dict = {}
    exec(compile(text, "m.py", "exec"), namespace)
    assert namespace["s"] == _cpython_text(data)


@pytest.mark.parametrize(
    ("data", "line", "column", "words"),
    [
        (b"a = 1\nb = '\xff'\n", 2, 6, "not valid UTF-8"),  # 1-based: the byte after "b = '"
        (b"\xef\xbb\xbfa = '\xff'\n", 1, 6, "not valid UTF-8"),  # the BOM is not a column
        (b"# coding: nosuch\nx = 1\n", 1, 11, "unknown encoding 'nosuch'"),
        (b"#\n# coding: rot13\nx = 1\n", 2, 11, "not a text encoding"),
        (b"\xef\xbb\xbf# coding: latin-1\nx = 1\n", 1, 11, "byte order mark"),
        (b"# coding: ascii\nx = '\xe9'\n", 2, 6, "not valid ascii, the declared encoding"),
        (b"# a\r# b\r\nx = '\xc3\xa9\xff'\n", 3, 7, "not valid UTF-8"),  # CR ends a line; columns count characters
    ],
)
def test_undecodable_bytes_are_a_located_error(data: bytes, line: int, column: int, words: str) -> None:
    with pytest.raises(SourceDecodeError, match=words) as info:
        decode_source(data)
    assert (info.value.line, info.value.column) == (line, column)
    with pytest.raises(SyntaxError):  # CPython refuses each of them too
        compile(data, "m.py", "exec")


def test_invalid_utf_8_in_a_comment_is_refused_though_cpythons_import_takes_it() -> None:
    # the chunk bundles the module's text, comments included: it must be text
    data = b"x = 1  # \xe4\xb8"
    compile(data, "m.py", "exec")
    with pytest.raises(SourceDecodeError, match="unexpected end of data") as info:
        decode_source(data)
    assert (info.value.line, info.value.column) == (1, 10)


def test_sources_keeps_its_names() -> None:
    assert reexported is decode_source and ReExported is SourceDecodeError


def test_a_latin_1_module_builds_and_its_chunk_holds_the_same_strings(tmp_path) -> None:
    import runpy

    from loom_compiler.bundle.build import build_project
    from loom_compiler.config import load_config

    (tmp_path / "shop").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.loom]\npackages = ["shop"]\n')
    (tmp_path / "shop" / "__init__.py").write_text("")
    flows = '# -*- coding: latin-1 -*-\nfrom loom_runtime import flow\n\nGREETING = "café"\n\n\n@flow("greet")\ndef greet(ctx):\n    return GREETING\n'
    (tmp_path / "shop" / "flows.py").write_bytes(flows.encode("latin-1"))
    report = build_project(load_config(tmp_path))
    assert report.ok, report.errors
    (chunk,) = (tmp_path / "build" / "loom" / "chunks").rglob("*.py")
    assert runpy.run_path(str(chunk))["GREETING"] == "café"  # the chunk is UTF-8 text of the same value
