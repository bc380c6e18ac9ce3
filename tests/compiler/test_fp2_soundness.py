"""The ``loom-fp/2`` soundness property (DESIGN §6, "sound by construction"), generated.

A program is a small first-party package: ``shop/lib.py`` and ``shop/flows.py`` hold items
(constants, helper functions, classes, a dict filled by a module statement, a list grown by
``append``), each item using earlier ones, and a flow in ``flows.py`` that uses some of them
through every import style Python allows (a module-level ``from`` import, a module alias, a star
import, a lazy import inside the flow's body). Which items the flow can reach is known by
construction (the transitive uses from the flow). Each item owns one integer literal, in its own
code or in the module statement that changes it.

* Soundness: changing the literal of any item the flow reaches changes the flow's hash.
* Its dual: changing the literal of an item the flow provably cannot reach keeps the hash.

The programs are fingerprinted from memory (a ``SourceTree`` of strings), as ``loom build`` does
from disk, so an example costs two closure computations of a two-module package.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loom_compiler import LoomConfig, fingerprint_project

KINDS = ("const", "func", "class", "table", "list")
STYLES = ("from", "alias", "star", "lazy")
NAMES = {"const": "LIMIT", "func": "helper", "class": "Model", "table": "TABLE", "list": "ITEMS"}


@dataclass(frozen=True)
class Item:
    module: str  # "lib" | "flows"
    kind: str
    name: str
    uses: tuple[int, ...]  # indices of earlier items it uses
    literal: int


@dataclass(frozen=True)
class Program:
    items: tuple[Item, ...]
    flow_uses: tuple[int, ...]
    styles: tuple[str, ...]  # per item of ``lib``: how flows.py reaches it


class MemoryTree:
    """A ``SourceTree`` over strings (``shop/...``)."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files
        self.modules = {rel[:-3].replace("/", ".").removesuffix(".__init__"): rel for rel in files}

    def module_names(self) -> Iterable[str]:
        return sorted(self.modules)

    def path_of(self, module: str) -> str | None:
        return self.modules.get(module)

    def read(self, module: str) -> bytes | None:
        rel = self.modules.get(module)
        return None if rel is None else self.files[rel].encode("utf-8")


def _use(item: Item, here: str, style: str | None) -> str:
    """An expression using ``item`` from code in module ``here``."""
    name = item.name
    if item.module != here and style == "alias":
        name = f"L.{item.name}"
    return {
        "const": name,
        "func": f"{name}(x)",
        "class": f"{name}().m(x)",
        "table": f'{name}["k"]',
        "list": f"sum({name})",
    }[item.kind]


def render(program: Program, bump: int | None = None) -> dict[str, str]:
    """The package's files; ``bump`` adds one to the literal of that item."""
    items = program.items
    lib_index = [i for i, it in enumerate(items) if it.module == "lib"]
    style_of = {i: program.styles[n] for n, i in enumerate(lib_index)}
    texts = {"lib": [], "flows": []}
    for i, it in enumerate(items):
        lit = it.literal + (1 if i == bump else 0)
        terms = " + ".join(_use(items[j], it.module, style_of.get(j)) for j in it.uses) or "0"
        lazy = [items[j].name for j in it.uses if items[j].module != it.module and style_of.get(j) == "lazy"]
        lazy_line = f"    from shop.lib import {', '.join(lazy)}\n" if lazy else ""
        if it.kind == "const":
            texts[it.module].append(f"{it.name} = {lit}\n")
        elif it.kind == "func":
            texts[it.module].append(f"def {it.name}(x):\n{lazy_line}    return x + {lit} + {terms}\n")
        elif it.kind == "class":
            body = lazy_line.replace("    ", "        ", 1)
            texts[it.module].append(f"class {it.name}:\n    def m(self, x):\n{body}        return x * {lit} + {terms}\n")
        elif it.kind == "table":
            texts[it.module].append(f'{it.name} = {{}}\n{it.name}["k"] = {lit}\n')
        else:
            texts[it.module].append(f"{it.name} = [0]\n{it.name}.append({lit})\n")
    imports = ["from loom_runtime import flow"]
    froms = sorted(items[i].name for i in lib_index if style_of[i] == "from")
    if froms:
        imports.append(f"from shop.lib import {', '.join(froms)}")
    if any(style_of[i] == "alias" for i in lib_index):
        imports.append("import shop.lib as L")
    if any(style_of[i] == "star" for i in lib_index):
        imports.append("from shop.lib import *")
    flow_lazy = [items[j].name for j in program.flow_uses if items[j].module == "lib" and style_of[j] == "lazy"]
    body = (f"    from shop.lib import {', '.join(flow_lazy)}\n" if flow_lazy else "")
    terms = " + ".join(_use(items[j], "flows", style_of.get(j)) for j in program.flow_uses) or "0"
    flows = "\n".join(imports) + "\n\n\n" + "\n\n".join(texts["flows"]) + (
        f'\n\n@flow("generated")\ndef run(ctx, x):\n{body}    return {terms}\n')
    return {"shop/__init__.py": "", "shop/lib.py": "\n\n".join(texts["lib"]) or "PASS = 0\n", "shop/flows.py": flows}


def reached(program: Program) -> set[int]:
    out: set[int] = set()
    todo = list(program.flow_uses)
    while todo:
        i = todo.pop()
        if i not in out:
            out.add(i)
            todo.extend(program.items[i].uses)
    return out


@st.composite
def programs(draw: st.DrawFn) -> Program:
    n = draw(st.integers(min_value=2, max_value=9))
    items: list[Item] = []
    for i in range(n):
        module = draw(st.sampled_from(["lib", "lib", "flows"]))
        kind = draw(st.sampled_from(KINDS))
        earlier = [j for j in range(i) if items[j].module == "lib" or module == "flows"]
        uses: tuple[int, ...] = ()
        if kind in ("func", "class") and earlier:
            uses = tuple(sorted(set(draw(st.lists(st.sampled_from(earlier), max_size=3)))))
        items.append(Item(module, kind, f"{NAMES[kind]}{i}", uses, draw(st.integers(min_value=1, max_value=50))))
    lib = [i for i, it in enumerate(items) if it.module == "lib"]
    styles = tuple(draw(st.sampled_from(STYLES)) for _ in lib)
    flow_uses = tuple(sorted(set(draw(st.lists(st.sampled_from(range(n)), min_size=1, max_size=4)))))
    return Program(tuple(items), flow_uses, styles)


CONFIG = LoomConfig(root=Path("."), packages=("shop",))


def code_hash(files: dict[str, str]) -> str:
    result = fingerprint_project(MemoryTree(files), CONFIG)
    assert not result.errors, [str(e) for e in result.errors]
    (flow,) = result.flows
    return flow.code_hash


def _check_runs(files: dict[str, str]) -> object:
    """The generated program is valid Python that runs (so the oracle is about real code)."""
    import sys
    import types

    saved = {m: sys.modules.get(m) for m in ("shop", "shop.lib")}
    shop = types.ModuleType("shop")
    shop.__path__ = []  # type: ignore[attr-defined]
    lib = types.ModuleType("shop.lib")
    sys.modules.update({"shop": shop, "shop.lib": lib})
    shop.lib = lib  # type: ignore[attr-defined]
    try:
        exec(compile(files["shop/lib.py"], "shop/lib.py", "exec"), lib.__dict__)
        flows: dict = {"__name__": "shop.flows"}
        exec(compile(files["shop/flows.py"], "shop/flows.py", "exec"), flows)
        return flows["run"](None, 2)
    finally:
        for m, mod in saved.items():
            if mod is None:
                sys.modules.pop(m, None)
            else:
                sys.modules[m] = mod


SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(programs(), st.data())
def test_an_edit_anywhere_the_flow_reaches_changes_its_hash(program: Program, data: st.DataObject) -> None:
    target = data.draw(st.sampled_from(sorted(reached(program))), label="edited item")
    before = render(program)
    _check_runs(before)
    assert code_hash(before) != code_hash(render(program, bump=target)), (program.items[target], before)


@SETTINGS
@given(programs(), st.data())
def test_an_edit_the_flow_cannot_reach_keeps_its_hash(program: Program, data: st.DataObject) -> None:
    unreachable = sorted(set(range(len(program.items))) - reached(program))
    if not unreachable:
        return
    target = data.draw(st.sampled_from(unreachable), label="edited item")
    before = render(program)
    assert code_hash(before) == code_hash(render(program, bump=target)), (program.items[target], before)
