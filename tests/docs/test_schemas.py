"""docs/schemas/*.schema.json describe what loom really writes: each is validated against real
output (a build of examples/shop, an export of a journal its CLI wrote, ``loom fingerprint
--json``), and each rejects the documents a reader must not accept."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers.json_schema import SchemaKeywordError, errors, validate

from loom_compiler.cli import main

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = REPO / "docs" / "schemas"


def schema(name: str) -> dict:
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text())


@pytest.fixture(scope="module")
def shop(tmp_path_factory) -> Path:
    """examples/shop built twice (an edit in between: two versions), with a journal of two executions."""
    root = tmp_path_factory.mktemp("schemas") / "shop"
    shutil.copytree(REPO / "examples" / "shop", root,
                    ignore=shutil.ignore_patterns("build", ".loom-cache", "__pycache__", "_loom", "*.db"))
    assert CliRunner().invoke(main, ["build", str(root), "-q"]).exit_code == 0
    pricing = root / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text().replace("DISCOUNT_RATE = 0.1\n", "DISCOUNT_RATE = 0.2\n"))
    assert CliRunner().invoke(main, ["build", str(root), "-q"]).exit_code == 0
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    manifest = str(root / "build" / "loom" / "manifest.json")
    for eid, price in (("o-1", 650.0), ("o-2", 12.0)):
        order = json.dumps({"id": eid, "sku": "desk", "items": [{"sku": "desk", "price": price}]})
        subprocess.run([sys.executable, "-m", "shop", "--journal", str(root / "j.db"), "--manifest", manifest,
                        "start", "checkout", order, "--id", eid], cwd=root, env=env, check=True, capture_output=True)
    return root


def test_a_real_manifest_fits_loom_manifest_1(shop: Path):
    doc = json.loads((shop / "build" / "loom" / "manifest.json").read_text())
    assert len(doc["flows"]["checkout"]["versions"]) == 2
    validate(doc, schema("loom-manifest-1"))


def test_real_exported_histories_fit_loom_history_1(shop: Path, tmp_path: Path):
    out = tmp_path / "histories"
    result = CliRunner().invoke(main, ["export", "--store", f"sqlite:///{shop / 'j.db'}", "--out", str(out)])
    assert result.exit_code == 0, result.output
    files = sorted(out.glob("*.json"))
    assert [f.stem for f in files] == ["o-1", "o-2"]
    kinds = set()
    for path in files:
        doc = json.loads(path.read_text())
        validate(doc, schema("loom-history-1"))
        kinds |= {e["type"] for e in doc["events"]}
    assert {"EXECUTION_STARTED", "STEP_COMPLETED", "EXECUTION_SUSPENDED", "EXECUTION_COMPLETED"} <= kinds


def test_real_fingerprint_json_fits_loom_fingerprint_1(shop: Path):
    result = CliRunner().invoke(main, ["fingerprint", str(shop), "--json"])
    doc = json.loads(result.stdout)
    assert doc["flows"]
    validate(doc, schema("loom-fingerprint-1"))
    (shop / "shop" / "broken.py").write_text("from loom_runtime import flow\n@flow(\n")
    try:
        broken = json.loads(CliRunner().invoke(main, ["fingerprint", str(shop), "--json"]).stdout)
    finally:
        (shop / "shop" / "broken.py").unlink()
    assert broken["errors"]
    validate(broken, schema("loom-fingerprint-1"))


def test_the_schemas_reject_what_a_reader_refuses(shop: Path):
    manifest = json.loads((shop / "build" / "loom" / "manifest.json").read_text())
    version = next(iter(manifest["flows"]["checkout"]["versions"].values()))
    for mutate, why in [
        (lambda d: d.update(schema="loom-manifest/2"), "expected 'loom-manifest/1'"),
        (lambda d: version.update(chunkDigest="md5:x"), "does not match"),
        (lambda d: version.pop("flowHash"), "missing required key 'flowHash'"),
        (lambda d: version.update(surprise=1), "unexpected key 'surprise'"),
        (lambda d: version.update(version=0), "is below 1"),
    ]:
        doc = copy.deepcopy(manifest)
        version = next(iter(doc["flows"]["checkout"]["versions"].values()))
        mutate(doc)
        assert any(why in e for e in errors(doc, schema("loom-manifest-1"))), why
    event = {"schema": "loom-history/1", "executionId": "e", "flowId": "f",
             "events": [{"seq": 1, "type": "STEP_COMPLETED", "payload": {"result": 1}}]}
    assert any("missing required key 'stepId'" in e for e in errors(event, schema("loom-history-1")))
    event["events"][0]["type"] = "STEP_DONE"
    assert any("is not one of" in e for e in errors(event, schema("loom-history-1")))


def test_the_validator_refuses_a_keyword_it_does_not_implement():
    with pytest.raises(SchemaKeywordError, match="maxLength"):
        errors("x", {"type": "string", "maxLength": 3})
