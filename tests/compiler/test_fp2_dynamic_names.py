"""Modules named by strings, code in strings, computed ``__all__`` and third-party process state
(breaker2's C3-C6, C8): the widening rules of ``scopes``/``closure`` in both directions. Each
``changed`` pair is a behavioural edit the hash must see; each ``equal`` pair is the look-alike
the rule must not fire on (DESIGN §6: widen where the reach cannot be decided, never blindly).

The adversarial pairs themselves live in ``fp2_cases_adversarial`` (``_breaker2_pairs``); these
pin the mechanisms one by one: the recognised resolvers, the known prefix of a computed name,
constants taken as certain only when every binding is a string literal, code strings read for
their imports, namespaces of their own, and the top-level package that stands for a third-party
module's state.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from fp2_cases_adversarial import PRICING, C, E, ProjectPair, edit, flow, project
from helpers.project_files import write_files
from pair_harness import assert_pair, assert_well_formed

from loom_compiler import LoomConfig

RATE = ("shop/pricing.py", "0.1", "0.2")
PLUGIN = "def run(x):\n    return x + 1\n"


def _pairs() -> list[ProjectPair]:
    out: list[ProjectPair] = []
    add = out.append

    # -------------------------------------------------- computed module names: the known prefix decides the width
    k = "computed module names"
    base = project(flow("import importlib\nreturn importlib.import_module('shop.plugins.' + o).run(1)"),
                   pricing=PRICING, plugins__init="", plugins__a=PLUGIN)
    add(C("computed-name-reaches-every-module-under-its-prefix", k, base, edit(base, "shop/plugins/a.py", "+ 1", "+ 2")))
    add(E("computed-name-does-not-reach-outside-its-prefix", k, base, edit(base, *RATE)))
    base = project(flow("import importlib\nreturn importlib.import_module(f'shop.plugins.{o}').run(1)"),
                   pricing=PRICING, plugins__init="", plugins__a=PLUGIN)
    add(C("f-string-name-reaches-every-module-under-its-prefix", k, base, edit(base, "shop/plugins/a.py", "+ 1", "+ 2")))
    add(E("f-string-name-does-not-reach-outside-its-prefix", k, base, edit(base, *RATE)))
    base = project(flow("import importlib\nreturn importlib.import_module(o).discount(1)"), pricing=PRICING)
    add(C("wholly-computed-name-reaches-every-module", k, base, edit(base, *RATE)))
    base = project(flow("import importlib\nreturn importlib.import_module('.' + o, __package__).discount(1)"), pricing=PRICING)
    add(C("computed-relative-name-reaches-the-top-package", k, base, edit(base, *RATE)))
    base = project(flow("return __import__('pricing', globals(), None, ['x'], 1).discount(o)"), pricing=PRICING)
    add(C("dunder-import-relative-by-level", k, base, edit(base, *RATE)))
    base = project(flow("return __import__(o, fromlist=['x']).discount(1)"), pricing=PRICING)
    add(C("dunder-import-of-a-parameter", k, base, edit(base, *RATE)))
    base = project(flow("import sys\nimport shop.pricing\nreturn sys.modules[o].discount(1)"), pricing=PRICING)
    add(C("sys-modules-computed-key", k, base, edit(base, *RATE)))

    # -------------------------------------------------- constants: certain only when every binding is a string literal
    k = "module names from constants"
    base = project(flow("import importlib\nreturn importlib.import_module(PKG).LIMIT", "\nPKG = 'shop'\n"), init="LIMIT = 1\n")
    add(C("dotless-constant-names-the-package", k, base, edit(base, "shop/__init__.py", "= 1", "= 2")))
    base = project(flow("import importlib\nreturn importlib.import_module(MOD).discount(o)", "\nMOD = make()\n"),
                   pricing=PRICING)
    base = edit(base, "shop/flows.py", "\nMOD = make()\n", "\n\ndef make():\n    return 'shop.' + 'pricing'\n\n\nMOD = make()\n")
    add(C("constant-computed-by-a-call-widens", k, base, edit(base, *RATE)))
    base = project(flow("import importlib\nreturn importlib.import_module(MOD).discount(o)", "\nMOD = 'json'\n\n\ndef f():\n"
                        "    global MOD\n    MOD = 'shop.pricing'\n"), pricing=PRICING)
    add(C("constant-rebound-after-global-widens", k, base, edit(base, *RATE)))
    base = project(flow("import importlib\nreturn importlib.import_module(MOD).dumps(o)", "\nMOD = 'json'\nprint(MOD)\n"),
                   pricing=PRICING)
    add(E("constant-of-a-third-party-module-reaches-nothing-first-party", k, base, edit(base, *RATE)))

    # -------------------------------------------------- strings that name first-party code
    k = "strings naming modules"
    base = project(flow("return load('shop.pricing:discount')(o)", "from shop.loader import load\n"), pricing=PRICING,
                   loader="import importlib\n\n\ndef load(spec):\n    m, _, a = spec.partition(':')\n"
                          "    return getattr(importlib.import_module(m), a)\n")
    add(C("a-first-party-loader-given-a-dotted-string", k, base, edit(base, *RATE)))
    base = project(flow('"""Prices through shop.pricing."""\nreturn o', ""), pricing=PRICING)
    add(E("a-docstring-naming-a-module-is-no-reference", k, base, edit(base, *RATE)))
    base = project(flow('"""shop.pricing"""\nreturn o', ""), pricing=PRICING)
    add(E("a-docstring-that-is-a-dotted-name-is-no-reference", k, base, edit(base, *RATE)))
    base = project(flow("import pkgutil\nreturn pkgutil.resolve_name('json:dumps')(o)"), pricing=PRICING)
    add(E("a-third-party-dotted-string", k, base, edit(base, *RATE)))
    base = project(flow("return 'shop.pricing'"), pricing=PRICING)
    add(C("any-dotted-string-naming-a-module-reaches-it", k, base, edit(base, *RATE)))  # the chosen width

    # -------------------------------------------------- code in strings
    k = "code in strings"
    base = project(flow("ns = {}\nexec('x = 1', ns)\nreturn ns['x']", "\n\ndef helper():\n    return 1\n"), pricing=PRICING)
    add(E("exec-of-code-that-imports-nothing", k, base, edit(base, *RATE)))
    add(E("exec-with-a-namespace-of-its-own-reads-no-module-name", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    base = project(flow("exec('x = 1')\nreturn 1", "\n\ndef helper():\n    return 1\n"), pricing=PRICING)
    add(C("exec-in-the-module-namespace-may-read-any-name", k, base, edit(base, "shop/flows.py", "return 1\n\n\n@flow",
                                                                             "return 2\n\n\n@flow")))
    base = project(flow("ns = {}\nexec(o, ns)\nreturn ns['x']"), pricing=PRICING)
    add(C("exec-of-a-computed-string-may-import-any-module", k, base, edit(base, *RATE)))
    base = project(flow("ns = {}\nexec(SRC, ns)\nreturn ns['d'](o)", "\nSRC = 'from shop.pricing ' + 'import discount as d'\n"),
                   pricing=PRICING)
    add(C("exec-of-a-folded-constant", k, base, edit(base, *RATE)))
    base = project(flow("ns = {'__package__': __package__}\nexec(SRC, ns)\nreturn ns['d'](o)", "from shop.src import SRC\n"), pricing=PRICING,
                   src="SRC = 'from .pricing import discount as d'\n")
    add(C("exec-of-a-relative-import-in-a-constant", k, base, edit(base, *RATE)))

    # -------------------------------------------------- literal resolvers reach the module they name, and no other
    k = "literal resolvers"
    other = ("shop/other.py", "return 1", "return 2")
    for name, body in (
        ("import-module", "import importlib\nreturn importlib.import_module('shop.pricing').discount(o)"),
        ("dunder-import", "return __import__('shop.pricing', fromlist=['x']).discount(o)"),
        ("dunder-import-by-level", "return __import__('pricing', globals(), None, ['x'], 1).discount(o)"),
        ("pkgutil-resolve-name", "import pkgutil\nreturn pkgutil.resolve_name('shop.pricing:discount')(o)"),
        ("pydoc-locate", "import pydoc\nreturn pydoc.locate('shop.pricing.discount')(o)"),
        ("runpy-run-module", "import runpy\nreturn runpy.run_module('shop.pricing')['discount'](o)"),
        ("sys-modules-literal-key", "import sys\nimport shop.pricing\nreturn sys.modules['shop.pricing'].discount(o)"),
    ):
        base = project(flow(body), pricing=PRICING, other="def helper():\n    return 1\n")
        add(C(f"{name}-reaches-the-named-module", k, base, edit(base, *RATE)))
        add(E(f"{name}-does-not-reach-another-module", k, base, edit(base, *other)))

    # -------------------------------------------------- review, session 4: rules that had one direction or none
    k = "dunder import returns the top package"
    base = project(flow("return __import__('shop.pricing').LIMIT + o"), init="LIMIT = 1\n", pricing=PRICING)
    add(C("dunder-import-without-fromlist-reads-the-top-package", k, base, edit(base, "shop/__init__.py", "= 1", "= 2")))
    base = project(flow("return __import__('shop.pricing', fromlist=['x']).discount(o)"), init="LIMIT = 1\n", pricing=PRICING)
    add(E("dunder-import-with-a-fromlist-does-not-read-the-top-package", k, base, edit(base, "shop/__init__.py", "= 1", "= 2")))
    k = "code in strings"
    base = project(flow("ns = {}\nexec('from shop.pricing import *\\nd = discount', ns)\nreturn ns['d'](o)"), pricing=PRICING)
    add(C("exec-of-a-star-import", k, base, edit(base, *RATE)))
    k = "relative names"
    base = project(flow("import importlib\nreturn importlib.import_module('.pricing', __package__).discount(o)"),
                   pricing=PRICING, other="def helper():\n    return 1\n")
    add(C("import-module-relative-to-dunder-package", k, base, edit(base, *RATE)))
    add(E("import-module-relative-to-dunder-package-does-not-reach-another-module", k, base,
          edit(base, "shop/other.py", "return 1", "return 2")))

    # -------------------------------------------------- computed __all__
    k = "star imports: computed __all__"
    util = "__all__ = [n for n in ['helper']]\n\n\ndef helper(x):\n    return x\n\n\ndef other(x):\n    return 2 * x\n"
    base = project(flow("return helper(o)", "from shop.util import *\n"), util=util)
    add(C("computed-all-over-a-generated-list", k, base, edit(base, "shop/util.py", "['helper']]", "['helper', 'other']]")))
    add(E("computed-all-unrelated-function-edited", k, base, edit(base, "shop/util.py", "return 2 * x", "return 3 * x")))
    literal = "__all__ = ['helper']\n\n\ndef helper(x):\n    return x\n\n\ndef other(x):\n    return 2 * x\n"
    base = project(flow("return helper(o)", "from shop.util import *\n"), util=literal)
    add(E("literal-all-unrelated-function-edited", k, base, edit(base, "shop/util.py", "return 2 * x", "return 3 * x")))

    # -------------------------------------------------- third-party process state: the top-level package
    k = "effects on third-party state"
    # (was ``warnings.simplefilter``: the warning filters are process-wide state any library the
    # flow calls reads when it warns, so since fp2-effects' C6 rule they count for every flow)
    base = project(flow("return str(Decimal(1) / Decimal(7))", "from decimal import Decimal\n"),
                   init="import random\n\nrandom.seed(3)\n")
    add(E("state-of-a-package-the-flow-does-not-use", k, base, edit(base, "shop/__init__.py", "seed(3)", "seed(4)")))
    base = project(flow("return str(Decimal(1) / Decimal(7))", "from decimal import Decimal\n"),
                   init="import warnings\n\nwarnings.simplefilter('error')\n")
    add(C("process-wide-state-the-flow-does-not-name", k, base, edit(base, "shop/__init__.py", "'error'", "'ignore'")))
    setup = "import decimal\n\n\ndef configure():\n    decimal.getcontext().prec = 3\n\n\nconfigure()\n"
    base = project(flow("return str(Decimal(1) / Decimal(7))", "from decimal import Decimal\nimport shop.setup\n"), setup=setup)
    add(C("state-set-by-a-first-party-function-called-at-import", k, base, edit(base, "shop/setup.py", "= 3", "= 4")))
    base = project(flow("return str(Decimal(1) / Decimal(7))", "from decimal import Decimal\nimport shop.setup\n"),
                   setup="import decimal\n\nPRECISION = decimal.getcontext().prec\n")
    add(E("state-only-read-by-an-imported-module", k, base, edit(base, "shop/setup.py", "PRECISION", "DIGITS")))
    built = "import decimal\n\n\ndef make():\n    return decimal.Context(prec=3, traps=[decimal.Overflow])\n\n\nCTX = make()\n"
    base = project(flow("return str(Decimal(1) / Decimal(7))", "from decimal import Decimal\nimport shop.setup\n"), setup=built)
    add(E("a-value-built-from-the-package-is-no-state-change", k, base, edit(base, "shop/setup.py", "prec=3", "prec=4")))
    return out


PAIRS = tuple(_pairs())


def test_the_table_is_well_formed() -> None:
    assert_well_formed(PAIRS)


@pytest.mark.parametrize("pair", PAIRS, ids=[p.name for p in PAIRS])
def test_pair(tmp_path: Path, pair: ProjectPair) -> None:
    assert_pair(tmp_path, pair)


def test_engine_configuration_is_no_third_party_state_of_the_flow(tmp_path: Path) -> None:
    """DBOS's profile exempts engine configuration (``frameworks.engine_config``): configuring
    ``DBOS`` in the workflow's module does not reach a workflow that uses another name of
    ``dbos`` (``SetWorkflowID``) through the top-level-package rule."""
    def module(name: str) -> dict[str, str]:
        return project("from dbos import DBOS, SetWorkflowID\n\nDBOS(config={'name': '" + name + "'})\n\n\n"
                       "@DBOS.workflow()\ndef checkout(o):\n    with SetWorkflowID('x'):\n        return o\n")
    pair = replace(E("dbos-configuration-edited", "engine configuration", module("one"), module("two")),
                   flow_id="shop.flows:checkout")
    assert_pair(tmp_path, pair, framework="dbos")


def test_a_cached_build_sees_a_module_added_under_a_computed_prefix(tmp_path: Path) -> None:
    """A computed module name may name a module that did not exist at the last build: the cached
    fingerprint depends on the tree's listing (``build._Source``'s ``<modules>`` entry), so adding
    ``shop/plugins/b.py`` re-fingerprints the flow, and an unrelated edit elsewhere does not."""
    from loom_compiler.bundle.build import build_project

    files = project(flow("import importlib\nreturn importlib.import_module('shop.plugins.' + o).run(1)"),
                    pricing=PRICING, plugins__init="", plugins__a=PLUGIN)
    write_files(tmp_path, files)
    config = LoomConfig(root=tmp_path, packages=("shop",))

    def code_hash() -> tuple[str, tuple[str, ...]]:
        report = build_project(config)
        assert report.ok, [str(e) for e in report.errors]
        (found,) = [f for f in report.flows if f.flow_id == "checkout"]
        return found.code_hash, report.refingerprinted

    first, _ = code_hash()
    same, again = code_hash()
    assert (same, again) == (first, ())  # served from the cache
    (tmp_path / "shop/plugins/b.py").write_text("def run(x):\n    return x - 1\n", encoding="utf-8")
    added, redone = code_hash()
    assert added != first and "shop.flows" in redone
