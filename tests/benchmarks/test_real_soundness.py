"""Keeps ``bench_real_soundness.py`` honest on a small project whose answers are known: every literal
it draws is one the flow's hash covers and moves it, it never draws a docstring, an annotation, a
step body or another flow's declaration, a flow's own id literal counts as renamed, and a hash that
did not move is reported (the check can fail). Nothing is timed."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import bench_real_soundness as bench  # noqa: E402

FLOWS = '''\
from loom_runtime import flow, step
from app.lib import price


@step
def charge(ctx, amount):
    return amount + 1000  # a step body: served from the journal, never hashed


@flow("checkout", steps=["charge"])
def checkout(ctx, order: "dict[str, int]") -> "int":
    """Doc 7."""
    limit: "int" = 3
    return price(order) + limit + len("abc")


@flow("other", version=2)
def other(ctx, x):
    return x
'''

LIB = '''\
RATE = 2


def price(order):
    """Times 9."""
    return order["total"] * RATE - 1
'''

SPEC = {"decorators": ["loom_runtime.flow"], "steps": ["loom_runtime.step"], "framework": "loom"}


def _project(tmp_path: Path) -> Path:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "flows.py").write_text(FLOWS)
    (tmp_path / "app" / "lib.py").write_text(LIB)
    return tmp_path


def _run(tmp_path: Path, count: int = 200) -> tuple[bench.RepoResult, dict]:
    root = _project(tmp_path)
    config = bench._config(root, SPEC, profiles=False)
    base, errors = bench._flows(root, config)
    assert errors == 0 and set(base) == {"app.flows:checkout", "app.flows:other"}
    result = bench.RepoResult("tiny")
    bench.mutate(result, root, config, base, SPEC, count, random.Random(3))
    return result, base


def test_every_drawn_literal_moves_the_hash_or_the_flow_id(tmp_path: Path) -> None:
    result, _ = _run(tmp_path)
    # checkout: "checkout", "charge", 3, "abc", RATE's 2, "total", 1; other: "other"
    assert result.kept == []
    assert result.declaration >= 1 and result.moved >= 1
    assert (tmp_path / "app" / "flows.py").read_text() == FLOWS  # every edit is undone


def test_literals_outside_the_hashed_code_are_never_drawn(tmp_path: Path) -> None:
    lines = FLOWS.splitlines()
    checkout, other = (lines.index(f"def {name}(ctx, " + rest) + 1
                       for name, rest in (("checkout", 'order: "dict[str, int]") -> "int":'), ("other", "x):")))

    def drawn(own: int, others: set[int]) -> set[str]:
        return {repr(n.value) for n in bench._literals(FLOWS, 1, len(lines), SPEC["steps"], own, others)}

    for_checkout = drawn(checkout, {other})
    assert "'Doc 7.'" not in for_checkout and "'int'" not in for_checkout and "'dict[str, int]'" not in for_checkout
    assert "1000" not in for_checkout  # the step body
    assert "'other'" not in for_checkout and "2" not in for_checkout  # another flow's declaration
    assert {"'checkout'", "'charge'", "3", "'abc'"} <= for_checkout  # a local annotation's VALUE is code
    for_other = drawn(other, {checkout})
    assert "'other'" in for_other and "2" not in for_other  # version= is in no hash (DESIGN §6)
    assert "'checkout'" not in for_other


def test_a_non_ascii_line_is_mutated_at_the_right_offset() -> None:
    import ast

    text = 'X = ("é", 5)\n'
    node = next(n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Constant) and n.value == 5)
    assert bench._mutated(text, node) == 'X = ("é", 6)\n'


def test_a_hash_that_does_not_move_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _project(tmp_path)
    config = bench._config(root, SPEC, profiles=False)
    base, _ = bench._flows(root, config)
    monkeypatch.setattr(bench, "_flows", lambda *a, **k: (base, 0))  # a fingerprint blind to every edit
    result = bench.RepoResult("tiny")
    bench.mutate(result, root, config, base, SPEC, 3, random.Random(3))
    assert result.mutations == 3 and len(result.kept) == 3 and result.moved == 0
