"""``loom fingerprint``, ``version``, ``diff`` and ``check`` through the build's ``.loom-cache``
(``bundle.fingerprint_tree``): what a pre-commit hook pays on an unchanged tree is reading and
hashing the files, never a parse, and what it reports is what ``fingerprint_project`` computes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from loom_compiler.bundle.build import build_project
from loom_compiler.bundle.fingerprint_tree import fingerprint_tree
from loom_compiler.config import load_config
from loom_compiler.fingerprint import fingerprint_project

from helpers.git_repo import copy_project, edit, git

DATA = Path(__file__).parent / "data" / "bundle_shop"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(DATA, tmp_path / "bundle_shop")


def hashes(result) -> dict[str, tuple[str, tuple[tuple[str, str], ...]]]:  # noqa: ANN001
    return {f.flow_id: (f.code_hash, tuple((m.qualname, m.hash) for m in f.closure)) for f in result.flows}


def test_an_unchanged_tree_is_served_from_the_cache_with_the_same_hashes(project: Path, parsed: list[str]) -> None:
    config = load_config(project)
    first = fingerprint_tree(config)
    assert sorted(parsed) == ["shop", "shop.flows", "shop.pricing", "shop.refunds", "shop.steps", "shop.util"]
    parsed.clear()
    again = fingerprint_tree(config)
    assert parsed == []
    assert hashes(again) == hashes(first) == hashes(fingerprint_project([project], config))
    assert again.flows == first.flows  # closure members, canonical forms and bindings too (diff reads them)


def test_a_build_fills_the_cache_the_hook_reads(project: Path, parsed: list[str]) -> None:
    config = load_config(project)
    assert build_project(config).ok
    parsed.clear()
    got = fingerprint_tree(config)
    assert parsed == [] and hashes(got) == hashes(fingerprint_project([project], config))


def test_an_edit_reparses_that_module_alone_and_moves_the_flows_that_reach_it(project: Path, parsed: list[str]) -> None:
    config = load_config(project)
    before = hashes(fingerprint_tree(config))
    parsed.clear()
    edit(project / "shop/util.py", "return 1", "return 3")  # reached by checkout only
    after = hashes(fingerprint_tree(config))
    assert parsed == ["shop.util"]
    assert after["checkout"][0] != before["checkout"][0] and after["refund"] == before["refund"]
    assert after == hashes(fingerprint_project([project], config))


def test_a_module_moved_into_a_package_with_the_same_bytes_is_fingerprinted_again(project: Path) -> None:
    # shop/util.py's `from .rates import BONUS` means shop.rates; the same bytes as
    # shop/util/__init__.py mean shop.util.rates: equal bytes at another path are other code
    # (a cache entry checked by bytes alone served the old closure)
    (project / "shop/rates.py").write_text("BONUS = 1\n")
    edit(project / "shop/util.py", "def fee(total: int) -> int:\n    return 1",
         "from .rates import BONUS\n\n\ndef fee(total: int) -> int:\n    return BONUS")
    config = load_config(project)
    first = build_project(config)
    hook = fingerprint_tree(config)
    assert first.ok and hashes(hook) == hashes(first)
    (project / "shop/util").mkdir()
    (project / "shop/util.py").rename(project / "shop/util/__init__.py")
    (project / "shop/util/rates.py").write_text("BONUS = 2\n")
    fresh = hashes(fingerprint_project([project], config))
    assert fresh["checkout"][0] != hashes(first)["checkout"][0]
    assert hashes(fingerprint_tree(config)) == fresh
    rebuilt = build_project(config)
    assert rebuilt.ok and hashes(rebuilt) == fresh


def test_errors_are_the_projects(project: Path) -> None:
    edit(project / "shop/pricing.py", "RATE = 90", "RATE = (")
    config = load_config(project)
    for _ in range(2):  # computed, then from the cache
        got = fingerprint_tree(config)
        assert [(e.path, e.line) for e in got.errors] == [(e.path, e.line) for e in fingerprint_project([project], config).errors]
        assert got.errors and got.errors[0].path == "shop/pricing.py"


PROBE = """
import json, sys
from loom_compiler.cli import main
code = 0
try:
    main(sys.argv[1:], prog_name="loom")
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "libcst": sorted(m for m in sys.modules if m.startswith("libcst"))}))
"""


def _loom(project: Path, *args: str) -> tuple[dict, str]:
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=project, capture_output=True, text=True, check=True)
    lines = proc.stdout.strip().splitlines()
    return json.loads(lines[-1]), "\n".join(lines[:-1])


@pytest.mark.parametrize("command", [("fingerprint", "--json"), ("version", "--json")])
def test_a_warm_hook_command_never_imports_the_parser(project: Path, command: tuple[str, ...]) -> None:
    cold, cold_out = _loom(project, *command)
    assert cold["code"] == 0 and cold["libcst"]  # the first run parses
    warm, warm_out = _loom(project, *command)
    assert warm == {"code": 0, "libcst": []} and warm_out == cold_out


def test_a_warm_check_parses_nothing_and_leaves_the_tree_clean(project: Path) -> None:
    git(project, "init", "-q")
    git(project, "-c", "user.name=t", "-c", "user.email=t@e", "add", "-A")
    git(project, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "base")
    edit(project / "shop/util.py", "return 1", "return 3")
    first = subprocess.run([sys.executable, "-m", "loom_compiler", "diff", "--base", "HEAD"], cwd=project,
                           capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    assert "checkout" in first.stdout
    assert git(project, "status", "--porcelain").split() == ["M", "shop/util.py"]  # .loom-cache ignores itself
    probe = (
        "import sys\nfrom loom_compiler import analysis\ncalls = []\nreal = analysis.analyse_module\n"
        "def spy(*a, **kw):\n    calls.append(kw['module'])\n    return real(*a, **kw)\n"
        "analysis.analyse_module = spy\nfrom loom_compiler.cli import main\n"
        "try:\n    main(['diff', '--base', 'HEAD'], prog_name='loom')\nexcept SystemExit:\n    pass\n"
        "print(calls, file=sys.stderr)\n"
    )
    again = subprocess.run([sys.executable, "-c", probe], cwd=project, capture_output=True, text=True)
    assert again.stdout == first.stdout
    assert again.stderr.strip().splitlines()[-1] == "[]"  # both sides (HEAD and the working tree) cached
