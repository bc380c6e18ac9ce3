"""Chunks load and run exactly as the live modules do, for any import graph Python accepts.

``chunk_order`` replays Python's execution of the modules (imports, cycles included) to place the
bundled members; ``chunk._Namespaces`` makes each module alias a namespace that exists before its
members and gains each one right after its definition. The property test generates packages with
2-, 3- and 4-module import cycles through module attributes, modules imported under two aliases,
cross-module base classes and constants computed at load time; every graph that imports live (in a
fresh interpreter) must give the same results from its chunk (in another fresh interpreter that
cannot import the package at all).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from loom_compiler.bundle.build import build_project
from loom_compiler.bundle.chunk_order import execution_order, import_schedule
from loom_compiler.config import load_config


class _Unit:
    def __init__(self, line: int, source: str) -> None:
        self.line = line
        self.source = source


class _Summary:
    def __init__(self, module: str, units: list[tuple[int, str]], is_package: bool = False) -> None:
        self.module = module
        self.is_package = is_package
        self.units = [_Unit(line, src) for line, src in units]


def test_import_schedule_resolves_forms_and_skips_function_bodies():
    s = _Summary("app.sub.a", [
        (1, "import app.b as b\n"),
        (2, "from . import c, d as dd\n"),
        (3, "from ..e import f\n"),
        (4, "def later():\n    import app.lazy\n"),
        (6, "try:\n    import app.opt\nexcept ImportError:\n    pass\n"),
        (10, "x = 1  # no import here\n"),
    ])
    assert import_schedule(s) == (
        (1, ("app", "app.b")),
        (2, ("app", "app.sub", "app.sub.c", "app.sub.d")),
        (3, ("app", "app.e", "app.e.f")),
        (6, ("app", "app.opt")),
    )


def test_import_schedule_counts_literal_importer_calls_at_load_by_binding():
    # E7: a literal dynamic import at load starts its module as an import statement does
    s = _Summary("app.sub.a", [
        (1, "import importlib as il\n"),
        (2, "from importlib import import_module\n"),
        (3, "x = __import__('app.x', fromlist=['f', 'g'])\n"),
        (4, "y = il.import_module('..y', __package__)\n"),
        (5, "z = import_module('.z', 'app')\n"),
        (6, "@__import__('app.w').w.wrap\ndef g():\n    import_module('app.lazy')\n"),
        (9, "v = __import__('v', globals(), None, ['h'], 1)\n"),
        (10, "u = il.import_module(name)  # computed: not scheduled\n"),
    ])
    assert import_schedule(s) == (
        (1, ("importlib",)),
        (2, ("importlib", "importlib.import_module")),
        (3, ("app", "app.x", "app.x.f", "app.x.g")),
        (4, ("app", "app.y")),
        (5, ("app", "app.z")),
        (6, ("app", "app.w")),
        (9, ("app", "app.sub", "app.sub.v", "app.sub.v.h")),
    )


def test_import_schedule_counts_the_lazy_imports_of_a_def_the_module_runs_at_load():
    # F3: a statement running a def of the module (``Unit.runs``) imports what the def's body
    # imports, through the defs it names; a def nothing runs at load imports nothing then
    from loom_compiler.analysis import analyse_module

    source = (
        "import importlib\n\n\ndef load():\n    return importlib.import_module('app.x')\n\n\n"
        "def outer():\n    from .y import g\n    return load()\n\n\ndef unused():\n    import app.z\n\n\n"
        "F = outer().f()\n")
    summary = analyse_module(source, module="app.m", path="app/m.py")
    assert import_schedule(summary) == ((1, ("importlib",)), (17, ("app", "app.y", "app.y.g", "app.x")))


def test_import_schedule_leaves_a_project_function_named_like_an_importer_alone():
    s = _Summary("app.a", [
        (1, "def import_module(name):\n    return name\n"),
        (3, "def __import__(name, fromlist=()):\n    return name\n"),
        (5, "x = import_module('app.x')\n"),
        (6, "y = __import__('app.y')\n"),
        (7, "class importlib:\n    import_module = staticmethod(len)\n"),
        (9, "z = importlib.import_module('app.z')\n"),
    ])
    assert import_schedule(s) == ()


def test_a_cycle_runs_the_imported_module_first_as_python_does():
    members = [("a.fa", "p.a", 5), ("a.top", "p.a", 1), ("b.fb", "p.b", 3), ("f.run", "p.flows", 9)]
    schedules = {"p.flows": ((1, ("p", "p.a")),), "p.a": ((2, ("p", "p.b")),), "p.b": ((1, ("p", "p.a")),)}
    # flows imports a; a defines `top` (line 1), then imports b (line 2), which finds a started
    # (the cycle) and runs whole; then a goes on with `fa`; the flow last
    assert execution_order(members, "p.flows", schedules, {}) == ["a.top", "b.fb", "a.fa", "f.run"]


# -- generated import graphs ---------------------------------------------------------------------------


def _graph(k: int, rng: random.Random) -> dict[str, str]:
    """The files of package ``g<k>``: modules m0..m<n-1> in an import cycle, and ``flows``."""
    pkg = f"g{k}"
    n = rng.choice([2, 3, 3, 4])
    edges = {(i, (i + 1) % n) for i in range(n)}  # the cycle m0 -> m1 -> ... -> m0
    edges |= {(i, j) for i in range(n) for j in range(n) if i != j and rng.random() < 0.3}
    files: dict[str, str] = {f"{pkg}/__init__.py": ""}
    spell: dict[tuple[int, int], list[str]] = {}  # (from, to) -> how module `from` names module `to`
    extras: list[str] = []  # load-time members of m0 (``L0``, ``D0``) the flow reads
    for i in range(n):
        imports, names = [], []
        for j in sorted(j for (a, j) in edges if a == i):
            form = rng.choice(["alias", "from", "dotted", "two aliases"])
            if form == "alias":
                imports.append(f"import {pkg}.m{j} as a{j}")
                spell[(i, j)] = [f"a{j}"]
            elif form == "from":
                imports.append(f"from {pkg} import m{j}")
                spell[(i, j)] = [f"m{j}"]
            elif form == "dotted":
                imports.append(f"import {pkg}.m{j}")
                spell[(i, j)] = [f"{pkg}.m{j}"]
            else:
                imports += [f"import {pkg}.m{j} as a{j}", f"from {pkg} import m{j} as b{j}"]
                spell[(i, j)] = [f"a{j}", f"b{j}"]
        rng.shuffle(imports)
        body: list[str] = []
        funcs = [f"f{i}_{t}" for t in range(rng.randint(1, 3))]
        for t, name in enumerate(funcs):
            calls = []
            for _ in range(rng.randint(0, 2)):
                targets = [j for (a, j) in edges if a == i]
                j = rng.choice(targets)
                via = rng.choice(spell[(i, j)])
                calls.append(f"{via}.f{j}_0(d - 1)")
            if t and rng.random() < 0.5:
                calls.append(f"f{i}_0(d - 1)")
            total = " + ".join(calls) or "0"
            body.append(f"def {name}(d):\n    return {i * 10 + t} + (({total}) if d > 0 else 0)\n")
        body.append(f"K{i} = {rng.randint(1, 99)}\n")
        body.append(f"class C{i}:\n    base = K{i}\n\n    def v(self):\n        return self.base + f{i}_0(1)\n")
        # load-time uses across modules: Python accepts them in one import order only
        load_time = rng.random() < 0.5
        if load_time:
            j = rng.choice([j for (a, j) in edges if a == i])
            via = rng.choice(spell[(i, j)])
            kind = rng.choice(["constant", "base"])
            if kind == "constant":
                body.append(f"L{i} = {via}.K{j} + 1\n")
            else:
                body.append(f"class D{i}({via}.C{j}):\n    pass\n")
            if i == 0:
                extras.append("L0" if kind == "constant" else "D0().v()")
        head = imports if load_time or rng.random() < 0.6 else []
        tail = [] if head else imports  # imports at the bottom: the module's body runs first
        text = "\n".join(head) + "\n\n\n" + "\n\n".join(body) + "\n" + "\n".join(tail) + "\n"
        files[f"{pkg}/m{i}.py"] = text
        names.extend(funcs)
    first = rng.choice(["alias", "two aliases"])
    if first == "alias":
        imp, via = [f"import {pkg}.m0 as root"], ["root"]
    else:
        imp, via = [f"import {pkg}.m0 as root", f"from {pkg} import m0 as again"], ["root", "again"]
    uses = [f"{rng.choice(via)}.f0_0(d)", f"{rng.choice(via)}.C0().v()", f"{rng.choice(via)}.K0"]
    uses += [f"{rng.choice(via)}.{extra}" for extra in extras]
    if len(via) == 2:
        uses.append("root is again")  # one module, one object, whatever the alias
    files[f"{pkg}/flows.py"] = (
        "from loom_runtime import flow\n" + "\n".join(imp) + "\n\n\n"
        f"@flow({pkg!r})\ndef run(ctx, d):\n    return [{', '.join(uses)}]\n"
    )
    return files


_LIVE = r"""
import importlib, json, sys
out = {}
for k in sys.argv[1:]:
    try:
        out[k] = importlib.import_module(f"g{k}.flows").run(None, 3)
    except Exception as exc:  # the graph Python itself refuses: not compared
        out[k] = {"refused": f"{type(exc).__name__}: {exc}"}
print(json.dumps(out))
"""

_CHUNKS = r"""
import json, sys
from loom_runtime import Registry
registry = Registry.from_manifest(sys.argv[1])
out = {}
for k in sys.argv[2:]:
    try:
        out[k] = registry.current(f"g{k}").definition.fn(None, 3)
    except Exception as exc:
        out[k] = {"chunk failed": f"{type(exc).__name__}: {exc}"}
if any(m.split(".")[0].startswith("g") and m.split(".")[0][1:].isdigit() for m in sys.modules):
    out["imported live"] = sorted(m for m in sys.modules if m.startswith("g"))
print(json.dumps(out))
"""


def _run(code: str, args: list[str], cwd: Path, pythonpath: list[str]) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(pythonpath)}
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_generated_cyclic_import_graphs_run_from_their_chunks_as_they_run_live(tmp_path: Path):
    rng = random.Random(20261201)
    root = tmp_path / "project"
    graphs = 60
    packages = [f"g{k}" for k in range(graphs)]
    for k in range(graphs):
        for rel, text in _graph(k, rng).items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
    (root / "pyproject.toml").write_text(
        "[tool.loom]\npackages = [" + ", ".join(f'"{p}"' for p in packages) + "]\n")
    runtime_path = str(Path(__file__).resolve().parents[2])  # loom_runtime, never the project
    keys = [str(k) for k in range(graphs)]
    live = _run(_LIVE, keys, root, [str(root), runtime_path])
    accepted = [k for k in keys if not (isinstance(live[k], dict) and "refused" in live[k])]
    assert len(accepted) >= graphs // 3, f"too few graphs Python accepts to prove anything: {live}"
    report = build_project(load_config(root))
    assert report.ok, report.errors
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    chunks = _run(_CHUNKS, [str(root / "build/loom/manifest.json"), *accepted], elsewhere, [runtime_path])
    assert "imported live" not in chunks, chunks["imported live"]
    mismatches = {k: (live[k], chunks[k]) for k in accepted if chunks[k] != live[k]}
    assert not mismatches, "\n".join(
        f"g{k}: live {a!r} != chunk {b!r}\n" + textwrap.indent((root / f"g{k}/m0.py").read_text(), "    ")
        for k, (a, b) in list(mismatches.items())[:3])


# -- the walk, against the replay it replaced --------------------------------------------------------


def _reference_order(members, start, schedules, uses, started_out=None):
    """``execution_order`` as first written (every event of every module walked by index, each
    module's events built and sorted anew per call): the specification the faster walk keeps."""
    by_module: dict[str, list[tuple[int, str]]] = {}
    for key, module, line in members:
        by_module.setdefault(module, []).append((line, key))
    known = set(by_module) | set(schedules)
    rank: dict[str, int] = {}
    started: set[str] = set()

    def schedule_of(module):
        if module in schedules:
            return schedules[module]
        used = sorted({m for m in uses.get(module, ()) if m != module})
        return ((0, tuple(t for m in used for t in _chain(m))),) if used else ()

    def drive(module):
        stack, positions = [], []

        def enter(m):
            if m in started or m not in known:
                return
            started.add(m)
            events = [(line, 0, targets) for line, targets in schedule_of(m)]
            events += [(line, 1, key) for line, key in by_module.get(m, ())]
            events.sort(key=lambda e: (e[0], e[1]))
            stack.append(events)
            positions.append(0)

        for first in _chain(module):
            enter(first)
            while stack:
                events, i = stack[-1], positions[-1]
                if i >= len(events):
                    stack.pop()
                    positions.pop()
                    continue
                _, kind, what = events[i]
                if kind == 1:
                    positions[-1] = i + 1
                    rank.setdefault(what, len(rank))
                    continue
                targets = [t for t in what if t not in started and t in known]
                if not targets:
                    positions[-1] = i + 1
                    continue
                enter(targets[0])

    drive(start)
    if started_out is not None:
        started_out.update(started)
    for module in sorted({m for _, m, _ in members} - started):
        drive(module)
    late = sorted((module, line, key) for key, module, line in members if key not in rank)
    return sorted((key for key, _, _ in members if key in rank), key=rank.__getitem__) + [key for _, _, key in late]


def _chain(dotted):
    parts = dotted.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def test_the_walk_orders_as_the_replay_it_replaced_with_schedules_shared_between_chunks():
    """Random import graphs (cycles, ``import a, b`` where ``a`` starts ``b``, a target named
    twice, unknown and absent modules, members on an import's own line, modules without a
    schedule): each chunk's order, and the modules it starts, are the reference's, while the
    chunks share one table of the schedules' events, as a build's do."""
    rng = random.Random(7)
    for _ in range(300):
        names = [f"p.m{i}" for i in range(rng.randint(1, 7))]
        pool = ["p", *names, "p.gone", "q"]
        schedules = {}
        for m in ["p", *names]:
            if rng.random() < 0.15:
                continue  # no schedule: its members' uses stand in
            lines = sorted(rng.sample(range(1, 12), rng.randint(0, 4)))
            schedules[m] = tuple((line, tuple(rng.choice(pool) for _ in range(rng.randint(1, 3)))) for line in lines)
        shared: dict = {}
        for _ in range(4):  # chunks of one build: the same schedule objects, other members and starts
            members = [(f"{m}:{k}", m, rng.randint(0, 12)) for m in rng.sample(["p", *names], rng.randint(1, len(names) + 1))
                       for k in range(rng.randint(1, 3))]
            uses = {m: set(rng.sample(pool, 2)) for m in ["p", *names]}
            known_schedules = {m: s for m, s in schedules.items() if rng.random() < 0.9}
            start = rng.choice(names)
            want_started: set[str] = set()
            got_started: set[str] = set()
            want = _reference_order(members, start, known_schedules, uses, want_started)
            got = execution_order(members, start, known_schedules, uses, got_started, events=shared)
            assert (got, got_started) == (want, want_started)
