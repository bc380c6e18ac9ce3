"""The Python version running the compiler does not change a hash (opt-in: needs other
interpreters with libcst installed).

    LOOM_OTHER_PYTHONS="/tmp/py310/bin/python /tmp/py313/bin/python" pytest tests/compiler/test_cross_python.py

Each interpreter computes the golden flows, the cross-module golden project and both sides of
every equal/changed pair (``fp_cases`` and ``fp_syntax_cases``; a pair of syntax newer than one
interpreter is compared where both have it); the hashes must be identical to this interpreter's.
Checked for 3.10, 3.11, 3.12 and 3.13 with libcst 1.9.0 (``\N{MELTING FACE}`` included, which
3.10's own Unicode database does not know).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = """
import json, sys, tempfile
from pathlib import Path
sys.path[:0] = [sys.argv[1], sys.argv[2]]
import test_fingerprint_pairs as t
PAIRS = t.ALL_PAIRS
out = {fid: t._code_hash(src, fid) for fid, (src, _) in t.GOLDENS.items()}
with tempfile.TemporaryDirectory() as d:
    out["cross"] = t._project_hash(Path(d), "g", {})
out["pairs"] = {p.name: [t._code_hash(p.before), t._code_hash(p.after)] for p in PAIRS}
print(json.dumps(out, sort_keys=True))
"""

OTHERS = os.environ.get("LOOM_OTHER_PYTHONS", "").split()


def _run(python: str) -> dict:
    here = Path(__file__).resolve().parent
    proc = subprocess.run(
        [python, "-c", SCRIPT, str(here.parents[1]), str(here)], capture_output=True, text=True, check=True
    )
    return json.loads(proc.stdout)


@pytest.mark.skipif(not OTHERS, reason="set LOOM_OTHER_PYTHONS to interpreters that have libcst installed")
@pytest.mark.parametrize("python", OTHERS)
def test_hashes_are_identical_under_another_python(python: str) -> None:
    other, here = _run(python), _run(sys.executable)
    # pairs of syntax newer than one of the two Pythons exist on the other only
    common = other["pairs"].keys() & here["pairs"].keys()
    assert len(common) >= len(here["pairs"]) - 5
    assert {k: other["pairs"][k] for k in common} == {k: here["pairs"][k] for k in common}
    assert {k: v for k, v in other.items() if k != "pairs"} == {k: v for k, v in here.items() if k != "pairs"}
