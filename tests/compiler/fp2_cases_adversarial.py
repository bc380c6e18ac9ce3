"""``loom-fp/2`` pairs from the adversarial review (breaker, issue 12): a hostile reviewer's and an
ordinary user's Python, as data. Same format as ``fp2_cases_binding`` (each side is a small
first-party package ``shop`` on disk; ``expect`` is ``equal`` or ``changed``).

``finding`` names the entry on /work/TEAM.md (``B<n>``, breaker's log lines) for a pair the scheme
gets wrong today: its test is a strict xfail, so it turns into a failure the moment the owner
fixes it, and the owner then deletes ``finding`` here. A pair with ``finding=None`` is one that
held: it guards the rule from regressing.

``CHUNK_CASES`` are projects whose built chunk, loaded through the registry in a fresh interpreter,
must return exactly what the live module returns for the given input
(``test_fp2_adversarial_chunks``); ``finding`` works the same way there.

``benchmarks/fingerprint_pairs`` reads ``PAIRS`` as data (``compiler_cases``): keep this file free
of imports beyond the standard library.
"""

from __future__ import annotations

from dataclasses import dataclass, field

PACKAGE = "shop"
FLOW_MODULE = "shop.flows"
HEAD = "from loom_runtime import flow, step\n"


@dataclass(frozen=True)
class ProjectPair:
    name: str
    expect: str  # "equal" | "changed"
    klass: str  # what the pair attacks, e.g. "effects across modules"
    before: dict[str, str]
    after: dict[str, str]
    finding: str | None = None  # TEAM.md finding the scheme still gets wrong (strict xfail)
    flow_id: str = "checkout"
    flow_module: str = FLOW_MODULE
    package: str = PACKAGE
    exclude: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class ChunkCase:
    name: str
    files: dict[str, str]
    order: object  # the flow's input
    finding: str | None = None
    flow_id: str = "checkout"


def project(flows: str, **files: str) -> dict[str, str]:
    """``shop/__init__.py``, ``shop/flows.py`` = ``flows`` and ``files`` (keyword ``a__b`` is the
    path ``shop/a/b.py``; ``a__init`` is ``shop/a/__init__.py``; ``init`` is ``shop/__init__.py``)."""
    out = {"shop/__init__.py": "", "shop/flows.py": flows}
    for key, text in files.items():
        parts = key.split("__")
        if parts[-1] == "init":
            parts[-1] = "__init__"
        out["shop/" + "/".join(parts) + ".py"] = text
    return out


def flow(body: str, head: str = "", *, signature: str = "def checkout(ctx, o):") -> str:
    """A module with the flow ``checkout``; ``body`` lines are indented for it."""
    lines = "".join("    " + line + "\n" if line else "\n" for line in body.split("\n"))
    return f"{HEAD}{head}\n\n@flow(\"checkout\")\n{signature}\n{lines}"


def method_flow(members: str, body: str, *, head: str = "", bases: str = "") -> str:
    """A module with the method flow ``Checkout.run``; ``members`` is the class body above it."""
    lines = "".join("        " + line + "\n" for line in body.split("\n"))
    return (f"{HEAD}{head}\n\nclass Checkout{bases}:\n{members}\n"
            f"    @flow(\"checkout\")\n    def run(self, ctx, o):\n{lines}")


def edit(files: dict[str, str], path: str, old: str, new: str) -> dict[str, str]:
    text = files[path]
    assert text.count(old) == 1, (path, old)
    return {**files, path: text.replace(old, new)}


def C(name: str, klass: str, before: dict[str, str], after: dict[str, str], finding: str | None = None) -> ProjectPair:
    return ProjectPair(name, "changed", klass, before, after, finding)


def E(name: str, klass: str, before: dict[str, str], after: dict[str, str], finding: str | None = None) -> ProjectPair:
    return ProjectPair(name, "equal", klass, before, after, finding)


PRICING = "RATE = 0.1\n\n\ndef discount(total):\n    return total - total * RATE\n"


def _pairs() -> list[ProjectPair]:
    pairs: list[ProjectPair] = []
    add = pairs.append

    # -------------------------------------------------- B2: a reached module changes another module's object
    k = "effects across modules"
    for name, head in [
        ("store-into-module-through-import", "import shop.pricing\n\nshop.pricing.RATE = 0.5\n"),
        ("store-into-module-through-from-import", "from shop import pricing\n\npricing.RATE = 0.5\n"),
    ]:
        base = project(flow("return discount(o)", "from shop.pricing import discount\n" + head), pricing=PRICING)
        add(C(name, k, base, edit(base, "shop/flows.py", "= 0.5", "= 0.6"), "B2"))
    base = project(flow("return discount(o)", "from shop.pricing import discount\nfrom shop import other\n\nother.RATE = 0.5\n"),
                   pricing=PRICING, other="RATE = 1\n")
    add(E("store-into-unreached-module", k, base, edit(base, "shop/flows.py", "= 0.5", "= 0.6")))
    models = "class Order:\n    RATE = 1\n"
    total = "from shop.models import Order\n\n\ndef total(x):\n    return x * Order.RATE\n"
    base = project(flow("return total(o)", "from shop.pricing import total\nfrom shop.models import Order\n\nOrder.RATE = 5\n"),
                   pricing=total, models=models)
    add(C("store-into-class-reached-through-another-module", k, base, edit(base, "shop/flows.py", "= 5", "= 6"), "B2"))

    # -------------------------------------------------- B3: builtins patched
    k = "builtins patched"
    base = project(flow("return len(o)", "import builtins\n\n\ndef mylen(x):\n    return 1\n\n\nbuiltins.len = mylen\n"))
    add(C("builtins-attribute-store", k, base, edit(base, "shop/flows.py", "return 1", "return 2"), "B3"))
    base = project(flow("return len(o)", "import shop.patch\n"), patch="import builtins\n\nbuiltins.len = lambda x: 1\n")
    add(C("builtins-patched-by-an-imported-module", k, base, edit(base, "shop/patch.py", "x: 1", "x: 2"), "B3"))
    base = project(flow("return len(o)", "import builtins\n\nbuiltins.other = lambda x: 1\n"))
    add(E("builtins-patch-of-an-unused-name", k, base, edit(base, "shop/flows.py", "x: 1", "x: 2")))

    # -------------------------------------------------- B4: attribute-write dunders of the flow's class
    k = "method flows: attribute writes"
    setattr_ = "    def __setattr__(self, key, value):\n        object.__setattr__(self, key, value * 1)\n"
    base = project(method_flow(setattr_, "self.total = o\nreturn self.total"))
    add(C("dunder-setattr-serves-the-flow-write", k, base, edit(base, "shop/flows.py", "value * 1", "value * 2"), "B4"))
    base = project(method_flow("    __slots__ = ('total',)\n", "self.total = o\nreturn 1"))
    add(C("slots-restrict-the-flow-write", k, base, edit(base, "shop/flows.py", "('total',)", "()"), "B4"))
    base = project(method_flow("    def __delattr__(self, key):\n        pass\n", "self.total = o\ndel self.total\nreturn 1"))
    add(C("dunder-delattr-serves-the-flow-del", k, base,
          edit(base, "shop/flows.py", "        pass\n", "        raise KeyError(key)\n"), "B4"))
    base = project(method_flow("    def unrelated(self):\n        return 1\n", "self.total = o\nreturn self.total"))
    add(E("plain-class-unrelated-method-edited", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))

    # -------------------------------------------------- B5: class annotations as fields of base-driven models
    k = "method flows: model fields"
    model = ("class Model:\n    def __init__(self, **kw):\n        for key, kind in type(self).__annotations__.items():\n"
             "            setattr(self, key, kind(kw.get(key, getattr(type(self), key))))\n")
    base = project(method_flow("    limit: int = 1\n    other: int = 5\n", "return self.limit", head="from shop.model import Model\n",
                               bases="(Model)"), model=model)
    add(C("base-driven-model-unread-field-annotation", k, base, edit(base, "shop/flows.py", "other: int", "other: str"), "B5"))
    base = project(method_flow("    limit: int = 1\n\n    def unrelated(self):\n        return 1\n", "return self.limit",
                               head="from shop.model import Model\n", bases="(Model)"), model=model)
    add(E("base-driven-model-unrelated-method", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))

    # -------------------------------------------------- B6: a package attribute shadows its submodule
    k = "module lookup: package attribute"
    fn = "def pricing(x):\n    return x\n"
    base = project(flow("return pricing(o)", "from shop import pricing\n"), init="from .pricing import pricing\n",
                   pricing=fn, other="def pricing(x):\n    return -x\n")
    add(C("package-attribute-shadows-submodule", k, base,
          edit(base, "shop/__init__.py", "from .pricing import pricing\n", "from .pricing import pricing\nfrom .other import pricing\n"),
          "B6"))
    add(C("package-attribute-shadows-submodule-body-edited", k, base, edit(base, "shop/pricing.py", "return x", "return 2 * x")))

    # -------------------------------------------------- B7: walrus bindings at module level
    k = "binding: walrus"
    base = project(flow("return HIT", "\nDATA = [1, 5]\nany((HIT := x) > 3 for x in DATA)\n"))
    add(C("walrus-in-module-level-generator", k, base, edit(base, "shop/flows.py", "[1, 5]", "[1, 6]"), "B7"))
    base = project(flow("return LIM", "\n\ndef f(x=(LIM := 5)):\n    return x\n"))
    add(C("walrus-in-module-level-default", k, base, edit(base, "shop/flows.py", "= 5)", "= 6)"), "B7"))

    # -------------------------------------------------- B8: class-body dynamic write
    k = "method flows: dynamic class body"
    base = project(method_flow("    LIMIT = 1\n    vars()['LIMIT'] = 2\n", "return self.LIMIT"))
    add(C("vars-store-in-the-flow-class-body", k, base, edit(base, "shop/flows.py", "= 2", "= 3"), "B8"))

    # -------------------------------------------------- held: relative imports, namespace packages, __all__, async
    k = "held: imports"
    pkg = {"shop/__init__.py": "", "shop/sub/__init__.py": "", "shop/sub/deep/__init__.py": "", "shop/pricing.py": PRICING}
    for name, path, text in [
        ("relative-import-three-levels", "shop/sub/deep/helpers.py",
         "from ...pricing import discount\n\n\ndef helper(x):\n    return discount(x)\n"),
        ("relative-import-of-a-module-two-levels", "shop/sub/deep/helpers.py",
         "from ... import pricing\n\n\ndef helper(x):\n    return pricing.discount(x)\n"),
    ]:
        base = {**pkg, path: text, "shop/flows.py": flow("return helper(o)", "from .sub.deep.helpers import helper\n")}
        add(C(name, k, base, edit(base, "shop/pricing.py", "0.1", "0.2")))
    base = {"shop/__init__.py": "", "shop/flows.py": flow("return helper(o)", "from shop.ns.mod import helper\n"),
            "shop/ns/mod.py": "def helper(x):\n    return x\n"}
    add(C("namespace-subpackage-without-init", k, base, edit(base, "shop/ns/mod.py", "return x", "return -x")))
    util = "__all__ = ['a']\n__all__ += ['helper']\n\n\ndef a():\n    return 0\n\n\ndef helper(x):\n    return x\n"
    base = project(flow("return helper(o)", "from shop.other import helper\nfrom shop.util import *\n"), util=util,
                   other="def helper(x):\n    return 1\n")
    add(C("star-import-all-augmented", k, base, edit(base, "shop/util.py", "return x", "return -x")))
    add(C("star-import-all-appended", k, edit(base, "shop/util.py", "__all__ += ['helper']", "__all__.append('helper')"),
          edit(edit(base, "shop/util.py", "__all__ += ['helper']", "__all__.append('helper')"), "shop/util.py", "return x", "return -x")))

    k = "held: async"
    sig = "async def checkout(ctx, o):"
    for name, old, new in [
        ("async-for", "for x in o:\n    pass", "async for x in o:\n    pass"),
        ("async-with", "with o:\n    pass", "async with o:\n    pass"),
        ("async-comprehension", "return [x for x in o]", "return [x async for x in o]"),
    ]:
        add(C(name, k, project(flow(old, signature=sig)), project(flow(new, signature=sig))))
    return pairs


PAIRS: tuple[ProjectPair, ...] = tuple(_pairs())


def _chunk_cases() -> list[ChunkCase]:
    cases: list[ChunkCase] = []
    add = cases.append
    color = "class Color:\n    RED = 1\n\n    @staticmethod\n    def make():\n        return 5\n"
    # B1: an attribute of a name imported under an alias
    add(ChunkCase("alias-import-class-attribute", project(flow("return C2.RED", "from shop.b import Color as C2\n"), b=color), 0, "B1"))
    add(ChunkCase("alias-import-class-method", project(flow("return C2.make()", "from shop.b import Color as C2\n"), b=color), 0, "B1"))
    add(ChunkCase("alias-import-dict-method", project(flow("return T.get('a')", "from shop.b import TABLE as T\n"),
                                                      b="TABLE = {'a': 1}\n"), 0, "B1"))
    add(ChunkCase("alias-import-function-attribute", project(flow("return h.attr", "from shop.b import helper as h\n"),
                                                             b="def helper():\n    return 1\n\n\nhelper.attr = 3\n"), 0, "B1"))
    add(ChunkCase("lazy-alias-import-class-attribute", project(flow("from shop.b import Color as C2\nreturn C2.RED"), b=color), 0, "B1"))
    add(ChunkCase("plain-import-class-attribute", project(flow("return Color.RED", "from shop.b import Color\n"), b=color), 0))
    add(ChunkCase("module-alias-class-attribute", project(flow("return bb.Color.RED", "import shop.b as bb\n"), b=color), 0))
    # B9: observable names of bundled definitions
    enum = "import enum\n\n\nclass Color(enum.Enum):\n    RED = {n}\n"
    add(ChunkCase("clashing-enum-names", project(flow("return str(Color.RED), repr(Other.RED)",
                                                      "from shop.a import Color\nfrom shop.b import Color as Other\n"),
                                                 a=enum.format(n=1), b=enum.format(n=2)), 0, "B9"))
    add(ChunkCase("builtin-named-helper-keeps-its-name", project(flow("return round.__name__, round(o)", "from shop.a import round\n"),
                                                                 a="def round(x):\n    return 7\n"), 1, "B9"))
    errors = "class PayError(Exception):\n    pass\n"
    add(ChunkCase("flow-failure-type-of-a-first-party-exception", project(flow("raise PayError('no')", "from shop.errors import PayError\n"),
                                                                          errors=errors), 0, "B9"))
    # held: what dataclasses, NamedTuple and get_type_hints see in a chunk
    add(ChunkCase("dataclass-classvar-and-kw-only", project(
        flow("import dataclasses\nreturn [f.name for f in dataclasses.fields(C)], C(1, y=2).y", "from shop.models import C\n"),
        models="from dataclasses import KW_ONLY, dataclass\nfrom typing import ClassVar\n\n\n@dataclass\nclass C:\n"
               "    x: int\n    _: KW_ONLY\n    y: int = 0\n    z: ClassVar[int] = 2\n"), 0))
    add(ChunkCase("namedtuple-fields", project(flow("return P(1, 2)._asdict(), P._fields", "from shop.models import P\n"),
                                               models="from typing import NamedTuple\n\n\nclass P(NamedTuple):\n    a: int\n    b: int = 0\n"), 0))
    add(ChunkCase("get-type-hints", project(flow("import typing\nreturn str(typing.get_type_hints(helper))", "from shop.models import helper\n"),
                                            models="def helper(x: int) -> str:\n    return x\n"), 0))
    return cases


CHUNK_CASES: tuple[ChunkCase, ...] = tuple(_chunk_cases())
