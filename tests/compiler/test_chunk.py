"""Chunk emission from closure members (hand-made, so these tests do not depend on the analyser)."""

from __future__ import annotations

import hashlib
import textwrap

import pytest

from loom_compiler.bundle.chunk import ChunkError, chunk_path_for, emit_chunk, flow_slug, source_digest
from loom_compiler.model import ClosureMember, FlowFingerprint
from loom_runtime.definition import FlowDefinition

H = "sha256:" + "ab" * 32


def member(qualname, kind, source="", bindings=(), *, module=None, line=1, path=None, target=None):
    module = module or qualname.rpartition(".")[0]
    if kind in ("import", "step"):
        target = target or qualname
    else:
        path = path or module.replace(".", "/") + ".py"
    return ClosureMember(qualname, kind, module, H, path, line, textwrap.dedent(source), tuple(bindings), target)


def fingerprint(*members, flow_id="checkout", function="checkout", module="shop.flows"):
    return FlowFingerprint(
        flow_id, function, module, module.replace(".", "/") + ".py", 10, 0, H,
        FlowDefinition(flow_id), H, "fnv1a:00000000", tuple(members),
    )


class Ctx:
    def execute(self, step_id, fn, *args):
        return fn(*args)


def run_chunk(text, entry="checkout", *args):
    namespace = {"__name__": "_loom_chunks.test"}
    exec(compile(text, "<chunk>", "exec"), namespace)
    fn = namespace
    obj = None
    for part in entry.split("."):
        obj = fn[part] if obj is None else getattr(obj, part)
    return obj


FLOW = member(
    "shop.flows.checkout", "flow",
    '''\
    @flow("checkout", steps=["charge"])
    def checkout(ctx, order):
        # a comment that must survive
        total = p.discount(order) + discount(1)
        return ctx.execute("charge", dumps, total)
    ''',
    [("flow", "loom_runtime.flow"), ("p.discount", "shop.pricing.discount"),
     ("discount", "shop.flows.discount"), ("dumps", "json.dumps")],
    line=10,
)
LOCAL_DISCOUNT = member("shop.flows.discount", "function", "def discount(x):\n    return x * RATE\n",
                        [("RATE", "shop.flows.RATE")], line=3)
LOCAL_RATE = member("shop.flows.RATE", "constant", "RATE = 2  # two\n")
PRICING_DISCOUNT = member(
    "shop.pricing.discount", "function",
    "def discount(total):\n    discount = 3  # a local of the same name stays\n    return floor(total * RATE) - discount\n",
    [("RATE", "shop.pricing.RATE"), ("floor", "math.floor")], line=5,
)
PRICING_RATE = member("shop.pricing.RATE", "constant", "RATE = 10\n")
IMPORTS = [member("math.floor", "import", module="shop.pricing"), member("json.dumps", "step", module="shop.flows"),
           member("loom_runtime.flow", "import", module="shop.flows")]


def test_colliding_members_of_two_modules_are_renamed_and_each_keeps_its_meaning():
    fp = fingerprint(FLOW, LOCAL_DISCOUNT, LOCAL_RATE, PRICING_DISCOUNT, PRICING_RATE, *IMPORTS)
    chunk = emit_chunk(fp)
    assert chunk.entry == "checkout"
    assert chunk.renamed == {"shop.pricing.RATE": "RATE__shop_pricing", "shop.pricing.discount": "discount__shop_pricing"}
    assert "    discount = 3  # a local of the same name stays\n" in chunk.text
    assert "return floor(total * RATE__shop_pricing) - discount\n" in chunk.text
    assert "total = p.discount(order) + discount(1)" in chunk.text  # the flow's text is untouched
    assert "p = _loom_namespace()  # module `shop.pricing`" in chunk.text
    assert "\np.discount = discount__shop_pricing\n" in chunk.text
    assert "# a comment that must survive" in chunk.text
    fn = run_chunk(chunk.text)
    # pricing.discount(5) = floor(5 * 10) - 3 = 47; flows.discount(1) = 2
    assert fn(Ctx(), 5) == "49"
    assert fn.__loom_flow__.id == "checkout"


def test_header_names_flow_hash_entry_and_sources():
    chunk = emit_chunk(fingerprint(FLOW, LOCAL_DISCOUNT, LOCAL_RATE, PRICING_DISCOUNT, PRICING_RATE, *IMPORTS))
    head = chunk.text.split("from __future__")[0]
    assert f"# flow: checkout\n# codeHash: {H}\n" in head
    assert "# entry: checkout\n" in head
    assert "#   shop/flows.py\n#   shop/pricing.py\n" in head
    assert chunk.sources == ("shop/flows.py", "shop/pricing.py")


def test_members_without_renames_are_copied_byte_for_byte():
    odd = member("shop.flows.helper", "function", "def helper( x ):   # odd spacing\n    return (x)  ;\n", line=2)
    flow = member("shop.flows.checkout", "flow", "@flow('checkout')\ndef checkout(ctx):\n    return helper(1)\n",
                  [("flow", "loom_runtime.flow"), ("helper", "shop.flows.helper")], line=5)
    chunk = emit_chunk(fingerprint(flow, odd, IMPORTS[2]))
    assert "def helper( x ):   # odd spacing\n    return (x)  ;\n" in chunk.text
    assert chunk.renamed == {}


def test_module_alias_binding_becomes_a_namespace_of_bundled_members():
    flow = member(
        "shop.flows.checkout", "flow",
        "@flow('checkout')\ndef checkout(ctx, total):\n    pricing = p\n    return pricing.discount(total) + p.RATE\n",
        [("flow", "loom_runtime.flow"), ("p", "shop.pricing")],
    )
    rate = member("shop.pricing.RATE", "constant", "RATE = 10\n")
    disc = member("shop.pricing.discount", "function", "def discount(total):\n    return total - RATE\n",
                  [("RATE", "shop.pricing.RATE")])
    chunk = emit_chunk(fingerprint(flow, disc, rate, IMPORTS[2]))
    assert "p = _loom_namespace()  # module `shop.pricing`" in chunk.text
    assert "\np.RATE = RATE\n" in chunk.text and "\np.discount = discount\n" in chunk.text
    assert run_chunk(chunk.text)(Ctx(), 15) == 15


def test_nested_package_alias_gets_nested_namespaces():
    flow = member(
        "shop.flows.checkout", "flow",
        "@flow('checkout')\ndef checkout(ctx):\n    return shop.pricing.discount(3)\n",
        [("flow", "loom_runtime.flow"), ("shop", "shop")],
    )
    disc = member("shop.pricing.discount", "function", "def discount(total):\n    return total * 2\n")
    chunk = emit_chunk(fingerprint(flow, disc, IMPORTS[2]))
    assert "shop = _loom_namespace(flows=_loom_namespace(), pricing=_loom_namespace())  # module `shop`" in chunk.text
    assert "\nshop.pricing.discount = discount\n" in chunk.text
    assert run_chunk(chunk.text)(Ctx()) == 6


def test_an_import_that_collides_with_a_bundled_member_is_imported_under_another_name():
    flow = member("shop.flows.checkout", "flow",
                  "@flow('checkout')\ndef checkout(ctx):\n    return floor(2.5) + helper()\n",
                  [("flow", "loom_runtime.flow"), ("floor", "shop.flows.floor"), ("helper", "shop.util.helper")])
    own_floor = member("shop.flows.floor", "function", "def floor(x):\n    return -1\n")
    helper = member("shop.util.helper", "function", "def helper():\n    return floor(2.5)\n", [("floor", "math.floor")])
    chunk = emit_chunk(fingerprint(flow, own_floor, helper, member("math.floor", "import", module="shop.util"), IMPORTS[2]))
    assert "from math import floor as floor__math" in chunk.text
    assert run_chunk(chunk.text)(Ctx()) == -1 + 2


def test_members_come_in_the_order_their_module_defines_them():
    # shop/models.py: KIND (line 1), Base (3), Cart (6): class bodies run at load time in that order
    kind = member("shop.models.KIND", "constant", "KIND = 'base'\n", line=1)
    base = member("shop.models.Base", "class", "class Base:\n    kind = KIND\n", [("KIND", "shop.models.KIND")], line=3)
    cart = member("shop.models.Cart", "class", "class Cart(Base):\n    pass\n", [("Base", "shop.models.Base")], line=6)
    flow = member("shop.flows.checkout", "flow", "@flow('checkout')\ndef checkout(ctx):\n    return Cart.kind\n",
                  [("flow", "loom_runtime.flow"), ("Cart", "shop.models.Cart")], line=3)
    chunk = emit_chunk(fingerprint(flow, cart, base, kind, IMPORTS[2]))
    text = chunk.text
    assert text.index("KIND = 'base'") < text.index("class Base") < text.index("class Cart") < text.index("def checkout")
    assert run_chunk(text)(Ctx()) == "base"


def test_method_flow_bundles_its_class_from_the_source_file():
    source = textwrap.dedent(
        """\
        from loom_runtime import flow

        class Shop:
            # the class comment
            fee = 1

            @flow("shop-run")
            def run(self, ctx, x):
                return self.total(x)

            def total(self, x):
                return x + self.fee

            label: Label  # a field: kept (lazy annotation)
            unused = LOOKUP["x"]  # not reached: left out with its unbound name

            def report(self):  # not reached: left out with its unbound name
                return json.dumps(self.fee)

            def __repr__(self):
                return "Shop()"
        """
    )
    run = member("shop.flows.Shop.run", "flow", module="shop.flows", source='@flow("shop-run")\ndef run(self, ctx, x):\n    return self.total(x)\n',
                 bindings=
                 [("flow", "loom_runtime.flow")], line=7)
    total = member("shop.flows.Shop.total", "method", module="shop.flows", source="def total(self, x):\n    return x + self.fee\n", line=11)
    fee = member("shop.flows.Shop.fee", "method", module="shop.flows", source="fee = 1\n", line=5)
    fp = fingerprint(run, total, fee, IMPORTS[2], flow_id="shop-run", function="Shop.run")
    chunk = emit_chunk(fp, class_source=source.split("\n\n", 1)[1])
    assert chunk.entry == "Shop.run"
    assert "    # the class comment\n" in chunk.text
    assert chunk.text.count("def total") == 1
    assert "def report" not in chunk.text and "def __repr__" in chunk.text
    assert "    label: Label" in chunk.text and "LOOKUP" not in chunk.text
    shop_run = run_chunk(chunk.text, "Shop.run")
    assert shop_run.__loom_flow__.id == "shop-run"
    assert shop_run(run_chunk(chunk.text, "Shop")(), Ctx(), 2) == 3


def test_a_global_name_nothing_binds_is_refused_before_anything_is_written():
    flow = member("shop.flows.checkout", "flow", "@flow('checkout')\ndef checkout(ctx):\n    return helper()\n",
                  [("flow", "loom_runtime.flow")], line=12)
    with pytest.raises(ChunkError, match=r"flow `checkout`: the closure uses `helper` but nothing in it defines") as info:
        emit_chunk(fingerprint(flow, IMPORTS[2]))
    assert info.value.path == "shop/flows.py" and info.value.line == 10


def test_chunk_paths_are_content_addressed_by_code_hash():
    assert flow_slug("orders/checkout v2") == "orders_checkout_v2"
    assert flow_slug("..") == "flow"
    assert chunk_path_for("orders/checkout", H) == "chunks/orders_checkout/abababababababab.py"
    assert chunk_path_for("a", H, variant="0123abcd") == "chunks/a/abababababababab-0123abcd.py"
    with pytest.raises(ValueError, match="is not a 'sha256:<hex>' value"):
        chunk_path_for("a", "fnv1a:1234")


def test_source_digest_is_the_sha256_of_the_defining_file():
    assert source_digest(b"x = 1\n") == "sha256:" + hashlib.sha256(b"x = 1\n").hexdigest()


def test_a_chain_through_a_module_alias_keeps_its_trailing_attributes():
    flow = member("shop.flows.checkout", "flow",
                  "@flow('checkout')\ndef checkout(ctx):\n    return p.discount.__name__, p.discount(2)\n",
                  [("p.discount.__name__", "shop.pricing.discount"), ("p.discount", "shop.pricing.discount")])
    disc = member("shop.pricing.discount", "function", "def discount(total):\n    return total * 2\n")
    chunk = emit_chunk(fingerprint(flow, disc), module_imports={"flow": "loom_runtime.flow", "p": "shop.pricing"})
    assert "return p.discount.__name__, p.discount(2)" in chunk.text
    assert run_chunk(chunk.text)(Ctx()) == ("discount", 4)


def test_a_re_exported_alias_is_rewritten_to_the_bundled_member():
    # shop/__init__.py: ``from shop.pricing import discount as d``; the flow calls ``shop.d``
    flow = member("shop.flows.checkout", "flow",
                  "@flow('checkout')\ndef checkout(ctx):\n    d = 1  # a local named like the alias\n    return shop.d(2) + d\n",
                  [("shop.d", "shop.pricing.discount")])
    disc = member("shop.pricing.discount", "function", "def discount(total):\n    return total * 2\n")
    chunk = emit_chunk(fingerprint(flow, disc), module_imports={"flow": "loom_runtime.flow", "shop": "shop"})
    assert "    return discount(2) + d\n" in chunk.text
    assert run_chunk(chunk.text)(Ctx()) == 5


def test_the_flow_decorator_is_imported_from_the_flow_module_imports():
    flow = member("shop.flows.checkout", "flow", "@lr.flow('checkout', step_families=[re.compile('a#')])\ndef checkout(ctx):\n    return 1\n")
    chunk = emit_chunk(fingerprint(flow), module_imports={"lr": "loom_runtime", "re": "re", "os": "os"})
    assert "import loom_runtime as lr\nimport re\n" in chunk.text
    assert "import os" not in chunk.text
    assert run_chunk(chunk.text)(Ctx()) == 1


def test_a_member_named_like_a_builtin_never_shadows_it_for_other_modules():
    flow = member("shop.flows.checkout", "flow", "@flow('checkout')\ndef checkout(ctx):\n    return round(2.6) + price(2.6)\n",
                  [("price", "shop.pricing.price")])
    price = member("shop.pricing.price", "function", "def price(x):\n    return round(x)\n", [("round", "shop.pricing.round")])
    own_round = member("shop.pricing.round", "function", "def round(x):\n    return -1\n")
    chunk = emit_chunk(fingerprint(flow, price, own_round), module_imports={"flow": "loom_runtime.flow"})
    assert "def round__shop_pricing(x):" in chunk.text
    assert run_chunk(chunk.text)(Ctx()) == 3 + -1


def test_submodules_reached_through_a_plain_import_are_loaded(tmp_path):
    import subprocess
    import sys

    flow = member("shop.flows.checkout", "flow",
                  "@flow('checkout')\ndef checkout(ctx):\n    return xml.dom.minidom.parseString('<a/>').documentElement.tagName\n",
                  [("xml.dom.minidom.parseString", "xml.dom.minidom.parseString")])
    chunk = emit_chunk(fingerprint(flow), module_imports={"flow": "loom_runtime.flow", "xml": "xml"})
    assert "import xml\n" in chunk.text and '__import__(_loom_submodule)' in chunk.text
    script = (
        "import sys\nassert 'xml.dom.minidom' not in sys.modules\n"
        f"ns = {{'__name__': '_loom_chunks.t'}}\nexec(compile({chunk.text!r}, 'c', 'exec'), ns)\n"
        "print(ns['checkout'](None))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "a"


def test_one_package_head_for_bundled_helpers_and_live_steps():
    # ``import json.helpers; import json.steps`` style: ``json`` stands for both a bundled helper
    # and a step imported live (``json`` plays the first-party package here).
    flow = member("shop.flows.checkout", "flow",
                  "@flow('checkout')\ndef checkout(ctx):\n    return json.helper(json.dumps([1]))\n",
                  [("json.helper", "json.helper"), ("json.dumps", "json.dumps")])
    helper = member("json.helper", "function", "def helper(text):\n    return text + '!'\n", module="json")
    step = member("json.dumps", "step", module="json")
    chunk = emit_chunk(fingerprint(flow, helper, step), module_imports={"flow": "loom_runtime.flow"})
    assert "from json import dumps\n" in chunk.text
    assert "json = _loom_namespace(dumps=dumps)  # module `json`" in chunk.text  # the live step: at once
    assert "\njson.helper = helper\n" in chunk.text  # the bundled helper: after its definition
    assert run_chunk(chunk.text)(Ctx()) == "[1]!"


UNBOUND_CASES = [
    "import os\nx = 1\ndef f(a):\n    return a + x + os.sep + missing_one\n",
    "class C:\n    y = undefined_in_class\n    def m(self):\n        global g\n        g = 1\n        return [z for z in w] + q\n",
    "def outer():\n    v = 1\n    def inner():\n        nonlocal v\n        return v + later + nowhere\n    return inner\nlater = 2\n",
    "from a import b as c\nlambda: c + d\nprint(__name__, e)\n",
    "try:\n    import fast as impl\nexcept ImportError:\n    impl = None\nasync def run():\n    async for i in impl:\n        await other(i)\n",
]


@pytest.mark.parametrize("text", UNBOUND_CASES)
def test_the_fast_unbound_check_agrees_with_the_symtable_wrapper(text: str) -> None:
    import symtable

    from loom_compiler.bundle import chunk

    table = symtable.symtable(text, "chunk.py", "exec")
    assert chunk._RAW_SYMTABLE is not None  # CPython: the fast path is taken
    assert chunk._raw_unbound(table) == chunk._wrapped_unbound(table)
    assert chunk._wrapped_unbound(table)  # every case has a name to report
