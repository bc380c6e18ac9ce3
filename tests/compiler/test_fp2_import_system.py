"""What Python's import system does beside the import statements (breaker4's E6/E10, issue 12):
the closure rules of ``closure`` (``<loads>``) in both directions. Each ``changed`` pair is a
behavioural edit the hash must see; each ``equal`` pair is the ordinary code the rule must not
fire on (DESIGN §6: widen where the reach cannot be decided, never blindly).

E10: ``shop.b`` is an attribute of the package ``shop`` only once some import loaded the
submodule, so a flow that reads it so (``import shop.a`` then ``shop.b.f()``) without importing it
depends on which of the modules that run import it. E6: the same attribute set over a name the
package binds itself (``def tools()`` in ``shop/__init__.py`` beside ``shop/tools.py``): ``from
shop import tools`` is the function or the module. The adversarial pairs themselves are in
``fp2_cases_adversarial._breaker4_pairs``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fp2_cases_adversarial import C, E, ProjectPair, edit, flow, project
from pair_harness import assert_pair, assert_well_formed, fingerprint

B = "def f():\n    return 1\n"
ADD_IMPORT = ("shop/a.py", "X = 1\n", "X = 1\nimport shop.b\n")


def _submodule_attribute_pairs() -> list[ProjectPair]:
    out: list[ProjectPair] = []
    add = out.append
    k = "a submodule read as its package's attribute"
    # every spelling of the read, each with another module starting to import the submodule
    for name, body, head in (
            ("through-another-submodule-import", "return shop.b.f()", "import shop.a"),
            ("through-the-package-import", "return shop.b.f()", "import shop\nimport shop.a"),
            ("kept-in-a-name", "m = shop.b\nreturn m.f()", "import shop.a"),
            ("lazy-import-of-another-submodule", "import shop.a\nreturn shop.b.f()", ""),
            ("lazy-import-of-the-package", "import shop\nimport shop.a\nreturn shop.b.f()", ""),
            ("through-an-alias-of-the-package", "return s.b.f()", "import shop.a\nimport shop as s")):
        base = project(flow(body, head), a="X = 1\n", b=B)
        add(C(f"submodule-read-{name}-another-module-starts-importing-it", k, base, edit(base, *ADD_IMPORT)))
    # a nested package: each step is an attribute read
    base = {**project(flow("return shop.sub.b.f()", "import shop.a"), a="import shop.sub\n", sub__b=B),
            "shop/sub/__init__.py": ""}
    add(C("nested-submodule-read-another-module-starts-importing-it", k, base,
          edit(base, "shop/a.py", "import shop.sub\n", "import shop.sub\nimport shop.sub.b\n")))
    # the import moved into a function nothing calls: no longer loaded
    base = project(flow("return shop.b.f()", "import shop.a"), a="import shop.b\n", b=B)
    add(C("the-other-modules-import-moved-into-a-function", k, base,
          edit(base, "shop/a.py", "import shop.b\n", "def load():\n    import shop.b\n")))
    add(C("the-submodules-own-code-edited", k, base, edit(base, "shop/b.py", "return 1", "return 2")))
    # ordinary code: the submodule is certainly loaded, whoever else imports it
    for name, body, head, files in (
            ("the-flow-module-imports-it", "return shop.b.f()", "import shop.b", {}),
            ("a-from-import-of-it", "return f()", "from shop.b import f", {}),
            ("a-from-import-of-the-submodule", "return b.f()", "from shop import b", {}),
            ("an-import-as", "return m.f()", "import shop.b as m", {}),
            ("a-lazy-import-of-it", "import shop.b\nreturn shop.b.f()", "", {}),
            ("a-lazy-from-import", "from shop.b import f\nreturn f()", "", {}),
            ("the-package-imports-it", "return shop.b.f()", "import shop", {"init": "import shop.b\n"}),
            ("the-package-from-imports-it", "return shop.b.f()", "import shop", {"init": "from . import b\n"}),
            ("the-package-imports-a-name-of-it", "return shop.b.f()", "import shop",
             {"init": "from .b import f\n"})):
        # the flow runs shop.a (so its new import runs too)
        base = project(flow(body, head + "\nimport shop.a"), a="X = 1\n", b=B, **files)
        add(E(f"submodule-certainly-loaded-{name}-another-module-starts-importing-it", k, base, edit(base, *ADD_IMPORT)))
    # a flow that reads no submodule so: another module's imports are none of its business
    base = project(flow("return shop.a.X", "import shop.a"), a="X = 1\n", b=B)
    add(E("no-submodule-read-another-module-starts-importing-one", k, base, edit(base, *ADD_IMPORT)))
    return out


def _rebound_attribute_pairs() -> list[ProjectPair]:
    out: list[ProjectPair] = []
    add = out.append
    k = "a submodule import rebinds the package's attribute"
    init = "def tools():\n    return 'fn'\n"
    for name, body, head in (
            ("from-import", "return tools()", "from shop import tools"),
            ("lazy-from-import", "from shop import tools\nreturn tools()", ""),
            ("package-attribute", "return shop.tools()", "import shop"),
            ("package-attribute-lazily", "import shop\nreturn shop.tools()", "")):
        base = {**project(flow(body, head + "\nimport shop.loader"), init=init, tools="V = 1\n", loader="X = 1\n")}
        add(C(f"package-function-named-like-a-submodule-{name}-another-module-starts-importing-it", k, base,
              edit(base, "shop/loader.py", "X = 1\n", "import shop.tools\n")))
    # once it is the module, its content is what the flow runs
    base = project(flow("return tools.V", "from shop import tools\nimport shop.loader"), init=init, tools="V = 1\n",
                   loader="import shop.tools\n")
    add(C("package-function-rebound-to-the-submodule-its-content-edited", k, base,
          edit(base, "shop/tools.py", "V = 1", "V = 2")))
    # the package's own order decides: its binding after its import of the submodule wins
    base = project(flow("return tools()", "from shop import tools"), init="import shop.tools\n\n\n" + init,
                   tools="V = 1\n")
    add(C("the-package-binds-the-name-before-importing-the-submodule", k, base,
          edit(base, "shop/__init__.py", "import shop.tools\n\n\n" + init, init + "\n\nimport shop.tools\n")))
    # ordinary code: no submodule of that name, or the package binds the name to the submodule itself
    base = project(flow("return tools()", "from shop import tools\nimport shop.loader"), init=init, other="V = 1\n",
                   loader="X = 1\n")
    add(E("package-function-with-no-submodule-of-its-name-another-module-starts-importing-one", k, base,
          edit(base, "shop/loader.py", "X = 1\n", "import shop.other\n")))
    base = project(flow("return tools.V", "from shop import tools\nimport shop.loader"), init="from . import tools\n",
                   tools="V = 1\n", loader="X = 1\n")
    add(E("package-binding-the-submodule-itself-another-module-starts-importing-it", k, base,
          edit(base, "shop/loader.py", "X = 1\n", "import shop.tools\n")))
    return out


PAIRS = tuple(_submodule_attribute_pairs() + _rebound_attribute_pairs())


def test_the_table_is_well_formed() -> None:
    assert_well_formed(PAIRS)


@pytest.mark.parametrize("pair", PAIRS, ids=[p.name for p in PAIRS])
def test_pair(tmp_path: Path, pair: ProjectPair) -> None:
    assert_pair(tmp_path, pair)


def test_the_loads_member_names_the_modules_that_import_the_submodule(tmp_path: Path) -> None:
    """``loom fingerprint --explain`` shows why: the member ``<flow module>#loads`` lists, per
    submodule read, the modules that run and import it, with their import statements."""
    files = project(flow("return shop.b.f()", "import shop.a"), a="import shop.b\n", b=B)
    pair = ProjectPair("x", "changed", "", files, files)
    fp = fingerprint(tmp_path, pair, files)
    (loads,) = [m for m in fp.closure if m.qualname == "shop.flows#loads"]
    assert "(loads shop.b)" in loads.canonical and "(module shop.a shop.b)" in loads.canonical
    assert "which modules that run import a submodule" in loads.reason
