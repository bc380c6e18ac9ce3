"""``loom-fp/2`` pairs of fixX2 (session 10): issue 12's P1/P2, runners of text reached otherwise
than by a direct ``exec``/``eval`` of spelled text (``loom_compiler.code_runners``), in the format
of ``fp2_cases_adversarial`` (``test_fp2_fixx2`` judges them, and runs both sides of each live).

Each project's shop/m.py logs ``m1``, runs one statement, logs ``m2``; shop/x.py logs ``x`` (the
edit: ``y``); the flow imports m and returns the log. In a changed pair the statement runs text
that imports shop.x, text spelled so that no literal in the code holds the import
(``'import shop.' + 'x'`` handed to a runner reached as a value, or computed), so only the runner
rule can see it: live the flow returns ``['m1', 'x', 'm2']`` before and ``['m1', 'y', 'm2']``
after. Every changed pair kept its hash on main fa7ac45. The equal pairs are ordinary code near
the same words (``re.compile``, ``ast.literal_eval``, an attribute or keyword named ``exec``,
``timeit.default_timer``, a literal free of first-party imports): nothing imports shop.x, live
or in the closure. Keep this file free of imports beyond the standard library and the case module.
"""

from __future__ import annotations

from dataclasses import replace

from fp2_cases_adversarial import C, E, ChunkCase, ProjectPair, edit, flow, project

#: text that imports shop.x, spelled with no literal holding the import
S = "'import shop.' + 'x'"

#: (name, shop/m.py's definitions, the statement): the statement imports shop.x at load
CHANGED: list[tuple[str, str, str]] = [
    # P1: exec reached as a value
    ("exec-kept-in-a-dict", "", f"R = {{'x': exec}}\nR['x']({S})"),
    ("exec-as-a-default-argument", "\n\ndef f(s, run=exec):\n    run(s)\n", f"f({S})"),
    ("exec-through-tuple-unpacking", "", f"run, _ = exec, 1\nrun({S})"),
    ("exec-as-a-staticmethod", "\n\nclass K:\n    run = staticmethod(exec)\n", f"K.run({S})"),
    ("exec-through-functools-partial", "import functools\n", f"functools.partial(exec, {S})()"),
    ("exec-mapped-over-texts", "", f"list(map(exec, [{S}]))"),
    ("exec-returned-by-eval-of-its-name", "", f"eval('exec')({S})"),
    ("exec-returned-by-eval-of-its-folded-name", "", f"eval('ex' + 'ec')({S})"),
    ("exec-by-a-computed-getattr-of-builtins", "import builtins\n", f"getattr(builtins, 'ex' + 'ec')({S})"),
    ("exec-out-of-vars-of-builtins", "import builtins\n", f"vars(builtins)['exec']({S})"),
    ("exec-of-sys-modules-builtins", "import sys\n", f"sys.modules['builtins'].exec({S})"),
    ("exec-out-of-the-builtins-dunder-dict", "import builtins\n", f"builtins.__dict__['exec']({S})"),
    ("exec-out-of-dunder-builtins", "", f"__builtins__['exec']({S})"),
    ("exec-through-a-builtins-self", "", f"len.__self__.exec({S})"),
    ("builtins-exec-called-with-folded-text", "import builtins\n", f"builtins.exec({S})"),
    ("exec-imported-from-builtins-under-another-name", "from builtins import exec as run\n", f"run({S})"),
    # P2: the standard library's runners of text
    ("an-interactive-interpreter-runsource", "import code\n", f"code.InteractiveInterpreter().runsource({S})"),
    ("an-interactive-console-push", "import code\n", f"code.InteractiveConsole().push({S})"),
    ("a-bdb-run", "import bdb\n", f"bdb.Bdb().run({S})"),
    ("a-cprofile-run-of-a-parameter", ("import cProfile\nimport io\nimport contextlib\n\n\ndef go(s):\n"
                                  "    with contextlib.redirect_stdout(io.StringIO()):\n        cProfile.run(s)\n"), f"go({S})"),
    ("a-profile-run-of-a-parameter", ("import profile\nimport io\nimport contextlib\n\n\ndef go(s):\n"
                                  "    with contextlib.redirect_stdout(io.StringIO()):\n        profile.run(s)\n"), f"go({S})"),
    ("a-timeit-of-folded-text", "import timeit\n", f"timeit.timeit(stmt={S}, number=1)"),
    ("a-timeit-of-a-parameter", "import timeit\n\n\ndef go(s):\n    timeit.timeit(s, number=1)\n", f"go({S})"),
    ("a-timer-of-a-parameter", "from timeit import Timer\n\n\ndef go(s):\n    Timer(s).timeit(1)\n", f"go({S})"),
    ("a-trace-run", "import trace\n", f"trace.Trace(count=0, trace=0).run({S})"),
]

#: ordinary code near the same words: shop.x is imported by nothing, its edit moves no flow
EQUAL: list[tuple[str, str, str]] = [
    ("re-compile", "import re\n", "P = re.compile('a+')"),
    ("ast-literal-eval", "import ast\n", "V = ast.literal_eval('[1]')"),
    ("a-method-named-exec", "\n\nclass K:\n    def exec(self, s):\n        return s\n", f"K().exec({S})"),
    ("a-keyword-named-exec", "", "D = dict(exec=1, eval=2)"),
    ("a-name-called-code", "", "code = {'a': 1}\ncode['a'] = 2"),
    ("timeit-default-timer", "import timeit\n", "T = timeit.default_timer()"),
    ("types-simple-namespace", "import types\n", "NS = types.SimpleNamespace(a=1)"),
    ("builtins-len", "import builtins\n", "N = builtins.len([1])"),
    ("the-builtins-namespace-read-by-literal-names", "import builtins\n",
     "O = __builtins__['open']\nL = vars(builtins)['len']\nG = getattr(builtins, 'print')"),
    ("a-bound-methods-self", "\n\nclass K:\n    def m(self):\n        return 1\n", "O = K().m.__self__"),
    ("a-function-type-in-a-type-test", "from types import FunctionType\nimport types\n",
     "T = isinstance(len, (FunctionType, type)) or type(len) is FunctionType or isinstance(len, types.FunctionType)"),
    ("an-exec-of-a-literal-free-of-first-party-imports", "", "exec('import json')"),
    ("an-eval-of-literal-arithmetic", "", "V = eval('1 + 2')"),
    ("a-timeit-of-literal-text", "import timeit\n", "timeit.timeit('1 + 1', number=1)"),
    ("a-compile-of-literal-text", "", "CODE = compile('1 + 1', 'f', 'eval')"),
]

#: (name, shop/tools.py, shop/m.py, expect): a runner bound in tools, called from m with text that
#: imports shop.x (found on the way, session 10: ``code_runners`` judges a runner where the module's
#: own imports name it, and did not see one another module re-exports)
REEXPORTED: list[tuple[str, str, str, str]] = [
    ("a-timeit-re-exported-by-another-module", "from timeit import timeit\n",
     f"from shop.tools import timeit\n\ntimeit({S}, number=1)\n", "changed"),
    ("exec-re-exported-by-another-module-under-another-name", "from builtins import exec as run\n",
     f"from shop.tools import run\n\nrun({S})\n", "changed"),
    ("the-timeit-module-re-exported-by-another-module", "import timeit as t\n",
     f"from shop.tools import t\n\nt.timeit({S}, number=1)\n", "changed"),
    ("the-code-module-reached-through-another-module", "import code\n",
     f"from shop import tools\n\ntools.code.InteractiveConsole().push({S})\n", "changed"),
    ("a-timeit-re-exported-and-imported-in-a-def", "from timeit import timeit\n",
     f"def go(s):\n    from shop.tools import timeit\n    timeit(s, number=1)\n\n\ngo({S})\n", "changed"),
    ("a-timer-function-re-exported-by-another-module", "from timeit import default_timer\n",
     "from shop.tools import default_timer\n\nT = default_timer()\n", "equal"),
]

_LOG = "L = []\n"
_X = "from shop import log\n\nlog.L.append('x')\n"


def _pairs() -> list[ProjectPair]:
    pairs: list[ProjectPair] = []
    k = "a runner of text reached otherwise than by a direct call with spelled text"
    for rows, make in ((CHANGED, C), (EQUAL, E)):
        for name, defs, stmt in rows:
            m = "from shop import log\n" + defs + "\n\nlog.L.append('m1')\n" + stmt + "\nlog.L.append('m2')\n"
            base = project(flow("return log.L", "from shop import m, log"), log=_LOG, x=_X, m=m)
            pairs.append(make(f"x2-{name}-edited", k, base, edit(base, "shop/x.py", "append('x')", "append('y')")))
    # the statement alone in its module: no other statement of it is in the closure (it is
    # relevant to the flow as code it cannot read run at load: ``closure._runs_unknown_code``)
    for name, defs, stmt in CHANGED:
        base = project(flow("return log.L", "from shop import m, log"), log=_LOG, x=_X, m=defs + "\n\n" + stmt + "\n")
        pairs.append(C(f"x2-{name}-alone-in-its-module-edited", k, base, edit(base, "shop/x.py", "append('x')", "append('y')")))
    # a runner re-exported by another first-party module (``closure._runner_through``)
    for name, tools, m, expect in REEXPORTED:
        base = project(flow("return log.L", "from shop import m, log"), log=_LOG, x=_X, m=m, tools=tools)
        pairs.append((C if expect == "changed" else E)(f"x2-{name}-edited", k, base,
                                                       edit(base, "shop/x.py", "append('x')", "append('y')")))
    # the same reach in a def the flow calls (deferred code): it runs when called
    m = "from shop import log\n\n\ndef go():\n    R = {'x': exec}\n    R['x'](" + S + ")\n"
    base = project(flow("m.go()\nreturn log.L", "from shop import m, log"), log=_LOG, x=_X, m=m)
    pairs.append(C("x2-exec-kept-in-a-dict-in-a-def-the-flow-calls-edited", k, base,
                   edit(base, "shop/x.py", "append('x')", "append('y')")))
    return pairs


_PLUG = "from shop import log\n\nlog.L.append('p')\n"
#: (expect, name, shop/m.py): a file of the package run by path; the edit is in it (``p`` -> ``q``).
#: Found on the way (session 10): a first-party module run by a decided path as a module loads was
#: outside the closure (its code runs as an import of it would), and one run by an undecidable path
#: there was neither widened nor warned about (the statement is in no closure member)
BY_PATH: list[tuple[str, str, str]] = [
    ("changed", "a-module-run-by-a-path-from-its-own-file-at-load",
     "import os\nimport runpy\n\nrunpy.run_path(os.path.join(os.path.dirname(__file__), 'plug.py'))\n"),
    ("changed", "a-module-run-by-a-path-from-the-packages-file-at-load",
     "import os\nimport runpy\nimport shop\n\nrunpy.run_path(os.path.join(os.path.dirname(shop.__file__), 'plug.py'))\n"),
    ("equal", "a-module-run-by-path-in-a-def-nothing-calls",
     "import os\nimport runpy\n\n\ndef load():\n    runpy.run_path(os.path.join(os.path.dirname(__file__), 'plug.py'))\n"),
]


def _by_path_pairs() -> list[ProjectPair]:
    pairs: list[ProjectPair] = []
    for expect, name, m in BY_PATH:
        base = project(flow("return log.L", "from shop import m, log"), log=_LOG, m=m, plug=_PLUG)
        pairs.append((C if expect == "changed" else E)(f"x2-{name}-edited", "a file run by path", base,
                                                       edit(base, "shop/plug.py", "append('p')", "append('q')")))
    return pairs


#: the findings not fixed yet, by pair name (a strict xfail each)
OPEN: dict[str, str] = {}

PAIRS: tuple[ProjectPair, ...] = tuple(replace(p, finding=OPEN.get(p.name)) for p in _pairs() + _by_path_pairs())

_AROUND = "from shop import log\n{defs}\n\nlog.L.append('m1')\n{stmt}\nlog.L.append('m2')\n"


def _chunk_cases() -> list[ChunkCase]:
    """A chunk rewrites every first-party import to its own module, but not one inside text run
    as code: text the build cannot read run at load (``chunk_limits._refuse_computed_text``), or
    literal text importing first-party code, given to any runner (``code_runners``), is refused
    at the statement that runs it; text free of first-party imports builds and runs as live."""
    cases: list[ChunkCase] = []
    rows = [(name, defs, stmt, len((_AROUND.format(defs=defs, stmt="")).split("\n")) - 2) for name, defs, stmt in CHANGED]
    rows += [
        ("a-timeit-of-a-literal-importing-first-party-code", "import timeit\n", "timeit.timeit('import shop.x', number=1)",
         None),
        ("a-timer-imported-by-name-of-a-literal-importing-first-party-code", "from timeit import Timer as T\n",
         "T('import shop.x').timeit(1)", None),
    ]
    # a runner another module re-exports, called at load with text the build cannot read
    for name, tools, m, expect in REEXPORTED:
        if expect == "changed":
            body = m.replace(S, "'import shop.' + 'x'")
            cases.append(ChunkCase(f"x2-module-imported-by-{name}-is-refused", project(
                flow("return log.L", "from shop import m, log"), log=_LOG, x=_X, tools=tools,
                m="from shop import log\n" + body), 0, refused="shop/m.py:"))
    # held (``EQUAL`` below also builds): a builtin read from the namespace by its literal name
    cases.append(ChunkCase("x2-a-builtin-read-from-dunder-builtins-by-name-runs-as-live",
                           project(flow("return log.L", "from shop import m, log"), log=_LOG, x=_X,
                                   m=_AROUND.format(defs="", stmt="O = __builtins__['len']\nlog.L.append(O('ab'))")), 0))
    for name, defs, stmt, line in rows:
        m = _AROUND.format(defs=defs, stmt=stmt)
        if line is None:
            line = m.split("\n").index(stmt.split("\n")[0]) + 1
        cases.append(ChunkCase(f"x2-module-imported-by-{name}-is-refused",
                               project(flow("return log.L", "from shop import m, log"), log=_LOG, x=_X, m=m), 0,
                               refused="shop/m.py:"))
    for name, defs, stmt in EQUAL:
        cases.append(ChunkCase(f"x2-{name}-runs-as-live", project(flow("return log.L", "from shop import m, log"),
                                                                   log=_LOG, x=_X, m=_AROUND.format(defs=defs, stmt=stmt)), 0))
    return cases


_LOAD = "\n\ndef load(*a):\n    import shop.x\n    return 0\n"

#: K1 (chunk side, ``load_calls``): (name, definitions, statement); the chunk starts module x where
#: live Python runs ``load`` (or nowhere, as live)
K1: list[tuple[str, str, str]] = [
    ("a-registration-fired-by-hand-by-atexit", "import atexit\n" + _LOAD, "atexit.register(load)\natexit._run_exitfuncs()"),
    ("a-registration-fired-by-hand-after-another-statement", "import atexit\n" + _LOAD,
     "atexit.register(load)\nlog.L.append('mid')\natexit._run_exitfuncs()"),
    ("a-decorator-registration-fired-by-hand", "import atexit\n\n\n@atexit.register\ndef load():\n    import shop.x\n",
     "atexit._run_exitfuncs()"),
    ("a-signal-handler-raised", "import signal\n" + _LOAD, "signal.signal(signal.SIGUSR1, load)\nsignal.raise_signal(signal.SIGUSR1)"),
    ("a-signal-handler-raised-by-os-kill", "import os\nimport signal\n" + _LOAD,
     "signal.signal(signal.SIGUSR2, load)\nos.kill(os.getpid(), signal.SIGUSR2)"),
    ("a-list-sort-key", _LOAD, "[2, 1].sort(key=load)"),
    ("a-lambda-called-with-the-def", _LOAD, "(lambda f: f())(load)"),
    ("a-sorted-key", _LOAD, "sorted([1], key=load)"),
    ("a-min-key", _LOAD, "min([1], key=load)"),
    ("a-max-key", _LOAD, "max([1, 2], key=load)"),
    ("a-map-consumed-by-list", _LOAD, "list(map(load, [1]))"),
    ("a-filter-consumed-by-a-loop", _LOAD, "for _ in filter(load, [1]):\n    pass"),
    ("a-map-consumed-by-a-starred-display", _LOAD, "[*map(load, [1])]"),
    # held: nothing runs ``load`` at load
    ("a-registration-never-fired", "import atexit\n" + _LOAD, "atexit.register(load)"),
    ("a-signal-handler-never-raised", "import signal\n" + _LOAD, "signal.signal(signal.SIGUSR1, load)"),
    ("a-map-never-consumed", _LOAD, "M = map(load, [1])"),
    ("a-filter-never-consumed", _LOAD, "F = filter(load, [1])"),
    ("a-def-stored-as-a-dict-default", _LOAD, "{}.get(1, load)"),
    ("a-def-appended-to-a-list-display", _LOAD, "[].append(load)"),
]


def _k1_cases() -> list[ChunkCase]:
    return [ChunkCase(f"x2-k1-module-imported-by-{name}-runs-in-order",
                      project(flow("return log.L", "from shop import m, log"), log=_LOG, x=_X,
                              m=_AROUND.format(defs=defs, stmt=stmt)), 0) for name, defs, stmt in K1]


CHUNK_CASES: tuple[ChunkCase, ...] = tuple(replace(c, finding=OPEN.get(c.name)) for c in _chunk_cases() + _k1_cases())
