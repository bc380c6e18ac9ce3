"""Namespace views (breaker2's C13, C17): a module's names reached or changed through an object
that leads to them, not through the name itself. ``vars(m)[k]``, ``m.__dict__[k]``,
``sys.modules["a.b"]``, ``importlib.import_module("a.b")``, ``__builtins__[k]`` (C13: stores,
``scopes.store_through_view`` and ``closure._view_stores``); ``f.__globals__[k]`` and
``inspect.getmodule(f)`` (C17: reads, ``closure.namespace_keys``); a module fetched by name in
any spelling that evaluates to it, ``sys.modules`` handed out (breaker3's D5: ``_fetches``).

Each ``changed`` pair is a behavioural edit the hash must see (each fails on the main before
this rule); each ``equal`` pair is the look-alike the rule must not fire on: a view is followed to
the name it spells, not to all of the module, when the name is literal and the object certain.
The adversarial pairs themselves are in ``fp2_cases_adversarial`` (``_breaker2_pairs_4/6/7``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fp2_cases_adversarial import C, E, ProjectPair, edit, flow, project
from pair_harness import assert_pair, assert_well_formed

SVC = "def go(x):\n    return x\n\n\ndef other(x):\n    return x\n"
GO = ("shop/ext.py", "return -x", "return 2 * x")
K_MODULE = "K = 7\nJ = 1\n\n\ndef helper(x):\n    return -x\n"
K_EDIT = ("shop/h.py", "K = 7", "K = 8")


def _stores() -> list[ProjectPair]:
    """C13: a module that runs stores into another module through a view."""
    out: list[ProjectPair] = []
    add = out.append
    k = "effects across modules: dynamic views"

    def ext(store: str, head: str = "import sys\n") -> str:
        return f"{head}\n\ndef go(x):\n    return -x\n\n\n{store}\n"

    for name, store, head in [
        ("vars-subscript-replaces-a-function", "vars(svc)['go'] = go", "from shop import svc\n"),
        ("dunder-dict-subscript-replaces-a-function", "svc.__dict__['go'] = go", "from shop import svc\n"),
        ("setattr-on-a-sys-modules-entry", "setattr(sys.modules['shop.svc'], 'go', go)", "import sys\n"),
        ("dict-update-of-a-sys-modules-entry", "sys.modules['shop.svc'].__dict__.update(go=go)", "import sys\n"),
        ("store-into-import-module-of-a-literal", "importlib.import_module('shop.svc').go = go", "import importlib\n"),
        ("vars-subscript-with-a-computed-name", "for n in ['go']:\n    vars(svc)[n] = go", "from shop import svc\n"),
        ("vars-update-of-another-module", "vars(svc).update(go=go)", "from shop import svc\n"),
        ("getattr-of-a-sys-modules-entry-stored-through", "getattr(sys.modules['shop.svc'], 'go').__defaults__ = ()\n"
         "sys.modules['shop.svc'].go = go", "import sys\n"),
    ]:
        base = project(flow("return go(o)", "from shop.svc import go\nimport shop.ext\n"), svc=SVC, ext=ext(store, head))
        add(C(name, k, base, edit(base, *GO)))
    # a module entry replaced by a computed key, or by the module itself
    base = project(flow("return go(o)", "from shop.svc import go\n"), svc=SVC,
                   init="import sys\nimport types\n\nm = types.ModuleType('m')\nm.go = lambda x: -x\n"
                        "for name in ['shop.' + 'svc']:\n    sys.modules[name] = m\n")
    add(C("sys-modules-entry-replaced-by-a-computed-key", k, base, edit(base, "shop/__init__.py", "-x", "2 * x")))
    base = project(flow("return go(o)", "from shop.svc import go\n"),
                   svc="import sys\n\n\nclass _Module:\n    @staticmethod\n    def go(x):\n        return -x\n\n\n"
                       "sys.modules[__name__] = _Module()\n")
    add(C("module-replaces-its-own-entry", k, base, edit(base, "shop/svc.py", "return -x", "return 2 * x")))
    # held: precise, the view names one attribute of one module
    base = project(flow("return go(o)", "from shop.svc import go\nimport shop.ext\n"), svc=SVC,
                   ext=ext("vars(svc)['other'] = go", "from shop import svc\n"))
    add(E("vars-store-into-another-name-of-the-module", k, base, edit(base, *GO)))
    base = project(flow("return go(o)", "from shop.svc import go\nimport shop.ext\n"), svc=SVC, alt=SVC,
                   ext=ext("sys.modules['shop.alt'].go = go"))
    add(E("sys-modules-store-into-a-module-the-flow-does-not-reach", k, base, edit(base, *GO)))
    base = project(flow("return go(o)", "from shop.svc import go\nimport shop.ext\n"), svc=SVC,
                   ext="import sys\n\nSNAP = sys.modules['shop.svc'].go\n")
    add(E("sys-modules-read-is-no-store", k, base, edit(base, "shop/ext.py", "SNAP =", "SNAP2 =")))

    # the module's own entry through an alias of sys or of sys.modules (review, session 4: only the
    # spelling `sys.modules` was recognised for a store, so these kept the hash)
    k = "own module through sys.modules"
    for name, head in [
        ("sys-alias", "import sys as s\n\nV = 1\ns.modules[__name__].V = 2\n"),
        ("from-sys-import-modules", "from sys import modules\n\nV = 1\nmodules[__name__].V = 2\n"),
        ("setattr-through-a-sys-alias", "import sys as s\n\nV = 1\nsetattr(s.modules[__name__], 'V', 2)\n"),
    ]:
        base = project(flow("return o + V", head))
        add(C(f"own-module-store-through-{name}", k, base, edit(base, "shop/flows.py", "2", "3")))
    base = project(flow("return o + V", "import sys as s\n\nV = 1\ns.modules['shop.alt'].V = 2\n"), alt="V = 0\n")
    add(E("store-through-a-sys-alias-into-a-module-the-flow-does-not-reach", k, base, edit(base, "shop/flows.py", "= 2", "= 3")))

    k = "builtins patched"
    base = project(flow("return len(o)", "import shop.patch\n"), patch="__builtins__['mylen'] = lambda x: 1\n")
    add(E("dunder-builtins-store-of-a-name-the-flow-does-not-use", k, base, edit(base, "shop/patch.py", "x: 1", "x: 2")))
    base = project(flow("return len(o)", "import shop.patch\n"), patch="__builtins__.update(len=lambda x: 1)\n")
    add(C("dunder-builtins-updated", k, base, edit(base, "shop/patch.py", "x: 1", "x: 2")))
    base = project(flow("return len(o)", "import shop.patch\n"), patch="import builtins\n\nbuiltins.__dict__['mylen'] = lambda x: 1\n")
    add(E("builtins-dict-store-of-a-name-the-flow-does-not-use", k, base, edit(base, "shop/patch.py", "x: 1", "x: 2")))

    # a module as a whole handed to a call at import time may have any name changed
    k = "effects across modules: a module handed to a call"
    reg = "def patch(module):\n    module.go = lambda x: -x\n"
    base = project(flow("return go(o)", "from shop.svc import go\nimport shop.ext\n"), svc=SVC, reg=reg,
                   ext="from shop import svc\nfrom shop.reg import patch\n\npatch(svc)\n")
    add(C("module-handed-to-a-patching-call", k, base, edit(base, "shop/reg.py", "-x", "2 * x")))
    base = project(flow("return go(o)", "from shop.svc import go\nimport shop.ext\n"), svc=SVC, reg=reg,
                   ext="import sys\nfrom shop.reg import patch\n\npatch(sys.modules['shop.svc'])\n")
    add(C("sys-modules-entry-handed-to-a-patching-call", k, base, edit(base, "shop/reg.py", "-x", "2 * x")))
    base = project(flow("return go(o)", "from shop.svc import go\nimport shop.ext\n"), svc=SVC,
                   ext="import sys\n\nns = sys.modules['shop.svc'].__dict__\nns['go'] = lambda x: -x\n")
    add(C("sys-modules-namespace-kept-in-a-name-and-stored-through", k, base, edit(base, "shop/ext.py", "-x", "2 * x")))
    base = project(flow("return go(o)", "from shop.svc import go\nimport shop.ext\n"), svc=SVC, alt=SVC, reg=reg,
                   ext="from shop import alt\nfrom shop.reg import patch\n\npatch(alt)\n")
    add(E("another-module-handed-to-a-patching-call", k, base, edit(base, "shop/reg.py", "-x", "2 * x")))
    return out


def _reads() -> list[ProjectPair]:
    """C17 and C13's reads: a module's namespace read through an object that leads to it."""
    out: list[ProjectPair] = []
    add = out.append
    k = "dynamic reach: namespace views"
    for name, body, head in [
        ("getmodule-dunder-dict-subscript", "return inspect.getmodule(helper).__dict__['K']", "import inspect\nfrom shop.h import helper\n"),
        ("getattr-dunder-globals-subscript", "return getattr(helper, '__globals__')['K']", "from shop.h import helper\n"),
        ("aliased-function-dunder-globals", "return hh.__globals__['K']", "from shop.h import helper as hh\n"),
        ("lazily-imported-function-dunder-globals", "from shop.h import helper\nreturn helper.__globals__['K']", ""),
        ("module-attribute-function-dunder-globals", "return h.helper.__globals__['K']", "from shop import h\n"),
        ("dunder-globals-read-whole", "return helper.__globals__.get('K')", "from shop.h import helper\n"),
        ("vars-of-another-module-read", "return vars(h)['K']", "from shop import h\n"),
        ("sys-modules-entry-attribute-read", "import sys\nreturn sys.modules['shop.h'].K", "import shop.h\n"),
    ]:
        base = project(flow(body, head), h=K_MODULE)
        add(C(name, k, base, edit(base, *K_EDIT)))
    # the object cannot be told: any module it may come from
    base = project(flow("return peek(helper)", "from shop.h import helper\nfrom shop.util import peek\n"), h=K_MODULE,
                   util="def peek(f):\n    return f.__globals__['K']\n")
    add(C("dunder-globals-of-a-parameter", k, base, edit(base, *K_EDIT)))
    base = project(flow("return helper.__globals__['K']", "from shop.h import helper\n"), h="from shop.deco import deco\n\n\n@deco\n"
                   "def helper(x):\n    return -x\n", deco="K = 7\n\n\ndef deco(f):\n    def wrapper(x):\n        return f(x)\n\n    return wrapper\n")
    add(C("dunder-globals-of-a-decorated-function-is-the-wrappers", k, base, edit(base, "shop/deco.py", "K = 7", "K = 8")))
    # held: precise when the function is a plain def
    for name, body, head in [
        ("dunder-globals-subscript-of-another-name", "return helper.__globals__['K']", "from shop.h import helper\n"),
        ("getmodule-attribute-of-another-name", "return inspect.getmodule(helper).K", "import inspect\nfrom shop.h import helper\n"),
    ]:
        base = project(flow(body, head), h=K_MODULE, other="def f(x):\n    return x\n")
        add(E(name, k, base, edit(base, "shop/h.py", "J = 1", "J = 2")))
        add(E(name + "-other-module-edited", k, base, edit(base, "shop/other.py", "return x", "return -x")))
    return out


def _fetches() -> list[ProjectPair]:
    """breaker3's D5 and its relatives: a module fetched by name, spelled any way that evaluates to
    the module (``scopes.module_value``), is stored through; a computed name stores into every
    first-party module it may name, ``sys.modules`` handing out its modules into every one. The
    adversarial pairs themselves are in ``fp2_cases_adversarial._breaker3_pairs``."""
    out: list[ProjectPair] = []
    add = out.append
    h = "RATE = 1\n\n\ndef helper(x):\n    return x + RATE\n"
    alt = "RATE = 0\n\n\ndef g():\n    return 0\n"

    def pair(name: str, patch: str, *, expect: str = "changed") -> ProjectPair:
        base = project(flow("return helper(o)", "from shop.h import helper\n"), h=h, alt=alt, patch=patch,
                       init="from . import patch\n")
        return (C if expect == "changed" else E)(name, k, base, edit(base, "shop/patch.py", "5", "6"))

    k = "module namespaces: a module fetched by name and stored through"
    for name, patch in [
        ("sys-modules-get-with-a-default", "import sys\n\nimport shop.h\n\nsys.modules.get('shop.h', None).RATE = 5\n"),
        ("sys-modules-setdefault", "import sys\n\nimport shop.h\n\nsys.modules.setdefault('shop.h', None).RATE = 5\n"),
        ("sys-modules-pop", "import sys\n\nimport shop.h\n\nsys.modules.pop('shop.h').RATE = 5\n"),
        ("alias-of-sys-modules-get", "import sys\n\nimport shop.h\n\nmods = sys.modules\nmods.get('shop.h').RATE = 5\n"),
        ("alias-of-an-aliased-sys", "import sys as s\n\nimport shop.h\n\nmods = s.modules\nmore = mods\nmore['shop.h'].RATE = 5\n"),
        ("setattr-on-sys-modules-get", "import sys\n\nimport shop.h\n\nsetattr(sys.modules.get('shop.h'), 'RATE', 5)\n"),
        ("vars-of-sys-modules-get", "import sys\n\nimport shop.h\n\nvars(sys.modules.get('shop.h'))['RATE'] = 5\n"),
        ("entry-kept-in-a-name", "import sys\n\nimport shop.h\n\nm = sys.modules['shop.h']\nm.RATE = 5\n"),
        ("dunder-import-positional-fromlist", "__import__('shop.h', None, None, ['x']).RATE = 5\n"),
        ("dunder-import-without-fromlist-is-the-package", "import shop.h\n\n__import__('shop.h').h.RATE = 5\n"),
        ("importlib-dunder-import", "import importlib\n\nimportlib.__import__('shop.h', fromlist=['x']).RATE = 5\n"),
        ("import-module-relative-to-a-literal-package", "import importlib\n\nimportlib.import_module('.h', 'shop').RATE = 5\n"),
        ("pkgutil-resolve-name-of-the-module", "import pkgutil\n\npkgutil.resolve_name('shop.h').RATE = 5\n"),
        # a store inside a function the module calls at import time (the function is a store abroad)
        ("inside-a-function-called-at-import", "import sys\n\nimport shop.h\n\n\ndef boot():\n"
                                               "    sys.modules['shop.h'].RATE = 5\n\n\nboot()\n"),
        ("alias-in-a-function-called-at-import", "import sys\n\nimport shop.h\n\n\ndef boot():\n    mods = sys.modules\n"
                                                 "    mods.get('shop.h').RATE = 5\n\n\nboot()\n"),
        # widened: a computed key, sys.modules handed out
        ("computed-sys-modules-key", "import sys\n\nimport shop.h\n\nfor k in ['shop.h']:\n    sys.modules[k].RATE = 5\n"),
        ("computed-sys-modules-get", "import sys\n\nimport shop.h\n\nfor k in ['shop.h']:\n    sys.modules.get(k).RATE = 5\n"),
        ("constant-sys-modules-key", "import sys\n\nimport shop.h\n\nNAME = 'shop.h'\nsys.modules[NAME].RATE = 5\n"),
        ("computed-setattr-on-a-sys-modules-entry",
         "import sys\n\nimport shop.h\n\nfor k in ['shop.h']:\n    setattr(sys.modules[k], 'RATE', 5)\n"),
        ("computed-dunder-import", "for k in ['shop.h']:\n    __import__(k, fromlist=['x']).RATE = 5\n"),
        ("computed-import-module-kept-in-a-name",
         "import importlib\n\nfor k in ['shop.h']:\n    m = importlib.import_module(k)\n    m.RATE = 5\n"),
        ("modules-values-iterated", "import sys\n\nimport shop.h\n\nfor m in list(sys.modules.values()):\n"
                                    "    if getattr(m, 'RATE', None) == 1:\n        m.RATE = 5\n"),
        ("sys-modules-handed-to-a-function", "import sys\n\nimport shop.h\n\n\ndef poke(mods):\n"
                                             "    mods['shop.h'].RATE = 5\n\n\npoke(sys.modules)\n"),
        ("entry-replaced-by-update", "import sys\nimport types\n\nimport shop.h\n\nm = types.ModuleType('x')\n"
                                     "m.helper = lambda x: x + 5\nsys.modules.update({'shop.h': m})\n"),
    ]:
        add(pair(name, patch))
    # held: precise where the name is certain; reads and key tests are no stores
    for name, patch in [
        ("sys-modules-get-of-a-third-party-module-read", "import sys\n\nX = sys.modules.get('json')\nY = 5\n"),
        ("key-tested-in-sys-modules", "import sys\n\nif 'shop.h' in sys.modules:\n    Y = 5\n"),
        ("keys-of-sys-modules-counted", "import sys\n\nN = len(sys.modules) + 5\nL = sorted(sys.modules)\n"),
        ("store-into-a-third-party-module-no-flow-reads", "import json\n\njson.FOO = 5\n"),
        ("sys-modules-get-store-into-another-module", "import sys\n\nimport shop.alt\n\nsys.modules.get('shop.alt').RATE = 5\n"),
        ("dunder-import-store-into-another-module", "__import__('shop.alt', fromlist=['x']).RATE = 5\n"),
        ("module-of-another-modules-function", "import sys\n\nfrom shop.alt import g\n\nsys.modules[g.__module__].RATE = 5\n"),
        ("alias-of-sys-modules-into-another-module", "import sys\n\nimport shop.alt\n\nmods = sys.modules\nmods['shop.alt'].RATE = 5\n"),
        ("entry-read-right-away", "import sys\n\nimport shop.h\n\nR = sys.modules['shop.h'].RATE + 5\n"),
    ]:
        add(pair(name, patch, expect="equal"))
    return out


PAIRS = tuple(_stores() + _reads() + _fetches())


def test_the_table_is_well_formed() -> None:
    assert_well_formed(PAIRS)


@pytest.mark.parametrize("pair", PAIRS, ids=[p.name for p in PAIRS])
def test_pair(tmp_path: Path, pair: ProjectPair) -> None:
    assert_pair(tmp_path, pair)
