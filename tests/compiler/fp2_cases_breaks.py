"""``loom-fp/2`` pairs and chunk cases of breakS (session 10, the team's attacker): findings S1-S15
of ``fp2_cases_breaks_findings.md`` (beside this file), in the format of ``fp2_cases_adversarial``
(whose harnesses run them: ``test_fp2_breaks``).

* S1: builtins patched through a method of their namespace, ``builtins.__dict__.update(oct=f)``
  (at load or in a def run at load): it counted as the one builtin ``__dict__``;
* S2: a module rebinding ``__builtins__`` (its defs look builtins up there when defined);
* S3: a stdlib resolver that takes no relative name (``pkgutil.resolve_name``, ``pydoc.locate``,
  ``runpy.run_module``) given a literal naming a bundled module: the chunk imported the live one;
* S4: an import guarded by ``try``/``except`` (``try: from shop.c import g as f`` / ``except
  ImportError: def f()``): which binding holds depends on every statement of the imported module;
* S5: a package object read by code the closure cannot follow (``operator.attrgetter("m.RATE")
  (shop)``, a computed ``getattr``, a helper given the package): its submodules are not reached;
* S6: ``importlib.reload`` of a bundled module in a chunk;
* S7: a first-party dunder (``__getitem__``, a property, ``__eq__``, ``__enter__``, a metaclass's
  ``__getitem__``) run by an operator in a module-level statement that binds nothing;
* S8: another first-party module's global set through an alias of the module (``u = util`` then
  ``u.H = CFG``) or a container holding it (``[util][0].H = CFG``);
* S9: a first-party file loaded by ``imp.load_source`` (Python <= 3.11): it was not followed;
* S10: ``pkgutil.get_data("shop", ...)``, ``importlib.resources.files("shop")`` in a chunk: they
  import the live package to find its files;
* S11 (a false change, a cost): the order of the names of one ``from`` import (what ``isort`` and
  ``ruff --select I`` rewrite) moves the hash when that statement is hashed as a member (a name
  it binds is used at load, or in an ``if __name__ == "__main__":`` block): prefect-recipes'
  declarative-graph-orchestrator, 2 flows;
* S13: a def or class of the module handed to a call made at load (``run(hook)`` with ``def
  run(f): f()``, ``list(map(hook, xs))``, ``sorted(xs, key=hook)``, ``json.loads(s,
  object_hook=hook)``, ``functools.reduce``, ``weakref.finalize``, a first-party base given to
  ``dataclasses.make_dataclass``): the callee may call it at once, and what its code changes did
  not count (the chunk left the statement out). S12, a class made by a third-party call with a
  first-party base, is this case;
* S14: a creation hook bound in a class body by an assignment (``__init_subclass__ =
  classmethod(hook)``, ``__set_name__ = sn``) rather than a def: the class counted as inert;
* S15: an importer reached as a value at load (``getattr(importlib, 'import_module')('shop.x')``,
  ``__builtins__['__import__']('shop.x')``): neither hashed nor run by the chunk (fixX2's exec/eval
  reached as a value is the sibling); and ``types.FunctionType(compile('import shop.x', ...), {})()``:
  hashed, but the chunk does not run it (fixX's K4-unbundled).

Each pair was run live on both sides in a fresh interpreter (a changed pair's flow result
differs; an equal pair's does not). Pairs and chunk cases with a ``finding`` are the open ones
(strict xfails, ``OPEN``); the others failed on main fa7ac45 and are fixed, or are guards.
Keep this file free of imports beyond the standard library and the case module
(``benchmarks/fingerprint_pairs`` reads ``PAIRS``).
"""

from __future__ import annotations

from dataclasses import replace

from fp2_cases_adversarial import C, E, ChunkCase, ProjectPair, edit, flow, project

_CFG = "CFG = {'a': 1}\n"
_G = "def g():\n    return 1\n"
_TRY = "try:\n    from shop.c import g as f\nexcept ImportError:\n    def f():\n        return 2\n"
_RAISES = _G + "\n\nif (0):\n    raise ImportError('no')\n"
_GETITEM = "class L:\n    def __getitem__(self, k):\n        CFG['a'] = 5\n"
_ITER = "class L:\n    def __iter__(self):\n        CFG['a'] = 5\n        return iter(())\n"


def _pairs() -> list[ProjectPair]:
    pairs: list[ProjectPair] = []
    add = pairs.append

    # S1: the builtins namespace changed through one of its methods
    k = "builtins patched through their namespace"
    for name, patch in [
        ("s1-builtins-dict-update", "import builtins\n\nbuiltins.__dict__.update(oct=lambda x: (5))\n"),
        ("s1-builtins-dict-update-in-a-def-run-at-load",
         "import builtins\n\n\ndef boot():\n    builtins.__dict__.update(oct=lambda x: (5))\n\n\nboot()\n"),
    ]:
        base = project(flow("return oct(o)", "import shop.patch"), patch=patch)
        add(C(name, k, base, edit(base, "shop/patch.py", "(5)", "(6)")))

    # S2: a module's own builtins namespace rebound
    k = "a module rebinding __builtins__"
    for name, h in [
        ("s2-a-helper-module-rebinding-builtins", "__builtins__ = {**__builtins__, 'oct': lambda x: (5)}\n\n\n"
                                                  "def f(o):\n    return oct(o)\n"),
        ("s2-a-helper-module-rebinding-builtins-by-global",
         "def setup():\n    global __builtins__\n    __builtins__ = {**__builtins__, 'oct': lambda x: (5)}\n\n\n"
         "setup()\n\n\ndef f(o):\n    return oct(o)\n"),
        ("s2-a-helper-module-importing-its-builtins", "from shop.b import B as __builtins__\n\n\ndef f(o):\n    return oct(o)\n"),
    ]:
        base = project(flow("return h.f(o)", "from shop import h"), h=h,
                       b="import builtins\n\nB = {**vars(builtins), 'oct': lambda x: (5)}\n")
        where = "shop/b.py" if "importing" in name else "shop/h.py"
        add(C(name, k, base, edit(base, where, "(5)", "(6)")))
    base = project(flow("return oct(o)", "__builtins__ = {**__builtins__, 'oct': lambda x: (5)}\n"))
    add(C("s2-the-flows-module-rebinding-builtins", k, base, edit(base, "shop/flows.py", "(5)", "(6)")))
    base = project(flow("return h.f(o)", "from shop import h"),
                   h="__builtins__ = {**__builtins__, 'oct': lambda x: (5)}\n\n\ndef f(o):\n    return o + 1\n")
    add(E("s2-a-module-rebinding-builtins-its-code-does-not-read", k, base, edit(base, "shop/h.py", "(5)", "(6)")))

    # S4: an import guarded by try/except: which binding holds depends on the module running
    k = "an import guarded by try/except"
    for name, m, c, old, new in [
        ("s4-a-fallback-def-when-the-module-imports-a-missing-module", _TRY, "import json as _j\n\n\n" + _G,
         "json as", "no_such_module_zz as"),
        ("s4-a-fallback-def-when-the-module-raises", _TRY, _RAISES, "(0)", "(1)"),
        ("s4-a-fallback-def-under-an-if", "import sys\n\nif sys:\n" + "".join("    " + line + "\n" for line in _TRY.splitlines()),
         _RAISES, "(0)", "(1)"),
        ("s4-a-guarded-import-in-a-def", "def f():\n    try:\n        from shop.c import g\n        return g()\n"
                                         "    except ImportError:\n        return 2\n", _RAISES, "(0)", "(1)"),
        ("s4-a-flag-set-after-a-guarded-import", "try:\n    import shop.c\n    F = 1\nexcept Exception:\n    F = 2\n\n\n"
                                                 "def f():\n    return F\n", "if (0):\n    raise RuntimeError('no')\n", "(0)", "(1)"),
        # the module the guarded one imports raises (held since S5: the guarded import reaches its
        # package ``shop`` whole, and so every submodule under it)
        ("s4-a-fallback-def-when-a-module-the-guarded-one-imports-raises", _TRY, "import shop.d\n\n\n" + _G, None, None),
    ]:
        base = project(flow("return f()", "from shop.m import f"), m=m, c=c, d="if (0):\n    raise ImportError('no')\n")
        after = edit(base, "shop/d.py", "(0)", "(1)") if old is None else edit(base, "shop/c.py", old, new)
        add(C(name, k, base, after))
    base = project(flow("return f()", _TRY), c=_RAISES)
    add(C("s4-a-fallback-def-in-the-flows-module", k, base, edit(base, "shop/c.py", "(0)", "(1)")))
    base = project(flow("return f()", "from shop.m import f"), m=_TRY, c=_RAISES)
    add(E("s4-a-comment-in-the-guarded-module", k, base, edit(base, "shop/c.py", "if (0):", "if (0):  # a comment")))
    base = project(flow("return f()", "from shop.m import f"),
                   m="try:\n    from shop.c import g as f\nfinally:\n    pass\n", c=_G + "\n\nX = (0)\n")
    add(E("s4-an-import-under-try-finally-without-a-handler", k, base, edit(base, "shop/c.py", "(0)", "(1)")))

    # S5: a package object read by code the closure does not follow
    k = "a package object read dynamically"
    for name, body, head in [
        ("s5-attrgetter-of-a-dotted-literal-on-a-package", "return operator.attrgetter('m.RATE')(shop)", "import operator\nimport shop.m"),
        ("s5-a-computed-getattr-on-a-package", "return getattr(shop, N).RATE", "import shop.m\n\nN = 'm'"),
        ("s5-a-package-handed-to-a-helper", "return h.get(shop)", "import shop.m\nfrom shop import h"),
    ]:
        base = project(flow(body, head), m="RATE = (3)\n", h="def get(p):\n    return p.m.RATE\n")
        add(C(name, k, base, edit(base, "shop/m.py", "(3)", "(4)")))
    # the widening does not fire: a submodule read through a chain spelled on the package, or
    # imported by name; an edit of a submodule the flow does not reach
    for name, body, head in [("s5-a-submodule-read-through-a-dotted-chain", "return shop.m.RATE", "import shop.m"),
                             ("s5-a-submodule-imported-by-name", "return m.RATE", "from shop import m"),
                             ("s5-a-package-attribute-read-by-a-literal-getattr", "return getattr(shop, 'm').RATE", "import shop.m")]:
        base = project(flow(body, head), m="RATE = 3\n", other="X = (1)\n")
        add(E(name, k, base, edit(base, "shop/other.py", "(1)", "(2)")))

    # S7: a first-party dunder run by an operator at load; the edit removes the operator
    k = "a dunder run by an operator at load"
    for name, cls, stmt, plain in [
        ("s7-an-instance-subscripted", "class L:\n    def __getitem__(self, k):\n        CFG['a'] = 5\n", "OBJ[1]", "OBJ"),
        ("s7-a-property-of-an-instance-read", "class L:\n    @property\n    def p(self):\n        CFG['a'] = 5\n", "OBJ.p", "OBJ"),
        ("s7-an-instance-compared", "class L:\n    def __eq__(self, o):\n        CFG['a'] = 5\n        return True\n",
         "OBJ == 1", "OBJ"),
        ("s7-an-instance-entered", "class L:\n    def __enter__(self):\n        CFG['a'] = 5\n\n    def __exit__(self, *a):\n"
                                   "        pass\n", "with OBJ:\n    pass", "OBJ"),
        ("s7-an-instance-subscripted-in-a-binding", _GETITEM, "X = OBJ[1]", "X = OBJ"),
        ("s7-an-instance-added", "class L:\n    def __add__(self, o):\n        CFG['a'] = 5\n", "OBJ + 1", "OBJ"),
        ("s7-an-instance-iterated", _ITER, "for _ in OBJ:\n    pass", "OBJ"),
        ("s7-an-instance-unpacked-in-a-display", _ITER, "[*OBJ]", "OBJ"),
        ("s7-an-instance-truth-tested", "class L:\n    def __bool__(self):\n        CFG['a'] = 5\n        return True\n",
         "if OBJ:\n    pass", "OBJ"),
        ("s7-an-instance-handed-to-a-builtin", "class L:\n    def __len__(self):\n        CFG['a'] = 5\n        return 0\n",
         "len(OBJ)", "OBJ"),
        ("s7-an-instance-in-an-f-string", "class L:\n    def __format__(self, spec):\n        CFG['a'] = 5\n        return ''\n",
         "f'{OBJ}'", "OBJ"),
    ]:
        m = f"from shop.cfg import CFG\n\n\n{cls}\n\nOBJ = L()\n{stmt}\n"
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.m"), cfg=_CFG, m=m)
        add(C(name, k, base, edit(base, "shop/m.py", f"\n{stmt}\n", f"\n{plain}\n")))
    m = ("from shop.cfg import CFG\n\n\nclass Meta(type):\n    def __getitem__(cls, k):\n        CFG['a'] = 5\n\n\n"
         "class L(metaclass=Meta):\n    pass\n\n\nL[int]\n")
    base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.m"), cfg=_CFG, m=m)
    add(C("s7-a-class-subscripted-through-its-metaclass", k, base, edit(base, "shop/m.py", "\nL[int]\n", "\nL\n")))
    for name, code, stmt, plain in [
        ("s7-a-class-attribute-read-through-its-metaclass", "class Meta(type):\n    def __getattr__(cls, k):\n"
         "        CFG['a'] = 5\n\n\nclass L(metaclass=Meta):\n    pass\n", "L.zz", "L"),
        ("s7-a-class-getitem-bound-by-an-assignment", "def gi(cls, k):\n    CFG['a'] = 5\n\n\nclass L:\n"
         "    __class_getitem__ = classmethod(gi)\n", "L[int]", "L"),
        ("s7-a-defaultdict-with-a-first-party-factory-subscripted", "import collections\n\n\ndef hook():\n"
         "    CFG['a'] = 5\n\n\nL = collections.defaultdict(hook)\n", "L['x']", "L"),
    ]:
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.m"), cfg=_CFG,
                       m=f"from shop.cfg import CFG\n{code}\n\n{stmt}\n")
        add(C(name, k, base, edit(base, "shop/m.py", f"\n{stmt}\n", f"\n{plain}\n")))
    # an instance imported from another module (what it is, is that module's binding: ``closure``)
    base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.m"), cfg=_CFG, m="from shop.o import OBJ\n\nOBJ[1]\n",
                   o=f"from shop.cfg import CFG\n\n\n{_GETITEM}\n\nOBJ = L()\n")
    add(C("s7-an-imported-instance-subscripted", k, base, edit(base, "shop/m.py", "\nOBJ[1]\n", "\nOBJ\n")))
    base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.m"), cfg=_CFG, m="from shop.o import OBJ\n\nOBJ.p\n",
                   o="from shop.cfg import CFG\n\n\nclass L:\n    @property\n    def p(self):\n        CFG['a'] = 5\n\n\nOBJ = L()\n")
    add(C("s7-a-property-of-an-imported-instance-read", k, base, edit(base, "shop/m.py", "\nOBJ.p\n", "\nOBJ\n")))
    # equal: an imported dict subscripted, an imported instance of a class defining no operator read
    for name, m, o, old, new in [
        ("s7-an-imported-dict-subscripted", "from shop.cfg import CFG\n\nCFG['a']\n", "", "CFG['a']", "CFG['a'] == 1"),
        ("s7-an-imported-instance-of-a-class-defining-no-operator-read", "from shop.o import OBJ\n\nOBJ.x\n",
         "from shop.cfg import CFG\n\n\nclass L:\n    def __init__(self):\n        self.x = self.y = 1\n\n"
         "    def poke(self):\n        CFG['a'] = 5\n\n\nOBJ = L()\n", "OBJ.x", "OBJ.y"),
    ]:
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.m"), cfg=_CFG, m=m, o=o)
        add(E(name, k, base, edit(base, "shop/m.py", old, new)))
    # equal: what a builtin container, a third-party object, a class with no first-party
    # metaclass or a module runs for an operator is no first-party code (the statement is no part of it)
    for name, m, old, new in [
        ("s7-a-dict-display-subscripted", "D = {'b': 1, 'c': 2}\nD['b']\n", "\nD['b']\n", "\nD['c']\n"),
        ("s7-a-list-display-subscripted", "D = [1, 2]\nD[0] + D[1]\n", "D[0] + D[1]", "D[1] + D[0]"),
        ("s7-a-third-party-object-subscripted", "import collections\n\nD = collections.OrderedDict(b=1, c=2)\nD['b']\n",
         "\nD['b']\n", "\nD['c']\n"),
        ("s7-a-plain-class-attribute-read", "from shop.cfg import CFG\n\n\nclass D:\n    b = 1\n    c = 2\n\n"
         "    def reset(self):\n        CFG['a'] = 0\n\n\nD.b\n", "\nD.b\n", "\nD.c\n"),
        ("s7-a-module-attribute-read", "import shop.cfg\n\nD = shop.cfg.CFG\nshop.cfg.X\n", "\nshop.cfg.X\n", "\nshop.cfg.Y\n"),
    ]:
        base = project(flow("return (m.D is not None, CFG['a'])", "from shop import m\nfrom shop.cfg import CFG"),
                       cfg=_CFG + "X = Y = 1\n", m=m)
        add(E(name, k, base, edit(base, "shop/m.py", old, new)))

    # S8: another module's global set through an alias or a container of the module
    k = "another module's global set through an alias of it"
    for name, store in [("s8-through-a-module-level-alias", "u = util\nu.H = CFG\n"),
                        ("s8-through-a-list-holding-the-module", "[util][0].H = CFG\n"),
                        ("s8-through-a-dict-holding-the-module", "{'u': util}['u'].H = CFG\n"),
                        ("s8-through-a-chain-of-aliases", "u = util\nv = u\nv.H = CFG\n")]:
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.setup"), cfg=_CFG,
                       util="H = None\n\n\ndef poke():\n    H['a'] = (5)\n",
                       setup="from shop.cfg import CFG\nfrom shop import util\n\n" + store + "util.poke()\n")
        add(C(name, k, base, edit(base, "shop/util.py", "(5)", "(6)")))
    # the widening does not fire: what is stored through the alias or display is no object the flow reads
    for name, store in [("s8-an-alias-of-a-module-storing-what-the-flow-does-not-read", "u = util\nu.H = OTHER\n"),
                        ("s8-a-list-holding-a-module-storing-what-the-flow-does-not-read", "[util][0].H = OTHER\n")]:
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.setup"), cfg=_CFG,
                       util="H = None\n\n\ndef poke():\n    H['a'] = (5)\n",
                       setup="from shop import util\n\nOTHER = {}\n" + store + "util.poke()\n")
        add(E(name, k, base, edit(base, "shop/util.py", "(5)", "(6)")))

    # S9: a first-party file loaded by ``imp.load_source``
    base = project(flow("return imp.load_source('plugx', os.path.join(os.path.dirname(__file__), 'plug.py')).f(o)",
                        "import os\nimport warnings\n\nwith warnings.catch_warnings():\n    warnings.simplefilter('ignore')\n"
                        "    import imp"), plug=_X)
    add(C("s9-a-file-loaded-by-imp-load-source", "code loaded by path", base, edit(base, "shop/plug.py", "(5)", "(6)")))

    # S11: the order of one from-import's names (isort)
    k = "formatting: the names of one from-import reordered"
    base = project(flow("return floor(o) + ceil(o)", "from math import floor, ceil\n\nfloor(1)"))
    add(E("s11-a-third-party-from-import-reordered-its-name-used-at-load", k, base,
          edit(base, "shop/flows.py", "floor, ceil", "ceil, floor")))
    base = project(flow("return a() + b()", "from shop.h import b, a") + "\n\nif __name__ == '__main__':\n    checkout(None, 1)\n",
                   h="def a():\n    return 1\n\n\ndef b():\n    return 2\n")
    add(E("s11-a-first-party-from-import-reordered-with-a-main-block", k, base, edit(base, "shop/flows.py", "b, a", "a, b")))

    # S13: a def or class of the module handed to a call made at load
    k = "a def handed to a call made at load"
    hook = "def hook(*a):\n    CFG['a'] = (5)\n    return 0\n\n\n"
    for name, code in [
        ("s13-a-def-handed-to-a-first-party-runner", hook + "def run(f):\n    f()\n\n\nrun(hook)\n"),
        ("s13-a-def-handed-to-map", hook + "list(map(hook, [1]))\n"),
        ("s13-a-def-handed-to-sorted-as-its-key", hook + "sorted([1, 2], key=hook)\n"),
        ("s13-a-def-handed-to-json-loads", "import json\n\n\n" + hook + "json.loads('{}', object_hook=hook)\n"),
        ("s13-a-def-handed-to-functools-reduce", "import functools\n\n\n" + hook + "functools.reduce(hook, [1, 2])\n"),
        ("s13-a-def-handed-to-weakref-finalize", "import weakref\n\n\nclass K:\n    pass\n\n\n" + hook
         + "weakref.finalize(K(), hook)\n"),
        ("s13-a-class-handed-to-json-loads", "import json\n\n\nclass L(dict):\n    def __init__(self, *a):\n"
         "        CFG['a'] = (5)\n\n\njson.loads('{}', object_hook=L)\n"),
        ("s13-a-first-party-base-given-to-make-dataclass", "import dataclasses\n\n\nclass B:\n    def __init_subclass__(cls):\n"
         "        CFG['a'] = (5)\n\n\nK = dataclasses.make_dataclass('K', [], bases=(B,))\n"),
        # the def reaches the call through a table
        ("s13-a-def-handed-to-map-through-a-dict", hook + "T = {'h': hook}\nlist(map(T['h'], [1]))\n"),
        ("s13-a-def-handed-to-a-first-party-runner-through-a-list", hook + "def run(f):\n    f()\n\n\nT = [hook]\nrun(T[0])\n"),
        ("s13-a-def-handed-to-sorted-through-a-nested-table", hook + "T = {'a': [hook]}\nsorted([1, 2], key=T['a'][0])\n"),
    ]:
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.m"), cfg=_CFG,
                       m="from shop.cfg import CFG\n\n\n" + code)
        add(C(name, k, base, edit(base, "shop/m.py", "(5)", "(6)")))
    base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.m"), cfg=_CFG,
                   m="OTHER = {}\n\n\ndef hook(*a):\n    OTHER['a'] = (5)\n\n\nlist(map(hook, [1]))\n")
    add(E("s13-a-def-handed-to-map-changing-what-the-flow-does-not-read", k, base, edit(base, "shop/m.py", "(5)", "(6)")))
    # a table of defs handed on: what the defs change is no object the flow reads, or the call runs nothing
    for name, code in [("s13-a-table-of-a-def-handed-to-map-changing-what-the-flow-does-not-read",
                        "OTHER = {}\n\n\ndef hook(*a):\n    OTHER['a'] = (5)\n\n\nT = {'h': hook}\nlist(map(T['h'], [1]))\n"),
                       ("s13-a-table-of-a-def-given-to-len", "from shop.cfg import CFG\n\n\n" + hook + "T = {'h': hook}\nN = len(T)\n")]:
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.m"), cfg=_CFG, m=code)
        add(E(name, k, base, edit(base, "shop/m.py", "(5)", "(6)")))
    base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.m"), cfg=_CFG,
                   m="from shop.cfg import CFG\n\n\nclass K:\n    def __init__(self):\n        CFG['a'] = (5)\n\n\nisinstance(1, K)\n")
    add(E("s13-a-class-given-to-isinstance-at-load", k, base, edit(base, "shop/m.py", "(5)", "(6)")))

    # S14: a creation hook bound by an assignment in the class body
    k = "a creation hook bound by an assignment"
    for name, code, where in [
        ("s14-init-subclass-bound-to-a-def-of-the-module", "def hook(cls):\n    cls.c['a'] = (5)\n\n\nclass B:\n"
         "    __init_subclass__ = classmethod(hook)\n\n\nclass K(B):\n    c = CFG\n", "shop/m.py"),
        ("s14-init-subclass-bound-to-a-def-of-another-module", "from shop.hk import hook\n\n\nclass B:\n"
         "    __init_subclass__ = classmethod(hook)\n\n\nclass K(B):\n    c = CFG\n", "shop/hk.py"),
        ("s14-set-name-bound-to-a-def", "def sn(self, owner, name):\n    owner.c['a'] = (5)\n\n\nclass D:\n    __set_name__ = sn\n\n\n"
         "class K:\n    c = CFG\n    d = D()\n", "shop/m.py"),
    ]:
        base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.m"), cfg=_CFG,
                       hk="def hook(cls):\n    cls.c['a'] = (5)\n", m="from shop.cfg import CFG\n" + code)
        add(C(name, k, base, edit(base, where, "(5)", "(6)")))

    # S15: an importer reached as a value at load
    k = "an importer reached as a value"
    for name, stmt in [("s15-import-module-through-a-literal-getattr", "import importlib\n\ngetattr(importlib, 'import_module')('shop.x')\n"),
                       ("s15-dunder-import-through-the-builtins-dict", "__builtins__['__import__']('shop.x')\n"),
                       ("s15-import-module-bound-to-a-name", "import importlib\n\nf = importlib.import_module\nf('shop.x')\n"),
                       ("s15-import-module-handed-to-map", "from importlib import import_module as im\n\nlist(map(im, ['shop.x']))\n"),
                       ("s15-dunder-import-handed-to-map", "list(map(__import__, ['shop.x']))\n"),
                       ("s15-a-function-made-from-compiled-text",
                        "import types\n\ntypes.FunctionType(compile('import shop.x', 'f', 'exec'), {})()\n")]:
        base = project(flow("return log.L", "from shop import m, log"), log="L = []\n", x="from shop import log\n\nlog.L.append('x')\n",
                       m=stmt)
        add(C(name, k, base, edit(base, "shop/x.py", "'x'", "'y'")))
    # the widening does not fire: an importer called directly, a builtin read by its literal name,
    # a type test; an edit of a module the flow does not reach
    for name, stmt in [("s15-import-module-called-directly", "import importlib\n\nimportlib.import_module('shop.x')\n"),
                       ("s15-dunder-import-called-directly", "__import__('shop.x')\n"),
                       ("s15-a-builtin-read-by-its-literal-name", "import builtins\n\nO = getattr(builtins, 'open')\n"),
                       ("s15-function-type-in-a-type-test", "import types\n\nT = isinstance(len, types.FunctionType)\n")]:
        base = project(flow("return log.L", "from shop import m, log"), log="L = []\n", x="from shop import log\n\nlog.L.append('x')\n",
                       m=stmt, other="Y = (1)\n")
        add(E(name, k, base, edit(base, "shop/other.py", "(1)", "(2)")))
    return pairs


#: the findings not fixed yet, by case name (a strict xfail each)
OPEN: dict[str, str] = {
    # the canonical form keeps an import's names in their order (changing it moves pinned digests)
    **{n: "S11" for n in ("s11-a-third-party-from-import-reordered-its-name-used-at-load",
                          "s11-a-first-party-from-import-reordered-with-a-main-block")},
    # chunks: a plain ``import`` guarded by ``try``: the module runs in its own segment, outside
    # the ``try`` (the chunk fails to load where live code takes the handler); a ``from`` import
    # is run at its lookup (``chunk_order.guarded_from_imports``)
    "s4-chunk-a-guarded-plain-import-when-the-module-raises": "S4",
}

_X = "def f(o):\n    return o + (5)\n"

PAIRS: tuple[ProjectPair, ...] = tuple(replace(p, finding=OPEN.get(p.name)) for p in _pairs())


def _chunk_cases() -> list[ChunkCase]:
    cases: list[ChunkCase] = []
    add = cases.append
    # S2: the rebinding statement is bundled (the chunk ran the real ``oct``)
    add(ChunkCase("s2-chunk-a-helper-module-rebinding-builtins", project(
        flow("return h.f(o)", "from shop import h"),
        h="__builtins__ = {**__builtins__, 'oct': lambda x: 5}\n\n\ndef f(o):\n    return oct(o)\n"), 3))
    # S3: a resolver the chunk cannot point at its own module is refused at the call
    for name, head, call in [
        ("pkgutil-resolve-name", "import pkgutil", "pkgutil.resolve_name('shop.x:f')(o)"),
        ("pydoc-locate", "import pydoc", "pydoc.locate('shop.x.f')(o)"),
        ("runpy-run-module", "from runpy import run_module", "run_module('shop.x')['f'](o)"),
    ]:
        add(ChunkCase(f"s3-chunk-{name}", project(flow("return " + call, head), x=_X), 3,
                      refused="shop/flows.py:6:12: `"))
    # held: the rewritten resolver, and a literal naming third-party code
    add(ChunkCase("s3-chunk-import-module-of-a-bundled-module", project(
        flow("return importlib.import_module('shop.x').f(o)", "import importlib"), x=_X), 3))
    add(ChunkCase("s3-chunk-pydoc-locate-of-a-stdlib-name", project(flow("return pydoc.locate('math.floor')(o)", "import pydoc")), 3))
    # S3: ``logging.config`` importing a bundled module by text (``'()'``: a handler factory): refused
    add(ChunkCase("s3-chunk-logging-config-resolving-a-bundled-module", project(
        flow("return logging.config.BaseConfigurator({}).resolve('shop.x.f')(o)", "import logging.config"), x=_X), 3,
        refused="shop/flows.py:6:12: `logging.config.BaseConfigurator(...).resolve` imports 'shop.x.f' by text"))
    add(ChunkCase("s3-chunk-logging-dict-config-factory-of-a-bundled-module", project(
        flow("dictConfig({'version': 1, 'handlers': {'h': {'()': 'shop.x.H'}}, 'loggers': {'s3': {'handlers': ['h']}}})\n"
             "return len(logging.getLogger('s3').handlers)", "import logging\nfrom logging.config import dictConfig"),
        x="import logging\n\n\nclass H(logging.NullHandler):\n    pass\n"), 3,
        refused="shop/flows.py:7:5: `logging.config.dictConfig` imports 'shop.x.H' by text"))
    # held: a stdlib handler class and a stdlib factory by text
    add(ChunkCase("s3-chunk-logging-dict-config-of-stdlib-names", project(
        flow("return len(logging.getLogger('s3b').handlers)",
             "import logging.config\n\nlogging.config.dictConfig({'version': 1, 'handlers': {'h': {'class': "
             "'logging.NullHandler'}},\n                           'loggers': {'s3b': {'handlers': ['h']}}})")), 3))
    # S4: held in a def (the guarded import runs when the def does); open at load
    add(ChunkCase("s4-chunk-a-guarded-import-in-a-def", project(flow("return f()", "from shop.m import f"),
        m="def f():\n    try:\n        from shop.c import g\n        return g()\n    except ImportError:\n        return 2\n",
        c=_RAISES.replace("(0)", "(1)")), 3))
    add(ChunkCase("s4-chunk-a-fallback-def-when-the-module-raises", project(
        flow("return f()", "from shop.m import f"), m=_TRY, c=_RAISES.replace("(0)", "(1)")), 3))
    # the guarded module runs at the import's lookup, inside the ``try`` (a lazy module of the chunk)
    for name, files in [
        ("s4-chunk-a-guarded-import-when-the-module-does-not-raise", {"m": _TRY, "c": _RAISES}),
        ("s4-chunk-a-fallback-def-when-the-module-imports-a-missing-module", {"m": _TRY, "c": "import no_such_module_zz\n\n\n" + _G}),
        ("s4-chunk-a-fallback-def-under-an-if", {"m": "import sys\n\nif sys:\n" + "".join(
            "    " + line + "\n" for line in _TRY.splitlines()), "c": _RAISES.replace("(0)", "(1)")}),
        ("s4-chunk-a-guarded-module-imported-unguarded-later", {
            "m": _TRY + "\n\nimport shop.c\n", "c": _RAISES}),
    ]:
        add(ChunkCase(name, project(flow("return f()", "from shop.m import f"), **files), 3))
    add(ChunkCase("s4-chunk-a-fallback-def-in-the-flows-module", project(flow("return f()", _TRY), c=_RAISES.replace("(0)", "(1)")), 3))
    # open: a plain ``import`` guarded (no lookup runs the module inside the ``try``)
    add(ChunkCase("s4-chunk-a-guarded-plain-import-when-the-module-raises", project(
        flow("return f()", "from shop.m import f"), m="try:\n    import shop.c\n    F = 1\nexcept Exception:\n    F = 2\n\n\n"
                                                       "def f():\n    return F\n", c="if (1):\n    raise RuntimeError('no')\n"), 3))
    # S5: the package's submodules are bundled (each imported by a module that runs: set on the
    # chunk's package as live imports set them)
    for name, body, head, files in [
        ("attrgetter-of-a-dotted-literal-on-a-package", "return operator.attrgetter('m.RATE')(shop)", "import operator\nimport shop.m", {}),
        ("a-computed-getattr-on-a-package", "return getattr(shop, N).RATE", "import shop.m\n\nN = 'm'", {}),
        ("a-package-handed-to-a-helper", "return h.get(shop)", "import shop.m\nfrom shop import h",
         {"h": "def get(p):\n    return p.m.RATE\n"}),
    ]:
        add(ChunkCase(f"s5-chunk-{name}", project(flow(body, head), m="RATE = 3\n", **files), 3))
    # a submodule under it no module that runs imports: live it is no attribute of the package (unless
    # another import ran first), in a chunk it would be: refused at the use
    for name, body, head in [("a-computed-getattr-of-a-submodule-nothing-imports", "return hasattr(shop, N)", "import shop\n\nN = 'm'"),
                             ("a-computed-getattr-beside-a-submodule-nothing-imports", "return getattr(shop, N).RATE",
                              "import shop.m\n\nN = 'm'")]:
        add(ChunkCase(f"s5-chunk-{name}", project(flow(body, head), m="RATE = 3\n", other="X = 1\n"), 3,
                      refused="shop/flows.py:7:1: flow `checkout`: the package `shop` is used as a value and no module that "
                              "runs for this flow imports"))
    # S6: refused at the call; a reload of third-party code is left alone
    add(ChunkCase("s6-chunk-reloading-a-bundled-module", project(
        flow("importlib.reload(m)\nreturn m.X", "import importlib\nfrom shop import m"), m="X = 3\n"), 3,
        refused="shop/flows.py:7:5: `importlib.reload(m)` reloads the bundled module `shop.m`"))
    add(ChunkCase("s6-chunk-reloading-a-bundled-module-by-its-dotted-name", project(
        flow("importlib.reload(shop.m)\nreturn shop.m.X", "import importlib\nimport shop.m"), m="X = 3\n"), 3,
        refused="`importlib.reload(shop.m)` reloads the bundled module `shop.m`"))
    add(ChunkCase("s6-chunk-reloading-a-third-party-module", project(
        flow("return importlib.reload(colorsys).rgb_to_yiq(1, 1, 1)[0] > 0", "import colorsys\nimport importlib")), 3))
    # S7
    add(ChunkCase("s7-chunk-an-instance-subscripted-at-load", project(
        flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.m"), cfg=_CFG,
        m="from shop.cfg import CFG\n\n\nclass L:\n    def __getitem__(self, k):\n        CFG['a'] = 5\n\n\nOBJ = L()\nOBJ[1]\n"), 3))
    add(ChunkCase("s7-chunk-an-imported-instance-subscripted-at-load", project(
        flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.m"), cfg=_CFG, m="from shop.o import OBJ\n\nOBJ[1]\n",
        o="from shop.cfg import CFG\n\n\nclass L:\n    def __getitem__(self, k):\n        CFG['a'] = 5\n\n\nOBJ = L()\n"), 3))
    # S8
    for name, store in [("through-a-module-level-alias", "u = util\nu.H = CFG\n"),
                        ("through-a-list-holding-the-module", "[util][0].H = CFG\n")]:
        add(ChunkCase(f"s8-chunk-{name}", project(
            flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.setup"), cfg=_CFG,
            util="H = None\n\n\ndef poke():\n    H['a'] = 5\n",
            setup="from shop.cfg import CFG\nfrom shop import util\n\n" + store + "util.poke()\n"), 3))
    # S10 (``_exec`` runs the text read: what the flow returns is the file's ``f``)
    run = "def _exec(src):\n    ns = {}\n    exec(src, ns)\n    return ns['f']\n"
    for name, head, read in [("pkgutil-get-data", "import pkgutil", "pkgutil.get_data('shop', 'plug.py')"),
                             ("importlib-resources", "import importlib.resources",
                              "importlib.resources.files('shop').joinpath('plug.py').read_text()"),
                             ("importlib-resources-files-imported-by-name", "from importlib.resources import files as fs",
                              "fs('shop').joinpath('plug.py').read_text()")]:
        add(ChunkCase(f"s10-chunk-{name}-of-a-bundled-package", project(
            flow(f"return _exec({read})(o)", f"{head}\n\n\n{run}"), plug=_X, init="X = 1\n"), 3))
    # held: a third-party package's data is read as live code reads it
    add(ChunkCase("s10-chunk-pkgutil-get-data-of-a-stdlib-package", project(
        flow("return len(pkgutil.get_data('json', '__init__.py')) > 0 and o", "import pkgutil")), 3))
    # S13 (and S7: a subscript running the default factory is not counted)
    hook = "def hook(*a):\n    CFG['a'] = 5\n    return 0\n\n\n"
    for name, code in [("a-def-handed-to-map-at-load", hook + "list(map(hook, [1]))\n"),
                       ("a-def-handed-to-a-first-party-runner-at-load", hook + "def run(f):\n    f()\n\n\nrun(hook)\n"),
                       ("a-def-handed-to-map-through-a-dict-at-load", hook + "T = {'h': hook}\nlist(map(T['h'], [1]))\n"),
                       ("a-def-handed-to-a-first-party-runner-through-a-list-at-load",
                        hook + "def run(f):\n    f()\n\n\nT = [hook]\nrun(T[0])\n")]:
        add(ChunkCase(f"s13-chunk-{name}", project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.m"), cfg=_CFG,
                                                     m="from shop.cfg import CFG\n\n\n" + code), 3))
    add(ChunkCase("s7-chunk-a-defaultdict-subscripted-at-load", project(
        flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.m"), cfg=_CFG,
        m="import collections\nfrom shop.cfg import CFG\n\n\n" + hook + "D = collections.defaultdict(hook)\nD['x']\n"), 3))
    # S14 (held now), and S7's ``__class_getitem__`` not spelled as a def
    for name, code in [
        ("s14-chunk-init-subclass-bound-to-a-def", "def hook(cls):\n    cls.c['a'] = 5\n\n\nclass B:\n"
         "    __init_subclass__ = classmethod(hook)\n\n\nclass K(B):\n    c = CFG\n"),
        ("s7-chunk-a-class-getitem-bound-by-an-assignment", "def gi(cls, k):\n    CFG['a'] = 5\n\n\nclass L:\n"
         "    __class_getitem__ = classmethod(gi)\n\n\nL[int]\n"),
        ("s7-chunk-a-class-getitem-installed-after-the-class", "class L:\n    pass\n\n\ndef gi(cls, k):\n    CFG['a'] = 5\n\n\n"
         "L.__class_getitem__ = classmethod(gi)\nL[int]\n"),
    ]:
        add(ChunkCase(name, project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.m"), cfg=_CFG,
                                    m="from shop.cfg import CFG\n\n\n" + code), 3))
    # S15: live, x runs between m1 and m2; the chunk cannot rewrite what the importer read as a
    # value imports (nor an import in compiled text): the build refuses the flow at the read
    value = "as a value (what it is handed to imports a module named by text"
    for name, stmt, refused in [
        ("import-module-through-a-literal-getattr", "import importlib\n\ngetattr(importlib, 'import_module')('shop.x')",
         f"shop/m.py:6:1: flow `checkout`: code run at load reads `getattr(importlib, 'import_module')` {value}"),
        ("dunder-import-through-the-builtins-dict", "__builtins__['__import__']('shop.x')",
         f"shop/m.py:4:1: flow `checkout`: code run at load reads `__builtins__['__import__']` {value}"),
        ("import-module-bound-to-a-name", "from importlib import import_module as im\n\nf = im\nf('shop.x')",
         f"shop/m.py:6:5: flow `checkout`: code run at load reads `im` {value}"),
        ("a-function-made-from-compiled-text", "import types\n\ntypes.FunctionType(compile('import shop.x', 'f', 'exec'), {})()",
         "shop/m.py:6:20: flow `checkout`: a string run as code imports first-party code (`import shop.x`)"),
    ]:
        add(ChunkCase(f"s15-chunk-{name}", project(
            flow("return log.L", "from shop import m, log"), log="L = []\n", x="from shop import log\n\nlog.L.append('x')\n",
            m=f"from shop import log\n\nlog.L.append('m1')\n{stmt}\nlog.L.append('m2')\n"), 0, refused=refused))
    # held: an importer called directly with a literal is rewritten to the chunk's module
    add(ChunkCase("s15-chunk-import-module-called-directly", project(
        flow("return log.L", "from shop import m, log"), log="L = []\n", x="from shop import log\n\nlog.L.append('x')\n",
        m="import importlib\nfrom shop import log\n\nlog.L.append('m1')\nimportlib.import_module('shop.x')\nlog.L.append('m2')\n"), 0))
    # S1, last: live, it patches ``builtins.oct`` for the cases after it (one interpreter)
    add(ChunkCase("s1-chunk-builtins-dict-update", project(
        flow("return oct(o)", "import shop.patch"), patch="import builtins\n\nbuiltins.__dict__.update(oct=lambda x: 5)\n"), 3,
        refused="shop/patch.py:3:1: flow `checkout`: code run at load reads `builtins.__dict__` as a value"))
    return cases


CHUNK_CASES: tuple[ChunkCase, ...] = tuple(replace(c, finding=OPEN.get(c.name)) for c in _chunk_cases())
