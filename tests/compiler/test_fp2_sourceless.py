"""A first-party import whose module has no source file (breaker's B12): the closure cannot read
the code behind it, so the hash may miss an edit there. That is said, with the file and line of
the import and what to do, on every flow that reaches it; never silence (DESIGN §6)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from loom_compiler import LoomConfig, fingerprint_project
from loom_compiler.cli import main

SETUP = "import sys\n\nfrom shop import real\n\nsys.modules['shop.alias'] = real\n"
HEAD = "from loom_runtime import flow\nimport shop.setup\n"


def _project(root: Path, flows: str, **files: str) -> LoomConfig:
    files = {"shop/__init__.py": "", "shop/flows.py": flows, "shop/setup.py": SETUP,
             "shop/real.py": "def f(x):\n    return x\n", **files}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return LoomConfig(root=root, packages=("shop",))


def _warnings(root: Path, config: LoomConfig) -> list[str]:
    result = fingerprint_project([root], config)
    assert not result.errors, result.errors
    (fp,) = result.flows
    return [f"{w.path}:{w.line}:{w.code}" for w in fp.warnings]


def test_a_lazy_import_of_a_sourceless_module_is_warned_at_its_line(tmp_path: Path) -> None:
    flows = HEAD + "\n\n@flow('checkout')\ndef checkout(ctx, o):\n    y = 1\n    from shop.alias import f\n    return f(o)\n"
    assert _warnings(tmp_path, _project(tmp_path, flows)) == ["shop/flows.py:8:import-sourceless"]


def test_a_module_level_import_of_a_sourceless_module_is_warned_at_its_line(tmp_path: Path) -> None:
    flows = HEAD + "from shop.alias import f\n\n\n@flow('checkout')\ndef checkout(ctx, o):\n    return f(o)\n"
    config = _project(tmp_path, flows)
    (warning,) = fingerprint_project([tmp_path], config).flows[0].warnings
    assert (warning.path, warning.line) == ("shop/flows.py", 3)
    assert "`shop.alias`" in warning.message and "version=" in warning.message
    # the CLI says it too (and still succeeds: the flow has a hash, only an incomplete one)
    run = CliRunner().invoke(main, ["fingerprint", str(tmp_path), "--root", str(tmp_path)])
    assert run.exit_code == 0, run.output
    assert "warning: shop/flows.py:3:1: `shop.alias` is imported as first-party code" in run.stderr


def test_imports_with_a_source_or_a_third_party_target_are_not_warned(tmp_path: Path) -> None:
    flows = HEAD + ("import math\nfrom shop.real import f\nfrom shop import real\n\n\n@flow('checkout')\n"
                    "def checkout(ctx, o):\n    from shop import real as r\n    return f(o), real.f(o), r.f(o), math.floor(o)\n")
    assert _warnings(tmp_path, _project(tmp_path, flows)) == []


def test_a_missing_attribute_of_a_plain_module_is_no_sourceless_module(tmp_path: Path) -> None:
    # ``from shop.real import g`` fails on both sides (ImportError): there is no module to read
    flows = HEAD + "from shop.real import g\n\n\n@flow('checkout')\ndef checkout(ctx, o):\n    return g(o)\n"
    assert _warnings(tmp_path, _project(tmp_path, flows)) == []


def test_the_build_warns_and_still_builds(tmp_path: Path) -> None:
    from loom_compiler.bundle.build import build_project

    flows = HEAD + "from shop.alias import f\n\n\n@flow('checkout')\ndef checkout(ctx, o):\n    return f(o)\n"
    report = build_project(_project(tmp_path, flows), use_cache=False)
    assert report.ok
    assert [w for w in report.warnings if "import-sourceless" not in w and "`shop.alias`" in w
            and w.startswith("shop/flows.py:3:1: ")]
