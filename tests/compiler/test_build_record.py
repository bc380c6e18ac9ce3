"""The whole-build record (``bundle/build_record.py``): a no-change ``loom build`` is served from the
last build's record only while the tree, the configuration, the manifest and the chunks read as
that build left them, and then reports exactly what running the pipeline would; anything else
(an edit with size and mtime kept, a damaged record, a deleted or edited chunk or manifest, a file
that cannot be read) runs the pipeline, which repairs what it must."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from loom_compiler.bundle import build_record
from loom_compiler.bundle import cache as cache_module
from loom_compiler.bundle.build import build_project
from loom_compiler.bundle.build_record import BuildRecord
from loom_compiler.bundle.cache_codec import CacheFormatError
from loom_compiler.cli import main
from loom_compiler.config import load_config

from helpers.cache_reads import decoded  # noqa: F401 - a fixture
from helpers.git_repo import copy_project, edit, exec_plug_file

DATA = Path(__file__).parent / "data" / "bundle_shop"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "bundle_shop"
    copy_project(DATA, root)
    return root


def build(root: Path, **kw: Any):
    return build_project(load_config(root), fingerprints=False, **kw)


def files_of(directory: Path) -> dict[str, bytes]:
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def records(root: Path) -> list[Path]:
    found = []
    for path in sorted((root / ".loom-cache" / "entries").iterdir()):
        try:
            cache_module.decode_entry(path.stem, path.read_bytes(), BuildRecord)
        except CacheFormatError:
            continue
        found.append(path)
    return found


def outcome(report, root: Path) -> tuple[Any, ...]:
    s = report.summary
    warnings = tuple(w.replace(str(root), "<root>") for w in report.warnings)
    return (report.ok, report.new_versions, report.rehashed, report.unchanged, report.removed, report.errors,
            warnings, report.written, report.manifest,
            (s.flows, s.new_versions, s.unchanged, s.removed, s.errors, s.modules_parsed, s.modules_cached,
             s.new_flows, s.changed, s.from_history, s.refs))


def served_and_run(project: Path, tmp_path: Path, decoded: list[Any], name: str = "piped") -> tuple[Any, Any, bool]:
    """The build of ``project`` as it is, and the same build of a copy whose records are gone (the
    pipeline runs); whether the first was served (decoded nothing but the record)."""
    other = tmp_path / name
    shutil.rmtree(other, ignore_errors=True)
    shutil.copytree(project, other)
    for path in records(other):
        path.unlink()
    decoded.clear()
    first = build(project)
    served = decoded == [BuildRecord]
    second = build(other)
    assert files_of(project / "build/loom") == files_of(other / "build/loom")
    return first, second, served


def _comment_in_flow(root: Path) -> None:  # same codeHash, other chunk bytes: a variant chunk file
    edit(root / "shop/flows.py", '    ctx.execute("ship", ship', '    # shipping last\n    ctx.execute("ship", ship')


def _helper(root: Path) -> None:
    edit(root / "shop/pricing.py", "RATE = 90", "RATE = 70")


def _remove_flow(root: Path) -> None:
    (root / "shop/refunds.py").unlink()


def _lose_an_old_chunk(root: Path) -> None:  # an older version's chunk: a warning, not a repair
    manifest = build_record_manifest(root)
    fe = manifest.flows["checkout"]
    old = next(v for h, v in fe.versions.items() if h != fe.current)
    (root / "build/loom" / old.chunk).unlink()


def build_record_manifest(root: Path):
    from loom_runtime.manifest import load_manifest

    return load_manifest(root / "build/loom/manifest.json")


@pytest.mark.parametrize("change", [None, _comment_in_flow, _helper, _remove_flow])
def test_a_served_build_reports_what_the_pipeline_reports(project: Path, tmp_path: Path, decoded: list[Any], change):
    build(project)
    if change is not None:
        change(project)
        build(project)  # the changed state's build keeps its record
    served, piped, was_served = served_and_run(project, tmp_path, decoded)
    assert was_served and served.written == () == piped.written
    assert outcome(served, project) == outcome(piped, tmp_path / "piped")


def test_an_old_versions_missing_chunk_is_served_with_its_warning_and_not_once_it_is_back(
        project: Path, tmp_path: Path, decoded: list[Any]):
    build(project)
    _helper(project)
    build(project)
    saved = {rel: data for rel, data in files_of(project / "build/loom").items()}
    _lose_an_old_chunk(project)
    build(project)  # warns, and records the warning
    served, piped, was_served = served_and_run(project, tmp_path, decoded)
    assert was_served and any("is missing from" in w for w in served.warnings)
    assert outcome(served, project) == outcome(piped, tmp_path / "piped")
    for rel, data in saved.items():  # the chunk restored: the warning must go, so no serving
        (project / "build/loom" / rel).write_bytes(data)
    served, piped, was_served = served_and_run(project, tmp_path, decoded)
    assert not was_served and not any("is missing from" in w for w in served.warnings)
    assert outcome(served, project) == outcome(piped, tmp_path / "piped")


def test_an_edit_that_keeps_size_and_mtime_is_not_served(project: Path, decoded: list[Any]):
    first = build(project)
    path = project / "shop/pricing.py"
    st = path.stat()
    data = path.read_bytes()
    assert b"RATE = 90" in data
    path.write_bytes(data.replace(b"RATE = 90", b"RATE = 70"))  # same size
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    decoded.clear()
    report = build(project)
    assert BuildRecord not in decoded and decoded  # another walk: no record under its key; the pipeline ran
    assert report.new_versions and first.manifest != report.manifest


def test_a_touch_without_an_edit_is_still_served(project: Path, decoded: list[Any]):
    build(project)
    os.utime(project / "shop/pricing.py", (1, 1))
    decoded.clear()
    assert build(project).written == () and decoded == [BuildRecord]


@pytest.mark.parametrize("damage", ["truncated", "empty", "another key's", "not json"])
def test_a_damaged_record_is_a_miss_and_is_written_again(project: Path, tmp_path: Path, decoded: list[Any],
                                                          damage: str):
    build(project)
    (path,) = records(project)
    data = path.read_bytes()
    path.write_bytes({"truncated": data[: len(data) // 2], "empty": b"",
                      "another key's": data.replace(path.stem.encode(), b"0" * 64, 1),
                      "not json": data.split(b"\n", 1)[0] + b"\n{not json"}[damage])
    served, piped, was_served = served_and_run(project, tmp_path, decoded)
    assert not was_served and outcome(served, project) == outcome(piped, tmp_path / "piped")
    decoded.clear()
    assert build(project).written == () and decoded == [BuildRecord]  # kept again by that build


def test_a_deleted_current_chunk_is_written_again(project: Path, decoded: list[Any]):
    first = build(project)
    out = files_of(project / "build/loom")
    fe = first.manifest.flows["refund"]
    rel = fe.versions[fe.current].chunk
    (project / "build/loom" / rel).unlink()
    decoded.clear()
    report = build(project)
    assert report.written == (rel,) and files_of(project / "build/loom") == out
    assert decoded[0] is BuildRecord and len(decoded) > 1  # the record was read and refused


def test_an_edited_current_chunk_is_not_served(project: Path, tmp_path: Path, decoded: list[Any]):
    first = build(project)
    fe = first.manifest.flows["refund"]
    chunk = project / "build/loom" / fe.versions[fe.current].chunk
    data = chunk.read_bytes()
    chunk.write_bytes(data[:-2] + b"#\n")  # same size, other bytes: never rewritten, a variant is written
    served, piped, was_served = served_and_run(project, tmp_path, decoded)
    assert not was_served and outcome(served, project) == outcome(piped, tmp_path / "piped")
    assert served.written and served.written[-1] == "manifest.json"


@pytest.mark.parametrize("which", ["deleted", "edited"])
def test_a_manifest_deleted_or_edited_is_not_served(project: Path, tmp_path: Path, decoded: list[Any], which: str):
    build(project)
    manifest = project / "build/loom/manifest.json"
    if which == "deleted":
        manifest.unlink()
    else:
        manifest.write_bytes(manifest.read_bytes() + b"\n")
    served, piped, was_served = served_and_run(project, tmp_path, decoded)
    assert not was_served and outcome(served, project) == outcome(piped, tmp_path / "piped")
    assert "manifest.json" in served.written


def test_a_variant_chunk_is_served_until_its_first_choice_path_holds_its_bytes(project: Path, tmp_path: Path,
                                                                                decoded: list[Any]):
    build(project)
    _comment_in_flow(project)
    report = build(project)
    fe = report.manifest.flows["checkout"]
    variant = fe.versions[fe.current].chunk
    assert "-" in Path(variant).stem, variant  # another text of the same codeHash was there first
    base = project / "build/loom" / (variant.rsplit("-", 1)[0] + ".py")
    base.unlink()  # the first choice gone: the build would keep the variant
    served, piped, was_served = served_and_run(project, tmp_path, decoded)
    assert was_served and outcome(served, project) == outcome(piped, tmp_path / "piped")
    shutil.copy(project / "build/loom" / variant, base)  # now the first choice holds the chunk's bytes
    served, piped, was_served = served_and_run(project, tmp_path, decoded)
    assert not was_served and outcome(served, project) == outcome(piped, tmp_path / "piped")
    assert served.manifest.flows["checkout"].versions[fe.current].chunk != variant


def test_an_unreadable_module_is_never_served(project: Path, decoded: list[Any]):
    build(project)
    util = project / "shop/util.py"
    util.unlink()
    util.symlink_to(project / "shop/nowhere.py")  # a dangling link: listed, unreadable
    decoded.clear()
    report = build(project)
    assert not report.ok and any(e.path == "shop/util.py" for e in report.errors)
    assert BuildRecord not in decoded


def test_a_tree_that_moved_while_it_was_read_is_not_served(project: Path, decoded: list[Any],
                                                           monkeypatch: pytest.MonkeyPatch):
    build(project)
    monkeypatch.setattr(build_record.WalkedTree, "changed", lambda self: ("shop/util.py",))
    served, tree = build_record.serve(load_config(project))
    assert served is None and tree is None  # the build reads the tree again itself


def test_a_module_reached_outside_the_walk_is_checked(project: Path, decoded: list[Any]):
    # ``exclude`` leaves shop/pricing.py out of the walk; flows still import it (it is read)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + 'exclude = ["shop/pricing.py"]\n')
    build(project)
    decoded.clear()
    assert build(project).written == () and decoded == [BuildRecord]
    _helper(project)
    decoded.clear()
    report = build(project)
    assert decoded[0] is BuildRecord and len(decoded) > 1 and report.new_versions


def test_the_configuration_is_part_of_the_key(project: Path, decoded: list[Any]):
    build(project)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "\n[tool.loom.check]\nstrict = true\n")
    decoded.clear()
    build(project)
    assert BuildRecord not in decoded and decoded  # another key: the pipeline ran


def test_no_cache_and_fingerprints_never_use_the_record(project: Path, decoded: list[Any]):
    build(project)
    decoded.clear()
    assert build(project, use_cache=False).written == () and BuildRecord not in decoded
    decoded.clear()
    report = build_project(load_config(project))  # fingerprints wanted: the pipeline runs
    assert report.flows and BuildRecord not in decoded


def test_the_cli_serves_without_importing_the_pipeline(project: Path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    script = ("import sys\nfrom loom_compiler.cli import main\ntry:\n    main(['build'])\nexcept SystemExit as e:\n"
              "    code = e.code\nprint('pipeline' if 'loom_compiler.bundle.build' in sys.modules else 'served', code)\n")
    runs = [subprocess.run([sys.executable, "-c", script], cwd=project, env=env, capture_output=True, text=True)
            for _ in range(2)]
    assert runs[0].stdout.split()[-2:] == ["pipeline", "0"], runs[0].stderr
    assert runs[1].stdout.split()[-2:] == ["served", "0"], runs[1].stderr
    assert runs[1].stdout.startswith("loom build: 2 flows (2 unchanged), 0 new versions, 0 errors in "), runs[1].stdout


def test_the_cli_served_and_piped_print_the_same(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    _lose_an_old_chunk_after_two_versions(project)
    other = tmp_path / "piped"
    shutil.copytree(project, other)
    for path in records(other):
        path.unlink()
    outs = []
    for root in (project, other):
        monkeypatch.chdir(root)
        got = CliRunner().invoke(main, ["build"])
        assert got.exit_code == 0, got.output
        outs.append(got.output.replace(str(root), "<root>").rsplit(" in ", 1)[0])
    assert outs[0] == outs[1] and "warning:" in outs[0]


def _lose_an_old_chunk_after_two_versions(root: Path) -> None:
    build(root)
    _helper(root)
    build(root)
    _lose_an_old_chunk(root)
    build(root)


def test_a_file_whose_code_a_flow_runs_is_checked(project: Path, decoded: list[Any]):
    """F10: code a helper executes from a project file that is no module (``exec(open(...).read())``)
    is hashed by the file's bytes, outside the walk of modules: a no-change build after an edit to
    it must not be served from the record, nor from the flow module's cached entry."""
    from loom_runtime.manifest import load_manifest

    exec_plug_file(project)

    def current() -> tuple[str, str]:
        fe = load_manifest(project / "build/loom/manifest.json").flows["checkout"]
        return fe.current, fe.versions[fe.current].chunk_digest

    assert build(project).ok
    first = current()
    decoded.clear()
    assert build(project).written == () and decoded == [BuildRecord]  # no change: served
    (project / "shop/plug.txt").write_text("V = 2\n")
    decoded.clear()
    report = build(project)
    assert decoded[0] is BuildRecord and len(decoded) > 1, decoded  # the record did not serve
    assert report.new_versions and current()[0] != first[0]
    # and back: the first version is current again, from the cache, with nothing left stale
    (project / "shop/plug.txt").write_text("V = 1\n")
    assert build(project).ok and current() == first
    # deleted: the flow's hash moves again (the code run there is unknown), with a warning
    (project / "shop/plug.txt").unlink()
    report = build(project)
    assert current()[0] not in (first[0],) and any("cannot read (absent)" in w for w in report.warnings)


def test_the_matches_of_a_glob_whose_files_a_flow_runs_are_checked(project: Path, decoded: list[Any]):
    """G9: code run from every file a glob matches depends on which files match: a no-change build
    after a match is added must not be served from the record nor from a cached entry; a file the
    pattern does not match added keeps the record serving."""
    from loom_runtime.manifest import load_manifest

    (project / "shop/plugins").mkdir()
    (project / "shop/plugins/a.txt").write_text("V = 1\n")
    (project / "shop/plugload.py").write_text(
        "import glob\nimport os\n\n\ndef plug():\n    ns = {}\n"
        "    for p in sorted(glob.glob(os.path.join(os.path.dirname(__file__), 'plugins', '*.txt'))):\n"
        "        exec(open(p).read(), ns)\n    return ns['V']\n")
    edit(project / "shop/flows.py", '    ctx.execute("ship", ship', '    plug()\n    ctx.execute("ship", ship')
    edit(project / "shop/flows.py", "from shop.steps import charge, reserve, ship\n",
         "from shop.steps import charge, reserve, ship\nfrom shop.plugload import plug\n")

    def current() -> str:
        return load_manifest(project / "build/loom/manifest.json").flows["checkout"].current

    assert build(project).ok
    first = current()
    (project / "shop/plugins/README.md").write_text("not a plugin\n")
    decoded.clear()
    assert build(project).written == () and decoded == [BuildRecord]  # no match moved: served
    (project / "shop/plugins/b.txt").write_text("V = 2\n")
    decoded.clear()
    report = build(project)
    assert decoded[0] is BuildRecord and len(decoded) > 1, decoded  # the record did not serve
    assert report.new_versions and current() != first
    (project / "shop/plugins/b.txt").unlink()  # and back, from the cache
    assert build(project).ok and current() == first
