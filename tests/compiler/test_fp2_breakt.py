"""The attackers' tables judged by the adversarial harnesses, one parametrised module for every
table in ``TABLES`` (breakT's ``fp2_cases_breakt``, session 11): the code hash of each pair
(``pair_harness.assert_pair``; ``FRAMEWORK_PAIRS`` under their profile), both sides of each
pair run live in a fresh interpreter (a changed pair's flow returns something else after the
edit, an equal pair's the same: the evidence that the pair is what it says), and each chunk
case against the live module (``test_fp2_adversarial_chunks.chunk_results``); a table's
``DISCOVERY_CASES`` as ``test_fp2_adversarial_pairs`` judges them (a declared flow is pinned or
reported, never skipped).

A row naming a ``finding`` is a strict xfail (the table's ``OPEN``; its findings file beside it
says what and why): it fails the suite the moment the scheme gets it right, and the fixer
removes the row from ``OPEN`` with the fix. A table joins by its module name in ``TABLES``."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import pytest
from fp2_cases_adversarial import ChunkCase, DiscoveryCase, ProjectPair
from helpers.project_files import run_harness, write_files
from pair_harness import assert_pair, assert_well_formed
from test_fp2_adversarial_chunks import HARNESS, assert_chunk_case, chunk_results
from test_fp2_adversarial_pairs import (
    test_a_declared_flow_is_pinned_or_reported as _pinned_or_reported,
)

#: the case modules judged here (each: ``PAIRS``, ``CHUNK_CASES``, optional ``FRAMEWORK_PAIRS``)
TABLES: tuple[str, ...] = ("fp2_cases_breakt", "fp2_cases_breaku")
#: what the flow is called with, live and in the chunk
INPUT = 3


def _table(name: str) -> ModuleType:
    return importlib.import_module(name)


def _params(kind: str) -> list[object]:
    out = []
    for table in TABLES:
        for row in getattr(_table(table), kind, ()):
            case, framework = row if isinstance(row, tuple) else (row, None)
            marks = [pytest.mark.xfail(strict=True, reason=f"{table} finding {case.finding} ({table}_findings.md)")] \
                if case.finding else []
            ident = f"{framework}-{case.name}" if framework else case.name
            out.append(pytest.param(table, case, framework, id=ident, marks=marks))
    return out


@pytest.mark.parametrize("table", TABLES)
def test_the_table_is_well_formed(table: str) -> None:
    module = _table(table)
    pairs = [*module.PAIRS, *(p for p, _ in getattr(module, "FRAMEWORK_PAIRS", ()))]
    assert_well_formed(pairs)
    assert len({c.name for c in module.CHUNK_CASES}) == len(module.CHUNK_CASES)
    named = {p.name for p in pairs} | {c.name for c in (*module.CHUNK_CASES, *getattr(module, "DISCOVERY_CASES", ()))}
    assert set(module.OPEN) <= named, set(module.OPEN) - named  # no stale finding


@pytest.mark.parametrize("table, pair, framework", _params("PAIRS") + _params("FRAMEWORK_PAIRS"))
def test_pair(tmp_path: Path, table: str, pair: ProjectPair, framework: str | None) -> None:
    assert_pair(tmp_path, pair, **({"framework": framework} if framework else {}))


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """``<table>/<pair name>/before`` and ``/after`` -> what the live flow returned."""
    tmp = tmp_path_factory.mktemp("breakt_live")
    runs = []
    for table in TABLES:
        for i, pair in enumerate(_table(table).PAIRS):
            for side, files in (("before", pair.before), ("after", pair.after)):
                root = tmp / f"{table}-{i:03d}{side}"
                write_files(root, files)
                runs.append([f"{table}/{pair.name}/{side}", str(root), pair.flow_id, "checkout", pair.flow_module, INPUT])
    return run_harness(HARNESS, "live", runs, tmp)


@pytest.mark.slow
@pytest.mark.parametrize("table, pair", [pytest.param(t, p, id=p.name) for t in TABLES for p in _table(t).PAIRS])
def test_both_sides_run_live_as_the_pair_says(live: dict[str, object], table: str, pair: ProjectPair) -> None:
    before, after = live[f"{table}/{pair.name}/before"], live[f"{table}/{pair.name}/after"]
    assert "raised" not in str(before), before
    assert (before != after) == (pair.expect == "changed"), (before, after)


@pytest.fixture(scope="module")
def chunks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    cases = [c for t in TABLES for c in _table(t).CHUNK_CASES]
    return chunk_results(cases, tmp_path_factory.mktemp("breakt_chunks"))


@pytest.mark.slow
@pytest.mark.parametrize("table, case, framework", _params("CHUNK_CASES"))
def test_chunk_runs_what_the_live_module_ran(chunks: dict[str, tuple[str, str]], table: str, case: ChunkCase,
                                             framework: None) -> None:
    assert_chunk_case(chunks, case)


@pytest.mark.parametrize("table, case, framework", _params("DISCOVERY_CASES"))
def test_a_declared_flow_is_pinned_or_reported(tmp_path: Path, table: str, case: DiscoveryCase, framework: None) -> None:
    _pinned_or_reported(tmp_path, case)
