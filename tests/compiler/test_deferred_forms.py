"""Canonical forms on demand (issue 18, item 3; ``loom_compiler.deferred_forms``).

What a user relies on: a build canonicalises only the statements its closures reach, and every
hash is exactly what the eager analysis gives, whatever path the form took (computed from the
kept nodes, from a cache entry, by analysing the module again, after the memory budget evicted
the nodes, or in a parse worker).
"""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from helpers.project_files import write_files
from loom_compiler import LoomConfig
from loom_compiler.analysis import ModuleSummary, Unit, analyse_module, cacheable, defer_missing, deferred_forms
from loom_compiler.bundle import build as build_module
from loom_compiler.bundle.build import build_project
from loom_compiler.bundle.cache import CACHE_DIRNAME, SummaryCache, cache_key
from loom_compiler.bundle.fingerprint_tree import fingerprint_tree
from loom_compiler.deferred_forms import ReloadError
from loom_compiler.model import SourceError

import fp2_cases_adversarial
import fp2_cases_binding
from fp_cases import PAIRS
from fp_syntax_cases import SYNTAX_PAIRS

HELPERS = '''"""Helpers: a flow calls one of them."""
from __future__ import annotations

import math

LIMIT = 10


def used(x):
    return min(x, LIMIT)


def unused(x):
    return math.sqrt(x)


class Report:
    def total(self):
        return unused(4)
'''

FLOWS = '''from loom_runtime import flow

from shop import helpers


@flow("checkout")
def checkout(ctx, order):
    return helpers.used(order)
'''


def _project(root: Path, flows: str = FLOWS) -> LoomConfig:
    write_files(root, {"shop/__init__.py": "", "shop/helpers.py": HELPERS, "shop/flows.py": flows})
    return LoomConfig(root=root, packages=("shop",))


def _cached_summary(config: LoomConfig, module: str, rel: str) -> ModuleSummary:
    import hashlib

    data = (config.root / rel).read_bytes()
    key = cache_key(config_digest=config.digest, module=module, path=rel,
                    content_sha256=hashlib.sha256(data).hexdigest(), value_type=ModuleSummary | SourceError)
    found = SummaryCache(config.root / CACHE_DIRNAME).get(key, ModuleSummary | SourceError)
    assert isinstance(found, ModuleSummary)
    return found


def _named(summary: ModuleSummary) -> dict[str, str | None]:
    return {",".join(u.names) or u.kind: u.form for u in summary.units}


def _hashes(result) -> dict[str, str]:  # noqa: ANN001
    return {f.flow_id: f.code_hash for f in result.flows}


# -- the forms are the eager analysis' forms -------------------------------------------------------


def _sources() -> list[tuple[str, str | bytes]]:
    """Every module text of the pair tables, both sides (encodings, syntax corners, projects)."""
    out: list[tuple[str, str | bytes]] = []
    for pair in (*PAIRS, *SYNTAX_PAIRS):
        out += [(f"{pair.name}/before", pair.before), (f"{pair.name}/after", pair.after)]
    for pair in (*fp2_cases_binding.PAIRS, *fp2_cases_adversarial.PAIRS):
        for side, files in (("before", pair.before), ("after", pair.after)):
            out += [(f"{pair.name}/{side}/{rel}", text) for rel, text in files.items()]
    return list(dict((text, name) for name, text in out).items())


@pytest.mark.slow
def test_every_deferred_form_of_the_pair_tables_is_the_eager_form() -> None:
    deferred_somewhere = 0
    for text, name in _sources():
        module = "shop.flows"
        eager = analyse_module(text, module=module, path="shop/flows.py")
        lazy = analyse_module(text, module=module, path="shop/flows.py", defer=True)
        if isinstance(eager, SourceError):
            assert lazy == eager, name
            continue
        assert isinstance(lazy, ModuleSummary), name
        forms = deferred_forms(lazy)
        deferred_somewhere += forms is not None
        assert [u.canonical for u in lazy.units] == [u.canonical for u in eager.units], name
        assert cacheable(lazy) == eager, name  # every form asked for: the eager summary exactly
    assert deferred_somewhere > 300  # the tables exercise the deferred path, not only the eager one


def test_a_module_with_a_future_import_stamps_its_deferred_forms_too() -> None:
    text = HELPERS + "\n\ndef typed(x: int) -> int:\n    return x\n"
    eager = analyse_module(text, module="shop.helpers", path="shop/helpers.py")
    lazy = analyse_module(text, module="shop.helpers", path="shop/helpers.py", defer=True)
    assert isinstance(eager, ModuleSummary) and isinstance(lazy, ModuleSummary)
    typed = next(u for u in lazy.units if u.names == ("typed",))
    assert typed.form is None  # deferred
    assert typed.canonical.startswith("(__future__ annotations)")  # B25's mark, applied when computed
    assert [u.canonical for u in lazy.units] == [u.canonical for u in eager.units]


def test_what_stays_eager() -> None:
    text = HELPERS + "\n\nfrom loom_runtime import flow, step\n\n\n@step\ndef charge(x):\n    return x\n" \
        "\n\n@flow(\"checkout\")\ndef checkout(ctx, order):\n    return used(order)\n"
    lazy = analyse_module(text, module="shop.x", path="shop/x.py", defer=True)
    assert isinstance(lazy, ModuleSummary)
    deferred = {",".join(u.names) or u.kind for u in lazy.units if u.form is None}
    assert deferred == {"statement", "annotations", "math", "LIMIT", "used", "unused", "Report", "flow,step"}
    # a flow's own form and a step's header are computed with the analysis (their context is the
    # module's binding model); so is every form of a module whose text spells ``\N{...}`` (a
    # name lookup may fail: a located error of the analysis, never of a closure)
    named = analyse_module(HELPERS + 'DASH = "\\N{EM DASH}"\n', module="shop.x", path="shop/x.py", defer=True)
    assert isinstance(named, ModuleSummary) and deferred_forms(named) is None
    assert all(u.form is not None for u in named.units)


def test_a_deferred_summary_is_never_pickled_and_a_read_back_one_says_what_is_missing() -> None:
    lazy = analyse_module(HELPERS, module="shop.helpers", path="shop/helpers.py", defer=True)
    assert isinstance(lazy, ModuleSummary)
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(lazy)
    plain = cacheable(lazy)
    pickle.loads(pickle.dumps(plain))  # the cache's value is a plain value
    missing = next(u for u in plain.units if u.form is None)
    assert type(missing) is Unit
    with pytest.raises(LookupError, match="deferred"):
        missing.canonical


def test_a_reload_of_another_module_is_refused() -> None:
    lazy = analyse_module(HELPERS, module="shop.helpers", path="shop/helpers.py", defer=True)
    assert isinstance(lazy, ModuleSummary)
    served = defer_missing(cacheable(lazy), lambda: analyse_module("x = 1\n", module="shop.helpers",
                                                                   path="shop/helpers.py", defer=True))
    with pytest.raises(ReloadError, match="delete .loom-cache"):
        next(u for u in served.units if u.names == ("used",)).canonical


# -- the build ----------------------------------------------------------------------------------------


def test_a_build_canonicalises_only_what_the_closure_reaches(tmp_path: Path) -> None:
    config = _project(tmp_path)
    report = build_project(config, jobs=1)
    assert report.ok, report.errors
    forms = _named(_cached_summary(config, "shop.helpers", "shop/helpers.py"))
    assert forms["used"] is not None and forms["LIMIT"] is not None  # what ``used`` reads
    # never reached, never canonicalised: ``math`` is read only by ``unused``
    assert forms["unused"] is None and forms["Report"] is None and forms["math"] is None


def test_a_closure_reaching_a_statement_the_cache_lacks_reanalyses_its_module_once(tmp_path: Path) -> None:
    config = _project(tmp_path / "warm")
    assert build_project(config, jobs=1).ok
    edited = FLOWS.replace("helpers.used(order)", "helpers.used(order) + helpers.unused(order)")
    (tmp_path / "warm/shop/flows.py").write_text(edited)
    report = build_project(config, jobs=1)
    assert report.ok, report.errors
    assert sorted(report.parsed) == ["shop.flows", "shop.helpers"]  # the helper again: its entry lacked the form
    assert _named(_cached_summary(config, "shop.helpers", "shop/helpers.py"))["unused"] is not None  # written back
    cold = build_project(_project(tmp_path / "cold", edited), jobs=1)
    assert _hashes(report) == _hashes(cold)
    (tmp_path / "warm/shop/flows.py").write_text(edited.replace('"checkout"', '"checkout2"'))
    again = build_project(config, jobs=1)
    assert again.ok and list(again.parsed) == ["shop.flows"]  # the completed entry serves the next build


def test_the_hashes_do_not_depend_on_how_the_forms_were_computed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    flows = FLOWS.replace("helpers.used(order)", "helpers.used(order) + helpers.Report().total()") + "\nSPARE = 3\n"
    serial = build_project(_project(tmp_path / "serial", flows), jobs=1)
    assert serial.ok, serial.errors
    workers = build_project(_project(tmp_path / "workers", flows), jobs=2)  # eager, in parse workers
    fingerprints = fingerprint_tree(_project(tmp_path / "fp", flows), use_cache=False, jobs=1)
    monkeypatch.setattr(build_module, "RETAINED_CHARS", 1)  # every module's nodes evicted at once
    evicted = build_project(_project(tmp_path / "evicted", flows), jobs=1)
    assert _hashes(serial) == _hashes(workers) == _hashes(fingerprints) == _hashes(evicted)
    # the flow module (analysed first) was evicted when the helpers were analysed: its remaining
    # forms were computed then, so its entry is whole; kept to the end, they are not
    spare = {name: _named(_cached_summary(LoomConfig(root=tmp_path / name, packages=("shop",)), "shop.flows",
                                          "shop/flows.py"))["SPARE"] for name in ("serial", "evicted")}
    assert spare["serial"] is None and spare["evicted"] == \
        '(Block [(Assign targets=[(AssignTarget target=(Name "SPARE"))] value=(int "3"))])'


def test_deferred_forms_and_the_eager_analysis_agree_on_the_example_project() -> None:
    root = Path(__file__).resolve().parents[2] / "examples" / "shop"
    for path in sorted(root.rglob("*.py")):
        text = path.read_bytes()
        eager = analyse_module(text, module="m", path=path.name)
        lazy = analyse_module(text, module="m", path=path.name, defer=True)
        if isinstance(eager, ModuleSummary):
            assert [u.canonical for u in lazy.units] == [u.canonical for u in eager.units], path

