"""``loom-fp/2`` pairs of the binding model and the closure (issue 12, classes 1-6, 7's decorator
position, 9, 10, 11's step methods), as data: each side is a small first-party package on disk.

A pair is ``before``/``after`` file sets (POSIX path -> text) of a package ``shop``; the flow is
``flow_id`` in ``flow_module``. ``expect`` is ``equal`` (the code hash must not move) or
``changed`` (it must). ``klass`` names the class of issue 12 the pair covers. Every widening rule
has *equal* pairs too, showing it does not fire on ordinary code.

``benchmarks/fingerprint_pairs`` reads this file as data (``compiler_cases``), so ``./dev bench``
judges every scheme on these pairs as well; keep it free of imports beyond the standard library.
"""

from __future__ import annotations

from dataclasses import dataclass, field

PACKAGE = "shop"
FLOW_MODULE = "shop.flows"

HEAD = "from loom_runtime import flow, step\n"

PRICING = """\
RATE = 0.1


def discount(total):
    return total - total * RATE


def unused(total):
    return total
"""


@dataclass(frozen=True)
class ProjectPair:
    name: str
    expect: str  # "equal" | "changed"
    klass: str  # issue 12 class, e.g. "1 lazy imports"
    before: dict[str, str]
    after: dict[str, str]
    flow_id: str = "checkout"
    flow_module: str = FLOW_MODULE
    package: str = PACKAGE
    exclude: tuple[str, ...] = field(default=())


def project(flows: str, **files: str) -> dict[str, str]:
    """``shop/__init__.py``, ``shop/flows.py`` = ``flows``, ``shop/pricing.py`` and ``files``
    (keyword ``a__b`` is the path ``shop/a/b.py``; ``a__init`` is ``shop/a/__init__.py``)."""
    out = {"shop/__init__.py": "", "shop/flows.py": flows, "shop/pricing.py": PRICING}
    for key, text in files.items():
        parts = key.split("__")
        if parts[-1] == "init":
            parts[-1] = "__init__"
        out["shop/" + "/".join(parts) + ".py"] = text
    return out


def edit(files: dict[str, str], path: str, old: str, new: str) -> dict[str, str]:
    text = files[path]
    assert text.count(old) == 1, (path, old)
    return {**files, path: text.replace(old, new)}


def flow_module(body: str, *, head: str = HEAD, defs: str = "", signature: str = "def checkout(ctx, order):",
                decorator: str = '@flow("checkout")') -> str:
    return f"{head}{defs}\n\n{decorator}\n{signature}\n{body}"


def C(name: str, klass: str, before: dict[str, str], after: dict[str, str], **kw: object) -> ProjectPair:
    return ProjectPair(name, "changed", klass, before, after, **kw)  # type: ignore[arg-type]


def E(name: str, klass: str, before: dict[str, str], after: dict[str, str], **kw: object) -> ProjectPair:
    return ProjectPair(name, "equal", klass, before, after, **kw)  # type: ignore[arg-type]


def both(name: str, klass: str, base: dict[str, str], path: str, *, changed: tuple[str, str],
         equal: tuple[str, str], **kw: object) -> list[ProjectPair]:
    """A changed pair (an edit the flow reaches) and its equal dual (an edit beside it)."""
    return [
        C(name, klass, base, edit(base, path, *changed), **kw),
        E(name + "-dual", klass, base, edit(base, path, *equal), **kw),
    ]


PRICING_EDIT = ("return total - total * RATE", "return total - total * RATE * 2")
PRICING_UNUSED = ("    return total\n", "    return total * 3\n")


def _pairs() -> list[ProjectPair]:
    pairs: list[ProjectPair] = []
    add = pairs.extend

    # ------------------------------------------------------------------ 1 lazy imports
    k = "1 lazy imports"
    for name, body in [
        ("lazy-from-import", "    from shop.pricing import discount\n    return discount(order)\n"),
        ("lazy-relative-import", "    from .pricing import discount\n    return discount(order)\n"),
        ("lazy-import-module-chain", "    import shop.pricing\n    return shop.pricing.discount(order)\n"),
        ("lazy-import-as", "    import shop.pricing as p\n    return p.discount(order)\n"),
        ("lazy-from-package-import-module", "    from shop import pricing\n    return pricing.discount(order)\n"),
        ("lazy-import-in-nested-function",
         "    def inner():\n        from shop.pricing import discount\n        return discount(order)\n    return inner()\n"),
        ("lazy-import-then-conditional", "    if order:\n        from shop.pricing import discount\n        return discount(order)\n    return 0\n"),
    ]:
        add(both(name, k, project(flow_module(body)), "shop/pricing.py", changed=PRICING_EDIT, equal=PRICING_UNUSED))
    helper = "def total(order):\n    from shop.pricing import discount\n    return discount(order)\n"
    add(both("lazy-import-in-helper", k, project(flow_module("    return total(order)\n", defs=helper)),
             "shop/pricing.py", changed=PRICING_EDIT, equal=PRICING_UNUSED))
    util = "def total(order):\n    from .pricing import discount\n    return discount(order)\n"
    add(both("lazy-import-in-other-module-helper", k,
             project(flow_module("    return total(order)\n", head=HEAD + "from shop.util import total\n"), util=util),
             "shop/pricing.py", changed=PRICING_EDIT, equal=PRICING_UNUSED))
    temporal = (
        HEAD + "from temporalio import workflow\n\nwith workflow.unsafe.imports_passed_through():\n"
        "    from shop.pricing import discount\n    from shop.other import unrelated\n"
    )
    base = project(flow_module("    return discount(order)\n", head=temporal), other="def unrelated():\n    return 1\n")
    add(both("imports-passed-through-block", k, base, "shop/pricing.py", changed=PRICING_EDIT, equal=PRICING_UNUSED))
    add([E("imports-passed-through-unused-import-added", k, base,
           edit(base, "shop/flows.py", "    from shop.other import unrelated\n",
                "    from shop.other import unrelated\n    from shop.other import more\n")),
         E("imports-passed-through-unused-name-edited", k, base,
           edit(base, "shop/other.py", "return 1", "return 2"))])
    base = project(flow_module("    from shop.pricing import discount\n    return discount(order)\n"))
    add([C("lazy-import-target-changed", k, base, edit(base, "shop/flows.py", "from shop.pricing import", "from shop.fast import"))])
    unreached = "def unreached():\n    from shop.other import thing\n    return thing()\n"
    base = project(flow_module("    return order\n", defs=unreached), other="def thing():\n    return 1\n")
    add([E("lazy-import-in-unreached-function", k, base, edit(base, "shop/other.py", "return 1", "return 2"))])
    method = (
        HEAD + "\n\nclass Checkout:\n    def price(self, order):\n        from shop.pricing import discount\n"
        "        return discount(order)\n\n    @flow(\"checkout\")\n    def run(self, ctx, order):\n        return self.price(order)\n"
    )
    add(both("lazy-import-in-method", k, project(method), "shop/pricing.py", changed=PRICING_EDIT, equal=PRICING_UNUSED))

    # ------------------------------------------------------------------ 2 binding order
    k = "2 binding order"
    other = "def helper(x):\n    return x + 1\n"
    defs = "def helper(x):\n    return x\n\n\nfrom shop.other import helper\n"
    base = project(flow_module("    return helper(order)\n", defs=defs), other=other)
    add([C("def-then-import-later-wins", k, base, edit(base, "shop/other.py", "x + 1", "x + 2"))])
    conf = "LIMIT = 10\n"
    base = project(flow_module("    return order > LIMIT\n", defs="LIMIT = 5\nfrom shop.conf import LIMIT\n"), conf=conf)
    add([C("constant-then-import-later-wins", k, base, edit(base, "shop/conf.py", "10", "11"))])
    stars = HEAD + "from shop.a import *\nfrom shop.b import *\n"
    base = project(flow_module("    return helper(order)\n", head=stars),
                   a="def helper(x):\n    return 'a'\n", b="def helper(x):\n    return 'b'\n\n\ndef other():\n    return 0\n")
    add(both("two-stars-later-wins", k, base, "shop/b.py", changed=("'b'", "'B'"), equal=("return 0", "return 1")))
    base = project(flow_module("    return sqrt(order)\n", head=HEAD + "from math import *\n"))
    add([C("third-party-star-target", k, base, edit(base, "shop/flows.py", "from math import *", "from cmath import *"))])
    util = '__all__ = ["helper"]\n\n\ndef helper(x):\n    return x\n\n\ndef floor(x):\n    return 0\n\n\ndef hidden():\n    return 1\n'
    base = project(flow_module("    return helper(order), floor(order)\n",
                               head=HEAD + "from math import floor\nfrom shop.util import *\n"), util=util)
    add([
        C("first-party-star-exported-edited", k, base, edit(base, "shop/util.py", "    return x\n", "    return -x\n")),
        E("first-party-star-unexported-edited", k, base, edit(base, "shop/util.py", "return 1", "return 2")),
        E("first-party-star-shadowed-not-exported", k, base, edit(base, "shop/util.py", "return 0", "return -1")),
        C("first-party-star-all-grows", k, base, edit(base, "shop/util.py", '["helper"]', '["helper", "floor"]')),
    ])
    util_public = "def helper(x):\n    return x\n\n\ndef _private():\n    return 1\n"
    base = project(flow_module("    return helper(order)\n", head=HEAD + "from shop.util import *\n"), util=util_public)
    add([E("first-party-star-private-name-edited", k, base, edit(base, "shop/util.py", "return 1", "return 2"))])
    setup = "LIMIT = 1\n\n\ndef setup():\n    global LIMIT\n    LIMIT = 2\n\n\nsetup()\n"
    base = project(flow_module("    return order > LIMIT\n", defs=setup))
    add([C("global-write-from-function", k, base, edit(base, "shop/flows.py", "    LIMIT = 2", "    LIMIT = 3"))])
    loop = "for NAME in ['a', 'b']:\n    pass\n"
    base = project(flow_module("    return NAME\n", defs=loop))
    add([C("loop-target-binding", k, base, edit(base, "shop/flows.py", "['a', 'b']", "['a', 'c']"))])
    wth = "import contextlib\n\nwith contextlib.nullcontext(5) as CONF:\n    pass\n"
    base = project(flow_module("    return CONF\n", defs=wth))
    add([C("with-target-binding", k, base, edit(base, "shop/flows.py", "nullcontext(5)", "nullcontext(6)"))])
    base = project(flow_module("    return helper(order)\n", defs="def helper(x):\n    return x\n"))
    add([C("del-binding", k, base, edit(base, "shop/flows.py", "    return x\n", "    return x\n\n\ndel helper\n"))])
    guarded = "try:\n    from shop.fast import f\nexcept ImportError:\n    from shop.slow import f\n"
    base = project(flow_module("    return f(order)\n", defs=guarded), fast="def f(x):\n    return 1\n", slow="def f(x):\n    return 2\n")
    add([C("guarded-import-order-swapped", k, base,
           edit(base, "shop/flows.py", "shop.fast import f\nexcept ImportError:\n    from shop.slow",
                "shop.slow import f\nexcept ImportError:\n    from shop.fast"))])

    # ------------------------------------------------------------------ 3 module statements
    k = "3 module statements"
    base = project(flow_module('    return CFG["a"]\n', defs='CFG = {"a": 1}\nCFG["a"] = 2\nOTHER = {}\nOTHER["b"] = 1\n'))
    add(both("subscript-assignment", k, base, "shop/flows.py", changed=('CFG["a"] = 2', 'CFG["a"] = 3'),
             equal=('OTHER["b"] = 1', 'OTHER["b"] = 2')))
    base = project(flow_module("    return ITEMS\n", defs="ITEMS = [1]\nITEMS.append(2)\nOTHERS = []\nOTHERS.append(1)\n"))
    add(both("method-call-statement", k, base, "shop/flows.py", changed=("ITEMS.append(2)", "ITEMS.append(3)"),
             equal=("OTHERS.append(1)", "OTHERS.append(2)")))
    base = project(flow_module("    return Policy.limit\n", defs="class Policy:\n    limit = 1\n\n\nPolicy.limit = 5\n"))
    add([C("attribute-assignment", k, base, edit(base, "shop/flows.py", "Policy.limit = 5", "Policy.limit = 6"))])
    base = project(flow_module("    return helper()\n", defs="def helper(x=1):\n    return x\n\n\nhelper.__defaults__ = (2,)\n"))
    add([C("defaults-assignment", k, base, edit(base, "shop/flows.py", "(2,)", "(3,)"))])
    conf = "RATE = 1\n\n\ndef configure():\n    global RATE\n    RATE = 2\n"
    base = project(flow_module("    return RATE\n", defs=conf))
    add([C("call-that-sets-a-global", k, base, edit(base, "shop/flows.py", "    RATE = 2\n", "    RATE = 2\n\n\nconfigure()\n"))])
    table = "TABLE = {}\nfor key in ('a', 'b'):\n    TABLE[key] = len(key)\n"
    base = project(flow_module("    return TABLE[order]\n", defs=table))
    add([C("loop-filling-a-table", k, base, edit(base, "shop/flows.py", "('a', 'b')", "('a', 'bc')"))])
    reg = (
        "HANDLERS = {}\n\n\ndef register(fn):\n    HANDLERS[fn.__name__] = fn\n    return fn\n\n\n"
        "@register\ndef pay(x):\n    return x\n"
    )
    base = project(flow_module('    return HANDLERS["pay"](order)\n', defs=reg))
    add([C("registering-decorator-function", k, base, edit(base, "shop/flows.py", "    return x\n", "    return -x\n")),
         C("registering-decorator-added", k, base,
           edit(base, "shop/flows.py", "    return x\n", "    return x\n\n\n@register\ndef refund(x):\n    return 0\n"))])
    reg = (
        "class Registry(dict):\n    def register(self, fn):\n        self[fn.__name__] = fn\n        return fn\n\n\n"
        "REGISTRY = Registry()\nOTHER = Registry()\n\n\n@REGISTRY.register\ndef pay(x):\n    return x\n\n\n"
        "@OTHER.register\ndef other(x):\n    return x\n"
    )
    base = project(flow_module('    return REGISTRY["pay"](order)\n', defs=reg))
    add(both("registering-decorator-method", k, base, "shop/flows.py",
             changed=("def pay(x):\n    return x\n", "def pay(x):\n    return -x\n"),
             equal=("def other(x):\n    return x\n", "def other(x):\n    return -x\n")))
    disp = (
        "import functools\n\n\n@functools.singledispatch\ndef render(x):\n    return 'any'\n\n\n"
        "@render.register(int)\ndef _(x):\n    return 'int'\n"
    )
    base = project(flow_module("    return render(order)\n", defs=disp))
    add([C("singledispatch-register", k, base, edit(base, "shop/flows.py", "return 'int'", "return 'INT'"))])
    base = project(flow_module("    return order\n", defs="print('loaded')\nOTHER = []\nOTHER.append(1)\n"))
    add([E("unrelated-module-statement", k, base, edit(base, "shop/flows.py", "print('loaded')", "print('loaded!')"))])
    dec = "import decimal\n\ndecimal.getcontext().prec = 6\n"
    base = project(flow_module("    return decimal.Decimal(order) / 3\n", defs=dec))
    add([C("third-party-state-set-at-module-level", k, base, edit(base, "shop/flows.py", "prec = 6", "prec = 10"))])
    base = project(flow_module("    return RATES\n", head=HEAD + "from shop.conf import RATES\n"),
                   conf="RATES = {}\nRATES['eu'] = 1\nOTHER = {}\nOTHER['x'] = 1\n")
    add(both("statement-in-imported-module", k, base, "shop/conf.py", changed=("RATES['eu'] = 1", "RATES['eu'] = 2"),
             equal=("OTHER['x'] = 1", "OTHER['x'] = 2")))

    # a registration on a value a third-party call built (a web route on ``app = App()``) is the
    # framework's state, not the flow's; a value built around first-party code stays first-party
    web = (
        "from webframework import App\n\napp = App()\n\n\n@app.route('/')\ndef page():\n    return 'page'\n\n\n"
        "def helper(x):\n    return x\n"
    )
    base = project(flow_module("    return app.name, helper(order)\n", defs=web))
    add([E("route-on-a-third-party-built-value", k, base, edit(base, "shop/flows.py", "return 'page'", "return 'PAGE'")),
         C("route-on-a-third-party-built-value-dual", k, base, edit(base, "shop/flows.py", "    return x\n", "    return -x\n"))])
    disp = (
        "import functools\n\n\ndef _render(x):\n    return 'any'\n\n\nrender = functools.singledispatch(_render)\n\n\n"
        "@render.register(int)\ndef _(x):\n    return 'int'\n"
    )
    base = project(flow_module("    return render(order)\n", defs=disp))
    add([C("singledispatch-built-by-a-call-stays-first-party", k, base, edit(base, "shop/flows.py", "return 'int'", "return 'INT'"))])
    # a main block runs when a worker is started as a script (lead, B26): judged per inner
    # statement, its ``grow()`` belongs to ITEMS, its ``print('started')`` to nothing
    main = "ITEMS = [1]\n\n\ndef grow():\n    ITEMS.append(2)\n\n\nif __name__ == '__main__':\n    grow()\n    print('started')\n"
    base = project(flow_module("    return ITEMS\n", defs=main))
    add([E("main-block-statement-that-changes-nothing-the-flow-reads", k, base,
           edit(base, "shop/flows.py", "print('started')", "print('running')")),
         C("main-block-call-changes-what-the-flow-reads", k, base, edit(base, "shop/flows.py", "append(2)", "append(3)")),
         C("main-block-guard-flipped", k, base, edit(base, "shop/flows.py", "__name__ == '__main__'", "__name__ != '__main__'"))])

    # importing a first-party module runs it: what it changes in another module's objects is in
    # the closure of every flow that reaches those objects and runs that import
    reg = "HANDLERS = {}\n\n\ndef register(k):\n    def d(f):\n        HANDLERS[k] = f\n        return f\n    return d\n"
    plugins = "from shop.reg import register\n\n\n@register('a')\ndef a(x):\n    return x + 1\n"
    base = project(flow_module("    return HANDLERS['a'](order)\n", head=HEAD + "from shop.reg import HANDLERS\nimport shop.plugins\n"),
                   reg=reg, plugins=plugins, unused="from shop.reg import register\n\n\n@register('b')\ndef b(x):\n    return x\n")
    add([C("registration-by-an-imported-module", k, base, edit(base, "shop/plugins.py", "x + 1", "x + 2")),
         E("registration-by-a-module-nothing-imports", k, base, edit(base, "shop/unused.py", "return x", "return -x"))])
    patch = "from shop import cfg, other\n\ncfg.LIMIT = 5\nother.X = 1\n"
    base = project(flow_module("    import shop.patch\n    return cfg.LIMIT\n", head=HEAD + "from shop import cfg\n"),
                   cfg="LIMIT = 1\n", other="X = 0\n", patch=patch)
    add(both("attribute-set-by-a-lazily-imported-module", k, base, "shop/patch.py", changed=("LIMIT = 5", "LIMIT = 6"),
             equal=("X = 1", "X = 2")))

    # ------------------------------------------------------------------ 4 dynamic reach
    k = "4 dynamic reach"
    defs = "def helper(x):\n    return x\n\n\ndef other(x):\n    return 0\n"
    base = project(flow_module("    return globals()[order](1)\n", defs=defs))
    add([C("globals-subscript", k, base, edit(base, "shop/flows.py", "return 0", "return 1"))])
    base = project(flow_module("    return getattr(sys.modules[__name__], order)(1)\n", defs=defs, head=HEAD + "import sys\n"))
    add([C("sys-modules-getattr", k, base, edit(base, "shop/flows.py", "return 0", "return 1"))])
    base = project(flow_module("    return vars(pricing)[order](1)\n", head=HEAD + "from shop import pricing\n"))
    add([C("vars-of-a-module", k, base, edit(base, "shop/pricing.py", *PRICING_UNUSED))])
    base = project(flow_module("    x = 1\n    return vars()[order]\n", defs=defs))
    add([E("vars-of-the-function-is-its-locals", k, base, edit(base, "shop/flows.py", "return 0", "return 1"))])
    base = project(flow_module("    return eval(order)\n", defs=defs))
    add([C("eval", k, base, edit(base, "shop/flows.py", "return 0", "return 1"))])
    base = project(flow_module("    return getattr(pricing, order)(1)\n", head=HEAD + "from shop import pricing\n"))
    add([C("getattr-module-non-literal", k, base, edit(base, "shop/pricing.py", *PRICING_UNUSED))])
    base = project(flow_module('    return getattr(pricing, "discount")(1)\n', head=HEAD + "from shop import pricing\n"))
    add(both("getattr-literal-is-precise", k, base, "shop/pricing.py", changed=PRICING_EDIT, equal=PRICING_UNUSED))
    base = project(flow_module("    return getattr(order, order.key)\n", defs=defs))
    add([E("getattr-on-a-local-object-does-not-widen", k, base, edit(base, "shop/flows.py", "return 0", "return 1"))])
    lazy = (
        "def __getattr__(name):\n    if name == 'thing':\n        return 1\n    raise AttributeError(name)\n\n\n"
        "def unrelated():\n    return 0\n"
    )
    base = project(flow_module("    return thing\n", head=HEAD + "from shop.lazy import thing\n"), lazy=lazy)
    add([C("pep562-module-getattr", k, base, edit(base, "shop/lazy.py", "return 1", "return 2"))])
    base = project(flow_module("    return real\n", head=HEAD + "from shop.lazy import real\n"),
                   lazy=lazy + "\n\nreal = 5\n")
    add([E("pep562-not-used-for-a-bound-name", k, base, edit(base, "shop/lazy.py", "return 1", "return 2"))])
    gset = 'globals()["LIMIT"] = 5\n'
    base = project(flow_module("    return order > LIMIT\n", defs=gset))
    add([C("module-level-globals-store", k, base, edit(base, "shop/flows.py", "= 5", "= 6"))])
    h = "import sys\n\nV = 1\n\n\ndef unreached():\n    return sys.modules[__name__]\n"
    base = project(flow_module("    return h.V\n", head=HEAD + "from shop import h\n"), h=h)
    add([C("sys-modules-own-module-attribute-set", k, base, edit(base, "shop/h.py", "V = 1\n", "V = 1\nsys.modules[__name__].V = 2\n")),
         E("sys-modules-read-in-an-unreached-function", k, base, edit(base, "shop/h.py", "sys.modules[__name__]", "sys.modules[__name__].V"))])
    base = project(flow_module("    return 1\n"),
                   other="def f(name):\n    return globals()[name]\n\n\ndef g():\n    return 0\n")
    add([E("globals-in-unreached-module", k, base, edit(base, "shop/other.py", "return 0", "return 1"))])
    base = project(flow_module('    return importlib.import_module("shop.pricing").discount(1)\n', head=HEAD + "import importlib\n"))
    add([C("import-module-literal", k, base, edit(base, "shop/pricing.py", *PRICING_EDIT))])
    method = (
        HEAD + "\n\nclass Checkout:\n    def pay(self, x):\n        return x\n\n    def refund(self, x):\n        return 0\n\n"
        "    @flow(\"checkout\")\n    def run(self, ctx, order):\n        return {call}\n"
    )
    base = project(method.format(call="getattr(self, order)(1)"))
    add([C("getattr-self-non-literal", k, base, edit(base, "shop/flows.py", "return 0", "return 1"))])
    base = project(method.format(call='getattr(self, "pay")(1)'))
    add(both("getattr-self-literal-is-precise", k, base, "shop/flows.py",
             changed=("return x\n", "return -x\n"), equal=("return 0", "return 1")))

    # ------------------------------------------------------------------ 5 method flows
    k = "5 method flows"

    def cls(body: str, extra: str = "", tail: str = "") -> dict[str, str]:
        text = (
            HEAD + extra + "\n\nclass Checkout:\n    LIMIT = 1\n\n" + body
            + "\n    def unrelated(self):\n        return 0\n\n"
            "    @flow(\"checkout\", version=1)\n    def run(self, ctx, order):\n        return {call}\n" + tail
        )
        return {"shop/__init__.py": "", "shop/flows.py": text}

    for name, call in [("type-self", "type(self).LIMIT"), ("self-class", "self.__class__.LIMIT")]:
        base = cls("")
        base = {**base, "shop/flows.py": base["shop/flows.py"].replace("{call}", call)}
        add(both(name, k, base, "shop/flows.py", changed=("LIMIT = 1", "LIMIT = 2"), equal=("return 0", "return 1")))
    base = cls("    def _get_limit(self):\n        return 1\n\n    limit = property(_get_limit)\n")
    base = {**base, "shop/flows.py": base["shop/flows.py"].replace("{call}", "self.limit")}
    add(both("property-of-class-function", k, base, "shop/flows.py", changed=("return 1\n", "return 2\n"), equal=("return 0", "return 1")))
    base = cls("    check = _check_impl\n", extra="\n\ndef _check_impl(self, x):\n    return x\n")
    base = {**base, "shop/flows.py": base["shop/flows.py"].replace("{call}", "self.check(order)")}
    add([C("class-attribute-aliasing-a-function", k, base, edit(base, "shop/flows.py", "    return x\n", "    return -x\n"))])
    # the aliased function defined in the class body itself: a class-scope name, not a global
    base = cls("    def _check_impl(self, x):\n        return x\n\n    check = _check_impl\n")
    base = {**base, "shop/flows.py": base["shop/flows.py"].replace("{call}", "self.check(order)")}
    add(both("class-attribute-aliasing-a-class-body-function", k, base, "shop/flows.py",
             changed=("        return x\n", "        return -x\n"), equal=("return 0", "return 1")))
    base = cls("    def __getattr__(self, name):\n        return 1\n")
    base = {**base, "shop/flows.py": base["shop/flows.py"].replace("{call}", "self.missing")}
    add([C("dunder-getattr", k, base, edit(base, "shop/flows.py", "return 1\n", "return 2\n"))])
    base = cls("", tail="\n\nCheckout.LIMIT = 5\n")
    base = {**base, "shop/flows.py": base["shop/flows.py"].replace("{call}", "self.LIMIT")}
    add([C("class-attribute-set-at-module-level", k, base, edit(base, "shop/flows.py", "Checkout.LIMIT = 5", "Checkout.LIMIT = 6"))])
    base = cls("")
    base = {**base, "shop/flows.py": base["shop/flows.py"].replace("{call}", "helper(self)")}
    base = edit(base, "shop/flows.py", "\n\nclass Checkout", "\n\ndef helper(obj):\n    return obj.unrelated()\n\n\nclass Checkout")
    add([C("self-passed-on-widens-to-the-class", k, base, edit(base, "shop/flows.py", "return 0", "return 1"))])

    # ------------------------------------------------------------------ 6 module lookup
    k = "6 module lookup"
    base = project(flow_module("    return discount(order)\n", head=HEAD + "from shop.pricing import discount\n"))
    base = {**base, "shop/pricing/__init__.py": "def discount(total):\n    return total * 0.5\n"}
    add([C("package-wins-over-module", k, base, edit(base, "shop/pricing/__init__.py", "0.5", "0.6")),
         E("module-shadowed-by-package", k, base, edit(base, "shop/pricing.py", *PRICING_EDIT))])
    for sub in ("venv", "build", "dist", ".hidden_not"):
        if sub.startswith("."):
            continue
        base = project(flow_module("    return helper(order)\n", head=HEAD + f"from shop.{sub}.helpers import helper\n"))
        base = {**base, f"shop/{sub}/__init__.py": "", f"shop/{sub}/helpers.py": "def helper(x):\n    return x\n"}
        add([C(f"first-party-subpackage-named-{sub}", k, base, edit(base, f"shop/{sub}/helpers.py", "return x", "return -x"))])
    # a namespace subpackage (no __init__.py) called build: Python imports it all the same
    base = project(flow_module("    return helper(order)\n", head=HEAD + "from shop.build.helpers import helper\n"))
    base = {**base, "shop/build/helpers.py": "def helper(x):\n    return x\n"}
    add([C("first-party-namespace-subpackage-named-build", k, base, edit(base, "shop/build/helpers.py", "return x", "return -x"))])
    base = project(flow_module("    return helper(order)\n", head=HEAD + "from shop.gen.helpers import helper\n"))
    base = {**base, "shop/gen/__init__.py": "", "shop/gen/helpers.py": "def helper(x):\n    return x\n"}
    add([C("exclude-does-not-stop-the-closure", k, base, edit(base, "shop/gen/helpers.py", "return x", "return -x"),
           exclude=("shop/gen",))])

    # ------------------------------------------------------------------ 7 decorator position
    k = "7 decorator position"
    wrap = "def wrap(fn):\n    return fn\n"
    base = project(flow_module("    return order\n", defs=wrap, decorator='@wrap\n@flow("checkout")'))
    add([C("flow-decorator-moved-below-another", k, base,
           edit(base, "shop/flows.py", '@wrap\n@flow("checkout")', '@flow("checkout")\n@wrap'))])

    # ------------------------------------------------------------------ 9 local annotations
    k = "9 local annotations"
    base = project(flow_module("    xs = [order]\n    return xs\n", head=HEAD + "from typing import List\n"))
    add([E("local-annotation-added", k, base, edit(base, "shop/flows.py", "    xs = [order]", "    xs: List[int] = [order]"))])
    models = "class Basket:\n    size = 1\n"
    base = project(flow_module("    b: Basket = make(order)\n    return b\n",
                               head=HEAD + "from shop.models import Basket\nfrom shop.pricing import discount as make\n"),
                   models=models)
    add([E("class-only-in-local-annotation-edited", k, base, edit(base, "shop/models.py", "size = 1", "size = 2"))])
    base = project(flow_module("    return order\n", head=HEAD + "from shop.models import Basket\n",
                               signature="def checkout(ctx, order: Basket):"), models=models)
    add([C("class-in-parameter-annotation-edited", k, base, edit(base, "shop/models.py", "size = 1", "size = 2"))])
    base = project(flow_module("    def inner(x: Basket) -> int:\n        return x\n    return inner(order)\n",
                               head=HEAD + "from shop.models import Basket\n"), models=models)
    add([C("class-in-nested-signature-edited", k, base, edit(base, "shop/models.py", "size = 1", "size = 2"))])

    # ------------------------------------------------------------------ 10 flow decorator arguments
    k = "10 flow decorator arguments"
    for name, call in [("own-class-attribute", "Checkout.LIMIT"), ("super-with-own-class", "super(Checkout, self).__init__()")]:
        base = cls("")
        base = {**base, "shop/flows.py": base["shop/flows.py"].replace("{call}", call)}
        add([E(f"{name}-version-bumped", k, base, edit(base, "shop/flows.py", "version=1", "version=2")),
             E(f"{name}-compatible-with-added", k, base,
               edit(base, "shop/flows.py", "version=1", 'version=1, compatible_with=["sha256:' + "a" * 64 + '"]')),
             E(f"{name}-code-fingerprint-added", k, base,
               edit(base, "shop/flows.py", "version=1", 'version=1, code_fingerprint="sha256:' + "b" * 64 + '"')),
             C(f"{name}-class-edited", k, base, edit(base, "shop/flows.py", "LIMIT = 1", "LIMIT = 2"))])
    base = project(flow_module("    return globals()[order]\n", decorator='@flow("checkout", version=1)'))
    add([E("whole-module-widening-version-bumped", k, base, edit(base, "shop/flows.py", "version=1", "version=2"))])
    two = flow_module("    return refund(ctx, order)\n", defs='\n\n@flow("refund", version=1)\ndef refund(ctx, order):\n    return 0\n')
    base = project(two)
    add([E("other-flow-reached-version-bumped", k, base, edit(base, "shop/flows.py", '"refund", version=1', '"refund", version=2')),
         C("other-flow-reached-body-edited", k, base, edit(base, "shop/flows.py", "return 0", "return 1"))])

    # ------------------------------------------------------------------ 11 step methods
    k = "11 step methods"
    steps = (
        HEAD + "\n\nclass Checkout:\n    @step\n    def charge(self, x):\n        return x\n\n"
        "    @flow(\"checkout\")\n    def run(self, ctx, order):\n        return ctx.execute(\"charge\", self.charge, order)\n"
    )
    base = project(steps)
    add([E("step-method-body-edited", k, base, edit(base, "shop/flows.py", "        return x\n", "        return x * 100\n")),
         C("step-method-renamed", k, base, edit(edit(base, "shop/flows.py", "def charge(", "def charge2("),
                                                "shop/flows.py", "self.charge,", "self.charge2,"))])
    return pairs


PAIRS: tuple[ProjectPair, ...] = tuple(_pairs())
