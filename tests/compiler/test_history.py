"""``GitSourceTree`` reads a ref with git plumbing and never touches the work tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from loom_compiler.bundle.history import GitError, GitSourceTree
from loom_compiler.config import LoomConfig
from loom_compiler.sources import DirectorySourceTree

from helpers.git_repo import commit_all, git, init_repo


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    top = tmp_path / "mono"
    project = top / "services" / "shop"
    top.mkdir()
    init_repo(top)
    write(project, {
        "src/shop/__init__.py": "",
        "src/shop/pricing.py": "RATE = 1\n",
        "src/shop/flows.py": "from shop.pricing import RATE\n",
        "scripts/tool.py": "x = 1\n",
        "src/shop/generated/skip.py": "y = 1\n",
        ".hidden/x.py": "z = 1\n",
    })
    write(top, {"other/elsewhere.py": "no = 1\n"})
    commit_all(top, "v1", tag="v1")
    write(project, {"src/shop/pricing.py": "RATE = 2\n", "src/shop/new.py": "n = 1\n"})
    commit_all(top, "v2")
    write(project, {"src/shop/pricing.py": "RATE = 3  # uncommitted\n"})
    return project


def test_reads_module_bytes_as_they_were_at_the_ref(repo: Path):
    config = LoomConfig(root=repo, packages=("shop",), exclude=("src/shop/generated",))
    status_before = git(repo, "status", "--porcelain")
    tree = GitSourceTree(config, "v1")
    assert list(tree.module_names()) == ["scripts.tool", "shop", "shop.flows", "shop.pricing"]
    assert tree.path_of("shop.pricing") == "src/shop/pricing.py"
    assert tree.read("shop.pricing") == b"RATE = 1\n"
    assert tree.read("shop.new") is None and tree.path_of("shop.new") is None
    assert GitSourceTree(config, "HEAD").read("shop.pricing") == b"RATE = 2\n"
    # the work tree and index are untouched
    assert (repo / "src/shop/pricing.py").read_text() == "RATE = 3  # uncommitted\n"
    assert git(repo, "status", "--porcelain") == status_before


def test_module_names_agree_with_the_directory_tree(repo: Path):
    config = LoomConfig(root=repo, packages=("shop",))
    git_names = set(GitSourceTree(config, "HEAD").module_names())
    dir_names = set(DirectorySourceTree(config=config).module_names())
    assert git_names == dir_names


def test_an_unknown_ref_names_the_option_and_the_ref(repo: Path):
    config = LoomConfig(root=repo, packages=("shop",))
    with pytest.raises(GitError, match=r"--from-git: cannot resolve git ref 'no-such-tag'") as info:
        GitSourceTree(config, "no-such-tag")
    assert info.value.key == "--from-git"
    with pytest.raises(GitError, match=r"is not a git ref"):
        GitSourceTree(config, "--upload-pack=evil")


def test_outside_a_repository_is_a_clear_error(tmp_path: Path):
    with pytest.raises(GitError, match="cannot resolve git ref 'v1'"):
        GitSourceTree(LoomConfig(root=tmp_path), "v1", key="tool.loom.history")


def test_skip_rules_and_mixed_layouts_agree_with_the_directory_tree(tmp_path: Path):
    # committed build output (a setuptools build/lib copy, a venv, an egg-info) is not source at a
    # ref either: it used to be named as modules there (build.lib.shop.flows, a second `checkout`)
    top = tmp_path / "mixed"
    write(top, {
        "tools/__init__.py": "",
        "tools/run.py": "x = 1\n",
        "src/shop/__init__.py": "",
        "src/shop/flows.py": "x = 2\n",
        "src/shop/dist/__init__.py": "",  # a package called dist: kept
        "src/shop/dist/x.py": "",
        "build/lib/shop/flows.py": "x = 3\n",
        "dist/old.py": "",
        "shop.egg-info/x.py": "",
        ".venv/lib/site.py": "",
        "venv/lib/site.py": "",
    })
    init_repo(top)
    commit_all(top, "v1")
    config = LoomConfig(root=top, packages=("tools", "shop"))  # root-level package first
    expected = ["shop", "shop.dist", "shop.dist.x", "shop.flows", "tools", "tools.run"]
    assert list(DirectorySourceTree(config=config).module_names()) == expected
    tree = GitSourceTree(config, "HEAD")
    assert list(tree.module_names()) == expected
    # a file under src/<pkg> is named from src/ even though another package sits at the root
    assert tree.path_of("shop.flows") == "src/shop/flows.py" and tree.read("shop.flows") == b"x = 2\n"
    assert DirectorySourceTree(config=config).module_name_for(top / "src/shop/flows.py") == "shop.flows"


def test_a_committed_out_directory_is_not_source_at_a_ref(tmp_path: Path):
    # chunks repeat their flows: named as modules at a ref they were "flow id declared 2 times"
    top = tmp_path / "shipped"
    write(top, {
        "shop/__init__.py": "",
        "shop/flows.py": "x = 1\n",
        "release/loom/chunks/checkout/0123456789abcdef.py": "x = 1\n",
    })
    init_repo(top)
    commit_all(top, "v1")
    config = LoomConfig(root=top, packages=("shop",), out="release/loom")
    assert list(GitSourceTree(config, "HEAD").module_names()) == ["shop", "shop.flows"]
    assert list(DirectorySourceTree(config=config).module_names()) == ["shop", "shop.flows"]


def test_reads_data_files_and_glob_listings_as_they_were_at_the_ref(repo: Path):
    """G9: code loaded by a glob depends on the names it matches at the ref (``<dir>//<pattern>``,
    ``loom_runtime.file_listing``): a file added after the ref, a hidden one, a name the pattern
    does not match are not among them; a directory absent at the ref lists as absent."""
    write(repo, {"src/shop/plugins/a.txt": "A\n", "src/shop/plugins/.h.txt": "H\n", "src/shop/plugins/n.md": "N\n"})
    commit_all(repo.parents[1], "plugins", tag="v3")
    write(repo, {"src/shop/plugins/b.txt": "B\n"})  # in the work tree only
    tree = GitSourceTree(LoomConfig(root=repo, packages=("shop",)), "v3")
    assert tree.read_data("src/shop/plugins//*.txt") == b"a.txt\n"
    assert tree.read_data("src/shop/plugins//.*") == b".h.txt\n"
    assert tree.read_data("src/shop/plugins/a.txt") == b"A\n"
    assert tree.read_data("src/shop/none//*.txt") is None
    assert GitSourceTree(LoomConfig(root=repo, packages=("shop",)), "v1").read_data("src/shop/plugins//*.txt") is None
    # the work tree, as ``DirectorySourceTree`` reads it: the uncommitted file is there
    assert DirectorySourceTree(repo, LoomConfig(root=repo, packages=("shop",))).read_data("src/shop/plugins//*.txt") == \
        b"a.txt\nb.txt\n"
