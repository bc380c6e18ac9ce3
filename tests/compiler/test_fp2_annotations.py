"""Names only annotations spell (A1; issue 12 class 9): annotations Python stores are references.

A parameter's, a return's, a class field's and a module variable's annotation is stored
(``__annotations__``) and read at run time by ``typing.get_type_hints``, dataclasses, pydantic and
Temporal's argument decoding, quoted or not: ``def f(x: "Money")`` makes ``Money`` part of ``f``
(``scopes.annotation_of``). A module's ``__annotations__`` read by its code holds every annotated
module-level name (``closure.annotated``). A *local* variable annotation (``y: Money = x`` in a
function body) is never evaluated: it references nothing (DESIGN §6, class 9). Strings that are
values inside an annotation (``Literal["a"]``, ``Annotated[int, "doc"]``'s metadata) are not
forward references.

Each ``changed`` pair fails on the main before this rule (but the ones marked held); each
``equal`` pair is the look-alike that must keep the hash.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fp2_cases_adversarial import C, E, ProjectPair, edit, flow, project
from pair_harness import assert_pair, assert_well_formed

MONEY = "class Money:\n    places = 2\n"
MONEY_EDIT = ("shop/m.py", "places = 2", "places = 3")


def _helper(signature: str, body: str = "return x", head: str = "from shop.m import Money\n") -> dict[str, str]:
    return project(flow("return f(o)", "from shop.h import f\n"), m=MONEY, h=f"{head}\n\n{signature}\n    {body}\n")


def _pairs() -> list[ProjectPair]:
    out: list[ProjectPair] = []
    add = out.append
    k = "annotations: stored annotations reference what they spell"
    for name, signature, head in [
        ("string-parameter-annotation", "def f(x: 'Money'):", "from shop.m import Money\n"),
        ("string-return-annotation", "def f(x) -> 'Money':", "from shop.m import Money\n"),
        ("string-inside-a-generic", "def f(x: List['Money']):", "from typing import List\n\nfrom shop.m import Money\n"),
        ("whole-annotation-quoted", "def f(x: 'Optional[Money]'):", "from typing import Optional\n\nfrom shop.m import Money\n"),
        ("dotted-string-annotation", "def f(x: 'm.Money'):", "from shop import m\n"),
        ("string-annotation-of-a-type-checking-import", "def f(x: 'Money'):",
         "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from shop.m import Money\n"),
        ("first-argument-of-annotated-is-a-type", "def f(x: Annotated['Money', 'doc']):",
         "from typing import Annotated\n\nfrom shop.m import Money\n"),
    ]:
        base = _helper(signature, head=head)
        add(C(name, k, base, edit(base, *MONEY_EDIT)))
    # held: deferred annotations are expressions already
    base = _helper("def f(x: Money):", head="from __future__ import annotations\n\nfrom shop.m import Money\n")
    add(C("deferred-parameter-annotation", k, base, edit(base, *MONEY_EDIT)))
    # the flow's own parameters (Temporal decodes a workflow's arguments by their annotations)
    base = project(flow("return o", "from shop.m import Money\n", signature="def checkout(ctx, o: 'Money'):"), m=MONEY)
    add(C("flow-parameter-string-annotation", k, base, edit(base, *MONEY_EDIT)))
    # a dataclass field's string annotation (dataclasses and pydantic read the class's __annotations__)
    base = project(flow("return Order(o).total", "from shop.o import Order\n"), m=MONEY,
                   o="from dataclasses import dataclass\n\nfrom shop.m import Money\n\n\n@dataclass\nclass Order:\n"
                     "    total: 'Money'\n")
    add(C("dataclass-field-string-annotation", k, base, edit(base, *MONEY_EDIT)))
    # a module's __annotations__ read by its code
    base = project(flow("return fields()", "from shop.h import fields\n"), m=MONEY,
                   h="from shop.m import Money\n\nPRICE: 'Money' = None\n\n\ndef fields():\n    return dict(__annotations__)\n")
    add(C("module-annotations-read-by-a-helper", k, base, edit(base, *MONEY_EDIT)))
    add(C("module-annotation-changed-read-by-a-helper", k, base, edit(base, "shop/h.py", "PRICE: 'Money'", "PRICE: 'int'")))
    base = project(flow("return typing.get_type_hints(h)", "import typing\n\nfrom shop import h\n"), m=MONEY,
                   h="from shop.m import Money\n\nPRICE: 'Money' = None\n")
    add(C("module-type-hints-read-through-the-module", k, base, edit(base, *MONEY_EDIT)))
    # a string that is no expression is hashed as the text it is
    base = _helper("def f(x: 'a b'):")
    add(C("unparsable-string-annotation-text-is-hashed", k, base, edit(base, "shop/h.py", "'a b'", "'a  b'")))

    k = "annotations: what they do not reference"
    for name, signature, body, head in [
        ("local-string-annotation", "def f(x):", "y: 'Money' = x\n    return y", "from shop.m import Money\n"),
        ("local-annotation", "def f(x):", "y: Money = x\n    return y", "from shop.m import Money\n"),
        ("literal-strings-are-values", "def f(x: Literal['Money']):", "return x", "from typing import Literal\n\nfrom shop.m import Money\n"),
        ("annotated-metadata-is-a-value", "def f(x: Annotated[int, 'Money']):", "return x",
         "from typing import Annotated\n\nfrom shop.m import Money\n"),
    ]:
        base = _helper(signature, body, head)
        add(E(name, k, base, edit(base, *MONEY_EDIT)))
    base = _helper("def f(x: 'Money'):")
    add(E("quote-style-of-a-string-annotation", k, base, edit(base, "shop/h.py", "'Money'", '"Money"')))
    base = _helper("def f(x: List[ 'Money' ]):", head="from typing import List\n\nfrom shop.m import Money\n")
    add(E("annotation-reformatted", k, base, edit(base, "shop/h.py", "List[ 'Money' ]", "List['Money']")))
    base = _helper("def f(x: 'Money'):", head="from shop.m import Money, Other\n")
    base = edit(base, "shop/m.py", MONEY, MONEY + "\n\nclass Other:\n    places = 2\n")
    add(E("another-class-of-the-module-edited", k, base, edit(base, "shop/m.py", "class Other:\n    places = 2", "class Other:\n    places = 3")))
    return out


PAIRS = tuple(_pairs())


def test_the_table_is_well_formed() -> None:
    assert_well_formed(PAIRS)


@pytest.mark.parametrize("pair", PAIRS, ids=[p.name for p in PAIRS])
def test_pair(tmp_path: Path, pair: ProjectPair) -> None:
    assert_pair(tmp_path, pair)
