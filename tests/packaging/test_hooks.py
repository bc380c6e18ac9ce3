"""The build hooks in-process: what they hand hatchling/setuptools, editable installs, errors, and
the setuptools entry point staying a cheap no-op for projects without ``[tool.loom]``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from loom_compiler.bundle.build import build_project
from loom_compiler.bundle.history import GitError
from loom_compiler.config import load_config
from loom_compiler.hooks.package_bundle import EDITABLE_COPY_MARKER, PackagingError

from loom_compiler.hooks import hatch  # hatchling is in the `test` extra: these must run, not skip
from loom_compiler.hooks import setuptools as st_hook
from packaging_helpers import copy_example, run


def make_hook(root: Path, config: dict | None = None, target: str = "wheel") -> hatch.LoomBuildHook:
    return hatch.LoomBuildHook(str(root), config or {}, None, None, str(root / "dist"), target)


def registry_facts(root: Path) -> dict:
    """``Registry.from_package("shop")`` in a process that imports shop from the source tree at ``root``."""
    code = (
        "import json; from loom_runtime import Registry; r = Registry.from_package('shop'); "
        "print(json.dumps({'current': r.current('checkout').code_hash, "
        "'versions': [v.code_hash for v in r.versions('checkout')]}))"
    )
    return json.loads(run([sys.executable, "-c", code], cwd=root).stdout.strip().splitlines()[-1])


def test_hatch_plugin_is_registered_under_the_name_loom():
    from hatchling.plugin.manager import PluginManager

    assert PluginManager().build_hook.get("loom") is hatch.LoomBuildHook


def test_standard_wheel_force_includes_exactly_the_manifest_and_its_chunks(tmp_path):
    root = copy_example("shop", tmp_path / "shop")
    hook = make_hook(root)
    build_data: dict = {"force_include": {}, "artifacts": []}
    hook.initialize("standard", build_data)
    manifest = json.loads((root / "build" / "loom" / "manifest.json").read_text())
    chunks = {v["chunk"] for f in manifest["flows"].values() for v in f["versions"].values()}
    assert sorted(build_data["force_include"].values()) == sorted(
        ["shop/_loom/manifest.json", *(f"shop/_loom/{c}" for c in chunks)]
    )
    for source, target in build_data["force_include"].items():
        # staged outside the project, so hatchling reserves each target path
        assert not source.startswith(str(root))
        rel = target.removeprefix("shop/_loom/")
        assert Path(source).read_bytes() == (root / "build" / "loom" / rel).read_bytes()
    stage = Path(next(iter(build_data["force_include"]))).parents[0]
    hook.finalize("standard", build_data, str(tmp_path / "x.whl"))
    assert not any(Path(s).exists() for s in build_data["force_include"]), stage


def test_editable_install_reads_a_manifest_that_loom_build_keeps_current(tmp_path):
    root = copy_example("shop", tmp_path / "shop")
    build_data: dict = {"force_include": {}, "artifacts": []}
    make_hook(root).initialize("editable", build_data)
    assert build_data["force_include"] == {}  # the editable wheel only puts the source tree on sys.path
    link = root / "shop" / "_loom"
    assert link.is_symlink() and link.resolve() == (root / "build" / "loom").resolve()
    first = registry_facts(root)
    assert first["versions"] == [first["current"]]

    pricing = root / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text().replace("REVIEW_LIMIT = 500.0", "REVIEW_LIMIT = 900.0"))
    report = build_project(load_config(root))  # a plain `loom build`: the chunks behind the link are not source
    assert report.ok, report.errors
    second = registry_facts(root)
    assert second["current"] != first["current"] and second["versions"] == [second["current"], first["current"]]

    make_hook(root).initialize("editable", {"force_include": {}, "artifacts": []})  # reinstall: idempotent
    assert link.is_symlink() and registry_facts(root) == second


def test_editable_refuses_to_replace_a_directory_it_did_not_make(tmp_path):
    root = copy_example("shop", tmp_path / "shop")
    (root / "shop" / "_loom").mkdir()
    (root / "shop" / "_loom" / "notes.txt").write_text("mine")
    with pytest.raises(PackagingError, match=r"shop/_loom exists and was not made by the loom build hook"):
        make_hook(root).initialize("editable", {"force_include": {}, "artifacts": []})
    (root / "shop" / "_loom" / EDITABLE_COPY_MARKER).write_text("")
    make_hook(root).initialize("editable", {"force_include": {}, "artifacts": []})
    assert (root / "shop" / "_loom").is_symlink()


def test_editable_copies_the_bundle_where_symlinks_fail_and_the_copy_is_never_scanned(tmp_path, monkeypatch):
    root = copy_example("shop", tmp_path / "shop")

    def no_symlinks(*args, **kwargs):
        raise OSError("symlinks are not permitted here")

    monkeypatch.setattr(os, "symlink", no_symlinks)
    make_hook(root).initialize("editable", {"force_include": {}, "artifacts": []})
    copy = root / "shop" / "_loom"
    assert not copy.is_symlink() and (copy / EDITABLE_COPY_MARKER).is_file() and (copy / "manifest.json").is_file()
    first = registry_facts(root)
    pricing = root / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text().replace("REVIEW_LIMIT = 500.0", "REVIEW_LIMIT = 900.0"))
    assert build_project(load_config(root)).ok  # the copy's chunks are output, not a second `checkout`
    make_hook(root).initialize("editable", {"force_include": {}, "artifacts": []})  # reinstall replaces the copy
    second = registry_facts(root)
    assert second["versions"] == [second["current"], first["current"]]


def test_sdist_includes_the_cumulative_out_directory_at_its_own_path(tmp_path):
    root = copy_example("shop", tmp_path / "shop")
    build_data: dict = {"force_include": {}, "artifacts": []}
    make_hook(root, target="sdist").initialize("standard", build_data)
    targets = sorted(build_data["force_include"].values())
    assert targets[-1] == "build/loom/manifest.json" and all(t.startswith("build/loom/chunks/") for t in targets[:-1])
    assert all(Path(s).is_file() and s.startswith(str(root.resolve())) for s in build_data["force_include"])


def test_unknown_hook_option_is_named(tmp_path):
    root = copy_example("shop", tmp_path / "shop")
    with pytest.raises(PackagingError, match=r"unknown option `tool\.hatch\.build\.hooks\.loom\.pakage`"):
        make_hook(root, {"pakage": "shop"}).initialize("standard", {"force_include": {}, "artifacts": []})


def test_missing_package_is_named(tmp_path):
    root = copy_example("shop", tmp_path / "shop")
    with pytest.raises(PackagingError, match=r"package `store` .* has no store/__init__\.py"):
        make_hook(root, {"package": "store"}).initialize("standard", {"force_include": {}, "artifacts": []})


def test_source_errors_stop_the_wheel_with_their_location(tmp_path):
    root = copy_example("shop", tmp_path / "shop")
    flows = root / "shop" / "flows.py"
    flows.write_text(flows.read_text().replace("def refund(ctx: Context, request: dict) -> dict:", "def refund(ctx:"))
    with pytest.raises(PackagingError, match=r"1 error\(s\).*\n  shop/flows\.py:\d+:\d+: "):
        make_hook(root).initialize("standard", {"force_include": {}, "artifacts": []})
    assert not (root / "build" / "loom" / "manifest.json").exists()


def test_setuptools_hook_wraps_build_py_sdist_and_egg_info_only_for_loom_projects(tmp_path, monkeypatch):
    from setuptools import Distribution
    from setuptools.command.build_py import build_py
    from setuptools.command.egg_info import egg_info
    from setuptools.command.sdist import sdist

    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "pyproject.toml").write_text('[project]\nname = "plain"\n\n[tool.black]\nline-length = 99  # not loom\n')
    monkeypatch.chdir(plain)
    dist = Distribution()
    st_hook.finalize_distribution_options(dist)
    assert not {"build_py", "sdist", "egg_info"} & set(dist.cmdclass)

    loomy = copy_example("shop", tmp_path / "loomy")
    monkeypatch.chdir(loomy)
    dist = Distribution()
    st_hook.finalize_distribution_options(dist)
    wrapped = {name: dist.cmdclass[name] for name in ("build_py", "sdist", "egg_info")}
    for name, base in (("build_py", build_py), ("sdist", sdist), ("egg_info", egg_info)):
        assert issubclass(wrapped[name], base) and wrapped[name]._loom_root == loomy.resolve()
    st_hook.finalize_distribution_options(dist)  # runs once per finalize; never wraps twice
    assert {name: dist.cmdclass[name] for name in wrapped} == wrapped


def test_setuptools_sdist_refuses_an_out_directory_outside_the_project(tmp_path, monkeypatch):
    from setuptools import Distribution

    root = copy_example("shop", tmp_path / "shop")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('out = "build/loom"', 'out = "../elsewhere"'))
    monkeypatch.chdir(root)
    dist = Distribution({"name": "shop", "packages": ["shop"], "script_name": "setup.py"})
    st_hook.finalize_distribution_options(dist)
    cmd = dist.cmdclass["sdist"](dist)
    cmd.ensure_finalized()
    with pytest.raises(PackagingError, match=r"`tool\.loom\.out` \(.*elsewhere\) lies outside the project"):
        cmd.run()


def test_setuptools_entry_point_is_registered_and_imports_nothing_heavy():
    (ep,) = [e for e in entry_points(group="setuptools.finalize_distribution_options") if e.name == "loom"]
    assert ep.load() is st_hook.finalize_distribution_options
    code = (
        "import sys, loom_compiler.hooks.setuptools as h; "
        "print(sorted(m for m in ('libcst', 'click', 'loom_compiler.bundle', 'loom_compiler.analysis') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"}).stdout
    assert out.strip() == "[]"


def test_setuptools_build_py_copies_the_bundle_into_build_lib_and_links_editable_installs(tmp_path, monkeypatch):
    from setuptools import Distribution

    root = copy_example("shop", tmp_path / "shop")
    monkeypatch.chdir(root)
    dist = Distribution({"name": "shop", "packages": ["shop"], "script_name": "setup.py"})
    st_hook.finalize_distribution_options(dist)
    cmd = dist.cmdclass["build_py"](dist)
    cmd.build_lib = str(tmp_path / "lib")
    cmd.ensure_finalized()
    cmd.run()
    lib_bundle = tmp_path / "lib" / "shop" / "_loom"
    shipped = sorted(p.relative_to(lib_bundle).as_posix() for p in lib_bundle.rglob("*") if p.is_file())
    manifest = json.loads((root / "build" / "loom" / "manifest.json").read_text())
    assert shipped == sorted(["manifest.json", *(v["chunk"] for f in manifest["flows"].values() for v in f["versions"].values())])
    outputs = cmd.get_outputs()
    assert all(str(lib_bundle / rel) in outputs for rel in shipped)
    assert str(tmp_path / "lib" / "shop" / "flows.py") in outputs

    editable = dist.cmdclass["build_py"](dist)
    editable.editable_mode = True
    editable.ensure_finalized()
    editable.run()
    assert (root / "shop" / "_loom").is_symlink() and registry_facts(root)["current"] == manifest["flows"]["checkout"]["current"]


def test_hook_respects_tool_loom_out_and_skips_git_history_when_building_from_an_sdist(tmp_path):
    root = copy_example("shop", tmp_path / "shop")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('out = "build/loom"', 'out = "var/bundle"\nhistory = ["v0.9"]'))
    # in a checkout, a history ref that git cannot resolve is a configuration error...
    with pytest.raises(GitError, match=r"tool\.loom\.history: cannot resolve git ref 'v0\.9'"):
        make_hook(root, target="sdist").initialize("standard", {"force_include": {}, "artifacts": []})
    # ...while an unpacked sdist has no git history: the hook builds from its cumulative manifest
    (root / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: shop-example\nVersion: 0.1.0\n")
    warnings: list[str] = []
    hook = make_hook(root, target="sdist")
    hook.app.display_warning = warnings.append
    build_data: dict = {"force_include": {}, "artifacts": []}
    hook.initialize("standard", build_data)
    assert any("history` is skipped" in w for w in warnings)
    assert "var/bundle/manifest.json" in build_data["force_include"].values()
    assert (root / "var" / "bundle" / "manifest.json").is_file() and not (root / "build").exists()


def test_setuptools_sdist_ships_the_bundle_even_after_a_separate_egg_info_run(tmp_path, monkeypatch):
    # `setup.py egg_info sdist`: egg_info has run (without the bundle) and will not run again
    import tarfile

    from setuptools import Distribution

    root = copy_example("shop", tmp_path / "shop")
    monkeypatch.chdir(root)
    dist = Distribution({"name": "shop", "version": "0.1.0", "packages": ["shop"], "script_name": "setup.py"})
    st_hook.finalize_distribution_options(dist)
    dist.run_command("egg_info")
    sdist = dist.get_command_obj("sdist")
    sdist.dist_dir = str(tmp_path / "dist")
    sdist.formats = ["gztar"]
    dist.run_command("sdist")
    with tarfile.open(tmp_path / "dist" / "shop-0.1.0.tar.gz") as tar:
        members = sorted(m.name.split("/", 1)[1] for m in tar.getmembers() if m.isfile())
    manifest = json.loads((root / "build" / "loom" / "manifest.json").read_text())
    chunks = [f"build/loom/{v['chunk']}" for f in manifest["flows"].values() for v in f["versions"].values()]
    assert [m for m in members if m.startswith("build/")] == sorted(["build/loom/manifest.json", *chunks])
