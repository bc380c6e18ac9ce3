"""What a review shows of a change: normalised code, the step-skip estimate and the closure graph."""

from __future__ import annotations

from pathlib import Path

import pytest

from loom_compiler.config import load_config
from loom_compiler.review import review_diff
from loom_compiler.review.code import code_diff, readable
from loom_compiler.review.diff import CodeChange, FlowChange, MemberChange
from loom_compiler.review.graph import mermaid
from loom_compiler.review.step_calls import StepCalls, could_skip, step_calls

from helpers.git_repo import edit


def changed(diff, flow_id):
    (f,) = [f for f in diff.flows if f.flow_id == flow_id]
    return f


# -- readable code: exactly the noise the fingerprint ignores is gone -----------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("X = 1_000  # a comment\n", "X = 0x3E8\n"),
        ("X = 'a' 'b'\n", 'X = "ab"\n'),
        ("X = '\\x41'\n", 'X = "A"\n'),
        ("def f(a):\n    '''Doc.'''\n    y: int = (a + 1)\n    z: str\n    return y\n",
         "def f(a):\n\n    # why\n    y = a + 1\n    return y\n"),
        ("def f(a,\n      b,):\n    return [a,\n            b]\n", "def f(a, b): return [a, b]\n"),
        ("    def m(self):\n        return 1\n", "def m(self):\n    return 1\n"),  # a method, indented
    ],
)
def test_formatting_comments_and_docstrings_read_the_same(a: str, b: str):
    assert readable(a) == readable(b) is not None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("X = 1\n", "X = 1.0\n"),
        ("X = 1\n", "X = True\n"),
        ("Y = d[x]\n", "Y = d[x,]\n"),
        ("X = rf'\\n'\n", "X = f'\\n'\n"),
        ("class C:\n    x: int = 1\n", "class C:\n    x = 1\n"),  # a class field's annotation is kept
        ("def f():\n    return g()\n", "async def f():\n    return g()\n"),
    ],
)
def test_behavioural_differences_read_differently(a: str, b: str):
    assert readable(a) != readable(b)


def test_the_flow_decorator_is_left_out_of_the_flow_but_other_decorators_stay():
    source = '@traced\n@flow("checkout", steps=["a"], compatible_with=["sha256:x"])\ndef checkout(ctx):\n    return 1\n'
    text = readable(source, flow_id="checkout", decorator="loom_runtime.flow")
    assert text == "@traced\ndef checkout(ctx):\n    return 1"
    # spelled through an alias: recognised by the flow id it names
    aliased = readable('@f(id="checkout")\ndef checkout(ctx):\n    return 1\n', flow_id="checkout", decorator="loom_runtime.flow")
    assert aliased == "def checkout(ctx):\n    return 1"
    # a framework decorator without arguments: by its name
    temporal = readable("@workflow.run\nasync def run(self):\n    pass\n", flow_id="Greet", decorator="temporalio.workflow.run")
    assert temporal == "async def run(self):\n    pass"


def test_a_method_holding_a_string_whose_lines_start_in_column_zero_reads():
    # from temporalio/samples-python (openai_agents/mcp): dedent finds no common margin here
    source = '    async def run(self) -> str:\n        message = """Review:\n\ndef f():\n    pass\n"""\n        return message\n'
    assert readable(source) == 'async def run(self) -> str:\n    message = \'Review:\\n\\ndef f():\\n    pass\\n\'\n    return message'
    assert step_calls([source.replace("return message", 'return ctx.execute("a", f)')]).ids == ("a",)


def test_a_fragment_that_does_not_parse_has_no_reading():
    assert readable("") is None and readable("return (\n") is None


def test_code_diff_has_no_line_ranges_and_marks_a_gap():
    before = "\n".join(f"x{i} = {i}" for i in range(20))
    after = before.replace("x1 = 1", "x1 = 2").replace("x18 = 18", "x18 = 0")
    lines = code_diff(before, after)
    assert "-x1 = 1" in lines and "+x18 = 0" in lines and " ..." in lines
    assert not any(line.startswith("@@") for line in lines)


# -- the diff shows the change, and only the change ------------------------------------------------


def test_a_constant_edit_shows_before_and_after_without_its_comment(repo: Path):
    edit(repo / "shop/pricing.py", "RATE = 90  # percent kept after the discount", "RATE = 92  # raised")
    (m,) = changed(review_diff(load_config(repo), base="v1"), "checkout").members
    assert m.qualname == "shop.pricing.RATE"
    assert (m.code.before, m.code.after) == ("RATE = 90", "RATE = 92")


def test_a_comment_edit_inside_an_edited_helper_does_not_show(repo: Path):
    edit(repo / "shop/pricing.py", "# floor, so a customer", "# rounded down: a customer")
    edit(repo / "shop/pricing.py", "RATE / 100)", "RATE // 100)")
    (m,) = changed(review_diff(load_config(repo), base="v1"), "checkout").members
    assert code_diff(m.code.before, m.code.after) == [
        " def discount(total: int) -> int:",
        "-    return math.floor(total * RATE / 100)",
        "+    return math.floor(total * RATE // 100)",
    ]


def test_the_same_text_resolving_elsewhere_shows_the_rebinding(repo: Path):
    # shop.flows imports `fee` from shop.pricing; point it at shop.util.fee: the flow's text is the same
    edit(repo / "shop/flows.py", "from shop.pricing import fee", "from shop.util import fee")
    checkout = changed(review_diff(load_config(repo), base="v1"), "checkout")
    (flow,) = [m for m in checkout.members if m.qualname == "shop.flows.checkout"]
    assert flow.change == "edited" and flow.code.before == flow.code.after
    assert flow.code.rebound == (("fee", "shop.pricing.fee", "shop.util.fee"),)


def test_when_the_readings_agree_the_canonical_forms_are_shown(repo: Path, monkeypatch):
    # a reading that hides a difference the hash saw (simulated: every member reads alike)
    import loom_compiler.review.snapshot as snapshot

    monkeypatch.setattr(snapshot, "readable", lambda *a, **k: "same")
    edit(repo / "shop/pricing.py", "RATE = 90", "RATE = 91")
    (m,) = changed(review_diff(load_config(repo), base="v1"), "checkout").members
    assert m.code.canonical and '(int "90")' in m.code.before and '(int "91")' in m.code.after


# -- could skip: a static estimate ----------------------------------------------------------------


def test_step_calls_reads_literal_ids_patterns_and_counts_computed_ones():
    calls = step_calls([
        'def f(ctx, o):\n    ctx.execute("reserve", reserve, o)\n    ctx.execute(f"pack#{i}", pack, o)\n'
        '    self.ctx.execute(name, fn)\n    ctx.parallel([("a", fa, 1), lambda: 0])\n    cur.execute("x")\n',
    ])
    assert calls == StepCalls(("a", "pack#*", "reserve"), computed=1)


def test_could_skip_compares_patterns_by_prefix():
    old = StepCalls(("charge", "pack#*", "pack#0", "reserve"))
    assert could_skip(old, StepCalls(("charge", "pack#*"))) == ("reserve",)
    assert could_skip(old, StepCalls(("charge", "p*", "reserve"))) == ()
    assert could_skip(old, StepCalls(("charge", "pack#0", "reserve"))) == ("pack#*",)


def test_a_dropped_step_call_is_what_the_new_body_could_skip(repo: Path):
    edit(repo / "shop/flows.py", '    ctx.execute("reserve", reserve, order["sku"])\n', "")
    checkout = changed(review_diff(load_config(repo), base="v1"), "checkout")
    assert checkout.may_skip == ("reserve",)
    assert changed(review_diff(load_config(repo), base="v1"), "refund").status == "unchanged"


def test_a_manifest_base_has_no_source_so_nothing_is_estimated(repo: Path):
    from loom_compiler.bundle.build import build_project

    assert build_project(load_config(repo)).ok
    edit(repo / "shop/pricing.py", "RATE = 90", "RATE = 91")
    diff = review_diff(load_config(repo), base_manifest=repo / "build/loom/manifest.json")
    checkout = changed(diff, "checkout")
    assert checkout.may_skip is None
    (m,) = checkout.members
    assert m.code.before is None and m.code.after == "RATE = 91"


# -- the graph stays small ------------------------------------------------------------------------


def _wide_flow(n_helpers: int, changed_at: tuple[int, ...]) -> FlowChange:
    helpers = [f"m.h{i}" for i in range(n_helpers)]
    graph = (("m.flow", "flow", ("m.h0",)),) + tuple(
        (h, "function", (helpers[i + 1],) if i + 1 < n_helpers else ()) for i, h in enumerate(helpers)
    ) + (("m.orphan", "constant", ()),)
    members = tuple(MemberChange(helpers[i], "edited", "function", code=CodeChange("a", "b")) for i in changed_at)
    return FlowChange("f", "changed", "m.py", 1, "sha256:a", "sha256:b", "sha256:s", "sha256:s", members=members, graph=graph)


def test_the_graph_draws_the_path_to_each_changed_member_and_counts_the_rest():
    lines = mermaid(_wide_flow(40, changed_at=(3,)))
    nodes = [line for line in lines if line.startswith("  n") and "[" in line]
    assert len(nodes) == 5  # flow, h0, h1, h2 and the changed h3
    assert '  more["+ 37 unchanged members"]' in lines
    assert "  class n4 edited" in lines


def test_the_graph_caps_the_changed_members_it_draws():
    lines = mermaid(_wide_flow(30, changed_at=tuple(range(0, 30, 2))), limit=4)
    assert any("+ 11 more changed" in line for line in lines)
    assert sum(1 for line in lines if line.startswith("  n") and "[" in line) <= 1 + 7


def test_a_changed_member_no_path_reaches_hangs_off_the_flow_dotted():
    f = _wide_flow(3, changed_at=())
    f = FlowChange(**{**{k: getattr(f, k) for k in f.__slots__}, "members": (MemberChange("m.orphan", "edited", "constant"),)})
    lines = mermaid(f)
    assert "  n0 -.-> n1" in lines and any('"edited: m.orphan' in line for line in lines)


def test_labels_are_quoted_for_mermaid():
    f = _wide_flow(1, changed_at=(0,))
    graph = (("m.fl\"ow", "flow", ("m.h0",)),) + f.graph[1:]
    lines = mermaid(FlowChange(**{**{k: getattr(f, k) for k in f.__slots__}, "graph": graph}))
    assert '  n0["m.fl#quot;ow<br/><i>flow</i>"]' in lines


def test_real_code_reads_the_same_without_its_comments():
    # click's own source (code we did not write): dropping every comment and blank line, and
    # re-indenting a function as a method would be, never changes its reading
    import ast
    import io
    import tokenize
    from pathlib import Path as P

    import click

    checked = 0
    for path in sorted(P(click.__file__).parent.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type != tokenize.COMMENT]
        stripped = tokenize.untokenize(tokens)
        assert readable(source) == readable(stripped) is not None, path
        for node in ast.parse(source).body:
            if isinstance(node, ast.FunctionDef):
                text = ast.get_source_segment(source, node, padded=True) or ""
                indented = "".join("    " + line if line.strip() else line for line in text.splitlines(True))
                assert readable(text) == readable(indented) is not None, (path, node.name)
                checked += 1
    assert checked > 20


def test_markdown_fences_outlast_backticks_in_the_code():
    from loom_compiler.review.render import _code_span, _markdown_member

    assert _code_span("a`b") == "``a`b``" and _code_span("`x`") == "`` `x` ``"
    m = MemberChange("m.f", "edited", "function", code=CodeChange('def f():\n    return "```"', 'def f():\n    return "````"'))
    lines = _markdown_member(m)
    assert "`````diff" in lines and lines[lines.index("`````diff") + 1 :].count("`````") == 1
