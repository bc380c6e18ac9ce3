"""End to end, in separate processes, with the real compiler.

1. ``loom build`` v1 of a small project; process A starts an execution that parks.
2. The flow body is edited (v2) and rebuilt: the cumulative manifest keeps v1's chunk.
3. Process B (a fresh interpreter, live code = v2) resumes the parked execution: it completes on
   v1's chunk, observable through the effects its steps log; a new start in B runs v2.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("loom_compiler.commands.build")

ROOT = Path(__file__).resolve().parents[2]

FLOWS_V1 = textwrap.dedent(
    '''
    from loom_runtime import flow

    from .pricing import total
    from .steps import record


    @flow("order", steps=["reserve", "ship"])
    def order(ctx, order):
        release = "v1"
        ctx.execute("reserve", record, release, "reserve")
        approval = ctx.suspend("approval")
        ctx.execute("ship", record, release, "ship")
        return {"release": release, "total": total(order["qty"]), "approval": approval}
    '''
)

PRICING = textwrap.dedent(
    '''
    def total(qty):
        return qty * 10
    '''
)

STEPS = textwrap.dedent(
    '''
    import os

    from loom_runtime import step


    @step
    def record(release, what):
        with open(os.environ["LOOM_E2E_EFFECTS"], "a") as fh:
            fh.write(f"{release}:{what}\\n")
        return what
    '''
)

DRIVER = textwrap.dedent(
    '''
    import json, sys
    from pathlib import Path

    root, journal, action, execution_id = sys.argv[1:5]
    sys.path.insert(0, root)
    from loom_runtime import Registry, Runtime, SqliteJournal

    warnings = []
    registry = Registry.from_manifest(Path(root) / "build" / "loom" / "manifest.json", on_warn=warnings.append)
    import app.flows

    live = registry.register(app.flows.order)  # the live code binds to the manifest's current version
    rt = Runtime(journal=SqliteJournal(journal), registry=registry, divergence="fail", on_warn=warnings.append)
    if action == "start":
        h = rt.start("order", {"qty": 2}, execution_id=execution_id)
    else:
        h = rt.resume(execution_id, {"approved": True}, gate="approval")
    print(json.dumps({"status": h.status, "result": h.result, "live": live.code_hash, "warnings": warnings,
                      "codeHash": rt.get(execution_id).code_hash}))
    '''
)


def _run(args, env, cwd):
    proc = subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, f"{args}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return proc.stdout


@pytest.mark.slow
def test_a_parked_execution_finishes_on_v1_after_a_rebuild_while_new_starts_run_v2(tmp_path):
    root = tmp_path / "proj"
    (root / "app").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "app"\nversion = "0"\n\n[tool.loom]\npackages = ["app"]\n')
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "flows.py").write_text(FLOWS_V1)
    (root / "app" / "pricing.py").write_text(PRICING)
    (root / "app" / "steps.py").write_text(STEPS)
    (tmp_path / "driver.py").write_text(DRIVER)
    effects = tmp_path / "effects.log"
    journal = tmp_path / "journal.sqlite3"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LOOM_E2E_EFFECTS": str(effects), "PYTHONDONTWRITEBYTECODE": "1"}
    build = [sys.executable, "-m", "loom_compiler", "build", str(root), "--quiet", "--no-cache"]
    drive = [sys.executable, str(tmp_path / "driver.py"), str(root), str(journal)]

    _run(build, env, tmp_path)
    a = json.loads(_run(drive + ["start", "old"], env, tmp_path))
    assert a["status"] == "suspended" and a["warnings"] == []
    v1_hash = a["live"]
    assert v1_hash.startswith("sha256:") and a["codeHash"] == v1_hash

    (root / "app" / "flows.py").write_text(FLOWS_V1.replace('release = "v1"', 'release = "v2"'))
    _run(build, env, tmp_path)
    manifest = json.loads((root / "build" / "loom" / "manifest.json").read_text())
    assert len(manifest["flows"]["order"]["versions"]) == 2 and v1_hash in manifest["flows"]["order"]["versions"]

    b = json.loads(_run(drive + ["resume", "old"], env, tmp_path))
    assert b["warnings"] == [] and b["live"] != v1_hash  # process B's live code is v2 ...
    assert b["status"] == "completed"
    assert b["result"] == {"release": "v1", "total": 20, "approval": {"approved": True}}  # ... yet `old` ran on v1
    c = json.loads(_run(drive + ["start", "new"], env, tmp_path))
    assert c["status"] == "suspended" and c["codeHash"] == b["live"]
    assert effects.read_text().splitlines() == ["v1:reserve", "v1:ship", "v2:reserve"]
