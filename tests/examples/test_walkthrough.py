"""examples/upgrade_walkthrough.py runs end to end and tells the story it promises."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "upgrade_walkthrough.py"


@pytest.mark.slow
def test_walkthrough_v1_finishes_on_its_chunk_v2_starts_and_divergent_v3_is_refused(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, str(SCRIPT), "--keep", str(tmp_path / "w")], capture_output=True,
                          text=True, cwd=tmp_path, env=env, timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    titles = re.findall(r"^\d\. (.+)$", out, flags=re.M)
    assert titles == [
        "Release v1: build, deploy, start an order",
        "Release v2: change a helper, deploy while o-1001 waits",
        "v1's order finishes on v1's code",
        "New orders start on v2",
        "Release v3 diverges, and is refused",
        "The fix: ship v2's chunk with v3, then retry",
    ]
    v1, v2 = re.search(r"codeHashes: v1 (\w{12}), v2 (\w{12})", out).groups()
    flat = re.sub(r"\n\s+", " ", out)  # undo the wrapping
    assert f"checkout o-1001: suspended at gate `manager-approval` on code {v1} (this release's live code)" in flat
    assert f"checkout: 2 version(s): " in flat and f"checkout: code {v1} from chunk (kept for in-flight executions)" in flat
    assert f"checkout o-1001: completed on code {v1} (a chunk shipped from an earlier release)" in flat
    assert '"receipt": "receipt:o-1001:585.00"' in flat
    assert f"checkout o-1002: suspended at gate `manager-approval` on code {v2} (this release's live code)" in flat
    refusal = re.search(r"refused: FlowReplayDivergenceError: (.+?)\$", flat).group(1)
    assert "never asked for 1 recorded step(s) `reserve`" in refusal and "no step effect ran" in refusal
    assert "checkout o-1002: suspended at gate `__loom_diverged__`" in flat
    assert f"checkout o-1002: completed on code {v2} (a chunk shipped from an earlier release)" in flat
    assert '"receipt": "receipt:o-1002:680.00"' in flat
    assert "checkout: 3 version(s)" in flat
    assert "Traceback" not in out and proc.stderr == ""
    # the refusal ran no effect: o-1002's journal has no charge between the park and the retry
    journal = tmp_path / "w" / "journal.db"
    check = (
        "import sys; from loom_runtime import SqliteJournal; j = SqliteJournal(sys.argv[1]); "
        "print([e.payload.get('stepId') or (e.payload.get('condition') or {}).get('on') or e.type "
        "for e in j.read('o-1002')])"
    )
    events = subprocess.run([sys.executable, "-c", check, str(journal)], capture_output=True, text=True,
                            env=env, check=True).stdout
    parked_at = events.index("'__loom_diverged__'")  # the park (EXECUTION_SUSPENDED on the reserved gate)
    assert "'charge'" not in events[:parked_at] and "'charge'" in events[parked_at:], events
