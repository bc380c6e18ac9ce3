"""fixX's chunk cases (breaker7's K4, session 8): code run from text at load.

Each shop/m.py logs ``m1``, runs one statement, logs ``m2``; shop/x.py logs ``x``. A chunk rewrites
every first-party import to its own module, but not one inside text run as code: text the build
cannot read (computed: a concatenation, a constant, an f-string, ``join``, ``%``; a string calling
``__import__``; ``exec`` read as a value) run at load imported the LIVE ``shop.x`` in the chunk
(unpinned code). The build now refuses the flow, naming the call (``chunk_limits.
_refuse_computed_text``). The strict xfails of session 9 are green since fixX2 (session 10): a
call of ``exec`` read through a dict is counted (``code_runners``: the statement can bind any
name) and refused; an import by a name folded from literals (``'shop.' + 'x'``) is the import of
the name it spells, which the chunk's order starts where live code runs it (``chunk_order.
_dynamic_targets``), and one computed from a constant is refused. Held: a literal free of first-party imports, computed text in a def no
load-time code calls, build as before."""

from __future__ import annotations

from dataclasses import replace

from fp2_cases_adversarial import ChunkCase, flow, project

#: cases still failing (none since fixX2: ``exec`` read through a dict is a statement that can bind
#: any name, and a name folded from literals is started by the chunk's order where live code runs it)
OPEN: dict[str, str] = {}

_LOG = "L = []\n"
_X = "from shop import log\n\nlog.L.append('x')\n"


def _chunk_cases() -> list[ChunkCase]:
    cases: list[ChunkCase] = []
    # (name, definitions, the statement, refused at "shop/m.py:<line>:" or None: builds, runs as live)
    for name, defs, stmt, refused in [
        ("a-concatenated-exec-string", "", "exec('import shop.' + 'x')", 5),
        ("an-exec-of-a-module-constant", "CODE = 'import shop.x'\n", "exec(CODE)", 6),
        ("an-exec-of-an-f-string", "N = 'x'\n", "exec(f'import shop.{N}')", 6),
        ("an-exec-of-a-join", "", "exec(' '.join(['import', 'shop.x']))", 5),
        ("an-exec-of-a-percent-format", "", "exec('import shop.%s' % 'x')", 5),
        ("an-eval-of-a-string-calling-import", "", "eval(\"__import__('shop.x')\")", 5),
        ("an-eval-of-a-computed-string", "", "eval('__import__(\"shop.' + 'x\")')", 5),
        ("a-compile-of-a-computed-string", "", "exec(compile('import shop.' + 'x', 'f', 'exec'))", 5),
        ("exec-read-through-a-dict", "", "R = {'x': exec}\nR['x']('import shop.x')", 5),
        ("a-def-running-computed-text-called-at-load", "def run(s):\n    exec(s)\n", "run('import shop.x')", 3),
        ("a-class-whose-init-runs-computed-text", "class K:\n    def __init__(self, s):\n        exec(s)\n",
         "K('import shop.x')", 4),
        # a name folded from literals is the literal it spells: the chunk starts its own x there (fixX2)
        ("an-import-module-of-a-computed-name", "import importlib\n", "importlib.import_module('shop.' + 'x')", None),
        ("a-dunder-import-of-a-computed-name", "", "__import__('shop.' + 'x')", None),
        ("an-import-module-of-a-name-computed-from-a-constant", "import importlib\nN = 'x'\n",
         "importlib.import_module('shop.' + N)", 7),
        # held: no first-party code imported from text, or the text runs at no load
        ("an-exec-of-a-literal-free-of-first-party-imports", "", "exec('import json')", None),
        ("a-def-running-computed-text-nothing-calls-at-load", "def run(s):\n    exec('import shop.' + s)\n",
         "X = 1", None),
        ("a-lambda-running-computed-text-never-called", "", "F = lambda s: exec(s)", None),
    ]:
        m = "from shop import log\n" + defs + "\n\nlog.L.append('m1')\n" + stmt + "\nlog.L.append('m2')\n"
        cases.append(ChunkCase(f"x-module-imported-by-{name}" + ("-is-refused" if refused else "-runs-as-live"),
                               project(flow("return log.L", "from shop import m, log"), log=_LOG, x=_X, m=m), 0,
                               refused=None if refused is None else f"shop/m.py:{refused}:"))
    return cases


#: no code-hash pairs yet (the benchmark's pair tables read every ``fp2_cases_*.py``)
PAIRS: tuple = ()

CHUNK_CASES: tuple[ChunkCase, ...] = tuple(replace(c, finding=OPEN.get(c.name)) for c in _chunk_cases())
