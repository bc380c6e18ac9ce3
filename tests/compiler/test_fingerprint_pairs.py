"""DESIGN §6 as tests: every "equal" edit keeps the code hash, every "changed" edit moves it.

Single-module pairs come from ``fp_cases.PAIRS``; cross-module pairs edit one file of a small
project on disk (``shop/flows.py`` reaching ``shop/pricing.py`` and ``shop/steps.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from loom_compiler import LoomConfig, fingerprint_module, fingerprint_project

from fp_cases import PAIRS, Pair
from fp_syntax_cases import SYNTAX_PAIRS

ALL_PAIRS = PAIRS + SYNTAX_PAIRS


def _code_hash(source: str | bytes, flow: str | None = None) -> str:
    data = source.encode("utf-8") if isinstance(source, str) else source
    result = fingerprint_module(data, module="shop.flows", path="shop/flows.py")
    assert not result.errors, result.errors
    flows = [f for f in result.flows if flow is None or f.flow_id == flow]
    assert len(flows) == 1, [f.flow_id for f in result.flows]
    return flows[0].code_hash


def test_pair_table_is_large_and_covers_both_directions() -> None:
    assert len(PAIRS) >= 60
    assert len({p.name for p in PAIRS}) == len(PAIRS)
    assert sum(p.expect == "equal" for p in PAIRS) >= 30
    assert sum(p.expect == "changed" for p in PAIRS) >= 30
    assert all(p.before != p.after for p in PAIRS)
    assert len({p.name for p in ALL_PAIRS}) == len(ALL_PAIRS)


@pytest.mark.parametrize("pair", ALL_PAIRS, ids=[p.name for p in ALL_PAIRS])
def test_pair(pair: Pair) -> None:
    before, after = _code_hash(pair.before), _code_hash(pair.after)
    if pair.expect == "equal":
        assert before == after, f"{pair.rule}: the code hash must not change"
    else:
        assert before != after, f"{pair.rule}: the code hash must change"


# ---------------------------------------------------------------------------- cross-module pairs

FLOWS = '''\
from loom_runtime import flow

from shop import pricing
from shop.steps import charge
from .util import fmt
import shop.tax as tax


@flow("checkout", steps=["charge"])
def checkout(ctx, order):
    total = pricing.discount(order["total"])
    total += tax.vat(total)
    ctx.execute("charge", charge, total)
    return fmt(total)
'''

PRICING = '''\
RATE = 0.1


def _cents(x):
    return round(x, 2)


def discount(total):
    return _cents(total - total * RATE)


def unused(total):
    return total
'''

STEPS = '''\
from loom_runtime import step


@step
def charge(amount):
    return f"receipt:{amount}"
'''

UTIL = '''\
from .pricing import _cents as cents


def fmt(x):
    return str(cents(x))
'''

TAX = '''\
VAT = 0.2


def vat(x):
    return x * VAT
'''

PROJECT = {
    "shop/__init__.py": "",
    "shop/flows.py": FLOWS,
    "shop/pricing.py": PRICING,
    "shop/steps.py": STEPS,
    "shop/util.py": UTIL,
    "shop/tax.py": TAX,
}


def _project_hash(tmp_path: Path, name: str, edits: dict[str, tuple[str, str]]) -> str:
    root = tmp_path / name
    for rel, text in PROJECT.items():
        if rel in edits:
            old, new = edits[rel]
            assert text.count(old) == 1
            text = text.replace(old, new)
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    config = LoomConfig(root=root, packages=("shop",))
    result = fingerprint_project([root], config)
    assert not result.errors, result.errors
    (flow,) = result.flows
    return flow.code_hash


CROSS = [
    ("helper-in-other-module", "changed", {"shop/pricing.py": ("total * RATE", "total * RATE * 2")}),
    ("constant-in-other-module", "changed", {"shop/pricing.py": ("RATE = 0.1", "RATE = 0.2")}),
    ("transitive-callee", "changed", {"shop/pricing.py": ("round(x, 2)", "round(x, 3)")}),
    ("through-relative-import-and-alias", "changed", {"shop/util.py": ("str(cents(x))", "repr(cents(x))")}),
    ("re-exported-alias-target", "changed", {"shop/pricing.py": ("return round(x, 2)", "return round(x, 2) or 0")}),
    ("module-alias-attribute", "changed", {"shop/tax.py": ("x * VAT", "x * VAT + 1")}),
    ("module-alias-constant", "changed", {"shop/tax.py": ("VAT = 0.2", "VAT = 0.25")}),
    ("unused-function-in-other-module", "equal", {"shop/pricing.py": ("return total\n", "return total * 3\n")}),
    ("comment-in-other-module", "equal", {"shop/pricing.py": ("def discount(total):\n", "def discount(total):\n    # members only\n")}),
    ("step-body-in-other-module", "equal", {"shop/steps.py": ('f"receipt:{amount}"', 'f"receipt:{amount:.2f}"')}),
    ("definition-added-to-helper-module", "equal", {"shop/tax.py": ("VAT = 0.2\n", "VAT = 0.2\nGST = 0.1\n")}),
    ("step-renamed-in-other-module", "changed", {
        "shop/steps.py": ("def charge(", "def charge_card("),
        "shop/flows.py": ("from shop.steps import charge", "from shop.steps import charge_card as charge"),
    }),
]


@pytest.mark.parametrize(("name", "expect", "edits"), CROSS, ids=[c[0] for c in CROSS])
def test_cross_module_pair(tmp_path: Path, name: str, expect: str, edits: dict[str, tuple[str, str]]) -> None:
    before = _project_hash(tmp_path, "before", {})
    after = _project_hash(tmp_path, "after", edits)
    assert (before == after) == (expect == "equal"), name


def test_checkout_location_on_disk_does_not_matter(tmp_path: Path) -> None:
    assert _project_hash(tmp_path, "a", {}) == _project_hash(tmp_path / "deeper" / "elsewhere", "b", {})


# ---------------------------------------------------------------------------- golden digests
# Pinned on purpose: any change here is a change of the loom-fp/2 scheme and must be deliberate
# (a new scheme name, a migration note). Do not "fix" these by pasting new values. Re-pinned when
# the scheme name became loom-fp/2 (it is the first field of every member's hash record); the
# upgrade path from loom-fp/1 is tests/upgrade/.
# fp2-core re-pinned them on top of the scheme name: the flow decorator is now hashed as a
# placeholder at its position among the other decorators (``@wrap @flow`` vs ``@flow @wrap``);
# the closure members of all four are unchanged (checked against loom-fp/1's).
# fp2-syntax re-pinned golden-closure and the cross-module project: a subscript is written by the
# value it indexes with (``d[x]`` vs ``d[x,]``), and both index with ``order["total"]``; with that
# one rule undone the previous digests come back, and golden-simple and golden-method never moved.

GOLDEN_SIMPLE = '''\
from loom_runtime import flow


@flow("golden-simple")
def run(ctx, n):
    return n + 1
'''

GOLDEN_CLOSURE = '''\
import math
from loom_runtime import flow, step

LIMIT = 1_000


@step
def charge(x):
    return x


def needs_review(total: float) -> bool:
    return total > LIMIT


@flow("golden-closure", version=2, steps=["charge"])
async def checkout(ctx, order: dict, *, rush=False) -> dict:
    if needs_review(order["total"]):
        await ctx.suspend("manager-approval")
    receipt = ctx.execute("charge", charge, math.floor(order["total"]))
    return {"receipt": receipt, "label": f"{order['id']!r:>8}", "rush": rush}
'''

GOLDEN_METHOD = '''\
from loom_runtime import flow


class Shop:
    rate = 0.5

    def price(self, x):
        return x * self.rate

    @flow("golden-method")
    def run(self, ctx, x):
        return self.price(x)
'''

GOLDENS = {
    "golden-simple": (
        GOLDEN_SIMPLE,
        "sha256:8913f428b31ee1ebfc84c4f524a48c7e3f61e88993080b14dcb2695d381991c4",
    ),
    "golden-closure": (
        GOLDEN_CLOSURE,
        "sha256:f0bc416290a9b333933aa445f7918b3ed6e85ac637ffbc549dd4b93f75fdacfe",
    ),
    "golden-method": (
        GOLDEN_METHOD,
        "sha256:a028d313f7ec6ee5d08cccd4c10bf9aaebd3372225a21edb2176f5d169b595a8",
    ),
}


@pytest.mark.parametrize("flow_id", sorted(GOLDENS))
def test_golden_digest(flow_id: str) -> None:
    source, expected = GOLDENS[flow_id]
    assert _code_hash(source, flow_id) == expected


def test_golden_cross_module_project(tmp_path: Path) -> None:
    assert _project_hash(tmp_path, "golden", {}) == "sha256:759bdc897fd1b1311e1135f017382052f2fd96408c68623a83eeda0592f97388"
