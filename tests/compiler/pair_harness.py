"""One way to fingerprint a ``ProjectPair`` (``fp2_cases_adversarial``) and judge it, shared by
every pair table (the adversarial rounds, dynamic names, namespace views, annotations): the
project is written under ``root`` and fingerprinted as ``loom build`` does."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from fp2_cases_adversarial import ProjectPair
from helpers.project_files import write_files

from loom_compiler import LoomConfig, fingerprint_project
from loom_compiler.model import FlowFingerprint


def fingerprint(root: Path, pair: ProjectPair, files: dict[str, str], **config: object) -> FlowFingerprint:
    write_files(root, files)
    result = fingerprint_project([root], LoomConfig(root=root, packages=(pair.package,), exclude=pair.exclude, **config))
    assert not result.errors, [str(e) for e in result.errors]
    flows = [f for f in result.flows if f.flow_id == pair.flow_id]
    assert len(flows) == 1, [f.flow_id for f in result.flows]
    return flows[0]


def assert_pair(tmp_path: Path, pair: ProjectPair, **config: object) -> None:
    """The pair's code hashes are equal or differ, as ``pair.expect`` says."""
    before = fingerprint(tmp_path / "before", pair, pair.before, **config).code_hash
    after = fingerprint(tmp_path / "after", pair, pair.after, **config).code_hash
    if pair.expect == "equal":
        assert before == after, f"{pair.klass}: the code hash must not change"
    else:
        assert before != after, f"{pair.klass}: the code hash must change"


def assert_well_formed(pairs: Sequence[ProjectPair]) -> None:
    assert len({p.name for p in pairs}) == len(pairs)
    assert all(p.before != p.after and p.expect in ("equal", "changed") for p in pairs)
