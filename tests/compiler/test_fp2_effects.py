"""The module-statement rule's details that a pair cannot show: what a statement is attached to,
why a widened member is in a closure (``ClosureMember.reason``)."""

from __future__ import annotations

from loom_compiler import analyse_module, fingerprint_module


def _attached(source: str) -> dict[int, tuple[str, ...]]:
    summary = analyse_module(source.encode(), module="m", path="m.py")
    return {u.index: u.attached for u in summary.units if u.attached}


def test_a_statement_belongs_to_what_it_changes_not_to_what_it_reads() -> None:
    source = (
        "CFG = {}\nDEFAULT = 3\nCFG['a'] = DEFAULT\nITEMS = []\nITEMS.append(DEFAULT)\n"
        "def setup():\n    global LIMIT\n    LIMIT = 1\nsetup()\n"
        "from webframework import App\napp = App()\n@app.route('/')\ndef page():\n    return ITEMS\n"
    )
    attached = _attached(source)
    assert attached[2] == ("CFG",)  # a store: CFG, not the value it reads
    # a call: its callee's object and its arguments, but DEFAULT is an int no call can change
    assert attached[4] == ("ITEMS",)
    assert attached[6] == ("LIMIT",)  # setup() writes LIMIT: the call belongs to it
    assert 9 not in attached  # a route on a value a third-party call built is the framework's state


def test_a_main_block_is_attached_per_inner_statement() -> None:
    # a worker run as a script runs the block: ``grow()`` belongs to ITEMS; ``launch(app)`` to app
    source = ("ITEMS = []\ndef grow():\n    ITEMS.append(1)\nfrom web import App, launch\napp = App()\n"
              "if __name__ == '__main__':\n    grow()\n    launch(app)\n")
    summary = analyse_module(source.encode(), module="m", path="m.py")
    unit = summary.units[4]
    assert unit.attached == ("ITEMS", "app", "launch")
    assert [(source, names) for _, source, _, _, names in unit.pieces] == [
        ("if __name__ == '__main__':\n    grow()\n", ("ITEMS",)),
        ("if __name__ == '__main__':\n    launch(app)\n", ("app", "launch")),
    ]
    assert [refs for _, _, _, refs, _ in unit.pieces] == [("__name__", "grow"), ("__name__", "app", "launch")]


def test_an_if_chain_is_whole_when_its_tests_run_code_or_it_binds_a_name() -> None:
    for source in [
        "import os\nA = []\nB = []\nif os.environ.get('X'):\n    A.append(1)\n    B.append(1)\n",  # a call in the test
        "A = []\nB = []\nif A:\n    A.append(1)\n    B.append(1)\n",  # a piece changes what the test reads
        "A = []\nB = []\nif True:\n    A.append(1)\n    C = 1\n",  # binds a name
    ]:
        summary = analyse_module(source.encode(), module="m", path="m.py")
        assert all(not u.pieces for u in summary.units), source


def test_calls_are_not_attached_to_names_bound_only_to_immutable_literals() -> None:
    source = ("URL = 'db://x'\nN = -1\nT = (1, 'a', None, b'x')\nL = [1]\nP = (1, [2])\n"
              "from web import connect\nconnect(URL, N, T, L, P)\nURL.x = 1\n")
    attached = _attached(source)
    assert attached[6] == ("L", "P", "connect")  # mutable values (a list, a tuple holding one) still count
    assert attached[7] == ("URL",)  # a store still belongs to it (it raises at import)
    rebound = "URL = 'a'\ndef setup():\n    global URL\n    URL = [1]\nfrom web import connect\nconnect(URL)\n"
    assert _attached(rebound)[3] == ("URL", "connect")


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
