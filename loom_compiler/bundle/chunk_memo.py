"""What the chunks of one build share: results of pure functions of a statement's text.

The flows of a project reach much of the same code, so their chunks bundle the same library
statements again and again (dbos-transact-py: 21 chunks, each with the same few hundred ``dbos``
statements). Everything the bundler asks of a statement — the imports it makes, the global names
it uses and binds, the names its annotations spell, its imports rewritten relative to the chunk —
depends only on the statement's text and a few inputs named in the key, never on which chunk asks.
So a build keeps one ``ChunkMemo`` and each answer is computed once per distinct key.

Keys hold the statement text itself (a string hashes once, then its hash is cached by Python), and
every input the answer depends on: a rewrite is keyed by the decision made for every import site
of the statement (``chunk_imports``), not by the plan that made them. One memo lives as long as one
build (``bundle/build``): no process-wide cache keeps the texts of earlier builds alive.

Most of those questions read the statement's CPython tree: ``tree(text)`` parses each text once
per build for all of them (a statement was parsed by ``ast`` up to five times, once per question:
the computed-text check, its globals, its imports, its module annotations, its docstring), and
keeps the trees of at most ``TREE_CHARS`` characters of text (past that a text is parsed for each
caller again: a huge module's statements are not held twice, as text and as nodes). A tree is
shared: its readers never change it (``chunk_globals`` restores what it changes to print one).

Rejected: ``functools.lru_cache`` on the functions (process-wide and never freed: a long-lived
process building many projects, the test suite for one, would hold every statement of every
build), and memoising whole plans by the closure (two flows rarely share a closure exactly; they
share its statements).
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

__all__ = ["ChunkMemo", "TREE_CHARS"]

#: characters of statement text whose trees one build's memo keeps (``ChunkMemo.tree``)
TREE_CHARS = 1_000_000

T = TypeVar("T")
_MISSING = object()


class ChunkMemo:
    """One build's answers, by kind of question and key (``get``)."""

    def __init__(self) -> None:
        self._tables: dict[str, dict[Hashable, Any]] = {}
        self.hits = 0
        self.misses = 0
        self._trees: dict[str, ast.Module] = {}
        self._tree_chars = 0
        self.parses = 0  # ``ast.parse`` calls ``tree`` made

    def get(self, kind: str, key: Hashable, compute: Callable[[], T]) -> T:
        """The answer for ``key`` of ``kind``; ``compute()`` the first time it is asked. An
        exception of ``compute`` is not remembered (it propagates each time)."""
        table = self._tables.setdefault(kind, {})
        value = table.get(key, _MISSING)
        if value is _MISSING:
            self.misses += 1
            value = table[key] = compute()
        else:
            self.hits += 1
        return value  # type: ignore[no-any-return]

    def tree(self, text: str) -> ast.Module:
        """``ast.parse(text)``, once per text while the kept trees stay within ``TREE_CHARS``
        (the warnings it raises about the user's code silenced). Shared by every caller: read it,
        never change it. A text that does not parse raises each time (nothing is kept): the
        caller decides, as it did with its own parse (the computed-text check parses on
        ``deep_stack``'s large stack, where a deeper tree parses than here)."""
        tree = self._trees.get(text)
        if tree is None:
            self.parses += 1
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(text)
            if self._tree_chars + len(text) <= TREE_CHARS:
                self._trees[text] = tree
                self._tree_chars += len(text)
        return tree

    def table(self, kind: str) -> dict[Hashable, Any]:
        """The table of ``kind`` itself, for a caller that decides after computing whether an
        answer may be remembered (``chunk_imports``: only when its key named every input)."""
        return self._tables.setdefault(kind, {})
