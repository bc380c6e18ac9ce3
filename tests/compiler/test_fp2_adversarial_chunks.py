"""Chunks of the adversarial projects (``fp2_cases_adversarial.CHUNK_CASES``) run exactly what the
live modules ran: each project is built with the real ``loom build``; in one fresh interpreter every
chunk is loaded through the registry and its flow called (the project on ``sys.path``, as in a
serving process, and no first-party module may be imported), in another every live flow module
is imported and called with the same input. A flow that raises is compared by the exception type
name the journal records for it (``loom_runtime.run.qualname``) and its message.

A case naming a TEAM.md ``finding`` is a strict xfail (see ``test_fp2_adversarial_pairs``); a case
with ``refused`` must be refused by the build, with that text in its error (``bundle.chunk_limits``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from helpers.project_files import run_harness, write_files as _write

from loom_compiler import LoomConfig
from loom_compiler.bundle.build import build_project

from fp2_cases_adversarial import CHUNK_CASES, ChunkCase

HARNESS = '''
import importlib, json, re, sys
from pathlib import Path
from loom_runtime.run import qualname

class Ctx:
    def execute(self, step_id, fn, *args, **kwargs):
        return fn(*args, **kwargs)

def call(fn, function, ns, order):
    if "." in function:
        return fn(ns[function.split(".")[0]](), Ctx(), order)
    return fn(Ctx(), order)

cases = json.loads(sys.argv[1])
mode = sys.argv[2]
out = {}
search_path = list(sys.path)
for name, root, flow_id, function, module, order in cases:
    # each case in a process of its own, as far as imports go: the search path its package
    # changed, and every module loaded from a case's files (``helper`` from a vendor directory)
    sys.path[:] = search_path
    here = str(Path(root).parent)
    for m in [m for m, mod in list(sys.modules.items()) if str(getattr(mod, "__file__", None) or "").startswith(here)]:
        del sys.modules[m]
    try:
        if mode == "chunk":
            # the serving process can import the live package (its steps come from there), and
            # the chunk must still import none of it: it only finds where its files are
            from loom_runtime.registry import Registry
            sys.path.insert(0, root)
            try:
                registry = Registry.from_manifest(str(Path(root) / "build/loom/manifest.json"))
                (version,) = registry.versions(flow_id)
                fn = version.runner()
                value = call(fn, function, fn.__globals__, order)
            finally:
                sys.path.remove(root)
        else:
            for m in [m for m in sys.modules if m == "shop" or m.startswith("shop.")]:
                del sys.modules[m]
            sys.path.insert(0, root)
            try:
                mod = importlib.import_module(module)
            finally:
                sys.path.remove(root)
            obj = mod
            for part in function.split("."):
                obj = getattr(obj, part)
            value = call(obj, function, vars(mod), order)
        out[name] = repr(value)
    except Exception as exc:  # a case's failure is its result, as the journal records it
        out[name] = f"raised {qualname(type(exc))}: {exc}"
    if mode == "chunk":
        # repr() of a class the chunk defines names the chunk's private module (loom_runtime.chunk_names:
        # pickle needs that text); read without it, a result shows which class the code reached
        out[name] = re.sub(r"_loom_chunks\\.[0-9A-Za-z_]+\\.", "", out[name])
    if mode == "chunk":  # a chunk that imported live first-party code fails its own case (not every case)
        imported = sorted(m for m in sys.modules if m == "shop" or m.startswith("shop."))
        if imported:
            out[name] = f"imported live first-party modules {imported}; returned {out[name]}"
            for m in imported:
                del sys.modules[m]
out["<first-party modules imported>"] = sorted(m for m in sys.modules if m == "shop" or m.startswith("shop."))
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    """case name -> (chunk result, live result); every chunk ran on bundled first-party code only."""
    return chunk_results(CHUNK_CASES, tmp_path_factory.mktemp("adversarial_chunks"))


def chunk_results(cases: Sequence[ChunkCase], tmp: Path) -> dict[str, tuple[str, str]]:
    """case name -> (chunk result, live result) of ``cases``, built under ``tmp`` (shared by every
    table of chunk cases: ``test_fp2_fixh2``)."""
    runs = []
    refused: dict[str, str] = {}
    for i, case in enumerate(cases):
        root = tmp / f"{i:03d}"
        _write(root, case.files)
        report = build_project(LoomConfig(root=root, packages=("shop",)))
        if not report.ok:  # a build that refuses valid code is the case's (chunk) result
            refused[case.name] = "build refused: " + "; ".join(str(e) for e in report.errors)
        found = [(f.function, f.module) for f in report.flows if f.flow_id == case.flow_id]
        (function, module), = found or [("checkout", "shop.flows")]
        runs.append([case.name, str(root), case.flow_id, function, module, case.order])
    chunk = run_harness(HARNESS, "chunk", [r for r in runs if r[0] not in refused], tmp)
    live = run_harness(HARNESS, "live", runs, tmp)
    assert chunk.pop("<first-party modules imported>") == []
    live.pop("<first-party modules imported>")
    return {name: (refused.get(name) or chunk[name], live[name]) for name in live}


def _param(case: ChunkCase):  # noqa: ANN202
    # C<n>: the second round; E<n>: the fourth; F<n>: the fifth (session 6); G<n>: the sixth (session 7)
    who = {"C": "breaker2", "E": "breaker4", "F": "breaker5", "G": "breaker6"}.get(case.finding[0], "breaker") if case.finding else "breaker"
    marks = [pytest.mark.xfail(strict=True, reason=f"TEAM.md {who} finding {case.finding}")] if case.finding else []
    return pytest.param(case, id=case.name, marks=marks)


@pytest.mark.slow
@pytest.mark.parametrize("case", [_param(c) for c in CHUNK_CASES])
def test_chunk_runs_what_the_live_module_ran(results: dict[str, tuple[str, str]], case: ChunkCase) -> None:
    assert_chunk_case(results, case)


def assert_chunk_case(results: dict[str, tuple[str, str]], case: ChunkCase) -> None:
    """The chunk ran what live code ran, or (``case.refused``) the build refused the flow, saying
    where (shared by every table of chunk cases)."""
    chunk, live = results[case.name]
    if case.refused is not None:
        assert chunk.startswith("build refused: ") and case.refused in chunk, chunk
        return
    assert chunk == live
