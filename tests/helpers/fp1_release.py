"""The committed loom-fp/1 release fixture (``tests/data/fp1_release``) and how to drive it.

``copy_release`` copies the project, its fp/1 build output and its journal into a test's own
directory (tests never write to the committed files). ``finish_all`` answers every unfinished
execution of that journal in a *fresh interpreter* (a worker of the release under test: its own
``Registry.from_manifest`` and live ``register`` of the project's flows), so no module cached by
the test process can decide which code serves an execution. Rejected: finishing them in-process
(``sys.modules`` would keep whichever ``orders`` package an earlier test imported).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["FP1_RELEASE", "Release", "copy_release", "finish_all"]

FP1_RELEASE = Path(__file__).resolve().parent.parent / "data" / "fp1_release"


@dataclass(frozen=True)
class Release:
    root: Path  # the project (sources at release 2, build/loom/ written by the fp/1 release)
    journal: Path
    expected: dict[str, Any]  # expected.json's "executions"

    @property
    def manifest(self) -> Path:
        return self.root / "build" / "loom" / "manifest.json"

    @property
    def url(self) -> str:
        return f"sqlite:///{self.journal}"  # an absolute path: four slashes

    def unfinished(self) -> dict[str, Any]:
        return {eid: e for eid, e in self.expected.items() if e["status"] in ("running", "suspended")}


def copy_release(dest: Path) -> Release:
    root = dest / "project"
    shutil.copytree(FP1_RELEASE / "project", root, ignore=shutil.ignore_patterns("__pycache__", ".loom-cache"))
    journal = dest / "journal.sqlite3"
    shutil.copyfile(FP1_RELEASE / "journal.sqlite3", journal)
    expected = json.loads((FP1_RELEASE / "expected.json").read_text())["executions"]
    return Release(root, journal, expected)


_FINISH = r"""
import json, sys
from loom_runtime import Registry, Runtime
import orders.flows as flows

journal, manifest, clock = sys.argv[1], sys.argv[2], float(sys.argv[3])
registry = Registry.from_manifest(manifest, strict=True)
runtime = Runtime(journal=journal, registry=registry, divergence="fail", clock=lambda: clock)
for fn in (flows.checkout, flows.reminder, flows.fulfil, flows.audit):
    runtime.register(fn)
out = {}
def record(eid, how):
    view = runtime.get(eid)
    served = registry.resolve(view.flow_id, flow_hash=view.flow_hash, code_hash=view.code_hash)
    out[eid] = {"how": how, "status": view.status, "result": view.result, "servedBy": served.code_hash,
                "origin": served.origin}
listing = runtime.journal.list_executions(statuses=["running", "suspended"])
for s in listing:
    if s.status == "suspended" and not s.gate.startswith("__loom_timer__:"):
        runtime.resume(s.execution_id, {"approved": True}, gate=s.gate)
        record(s.execution_id, "resumed")
for h in runtime.tick(clock + 10 * 24 * 3600.0):
    record(h.execution_id, "timer")
for h in runtime.recover():
    record(h.execution_id, "recovered")
print("@@finished@@" + json.dumps(out, sort_keys=True))
"""


def finish_all(release: Release, *, clock: float) -> dict[str, Any]:
    """Drive every unfinished execution to its end in a fresh interpreter; per execution id its
    ``how`` (resumed | timer | recovered), final ``status``, ``result`` and the version that served it."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    repo = Path(__file__).resolve().parents[2]
    env["PYTHONPATH"] = os.pathsep.join([str(release.root), str(repo)])
    proc = subprocess.run([sys.executable, "-c", _FINISH, str(release.journal), str(release.manifest), repr(clock)],
                          cwd=release.root, env=env, capture_output=True, text=True, check=False)
    marker = proc.stdout.rfind("@@finished@@")
    assert proc.returncode == 0 and marker >= 0, f"the worker failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}"
    return json.loads(proc.stdout[marker + len("@@finished@@"):])
