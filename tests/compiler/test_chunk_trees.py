"""One CPython parse per bundled statement text and build (``ChunkMemo.tree``): the questions the
bundler asks of a statement (its globals, imports, module annotations, computed text, import
schedule) share its tree, which none of them changes."""

from __future__ import annotations

import ast
import collections
import sys
import textwrap
from pathlib import Path

import pytest

from loom_compiler import LoomConfig
from loom_compiler.bundle import chunk_memo
from loom_compiler.bundle.build import build_project
from loom_compiler.bundle.chunk_globals import _strip_local_annotations
from loom_compiler.bundle.chunk_memo import ChunkMemo
from loom_compiler.bundle.chunk_plan import statement_globals

LIB = '''\
"""Helpers."""
from __future__ import annotations

import json
from decimal import Decimal

from shop.util import unit

RATE: Decimal = Decimal("0.2")


def price(order: dict) -> Decimal:
    total: Decimal = Decimal(0)
    for item in order["items"]:
        total += unit(item) * RATE
    return total


def label(order: dict) -> str:
    return json.dumps({"id": order["id"]})
'''
UTIL = "def unit(item: dict) -> int:\n    return item['qty']\n"


def _flow(name: str) -> str:
    return (f"from loom_runtime import flow\nfrom shop.lib import label, price\n\n\n"
            f"@flow('{name}')\ndef {name}(ctx, order: dict) -> str:\n    return label(order) + str(price(order))\n")


def _project(root: Path) -> LoomConfig:
    files = {"shop/__init__.py": "", "shop/lib.py": LIB, "shop/util.py": UTIL,
             "shop/a.py": _flow("a"), "shop/b.py": _flow("b")}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return LoomConfig(root=root, packages=("shop",))


def test_a_build_parses_each_bundled_statement_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # two flows bundling the same helpers: each statement text was parsed by ``ast`` once per
    # question the bundler asked of it (three to five times), in each chunk's first asking
    config = _project(tmp_path)
    parsed: collections.Counter[str] = collections.Counter()
    real = ast.parse

    def spy(source, *args, **kwargs):  # type: ignore[no-untyped-def]
        caller = sys._getframe(1)
        if caller.f_code.co_filename == ast.__file__:
            caller = caller.f_back  # pragma: no cover - ast helpers calling ast.parse
        name = Path(caller.f_code.co_filename).name
        if Path(caller.f_code.co_filename).parent.name == "bundle" and name.startswith("chunk"):
            parsed[source if isinstance(source, str) else repr(source)] += 1
        return real(source, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", spy)
    report = build_project(config, jobs=1)
    assert report.ok, [str(e) for e in report.errors]
    assert len(report.flows) == 2
    assert parsed, "the bundler parsed nothing"
    twice = {text: n for text, n in parsed.items() if n > 1}
    assert twice == {}


def test_the_local_annotations_are_stripped_from_a_copy_of_the_text_not_from_the_tree() -> None:
    text = textwrap.dedent("""\
        def price(order):
            total: Decimal = 0
            return total
        """)
    tree = ast.parse(text)
    before = ast.dump(tree)
    stripped = _strip_local_annotations(tree, text)
    assert "Decimal" not in stripped and "total: None = 0" in stripped
    assert ast.dump(tree) == before  # a shared tree: the next question reads it as parsed


def test_questions_sharing_a_tree_answer_as_each_alone() -> None:
    text = "def price(order):\n    total: Decimal = 0\n    return total + RATE\n"
    memo = ChunkMemo()
    shared = statement_globals(text, False, memo.tree)
    again = statement_globals(text, False, memo.tree)
    alone = statement_globals(text, False)
    assert shared == again == alone
    assert "Decimal" not in shared.used and "RATE" in shared.used and shared.bound == {"price"}
    assert memo.parses == 1


def test_a_text_that_does_not_parse_raises_each_time_and_is_not_kept() -> None:
    memo = ChunkMemo()
    for _ in range(2):
        with pytest.raises(SyntaxError):
            memo.tree("def broken(:\n")
    assert memo.parses == 2


def test_trees_past_the_budget_are_parsed_again_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chunk_memo, "TREE_CHARS", 20)
    memo = ChunkMemo()
    short, long = "x = 1\n", "y = [" + ", ".join(map(str, range(20))) + "]\n"
    assert memo.tree(short) is memo.tree(short)
    assert memo.tree(long) is not memo.tree(long)
    assert memo.parses == 3
