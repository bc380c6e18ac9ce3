"""What a flow's closure contains, how names resolve, and the Merkle hashes over it."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from helpers.project_files import write_files as _write

from loom_compiler import (
    DirectorySourceTree,
    LoomConfig,
    ModuleSummary,
    analyse_module,
    fingerprint_flows,
    fingerprint_module,
    fingerprint_project,
    tree_loader,
)


def _closure(source: str) -> dict[str, tuple[str, tuple[tuple[str, str], ...]]]:
    result = fingerprint_module(source)
    assert not result.errors, result.errors
    (flow,) = result.flows
    return {m.qualname: (m.kind, m.bindings) for m in flow.closure}


def _hash_of(source: str, member: str | None = None) -> str:
    (flow,) = fingerprint_module(source).flows
    if member is None:
        return flow.code_hash
    return next(m.hash for m in flow.closure if m.qualname == member)


HEAD = "from loom_runtime import flow, step\n"


def test_members_and_kinds() -> None:
    closure = _closure(
        HEAD
        + "import math\nfrom os.path import join as j\nLIMIT = 3\n"
        + "@step\ndef charge(x): return x\n"
        + "class Box:\n    pass\n"
        + "def helper(x): return x + LIMIT\n"
        + "def unused(): return 1\n"
        + '@flow("f")\ndef f(ctx):\n    return helper(1), Box(), math.floor(2), j("a"), ctx.execute("c", charge)\n'
    )
    assert closure == {
        "m.f": ("flow", (("Box", "m.Box"), ("charge", "m.charge"), ("helper", "m.helper"), ("j", "os.path.join"), ("math.floor", "math.floor"))),
        "m.Box": ("class", ()),
        "m.charge": ("step", ()),
        "m.helper": ("function", (("LIMIT", "m.LIMIT"),)),
        "m.LIMIT": ("constant", ()),
        "math.floor": ("import", ()),
        "os.path.join": ("import", ()),
    }


@pytest.mark.parametrize(
    ("body", "absent"),
    [
        ("def f(ctx, helper):\n    return helper(1)\n", "m.helper"),  # parameter
        ("def f(ctx):\n    helper = len\n    return helper(1)\n", "m.helper"),  # assignment
        ("def f(ctx):\n    for helper in []:\n        pass\n    return helper\n", "m.helper"),  # loop target
        ("def f(ctx):\n    return [helper for helper in ctx]\n", "m.helper"),  # comprehension variable
        ("def f(ctx):\n    def helper():\n        return 1\n    return helper()\n", "m.helper"),  # nested def
        ("def f(ctx):\n    with ctx as helper:\n        return helper\n", "m.helper"),  # with target
        ("def f(ctx):\n    try:\n        pass\n    except Exception as helper:\n        return helper\n", "m.helper"),
        ("def f(ctx):\n    import helper\n    return helper\n", "m.helper"),  # local import
        ("def f(ctx):\n    return (lambda helper: helper)(1)\n", "m.helper"),  # lambda parameter
        ("def f(ctx):\n    if (helper := 1):\n        return helper\n", "m.helper"),  # walrus
        ("def f(ctx):\n    match ctx:\n        case [helper]:\n            return helper\n", "m.helper"),
    ],
)
def test_local_shadowing_is_not_the_global(body: str, absent: str) -> None:
    source = HEAD + "def helper(x): return x\n" + '@flow("f")\n' + body
    assert absent not in _closure(source)


def test_global_declaration_makes_it_the_global() -> None:
    source = HEAD + "counter = 0\n" + '@flow("f")\ndef f(ctx):\n    global counter\n    counter = 1\n    return counter\n'
    assert "m.counter" in _closure(source)


def test_class_scope_is_not_visible_to_methods_and_comprehension_iterable_is_outer() -> None:
    source = (
        HEAD
        + "value = 1\nitems = []\n"
        + '@flow("f")\ndef f(ctx):\n'
        + "    class K:\n        value = 2\n        def m(self):\n            return value\n"
        + "    return [items for items in items], K\n"
    )
    closure = _closure(source)
    assert "m.value" in closure  # the method's `value` is the global, not the class attribute
    assert "m.items" in closure  # the outermost iterable runs in the enclosing scope


def test_nested_function_free_names_reach_globals() -> None:
    source = HEAD + "def helper(): return 1\n" + '@flow("f")\ndef f(ctx):\n    def inner():\n        return helper()\n    return inner\n'
    assert "m.helper" in _closure(source)


def test_recursion_and_mutual_recursion_terminate_and_hash_as_a_component() -> None:
    source = HEAD + "def a(n): return b(n - 1) if n else 0\ndef b(n): return a(n)\n" + '@flow("f")\ndef f(ctx):\n    return a(3) + f(ctx)\n'
    closure = _closure(source)
    assert closure["m.a"] == ("function", (("b", "m.b"),))
    assert closure["m.b"] == ("function", (("a", "m.a"),))
    edited = source.replace("return a(n)", "return a(n) + 0")
    # an edit in b changes a's hash too: they are one strongly connected component
    assert _hash_of(source, "m.a") != _hash_of(edited, "m.a")
    assert _hash_of(source) != _hash_of(edited)


def test_hashes_do_not_depend_on_which_member_is_reached_first() -> None:
    one = HEAD + "def a(): return b()\ndef b(): return a()\n" + '@flow("f")\ndef f(ctx):\n    return a(), b()\n'
    two = HEAD + "def a(): return b()\ndef b(): return a()\n" + '@flow("f")\ndef f(ctx):\n    return b(), a()\n'
    assert _hash_of(one, "m.a") == _hash_of(two, "m.a")
    assert _hash_of(one, "m.b") == _hash_of(two, "m.b")


def test_merkle_member_hashes_say_which_member_changed() -> None:
    source = HEAD + "X = 1\ndef g(): return X\ndef h(): return 2\n" + '@flow("f")\ndef f(ctx):\n    return g(), h()\n'
    before = {m.qualname: m.hash for m in fingerprint_module(source).flows[0].closure}
    after = {m.qualname: m.hash for m in fingerprint_module(source.replace("X = 1", "X = 2")).flows[0].closure}
    changed = {k for k in before if before[k] != after[k]}
    assert changed == {"m.X", "m.g", "m.f"}


def test_method_flow_follows_self_and_cls_members() -> None:
    source = (
        HEAD
        + "BASE = 1\n"
        + "class Shop:\n"
        + "    rate = 2\n"
        + "    def price(self, x):\n        return x * self.rate + BASE\n"
        + "    def unused(self):\n        return 0\n"
        + "    @classmethod\n    def make(cls):\n        return cls.rate\n"
        + '    @flow("run")\n    def run(self, ctx, x):\n        return self.price(x), self.make()\n'
    )
    closure = _closure(source)
    assert closure["m.Shop.run"] == ("flow", (("self.make", "m.Shop.make"), ("self.price", "m.Shop.price")))
    assert closure["m.Shop.price"] == ("method", (("BASE", "m.BASE"), ("self.rate", "m.Shop.rate")))
    assert closure["m.Shop.make"] == ("method", (("self.rate", "m.Shop.rate"),))
    assert "m.Shop.unused" not in closure
    edited = source.replace("rate = 2", "rate = 3")
    assert _hash_of(source) != _hash_of(edited)
    assert _hash_of(source) == _hash_of(source.replace("return 0", "return 1"))


def test_step_with_name_and_body_is_hashed_by_qualified_name() -> None:
    source = HEAD + '@step(name="billing.charge")\ndef charge(x): return x\n' + '@flow("f")\ndef f(ctx):\n    return ctx.execute("c", charge)\n'
    (flow,) = fingerprint_module(source).flows
    step = next(m for m in flow.closure if m.kind == "step")
    assert (step.qualname, step.target, step.source) == ("m.charge", "m.charge", "")


SHOP = {
    "shop/__init__.py": "from .pricing import discount as discount\n",
    "shop/flows.py": (
        "from loom_runtime import flow\nimport shop.pricing as p\nimport shop\nfrom . import util\nfrom .util import *\n"
        '@flow("c")\ndef c(ctx):\n    return p.discount(1), shop.discount(2), util.fmt(3), star_helper(4), p.json.dumps(5)\n'
    ),
    "shop/pricing.py": "import json\nfrom .util import fmt\nRATE = 2\ndef discount(x): return fmt(x * RATE)\n",
    "shop/util.py": "from . import pricing\ndef fmt(x): return str(x)\ndef star_helper(x): return pricing.RATE\n",
}


def test_first_party_imports_absolute_relative_alias_reexport_star_and_cycles(tmp_path: Path) -> None:
    _write(tmp_path, SHOP)
    config = LoomConfig(root=tmp_path, packages=("shop",))
    result = fingerprint_project([tmp_path / "shop" / "flows.py"], config)
    assert not result.errors
    (flow,) = result.flows
    closure = {m.qualname: (m.kind, m.module, m.bindings) for m in flow.closure}
    assert closure["shop.flows.c"][2] == (
        ("p.discount", "shop.pricing.discount"),
        ("p.json.dumps", "json.dumps"),
        ("shop.discount", "shop.pricing.discount"),
        ("star_helper", "shop.util.star_helper"),
        ("util.fmt", "shop.util.fmt"),
    )
    assert closure["shop.pricing.discount"] == ("function", "shop.pricing", (("RATE", "shop.pricing.RATE"), ("fmt", "shop.util.fmt")))
    assert closure["shop.util.star_helper"][2] == (("pricing.RATE", "shop.pricing.RATE"),)
    assert closure["json.dumps"][:2] == ("import", "shop.flows")  # the module whose code reached it
    member = next(m for m in flow.closure if m.qualname == "shop.pricing.discount")
    assert member.path == "shop/pricing.py" and member.line == 4
    assert member.source == "def discount(x): return fmt(x * RATE)\n"
    # the files reached are analysed on demand (flows.py passed alone)
    assert set(result.summaries) == {"shop", "shop.flows", "shop.pricing", "shop.util"}


def test_summaries_are_picklable_values_and_fingerprint_flows_needs_no_parsing(tmp_path: Path) -> None:
    _write(tmp_path, SHOP)
    config = LoomConfig(root=tmp_path, packages=("shop",))
    tree = DirectorySourceTree(config=config)
    summaries = {}
    for module in tree.module_names():
        summary = analyse_module(tree.read(module), module=module, path=tree.path_of(module), config=config)
        assert isinstance(summary, ModuleSummary)
        summaries[module] = pickle.loads(pickle.dumps(summary))
        assert summaries[module] == summary
    flows, errors = fingerprint_flows(summaries, config)
    assert not errors
    expected = fingerprint_project(tree, config).flows
    assert flows == expected
    # with a loader, a partial mapping gives the same result
    partial = {"shop.flows": summaries["shop.flows"]}
    assert fingerprint_flows(partial, config, loader=tree_loader(tree, config)).flows == expected


def test_analyse_module_depends_only_on_its_inputs() -> None:
    source = (HEAD + '@flow("f")\ndef f(ctx):\n    return 1\n').encode()
    a = analyse_module(source, module="m", path="m.py")
    b = analyse_module(source, module="m", path="m.py")
    assert a == b
    assert pickle.dumps(a) == pickle.dumps(b)


def test_module_summary_records_units_imports_and_original_text() -> None:
    source = b'"""doc"""\nimport os.path as osp\nfrom . import sib\n\n# the limit\nLIMIT = 3  # three\n\nmain()\n'
    summary = analyse_module(source, module="pkg.mod", path="pkg/mod.py")
    assert isinstance(summary, ModuleSummary)
    assert summary.import_map() == {"osp": "os.path", "sib": "pkg.sib"}
    (limit,) = summary.units_binding("LIMIT")
    assert limit.kind == "constant" and limit.line == 6
    assert limit.source == "# the limit\nLIMIT = 3  # three\n"
    # loom-fp/2: an import line is a binding statement of its own kind
    assert [u.kind for u in summary.units] == ["statement", "import", "import", "constant", "statement"]
    assert summary.units[1].aliases == (("osp", "os.path"),) and summary.units[1].simple_import


def test_member_bound_twice_is_every_binding() -> None:
    source = (
        HEAD
        + "class Shop:\n"
        + "    @property\n    def rate(self):\n        return self._rate\n"
        + "    @rate.setter\n    def rate(self, value):\n        self._rate = value * 2\n"
        + '    @flow("run")\n    def run(self, ctx):\n        self.rate = 3\n        return self.rate\n'
    )
    edited = source.replace("value * 2", "value * 3")
    assert _hash_of(source) != _hash_of(edited)  # the setter is part of what self.rate means
    (flow,) = fingerprint_module(source).flows
    rate = next(m for m in flow.closure if m.qualname == "m.Shop.rate")
    assert rate.source.count("def rate") == 2


def test_relative_import_beyond_the_top_package_is_an_error() -> None:
    summary = analyse_module(b"from ... import x\n", module="pkg.mod", path="pkg/mod.py")
    (error,) = summary.errors
    assert (error.line, error.column, error.code) == (1, 1, "import")
    assert "beyond the top-level package" in error.message


def test_method_flow_includes_the_constructor_of_its_instance() -> None:
    source = (
        HEAD
        + "class Shop:\n"
        + "    def __init__(self, limit=3):\n        self.limit = limit\n"
        + '    @flow("run")\n    def run(self, ctx):\n        return self.limit\n'
    )
    closure = _closure(source)
    assert closure["m.Shop.run"][1] == (("self.__init__", "m.Shop.__init__"),)
    assert _hash_of(source) != _hash_of(source.replace("limit=3", "limit=4"))


def test_a_rebinding_of_an_imported_name_still_reaches_the_import(tmp_path: Path) -> None:
    files = {
        "shop/__init__.py": "",
        "shop/pricing.py": "def discount(x):\n    return x * 0.9\n",
        "shop/flows.py": (
            "import functools\nfrom loom_runtime import flow\nfrom shop.pricing import discount\n"
            "discount = functools.lru_cache(discount)\n"
            '@flow("c")\ndef c(ctx):\n    return discount(1)\n'
        ),
    }
    hashes = []
    for name, rate in (("a", "0.9"), ("b", "0.8")):
        root = tmp_path / name
        _write(root, {**files, "shop/pricing.py": files["shop/pricing.py"].replace("0.9", rate)})
        (flow,) = fingerprint_project([root], LoomConfig(root=root, packages=("shop",))).flows
        assert dict(next(m for m in flow.closure if m.qualname == "shop.flows.discount").bindings) == {
            "discount": "shop.pricing.discount",
            "=shop.pricing.discount": "shop.pricing.discount",  # what its import binds (for the chunk)
            "functools.lru_cache": "functools.lru_cache",
        }
        hashes.append(flow.code_hash)
    assert hashes[0] != hashes[1]


def test_every_alternative_of_a_guarded_import_is_reached(tmp_path: Path) -> None:
    files = {
        "shop/__init__.py": "",
        "shop/fast.py": "def discount(x):\n    return x * 0.9\n",
        "shop/slow.py": "def discount(x):\n    return x - x / 10\n",
        "shop/flows.py": (
            "from loom_runtime import flow\n"
            "try:\n    from shop.fast import discount\nexcept ImportError:\n    from shop.slow import discount\n"
            '@flow("c")\ndef c(ctx):\n    return discount(1)\n'
        ),
    }

    def code_hash(name: str, edits: dict[str, str]) -> tuple[str, dict[str, str]]:
        root = tmp_path / name
        _write(root, {**files, **edits})
        (flow,) = fingerprint_project([root], LoomConfig(root=root, packages=("shop",))).flows
        return flow.code_hash, {m.qualname for m in flow.closure}

    base, members = code_hash("base", {})
    assert {"shop.flows.discount", "shop.fast.discount", "shop.slow.discount"} <= members
    assert code_hash("fast", {"shop/fast.py": "def discount(x):\n    return x * 0.8\n"})[0] != base
    assert code_hash("slow", {"shop/slow.py": "def discount(x):\n    return x - x / 5\n"})[0] != base
