"""``build_project`` and ``loom build`` over the fixture project ``data/bundle_shop``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from loom_compiler.bundle import build as build_module
from loom_compiler.bundle.build import build_project
from loom_compiler.cli import main
from loom_compiler.config import load_config
from loom_runtime.manifest import load_manifest

from helpers.git_repo import copy_project, edit

DATA = Path(__file__).parent / "data" / "bundle_shop"
SNAPSHOTS = Path(__file__).parent / "snapshots" / "bundle_shop"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "bundle_shop"
    copy_project(DATA, root)
    return root


def build(root: Path, **kw):
    return build_project(load_config(root), **kw)


def files_of(directory: Path) -> dict[str, bytes]:
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


# -- output ------------------------------------------------------------------------------------------


def test_manifest_and_chunks_match_the_snapshots(project: Path, snapshot):
    report = build(project)
    assert report.ok, report.errors
    snapshot.snapshot_dir = SNAPSHOTS
    out = files_of(project / "build" / "loom")
    chunks = {fid: f.versions[f.current].chunk for fid, f in report.manifest.flows.items()}
    assert sorted(out) == sorted([*chunks.values(), "manifest.json"])
    assert chunks["checkout"] == f"chunks/checkout/{report.manifest.flows['checkout'].current[7:23]}.py"
    snapshot.assert_match(out["manifest.json"].decode(), "manifest.json")
    snapshot.assert_match(out[chunks["checkout"]].decode(), "checkout.py")
    snapshot.assert_match(out[chunks["refund"]].decode(), "refund.py")


def test_manifest_fields_are_the_design_fields(project: Path):
    build(project)
    doc = json.loads((project / "build/loom/manifest.json").read_text())
    assert set(doc) == {"schema", "fingerprintScheme", "flows"}
    flow = doc["flows"]["checkout"]
    assert set(flow) == {"current", "removed", "versions"}
    version = flow["versions"][flow["current"]]
    assert set(version) == {"flowHash", "legacyFlowHash", "version", "steps", "stepFamilies", "compatibleWith",
                            "chunk", "chunkDigest", "entry", "source", "closure", "scheme"}
    assert version["scheme"] == "loom-fp/2" == doc["fingerprintScheme"]  # rehashedFrom: only after an upgrade
    import hashlib

    chunk = (project / "build/loom" / version["chunk"]).read_bytes()
    assert version["chunkDigest"] == "sha256:" + hashlib.sha256(chunk).hexdigest()
    src = (project / version["source"]["path"]).read_bytes()
    assert version["source"]["sourceDigest"] == "sha256:" + hashlib.sha256(src).hexdigest()
    assert str(project) not in (project / "build/loom/manifest.json").read_text()


def test_two_clean_builds_are_byte_identical(project: Path, tmp_path: Path):
    other = tmp_path / "elsewhere" / "copy"
    shutil.copytree(project, other)
    build(project)
    build(other, jobs=2, use_cache=False)
    assert files_of(project / "build/loom") == files_of(other / "build/loom")


# -- cumulative ----------------------------------------------------------------------------------------


def test_rebuild_after_a_helper_edit_keeps_every_earlier_file(project: Path):
    first = build(project)
    before = files_of(project / "build/loom")
    edit(project / "shop/pricing.py", "RATE = 90", "RATE = 50")
    second = build(project)
    after = files_of(project / "build/loom")
    for rel, data in before.items():
        if rel != "manifest.json":
            assert after[rel] == data
    manifest = load_manifest(project / "build/loom/manifest.json")
    checkout = manifest.flows["checkout"]
    old = first.manifest.flows["checkout"].current
    assert old in checkout.versions and checkout.current != old and len(checkout.versions) == 2
    assert {f for f, _ in second.new_versions} == {"checkout", "refund"}


def test_a_flow_that_disappeared_keeps_its_versions_marked_removed(project: Path):
    first = build(project)
    (project / "shop/refunds.py").unlink()
    second = build(project)
    refund = second.manifest.flows["refund"]
    assert refund.removed and refund.current is None
    assert set(refund.versions) == set(first.manifest.flows["refund"].versions)
    assert second.removed == ("refund",)
    (chunk,) = [v.chunk for v in refund.versions.values()]
    assert (project / "build/loom" / chunk).is_file()


def test_a_comment_edit_keeps_the_code_hash_and_never_rewrites_the_old_chunk(project: Path):
    first = build(project)
    old_entry = first.manifest.flows["checkout"].versions[first.manifest.flows["checkout"].current]
    old_bytes = (project / "build/loom" / old_entry.chunk).read_bytes()
    edit(project / "shop/util.py", "LIMIT = 500\n", "LIMIT = 500  # review above this\n")
    second = build(project)
    entry = second.manifest.flows["checkout"].versions[old_entry.code_hash]
    assert second.manifest.flows["checkout"].current == old_entry.code_hash
    assert entry.chunk != old_entry.chunk and entry.chunk.startswith(old_entry.chunk[:-3] + "-")
    assert "# review above this" in (project / "build/loom" / entry.chunk).read_text()
    assert (project / "build/loom" / old_entry.chunk).read_bytes() == old_bytes


def test_chunks_of_v1_and_v2_run_side_by_side_each_with_its_own_helper(project: Path):
    v1 = build(project)
    edit(project / "shop/pricing.py", "RATE = 90", "RATE = 50")
    v2 = build(project)
    hashes = [v1.manifest.flows["checkout"].current, v2.manifest.flows["checkout"].current]
    script = textwrap.dedent(
        """
        import json, sys
        from loom_runtime.registry import Registry

        class Ctx:
            def execute(self, step_id, fn, *args):
                return fn(*args)
            def suspend(self, gate):
                return None

        registry = Registry.from_manifest("build/loom/manifest.json")
        order = {"id": "o1", "sku": "s", "items": [{"price": 60}, {"price": 40}]}
        out = {}
        for version in registry.versions("checkout"):
            out[version.code_hash] = version.runner()(Ctx(), order)["amount"]
        out["pricing imported"] = "shop.pricing" in sys.modules
        out["util imported"] = "shop.util" in sys.modules
        print(json.dumps(out))
        """
    )
    env = {**os.environ, "PYTHONPATH": str(project)}
    proc = subprocess.run([sys.executable, "-c", script], cwd=project, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    # v1: floor(100 * 90 / 100) + pricing.fee 0 + util.fee 1 = 91; v2: floor(100 * 50 / 100) + 0 + 1 = 51
    assert result[hashes[0]] == 91 and result[hashes[1]] == 51
    assert result["pricing imported"] is False and result["util imported"] is False


def test_a_missing_chunk_of_an_old_version_is_a_warning_naming_the_way_out(project: Path):
    first = build(project)
    old = first.manifest.flows["checkout"].versions[first.manifest.flows["checkout"].current]
    edit(project / "shop/pricing.py", "RATE = 90", "RATE = 50")
    build(project)
    (project / "build/loom" / old.chunk).unlink()
    report = build(project)
    assert report.ok and old.code_hash in report.manifest.flows["checkout"].versions
    assert any(old.chunk in w and "--from-git" in w for w in report.warnings)


# -- incremental --------------------------------------------------------------------------------------


@pytest.fixture
def analyse_spy(monkeypatch):
    calls: list[str] = []
    from loom_compiler import analysis

    real = analysis.analyse_module

    def spy(data, *, module, path, config=None, **kw):
        calls.append(module)
        return real(data, module=module, path=path, config=config, **kw)

    monkeypatch.setattr(analysis, "analyse_module", spy)
    return calls


def test_an_unchanged_tree_parses_nothing_and_rewrites_nothing(project: Path, analyse_spy):
    build(project)
    analyse_spy.clear()
    report = build(project)
    assert analyse_spy == [] and report.written == () and report.refingerprinted == ()
    assert report.unchanged == ("checkout", "refund") and report.new_versions == ()


def test_an_edit_reparses_one_file_and_refingerprints_only_the_flows_that_reach_it(project: Path, analyse_spy):
    build(project)
    analyse_spy.clear()
    edit(project / "shop/util.py", "return 1", "return 3")  # reached by checkout only
    report = build(project)
    assert analyse_spy == ["shop.util"]
    assert report.refingerprinted == ("shop.flows",)
    assert [f for f, _ in report.new_versions] == ["checkout"] and report.unchanged == ("refund",)
    analyse_spy.clear()
    edit(project / "shop/pricing.py", "RATE = 90", "RATE = 80")  # reached by both
    report = build(project)
    assert analyse_spy == ["shop.pricing"]
    assert report.refingerprinted == ("shop.flows", "shop.refunds")


def test_a_module_appearing_where_a_closure_looked_invalidates_the_flow(project: Path):
    edit(project / "shop/flows.py", "from shop.pricing import fee\n", "from shop.extra import fee\n")
    first = build(project)
    kinds = {m.qualname: m.kind for m in first.flows[0].closure}
    assert kinds["shop.extra.fee"] == "import"  # not in the tree (yet): an import target
    (project / "shop/extra.py").write_text("def fee(total):\n    return 7\n")
    second = build(project)
    assert second.refingerprinted == ("shop.flows",)
    kinds = {m.qualname: m.kind for m in second.flows[0].closure}
    assert kinds["shop.extra.fee"] == "function"


# -- errors --------------------------------------------------------------------------------------------


def test_a_source_error_writes_nothing_and_keeps_the_previous_build(project: Path):
    build(project)
    before = files_of(project / "build/loom")
    edit(project / "shop/util.py", "return 1", "return (1")
    edit(project / "shop/pricing.py", "RATE = 90", "RATE = 10")
    report = build(project)
    assert not report.ok and report.exit_code == 1 and report.manifest is None
    assert [(e.path, e.code) for e in report.errors] == [("shop/util.py", "syntax")]
    assert files_of(project / "build/loom") == before


def test_an_interrupted_manifest_write_leaves_the_previous_manifest(project: Path, monkeypatch):
    build(project)
    before = (project / "build/loom/manifest.json").read_bytes()
    edit(project / "shop/pricing.py", "RATE = 90", "RATE = 10")

    def boom(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        build(project)
    assert (project / "build/loom/manifest.json").read_bytes() == before
    assert not list((project / "build/loom").rglob("*.tmp"))


def test_a_corrupt_previous_manifest_stops_the_build(project: Path):
    (project / "build/loom").mkdir(parents=True)
    (project / "build/loom/manifest.json").write_text("{not json")
    report = build(project)
    assert not report.ok
    assert report.errors[0].code == "manifest" and "delete it to start a new history" in report.errors[0].message
    assert (project / "build/loom/manifest.json").read_text() == "{not json"


def test_duplicate_flow_ids_across_modules_are_errors(project: Path):
    edit(project / "shop/refunds.py", '@loom_flow("refund"', '@loom_flow("checkout"')
    report = build(project)
    (error,) = report.errors  # once per id, at the first site, naming every site
    assert error.path == "shop/flows.py" and error.code == "duplicate-id"
    assert "flow id `checkout` is declared 2 times" in error.message and "shop/refunds.py:" in error.message


# -- CLI -----------------------------------------------------------------------------------------------


def test_cli_builds_and_prints_a_summary(project: Path, tmp_path: Path):
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["build", str(project), "--out", str(out), "--jobs", "2"])
    assert result.exit_code == 0, result.output
    assert "loom build: 2 flows (2 new), 2 new versions, 0 errors in" in result.output
    assert "\r" not in result.output  # no progress frames when not on a terminal
    assert (out / "manifest.json").is_file()


def test_cli_exit_1_on_a_source_error_names_file_line_and_column(project: Path):
    edit(project / "shop/flows.py", "LIMIT = 3", "LIMIT = = 3")
    result = CliRunner().invoke(main, ["build", str(project)])
    assert result.exit_code == 1
    assert "shop/flows.py:9:" in result.output and "nothing was written" in result.output


def test_cli_exit_2_on_a_configuration_error(project: Path):
    (project / "pyproject.toml").write_text('[tool.loom]\npackages = ["shop"]\nout = 3\n')
    result = CliRunner().invoke(main, ["build", str(project)])
    assert result.exit_code == 2
    assert "tool.loom.out" in result.output


def test_builds_of_one_output_take_turns(project: Path):
    import threading

    from loom_compiler.bundle.output_lock import output_lock

    config = load_config(project)
    out_dir = (project / "build/loom").resolve()
    done = threading.Event()
    with output_lock(out_dir):
        worker = threading.Thread(target=lambda: (build_project(config), done.set()))
        worker.start()
        assert not done.wait(1.0)  # blocked while another build holds the output
        assert not (out_dir / "manifest.json").exists()
    worker.join(60)
    assert done.is_set() and (out_dir / "manifest.json").is_file()


def test_the_directory_fast_scan_finds_what_the_source_tree_protocol_finds(project: Path, tmp_path: Path):
    from loom_compiler.sources import DirectorySourceTree

    class PlainTree:  # only the SourceTree protocol: the generic scan
        def __init__(self, inner):
            self.inner = inner

        def module_names(self):
            return self.inner.module_names()

        def path_of(self, module):
            return self.inner.path_of(module)

        def read(self, module):
            return self.inner.read(module)

    edit(project / "pyproject.toml", 'packages = ["shop"]', 'packages = ["shop"]\nexclude = ["shop/refunds.py"]')
    (project / "scripts").mkdir()
    (project / "scripts/ops.py").write_text('from loom_runtime import flow\n\n@flow("ops")\ndef ops(ctx):\n    return 1\n')
    config = load_config(project)
    fast = build_project(config, out=tmp_path / "fast")
    plain = build_project(config, out=tmp_path / "plain", tree=PlainTree(DirectorySourceTree(config=config)))
    assert sorted(fast.manifest.flows) == ["checkout", "ops"]
    assert files_of(tmp_path / "fast") == files_of(tmp_path / "plain")


# -- what the scan never reads as source -------------------------------------------------------------


def test_a_second_out_directory_does_not_scan_the_first(project: Path) -> None:
    first = build(project)
    assert first.ok and (project / "build" / "loom" / "manifest.json").is_file()
    other = build(project, out="release/loom")
    assert other.ok, other.errors
    assert {f.flow_id for f in other.flows} == {f.flow_id for f in first.flows}
    # and back: "release/loom" holds a loom manifest, so it is output wherever it lives
    third = build(project, out="again")
    assert third.ok, third.errors
    assert {f.path for f in third.flows} == {"shop/flows.py", "shop/refunds.py"}


def test_cli_build_into_another_out_dir(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    runner = CliRunner()
    assert runner.invoke(main, ["build", "--out", "other"]).exit_code == 0
    for args in (["build"], ["build", "--out", "third"]):  # neither scans "other" (nor build/loom)
        result = runner.invoke(main, args)
        assert result.exit_code == 0, result.output
        assert "declared 2 times" not in result.output


def test_a_stale_setuptools_copy_of_the_package_is_not_source(project: Path) -> None:
    shutil.copytree(project / "shop", project / "build" / "lib" / "shop")
    shutil.copytree(project / "shop", project / "dist" / "bundle_shop-1.0" / "shop")
    (project / "bundle_shop.egg-info").mkdir()
    shutil.copy(project / "shop" / "flows.py", project / "bundle_shop.egg-info" / "flows.py")
    report = build(project, out="out")
    assert report.ok, report.errors
    assert all(f.path.startswith("shop/") for f in report.flows)


# -- automatic jobs ----------------------------------------------------------------------------------


def _many_flows(root: Path, count: int) -> None:
    (root / "app").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.loom]\npackages = ["app"]\n')
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "helpers.py").write_text("def bump(x):\n    return x + 1\n")
    for i in range(count):
        (root / "app" / f"f{i:02d}.py").write_text(
            "from loom_runtime import flow\nfrom app.helpers import bump\n\n\n"
            f"@flow('f{i:02d}')\ndef f{i:02d}(ctx, n):\n    return bump(n) * {i}\n"
        )


def test_automatic_jobs_use_workers_for_a_large_parse_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pools: list[int] = []
    real_pool = build_module._process_pool
    monkeypatch.setattr(build_module, "_process_pool", lambda workers: pools.append(workers) or real_pool(workers))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    big, serial = tmp_path / "big", tmp_path / "serial"
    _many_flows(big, build_module.AUTO_MIN_MODULES + 2)
    shutil.copytree(big, serial)
    auto = build_project(load_config(big))
    assert pools == [2] and auto.ok
    one = build_project(load_config(serial), jobs=1)
    assert pools == [2]
    assert (big / "build/loom/manifest.json").read_bytes() == (serial / "build/loom/manifest.json").read_bytes()
    assert set(one.parsed) <= set(auto.parsed)  # workers also parse the packages on import paths
    # a rebuild after one edit parses one module: no workers
    edit(big / "app" / "f00.py", "* 0", "* 100")
    again = build_project(load_config(big))
    assert again.ok and again.parsed == ("app.f00",) and pools == [2]


def test_a_build_served_from_the_cache_never_imports_libcst(project: Path) -> None:
    assert build(project).ok
    probe = (
        "import sys\n"
        "from loom_compiler.cli import main\n"
        "try:\n    main(['build', '-q'])\nexcept SystemExit as exc:\n    assert exc.code == 0, exc.code\n"
        "print(sorted(m for m in sys.modules if m.startswith('libcst')))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=project, capture_output=True, text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"


# -- sources that cannot be read, or move while read -----------------------------------------------


def _make_unreadable(path: Path, kind: str) -> None:
    path.unlink()
    if kind == "directory":
        path.mkdir()
    elif kind == "dangling link":
        path.symlink_to(path.with_name("gone.py"))
    elif kind == "symlink loop":
        path.symlink_to(path)
    elif kind == "fifo":
        os.mkfifo(path)


UNREADABLE = ["directory", "dangling link", "symlink loop", "fifo"]


@pytest.mark.parametrize("kind", UNREADABLE)
def test_an_unreadable_flow_module_is_an_error_not_a_removed_flow(project: Path, kind: str):
    assert build(project).ok
    before = files_of(project / "build/loom")
    _make_unreadable(project / "shop/flows.py", kind)
    report = build(project)  # a FIFO: refused at once (this used to hang)
    assert not report.ok and report.removed == ()
    assert [(e.path, e.code) for e in report.errors] == [("shop/flows.py", "io")]
    assert "cannot read" in report.errors[0].message
    assert files_of(project / "build/loom") == before


@pytest.mark.parametrize("kind", UNREADABLE)
def test_an_unreadable_helper_is_an_error_not_a_live_import(project: Path, kind: str):
    _make_unreadable(project / "shop/util.py", kind)
    report = build(project)
    assert not report.ok and report.manifest is None
    assert ("shop/util.py", "io") in [(e.path, e.code) for e in report.errors]
    assert not (project / "build/loom/manifest.json").exists()


def test_a_helper_rewritten_during_the_build_is_read_again_not_half_hashed(project: Path, monkeypatch):
    from loom_compiler import analysis

    real = analysis.analyse_module
    edits: list[str] = []

    def rewrite_once(data, *, module, path, config=None, **kw):
        if module == "shop.flows" and not edits:
            # a checkout lands mid-build: flows.py (being analysed from the bytes already read)
            # and util.py (read later, by the closure) both move; hashing old flows.py with the
            # new util.py would describe a tree that never existed
            edit(project / "shop/flows.py", "LIMIT = 3", "LIMIT = 4")
            edit(project / "shop/util.py", "return 1", "return 2  # moved")
            edits.append(module)
        return real(data, module=module, path=path, config=config, **kw)

    monkeypatch.setattr(analysis, "analyse_module", rewrite_once)
    raced = build(project)
    monkeypatch.setattr(analysis, "analyse_module", real)
    assert edits and raced.ok
    shutil.rmtree(project / ".loom-cache")
    clean = build(project, out="build/clean")
    assert {f.flow_id: f.code_hash for f in raced.flows} == {f.flow_id: f.code_hash for f in clean.flows}


def test_a_tree_that_keeps_moving_fails_the_build_naming_what_moved(project: Path, monkeypatch):
    from loom_compiler import analysis

    real = analysis.analyse_module
    n = [0]

    def rewrite_always(data, *, module, path, config=None, **kw):
        n[0] += 1
        (project / "shop/util.py").write_text(f"LIMIT = {n[0]}\n" + "# pad\n" * n[0])
        return real(data, module=module, path=path, config=config, **kw)

    monkeypatch.setattr(analysis, "analyse_module", rewrite_always)
    report = build(project)
    assert not report.ok and report.manifest is None
    (err,) = [e for e in report.errors if e.code == "changed"]
    assert err.path == "shop/util.py" and "changed while loom build read it" in err.message
    assert "3 attempt(s)" in err.message


@pytest.mark.slow
def test_a_helper_unlinked_and_rewritten_in_a_loop_never_gives_a_wrong_hash(project: Path):
    """The race as a user meets it: another process (an editor's atomic save, a checkout) keeps
    unlinking and rewriting a helper with the same text. Every build fails, or hashes one of the two
    trees that existed: with the helper, or (the racer descheduled between an unlink and its
    rewrite for the whole build) without it. Never a mix: the helper half seen."""
    import time

    without = copy_project(project, project.parent / "without")
    (without / "shop/util.py").unlink()
    trees = [{f.flow_id: f.code_hash for f in build(root, use_cache=False).flows} for root in (project, without)]
    helper = project / "shop/util.py"
    text = helper.read_text()
    racer = subprocess.Popen([sys.executable, "-c", (
        "import os, sys, time\n"
        f"p, text = {str(helper)!r}, {text!r}\n"
        "end = time.time() + 60\n"
        "while time.time() < end:\n"
        "    try:\n        os.unlink(p)\n    except FileNotFoundError:\n        pass\n"
        "    time.sleep(0.0005)\n"
        "    tmp = p + '.tmp'\n"
        "    with open(tmp, 'w') as fh:\n        fh.write(text)\n"
        "    os.replace(tmp, p)\n"
        "    time.sleep(0.0005)\n"
    )])
    outcomes = []
    try:
        deadline = time.time() + 20
        while len(outcomes) < 12 and time.time() < deadline:
            report = build(project, use_cache=False, out="build/race")
            if report.ok:
                assert {f.flow_id: f.code_hash for f in report.flows} in trees, "a half-seen tree exited 0"
            outcomes.append(report.ok)
    finally:
        racer.kill()
        racer.wait()
    assert len(outcomes) >= 5


@pytest.mark.parametrize("junk", ["[" * 100_000 + "]" * 100_000, "9" * 5000], ids=["deep", "big-int"])
def test_a_pathological_previous_manifest_stops_the_build_with_a_message(project: Path, junk: str):
    out = project / "build/loom"
    out.mkdir(parents=True)
    (out / "manifest.json").write_text('{"schema": "loom-manifest/1", "flows": ' + junk + "}")
    result = CliRunner().invoke(main, ["build", str(project)])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception  # no traceback
    assert "build/loom/manifest.json:0:0:" in result.output and "the build would drop its versions" in result.output


def test_a_failed_fsync_fails_the_write_after_the_work_overlapping_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # the chunks' fsyncs run in threads while the cache is flushed; a failed one fails the build
    # (the manifest is never written over chunks that may not be durable)
    synced: list[str] = []

    def fsync(path: Path) -> None:
        synced.append(path.name)
        if path.name == "b.py":
            raise OSError(5, "Input/output error")

    monkeypatch.setattr(build_module, "_fsync", fsync)
    flushed: list[int] = []
    with pytest.raises(OSError, match="Input/output error"):
        build_module._write_durably(tmp_path, {"x/a.py": b"a", "x/b.py": b"b"}, while_syncing=lambda: flushed.append(1))
    assert flushed == [1] and sorted(synced) == ["a.py", "b.py", "x"]
    assert (tmp_path / "x/a.py").read_bytes() == b"a" and (tmp_path / "x/b.py").read_bytes() == b"b"
