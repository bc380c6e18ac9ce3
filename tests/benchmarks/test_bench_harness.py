"""Keeps the benchmark harness from rotting: the pair suite loads, and every scheme runs on two pairs.

Competitor libraries (DBOS, Prefect, joblib, temporalio) live only in ``benchmarks/.venv``; their
schemes skip cleanly here when the library is absent. Nothing is timed.
"""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.compare_fingerprints import run_pairs, summarise  # noqa: E402
from benchmarks.fingerprint_pairs import (  # noqa: E402
    COMPILER_CASES,
    Edit,
    Pair,
    PairError,
    compiler_cases,
    design_cases,
    load_pairs,
    sides,
)
from benchmarks.version_schemes import SCHEMES  # noqa: E402


def test_pair_suite_loads_with_both_verdicts_and_unique_names():
    pairs = load_pairs()
    assert len(pairs) >= 60
    assert {p.expect for p in pairs} == {"equal", "changed"}
    assert len({p.name for p in pairs}) == len(pairs)
    before, after = sides(next(p for p in pairs if p.name == "crlf"))
    assert b"\r\n" in after["shop/flows.py"] and b"\r\n" not in before["shop/flows.py"]


def test_an_edit_that_no_longer_applies_names_the_pair_and_edit():
    stale = Pair("stale", "equal", "comments", (Edit("shop/flows.py", "text that is not there", "x"),))
    with pytest.raises(PairError, match=r"pair `stale`, edit 1 in shop/flows.py: .* occurs 0 times"):
        sides(stale)


def test_an_edit_that_changes_nothing_is_refused():
    noop = Pair("noop", "equal", "comments", (Edit("shop/flows.py", "LIMIT = 1000\n", "LIMIT = 1000\n"),))
    with pytest.raises(PairError, match="byte-identical"):
        sides(noop)


@pytest.mark.parametrize("scheme_cls", SCHEMES, ids=[c.name for c in SCHEMES])
def test_each_scheme_judges_two_pairs(scheme_cls, tmp_path):
    scheme = scheme_cls()
    reason = scheme.unavailable()
    if reason:
        pytest.skip(reason)
    # every scheme, ours and the competitors', gets these two right: it is the harness under test
    pairs = tuple(p for p in load_pairs() if p.name in ("identical", "parameter-added"))
    records = run_pairs(design_cases(pairs), [scheme], tmp_path)
    verdicts = {r["pair"]: r["results"][scheme.name] for r in records}
    assert verdicts["identical"]["verdict"] == "equal", verdicts["identical"]
    assert verdicts["parameter-added"]["verdict"] == "changed", verdicts["parameter-added"]
    row = summarise(records, [scheme])[0]
    assert (row["right"], row["total"], row["errors"]) == (2, 2, 0)


def test_the_compiler_pair_table_loads_as_cases():
    # no skip: the file is in this tree, and ``compiler_cases`` quietly returns [] without it, so
    # a rename would otherwise drop these pairs from the benchmark unnoticed
    assert COMPILER_CASES.is_file(), f"{COMPILER_CASES} moved: point benchmarks/fingerprint_pairs at it"
    cases = compiler_cases()
    assert len(cases) >= 60
    # the loom-fp/2 project pairs come along (a package per side, the flow named)
    project = [c for c in cases if c.package == "shop"]
    assert len(project) >= 100 and all(c.flow_module == "shop.flows" and c.flow_id for c in project)
    cases = [c for c in cases if c.package == "pairmod"]
    assert all(c.expect in ("equal", "changed") and c.flow_module == "pairmod.flows" for c in cases)
    assert all(b"@flow" in c.before["pairmod/flows.py"] for c in cases)
