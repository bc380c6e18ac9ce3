"""fixX's chunk cases (``fp2_cases_fixx``: breaker7's K4), judged by the chunk-vs-live harness
(``test_fp2_adversarial_chunks.chunk_results``)."""

from __future__ import annotations

import pytest
from fp2_cases_fixx import CHUNK_CASES
from test_fp2_adversarial_chunks import assert_chunk_case, chunk_results

from fp2_cases_adversarial import ChunkCase


def test_the_table_is_well_formed() -> None:
    assert len({c.name for c in CHUNK_CASES}) == len(CHUNK_CASES)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    return chunk_results(CHUNK_CASES, tmp_path_factory.mktemp("fixx_chunks"))


@pytest.mark.slow
@pytest.mark.parametrize("case", [pytest.param(c, id=c.name, marks=[pytest.mark.xfail(
    strict=True, reason=f"breaker7 K4, {c.finding}")] if c.finding else []) for c in CHUNK_CASES])
def test_chunk_runs_what_the_live_module_ran(results: dict[str, tuple[str, str]], case: ChunkCase) -> None:
    assert_chunk_case(results, case)
