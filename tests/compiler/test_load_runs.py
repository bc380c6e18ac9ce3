"""``load_runs``: what a module-level statement runs at load and what that code imports, the one
rule the fingerprint and the chunk's order read. The pair tables (``fp2_cases_adversarial``:
``_load_runs_pairs``, ``_load_runs_chunk_cases``) judge it end to end; these pin the parts a
table cannot see: answers served again only while the modules they read are the same summaries
(a build fingerprints history tree states with one memo), and where a statement's imports land."""

from __future__ import annotations

from loom_compiler.analysis import ModuleSummary, analyse_module
from loom_compiler.bundle.chunk_order import import_schedule, with_foreign_imports
from loom_compiler.load_runs import LoadRuns, seeds


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
