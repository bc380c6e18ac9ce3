"""breakS's pairs and chunk cases (``fp2_cases_breaks``: S1-S15 of fp2_cases_breaks_findings.md), judged by the
adversarial harnesses: ``pair_harness.assert_pair`` for the code hash, and
``test_fp2_adversarial_chunks.chunk_results`` for a chunk against the live module. Both sides of
every pair also run live in a fresh interpreter (the chunk harness's live mode, as
``test_fp2_fixx2``): a changed pair's flow returns something else after the edit, an equal pair's
the same."""

from __future__ import annotations

from pathlib import Path

import pytest
from fp2_cases_breaks import CHUNK_CASES, PAIRS
from helpers.project_files import run_harness, write_files
from pair_harness import assert_pair, assert_well_formed
from test_fp2_adversarial_chunks import HARNESS, assert_chunk_case, chunk_results

from fp2_cases_adversarial import ChunkCase, ProjectPair


def _marks(finding: str | None) -> list[pytest.MarkDecorator]:
    return [pytest.mark.xfail(strict=True, reason=f"breakS finding {finding} (fp2_cases_breaks_findings.md)")] if finding else []


def test_the_table_is_well_formed() -> None:
    assert_well_formed(PAIRS)
    assert len({c.name for c in CHUNK_CASES}) == len(CHUNK_CASES)


@pytest.mark.parametrize("pair", [pytest.param(p, id=p.name, marks=_marks(p.finding)) for p in PAIRS])
def test_pair(tmp_path: Path, pair: ProjectPair) -> None:
    assert_pair(tmp_path, pair)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """``<pair name>/before`` and ``/after`` -> what the live flow returned."""
    tmp = tmp_path_factory.mktemp("breaks_live")
    runs = []
    for i, pair in enumerate(PAIRS):
        for side, files in (("before", pair.before), ("after", pair.after)):
            root = tmp / f"{i:03d}{side}"
            write_files(root, files)
            runs.append([f"{pair.name}/{side}", str(root), pair.flow_id, "checkout", pair.flow_module, 0])
    return run_harness(HARNESS, "live", runs, tmp)


@pytest.mark.slow
@pytest.mark.parametrize("pair", [pytest.param(p, id=p.name) for p in PAIRS])
def test_both_sides_run_live_as_the_pair_says(live: dict[str, object], pair: ProjectPair) -> None:
    before, after = live[f"{pair.name}/before"], live[f"{pair.name}/after"]
    assert "raised" not in str(before), before
    assert (before != after) == (pair.expect == "changed"), (before, after)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    return chunk_results(CHUNK_CASES, tmp_path_factory.mktemp("breaks_chunks"))


@pytest.mark.slow
@pytest.mark.parametrize("case", [pytest.param(c, id=c.name, marks=_marks(c.finding)) for c in CHUNK_CASES])
def test_chunk_runs_what_the_live_module_ran(results: dict[str, tuple[str, str]], case: ChunkCase) -> None:
    assert_chunk_case(results, case)
