"""The documentation stands alone: every relative link in README.md, examples/README.md and docs/
resolves to a file of the repository (and an anchor-free one at that), the README links into
docs/, and nothing in the repository points outside it (it used to link ../shared/DESIGN.md, which
a clone does not have)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def pages() -> list[Path]:
    return [REPO / "README.md", REPO / "examples" / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def test_every_relative_link_resolves_inside_the_repository():
    broken = []
    for page in pages():
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)  # links in code are code
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = (page.parent / target.split("#", 1)[0]).resolve()
            if REPO.resolve() not in path.parents and path != REPO.resolve() or not path.exists():
                broken.append(f"{page.relative_to(REPO)}: {target}")
    assert broken == []


def test_the_readme_links_into_docs_and_every_docs_page_is_reachable_from_the_index():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "docs/README.md" in readme and "docs/guides/first-project.md" in readme
    index = (REPO / "docs" / "README.md").read_text(encoding="utf-8")
    for page in sorted((REPO / "docs").rglob("*.md")):
        rel = page.relative_to(REPO / "docs").as_posix()
        assert rel == "README.md" or rel in index, f"docs/{rel} is not linked from docs/README.md"


def test_nothing_in_the_repository_points_outside_it():
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    outside = re.compile(r"\.\./shared/|shared/DESIGN\.md|shared/seed/")
    hits = []
    for rel in tracked:
        path = REPO / rel
        if rel.startswith("tests/docs/") or not path.is_file() or path.suffix not in (".md", ".py", ".toml", ".yml", ".txt"):
            continue
        if outside.search(path.read_text(encoding="utf-8", errors="replace")):
            hits.append(rel)
    assert hits == []
