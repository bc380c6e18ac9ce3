"""Equal/changed pairs over DESIGN §6, one module each side (cross-module pairs live in
``test_fingerprint_pairs.py`` because they need a project on disk).

``module(...)`` renders a small module with a flow ``checkout`` that reaches a helper, a
constant, a step, a class and import targets; a pair edits one part of it. ``expect`` is
``equal`` (the code hash must not move) or ``changed`` (it must).
"""

from __future__ import annotations

from dataclasses import dataclass

HEADER = """\
from loom_runtime import flow, step
import math
from math import floor
"""

DEFS = """\
LIMIT = 10


@step
def charge(x):
    return x


def helper(x):
    return x + LIMIT


class Basket:
    def __init__(self, items):
        self.items = items

    def count(self):
        return len(self.items)
"""

BODY = """\
    total = helper(order["total"])
    basket = Basket(order["items"])
    if total > 3:
        ctx.execute("charge", charge, total)
    return {"n": basket.count(), "floor": floor(total), "pi": math.pi}
"""

DECORATOR = '@flow("checkout", version=1, steps=["charge"])'
SIGNATURE = "def checkout(ctx, order):"


def module(
    *,
    header: str = HEADER,
    defs: str = DEFS,
    extra: str = "",
    decorator: str = DECORATOR,
    signature: str = SIGNATURE,
    body: str = BODY,
) -> str:
    return f"{header}\n{defs}\n{extra}\n{decorator}\n{signature}\n{body}"


@dataclass(frozen=True)
class Pair:
    name: str
    expect: str  # "equal" | "changed"
    rule: str  # the DESIGN §6 bullet
    before: str | bytes  # text, or a file's bytes (fp_syntax_cases: encodings)
    after: str | bytes


BASE = module()


def _body(old: str, new: str) -> str:
    assert BODY.count(old) == 1, old
    return module(body=BODY.replace(old, new))


def _defs(old: str, new: str) -> str:
    assert DEFS.count(old) == 1, old
    return module(defs=DEFS.replace(old, new))


def E(name: str, rule: str, after: str, before: str = BASE) -> Pair:
    return Pair(name, "equal", rule, before, after)


def C(name: str, rule: str, after: str, before: str = BASE) -> Pair:
    return Pair(name, "changed", rule, before, after)


def _simple(body: str) -> str:
    """A module whose flow body is ``body`` and which reaches nothing else."""
    return f'from loom_runtime import flow\n\n\n@flow("s")\ndef s(ctx, order):\n{body}'


PAIRS: tuple[Pair, ...] = (
    # ------------------------------------------------------------------ equal: layout, comments
    E("comment-line", "comments", _body("    basket =", "    # build the basket\n    basket =")),
    E("comment-trailing", "comments", _body('Basket(order["items"])', 'Basket(order["items"])  # trailing')),
    E("comment-in-helper", "comments", _defs("    return x + LIMIT", "    # add the limit\n    return x + LIMIT")),
    E("blank-lines", "blank lines", _body("    basket =", "\n\n    basket =")),
    E("blank-lines-module", "blank lines", module(extra="\n\n\n")),
    E("reindent", "indentation", module(body=BODY.replace("    ", "  "))),
    E("reindent-helper", "indentation", _defs("    return x + LIMIT", "        return x + LIMIT")),
    E(
        "line-wrap-call",
        "line wrapping",
        _body('ctx.execute("charge", charge, total)', 'ctx.execute(\n            "charge",\n            charge,\n            total\n        )'),
    ),
    E("line-wrap-backslash", "line wrapping", _body("if total > 3:", "if total \\\n            > 3:")),
    E("crlf", "CRLF/LF", BASE.replace("\n", "\r\n")),
    E(
        "crlf-inside-multiline-string",
        "CRLF/LF (a newline inside a string literal is a newline)",
        after=_simple('    x = 1\n    return """a\n  b"""\n').replace("\n", "\r\n"),
        before=_simple('    x = 1\n    return """a\n  b"""\n'),
    ),
    E("bom", "a BOM", "\ufeff" + BASE),
    E(
        "semicolon-split",
        "a; b vs two lines",
        after=_simple("    a = 1; b = 2\n    return a + b\n"),
        before=_simple("    a = 1\n    b = 2\n    return a + b\n"),
    ),
    E("one-line-suite", "a; b vs two lines", after=_simple("    if order: return 1\n    return 2\n"), before=_simple("    if order:\n        return 1\n    return 2\n")),
    E("redundant-parens", "redundant parentheses", _body("if total > 3:", "if ((total) > (3)):")),
    E("redundant-parens-return", "redundant parentheses", _body('return {"n"', 'return ({"n"').replace('"pi": math.pi}', '"pi": math.pi})')),
    E("tuple-parens", "redundant parentheses", after=_simple("    a, b = 1, 2\n    return a\n"), before=_simple("    (a, b) = (1, 2)\n    return a\n")),
    E("trailing-comma-call", "trailing commas", _body("charge, total)", "charge, total,)")),
    E("trailing-comma-dict", "trailing commas", _body('"pi": math.pi}', '"pi": math.pi,}')),
    E("trailing-comma-params", "trailing commas", module(signature="def checkout(ctx, order,):")),
    # ------------------------------------------------------------------ equal: docstrings
    E("docstring-flow-added", "docstrings of the flow", module(body='    """Check out."""\n' + BODY)),
    E("docstring-helper-added", "docstrings of helpers", _defs("def helper(x):\n", 'def helper(x):\n    """Add the limit."""\n')),
    E("docstring-class-added", "docstrings of classes", _defs("class Basket:\n", 'class Basket:\n    """A basket."""\n')),
    E("docstring-method-added", "docstrings of helpers", _defs("    def count(self):\n", '    def count(self):\n        """How many."""\n')),
    E("docstring-reworded", "docstrings", module(body='    """Check out."""\n' + BODY), before=module(body="    '''Checkout v1.'''\n" + BODY)),
    # ------------------------------------------------------------------ equal: literals
    E("quote-double", "string quoting", _body('"charge", charge', "'charge', charge")),
    E("quote-triple", "string quoting", _body('"charge", charge', '"""charge""", charge')),
    E("quote-u-prefix", "string quoting", _body('"charge", charge', 'u"charge", charge')),
    E("escape-hex", "string escaping", after=_simple('    return "\\x41"\n'), before=_simple('    return "A"\n')),
    E("escape-unicode", "string escaping", after=_simple('    return "\\u00e9"\n'), before=_simple('    return "é"\n')),
    E("raw-vs-escaped", "string escaping", after=_simple('    return r"a\\b"\n'), before=_simple('    return "a\\\\b"\n')),
    E("implicit-concat", "implicit concatenation", _body('"charge", charge', '"cha" "rge", charge')),
    E("implicit-concat-multiline", "implicit concatenation", _body('"charge", charge', '("ch"\n            "arge"), charge')),
    E("bytes-quote", "string quoting", after=_simple("    return b'x'\n"), before=_simple('    return b"x"\n')),
    E("fstring-literal-quote", "string quoting", after=_simple("    return f'n={order}'\n"), before=_simple('    return f"n={order}"\n')),
    E("fstring-concat", "implicit concatenation", after=_simple('    return "n=" f"{order}"\n'), before=_simple('    return f"n={order}"\n')),
    E("number-underscore", "number spelling", after=_simple("    return 1_000\n"), before=_simple("    return 1000\n")),
    E("number-hex", "number spelling", after=_simple("    return 0x3E8\n"), before=_simple("    return 1000\n")),
    E("number-float-exp", "number spelling", after=_simple("    return 1e3\n"), before=_simple("    return 1000.0\n")),
    E("number-octal-binary", "number spelling", after=_simple("    return 0o10\n"), before=_simple("    return 0b1000\n")),
    # ------------------------------------------------------------------ equal: annotations, names
    E("local-annotation", "annotations of local variables", _body("    total = helper", "    total: float = helper")),
    E("local-annotation-bare", "annotations of local variables", _body("    basket =", "    n: int\n    basket =")),
    E("local-annotation-changed", "annotations of local variables", _body("    total = helper", "    total: int = helper"), before=_body("    total = helper", "    total: float = helper")),
    E("flow-renamed", "the flow function's own name", module(signature="def check_out(ctx, order):")),
    E("flow-version", "the flow decorator's arguments", module(decorator='@flow("checkout", version=2, steps=["charge"])')),
    E("flow-steps", "the flow decorator's arguments", module(decorator='@flow("checkout", steps=["charge", "ship"])')),
    E("flow-id", "the flow decorator's arguments", module(decorator='@flow("checkout-v2", steps=["charge"])')),
    E(
        "flow-compatible-with",
        "compatible_with never feeds the code hash",
        module(decorator='@flow("checkout", steps=["charge"], compatible_with=["sha256:' + "a" * 64 + '"])'),
    ),
    E(
        "flow-code-fingerprint",
        "code_fingerprint never feeds the code hash",
        module(decorator='@flow("checkout", steps=["charge"], code_fingerprint="sha256:' + "b" * 64 + '")'),
    ),
    E("flow-deadline", "the flow decorator's arguments", module(decorator='@flow("checkout", steps=["charge"], deadline=30)')),
    E("nfkc-identifier", "identifiers under NFKC", after=_simple("    ﬁle = 1\n    return ﬁle\n"), before=_simple("    file = 1\n    return file\n")),
    # ------------------------------------------------------------------ equal: outside the closure
    E("unrelated-function-added", "unrelated functions", module(extra="def unrelated(x):\n    return x * 2\n")),
    E(
        "unrelated-function-edited",
        "unrelated functions",
        module(extra="def unrelated(x):\n    return x * 3\n"),
        before=module(extra="def unrelated(x):\n    return x * 2\n"),
    ),
    E("unused-import", "unused imports", module(header=HEADER + "import os\nfrom json import dumps\n")),
    E("code-inserted-above", "code inserted above", module(defs="X_UNUSED = 1\n\n\n" + DEFS)),
    E("definition-order", "the order of module-level definitions", module(defs=DEFS.split("\n\n\n")[2] + "\n\n\n" + "\n\n\n".join(DEFS.split("\n\n\n")[:2]) + "\n\n\n" + "\n\n\n".join(DEFS.split("\n\n\n")[3:]))),
    E("step-body-edited", "a step contributes its qualified name only", _defs("def charge(x):\n    return x", "def charge(x):\n    return x * 100")),
    E("import-style", "an import target, not its spelling", module(header=HEADER.replace("from math import floor", "from math import (\n    floor,\n)"))),
    E("import-alias-unchanged-target", "import targets", module(header=HEADER.replace("from math import floor", "from math import floor as floor"))),
    # ------------------------------------------------------------------ changed: the body
    C("statement-added", "statements", _body("    return {", '    ctx.emit("done", {})\n    return {')),
    C("statement-removed", "statements", _body('    basket = Basket(order["items"])\n', "    basket = Basket([])\n")),
    C("statement-order", "their order", after=_simple("    b = 2\n    a = 1\n    return a\n"), before=_simple("    a = 1\n    b = 2\n    return a\n")),
    C("operator", "operators", _body("total > 3", "total >= 3")),
    C("operator-binary", "operators", _defs("x + LIMIT", "x - LIMIT")),
    C("operator-augmented", "operators", after=_simple("    n = 1\n    n -= 2\n    return n\n"), before=_simple("    n = 1\n    n += 2\n    return n\n")),
    C("constant-value", "constant values", _body("total > 3", "total > 4")),
    C("constant-int-float", "constant types", _body("total > 3", "total > 3.0")),
    C("constant-int-bool", "constant types", after=_simple("    return True\n"), before=_simple("    return 1\n")),
    C("constant-float-bool", "constant types", after=_simple("    return True\n"), before=_simple("    return 1.0\n")),
    C("constant-str-bytes", "constant types", after=_simple("    return b'x'\n"), before=_simple("    return 'x'\n")),
    C("string-value", "constant values", _body('"charge", charge', '"charged", charge')),
    C("string-concat-value", "constant values", _body('"charge", charge', '"char" "ged", charge')),
    C("fstring-expression", "f-string expressions", after=_simple('    return f"n={order!r}"\n'), before=_simple('    return f"n={order}"\n')),
    C("fstring-literal", "f-string literal parts", after=_simple('    return f"m={order}"\n'), before=_simple('    return f"n={order}"\n')),
    C("fstring-spec", "f-string format spec", after=_simple('    return f"{order:>10}"\n'), before=_simple('    return f"{order:>9}"\n')),
    C("call-argument", "call arguments", _body('ctx.execute("charge", charge, total)', 'ctx.execute("charge", charge, total, 1)')),
    C("call-argument-order", "call arguments", after=_simple("    return max(2, 1)\n"), before=_simple("    return max(1, 2)\n")),
    C("keyword-name", "keyword names", after=_simple("    return dict(a=1)\n"), before=_simple("    return dict(b=1)\n")),
    C("star-args", "call arguments", after=_simple("    return max(*order)\n"), before=_simple("    return max(order)\n")),
    C("local-variable-renamed", "a local variable's name", _body("    basket = Basket(order[\"items\"])", "    bkt = Basket(order[\"items\"])").replace("basket.count()", "bkt.count()")),
    C("nested-function", "nested functions", after=_simple("    def inner():\n        return 2\n    return inner()\n"), before=_simple("    def inner():\n        return 1\n    return inner()\n")),
    C("lambda-body", "lambdas", after=_simple("    return sorted(order, key=lambda o: -o)\n"), before=_simple("    return sorted(order, key=lambda o: o)\n")),
    C("comment-to-code", "statements", _body("    basket =", "    print('x')\n    basket =")),
    C("docstring-not-first", "a string statement that is not a docstring", module(body="    x = 1\n    '''not a docstring'''\n" + BODY), before=module(body="    x = 1\n" + BODY)),
    C("class-annotation", "class-level annotations are not local", _defs("class Basket:\n", "class Basket:\n    size: int\n")),
    # ------------------------------------------------------------------ changed: signature
    C("param-renamed", "the signature", module(signature="def checkout(ctx, order_):", body=BODY.replace("order", "order_"))),
    C("param-added", "the signature", module(signature="def checkout(ctx, order, extra=None):")),
    C("param-default", "the signature", module(signature="def checkout(ctx, order=1):"), before=module(signature="def checkout(ctx, order=2):")),
    C("param-kind", "the signature", module(signature="def checkout(ctx, *, order):")),
    C("param-annotation", "parameter annotations", module(signature="def checkout(ctx, order: dict):")),
    C("return-annotation", "return annotation", module(signature="def checkout(ctx, order) -> dict:")),
    C("async-def", "def vs async def", module(signature="async def checkout(ctx, order):")),
    C("other-decorator", "other decorators", module(decorator=DECORATOR + "\n@staticmethod")),
    C("other-decorator-args", "other decorators", module(decorator=DECORATOR + "\n@lru(2)"), before=module(decorator=DECORATOR + "\n@lru(1)")),
    # ------------------------------------------------------------------ changed: the closure
    C("helper-edited", "a referenced helper's definition", _defs("x + LIMIT", "x + LIMIT + 1")),
    C("helper-renamed-and-call", "a referenced helper's definition", module(defs=DEFS.replace("def helper", "def helper2"), body=BODY.replace("helper(", "helper2("))),
    C("helper-signature", "a referenced helper's definition", _defs("def helper(x):", "def helper(x, y=0):")),
    C("constant-edited", "a referenced constant's definition", _defs("LIMIT = 10", "LIMIT = 11")),
    C("constant-type", "a referenced constant's definition", _defs("LIMIT = 10", "LIMIT = 10.0")),
    C("constant-reassigned", "every binding of a constant", _defs("LIMIT = 10\n", "LIMIT = 10\nLIMIT += 1\n")),
    C("class-method-edited", "helper classes (whole definitions)", _defs("return len(self.items)", "return len(self.items) + 1")),
    C("class-base-added", "helper classes", _defs("class Basket:", "class Basket(dict):")),
    C("import-target", "an import target", module(header=HEADER.replace("from math import floor", "from math import ceil as floor"))),
    C("import-module-target", "an import target", module(header=HEADER.replace("import math\n", "import cmath as math\n"))),
    C("step-renamed", "a step's qualified name", module(defs=DEFS.replace("def charge", "def charge2"), body=BODY.replace(", charge,", ", charge2,"))),
    C("step-undecorated", "a step that becomes a helper", _defs("@step\ndef charge", "def charge")),
    C("transitive-constant", "transitive helpers", _defs("LIMIT = 10", "LIMIT = 10 + 0")),
)
