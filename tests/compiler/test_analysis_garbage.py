"""A module's analysis leaves no cyclic garbage (``loom_compiler.analysis``, issue 12/18's parse CPU).

What a build relies on: once a module's summary is dropped, its libcst tree and the analysis
state are freed by reference counting, at once. A reference cycle anywhere in that state (a
nested function that calls itself through its closure, holding a bound method of the analyser)
kept every tree alive until the cyclic collector ran, and its collections walked and freed them
(0.30 of 2.0 CPU seconds for the build benchmark's 174 modules). A new cycle fails here, naming
what it holds.
"""

from __future__ import annotations

import collections
import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from loom_compiler import LoomConfig
from loom_compiler.analysis import analyse_module
from loom_compiler.model import SourceError

SHOP = Path(__file__).resolve().parents[2] / "examples" / "shop" / "shop"

# classes made with first-party code (a base of the module, a decorator, a metaclass, a call in
# the body): the holder rule's creation judgement (``class_creation``) runs on each
CLASSES = '''
from loom_runtime import flow, step

CFG = {"a": 1}


def deco(cls):
    return cls


class Meta(type):
    pass


class Base:
    limit = CFG


class Hooked:
    def __init_subclass__(cls, **kw):
        cls.c = CFG


@deco
class Child(Base, metaclass=Meta):
    marker = deco(1)


class Grand(Child, Hooked):
    pass


@step
def charge(x):
    return x


@flow
def checkout(x):
    return charge(Grand.limit["a"] + x)
'''


def _sources() -> Iterator[tuple[str, str, str]]:
    yield "classes", "shop.classes", CLASSES
    for path in sorted(SHOP.glob("*.py")):
        yield path.name, "shop." + path.stem, path.read_text(encoding="utf-8")


@pytest.fixture
def no_collector() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@pytest.mark.parametrize("framework", ["loom", "temporal", "dbos"])
@pytest.mark.parametrize("defer", [False, True], ids=["eager", "deferred"])
@pytest.mark.parametrize(("name", "module", "source"), list(_sources()), ids=[s[0] for s in _sources()])
def test_a_dropped_summary_leaves_no_cyclic_garbage(no_collector: None, name: str, module: str, source: str,
                                                    defer: bool, framework: str) -> None:
    config = LoomConfig(root=SHOP.parent, packages=("shop",), framework=framework)
    path = f"shop/{name}"
    analyse_module(source, module=module, path=path, config=config, defer=defer)  # the worker thread started
    gc.collect()
    summary = analyse_module(source, module=module, path=path, config=config, defer=defer)
    assert not isinstance(summary, SourceError), summary
    assert summary.units  # analysed for real
    del summary
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        found = gc.collect()
        kinds = collections.Counter(type(o).__module__ + "." + type(o).__qualname__ for o in gc.garbage
                                    if not type(o).__module__.startswith(("builtins", "libcst")))
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.collect()
    assert found == 0, f"{found} objects only the cyclic collector frees, among them {dict(kinds.most_common(8))}"
