"""Commands and expected output read from a Markdown page, for the tests that follow a page literally.

A page is a sequence of fenced blocks. Each ``bash`` block is a script to run; a ``text`` block lists
lines that the output of the nearest ``bash`` block before it must contain (each line a substring).
Other blocks (``python``, ``toml``, ``yaml``) are illustrations and are not run here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Block", "fenced", "runnable"]

_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)


@dataclass(frozen=True)
class Block:
    lang: str
    text: str
    expect: tuple[str, ...] = ()


def fenced(page: Path) -> list[Block]:
    """Every fenced block of ``page``, in order."""
    return [Block(m.group(1), m.group(2)) for m in _FENCE.finditer(page.read_text(encoding="utf-8"))]


def runnable(page: Path) -> list[Block]:
    """The ``bash`` blocks of ``page``, each with the lines the ``text`` blocks after it expect."""
    out: list[Block] = []
    for block in fenced(page):
        if block.lang == "bash":
            out.append(block)
        elif block.lang == "text" and out:
            lines = tuple(line for line in block.text.splitlines() if line.strip())
            out[-1] = Block("bash", out[-1].text, out[-1].expect + lines)
    return out
