"""A project built at three code versions and a SQLite journal holding executions on them.

Versions of ``checkout``: v1 (``RATE = 90``), v2 (``RATE = 80``), v3 (``RATE = 70``, current), all
in one cumulative manifest. The journal (written event by event through the store, the way a
worker writes it) holds:

* ``e-pinned``  checkout on v1, parked on ``manager-approval``  → served by v1's chunk;
* ``e-current`` checkout on v3, running (crashed mid-step)      → served by v3;
* ``e-done``    checkout on v2, completed                        → needs nothing;
* ``e-lost``    refund on a hotfix build this manifest never held → stranded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from loom_compiler.bundle.build import build_project
from loom_compiler.config import load_config
from loom_runtime.journal.events import NewEvent
from loom_runtime.journal.sqlite import SqliteJournal
from loom_runtime.manifest import load_manifest

from helpers.git_repo import BUNDLE_SHOP, copy_project, edit

DATA = BUNDLE_SHOP
HOTFIX = "sha256:" + "ab" * 32


@dataclass(frozen=True)
class Shop:
    root: Path
    manifest: Path
    journal: Path
    checkout: tuple[str, str, str]  # v1, v2, v3 codeHashes
    refund: str

    @property
    def url(self) -> str:
        return f"sqlite:///{self.journal}"  # an absolute path: four slashes


def started(manifest, flow_id: str, code_hash: str, flow_hash: str | None = None) -> NewEvent:
    entry = manifest.flows[flow_id]
    if flow_hash is None:
        flow_hash = entry.versions[code_hash].flow_hash
    return NewEvent("EXECUTION_STARTED", {"flowId": flow_id, "flowHash": flow_hash, "codeHash": code_hash, "input": {"id": "o"}})


@pytest.fixture
def shop(tmp_path: Path) -> Shop:
    root = tmp_path / "shop"
    copy_project(DATA, root)
    hashes = []
    for old, new in ((None, None), ("RATE = 90", "RATE = 80"), ("RATE = 80", "RATE = 70")):
        if old:
            edit(root / "shop/pricing.py", old, new)
        report = build_project(load_config(root))
        assert report.ok, report.errors
        hashes.append(report.manifest.flows["checkout"].current)
    manifest_path = root / "build/loom/manifest.json"
    manifest = load_manifest(manifest_path)
    assert len(set(hashes)) == 3 and set(manifest.flows["checkout"].versions) == set(hashes)
    refund = manifest.flows["refund"].current
    journal_path = tmp_path / "journal.db"
    j = SqliteJournal(journal_path)
    v1, v2, v3 = hashes

    j.create("e-pinned", started(manifest, "checkout", v1))
    j.append("e-pinned", [
        NewEvent("STEP_STARTED", {"stepId": "reserve"}),
        NewEvent("STEP_COMPLETED", {"stepId": "reserve", "result": "reserved:a"}),
        NewEvent("EXECUTION_SUSPENDED", {"condition": {"on": "manager-approval"}}),
    ], expected_seq=1)
    j.create("e-current", started(manifest, "checkout", v3))
    j.append("e-current", [NewEvent("STEP_STARTED", {"stepId": "reserve"})], expected_seq=1)
    j.create("e-done", started(manifest, "checkout", v2))
    j.append("e-done", [NewEvent("EXECUTION_COMPLETED", {"result": {"receipt": "r"}})], expected_seq=1)
    j.create("e-lost", started(manifest, "refund", HOTFIX, flow_hash=manifest.flows["refund"].versions[refund].flow_hash))
    j.append("e-lost", [NewEvent("STEP_STARTED", {"stepId": "charge"})], expected_seq=1)
    j.close()
    return Shop(root, manifest_path, journal_path, (v1, v2, v3), refund)
