"""The adversarial ``loom-fp/2`` pairs (``fp2_cases_adversarial.PAIRS``), fingerprinted as
``loom build`` does. A pair naming a TEAM.md ``finding`` is a strict xfail: it fails the suite as
soon as the scheme gets it right, so the fixer removes the mark (the ``finding`` field) with the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from loom_compiler import LoomConfig, fingerprint_project

from fp2_cases_adversarial import PAIRS, ProjectPair


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def code_hash(root: Path, pair: ProjectPair, files: dict[str, str]) -> str:
    _write(root, files)
    result = fingerprint_project([root], LoomConfig(root=root, packages=(pair.package,), exclude=pair.exclude))
    assert not result.errors, [str(e) for e in result.errors]
    flows = [f for f in result.flows if f.flow_id == pair.flow_id]
    assert len(flows) == 1, [f.flow_id for f in result.flows]
    return flows[0].code_hash


def test_the_table_is_well_formed() -> None:
    assert len({p.name for p in PAIRS}) == len(PAIRS)
    assert all(p.before != p.after and p.expect in ("equal", "changed") for p in PAIRS)
    assert all(p.finding is None or p.finding.startswith("B") for p in PAIRS)


def _param(pair: ProjectPair):  # noqa: ANN202
    marks = [pytest.mark.xfail(strict=True, reason=f"TEAM.md breaker finding {pair.finding}")] if pair.finding else []
    return pytest.param(pair, id=pair.name, marks=marks)


@pytest.mark.parametrize("pair", [_param(p) for p in PAIRS])
def test_pair(tmp_path: Path, pair: ProjectPair) -> None:
    before = code_hash(tmp_path / "before", pair, pair.before)
    after = code_hash(tmp_path / "after", pair, pair.after)
    if pair.expect == "equal":
        assert before == after, f"{pair.klass}: the code hash must not change"
    else:
        assert before != after, f"{pair.klass}: the code hash must change"
