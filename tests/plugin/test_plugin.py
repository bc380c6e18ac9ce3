"""The ``loom`` pytest plugin (``loom_runtime.testing``): fixtures, ``assert_replays``, packaging."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from loom_runtime import flow
from loom_runtime.history import dump_history, read_history
from loom_runtime.testing import ReplayAssertionError, assert_replays, memory_runtime

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]


def reserve() -> str:
    return "ok"


@flow("plugin-demo", steps=["reserve"])
def demo(ctx, _):
    ctx.execute("reserve", reserve)
    return ctx.suspend("gate")


@flow("plugin-demo", steps=["other"])
def demo_diverged(ctx, _):
    ctx.execute("other", reserve)
    return ctx.suspend("gate")


def test_assert_replays_accepts_values_documents_and_files(tmp_path: Path):
    rt = memory_runtime(demo)
    rt.start("plugin-demo", execution_id="d1")
    history = read_history(rt.journal, "d1")
    path = tmp_path / "d1.json"
    path.write_bytes(dump_history(history))
    assert assert_replays(demo, history).ok
    assert assert_replays(demo, str(path)).ok
    import json

    assert assert_replays(demo, json.loads(path.read_text())).ok
    with pytest.raises(ReplayAssertionError, match=r"diverged: execution `d1`: this code never asks for recorded step\(s\) `reserve`"):
        assert_replays(demo_diverged, path)


def test_the_fixtures_in_a_user_suite(pytester):
    pytester.makepyfile(
        textwrap.dedent(
            """
            import pytest
            from loom_runtime import Runtime, flow
            from loom_runtime.errors import FlowReplayDivergenceError
            from loom_runtime.testing import assert_replays

            calls = []

            @flow("f", steps=["a"])
            def f(ctx, _):
                ctx.execute("a", lambda: calls.append("a") or 1)
                return ctx.suspend("g")

            @flow("f", steps=["a"])  # same structure, no fingerprint: replaces f in the registry
            def g(ctx, _):
                ctx.execute("b", lambda: calls.append("b") or 2)
                return ctx.suspend("g")

            def test_runtime_fixture_is_strict(loom_runtime, loom_registry, loom_journal, loom_history):
                assert isinstance(loom_runtime, Runtime)
                assert loom_runtime.registry is loom_registry and loom_runtime.journal is loom_journal
                loom_runtime.register(f)
                loom_runtime.start("f", execution_id="e")
                assert_replays(f, loom_history("e"))
                loom_runtime.register(g)  # a deploy of a divergent body
                with pytest.raises(FlowReplayDivergenceError):
                    loom_runtime.resume("e", 1)
                assert calls == ["a"]
            """
        )
    )
    # loaded through the installed ``pytest11`` entry point, as in a user's project
    result = pytester.runpytest("-q")
    result.assert_outcomes(passed=1)


def test_the_entry_point_is_declared_for_pytest11():
    from importlib.metadata import entry_points

    text = (ROOT / "pyproject.toml").read_text()
    assert '[project.entry-points.pytest11]\nloom = "loom_runtime.testing"' in text
    installed = {e.name: e.value for e in entry_points(group="pytest11")}
    assert installed.get("loom") == "loom_runtime.testing", "reinstall: pip install -e ."


def test_importing_the_helpers_needs_neither_pytest_nor_libcst():
    """A service (or a script) imports the helpers without pytest; the plugin never loads libcst."""
    code = textwrap.dedent(
        """
        import importlib.abc, sys

        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in {"pytest", "_pytest", "libcst", "click", "loom_compiler"}:
                    raise ImportError(f"blocked: {name}")
                return None

        sys.meta_path.insert(0, Block())
        from loom_runtime.testing import assert_replays, memory_runtime
        import loom_runtime.testing as t
        assert not hasattr(t, "loom_runtime")  # fixtures only exist under a running pytest
        print("ok")
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"
