"""The ops commands never load the parser: ``census``, ``gc``, ``deploy-check``, ``export`` and
``replay --manifest`` run against a journal and a build, so a process running them imports neither
libcst nor the compiler's analysis (each costs more than the work of a small journal)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .conftest import Shop

PROBE = """
import json, sys
from loom_compiler.cli import main
code = 0
try:
    main(sys.argv[1:], prog_name="loom")
except SystemExit as exc:
    code = exc.code
loaded = sorted(m for m in sys.modules if m.startswith(("libcst", "loom_compiler.analysis", "loom_compiler.canonical",
                                                         "loom_compiler.fingerprint", "loom_compiler.parsing")))
print(json.dumps({"code": code, "loaded": loaded}))
"""


def _run(shop: Shop, *args: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=shop.root, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("args, code", [
    (("census", "--store", "{url}"), 0),
    (("gc", "--store", "{url}"), 0),
    (("deploy-check", "--store", "{url}", "--jobs", "1"), 1),  # e-lost is stranded
    (("deploy-check", "--store", "{url}", "--no-replay"), 1),
    (("export", "--store", "{url}", "--out", "histories"), 0),
])
def test_an_ops_command_imports_no_parser(shop: Shop, args: tuple[str, ...], code: int) -> None:
    got = _run(shop, *(a.format(url=shop.url) for a in args))
    assert got == {"code": code, "loaded": []}


def test_replay_on_a_manifest_imports_no_parser(shop: Shop) -> None:
    assert _run(shop, "export", "--store", shop.url, "--out", "histories", "--unfinished")["code"] == 0
    got = _run(shop, "replay", "histories", "--manifest", str(shop.manifest))
    assert got == {"code": 1, "loaded": []}  # replayed: e-lost ran on a version this manifest never held
