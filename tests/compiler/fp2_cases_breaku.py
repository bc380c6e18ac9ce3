"""``loom-fp/2`` pairs and chunk cases of breakU (session 11, second pair of eyes on the rules the
session landed: ``binding_order``'s T1, ``operator_runs``' S7, T3's ``contextlib.suppress``):
findings U1-U<n> of ``fp2_cases_breaku_findings.md`` (beside this file), in the format of
``fp2_cases_adversarial``; ``test_fp2_breakt`` judges them (its ``TABLES``: the hash, both sides
of each pair run live, the chunk against the live module).

Pairs and chunk cases with a ``finding`` are the open ones (strict xfails, ``OPEN``); the others
held on the train (breakT's 26e13c0) and are guards. Keep this file free of imports beyond the
standard library and the case module (``benchmarks/fingerprint_pairs`` may read ``PAIRS``).
"""

from __future__ import annotations

from dataclasses import replace

from fp2_cases_adversarial import C, ChunkCase, E, ProjectPair, edit, flow, project

_CFG = "CFG = {'a': 1}\n"
_RAISES = "def g():\n    return 1\n\n\nif (0):\n    raise ImportError('no')\n"
_F = "\n\n\ndef f():\n    return LIMIT\n"

#: binding_order (T1's rule): (name, shop/h.py before, after, the shop/c.py it may import);
#: the flow returns ``h.f()``; after, the reading statement comes after the rebinding
_ORDER = [
    ("u-held-a-comprehension-at-module-level-before-a-rebinding",
     "RATE = 1\nLIMIT = [RATE for _ in range(1)][0]\nRATE = 5" + _F, "RATE = 1\nRATE = 5\nLIMIT = [RATE for _ in range(1)][0]" + _F, None),
    ("u-held-a-read-before-a-walrus-rebinding", "RATE = 1\nLIMIT = RATE * 2\n(RATE := 5)" + _F,
     "RATE = 1\n(RATE := 5)\nLIMIT = RATE * 2" + _F, None),
    ("u-held-a-read-before-a-walrus-in-an-if-test", "RATE = 1\nLIMIT = RATE * 2\nif (RATE := 5):\n    pass" + _F,
     "RATE = 1\nif (RATE := 5):\n    pass\nLIMIT = RATE * 2" + _F, None),
    ("u-held-a-read-before-an-augmented-assignment", "RATE = 1\nLIMIT = RATE * 2\nRATE += 4" + _F,
     "RATE = 1\nRATE += 4\nLIMIT = RATE * 2" + _F, None),
    ("u-held-a-read-before-a-conditional-rebinding", "RATE = 1\nLIMIT = RATE * 2\nif True:\n    RATE = 5" + _F,
     "RATE = 1\nif True:\n    RATE = 5\nLIMIT = RATE * 2" + _F, None),
    ("u-held-a-read-before-a-for-target-rebinding", "RATE = 1\nLIMIT = RATE * 2\nfor RATE in [5]:\n    pass" + _F,
     "RATE = 1\nfor RATE in [5]:\n    pass\nLIMIT = RATE * 2" + _F, None),
    ("u-a-read-before-a-star-import-rebinding", "RATE = 1\nLIMIT = RATE * 2\nfrom shop.c import *" + _F,
     "RATE = 1\nfrom shop.c import *\nLIMIT = RATE * 2" + _F, "RATE = 5\n"),
    ("u-a-read-before-a-global-rebinding-in-a-def-called-at-load",
     "RATE = 1\n\n\ndef setr():\n    global RATE\n    RATE = 5\n\n\nLIMIT = RATE * 2\nsetr()" + _F,
     "RATE = 1\n\n\ndef setr():\n    global RATE\n    RATE = 5\n\n\nsetr()\nLIMIT = RATE * 2" + _F, None),
    ("u-a-call-of-a-def-reading-the-name-before-a-rebinding",
     "RATE = 1\n\n\ndef g():\n    return RATE * 2\n\n\nLIMIT = g()\nRATE = 5" + _F,
     "RATE = 1\n\n\ndef g():\n    return RATE * 2\n\n\nRATE = 5\nLIMIT = g()" + _F, None),
    ("u-an-instance-whose-init-reads-the-name-before-a-rebinding",
     "RATE = 1\n\n\nclass K:\n    def __init__(self):\n        self.r = RATE\n\n\nK0 = K()\nRATE = 5\n\n\ndef f():\n    return K0.r\n",
     "RATE = 1\n\n\nclass K:\n    def __init__(self):\n        self.r = RATE\n\n\nRATE = 5\nK0 = K()\n\n\ndef f():\n    return K0.r\n", None),
    ("u-held-an-import-as-of-two-modules-under-one-name",
     "import shop.c as M\nLIMIT = M.RATE\nimport shop.d as M" + _F, "import shop.c as M\nimport shop.d as M\nLIMIT = M.RATE" + _F, "RATE = 1\n"),
    ("u-held-a-from-import-of-two-modules-under-one-name",
     "from shop import c as M\nLIMIT = M.RATE\nfrom shop import d as M" + _F,
     "from shop import c as M\nfrom shop import d as M\nLIMIT = M.RATE" + _F, "RATE = 1\n"),
    ("u-held-an-import-then-a-plain-rebinding", "import shop.c\nLIMIT = shop.c.RATE\nshop = None" + _F,
     "import shop.c\nLIMIT = shop.c.RATE\nshop = None" + _F, "RATE = 1\n"),  # placeholder replaced below
    ("u-held-a-nested-class-attribute-before-a-rebinding",
     "RATE = 1\n\n\nclass K:\n    class J:\n        X = RATE\n\n\nRATE = 5\n\n\ndef f():\n    return K.J.X\n",
     "RATE = 1\nRATE = 5\n\n\nclass K:\n    class J:\n        X = RATE\n\n\ndef f():\n    return K.J.X\n", None),
    ("u-held-a-method-decorator-argument-before-a-rebinding",
     ("import functools\nN = 1\n\n\nclass K:\n    @functools.lru_cache(maxsize=N)\n    def g(self):\n        return 0\n\n\nN = 5\n\n\n"
      "def f():\n    return K.g.cache_info().maxsize\n"),
     ("import functools\nN = 1\nN = 5\n\n\nclass K:\n    @functools.lru_cache(maxsize=N)\n    def g(self):\n        return 0\n\n\n"
      "def f():\n    return K.g.cache_info().maxsize\n"), None),
    ("u-held-a-class-keyword-argument-before-a-rebinding",
     ("RATE = 1\n\n\nclass B:\n    def __init_subclass__(cls, r=0):\n        cls.r = r\n\n\nclass K(B, r=RATE):\n    pass\n\n\n"
      "RATE = 5\n\n\ndef f():\n    return K.r\n"),
     ("RATE = 1\nRATE = 5\n\n\nclass B:\n    def __init_subclass__(cls, r=0):\n        cls.r = r\n\n\nclass K(B, r=RATE):\n    pass\n\n\n"
      "def f():\n    return K.r\n"), None),
    ("u-a-class-body-rebinding-a-module-name-read-later",
     "RATE = 1\nLIMIT = RATE * 2\n\n\nclass K:\n    global RATE\n    RATE = 5" + _F,
     "RATE = 1\n\n\nclass K:\n    global RATE\n    RATE = 5\n\n\nLIMIT = RATE * 2" + _F, None),
]
# a module's name rebound to something else after an import of it (not only imports bind it)
_ORDER[12] = ("u-held-an-import-then-a-plain-rebinding-of-its-name",
              "import shop.d\nimport shop.c as M\nLIMIT = M.RATE\nM = shop.d" + _F,
              "import shop.d\nimport shop.c as M\nM = shop.d\nLIMIT = M.RATE" + _F, "RATE = 1\n")
_ORDER += [
    # binders of other statement kinds: ``with ... as``, ``except ... as`` (deleted after), ``match``
    ("u-held-a-read-before-a-with-as-rebinding",
     "import contextlib\nRATE = 1\nLIMIT = RATE * 2\nwith contextlib.nullcontext(5) as RATE:\n    pass" + _F,
     "import contextlib\nRATE = 1\nwith contextlib.nullcontext(5) as RATE:\n    pass\nLIMIT = RATE * 2" + _F, None),
    ("u-held-a-read-before-an-except-as-unbinding",
     "RATE = 1\nLIMIT = globals().get('RATE', 5) * 2\ntry:\n    raise ValueError\nexcept ValueError as RATE:\n    pass" + _F,
     "RATE = 1\ntry:\n    raise ValueError\nexcept ValueError as RATE:\n    pass\nLIMIT = globals().get('RATE', 5) * 2" + _F, None),
    ("u-held-a-read-before-a-match-capture-rebinding",
     "RATE = 1\nLIMIT = RATE * 2\nmatch 5:\n    case RATE:\n        pass" + _F,
     "RATE = 1\nmatch 5:\n    case RATE:\n        pass\nLIMIT = RATE * 2" + _F, None),
    ("u-held-a-read-before-a-del-and-rebinding",
     "RATE = 1\nLIMIT = RATE * 2\ndel RATE\nRATE = 5" + _F, "RATE = 1\ndel RATE\nRATE = 5\nLIMIT = RATE * 2" + _F, None),
    ("u-held-a-read-before-a-del-only",
     "RATE = 1\nLIMIT = globals().get('RATE', 5) * 2\ndel RATE" + _F, "RATE = 1\ndel RATE\nLIMIT = globals().get('RATE', 5) * 2" + _F, None),
    # a read by a dynamic namespace (``globals()``) at load
    ("u-held-a-read-through-globals-before-a-rebinding", "RATE = 1\nLIMIT = globals()['RATE'] * 2\nRATE = 5" + _F,
     "RATE = 1\nRATE = 5\nLIMIT = globals()['RATE'] * 2" + _F, None),
    # a package attribute named like a submodule, read before the import that replaces it (two
    # plain imports of one package are exempt: they bind one object, whose attributes they change)
    ("u-held-a-package-attribute-read-before-the-import-of-a-submodule-of-its-name",
     "import shop.c\nLIMIT = type(shop.d).__name__\nimport shop.d" + _F,
     "import shop.c\nimport shop.d\nLIMIT = type(shop.d).__name__" + _F, "RATE = 1\n"),
]


def _extra(name: str, c: str | None) -> dict[str, str]:
    """The modules beside ``shop/h.py`` of an ``_ORDER`` row (``shop/__init__.py`` binds ``d``
    for the row reading a package attribute a submodule import replaces)."""
    files = {"c": c, "d": "RATE = 5\n"} if c else {}
    return {**files, "init": "d = 'x'\n"} if "package-attribute" in name else files


def _log_project(m: str, **files: str) -> dict[str, str]:
    """The flow returns ``log.L`` after importing ``shop.m`` (``shop.x`` logs ``'x'``)."""
    return project(flow("return log.L", "from shop import log\nimport shop.m"), log="L = []\n",
                   x="from shop import log\n\nlog.L.append('x')\n", m=m, **files)


_HOOK = "def hook(*a):\n    CFG['a'] = (5)\n    return 0\n\n\n"


def _cfg_project(code: str, **files: str) -> dict[str, str]:
    """The flow returns ``CFG['a']`` after importing ``shop.m``."""
    return project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.m"), cfg=_CFG,
                   m="from shop.cfg import CFG\n\n\n" + code, **files)


def _pairs() -> list[ProjectPair]:
    pairs: list[ProjectPair] = []
    add = pairs.append
    k = "order: a read at load moved across a rebinding"
    for name, before, after, c in _ORDER:
        extra = _extra(name, c)
        base = project(flow("return h.f()", "from shop import h"), h=before, **extra)
        add(C(name, k, base, {**base, "shop/h.py": after}))

    # binding_order on ordinary code: what runs no differently must keep the hash
    k = "order: a move that changes nothing"
    for name, before, after in [
        # an annotation that is never evaluated (``from __future__ import annotations``)
        ("u-an-annotation-never-evaluated-moved-across-a-rebinding",
         "from __future__ import annotations\nT = int\nLIMIT: T = 2\nT = str" + _F, "from __future__ import annotations\nT = int\nT = str\nLIMIT: T = 2" + _F),
        # the TYPE_CHECKING idiom: the name is rebound, a def's annotation reads it (not at load)
        ("u-held-a-def-annotated-with-a-rebound-name-moved",
         ("from __future__ import annotations\ntry:\n    import json as J\nexcept ImportError:\n    J = None\n\n\n"
          "def g(x: J) -> J:\n    return 2\n\n\nLIMIT = 2" + _F),
         ("from __future__ import annotations\n\n\ndef g(x: J) -> J:\n    return 2\n\n\ntry:\n    import json as J\n"
          "except ImportError:\n    J = None\n\n\nLIMIT = 2" + _F)),
        # two imports of one package (exempt), a read of it moved between them
        ("u-held-a-read-of-a-package-moved-between-its-imports",
         "import os.path\nLIMIT = os.sep and 2\nimport os" + _F, "import os.path\nimport os\nLIMIT = os.sep and 2" + _F),
        # the logger idiom: a name rebound, a def reading it moved (its body reads later)
        ("u-held-a-def-moved-across-a-rebinding-of-a-name-its-body-reads",
         "import logging\nlog = None\n\n\ndef g():\n    return 2\n\n\nlog = logging.getLogger('x')\nLIMIT = g()" + _F,
         "import logging\nlog = None\nlog = logging.getLogger('x')\n\n\ndef g():\n    return 2\n\n\nLIMIT = g()" + _F),
    ]:
        base = project(flow("return h.f()", "from shop import h"), h=before)
        add(E(name, k, base, {**base, "shop/h.py": after}))

    # isort's reordering of the names of one from-import (prefect-recipes' orchestration.py:
    # ``from prefect import get_client, task, flow``), of a third-party and of a first-party module
    k = "formatting: the names of one from-import sorted"
    for name, before, after, files in [
        ("u-held-the-names-of-a-third-party-from-import-sorted", "from json import loads, dumps", "from json import dumps, loads", {}),
        ("u-held-the-names-of-a-first-party-from-import-sorted", "from shop.c import b, a", "from shop.c import a, b",
         {"c": "def a():\n    return 1\n\n\ndef b():\n    return 2\n"}),
    ]:
        base = project(flow("return loads(dumps(o)) if o else 0" if "json" in before else "return a() + b()", before), **files)
        add(E(name, k, base, edit(base, "shop/flows.py", before, after)))

    # S7 through an imported instance, a realistic spelling: a context manager of another module
    # entered at load (a transaction or a settings override), and a property read at load
    k = "an operator on an imported instance run at load"
    cm = ("from shop.cfg import CFG\n\n\nclass Override:\n    def __enter__(self):\n        CFG['a'] = (5)\n\n"
          "    def __exit__(self, *a):\n        return False\n\n\noverride = Override()\n")
    base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.m"), cfg=_CFG, o=cm,
                   m="from shop.o import override\n\nwith override:\n    pass\n")
    add(C("u-with-on-an-imported-instance-at-load", k, base, edit(base, "shop/m.py", "with override:\n    pass\n", "")))
    prop = ("from shop.cfg import CFG\n\n\nclass Settings:\n    @property\n    def debug(self):\n        CFG['a'] = (5)\n"
            "        return True\n\n\nsettings = Settings()\n")
    base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.m"), cfg=_CFG, o=prop,
                   m="from shop.o import settings\n\nif settings.debug:\n    pass\n")
    add(C("u-an-if-on-a-property-of-an-imported-instance", k, base, edit(base, "shop/m.py", "if settings.debug:\n    pass\n", "")))
    # the same held where the instance is the module's own
    base = project(flow("return CFG['a']", "from shop.cfg import CFG\nimport shop.m"), cfg=_CFG, m=cm + "\nwith override:\n    pass\n")
    add(C("u-held-with-on-the-modules-own-instance-at-load", k, base, edit(base, "shop/m.py", "\nwith override:\n    pass\n", "")))

    # T3 spelled otherwise: suppress imported by name, an alias of contextlib, an ``except`` tuple
    k = "an import guarded otherwise than by a try body"
    for name, m in [
        ("u-held-an-import-under-suppress-imported-by-name",
         "from contextlib import suppress\n\n\ndef f():\n    return 2\n\n\nwith suppress(ImportError):\n    from shop.c import g as f\n"),
        ("u-held-an-import-under-an-alias-of-contextlib",
         "import contextlib as cl\n\n\ndef f():\n    return 2\n\n\nwith cl.suppress(ModuleNotFoundError, ImportError):\n    from shop.c import g as f\n"),
        ("u-held-an-import-under-suppress-of-exception",
         "import contextlib\n\n\ndef f():\n    return 2\n\n\nwith contextlib.suppress(Exception):\n    from shop.c import g as f\n"),
        ("u-an-import-under-a-suppress-bound-to-a-name",
         "import contextlib\n\n\ndef f():\n    return 2\n\n\nquiet = contextlib.suppress(ImportError)\nwith quiet:\n    from shop.c import g as f\n"),
        ("u-held-an-import-under-suppress-in-a-multi-item-with",
         "import contextlib\n\n\ndef f():\n    return 2\n\n\nwith open(__file__), contextlib.suppress(ImportError):\n    from shop.c import g as f\n"),
    ]:
        base = project(flow("return f()", "from shop.m import f"), m=m, c=_RAISES)
        add(C(name, k, base, edit(base, "shop/c.py", "(0)", "(1)")))

    # S13 through a table: a def of the module handed on from a dict or list at load
    k = "a def handed to a call made at load, through a table"
    for name, code in [
        ("u-held-a-key-from-a-dict-of-defs", _HOOK + "T = {'k': hook}\nsorted([1, 2], key=T['k'])\n"),
        ("u-held-a-map-of-a-def-from-a-list", _HOOK + "T = [hook]\nlist(map(T[0], [1]))\n"),
        ("u-held-a-def-from-a-dict-called-at-load", _HOOK + "T = {'k': hook}\nT['k']()\n"),
    ]:
        base = _cfg_project(code)
        add(C(name, k, base, edit(base, "shop/m.py", "(5)", "(6)")))

    # S8 through a table: another module's global set through a display holding the module
    k = "another module's global set through a table"
    for name, code in [
        ("u-held-a-store-through-a-list-of-modules", "from shop import cfg\n\nMODS = [cfg]\nMODS[0].CFG = {'a': (5)}\n"),
        ("u-held-a-setattr-through-a-dict-of-modules", "from shop import cfg\n\nMODS = {'c': cfg}\nsetattr(MODS['c'], 'CFG', {'a': (5)})\n"),
        ("u-held-a-store-through-sys-modules", "import sys\n\nsys.modules['shop.cfg'].CFG = {'a': (5)}\n"),
    ]:
        base = project(flow("return cfg.CFG['a']", "from shop import cfg\nimport shop.m"), cfg=_CFG, m=code)
        add(C(name, k, base, edit(base, "shop/m.py", "(5)", "(6)")))

    # S15, T7 spelled otherwise: an importer or a runner reached as a value at load
    k = "a runner or importer reached as a value"
    for name, code in [
        ("u-held-import-module-bound-to-a-name", "import importlib\n\nimp = importlib.import_module\nimp('shop.x')\n"),
        ("u-held-import-module-from-a-dict", "import importlib\n\nIMP = {'i': importlib.import_module}\nIMP['i']('shop.x')\n"),
        ("u-held-import-module-imported-under-another-name", "from importlib import import_module as load\n\nload('shop.x')\n"),
        ("u-held-exec-from-getattr-of-builtins-by-a-folded-name", "import builtins\n\ngetattr(builtins, 'ex' + 'ec')('import shop.' + 'x')\n"),
        ("u-held-exec-from-vars-of-builtins-by-a-folded-key", "import builtins\n\nvars(builtins)['ex' + 'ec']('import shop.' + 'x')\n"),
        ("u-held-dunder-import-bound-to-a-name", "imp = __import__\nimp('shop.' + 'x')\n"),
    ]:
        base = _log_project("from shop import log\n\nlog.L.append('m1')\n" + code + "log.L.append('m2')\n")
        add(C(name, k, base, edit(base, "shop/x.py", "'x'", "'y'")))
    return pairs


#: the findings not fixed yet, by case name (a strict xfail each)
OPEN: dict[str, str] = {
    # a star import's names are not counted as bindings: a read moved across it keeps the hash
    "u-a-read-before-a-star-import-rebinding": "U1",
    # a rebinding by ``global`` in a def called at load (or in a class body) is no module-level binding
    "u-a-read-before-a-global-rebinding-in-a-def-called-at-load": "U2",
    "u-a-class-body-rebinding-a-module-name-read-later": "U2",
    # the rebound name is read by the body of a def (or an ``__init__``) the statement calls at load
    "u-a-call-of-a-def-reading-the-name-before-a-rebinding": "U3",
    "u-an-instance-whose-init-reads-the-name-before-a-rebinding": "U3",
    # a cost: an annotation never evaluated counts as read at load
    "u-an-annotation-never-evaluated-moved-across-a-rebinding": "U4",
    # T3's rule reads ``with contextlib.suppress(...)`` spelled in the ``with`` only
    "u-an-import-under-a-suppress-bound-to-a-name": "U6",
}

PAIRS: tuple[ProjectPair, ...] = tuple(replace(p, finding=OPEN.get(p.name)) for p in _pairs())


def _chunk_cases() -> list[ChunkCase]:
    cases: list[ChunkCase] = []
    add = cases.append
    for name, before, _, c in _ORDER:
        extra = _extra(name, c)
        add(ChunkCase("u-chunk-held-" + name.removeprefix("u-").removeprefix("held-"), project(flow("return h.f()", "from shop import h"), h=before, **extra), 0))
    return cases


CHUNK_CASES: tuple[ChunkCase, ...] = tuple(replace(c, finding=OPEN.get(c.name)) for c in _chunk_cases())
