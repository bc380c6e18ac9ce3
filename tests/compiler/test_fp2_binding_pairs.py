"""The ``loom-fp/2`` binding-model pairs (``fp2_cases_binding.PAIRS``): each side is a package on
disk, fingerprinted as ``loom build`` does (``fingerprint_project`` with ``packages = ["shop"]``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.project_files import write_files as _write

from loom_compiler import LoomConfig, fingerprint_project

from fp2_cases_binding import PAIRS, ProjectPair


def code_hash(root: Path, pair: ProjectPair, files: dict[str, str]) -> str:
    _write(root, files)
    config = LoomConfig(root=root, packages=(pair.package,), exclude=pair.exclude)
    result = fingerprint_project([root], config)
    assert not result.errors, [str(e) for e in result.errors]
    flows = [f for f in result.flows if f.flow_id == pair.flow_id]
    assert len(flows) == 1, [f.flow_id for f in result.flows]
    return flows[0].code_hash


def test_the_table_covers_both_directions_and_every_class() -> None:
    assert len({p.name for p in PAIRS}) == len(PAIRS)
    assert all(p.before != p.after for p in PAIRS)
    classes = {p.klass.split()[0] for p in PAIRS}
    assert classes == {"1", "2", "3", "4", "5", "6", "7", "9", "10", "11"}
    for klass in classes:
        expects = {p.expect for p in PAIRS if p.klass.split()[0] == klass}
        if klass not in ("7",):
            assert expects == {"equal", "changed"}, klass


@pytest.mark.parametrize("pair", PAIRS, ids=[p.name for p in PAIRS])
def test_pair(tmp_path: Path, pair: ProjectPair) -> None:
    before = code_hash(tmp_path / "before", pair, pair.before)
    after = code_hash(tmp_path / "after", pair, pair.after)
    if pair.expect == "equal":
        assert before == after, f"{pair.klass}: the code hash must not change"
    else:
        assert before != after, f"{pair.klass}: the code hash must change"
