"""The module-statement rule's details that a pair cannot show: what a statement is attached to,
why a widened member is in a closure (``ClosureMember.reason``), and the opaque-names hook."""

from __future__ import annotations

from types import SimpleNamespace

from loom_compiler import analyse_module, fingerprint_module


def _attached(source: str, config: object = None) -> dict[int, tuple[str, ...]]:
    summary = analyse_module(source.encode(), module="m", path="m.py", config=config)
    return {u.index: u.attached for u in summary.units if u.attached}


def test_a_statement_belongs_to_what_it_changes_not_to_what_it_reads() -> None:
    source = (
        "CFG = {}\nDEFAULT = 3\nCFG['a'] = DEFAULT\nITEMS = []\nITEMS.append(DEFAULT)\n"
        "def setup():\n    global LIMIT\n    LIMIT = 1\nsetup()\n"
        "from webframework import App\napp = App()\n@app.route('/')\ndef page():\n    return ITEMS\n"
    )
    attached = _attached(source)
    assert attached[2] == ("CFG",)  # a store: CFG, not the value it reads
    assert attached[4] == ("DEFAULT", "ITEMS")  # a call: its callee's object and its argument
    assert attached[6] == ("LIMIT",)  # setup() writes LIMIT: the call belongs to it
    assert 9 not in attached  # a route on a value a third-party call built is the framework's state


def test_a_main_block_is_attached_to_nothing() -> None:
    source = "ITEMS = []\ndef grow():\n    ITEMS.append(1)\nif __name__ == '__main__':\n    grow()\n"
    assert _attached(source) == {}


def test_widened_members_say_why_they_are_there() -> None:
    source = (
        "from loom_runtime import flow\nCFG = {}\nCFG['a'] = 2\n"
        "def helper():\n    return 1\n"
        "@flow('f')\ndef f(ctx, name):\n    return CFG, globals()[name]\n"
    )
    (flow,) = fingerprint_module(source).flows
    reasons = {m.qualname: m.reason for m in flow.closure}
    assert reasons["m.CFG"] == "module statements that change it"
    assert reasons["m.*"] == "whole module: its namespace is read or written by a computed name"
    assert reasons["m.helper"] == ""  # reached through the whole module, precise itself


def test_opaque_names_are_a_hook_for_framework_profiles() -> None:
    # issue 13's profiles will add ``opaque`` to LoomConfig: an engine object configured at module
    # level (``DBOS(config=...)``) is then no workflow behaviour; without it nothing is opaque
    source = "from dbos import DBOS\nconfig = {}\nDBOS(config=config)\n"
    assert _attached(source) == {2: ("DBOS", "config")}
    profile = SimpleNamespace(decorators=("loom_runtime.flow",), step_decorators=("loom_runtime.step",),
                              packages=(), opaque=("dbos.DBOS",))
    assert _attached(source, profile) == {2: ("config",)}
