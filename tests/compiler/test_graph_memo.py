"""What the closure graphs of one build share (``closure.GraphMemo``): the modules that run for a
flow are walked once per build, and a graph served that walk must still read every module it was
computed from (its loader records the flow module's dependencies, which decide when the flow's
cache entry is stale) and must not take it for another tree state.

These are the two directions a build-wide memo could cut: a dependency missing from a flow
module's entry (a later edit of that module would be served the stale entry), and an answer of
the previous tree state (a module that stopped importing another would still run it).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from loom_compiler import LoomConfig
from loom_compiler.analysis import ModuleSummary, analyse_module
from loom_compiler.closure import GraphMemo
from loom_compiler.fingerprint import fingerprint_flows

CONFIG = LoomConfig(root=Path("."), packages=("shop",))

TREE = {
    "shop": "",
    "shop.lib": "",
    "shop.lib.a": "from shop.lib import b\n\nb.REG['a'] = 1\n\n\ndef helper(x):\n    return x + 1\n",
    "shop.lib.b": "import shop.lib.c\n\nREG = {}\n",
    "shop.lib.c": "import shop.lib.b\nimport shop.lib.d\n\nshop.lib.b.REG['c'] = 2\n",
    # only run by an import; and a module it would import if the tree had it (a dependency on its
    # absence: adding it changes what runs)
    "shop.lib.d": "try:\n    import shop.lib.extra\nexcept ImportError:\n    pass\nLEVEL = 1\n",
    "shop.one": ("from loom_runtime import flow\nfrom shop.lib.a import helper\nfrom shop.lib import b\n\n\n"
                 "@flow(\"one\")\ndef one(ctx, o):\n    return helper(o) + b.REG['c']\n"),
    "shop.two": ("from loom_runtime import flow\nfrom shop.lib.a import helper\nfrom shop.lib import b\n\n\n"
                 "@flow(\"two\")\ndef two(ctx, o):\n    return helper(o) * b.REG['c']\n"),
}


def _summaries(tree: Mapping[str, str]) -> dict[str, ModuleSummary]:
    out = {}
    for module, text in tree.items():
        package = module in ("shop", "shop.lib")
        path = module.replace(".", "/") + ("/__init__.py" if package else ".py")
        summary = analyse_module(text, module=module, path=path, config=CONFIG)
        assert isinstance(summary, ModuleSummary), summary
        out[module] = summary
    return out


def _fingerprint(summaries: dict[str, ModuleSummary], module: str, memo: GraphMemo | None) -> tuple[str, set[str]]:
    """(the flow's code hash, every module its graph asked the loader for), as a build does it."""
    requested: set[str] = set()

    def loader(name: str) -> ModuleSummary | None:
        requested.add(name)
        return summaries.get(name)

    result = fingerprint_flows({module: summaries[module]}, CONFIG, loader=loader, memo=memo)
    (fp,) = result.flows
    return fp.code_hash, requested


def test_a_graph_served_the_builds_walk_reads_what_the_walk_read() -> None:
    summaries = _summaries(TREE)
    memo = GraphMemo()
    first = _fingerprint(summaries, "shop.one", memo)
    served = _fingerprint(summaries, "shop.two", memo)  # the walk of shop.lib.a is the build's now
    alone = _fingerprint(summaries, "shop.two", None)
    assert served == alone
    assert {"shop.lib.b", "shop.lib.c", "shop.lib.d", "shop.lib.extra"} <= served[1]  # run by the import of shop.lib.a
    assert first == _fingerprint(summaries, "shop.one", None)


def test_the_builds_walk_is_not_taken_for_another_tree_state() -> None:
    memo = GraphMemo()
    before = _summaries(TREE)
    _fingerprint(before, "shop.one", memo)
    # shop.lib.b stops importing shop.lib.c: the store c makes no longer runs for the flow
    after = _summaries({**TREE, "shop.lib.b": "REG = {}\n"})
    served = _fingerprint(after, "shop.one", memo)
    assert served == _fingerprint(after, "shop.one", None)
    assert served[0] != _fingerprint(before, "shop.one", None)[0]
    assert "shop.lib.c" not in served[1]
