"""``DirectorySourceTree``: module names from package roots, exclusion (decoding: ``test_decoding``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from loom_compiler import DirectorySourceTree, LoomConfig, SourceTree
from loom_compiler.sources import is_excluded


def _touch(root: Path, *rels: str) -> None:
    for rel in rels:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"# {rel}\n", encoding="utf-8")


def test_src_layout_and_root_level_modules(tmp_path: Path) -> None:
    _touch(tmp_path, "src/shop/__init__.py", "src/shop/flows.py", "src/shop/sub/x.py", "scripts/run.py",
           "build/loom/chunks/c.py", ".venv/lib/y.py", "src/shop/generated/g.py")
    config = LoomConfig(root=tmp_path, packages=("shop",), exclude=("src/shop/generated",))
    tree = DirectorySourceTree(config=config)
    assert isinstance(tree, SourceTree)
    assert list(tree.module_names()) == ["scripts.run", "shop", "shop.flows", "shop.sub.x"]
    assert tree.path_of("shop.flows") == "src/shop/flows.py"
    assert tree.path_of("shop") == "src/shop/__init__.py"
    assert tree.read("shop.sub.x") == b"# src/shop/sub/x.py\n"
    assert tree.read("nope") is None
    # loom-fp/2: ``exclude`` limits where flows are looked for, never what an import loads
    assert tree.path_of("shop.generated.g") == "src/shop/generated/g.py"


def test_lookup_without_walking_matches_the_index(tmp_path: Path) -> None:
    _touch(tmp_path, "shop/__init__.py", "shop/pricing.py", "shop/gen/z.py")
    config = LoomConfig(root=tmp_path, packages=("shop",), exclude=("shop/gen",))
    fresh = DirectorySourceTree(config=config)  # probes files directly
    assert fresh.path_of("shop.pricing") == "shop/pricing.py"
    assert fresh.path_of("shop.gen.z") == "shop/gen/z.py"  # excluded from the walk, not from imports
    assert fresh.path_of("not a module") is None
    walked = DirectorySourceTree(config=config)
    names = list(walked.module_names())
    assert {m: walked.path_of(m) for m in names} == {m: fresh.path_of(m) for m in names}


@pytest.mark.parametrize(
    ("path", "patterns", "excluded"),
    [
        ("shop/gen/x.py", ("shop/gen",), True),
        ("shop/gen/x.py", ("shop/gen/",), True),
        ("shop/gen/x.py", ("*/gen",), True),
        ("shop/genx/x.py", ("shop/gen",), False),
        ("shop/x_test.py", ("*_test.py",), True),
        ("shop/x.py", ("tests",), False),
    ],
)
def test_exclude_globs(path: str, patterns: tuple[str, ...], excluded: bool) -> None:
    assert is_excluded(path, patterns) is excluded


MANIFEST = '{"flows": {}, "schema": "loom-manifest/1"}\n'


def test_build_output_and_tool_directories_are_not_walked(tmp_path: Path) -> None:
    _touch(tmp_path, "shop/__init__.py", "shop/flows.py", "build/lib/shop/flows.py", "dist/x/shop/flows.py",
           "shop.egg-info/x.py", ".loom-cache/y.py", "node_modules/z.py", "release/chunks/c/abc.py",
           "shop/_loom/chunks/c/abc.py", "copy/chunks/d.py", "shop/build/__init__.py", "shop/build/steps.py")
    (tmp_path / "release" / "manifest.json").write_text(MANIFEST)  # an out directory by another name
    (tmp_path / "shop" / "_loom" / "manifest.json").write_text(MANIFEST)
    (tmp_path / "copy" / ".loom-editable-copy").write_text("")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "manifest.json").write_text('{"name": "not loom"}')
    _touch(tmp_path, "notes/n.py")
    config = LoomConfig(root=tmp_path, packages=("shop",))
    walked = DirectorySourceTree(config=config)
    # shop/build holds an __init__.py: a package of that name, not output
    assert list(walked.module_names()) == ["notes.n", "shop", "shop.build", "shop.build.steps", "shop.flows"]
    # loom-fp/2: the skip rules decide where flows are looked for; an import still loads the file
    # Python would load (the closure follows what the code runs)
    fresh = DirectorySourceTree(config=config)
    for module in ("build.lib.shop.flows", "dist.x.shop.flows", "release.chunks.c.abc", "node_modules.z"):
        assert fresh.path_of(module) == module.replace(".", "/") + ".py", module
    assert fresh.path_of("shop.build.steps") == "shop/build/steps.py"


def test_a_package_listed_by_name_is_walked_even_in_build(tmp_path: Path) -> None:
    _touch(tmp_path, "build/__init__.py", "build/flows.py", "dist/tools/__init__.py", "dist/tools/t.py")
    (tmp_path / "dist" / "__init__.py").unlink(missing_ok=True)
    config = LoomConfig(root=tmp_path, packages=("build", "dist.tools"))
    assert list(DirectorySourceTree(config=config).module_names()) == ["build", "build.flows", "dist.tools",
                                                                       "dist.tools.t"]
    assert DirectorySourceTree(config=config).path_of("dist.tools.t") == "dist/tools/t.py"


# -- read failures are errors, never absences ------------------------------------------------------


def _unreadable_kinds():
    def permission(p: Path) -> None:
        p.write_text("x = 1\n")
        p.chmod(0)

    def directory(p: Path) -> None:
        p.mkdir()

    def dangling(p: Path) -> None:
        p.symlink_to(p.parent / "gone.py")

    def loop(p: Path) -> None:
        p.symlink_to(p)

    def fifo(p: Path) -> None:
        import os

        os.mkfifo(p)

    kinds = {"directory": directory, "dangling link": dangling, "symlink loop": loop, "fifo": fifo}
    import os

    if os.geteuid() != 0:  # root reads a mode-000 file anyway
        kinds["permission"] = permission
    return kinds


@pytest.mark.parametrize("kind", sorted(_unreadable_kinds()))
def test_a_module_that_cannot_be_read_is_a_read_error_walked_or_probed(tmp_path: Path, kind: str) -> None:
    from loom_compiler.sources import SourceReadError

    _touch(tmp_path, "shop/__init__.py")
    _unreadable_kinds()[kind](tmp_path / "shop" / "pricing.py")
    config = LoomConfig(root=tmp_path, packages=("shop",))
    probed = DirectorySourceTree(config=config)
    assert probed.path_of("shop.pricing") == "shop/pricing.py"  # there, not absent
    with pytest.raises(SourceReadError, match=r"shop/pricing.py: cannot read \("):
        probed.read("shop.pricing")  # a FIFO: refused at once, never waited on
    walked = DirectorySourceTree(config=config)
    assert "shop.pricing" in walked.module_names()
    with pytest.raises(SourceReadError):
        walked.read("shop.pricing")


def test_changed_names_a_file_rewritten_or_added_after_it_was_read(tmp_path: Path) -> None:
    _touch(tmp_path, "shop/__init__.py", "shop/a.py", "shop/b.py")
    tree = DirectorySourceTree(config=LoomConfig(root=tmp_path, packages=("shop",)))
    tree.module_names()
    assert tree.read("shop.a") is not None and tree.changed() == ()
    (tmp_path / "shop" / ".a.py.swp").write_text("editor")  # not a module: the tree did not move
    (tmp_path / "notes.txt").write_text("log")
    assert tree.changed() == ()
    (tmp_path / "shop" / "a.py").write_text("x = 2  # longer than before\n")
    assert tree.changed() == ("shop/a.py",)
    fresh = DirectorySourceTree(config=LoomConfig(root=tmp_path, packages=("shop",)))
    fresh.module_names()
    (tmp_path / "shop" / "c.py").write_text("y = 1\n")  # appears after the walk
    assert fresh.changed() == ("shop/",)


def test_changed_names_a_glob_listing_whose_matches_moved_after_it_was_read(tmp_path: Path) -> None:
    """G9: a listing read (``<dir>//<pattern>``: what a glob the code runs matches) moves when a
    match is added or removed, not when a file it does not match appears (an editor's swap file)."""
    _touch(tmp_path, "shop/__init__.py", "shop/plugins/a.txt")
    tree = DirectorySourceTree(config=LoomConfig(root=tmp_path, packages=("shop",)))
    assert tree.read_data("shop/plugins//*.txt") == b"a.txt\n" and tree.read_data("shop/none//*.txt") is None
    (tmp_path / "shop" / "plugins" / ".a.txt.swp").write_text("editor")
    (tmp_path / "shop" / "plugins" / "notes.md").write_text("n")
    assert tree.changed() == ()
    (tmp_path / "shop" / "plugins" / "b.txt").write_text("V = 2\n")
    assert tree.changed() == ("shop/plugins",)


def test_a_package_wins_over_a_module_file_of_the_same_name(tmp_path: Path) -> None:
    # Python imports shop/pricing/__init__.py; shop/pricing.py is dead code
    _touch(tmp_path, "shop/__init__.py", "shop/pricing.py", "shop/pricing/__init__.py", "shop/pricing/rates.py")
    config = LoomConfig(root=tmp_path, packages=("shop",))
    walked = DirectorySourceTree(config=config)
    assert list(walked.module_names()) == ["shop", "shop.pricing", "shop.pricing.rates"]
    assert walked.path_of("shop.pricing") == "shop/pricing/__init__.py"
    assert DirectorySourceTree(config=config).path_of("shop.pricing") == "shop/pricing/__init__.py"


def test_a_first_party_subpackage_in_a_skipped_directory_is_still_imported(tmp_path: Path) -> None:
    _touch(tmp_path, "shop/__init__.py", "shop/flows.py", "shop/venv/__init__.py", "shop/venv/helpers.py",
           "shop/build/helpers.py")
    config = LoomConfig(root=tmp_path, packages=("shop",))
    walked = DirectorySourceTree(config=config)
    assert list(walked.module_names()) == ["shop", "shop.flows"]  # flows are not looked for there
    assert walked.path_of("shop.venv.helpers") == "shop/venv/helpers.py"  # but an import loads it
    assert walked.path_of("shop.build.helpers") == "shop/build/helpers.py"
