"""The adversarial ``loom-fp/2`` pairs (``fp2_cases_adversarial.PAIRS``), fingerprinted as
``loom build`` does. A pair naming a TEAM.md ``finding`` is a strict xfail: it fails the suite as
soon as the scheme gets it right, so the fixer removes the mark (the ``finding`` field) with the fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from fp2_cases_adversarial import (
    CONFIG_PAIRS,
    DISCOVERY_CASES,
    FRAMEWORK_PAIRS,
    PAIRS,
    DiscoveryCase,
    ProjectPair,
)
from helpers.project_files import write_files as _write
from pair_harness import assert_pair, assert_well_formed, fingerprint

from loom_compiler import LoomConfig, fingerprint_project


def test_the_table_is_well_formed() -> None:
    assert_well_formed(PAIRS)
    assert all(p.finding is None or p.finding[0] in "BCDEFGL" for p in PAIRS)


#: findings decided as limits, not bugs: docs/concepts/fingerprint.md "What the fingerprint cannot
#: see" says why (B12 a module without source, B20 data files, E11 a left-out statement raising at load)
LIMITS = frozenset({"B12", "B20", "E11"})


def _reason(finding: str) -> str:
    """``B<n>``: the first adversarial round (breaker); ``C<n>``: the second (breaker2); ``D<n>``: the third
    (breaker3); ``E<n>``: the fourth (breaker4); ``F<n>``: the fifth (breaker5, session 6); ``G<n>``: the sixth (breaker6, session 7); ``L<n>``: the lead's probes (session 5)."""
    who = {"C": "breaker2", "D": "breaker3", "E": "breaker4", "F": "breaker5", "G": "breaker6", "L": "lead"}.get(finding[0], "breaker")
    kind = "documented limit" if finding in LIMITS else "finding"
    return f"TEAM.md {who} {kind} {finding}"


def _param(pair: ProjectPair):  # noqa: ANN202
    marks = [pytest.mark.xfail(strict=True, reason=_reason(pair.finding))] if pair.finding else []
    return pytest.param(pair, id=pair.name, marks=marks)


@pytest.mark.parametrize("pair", [_param(p) for p in PAIRS])
def test_pair(tmp_path: Path, pair: ProjectPair) -> None:
    assert_pair(tmp_path, pair)


@pytest.mark.parametrize("pair, decorators, steps", [
    pytest.param(p, d, st, id=p.name, marks=[pytest.mark.xfail(strict=True, reason=f"TEAM.md breaker finding {p.finding}")] if p.finding else [])
    for p, d, st in CONFIG_PAIRS
])
def test_flow_decorator_arguments_move_a_hash(tmp_path: Path, pair: ProjectPair, decorators: tuple[str, ...],
                                              steps: tuple[str, ...]) -> None:
    """Another framework's flow decorator (here Prefect's): every argument but the flow id is
    behaviour and feeds the code hash (lead's decision on B14); the structural hash holds the id."""
    before = fingerprint(tmp_path / "before", pair, pair.before, decorators=decorators, step_decorators=steps)
    after = fingerprint(tmp_path / "after", pair, pair.after, decorators=decorators, step_decorators=steps)
    assert before.flow_hash == after.flow_hash
    if pair.expect == "equal":
        assert before.code_hash == after.code_hash
    else:
        assert before.code_hash != after.code_hash


@pytest.mark.parametrize("pair, framework", [
    pytest.param(p, fw, id=f"{fw}-{p.name}", marks=[pytest.mark.xfail(strict=True, reason=_reason(p.finding))] if p.finding else [])
    for p, fw in FRAMEWORK_PAIRS
])
def test_framework_pair(tmp_path: Path, pair: ProjectPair, framework: str) -> None:
    """A pair under a framework profile (DESIGN §8): the code hash follows what the engine runs."""
    assert_pair(tmp_path, pair, framework=framework)


@pytest.mark.parametrize("case", [
    pytest.param(c, id=c.name, marks=[pytest.mark.xfail(strict=True, reason=f"TEAM.md breaker finding {c.finding}")] if c.finding else [])
    for c in DISCOVERY_CASES
])
def test_a_declared_flow_is_pinned_or_reported(tmp_path: Path, case: DiscoveryCase) -> None:
    """A flow the build does not find ships unpinned: it must be found, or reported with its file."""
    _write(tmp_path, case.files)
    result = fingerprint_project([tmp_path], LoomConfig(root=tmp_path, packages=("shop",)))
    errors = [str(e) for e in result.errors if "shop/flows.py" in str(e)]
    found = [f.flow_id for f in result.flows]
    if case.expect == "flow":
        assert found and not errors, (found, errors)
    elif case.expect == "error":
        assert errors, found
    else:
        assert found or errors
