"""``loom version`` and ``loom_runtime.version_id``: one id over every current flow's codeHash,
stable under comment- and formatting-only commits, changed by any behavioural edit of any flow."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from loom_compiler.bundle.build import build_project
from loom_compiler.cli import main
from loom_compiler.config import load_config
from loom_runtime import ManifestError, manifest_version, project_version_id

from helpers.git_repo import commit_all, edit, git, repo_from

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _version(root: Path) -> dict:
    result = CliRunner().invoke(main, ["version", str(root), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def _commit(root: Path, rel: str, old: str, new: str, message: str) -> dict:
    edit(root / rel, old, new)
    commit_all(root, message)
    assert not git(root, "status", "--porcelain")  # the tree is clean: the version is the commit's
    return _version(root)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return repo_from(EXAMPLES / "temporal_orders", tmp_path / "temporal_orders")


def test_the_id_is_sha256_over_the_sorted_pairs(repo: Path) -> None:
    doc = _version(repo)
    assert doc["versionId"] == project_version_id(doc["flows"])
    assert set(doc["flows"]) == {"OrderWorkflow", "ship-order"}
    text = CliRunner().invoke(main, ["version", str(repo)])
    assert text.output.strip() == doc["versionId"]  # the id alone: DBOS_APP_VERSION=$(loom version)
    # order-independent, and pinned: a change of encoding would re-version every deployment
    assert project_version_id({"b": "sha256:2", "a": "sha256:1"}) == project_version_id({"a": "sha256:1", "b": "sha256:2"})
    assert project_version_id({"a": "sha256:1"}) == \
        "sha256:" + __import__("hashlib").sha256(b'[["a","sha256:1"]]').hexdigest()


def test_comment_and_format_commits_keep_it_behaviour_commits_change_it(repo: Path) -> None:
    wf = "temporal_orders/workflows.py"
    v1 = _version(repo)
    comment = _commit(repo, wf, "    @workflow.signal\n", "    # items arrive one by one\n    @workflow.signal\n", "comment")
    assert comment == v1
    fmt = _commit(repo, wf, "        self.items.append({**item, \"total\": line_total(item)})",
                  "        self.items.append(\n            {**item, 'total': line_total(item),}\n        )", "format")
    assert fmt == v1
    doc = _commit(repo, wf, '"""The child workflow', '"""The child workflow (documented)', "docstring")
    assert doc == v1
    # behaviour: a handler, an activity option, the child's body (each flow in turn)
    handler = _commit(repo, wf, "self.approved_by = manager", "self.approved_by = manager.strip()", "handler")
    assert handler["versionId"] != v1["versionId"] and handler["flows"]["ship-order"] == v1["flows"]["ship-order"]
    option = _commit(repo, wf, "timedelta(seconds=10)", "timedelta(seconds=20)", "option")
    assert option["versionId"] != handler["versionId"]
    child = _commit(repo, wf, 'return f"shipped {order_id}"', 'return f"shipped: {order_id}"', "child")
    assert child["versionId"] != option["versionId"]
    assert child["flows"]["OrderWorkflow"] == option["flows"]["OrderWorkflow"]
    # an activity body is no workflow's behaviour
    body = _commit(repo, "temporal_orders/activities.py", "return Receipt(order_id, amount)",
                   "return Receipt(order_id, round(amount, 2))", "activity body")
    assert body == child
    # and every commit's id is reproducible from its checkout (not only the ones equal to v1)
    for rev, expected in (("v1", v1), ("main~3", handler), ("main~1", child)):
        git(repo, "checkout", "-q", rev)
        assert _version(repo) == expected, rev


def test_version_id_reads_the_same_value_from_the_packaged_manifest(tmp_path: Path) -> None:
    root = tmp_path / "dbos_orders"
    shutil.copytree(EXAMPLES / "dbos_orders", root, ignore=shutil.ignore_patterns("build", "__pycache__", "_loom"))
    report = build_project(load_config(root), use_cache=False)
    assert report.ok, report.errors
    shutil.copytree(report.manifest_path.parent, root / "dbos_orders" / "_loom")
    assert manifest_version(report.manifest_path).flows == _version(root)["flows"]
    probe = ("import sys; from loom_runtime import version_id; print(version_id('dbos_orders')); "
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('libcst', 'loom_compiler', 'click')))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True,
                          env={"PYTHONPATH": str(root), "PATH": ""})
    version, imported = done.stdout.strip().splitlines()
    assert version == _version(root)["versionId"]
    assert imported == "[]"  # standard library only: a service calls it at start-up


def test_no_flow_no_version(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.loom]\nframework = "dbos"\n', encoding="utf-8")
    (tmp_path / "app.py").write_text("from loom_runtime import flow\n@flow('x')\ndef x(ctx): pass\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["version", str(tmp_path)])
    assert result.exit_code == 1 and "no flow found" in result.output and "tool.loom.framework" in result.output
    (tmp_path / "m.json").write_text('{"fingerprintScheme": "loom-fp/2", "flows": {}, "schema": "loom-manifest/1"}')
    with pytest.raises(ManifestError, match="no current flow"):
        manifest_version(tmp_path / "m.json")


def test_an_error_is_no_version(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.loom]\nframework = "temporal"\n', encoding="utf-8")
    (tmp_path / "wf.py").write_text("from temporalio import workflow\nNAME = 'x'\n@workflow.defn(name=NAME)\n"
                                    "class W:\n    @workflow.run\n    async def run(self): pass\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["version", str(tmp_path)])
    assert result.exit_code == 1 and "wf.py:3:" in result.output and "string literal" in result.output


def test_the_id_survives_the_scheme_upgrade(tmp_path: Path) -> None:
    """An fp/1 release rebuilt under fp/2: each flow rehashed to its fp/1 version counts by its fp/1
    hash, so the id of a loom-only upgrade is the previous release's (DBOS strands nothing);
    `loom version` says so before the rebuild too, and an edit after the upgrade changes it."""
    from loom_runtime.manifest import load_manifest

    from helpers.fp1_release import copy_release

    release = copy_release(tmp_path)
    fp1 = manifest_version(release.manifest)
    before_build = _version(release.root)
    report = build_project(load_config(release.root))
    assert report.ok, report.errors
    after = manifest_version(release.manifest)
    current = {fid: e.current for fid, e in load_manifest(release.manifest).flows.items()}
    for fid in ("checkout", "fulfil", "reminder"):  # provably the same code (tests/upgrade: PROVABLE)
        assert current[fid] != fp1.flows[fid] and after.flows[fid] == fp1.flows[fid], fid
        assert after.code_hashes[fid] == current[fid]
    # audit's lazy import reaches orders.pricing, which the fp/1 build never recorded: not provably
    # the same code, so it counts by its new hash (and only it moves the id)
    assert after.flows["audit"] == current["audit"] != fp1.flows["audit"] and "audit" not in after.code_hashes
    assert after.version_id == project_version_id({**fp1.flows, "audit": current["audit"]})
    assert before_build["versionId"] == after.version_id == _version(release.root)["versionId"]
    assert before_build["codeHashes"] == {fid: current[fid] for fid in ("checkout", "fulfil", "reminder")}
    # an edit after the upgrade: the edited flows get a new, unlinked hash, and a new id
    pricing = release.root / "orders" / "pricing.py"
    text = pricing.read_text()
    assert "0.15" in text
    pricing.write_text(text.replace("0.15", "0.2"))
    edited = _version(release.root)
    assert edited["versionId"] != after.version_id
    assert edited["flows"]["checkout"] not in (fp1.flows["checkout"], current["checkout"])


def test_identity_is_the_earliest_scheme_hash(tmp_path: Path) -> None:
    from loom_runtime.manifest import FlowEntry, SourceRef, VersionEntry
    from loom_runtime.version import identity_hash

    def version(h: str, scheme: str, links: tuple[str, ...] = ()) -> VersionEntry:
        return VersionEntry(code_hash=h, flow_hash="sha256:" + "f" * 64, legacy_flow_hash="fnv1a:00000000", version=1,
                            steps=(), step_families=(), compatible_with=(), chunk="c.py", chunk_digest="sha256:" + "0" * 64,
                            entry="f", source=SourceRef("m.py", 1, "sha256:" + "0" * 64), closure={}, scheme=scheme,
                            rehashed_from=links)

    a, b, c = ("sha256:" + x * 64 for x in "cba")  # a sorts last: the earliest scheme wins, not the smallest hash
    entry = FlowEntry(flow_id="f", current=c, versions={a: version(a, "loom-fp/1"), b: version(b, "loom-fp/2", (a,)),
                                           c: version(c, "loom-fp/3", (a, b))})
    assert identity_hash(c, (a, b), entry) == a
    assert identity_hash(c, (), entry) == c
    gone = FlowEntry(flow_id="f", current=c, versions={b: entry.versions[b], c: entry.versions[c]})  # gc dropped a
    assert identity_hash(c, (a, b), gone) == a
