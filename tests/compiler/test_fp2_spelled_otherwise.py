"""Import-time calls spelled otherwise (breaker3's D6, D7): the rule of ``effects.import_time_runs``
and ``closure._runs_effects`` in both directions. A module statement that calls something it
cannot resolve to a known callee (a table, an alias, a loop variable, a call's result) may run
every function value that flows into it; a process-wide API is matched by what its name resolves
to, not by its spelling; a star import binds what the binding model says it binds. Each
``changed`` pair is a behavioural edit the hash must see; each ``equal`` pair is the look-alike
the rule must not fire on (DESIGN §6: widen where the reach cannot be decided, never blindly).

breaker3's own pairs (``fp2_cases_adversarial._breaker3_pairs``) are the first attack of each
kind; these are the next ones. Every ``changed`` pair fails on main before the rule, but those
marked "held before" (an older rule sees them: the function is an argument, or its name an
import); they guard the same route. Also here: a builtin replaced inside a function called at
import time reaches the flows that use that builtin, not every flow using some builtin (the
review's collateral note on session 4).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fp2_cases_adversarial import C, E, ProjectPair, edit, flow, project
from pair_harness import assert_pair, assert_well_formed

CFG = "CFG = {'a': 1}\n"
READS = "from shop.cfg import CFG\n"
SETUP = READS + "\n\ndef setup(*a):\n    CFG['a'] = 5\n"
FIVE = ("shop/g.py", "= 5", "= 6")
ENC = ("import codecs\n\n\ndef _enc(s, errors='strict'):\n    return (s.upper().encode(), len(s))\n\n\ndef search(name):\n"
       "    if name == 'shout':\n        return codecs.CodecInfo(_enc, None, name='shout')\n    return None\n\n\n")
SHOUT = ("shop/__init__.py", "s.upper()", "s.lower()")


def _d6() -> list[ProjectPair]:
    out: list[ProjectPair] = []
    add = out.append
    k = "import-time calls: the callee spelled otherwise"
    for name, head in [
        # (held before D6/D7: a guard)
        ("table-imported-from-another-module", "from shop.hooks import HOOKS\n\nHOOKS['s']()\n"),
        ("alias-of-an-alias", "from shop.g import setup\n\na = setup\nb = a\nb()\n"),
        # (held before D6/D7: a guard)
        ("function-kept-as-an-attribute-of-a-namespace", "import types\n\nfrom shop.g import setup\n\nns = types.SimpleNamespace(f=setup)\nns.f()\n"),
        # (held before D6/D7: a guard)
        ("table-filled-by-a-method-call-then-looped", "from shop.g import setup\n\nHOOKS = []\nHOOKS.append(setup)\nfor h in HOOKS:\n    h()\n"),
        ("table-filled-by-a-subscript-store", "from shop.g import setup\n\nHOOKS = {}\nHOOKS['s'] = setup\nHOOKS['s']()\n"),
        ("value-returned-by-a-call-of-another-module", "from shop.g import pick\n\ns = pick()\ns()\n"),
        ("function-returned-by-a-function-of-the-module", "from shop.g import setup\n\n\ndef pick():\n    return setup\n\n\npick()()\n"),
        # (held before D6/D7: a guard)
        ("callee-chosen-by-a-conditional-expression", "from shop.g import setup\n\n(setup if CFG else print)()\n"),
        ("table-method-result-called", "from shop.g import setup\n\nHOOKS = {'s': setup}\nHOOKS.get('s')()\n"),
        ("star-import-of-a-module-that-re-exports", "from shop.api import *\n\nsetup()\n"),
    ]:
        base = project(flow("return CFG['a']", READS + head), cfg=CFG, g=SETUP + "\n\ndef pick():\n    return setup\n",
                       hooks="from shop.g import setup\n\nHOOKS = {'s': setup}\n", api="from shop.g import setup\n")
        add(C(name, k, base, edit(base, *FIVE)))
    # a store through a name only a star import binds, in a module that runs for the flow
    base = project(flow("return CFG['a']", READS + "import shop.patch\n"), cfg=CFG, patch="from shop.cfg import *\n\nCFG['a'] = 5\n")
    add(C("store-through-a-name-a-star-import-binds", k, base, edit(base, "shop/patch.py", "= 5", "= 6")))
    # the table in the package's __init__, the flow in a module of it
    base = project(flow("return CFG['a']", READS), cfg=CFG, g=SETUP, init="from shop.g import setup\n\nfor f in (setup,):\n    f()\n")
    add(C("loop-over-a-tuple-in-the-package-init", k, base, edit(base, *FIVE)))
    # the table called inside a def of the module that is called at import time
    base = project(flow("return CFG['a']", READS + "from shop.g import setup\n\nHOOKS = {'s': setup}\n\n\ndef boot():\n"
                        "    HOOKS['s']()\n\n\nboot()\n"), cfg=CFG, g=SETUP)
    add(C("table-called-in-a-function-called-at-import", k, base, edit(base, *FIVE)))
    # a def of the module registered into a table by a decorator, the table looped at import time
    base = project(flow("return CFG['a']", READS + "from shop.g import setup\n\nHOOKS = []\n\n\ndef hook(f):\n    HOOKS.append(f)\n"
                        "    return f\n\n\n@hook\ndef boot():\n    setup()\n\n\nfor h in HOOKS:\n    h()\n"), cfg=CFG, g=SETUP)
    add(C("def-registered-by-a-decorator-then-looped", k, base, edit(base, *FIVE)))

    # equal: the same spellings where nothing calls the function at import time
    for name, head in [
        ("table-of-functions-never-called-at-import", "from shop.g import setup\n\nHOOKS = {'s': setup}\n"),
        ("table-called-only-inside-a-function-nobody-calls", "from shop.g import setup\n\nHOOKS = {'s': setup}\n\n\n"
                                                              "def run_hooks():\n    HOOKS['s']()\n"),
        ("alias-never-called", "from shop.g import setup\n\ns = setup\n"),
        ("loop-over-functions-that-only-prints-them", "from shop.g import setup\n\nfor f in [setup]:\n    print(f.__name__)\n"),
        ("opaque-call-whose-inputs-hold-no-function-of-setup",
         "from shop.g import setup\n\nHOOKS = {'p': print}\nHOOKS['p']('hi')\n"),
        ("builtin-container-method-on-a-table-of-functions", "from shop.g import setup\n\nHOOKS = {'s': setup}\nHOOKS.update(t=len)\n"),
        ("table-called-only-inside-another-flow", "from shop.g import setup\n\nHOOKS = {'s': setup}\n\n\n@flow('other')\n"
                                                  "def other(ctx, o):\n    HOOKS['s']()\n"),
        ("star-import-of-a-module-without-the-name-called", "from shop.other import *\n\nsetup = print\nsetup()\n"),
    ]:
        base = project(flow("return CFG['a']", READS + head), cfg=CFG, g=SETUP, other="X = 1\n")
        add(E(name, k, base, edit(base, *FIVE)))
    return out


def _d7() -> list[ProjectPair]:
    out: list[ProjectPair] = []
    add = out.append
    k = "import-time calls: process-wide state spelled otherwise"
    for name, call in [
        # (held before D6/D7: a guard)
        ("codec-registered-through-an-import-alias", "from codecs import register as r\n\nr(search)\n"),
        # (held before D6/D7: a guard)
        ("codec-registered-through-a-module-alias", "import codecs as c\n\nc.register(search)\n"),
        ("codec-registered-through-a-loop-over-registries", "for reg in [codecs.register]:\n    reg(search)\n"),
        ("codec-registered-through-an-alias-called-in-a-function", "reg = codecs.register\n\n\ndef boot():\n    reg(search)\n\n\nboot()\n"),
        ("codec-registered-through-a-local-alias-in-a-function", "def boot():\n    reg = codecs.register\n    reg(search)\n\n\nboot()\n"),
        ("codec-registered-through-a-nested-function-call", "def _inner():\n    codecs.register(search)\n\n\ndef boot():\n    _inner()\n\n\nboot()\n"),
        # (held before D6/D7: a guard)
        ("codec-registered-through-getattr", "getattr(codecs, 'register')(search)\n"),
        ("codec-registered-through-a-table", "REGS = {'c': codecs.register}\nREGS['c'](search)\n"),
        ("codec-registered-through-a-table-in-a-function-called-at-import",
         "REGS = {'c': codecs.register}\n\n\ndef boot():\n    REGS['c'](search)\n\n\nboot()\n"),
        ("codec-registered-through-a-star-import", "from codecs import *\n\nregister(search)\n"),
    ]:
        base = project(flow("return 'ab'.encode('shout')"), init=ENC + call)
        add(C(name, k, base, edit(base, *SHOUT)))
    # in another module, imported by the package: the function that registers is called there
    base = project(flow("return 'ab'.encode('shout')"), init="from . import boot\n",
                   codec=ENC.replace("import codecs\n", "import codecs\n", 1) + "\n\ndef install():\n    r = codecs.register\n    r(search)\n",
                   boot="from shop.codec import install\n\nrun = install\nrun()\n")
    add(C("codec-registered-by-an-alias-of-an-imported-function", k, base, edit(base, "shop/codec.py", "s.upper()", "s.lower()")))

    # equal: the same spellings of a lookup, and a registration nothing runs at import time
    for name, call in [
        ("alias-of-codecs-lookup-called", "look = codecs.lookup\nlook('utf-8')\n"),
        ("codecs-register-kept-in-a-name-never-called", "reg = codecs.register\n"),
        ("register-inside-a-function-nobody-calls", "def boot():\n    codecs.register(search)\n"),
        ("register-inside-a-function-only-a-flow-calls", "def boot():\n    codecs.register(search)\n\n\nRUN = [boot]\n"),
        ("local-function-called-at-import-that-only-looks-up", "def boot():\n    look = codecs.lookup\n    look('utf-8')\n\n\nboot()\n"),
    ]:
        base = project(flow("return 'ab'.encode('shout')"), init=ENC + call)
        add(E(name, k, base, edit(base, *SHOUT)))
    return out


def _builtins() -> list[ProjectPair]:
    """A store into ``builtins`` inside a function called at import time changes the builtin it
    names, for the flows that use that builtin: not every flow that uses any builtin (B3's
    per-name rule, kept through ``closure.call_effects``)."""
    k = "import-time calls: a builtin replaced inside a called function"
    patch = ("import builtins\n\n_len = len\n\n\ndef _mylen(x):\n    return _len(x) + 1\n\n\n"
             "def boot():\n    builtins.len = _mylen\n\n\nboot()\n")
    edit_ = ("shop/patch.py", "+ 1", "+ 2")
    base = project(flow("return len(o)"), init="from . import patch\n", patch=patch)
    out = [C("builtin-replaced-by-a-called-function-used-by-the-flow", k, base, edit(base, *edit_))]
    base = project(flow("return str(o)"), init="from . import patch\n", patch=patch)
    out.append(E("builtin-replaced-by-a-called-function-the-flow-does-not-use", k, base, edit(base, *edit_)))
    return out


PAIRS = tuple(_d6() + _d7() + _builtins())


def test_the_table_is_well_formed() -> None:
    assert_well_formed(PAIRS)


@pytest.mark.parametrize("pair", [pytest.param(p, id=p.name) for p in PAIRS])
def test_pair(tmp_path: Path, pair: ProjectPair) -> None:
    assert_pair(tmp_path, pair)
