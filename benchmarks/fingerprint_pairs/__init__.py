"""Loader of the equal/changed pair suite: turns each :class:`Pair` into two projects on disk.

``sides(pair)`` returns the before and after file sets as bytes; ``write_project(files, root)``
lays one side out under ``root`` (a fresh directory per side, so no two sides ever share a path,
a ``linecache`` entry or a ``__pycache__``). ``load_pairs()`` applies every pair once and raises
:class:`PairError` naming the pair and the edit whose ``old`` text is missing or ambiguous.

Two suites feed the benchmark as :class:`Case` values (a pair materialised as file sets):

* ``design_cases()``: this package's project-level pairs (``cases.py``): a package of two modules,
  so first-party helper edits in another module are covered;
* ``compiler_cases()``: the fingerprint engineers' pairs, loaded as data: the single-module pairs
  of ``tests/compiler/fp_cases.py`` (each side becomes ``pairmod/flows.py``) and the project
  pairs of every ``tests/compiler/fp2_cases_*.py`` (each side is a package, ``shop``); skipped
  when the files are not in the checkout. A project pair that needs ``exclude`` is left out
  (``write_project`` writes the configuration, with ``packages`` only).

Rejected: only reusing the ``tests/compiler`` cases. They are one source string per side, and the
cross-module bullets of DESIGN §6 need a project with more than one module.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

from . import base
from .cases import PAIRS, Edit, Pair

__all__ = [
    "PAIRS", "Pair", "Edit", "Case", "PairError", "sides", "write_project", "load_pairs",
    "design_cases", "compiler_cases", "COMPILER_CASES", "base",
]

#: The fingerprint engineer's pair table (data: a ``PAIRS`` tuple of before/after module sources).
COMPILER_CASES = Path(__file__).resolve().parents[2] / "tests" / "compiler" / "fp_cases.py"
#: The loom-fp/2 project pair tables beside it (``PAIRS`` of before/after file sets).
PROJECT_CASES = "fp2_cases_*.py"

BOM = b"\xef\xbb\xbf"


class PairError(ValueError):
    """A pair whose edit does not apply to the base project exactly once."""


def _apply(pair: Pair, files: dict[str, str]) -> dict[str, str]:
    out = dict(files)
    for i, edit in enumerate(pair.edits):
        if edit.path not in out:
            raise PairError(f"pair `{pair.name}`, edit {i + 1}: no file {edit.path!r} in the base project")
        n = out[edit.path].count(edit.old)
        if n != 1:
            raise PairError(
                f"pair `{pair.name}`, edit {i + 1} in {edit.path}: the text to replace occurs {n} times "
                f"(it must occur exactly once): {edit.old[:60]!r}"
            )
        out[edit.path] = out[edit.path].replace(edit.old, edit.new)
    return out


def _encode(files: dict[str, str], *, crlf: tuple[str, ...] = (), bom: tuple[str, ...] = ()) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for path, text in files.items():
        data = (text.replace("\n", "\r\n") if path in crlf else text).encode("utf-8")
        out[path] = BOM + data if path in bom else data
    return out


def sides(pair: Pair) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """(before, after) file sets of ``pair``, POSIX paths relative to the project root -> bytes."""
    for path in (*pair.crlf, *pair.bom):
        if path not in base.FILES:
            raise PairError(f"pair `{pair.name}`: crlf/bom names {path!r}, which is not in the base project")
    before = _encode(base.FILES)
    after_text = _apply(pair, base.FILES)
    after = _encode(after_text, crlf=pair.crlf, bom=pair.bom)
    if pair.expect not in ("equal", "changed"):
        raise PairError(f"pair `{pair.name}`: expect must be 'equal' or 'changed', got {pair.expect!r}")
    if pair.name != "identical" and after == before:
        raise PairError(f"pair `{pair.name}`: the after side is byte-identical to the before side")
    return before, after


@dataclass(frozen=True, slots=True)
class Case:
    """A pair ready to run: both sides as files, and where the flow is."""

    name: str
    expect: str
    about: str
    before: dict[str, bytes]
    after: dict[str, bytes]
    package: str
    flow_module: str
    flow_id: str | None = None  # None: the module's only flow


def design_cases(pairs: tuple[Pair, ...] | None = None) -> list[Case]:
    out = []
    for pair in load_pairs() if pairs is None else pairs:
        before, after = sides(pair)
        out.append(Case(pair.name, pair.expect, pair.about, before, after,
                        base.PACKAGE, base.FLOW_MODULE, base.FLOW_ID))
    return out


def compiler_cases(path: Path = COMPILER_CASES) -> list[Case]:
    """The compiler's own pairs (``fp_cases.py`` and the ``fp2_cases_*.py`` beside it), or ``[]``
    when they are absent."""
    out: list[Case] = []
    if path.exists():
        for p in _load_pairs(path):
            if p.expect not in ("equal", "changed"):
                raise PairError(f"{path.name}: pair `{p.name}` expects {p.expect!r}")
            files = [{"pairmod/__init__.py": b"", "pairmod/flows.py": text.encode("utf-8")} for text in (p.before, p.after)]
            out.append(Case(p.name, p.expect, p.rule, files[0], files[1], "pairmod", "pairmod.flows", None))
    for table in sorted(path.parent.glob(PROJECT_CASES)):
        for p in _load_pairs(table):
            if p.expect not in ("equal", "changed"):
                raise PairError(f"{table.name}: pair `{p.name}` expects {p.expect!r}")
            if p.exclude:
                continue
            sides = [{rel: text.encode("utf-8") for rel, text in files.items()} for files in (p.before, p.after)]
            out.append(Case(p.name, p.expect, p.klass, sides[0], sides[1], p.package, p.flow_module, p.flow_id))
    return out


def _load_pairs(path: Path) -> tuple:
    """``PAIRS`` of a pair table, loaded from its file as data (never imported as a test module)."""
    spec = importlib.util.spec_from_file_location(f"_loom_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules[spec.name] = mod  # dataclasses resolve string annotations through sys.modules
    try:
        spec.loader.exec_module(mod)
    finally:
        del sys.modules[spec.name]
    return tuple(mod.PAIRS)


def write_project(files: dict[str, bytes], root: Path, package: str = base.PACKAGE) -> Path:
    """Write one side under ``root`` (created) with a ``pyproject.toml`` naming ``package`` first-party."""
    root.mkdir(parents=True, exist_ok=False)
    for rel, data in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "pair-shop"\nversion = "0"\n\n'
        f'[tool.loom]\npackages = ["{package}"]\n',
        encoding="utf-8",
    )
    return root


def load_pairs() -> tuple[Pair, ...]:
    """Every pair, each checked to apply cleanly; names are unique."""
    seen: set[str] = set()
    for pair in PAIRS:
        if pair.name in seen:
            raise PairError(f"pair name `{pair.name}` is used twice")
        seen.add(pair.name)
        sides(pair)
    return PAIRS
