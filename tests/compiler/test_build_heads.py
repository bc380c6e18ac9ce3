"""Head entries: a build that wants no fingerprints (``loom build``, ``build_project(fingerprints=False)``)
reads each unchanged flow module's small head entry (``bundle/version_facts.py``) instead of its full
entry, reads a full entry only for a chunk the output lacks, and writes exactly what a build
reading full entries writes."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from loom_compiler.bundle import cache as cache_module
from loom_compiler.bundle.build import Deps, FlowsEntry, FlowsHead, build_project
from loom_compiler.bundle.build_record import BuildRecord
from loom_compiler.bundle.cache_codec import CacheFormatError
from loom_compiler.cli import main
from loom_compiler.config import load_config

from helpers.cache_reads import decoded  # noqa: F401 - a fixture
from helpers.git_repo import copy_project, edit

DATA = Path(__file__).parent / "data" / "bundle_shop"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "bundle_shop"
    copy_project(DATA, root)
    return root


def build(root: Path, **kw: Any):
    return build_project(load_config(root), **kw)


def files_of(directory: Path) -> dict[str, bytes]:
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def entries(root: Path, value_type: Any) -> list[Path]:
    """The cache entries under ``root`` that are values of ``value_type``."""
    found = []
    for path in sorted((root / ".loom-cache" / "entries").iterdir()):
        try:
            cache_module.decode_entry(path.stem, path.read_bytes(), value_type)
        except CacheFormatError:
            continue
        found.append(path)
    return found


def outcome(report, root: Path) -> tuple[Any, ...]:
    s = report.summary
    warnings = tuple(w.replace(str(root), "<root>") for w in report.warnings)  # a missing chunk's path
    return (report.new_versions, report.rehashed, report.unchanged, report.removed, report.errors, warnings,
            report.written, report.parsed, report.refingerprinted,
            (s.flows, s.new_versions, s.unchanged, s.removed, s.errors, s.new_flows, s.changed))


def _comment(root: Path) -> None:
    edit(root / "shop/flows.py", '@flow("checkout"', '# reviewed\n@flow("checkout"')


def _helper(root: Path) -> None:
    edit(root / "shop/pricing.py", "RATE = 90", "RATE = 70")


def _lose_current_chunks(root: Path) -> None:
    shutil.rmtree(root / "build/loom/chunks")


def _remove_flow(root: Path) -> None:
    (root / "shop/refunds.py").unlink()


def _duplicate_id(root: Path) -> None:
    edit(root / "shop/flows.py", '@flow("checkout"', '@flow("refund"')


def _distinct_ids(root: Path) -> None:
    edit(root / "shop/flows.py", '@flow("refund"', '@flow("checkout"')


def _restore_flow(root: Path) -> None:
    shutil.copy(DATA / "shop/refunds.py", root / "shop/refunds.py")


STEPS = [("cold", None), ("no change", None), ("comment", _comment), ("helper", _helper),
         ("chunks lost", _lose_current_chunks), ("duplicate id", _duplicate_id), ("ids fixed", _distinct_ids),
         ("flow removed", _remove_flow), ("flow back", _restore_flow), ("no change again", None)]


def test_heads_write_what_full_entries_write_through_every_kind_of_change(project: Path, tmp_path: Path):
    other = tmp_path / "heads"
    shutil.copytree(project, other)
    refused = []
    for name, change in STEPS:
        if change is not None:
            change(project)
            change(other)
        full, heads = build(project), build(other, fingerprints=False)
        assert outcome(heads, other) == outcome(full, project), name
        assert heads.flows == () and (full.flows != () or not full.ok), name
        assert files_of(other / "build/loom") == files_of(project / "build/loom"), name
        refused += [name] if not full.ok else []
    assert refused == ["duplicate id"]


def _drop_build_records(root: Path) -> None:
    """Delete the whole-build records (``build_record``): the next no-change build runs the pipeline."""
    for path in entries(root, BuildRecord):
        path.unlink()


def test_a_no_change_build_reads_only_head_entries(project: Path, decoded: list[Any]):
    first = build(project)
    _drop_build_records(project)
    decoded.clear()
    report = build(project, fingerprints=False)
    assert report.ok and report.written == () and report.unchanged == ("checkout", "refund")
    assert FlowsHead in decoded and set(decoded) <= {FlowsHead, Deps, BuildRecord}  # no full flow entry, no summary
    assert report.summary.flows == 2 and report.flows == () and first.manifest == report.manifest
    decoded.clear()  # that build kept a record: the next reads nothing else
    again = build(project, fingerprints=False)
    assert decoded == [BuildRecord] and outcome(again, project) == outcome(report, project)
    assert again.manifest == report.manifest


def test_the_cli_build_reads_only_head_entries(project: Path, decoded: list[Any], monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(project)
    assert CliRunner().invoke(main, ["build", "-q"]).exit_code == 0
    _drop_build_records(project)
    decoded.clear()
    assert CliRunner().invoke(main, ["build", "-q"]).exit_code == 0
    assert FlowsHead in decoded and set(decoded) <= {FlowsHead, Deps, BuildRecord}
    decoded.clear()
    assert CliRunner().invoke(main, ["build", "-q"]).exit_code == 0
    assert decoded == [BuildRecord]


def test_an_edit_decodes_no_full_entry_of_the_flow_modules_it_does_not_reach(project: Path, decoded: list[Any]):
    build(project)
    edit(project / "shop/util.py", "return 1", "return 3")  # reached by checkout (shop.flows) only
    decoded.clear()
    report = build(project, fingerprints=False)
    assert report.refingerprinted == ("shop.flows",) and [f for f, _ in report.new_versions] == ["checkout"]
    assert FlowsEntry not in decoded  # refunds from its head; flows recomputed from summaries


def test_a_lost_chunk_is_written_again_from_the_full_entry(project: Path, decoded: list[Any]):
    first = build(project)
    out = files_of(project / "build/loom")
    chunk = first.manifest.flows["refund"].versions[first.manifest.flows["refund"].current].chunk
    (project / "build/loom" / chunk).unlink()
    decoded.clear()
    report = build(project, fingerprints=False)
    assert report.ok and report.written == (chunk,) and report.refingerprinted == ()
    assert files_of(project / "build/loom") == out
    assert decoded.count(FlowsEntry) == 1  # refund's module, for the chunk's text


def test_a_head_whose_full_entry_is_gone_is_collected_again_and_the_chunk_is_the_same(project: Path):
    build(project)
    out = files_of(project / "build/loom")
    full = entries(project, FlowsEntry)
    assert full and entries(project, FlowsHead)
    for path in full:
        path.unlink()
    _lose_current_chunks(project)
    report = build(project, fingerprints=False)
    assert report.ok and set(report.refingerprinted) == {"shop.flows", "shop.refunds"}
    assert files_of(project / "build/loom") == out


@pytest.mark.parametrize("junk", [b"", f"{cache_module.FORMAT} nothing\n[]".encode(), b"{not json"])
def test_a_corrupt_head_is_a_miss_and_is_written_again(project: Path, decoded: list[Any], junk: bytes):
    build(project)
    out = files_of(project / "build/loom")
    heads = entries(project, FlowsHead)
    for path in heads:
        path.write_bytes(junk)
    _drop_build_records(project)
    report = build(project, fingerprints=False)
    assert report.ok and report.refingerprinted == () and files_of(project / "build/loom") == out
    _drop_build_records(project)
    decoded.clear()
    assert build(project, fingerprints=False).ok and set(decoded) <= {FlowsHead, Deps}  # the heads are back


def test_a_head_that_disagrees_with_its_full_entry_is_not_used_for_the_chunk(project: Path, tmp_path: Path,
                                                                             decoded: list[Any]):
    build(project)
    # refunds' full entry replaced by checkout's (well typed, another module's): its head's chunk
    # digest matches no chunk of the full entry, so the head's facts are not paired with the text
    # of another flow; the build does what a build from full entries does with that cache
    flows_entry, refunds_entry = sorted(entries(project, FlowsEntry), key=lambda p: b"shop/flows.py" in p.read_bytes())
    refunds_entry.write_bytes(refunds_entry.read_bytes().split(b"\n", 1)[0] + b"\n"
                              + flows_entry.read_bytes().split(b"\n", 1)[1])
    _lose_current_chunks(project)
    other = tmp_path / "full"
    shutil.copytree(project, other)
    decoded.clear()
    heads, full = build(project, fingerprints=False), build(other)
    assert decoded.count(FlowsHead) == 2  # the heads were read first, then the full entries
    assert outcome(heads, project) == outcome(full, other)
    assert files_of(project / "build/loom") == files_of(other / "build/loom")


def test_flow_modules_that_reach_the_same_modules_share_one_deps_entry(tmp_path: Path, decoded: list[Any]):
    root = tmp_path / "many"
    (root / "app" / "flows").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.loom]\npackages = ["app"]\n')
    for init in ("app/__init__.py", "app/flows/__init__.py"):
        (root / init).write_text("")
    (root / "app/lib.py").write_text("def double(x):\n    return 2 * x\n")
    for i in range(4):
        (root / f"app/flows/f{i}.py").write_text(
            f"from loom_runtime import flow\nfrom app.lib import double\n\n\n"
            f"@flow(\"f{i}\")\ndef f{i}(ctx, x):\n    return double(x) + {i}\n")
    assert build(root).ok
    _drop_build_records(root)
    decoded.clear()
    report = build(root, fingerprints=False)
    assert report.ok and report.written == () and report.summary.flows == 4
    assert decoded.count(FlowsHead) == 4 and decoded.count(Deps) == 1 and set(decoded) == {FlowsHead, Deps}


def test_a_lost_deps_entry_falls_back_to_the_full_entries(project: Path, decoded: list[Any]):
    build(project)
    out = files_of(project / "build/loom")
    for path in entries(project, Deps):
        path.unlink()
    _drop_build_records(project)
    decoded.clear()
    report = build(project, fingerprints=False)
    assert report.ok and report.refingerprinted == () and report.written == ()
    assert FlowsEntry in decoded and files_of(project / "build/loom") == out
    _drop_build_records(project)
    decoded.clear()
    assert build(project, fingerprints=False).ok and FlowsEntry not in decoded  # heads and deps written again


def test_a_deps_entry_that_is_not_the_value_its_name_says_is_not_trusted(project: Path, tmp_path: Path):
    build(project)
    edit(project / "shop/util.py", "return 1", "return 3")  # reached by checkout (shop.flows) only
    # the two flow modules' deps entries swap bytes (both well typed): were checkout's trusted
    # with refund's content, which lacks shop.util, checkout would be served from its stale head
    with_util = [p for p in entries(project, Deps) if b"shop/util.py" in p.read_bytes()]
    without = [p for p in entries(project, Deps) if b"shop/pricing.py" in p.read_bytes() and p not in with_util]
    assert len(with_util) == len(without) == 1
    first, second = with_util[0], without[0]
    a, b = first.read_bytes(), second.read_bytes()
    first.write_bytes(a.split(b"\n", 1)[0] + b"\n" + b.split(b"\n", 1)[1])
    second.write_bytes(b.split(b"\n", 1)[0] + b"\n" + a.split(b"\n", 1)[1])
    other = tmp_path / "full"
    shutil.copytree(project, other)
    heads, full = build(project, fingerprints=False), build(other)
    assert outcome(heads, project) == outcome(full, other) and [f for f, _ in heads.new_versions] == ["checkout"]
    assert files_of(project / "build/loom") == files_of(other / "build/loom")

