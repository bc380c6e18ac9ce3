"""loom_runtime ships inside users' services: it must import nothing outside the standard library."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

RUNTIME = Path(__file__).resolve().parents[2] / "loom_runtime"


def _top_level_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_every_runtime_module_imports_only_the_standard_library():
    allowed = set(sys.stdlib_module_names) | {"loom_runtime", "__future__"}
    offenders = {
        str(p.relative_to(RUNTIME.parent)): sorted(_top_level_imports(p) - allowed)
        for p in sorted(RUNTIME.rglob("*.py"))
    }
    assert {k: v for k, v in offenders.items() if v} == {}
    assert len(offenders) >= 10  # the scan really walked the package


def test_importing_the_runtime_with_third_party_packages_blocked():
    code = textwrap.dedent(
        """
        import importlib.abc, sys

        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in {"libcst", "click", "psycopg", "tomli", "loom_compiler"}:
                    raise ImportError(f"blocked: {name}")
                return None

        sys.meta_path.insert(0, Block())
        import loom_runtime, pkgutil, importlib
        for mod in pkgutil.walk_packages(loom_runtime.__path__, "loom_runtime."):
            importlib.import_module(mod.name)
        rt = loom_runtime.Runtime()

        @loom_runtime.flow("f")
        def f(ctx, _):
            return ctx.execute("s", lambda: 1)

        rt.register(f)
        assert rt.start("f").result == 1
        print("ok", sorted(m for m in sys.modules if m.split(".")[0] in {"libcst", "click", "psycopg"}))
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=RUNTIME.parent, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok []"
