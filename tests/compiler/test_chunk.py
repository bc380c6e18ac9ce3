"""Chunk emission: one readable file, each bundled module in its own namespace (``loom-chunk/2``).

Most tests build a small real project (``loom build`` on a temporary directory) and load its chunk
in this process through the registry, the way a pinned execution is served; what the chunk does
in a fresh interpreter next to the live modules is ``test_chunk_exactness``'s."""

from __future__ import annotations

import hashlib
import re
import sys
import textwrap
from pathlib import Path

import pytest

from loom_compiler import LoomConfig
from loom_compiler.bundle.build import build_project
from loom_compiler.bundle.chunk import (
    ChunkError,
    chunk_path_for,
    emit_chunk,
    flow_slug,
    source_digest,
)
from loom_compiler.bundle.chunk_imports import ImportSite, rewrite_imports
from loom_compiler.bundle.chunk_memo import ChunkMemo
from loom_compiler.model import ClosureMember, FlowFingerprint
from loom_runtime import Registry, chunk_layout
from loom_runtime import chunks
from loom_runtime.chunks import load_chunk
from loom_runtime.definition import FlowDefinition
from loom_runtime.hashing import sha256_digest
from loom_runtime.manifest import SourceRef, VersionEntry

HEAD = "from loom_runtime import flow, step\n"


class Ctx:
    def execute(self, step_id, fn, *args):
        return fn(*args)


@pytest.fixture(autouse=True)
def forget_chunks():
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name.startswith("_loom_chunks."):
            del sys.modules[name]


def build(root: Path, files: dict[str, str], packages: tuple[str, ...] = ("shop",)):
    for rel, text in {"shop/__init__.py": "", **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text), encoding="utf-8")
    report = build_project(LoomConfig(root=root, packages=packages))
    assert report.ok, [str(e) for e in report.errors]
    return report


def chunk_of(root: Path, report, flow_id: str = "checkout") -> tuple[str, object]:
    """The chunk's text and its flow function, loaded through the registry."""
    entry = report.manifest.flows[flow_id]
    text = (root / "build/loom" / entry.versions[entry.current].chunk).read_text(encoding="utf-8")
    registry = Registry.from_manifest(str(root / "build/loom/manifest.json"))
    return text, registry.current(flow_id).definition.fn


def test_the_header_names_flow_hash_entry_sources_and_the_layout_of_the_modules(tmp_path):
    report = build(tmp_path, {
        "shop/flows.py": HEAD + "from shop.pricing import discount\n\n\n@flow('checkout')\ndef checkout(ctx, o):\n"
                         "    return discount(o)\n",
        "shop/pricing.py": "RATE = 2\n\n\ndef discount(x):\n    return x * RATE\n",
    })
    text, fn = chunk_of(tmp_path, report)
    code_hash = report.manifest.flows["checkout"].current
    head = text.split("\n\n")[0]
    assert f"# flow: checkout\n# codeHash: {code_hash}\n# scheme: loom-fp/2\n# entry: shop.flows.checkout\n" in head
    assert "# sources:\n#   shop/flows.py\n#   shop/pricing.py\n" in head
    layout = chunk_layout.parse(text)
    assert [(m.name, m.package, m.path) for m in layout.modules] == [
        ("shop", True, "shop/__init__.py"), ("shop.flows", False, "shop/flows.py"), ("shop.pricing", False, "shop/pricing.py")]
    lines = text.split("\n")
    ran = [(r.module, "\n".join(lines[r.first - 1 : r.last])) for r in layout.runs]
    assert [m for m, _ in ran] == ["shop.flows", "shop.pricing", "shop.flows"]  # flows imports pricing at line 2
    assert "def discount(x):\n    return x * RATE" in ran[1][1]
    assert "from .pricing import discount" in ran[2][1] and "def checkout" in ran[2][1]
    assert fn(Ctx(), 5) == 10
    assert fn.__module__ == "shop.flows" and fn.__qualname__ == "checkout"


def test_statements_are_copied_byte_for_byte_with_their_comments(tmp_path):
    helper = "# the helper's own comment\ndef helper( x ):   # odd spacing\n    return (x)  ;\n"
    report = build(tmp_path, {
        "shop/flows.py": HEAD + "\n\n" + helper + "\n\n@flow('checkout')\ndef checkout(ctx, o):\n"
                         "    # a comment that must survive\n    return helper(o)\n",
    })
    text, fn = chunk_of(tmp_path, report)
    assert helper in text
    assert "    # a comment that must survive\n" in text
    assert fn(Ctx(), 3) == 3


def test_clashing_names_of_two_modules_are_two_names_and_nothing_is_renamed(tmp_path):
    report = build(tmp_path, {
        "shop/flows.py": HEAD + "from shop import pricing\n\nRATE = 2\n\n\ndef discount(x):\n    return x * RATE\n\n\n"
                         "@flow('checkout')\ndef checkout(ctx, o):\n    return discount(o), pricing.discount(o), round(2.6)\n",
        "shop/pricing.py": "from math import floor\n\nRATE = 10\n\n\ndef round(x):\n    return -1\n\n\n"
                           "def discount(total):\n    discount = 3  # a local of the same name stays\n"
                           "    return floor(total * RATE) - discount + round(total)\n",
    })
    text, fn = chunk_of(tmp_path, report)
    assert "__shop" not in text  # no ``RATE__shop_pricing``: every module keeps its own names
    assert fn(Ctx(), 5) == (10, 46, 3)  # pricing's ``round`` is pricing's; flows' is the builtin


def test_first_party_imports_become_relative_imports_of_the_chunks_modules(tmp_path):
    report = build(tmp_path, {
        "shop/flows.py": HEAD + "import shop.b\nimport shop.b as bb\nfrom shop.b import Color as C2\nfrom shop.sub.c import *\n\n\n"
                         "@flow('checkout')\ndef checkout(ctx, o):\n    from shop.b import make\n"
                         "    return shop.b.Color.RED, bb.Color.RED, C2.RED, make(), STAR\n",
        "shop/b.py": "class Color:\n    RED = 1\n\n\ndef make():\n    return 5\n",
        "shop/sub/__init__.py": "",
        "shop/sub/c.py": "from ..b import Color\n\nSTAR = 'star'\n",
    })
    text, fn = chunk_of(tmp_path, report)
    assert "from .. import shop\n" in text  # ``import shop.b`` binds ``shop``
    assert "from . import b as bb\n" in text
    assert "from .b import Color as C2\n" in text
    assert "from .sub.c import *\n" in text
    assert "    from .b import make\n" in text  # a lazy import too
    assert fn(Ctx(), 0) == (1, 1, 1, 5, "star")
    assert not [m for m in sys.modules if m == "shop" or m.startswith("shop.")]  # never the live package


def test_an_import_name_nothing_reaches_is_left_out_where_its_module_binds_it(tmp_path):
    report = build(tmp_path, {
        "shop/flows.py": HEAD + "import json, os\nfrom shop.pricing import discount, unused\n"
                         "try:\n    from shop.fast import speedy\nexcept ImportError:\n    def speedy(x):\n        return -x\n\n\n"
                         "@flow('checkout')\ndef checkout(ctx, o):\n    return discount(o), speedy(o), json.dumps(o)\n",
        "shop/pricing.py": "def discount(x):\n    return x\n\n\ndef unused():\n    return 0\n",
    })
    text, fn = chunk_of(tmp_path, report)
    assert "from .pricing import discount\n" in text and "unused" not in text
    assert "import json\n" in text and "import os" not in text  # a third-party name nothing uses
    assert "    from .fast import speedy\n" in text  # no ``shop.fast``: it fails, as live
    assert fn(Ctx(), 3) == (3, -3, "3")


def test_a_step_of_a_bundled_module_stays_an_import_of_live_code(tmp_path):
    report = build(tmp_path, {
        "shop/flows.py": HEAD + "from shop import ops\n\n\n@step\ndef local_step(x):\n    return x + 1\n\n\n"
                         "@flow('checkout', steps=['a', 'b'])\ndef checkout(ctx, o):\n"
                         "    return ctx.execute('a', local_step, o), ctx.execute('b', ops.charge, o), ops.fee(o)\n",
        "shop/ops.py": HEAD + "\n\n@step\ndef charge(x):\n    return x * 2\n\n\ndef fee(x):\n    return 1\n",
    })
    sys.path.insert(0, str(tmp_path))  # the steps are imported from the live package
    try:
        text, fn = chunk_of(tmp_path, report)
        assert "from shop.flows import local_step  # a step: live code, its body is an effect\n" in text
        assert "from shop.ops import charge  # a step: live code, its body is an effect\n" in text
        assert "def charge" not in text and "def local_step" not in text
        assert fn(Ctx(), 3) == (4, 6, 1)
        assert fn.__globals__["ops"] is not sys.modules["shop.ops"]  # the chunk's ``ops``: ``fee`` is bundled
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == "shop" or m.startswith("shop.")]:
            del sys.modules[name]


def test_a_method_flow_bundles_its_class_with_what_the_flow_reaches(tmp_path):
    report = build(tmp_path, {
        "shop/flows.py": """\
            from __future__ import annotations

            import json

            from loom_runtime import flow


            class Shop:
                # the class comment
                fee = 1

                @flow("checkout")
                def run(self, ctx, x):
                    return self.total(x)

                def total(self, x):
                    return x + self.fee

                label: Label  # a field: kept (annotations are lazy in this module)
                unused = LOOKUP["x"]  # not reached: left out with its unbound name

                def report(self):  # not reached: left out
                    return json.dumps(self.fee)

                def __repr__(self):
                    return "Shop()"
            """,
    })
    text, fn = chunk_of(tmp_path, report)
    assert report.manifest.flows["checkout"].versions[report.manifest.flows["checkout"].current].entry == "shop.flows.Shop.run"
    assert "    # the class comment\n" in text and "def __repr__" in text and "    label: Label" in text
    assert "def report" not in text and "LOOKUP" not in text and "import json" not in text
    shop = fn.__globals__["Shop"]
    assert fn(shop(), Ctx(), 2) == 3 and repr(shop()) == "Shop()"


def test_each_module_keeps_its_own_future_features(tmp_path):
    # B10: only a module that says ``from __future__ import annotations`` has string annotations
    report = build(tmp_path, {
        "shop/flows.py": HEAD + "from shop.lazy import f\nfrom shop.eager import g\n\n\n@flow('checkout')\n"
                         "def checkout(ctx, o):\n    return f.__annotations__['x'], g.__annotations__['x']\n",
        "shop/lazy.py": "from __future__ import annotations\n\n\ndef f(x: int):\n    return x\n",
        "shop/eager.py": "def g(x: int):\n    return x\n",
    })
    text, fn = chunk_of(tmp_path, report)
    layout = chunk_layout.parse(text)
    assert {m.name: m.future for m in layout.modules}["shop.lazy"] == ("annotations",)
    assert fn(Ctx(), 0) == ("int", int)


def test_a_bundled_module_is_named_as_the_original_and_found_by_its_name(tmp_path):
    report = build(tmp_path, {
        "shop/flows.py": HEAD + "import sys\nfrom shop.errors import PayError\n\nLIMIT = 1\n\n\n@flow('checkout')\n"
                         "def checkout(ctx, o):\n    return __name__, PayError.__module__, repr(PayError), "
                         "getattr(sys.modules[__name__], 'LIMIT'), globals()['LIMIT']\n",
        "shop/errors.py": "class PayError(Exception):\n    pass\n",
    })
    _, fn = chunk_of(tmp_path, report)
    name, module_name, shown, *rest = fn(Ctx(), 0)
    assert (name, module_name, rest) == ("shop.flows", "shop.errors", [1, 1])
    # repr() of a class names the chunk's private module (loom_runtime.chunk_names: pickle reads that text)
    assert re.fullmatch(r"<class '_loom_chunks\.checkout_[0-9a-f]{16}\.shop\.errors\.PayError'>", shown)
    assert "shop.flows" not in sys.modules and "shop.errors" not in sys.modules
    module = sys.modules[fn.__module__]  # the chunk's own, as ``typing`` and ``inspect`` find it
    assert module.__dict__ is fn.__globals__ and module.__name__ == "shop.flows"


def test_a_global_name_nothing_binds_is_refused_before_anything_is_written(tmp_path):
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop/__init__.py").write_text("")
    (tmp_path / "shop/flows.py").write_text(HEAD + "\n\n@flow('checkout')\ndef checkout(ctx, o):\n    return helper()\n")
    report = build_project(LoomConfig(root=tmp_path, packages=("shop",)))
    assert not report.ok
    (error,) = report.errors
    assert error.path == "shop/flows.py" and error.line == 5  # the def
    assert "flow `checkout`: the closure uses `helper` but nothing in it defines or imports it (in shop/flows.py)" in error.message
    assert not (tmp_path / "build/loom/manifest.json").exists()


def test_rebuilding_gives_the_same_bytes(tmp_path):
    files = {"shop/flows.py": HEAD + "from shop.a import f\n\n\n@flow('checkout')\ndef checkout(ctx, o):\n    return f(o)\n",
             "shop/a.py": "from shop import b\n\n\ndef f(x):\n    return b.g(x)\n",
             "shop/b.py": "from shop import a\n\n\ndef g(x):\n    return x\n"}
    first = build(tmp_path / "one", files)
    second = build(tmp_path / "two", files)
    assert chunk_of(tmp_path / "one", first)[0] == chunk_of(tmp_path / "two", second)[0]


# -- a closure given without module summaries ------------------------------------------------------

H = "sha256:" + "ab" * 32


def member(qualname, kind, source="", bindings=(), *, module=None, line=1, target=None):
    module = module or qualname.rpartition(".")[0]
    path = None if kind in ("import", "step") else module.replace(".", "/") + ".py"
    if kind in ("import", "step"):
        target = target or qualname
    return ClosureMember(qualname, kind, module, H, path, line, textwrap.dedent(source), tuple(bindings), target)


def test_a_closure_without_summaries_gets_its_imports_from_the_bindings(tmp_path):
    flow = member("shop.flows.checkout", "flow",
                  "@lr.flow('checkout')\ndef checkout(ctx, o):\n    return p.discount(o) + floor(2.5) + helper(o)\n",
                  [("p.discount", "shop.pricing.discount"), ("floor", "math.floor"), ("helper", "shop.util.helper")], line=5)
    disc = member("shop.pricing.discount", "function", "def discount(x):\n    return x * 2\n")
    helper = member("shop.util.helper", "function", "def helper(x):\n    return -x\n")
    fp = FlowFingerprint("checkout", "checkout", "shop.flows", "shop/flows.py", 5, 0, H, FlowDefinition("checkout"),
                         H, "fnv1a:00000000", (flow, disc, helper, member("math.floor", "import", module="shop.flows")))
    chunk = emit_chunk(fp, module_imports={"lr": "loom_runtime"})
    assert "import loom_runtime as lr\n" in chunk.text and "from math import floor\n" in chunk.text
    assert "from . import pricing as p\n" in chunk.text and "from .util import helper\n" in chunk.text
    path = tmp_path / "chunks/c.py"
    path.parent.mkdir()
    path.write_text(chunk.text)
    ve = VersionEntry(H, H, "fnv1a:00000000", 1, (), (), (), "chunks/c.py", sha256_digest(chunk.data), chunk.entry,
                      SourceRef("shop/flows.py", 5, H))
    fn = load_chunk(tmp_path, ve, flow_id="checkout", manifest_path="m.json").fn
    assert fn(Ctx(), 3) == 6 + 2 - 3


# -- the import rewrite ----------------------------------------------------------------------------

REWRITES = [
    ("shop.flows", False, "from shop.b import Color as C2\n", "from .b import Color as C2\n"),
    ("shop.flows", False, "import shop.b as bb\n", "from . import b as bb\n"),
    ("shop.flows", False, "import shop.b\n", "from .. import shop\n"),
    ("shop.flows", False, "import shop\n", "from .. import shop\n"),
    ("shop", True, "import shop.b as bb\n", "from . import b as bb\n"),
    ("shop.sub.x", False, "from shop.b import y\n", "from ..b import y\n"),
    ("shop.sub.x", False, "from shop.sub import z\n", "from . import z\n"),
    ("flows", False, "from shop.b import y\n", "from .shop.b import y\n"),
    ("shop.flows", False, "import os, shop.b as bb, json\n", "import os; from . import b as bb; import json\n"),
    ("shop.flows", False, "from shop.a import *\n", "from .a import *\n"),
    ("shop.flows", False, "from .a import x  # relative already\n", "from .a import x  # relative already\n"),
    ("shop.flows", False, "from math import *\n", "from math import *\n"),
    ("shop.flows", False, "def f():\n    from shop.b import y  # lazy\n    return y\n",
     "def f():\n    from .b import y  # lazy\n    return y\n"),
    ("shop.flows", False, "from shop.b import (\n    keep,  # this one\n    drop,\n)\n", "from .b import (\n    keep,  # this one\n    )\n"),
]


@pytest.mark.parametrize("module, package, before, after", REWRITES)
def test_first_party_imports_are_rewritten_to_where_the_chunk_holds_them(module, package, before, after):
    first_party = lambda dotted: dotted.split(".")[0] == "shop"
    keep = lambda site: site.local != "drop"
    assert rewrite_imports(before, module, package, first_party, keep, where="t.py:1") == after


# statements whose first-party ``from`` imports keep every name: written without libcst
# (``chunk_imports._spliced``), which must print what libcst's rewrite prints, byte for byte
SPLICED = [
    "from shop.b import y\n",
    "from shop.b import y as z, w  # why\n",
    "from  shop.b\timport y\n",
    "from shop.sub.deep import (\n    a,\n    b,  # the b\n)\n",
    "from shop.sub.deep import (a, b,)\n",
    "from shop import b\n",
    "from shop.a import *\n",
    "from shop.b import y\r\n",
    "from shop.b import y",
    "def f():\n    from shop.b import y  # lazy\n    return y\n",
    "try:\n    from shop.fast import f\nexcept ImportError:\n    from shop.slow import f\n",
    "import os\nfrom shop.b import y\nfrom math import pi\nfrom .rel import q\n",
    "# a comment naming from shop.b import y\nfrom shop.b import y\n",
    "class C:\n    from shop.b import y\n",
    "s = 'caf\u00e9'\nfrom shop.b import y\n",  # columns are bytes: only its own lines must be ASCII
    # CPython's lines break at \n, \r\n, \r only (str.splitlines also at a form feed: breaker4's E5)
    "note = 1  #\x0c    from shop.a import q\nfrom shop.b import y\n",
    "x = 1\r\nfrom shop.b import y\rfrom shop.c import z\n",
]
# the same rewrites that libcst must do (the head is not plain, or another statement shares the line)
NOT_SPLICED = [
    "from shop . b import y\n",
    "from shop.b import y; x = 1\n",
    "x = 1; from shop.b import y\n",
    "x = 1; \\\nfrom shop.b import y\n",
    "if X: from shop.b import y\n",
    "from shop.b import y \\\n\n",
    "from \\\n shop.b import y\n",
    "from shop.b import y  # caf\u00e9\n",
    "import shop.b as bb\nfrom shop.c import y\n",
    "from shop.b import y, drop\n",
    "\x0cfrom shop.b import y\n",
]


@pytest.mark.parametrize("module, package", [("shop.flows", False), ("shop.sub.x", False), ("shop", True), ("app.main", False)])
@pytest.mark.parametrize("before", SPLICED + NOT_SPLICED)
def test_a_rewrite_without_libcst_prints_what_libcsts_prints(module, package, before, monkeypatch):
    from loom_compiler.bundle import chunk_imports

    first_party = lambda dotted: dotted.split(".")[0] == "shop"
    keep = lambda site: site.local != "drop"
    expected = chunk_imports._rewrite(before, module, package, first_party, keep, where="t.py:1")
    parses: list[str] = []
    real = chunk_imports.cst.parse_module
    monkeypatch.setattr(chunk_imports.cst, "parse_module", lambda text, *a, **k: parses.append(text) or real(text, *a, **k))
    assert rewrite_imports(before, module, package, first_party, keep, where="t.py:1") == expected
    assert bool(parses) == (before in NOT_SPLICED and expected != before)


def test_flows_of_one_package_share_the_rewrite_of_the_same_import(monkeypatch):
    from loom_compiler.bundle import chunk_imports

    memo = ChunkMemo()
    parses: list[str] = []
    real = chunk_imports.cst.parse_module
    monkeypatch.setattr(chunk_imports.cst, "parse_module", lambda text, *a, **k: parses.append(text) or real(text, *a, **k))
    first_party = lambda dotted: dotted.split(".")[0] == "shop"
    text = "import shop.steps as steps\n"
    outs = {rewrite_imports(text, f"shop.flows.f{i}", False, first_party, lambda site: True, where="t", memo=memo)
            for i in range(3)}
    assert outs == {"from .. import steps as steps\n"} and len(parses) == 1
    # another package: another rewrite
    assert rewrite_imports(text, "shop.x", False, first_party, lambda site: True, where="t", memo=memo) == (
        "from . import steps as steps\n")


def test_a_line_of_imports_left_with_no_name_is_dropped_and_a_block_keeps_a_pass():
    fp = lambda dotted: dotted.startswith("shop")
    none = lambda site: False
    assert rewrite_imports("from shop.b import y\n", "shop.f", False, fp, none, where="t") is None
    assert rewrite_imports("if X:\n    from shop.b import y\n", "shop.f", False, fp, none, where="t") == "if X:\n    pass\n"
    sites: list[ImportSite] = []
    rewrite_imports("import os\nif X:\n    from shop.b import y as z\n", "shop.f", False, fp,
                    lambda site: sites.append(site) or True, where="t")
    assert sites == [ImportSite("os", "os", None, False, True), ImportSite("z", "shop.b", "y", True, False)]


def test_chunk_paths_are_content_addressed_by_code_hash():
    assert flow_slug("orders/checkout v2") == "orders_checkout_v2"
    assert flow_slug("..") == "flow"
    assert chunk_path_for("orders/checkout", H) == "chunks/orders_checkout/abababababababab.py"
    assert chunk_path_for("a", H, variant="0123abcd") == "chunks/a/abababababababab-0123abcd.py"
    with pytest.raises(ValueError, match="is not a 'sha256:<hex>' value"):
        chunk_path_for("a", "fnv1a:1234")


def test_source_digest_is_the_sha256_of_the_defining_file():
    assert source_digest(b"x = 1\n") == "sha256:" + hashlib.sha256(b"x = 1\n").hexdigest()


def test_an_empty_closure_is_refused():
    fp = FlowFingerprint("checkout", "checkout", "shop.flows", "shop/flows.py", 5, 0, H, FlowDefinition("checkout"),
                         H, "fnv1a:00000000", ())
    with pytest.raises(ChunkError, match="has an empty closure"):
        emit_chunk(fp)


UNBOUND_CASES = [
    "import os\nx = 1\ndef f(a):\n    return a + x + os.sep + missing_one\n",
    "class C:\n    y = undefined_in_class\n    def m(self):\n        global g\n        g = 1\n        return [z for z in w] + q\n",
    "def outer():\n    v = 1\n    def inner():\n        nonlocal v\n        return v + later + nowhere\n    return inner\nlater = 2\n",
    "from a import b as c\nlambda: c + d\nprint(__name__, e)\n",
    "def init():\n    global X\n    X = 1\ndef get():\n    return X + Y\n",
]


@pytest.mark.parametrize("text", UNBOUND_CASES)
def test_the_fast_symbol_scan_agrees_with_the_symtable_wrapper(text: str) -> None:
    import symtable

    from loom_compiler.bundle import chunk_globals

    table = symtable.symtable(text, "chunk.py", "exec")
    assert chunk_globals._RAW is not None  # CPython: the fast path is taken
    fast, slow = chunk_globals._raw(table), chunk_globals._wrapped(table)
    assert fast == slow
    assert fast.used - fast.bound - {"print", "__name__"}  # every case has a name to report


def test_the_chunks_of_a_build_share_what_they_ask_of_a_statement_and_stay_the_same(tmp_path, monkeypatch):
    """A build asks each distinct statement once (``ChunkMemo``), and what it writes is what a
    build that asks every time writes."""
    from loom_compiler.bundle import chunk_memo

    lib = ("from __future__ import annotations\n\nfrom shop.util import Money, unit\n\n\n"
           "def price(x: Money) -> Money:\n    from shop.util import unit as u\n    return unit(x) + u(x)\n")
    flows = {f"shop/f{i}.py": HEAD + f"from shop.lib import price\n\n\n@flow('f{i}')\ndef f{i}(ctx, o):\n    return price(o) + {i}\n"
             for i in range(3)}
    files = {**flows, "shop/lib.py": lib, "shop/util.py": "class Money(int):\n    pass\n\n\ndef unit(x):\n    return x\n"}
    asked: list[tuple[str, bool]] = []
    real_get = chunk_memo.ChunkMemo.get

    def counting_get(self, kind, key, compute):
        hit = key in self.table(kind)
        asked.append((kind, hit))
        return real_get(self, kind, key, compute)

    monkeypatch.setattr(chunk_memo.ChunkMemo, "get", counting_get)
    report = build(tmp_path / "memo", files)
    texts = {fid: chunk_of(tmp_path / "memo", report, fid)[0] for fid in ("f0", "f1", "f2")}
    assert ("globals", True) in asked and ("import-nodes", True) in asked  # f1, f2 reuse f0's answers
    assert all("from .util import Money, unit\n" in t and "    from .util import unit as u\n" in t for t in texts.values())
    monkeypatch.setattr(chunk_memo.ChunkMemo, "get", lambda self, kind, key, compute: compute())
    monkeypatch.setattr(chunk_memo.ChunkMemo, "table", lambda self, kind: {})
    fresh = build(tmp_path / "fresh", files)
    assert {fid: chunk_of(tmp_path / "fresh", fresh, fid)[0] for fid in ("f0", "f1", "f2")} == texts
    for fid in ("f0", "f1", "f2"):
        assert chunk_of(tmp_path / "memo", report, fid)[1](Ctx(), 2) == 4 + int(fid[1])


FAKE_TEMPORAL = {  # the decorators the temporal profile knows, as a stand-in package the test can import
    "temporalio/__init__.py": "",
    "temporalio/workflow.py": "def defn(cls=None, **kw):\n    return cls if cls is not None else (lambda c: c)\n\n\n"
                              "def run(fn):\n    return fn\n\n\ndef execute_child_workflow(fn, arg):\n"
                              "    return ('child', fn.__qualname__, fn.__module__, arg)\n",
}


def test_a_child_workflow_referenced_by_name_is_imported_live_from_where_it_is_defined(tmp_path, monkeypatch):
    """Temporal's ``execute_child_workflow(Child.run, ...)`` references the child by name only (its
    closure member is ``...Child.run#child``): the chunk imports it live, from its own module too,
    never from itself (``from .workflows import Child`` inside ``workflows`` raised ImportError)."""
    wf = ("from temporalio import workflow\n\nfrom shop.children import Remote\n\n\n"
          "@workflow.defn\nclass Child:\n    @workflow.run\n    def run(self, x):\n        return x\n\n\n"
          "@workflow.defn\nclass Parent:\n    @workflow.run\n    def run(self, x):\n"
          "        return workflow.execute_child_workflow(Child.run, x), workflow.execute_child_workflow(Remote.run, x)\n")
    children = "from temporalio import workflow\n\n\n@workflow.defn\nclass Remote:\n    @workflow.run\n    def run(self, x):\n        return -x\n"
    for rel, text in {"shop/__init__.py": "", "shop/workflows.py": wf, "shop/children.py": children, **FAKE_TEMPORAL}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    for name in [m for m in sys.modules if m.split(".")[0] == "temporalio"]:
        monkeypatch.delitem(sys.modules, name)  # the real one, if a test before imported it
    report = build_project(LoomConfig(root=tmp_path, packages=("shop",), framework="temporal"))
    assert report.ok, [str(e) for e in report.errors]
    entry = report.manifest.flows["Parent"].versions[report.manifest.flows["Parent"].current]
    text = (tmp_path / "build/loom" / entry.chunk).read_text()
    assert "from shop.workflows import Child  # live code: a child flow referenced by name" in text
    assert "from shop.children import Remote  # live code: a child flow referenced by name" in text
    assert "class Child" not in text and "class Remote" not in text
    monkeypatch.syspath_prepend(str(tmp_path))  # the serving process has the live code (its steps, its children)
    try:
        path, data = chunks.read_verified_chunk(tmp_path / "build/loom", entry, flow_id="Parent", manifest_path="m.json")
        module = chunks._execute(path, data, entry, flow_id="Parent")
        assert entry.entry == "shop.workflows.Parent.run"
        run = chunks._entry_attr(module, entry.entry, path=path, flow_id="Parent", code_hash=entry.code_hash)
        assert run(run.__globals__["Parent"](), 3) == (("child", "Child.run", "shop.workflows", 3), ("child", "Remote.run", "shop.children", 3))
    finally:
        for name in [m for m in sys.modules if m.split(".")[0] in ("shop", "temporalio")]:
            sys.modules.pop(name)  # the stand-ins (monkeypatch puts a real temporalio back)


def test_a_name_the_package_lacked_stays_missing_when_the_live_tree_gains_the_module(tmp_path, monkeypatch):
    """``try: from shop import fast / except ImportError``: at build time ``shop`` has no ``fast``.
    Left as an import, the chunk's package (named ``shop``) made the import system load the live
    ``shop.fast``, added to the tree since, and the pinned execution ran it."""
    report = build(tmp_path, {
        "shop/flows.py": HEAD + "try:\n    from shop import fast\nexcept ImportError:\n    fast = None\n\n\n"
                         "@flow('checkout')\ndef checkout(ctx, o):\n    return 'fallback' if fast is None else fast.speed(o)\n",
    })
    (tmp_path / "shop/fast.py").write_text("def speed(x):\n    return 'LIVE'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    text, fn = chunk_of(tmp_path, report)
    assert "    raise ImportError(\"cannot import name 'fast' from 'shop'\", name='shop')\n" in text
    assert fn(Ctx(), 1) == "fallback"
    assert not [m for m in sys.modules if m == "shop" or m.startswith("shop.")]


def test_a_flow_decorator_the_project_defines_is_imported_live_like_a_step(tmp_path, monkeypatch):
    """The flow decorator is outside the fingerprint (the engine, DESIGN §6); when the project's own
    code defines it (dbos-transact-py's tests, ``dbos`` first-party), the chunk had nothing to bind
    it to (NameError at load): it is imported live, from where it is defined."""
    for rel, text in {"shop/__init__.py": "",
                      "shop/engine.py": "class Engine:\n    @staticmethod\n    def workflow():\n        return lambda f: f\n",
                      "shop/flows.py": "from shop.engine import Engine\n\n\n@Engine.workflow()\ndef checkout(x):\n    return x + 1\n"}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    report = build_project(LoomConfig(root=tmp_path, packages=("shop",), decorators=("shop.engine.Engine.workflow",)))
    assert report.ok, [str(e) for e in report.errors]
    entry = report.manifest.flows["shop.flows:checkout"].versions[report.manifest.flows["shop.flows:checkout"].current]
    text = (tmp_path / "build/loom" / entry.chunk).read_text()
    assert "from shop.engine import Engine  # live code: a child flow referenced by name, or the flow decorator\n" in text
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        path, data = chunks.read_verified_chunk(tmp_path / "build/loom", entry, flow_id=entry.entry, manifest_path="m.json")
        module = chunks._execute(path, data, entry, flow_id="checkout")
        fn = chunks._entry_attr(module, entry.entry, path=path, flow_id="checkout", code_hash=entry.code_hash)
        assert fn(1) == 2 and fn.__globals__["Engine"] is sys.modules["shop.engine"].Engine
    finally:
        for name in [m for m in sys.modules if m.split(".")[0] == "shop"]:
            sys.modules.pop(name)


# -- the globals a bundled statement uses (chunk_globals) ------------------------------------------

LOCAL_ANNOTATIONS = """
def f(p: ParamT) -> RetT:
    a: LocalA = 1
    self_x: LocalB
    if p:
        b: LocalC = 2
    else:
        for i in p:
            c: LocalD = 3
        else:
            d: LocalE = 4
    while p:
        e: LocalF = 5
    try:
        g: LocalG = 6
    except ValueError:
        h: LocalH = 7
    else:
        k: LocalI = 8
    finally:
        m: LocalJ = 9
    with p:
        p.attr: LocalK = 10
    match p:
        case 1:
            n: LocalL = 11
    class Inner:
        kept: InnerT = 12
        def method(self):
            self.y: LocalM = 13
    lam = lambda: Used
    return a
class Outer:
    field: OuterT
    async def run(self):
        async with self:
            z: LocalN = 14
        async for q in self:
            w: LocalO = 15
top: TopT = 16
"""


def test_a_functions_local_annotations_are_no_uses_in_any_block_but_kept_ones_are():
    from loom_compiler.bundle.chunk_globals import module_globals

    used = module_globals(LOCAL_ANNOTATIONS, "<t>").used
    assert {"ParamT", "RetT", "InnerT", "OuterT", "TopT", "Used", "ValueError"} <= used
    assert not {n for n in used if n.startswith("Local")}, sorted(used)


NAMES_CASES = [
    LOCAL_ANNOTATIONS,
    "def f(x: 'Money', *a: Arg, **k: 'Dict[str, \"Kw\"]') -> Ret:\n    y: Local = x\n    return y\n",
    "class C:\n    a: int = 1\n    def m(self) -> 'C':\n        def inner(z: Z) -> W:\n            class K:\n                k: KT\n            return z\n        return inner\n",
    "x = 1\n",
    "if X:\n    y: Y = 2\nelse:\n    def g(p: P): pass\n",
    "try:\n    from a import b\nexcept ImportError:\n    b: B = None\n",
    "lam = lambda q: q  # a -> b\n",
]


@pytest.mark.parametrize("deferred", [False, True])
@pytest.mark.parametrize("text", NAMES_CASES)
def test_one_parse_gives_a_statements_globals_and_kept_annotations(text, deferred, monkeypatch):
    from loom_compiler.bundle import chunk_globals

    prefix = "from __future__ import annotations\n" if deferred else ""
    expected = chunk_globals.module_globals(prefix + text, "<t>")
    annotated = chunk_globals.annotation_names(text)
    parses: list[str] = []
    real = chunk_globals.ast.parse
    monkeypatch.setattr(chunk_globals.ast, "parse", lambda source, *a, **k: parses.append(source) or real(source, *a, **k))
    found = chunk_globals.statement_names(text, "<t>", prefix=prefix)
    assert (found.used, found.bound, found.annotated) == (expected.used, expected.bound, annotated)
    assert parses.count(text) <= 1 and all(p == text or p not in NAMES_CASES for p in parses)


def test_a_string_run_as_code_importing_first_party_code_is_refused_where_it_is_called(tmp_path: Path):
    # breaker6's G8: the chunk cannot rewrite an import inside a string (it would import the live
    # module); the error names the call's line and column in the module, past a leading comment
    root = tmp_path / "p"
    files = {
        "shop/__init__.py": "",
        "shop/x.py": "V = 1\n",
        "shop/m.py": "import json\n\nL = []\n# load the plugin\nif L is not None:\n    exec('import json')\n"
                     "    L.append(exec(\n        'from shop import x'))\n",
        "shop/flows.py": "from loom_runtime import flow\nfrom shop import m\n\n\n@flow('checkout')\ndef checkout(ctx, o):\n"
                         "    return m.L\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    report = build_project(LoomConfig(root=root, packages=("shop",)))
    assert not report.ok
    (error,) = report.errors
    assert (error.path, error.line, error.column) == ("shop/m.py", 7, 14)
    assert "`from shop import x`" in error.message and "as a statement" in error.message
