"""``loom-fp/2`` pairs from the adversarial review (breaker, issue 12): a hostile reviewer's and an
ordinary user's Python, as data. Same format as ``fp2_cases_binding`` (each side is a small
first-party package ``shop`` on disk; ``expect`` is ``equal`` or ``changed``).

``finding`` names the entry on /work/TEAM.md (``B<n>``: breaker's log lines, the first round;
``C<n>``: breaker2's, the second) for a pair the scheme gets wrong today: its test is a strict xfail, so it turns into a failure the moment the owner
fixes it, and the owner then deletes ``finding`` here. A pair with ``finding=None`` is one that
held: it guards the rule from regressing.

``FRAMEWORK_PAIRS`` are ``(pair, framework)``: pairs fingerprinted under a framework profile
(``LoomConfig(framework=...)``, ``test_fp2_adversarial_pairs.test_framework_pair``).

``CHUNK_CASES`` are projects whose built chunk, loaded through the registry in a fresh interpreter,
must return exactly what the live module returns for the given input
(``test_fp2_adversarial_chunks``); ``finding`` works the same way there.

``benchmarks/fingerprint_pairs`` reads ``PAIRS`` as data (``compiler_cases``): keep this file free
of imports beyond the standard library.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

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
    #: the build must refuse this flow (a chunk could not run what live code runs), with an error
    #: holding this text and naming ``file:line:column`` (``bundle.chunk_limits``)
    refused: str | None = None


@dataclass(frozen=True)
class DiscoveryCase:
    """A module that declares a flow: the build must find it or report it (file:line), never skip it."""

    name: str
    files: dict[str, str]
    expect: str  # "flow" (found, pinned) | "reported" (found or an error naming the file)
    finding: str | None = None


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
        add(C(name, k, base, edit(base, "shop/flows.py", "= 0.5", "= 0.6")))  # B2: fixed (closure #abroad)
    base = project(flow("return discount(o)", "from shop.pricing import discount\nfrom shop import other\n\nother.RATE = 0.5\n"),
                   pricing=PRICING, other="RATE = 1\n")
    add(E("store-into-unreached-module", k, base, edit(base, "shop/flows.py", "= 0.5", "= 0.6")))
    models = "class Order:\n    RATE = 1\n"
    total = "from shop.models import Order\n\n\ndef total(x):\n    return x * Order.RATE\n"
    base = project(flow("return total(o)", "from shop.pricing import total\nfrom shop.models import Order\n\nOrder.RATE = 5\n"),
                   pricing=total, models=models)
    add(C("store-into-class-reached-through-another-module", k, base, edit(base, "shop/flows.py", "= 5", "= 6")))  # B2: fixed

    # -------------------------------------------------- B3: builtins patched
    k = "builtins patched"
    base = project(flow("return len(o)", "import builtins\n\n\ndef mylen(x):\n    return 1\n\n\nbuiltins.len = mylen\n"))
    add(C("builtins-attribute-store", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))  # B3: fixed
    base = project(flow("return len(o)", "import shop.patch\n"), patch="import builtins\n\nbuiltins.len = lambda x: 1\n")
    add(C("builtins-patched-by-an-imported-module", k, base, edit(base, "shop/patch.py", "x: 1", "x: 2")))  # B3: fixed
    base = project(flow("return len(o)", "import builtins\n\nbuiltins.other = lambda x: 1\n"))
    add(E("builtins-patch-of-an-unused-name", k, base, edit(base, "shop/flows.py", "x: 1", "x: 2")))

    # -------------------------------------------------- B4: attribute-write dunders of the flow's class
    k = "method flows: attribute writes"
    setattr_ = "    def __setattr__(self, key, value):\n        object.__setattr__(self, key, value * 1)\n"
    base = project(method_flow(setattr_, "self.total = o\nreturn self.total"))
    add(C("dunder-setattr-serves-the-flow-write", k, base, edit(base, "shop/flows.py", "value * 1", "value * 2")))  # B4: fixed
    base = project(method_flow("    __slots__ = ('total',)\n", "self.total = o\nreturn 1"))
    add(C("slots-restrict-the-flow-write", k, base, edit(base, "shop/flows.py", "('total',)", "()")))  # B4: fixed
    base = project(method_flow("    def __delattr__(self, key):\n        pass\n", "self.total = o\ndel self.total\nreturn 1"))
    add(C("dunder-delattr-serves-the-flow-del", k, base,
          edit(base, "shop/flows.py", "        pass\n", "        raise KeyError(key)\n")))  # B4: fixed
    base = project(method_flow("    def unrelated(self):\n        return 1\n", "self.total = o\nreturn self.total"))
    add(E("plain-class-unrelated-method-edited", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))

    # -------------------------------------------------- B5: class annotations as fields of base-driven models
    k = "method flows: model fields"
    model = ("class Model:\n    def __init__(self, **kw):\n        for key, kind in type(self).__annotations__.items():\n"
             "            setattr(self, key, kind(kw.get(key, getattr(type(self), key))))\n")
    base = project(method_flow("    limit: int = 1\n    other: int = 5\n", "return self.limit", head="from shop.model import Model\n",
                               bases="(Model)"), model=model)
    add(C("base-driven-model-unread-field-annotation", k, base, edit(base, "shop/flows.py", "other: int", "other: str")))  # B5: fixed
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
          ))  # B6: fixed
    add(C("package-attribute-shadows-submodule-body-edited", k, base, edit(base, "shop/pricing.py", "return x", "return 2 * x")))

    # -------------------------------------------------- B7: walrus bindings at module level
    k = "binding: walrus"
    base = project(flow("return HIT", "\nDATA = [1, 5]\nany((HIT := x) > 3 for x in DATA)\n"))
    add(C("walrus-in-module-level-generator", k, base, edit(base, "shop/flows.py", "[1, 5]", "[1, 6]")))  # B7: fixed
    base = project(flow("return LIM", "\n\ndef f(x=(LIM := 5)):\n    return x\n"))
    add(C("walrus-in-module-level-default", k, base, edit(base, "shop/flows.py", "= 5)", "= 6)")))  # B7: fixed

    # -------------------------------------------------- B8: class-body dynamic write
    k = "method flows: dynamic class body"
    base = project(method_flow("    LIMIT = 1\n    vars()['LIMIT'] = 2\n", "return self.LIMIT"))
    add(C("vars-store-in-the-flow-class-body", k, base, edit(base, "shop/flows.py", "= 2", "= 3")))  # B8: fixed

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

    # -------------------------------------------------- B11: class-body statements with effects on the flow's class
    k = "method flows: class body effects"
    field = "class Field:\n    def __set_name__(self, owner, name):\n        owner.rate = 1\n"
    base = project(method_flow("    f = Field()\n", "return self.rate", head="from shop.desc import Field\n"), desc=field)
    add(C("set-name-of-an-unread-class-attribute", k, base, edit(base, "shop/desc.py", "= 1", "= 2")))  # B11: fixed

    # -------------------------------------------------- B12: a first-party import with no source
    k = "module lookup: no source"
    base = project(flow("from shop.alias import f\nreturn f(o)", "import shop.setup\n"),
                   setup="import sys\n\nfrom shop import real\n\nsys.modules['shop.alias'] = real\n", real="def f(x):\n    return x\n")
    # fp2-dyn: a store into a sys.modules entry is a store into the module it names (C13's rule)
    add(C("sys-modules-alias-of-a-first-party-module", k, base, edit(base, "shop/real.py", "return x", "return -x")))

    # -------------------------------------------------- held: method flows
    k = "held: method flows"
    mixin = "class Mixin:\n    def helper(self, x):\n        return x\n\n    def other(self):\n        return 0\n"
    base = project(method_flow("    pass\n", "return self.helper(o)", head="from shop.mixin import Mixin\n", bases="(Mixin)"), mixin=mixin)
    add(C("mixin-method-edited", k, base, edit(base, "shop/mixin.py", "return x", "return -x")))
    add(C("override-added-in-own-class", k, base,
          edit(base, "shop/flows.py", "    pass\n", "    def helper(self, x):\n        return 2 * x\n")))
    base = project(method_flow("    def price(self, x):\n        return super().price(x) + 1\n", "return self.price(o)",
                               head="from shop.base import Base\n", bases="(Base)"), base="class Base:\n    def price(self, x):\n        return x\n")
    add(C("super-method-edited", k, base, edit(base, "shop/base.py", "return x", "return -x")))
    for name, members, body, old, new in [
        ("property-edited", "    @property\n    def rate(self):\n        return 1\n", "return self.rate", "return 1", "return 2"),
        ("property-setter-edited", "    @property\n    def rate(self):\n        return self._r\n\n    @rate.setter\n"
         "    def rate(self, v):\n        self._r = v\n", "self.rate = o\nreturn self.rate", "self._r = v\n", "self._r = v * 2\n"),
        ("classmethod-reads-class-attribute", "    @classmethod\n    def make(cls):\n        return cls.K\n\n    K = 1\n",
         "return self.make()", "K = 1", "K = 2"),
        ("staticmethod-edited", "    @staticmethod\n    def make():\n        return 1\n", "return self.make()", "return 1", "return 2"),
        ("own-class-named-call", "    @staticmethod\n    def make():\n        return 1\n", "return Checkout.make()", "return 1", "return 2"),
        ("init-helper-sets-attribute", "    def __init__(self):\n        self._setup()\n\n    def _setup(self):\n        self.rate = 1\n",
         "return self.rate", "rate = 1", "rate = 2"),
        ("class-attribute-lambda", "    fee = lambda self, x: x + 1\n", "return self.fee(o)", "x + 1", "x + 2"),
        ("nested-class-edited", "    class Inner:\n        K = 1\n", "return self.Inner.K", "K = 1", "K = 2"),
        ("self-dict-widens", "    K = 1\n\n    def x(self):\n        return 0\n", "return self.__dict__", "return 0", "return 1"),
    ]:
        base = project(method_flow(members, body))
        add(C(name, k, base, edit(base, "shop/flows.py", old, new)))
    meta = "\n\nclass Meta(type):\n    def __call__(cls, *a):\n        obj = super().__call__(*a)\n        obj.rate = 1\n        return obj\n"
    base = project(method_flow("    pass\n", "return self.rate", head=meta, bases="(metaclass=Meta)"))
    add(C("flow-class-metaclass-edited", k, base, edit(base, "shop/flows.py", "rate = 1", "rate = 2")))
    base = project(method_flow("    pass\n", "return self.rate", head="from shop.base import Base\n", bases="(Base)"),
                   base="class Base:\n    def __init_subclass__(cls, **kw):\n        cls.rate = 1\n")
    add(C("init-subclass-of-the-base-edited", k, base, edit(base, "shop/base.py", "= 1", "= 2")))
    base = project(method_flow("    rate = Rate()\n", "return self.rate", head="from shop.desc import Rate\n"),
                   desc="class Rate:\n    def __get__(self, obj, owner):\n        return 1\n")
    add(C("descriptor-get-edited", k, base, edit(base, "shop/desc.py", "return 1", "return 2")))
    dc = method_flow("    a: int = 1\n    b: int = 2\n", "return self.a", head="from dataclasses import dataclass\n")
    base = project(dc.replace("class Checkout", "@dataclass\nclass Checkout"))
    add(C("dataclass-flow-class-unread-field-loses-its-default", k, base, edit(base, "shop/flows.py", "b: int = 2", "b: int")))
    base = project(method_flow("    rate = 1\n", "return self.rate") + "\n\nsetattr(Checkout, 'rate', 5)\n")
    add(C("setattr-on-the-flow-class-at-module-level", k, base, edit(base, "shop/flows.py", "'rate', 5", "'rate', 6")))
    base = project(method_flow("    def a(self):\n        return 1\n\n    def b(self):\n        return 1\n", "return self.a()"))
    add(E("unreached-method-edited", k, base, edit(base, "shop/flows.py", "return 1\n\n    @flow", "return 2\n\n    @flow")))
    add(E("class-docstring-added", k, base, edit(base, "shop/flows.py", "class Checkout:\n", 'class Checkout:\n    """Doc."""\n\n')))

    # -------------------------------------------------- held: module-level Python
    k = "held: module-level Python"
    deco = ("import functools\n\n\ndef retry(n):\n    def d(f):\n        @functools.wraps(f)\n        def w(*a):\n"
            "            return f(*a) + n\n        return w\n    return d\n")
    base = project(flow("return helper(o)", "from shop.h import helper\n"), deco=deco,
                   h="from shop.deco import retry\n\n\n@retry(1)\ndef helper(x):\n    return x\n")
    add(C("wrapping-decorator-argument", k, base, edit(base, "shop/h.py", "retry(1)", "retry(2)")))
    add(C("wrapping-decorator-body", k, base, edit(base, "shop/deco.py", "+ n", "- n")))
    for name, text, old, new in [
        ("default-argument-mutated-later", "CFG = {'a': 1}\n\n\ndef helper(c=CFG):\n    return c['a']\n\n\nCFG['a'] = 2\n", "= 2", "= 3"),
        ("default-argument-captures-an-earlier-binding", "LIMIT = 1\n\n\ndef helper(c=LIMIT):\n    return c\n\n\nLIMIT = 2\n", "= 1", "= 5"),
        ("global-written-by-a-called-helper", "STATE = 0\n\n\ndef helper():\n    bump()\n    return STATE\n\n\ndef bump():\n"
         "    global STATE\n    STATE += 1\n", "+= 1", "+= 2"),
        ("conditional-definitions", "import sys\n\nif sys.version_info > (3,):\n    def helper():\n        return 1\nelse:\n"
         "    def helper():\n        return 0\n", "return 1", "return 2"),
        ("decorator-order", "def a(f):\n    return lambda: f() + 1\n\n\ndef b(f):\n    return lambda: f() * 2\n\n\n@a\n@b\n"
         "def helper():\n    return 1\n", "@a\n@b", "@b\n@a"),
    ]:
        base = project(flow("return helper()", "from shop.h import helper\n"), h=text)
        add(C(name, k, base, edit(base, "shop/h.py", old, new)))
    base = project(flow("return FNS[0]()", "from shop.h import FNS\n"), h="FNS = []\nfor i in range(2):\n    FNS.append(lambda i=i: i)\n")
    add(C("loop-built-closures", k, base, edit(base, "shop/h.py", "range(2)", "range(1, 3)")))
    base = project(flow("return helper(o)", "from shop.h import helper\n"), cfg="FAST = True\n",
                   h="from shop.cfg import FAST\n\nif FAST:\n    def helper(x):\n        return 1\nelse:\n    def helper(x):\n        return 2\n")
    add(C("definition-chosen-by-an-imported-flag", k, base, edit(base, "shop/cfg.py", "True", "False")))
    fallback = "try:\n    from shop.fast import f\nexcept ImportError:\n    def f(x):\n        return 0\n"
    base = project(flow("return f(o)", fallback), fast="def f(x):\n    return x\n")
    add(C("import-error-fallback-edited", k, base, edit(base, "shop/flows.py", "return 0", "return 1")))
    add(C("import-error-fallback-target-deleted", k, base, {p: t for p, t in base.items() if p != "shop/fast.py"}))
    for name, cfg, fill, old, new in [
        ("first-party-function-mutates-its-argument", "from shop.fill import fill\n\nCFG = {}\nfill(CFG)\n",
         "def fill(d):\n    d['a'] = 1\n", "= 1", "= 2"),
        ("first-party-method-mutates-its-argument", "from shop.fill import Filler\n\nCFG = {}\nFiller().fill(CFG)\n",
         "class Filler:\n    def fill(self, d):\n        d['a'] = 1\n", "= 1", "= 2"),
        ("value-built-by-a-first-party-function", "from shop.fill import fill\n\nCFG = fill({})\n",
         "def fill(d):\n    d['a'] = 1\n    return d\n", "= 1", "= 2"),
    ]:
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\n"), cfg=cfg, fill=fill)
        add(C(name, k, base, edit(base, "shop/fill.py", old, new)))
    base = project(flow("return len(o)", "from shop.compat import *\n"), compat="def len(x):\n    return 1\n")
    add(C("star-import-binds-a-builtin-name", k, base, edit(base, "shop/compat.py", "return 1", "return 2")))
    base = project(flow("x: Model = o\nreturn x", "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from shop.m import Model\n"),
                   m="class Model:\n    K = 1\n")
    add(E("type-checking-import-only-in-a-local-annotation", k, base, edit(base, "shop/m.py", "K = 1", "K = 2")))

    # -------------------------------------------------- B20: data files read by reached code
    k = "files read by code"
    reader = "from pathlib import Path\n\n\ndef helper():\n    return (Path(__file__).parent / 'prompt.txt').read_text()\n"
    base = {**project(flow("return helper()", "from shop.h import helper\n"), h=reader), "shop/prompt.txt": "be nice\n"}
    add(C("package-data-file-read-by-a-helper", k, base, edit(base, "shop/prompt.txt", "nice", "rude"), "B20"))

    # -------------------------------------------------- B21: a step's header
    k = "steps: header"
    steps = "from loom_runtime import step\n\n\n@step(max_attempts=3)\ndef charge(x):\n    return x\n"
    base = project(flow("return ctx.execute('charge', charge, o)", "from shop.steps import charge\n"), steps=steps)
    add(C("step-retry-policy", k, base, edit(base, "shop/steps.py", "max_attempts=3", "max_attempts=1")))
    add(E("step-body-edited", k, base, edit(base, "shop/steps.py", "return x", "return 2 * x")))
    steps = "from loom_runtime import step\n\n\ndef twice(f):\n    return lambda x: f(f(x))\n\n\n@twice\n@step\ndef charge(x):\n    return x\n"
    base = project(flow("return ctx.execute('charge', charge, o)", "from shop.steps import charge\n"), steps=steps)
    add(C("decorator-around-a-step", k, base, edit(base, "shop/steps.py", "f(f(x))", "f(x)")))
    steps = ("from loom_runtime import step\n\nATTEMPTS = 3\n\n\n@step(max_attempts=ATTEMPTS)\ndef charge(x: int) -> int:\n"
             "    return x\n\n\ndef unrelated():\n    return 1\n")
    base = project(flow("return ctx.execute('charge', charge, o)", "from shop.steps import charge\n"), steps=steps)
    add(C("step-retry-policy-through-a-constant", k, base, edit(base, "shop/steps.py", "ATTEMPTS = 3", "ATTEMPTS = 4")))
    add(C("step-signature", k, base, edit(base, "shop/steps.py", "-> int:", "-> str:")))
    add(E("step-retry-policy-respelled", k, base, edit(base, "shop/steps.py", "ATTEMPTS = 3", "ATTEMPTS = 0x3")))
    add(E("step-module-unrelated-helper-edited", k, base, edit(base, "shop/steps.py", "return 1", "return 2")))
    add(E("step-body-edited-under-a-retry-policy", k, base, edit(base, "shop/steps.py", "    return x\n", "    return x + 1\n")))
    steps = "from loom_runtime import step\n\n\nclass Db:\n    @step(max_attempts=3)\n    def save(self, x):\n        return x\n"
    base = project(flow("return ctx.execute('save', Db().save, o)", "from shop.steps import Db\n"), steps=steps)
    add(C("step-method-retry-policy", k, base, edit(base, "shop/steps.py", "max_attempts=3", "max_attempts=1")))

    # -------------------------------------------------- B25: __future__ flags compile the whole module
    k = "module compile flags"
    model = ("class Model:\n    def __init__(self):\n        for key, kind in type(self).__annotations__.items():\n"
             "            setattr(self, key, kind(getattr(type(self), key)))\n\n\nclass Order(Model):\n    qty: int = '3'\n")
    base = project(flow("return Order().qty", "from shop.m import Order\n"), m=model)
    add(C("future-annotations-added-to-a-module-reading-annotations", k, base,
          {**base, "shop/m.py": "from __future__ import annotations\n\n" + model}))
    sig = '"""Helpers."""\n\n\ndef helper(x: int) -> int:\n    return helper.__annotations__["x"](x)\n'
    base = project(flow("return helper(o)", "from shop.m import helper\n"), m=sig)
    add(C("future-annotations-after-the-docstring-of-a-module-with-signature-annotations", k, base,
          {**base, "shop/m.py": sig.replace('"""Helpers."""\n', '"""Helpers."""\nfrom __future__ import annotations\n')}))
    local = "def helper(x):\n    y: int = x\n    return y\n"
    base = project(flow("return helper(o)", "from shop.m import helper\n"), m=local)
    add(E("future-annotations-added-to-a-module-with-only-local-annotations", k, base,
          {**base, "shop/m.py": "from __future__ import annotations\n\n" + local}))
    add(E("no-op-future-feature-added", k, base, {**base, "shop/m.py": "from __future__ import generator_stop\n\n" + local}))
    base = project(flow("return helper(o)", "from shop.m import helper\n"), m="def helper(x):\n    return x\n")
    add(E("future-annotations-added-to-a-module-without-annotations", k, base,
          {**base, "shop/m.py": "from __future__ import annotations\n\n" + base["shop/m.py"]}))

    # -------------------------------------------------- B27: another module's statements change the flow's own class
    k = "effects across modules: the flow's class"
    patch = "from shop.flows import Checkout\n\nCheckout.rate = 5\n"
    base = project(method_flow("    rate = 1\n", "return self.rate"), patch=patch, init="from . import flows, patch\n")
    add(C("flow-class-patched-by-a-module-the-package-imports", k, base, edit(base, "shop/patch.py", "= 5", "= 6")))
    base = project(method_flow("    rate = 1\n", "return self.rate", head="import shop.patch\n"), patch=patch)
    add(C("flow-class-patched-by-a-module-the-flow-module-imports", k, base, edit(base, "shop/patch.py", "= 5", "= 6")))
    other = method_flow("    rate = 1\n", "return self.rate") + "\n\nclass Other:\n    rate = 1\n"
    base = project(other, patch="from shop.flows import Other\n\nOther.rate = 5\n", init="from . import flows, patch\n")
    add(E("another-class-of-the-flow-module-patched", k, base, edit(base, "shop/patch.py", "= 5", "= 6")))
    base = project(method_flow("    rate = 1\n", "return self.rate"), patch="from shop.flows import Checkout\n\nRATE = Checkout.rate + 5\n",
                   init="from . import flows, patch\n")
    add(E("flow-class-read-by-a-module-the-package-imports", k, base, edit(base, "shop/patch.py", "+ 5", "+ 6")))
    base = project(flow("return CFG['x']", "\nCFG = {'x': 1}\n"), patch="from shop.flows import CFG\n\nCFG['x'] = 5\n",
                   init="from . import flows, patch\n")
    add(C("flow-module-table-patched-by-a-module-the-package-imports", k, base, edit(base, "shop/patch.py", "= 5", "= 6")))

    # -------------------------------------------------- B26: ``if __name__ == "__main__":`` blocks run for a worker script
    k = "module statements: main blocks"
    main = "\n\nif __name__ == '__main__':\n    CFG['x'] = 2\n    report()\n"
    report = "\n\ndef report():\n    print('started')\n"
    base = project(flow("return CFG['x']", "\nCFG = {'x': 1}\n") + report + main)
    add(C("main-block-changes-what-the-flow-reads", k, base, edit(base, "shop/flows.py", "= 2", "= 3")))
    # rule 2: the block is judged per inner statement: ``report()`` is no part of ``CFG``
    add(E("main-block-statement-beside-the-one-that-changes-what-the-flow-reads", k, base,
          edit(base, "shop/flows.py", "'started'", "'running'")))
    base = project(flow("return CFG['x']", "from shop.h import CFG\n"),
                   h="CFG = {'x': 1}\n\nif __name__ == '__main__':\n    CFG['x'] = 2\n    print('h')\n")
    add(C("main-block-of-a-helper-module-changes-what-the-flow-reads", k, base, edit(base, "shop/h.py", "= 2", "= 3")))
    guarded = "\nMODE = 'main'\nCFG = {'x': 1}\n"
    block = "\n\nif MODE == 'main':\n    CFG['x'] = 2\n    report()\nelse:\n    CFG['x'] = 4\n"
    base = project(flow("return CFG['x']", guarded) + report + block)
    add(C("guard-of-a-split-block-is-an-input", k, base, edit(base, "shop/flows.py", "MODE = 'main'", "MODE = 'test'")))
    add(C("else-branch-of-a-split-block", k, base, edit(base, "shop/flows.py", "= 4", "= 5")))
    add(E("unreached-statement-of-a-split-block", k, base, edit(base, "shop/flows.py", "'started'", "'running'")))
    base = project(flow("return CFG['x']", "\nCFG = {'x': 1}\n") + report
                   + "\n\nif __name__ == '__main__':\n    for k in ('x',):\n        CFG[k] = 2\n    report()\n")
    add(C("nested-loop-in-a-split-block", k, base, edit(base, "shop/flows.py", "('x',)", "('y',)")))
    # a guard that runs code keeps the block whole (the pieces would call it twice)
    base = project(flow("return CFG['x']", "import os\n\nCFG = {'x': 1}\n") + report
                   + "\n\nif os.environ.get('MAIN'):\n    CFG['x'] = 2\n    report()\n")
    add(C("block-with-a-calling-guard-is-whole", k, base, edit(base, "shop/flows.py", "'started'", "'running'")))

    # -------------------------------------------------- literal names: no call changes an immutable value
    k = "module statements: immutable literals"
    report = "\n\ndef report(x):\n    print(x)\n"
    for name, value in [("string", "'db://a'"), ("number", "5"), ("none", "None"), ("tuple", "(1, 'a', None)")]:
        base = project(flow("return URL", f"\nURL = {value}\n") + report + "\n\nreport(URL)\n")
        add(E(f"call-using-an-immutable-{name}", k, base, edit(base, "shop/flows.py", "print(x)", "print(x, x)")))
    # a statement calls only what is bound above it: ``@route() def route`` calls the imported ``route``
    h = ("from web import route\n\nCFG = {'a': 1}\n\n\ndef fill():\n    CFG['a'] = 2\n\n\n@route()\n"
         "def route():\n    fill()\n    return 1\n")
    base = project(flow("return CFG['a']", "from shop.h import CFG\n"), h=h)
    add(E("decorator-named-like-the-function-it-decorates", k, base, edit(base, "shop/h.py", "return 1", "return 2")))
    base = project(flow("return CFG['a']", "from shop.h import CFG\n"), h=h + "\n\nroute()\n")
    add(C("call-of-a-function-defined-above", k, base, edit(base, "shop/h.py", "CFG['a'] = 2", "CFG['a'] = 3")))
    env = "import os\n\nURL = os.environ.get('DB', 'db://a')\n"
    base = project(flow("return URL", env) + report + "\n\nreport(URL)\n")
    add(E("call-using-an-environment-variable", k, base, edit(base, "shop/flows.py", "print(x)", "print(x, x)")))
    fake = "class _Env:\n    def get(self, k, d=None):\n        return [d]\n\n\nenviron = _Env()\n"
    base = project(flow("return URL", env.replace("import os", "from shop import fakeos as os"))
                   + "\n\ndef grow(x):\n    x.append(1)\n\n\ngrow(URL)\n", fakeos=fake)
    add(C("call-using-a-first-party-os-look-alike", k, base, edit(base, "shop/flows.py", "append(1)", "append(2)")))
    base = project(flow("return N[1]", "\nN = (1, [2])\n") + "\n\ndef grow(t):\n    t[1].append(3)\n\n\ngrow(N)\n")
    add(C("call-using-a-tuple-holding-a-list", k, base, edit(base, "shop/flows.py", "append(3)", "append(4)")))
    base = project(flow("return URL", "\nURL = 'a'\n") + "\n\ndef setup():\n    global URL\n    URL = 'b'\n\n\nsetup()\n")
    add(C("literal-rebound-by-a-called-function-after-global", k, base, edit(base, "shop/flows.py", "URL = 'b'", "URL = 'c'")))
    base = project(flow("return URL", "\nURL = 'a'\n") + "\n\ndef fill(name):\n    globals()[name] = 'b'\n\n\nfill('URL')\n")
    add(C("literal-rebound-through-globals-by-a-call", k, base, edit(base, "shop/flows.py", "fill('URL')", "fill('URL2')")))
    base = project(flow("return URL", "\nURL = 'a'\n") + "\n\nglobals()['URL'] = 'b'\n")
    add(C("literal-rebound-through-globals-at-module-level", k, base, edit(base, "shop/flows.py", "= 'b'", "= 'c'")))
    base = project(flow("return URL", "from shop.cfg import *\n\nURL = 'a'\n"), cfg="def use(x):\n    return x\n")
    add(C("literal-in-a-module-with-a-star-import", k, base, {**base, "shop/cfg.py": "URL = 'z'\n"}))
    return pairs


PAIRS: tuple[ProjectPair, ...] = tuple(_pairs())


def _chunk_cases() -> list[ChunkCase]:
    cases: list[ChunkCase] = []
    add = cases.append
    color = "class Color:\n    RED = 1\n\n    @staticmethod\n    def make():\n        return 5\n"
    # B1: an attribute of a name imported under an alias
    add(ChunkCase("alias-import-class-attribute", project(flow("return C2.RED", "from shop.b import Color as C2\n"), b=color), 0))
    add(ChunkCase("alias-import-class-method", project(flow("return C2.make()", "from shop.b import Color as C2\n"), b=color), 0))
    add(ChunkCase("alias-import-dict-method", project(flow("return T.get('a')", "from shop.b import TABLE as T\n"),
                                                      b="TABLE = {'a': 1}\n"), 0))
    add(ChunkCase("alias-import-function-attribute", project(flow("return h.attr", "from shop.b import helper as h\n"),
                                                             b="def helper():\n    return 1\n\n\nhelper.attr = 3\n"), 0))
    add(ChunkCase("lazy-alias-import-class-attribute", project(flow("from shop.b import Color as C2\nreturn C2.RED"), b=color), 0))
    add(ChunkCase("plain-import-class-attribute", project(flow("return Color.RED", "from shop.b import Color\n"), b=color), 0))
    add(ChunkCase("module-alias-class-attribute", project(flow("return bb.Color.RED", "import shop.b as bb\n"), b=color), 0))
    # B9: observable names of bundled definitions
    enum = "import enum\n\n\nclass Color(enum.Enum):\n    RED = {n}\n"
    add(ChunkCase("clashing-enum-names", project(flow("return str(Color.RED), repr(Other.RED)",
                                                      "from shop.a import Color\nfrom shop.b import Color as Other\n"),
                                                 a=enum.format(n=1), b=enum.format(n=2)), 0))
    add(ChunkCase("builtin-named-helper-keeps-its-name", project(flow("return round.__name__, round(o)", "from shop.a import round\n"),
                                                                 a="def round(x):\n    return 7\n"), 1))
    errors = "class PayError(Exception):\n    pass\n"
    add(ChunkCase("flow-failure-type-of-a-first-party-exception", project(flow("raise PayError('no')", "from shop.errors import PayError\n"),
                                                                          errors=errors), 0))
    # held: what dataclasses, NamedTuple and get_type_hints see in a chunk
    add(ChunkCase("dataclass-classvar-and-kw-only", project(
        flow("import dataclasses\nreturn [f.name for f in dataclasses.fields(C)], C(1, y=2).y", "from shop.models import C\n"),
        models="from dataclasses import KW_ONLY, dataclass\nfrom typing import ClassVar\n\n\n@dataclass\nclass C:\n"
               "    x: int\n    _: KW_ONLY\n    y: int = 0\n    z: ClassVar[int] = 2\n"), 0))
    add(ChunkCase("namedtuple-fields", project(flow("return P(1, 2)._asdict(), P._fields", "from shop.models import P\n"),
                                               models="from typing import NamedTuple\n\n\nclass P(NamedTuple):\n    a: int\n    b: int = 0\n"), 0))
    add(ChunkCase("get-type-hints", project(flow("import typing\nreturn str(typing.get_type_hints(helper))", "from shop.models import helper\n"),
                                            models="def helper(x: int) -> str:\n    return x\n"), 0))
    # B13: an imported first-party callable used by a module-level decorator or call
    log = "def log(f):\n    f.v = 1\n    return f\n"
    add(ChunkCase("imported-decorator-on-a-helper", project(flow("return helper(o)", "from shop.h import helper\n"), deco=log,
                                                            h="from shop.deco import log\n\n\n@log\ndef helper(x):\n    return x\n"), 3))
    add(ChunkCase("imported-decorator-factory-with-wraps", project(
        flow("return helper(o)", "from shop.h import helper\n"),
        deco="import functools\n\n\ndef retry(n):\n    def d(f):\n        @functools.wraps(f)\n        def w(*a):\n"
             "            return f(*a) + n\n        return w\n    return d\n",
        h="from shop.deco import retry\n\n\n@retry(1)\ndef helper(x):\n    return x\n"), 3))
    add(ChunkCase("imported-class-decorator", project(flow("return K.v", "from shop.h import K\n"), deco=log,
                                                      h="from shop.deco import log\n\n\n@log\nclass K:\n    pass\n"), 3))
    add(ChunkCase("imported-function-called-at-module-level", project(
        flow("return T", "from shop.h import T\n"), deco="def reg(t):\n    t.append(1)\n",
        h="from shop.deco import reg\n\nT = []\nreg(T)\n"), 3))
    add(ChunkCase("decorator-through-a-module-attribute", project(flow("return helper(o)", "from shop.h import helper\n"), deco=log,
                                                                  h="from shop import deco\n\n\n@deco.log\ndef helper(x):\n    return x\n"), 3))
    # B11: a class-body statement the flow does not reach by name
    add(ChunkCase("set-name-of-an-unread-class-attribute", project(
        method_flow("    f = Field()\n", "return self.rate", head="from shop.desc import Field\n"),
        desc="class Field:\n    def __set_name__(self, owner, name):\n        owner.rate = 1\n"), 0))  # B11: fixed
    # held: method flow shapes and module-level Python
    add(ChunkCase("mixin-and-super", project(
        method_flow("    def price(self, x):\n        return super().price(x) + 1\n", "return self.price(o), self.helper(o)",
                    head="from shop.base import Base\n", bases="(Base)"),
        base="class Mixin:\n    def helper(self, x):\n        return -x\n\n\nclass Base(Mixin):\n    def price(self, x):\n        return x\n"), 3))
    add(ChunkCase("property-setter-and-init-helper", project(method_flow(
        "    def __init__(self):\n        self._setup()\n\n    def _setup(self):\n        self._r = 1\n\n    @property\n"
        "    def rate(self):\n        return self._r\n\n    @rate.setter\n    def rate(self, v):\n        self._r = v * 2\n",
        "before = self.rate\nself.rate = o\nreturn before, self.rate")), 3))
    add(ChunkCase("metaclass-and-init-subclass", project(
        method_flow("    pass\n", "return self.rate, self.kind", head="from shop.base import Base\n", bases="(Base)"),
        base="class Meta(type):\n    def __call__(cls, *a):\n        obj = super().__call__(*a)\n        obj.rate = 1\n        return obj\n\n\n"
             "class Base(metaclass=Meta):\n    def __init_subclass__(cls, **kw):\n        cls.kind = 'sub'\n"), 0))
    add(ChunkCase("descriptor-and-dataclass-flow-class", project(
        method_flow("    a: int = 1\n    rate = Rate()\n", "return self.a, self.rate",
                    head="from dataclasses import dataclass\nfrom shop.desc import Rate\n").replace("class Checkout", "@dataclass\nclass Checkout"),
        desc="class Rate:\n    def __get__(self, obj, owner):\n        return 7\n"), 0))
    add(ChunkCase("loop-built-closures-and-mutating-calls", project(
        flow("return FNS[1](), CFG['a']", "from shop.h import FNS\nfrom shop.cfg import CFG\n"),
        h="FNS = []\nfor i in range(2):\n    FNS.append(lambda i=i: i)\n",
        cfg="from shop.fill import Filler\n\nCFG = {}\nFiller().fill(CFG)\n", fill="class Filler:\n    def fill(self, d):\n        d['a'] = 1\n"), 0))
    add(ChunkCase("global-written-by-a-called-helper", project(
        flow("return helper(), helper()", "from shop.h import helper\n"),
        h="STATE = 0\n\n\ndef helper():\n    bump()\n    return STATE\n\n\ndef bump():\n    global STATE\n    STATE += 1\n"), 0))
    add(ChunkCase("import-error-fallback", project(
        flow("return f(o)", "try:\n    from shop.missing import f\nexcept ImportError:\n    def f(x):\n        return -x\n")), 3))
    # rule 2: a module-level ``if`` split into pieces; the chunk replays the pieces it reaches
    report = "\n\ndef report():\n    print('started')\n"
    add(ChunkCase("main-block-split-into-pieces", project(
        flow("return CFG['x'], ITEMS", "\nCFG = {'x': 1}\nITEMS = []\n") + report
        + "\n\nif __name__ == '__main__':\n    CFG['x'] = 2\n    report()\n    ITEMS.append(3)\n"), 0))
    add(ChunkCase("true-guard-split-into-pieces", project(
        flow("return CFG['x'], ITEMS", "\nFLAG = True\nCFG = {'x': 1}\nITEMS = []\n") + report
        + "\n\nif FLAG:\n    CFG['x'] = 2\n    report()\n    ITEMS.append(3)\nelse:\n    ITEMS.append(4)\n"), 0))
    add(ChunkCase("guard-changed-by-a-piece-keeps-the-block-whole", project(
        flow("return CFG['x'], READY", "\nREADY = False\nCFG = {'x': 1}\n")
        + "\n\ndef setup():\n    global READY\n    READY = True\n\n\nif not READY:\n    setup()\n    CFG['x'] = 2\n"), 0))
    # B15, B16: the chunk's one namespace for several modules
    add(ChunkCase("globals-read-by-string-after-a-rename", project(
        flow("return LIMIT, get()", "from shop.h import get\n\nLIMIT = 1\n"),
        h="LIMIT = 5\n\n\ndef get():\n    return globals()['LIMIT']\n"), 0))
    add(ChunkCase("own-module-getattr-after-a-rename", project(
        flow("return LIMIT, get()", "from shop.h import get\n\nLIMIT = 1\n"),
        h="import sys\n\nLIMIT = 5\n\n\ndef get():\n    return getattr(sys.modules[__name__], 'LIMIT')\n"), 0))
    add(ChunkCase("third-party-star-import-beside-a-first-party-name", project(
        flow("return area(1), tri()", "from shop.a import area\nfrom shop.b import tri\n"),
        a="from math import *\n\n\ndef area(r):\n    return pi * r * r\n", b="pi = 3\n\n\ndef tri():\n    return pi\n"), 0))
    # B17: a valid helper the build refuses
    add(ChunkCase("module-annotations-read-by-a-helper", project(
        flow("return get()", "from shop.h import get\n"), h="LIMIT: int = 5\n\n\ndef get():\n    return sorted(__annotations__)\n"), 0))
    # B20: a data file next to the module
    add(ChunkCase("package-data-file-read-by-a-helper", {**project(
        flow("return helper()", "from shop.h import helper\n"),
        h="from pathlib import Path\n\n\ndef helper():\n    return (Path(__file__).parent / 'prompt.txt').read_text()\n"),
        "shop/prompt.txt": "be nice\n"}, 0))
    # B22: a first-party module in a chunk is a namespace of copies
    pricing = "RATE = 0.1\n\n\ndef discount(total):\n    return total - total * RATE\n"
    add(ChunkCase("module-level-store-into-a-reached-module", project(
        flow("return shop.pricing.discount(100)", "import shop.pricing\n\nshop.pricing.RATE = 0.5\n"), pricing=pricing), 0))
    add(ChunkCase("run-time-store-into-a-module-alias", project(
        flow("bb.LIMIT = o\nreturn bb.get()", "import shop.b as bb\n"), b="LIMIT = 1\n\n\ndef get():\n    return LIMIT\n"), 7))
    # B23: a global only a function creates
    add(ChunkCase("global-created-by-a-function-beside-a-same-named-global", project(
        flow("init()\nreturn get(), X", "from shop.h import get, init\n\nX = 'flows'\n"),
        h="def init():\n    global X\n    X = 'h'\n\n\ndef get():\n    return X\n"), 0))
    # B24: string annotations
    add(ChunkCase("string-annotation-of-a-dataclass-field", project(
        flow("return [str(f.type) for f in dataclasses.fields(W)]", "import dataclasses\nfrom shop.b import W\n"),
        b="import dataclasses\n\n\nclass Money:\n    pass\n\n\n@dataclasses.dataclass\nclass W:\n    m: 'Money' = None\n"), 0))
    add(ChunkCase("string-annotation-beside-a-same-named-class", project(
        flow("import typing\nreturn typing.get_type_hints(f)['x'] is Money", "from shop.b import f\n\n\nclass Money:\n    pass\n"),
        b="class Money:\n    pass\n\n\ndef f(x: 'Money'):\n    return x\n"), 0))
    # (found with B24) deferred annotations: names only an annotation spells are looked up later, by name
    future = "from __future__ import annotations\n\n"
    add(ChunkCase("deferred-annotation-resolved-by-get-type-hints", project(
        future + flow("import typing\nreturn repr(typing.get_type_hints(checkout))", "from shop.models import Order\n",
                      signature="def checkout(ctx, o: Order) -> int:"),
        models="import dataclasses\n\n\n@dataclasses.dataclass\nclass Order:\n    n: int = 1\n"), 0))
    add(ChunkCase("deferred-classvar-of-a-dataclass", project(
        flow("return [f.name for f in dataclasses.fields(C)]", "import dataclasses\nfrom shop.m import C\n"),
        m=future + "import dataclasses\nfrom typing import ClassVar\n\n\n@dataclasses.dataclass\nclass C:\n"
                   "    x: int = 1\n    K: ClassVar[int] = 5\n"), 0))
    add(ChunkCase("string-annotation-of-a-class-whose-base-nothing-else-reaches", project(
        flow("import typing\nreturn repr(typing.get_type_hints(f))", "from shop.b import f\n"),
        b="class Base:\n    pass\n\n\nclass Money(Base):\n    pass\n\n\ndef f(x: 'Money'):\n    return x\n"), 0))
    add(ChunkCase("annotation-naming-a-type-checking-only-import", project(
        flow("import typing\nreturn typing.get_type_hints(f)", "from shop.b import f\n"),
        b="from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from shop.m import Money\n\n\n"
          "def f(x: 'Money'):\n    return x\n", m="class Money:\n    pass\n"), 0))
    # (found on temporalio/samples-python) a local variable's annotation is never evaluated
    add(ChunkCase("local-variable-annotation-naming-a-class-nothing-imports", project(
        flow("state: AgentState = {'a': o}\nreturn state"), b="class AgentState(dict):\n    pass\n"), 1))
    # an optional name of a package, absent live too: the chunk's import fails there without looking
    # further (the import system would have tried the live submodule shop.fast, running live shop)
    add(ChunkCase("optional-import-of-a-name-the-package-lacks", project(
        flow("return a(o), fast(o)", "from shop.compat import a\ntry:\n    from shop import fast\nexcept ImportError:\n"
             "    def fast(x):\n        return -x\n"), compat="def a(x):\n    return x\n"), 2))
    # (found on dbos-transact-py) an import cycle only the type checker sees: never run, so it
    # cannot start shop.cfg while shop.ser is half-run (dbos: _logger -> _dbos_config -> _serialization)
    add(ChunkCase("import-cycle-only-under-type-checking", project(
        flow("return get(), Config.s.__name__", "from shop.ser import get\nfrom shop.cfg import Config\n"),
        ser="from shop.log import log\n\n\nclass Serializer:\n    pass\n\n\ndef get():\n    return log(Serializer)\n",
        log="from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from shop.cfg import Config\n\n\n"
            "def log(x):\n    return x.__name__\n",
        cfg="from shop.ser import Serializer\n\n\nclass Config:\n    s = Serializer\n"), 0))
    # (found on dbos-transact-py) a re-export whose source drops the name: the package must drop it too
    add(ChunkCase("re-export-of-a-name-its-source-module-leaves-out", project(
        flow("return Client().n", "from shop.pkg import Client, Opts\n"),
        pkg__init="from .client import Client, Opts\n",
        pkg__client="from shop.opts import Opts as Opts\n\n\nclass Client:\n    n = 1\n",
        opts="class Opts:\n    pass\n"), 0))
    # (found on dbos-transact-py) a module only a lazy import reaches runs at its first use, as live:
    # an optional dependency it imports is needed only on the path that imports it
    lazy_h = ("LOG = []\n\n\ndef get(use):\n    if use:\n        from shop.opt import fancy\n        return fancy()\n"
              "    return 'plain'\n")
    add(ChunkCase("lazy-import-of-an-optional-dependency", project(
        flow("return get(False)", "from shop.h import get\n"), h=lazy_h,
        opt="import loomtest_not_installed_anywhere\n\n\ndef fancy():\n    return loomtest_not_installed_anywhere.x\n"), 0))
    add(ChunkCase("lazily-imported-module-runs-at-its-first-use", project(
        flow("before = list(LOG)\nx = get(True)\nreturn before, x, list(LOG)", "from shop.h import LOG, get\n"), h=lazy_h,
        opt="from shop.h import LOG\n\nLOG.append('opt ran')\n\n\ndef fancy():\n    return len(LOG)\n"), 0))
    # held: renames that must not touch locals, parameters, class attributes
    add(ChunkCase("renamed-helper-beside-a-parameter-and-a-default", project(
        flow("return helper(o), use(o), use2(o)", "from shop.h import use, use2\n\n\ndef helper(x):\n    return x + 1\n"),
        h="def helper(x):\n    return x * 10\n\n\ndef use(helper):\n    return helper\n\n\ndef use2(x, f=helper):\n    return f(x)\n"), 3))
    add(ChunkCase("mutual-recursion-across-modules-through-a-lazy-import", project(
        flow("return even(o)", "from shop.a import even\n"),
        a="def even(n):\n    from shop.b import odd\n    return True if n == 0 else odd(n - 1)\n",
        b="from shop.a import even\n\n\ndef odd(n):\n    return False if n == 0 else even(n - 1)\n"), 5))
    add(ChunkCase("deleted-and-redefined-name", project(
        flow("return f()", "from shop.h import f\n"), h="def f():\n    return 1\n\n\ng = f\ndel f\n\n\ndef f():\n    return g() + 1\n"), 0))
    add(ChunkCase("nested-class-method-flow", {"shop/__init__.py": "", "shop/flows.py": HEAD + "\n\nclass A:\n    class B:\n"
                                               "        @flow('checkout')\n        def run(self, ctx, o):\n            return o\n"}, 3))
    return cases


CHUNK_CASES: tuple[ChunkCase, ...] = tuple(_chunk_cases())


def _config_pairs() -> list[tuple[ProjectPair, tuple[str, ...], tuple[str, ...]]]:
    """(pair, flow decorators, step decorators): pairs that need another framework's decorators
    configured (kept out of ``PAIRS``: the benchmark configures ``packages`` only). The lead's
    decision on B14: such a decorator's arguments other than its id are behaviour and feed the
    CODE hash (the structural hash holds the id only)."""
    prefect = "from prefect import flow\n\n\n@flow(retries=3)\ndef checkout(o):\n    return o\n"
    base = {"shop/__init__.py": "", "shop/flows.py": prefect}
    runner = ("from prefect import flow\nfrom shop.runners import Runner\n\n\n@flow(task_runner=Runner(), retries=RETRIES)\n"
              "def checkout(o):\n    return o\n\n\nRETRIES = 3\n")
    reach = {"shop/__init__.py": "", "shop/flows.py": runner, "shop/runners.py": "class Runner:\n    workers = 4\n"}
    pairs = [
        C("framework-flow-decorator-argument", "flow decorator arguments", base, edit(base, "shop/flows.py", "retries=3", "retries=0")),
        E("framework-flow-decorator-same-arguments-respelled", "flow decorator arguments", base,
          edit(base, "shop/flows.py", "retries=3", "retries=0x3")),
        C("framework-flow-decorator-argument-added", "flow decorator arguments", base,
          edit(base, "shop/flows.py", "retries=3", "retries=3, timeout_seconds=60")),
        C("framework-flow-decorator-argument-reaches-a-first-party-class", "flow decorator arguments", reach,
          edit(reach, "shop/runners.py", "workers = 4", "workers = 1")),
        C("framework-flow-decorator-argument-reaches-a-module-constant", "flow decorator arguments", reach,
          edit(reach, "shop/flows.py", "RETRIES = 3", "RETRIES = 4")),
        E("framework-flow-decorator-argument-unrelated-edit", "flow decorator arguments", reach,
          edit(reach, "shop/flows.py", "RETRIES = 3\n", "RETRIES = 3\n\n\ndef unrelated():\n    return 1\n")),
    ]
    return [(replace(p, flow_id="shop.flows:checkout"), ("prefect.flow",), ("prefect.task",)) for p in pairs]


#: pairs about the code hash of a flow whose decorator is another framework's (``prefect.flow``
#: configured): its arguments but the id must move it; the structural hash (``flow_hash``: the id)
#: must not move
CONFIG_PAIRS = tuple(_config_pairs())


def _discovery_cases() -> list[DiscoveryCase]:
    api = "from loom_runtime import flow, step\n"
    body = "def checkout(ctx, o):\n    return o\n"
    return [
        DiscoveryCase("decorator-re-exported-by-a-first-party-module",
                      project(f"from shop.api import flow\n\n\n@flow('checkout')\n{body}", api=api), "reported"),
        DiscoveryCase("decorator-star-re-exported-by-a-first-party-module",
                      project(f"from shop.api import *\n\n\n@flow('checkout')\n{body}", api=api), "reported"),
        DiscoveryCase("decorator-through-a-first-party-module-attribute",
                      project(f"from shop import api\n\n\n@api.flow('checkout')\n{body}", api=api), "reported"),
        DiscoveryCase("decorator-aliased-by-assignment",
                      project(f"from loom_runtime import flow\n\ndurable = flow\n\n\n@durable('checkout')\n{body}"), "reported"),
        DiscoveryCase("decorator-wrapped-by-a-factory",
                      project(f"from loom_runtime import flow\n\n\ndef durable(id):\n    return flow(id)\n\n\n@durable('checkout')\n{body}"),
                      "reported"),
        DiscoveryCase("decorator-applied-by-a-call",
                      project(f"from loom_runtime import flow\n\n\n{body}\n\nrun = flow('checkout')(checkout)\n"), "reported"),
        DiscoveryCase("two-flows-on-one-function-name",
                      project(f"from loom_runtime import flow\n\n\n@flow('a')\n{body}\n\n@flow('b')\n{body}"), "error"),
        # held: the spellings DESIGN §6 lists
        DiscoveryCase("decorator-from-the-definition-module",
                      project(f"from loom_runtime.definition import flow\n\n\n@flow('checkout')\n{body}"), "flow"),
        DiscoveryCase("decorator-through-a-module-alias",
                      project(f"import loom_runtime as lr\nfrom loom_runtime import Context\n\n\n@lr.flow('checkout')\n{body}"), "flow"),
        DiscoveryCase("decorator-from-a-star-import", project(f"from loom_runtime import *\n\n\n@flow('checkout')\n{body}"), "flow"),
        DiscoveryCase("static-method-flow-of-a-class",
                      project("from loom_runtime import flow\n\n\nclass A:\n    @staticmethod\n    @flow('checkout')\n"
                              "    def run(ctx, o):\n        return o\n"), "flow"),
    ]


DISCOVERY_CASES: tuple[DiscoveryCase, ...] = tuple(_discovery_cases())


def _breaker2_pairs() -> list[ProjectPair]:
    """Second adversarial round (breaker2, findings ``C<n>`` on /work/TEAM.md). Every ``changed`` pair
    here was run live on both sides: the flow's result differs."""
    pairs: list[ProjectPair] = []
    add = pairs.append

    # -------------------------------------------------- C1: an inherited method dispatches on self to the flow class's overrides
    k = "method flows: virtual dispatch"
    template = "class Base:\n    def process(self):\n        return self.hook() + 10\n\n    def hook(self):\n        return 0\n"
    hook = "    def hook(self):\n        return 1\n"
    base = project(method_flow(hook, "return self.process()", head="from shop.base import Base\n", bases="(Base)"), base=template)
    add(C("inherited-method-calls-an-override-of-the-flow-class", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    base = project(method_flow(hook, "return self.process()", head="\n\n" + template, bases="(Base)"))
    add(C("inherited-method-calls-an-override-same-module", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    base = project(method_flow(hook, "return super().process()", head="\n\n" + template, bases="(Base)"))
    add(C("super-method-calls-an-override-of-the-flow-class", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    for name, method in [
        ("inherited-method-reads-an-overridden-attribute", "    def process(self):\n        return self.HOOK + 10\n"),
        ("inherited-classmethod-reads-an-overridden-attribute", "    @classmethod\n    def process(cls):\n        return cls.HOOK + 10\n"),
        ("inherited-method-reads-type-self-attribute", "    def process(self):\n        return type(self).HOOK + 10\n"),
    ]:
        base = project(method_flow("    HOOK = 1\n", "return self.process()", head=f"\n\nclass Base:\n    HOOK = 0\n\n{method}", bases="(Base)"))
        add(C(name, k, base, edit(base, "shop/flows.py", "HOOK = 1", "HOOK = 2")))
    init = "\n\nclass Base:\n    def __init__(self):\n        self.v = self.setup()\n\n    def setup(self):\n        return 0\n"
    base = project(method_flow("    def setup(self):\n        return 1\n", "return self.v", head=init, bases="(Base)"))
    add(C("inherited-init-calls-an-override-of-the-flow-class", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    # held: the same shape through a helper class the flow names (the class is hashed whole)
    sub = "from shop.base import Base\n\n\nclass Sub(Base):\n    def hook(self):\n        return 1\n"
    base = project(flow("return Sub().process()", "from shop.sub import Sub\n"), base=template, sub=sub)
    add(C("inherited-method-calls-an-override-of-a-helper-class", k, base, edit(base, "shop/sub.py", "return 1", "return 2")))
    base = project(method_flow(hook + "\n    def unrelated(self):\n        return 0\n", "return self.process()",
                               head="\n\n" + template, bases="(Base)"))
    add(E("flow-class-method-nothing-calls-edited", k, base, edit(base, "shop/flows.py", "return 0\n\n    @flow", "return 5\n\n    @flow")))

    # -------------------------------------------------- C2: a third-party base's method calls the flow class's overrides
    k = "method flows: third-party base"
    mapping = "    def __getitem__(self, k):\n        return 1\n\n    def __len__(self):\n        return 0\n\n    def __iter__(self):\n        return iter(())\n"
    base = project(method_flow(mapping, "return self.get('a')", head="from collections.abc import Mapping\n", bases="(Mapping)"))
    add(C("mapping-get-calls-the-flow-class-getitem", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    base = project(method_flow("    def __getitem__(self, k):\n        return 1\n", "return self.get('a')", head="from shop.base import Base\n",
                               bases="(Base)"), base="from collections import UserDict\n\n\nclass Base(UserDict):\n    pass\n")
    add(C("userdict-get-through-a-first-party-base", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    # held: the protocol spelled by syntax on self, and a helper class with a third-party base
    base = project(method_flow("    def __getitem__(self, k):\n        return 1\n", "return self[o]"))
    add(C("subscript-of-self-uses-getitem", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    base = project(flow("return M().get('a')", "from collections.abc import Mapping\n\n\nclass M(Mapping):\n" + mapping))
    add(C("helper-class-mapping-get", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))

    # -------------------------------------------------- C3: import_module / __import__ spelled otherwise, or computed
    k = "dynamic imports"
    rate = ("shop/pricing.py", "0.1", "0.2")
    for name, body, head in [
        ("import-module-imported-under-an-alias", "return im('shop.pricing').discount(o)", "from importlib import import_module as im\n"),
        ("import-module-name-keyword", "import importlib\nreturn importlib.import_module(name='shop.pricing').discount(o)", ""),
        ("import-module-relative-with-package", "import importlib\nreturn importlib.import_module('.pricing', 'shop').discount(o)", ""),
        ("import-module-relative-with-dunder-package",
         "import importlib\nreturn importlib.import_module('.pricing', package=__package__).discount(o)", ""),
        ("import-module-name-from-a-module-constant", "import importlib\nreturn importlib.import_module(MOD).discount(o)", "\nMOD = 'shop.pricing'\n"),
        ("import-module-computed-name", "import importlib\nreturn importlib.import_module('shop.' + 'pricing').discount(o)", ""),
        ("dunder-import-computed-name", "return __import__('shop.' + 'pricing', fromlist=['x']).discount(o)", ""),
        ("getattr-of-the-package-computed-submodule", "import shop.pricing\nimport shop\nreturn getattr(shop, 'pri' + 'cing').discount(o)", ""),
    ]:
        base = project(flow(body, head), pricing=PRICING)
        add(C(name, k, base, edit(base, *rate)))
    base = project(flow("return __import__('shop.pricing', fromlist=['x']).discount(o)"), pricing=PRICING)
    add(C("dunder-import-literal", k, base, edit(base, *rate)))  # held
    base = project(flow("import importlib\nreturn importlib.import_module('json').dumps(o)"), pricing=PRICING)
    add(E("import-module-of-a-third-party-literal", k, base, edit(base, *rate)))  # held

    # -------------------------------------------------- C4: code in strings imports first-party modules
    k = "exec and eval of strings"
    for name, body, head in [
        ("exec-of-a-literal-importing-a-helper", "ns = {}\nexec('from shop.pricing import discount', ns)\nreturn ns['discount'](o)", ""),
        ("module-level-exec-of-a-literal-import", "return discount(o)", "\nexec('from shop.pricing import discount')\n"),
        ("eval-of-a-literal-dunder-import", "return eval(\"__import__('shop.pricing', fromlist=['x']).discount(o)\")", ""),
        ("compile-then-exec-of-a-literal-import",
         "code = compile('from shop.pricing import discount as d', 'x', 'exec')\nns = {}\nexec(code, ns)\nreturn ns['d'](o)", ""),
    ]:
        base = project(flow(body, head), pricing=PRICING)
        add(C(name, k, base, edit(base, *rate)))
    base = project(flow("ns = {}\nexec(SRC, ns)\nreturn ns['discount'](o)", "from shop.src import SRC\n"), pricing=PRICING,
                   src="SRC = 'from shop.pricing import discount'\n")
    add(C("exec-of-an-imported-constant-importing-a-helper", k, base, edit(base, *rate)))

    # -------------------------------------------------- C5: standard-library resolvers of dotted names
    k = "names resolved from strings"
    for name, body in [
        ("pkgutil-resolve-name", "import pkgutil\nreturn pkgutil.resolve_name('shop.pricing:discount')(o)"),
        ("pydoc-locate", "import pydoc\nreturn pydoc.locate('shop.pricing.discount')(o)"),
        ("runpy-run-module", "import runpy\nreturn runpy.run_module('shop.pricing')['discount'](o)"),
        ("sys-modules-literal-key", "import sys\nimport shop.pricing as _\nreturn sys.modules['shop.pricing'].discount(o)"),
    ]:
        base = project(flow(body), pricing=PRICING)
        add(C(name, k, base, edit(base, *rate)))

    # -------------------------------------------------- C6: third-party process state changed by calls of a module that runs
    k = "effects on third-party state"
    decimal_ = ("import decimal\n\ndecimal.getcontext().prec = 3\n", "= 3", "= 4", "return str(Decimal(1) / Decimal(7))", "from decimal import Decimal\n")
    for what, (stmt, old, new, body, head) in [
        ("decimal-context", decimal_),
        ("decimal-setcontext", ("import decimal\n\ndecimal.setcontext(decimal.Context(prec=3))\n", "prec=3", "prec=5", decimal_[3], decimal_[4])),
        ("os-environ-setdefault", ("import os\n\nos.environ.setdefault('RATE', '5')\n", "'5'", "'6'", "import os\nreturn os.environ.get('RATE')", "")),
        ("warnings-filter", ("import warnings\n\nwarnings.simplefilter('error')\n", "'error'", "'ignore'", "import warnings\nwarnings.warn('x')\nreturn 1", "")),
        ("recursion-limit", ("import sys\n\nsys.setrecursionlimit(100)\n", "(100)", "(10000)", "import sys\nreturn sys.getrecursionlimit()", "")),
    ]:
        base = project(flow(body, head), init=stmt)
        add(C(f"{what}-set-by-the-package-init", k, base, edit(base, "shop/__init__.py", old, new)))
        base = project(flow(body, head + "import shop.setup\n"), setup=stmt)
        add(C(f"{what}-set-by-a-module-the-flow-module-imports", k, base, edit(base, "shop/setup.py", old, new)))
    base = project(flow("return str(Decimal(1) / Decimal(7))", "from decimal import Decimal\nimport decimal\n\ndecimal.getcontext().prec = 3\n"))
    add(C("decimal-context-same-module-other-spelling", k, base, edit(base, "shop/flows.py", "= 3", "= 4")))
    base = project(flow("warn('x')\nreturn 1", "from warnings import warn\nimport warnings\n\nwarnings.simplefilter('error')\n"))
    add(C("warnings-filter-same-module-other-spelling", k, base, edit(base, "shop/flows.py", "'error'", "'ignore'")))
    # held: stores into third-party modules, and the same spelling in the same module
    base = project(flow("import os\nreturn os.environ['RATE']"), init="import os\n\nos.environ['RATE'] = '5'\n")
    add(C("os-environ-store-by-the-package-init", k, base, edit(base, "shop/__init__.py", "'5'", "'6'")))
    base = project(flow("return str(decimal.Decimal(1) / decimal.Decimal(7))", "import decimal\n\ndecimal.getcontext().prec = 3\n"))
    add(C("decimal-context-same-module-same-spelling", k, base, edit(base, "shop/flows.py", "= 3", "= 4")))

    # -------------------------------------------------- C7: a class statement runs its bases' __init_subclass__ / metaclass
    k = "class statements change their bases"
    registry = "REGISTRY = {}\n\n\nclass Plugin:\n    def __init_subclass__(cls, key, **kw):\n        REGISTRY[key] = cls\n"
    plugin = "from shop.reg import Plugin\n\n\nclass A(Plugin, key=3):\n    def run(self):\n        return 1\n"
    base = project(flow("return REGISTRY[o]().run()", "from shop.reg import REGISTRY\nimport shop.plugins\n"), reg=registry, plugins=plugin)
    add(C("init-subclass-registry-filled-by-an-imported-module", k, base, edit(base, "shop/plugins.py", "return 1", "return 2")))
    add(C("init-subclass-registry-key-changed", k, base, edit(base, "shop/plugins.py", "key=3", "key=4")))
    base = project(flow("return REGISTRY[o]().run()", "from shop.reg import REGISTRY, Plugin\n\n\nclass A(Plugin, key=3):\n"
                        "    def run(self):\n        return 1\n"), reg=registry)
    add(C("init-subclass-registry-filled-in-the-same-module", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    meta = ("REGISTRY = {}\n\n\nclass Meta(type):\n    def __new__(m, name, bases, ns):\n        cls = super().__new__(m, name, bases, ns)\n"
            "        REGISTRY[name] = cls\n        return cls\n\n\nclass Plugin(metaclass=Meta):\n    pass\n")
    base = project(flow("return REGISTRY['A']().run()", "from shop.reg import REGISTRY\nimport shop.plugins\n"), reg=meta,
                   plugins=plugin.replace(", key=3", ""))
    add(C("metaclass-registry-filled-by-an-imported-module", k, base, edit(base, "shop/plugins.py", "return 1", "return 2")))
    base = project(flow("return [c().run() for c in Plugin.__subclasses__()]", "from shop.reg import Plugin\nimport shop.plugins\n"),
                   reg="class Plugin:\n    pass\n", plugins=plugin.replace(", key=3", ""))
    add(C("subclasses-of-a-reached-class", k, base, edit(base, "shop/plugins.py", "return 1", "return 2")))
    # equal: a subclass of a class the flow does not reach, in a module that runs
    base = project(flow("return REGISTRY[o]().run()", "from shop.reg import REGISTRY\nimport shop.plugins\n"),
                   reg=registry + "\n\nclass Other:\n    pass\n",
                   plugins="from shop.reg import Other, Plugin\n\n\nclass A(Plugin, key=3):\n    def run(self):\n        return 1\n"
                   "\n\nclass B(Other):\n    def run(self):\n        return 5\n")
    add(E("subclass-of-an-unreached-class-edited", k, base, edit(base, "shop/plugins.py", "return 5", "return 6")))
    add(C("subclass-of-the-registering-class-beside-it-edited", k, base, edit(base, "shop/plugins.py", "return 1", "return 2")))
    # held: the decorator spelling of the same registry
    deco = "REGISTRY = {}\n\n\ndef register(key):\n    def d(cls):\n        REGISTRY[key] = cls\n        return cls\n    return d\n"
    base = project(flow("return REGISTRY[o]().run()", "from shop.reg import REGISTRY\nimport shop.plugins\n"), reg=deco,
                   plugins="from shop.reg import register\n\n\n@register(3)\nclass A:\n    def run(self):\n        return 1\n")
    add(C("decorator-registry-filled-by-an-imported-module", k, base, edit(base, "shop/plugins.py", "return 1", "return 2")))

    # -------------------------------------------------- C8: a computed __all__ decides what a star import binds
    k = "star imports: computed __all__"
    util = "__all__ = [n for n in ['helper']]\n\n\ndef helper(x):\n    return x\n"
    base = project(flow("return helper(o)", "\n\ndef helper(x):\n    return 0\n\n\nfrom shop.util import *\n"), util=util)
    add(C("computed-all-stops-exporting-a-name", k, base, edit(base, "shop/util.py", "['helper']]", "[]]")))
    # held: the literal spellings
    base = project(flow("return helper(o)", "\n\ndef helper(x):\n    return 0\n\n\nfrom shop.util import *\n"),
                   util="__all__ = ['helper']\n__all__.remove('helper')\n\n\ndef helper(x):\n    return x\n")
    add(C("all-remove-stops-exporting-a-name", k, base, edit(base, "shop/util.py", "__all__.remove('helper')\n", "")))
    base = project(flow("return sub.helper(o)", "from shop.pkg import *\n"), pkg__init="__all__ = ['sub']\n", pkg__sub="def helper(x):\n    return x\n")
    add(C("star-import-all-names-a-submodule", k, base, edit(base, "shop/pkg/sub.py", "return x", "return -x")))
    return pairs


PAIRS = PAIRS + tuple(_breaker2_pairs())


def _framework_pairs() -> list[tuple[ProjectPair, str]]:
    """(pair, framework): pairs under a framework profile (``[tool.loom] framework``), found by
    breaker2. Live evidence: the SDK's own definitions of both sides differ (temporalio 1.35:
    ``activity._Definition.must_from_callable(ACT).name`` is ``act_a`` vs ``act_b``;
    ``workflow._Definition.must_from_class(W).failure_exception_types`` is ``[ValueError]`` vs ``[]``)."""
    out: list[tuple[ProjectPair, str]] = []
    temporal = "from datetime import timedelta\n\nfrom temporalio import activity, workflow\n"
    acts = ("\n\n@activity.defn\nasync def act_a(x: int) -> int:\n    return x\n\n\n"
            "@activity.defn\nasync def act_b(x: int) -> int:\n    return -x\n")

    def workflow_module(body: str, head: str = "", deco: str = "@workflow.defn") -> str:
        return (f"{temporal}{head}\n\n{deco}\nclass W:\n    @workflow.run\n    async def run(self, o: int) -> int:\n"
                f"        {body}\n")

    call = "return await workflow.execute_activity({}, o, start_to_close_timeout=timedelta(seconds=5))"

    def temporal_pair(p: ProjectPair) -> tuple[ProjectPair, str]:
        return replace(p, flow_id="W"), "temporal"

    # -------------------------------------------------- C9: a name-only argument spelled through an alias
    k = "name-only arguments: aliases"
    base = project(workflow_module(call.format("ACT"), acts + "\n\nACT = act_a\n"))
    out.append(temporal_pair(C("activity-through-a-module-level-alias", k, base, edit(base, "shop/flows.py", "= act_a", "= act_b"))))
    base = project(workflow_module(call.format("acts.ACT"), "from shop import acts\n"),
                   acts="from temporalio import activity\n" + acts + "\n\nACT = act_a\n")
    out.append(temporal_pair(C("activity-through-another-modules-alias", k, base, edit(base, "shop/acts.py", "= act_a", "= act_b"))))
    base = project(workflow_module(call.format("NAME"), "from shop.names import NAME\n"), names="NAME = 'act_a'\n")
    out.append(temporal_pair(C("activity-type-from-a-string-constant", k, base, edit(base, "shop/names.py", "'act_a'", "'act_b'"))))
    dbos = "from dbos import DBOS\n"
    kids = "\n\n@DBOS.workflow()\ndef child_a(x):\n    return x\n\n\n@DBOS.workflow()\ndef child_b(x):\n    return -x\n"
    parent = "\n\n@DBOS.workflow()\ndef parent(o):\n    return DBOS.start_workflow(CHILD, o).get_result()\n"
    base = project(dbos + kids + "\n\nCHILD = child_a\n" + parent)
    out.append((replace(C("dbos-child-started-through-an-alias", k, base, edit(base, "shop/flows.py", "= child_a", "= child_b")),
                        flow_id="shop.flows:parent"), "dbos"))
    # held: the same alias called directly, and a table of activities
    base = project(dbos + kids + "\n\nCHILD = child_a\n" + parent.replace("DBOS.start_workflow(CHILD, o).get_result()", "CHILD(o)"))
    out.append((replace(C("dbos-child-called-through-an-alias", k, base, edit(base, "shop/flows.py", "= child_a", "= child_b")),
                        flow_id="shop.flows:parent"), "dbos"))
    base = project(workflow_module(call.format("ACTS['x']"), acts + "\n\nACTS = {'x': act_a}\n"))
    out.append(temporal_pair(C("activity-through-a-table", k, base, edit(base, "shop/flows.py", "{'x': act_a}", "{'x': act_b}"))))
    base = project(workflow_module(call.format("act_a"), acts))
    out.append(temporal_pair(E("activity-body-edited", k, base, edit(base, "shop/flows.py", "return x\n", "return 2 * x\n"))))
    base = project(workflow_module(call.format("ACT"), acts + "\n\nACT = act_a\n"))
    out.append(temporal_pair(E("activity-through-an-alias-body-edited", k, base, edit(base, "shop/flows.py", "return x\n", "return 2 * x\n"))))
    base = project(workflow_module(call.format("NAME"), "from shop.names import NAME\n"), names="NAME = 'act_a'\nOTHER = 1\n")
    out.append(temporal_pair(E("activity-type-constant-module-other-name-edited", k, base,
                                 edit(base, "shop/names.py", "OTHER = 1", "OTHER = 2"))))

    # -------------------------------------------------- C10: the workflow class decorator's other arguments
    k = "workflow class decorator arguments"
    for name, deco, old, new in [
        ("defn-failure-exception-types", "@workflow.defn(failure_exception_types=[ValueError])", "[ValueError]", "[]"),
        ("defn-sandboxed", "@workflow.defn(sandboxed=True)", "sandboxed=True", "sandboxed=False"),
    ]:
        base = project(workflow_module("return o", deco=deco))
        out.append(temporal_pair(C(name, k, base, edit(base, "shop/flows.py", old, new))))
    base = project(workflow_module("return o", deco="@workflow.defn(name='W')"))
    out.append(temporal_pair(E("defn-name-respelled", k, base, edit(base, "shop/flows.py", "name='W'", 'name="W"'))))
    return out


#: pairs fingerprinted under a framework profile (``LoomConfig(framework=...)``)
FRAMEWORK_PAIRS = tuple(_framework_pairs())


def _breaker2_pairs_2() -> list[ProjectPair]:
    pairs: list[ProjectPair] = []
    add = pairs.append
    # -------------------------------------------------- C11: an imported function called at import time changes state in its body
    k = "effects through a called function's body"
    base = project(flow("return CFG['a']", "from shop.cfg import CFG\nfrom shop.g import setup\n\nsetup()\n"), cfg="CFG = {'a': 1}\n",
                   g="from shop.cfg import CFG\n\n\ndef setup():\n    CFG['a'] = 5\n")
    add(C("imported-function-called-at-module-level-stores-into-a-table", k, base, edit(base, "shop/g.py", "= 5", "= 6")))
    base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.g\n"), cfg="CFG = {'a': 1}\n",
                   g="from shop.cfg import CFG\n\n\ndef setup():\n    CFG['a'] = 5\n\n\nsetup()\n")
    add(C("imported-module-calls-its-own-function-that-stores-into-a-table", k, base, edit(base, "shop/g.py", "= 5", "= 6")))  # fp2-dyn
    base = project(flow("return st.N", "from shop import st\nfrom shop.g import init\n\ninit()\n"), st="N = 0\n",
                   g="from shop import st\n\n\ndef init():\n    st.N = 5\n")
    add(C("imported-function-called-at-module-level-stores-into-a-module", k, base, edit(base, "shop/g.py", "= 5", "= 6")))
    base = project(flow("return helper(o), helper.cache_info().hits", "from shop.h import helper\nfrom shop.g import warm\n\nwarm()\n"),
                   h="import functools\n\n\n@functools.lru_cache(maxsize=None)\ndef helper(x):\n    return x\n",
                   g="from shop.h import helper\n\n\ndef warm():\n    helper(3)\n")
    add(C("imported-function-called-at-module-level-warms-a-cache", k, base, edit(base, "shop/g.py", "helper(3)", "helper(4)")))
    # held: the same shapes inside one module, and a function nothing calls
    base = project(flow("return CFG['a']", "\nCFG = {'a': 1}\n\n\ndef setup():\n    CFG['a'] = 5\n\n\nsetup()\n"))
    add(C("own-function-called-at-module-level-stores-into-a-table", k, base, edit(base, "shop/flows.py", "= 5", "= 6")))
    base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.g\n"), cfg="CFG = {'a': 1}\n",
                   g="from shop.cfg import CFG\n\n\ndef setup():\n    CFG['a'] = 5\n")
    add(E("imported-module-defines-a-mutator-nothing-calls", k, base, edit(base, "shop/g.py", "= 5", "= 6")))
    return pairs


PAIRS = PAIRS + tuple(_breaker2_pairs_2())


def _breaker2_chunk_cases() -> list[ChunkCase]:
    pricing = "RATE = 0.1\n\n\ndef discount(total):\n    return total - total * RATE\n"
    return [
        # C12 (fixed: bundle/chunk_dynamic): a literal dynamic import of a first-party module in the flow: the hash follows
        # it, and the chunk's call is rewritten to import the chunk's module (it imported the live `shop`)
        ChunkCase("import-module-literal-in-the-flow", project(
            flow("import importlib\nreturn importlib.import_module('shop.pricing').discount(o)"), pricing=pricing), 3),
        ChunkCase("dunder-import-literal-in-the-flow", project(
            flow("return __import__('shop.pricing', fromlist=['x']).discount(o)"), pricing=pricing), 3),
        # held (B13's shapes, fixed by the per-module layout): an imported first-party name used by a module-level call
        ChunkCase("imported-function-passed-to-partial-at-module-level", project(
            flow("return helper(o)", "from shop.h import helper\n"), b="def base(x, k):\n    return x + k\n",
            h="import functools\n\nfrom shop.b import base\n\nhelper = functools.partial(base, k=1)\n"), 3),
        ChunkCase("imported-contextvar-set-at-module-level", project(
            flow("return VAR.get()", "from shop.cv import VAR\nimport shop.setv\n"),
            cv="from contextvars import ContextVar\n\nVAR = ContextVar('v', default=1)\n", setv="from shop.cv import VAR\n\nVAR.set(5)\n"), 0),
        # held
        ChunkCase("nonlocal-counter-built-at-module-level", project(
            flow("return helper(o), helper(o)", "from shop.h import helper\n"),
            h="def make():\n    n = 10\n    def inc(x):\n        nonlocal n\n        n += 1\n        return n + x\n    return inc\n\n\nhelper = make()\n"), 3),
        ChunkCase("singledispatch-registered-by-a-module-the-package-imports", project(
            flow("return render(o)", "from shop.h import render\n"), init="from . import ext\n",
            h="import functools\n\n\n@functools.singledispatch\ndef render(x):\n    return 'obj'\n",
            ext="from shop.h import render\n\n\n@render.register(int)\ndef _(x):\n    return 'int'\n"), 3),
        ChunkCase("exception-class-identity-across-modules", project(
            flow("try:\n    boom()\nexcept PayError:\n    return 'caught'", "from shop.e import PayError\nfrom shop.n import boom\n"),
            e="class PayError(Exception):\n    pass\n", n="from shop import e\n\n\ndef boom():\n    raise e.PayError()\n"), 0),
    ]


CHUNK_CASES = CHUNK_CASES + tuple(_breaker2_chunk_cases())


def _breaker2_pairs_3() -> list[ProjectPair]:
    pairs: list[ProjectPair] = []
    add = pairs.append
    # C6 (cont.): a first-party callable handed to a third-party registry at import time
    k = "effects on third-party state"
    codec = ("import codecs\n\n\ndef _enc(s, errors='strict'):\n    return (s.upper().encode(), len(s))\n\n\ndef search(name):\n"
             "    if name == 'shout':\n        return codecs.CodecInfo(_enc, None, name='shout')\n    return None\n\n\ncodecs.register(search)\n")
    base = project(flow("return 'ab'.encode('shout')"), init=codec)
    add(C("codec-registered-by-the-package-init", k, base, edit(base, "shop/__init__.py", "s.upper()", "s.lower()")))
    base = project(flow("return 'ab'.encode('shout')", codec))
    add(C("codec-registered-by-the-flow-module", k, base, edit(base, "shop/flows.py", "s.upper()", "s.lower()")))
    # B12 (cont.): a package's __path__ extended at import time serves a module loom cannot find
    k = "module lookup: no source"
    base = project(flow("return helper(o)", "from shop.sub.h import helper\n"),
                   sub__init="import os\n\n__path__.append(os.path.join(os.path.dirname(__file__), '..', 'alt'))\n",
                   alt__h="def helper(x):\n    return x\n")
    add(C("package-path-extended-at-import", k, base, edit(base, "shop/alt/h.py", "return x", "return -x")))  # B12: fixed (closure follows __path__)
    # held: module lookup spellings
    base = project(flow("return discount(o)", "try:\n    from ..pricing import discount\nexcept ImportError:\n    from .pricing import discount\n"),
                   pricing="def discount(x):\n    return x\n")
    add(C("relative-import-beyond-the-top-with-a-fallback", k, base, edit(base, "shop/pricing.py", "return x", "return -x")))
    base = project(flow("return helper(o)", "from shop import helper\n"), h="def helper(x):\n    return x\n",
                   init="def __getattr__(name):\n    if name == 'helper':\n        from shop.h import helper\n        return helper\n"
                        "    raise AttributeError(name)\n")
    add(C("package-getattr-serves-a-lazy-import", k, base, edit(base, "shop/h.py", "return x", "return -x")))
    base = {p: t for p, t in project(flow("return helper(o)", "from shop.h import helper\n"), h="def helper(x):\n    return x\n").items()
            if p != "shop/__init__.py"}
    add(C("top-level-namespace-package", k, base, edit(base, "shop/h.py", "return x", "return -x")))
    return pairs


PAIRS = PAIRS + tuple(_breaker2_pairs_3())


def _breaker2_pairs_4() -> list[ProjectPair]:
    pairs: list[ProjectPair] = []
    add = pairs.append
    # -------------------------------------------------- C13: a module that runs writes into another module through a dynamic view
    k = "effects across modules: dynamic views"
    svc = "class Svc:\n    def go(self, x):\n        return x\n"
    base = project(flow("return Svc().go(o)", "from shop.svc import Svc\nimport shop.ext\n"), svc=svc,
                   ext="from shop import svc\n\n\ndef go(self, x):\n    return -x\n\n\nvars(svc)['Svc'].go = go\n")
    add(C("vars-of-another-module-store", k, base, edit(base, "shop/ext.py", "return -x", "return 2 * x")))  # fp2-effects: a module handed to a call
    base = project(flow("return mod.go(o)", "import shop.svc as mod\nimport shop.ext\n"), svc="def go(x):\n    return x\n",
                   ext="import sys\n\n\ndef go(x):\n    return -x\n\n\nsys.modules['shop.svc'].go = go\n")
    add(C("sys-modules-literal-key-store-into-another-module", k, base, edit(base, "shop/ext.py", "return -x", "return 2 * x")))
    base = project(flow("return go(o)", "from shop.svc import go\n"), svc="def go(x):\n    return x\n",
                   init="import sys\nimport types\n\nm = types.ModuleType('shop.svc')\nm.go = lambda x: -x\nsys.modules['shop.svc'] = m\n")
    add(C("sys-modules-entry-replaced-by-the-package-init", k, base, edit(base, "shop/__init__.py", "-x", "2 * x")))
    # held: setattr with a computed name, a bound method, a __class__ swap
    base = project(flow("return Svc().go(o)", "from shop.svc import Svc\nimport shop.ext\n"), svc=svc,
                   ext="from shop.svc import Svc\n\nfor name in ['go']:\n    setattr(Svc, name, lambda self, x: -x)\n")
    add(C("setattr-computed-name-on-another-modules-class", k, base, edit(base, "shop/ext.py", "-x)", "2 * x)")))
    base = project(flow("return o2.go(o)", "from shop.svc import o2\nimport shop.ext\n"), svc="class A:\n    def go(self, x):\n        return x\n\n\no2 = A()\n",
                   ext="from shop.svc import o2\n\n\nclass B:\n    def go(self, x):\n        return -x\n\n\no2.__class__ = B\n")
    add(C("dunder-class-swapped-by-another-module", k, base, edit(base, "shop/ext.py", "return -x", "return 2 * x")))
    return pairs


PAIRS = PAIRS + tuple(_breaker2_pairs_4())


def _breaker2_pairs_5() -> list[ProjectPair]:
    # -------------------------------------------------- C14: the instance a method flow runs on, built by a module-level binding
    k = "method flows: the instance built at module level"
    flows = (HEAD + "\n\nclass Checkout:\n    def __init__(self, rate):\n        self.rate = rate\n\n    @flow(\"checkout\")\n"
             "    def run(self, ctx, o):\n        return o * self.rate\n\n\ninst = Checkout(5)\n")
    base = {"shop/__init__.py": "", "shop/flows.py": flows}
    pairs = [C("instance-built-in-the-flow-module", k, base, edit(base, "shop/flows.py", "Checkout(5)", "Checkout(6)"))]
    # held: the same statement in another module (a module statement that changes Checkout)
    base = {"shop/__init__.py": "from . import main\n", "shop/flows.py": flows.replace("\n\ninst = Checkout(5)\n", ""),
            "shop/main.py": "from shop.flows import Checkout\n\ninst = Checkout(5)\n"}
    pairs.append(C("instance-built-in-a-module-the-package-imports", k, base, edit(base, "shop/main.py", "Checkout(5)", "Checkout(6)")))
    return pairs


PAIRS = PAIRS + tuple(_breaker2_pairs_5())


def _breaker2_framework_pairs() -> list[tuple[ProjectPair, str]]:
    k = "method flows: the instance built at module level"
    svc = ("from dbos import DBOS, DBOSConfiguredInstance\n\n\n@DBOS.dbos_class()\nclass Svc(DBOSConfiguredInstance):\n"
           "    def __init__(self, name, rate):\n        self.rate = rate\n        super().__init__(name)\n\n"
           "    @DBOS.workflow()\n    def wf(self, o):\n        return o * self.rate\n\n\nsvc = Svc('default', rate=5)\n")
    base = {"shop/__init__.py": "", "shop/flows.py": svc}
    pair = C("dbos-configured-instance-built-in-the-flow-module", k, base, edit(base, "shop/flows.py", "rate=5", "rate=6"))
    return [(replace(pair, flow_id="shop.flows:Svc.wf"), "dbos")]


FRAMEWORK_PAIRS = FRAMEWORK_PAIRS + tuple(_breaker2_framework_pairs())


def _fp2_core_pairs() -> list[ProjectPair]:
    """fp2-core's own pairs for C1/C2/C14's rules (session 4): the attack that would fool each rule,
    and the equal pair that shows it does not widen ordinary code."""
    pairs: list[ProjectPair] = []
    add = pairs.append
    k = "method flows: virtual dispatch"
    hook = "    def hook(self):\n        return 1\n"
    grand = "class Grand:\n    def process(self):\n        return self.hook() + 10\n\n    def hook(self):\n        return 0\n"
    # the MRO continues past the first base: Grand.process runs with self a Checkout
    base = project(method_flow(hook, "return self.process()", head="from shop.base import Base\n", bases="(Base)"),
                   base=grand + "\n\nclass Base(Grand):\n    pass\n")
    add(C("override-called-from-a-base-of-the-base", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    # a base spelled through an alias, a dotted import, a subscript
    base = project(method_flow(hook, "return self.process()", head="from shop.base import Base\n", bases="(Base)"),
                   base=grand + "\n\nBase = Grand\n")
    add(C("override-called-from-a-base-bound-by-an-alias", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    base = project(method_flow(hook, "return self.process()", head="import shop.base\n", bases="(shop.base.Grand)"), base=grand)
    add(C("override-called-from-a-base-spelled-dotted", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    generic = ("from typing import Generic, TypeVar\n\nT = TypeVar('T')\n\n\nclass Base(Generic[T]):\n"
               "    def process(self):\n        return self.hook() + 10\n")
    base = project(method_flow(hook, "return self.process()", head="from shop.base import Base\n", bases="(Base[int])"),
                   base=generic)
    add(C("override-called-from-a-subscripted-generic-base", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    base = project(method_flow(hook + "\n    def unrelated(self):\n        return 1\n", "return self.process()",
                               head="from shop.base import Base\n", bases="(Base[int])"), base=generic)
    add(E("subscripted-generic-base-and-a-method-nothing-inherited-calls", k, base,
          edit(base, "shop/flows.py", "return 1\n\n    @flow", "return 5\n\n    @flow")))
    # the metaclass's ``cls`` is the flow class: what ``__call__`` reads through it is looked up there
    meta = ("\n\nclass Meta(type):\n    def __call__(cls, *a):\n        o = super().__call__(*a)\n"
            "        o.v = cls.RATE\n        return o\n")
    base = project(method_flow("    RATE = 1\n", "return self.v", head=meta, bases="(metaclass=Meta)"))
    add(C("metaclass-call-reads-an-attribute-of-the-flow-class", k, base, edit(base, "shop/flows.py", "RATE = 1", "RATE = 2")))
    # a base dispatching by a computed name: any member may be the one it calls
    dispatch = "\n\nclass Base:\n    def process(self, kind):\n        return getattr(self, 'on_' + kind)()\n"
    base = project(method_flow("    def on_a(self):\n        return 1\n", "return self.process('a')", head=dispatch, bases="(Base)"))
    add(C("base-dispatches-by-a-computed-name-to-the-flow-class", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    # a base writing by a computed name runs the flow class's data descriptors (a property's setter)
    writer = "\n\nclass Base:\n    def load(self, name):\n        setattr(self, name, 5)\n"
    prop = ("    @property\n    def x(self):\n        return self._x\n\n    @x.setter\n    def x(self, v):\n"
            "        self._x = v * 2\n\n    def unrelated(self):\n        return 1\n")
    base = project(method_flow(prop, "self.load('x')\nreturn self._x", head=writer, bases="(Base)"))
    add(C("base-computed-write-runs-a-property-setter-of-the-flow-class", k, base, edit(base, "shop/flows.py", "v * 2", "v * 3")))
    add(E("base-computed-write-and-a-plain-method-edited", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    # held equal: the bases' self-uses name members the flow class does not define, or the edited
    # method is one no inherited method calls; inert bases (ABC, Generic, Protocol, ABCMeta)
    base = project(method_flow(hook + "\n    def unrelated(self):\n        return 1\n", "return self.process()",
                               head="from shop.base import Base\n", bases="(Base)"), base=grand + "\n\nclass Base(Grand):\n    pass\n")
    add(E("base-of-the-base-and-a-method-nothing-inherited-calls", k, base,
          edit(base, "shop/flows.py", "return 1\n\n    @flow", "return 5\n\n    @flow")))
    unrelated = "    def unrelated(self):\n        return 1\n"
    for name, head, bases in [
        ("flow-class-based-on-abc", "from abc import ABC\n", "(ABC)"),
        ("flow-class-with-the-abc-metaclass", "from abc import ABCMeta\n", "(metaclass=ABCMeta)"),
        ("flow-class-based-on-generic", "from typing import Generic, TypeVar\n\nT = TypeVar('T')\n", "(Generic[T])"),
        ("flow-class-based-on-protocol-and-object", "from typing import Protocol\n", "(Protocol, object)"),
    ]:
        base = project(method_flow(unrelated, "return o", head=head, bases=bases))
        add(E(name, "method flows: third-party base", base, edit(base, "shop/flows.py", "return 1", "return 2")))
    # computed reads of the instance's class: ``getattr(type(self), name)`` reaches any member
    k = "method flows: virtual dispatch"
    base = project(method_flow("    HOOK = 1\n", "return getattr(type(self), 'HO' + o)"))
    add(C("computed-getattr-of-type-self", k, base, edit(base, "shop/flows.py", "HOOK = 1", "HOOK = 2")))
    reader = "\n\nclass Base:\n    def read(self, name):\n        return getattr(type(self), name)\n"
    base = project(method_flow("    HOOK = 1\n", "return self.read('HO' + o)", head=reader, bases="(Base)"))
    add(C("base-computed-getattr-of-type-self", k, base, edit(base, "shop/flows.py", "HOOK = 1", "HOOK = 2")))
    # a loop over the instance's annotations reaches the annotated fields (and nothing else)
    fields = "    a: int = 1\n    b: int = 2\n\n    def unrelated(self):\n        return 1\n"
    loop = "total = 0\nfor key in type(self).__annotations__:\n    total += getattr(self, key)\nreturn total"
    base = project(method_flow(fields, loop))
    add(C("annotation-loop-reaches-an-annotated-field", k, base, edit(base, "shop/flows.py", "b: int = 2", "b: int = 3")))
    add(E("annotation-loop-and-a-plain-method-edited", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    items = "for key, kind in self.__annotations__.items():\n    setattr(self, key, kind(0))\nreturn self.a"
    base = project(method_flow(fields, items))
    add(E("annotation-items-loop-writes-and-a-plain-method-edited", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    # look-alikes that must still widen: the key rebound in the body, another class's annotations
    rebound = "for key in type(self).__annotations__:\n    key = 'unrel' + key[:0] + 'ated'\n    return getattr(self, key)()"
    base = project(method_flow(fields, rebound))
    add(C("annotation-loop-key-rebound-in-the-body", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    other = "\n\nclass Other:\n    unrelated: int = 0\n"
    base = project(method_flow(fields, "for key in Other.__annotations__:\n    return getattr(self, key)()", head=other))
    add(C("loop-over-another-class-annotations", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    # C2: a third-party or builtin base's methods call the flow class's members, whatever they are named
    k = "method flows: third-party base"
    base = project(method_flow("    def default(self, o):\n        return 1\n", "return self.encode(object())",
                               head="import json\n", bases="(json.JSONEncoder)"))
    add(C("json-encoder-encode-calls-the-flow-class-default", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    base = project(method_flow("    def __missing__(self, k):\n        return 1\n", "return self[o]", bases="(dict)"))
    add(C("dict-getitem-calls-the-flow-class-missing", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    # C14: the call building the instance is the flow class's; a call of another class is not
    k = "method flows: the instance built at module level"
    flows = (HEAD + "\n\nclass Other:\n    def __init__(self, rate):\n        self.rate = rate\n\n\n"
             "class Checkout:\n    @flow(\"checkout\")\n    def run(self, ctx, o):\n        return o\n\n\nother = Other(5)\n")
    base = {"shop/__init__.py": "", "shop/flows.py": flows}
    add(E("another-class-instance-built-in-the-flow-module", k, base, edit(base, "shop/flows.py", "Other(5)", "Other(6)")))
    base = {"shop/__init__.py": "", "shop/flows.py": flows + "inst = Checkout()\ninst.rate = 5\n"}
    add(C("instance-built-in-the-flow-module-then-changed", k, base, edit(base, "shop/flows.py", "rate = 5\n", "rate = 6\n")))
    return pairs


PAIRS = PAIRS + tuple(_fp2_core_pairs())


def _breaker2_pairs_6() -> list[ProjectPair]:
    # C13 (cont.): B3's builtins patch spelled through the builtins namespace dict
    k = "builtins patched"
    pairs = []
    for name, patch in [
        ("dunder-builtins-subscript-store", "__builtins__['len'] = lambda x: 1\n"),
        ("builtins-dunder-dict-store", "import builtins\n\nbuiltins.__dict__['len'] = lambda x: 1\n"),
        ("vars-of-builtins-store", "import builtins\n\nvars(builtins)['len'] = lambda x: 1\n"),
        ("vars-of-builtins-update", "import builtins\n\nvars(builtins).update(len=lambda x: 1)\n"),
    ]:
        base = project(flow("return len(o)", "import shop.patch\n"), patch=patch)
        # fp2-dyn: a change of the builtins namespace itself counts for every builtin (closure's package rule)
        pairs.append(C(f"{name}-by-an-imported-module", k, base, edit(base, "shop/patch.py", "x: 1", "x: 2")))
    # held: the attribute spellings
    for name, patch in [("setattr-builtins-literal-name", "import builtins\n\nsetattr(builtins, 'len', lambda x: 1)\n"),
                        ("builtins-module-alias-store", "import builtins as b\n\nb.len = lambda x: 1\n")]:
        base = project(flow("return len(o)", "import shop.patch\n"), patch=patch)
        pairs.append(C(f"{name}-by-an-imported-module", k, base, edit(base, "shop/patch.py", "x: 1", "x: 2")))
    return pairs


PAIRS = PAIRS + tuple(_breaker2_pairs_6())


def _breaker2_chunk_cases_2() -> list[ChunkCase]:
    return [
        # held: a first-party fallback import whose target module is absent (the one-namespace chunk hoisted the
        # failing import out of its try; the per-module layout keeps it)
        ChunkCase("import-error-fallback-to-another-first-party-module", project(
            flow("return f(o)", "from shop.h import f\n"),
            h="try:\n    from shop.fast import f\nexcept ImportError:\n    from shop.slow import f\n", slow="def f(x):\n    return -x\n"), 3),
        # held (B13's shapes): an imported first-party name used at import time inside a class body or a call
        ChunkCase("imported-default-factory-of-a-dataclass-field", project(
            flow("return Order().items", "from shop.m import Order\n"), f="def make():\n    return [1]\n",
            m="from dataclasses import dataclass, field\n\nfrom shop.f import make\n\n\n@dataclass\nclass Order:\n"
              "    items: list = field(default_factory=make)\n"), 0),
        ChunkCase("imported-descriptor-in-a-class-body", project(
            flow("return Model.fields", "from shop.m import Model\n"),
            m="from shop.f import Field\n\n\nclass Model:\n    fields = []\n    a = Field()\n",
            f="class Field:\n    def __set_name__(self, owner, name):\n        owner.fields.append(name)\n"), 0),
        ChunkCase("imported-class-registered-with-copyreg", project(
            flow("import copy\nreturn copy.copy(Order()).v", "from shop.m import Order\n"), m="class Order:\n    v = 1\n", init="from . import reg\n",
            reg="import copyreg\n\nfrom shop.m import Order\n\n\ndef red(o):\n    return (make, ())\n\n\ndef make():\n    x = Order()\n"
                "    x.v = 5\n    return x\n\n\ncopyreg.pickle(Order, red)\n"), 0),
        # held
        ChunkCase("enum-auto-with-a-base-generate-next-value", project(
            flow("return Color.RED.value", "from shop.m import Color\n"),
            m="import enum\n\nfrom shop.b import Base\n\n\nclass Color(Base):\n    RED = enum.auto()\n",
            b="import enum\n\n\nclass Base(enum.Enum):\n    @staticmethod\n    def _generate_next_value_(name, start, count, last):\n"
              "        return name.lower()\n"), 0),
        ChunkCase("inherited-setattr-and-getattr-from-another-module", project(
            method_flow("    pass\n", "self.total = o\nreturn self.total, self.missing", head="from shop.base import Base\n", bases="(Base)"),
            base="class Base:\n    def __setattr__(self, k, v):\n        object.__setattr__(self, k, v * 2)\n\n"
                 "    def __getattr__(self, k):\n        return 'dyn'\n"), 3),
        ChunkCase("star-import-all-names-a-submodule", project(
            flow("return sub.helper(o)", "from shop.pkg import *\n"), pkg__init="__all__ = ['sub']\n", pkg__sub="def helper(x):\n    return -x\n"), 3),
        ChunkCase("method-bound-onto-an-instance-by-another-module", project(
            flow("return svc.go(o)", "from shop.svc import svc\nimport shop.ext\n"), svc="class Svc:\n    def go(self, x):\n        return x\n\n\nsvc = Svc()\n",
            ext="import types\n\nfrom shop.svc import svc\n\n\ndef go(self, x):\n    return -x\n\n\nsvc.go = types.MethodType(go, svc)\n"), 3),
    ]


CHUNK_CASES = CHUNK_CASES + tuple(_breaker2_chunk_cases_2())


def _breaker2_pairs_7() -> list[ProjectPair]:
    # -------------------------------------------------- C17: a module's namespace read through an object that leads to it
    k = "dynamic reach: namespace views"
    h = "K = 7\n\n\ndef helper(x):\n    return -x\n"
    pairs = []
    for name, body, head in [
        ("function-dunder-globals-subscript", "return helper.__globals__['K']", "from shop.h import helper\n"),
        ("inspect-getmodule-of-a-function", "return inspect.getmodule(helper).K", "import inspect\nfrom shop.h import helper\n"),
        ("sys-modules-keyed-by-a-functions-module", "import sys\nreturn sys.modules[helper.__module__].K", "from shop.h import helper\n"),
        ("vars-of-a-sys-modules-literal-entry", "import sys\nreturn vars(sys.modules['shop.h'])['K']", "import shop.h\n"),
    ]:
        base = project(flow(body, head), h=h)
        # fp2-dyn: a computed sys.modules key widens to every first-party module; a literal one names it;
        # f.__globals__ and inspect.getmodule(f) are the namespace of f's module (closure.namespace_keys)
        pairs.append(C(name, k, base, edit(base, "shop/h.py", "K = 7", "K = 8")))
    base = project(flow("return Order.__init__.__globals__['K']", "from shop.h import Order\n"),
                   h="K = 7\n\n\nclass Order:\n    def __init__(self):\n        pass\n")
    pairs.append(C("method-dunder-globals-subscript", k, base, edit(base, "shop/h.py", "K = 7", "K = 8")))
    return pairs


PAIRS = PAIRS + tuple(_breaker2_pairs_7())


def _breaker2_chunk_cases_3() -> list[ChunkCase]:
    m = "class Order:\n    v = 1\n"
    return [
        # C16 (fixed: loom_runtime.chunk_names): pickle finds a class or function by __module__/__qualname__; a
        # bundled definition's __module__ text is the chunk's private module, so it unpickles into the chunk's class
        ChunkCase("pickle-round-trip-keeps-the-class", project(
            flow("import pickle\nreturn isinstance(pickle.loads(pickle.dumps(Order())), Order)", "from shop.m import Order\n"), m=m), 0),
        ChunkCase("pickle-round-trip-of-an-enum-member", project(
            flow("import pickle\nreturn pickle.loads(pickle.dumps(Color.RED)) is Color.RED", "from shop.m import Color\n"),
            m="import enum\n\n\nclass Color(enum.Enum):\n    RED = 1\n"), 0),
        ChunkCase("pickled-function-runs-the-bundled-code", project(
            flow("import pickle\nreturn pickle.loads(pickle.dumps(helper))(o)", "from shop.h import helper\n"), h="def helper(x):\n    return -x\n"), 3),
        # C17's chunk half: the chunk's module of shop.h holds only what the closure reached
        ChunkCase("sys-modules-keyed-by-a-functions-module", project(
            flow("import sys\nreturn sys.modules[helper.__module__].K", "from shop.h import helper\n"), h="K = 7\n\n\ndef helper(x):\n    return -x\n"),
            0),  # fp2-dyn: the computed key widens to every first-party module, bundled whole
        # held (fp2-dyn): f.__globals__ / inspect.getmodule(f) reach K, so the chunk's shop.h holds it
        ChunkCase("function-dunder-globals-subscript", project(
            flow("return helper.__globals__['K']", "from shop.h import helper\n"), h="K = 7\n\n\ndef helper(x):\n    return -x\n"), 0),
        ChunkCase("inspect-getmodule-of-a-function", project(
            flow("import inspect\nreturn inspect.getmodule(helper).K", "from shop.h import helper\n"),
            h="K = 7\n\n\ndef helper(x):\n    return -x\n"), 0),
        # C12 (chunks, found by fp2-dyn): a bundled module's literal sys.modules['shop.svc'] names the live entry
        # (KeyError in a fresh interpreter: the chunk registers its modules under private keys); held since
        # chunk_dynamic spells a bundled module's literal key from the chunk's __package__ (session 5)
        ChunkCase("sys-modules-entry-store-by-an-imported-module", project(
            flow("return mod.go(o)", "import shop.svc as mod\nimport shop.ext\n"), svc="def go(x):\n    return x\n",
            ext="import sys\n\n\ndef go(x):\n    return -x\n\n\nsys.modules['shop.svc'].go = go\n"), 3),
        # held
        ChunkCase("deepcopy-of-a-bundled-class-instance", project(
            flow("import copy\nreturn copy.deepcopy(Order()).v", "from shop.m import Order\n"), m=m), 0),
        ChunkCase("dataclass-replace-and-asdict", project(
            flow("import dataclasses\nreturn dataclasses.asdict(dataclasses.replace(P(1), a=2))", "from shop.m import P\n"),
            m="import dataclasses\n\n\n@dataclasses.dataclass\nclass P:\n    a: int\n"), 0),
        ChunkCase("inspect-getsource-of-a-bundled-function", project(
            flow("import inspect\nreturn inspect.getsource(helper).splitlines()[0]", "from shop.h import helper\n"), h="def helper(x):\n    return -x\n"), 0),
    ]


CHUNK_CASES = CHUNK_CASES + tuple(_breaker2_chunk_cases_3())


def _dyn_chunk_cases() -> list[ChunkCase]:
    """A bundled module's literal ``sys.modules`` key of a bundled module addresses the chunk's
    module (``bundle.chunk_dynamic``: spelled from its ``__package__``), however ``sys.modules`` is
    spelled and wherever the module sits in the package tree (fp2-dyn, session 5)."""
    svc = "def go(x):\n    return x\n"
    go = "\n\ndef go(x):\n    return -x\n\n\n"
    head = "import shop.svc as mod\nimport shop.ext\n"
    out = []
    for name, ext in [
        ("sys-modules-get-of-a-bundled-module", "import sys\n" + go + "sys.modules.get('shop.svc').go = go\n"),
        ("sys-modules-from-sys-import-modules", "from sys import modules\n" + go + "modules['shop.svc'].go = go\n"),
        ("sys-modules-folded-key-in-a-function-called-at-import",
         "import sys as s\n" + go + "def patch():\n    s.modules['shop.' + 'svc'].go = go\n\n\npatch()\n"),
        ("sys-modules-setdefault-of-a-bundled-module", "import sys\n" + go + "setattr(sys.modules.setdefault('shop.svc', None), 'go', go)\n"),
    ]:
        out.append(ChunkCase(name, project(flow("return mod.go(o)", head), svc=svc, ext=ext), 3))
    # a module two packages down, and a package's __init__: the chunk's root is cut from __package__ at its depth
    out.append(ChunkCase("sys-modules-key-in-a-subpackage-module", project(
        flow("return mod.go(o)", "import shop.svc as mod\nimport shop.sub.ext\n"), svc=svc, sub__init="",
        sub__ext="import sys\n" + go + "sys.modules['shop.svc'].go = go\n"), 3))
    out.append(ChunkCase("sys-modules-key-in-a-package-init", project(
        flow("return mod.go(o)", "import shop.svc as mod\n"), svc=svc,
        init="import sys\n\nimport shop.svc\n" + go + "sys.modules['shop.svc'].go = go\n"), 3))
    # read and tested in the flow itself: the chunk's own module, as live
    out.append(ChunkCase("sys-modules-entry-read-and-tested-in-the-flow", project(
        flow("import sys\nreturn 'shop.h' in sys.modules, 'shop.h' not in sys.modules, sys.modules['shop.h'].K + o",
             "import shop.h\n"), h="K = 7\n"), 3))
    return out


CHUNK_CASES = CHUNK_CASES + tuple(_dyn_chunk_cases())


def _breaker2_framework_pairs_2() -> list[tuple[ProjectPair, str]]:
    # C1 under the temporal profile: the workflow class is the unit, yet an inherited method's self.hook() misses the override
    k = "method flows: virtual dispatch"
    base_cls = "class Base:\n    def process(self) -> int:\n        return self.hook() + 10\n\n    def hook(self) -> int:\n        return 0\n"
    flows = ("from temporalio import workflow\n\nfrom shop.base import Base\n\n\n@workflow.defn\nclass W(Base):\n"
             "    def hook(self) -> int:\n        return 1\n\n    @workflow.run\n    async def run(self) -> int:\n        return self.process()\n")
    base = project(flows, base=base_cls)
    pair = C("workflow-inherits-a-method-that-calls-its-override", k, base, edit(base, "shop/flows.py", "return 1", "return 2"))
    return [(replace(pair, flow_id="W"), "temporal")]


FRAMEWORK_PAIRS = FRAMEWORK_PAIRS + tuple(_breaker2_framework_pairs_2())


def _breaker2_framework_pairs_3() -> list[tuple[ProjectPair, str]]:
    # C18 (widening; fixed): DBOS 3's DBOS.run_step(options, fn, *args) checkpoints fn as a step, and fn's body was
    # hashed; the dbos profile now hashes fn's name and header only (tests/compiler/test_frameworks.py: run_step)
    k = "steps: DBOS.run_step"
    flows = ("from dbos import DBOS\n\n\ndef fetch(x):\n    return x\n\n\n@DBOS.workflow()\ndef parent(o):\n"
             "    return DBOS.run_step(None, fetch, o)\n")
    base = project(flows)
    pair = E("run-step-function-body-edited", k, base, edit(base, "shop/flows.py", "return x\n", "return 2 * x\n"))
    return [(replace(pair, flow_id="shop.flows:parent"), "dbos")]


FRAMEWORK_PAIRS = FRAMEWORK_PAIRS + tuple(_breaker2_framework_pairs_3())


def _breaker2_chunk_cases_4() -> list[ChunkCase]:
    return [
        # C19 (fixed: loom_runtime.chunk_names.PrivateName): a bundled module's __package__ reads as `shop`; its text is
        # the chunk's private package, so relative imports and import_module('.g', __package__) find the chunk's modules
        ChunkCase("dunder-package-of-a-bundled-module", project(
            flow("return helper()", "from shop.h import helper\n"), h="def helper():\n    return __package__\n"), 0),
        ChunkCase("import-module-relative-to-dunder-package", project(
            flow("return helper(o)", "from shop.h import helper\n"), g="def g(x):\n    return -x\n",
            h="import importlib\n\n\ndef helper(x):\n    return importlib.import_module('.g', __package__).g(x)\n"), 3),  # fp2-dyn: resolved
        # held: what the per-module layout keeps as live
        ChunkCase("module-identity-under-two-spellings", project(
            flow("return a is b, a.K", "import shop.h as a\nfrom shop import h as b\n"), h="K = 1\n"), 0),
        ChunkCase("lazy-relative-import-of-the-parent-package", project(
            flow("return helper(o)", "from shop.sub.h import helper\n"), sub__init="", g="def g(x):\n    return -x\n",
            sub__h="def helper(x):\n    from .. import g\n    return g.g(x)\n"), 3),
        ChunkCase("import-module-of-the-flows-own-name", project(
            flow("import importlib\nreturn importlib.import_module(__name__).K", "\nK = 4\n")), 0),
        ChunkCase("logger-named-after-a-bundled-module", project(
            flow("return helper()", "from shop.h import helper\n"),
            h="import logging\n\nlog = logging.getLogger(__name__)\n\n\ndef helper():\n    return log.name\n"), 0),
    ]


CHUNK_CASES = CHUNK_CASES + tuple(_breaker2_chunk_cases_4())


def _breaker2_pairs_8() -> list[ProjectPair]:
    # -------------------------------------------------- C20: the order of the method flow class's own bases (its MRO)
    k = "method flows: MRO"
    ab = "class A:\n    def helper(self):\n        return 1\n\n\nclass B:\n    def helper(self):\n        return 2\n"
    base = project(method_flow("    pass\n", "return self.helper()", head="from shop.m import A, B\n", bases="(A, B)"), m=ab)
    pairs = [C("flow-class-bases-reordered", k, base, edit(base, "shop/flows.py", "(A, B)", "(B, A)"))]
    # held: a base's own bases reordered, a base swapped, a base alias retargeted
    base = project(method_flow("    pass\n", "return self.helper()", head="from shop.m import C\n", bases="(C)"), m=ab + "\n\nclass C(A, B):\n    pass\n")
    pairs.append(C("bases-of-the-flow-class-base-reordered", k, base, edit(base, "shop/m.py", "C(A, B)", "C(B, A)")))
    base = project(method_flow("    pass\n", "return self.helper()", head="from shop.m import Base\n", bases="(Base)"), m=ab + "\n\nBase = A\n")
    pairs.append(C("flow-class-base-alias-retargeted", k, base, edit(base, "shop/m.py", "Base = A", "Base = B")))
    return pairs


PAIRS = PAIRS + tuple(_breaker2_pairs_8())


def _breaker2_pairs_9() -> list[ProjectPair]:
    # C20 (cont.): the rest of the method flow class's header
    k = "method flows: class header"
    dc = method_flow("    a: int = 1\n", "self.a = o\nreturn self.a", head="from dataclasses import dataclass\n").replace(
        "class Checkout", "@dataclass(frozen=True)\nclass Checkout")
    base = project(dc)
    pairs = [C("flow-class-decorator-argument", k, base, edit(base, "shop/flows.py", "frozen=True", "frozen=False"))]
    base = project(method_flow("    pass\n", "return self.kind", bases="(Base, key=1)",
                               head="\n\nclass Base:\n    def __init_subclass__(cls, key=0, **kw):\n        cls.kind = key\n"))
    pairs.append(C("flow-class-keyword-argument", k, base, edit(base, "shop/flows.py", "key=1)", "key=2)")))
    # held: the metaclass swapped, a class decorator's body
    meta = "\n\nclass M{n}(type):\n    def __call__(cls, *a):\n        o = super().__call__(*a)\n        o.rate = {n}\n        return o\n"
    base = project(method_flow("    pass\n", "return self.rate", head=meta.format(n=1) + meta.format(n=2), bases="(metaclass=M1)"))
    pairs.append(C("flow-class-metaclass-swapped", k, base, edit(base, "shop/flows.py", "(metaclass=M1)", "(metaclass=M2)")))
    return pairs


PAIRS = PAIRS + tuple(_breaker2_pairs_9())


def _breaker2_framework_pairs_4() -> list[tuple[ProjectPair, str]]:
    # C21 (lead: widen; fixed): a first-party Temporal interceptor wraps every workflow's run, on replay too, and
    # belonged to no closure (real code: temporalio samples-python sentry/interceptor.py); the temporal profile's
    # engine hooks put it into every workflow's (tests/compiler/test_frameworks_hooks.py)
    k = "engine configuration: interceptors"
    interceptor = ("from temporalio.worker import Interceptor, WorkflowInboundInterceptor\n\n\n"
                   "class _Inbound(WorkflowInboundInterceptor):\n    async def execute_workflow(self, input):\n"
                   "        return await super().execute_workflow(input)\n\n\nclass MyInterceptor(Interceptor):\n"
                   "    def workflow_interceptor_class(self, input):\n        return _Inbound\n")
    worker = ("from temporalio.client import Client\nfrom temporalio.worker import Worker\n\nfrom shop.flows import W\n"
              "from shop.interceptor import MyInterceptor\n\n\nasync def main():\n    client = await Client.connect('localhost:7233')\n"
              "    await Worker(client, task_queue='q', workflows=[W], interceptors=[MyInterceptor()]).run()\n")
    flows = ("from temporalio import workflow\n\n\n@workflow.defn\nclass W:\n    @workflow.run\n    async def run(self, o: int) -> int:\n"
             "        return o\n")
    base = project(flows, interceptor=interceptor, worker=worker)
    pair = C("workflow-interceptor-edited", k, base,
             edit(base, "shop/interceptor.py", "return await super().execute_workflow(input)", "return None"))
    return [(replace(pair, flow_id="W"), "temporal")]


FRAMEWORK_PAIRS = FRAMEWORK_PAIRS + tuple(_breaker2_framework_pairs_4())


def _breaker2_pairs_10() -> list[ProjectPair]:
    # -------------------------------------------------- C22: another module's store creates or feeds a global the reached code reads
    k = "effects across modules: injected globals"
    patch = {"unrelated": "from shop import h\n\nh.EXTRA = 1\n", "init": "from . import unrelated\n"}
    pairs = []
    for name, h in [
        ("store-creates-a-global-a-helper-reads-by-name", "def helper(x):\n    return x + EXTRA\n"),
        ("store-feeds-a-global-a-helper-reads-through-globals", "def helper(x):\n    return x + globals().get('EXTRA', 0)\n"),
    ]:
        base = project(flow("return helper(o)", "from shop.h import helper\n"), h=h, **patch)
        pairs.append(C(name, k, base, edit(base, "shop/unrelated.py", "= 1", "= 2")))  # fixed: fp2-effects
    # held: the module binds the name itself; stores into unread attributes or same-named objects elsewhere
    base = project(flow("return helper(o)", "from shop.h import helper\n"), h="EXTRA = 0\n\n\ndef helper(x):\n    return x + EXTRA\n", **patch)
    pairs.append(C("store-into-a-global-the-helper-module-binds", k, base, edit(base, "shop/unrelated.py", "= 1", "= 2")))
    base = project(flow("return helper(o)", "from shop.h import helper\n"), h="def helper(x):\n    return x\n", **patch)
    pairs.append(E("store-of-an-attribute-nothing-reads", k, base, edit(base, "shop/unrelated.py", "= 1", "= 2")))
    base = project(flow("return CFG['x']", "from shop.cfg import CFG\n"), cfg="CFG = {'x': 1}\n", other="CFG = {'x': 1}\n",
                   patch="from shop.other import CFG\n\nCFG['x'] = 5\n", init="from . import patch\n")
    pairs.append(E("store-into-a-same-named-table-of-another-module", k, base, edit(base, "shop/patch.py", "= 5", "= 6")))
    return pairs


PAIRS = PAIRS + tuple(_breaker2_pairs_10())


def _chunks_dynamic_import_cases() -> list[ChunkCase]:
    # chunks (C12's look-alikes): a literal import_module/__import__ of a bundled module resolves to the
    # chunk's module whatever the resolver is bound as; a project function of the same name is left alone
    pricing = "RATE = 0.1\n\n\ndef discount(total):\n    return total - total * RATE\n"
    return [
        ChunkCase("import-module-bound-by-an-aliased-from-import", project(
            flow("return im('shop.pricing').discount(o)", "from importlib import import_module as im\n"), pricing=pricing), 3),
        ChunkCase("import-module-literal-in-a-helper-of-a-subpackage", project(
            flow("return helper(o)", "from shop.sub.h import helper\n"), pricing=pricing, sub__init="",
            sub__h="import importlib as il\n\n\ndef helper(x):\n    return il.import_module('shop.pricing').discount(x)\n"), 3),
        ChunkCase("dunder-import-without-fromlist-returns-the-top-package", project(
            flow("top = __import__('shop.pricing')\nreturn top.__name__, top.pricing.discount(o)"), pricing=pricing), 3),
        # importlib's pure-Python __import__ with an empty fromlist cuts the top package from the
        # module's __name__ text: rewritten relative, it returned the live `shop` (review, session 4)
        ChunkCase("importlib-dunder-import-with-an-empty-fromlist", project(
            flow("import importlib\ntop = importlib.__import__('shop.pricing', fromlist=[])\n"
                 "return top.__name__, top.pricing.discount(o)"), pricing=pricing), 3),
        ChunkCase("import-module-at-module-level", project(
            flow("return P.discount(o)", "import importlib\n\nP = importlib.import_module('shop.pricing')\n"), pricing=pricing), 3),
        ChunkCase("import-module-for-its-effects", project(
            flow("importlib.import_module('shop.reg')\nreturn list(REG)", "import importlib\nfrom shop.cfg import REG\n"),
            cfg="REG = []\n", reg="from shop.cfg import REG\n\nREG.append('reg ran')\n"), 0),
        # held: not a resolver where it is called; the literal is passed on as it is
        ChunkCase("project-function-named-import-module", project(
            flow("return import_module('shop.pricing')", "\n\ndef import_module(name):\n    return name.upper()\n"),
            pricing=pricing), 0),
        ChunkCase("parameter-named-importlib", project(
            flow("return helper(Fake(), o)", "from shop.h import helper\n\n\nclass Fake:\n"
                 "    def import_module(self, name):\n        return name\n"), pricing=pricing,
            h="import importlib\n\n\ndef helper(importlib, x):\n    return importlib.import_module('shop.pricing'), x\n"), 3),
        ChunkCase("dunder-import-given-another-namespace", project(
            flow("return __import__('shop.pricing', {}, None, ['discount'], 0).discount(o)"), pricing=pricing), 3),
    ]


CHUNK_CASES = CHUNK_CASES + tuple(_chunks_dynamic_import_cases())


def _chunks_resource_cases() -> list[ChunkCase]:
    # chunks: a bundled module's __spec__ reads data files where the live module's are (it was None:
    # importlib.resources and pkgutil.get_data refused); Path(__file__) is B20's held case above
    data = {"shop/prompt.txt": "be nice\n"}
    return [
        ChunkCase("importlib-resources-files-of-the-package", {**project(
            flow("return helper()", "from shop.h import helper\n"),
            h="import importlib.resources\n\n\ndef helper():\n    return (importlib.resources.files(__package__) / 'prompt.txt').read_text()\n"),
            **data}, 0),
        ChunkCase("pkgutil-get-data-next-to-the-module", {**project(
            flow("return helper()", "from shop.h import helper\n"),
            h="import pkgutil\n\n\ndef helper():\n    return pkgutil.get_data(__name__, 'prompt.txt').decode()\n"), **data}, 0),
        ChunkCase("module-spec-of-a-bundled-module", project(
            flow("return helper()", "from shop.h import helper\n"),
            h="def helper():\n    return __spec__.name, __spec__.parent, __spec__.origin.endswith('h.py')\n"), 0),
    ]


CHUNK_CASES = CHUNK_CASES + tuple(_chunks_resource_cases())


def _lazy_chain_chunk_cases() -> list[ChunkCase]:
    # lead (session 5): a module a lazy `import shop.plugs` reaches runs at load (for its effects), and
    # its own top-level `from shop.r import X` used a module only it imports, which the chunk marks
    # lazy: the lazy modules' first-use hooks were installed after every load-time run, so the
    # chunk failed to load (ImportError: cannot import name 'X' from 'shop.r')
    base = "class Base:\n    REG = {}\n\n    def __init_subclass__(cls):\n        Base.REG[cls.__name__] = cls\n"
    return [
        ChunkCase("lazy-import-of-a-module-whose-import-is-only-its-own", project(
            flow("import shop.plugs\nreturn shop.plugs.Y"), r="X = 1\n", plugs="from shop.r import X\n\nY = X + 1\n"), 0),
        ChunkCase("lazy-import-filling-a-registry-through-init-subclass", project(
            flow("from shop.r import Base\nimport shop.plugs\nreturn sorted(Base.REG)"), r=base,
            plugs="from shop.r import Base\n\n\nclass A(Base):\n    pass\n"), 0),
        ChunkCase("lazy-import-registering-a-singledispatch-overload", project(
            flow("import shop.ext\nfrom shop.r import render\nreturn render(1), render('a')"),
            r="import functools\n\n\n@functools.singledispatch\ndef render(x):\n    return 'obj'\n",
            ext="from shop.r import render\n\n\n@render.register(int)\ndef _(x):\n    return 'int'\n"), 0),
    ]


CHUNK_CASES = CHUNK_CASES + tuple(_lazy_chain_chunk_cases())


def _breaker3_framework_pairs() -> list[tuple[ProjectPair, str]]:
    """Third adversarial round (breaker3, findings ``D<n>`` on /work/TEAM.md): the temporal profile's
    engine hooks (C21). temporalio 1.x: ``Worker(workflow_failure_exception_types=...)`` decides whether
    an exception fails the workflow or retries its task; the runner decides the sandbox; the data
    converter decodes every payload; a Worker's interceptors are called by protocol
    (``_workflow.py``: ``i.workflow_interceptor_class(...)``), no subclass needed."""
    out: list[tuple[ProjectPair, str]] = []
    flows = ("from temporalio import workflow\n\n\n@workflow.defn\nclass W:\n    @workflow.run\n    async def run(self, o: int) -> int:\n"
             "        return o\n")
    inbound = ("class _Inbound(WorkflowInboundInterceptor):\n    async def execute_workflow(self, input):\n"
               "        return (await super().execute_workflow(input)) + 1\n\n\n")

    def temporal_pair(p: ProjectPair) -> tuple[ProjectPair, str]:
        return replace(p, flow_id="W"), "temporal"

    # -------------------------------------------------- D1: engine configuration that is not first-party code
    k = "engine configuration: values"
    for name, old, new, where in [
        ("worker-failure-exception-types-edited", "workflow_failure_exception_types=[ValueError]", "workflow_failure_exception_types=[]", "w"),
        ("worker-runner-sandboxed-to-unsandboxed", "workflow_runner=SandboxedWorkflowRunner()", "workflow_runner=UnsandboxedWorkflowRunner()", "w"),
        ("client-data-converter-pydantic-to-default", "data_converter=pydantic_data_converter", "data_converter=DataConverter.default", "c"),
    ]:
        worker = ("from temporalio.client import Client\nfrom temporalio.contrib.pydantic import pydantic_data_converter\n"
                  "from temporalio.converter import DataConverter\nfrom temporalio.worker import UnsandboxedWorkflowRunner, Worker\n"
                  "from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner\n\nfrom shop.flows import W\n\n\nasync def main():\n"
                  f"    client = await Client.connect('localhost:7233', {old if where == 'c' else 'namespace=NS'})\n"
                  f"    await Worker(client, task_queue='q', workflows=[W], {old if where == 'w' else 'max_concurrent_activities=1'}).run()\n")
        base = project(flows, worker=worker)
        out.append(temporal_pair(C(name, k, base, edit(base, "shop/worker.py", old, new))))  # D1: closed (fw3)

    # -------------------------------------------------- D2: the engine's hook-taking call not spelled as a call of its global name
    k = "engine configuration: the call spelled otherwise"
    duck = ("from temporalio.worker import WorkflowInboundInterceptor\n\n\n" + inbound +
            "class MyInterceptor:\n    def intercept_activity(self, next):\n        return next\n\n"
            "    def workflow_interceptor_class(self, input):\n        return _Inbound\n")
    head = ("import functools\n\nfrom temporalio.client import Client\nfrom temporalio.worker import Worker\n\nfrom shop.flows import W\n"
            "from shop.interceptor import MyInterceptor\n\n\nasync def main():\n    client = await Client.connect('localhost:7233')\n")
    drop = ("shop/interceptor.py", "        return _Inbound\n", "        return None\n")
    for name, body, finding in [  # D2: closed (fw3)
        ("worker-through-functools-partial",
         "    make = functools.partial(Worker, client, task_queue='q', workflows=[W], interceptors=[MyInterceptor()])\n"
         "    await make().run()\n", None),
        ("worker-through-a-local-alias",
         "    cls = Worker\n    await cls(client, task_queue='q', workflows=[W], interceptors=[MyInterceptor()]).run()\n", None),
        # held: the same protocol class handed to Worker(...) directly
        ("protocol-interceptor-handed-to-worker", "    await Worker(client, task_queue='q', workflows=[W], interceptors=[MyInterceptor()]).run()\n",
         None),
    ]:
        base = project(flows, interceptor=duck, worker=head + body)
        out.append(temporal_pair(C(name, k, base, edit(base, *drop), finding)))

    # -------------------------------------------------- D3: a hook class whose engine base comes in through a star import
    k = "engine hooks: hook classes"
    member = "    def workflow_interceptor_class(self, input):\n        return _Inbound\n"
    worker = ("from temporalio.worker import Worker\n\nfrom shop.flows import W\nfrom shop.interceptor import MyInterceptor\n\n\n"
              "def make_worker(client, interceptors):\n    return Worker(client, task_queue='q', workflows=[W], interceptors=interceptors)\n\n\n"
              "async def main(client):\n    await make_worker(client, [MyInterceptor()]).run()\n")
    more = ("shop/interceptor.py", "return (await super().execute_workflow(input)) + 1", "return await super().execute_workflow(input)")
    for name, imports, bases, finding in [
        ("interceptor-base-from-a-star-import", "from temporalio.worker import *\n\n\n", "Interceptor", None),  # D3: closed (fw3)
        # held: the base imported by name, or through a module alias
        ("interceptor-base-imported-by-name", "from temporalio.worker import Interceptor, WorkflowInboundInterceptor\n\n\n", "Interceptor", None),
        ("interceptor-base-through-a-module-alias",
         "import temporalio.worker as tw\nfrom temporalio.worker import WorkflowInboundInterceptor\n\n\n", "tw.Interceptor", None),
    ]:
        base = project(flows, interceptor=imports + inbound + f"class MyInterceptor({bases}):\n" + member, worker=worker)
        out.append(temporal_pair(C(name, k, base, edit(base, *more), finding)))
    return out


FRAMEWORK_PAIRS = FRAMEWORK_PAIRS + tuple(_breaker3_framework_pairs())


def _breaker3_pairs() -> list[ProjectPair]:
    """Third adversarial round (breaker3, findings ``D<n>`` on /work/TEAM.md). Each ``changed`` pair
    also fails on the fp2-core / fp2-dyn / fp2-effects branch tips of session 4 (18:45 UTC)."""
    pairs: list[ProjectPair] = []
    add = pairs.append

    # -------------------------------------------------- D4: a descriptor member of the flow class is handed the instance
    k = "method flows: descriptors"
    desc = "\n\nclass D:\n    def __get__(self, obj, owner=None):\n        return obj.hook() + 10\n"
    base = project(method_flow("    def hook(self):\n        return 1\n\n    val = D()\n", "return self.val", head=desc))
    add(C("descriptor-get-calls-a-method-of-the-flow-class", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    # held: the instance handed to a function or a helper class by the flow itself
    base = project(method_flow("    def hook(self):\n        return 1\n", "return run_hook(self)",
                               head="\n\ndef run_hook(obj):\n    return obj.hook() + 10\n"))
    add(C("flow-hands-self-to-a-function-that-calls-its-method", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))

    # -------------------------------------------------- D5: a module's namespace reached through a spelling C13 does not expect
    k = "module namespaces: stores spelled otherwise"
    h = "RATE = 1\n\n\ndef helper(x):\n    return x + RATE\n"
    for name, patch, finding in [
        # fp2-dyn (session 5): scopes.module_value reads every fetch of a module by name (sys.modules[k],
        # .get/.setdefault/.pop, __import__ with a fromlist, sys.modules[f.__module__]) and qualified() the
        # module-level aliases of sys.modules: the marks are gone
        ("store-through-sys-modules-get", "import sys\n\nimport shop.h\n\nsys.modules.get('shop.h').RATE = 5\n", None),
        ("store-through-an-alias-of-vars", "from shop import h\n\nns = vars(h)\nns['RATE'] = 5\n", None),  # fp2-effects: h handed to vars() touches it
        ("store-through-an-alias-of-sys-modules", "import sys\n\nimport shop.h\n\nmods = sys.modules\nmods['shop.h'].RATE = 5\n", None),
        ("store-through-sys-modules-of-a-functions-module",
         "import sys\n\nfrom shop.h import helper\n\nsys.modules[helper.__module__].RATE = 5\n", None),
        ("store-through-dunder-import", "__import__('shop.h', fromlist=['x']).RATE = 5\n", None),
        # held: a function's __globals__ (C17); fp2-dyn's own pairs hold the spellings C13 names
        ("store-through-a-functions-globals", "from shop.h import helper\n\nhelper.__globals__['RATE'] = 5\n", None),
    ]:
        base = project(flow("return helper(o)", "from shop.h import helper\n"), h=h, patch=patch, init="from . import patch\n")
        add(C(name, k, base, edit(base, "shop/patch.py", "5", "6"), finding))

    # -------------------------------------------------- D6: an import-time call of a first-party function spelled otherwise (C11, C22)
    k = "effects through a called function's body: the call spelled otherwise"
    g = "from shop.cfg import CFG\n\n\ndef setup(*a):\n    CFG['a'] = 5\n"
    for name, head, finding in [
        ("setup-called-through-a-table", "from shop.g import setup\n\nHOOKS = {'s': setup}\nHOOKS['s']()\n", None),
        ("setup-called-through-an-alias", "from shop.g import setup\n\ns = setup\ns()\n", None),
        ("setup-called-in-a-for-loop", "from shop.g import setup\n\nfor f in [setup]:\n    f()\n", None),
        ("setup-from-a-star-import", "from shop.g import *\n\nsetup()\n", None),
        # (fp2-effects' branch holds the call spelled directly, through functools.partial, map, a lambda, a
        # default, a decorator, a class body, a constructor, a context manager, recursion: C11's own pairs)
    ]:
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\n" + head), cfg="CFG = {'a': 1}\n", g=g)
        add(C(name, k, base, edit(base, "shop/g.py", "= 5", "= 6"), finding))
    base = project(flow("return CFG['a']", "from shop.cfg import CFG\nfrom shop.g import make\n\nmake()()\n"), cfg="CFG = {'a': 1}\n",
                   g="from shop.g2 import inner\n\n\ndef make():\n    return inner\n",
                   g2="from shop.cfg import CFG\n\n\ndef inner():\n    CFG['a'] = 5\n")
    add(C("function-returned-by-another-module-called", k, base, edit(base, "shop/g2.py", "= 5", "= 6")))
    base = project(flow("return helper(o)", "from shop.h import helper\n"), h="def helper(x):\n    return x + EXTRA\n",
                   patch="from shop import h\n\n\ndef boot():\n    h.EXTRA = 5\n\n\nboot()\n", init="from . import patch\n")
    # fp2-dyn: boot() changes the module h as a whole (its callee stores through h): relevant to every member of h (C13's rule)
    add(C("store-creating-a-global-inside-a-function-called-at-import", k, base, edit(base, "shop/patch.py", "5", "6")))

    # -------------------------------------------------- D7: codecs.register spelled otherwise (C6)
    k = "effects on third-party state: registries spelled otherwise"
    enc = ("import codecs\n\n\ndef _enc(s, errors='strict'):\n    return (s.upper().encode(), len(s))\n\n\ndef search(name):\n"
           "    if name == 'shout':\n        return codecs.CodecInfo(_enc, None, name='shout')\n    return None\n\n\n")
    for name, call in [
        ("codec-registered-through-an-alias", "reg = codecs.register\nreg(search)\n"),
        ("codec-registered-inside-a-function-called-at-import", "def boot():\n    codecs.register(search)\n\n\nboot()\n"),
    ]:
        base = project(flow("return 'ab'.encode('shout')"), init=enc + call)
        add(C(name, k, base, edit(base, "shop/__init__.py", "s.upper()", "s.lower()")))
    return pairs


PAIRS = PAIRS + tuple(_breaker3_pairs())


def _breaker3_pairs_2() -> list[ProjectPair]:
    # -------------------------------------------------- D8: the flow class's instance built at module level spelled otherwise (C14)
    k = "method flows: the instance built at module level, spelled otherwise"
    flows = (HEAD + "\n\nclass Checkout:\n    def __init__(self, rate=0):\n        self.rate = rate\n\n    @flow(\"checkout\")\n"
             "    def run(self, ctx, o):\n        return o * self.rate\n\n\n")
    pairs = []
    for name, tail, finding in [
        ("instance-built-through-an-alias-of-the-flow-class", "K = Checkout\ninst = K(5)\n", None),
        ("instance-built-by-a-module-level-factory", "def make():\n    return Checkout(5)\n\n\ninst = make()\n", None),
        # held: through functools.partial, a list, type(...), and another module's aliased import
        ("instance-built-through-functools-partial", "import functools\n\ninst = functools.partial(Checkout, (5))()\n", None),
        ("instance-built-in-a-list", "INSTS = [Checkout(5)]\n", None),
    ]:
        base = {"shop/__init__.py": "", "shop/flows.py": flows + tail}
        pairs.append(C(name, k, base, edit(base, "shop/flows.py", "(5)", "(6)"), finding))
    base = {"shop/__init__.py": "from . import main\n", "shop/flows.py": flows,
            "shop/main.py": "from shop.flows import Checkout as K\n\nINST = K(5)\n"}
    pairs.append(C("instance-built-in-another-module-through-an-import-alias", k, base, edit(base, "shop/main.py", "(5)", "(6)")))
    return pairs


PAIRS = PAIRS + tuple(_breaker3_pairs_2())


def _core3_pairs() -> list[ProjectPair]:
    """The fixer's own attacks on the rules closing D4 (a class attribute handed the instance:
    ``closure._hands_instance``) and D8 (the flow class's instance built through a name that stands
    for the class: ``effects._flow_class_names``), each direction: what must move the hash, and the
    ordinary code next to it that must not."""
    pairs: list[ProjectPair] = []
    add = pairs.append
    hook = "    def hook(self):\n        return 1\n\n"
    # -------------------------------------------------- D4: what the class attributes do to the instance
    k = "method flows: descriptors"
    desc = "\n\nclass D:\n    def __get__(self, obj, owner=None):\n        return obj.hook() + 10\n"
    for name, head, members, body in [
        ("descriptor-set-name-calls-a-classmethod-of-the-flow-class",
         "\n\nclass D:\n    def __set_name__(self, owner, name):\n        self.v = owner.seed()\n\n"
         "    def __get__(self, obj, owner=None):\n        return self.v\n",
         "    @classmethod\n    def seed(cls):\n        return 1\n\n    val = D()\n", "return self.val"),
        ("descriptor-set-calls-a-method-of-the-flow-class",
         "\n\nclass D:\n    def __set__(self, obj, value):\n        obj._v = obj.hook() + value\n\n"
         "    def __get__(self, obj, owner=None):\n        return obj._v\n",
         hook + "    val = D()\n", "self.val = o\nreturn self.val"),
        ("descriptor-built-by-a-module-level-factory", desc + "\n\ndef make():\n    return D()\n", hook + "    val = make()\n",
         "return self.val"),
        ("descriptor-held-by-a-module-level-instance", desc + "\n\nSHARED = D()\n", hook + "    val = SHARED\n", "return self.val"),
        ("descriptor-subclass-of-a-first-party-descriptor", desc + "\n\nclass E(D):\n    pass\n", hook + "    val = E()\n",
         "return self.val"),
        ("cached-property-over-a-module-level-function",
         "import functools\n\n\ndef compute(self):\n    return self.hook() + 10\n",
         hook + "    val = functools.cached_property(compute)\n", "return self.val"),
        ("module-level-function-installed-as-a-method", "\n\ndef _process(self):\n    return self.hook() + 10\n",
         hook + "    process = _process\n", "return self.process()"),
        ("first-party-decorator-of-a-method-calls-the-instance",
         "\n\ndef logged(fn):\n    def wrapper(self):\n        return fn(self) + self.hook()\n    return wrapper\n",
         hook + "    @logged\n    def helper(self):\n        return 7\n", "return self.helper()"),
    ]:
        base = project(method_flow(members, body, head=head))
        add(C(name, k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    # the descriptor installed on the class by a module statement, or held by a first-party base
    base = project(method_flow(hook, "return self.val", head=desc) + "\n\nCheckout.val = D()\n")
    add(C("descriptor-installed-by-a-module-statement", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    base = project(method_flow(hook, "return self.val", head=desc + "\n\nclass Base:\n    val = D()\n", bases="(Base)"))
    add(C("descriptor-held-by-a-first-party-base", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    base = project(method_flow(hook, "return self.val", bases="(Base)"),
                   base=desc.lstrip("\n") + "\n\nclass Base:\n    val = D()\n",
                   )
    base = {**base, "shop/flows.py": base["shop/flows.py"].replace(HEAD, HEAD + "from shop.base import Base\n")}
    add(C("descriptor-held-by-a-base-in-another-module", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    # a first-party base's __init_subclass__ runs with the flow class (C1's rule: cls uses are looked up on it)
    base = project(method_flow("    @classmethod\n    def seed(cls):\n        return 1\n", "return self.RATE", bases="(Base)",
                               head="\n\nclass Base:\n    def __init_subclass__(cls, **kw):\n"
                                    "        super().__init_subclass__(**kw)\n        cls.RATE = cls.seed()\n"))
    add(C("init-subclass-of-a-first-party-base-calls-a-classmethod", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    # a descriptor class nested in the flow class (its name is the class's, no global names it),
    # and a subclass of a third-party descriptor whose __get__ calls a method of the subclass
    nested = "    class D:\n        def __get__(self, obj, owner=None):\n            return obj.hook() + 10\n\n"
    base = project(method_flow(nested + "    val = D()\n\n" + hook, "return self.val"))
    add(C("descriptor-class-nested-in-the-flow-class", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    lazy = ("import functools\n\n\nclass Lazy(functools.cached_property):\n    def __init__(self):\n"
            "        super().__init__(self._compute)\n\n    def _compute(self, obj):\n        return obj.hook() + 10\n")
    base = project(method_flow(hook + "    val = Lazy()\n", "return self.val", head=lazy))
    add(C("subclass-of-a-third-party-descriptor-calls-the-instance", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    # held: ordinary class attributes next to an unused method (its edit must not move the hash)
    unused = "    def unused(self):\n        return 1\n\n"
    for name, head, members in [
        ("descriptor-held-by-another-class", desc + "\n\nclass Other:\n    val = D()\n", unused),
        ("value-of-a-first-party-class-that-is-no-descriptor",
         "\n\nclass Settings:\n    def __init__(self):\n        self.rate = 3\n", unused + "    cfg = Settings()\n"),
        ("builtin-property-over-a-lambda", "", unused + "    val = property(lambda self: 3)\n"),
        ("member-of-a-first-party-enum", "import enum\n\n\nclass Status(enum.Enum):\n    OK = 3\n",
         unused + "    status = Status.OK\n"),
        ("class-attribute-of-a-third-party-value", "import datetime\n", unused + "    val = datetime.timedelta(seconds=3)\n"),
        ("staticmethod-and-classmethod-decorators", "",
         unused + "    @staticmethod\n    def s():\n        return 3\n\n    @classmethod\n    def c(cls):\n        return 3\n"),
    ]:
        base = project(method_flow(members, "return o", head=head))
        add(E(name, k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    base = project(method_flow(hook, "return self.hook()", head="\n\ndef register(cls):\n    cls.extra = 1\n")
                   + "\n\nregister(Checkout)\n")
    add(C("flow-class-handed-to-a-first-party-function", k, base, edit(base, "shop/flows.py", "cls.extra = 1", "cls.hook = len")))
    # -------------------------------------------------- D8: names standing for the flow class or its instance
    k = "method flows: the instance built at module level, spelled otherwise"
    flows = (HEAD + "\n\nclass Checkout:\n    def __init__(self, rate=0):\n        self.rate = rate\n\n    @flow(\"checkout\")\n"
             "    def run(self, ctx, o):\n        return o * self.rate\n\n\nclass Other:\n    def __init__(self, rate=0):\n"
             "        self.rate = rate\n\n\n")
    for name, tail in [
        ("instance-configured-after-it-is-built", "inst = Checkout()\ninst.rate = (5)\n"),
        ("instance-configured-through-a-function-called-at-import",
         "inst = Checkout()\n\n\ndef configure():\n    inst.rate = (5)\n\n\nconfigure()\n"),
        ("instance-built-by-a-factory-through-another-factory",
         "def _build(rate):\n    return Checkout(rate)\n\n\ndef make():\n    return _build((5))\n\n\ninst = make()\n"),
        ("instance-built-through-a-classmethod-factory-of-an-alias", "K = Checkout\ninst = K.__new__(K)\ninst.__init__((5))\n"),
        ("instance-built-by-a-factory-defined-below-its-alias", "def make():\n    return K((5))\n\n\nK = Checkout\ninst = make()\n"),
    ]:
        base = {"shop/__init__.py": "", "shop/flows.py": flows + tail}
        add(C(name, k, base, edit(base, "shop/flows.py", "(5)", "(6)")))
    base = {"shop/__init__.py": "from . import main\n", "shop/flows.py": flows,
            "shop/factory.py": "from shop.flows import Checkout\n\n\ndef make():\n    return Checkout(5)\n",
            "shop/main.py": "from shop.factory import make\n\nINST = make()\n"}
    add(C("instance-built-by-a-factory-of-another-module", k, base, edit(base, "shop/factory.py", "(5)", "(6)")))
    base = {"shop/__init__.py": "from . import main\n", "shop/flows.py": flows,
            "shop/main.py": "from shop.flows import Checkout\n\nK = Checkout\nINST = K(5)\n"}
    # a local alias of an imported name called at import time: the spelling of D6 (fp2-effects)
    add(C("instance-built-through-a-local-alias-in-another-module", k, base, edit(base, "shop/main.py", "(5)", "(6)")))
    # held: the same spellings building another class
    for name, tail in [
        ("factory-building-another-class", "def make():\n    return Other((5))\n\n\nother = make()\n"),
        ("alias-of-another-class", "K = Other\nother = K((5))\n"),
        ("another-class-configured-after-it-is-built", "other = Other()\nother.rate = (5)\n"),
    ]:
        base = {"shop/__init__.py": "", "shop/flows.py": flows + tail}
        add(E(name, k, base, edit(base, "shop/flows.py", "(5)", "(6)")))
    return pairs


PAIRS = PAIRS + tuple(_core3_pairs())


def _core3_chunk_cases() -> list[ChunkCase]:
    """D4's shapes bundled: the whole class a chunk serves holds what the descriptor calls."""
    cases: list[ChunkCase] = []
    hook = "    def hook(self):\n        return 1\n\n"
    desc = "\n\nclass D:\n    def __get__(self, obj, owner=None):\n        return obj.hook() + 10\n"
    for name, head, members, body in [
        ("descriptor-calls-a-method-of-the-flow-class", desc, hook + "    val = D()\n", "return self.val"),
        ("cached-property-over-a-module-level-function", "import functools\n\n\ndef compute(self):\n    return self.hook() + 10\n",
         hook + "    val = functools.cached_property(compute)\n", "return self.val, self.val"),
        ("module-level-function-installed-as-a-method", "\n\ndef _process(self):\n    return self.hook() + 10\n",
         hook + "    process = _process\n", "return self.process()"),
        ("descriptor-class-nested-in-the-flow-class", "",
         "    class D:\n        def __get__(self, obj, owner=None):\n            return obj.hook() + 10\n\n" + hook + "    val = D()\n",
         "return self.val"),
        ("subclass-of-a-third-party-descriptor", "import functools\n\n\nclass Lazy(functools.cached_property):\n"
         "    def __init__(self):\n        super().__init__(self._compute)\n\n    def _compute(self, obj):\n"
         "        return obj.hook() + 10\n", hook + "    val = Lazy()\n", "return self.val"),
    ]:
        cases.append(ChunkCase(name, project(method_flow(members, body, head=head)), 0))
    return cases


CHUNK_CASES = CHUNK_CASES + tuple(_core3_chunk_cases())


def _review_pairs_session5() -> list[ProjectPair]:
    """The directions the session-4 review found missing in the closure's rules: each pair fails
    if its rule is dropped (changed) or widened to everything (equal)."""
    pairs: list[ProjectPair] = []
    add = pairs.append
    k = "effects through a called function's body"
    # a class whose __init__ fills a registry, built at import time by another module (C11 through a constructor)
    reg = "REGISTRY = {}\n\n\nclass Plugin:\n    def __init__(self, name):\n        REGISTRY[name] = self\n        self.name = name\n"
    base = project(flow("return sorted(REGISTRY)", "from shop.reg import REGISTRY\n"), init="from . import plugins\n", reg=reg,
                   plugins="from shop.reg import Plugin\n\nPlugin('a')\n")
    add(C("class-init-fills-a-registry-when-built-abroad", k, base, edit(base, "shop/plugins.py", "'a'", "'b'")))
    # _plain_callee: a callee's call of a plain class or def changes what that code does, not the
    # object itself (the import-time call's own callee counts as changed: widening, on purpose)
    for name, callee, head, reg in [
        ("callee-builds-a-plain-class-the-flow-reaches", "Plugin", "from shop.reg import Plugin\n",
         "class Plugin:\n    def __init__(self, name):\n        self.name = name\n"),
        ("callee-calls-a-plain-function-the-flow-reaches", "helper", "from shop.reg import helper\n",
         "def helper(x):\n    return x\n"),
    ]:
        body = "return Plugin(o).name" if callee == "Plugin" else "return helper(o)"
        base = project(flow(body, head), init="from . import boot\n", reg=reg,
                       g=f"from shop.reg import {callee}\n\n\ndef setup():\n    {callee}('a')\n",
                       boot="from shop.g import setup\n\nsetup()\n")
        add(E(name, k, base, edit(base, "shop/g.py", "'a'", "'b'")))
    # _absent_attribute through an imported callee: it creates a global the reached helper reads (C22)
    # (a store into another module through a callee changes that module whole: no equal direction)
    base = project(flow("return helper(o)", "from shop.h import helper\n"), h="def helper(x):\n    return x + EXTRA\n",
                   init="from . import patch\n", g="from shop import h\n\n\ndef boot():\n    h.EXTRA = 5\n",
                   patch="from shop.g import boot\n\nboot()\n")
    add(C("imported-callee-creates-a-global-the-helper-reads", k, base, edit(base, "shop/g.py", "= 5", "= 6")))
    # a decorated def called in its own module keeps state in its wrapper; a plain one does not
    cached = "import functools\n\n\n@functools.lru_cache(maxsize=None)\ndef helper(x):\n    return x\n\n\nhelper(1)\n"
    base = project(flow("return helper.cache_info().currsize", cached))
    add(C("decorated-def-called-in-its-own-module", k, base, edit(base, "shop/flows.py", "helper(1)\n", "helper(1), helper(2)\n")))
    base = project(flow("return helper(o)", "\n\ndef helper(x):\n    return x\n\n\nhelper(1)\n"))
    add(E("plain-def-called-in-its-own-module", k, base, edit(base, "shop/flows.py", "helper(1)\n", "helper(1), helper(2)\n")))
    # annotated(): a module's __annotations__ is its annotated statements, not every statement
    k = "module namespaces: annotations"
    base = project(flow("return get()", "from shop.h import get\n"),
                   h="LIMIT: int = 5\nOTHER = 1\n\n\ndef get():\n    return sorted(__annotations__.items(), key=str)\n")
    add(C("module-annotations-read-an-annotation-edited", k, base, edit(base, "shop/h.py", "LIMIT: int", "LIMIT: float")))
    add(E("module-annotations-read-an-unannotated-statement-edited", k, base, edit(base, "shop/h.py", "OTHER = 1", "OTHER = 2")))
    return pairs


PAIRS = PAIRS + tuple(_review_pairs_session5())


def _review_framework_pairs_session5() -> list[tuple[ProjectPair, str]]:
    k = "method flows: inert bases"
    # DBOSConfiguredInstance calls no member of a subclass: its subclass is not hashed whole (INERT_BASES)
    svc = ("from dbos import DBOS, DBOSConfiguredInstance\n\n\n@DBOS.dbos_class()\nclass Svc(DBOSConfiguredInstance):\n"
           "    def __init__(self, name):\n        super().__init__(name)\n\n    def unused(self):\n        return 1\n\n"
           "    @DBOS.workflow()\n    def wf(self, o):\n        return o\n")
    base = {"shop/__init__.py": "", "shop/flows.py": svc}
    pair = E("dbos-configured-instance-base-calls-no-member", k, base, edit(base, "shop/flows.py", "return 1", "return 2"))
    return [(replace(pair, flow_id="shop.flows:Svc.wf"), "dbos")]


FRAMEWORK_PAIRS = FRAMEWORK_PAIRS + tuple(_review_framework_pairs_session5())


def _effects_pairs() -> list[ProjectPair]:
    """fp2-effects' own pairs for C11/C22: the attacks a callee effect summary must see (changed)
    and the look-alikes it must not widen on (equal)."""
    pairs: list[ProjectPair] = []
    add = pairs.append
    cfg = "CFG = {'a': 1}\n"
    reads = "from shop.cfg import CFG\n"
    # -------------------------------------------------- C11: callees followed across modules, transitively
    k = "effects through a called function's body"
    base = project(flow("return CFG['a']", reads + "from shop.g import setup\n\nsetup()\n"), cfg=cfg,
                   g="from shop.h import init\n\n\ndef setup():\n    init()\n",
                   h=reads + "\n\ndef init():\n    CFG['a'] = 5\n")
    add(C("import-time-call-whose-callee-calls-a-third-module", k, base, edit(base, "shop/h.py", "= 5", "= 6")))
    base = project(flow("return CFG['a']", reads + "from shop.g import init\n\n\ndef boot():\n    init()\n\n\nboot()\n"), cfg=cfg,
                   g=reads + "\n\ndef init():\n    CFG['a'] = 5\n")
    add(C("own-function-at-module-level-calls-an-imported-mutator", k, base, edit(base, "shop/g.py", "= 5", "= 6")))
    base = project(flow("return CFG['a']", reads + "from shop.g import setup\n\nsetup()\n"), cfg=cfg,
                   g="def setup():\n    from shop.cfg import CFG\n    CFG['a'] = 5\n")
    add(C("import-time-callee-stores-through-a-lazy-import", k, base, edit(base, "shop/g.py", "= 5", "= 6")))
    base = project(flow("return CFG['a']", reads + "from shop.g import setup\n\nsetup()\n"), cfg=cfg,
                   g="from shop.h import init\n\nHOOKS = [init]\n\n\ndef setup():\n    for f in HOOKS:\n        f()\n",
                   h=reads + "\n\ndef init():\n    CFG['a'] = 5\n")
    add(C("import-time-callee-calls-hooks-from-a-list", k, base, edit(base, "shop/h.py", "= 5", "= 6")))
    # review, session 4: the rules for a callee taken out of a container and for a loop variable had
    # one direction or none
    base = project(flow("return CFG['a']", reads + "from shop.g import setup\n\nsetup()\n"), cfg=cfg,
                   g="from shop.h import init\n\nHOOKS = {'s': init}\n\n\ndef setup():\n    HOOKS['s']()\n",
                   h=reads + "\n\ndef init():\n    CFG['a'] = 5\n")
    add(C("import-time-callee-calls-a-hook-from-a-table", k, base, edit(base, "shop/h.py", "= 5", "= 6")))
    base = project(flow("return CFG['a']", reads + "from shop.g import setup\n\nsetup()\n"), cfg=cfg + "OTHER = {}\n",
                   g="from shop.cfg import OTHER\n\nNAMES = ['a']\n\n\ndef setup():\n    for n in NAMES:\n"
                     "        print(n.upper())\n    OTHER['x'] = 1\n")
    add(E("import-time-callee-loops-over-names-it-only-prints", k, base, edit(base, "shop/g.py", "= 1", "= 2")))
    base = project(flow("return CFG['a']", reads + "from shop.g import run\nfrom shop.h import init\n\nrun(init)\n"), cfg=cfg,
                   g="def run(cb):\n    cb()\n", h=reads + "\n\ndef init():\n    CFG['a'] = 5\n")
    add(C("import-time-call-hands-a-mutator-to-a-runner", k, base, edit(base, "shop/h.py", "= 5", "= 6")))
    base = project(flow("return CFG['a']", reads + "from shop.g import setup\n\nsetup()\n"), cfg=cfg,
                   g="import functools\n\nfrom shop.h import init_with\n\nsetup = functools.partial(init_with, 5)\n",
                   h=reads + "\n\ndef init_with(v):\n    CFG['a'] = v\n")
    add(C("import-time-call-of-a-partial-of-a-mutator", k, base, edit(base, "shop/h.py", "= v\n", "= v + 1\n")))
    base = project(flow("return st.N", "from shop import st\nfrom shop.g import init\n\ninit(st)\n"), st="N = 0\n",
                   g="def init(mod):\n    setattr(mod, 'N', 5)\n")
    add(C("import-time-call-given-a-module-sets-its-attribute", k, base, edit(base, "shop/g.py", "5)", "6)")))
    base = project(flow("return CFG['a']", reads + "from shop.g import setup\n\nsetup()\n"), cfg=cfg,
                   g=reads + "\n\ndef setup(d=CFG):\n    d['a'] = 5\n")
    add(C("import-time-callee-changes-its-default-argument", k, base, edit(base, "shop/g.py", "= 5", "= 6")))
    base = project(flow("return CFG['a']", reads + "from shop.g import setup\n\nsetup()\n"), cfg=cfg,
                   g=reads + "\n\ndef setup():\n    globals()['CFG']['a'] = 5\n")
    add(C("import-time-callee-changes-an-import-through-globals", k, base, edit(base, "shop/g.py", "= 5", "= 6")))
    base = project(flow("return CFG['a']", reads + "from shop.g import REG\n\nREG.load()\n"), cfg=cfg,
                   g=reads + "\n\nclass Reg:\n    def load(self):\n        CFG['a'] = 5\n\n\nREG = Reg()\n")
    add(C("import-time-method-call-on-an-imported-instance", k, base, edit(base, "shop/g.py", "= 5", "= 6")))
    # equal: the callee only reads or logs, or changes what the flow does not reach
    base = project(flow("return CFG['a']", reads + "from shop.g import announce\n\nannounce()\n"), cfg=cfg,
                   g=reads + "\n\ndef announce():\n    x = CFG['a']\n    print('ready', x)\n")
    add(E("import-time-call-that-only-reads-and-logs", k, base, edit(base, "shop/g.py", "'ready'", "'go'")))
    base = project(flow("return CFG['a']", reads + "from shop.g import setup\n\nsetup()\n"), cfg=cfg, other="T = {}\n",
                   g="from shop.other import T\n\n\ndef setup():\n    T['a'] = 5\n")
    add(E("import-time-call-that-changes-an-unreached-table", k, base, edit(base, "shop/g.py", "= 5", "= 6")))
    base = project(flow("return CFG['a']", reads + "from shop.g import setup\n\nsetup()\n"), cfg=cfg, other="T = {}\n",
                   g="from shop.h import init\n\n\ndef setup():\n    init()\n", h="from shop.other import T\n\n\ndef init():\n    T['a'] = 5\n")
    add(E("import-time-call-whose-callee-changes-an-unreached-table", k, base, edit(base, "shop/h.py", "= 5", "= 6")))
    base = project(flow("return helper(o)", "from shop.h import helper, other\nfrom shop.g import warm\n\nwarm()\n"),
                   h="import functools\n\n\ndef helper(x):\n    return x\n\n\n@functools.lru_cache(maxsize=None)\ndef other(x):\n    return x\n",
                   g="from shop.h import other\n\n\ndef warm():\n    other(3)\n")
    add(E("import-time-call-warms-a-cache-the-flow-does-not-use", k, base, edit(base, "shop/g.py", "other(3)", "other(4)")))
    # -------------------------------------------------- C22: a store abroad into a name the module reads but does not bind
    k = "effects across modules: injected globals"
    init = "from . import unrelated\n"
    base = project(flow("return helper(o)", "from shop.h import helper\n"), h="def helper(x):\n    return len(x)\n", init=init,
                   unrelated="from shop import h\n\nh.len = lambda x: 5\n")
    add(C("store-abroad-shadows-a-builtin-the-helper-calls", k, base, edit(base, "shop/unrelated.py", ": 5", ": 6")))
    base = project(flow("return helper(o)", "from shop.h import helper\n"), h="def helper(x):\n    return x + EXTRA\n", init=init,
                   unrelated="from shop import h\n\nNAME = 'EXTRA'\nsetattr(h, NAME, 1)\n")
    add(C("computed-store-abroad-feeds-a-global-the-helper-reads", k, base, edit(base, "shop/unrelated.py", "1)", "2)")))
    base = project(flow("return helper(o)", "from shop.h import helper\n"), h="def helper(x):\n    return x + EXTRA\n", other="",
                   init=init, unrelated="from shop import other\n\nNAME = 'EXTRA'\nsetattr(other, NAME, 1)\n")
    add(E("computed-store-abroad-into-an-unreached-module", k, base, edit(base, "shop/unrelated.py", "1)", "2)")))
    base = project(flow("return helper(o)", "from shop.h import helper\n"), h="def helper(x):\n    return x + EXTRA\n", init=init,
                   unrelated="from shop import h\n\nh.OTHER = 1\n")
    add(E("store-abroad-of-a-name-the-helper-does-not-read", k, base, edit(base, "shop/unrelated.py", "= 1", "= 2")))
    return pairs


PAIRS = PAIRS + tuple(_effects_pairs())


def _process_state_pairs() -> list[ProjectPair]:
    """fp2-effects' pairs for C6 (cont.): process-wide state a flow reads without naming it,
    changed by a module that runs for it (``effects.PROCESS_STATE``), and reads that do not."""
    pairs: list[ProjectPair] = []
    add = pairs.append
    k = "effects on third-party state"
    models = "class Order:\n    def __init__(self, n):\n        self.n = n\n"
    reducer = ("import copyreg\n\nfrom shop.models import Order\n\n\ndef _rebuild(n):\n    return Order(n + 1)\n\n\n"
               "def _reduce(o):\n    return (_rebuild, (o.n,))\n\n\ncopyreg.pickle(Order, _reduce)\n")
    base = project(flow("return pickle.loads(pickle.dumps(Order(o))).n", "import pickle\n\nfrom shop.models import Order\n"),
                   models=models, init="from . import reducers\n", reducers=reducer)
    add(C("copyreg-reducer-registered-by-a-module-the-package-imports", k, base, edit(base, "shop/reducers.py", "n + 1", "n + 2")))
    base = project(flow("return str(10 ** o)", "import shop.limits\n"), limits="import sys\n\nsys.set_int_max_str_digits(5000)\n")
    add(C("int-digit-limit-set-by-a-module-the-flow-module-imports", k, base, edit(base, "shop/limits.py", "5000", "6000")))
    base = project(flow("return format(o, 'n')"), init="import locale\n\nlocale.setlocale(locale.LC_ALL, 'C')\n")
    add(C("locale-set-by-the-package-init", k, base, edit(base, "shop/__init__.py", "'C'", "'C.UTF-8'")))
    codec = ("import codecs\n\n\ndef _enc(s, errors='strict'):\n    return (s.upper().encode(), len(s))\n\n\ndef search(name):\n"
             "    if name == 'shout':\n        return codecs.CodecInfo(_enc, None, name='shout')\n    return None\n\n\n"
             "def setup():\n    codecs.register(search)\n")
    base = project(flow("return 'ab'.encode('shout')"), init="from .codec import setup\n\nsetup()\n", codec=codec)
    add(C("codec-registered-by-a-function-the-package-init-calls", k, base, edit(base, "shop/codec.py", "s.upper()", "s.lower()")))
    # equal: reads of the same state, and an unrelated third-party call, in a module that runs
    base = project(flow("return o"), init="import codecs\n\nprint(codecs.lookup('utf-8').name)\n")
    add(E("codec-looked-up-by-the-package-init", k, base, edit(base, "shop/__init__.py", "'utf-8'", "'latin-1'")))
    base = project(flow("return o"), init="import os\n\nprint(os.environ.get('RATE'))\n")
    add(E("environment-read-by-the-package-init", k, base, edit(base, "shop/__init__.py", "'RATE'", "'RATE2'")))
    base = project(flow("return o"), init="from .codec import setup\n\nsetup()\n",
                   codec="import json\n\n\ndef setup():\n    print(json.dumps({'a': 1}))\n")
    add(E("function-the-package-init-calls-only-serialises", k, base, edit(base, "shop/codec.py", "'a'", "'b'")))
    return pairs


PAIRS = PAIRS + tuple(_process_state_pairs())


def _review_pairs() -> list[ProjectPair]:
    """Found by the session-4 review: a cycle of bases (``B = C`` after ``class C(A)``, ``class
    A(B)``) let the MRO memo keep an answer computed while the cycle was open, so the flow class's
    override reached through an inherited method was missed whenever ANOTHER flow of the build
    asked for the same bases first (``closure._inherited``)."""
    k = "virtual dispatch through a cycle of bases"
    bases = (HEAD + "\n\nclass B:\n    def pb(self):\n        return self.b()\n\n    def b(self):\n        return 0\n\n\n"
             "class A(B):\n    def pa(self):\n        return self.a()\n\n    def a(self):\n        return 0\n\n\n"
             "class C(A):\n    pass\n\n\nB = C\n\n\n")
    other = "class D(A):\n    @flow(\"other\")\n    def run(self, ctx, o):\n        return self.pb()\n\n\n"
    checkout = ("class E(B):\n    def a(self):\n        return 1\n\n    @flow(\"checkout\")\n"
                "    def run(self, ctx, o):\n        return self.pa()\n")
    pairs = []
    for name, text in (("alone", bases + checkout), ("after-another-flow-of-the-same-bases", bases + other + checkout)):
        base = project(text)
        pairs.append(C(f"override-through-a-cycle-of-bases-{name}", k, base, edit(base, "shop/flows.py", "return 1", "return 2")))
    base = project(bases + other + checkout)
    pairs.append(E("the-other-flow-of-the-same-bases-edited", k, base,
                   edit(base, "shop/flows.py", "return self.pb()", "return self.pb() + 1")))
    return pairs


PAIRS = PAIRS + tuple(_review_pairs())


def _breaker4_chunk_cases() -> list[ChunkCase]:
    """Fourth adversarial round (breaker4, findings ``E<n>`` on /work/TEAM.md): chunks whose load
    order or name binding differs from the live modules'.

    E1: modules the flow imports as modules only lazily (``from shop import a, s`` in its body)
    are not started by importing the flow's module, so they run at load in module-name order
    (``chunk._runs``), not in the order their own top-level imports say: ``shop.a``'s
    ``from shop.s import X`` ran before ``shop.s`` had run, and the chunk failed to load.
    E2: a package ``__init__`` that binds a submodule's function under the submodule's own name
    (``from .tools import tools``): the chunk drops that statement and rewrites ``from shop import
    tools`` as ``from . import tools``, which imports the submodule: the flow calls a module.
    E3: a module that replaces itself in ``sys.modules`` (``sys.modules[__name__] = _M()``): live
    importers get the instance, the chunk's importers the chunk's module object.
    E4: an import in a class body (``_breaker4_pairs``) is not bundled. E5: the text fast path of
    ``chunk_imports`` spliced the wrong line after a form feed (held since). E6: the first import of a submodule
    (by a module the chunk leaves out) rebinds the package's attribute of its name live. E7: a
    literal ``__import__``/``import_module`` at load is not an import of the chunk's run order. E8:
    ``import_module(".x", "shop")`` in a chunk imports the live module. E9: a module found through a
    ``sys.path`` entry or ``__path__`` the package adds is neither hashed nor bundled. E10: a
    submodule read as its package's attribute is there in a chunk whether or not an import loaded it.
    E11: a statement the closure leaves out that raises at load (an import cycle) is not run.
    E12: a class body's ``global`` statement binds module globals the chunk never binds."""
    s = "X = 1\n\n\ndef setx():\n    global X\n    X = 2\n"
    a = "from shop.s import X\n\n\ndef get():\n    return X\n"
    tools = {"shop/__init__.py": "from .tools import tools\n", "shop/tools.py": "def tools():\n    return 'fn'\n"}
    return [
        # E1 ------------------------------------------------------------------------------------
        ChunkCase("lazy-from-import-of-two-modules-the-first-importing-the-second", project(
            flow("from shop import a, s\nreturn a.get(), s.X"), s=s, a=a), 0),
        ChunkCase("lazy-dotted-import-of-two-modules-the-first-reading-the-second-at-load", project(
            flow("import shop.alpha, shop.beta\nreturn shop.alpha.V"),
            alpha="import shop.beta\n\nV = shop.beta.W + 1\n", beta="W = 1\n"), 0),
        # held: one lazy module importing another only it imports (marked lazy, run at first use),
        # and the same two modules imported at the top of the flow's module
        ChunkCase("lazy-from-import-of-one-module-importing-another", project(
            flow("from shop import a\nreturn a.get()"), s=s, a=a), 0),
        ChunkCase("top-level-from-import-of-two-modules-the-first-importing-the-second", project(
            flow("return a.get(), s.X", "from shop import a, s"), s=s, a=a), 0),
        # E2 ------------------------------------------------------------------------------------
        ChunkCase("package-init-binds-a-function-named-like-its-submodule",
                  {**project(flow("return tools()", "from shop import tools")), **tools}, 0),
        ChunkCase("package-init-binds-a-function-named-like-its-submodule-lazy-import",
                  {**project(flow("from shop import tools\nreturn tools()")), **tools}, 0),
        ChunkCase("subpackage-init-binds-a-value-named-like-its-submodule", {
            **project(flow("import shop.sub\nreturn shop.sub.impl")),
            "shop/sub/__init__.py": "from .impl import impl\n", "shop/sub/impl.py": "impl = 'value'\n"}, 0),
        ChunkCase("import-as-of-a-submodule-the-package-rebinds", {
            **project(flow("import shop.a.b as ab\nreturn ab if isinstance(ab, str) else ab.V")),
            "shop/a/__init__.py": "from . import b\n\nb = 'attr'\n", "shop/a/b.py": "V = 'module'\n"}, 0),
        # held: the package binds it under another name; the flow imports the function from the submodule
        ChunkCase("package-init-binds-a-submodule-function-under-another-name", {
            **project(flow("return tool()", "from shop import tool")),
            "shop/__init__.py": "from .tools import tools as tool\n", "shop/tools.py": "def tools():\n    return 'fn'\n"}, 0),
        ChunkCase("function-named-like-its-submodule-imported-from-the-submodule",
                  {**project(flow("return tools()", "from shop.tools import tools")), **tools}, 0),
        # E3 ------------------------------------------------------------------------------------
        # E4 ------------------------------------------------------------------------------------
        ChunkCase("class-body-import-of-a-module", project(
            flow("from shop.m import K\nreturn K.cfg.V"), m="class K:\n    import shop.cfg as cfg\n", cfg="V = 3\n"),
            0),
        ChunkCase("class-body-from-import-of-a-value", project(
            flow("return K.V", "from shop.m import K"), m="class K:\n    from shop.cfg import V\n", cfg="V = 3\n"),
            0),
        ChunkCase("class-body-from-import-of-a-function-used-as-a-method", project(
            flow("from shop.m import K\nreturn K().get()"),
            m="class K:\n    from shop.cfg import helper\n\n    def get(self):\n        return self.helper()\n",
            cfg="def helper(self):\n    return 3\n"), 0),
        # held: the module bound by a class attribute assignment
        ChunkCase("class-attribute-bound-to-an-imported-module", project(
            flow("from shop.m import K\nreturn K.cfg.V"), m="import shop.cfg\n\n\nclass K:\n    cfg = shop.cfg\n",
            cfg="V = 3\n"), 0),
        # E5 ------------------------------------------------------------------------------------
        # chunk_imports._module_span mapped CPython's line numbers onto str.splitlines(), which also
        # breaks at \x0b \x0c \x1c-\x1e \x85 \u2028 \u2029: after a form feed in a comment the
        # text spliced was the comment's, and the real import stayed absolute (the live shop.x ran)
        ChunkCase("form-feed-in-a-comment-before-a-lazy-first-party-import", project(
            flow("note = 1  #\x0c    from shop.x import a\nfrom shop.x import b\nreturn b()"),
            x="def b():\n    return 'bundled'\n"), 0),
        # held: a form feed alone on a line between two lazy imports (libcst rewrites it)
        ChunkCase("form-feed-line-between-two-lazy-first-party-imports", project(
            flow("from shop.x import b\n\x0c\nfrom shop.x import c\nreturn b(), c()"),
            x="def b():\n    return 'b'\n\n\ndef c():\n    return 'c'\n"), 0),
        # E6 ------------------------------------------------------------------------------------
        ChunkCase("a-submodule-import-rebinds-the-package-attribute-of-its-name", {
            **project(flow("from shop import tools\nreturn type(tools).__name__", "import shop.loader")),
            "shop/__init__.py": "def tools():\n    return 'fn'\n", "shop/tools.py": "V = 1\n",
            "shop/loader.py": "import shop.tools\n"}, 0),
        # E7 ------------------------------------------------------------------------------------
        # a literal dynamic import at load whose module is used at load: chunk_order's schedule
        # does not count it as an import, so shop.x (after shop.m by name) has not run yet
        ChunkCase("dunder-import-at-load-whose-module-is-used-at-load", project(
            flow("return m.f()", "from shop import m"), m="mod = __import__('shop.x', fromlist=['f'])\nf = mod.f\n",
            x="def f():\n    return 1\n"), 0),
        ChunkCase("import-module-at-load-whose-module-is-used-at-load", project(
            flow("return m.f()", "from shop import m"),
            m="import importlib\n\nf = importlib.import_module('shop.x').f\n", x="def f():\n    return 1\n"), 0),
        ChunkCase("dunder-import-in-a-decorator-at-load", project(
            flow("return m.g()", "from shop import m"), m="@__import__('shop.x').x.wrap\ndef g():\n    pass\n",
            x="def f():\n    return 1\n\n\ndef wrap(fn):\n    return lambda: f()\n"), 0),
        # the lead's: the same importers spelled relative, or bound by a from-import under an alias
        ChunkCase("relative-import-module-at-load-whose-module-is-used-at-load", project(
            flow("return m.f()", "from shop import m"),
            m="import importlib\n\nf = importlib.import_module('.x', __package__).f\n", x="def f():\n    return 1\n"), 0),
        ChunkCase("aliased-import-module-at-load-whose-module-is-used-at-load", project(
            flow("return m.f()", "from shop import m"),
            m="from importlib import import_module as im\n\nf = im('shop.x').f\n", x="def f():\n    return 1\n"), 0),
        # E8 ------------------------------------------------------------------------------------
        # importlib.import_module(".x", "shop"): a relative name with a literal package reaches
        # the live module (the fingerprint follows it: editing shop/x.py moves the hash)
        ChunkCase("import-module-of-a-relative-name-with-a-literal-package", project(
            flow("return importlib.import_module('.x', 'shop').f()", "import importlib"),
            x="def f():\n    return 1\n"), 0),
        ChunkCase("import-module-of-a-relative-name-with-a-literal-subpackage", {
            **project(flow("return importlib.import_module('..x', 'shop.sub').f()", "import importlib"),
                      x="def f():\n    return 1\n"), "shop/sub/__init__.py": ""}, 0),
        # E9 ------------------------------------------------------------------------------------
        ChunkCase("module-found-through-a-sys-path-entry-the-package-adds", {**project(flow("import helper\nreturn helper.f()"),
                      init="import os\nimport sys\n\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), 'vendor'))\n"),
             "shop/vendor/helper.py": "def f():\n    return 1\n"}, 0),
        ChunkCase("module-found-through-a-package-path-the-package-extends", {**project(flow("from shop.plug import f\nreturn f()"),
                      init="import os\n\n__path__.append(os.path.join(os.path.dirname(__file__), 'extra'))\n"),
             "shop/extra/plug.py": "def f():\n    return 1\n"}, 0),
        # E10 -----------------------------------------------------------------------------------
        # live, shop.b is an attribute of shop only once some import loaded it: the chunk has it anyway
        ChunkCase("submodule-read-as-an-attribute-that-no-import-loaded", project(
            flow("return shop.b.f()", "import shop.a"), a="X = 1\n", b="def f():\n    return 1\n"), 0, refused="shop/flows.py:6:12: flow `checkout`: `shop.b` is read as an attribute"),
        # held: loaded by another module's import, or by the package's own
        ChunkCase("submodule-read-as-an-attribute-another-module-loaded", project(
            flow("return shop.b.f()", "import shop.a"), a="import shop.b\n", b="def f():\n    return 1\n"), 0),
        ChunkCase("submodule-read-as-an-attribute-the-package-loaded", project(
            flow("return shop.b.f()", "import shop"), init="import shop.b\n", b="def f():\n    return 1\n"), 0),
        # E11 -----------------------------------------------------------------------------------
        # a statement the closure leaves out that raises at load (here the from-import closing an
        # import cycle): live the lazy import fails, the chunk (which drops it) returns
        ChunkCase("an-import-cycle-that-fails-live-through-a-statement-the-closure-leaves-out", project(
            flow("from shop import a\nreturn a.X"), a="from shop.b import Y\n\nX = Y + 1\n", b="from shop.a import X\n\nY = 1\n"),
            0, finding="E11"),
        # E12 -----------------------------------------------------------------------------------
        ChunkCase("a-class-body-global-statement-rebinding-a-module-global", project(
            flow("return m.G", "from shop import m"), m="G = 0\n\n\nclass K:\n    global G\n    G = 1\n"), 0),
        ChunkCase("a-class-body-global-statement-defining-a-module-function", project(
            flow("return m.h()", "from shop import m"), m="class K:\n    global h\n\n    def h():\n        return 1\n"),
            0),
        ChunkCase("module-replacing-itself-in-sys-modules", project(
            flow("from shop import m\nreturn m.answer, type(m).__name__"),
            m="import sys\n\n\nclass _M:\n    answer = 42\n\n\nsys.modules[__name__] = _M()\n"), 0),
        # the lead's: the same module reached by a from-import of its name, lazily or at load
        ChunkCase("name-imported-from-a-module-replacing-itself-in-sys-modules", project(
            flow("from shop.m import answer\nreturn answer"),
            m="import sys\n\n\nclass _M:\n    answer = 42\n\n\nsys.modules[__name__] = _M()\n"), 0),
        ChunkCase("module-replacing-itself-in-sys-modules-imported-at-load", project(
            flow("return m.answer, type(m).__name__", "from shop import m"),
            m="import sys\n\n\nclass _M:\n    answer = 42\n\n\nsys.modules[__name__] = _M()\n"), 0),
        ChunkCase("lazily-imported-module-replacing-itself-read-as-an-attribute", project(
            flow("import shop.m\nreturn shop.m.answer, type(shop.m).__name__"),
            m="import sys\n\n\nclass _M:\n    answer = 42\n\n\nsys.modules[__name__] = _M()\n"), 0),
    ]


CHUNK_CASES = CHUNK_CASES + tuple(_breaker4_chunk_cases())


def _breaker4_pairs() -> list[ProjectPair]:
    """Fourth adversarial round (breaker4, ``E<n>`` on /work/TEAM.md). E4: an import statement in a
    class body binds a class attribute (``class K: from shop.cfg import V``; ``import shop.cfg as
    cfg``; a function imported there is a method), and the closure does not follow it: editing
    what it imports keeps the flow's hash (a flow class's own body holds: the method-flow pair)."""
    k = "imports in a class body"
    pairs: list[ProjectPair] = []
    cfg = "V = 3\n"
    for name, body, read in (
            ("module", "import shop.cfg as cfg", "K.cfg.V"),
            ("module-by-from-import", "from shop import cfg", "K.cfg.V"),
            ("value", "from shop.cfg import V", "K.V")):
        base = project(flow(f"return {read}", "from shop.m import K"), m=f"class K:\n    {body}\n", cfg=cfg)
        pairs.append(C(f"class-body-import-of-a-{name}-edited", k, base, edit(base, "shop/cfg.py", "V = 3", "V = 4")))
    base = project(flow("return K().get()", "from shop.m import K"),
                   m="class K:\n    from shop.cfg import helper\n\n    def get(self):\n        return self.helper()\n",
                   cfg="def helper(self):\n    return 3\n")
    pairs.append(C("class-body-import-of-a-function-used-as-a-method-edited", k, base,
                   edit(base, "shop/cfg.py", "return 3", "return 4")))
    # held: the module bound by an assignment in the class body; a flow class's own class-body import
    base = project(flow("return K.cfg.V", "from shop.m import K"), m="import shop.cfg\n\n\nclass K:\n    cfg = shop.cfg\n",
                   cfg=cfg)
    pairs.append(C("class-attribute-bound-to-an-imported-module-edited", k, base, edit(base, "shop/cfg.py", "V = 3", "V = 4")))
    base = project(method_flow("    import shop.cfg as cfg\n", "return self.cfg.V"), cfg=cfg)
    pairs.append(C("flow-class-body-import-of-a-module-edited", k, base, edit(base, "shop/cfg.py", "V = 3", "V = 4")))
    # the rule's other direction (lead): a class-body import reaches what it names, not its module
    base = project(flow("return K.V", "from shop.m import K"), m="class K:\n    from shop.cfg import V\n", cfg="V = 3\nW = 1\n")
    pairs.append(E("class-body-from-import-another-name-of-its-module-edited", k, base, edit(base, "shop/cfg.py", "W = 1", "W = 2")))

    # E6: the first import of a submodule sets the package's attribute of its name (after the
    # package's own binding of it): ``from shop import tools`` then gets the submodule
    k = "a submodule import rebinds the package's attribute"
    init = {"shop/__init__.py": "def tools():\n    return 'fn'\n", "shop/tools.py": "V = 1\n"}
    base = {**project(flow("from shop import tools\nreturn tools()", "import shop.loader"), loader="X = 1\n"), **init}
    pairs.append(C("another-module-starts-importing-the-submodule-named-like-a-package-function", k, base,
                   edit(base, "shop/loader.py", "X = 1\n", "import shop.tools\n")))
    base = {**project(flow("from shop import tools\nreturn type(tools).__name__", "import shop.loader"),
                      loader="import shop.tools\n"), **init}
    pairs.append(C("another-module-stops-importing-the-submodule-named-like-a-package-function", k, base,
                   edit(base, "shop/loader.py", "import shop.tools\n", "import shop\n")))
    # held: the submodule's own content once it is the binding; the package re-exporting the function
    base = {**project(flow("from shop import tools\nreturn tools.V", "import shop.loader"), loader="import shop.tools\n"),
            **init}
    pairs.append(C("submodule-bound-over-a-package-function-edited", k, base, edit(base, "shop/tools.py", "V = 1", "V = 2")))
    base = {**project(flow("return tools()", "from shop import tools")),
            "shop/__init__.py": "from .tools import tools\n", "shop/tools.py": "def tools():\n    return 'fn'\n"}
    pairs.append(C("package-re-exporting-a-function-named-like-its-submodule-edited", k, base,
                   edit(base, "shop/tools.py", "'fn'", "'fn2'")))

    # E9: where an import finds its file follows sys.path and a package's __path__ (DESIGN §6:
    # "module lookup follows Python"); a first-party directory the package puts there is not
    # followed, so editing the module the flow imports from it keeps the hash
    k = "module lookup through sys.path and __path__"
    base = {**project(flow("import helper\nreturn helper.f()"),
                      init="import os\nimport sys\n\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), 'vendor'))\n"),
             "shop/vendor/helper.py": "def f():\n    return 1\n"}
    pairs.append(C("module-found-through-a-sys-path-entry-the-package-adds-edited", k, base,
                   edit(base, "shop/vendor/helper.py", "return 1", "return 2")))
    base = {**project(flow("from shop.plug import f\nreturn f()"),
                      init="import os\n\n__path__.append(os.path.join(os.path.dirname(__file__), 'extra'))\n"),
             "shop/extra/plug.py": "def f():\n    return 1\n"}
    pairs.append(C("module-found-through-a-package-path-the-package-extends-edited", k, base,
                   edit(base, "shop/extra/plug.py", "return 1", "return 2")))

    # E10: ``shop.b`` read as an attribute of ``shop`` exists only once an import loaded the
    # submodule (the flow's own ``import shop.a`` runs a, whose ``import shop.b`` does it): another
    # module starting or stopping that import keeps the hash (AttributeError on one side)
    k = "a submodule read as an attribute another import loaded"
    b = "def f():\n    return 1\n"
    base = project(flow("return shop.b.f()", "import shop.a"), a="import shop.b\n", b=b)
    pairs.append(C("another-module-stops-importing-the-submodule-the-flow-reads-as-an-attribute", k, base,
                   edit(base, "shop/a.py", "import shop.b\n", "X = 1\n")))
    base = project(flow("return shop.b.f()", "import shop.a"), a="X = 1\n", b=b)
    pairs.append(C("another-module-starts-importing-the-submodule-the-flow-reads-as-an-attribute", k, base,
                   edit(base, "shop/a.py", "X = 1\n", "import shop.b\n")))
    base = project(flow("return shop.b.f()", "import shop"), init="import shop.b\n", b=b)
    pairs.append(C("package-stops-importing-the-submodule-the-flow-reads-as-an-attribute", k, base,
                   edit(base, "shop/__init__.py", "import shop.b\n", "X = 1\n")))

    # E11: a module-level statement of a module the flow runs, which the closure leaves out (it
    # binds nothing the flow reaches), can still raise when the module loads: the flow's lazy
    # import then fails mid-execution on one side of the edit only
    k = "a statement left out of the closure that raises at load"
    base = project(flow("from shop import a\nreturn a.X"), a="from shop.b import Y\n\nX = Y + 1\n", b="Y = 1\n")
    pairs.append(C("an-unused-from-import-closing-an-import-cycle-added", k, base,
                   edit(base, "shop/b.py", "Y = 1\n", "from shop.a import X\n\nY = 1\n"), finding="E11"))
    pairs.append(C("an-unused-statement-that-raises-added", k, base,
                   edit(base, "shop/b.py", "Y = 1\n", "Y = 1\nZ = 1 / 0\n"), finding="E11"))

    # E12: ``global`` in a class body makes its bindings the module's (DESIGN §6 lists ``global``
    # writes from functions; a class body is a scope too): editing them keeps the flow's hash
    k = "a class body's global statement"
    for name, body, read, old, new in (
            ("assignment", "G = 0\n\n\nclass K:\n    global G\n    G = 1\n", "m.G", "    G = 1", "    G = 2"),
            ("def", "class K:\n    global h\n\n    def h():\n        return 1\n", "m.h()", "return 1", "return 2"),
            ("in-a-function-called-at-load",
             "G = 0\n\n\ndef setg():\n    class K:\n        global G\n        G = 1\n\n\nsetg()\n", "m.G", "        G = 1", "        G = 2")):
        base = project(flow(f"return {read}", "from shop import m"), m=body)
        pairs.append(C(f"a-class-body-global-statement-{name}-edited", k, base, edit(base, "shop/m.py", old, new)))
    base = project(flow("return m.f()", "from shop import m"), m="class K:\n    global f\n    from shop.x import f\n",
                   x="def f():\n    return 1\n")
    pairs.append(C("a-class-body-global-statement-import-edited", k, base, edit(base, "shop/x.py", "return 1", "return 2")))
    # the look-alike (lead): without ``global``, a class body's G is the class's, not the module's
    base = project(flow("return m.G", "from shop import m"), m="G = 0\n\n\nclass K:\n    G = 1\n")
    pairs.append(E("a-class-body-assignment-without-global-edited", k, base, edit(base, "shop/m.py", "    G = 1", "    G = 2")))
    return pairs


PAIRS = PAIRS + tuple(_breaker4_pairs())


def _class_namespace_pairs() -> list[ProjectPair]:
    """lead (session 5): a method flow reading its class's namespace through ``type(self)``.
    ``self.__class__.__dict__["V"]`` and ``vars(Checkout)["V"]`` were right; ``type(self).__dict__``
    and ``vars(type(self))`` were no view at all (``type`` is self-safe), so editing ``V`` kept the
    hash. A literal key reads that attribute; the namespace used whole (``.get``, a computed key,
    iterated, handed on) is the whole class."""
    k = "the class namespace through type(self)"
    members = "    V = 1\n    W = 1\n"
    pairs: list[ProjectPair] = []
    for name, body in (
            ("type-self-dict-literal-key", "return type(self).__dict__['V']"),
            ("vars-type-self-literal-key", "return vars(type(self))['V']"),
            ("type-self-dict-get", "return type(self).__dict__.get('V')"),
            ("type-self-dict-computed-key", "k = 'V'\nreturn type(self).__dict__[k]"),
            ("class-dict-computed-key", "k = 'V'\nreturn self.__class__.__dict__[k]"),
            ("vars-type-self-computed-key", "k = 'V'\nreturn vars(type(self))[k]"),
            ("vars-type-self-iterated", "return [v for _, v in vars(type(self)).items()]"),
            ("type-self-dict-kept-in-a-name", "d = type(self).__dict__\nreturn d['V']")):
        base = project(method_flow(members, body))
        pairs.append(C(f"{name}-edited", k, base, edit(base, "shop/flows.py", "V = 1", "V = 2")))
    for name, body in (("type-self-dict-literal-key", "return type(self).__dict__['V']"),
                       ("vars-type-self-literal-key", "return vars(type(self))['V']")):
        base = project(method_flow(members, body))
        pairs.append(E(f"{name}-another-attribute-edited", k, base, edit(base, "shop/flows.py", "W = 1", "W = 2")))
    return pairs


PAIRS = PAIRS + tuple(_class_namespace_pairs())


def _lead_pairs() -> list[ProjectPair]:
    """The lead's probes (session 5, ``L<n>``), open: L1, a frame's namespace (``sys._getframe()
    .f_globals``, ``inspect.currentframe()``, ``f_back``: the caller's module) read like
    ``globals()``; L2, code loaded by path (``importlib.util.spec_from_file_location`` +
    ``exec_module``, ``runpy.run_path``): the file is first-party code the closure cannot follow; L3, a
    store through a local alias inside an import-time callee."""
    k = "namespaces and code reached at run time"
    pairs: list[ProjectPair] = []
    base = project(flow("return get()", "from shop.m import get"),
                   m="import sys\n\nX = 1\n\n\ndef get():\n    return sys._getframe().f_globals['X']\n")
    pairs.append(C("frame-globals-of-the-helpers-module-edited", k, base, edit(base, "shop/m.py", "X = 1", "X = 2")))
    loader = ("import importlib.util\nimport os\n\n\ndef load():\n"
              "    spec = importlib.util.spec_from_file_location('plug', os.path.join(os.path.dirname(__file__), 'plug.py'))\n"
              "    mod = importlib.util.module_from_spec(spec)\n    spec.loader.exec_module(mod)\n    return mod.V\n")
    base = project(flow("return load()", "from shop.load import load"), load=loader, plug="V = 1\n")
    pairs.append(C("module-loaded-by-path-edited", k, base, edit(base, "shop/plug.py", "V = 1", "V = 2")))
    # L3: a local alias inside a function a module statement calls at import (``c = CFG; c['a'] = 5``):
    # the store through the alias is not a store into CFG
    base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.setup"), cfg="CFG = {'a': 1}\n",
                   setup="from shop.cfg import CFG\n\n\ndef s():\n    c = CFG\n    c['a'] = 5\n\n\ns()\n")
    pairs.append(C("store-through-a-local-alias-in-an-import-time-callee-edited", "effects across modules", base,
                   edit(base, "shop/setup.py", "= 5", "= 6")))
    return pairs


PAIRS = PAIRS + tuple(_lead_pairs())


def _breaker5_pairs() -> list[ProjectPair]:
    """Fifth adversarial round (breaker5, session 6, ``F<n>`` on /work/TEAM.md): this session's
    landings attacked. F1: a module imported at load by a literal importer call
    (``importlib.import_module("shop.x")``, ``__import__("shop.x", fromlist=[...])``) runs as an
    import does, so its state-changing statements belong to the flows its importer runs for; the
    closure does not count it as executed (a plain ``import shop.x`` in the same place holds)."""
    k = "a module imported at load by a literal importer call"
    pairs: list[ProjectPair] = []
    x = "from shop import log\n\nlog.L.append('x')\n\n\ndef f():\n    return 1\n"
    for name, m in (
            ("dunder-import", "from shop import log\n\nlog.L.append('m1')\nx = __import__('shop.x', fromlist=['f'])\n"),
            ("import-module", "import importlib\nfrom shop import log\n\nlog.L.append('m1')\nimportlib.import_module('shop.x')\n")):
        base = project(flow("return log.L", "from shop import m, log"), log="L = []\n", m=m, x=x)
        pairs.append(C(f"{name}-at-load-of-a-module-changing-state-edited", k, base,
                       edit(base, "shop/x.py", "append('x')", "append('y')")))
    # held: the same module imported by a statement
    base = project(flow("return log.L", "from shop import m, log"), log="L = []\n",
                   m="import shop.x\nfrom shop import log\n\nlog.L.append('m1')\n", x=x)
    pairs.append(C("import-statement-at-load-of-a-module-changing-state-edited", k, base,
                   edit(base, "shop/x.py", "append('x')", "append('y')")))
    return pairs


PAIRS = PAIRS + tuple(_breaker5_pairs())


def _breaker5_chunk_cases() -> list[ChunkCase]:
    """breaker5 (session 6): the lead's E3 (a module replacing itself in ``sys.modules``) and E7
    (a literal importer call at load) in spellings their fixes did not cover. F1: the statements
    of a module a literal importer call runs at load are dropped from the chunk
    (``_breaker5_pairs``). F2: the replacement made by a function called at load
    (``def _install(): sys.modules[__name__] = _M()``): importing a name of it fails in the chunk.
    F3: a literal importer call inside a function called at load is not scheduled: the imported
    module runs after its user and the chunk fails to load. F4: a relative importer name beyond
    the top-level package raises ``ModuleNotFoundError`` naming the chunk's private package
    (live: ``ImportError``, "attempted relative import beyond top-level package")."""
    replaced = "import sys\n\n\nclass _M:\n    answer = 42\n\n\nsys.modules[__name__] = _M()\n"
    by_function = "import sys\n\n\nclass _M:\n    answer = 42\n\n\ndef _install():\n    sys.modules[__name__] = _M()\n\n\n_install()\n"
    f = "def f():\n    return 1\n"
    return [
        # F1 ------------------------------------------------------------------------------------
        ChunkCase("dunder-import-at-load-runs-a-module-changing-state", project(
            flow("return log.L", "from shop import m, log"), log="L = []\n",
            m="from shop import log\n\nlog.L.append('m1')\nx = __import__('shop.x', fromlist=['f'])\nlog.L.append('m2')\n",
            x="from shop import log\n\nlog.L.append('x')\n\n\ndef f():\n    return 1\n"), 0),
        # F2 ------------------------------------------------------------------------------------
        ChunkCase("name-imported-lazily-from-a-module-a-function-replaces-at-load", project(
            flow("from shop.m import answer\nreturn answer"), m=by_function), 0),
        ChunkCase("name-imported-at-load-from-a-module-a-function-replaces-at-load", project(
            flow("return answer", "from shop.m import answer"), m=by_function), 0),
        # held: the module itself imported (lazily or at load), the replacement a ModuleType
        # subclass, a __class__ assignment, a package, another first-party module, other spellings
        ChunkCase("module-a-function-replaces-at-load-imported-lazily", project(
            flow("from shop import m\nreturn m.answer, type(m).__name__"), m=by_function), 0),
        ChunkCase("module-replaced-by-a-helper-of-another-module", project(
            flow("from shop import m\nreturn m.answer, type(m).__name__"),
            lazy="import sys\n\n\ndef install(name, obj):\n    sys.modules[name] = obj\n",
            m="from shop.lazy import install\n\n\nclass _M:\n    answer = 42\n\n\ninstall(__name__, _M())\n"), 0),
        ChunkCase("module-replaced-by-a-module-type-subclass-instance", project(
            flow("from shop import m\nreturn m.answer, type(m).__name__"),
            m="import sys\nimport types\n\n\nclass _M(types.ModuleType):\n    answer = 42\n\n\nsys.modules[__name__] = _M(__name__)\n"), 0),
        ChunkCase("module-class-assigned-a-module-type-subclass-with-a-property", project(
            flow("return m.answer, type(m).__name__", "from shop import m"),
            m="import sys\nimport types\n\n\nclass _M(types.ModuleType):\n    @property\n    def answer(self):\n        return 42\n\n\n"
              "sys.modules[__name__].__class__ = _M\n"), 0),
        ChunkCase("package-replacing-itself-name-imported", {
            **project(flow("from shop.sub import answer\nreturn answer")), "shop/sub/__init__.py": replaced}, 0),
        ChunkCase("package-replacing-itself-read-as-an-attribute", {
            **project(flow("import shop.sub\nreturn shop.sub.answer, type(shop.sub).__name__")), "shop/sub/__init__.py": replaced}, 0),
        ChunkCase("module-replaced-by-another-first-party-module", project(
            flow("from shop import m\nreturn m.answer, m.__name__"),
            m="import sys\n\nimport shop.other\n\nsys.modules[__name__] = shop.other\n", other="answer = 42\n"), 0),
        ChunkCase("module-replacing-itself-through-sys-modules-update", project(
            flow("from shop import m\nreturn m.answer"),
            m="import sys\n\n\nclass _M:\n    answer = 42\n\n\nsys.modules.update({__name__: _M()})\n"), 0),
        ChunkCase("module-replacing-itself-read-at-load-by-another-module", project(
            flow("return n.V", "from shop import n"), n="import shop.m\n\nV = (shop.m.answer, type(shop.m).__name__)\n",
            m=replaced), 0),
        # F3 ------------------------------------------------------------------------------------
        ChunkCase("import-module-in-a-function-called-at-load", project(
            flow("return m.F", "from shop import m"),
            m="import importlib\n\n\ndef load():\n    return importlib.import_module('shop.x')\n\n\nF = load().f()\n", x=f), 0),
        # held: the importer shadowed by a parameter, builtins.__import__, __import__ with a level,
        # an import cycle through import_module, a class body, a try
        ChunkCase("import-module-name-shadowed-by-a-decorator-factory-parameter", project(
            flow("return m.g()", "from shop import m"),
            m="import importlib\n\n\ndef deco(importlib):\n    return lambda fn: fn\n\n\n@deco(importlib)\ndef g():\n    return 1\n"), 0),
        ChunkCase("builtins-dunder-import-at-load", project(
            flow("return m.F", "from shop import m"), m="import builtins\n\nF = builtins.__import__('shop.x', fromlist=['f']).f()\n",
            x=f), 0),
        ChunkCase("dunder-import-with-a-level-at-load", project(
            flow("return m.F", "from shop import m"), m="F = __import__('x', globals(), locals(), ['f'], 1).f()\n", x=f), 0),
        ChunkCase("import-module-at-load-closing-an-import-cycle", project(
            flow("return a.V", "from shop import a"),
            a="import importlib\n\nb = importlib.import_module('shop.b')\nV = b.W + 1\n", b="import shop.a\n\nW = 1\n"), 0),
        ChunkCase("import-module-at-load-in-a-class-body-and-a-try", project(
            flow("return m.K.F, m.G", "from shop import m"),
            m="import importlib\n\n\nclass K:\n    F = importlib.import_module('shop.x').f()\n\n\n"
              "try:\n    G = importlib.import_module('shop.y').f()\nexcept ImportError:\n    G = 0\n", x=f, y=f), 0),
        # F4 ------------------------------------------------------------------------------------
        ChunkCase("import-module-of-a-relative-name-beyond-the-top-package", project(
            flow("return m.F", "from shop import m"),
            m="import importlib\n\ntry:\n    F = importlib.import_module('...x', __package__)\n"
              "except ImportError as e:\n    F = type(e).__name__, str(e)\n", x=f), 0),
        ChunkCase("import-module-of-a-relative-name-beyond-the-top-package-in-the-flow", project(
            flow("try:\n    importlib.import_module('..x', __package__)\nexcept ImportError as e:\n    return type(e).__name__, str(e)",
                 "import importlib"), x=f), 0),
    ]


CHUNK_CASES = CHUNK_CASES + tuple(_breaker5_chunk_cases())


def _breaker5_pairs_2() -> list[ProjectPair]:
    """breaker5: F12, F1's family: a module imported by an import statement inside a def that runs
    at load (called by a module statement, a decorator, a def of another module) runs as the
    importer loads, so its state-changing statements belong to the flows the importer runs for;
    the closure does not count it as executed. Held: the def never called."""
    k = "a module imported by a def that runs at load"
    x = "from shop import log\n\nlog.L.append('x')\n"
    pairs: list[ProjectPair] = []
    for name, m in (
            ("a-def-called-at-load", "from shop import log\n\n\ndef load():\n    import shop.x\n\n\nlog.L.append('m1')\nload()\n"),
            ("a-decorator-run-at-load", "def deco(fn):\n    import shop.x\n    return fn\n\n\n@deco\ndef g():\n    pass\n"),
            ("a-def-of-another-module-called-at-load", "from shop.util import load\n\nload()\n")):
        base = project(flow("return log.L", "from shop import m, log"), log="L = []\n", m=m, x=x, util="def load():\n    import shop.x\n")
        pairs.append(C(f"module-imported-by-{name}-changing-state-edited", k, base,
                       edit(base, "shop/x.py", "append('x')", "append('y')")))
    base = project(flow("return log.L", "from shop import m, log"), log="L = []\n", m="def load():\n    import shop.x\n", x=x)
    pairs.append(E("module-imported-by-a-def-never-called-changing-state-edited", k, base,
                   edit(base, "shop/x.py", "append('x')", "append('y')")))
    return pairs


PAIRS = PAIRS + tuple(_breaker5_pairs_2())


def _breaker5_chunk_cases_2() -> list[ChunkCase]:
    """breaker5: F12 in a chunk (the statement of the module a def imports at load is dropped), and
    F13: F2/F3 through other ways a def runs at load: as a decorator or called in a class body (the
    def replacing its module in ``sys.modules``), as a method or a lambda (the def importing)."""
    replacing = "import sys\n\n\nclass _M:\n    answer = 42\n\n\n"
    f = "def f():\n    return 1\n"
    return [
        ChunkCase("a-def-run-at-load-imports-a-module-changing-state", project(
            flow("return log.L", "from shop import m, log"), log="L = []\n",
            m="from shop import log\n\n\ndef load():\n    import shop.x\n\n\nlog.L.append('m1')\nload()\nlog.L.append('m2')\n",
            x="from shop import log\n\nlog.L.append('x')\n"), 0),
        ChunkCase("a-decorator-replacing-its-module-in-sys-modules", project(
            flow("from shop.m import answer\nreturn answer"),
            m=replacing + "def _install(fn):\n    sys.modules[__name__] = _M()\n    return fn\n\n\n@_install\ndef g():\n    pass\n"), 0),
        ChunkCase("a-def-called-in-a-class-body-replacing-its-module", project(
            flow("from shop.m import answer\nreturn answer"),
            m=replacing + "def _install():\n    sys.modules[__name__] = _M()\n\n\nclass K:\n    _install()\n"), 0),
        ChunkCase("a-method-called-at-load-calling-import-module", project(
            flow("return m.F", "from shop import m"),
            m="import importlib\n\n\nclass L:\n    def load(self):\n        return importlib.import_module('shop.x')\n\n\nF = L().load().f()\n",
            x=f), 0),
        ChunkCase("a-lambda-called-at-load-calling-import-module", project(
            flow("return m.F", "from shop import m"),
            m="import importlib\n\nload = lambda: importlib.import_module('shop.x')\nF = load().f()\n", x=f), 0),
        # held (on the lead's F2/F3 fix): two-level call chains, an __init__ importing, a def of
        # another module, a decorator importing, a def never called, a __main__ guard
        ChunkCase("a-two-level-call-at-load-replacing-its-module", project(
            flow("from shop.m import answer\nreturn answer"),
            m=replacing + "def _put():\n    sys.modules[__name__] = _M()\n\n\ndef _install():\n    _put()\n\n\n_install()\n"), 0),
        ChunkCase("a-replacing-def-never-called", project(
            flow("from shop.m import answer\nreturn answer"),
            m="import sys\n\nanswer = 1\n\n\nclass _M:\n    answer = 42\n\n\ndef _install():\n    sys.modules[__name__] = _M()\n\n\n"
              "if __name__ == '__main__':\n    _install()\n"), 0),
        ChunkCase("an-init-called-at-load-importing", project(
            flow("return m.F", "from shop import m"),
            m="class L:\n    def __init__(self):\n        from shop.x import f\n        self.v = f()\n\n\nF = L().v\n", x=f), 0),
        ChunkCase("a-def-of-another-module-called-at-load-importing", project(
            flow("return m.F", "from shop import m"),
            util="def load():\n    from shop.x import f\n    return f()\n", m="from shop.util import load\n\nF = load()\n", x=f), 0),
        ChunkCase("a-decorator-importing", project(
            flow("return m.g()", "from shop import m"),
            m="def deco(fn):\n    from shop.x import f\n    return f\n\n\n@deco\ndef g():\n    pass\n", x=f), 0),
    ]


CHUNK_CASES = CHUNK_CASES + tuple(_breaker5_chunk_cases_2())


def _breaker5_pairs_3() -> list[ProjectPair]:
    """breaker5, held guards for perfA's walrus fast path (``scopes``: no walrus-target walk in a
    module whose text spells no ``:=``; exact-type dispatch in the walk): a walrus at module level
    binds a module global wherever it sits (a comprehension, a call argument, a decorator, a default,
    an f-string, a subscript, a loop or ``with`` header, a ``match`` subject, an ``assert``; through
    ``global`` in a def run at load), and editing its value moves the flow reading that global."""
    k = "a module global bound by a walrus"
    pairs: list[ProjectPair] = []
    for name, m in (
            ("a-comprehension", "G = 0\n[G := 55 for _ in range(1)]\n"),
            ("an-if-test", "if (G := 55):\n    pass\n"),
            ("a-call-argument", "print(G := 55)\n"),
            ("a-decorator-argument", "def d(x):\n    return lambda f: f\n\n\n@d(G := 55)\ndef h():\n    pass\n"),
            ("a-parameter-default", "def h(a=(G := 55)):\n    pass\n"),
            ("an-f-string", "s = f'{(G := 55)}'\n"),
            ("a-subscript", "t = [0][(G := 55) - 55]\n"),
            ("a-while-test", "while (G := 55) < 0:\n    pass\n"),
            ("a-nested-comprehension", "G = 0\nt = [[G := 55 for _ in range(1)] for _ in range(1)]\n"),
            ("a-generator-consumed", "G = 0\nlist(G := 55 for _ in range(1))\n"),
            ("a-dict-comprehension", "G = 0\n{k: (G := 55) for k in 'a'}\n"),
            ("a-with-item", "import contextlib\nwith contextlib.nullcontext(G := 55):\n    pass\n"),
            ("a-match-subject", "match (G := 55):\n    case _:\n        pass\n"),
            ("an-assert", "assert (G := 55)\n"),
            ("a-def-run-at-load-through-global", "G = 0\n\n\ndef s():\n    global G\n    (G := 55)\n\n\ns()\n")):
        base = project(flow("return m.G", "from shop import m"), m=m)
        pairs.append(C(f"walrus-in-{name}-at-module-level-edited", k, base, edit(base, "shop/m.py", ":= 55", ":= 66")))
    return pairs


PAIRS = PAIRS + tuple(_breaker5_pairs_3())


def _breaker5_pairs_4() -> list[ProjectPair]:
    """breaker5 on fixA's and fixB's branches (session 6), spellings their rules did not follow.
    F6: a module-level object held as a class or instance attribute, stored through it. F7: an
    alias bound through ``global`` by a def run at load (both fixed by fixC, session 7:
    ``effects._Holders``, ``References.rebinds``). F9: a directory added with
    ``site.addsitedir`` or a ``__path__`` reassigned (not appended). F10: code loaded by path from a
    file that is not ``.py``. F11: E10 through a literal importer (``import_module('shop.b')`` loads
    the submodule, and so binds the package's attribute, as an import statement does)."""
    pairs: list[ProjectPair] = []
    k = "effects through an object held elsewhere"
    imp = "from shop.cfg import CFG\n\n\n"
    for name, setup, finding in (
            ("a-class-attribute-at-module-level", imp + "class K:\n    c = CFG\n\n\nK.c['a'] = (5)\n", None),
            ("a-class-attribute-in-a-def-run-at-load", imp + "class K:\n    c = CFG\n\n\ndef s():\n    K.c['a'] = (5)\n\n\ns()\n", None),
            ("an-instance-attribute", imp + "class H:\n    def __init__(self):\n        self.c = CFG\n\n\nH().c['a'] = (5)\n", None),
            ("a-name-a-def-run-at-load-binds-through-global",
             imp + "c = None\n\n\ndef s():\n    global c\n    c = CFG\n\n\ns()\nc['a'] = (5)\n", None)):
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.setup"), cfg="CFG = {'a': 1}\n", setup=setup)
        pairs.append(C(f"store-into-an-object-through-{name}-edited", k, base, edit(base, "shop/setup.py", "(5)", "(6)"), finding))
    k = "module lookup through sys.path and __path__"
    helper = "def f():\n    return 1\n"
    base = {**project(flow("import helper\nreturn helper.f()"),
                      init="import os\nimport site\n\nsite.addsitedir(os.path.join(os.path.dirname(__file__), 'vendor'))\n"),
            "shop/vendor/helper.py": helper}
    pairs.append(C("module-found-through-a-site-dir-the-package-adds-edited", k, base,
                   edit(base, "shop/vendor/helper.py", "return 1", "return 2")))
    base = {**project(flow("from shop.plug import f\nreturn f()"),
                      init="import os\n\n__path__ = [os.path.dirname(__file__), os.path.join(os.path.dirname(__file__), 'extra')]\n"),
            "shop/extra/plug.py": helper}
    pairs.append(C("module-found-through-a-package-path-the-package-reassigns-edited", k, base,
                   edit(base, "shop/extra/plug.py", "return 1", "return 2")))
    base = {**project(flow("return load()", "from shop.load import load"),
                      load="import os\n\n\ndef load():\n    ns = {}\n    exec(open(os.path.join(os.path.dirname(__file__), 'plug.txt')).read(), ns)\n"
                           "    return ns['V']\n"),
            "shop/plug.txt": "V = 1\n"}
    pairs.append(C("code-executed-from-a-non-py-file-by-path-edited", "namespaces and code reached at run time", base,
                   edit(base, "shop/plug.txt", "V = 1", "V = 2")))
    base = project(flow("return shop.b.f()", "import shop.a"), a="import importlib\n\nimportlib.import_module('shop.b')\n", b=helper)
    pairs.append(C("another-module-stops-importing-the-submodule-by-import-module", "a submodule read as an attribute another import loaded",
                   base, edit(base, "shop/a.py", "import importlib\n\nimportlib.import_module('shop.b')\n", "X = 1\n")))
    return pairs


PAIRS = PAIRS + tuple(_breaker5_pairs_4())


def _breaker5_pairs_5() -> list[ProjectPair]:
    """breaker5, held guards for the widening rules of fixA (L1 frames, L3 aliases) and fixB (E6/E10
    ``<loads>``, E9 ``sys.path``, L2 by path), the false-change direction: ordinary code each rule
    must leave alone. A frame read for its code name, line or file (a logging helper's
    ``inspect.stack()[1].function``) reads no namespace; a local alias only read, or a store into
    another object; a ``sys.path`` directory nothing imports from; a ``.py`` file opened as data;
    a submodule the flow imports itself, or an importing module edited elsewhere."""
    pairs: list[ProjectPair] = []
    k = "a frame read for something other than its namespace"
    for name, body in (
            ("stack-function-name", "return inspect.stack()[1].function"),
            ("getframe-code-name", "return sys._getframe(1).f_code.co_name"),
            ("currentframe-line-number", "return inspect.currentframe().f_back.f_lineno"),
            ("getframe-file-name", "return sys._getframe(1).f_code.co_filename")):
        m = "import inspect\nimport sys\n\nX = 1\n\n\ndef get():\n    " + body + "\n"
        base = project(flow("return get()", "from shop.m import get"), m=m, other="Z = 1\n")
        pairs.append(E(f"frame-{name}-another-module-edited", k, base, edit(base, "shop/other.py", "Z = 1", "Z = 2")))
        pairs.append(E(f"frame-{name}-another-constant-of-its-module-edited", k, edit(base, "shop/m.py", "X = 1", "X = 1\nW = 1"),
                       edit(base, "shop/m.py", "X = 1", "X = 1\nW = 2")))
    k = "effects through a name standing for a module-level object"
    for name, body in (
            ("read-through-the-alias-store-into-a-local", "c = CFG\n    out = {}\n    out['a'] = c['a'] + (5)"),
            ("alias-handed-to-len", "c = CFG\n    n = len(c) + (5)"),
            ("alias-iterated", "c = CFG\n    t = [k for k in c if k != (5)]"),
            ("alias-of-another-object", "c = OTHER\n    c['a'] = (5)")):
        setup = "from shop.cfg import CFG, OTHER\n\n\ndef s():\n    " + body + "\n\n\ns()\n"
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.setup"), cfg="CFG = {'a': 1}\nOTHER = {}\n",
                       setup=setup)
        pairs.append(E(f"import-time-callee-{name}-edited", k, base, edit(base, "shop/setup.py", "(5)", "(6)")))
    for name, body in (("read-only", "c = CFG\nV = c['a'] + (5)\n"), ("read-in-a-def", "c = CFG\n\n\ndef t():\n    return c['a'] + (5)\n")):
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.setup"), cfg="CFG = {'a': 1}\n",
                       setup="from shop.cfg import CFG\n\n" + body)
        pairs.append(E(f"module-level-alias-{name}-edited", k, base, edit(base, "shop/setup.py", "(5)", "(6)")))
    k = "module lookup through sys.path and __path__"
    vendor = "import os\nimport sys\n\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), 'vendor'))\n"
    for name, body in (("no-import", "return 1"), ("a-stdlib-import", "import json\nreturn json.dumps(1)")):
        base = {**project(flow(body), init=vendor), "shop/vendor/helper.py": "def f():\n    return 1\n"}
        pairs.append(E(f"sys-path-directory-nothing-imports-from-flow-with-{name}-edited", k, base,
                       edit(base, "shop/vendor/helper.py", "return 1", "return 2")))
    base = {**project(flow("return load()", "from shop.load import load"),
                      load="import os\n\n\ndef load():\n    with open(os.path.join(os.path.dirname(__file__), 'data.py')) as fh:\n"
                           "        return len(fh.read())\n"), "shop/data.py": "V = 1\n"}
    pairs.append(E("a-py-file-opened-as-data-edited", "namespaces and code reached at run time", base, edit(base, "shop/data.py", "V = 1", "V = 2")))
    k = "a submodule read as an attribute another import loaded"
    b = "def f():\n    return 1\n"
    for name, flows, a, old, new in (
            ("the-flow-imports-it-itself-another-module-stops", ("return shop.b.f()", "import shop.a\nimport shop.b"), "import shop.b\n",
             "import shop.b\n", "X = 1\n"),
            ("the-flow-from-imports-it-another-module-stops", ("from shop import b\nreturn b.f()", "import shop.a"), "import shop.b\n",
             "import shop.b\n", "X = 1\n"),
            ("the-importing-module-reformatted", ("return shop.b.f()", "import shop.a"), "import shop.b\n", "import shop.b\n",
             "# loads b\nimport shop.b  # here\n"),
            ("the-importing-module-gains-an-unused-def", ("return shop.b.f()", "import shop.a"), "import shop.b\n", "import shop.b\n",
             "import shop.b\n\n\ndef unused():\n    return 2\n")):
        base = project(flow(*flows), a=a, b=b, c="X = 1\n")
        pairs.append(E(f"submodule-attribute-{name}", k, base, edit(base, "shop/a.py", old, new)))
    base = project(flow("return shop.b.f()", "import shop.a"), a="import shop.b\n", b=b, c="X = 1\n")
    pairs.append(E("submodule-attribute-a-module-the-flow-never-runs-starts-importing-it", k, base,
                   edit(base, "shop/c.py", "X = 1\n", "import shop.b\n")))
    return pairs


PAIRS = PAIRS + tuple(_breaker5_pairs_5())


def _breaker5_chunk_cases_3() -> list[ChunkCase]:
    """breaker5, held guards for perfB's build-wide closure and per-module chunk pieces: two flows
    of one build share modules, each chunk must still run what its own flow's live module runs.
    The shared modules imported in opposite orders (their load-time appends show the order), one
    flow importing a module lazily that the other imports at load (directly and through a chain),
    and two flows reaching different members of one module."""
    log = "L = []\n"
    a = "from shop import log\n\nlog.L.append('a')\n\n\ndef fa():\n    return 'a'\n"
    b = "from shop import log\n\nlog.L.append('b')\n\n\ndef fb():\n    return 'b'\n"
    c = "from shop import log\nfrom shop import a\n\nlog.L.append('c')\nV = a.fa() + 'c'\n"
    h = "from shop import log\n\nX = 1\n\n\ndef f():\n    return X\n\n\ndef g():\n    return Y\n\n\nY = 2\nlog.L.append('h')\n"

    def two(first: tuple[str, str], second: tuple[str, str], **files: str) -> dict[str, str]:
        out = project(flow(first[1], first[0]), **files)
        out["shop/flows2.py"] = HEAD + second[0] + "\n\n@flow(\"other\")\ndef other(ctx, o):\n" + \
            "".join("    " + line + "\n" for line in second[1].split("\n"))
        return out
    projects = {
        "shared-modules-imported-in-opposite-orders": two(("from shop import a, b, log", "return log.L, a.fa(), b.fb()"),
                                                          ("from shop import b, a, log", "return log.L, a.fa(), b.fb()"), log=log, a=a, b=b),
        "a-module-one-flow-imports-lazily-the-other-at-load": two(("from shop import log", "from shop import a\nreturn log.L, a.fa()"),
                                                                  ("from shop import a, log", "return log.L, a.fa()"), log=log, a=a),
        "a-chain-one-flow-starts-lazily-the-other-at-load": two(("from shop import log", "from shop import c\nreturn log.L, c.V"),
                                                                ("from shop import a, log", "from shop import c\nreturn log.L, a.fa(), c.V"),
                                                                log=log, a=a, c=c),
        "two-flows-reaching-different-members-of-one-module": two(("from shop.h import f\nfrom shop import log", "return f(), log.L"),
                                                                  ("from shop.h import g\nfrom shop import log", "return g(), log.L"), h=h, log=log),
    }
    return [ChunkCase(f"two-flows-{name}-{fid}", files, 0, flow_id=fid) for name, files in projects.items() for fid in ("checkout", "other")]


CHUNK_CASES = CHUNK_CASES + tuple(_breaker5_chunk_cases_3())


def _breaker5_pairs_6() -> list[ProjectPair]:
    """breaker5, held guards for perfA's exact-type statement dispatch (``analysis``: the statement
    kinds a module's units are made of): a module global bound inside every kind of module-level
    statement (``try``/``except*``/``finally``/``else``, ``match`` and its guard, ``with``, loop
    ``else``, ``if``/``elif``/``else``, a loop target, augmented/annotated/tuple/starred/chained
    assignments, ``;``, ``del`` then a rebinding, an import alias, a class body, a lambda,
    ``global`` at module level, ``exec`` of a literal): editing the value moves the flow reading it."""
    k = "a module global bound inside each statement kind"
    pairs: list[ProjectPair] = []
    for name, m in (
            ("a-try-under-except-star", "try:\n    G = 55\nexcept* ValueError:\n    pass\n"),
            ("an-except-star-handler", "try:\n    raise ValueError\nexcept* ValueError:\n    G = 55\n"),
            ("a-finally", "try:\n    pass\nfinally:\n    G = 55\n"),
            ("a-try-else", "try:\n    pass\nexcept ValueError:\n    pass\nelse:\n    G = 55\n"),
            ("a-match-case", "X = 1\nmatch X:\n    case 1:\n        G = 55\n"),
            ("a-match-guard", "X = 1\nG = 0\nmatch X:\n    case 1 if X < 55:\n        G = 1\n"),
            ("a-with-target", "import contextlib\nwith contextlib.nullcontext(55) as G:\n    pass\n"),
            ("a-while-else", "while False:\n    pass\nelse:\n    G = 55\n"),
            ("a-for-else", "for _ in ():\n    pass\nelse:\n    G = 55\n"),
            ("an-else-after-elif", "if False:\n    G = 1\nelif False:\n    G = 2\nelse:\n    G = 55\n"),
            ("a-for-target", "for G in (55,):\n    pass\n"),
            ("an-augmented-assignment", "G = 1\nG += 55\n"),
            ("an-annotated-assignment", "G: int = 55\n"),
            ("a-starred-assignment", "*G, H = 55, 1\n"),
            ("a-chained-assignment", "G = H = 55\n"),
            ("a-semicolon-line", "H = 1; G = 55\n"),
            ("a-rebinding-after-del", "G = 1\ndel G\nG = 55\n"),
            ("an-import-alias", "from shop.v import V55 as G\n"),
            ("a-class-body", "class K:\n    V = 55\n\n\nG = K.V\n"),
            ("a-module-level-global-statement", "global G\nG = 55\n"),
            ("an-exec-of-a-literal", "exec('G = 55')\n")):
        base = project(flow("return m.G", "from shop import m"), m=m, v="V55 = 55\nV66 = 66\n")
        pairs.append(C(f"global-bound-in-{name}-edited", k, base, edit(base, "shop/m.py", "55", "66")))
    return pairs


PAIRS = PAIRS + tuple(_breaker5_pairs_6())


def _alias_store_pairs() -> list[ProjectPair]:
    """fixA (session 6), lead's L3 generalised: a name bound to a module-level object stands for it
    (``scopes._value_names``), so a store through the name, a method called on it or the name
    handed to a call is a change of that object, in a function body (``c = CFG; c['a'] = 5``, also
    through another local or an enclosing def) or at module level (``effects._aliases``). Each
    changed pair failed before the rule; each equal pair fails if the rule counts every use."""
    k = "effects through a name standing for a module-level object"
    pairs: list[ProjectPair] = []
    cfg = "CFG = {'a': 1, 'sub': {'a': 1}}\nOTHER = {'a': 1}\n"
    imp = "from shop.cfg import CFG\n\n\n"
    for name, setup, read in [
        ("local-alias", imp + "def s():\n    c = CFG\n    c['a'] = (5)\n\n\ns()\n", "CFG['a']"),
        ("local-alias-of-a-part", imp + "def s():\n    c = CFG['sub']\n    c['a'] = (5)\n\n\ns()\n", "CFG['sub']['a']"),
        ("local-alias-through-an-imported-module", "from shop import cfg\n\n\ndef s():\n    c = cfg.CFG\n    c['a'] = (5)\n\n\ns()\n",
         "CFG['a']"),
        ("local-alias-by-a-dict-getter", imp + "def s():\n    c = CFG.setdefault('sub', {})\n    c['a'] = (5)\n\n\ns()\n",
         "CFG['sub']['a']"),
        ("local-alias-by-tuple-unpacking", imp + "def s():\n    c, d = CFG, 1\n    c['a'] = (5)\n\n\ns()\n", "CFG['a']"),
        ("local-loop-variable-over-a-display", imp + "def s():\n    for c in (CFG,):\n        c['a'] = (5)\n\n\ns()\n",
         "CFG['a']"),
        ("local-walrus", imp + "def s():\n    if (c := CFG):\n        c['a'] = (5)\n\n\ns()\n", "CFG['a']"),
        ("local-with-target", "import contextlib\n" + imp + "def s():\n    with contextlib.nullcontext(CFG) as c:\n"
         "        c['a'] = (5)\n\n\ns()\n", "CFG['a']"),
        ("local-alias-method-call", imp + "def s():\n    c = CFG\n    c.update(a=(5))\n\n\ns()\n", "CFG['a']"),
        ("local-alias-augmented-in-place", "from shop.cfg import ITEMS\n\n\ndef s():\n    c = ITEMS\n    c += [(5)]\n\n\ns()\n",
         "ITEMS"),
        ("local-alias-of-a-local-alias", imp + "def s():\n    c = CFG\n    d = c\n    d['a'] = (5)\n\n\ns()\n", "CFG['a']"),
        ("local-alias-stored-through-in-a-nested-def", imp + "def s():\n    c = CFG\n\n    def t():\n        c['a'] = (5)\n"
         "    t()\n\n\ns()\n", "CFG['a']"),
        ("local-alias-handed-to-a-function", imp + "def put(d):\n    d['a'] = (5)\n\n\ndef s():\n    c = CFG\n    put(c)\n\n\ns()\n",
         "CFG['a']"),
        ("local-alias-in-a-comprehension", imp + "def s():\n    [c.update(a=(5)) for c in (CFG,)]\n\n\ns()\n", "CFG['a']"),
        ("local-alias-of-a-function-called", "from shop.cfg import fill\n\n\ndef s():\n    f = fill\n    f((5))\n\n\ns()\n",
         "CFG['a']"),
        ("parameter-given-the-object", imp + "def s(c):\n    c['a'] = (5)\n\n\ns(CFG)\n", "CFG['a']"),
        ("parameter-defaulting-to-the-object", imp + "def s(c=CFG):\n    c['a'] = (5)\n\n\ns()\n", "CFG['a']"),
        ("module-level-alias", imp + "c = CFG\nc['a'] = (5)\n", "CFG['a']"),
        ("module-level-alias-of-an-alias", imp + "c = CFG\nd = c\nd['a'] = (5)\n", "CFG['a']"),
        ("module-level-loop-variable", imp + "for c in (CFG,):\n    c['a'] = (5)\n", "CFG['a']"),
        ("module-level-alias-written-by-a-def", imp + "c = CFG\n\n\ndef s():\n    c['a'] = (5)\n\n\ns()\n", "CFG['a']"),
        ("module-level-alias-handed-to-a-function", imp + "def put(d):\n    d['a'] = (5)\n\n\nc = CFG\nput(c)\n", "CFG['a']"),
    ]:
        files = {"cfg": cfg + "ITEMS = [1]\n\n\ndef fill(v):\n    CFG['a'] = v\n", "setup": setup}
        base = project(flow(f"return {read}", "from shop.cfg import CFG, ITEMS\nimport shop.setup"), **files)
        pairs.append(C(f"store-through-a-{name}-edited", k, base, edit(base, "shop/setup.py", "(5)", "(6)")))
    # fixA's L4 (fixC, session 7: ``effects._Holders``): the object taken back out of a display
    # holding it, or returned by a function
    for name, setup in [
        ("taken-out-of-a-display", imp + "HOLD = [CFG]\nHOLD[0]['a'] = (5)\n"),
        ("loop-over-a-display-kept-in-a-name", imp + "HOLD = [CFG]\nfor c in HOLD:\n    c['a'] = (5)\n"),
        ("returned-by-a-function", imp + "def get():\n    return CFG\n\n\ndef s():\n    get()['a'] = (5)\n\n\ns()\n"),
        ("returned-by-a-function-kept-in-a-local",
         imp + "def get():\n    return CFG\n\n\ndef s():\n    c = get()\n    c['a'] = (5)\n\n\ns()\n"),
    ]:
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.setup"), cfg=cfg, setup=setup)
        pairs.append(C(f"store-into-an-object-{name}-edited", k, base, edit(base, "shop/setup.py", "(5)", "(6)")))
    # equal: the alias only read, or logged, or standing for what the flow does not reach
    for name, setup in [
        ("local-alias-only-read", imp + "def s():\n    c = CFG\n    return c['a'] + (5)\n\n\ns()\n"),
        ("local-alias-only-printed", imp + "def s():\n    c = CFG['sub']\n    print(len(c), (5))\n\n\ns()\n"),
        ("local-alias-of-an-unreached-object", "from shop.cfg import OTHER\n\n\ndef s():\n    c = OTHER\n    c['a'] = (5)\n\n\ns()\n"),
        ("local-bound-to-a-fresh-dict", imp + "def s():\n    c = {}\n    c['a'] = (5)\n    return CFG['a'] + c['a']\n\n\ns()\n"),
        ("module-level-alias-only-printed", imp + "c = CFG\nprint(c['a'], (5))\n"),
        ("module-level-alias-of-an-unreached-object", "from shop.cfg import OTHER\n\nc = OTHER\nc['a'] = (5)\n"),
        ("module-level-display-holding-the-object-stored-into", imp + "HOLD = [CFG]\nHOLD.append((5))\n"),
    ]:
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.setup"), cfg=cfg, setup=setup)
        pairs.append(E(f"{name}-edited", k, base, edit(base, "shop/setup.py", "(5)", "(6)")))
    # D8's remainder: the flow class aliased and called in another module, however the alias is spelled
    k = "method flows: the instance built at module level, spelled otherwise"
    flows = (HEAD + "\n\nclass Checkout:\n    def __init__(self, rate=0):\n        self.rate = rate\n\n    @flow(\"checkout\")\n"
             "    def run(self, ctx, o):\n        return o * self.rate\n\n\nclass Other:\n    def __init__(self, rate=0):\n"
             "        self.rate = rate\n")
    for name, main in [
        ("a-dotted-alias", "import shop.flows\n\nK = shop.flows.Checkout\nINST = K((5))\n"),
        ("an-import-as", "from shop.flows import Checkout as K\n\nINST = K((5))\n"),
        ("an-alias-through-the-module", "from shop import flows\n\nK = flows.Checkout\nINST = K((5))\n"),
        ("an-alias-of-an-alias", "from shop.flows import Checkout\n\nK = Checkout\nJ = K\nINST = J((5))\n"),
        ("a-tuple-alias", "from shop.flows import Checkout\n\nK, O = Checkout, 1\nINST = K((5))\n"),
        ("a-loop-variable", "from shop.flows import Checkout\n\nfor K in (Checkout,):\n    INST = K((5))\n"),
        ("a-local-alias-in-a-def-called-at-import",
         "from shop.flows import Checkout\n\n\ndef build():\n    k = Checkout\n    return k((5))\n\n\nINST = build()\n"),
        ("an-alias-configured", "from shop.flows import Checkout\n\nK = Checkout\nK.rate = (5)\n"),
    ]:
        base = {"shop/__init__.py": "from . import main\n", "shop/flows.py": flows, "shop/main.py": main}
        pairs.append(C(f"instance-built-through-{name}-in-another-module", k, base, edit(base, "shop/main.py", "(5)", "(6)")))
    base = {"shop/__init__.py": "from . import main\n", "shop/flows.py": flows,
            "shop/factory.py": "from shop.flows import Checkout\n\n\ndef make():\n    return Checkout((5))\n",
            "shop/main.py": "from shop.factory import make\n\nm = make\nINST = m()\n"}
    pairs.append(C("instance-built-by-an-aliased-factory-of-another-module", k, base, edit(base, "shop/factory.py", "(5)", "(6)")))
    for name, main in [
        ("alias-of-another-class", "from shop.flows import Other\n\nK = Other\nINST = K((5))\n"),
        ("alias-only-printed", "from shop.flows import Checkout\n\nK = Checkout\nprint(K.__name__, (5))\n"),
    ]:
        base = {"shop/__init__.py": "from . import main\n", "shop/flows.py": flows, "shop/main.py": main}
        pairs.append(E(f"{name}-in-another-module", k, base, edit(base, "shop/main.py", "(5)", "(6)")))
    return pairs


PAIRS = PAIRS + tuple(_alias_store_pairs())


def _frame_pairs() -> list[ProjectPair]:
    """fixA (session 6), lead's L1: a frame's namespace is a namespace view like ``globals()``
    (``scopes._UseWalker.frame_namespace``). The running code's own frame (``sys._getframe()``,
    ``inspect.currentframe()``) is its module, whole; any other frame (``f_back``,
    ``sys._getframe(1)``, ``inspect.stack()[i]``, one kept in a name) is a caller's, in any
    first-party module. A frame used for its line or code name widens nothing."""
    k = "namespaces and code reached at run time"
    pairs: list[ProjectPair] = []
    for name, head, body in [
        ("own-frame-get", "import sys\n", "return sys._getframe(0).f_globals.get('X')"),
        ("currentframe", "import inspect\n", "return inspect.currentframe().f_globals['X']"),
        ("getframe-imported-by-name", "from sys import _getframe\n", "return _getframe().f_globals['X']"),
        ("frame-namespace-by-getattr", "import sys\n", "return getattr(sys._getframe(), 'f_globals')['X']"),
        ("frame-kept-in-a-name", "import sys\n", "f = sys._getframe()\nreturn f.f_globals['X']"),
        ("frame-namespace-kept-in-a-name", "import sys\n", "g = sys._getframe().f_globals\nreturn g['X']"),
    ]:
        lines = "".join("    " + line + "\n" for line in body.split("\n"))
        base = project(flow("return get()", "from shop.m import get"), m=f"{head}\nX = 1\n\n\ndef get():\n{lines}")
        pairs.append(C(f"frame-globals-{name}-edited", k, base, edit(base, "shop/m.py", "X = 1", "X = 2")))
    for name, helper in [
        ("getframe-1", "import sys\n\n\ndef caller_x():\n    return sys._getframe(1).f_globals['X']\n"),
        ("f-back", "import sys\n\n\ndef caller_x():\n    return sys._getframe().f_back.f_globals['X']\n"),
        ("currentframe-f-back", "import inspect\n\n\ndef caller_x():\n    return inspect.currentframe().f_back.f_globals['X']\n"),
        ("inspect-stack-frame", "import inspect\n\n\ndef caller_x():\n    return inspect.stack()[1].frame.f_globals['X']\n"),
        ("inspect-stack-tuple", "import inspect\n\n\ndef caller_x():\n    frame = inspect.stack()[1]\n    return frame[0].f_globals['X']\n"),
        ("caller-locals", "import sys\n\n\ndef caller_x():\n    return sys._getframe(1).f_locals['X']\n"),
    ]:
        # the helper reads its CALLER's globals: shop.m's X, a module the helper never names
        base = project(flow("return get()", "from shop.m import get"), h=helper,
                       m="from shop.h import caller_x\n\nX = 1\n\n\ndef get():\n    return caller_x()\n")
        pairs.append(C(f"caller-frame-globals-{name}-edited", k, base, edit(base, "shop/m.py", "X = 1", "X = 2")))
    base = project(flow("return CFG", "from shop.cfg import CFG"), cfg="from shop.s import put\n\nCFG = 1\nput()\n",
                   s="import sys\n\n\ndef put():\n    sys._getframe(1).f_globals['CFG'] = (5)\n")
    pairs.append(C("store-into-the-caller-frame-at-import-edited", k, base, edit(base, "shop/s.py", "(5)", "(6)")))
    base = project(flow("return CFG", "from shop.cfg import CFG"), cfg="import sys\n\nCFG = 1\nsys._getframe().f_globals['CFG'] = (5)\n")
    pairs.append(C("store-into-the-own-frame-at-import-edited", k, base, edit(base, "shop/cfg.py", "(5)", "(6)")))
    # equal: a frame used for its line number or code name (logging), the function's own locals
    for name, head, body in [
        ("line-number", "import sys\n", "return sys._getframe().f_lineno + 1"),
        ("code-name-logged", "import logging\nimport sys\n",
         "logging.getLogger(__name__).info(sys._getframe().f_code.co_name)\nreturn 1"),
        ("kept-frame-code-name", "import inspect\n", "f = inspect.currentframe()\nreturn f.f_code.co_name"),
        ("caller-code-name", "import sys\n", "return sys._getframe(1).f_code.co_name"),
        ("own-locals-in-a-function", "import sys\n", "x = 1\nreturn sys._getframe().f_locals['x']"),
    ]:
        lines = "".join("    " + line + "\n" for line in body.split("\n"))
        base = project(flow("return get()", "from shop.m import get"), m=f"{head}\nX = 1\n\n\ndef get():\n{lines}")
        pairs.append(E(f"frame-used-for-its-{name}-another-name-edited", k, base, edit(base, "shop/m.py", "X = 1", "X = 2")))
    return pairs


PAIRS = PAIRS + tuple(_frame_pairs())


def _alias_and_frame_chunk_cases() -> list[ChunkCase]:
    """L3's and L1's shapes bundled (fixA): the chunk runs the statement that stores through the
    alias (it returns 6, as the live module does), and a frame's namespace, its own module's or its
    caller's, holds what the live one holds. Guards: the chunk replays the imported module whole,
    so these held before the hash rule too."""
    cfg = "CFG = {'a': 1}\n"
    imp = "from shop.cfg import CFG\n\n\n"
    cases: list[ChunkCase] = []
    for name, setup in [
        ("store-through-a-local-alias-in-an-import-time-callee", imp + "def s():\n    c = CFG\n    c['a'] = 5\n\n\ns()\n"),
        ("store-through-a-module-level-loop-variable", imp + "for c in (CFG,):\n    c['a'] = 5\n"),
    ]:
        cases.append(ChunkCase(name, project(flow("return CFG['a'] + o", "from shop.cfg import CFG\nimport shop.setup"),
                                             cfg=cfg, setup=setup), 1))
    cases.append(ChunkCase("frame-globals-of-the-helpers-own-module", project(
        flow("return get() + o", "from shop.m import get"),
        m="import sys\n\nX = 2\n\n\ndef get():\n    return sys._getframe().f_globals['X']\n"), 1))
    cases.append(ChunkCase("frame-globals-of-the-caller", project(
        flow("return get() + o", "from shop.m import get"),
        h="import sys\n\n\ndef caller_x():\n    return sys._getframe(1).f_globals['X']\n",
        m="from shop.h import caller_x\n\nX = 2\n\n\ndef get():\n    return caller_x()\n"), 1))
    return cases


CHUNK_CASES = CHUNK_CASES + tuple(_alias_and_frame_chunk_cases())


def _breaker6_pairs() -> list[ProjectPair]:
    """breaker6 (session 7) on main and on fixC's, fixD's and fixE's branches. Fixed (fixH, session
    8; guards now, more pairs both ways in ``_holder_escape_pairs``): G1 an object held by a route
    the holder rule did not follow (an inherited class attribute, a class ``__dict__``, a display
    subscripted at once, a shallow copy of a holder); G2 a class holding it handed to code Python
    runs as the class is made (a class decorator, ``__init_subclass__``, ``__set_name__``, a
    metaclass); G3 a first-party module's global as the holder. Fixed (fixG7, session 8: guards
    now, with more spellings and equal pairs): G5 a module imported at load by code the load-run
    rule did not see run (a default argument's importer call, ``__class_getitem__``, a
    ``singledispatch`` implementation, a literal ``exec`` string). Strict xfails (``finding``): G6
    (a documented cost, ``load_runs``) an import or a call under ``if TYPE_CHECKING:``/``if False:``
    (never runs) moving the hash; G9 code loaded by path spelled in ways the path evaluator does
    not read (a ``with`` block, ``Path.with_name``, ``pkgutil.get_data``, ``importlib.resources``,
    ``eval``, f-string and ``+`` paths, a plugin glob, a ``.pth`` file in a site dir). The pairs
    without ``finding`` held on main and on the branches as archived at 03:30 (guards)."""
    pairs: list[ProjectPair] = []
    add = pairs.append
    # ---------------------------------------------- holders (G1-G3; fixC)
    k = "effects through an object held elsewhere"
    imp = "from shop.cfg import CFG\n\n\n"
    util = "def put(d):\n    d['a'] = 5\n\n\nH = None\n\n\ndef poke():\n    H['a'] = 7\n"
    for name, setup, finding in [
        ("an-attribute-a-subclass-inherits", imp + "class K:\n    c = CFG\n\n\nclass J(K):\n    pass\n\n\nJ.c['a'] = (5)\n", None),
        ("the-class-dunder-dict", imp + "class K:\n    c = CFG\n\n\nK.__dict__['c']['a'] = (5)\n", None),
        ("a-display-subscripted-at-once", imp + "c = (CFG,)[0]\nc['a'] = (5)\n", None),
        ("a-shallow-copy-of-a-display", imp + "HOLD = [CFG]\nlist(HOLD)[0]['a'] = (5)\n", None),
        ("a-class-decorator", imp + "def deco(cls):\n    cls.c['a'] = (5)\n    return cls\n\n\n@deco\nclass K:\n    c = CFG\n", None),
        ("init-subclass", imp + "class B:\n    def __init_subclass__(cls):\n        cls.c['a'] = (5)\n\n\nclass K(B):\n    c = CFG\n", None),
        ("set-name-of-a-descriptor", imp + "class D:\n    def __set_name__(self, owner, name):\n        owner.c['a'] = (5)\n\n\n"
                                     "class K:\n    c = CFG\n    d = D()\n", None),
        ("a-metaclass-init", imp + "class M(type):\n    def __init__(cls, *a):\n        cls.c['a'] = (5)\n\n\nclass K(metaclass=M):\n    c = CFG\n", None),
        ("a-global-of-another-first-party-module", imp + "from shop import util\n\nutil.H = CFG\nutil.H['a'] = (5)\n", None),
        # (G1-G3 fixed by fixH, session 8: guards now); held on main and fp2-core
        ("a-call-built-dict", imp + "HOLD = dict(k=CFG)\nHOLD['k']['a'] = (5)\n", None),
        ("setdefault", imp + "HOLD = {}\nHOLD.setdefault('k', CFG)['a'] = (5)\n", None),
        ("a-literal-setattr", imp + "class K:\n    pass\n\n\nsetattr(K, 'c', CFG)\nK.c['a'] = (5)\n", None),
        ("functools-partial", "import functools\n" + imp + "def f(d):\n    d['a'] = (5)\n\n\np = functools.partial(f, CFG)\np()\n", None),
        ("a-closure-cell", imp + "def mk():\n    c = CFG\n\n    def inner():\n        c['a'] = (5)\n    return inner\n\n\nmk()()\n", None),
        ("a-closure-over-a-parameter", imp + "def mk(c):\n    def inner():\n        c['a'] = (5)\n    return inner\n\n\nmk(CFG)()\n", None),
        ("a-default-argument", imp + "def s(c=CFG):\n    c['a'] = (5)\n\n\ns()\n", None),
        ("a-keyword-only-default", imp + "def s(*, c=CFG):\n    c['a'] = (5)\n\n\ns()\n", None),
        ("a-lambda-default", imp + "s = lambda c=CFG: c.update(a=(5))\ns()\n", None),
        ("a-method-storing-into-self", imp + "class H:\n    def put(self, d):\n        self.c = d\n\n\nh = H()\nh.put(CFG)\nh.c['a'] = (5)\n", None),
        ("a-method-storing-into-its-argument", imp + "class H:\n    def put(self, d):\n        d['a'] = (5)\n\n\nH().put(CFG)\n", None),
        ("a-tuple-unpacking", imp + "a, b = CFG, 1\na['a'] = (5)\n", None),
        ("a-conditional-expression", imp + "c = CFG if len('x') else None\nc['a'] = (5)\n", None),
        ("next-of-an-iterator", imp + "c = next(iter([CFG]))\nc['a'] = (5)\n", None),
        ("a-dict-items-loop", imp + "for k, v in {'k': CFG}.items():\n    v['a'] = (5)\n", None),
        ("map-over-a-display", imp + "list(map(lambda d: d.update(a=(5)), [CFG]))\n", None),
        ("operator-setitem", "import operator\n" + imp + "operator.setitem(CFG, 'a', (5))\n", None),
        ("type-built-class", imp + "K = type('K', (), {'c': CFG})\nK.c['a'] = (5)\n", None),
        ("a-dataclass-field", "from dataclasses import dataclass\n" + imp + "@dataclass\nclass H:\n    d: dict\n\n\nH(CFG).d['a'] = (5)\n", None),
        ("a-namedtuple-field", "from collections import namedtuple\n" + imp + "P = namedtuple('P', 'd')\nP(CFG).d['a'] = (5)\n", None),
        ("a-decorator-calling-the-function-with-it",
         imp + "def deco(f):\n    f(CFG)\n    return f\n\n\n@deco\ndef g(d):\n    d['a'] = (5)\n", None),
        ("an-instance-whose-method-stores-through-self",
         imp + "class H:\n    def __init__(self, d):\n        self.d = d\n\n    def go(self):\n        self.d['a'] = (5)\n\n\nH(CFG).go()\n", None),
    ]:
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.setup"), cfg="CFG = {'a': 1}\n",
                       setup=setup, util=util)
        add(C(f"b6-store-into-an-object-through-{name}-edited", k, base, edit(base, "shop/setup.py", "(5)", "(6)"), finding))
    for name, setup, path, old, new, finding in [
        ("a-global-of-another-first-party-module-a-def-there-stores-through", imp + "from shop import util\n\nutil.H = CFG\nutil.poke()\n",
         "shop/util.py", "H['a'] = 7", "H['a'] = 8", None),
        ("a-def-of-a-third-module-it-is-handed-to", imp + "from shop.util import put\n\nput(CFG)\n",
         "shop/util.py", "d['a'] = 5", "d['a'] = 6", None),
    ]:
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.setup"), cfg="CFG = {'a': 1}\n",
                       setup=setup, util=util)
        add(C(f"b6-store-into-an-object-through-{name}-edited", k, base, edit(base, path, old, new), finding))

    # ---------------------------------------------- what runs at load (G5, G6; fixD)
    k = "a module imported by code another module runs at load"
    log = "L = []\n"
    x = "from shop import log\n\nlog.L.append('x')\n"
    lazy = "def load():\n    import shop.x\n"
    for expect, name, m, finding in [
        ("changed", "a-default-argument-calling-an-importer",
         "import importlib\n\n\ndef f(a=importlib.import_module('shop.x')):\n    pass\n", None),
        ("changed", "class-getitem", "class L:\n    def __class_getitem__(cls, k):\n        import shop.x\n\n\nL[int]\n", None),
        ("changed", "a-singledispatch-implementation",
         "import functools\n\n\n@functools.singledispatch\ndef r(v):\n    pass\n\n\n@r.register(int)\ndef _(v):\n    import shop.x\n\n\nr(1)\n", None),
        ("changed", "a-literal-exec-string", "exec('import shop.x')\n", None),
        # G5 fixed (fixG7, session 8): more spellings, and the widening leaves ordinary code alone
        ("changed", "a-singledispatch-implementation-registered-by-a-call",
         "import functools\n\n\n@functools.singledispatch\ndef r(v):\n    pass\n\n\ndef _impl(v):\n    import shop.x\n\n\n"
         "r.register(int, _impl)\nr(1)\n", None),
        ("changed", "a-decorator-argument-calling-an-importer",
         "import importlib\n\n\ndef deco(m):\n    return lambda f: f\n\n\n@deco(importlib.import_module('shop.x'))\ndef g():\n    pass\n", None),
        ("changed", "a-class-body-subscripting-a-class",
         "class L:\n    def __class_getitem__(cls, k):\n        import shop.x\n\n\nclass K:\n    T = L[int]\n", None),
        ("changed", "a-literal-exec-string-importing-from", "exec('from shop import x')\n", None),
        ("equal", "a-def-body-calling-an-importer", "import importlib\n\n\ndef f(a=1):\n    importlib.import_module('shop.x')\n", None),
        ("equal", "a-class-getitem-never-subscripted-at-load",
         "class L:\n    def __class_getitem__(cls, k):\n        import shop.x\n\n\nX = L\n", None),
        ("equal", "a-singledispatch-implementation-never-dispatched-at-load",
         "import functools\n\n\n@functools.singledispatch\ndef r(v):\n    pass\n\n\n@r.register(int)\ndef _(v):\n    import shop.x\n", None),
        ("equal", "a-literal-exec-string-in-a-def-body", "def f():\n    exec('import shop.x')\n", None),
        ("equal", "a-literal-exec-string-importing-a-third-party-module", "exec('import json')\n", None),
        ("equal", "an-import-under-type-checking", "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import shop.x\n", "G6"),
        ("equal", "a-def-called-under-type-checking", "from typing import TYPE_CHECKING\n\n" + lazy + "\n\nif TYPE_CHECKING:\n    load()\n", "G6"),
        ("equal", "a-def-called-under-if-false", lazy + "\n\nif False:\n    load()\n", "G6"),
        # held on main and fp2-dyn
        ("changed", "a-def-called-through-an-alias", lazy + "\n\ngo = load\ngo()\n", None),
        ("changed", "a-decorator-factory", "def deco(a):\n    import shop.x\n\n    def w(f):\n        return f\n    return w\n\n\n@deco(1)\ndef g():\n    pass\n", None),
        ("changed", "a-decorator-factorys-inner-decorator",
         "def deco(a):\n    def w(f):\n        import shop.x\n        return f\n    return w\n\n\n@deco(1)\ndef g():\n    pass\n", None),
        ("changed", "a-class-decorator", "def cd(cls):\n    import shop.x\n    return cls\n\n\n@cd\nclass K:\n    pass\n", None),
        ("changed", "a-default-argument-calling-a-def", lazy + "\n\ndef f(a=load()):\n    pass\n", None),
        ("changed", "a-lambda-default-calling-a-def", lazy + "\n\nf = lambda a=load(): a\n", None),
        ("changed", "an-annotation-calling-a-def", lazy + "\n\ndef f(a: load()):\n    pass\n", None),
        ("changed", "a-class-keyword-calling-a-def",
         "class B:\n    def __init_subclass__(cls, **kw):\n        pass\n\n\n" + lazy + "\n\nclass K(B, k=load()):\n    pass\n", None),
        ("changed", "functools-partial-called", "import functools\n\n" + lazy + "\n\nfunctools.partial(load)()\n", None),
        ("changed", "a-hook-table-called", lazy + "\n\nHOOKS = {'a': load}\nHOOKS['a']()\n", None),
        ("changed", "a-generator-drained", "def gen():\n    import shop.x\n    yield 1\n\n\nlist(gen())\n", None),
        ("changed", "a-recursive-def", "def a(n):\n    if n:\n        return a(n - 1)\n    import shop.x\n\n\na(2)\n", None),
        ("changed", "a-returned-inner-def-called", "def outer():\n    def inner():\n        import shop.x\n    return inner\n\n\nouter()()\n", None),
        ("changed", "a-def-called-in-finally", lazy + "\n\ntry:\n    pass\nfinally:\n    load()\n", None),
        ("changed", "a-def-called-in-an-assert", lazy + "\n\nassert load() is None\n", None),
    ]:
        base = project(flow("return log.L", "from shop import m, log"), log=log, x=x, m=m)
        after = edit(base, "shop/x.py", "append('x')", "append('y')")
        add((C if expect == "changed" else E)(f"b6-module-imported-by-{name}-edited", k, base, after, finding))

    # ---------------------------------------------- code loaded by path (G9; fixE)
    k = "namespaces and code reached at run time"
    here = "os.path.dirname(__file__)"
    v1 = {"shop/plug.txt": "V = 1\n"}
    for name, load, files, path, old, new, finding in [
        ("read-in-a-with-block", f"def load():\n    ns = {{}}\n    with open(os.path.join({here}, 'plug.txt')) as fh:\n        src = fh.read()\n"
                                 "    exec(src, ns)\n    return ns['V']\n", v1, "shop/plug.txt", "V = 1", "V = 2", None),
        ("pathlib-with-name", "from pathlib import Path\n\n\ndef load():\n    ns = {}\n    exec(Path(__file__).with_name('plug.txt').read_text(), ns)\n"
                              "    return ns['V']\n", v1, "shop/plug.txt", "V = 1", "V = 2", None),
        ("pkgutil-get-data", "import pkgutil\n\n\ndef load():\n    ns = {}\n    exec(pkgutil.get_data('shop', 'plug.txt'), ns)\n    return ns['V']\n",
         v1, "shop/plug.txt", "V = 1", "V = 2", None),
        ("importlib-resources", "import importlib.resources\n\n\ndef load():\n    ns = {}\n"
                                "    exec(importlib.resources.files('shop').joinpath('plug.txt').read_text(), ns)\n    return ns['V']\n",
         v1, "shop/plug.txt", "V = 1", "V = 2", None),
        ("eval", f"def load():\n    return eval(open(os.path.join({here}, 'plug.txt')).read())\n",
         {"shop/plug.txt": "1 + 1\n"}, "shop/plug.txt", "1 + 1", "1 + 2", None),
        ("an-f-string-path", "def load():\n    ns = {}\n    exec(open(f'{os.path.dirname(__file__)}/plug.txt').read(), ns)\n    return ns['V']\n",
         v1, "shop/plug.txt", "V = 1", "V = 2", None),
        ("a-concatenated-path", "def load():\n    ns = {}\n    exec(open(os.path.dirname(__file__) + '/plug.txt').read(), ns)\n    return ns['V']\n",
         v1, "shop/plug.txt", "V = 1", "V = 2", None),
        ("a-plugin-glob", f"import glob\n\n\ndef load():\n    ns = {{}}\n    for p in sorted(glob.glob(os.path.join({here}, 'plugins', '*.txt'))):\n"
                          "        exec(open(p).read(), ns)\n    return ns['V']\n",
         {"shop/plugins/a.txt": "V = 1\n"}, "shop/plugins/a.txt", "V = 1", "V = 2", None),
        ("a-pth-file-of-a-site-dir-naming-a-directory", f"import site\n\nsite.addsitedir(os.path.join({here}, 'vendor'))\n\n\n"
                                                        "def load():\n    import phelper\n    return phelper.V\n",
         {"shop/vendor/x.pth": "extra\n", "shop/vendor/extra/phelper.py": "V = 1\n"}, "shop/vendor/extra/phelper.py", "V = 1", "V = 2", None),
        ("a-pth-file-of-a-site-dir-running-code", f"import site\n\nsite.addsitedir(os.path.join({here}, 'vendor'))\n\n\n"
                                                  "def load():\n    import builtins\n    return builtins.PV\n",
         {"shop/vendor/x.pth": "import builtins; builtins.PV = 1\n"}, "shop/vendor/x.pth", "PV = 1", "PV = 2", None),
        # held on main and fp2-effects
        ("spec-from-file-location", f"import importlib.util\n\n\ndef load():\n"
                                    f"    spec = importlib.util.spec_from_file_location('plug', os.path.join({here}, 'plug.py'))\n"
                                    "    m = importlib.util.module_from_spec(spec)\n    spec.loader.exec_module(m)\n    return m.V\n",
         {"shop/plug.py": "V = 1\n"}, "shop/plug.py", "V = 1", "V = 2", None),
        ("runpy-run-path", f"import runpy\n\n\ndef load():\n    return runpy.run_path(os.path.join({here}, 'plug.py'))['V']\n",
         {"shop/plug.py": "V = 1\n"}, "shop/plug.py", "V = 1", "V = 2", None),
        ("runpy-run-module", "import runpy\n\n\ndef load():\n    return runpy.run_module('shop.plug')['V']\n",
         {"shop/plug.py": "V = 1\n"}, "shop/plug.py", "V = 1", "V = 2", None),
        ("source-file-loader", f"from importlib.machinery import SourceFileLoader\n\n\ndef load():\n"
                               f"    return SourceFileLoader('plug', os.path.join({here}, 'plug.py')).load_module().V\n",
         {"shop/plug.py": "V = 1\n"}, "shop/plug.py", "V = 1", "V = 2", None),
    ]:
        base = {**project(flow("return load()", "from shop.load import load"), load="import os\n" + load), **files}
        add(C(f"b6-code-loaded-by-path-{name}-edited", k, base, edit(base, path, old, new), finding))
    base = {**project(flow("return load()", "from shop.load import load"),
                      load=f"import os\n\n\ndef load():\n    ns = {{}}\n    exec(open(os.path.join({here}, 'plug.txt')).read(), ns)\n"
                           "    return ns['V']\n"), "shop/plug.txt": "V = 1\n", "shop/other.txt": "W = 1\n"}
    add(E("b6-code-loaded-by-path-another-text-file-edited", k, base, edit(base, "shop/other.txt", "W = 1", "W = 2")))
    return pairs


PAIRS = PAIRS + tuple(_breaker6_pairs())


def _holder_escape_pairs() -> list[ProjectPair]:
    """fixH (session 8), breaker6's G1-G3 from the principle: an object escapes into a holder the
    rule did not follow (a base's attribute, a namespace entry, a display's item, a copy, a call's
    result), a class handed to first-party code as Python makes it (``class_creation``), another
    module's global. Each widening has its *equal* side: a plain base, a third-party decorator, an
    inert class called in the body, a holder of something else, the flow class itself. Base as in
    ``_breaker6_pairs``: the flow returns ``CFG['a']`` and imports ``shop.setup``; the edit is
    ``(5)`` -> ``(6)`` (in ``shop/setup.py`` unless a path is given). G4 (a store into another
    part of a holder, a fresh value counted as holding its argument, a display rebound) is the
    documented cost of a holder being keyed by name, not by part (``finding="G4"``)."""
    pairs: list[ProjectPair] = []
    k = "effects through an object held elsewhere"
    imp = "from shop.cfg import CFG\n\n\n"
    deco = "def deco(cls):\n    cls.c['a'] = (5)\n    return cls\n"
    util = "H = None\n\n\ndef poke():\n    H['a'] = (5)\n"
    changed = [
        # G1: routes to a holder's parts
        ("a-base-of-a-base", imp + "class K:\n    c = CFG\n\n\nclass J(K):\n    pass\n\n\nclass I(J):\n    pass\n\n\nI.c['a'] = (5)\n"),
        ("an-inherited-attribute-of-an-imported-class", "from shop.k import K\n\n\nclass J(K):\n    pass\n\n\nJ.c['a'] = (5)\n"),
        ("an-inherited-attribute-of-a-subclass-another-module-defines", "from shop.j import J\n\n\nJ.c['a'] = (5)\n"),
        ("an-inherited-attribute-changed-in-a-def-called-at-load",
         imp + "class K:\n    c = CFG\n\n\nclass J(K):\n    pass\n\n\ndef s():\n    J.c['a'] = (5)\n\n\ns()\n"),
        ("vars-of-the-class", imp + "class K:\n    c = CFG\n\n\nvars(K)['c']['a'] = (5)\n"),
        ("a-literal-getattr-subscripted", imp + "class K:\n    c = CFG\n\n\ngetattr(K, 'c')['a'] = (5)\n"),
        ("a-list-display-subscripted-at-once", imp + "c = [CFG][0]\nc['a'] = (5)\n"),
        ("a-dict-display-subscripted-at-once", imp + "c = {'k': CFG}['k']\nc['a'] = (5)\n"),
        ("a-display-subscripted-in-a-def", imp + "def s():\n    c = (CFG,)[0]\n    c['a'] = (5)\n\n\ns()\n"),
        ("a-shallow-copy-bound-to-a-name", imp + "HOLD = [CFG]\nH2 = list(HOLD)\nH2[0]['a'] = (5)\n"),
        ("a-sorted-copy-changed-by-a-method", imp + "HOLD = [CFG]\nsorted(HOLD, key=id)[0].update(a=(5))\n"),
        ("a-shallow-copy-of-a-dict-display", imp + "HOLD = {'k': CFG}\ndict(HOLD)['k']['a'] = (5)\n"),
        ("the-copy-method-of-a-display", imp + "HOLD = [CFG]\nHOLD.copy()[0]['a'] = (5)\n"),
        ("an-instance-of-a-subclass-whose-base-stores-through-self",
         imp + "class B:\n    def __init__(self):\n        self.c['a'] = (5)\n\n\nclass K(B):\n    c = CFG\n\n\nK()\n"),
        # G2: a class handed to first-party code as it is made
        ("a-decorator-factory", imp + "def reg(n):\n    def deco(cls):\n        cls.c['a'] = (5)\n        return cls\n    return deco\n\n\n"
                                "@reg('k')\nclass K:\n    c = CFG\n"),
        ("an-imported-class-decorator", "from shop.deco import deco\n" + imp + "@deco\nclass K:\n    c = CFG\n", "shop/deco.py"),
        ("a-class-decorator-on-a-subclass", imp + deco + "\n\nclass K:\n    c = CFG\n\n\n@deco\nclass J(K):\n    pass\n"),
        ("init-subclass-of-an-imported-base",
         "from shop.base import B\n" + imp + "class K(B):\n    c = CFG\n", "shop/base.py"),
        ("init-subclass-of-a-base-of-the-base", imp + "class A:\n    def __init_subclass__(cls):\n        if hasattr(cls, 'c'):\n            cls.c['a'] = (5)\n\n\n"
                                               "class B(A):\n    pass\n\n\nclass K(B):\n    c = CFG\n"),
        ("a-metaclass-of-the-base", imp + "class M(type):\n    def __init__(cls, *a):\n        if hasattr(cls, 'c'):\n"
                                    "            cls.c['a'] = (5)\n\n\nclass B(metaclass=M):\n    pass\n\n\nclass K(B):\n    c = CFG\n"),
        ("a-metaclass-new-changing-the-namespace", imp + "class M(type):\n    def __new__(mcs, name, bases, ns):\n"
                                                   "        ns['c']['a'] = (5)\n        return super().__new__(mcs, name, bases, ns)\n\n\n"
                                                   "class K(metaclass=M):\n    c = CFG\n"),
        ("a-descriptor-made-by-a-factory", imp + "class D:\n    def __set_name__(self, owner, name):\n        owner.c['a'] = (5)\n\n\n"
                                           "def make():\n    return D()\n\n\nclass K:\n    c = CFG\n    d = make()\n"),
        ("a-method-decorator-whose-value-sets-its-name",
         imp + "class D:\n    def __init__(self, f):\n        self.f = f\n\n    def __set_name__(self, owner, name):\n"
               "        owner.c['a'] = (5)\n\n\nclass K:\n    c = CFG\n\n    @D\n    def m(self):\n        pass\n"),
        ("an-imported-descriptor", "from shop.desc import D\n" + imp + "class K:\n    c = CFG\n    d = D()\n", "shop/desc.py"),
        # G3: another first-party module's global holding it
        ("another-modules-global-changed-in-a-def-there", imp + "from shop import util\n\nutil.H = CFG\nutil.poke()\n", "shop/util.py"),
        ("another-modules-global-set-by-setattr", imp + "from shop import util\n\nsetattr(util, 'H', CFG)\nutil.H['a'] = (5)\n"),
        ("another-modules-global-through-import-module-spelling",
         imp + "import shop.util\n\nshop.util.H = CFG\nshop.util.H['a'] = (5)\n"),
    ]
    files = {"k": "from shop.cfg import CFG\n\n\nclass K:\n    c = CFG\n",
             "j": "from shop.k import K\n\n\nclass J(K):\n    pass\n",
             "deco": deco, "util": util,
             "base": "class B:\n    def __init_subclass__(cls):\n        cls.c['a'] = (5)\n",
             "desc": "class D:\n    def __set_name__(self, owner, name):\n        owner.c['a'] = (5)\n"}
    for name, setup, *where in changed:
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.setup"), cfg="CFG = {'a': 1}\n",
                       setup=setup, **files)
        pairs.append(C(f"escape-{name}-edited", k, base, edit(base, where[0] if where else "shop/setup.py", "(5)", "(6)")))
    # the widenings do not fire on ordinary code: the edit is in code that cannot reach ``CFG``
    equal = [
        ("a-plain-base", imp + "class B:\n    def m(self):\n        return (5)\n\n\nclass K(B):\n    c = CFG\n"),
        ("a-plain-base-of-an-instance-made", imp + "class B:\n    def m(self):\n        return (5)\n\n\nclass K(B):\n    c = CFG\n\n\nK()\n"),
        ("a-third-party-class-decorator", "from dataclasses import dataclass\n" + imp + "@dataclass\nclass K:\n    c = CFG\n    n: int = (5)\n"),
        ("a-third-party-base", "import enum\n" + imp + "class K(enum.Enum):\n    A = (5)\n\n\nc = CFG\n"),
        ("an-inert-class-called-in-the-body", imp + "class D:\n    def __init__(self):\n        self.n = (5)\n\n\nclass K:\n    c = CFG\n    d = D()\n"),
        ("a-decorator-of-a-class-holding-something-else", deco + "\n\n@deco\nclass K:\n    c = {'a': 1}\n"),
        ("a-subclass-of-a-class-holding-something-else", imp + "class K:\n    c = {}\n\n\nclass J(K):\n    pass\n\n\nJ.c['a'] = (5)\n"),
        ("a-display-of-something-else-subscripted", imp + "c = ({},)[0]\nc['a'] = (5)\n"),
        ("a-copy-of-a-holder-of-something-else", imp + "HOLD = [{}]\nlist(HOLD)[0]['a'] = (5)\n"),
        ("a-dunder-dict-of-a-class-holding-something-else", imp + "class K:\n    c = {}\n\n\nK.__dict__['c']['a'] = (5)\n"),
        # a third-party name given it keeps nothing a flow reads through it (prefect-recipes'
        # ``Deployment.build_from_flow(flow=f).apply()``: every flow of the module otherwise)
        ("a-third-party-module-given-it-then-its-method-called",
         "import json\n" + imp + "OUT = json.dumps.__call__(CFG)\nN = json.JSONEncoder().encode({'n': (5)})\n"),
        ("another-modules-global-holding-something-else", imp + "from shop import util\n\nutil.H = {}\nutil.H['a'] = (5)\n"),
        ("another-modules-global-bound-to-it-a-def-there-unrelated",
         imp + "from shop import util\n\nutil.H = CFG\n", "shop/util.py"),
    ]
    for name, setup, *where in equal:
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.setup"), cfg="CFG = {'a': 1}\n",
                       setup=setup, **files)
        pairs.append(E(f"escape-{name}-edited", k, base, edit(base, where[0] if where else "shop/setup.py", "(5)", "(6)")))
    # G3 from a third module: ``util.H = CFG`` in ``shop.setup`` makes ``CFG`` what ``shop.util.H``
    # is; code of another module that changes ``util.H`` (calling ``poke``, storing through it)
    # changes ``CFG``; changing another global of ``util`` does not
    for name, other, path, expect in [
        ("a-third-module-calling-a-def-that-stores-through-it", "from shop import util\n\nutil.poke()\n", "shop/util.py", C),
        ("a-third-module-storing-through-it", "from shop import util\n\nutil.H['a'] = (5)\n", "shop/other.py", C),
        ("a-third-module-calling-a-def-there-from-a-def", "from shop import util\n\n\ndef go():\n    util.poke()\n\n\ngo()\n",
         "shop/util.py", C),
        ("a-third-module-changing-another-global-there", "from shop import util\n\nutil.G = {}\nutil.G['a'] = (5)\n",
         "shop/other.py", E),
    ]:
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.setup\nimport shop.other"),
                       cfg="CFG = {'a': 1}\n", setup=imp + "from shop import util\n\nutil.H = CFG\n", util=util, other=other)
        pairs.append(expect(f"escape-another-modules-global-bound-to-it-{name}-edited", k, base, edit(base, path, "(5)", "(6)")))
    # a class made inside a function or a class body (scopes: judged there, any creation code
    # counts), and one ``type()`` builds with a base whose ``__init_subclass__`` changes it
    init_sub = "class B:\n    def __init_subclass__(cls):\n        if hasattr(cls, 'c'):\n            cls.c['a'] = (5)\n"
    for name, setup, expect in [
        ("a-class-decorator-in-a-def", imp + deco + "\n\ndef s():\n    @deco\n    class K:\n        c = CFG\n\n\ns()\n", C),
        ("a-base-of-a-class-in-a-def", imp + init_sub + "\n\ndef s():\n    class K(B):\n        c = CFG\n\n\ns()\n", C),
        ("a-class-decorator-of-a-nested-class", imp + deco + "\n\nclass O:\n    @deco\n    class K:\n        c = CFG\n", C),
        ("a-class-type-builds-with-such-a-base", imp + init_sub + "\n\nK = type('K', (B,), {'c': CFG})\n", C),
        ("a-plain-class-in-a-def", imp + "def s():\n    class K:\n        c = CFG\n        n = (5)\n\n\ns()\n", E),
        ("a-decorated-class-in-a-def-holding-something-else",
         imp + deco + "\n\ndef s():\n    @deco\n    class K:\n        c = {'a': 1}\n\n\ns()\n", E),
    ]:
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.setup"), cfg="CFG = {'a': 1}\n", setup=setup)
        pairs.append(expect(f"escape-{name}-edited", k, base, edit(base, "shop/setup.py", "(5)", "(6)")))
    # the flow's own class does not escape (its flows reach it member by member), but a decorator
    # of it is reached with it
    head = "from shop.cfg import CFG\n\n\n" + deco
    base = project(method_flow("    c = CFG\n", "return self.c['a']", head=head).replace("\nclass Checkout:", "\n@deco\nclass Checkout:"),
                   cfg="CFG = {'a': 1}\n")
    pairs.append(C("escape-a-decorator-of-the-flow-class-edited", k, base, edit(base, "shop/flows.py", "(5)", "(6)")))
    # G4, the cost (breaker6): a holder is keyed by its name, not by part, and holds for ever
    for name, setup in [
        ("another-attribute-of-an-instance",
         imp + "class H:\n    def __init__(self):\n        self.c = CFG\n        self.d = {}\n\n\nH().d['a'] = (5)\n"),
        ("another-attribute-of-a-class", imp + "class K:\n    c = str(CFG)\n\n\nK.d = {}\nK.d['a'] = (5)\n"),
        ("a-display-rebound-to-another", imp + "HOLD = [CFG]\nHOLD = [{}]\nHOLD[0]['a'] = (5)\n"),
    ]:
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.setup"), cfg="CFG = {'a': 1}\n",
                       setup=setup)
        # (a ``str`` of it holds nothing: a read-only builtin's value, fixC's precision, a guard)
        pairs.append(E(f"escape-cost-{name}-edited", k, base, edit(base, "shop/setup.py", "(5)", "(6)"),
                       None if name == "another-attribute-of-a-class" else "G4"))
    return pairs


PAIRS = PAIRS + tuple(_holder_escape_pairs())


def _holder_escape_chunk_cases() -> list[ChunkCase]:
    """``_holder_escape_pairs``' shapes bundled (fixH): the chunk runs the class statement whose
    decorator or base changes what it holds, and another module's global rebound, as live code
    does (guards: the chunk replays an imported module whole)."""
    imp = "from shop.cfg import CFG\n\n\n"
    cases: list[ChunkCase] = []
    for name, setup in [
        ("a-class-decorator-changing-what-it-holds", imp + "def deco(cls):\n    cls.c['a'] = 5\n    return cls\n\n\n@deco\nclass K:\n    c = CFG\n"),
        ("init-subclass-of-a-base-of-the-base", imp + "class A:\n    def __init_subclass__(cls):\n        if hasattr(cls, 'c'):\n            cls.c['a'] = 5\n\n\n"
                                               "class B(A):\n    pass\n\n\nclass K(B):\n    c = CFG\n"),
        ("an-inherited-attribute", imp + "class K:\n    c = CFG\n\n\nclass J(K):\n    pass\n\n\nJ.c['a'] = 5\n"),
        ("another-modules-global-changed-in-a-def-there", imp + "from shop import util\n\nutil.H = CFG\nutil.poke()\n"),
    ]:
        cases.append(ChunkCase(f"escape-{name}", project(flow("return CFG['a'] + o", "from shop.cfg import CFG\nimport shop.setup"),
                                                         cfg="CFG = {'a': 1}\n", setup=setup,
                                                         util="H = None\n\n\ndef poke():\n    H['a'] = 5\n"), 1))
    return cases


CHUNK_CASES = CHUNK_CASES + tuple(_holder_escape_chunk_cases())


def _code_text_origin_pairs() -> list[ProjectPair]:
    """fixP (session 8, G9's neighbours): text a flow's code runs, traced to the files it is read
    from however the path is spelled, each rule with the edit it must see and the ordinary edit
    it must not (a file only read is data; a name a glob does not match; a non-``.pth`` file)."""
    pairs: list[ProjectPair] = []
    add = pairs.append
    k = "namespaces and code reached at run time"
    here = "os.path.dirname(__file__)"
    plug = {"shop/plug.txt": "V = 1\n"}

    def load(body: str, head: str = "") -> dict[str, str]:
        return project(flow("return load()", "from shop.load import load"), load=f"import os\n{head}\n\ndef load():\n{body}")

    for name, body, head in [
        ("a-percent-formatted-path", f"    ns = {{}}\n    exec(open('%s/plug.txt' % {here}).read(), ns)\n    return ns['V']\n", ""),
        ("a-str-format-path", f"    ns = {{}}\n    exec(open('{{}}/{{}}'.format({here}, 'plug.txt')).read(), ns)\n    return ns['V']\n", ""),
        ("importlib-resources-read-text", "    ns = {}\n    exec(importlib.resources.read_text('shop', 'plug.txt'), ns)\n    return ns['V']\n",
         "import importlib.resources\n"),
        ("importlib-resources-files-of-the-module", "    ns = {}\n    exec((importlib.resources.files(__name__) / 'plug.txt').read_text(), ns)\n"
                                                    "    return ns['V']\n", "import importlib.resources\n"),
        ("a-path-opened-then-compiled", "    ns = {}\n    code = compile(Path(__file__).parent.joinpath('plug.txt').open().read().strip(), 'plug', 'exec')\n"
                                        "    exec(code, ns)\n    return ns['V']\n", "from pathlib import Path\n"),
        ("bytes-read-then-decoded", f"    ns = {{}}\n    with open(os.path.join({here}, 'plug.txt'), 'rb') as fh:\n        data = fh.read()\n"
                                    "    exec(data.decode(), ns)\n    return ns['V']\n", ""),
    ]:
        base = {**load(body, head), **plug}
        add(C(f"code-text-{name}-edited", k, base, edit(base, "shop/plug.txt", "V = 1", "V = 2")))
    # a plugin glob: a match edited, added, removed; what it does not match is not the flow's
    glob_load = load(f"    ns = {{}}\n    for p in sorted(glob.glob(os.path.join({here}, 'plugins', '*.txt'))):\n"
                     "        exec(open(p).read(), ns)\n    return ns['V']\n", "import glob\n")
    base = {**glob_load, "shop/plugins/a.txt": "V = 1\n"}
    add(C("code-text-a-plugin-glob-a-match-added", k, base, {**base, "shop/plugins/b.txt": "V = 2\n"}))
    add(C("code-text-a-plugin-glob-a-match-removed", k, {**base, "shop/plugins/b.txt": "V = 2\n"}, base))
    add(E("code-text-a-plugin-glob-a-file-it-does-not-match-added", k, base, {**base, "shop/plugins/README.md": "V = 2\n"}))
    add(E("code-text-a-plugin-glob-a-hidden-file-added", k, base, {**base, "shop/plugins/.b.txt": "V = 2\n"}))
    add(E("code-text-a-plugin-glob-a-file-of-another-directory-added", k, base, {**base, "shop/b.txt": "V = 2\n"}))
    module_glob = project(flow("return NS['V']", "from shop.load import NS"),
                          load=f"import glob\nimport os\n\nNS = {{}}\nfor p in glob.glob({here} + '/plugins/*.txt'):\n"
                               "    exec(open(p).read(), NS)\n")
    base = {**module_glob, "shop/plugins/a.txt": "V = 1\n"}
    add(C("code-text-a-module-level-plugin-glob-a-match-edited", k, base, edit(base, "shop/plugins/a.txt", "V = 1", "V = 2")))
    # a file only read (returned, not run) is data, outside the fingerprint like a database row
    base = {**load(f"    return open(os.path.join({here}, 'plug.txt')).read()\n"), **plug}
    add(E("code-text-a-file-only-read-edited", k, base, edit(base, "shop/plug.txt", "V = 1", "V = 2")))
    # the .pth files of a site directory: which there are, and their bytes; other files there are not
    site = project(flow("return load()", "from shop.load import load"),
                   load=f"import os\nimport site\n\nsite.addsitedir(os.path.join({here}, 'vendor'))\n\n\n"
                        "def load():\n    import phelper\n    return phelper.V\n")
    base = {**site, "shop/vendor/x.pth": "# extra code\nextra\n", "shop/vendor/extra/phelper.py": "V = 1\n",
            "shop/vendor/other/phelper.py": "V = 2\n", "shop/vendor/notes.txt": "a\n"}
    add(C("code-text-a-pth-file-naming-another-directory", k, base, edit(base, "shop/vendor/x.pth", "extra\n", "other\n")))
    add(C("code-text-a-pth-file-added-before-it", k, base, {**base, "shop/vendor/a.pth": "other\n"}))
    add(E("code-text-a-site-directory-other-file-edited", k, base, edit(base, "shop/vendor/notes.txt", "a", "b")))
    add(E("code-text-a-module-found-through-a-pth-directory-not-imported-edited", k, base,
          edit(base, "shop/vendor/other/phelper.py", "V = 2", "V = 3")))
    # a runner called through a name bound to it: at module level, imported under another name, local
    for name, body, head in [
        ("exec-bound-to-a-module-name", f"    ns = {{}}\n    run(open(os.path.join({here}, 'plug.txt')).read(), ns)\n    return ns['V']\n",
         "\nrun = exec\n"),
        ("exec-imported-under-another-name", f"    ns = {{}}\n    run(open(os.path.join({here}, 'plug.txt')).read(), ns)\n    return ns['V']\n",
         "from builtins import exec as run\n"),
        ("exec-bound-to-a-local", f"    ns = {{}}\n    r = exec\n    r(open(os.path.join({here}, 'plug.txt')).read(), ns)\n    return ns['V']\n", ""),
    ]:
        base = {**load(body, head), **plug}
        add(C(f"code-text-{name}-edited", k, base, edit(base, "shop/plug.txt", "V = 1", "V = 2")))
    base = {**load("    ns = {}\n    run('V = 1', ns)\n    return ns['V']\n", "\nrun = exec\n"), **plug}
    add(E("code-text-exec-bound-to-a-name-run-on-a-literal-a-text-file-edited", k, base,
          edit(base, "shop/plug.txt", "V = 1", "V = 2")))
    return pairs


PAIRS = PAIRS + tuple(_code_text_origin_pairs())


def _code_text_origin_chunk_cases() -> list[ChunkCase]:
    """fixP (G9): a chunk runs what live code runs when the code is text read by path (pinned by
    ``# file:`` lines, run from the live files), and a module found through a ``.pth`` directory
    (bundled under the name the import gives it: ``closure``'s ``<dir>#site`` member)."""
    here = "os.path.dirname(__file__)"

    def load(body: str, head: str = "") -> dict[str, str]:
        return project(flow("return load()", "from shop.load import load"), load=f"import os\n{head}\n\ndef load():\n{body}")

    site = (f"import os\nimport site\n\nsite.addsitedir(os.path.join({here}, 'vendor'))\n\n\n"
            "def load():\n    import phelper\n    return phelper.V, phelper.__name__\n")
    return [
        ChunkCase("code-text-read-in-a-with-block", {**load(
            f"    ns = {{}}\n    with open(os.path.join({here}, 'plug.txt')) as fh:\n        src = fh.read()\n"
            "    exec(src, ns)\n    return ns['V']\n"), "shop/plug.txt": "V = 1\n"}, 0),
        ChunkCase("code-text-a-plugin-glob", {**load(
            f"    ns = {{'V': []}}\n    for p in sorted(glob.glob(os.path.join({here}, 'plugins', '*.txt'))):\n"
            "        exec(open(p).read(), ns)\n    return ns['V']\n", "import glob\n"),
            "shop/plugins/a.txt": "V.append('a')\n", "shop/plugins/b.txt": "V.append('b')\n"}, 0),
        ChunkCase("code-text-a-module-found-through-a-pth-directory", {
            **project(flow("return load()", "from shop.load import load"), load=site),
            "shop/vendor/x.pth": "# vendored\nextra\n", "shop/vendor/extra/phelper.py": "V = 1\n"}, 0),
    ]


CHUNK_CASES = CHUNK_CASES + tuple(_code_text_origin_chunk_cases())


def _breaker6_chunk_cases() -> list[ChunkCase]:
    """breaker6 (session 7): where a chunk starts a module a statement's code imports at load.
    Each shop/m.py logs ``m1``, runs one statement, logs ``m2``; shop/x.py logs ``x``. G8 (fixed
    by fixG7, guards now, with held cases where live runs no x): live runs x inside the statement
    (a default argument's importer call, ``__class_getitem__``, a ``singledispatch``
    implementation), the chunk did not; a literal ``exec`` string importing first-party code
    imported the live module in the chunk: the build now refuses the flow, naming the call. G7 (fixed, guards now): a
    def called under ``if TYPE_CHECKING:`` never runs, a def only registered or handed on for
    later (``atexit``, a thread never started), an instance whose importing method nothing calls:
    none starts a module. G11 (strict
    xfails): an import, a compound statement, a walrus or a ``del`` in the class body of the
    flow's own class, read through ``self``."""
    log = "L = []\n"
    x = "from shop import log\n\nlog.L.append('x')\n"
    lazy = "def load():\n    import shop.x\n"
    lazy_args = "def load(*a):\n    import shop.x\n"
    cases: list[ChunkCase] = []
    for name, defs, stmt, finding in [
        ("a-default-argument-calling-an-importer", "import importlib\n", "def f(a=importlib.import_module('shop.x')):\n    pass", None),
        ("class-getitem", "class L:\n    def __class_getitem__(cls, k):\n        import shop.x\n", "L[int]", None),
        ("a-singledispatch-implementation",
         "import functools\n\n\n@functools.singledispatch\ndef r(v):\n    pass\n\n\n@r.register(int)\ndef _(v):\n    import shop.x\n", "r(1)", None),
        # G8 fixed (fixG7, session 8); held: the same code where live does not run x
        ("a-def-body-calling-an-importer", "import importlib\n", "def f(a=1):\n    importlib.import_module('shop.x')", None),
        ("a-class-getitem-never-subscripted", "class L:\n    def __class_getitem__(cls, k):\n        import shop.x\n", "X = L", None),
        ("a-singledispatch-implementation-never-dispatched",
         "import functools\n\n\n@functools.singledispatch\ndef r(v):\n    pass\n\n\n@r.register(int)\ndef _(v):\n    import shop.x\n",
         "X = r", None),
        ("a-singledispatch-implementation-registered-by-a-call",
         "import functools\n\n\n@functools.singledispatch\ndef r(v):\n    pass\n\n\ndef _impl(v):\n    import shop.x\n",
         "r.register(int, _impl)\nr(1)", None),
        ("a-literal-exec-string-importing-a-third-party-module", "", "exec('import json')", None),
        # G7 (fixed, session 8: ``load_runs.chunk_seeds``): a def called under ``if TYPE_CHECKING:``, a
        # def only handed on, a method nothing calls start no module in the chunk
        ("a-def-called-under-type-checking", "from typing import TYPE_CHECKING\n" + lazy, "if TYPE_CHECKING:\n    load()", None),
        ("a-def-registered-with-atexit", "import atexit\n" + lazy, "atexit.register(load)", None),
        ("a-def-given-to-a-thread-never-started", "import threading\n" + lazy, "T = threading.Thread(target=load)", None),
        ("an-instance-whose-importing-method-nothing-calls", "class L:\n    def go(self):\n        import shop.x\n", "OBJ = L()", None),
        ("a-def-registered-for-a-signal", "import signal\n" + lazy, "signal.signal(signal.SIGUSR1, load)", None),
        # the registering call resolved through the module's imports, however it is spelled
        ("a-def-given-to-a-from-imported-thread-never-started", "from threading import Thread\n" + lazy,
         "T = Thread(target=load)", None),
        ("a-def-given-to-a-thread-of-an-aliased-module-never-started", "import threading as th\n" + lazy,
         "T = th.Thread(target=load)", None),
        # breaker7's K1 (session 8): a def handed to third-party code that calls it at once runs
        # (only ``effects.DEFERRERS`` register for later)
        ("a-def-handed-to-json-loads-as-its-object-hook", "import json\n" + lazy_args, "json.loads('{}', object_hook=load)", None),
        ("a-def-handed-to-re-sub", "import re\n" + lazy_args, "re.sub('a', load, 'a')", None),
        ("a-def-handed-to-a-defaultdict-then-read", "import collections\n" + lazy_args,
         "D = collections.defaultdict(load)\nD[1]", None),
        # held on main and fp2-dyn
        ("a-def-called-through-an-alias", lazy, "go = load\ngo()", None),
        ("a-decorator-factorys-inner-decorator", "def deco(a):\n    def w(f):\n        import shop.x\n        return f\n    return w\n",
         "@deco(1)\ndef g():\n    pass", None),
        ("a-class-decorator", "def cd(cls):\n    import shop.x\n    return cls\n", "@cd\nclass K:\n    pass", None),
        ("a-default-argument-calling-a-def", lazy, "def f(a=load()):\n    pass", None),
        ("functools-partial-called", "import functools\n" + lazy, "functools.partial(load)()", None),
        ("a-hook-table-called", lazy, "HOOKS = {'a': load}\nHOOKS['a']()", None),
        ("a-generator-drained", "def gen():\n    import shop.x\n    yield 1\n", "list(gen())", None),
        ("an-importer-called-in-a-class-body", "import importlib\n", "class K:\n    importlib.import_module('shop.x')", None),
    ]:
        m = "from shop import log\n" + defs + "\n\nlog.L.append('m1')\n" + stmt + "\nlog.L.append('m2')\n"
        cases.append(ChunkCase(f"b6-module-imported-by-{name}-runs-where-live-runs-it",
                               project(flow("return log.L", "from shop import m, log"), log=log, x=x, m=m), 0, finding))
    # G8 (fixed, fixG7): a literal exec string importing first-party code at load imported the live
    # module in the chunk; the chunk cannot rewrite an import inside a string, so the build refuses
    # the flow, naming the call (``chunk_limits.refuse_code_strings``)
    for name, stmt in [("a-literal-exec-string", "exec('import shop.x')"),
                       ("a-literal-exec-string-importing-relatively", "exec('from . import x')"),
                       ("a-literal-compile-string", "exec(compile('import shop.x', 'f', 'exec'))")]:
        m = "from shop import log\n\n\nlog.L.append('m1')\n" + stmt + "\nlog.L.append('m2')\n"
        cases.append(ChunkCase(f"b6-module-imported-by-{name}-is-refused", project(
            flow("return log.L", "from shop import m, log"), log=log, x=x, m=m), 0,
            refused="shop/m.py:5:"))
    # G11 (fixed by the lead: chunk_class keeps a class-body statement binding a reached name): an
    # import in the class body of a method flow's own class, read through ``self``; held: read
    # through the class name, an assignment
    m = "def a():\n    return 7\n"
    for name, members, body, finding in [
        ("a-first-party-module", "    import shop.m as mm\n", "return self.mm.a()", None),
        ("a-third-party-module", "    import json\n", "return self.json.dumps(1)", None),
        ("a-first-party-class", "    from shop.m import K as helper\n", "return self.helper.V", None),
        ("a-third-party-function-read-through-the-class", "    from json import dumps\n", "return Checkout.dumps(1)", None),
        ("an-assignment-of-an-imported-function", "    helper = staticmethod(a)\n", "return self.helper()", None),
    ]:
        cases.append(ChunkCase(f"b6-the-flows-own-class-body-importing-{name}", project(
            method_flow(members, body, head="from shop.m import a\n"), m=m + "\n\nclass K:\n    V = 8\n"), 0, finding))
    # G11 too: a compound statement, a walrus or a ``del`` in that class body (the fingerprint
    # holds: an edit of each moves the hash)
    for name, members, body, finding in [
        ("an-if", "    if True:\n        X = 5\n    else:\n        X = 6\n", "return self.X", None),
        ("a-try", "    try:\n        import json as J\n    except ImportError:\n        J = None\n", "return self.J.dumps(2)", None),
        ("a-with", "    import contextlib\n    with contextlib.suppress(Exception):\n        Y = 4\n", "return self.Y", None),
        ("a-walrus", "    W = (V := 9)\n", "return self.V", None),
        ("a-del", "    D = 1\n    E = 2\n    del D\n", "return hasattr(self, 'D'), self.E", None),
        ("a-loop-through-locals", "    for _n in ('p', 'q'):\n        locals()[_n] = 3\n", "return self.p", None),
        ("a-call", "    Z = a()\n", "return self.Z", None),
        ("a-comprehension", "    T = [i * 2 for i in range(3)]\n", "return self.T", None),
        ("an-annotated-assignment", "    A: int = 3\n", "return self.A", None),
        ("an-exec", "    exec('Q = 11')\n", "return self.Q", None),
        ("a-nested-class", "    class Inner:\n        V = 12\n", "return self.Inner.V", None),
        ("a-property", "    @property\n    def p(self):\n        return 13\n", "return self.p", None),
        ("a-global-statement", "    global G\n    G = 14\n", "return G", None),
        ("slots", "    __slots__ = ('x',)\n", "self.x = 1\nreturn self.x", None),
    ]:
        cases.append(ChunkCase(f"b6-the-flows-own-class-body-with-{name}", project(
            method_flow(members, body, head="from shop.m import a\n"), m=m), 0, finding))
    return cases


CHUNK_CASES = CHUNK_CASES + tuple(_breaker6_chunk_cases())


def _load_runs_pairs() -> list[ProjectPair]:
    """fixD (session 7, ``loom_compiler.load_runs``): what a module-level statement runs at load
    and what that code imports, one rule for the hash and the chunk. Changed: a module imported by
    code another module runs at load (F12's remainder, by name, through a package's re-export, as
    a module's attribute, as a decorator, a class's ``__init__``, two modules deep, a def handed to
    a call), the fingerprint side of F13's spellings (a decorator or a class body replacing the
    module in ``sys.modules``; a method or a lambda calling ``import_module``), and ``<loads>``
    counting a def run at load (F11's family). Equal: the widening leaves ordinary code alone (a
    def imported and never called at load, called only from a def nobody calls, a class whose
    method imports and that nothing instantiates at load, an edit in the run module that
    changes nothing the flow reaches)."""
    pairs: list[ProjectPair] = []
    k = "a module imported by code another module runs at load"
    log = "L = []\n"
    x = "from shop import log\n\nlog.L.append('x')\n"
    head = "from shop import m, log"

    def changed(name: str, m: str, **more: str) -> None:
        base = project(flow("return log.L", head), log=log, x=x, m=m, **more)
        pairs.append(C(f"module-imported-by-{name}-edited", k, base, edit(base, "shop/x.py", "append('x')", "append('y')")))

    def equal(name: str, m: str, **more: str) -> None:
        base = project(flow("return log.L", head), log=log, x=x, m=m, **more)
        pairs.append(E(f"module-imported-by-{name}-edited", k, base, edit(base, "shop/x.py", "append('x')", "append('y')")))

    lazy = "def load():\n    import shop.x\n"
    changed("a-def-re-exported-by-a-package-called-at-load", "from shop.util import load\n\nload()\n",
            util__init="from .impl import load\n", util__impl=lazy)
    changed("a-def-of-another-module-called-through-its-module", "from shop import util\n\nutil.load()\n", util=lazy)
    changed("a-def-of-another-module-called-through-a-dotted-import", "import shop.util\n\nshop.util.load()\n", util=lazy)
    changed("a-decorator-of-another-module", "from shop.util import deco\n\n\n@deco\ndef g():\n    pass\n",
            util="def deco(fn):\n    import shop.x\n    return fn\n")
    changed("an-init-of-a-class-of-another-module-instantiated-at-load", "from shop.util import Loader\n\nLOADER = Loader()\n",
            util="class Loader:\n    def __init__(self):\n        import shop.x\n")
    changed("a-def-two-modules-deep", "from shop.util import load\n\nload()\n",
            util="from shop.util2 import load2\n\n\ndef load():\n    return load2()\n",
            util2="import importlib\n\n\ndef load2():\n    return importlib.import_module('shop.x')\n")
    changed("a-lazily-imported-def-called-by-a-def-run-at-load", "from shop.util import load\n\nload()\n",
            util="def load():\n    from shop.util2 import load2\n    load2()\n", util2=lazy.replace("load", "load2"))
    changed("a-def-handed-to-a-call-at-load", "def run(f):\n    return f()\n\n\n" + lazy + "\n\nrun(load)\n")
    changed("a-lambda-of-another-module-called-at-load", "from shop.util import load\n\nload()\n",
            util="import importlib\n\nload = lambda: importlib.import_module('shop.x')\n")
    # a ``__main__`` block runs when the module is a worker's script (``effects``: attached like
    # any statement), so what it runs counts too
    changed("a-def-of-another-module-called-in-a-main-block",
            "from shop.util import load\n\nif __name__ == '__main__':\n    load()\n", util=lazy)
    equal("a-def-of-another-module-imported-and-never-called", "from shop.util import load\n", util=lazy)
    equal("a-def-of-another-module-called-only-from-a-def-nobody-calls",
          "from shop.util import load\n\n\ndef later():\n    load()\n", util=lazy)
    equal("a-method-of-a-class-nothing-instantiates-at-load",
          "class Loader:\n    def load(self):\n        import shop.x\n")
    equal("a-sibling-def-of-the-one-called-at-load", "from shop.util import other\n\nother()\n",
          util=lazy + "\n\ndef other():\n    return 1\n")
    # the module does run (``load()`` imports it), but the edited statement changes nothing the flow reaches
    base = project(flow("return log.L", head), log=log, m="from shop.util import load\n\nload()\n", util=lazy,
                   x="from shop import log\n\nlog.L.append('x')\n\n\ndef unrelated():\n    return (1)\n")
    pairs.append(E("module-imported-by-a-def-run-at-load-an-unreached-def-edited", k, base,
                   edit(base, "shop/x.py", "(1)", "(2)")))

    k = "code run at load replacing or importing (F13)"
    replacing = "import sys\n\n\nclass _M:\n    answer = (42)\n\n\n"
    for name, m in (
            ("a-decorator", replacing + "def _install(fn):\n    sys.modules[__name__] = _M()\n    return fn\n\n\n@_install\ndef g():\n    pass\n"),
            ("a-def-called-in-a-class-body", replacing + "def _install():\n    sys.modules[__name__] = _M()\n\n\nclass K:\n    _install()\n"),
            ("a-decorator-of-another-module", "from shop.util import install\n\n\nclass _M:\n    answer = (42)\n\n\n"
                                              "@install(__name__, _M)\ndef g():\n    pass\n")):
        base = project(flow("from shop.m import answer\nreturn answer"), m=m,
                       util="import sys\n\n\ndef install(name, cls):\n    def deco(fn):\n        sys.modules[name] = cls()\n"
                            "        return fn\n    return deco\n")
        pairs.append(C(f"module-replaced-in-sys-modules-by-{name}-the-replacement-edited", k, base,
                       edit(base, "shop/m.py", "(42)", "(43)")))
    f = "def f():\n    return (1)\n"
    for name, m in (
            ("a-method", "import importlib\n\n\nclass L:\n    def load(self):\n        return importlib.import_module('shop.x')\n\n\nF = L().load().f()\n"),
            ("a-lambda", "import importlib\n\nload = lambda: importlib.import_module('shop.x')\nF = load().f()\n")):
        base = project(flow("return m.F", "from shop import m"), m=m, x=f)
        pairs.append(C(f"module-imported-at-load-by-{name}-its-function-edited", k, base, edit(base, "shop/x.py", "(1)", "(2)")))
    base = project(flow("from shop.m import answer\nreturn answer"),
                   m="import sys\n\nanswer = 1\n\n\nclass _M:\n    answer = (42)\n\n\ndef _install():\n    sys.modules[__name__] = _M()\n")
    pairs.append(E("module-replacement-in-a-def-never-called-edited", k, base, edit(base, "shop/m.py", "(42)", "(43)")))

    k = "a submodule read as an attribute another import loaded"
    helper = "def f():\n    return 1\n"
    for name, a, more in (
            ("a-def-it-runs-at-load", "def load():\n    import shop.b\n\n\nload()\n", {}),
            ("a-def-of-another-module-it-runs-at-load", "from shop.util import load\n\nload()\n", {"util": "def load():\n    import shop.b\n"})):
        base = project(flow("return shop.b.f()", "import shop.a"), a=a, b=helper, **more)
        pairs.append(C(f"another-module-stops-importing-the-submodule-through-{name}", k, base,
                       edit(base, "shop/a.py", "load()\n", "X = 1\n")))
    return pairs


PAIRS = PAIRS + tuple(_load_runs_pairs())


def _load_runs_chunk_cases() -> list[ChunkCase]:
    """fixD (``load_runs``): a chunk starts a module where the code a statement runs at load
    imports it, in any module (F12's remainder: ``['m1', 'x', 'm2']`` as live), and leaves it
    where nothing runs that code."""
    log = "L = []\n"
    x = "from shop import log\n\nlog.L.append('x')\n"
    lazy = "def load():\n    import shop.x\n"
    around = "from shop import log\n{imp}\n\nlog.L.append('m1')\n{call}\nlog.L.append('m2')\n"
    cases: list[ChunkCase] = []
    for name, imp, call, more in (
            ("a-def-of-another-module-called-at-load", "from shop.util import load", "load()", {"util": lazy}),
            ("a-def-re-exported-by-a-package-called-at-load", "from shop.util import load", "load()",
             {"util__init": "from .impl import load\n", "util__impl": lazy}),
            ("a-def-of-another-module-called-through-its-module", "from shop import util", "util.load()", {"util": lazy}),
            ("a-class-of-another-module-instantiated-at-load", "from shop.util import Loader", "LOADER = Loader()",
             {"util": "class Loader:\n    def __init__(self):\n        import shop.x\n"}),
            ("a-def-two-modules-deep", "from shop.util import load", "load()",
             {"util": "from shop.util2 import load2\n\n\ndef load():\n    return load2()\n",
              "util2": "import importlib\n\n\ndef load2():\n    return importlib.import_module('shop.x')\n"}),
            ("a-def-handed-to-a-call-at-load", "\n\ndef run(f):\n    return f()\n\n\n" + lazy, "run(load)", {}),
            # held: imported, never called at load
            ("a-def-of-another-module-never-called", "from shop.util import load", "X = load", {"util": lazy})):
        cases.append(ChunkCase(f"module-imported-by-{name}-runs-in-order", project(
            flow("return log.L", "from shop import m, log"), log=log, x=x, m=around.format(imp=imp, call=call), **more), 0))
    # F4: a relative name beyond the top-level package fails in the chunk as live (ImportError,
    # "attempted relative import beyond top-level package"), however the importer is spelled;
    # held: one that stays inside (``..x`` from a subpackage)
    catch = "try:\n    F = {call}\nexcept ImportError as e:\n    F = type(e).__name__, str(e)\n"
    f = "def f():\n    return 1\n"
    for name, call, where, flow_import in (
            ("dunder-import-with-a-level", "__import__('x', globals(), None, ['f'], 3)", "m", "shop.m"),
            ("dunder-import-with-a-level-keyword", "__import__('x', globals(), None, ['f'], level=2)", "m", "shop.m"),
            ("import-module-from-a-subpackage-init", "importlib.import_module('...x', __package__)", "sub__init", "shop.sub"),
            ("import-module-staying-inside", "importlib.import_module('..x', __package__).f()", "sub__m", "shop.sub.m")):
        files = project(flow("return F", f"from {flow_import} import F"), **{"sub__init": "", where: "import importlib\n\n"
                                                                              + catch.format(call=call)}, x=f)
        cases.append(ChunkCase(f"relative-name-beyond-the-top-package-{name}", files, 0))
    cases.append(ChunkCase("relative-import-statement-beyond-the-top-package-in-the-flow", project(
        flow("try:\n    from ..x import f\nexcept ImportError as e:\n    return type(e).__name__, str(e)\nreturn f()"), x=f), 0))
    cases.append(ChunkCase("module-imported-by-a-decorator-of-another-module-runs-before-its-user", project(
        flow("return m.V", "from shop import m"),
        util="def deco(fn):\n    from shop.x import f\n    fn.v = f()\n    return fn\n",
        m="from shop.util import deco\n\n\n@deco\ndef g():\n    pass\n\n\nV = g.v\n", x="def f():\n    return 1\n"), 0))
    return cases


CHUNK_CASES = CHUNK_CASES + tuple(_load_runs_chunk_cases())


def _chunk_seeds_cases() -> list[ChunkCase]:
    """fixG7 (session 8, ``load_runs.chunk_seeds``; breaker6's G7): the chunk counts as run what a
    statement calls, not what it only hands on or a method nothing calls. Each shop/m.py logs
    ``m1``, runs one statement, logs ``m2``; shop/x.py logs ``x``. Runs x (the rule must still
    see it): a builtin calling the def it is handed, a thread started and joined, a first-party
    callee calling what it is handed (imported, or a class's ``__init__``), an ``__init__``
    reaching an importing method through ``self`` (a call, a property), an inherited
    ``__init__``, a metaclass's ``__call__``, a dataclass's ``__post_init__``, an instance
    escaping its ``__init__``, a method called on the result, ``TYPE_CHECKING`` rebound to True
    or imported from elsewhere, an ``if TYPE_CHECKING`` with an ``else`` that calls, a base's
    ``__init_subclass__``, a metaclass's ``__init__``, a class body making its base. Runs no x:
    a def of another module handed to ``atexit``, a value standing for a def handed on, a
    lambda given to a signal handler, a class of another module instantiated whose importing
    method nothing calls, a subclass of a class (of this module or another) whose importing
    method nothing calls, a metaclass's ``__call__`` of a class nothing instantiates,
    ``typing.TYPE_CHECKING`` spelled through the module, a def called under ``if False:``."""
    log = "L = []\n"
    x = "from shop import log\n\nlog.L.append('x')\n"
    lazy = "def load():\n    import shop.x\n"
    cls = "class L:\n    def __init__(self):\n        {init}\n\n    def go(self):\n        import shop.x\n"
    util_loader = "class Loader:\n    def __init__(self):\n        self.n = 1\n\n    def go(self):\n        import shop.x\n"
    cases: list[ChunkCase] = []
    for name, defs, stmt, more in [
        # x runs live
        ("a-def-handed-to-sorted", lazy, "sorted([1], key=lambda v: load())", {}),
        ("a-def-handed-to-sorted-by-name", "def load(v):\n    import shop.x\n", "sorted([1], key=load)", {}),
        ("a-def-mapped-and-drained", "def load(v):\n    import shop.x\n", "list(map(load, [1]))", {}),
        ("a-thread-started-and-joined", "import threading\n" + lazy, "T = threading.Thread(target=load)\nT.start()\nT.join()", {}),
        ("a-def-handed-to-a-first-party-registry-calling-it", "from shop.util import reg\n" + lazy, "reg(load)",
         {"util": "def reg(f):\n    f()\n"}),
        ("a-def-handed-to-a-constructor-calling-it", "class L:\n    def __init__(self, f):\n        f()\n\n\n" + lazy,
         "OBJ = L(load)", {}),
        ("an-init-calling-an-importing-method", cls.format(init="self.go()"), "OBJ = L()", {}),
        ("an-init-reading-an-importing-property",
         "class L:\n    def __init__(self):\n        self.v = self.p\n\n    @property\n    def p(self):\n        import shop.x\n",
         "OBJ = L()", {}),
        ("an-inherited-init", "class B:\n    def __init__(self):\n        import shop.x\n\n\nclass L(B):\n    pass\n", "OBJ = L()", {}),
        ("a-metaclass-call",
         "class M(type):\n    def __call__(cls, *a):\n        import shop.x\n        return super().__call__(*a)\n\n\n"
         "class L(metaclass=M):\n    pass\n", "OBJ = L()", {}),
        ("a-default-factory-in-the-class-body", "from dataclasses import dataclass, field\n" + lazy + "\n\n@dataclass\nclass L:\n"
         "    v: object = field(default_factory=load)\n", "OBJ = L()", {}),
        ("a-dataclass-post-init",
         "from dataclasses import dataclass\n\n\n@dataclass\nclass L:\n    def __post_init__(self):\n        import shop.x\n",
         "OBJ = L()", {}),
        ("an-init-handing-its-instance-on", "from shop.util import reg\n" + cls.format(init="reg(self)"), "OBJ = L()",
         {"util": "def reg(o):\n    o.go()\n"}),
        ("an-init-reading-itself-by-computed-name", cls.format(init="getattr(self, 'g' + 'o')()"), "OBJ = L()", {}),
        ("a-method-called-on-the-result", cls.format(init="pass"), "L().go()", {}),
        ("a-method-called-on-the-bound-instance", cls.format(init="pass"), "OBJ = L()\nOBJ.go()", {}),
        ("a-class-of-another-module-whose-init-imports", "from shop.util import Loader\n", "LOADER = Loader()",
         {"util": "class Loader:\n    def __init__(self):\n        self.go()\n\n    def go(self):\n        import shop.x\n"}),
        ("type-checking-rebound-to-true", "from typing import TYPE_CHECKING\n" + lazy + "\n\nTYPE_CHECKING = True\n",
         "if TYPE_CHECKING:\n    load()", {}),
        ("a-type-checking-of-another-module", "from shop.util import TYPE_CHECKING\n" + lazy, "if TYPE_CHECKING:\n    load()",
         {"util": "TYPE_CHECKING = True\n"}),
        ("type-checking-with-an-else-calling", "from typing import TYPE_CHECKING\n" + lazy,
         "if TYPE_CHECKING:\n    pass\nelse:\n    load()", {}),
        ("a-base-whose-init-subclass-imports", "class B:\n    def __init_subclass__(cls):\n        import shop.x\n",
         "class K(B):\n    pass", {}),
        ("a-metaclass-init", "class M(type):\n    def __init__(cls, *a):\n        import shop.x\n", "class K(metaclass=M):\n    pass", {}),
        ("a-class-body-making-its-base", "class B:\n    def __init__(self):\n        import shop.x\n", "class K(B):\n    v = B()", {}),
        ("a-subclass-registered-by-a-method-of-its-base",
         "class B:\n    @classmethod\n    def register(cls, k):\n        import shop.x\n        return k\n",
         "@B.register\nclass K(B):\n    pass", {}),
        # x does not run live
        ("a-subclass-of-a-base-whose-importing-method-nothing-calls", "class B:\n    def go(self):\n        import shop.x\n",
         "class K(B):\n    pass", {}),
        ("a-subclass-of-a-base-of-another-module", "from shop.util import Loader\n", "class K(Loader):\n    pass",
         {"util": util_loader}),
        ("a-class-whose-metaclass-call-runs-only-when-instantiated",
         "class M(type):\n    def __call__(cls, *a):\n        import shop.x\n", "class K(metaclass=M):\n    pass", {}),
        ("a-def-of-another-module-registered-with-atexit", "import atexit\nfrom shop import util\n", "atexit.register(util.load)",
         {"util": lazy}),
        ("a-value-standing-for-a-def-registered-with-atexit", "import atexit\n" + lazy + "\n\nHOOK = load\n",
         "atexit.register(HOOK)", {}),
        ("a-def-given-to-a-signal-handler", "import signal\n" + lazy, "signal.signal(signal.SIGUSR1, lambda *a: load())", {}),
        ("a-class-of-another-module-whose-importing-method-nothing-calls", "from shop.util import Loader\n",
         "LOADER = Loader()", {"util": util_loader}),
        ("an-init-calling-a-method-that-does-not-import", cls.format(init="self.n = 1"), "OBJ = L()", {}),
        ("typing-type-checking-through-the-module", "import typing\n" + lazy, "if typing.TYPE_CHECKING:\n    load()", {}),
        ("a-def-called-under-if-false", lazy, "if False:\n    load()", {}),
    ]:
        m = "from shop import log\n" + defs + "\n\nlog.L.append('m1')\n" + stmt + "\nlog.L.append('m2')\n"
        cases.append(ChunkCase(f"g7-module-imported-by-{name}-runs-where-live-runs-it",
                               project(flow("return log.L", "from shop import m, log"), log=log, x=x, m=m, **more), 0))
    return cases


CHUNK_CASES = CHUNK_CASES + tuple(_chunk_seeds_cases())


def _class_body_binding_chunk_cases() -> list[ChunkCase]:
    """More of G11 (lead, session 7): a ``for`` target in the class body, what the cut must still
    drop, and the dotted spelling (``import shop.m`` read as ``self.shop.m.a()``: the chunk's
    ``shop`` lacked ``m`` until session 8, when the class attribute ``shop`` came to stand for the
    submodule its import loads)."""
    m = "def a():\n    return 7\n"
    cases = [
        ("a-class-body-dotted-import", "    import shop.m\n", "return self.shop.m.a()", None),
        ("a-class-body-for-binding", "    for _i in range(3):\n        pass\n", "return self._i", None),
        # held: the cut still drops what the flow does not reach (an import it never reads)
        ("a-class-body-import-not-reached", "    import shop.m as mm\n    from shop.m import a\n", "return 1", None),
    ]
    return [ChunkCase(name, project(method_flow(members, body), m=m), 0, finding) for name, members, body, finding in cases]


def _class_body_binding_pairs() -> list[ProjectPair]:
    """The fingerprint side of G11: an edit of the module a class-body import binds, read through
    ``self``, moves the flow's hash (``as``, ``from``, a compound statement, the dotted spelling);
    a layout-only edit of that module keeps it (the dotted import reaches all of ``shop.m``, by
    canonical form, not by bytes)."""
    out = []
    for name, members, body, finding in [
        ("as", "    import shop.m as mm\n", "return self.mm.a()", None),
        ("from-as", "    from shop.m import a as helper\n", "return self.helper()", None),
        ("in-a-try", "    try:\n        import shop.m as js\n    except ImportError:\n        import json as js\n",
         "return self.js.a()", None),
        ("dotted", "    import shop.m\n", "return self.shop.m.a()", None),
    ]:
        base = project(method_flow(members, body), m="def a():\n    return (7)\n")
        out.append(C(f"a-module-a-class-body-import-binds-{name}-read-through-self-edited", "method flows: class-body imports", base,
                     edit(base, "shop/m.py", "(7)", "(8)"), finding))
    base = project(method_flow("    import shop.m\n", "return self.shop.m.a()"), m="def a():\n    return (7)\n")
    out.append(E("a-module-a-class-body-dotted-import-binds-reformatted", "method flows: class-body imports", base,
                 edit(base, "shop/m.py", "    return (7)\n", "    # seven\n    return (7)  # the answer\n")))
    return out


CHUNK_CASES = CHUNK_CASES + tuple(_class_body_binding_chunk_cases())
PAIRS = PAIRS + tuple(_class_body_binding_pairs())


def _holder_pairs() -> list[ProjectPair]:
    """fixC (session 7), F6/F7/L4 generalised: an object can escape into any holder (a display, a
    class or instance attribute, a value a call builds, what a def returns or yields, a name a
    def binds after ``global``) and be changed through it (``scopes.References.holds``/``deep``,
    ``effects._Holders``). Each changed pair spells another holder or another route to its parts
    (most failed before the rule); each equal pair is ordinary code the rule must not widen on:
    a holder of something the flow does not reach, a store into the holder itself, a builtin
    display's method. F8 is the documented cost of flow-insensitive aliasing (``scopes``)."""
    k = "effects through an object held elsewhere"
    pairs: list[ProjectPair] = []
    cfg = "CFG = {'a': 1, 'sub': {'a': 1}}\nOTHER = {'a': 1}\n"
    imp = "from shop.cfg import CFG\n\n\n"
    get = imp + "def get():\n    return CFG\n\n\n"
    holder_h = imp + "class H:\n    def __init__(self):\n        self.c = CFG\n\n\n"
    for name, setup in [
        ("a-dict-display", imp + "HOLD = {'k': CFG}\nHOLD['k']['a'] = (5)\n"),
        ("an-instance-kept-in-a-name", holder_h + "inst = H()\ninst.c['a'] = (5)\n"),
        ("a-class-attribute-stored-at-module-level", imp + "class K:\n    pass\n\n\nK.c = CFG\nK.c['a'] = (5)\n"),
        ("a-list-it-was-appended-to", imp + "HOLD = []\nHOLD.append(CFG)\nHOLD[0]['a'] = (5)\n"),
        ("a-function-returning-it-at-module-level", get + "get()['a'] = (5)\n"),
        ("a-function-result-kept-in-a-module-level-name", get + "c = get()\nc['a'] = (5)\n"),
        ("a-generator-yielding-it", imp + "def gen():\n    yield CFG\n\n\nfor c in gen():\n    c['a'] = (5)\n"),
        ("a-display-held-as-a-class-attribute", imp + "class K:\n    c = [CFG]\n\n\nK.c[0]['a'] = (5)\n"),
        ("a-copy-of-a-display", imp + "HOLD = [CFG]\nCOPY = HOLD + []\nCOPY[0]['a'] = (5)\n"),
        ("a-display-handed-to-a-function", imp + "HOLD = [CFG]\n\n\ndef put(d):\n    d[0]['a'] = (5)\n\n\nput(HOLD)\n"),
        ("a-display-method-called-on-its-element", imp + "HOLD = [CFG]\nHOLD[0].update(a=(5))\n"),
        ("a-classmethod-changing-its-class-attribute",
         imp + "class K:\n    c = CFG\n\n    @classmethod\n    def setup(cls):\n        cls.c['a'] = (5)\n\n\nK.setup()\n"),
        ("an-init-changing-its-class-attribute-through-self",
         imp + "class H:\n    c = CFG\n\n    def __init__(self):\n        self.c['a'] = (5)\n\n\nH()\n"),
        ("a-local-display-in-a-def-run-at-load", imp + "def s():\n    h = [CFG]\n    h[0]['a'] = (5)\n\n\ns()\n"),
        ("a-local-list-appended-to-in-a-def-run-at-load",
         imp + "def s():\n    h = []\n    h.append(CFG)\n    h[0]['a'] = (5)\n\n\ns()\n"),
        ("a-namespace-a-call-built", "from types import SimpleNamespace\n" + imp + "NS = SimpleNamespace(c=CFG)\nNS.c['a'] = (5)\n"),
        ("a-global-alias-stored-through-by-another-def",
         imp + "c = None\n\n\ndef s():\n    global c\n    c = CFG\n\n\ndef t():\n    c['a'] = (5)\n\n\ns()\nt()\n"),
    ]:
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.setup"), cfg=cfg, setup=setup)
        pairs.append(C(f"store-into-an-object-through-{name}-edited", k, base, edit(base, "shop/setup.py", "(5)", "(6)")))
    # the holder in another module than the store (``closure._held``: a def's or class's ``$`` chains)
    for name, holder, setup in [
        ("a-class-attribute", imp + "class K:\n    c = CFG\n", "from shop.k import K\n\nK.c['a'] = (5)\n"),
        ("a-class-attribute-in-a-def-run-at-load", imp + "class K:\n    c = CFG\n",
         "from shop.k import K\n\n\ndef s():\n    K.c['a'] = (5)\n\n\ns()\n"),
        ("an-instance-attribute", holder_h, "from shop.k import H\n\nH().c['a'] = (5)\n"),
        ("a-function-returning-it", get, "from shop.k import get\n\nget()['a'] = (5)\n"),
        ("a-display", imp + "HOLD = [CFG]\n", "from shop.k import HOLD\n\nHOLD[0]['a'] = (5)\n"),
    ]:
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.setup"), cfg=cfg, k=holder, setup=setup)
        pairs.append(C(f"store-into-an-object-through-{name}-of-another-module-edited", k, base,
                       edit(base, "shop/setup.py", "(5)", "(6)")))
    # equal: the holder holds something the flow does not reach, or the store is into the holder itself
    for name, setup in [
        ("class-attribute-bound-to-a-fresh-dict", imp + "class K:\n    c = {}\n\n\nK.c['a'] = (5)\n"),
        ("class-holding-the-object-given-another-attribute", imp + "class K:\n    c = CFG\n\n\nK.x = (5)\n"),
        ("display-holding-the-object-its-item-replaced", imp + "HOLD = [CFG]\nHOLD[0] = (5)\n"),
        ("display-holding-an-unreached-object", "from shop.cfg import OTHER\n\nHOLD = [OTHER]\nHOLD[0]['a'] = (5)\n"),
        ("function-returning-a-fresh-dict", imp + "def get():\n    return {}\n\n\nget()['a'] = (5)\n"),
        ("global-a-def-rebinds-to-a-fresh-dict",
         imp + "c = None\n\n\ndef s():\n    global c\n    c = {}\n\n\ns()\nc['a'] = (5)\n"),
        ("instance-attribute-bound-to-a-fresh-dict",
         imp + "class H:\n    def __init__(self):\n        self.c = {}\n\n\nH().c['a'] = (5)\n"),
        ("local-display-holding-the-object-appended-to", imp + "def s():\n    h = [CFG]\n    h.append((5))\n\n\ns()\n"),
        ("function-returning-the-object-only-read", get + "print(get()['a'], (5))\n"),
    ]:
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.setup"), cfg=cfg, setup=setup)
        pairs.append(E(f"{name}-edited", k, base, edit(base, "shop/setup.py", "(5)", "(6)")))
    base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.setup"), cfg=cfg,
                   k="class K:\n    c = {}\n", setup="from shop.k import K\n\nK.c['a'] = (5)\n")
    pairs.append(E("class-attribute-of-another-module-bound-to-a-fresh-dict-edited", k, base,
                   edit(base, "shop/setup.py", "(5)", "(6)")))
    # breaker5's F8 (a documented cost, ``scopes``: aliasing is flow-insensitive): the local no
    # longer stands for the object when it is stored through, yet it counts
    base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.setup"), cfg="CFG = {'a': 1}\n",
                   setup="from shop.cfg import CFG\n\n\ndef s():\n    c = CFG\n    c = {}\n    c['a'] = (5)\n\n\ns()\n")
    pairs.append(E("store-into-a-local-rebound-away-from-the-object-edited", k, base,
                   edit(base, "shop/setup.py", "(5)", "(6)"), "F8"))
    return pairs


PAIRS = PAIRS + tuple(_holder_pairs())


def _search_path_chunk_cases() -> list[ChunkCase]:
    """fixE (session 7), the chunk sides of E9/F9, E10 and L2. A module found through a directory a
    package puts on ``sys.path``/``__path__`` runs in the chunk under the name the import gave it
    (``__name__``, the ``__module__`` of what it defines, a package attribute), its own imports
    through the same directories included; code loaded by path runs from the file (which the
    loader checks: ``test_fp2_import_system``); what a chunk cannot reproduce is refused at build
    time with the file, line and column: one file imported under two names, a submodule read as its
    package's attribute that no module that runs imports."""
    f = "def f():\n    return 1\n"
    vendor = "import os\nimport sys\n\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), 'vendor'))\n"
    site = "import os\nimport site\n\nsite.addsitedir(os.path.join(os.path.dirname(__file__), 'vendor'))\n"
    extra = "import os\n\n__path__ = [os.path.dirname(__file__), os.path.join(os.path.dirname(__file__), 'extra')]\n"
    named = ("class Err(Exception):\n    pass\n\n\ndef f():\n    return 1\n")
    return [
        ChunkCase("module-found-through-a-site-dir-the-package-adds", {
            **project(flow("import helper\nreturn helper.f()"), init=site), "shop/vendor/helper.py": f}, 0),
        ChunkCase("module-found-through-a-package-path-the-package-reassigns", {
            **project(flow("from shop.plug import f\nreturn f()"), init=extra), "shop/extra/plug.py": f}, 0),
        ChunkCase("module-found-through-sys-path-keeps-its-live-names", {
            **project(flow("return helper.__name__, helper.Err.__module__, helper.f.__module__, repr(helper.Err('x'))",
                           "import helper"), init=vendor), "shop/vendor/helper.py": named}, 0),
        ChunkCase("module-found-through-a-package-path-keeps-its-live-names", {
            **project(flow("from shop import plug\nimport shop\nreturn plug.__name__, plug.Err.__module__, shop.plug is plug"),
                      init=extra), "shop/extra/plug.py": named}, 0),
        ChunkCase("module-found-through-sys-path-raises-its-own-error-type", {
            **project(flow("raise helper.Err('no')", "import helper"), init=vendor), "shop/vendor/helper.py": named}, 0),
        ChunkCase("vendored-module-importing-another-vendored-module", {
            **project(flow("import helper\nreturn helper.g()"), init=vendor),
            "shop/vendor/helper.py": "import util\n\n\ndef g():\n    return util.V + 1\n", "shop/vendor/util.py": "V = 41\n"}, 0),
        ChunkCase("vendored-package-with-a-submodule", {
            **project(flow("from vpkg.core import g\nreturn g(), g.__module__"), init=vendor),
            "shop/vendor/vpkg/__init__.py": "", "shop/vendor/vpkg/core.py": "from . import base\n\n\ndef g():\n    return base.V\n",
            "shop/vendor/vpkg/base.py": "V = 7\n"}, 0),
        ChunkCase("a-vendored-file-imported-under-two-names", {
            **project(flow("from shop.vendor import helper as h2\nreturn helper.f(), h2.f(), helper is h2", "import helper"),
                      init=vendor), "shop/vendor/helper.py": f}, 0,
            refused="flow `checkout`: `shop/vendor/helper` is imported as `helper`"),
        ChunkCase("code-executed-from-a-text-file-by-path", {
            **project(flow("return load()", "from shop.load import load"),
                      load="import os\n\n\ndef load():\n    ns = {}\n    exec(open(os.path.join(os.path.dirname(__file__), 'plug.txt'))"
                           ".read(), ns)\n    return ns['V']\n"), "shop/plug.txt": "V = 1\n"}, 0),
        ChunkCase("a-module-run-by-path", project(
            flow("return load()", "from shop.load import load"),
            load="import os\nimport runpy\n\n\ndef load():\n    return runpy.run_path(os.path.join(os.path.dirname(__file__), "
                 "'plug.py'))['V']\n", plug="V = 1\n"), 0),
        # held: a submodule another module imports inside a function the flow calls first
        ChunkCase("submodule-read-as-an-attribute-a-function-the-flow-calls-loaded", project(
            flow("shop.a.load()\nreturn shop.b.f()", "import shop.a"), a="def load():\n    import shop.b\n", b=f), 0),
    ]


CHUNK_CASES = CHUNK_CASES + tuple(_search_path_chunk_cases())
