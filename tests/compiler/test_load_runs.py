"""``load_runs``: what a module-level statement runs at load and what that code imports, the one
rule the fingerprint and the chunk's order read. The pair tables (``fp2_cases_adversarial``:
``_load_runs_pairs``, ``_load_runs_chunk_cases``) judge it end to end; these pin the parts a
table cannot see: answers served again only while the modules they read are the same summaries
(a build fingerprints history tree states with one memo), and where a statement's imports land."""

from __future__ import annotations

from loom_compiler.analysis import ModuleSummary, analyse_module
from loom_compiler.bundle.chunk_order import import_schedule, with_foreign_imports
from loom_compiler.load_runs import (
    HANDED,
    MADE,
    SUBCLASSED,
    LoadRuns,
    chunk_seeds,
    seeds,
)


def _summary(source: str, module: str) -> ModuleSummary:
    s = analyse_module(source, module=module, path=module.replace(".", "/") + ".py")
    assert isinstance(s, ModuleSummary)
    return s


M = "from shop.util import load\n\nX = 1\nload()\n"


def test_a_call_into_another_module_imports_what_that_code_imports():
    m = _summary(M, "shop.m")
    util = _summary("def load():\n    import shop.x\n\n\ndef other():\n    import shop.y\n", "shop.util")
    summaries = {"shop.m": m, "shop.util": util}
    found, read = LoadRuns().foreign(m, summaries.get)
    assert "shop.x" in found and "shop.y" not in found  # only the def called, not its neighbour
    assert "shop.util" in read
    # the chunk starts shop.x at the line of ``load()``, not at the import of ``load``
    schedule = with_foreign_imports(import_schedule(m), m, LoadRuns(), summaries.get)
    assert dict(schedule)[4] == ("shop", "shop.x")
    assert dict(schedule)[1] == ("shop", "shop.util", "shop.util.load")


def test_an_answer_is_not_served_for_another_summary_of_the_callee():
    # one memo for a build that also fingerprints a history ref: the same shop.m, another shop.util
    runs = LoadRuns()
    m = _summary(M, "shop.m")
    new = {"shop.m": m, "shop.util": _summary("def load():\n    import shop.x\n", "shop.util")}
    old = {"shop.m": m, "shop.util": _summary("def load():\n    return 1\n", "shop.util")}
    assert "shop.x" in runs.foreign(m, new.get)[0]
    assert "shop.x" not in runs.foreign(m, old.get)[0]
    assert "shop.x" in runs.foreign(m, new.get)[0]


def test_a_statement_runs_the_chains_it_spells_with_a_name_it_hands_on():
    unit = _summary("from shop import util\n\nutil.load(util.KEY)\n", "shop.m").units[1]
    assert "util.load" in seeds(unit) and "util" not in seeds(unit)


def test_code_only_defined_runs_nothing():
    m = _summary("import importlib\n\nload = lambda: importlib.import_module('shop.x')\n\n\n"
                 "def later():\n    return load()\n", "shop.m")
    assert all(not LoadRuns().statement(m, u, {}.get)[0] for u in m.units)


HANDED_ON = "import atexit\nfrom shop import util\n\natexit.register(util.load)\n"


def test_a_def_only_handed_on_counts_for_the_hash_and_not_for_the_chunk():
    # G7: the fingerprint keeps the widening (the registration may fire: one more version at most);
    # the chunk's order must not start what live code starts only when it fires
    m = _summary(HANDED_ON, "shop.m")
    summaries = {"shop.m": m, "shop.util": _summary("def load():\n    import shop.x\n", "shop.util")}
    runs = LoadRuns()
    unit = m.units[2]
    assert unit.handed_on == ("util",)
    assert "shop.x" in runs.foreign(m, summaries.get)[0]
    assert "shop.x" in runs.statement(m, unit, summaries.get)[0]
    assert "shop.x" not in runs.statement(m, unit, summaries.get, chunk=True)[0]  # one memo, two answers
    assert "shop.x" in runs.statement(m, unit, summaries.get)[0]
    assert 3 not in dict(with_foreign_imports(import_schedule(m), m, runs, summaries.get))


def test_chunk_seeds_mark_what_is_handed_on_made_or_subclassed():
    m = _summary("import atexit\n\n\ndef load():\n    import shop.x\n\n\nclass L:\n    pass\n\n\n"
                 "atexit.register(load)\nOBJ = L()\n\n\nclass K(L):\n    pass\n\n\nrun = load\nrun()\n", "shop.m")
    handed, made, subclass, called = (u for u in m.units if u.runs or u.attached)
    assert HANDED + "load" in chunk_seeds(handed) and "load" in seeds(handed)
    assert chunk_seeds(made) == [MADE + "L"]
    assert SUBCLASSED + "L" in chunk_seeds(subclass)
    # a statement that calls first-party code hands nothing on (the callee may call what it gets)
    assert chunk_seeds(called) == seeds(called)


def test_a_class_made_runs_its_construction_and_a_subclass_its_init_subclass():
    m = _summary("class B:\n    def __init_subclass__(cls):\n        import shop.s\n\n    def __init__(self):\n"
                 "        self.go()\n\n    def go(self):\n        import shop.g\n\n    def other(self):\n"
                 "        import shop.o\n\n\nOBJ = B()\n\n\nclass K(B):\n    pass\n", "shop.m")
    runs = LoadRuns()
    made, defined = m.units[1], m.units[2]
    assert set(runs.statement(m, made, {}.get, chunk=True)[0]) == {"shop.g"}
    assert set(runs.statement(m, defined, {}.get, chunk=True)[0]) == {"shop.s"}
    # the fingerprint's rule: a class reached may run any of its methods
    assert {"shop.s", "shop.g", "shop.o"} <= set(runs.statement(m, made, {}.get)[0])


def test_the_statements_running_code_abroad_are_listed_once_per_summary():
    # what every chunk asks of each module it bundles: only ``load()`` runs another module's code
    # (``X = 1`` runs nothing, the import is the statement's own); asked again of the same
    # summary, the same answer; of another summary of the module, that one's
    runs = LoadRuns()
    m = _summary(M, "shop.m")
    (load,) = runs.foreign_units(m, chunk=True)
    assert load.source.strip() == "load()" and runs.foreign_units(m, chunk=True) == (load,)
    quiet = _summary("from shop.util import load\n\nX = 1\n", "shop.m")
    assert runs.foreign_units(quiet, chunk=True) == ()
    # the schedule is the module's own where nothing runs code abroad
    plain = import_schedule(quiet)
    assert with_foreign_imports(plain, quiet, runs, {}.get) is plain
