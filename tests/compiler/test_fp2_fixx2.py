"""fixX2's pairs (``fp2_cases_fixx2``: issue 12's P1/P2), judged by ``pair_harness.assert_pair``;
both sides of every pair also run live in a fresh interpreter (the chunk harness's live mode): a
changed pair's flow returns something else after the edit, an equal pair's the same."""

from __future__ import annotations

from pathlib import Path

import pytest
from fp2_cases_fixx2 import CHUNK_CASES, PAIRS
from helpers.project_files import run_harness, write_files
from pair_harness import assert_pair, assert_well_formed, fingerprint
from test_fp2_adversarial_chunks import HARNESS, assert_chunk_case, chunk_results

from fp2_cases_adversarial import ChunkCase, ProjectPair


def _marks(finding: str | None) -> list[pytest.MarkDecorator]:
    return [pytest.mark.xfail(strict=True, reason=f"issue 12 finding {finding}")] if finding else []


def test_the_table_is_well_formed() -> None:
    assert_well_formed(PAIRS)


@pytest.mark.parametrize("pair", [pytest.param(p, id=p.name, marks=_marks(p.finding)) for p in PAIRS])
def test_pair(tmp_path: Path, pair: ProjectPair) -> None:
    assert_pair(tmp_path, pair)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """``<pair name>/before`` and ``/after`` -> what the live flow returned."""
    tmp = tmp_path_factory.mktemp("fixx2_live")
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
def chunks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    return chunk_results(CHUNK_CASES, tmp_path_factory.mktemp("fixx2_chunks"))


@pytest.mark.slow
@pytest.mark.parametrize("case", [pytest.param(c, id=c.name, marks=_marks(c.finding)) for c in CHUNK_CASES])
def test_chunk_runs_what_the_live_module_ran(chunks: dict[str, tuple[str, str]], case: ChunkCase) -> None:
    assert_chunk_case(chunks, case)


@pytest.mark.parametrize("spelled", ["import shop", "from shop import util"])
def test_another_modules_file_read_for_a_path_warns_once_at_the_use(tmp_path: Path, spelled: str) -> None:
    """P3: ``os.path.dirname(shop.__file__)`` (another first-party module's, the package's too) is
    a path the compiler cannot decide: one warning, at the use; ``shop.__file__`` was taken for a
    submodule of the package without source, a second warning at the import."""
    owner = spelled.split()[-1]
    m = (f"import os\n{spelled}\n\n\ndef go():\n"
         f"    exec(open(os.path.join(os.path.dirname({owner}.__file__), 'plug.txt')).read())\n")
    files = {"shop/__init__.py": "", "shop/util.py": "", "shop/m.py": m, "shop/plug.txt": "X = 1\n",
             "shop/flows.py": "from loom_runtime import flow\nfrom shop import m\n\n\n@flow('checkout')\n"
                              "def checkout(ctx, o):\n    return m.go()\n"}
    pair = ProjectPair("p3", "changed", "", files, files)
    found = fingerprint(tmp_path, pair, files)
    assert [(w.path, w.line, w.column, w.code) for w in found.warnings] == [("shop/m.py", 6, 5, "path-undecidable")]
