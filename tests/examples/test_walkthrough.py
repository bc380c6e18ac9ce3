"""examples/upgrade_walkthrough.py runs end to end and tells the story it promises, also after the
edit ``./dev example`` suggests (it works on the example as committed, not as edited)."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.git_repo import commit_all, init_repo

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SCRIPT = EXAMPLES / "upgrade_walkthrough.py"
LITTER = shutil.ignore_patterns("build", "dist", ".loom-cache", "__pycache__", "_loom", "*.db")


def checkout_with_the_suggested_edit(top: Path) -> Path:
    """A git checkout holding the walkthrough and the shop, with ``./dev example``'s suggested edit
    (DISCOUNT_RATE in shop/pricing.py) made and not committed, as a user following it would have."""
    (top / "examples").mkdir(parents=True)
    shutil.copy(SCRIPT, top / "examples" / SCRIPT.name)
    shutil.copytree(EXAMPLES / "shop", top / "examples" / "shop", ignore=LITTER)
    init_repo(top)
    commit_all(top, "examples")
    pricing = top / "examples/shop/shop/pricing.py"
    pricing.write_text(pricing.read_text().replace("DISCOUNT_RATE = 0.1\n", "DISCOUNT_RATE = 0.12\n"))
    return top / "examples" / SCRIPT.name


@pytest.mark.slow
def test_walkthrough_v1_finishes_on_its_chunk_v2_starts_and_divergent_v3_is_refused(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    script = checkout_with_the_suggested_edit(tmp_path / "repo")
    proc = subprocess.run([sys.executable, str(script), "--keep", str(tmp_path / "w")], capture_output=True,
                          text=True, cwd=tmp_path, env=env, timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "examples/shop as committed at HEAD" in out
    assert "DISCOUNT_RATE = 0.12" in (tmp_path / "repo/examples/shop/shop/pricing.py").read_text()  # left alone
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


def _walkthrough_module(monkeypatch: pytest.MonkeyPatch, example: Path):
    spec = importlib.util.spec_from_file_location("upgrade_walkthrough", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "EXAMPLE", example)
    return module


def test_outside_git_the_copy_resets_the_discount_and_a_changed_example_gets_a_user_facing_message(tmp_path, monkeypatch):
    example = tmp_path / "unpacked" / "shop"  # e.g. an sdist: no git
    shutil.copytree(EXAMPLES / "shop", example, ignore=LITTER)
    pricing = example / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text().replace("DISCOUNT_RATE = 0.1\n", "DISCOUNT_RATE = 0.12\n"))
    module = _walkthrough_module(monkeypatch, example)
    walk = module.Walkthrough(tmp_path / "w")
    walk.copy_example()
    assert "not a git checkout" in walk.origin
    assert "DISCOUNT_RATE = 0.1\n" in (walk.work / "shop" / "pricing.py").read_text()
    flows = walk.work / "shop" / "flows.py"
    flows.write_text(flows.read_text().replace('    ctx.execute("reserve"', '    ctx.execute("reserve-stock"'))
    with pytest.raises(SystemExit) as exc:
        walk.edit("shop/flows.py", '    ctx.execute("reserve", reserve, order["sku"])\n', "", "x")
    message = str(exc.value)
    assert "the example was changed" in message and "git checkout examples/shop" in message
    assert "update the walkthrough" not in message  # that one was written for the maintainer
