"""The fingerprint stage in forked workers (``bundle.build._Pipeline._fingerprint_forked``):
the same bytes as the stage in one process, a dead or failing worker reported, no workers for a
small rebuild, none where the build cannot fork."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from loom_compiler.bundle import build as build_module
from loom_compiler.bundle import forked_stage
from loom_compiler.bundle.build import build_project
from loom_compiler.config import load_config

pytestmark = pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(),
                                reason="the forked stage needs the fork start method")

FLOWS = build_module.AUTO_MIN_MODULES + 2


def _tree(root: Path, count: int = FLOWS, *, broken: bool = False) -> Path:
    """``count`` flow modules over four helper modules that import each other in a ring; each
    helper imports a lazy module inside a function (a closure reaches it, the parse waves do
    not: the workers analyse it, with deferred forms), and the flows of two helpers reach two
    different functions of one lazy module (their forms are merged from two workers). Flow 3
    imports a first-party module with no source, flow 5 executes an undeclared step id (two
    warnings); ``broken`` adds a syntax error to flow 7 (the build fails)."""
    app = root / "app"
    app.mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.loom]\npackages = ["app"]\n')
    (app / "__init__.py").write_text("")
    (app / "steps.py").write_text("from loom_runtime import step\n\n\n@step\ndef charge(x):\n    return x\n")
    for j in range(4):
        lazy, name = ("lazy0", "deep") if j in (0, 1) else ("lazy0", "other") if j == 2 else ("lazy1", "deep")
        (app / f"lib{j}.py").write_text(
            f'"""Helpers {j}."""\nfrom app.lib{(j + 1) % 4} import shared_{(j + 1) % 4}\n\nRATE = {j}\n\n\n'
            f"def shared_{j}(x):\n    return x + RATE\n\n\ndef unused_{j}(x):\n    return shared_{(j + 1) % 4}(x)\n\n\n"
            f"def via_lazy_{j}(x):\n    from app.{lazy} import {name}\n    return {name}(x)\n")
    for k in range(2):
        (app / f"lazy{k}.py").write_text(f"def deep(x):\n    return x - {k}\n\n\ndef other(x):\n    return x * {k}\n")
    for i in range(count):
        j = i % 4
        body = (
            "from loom_runtime import flow\n"
            f"from app.lib{j} import shared_{j}, via_lazy_{j}\n"
            "from app.steps import charge\n"
            + ("from app.missing import nothing\n" if i == 3 else "")
            + f"\n\n@flow('f{i:02d}', steps=['charge'])\ndef f{i:02d}(ctx, n):\n"
            "    ctx.execute('charge', charge, n)\n"
            + ("    ctx.execute('undeclared', charge, n)\n" if i == 5 else "")
            + ("    nothing(n)\n" if i == 3 else "")
            + f"    return via_lazy_{j}(shared_{j}(n)) * {i}\n"
        )
        if broken and i == 7:
            body += "\n\ndef oops(:\n"
        (app / f"f{i:02d}.py").write_text(body)
    return root


def _written(root: Path) -> list[str]:
    """The manifest and chunks under the output directory (its lock file aside)."""
    out = root / "build" / "loom"
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and p.name != ".lock") \
        if out.exists() else []


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """Each forked stage run: (workers, items)."""
    runs: list[tuple[int, int]] = []
    real = forked_stage.map_forked

    def spy(job, items, *, workers, label, cost=None):  # type: ignore[no-untyped-def]
        items = list(items)
        runs.append((workers, len(items)))
        return real(job, items, workers=workers, label=label, cost=cost)

    monkeypatch.setattr(forked_stage, "map_forked", spy)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    return runs


def _entries(root: Path) -> list[bytes]:
    """The cache entries' values (the header line names the key; the build record's holds the
    absolute output directory, which differs between the trees compared)."""
    return sorted(data.partition(b"\n")[2] for data in _files(root / ".loom-cache" / "entries").values())


def _in_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    # the parse waves still run in workers (their summaries are complete), the fingerprint stage
    # in this process once the parse pool is shut down, as the forked stage runs
    monkeypatch.setattr(build_module._Pipeline, "_forked_workers", lambda self, stale: self.close() or 1)


@pytest.mark.parametrize("broken", [False, True], ids=["warnings", "errors"])
def test_forked_stage_writes_the_bytes_of_a_serial_stage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         forks: list[tuple[int, int]], broken: bool) -> None:
    forked_root = _tree(tmp_path / "forked", broken=broken)
    serial_root = tmp_path / "serial"
    shutil.copytree(forked_root, serial_root)
    one_root = tmp_path / "one"
    shutil.copytree(forked_root, one_root)

    forked = build_project(load_config(forked_root))
    assert forks == [(2, FLOWS)]
    with monkeypatch.context() as m:
        _in_one_process(m)
        serial = build_project(load_config(serial_root))
    assert forks == [(2, FLOWS)]
    one = build_project(load_config(one_root), jobs=1)

    assert forked.ok is (not broken)
    if broken:
        assert [(e.path, e.line) for e in forked.errors] == [("app/f07.py", 12)]
        assert _written(forked_root) == []
    else:
        assert len(forked.warnings) == 2 and "app.missing" in " ".join(forked.warnings)
    for other in (serial, one):
        assert forked.errors == other.errors and forked.warnings == other.warnings
        assert forked.flows == other.flows and forked.written == other.written
        assert forked.refingerprinted == other.refingerprinted
        assert forked.summary.modules_parsed == other.summary.modules_parsed
    assert sorted(forked.parsed) == sorted(serial.parsed) and len(forked.parsed) == len(serial.parsed)
    assert {"app.lazy0", "app.lazy1"} <= set(forked.parsed)  # analysed by the workers, each counted once
    # everything written: the output directory, and every cache entry (flows, heads, deps, and the
    # lazy modules' summaries holding the forms the closures of both workers asked for)
    assert _files(forked_root / "build") == _files(serial_root / "build") == _files(one_root / "build")
    assert _entries(forked_root) == _entries(serial_root)
    # a lazy module's entry holds the forms its closures asked for: both functions of lazy0 (two
    # groups of flows, in two workers), one of lazy1's two; as a serial build's (--jobs 1)
    for root in (forked_root, one_root):
        lazy = {name: data.count(b"(FunctionDef") for name in (b"lazy0", b"lazy1") for data in _entries(root)
                if data.startswith(b'[0,["app.' + name + b'"')}
        assert lazy == {b"lazy0": 2, b"lazy1": 1}


def test_a_rebuild_from_the_forked_stage_cache_is_served(tmp_path: Path, forks: list[tuple[int, int]]) -> None:
    root = _tree(tmp_path / "p")
    assert build_project(load_config(root)).ok
    again = build_project(load_config(root))
    assert again.ok and again.parsed == () and again.refingerprinted == ()
    assert forks == [(2, FLOWS)]


def test_a_small_rebuild_starts_no_workers(tmp_path: Path, forks: list[tuple[int, int]],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "p")
    assert build_project(load_config(root)).ok
    assert forks == [(2, FLOWS)]
    pools: list[int] = []
    monkeypatch.setattr(build_module, "_process_pool", lambda workers: pools.append(workers))
    for i in range(3):
        path = root / "app" / f"f{i:02d}.py"
        path.write_text(path.read_text().replace(f"* {i}\n", f"* {i + 100}\n"))
    edited = build_project(load_config(root))
    assert edited.ok and sorted(edited.refingerprinted) == ["app.f00", "app.f01", "app.f02"]
    assert forks == [(2, FLOWS)] and pools == []  # three stale flow modules: no workers of either kind


def test_just_below_the_automatic_threshold_is_serial(tmp_path: Path, forks: list[tuple[int, int]]) -> None:
    root = _tree(tmp_path / "p", count=build_module.AUTO_MIN_MODULES - 1)
    assert build_project(load_config(root)).ok
    assert forks == []
    # an explicit --jobs forks for any two
    other = _tree(tmp_path / "q", count=3)
    assert build_project(load_config(other), jobs=2).ok
    assert forks == [(2, 3)]
    assert build_project(load_config(_tree(tmp_path / "r", count=3)), jobs=1).ok
    assert forks == [(2, 3)]


def test_no_forked_stage_where_the_build_cannot_fork(tmp_path: Path, forks: list[tuple[int, int]],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build_module, "_can_fork", lambda: False)
    root = _tree(tmp_path / "p")
    serial = _tree(tmp_path / "s")
    report = build_project(load_config(root), jobs=2)  # the waves may spawn; the stage stays here
    assert report.ok and forks == []
    assert build_project(load_config(serial), jobs=1).ok
    assert _files(root / "build") == _files(serial / "build")


def test_a_worker_that_dies_is_an_error_and_nothing_is_written(tmp_path: Path, forks: list[tuple[int, int]],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "p")
    parent = os.getpid()
    real = build_module._Pipeline._fingerprint_module

    def dies(self, src, memo, module):  # type: ignore[no-untyped-def]
        if os.getpid() != parent and module == "app.f10":
            os._exit(3)
        return real(self, src, memo, module)

    monkeypatch.setattr(build_module._Pipeline, "_fingerprint_module", dies)
    with pytest.raises(forked_stage.WorkerDied, match=r"died \(exit code 3\) with \d+ item"):
        build_project(load_config(root))
    assert forks == [(2, FLOWS)]
    assert _written(root) == []


def test_a_worker_that_dies_while_tasks_are_submitted_is_worker_died(monkeypatch: pytest.MonkeyPatch) -> None:
    # the race test_cli_reports_a_dead_worker lost now and then: the first worker died before the
    # stage had submitted its last task, and ``submit`` raised BrokenProcessPool past the handler
    from concurrent.futures import ProcessPoolExecutor

    real = ProcessPoolExecutor.submit
    sent: list = []

    def submit(self, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
        if sent:
            sent[0].exception()  # waits until the first task's worker died: the pool is broken
        sent.append(real(self, fn, *args, **kwargs))
        return sent[-1]

    monkeypatch.setattr(ProcessPoolExecutor, "submit", submit)
    with pytest.raises(forked_stage.WorkerDied, match=r"the test stage died \(exit code 4\) with 20 item"):
        forked_stage.map_forked(lambda item: os._exit(4), [f"m{i:02d}" for i in range(20)], workers=2,
                                label="the test stage")
    assert len(sent) == 1  # it stopped submitting at the broken pool


def test_a_worker_that_raises_raises_the_same_error(tmp_path: Path, forks: list[tuple[int, int]],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "p")
    real = build_module._Pipeline._fingerprint_module

    def fails(self, src, memo, module):  # type: ignore[no-untyped-def]
        if module == "app.f10":
            raise ZeroDivisionError("a bug in the closure of app.f10")
        return real(self, src, memo, module)

    monkeypatch.setattr(build_module._Pipeline, "_fingerprint_module", fails)
    with pytest.raises(ZeroDivisionError, match="a bug in the closure of app.f10"):
        build_project(load_config(root))
    assert forks == [(2, FLOWS)]
    assert _written(root) == []


def test_cli_reports_a_dead_worker(tmp_path: Path, forks: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from loom_compiler.cli import main

    root = _tree(tmp_path / "p")
    parent = os.getpid()
    real = build_module._Pipeline._fingerprint_module

    def dies(self, src, memo, module):  # type: ignore[no-untyped-def]
        if os.getpid() != parent:
            os._exit(9)
        return real(self, src, memo, module)

    monkeypatch.setattr(build_module._Pipeline, "_fingerprint_module", dies)
    monkeypatch.chdir(root)
    result = CliRunner().invoke(main, ["build"])
    assert result.exit_code == 1, result.output
    assert "loom build: a worker process of the fingerprint stage" in result.output
    assert "nothing was written" in result.output and _written(root) == []


def test_files_only_a_worker_read_are_checked_for_moves(tmp_path: Path, forks: list[tuple[int, int]],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from loom_compiler.sources import DirectorySourceTree

    root = _tree(tmp_path / "p")
    # an excluded module is not read by the scan; a closure that imports it reads it (a worker here)
    (root / "pyproject.toml").write_text('[tool.loom]\npackages = ["app"]\nexclude = ["app/lazy1.py"]\n')
    checked: list[set[str]] = []
    real = DirectorySourceTree.changed

    def changed(self):  # type: ignore[no-untyped-def]
        checked.append({Path(p).name for p in self.read_log()[0]})
        return real(self)

    monkeypatch.setattr(DirectorySourceTree, "changed", changed)
    report = build_project(load_config(root))
    assert report.ok and forks == [(2, FLOWS)]
    assert "lazy1.py" in checked[-1] and "lazy0.py" in checked[-1]


def _in_subpackage(root: Path) -> Path:
    """``_tree`` with the flow modules moved to ``app/flows/`` (a package no import names: only
    the closures run it, as the flow modules' package)."""
    flows = root / "app" / "flows"
    flows.mkdir()
    (flows / "__init__.py").write_text('"""The flows."""\nTIMEOUT = 5\n')
    for path in sorted((root / "app").glob("f*.py")):
        path.rename(flows / path.name)
    return root


def test_the_parse_waves_include_the_flow_modules_packages(tmp_path: Path, forks: list[tuple[int, int]],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # each worker parsed ``app.flows`` again for itself when the waves left it out: a parse, and
    # libcst's native parser imported, per worker
    root = _in_subpackage(_tree(tmp_path / "p"))
    in_workers: list[str] = []
    real = build_module._Pipeline._merge_forked

    def merge(self, src, done):  # type: ignore[no-untyped-def]
        in_workers.extend(m for _module, got in done for m in got.parsed)
        return real(self, src, done)

    monkeypatch.setattr(build_module._Pipeline, "_merge_forked", merge)
    report = build_project(load_config(root))
    assert report.ok and forks == [(2, FLOWS)]
    assert "app.flows" in report.parsed and report.parsed.count("app.flows") == 1
    assert "app.flows" not in in_workers
    assert set(in_workers) <= {"app.lazy0", "app.lazy1"}  # only what a lazy import reaches


def test_workers_inherit_the_stage_modules(tmp_path: Path) -> None:
    # the closure, chunk and step-id modules are imported before the fork, not by each worker; a
    # fresh interpreter, so that no earlier build of this process has imported them already
    import subprocess
    import sys

    root = _tree(tmp_path / "p")
    log = tmp_path / "imported.txt"
    script = f"""
import os, sys
from pathlib import Path
from loom_compiler.bundle import forked_stage
from loom_compiler.bundle.build import build_project
from loom_compiler.config import load_config
real = forked_stage._run
def run(items):
    before = set(sys.modules)
    try:
        return real(items)
    finally:
        with open({str(log)!r}, "a") as fh:
            fh.write("".join(m + "\\n" for m in ["<ran>", *sorted(set(sys.modules) - before)]))
run.__qualname__ = "_run"
run.__module__ = forked_stage.__name__
forked_stage._run = run
os.sched_getaffinity = lambda pid: {{0, 1}}
assert build_project(load_config(Path({str(root)!r}))).ok
"""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    subprocess.run([sys.executable, "-c", script], check=True, env=env, cwd=root)
    imported = log.read_text().split()
    assert "<ran>" in imported  # a forked stage ran
    # a worker that parses a module a lazy import reaches (this tree's ``app.lazy0``) imports
    # libcst's native parser for it: not a stage module
    assert [m for m in imported if m.startswith(("loom_compiler", "loom_runtime"))] == []


def test_parsing_starts_while_the_scan_still_checks_candidates(tmp_path: Path, forks: list[tuple[int, int]],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # one stream, not waves: the first modules go to the workers as soon as enough flow modules
    # are known, before the scan's marker check of the later ones; a helper as soon as the
    # summary of a module importing it is back (``parse_ahead``)
    from loom_compiler.bundle import parse_ahead

    root = _tree(tmp_path / "p")
    events: list[tuple[str, tuple[str, ...]]] = []
    real_check, real_send = build_module.spells_a_marker_in_code, parse_ahead.ParseAhead._send

    def check(data, config):  # type: ignore[no-untyped-def]
        events.append(("check", ()))
        return real_check(data, config)

    def send(self, batch):  # type: ignore[no-untyped-def]
        events.append(("send", batch))
        return real_send(self, batch)

    monkeypatch.setattr(build_module, "spells_a_marker_in_code", check)
    monkeypatch.setattr(parse_ahead.ParseAhead, "_send", send)
    report = build_project(load_config(root))
    assert report.ok and forks == [(2, FLOWS)]
    checks = [i for i, (what, _) in enumerate(events) if what == "check"]
    sends = [i for i, (what, _) in enumerate(events) if what == "send"]
    assert len(checks) == FLOWS and sends[0] < checks[-1]
    assert events[sends[0]][1] == ("app.f00", "app")  # the first flow module as scanned, then its package
    sent = [m for i in sends for m in events[i][1]]
    assert sorted(sent) == sorted(set(sent)) == sorted(report.parsed[:len(sent)])  # each once


def test_the_stream_reports_the_waves_order(tmp_path: Path, forks: list[tuple[int, int]]) -> None:
    # whatever order the summaries come back in, the build reports the modules parsed as the waves
    # reached them: the flow modules as scanned, then each wave's new modules sorted, then what
    # the closures analysed later (the lazy modules, in the workers)
    root = _tree(tmp_path / "p")
    report = build_project(load_config(root))
    assert report.ok and forks == [(2, FLOWS)]
    flows = [f"app.f{i:02d}" for i in range(FLOWS)]
    assert list(report.parsed) == [*flows, "app", "app.lib0", "app.lib1", "app.lib2", "app.lib3", "app.steps",
                                   "app.lazy0", "app.lazy1"]
