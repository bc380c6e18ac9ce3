"""The equal/changed pair suite: each pair is a set of exact text edits to the base project.

Every bullet of DESIGN.md §6 has at least one pair. ``equal`` means the edit cannot change what the
flow does (or is declared by §6 to stay out of the code hash: the flow's own name, the flow
decorator's arguments, step bodies); ``changed`` means it can. An edit is ``(path, old, new)`` and
``old`` must occur exactly once in that file (the loader checks), so a pair cannot silently stop
editing anything when the base changes. ``crlf``/``bom`` transform a whole file of the after side.

Rejected: a directory of before/after files per pair. Seventy copies of the same module hide the
one line that differs; an edit list shows it, and the loader still produces the full sources.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Edit", "Pair", "PAIRS"]

Expect = Literal["equal", "changed"]


@dataclass(frozen=True, slots=True)
class Edit:
    path: str
    old: str
    new: str


@dataclass(frozen=True, slots=True)
class Pair:
    name: str
    expect: Expect
    about: str  # the DESIGN §6 bullet it exercises
    edits: tuple[Edit, ...] = ()
    crlf: tuple[str, ...] = ()  # after-side files rewritten with CRLF line ends
    bom: tuple[str, ...] = ()  # after-side files prefixed with a UTF-8 BOM


def F(old: str, new: str) -> Edit:
    return Edit("shop/flows.py", old, new)


def P(old: str, new: str) -> Edit:
    return Edit("shop/pricing.py", old, new)


def E(name: str, about: str, *edits: Edit, **kw) -> Pair:
    return Pair(name, "equal", about, tuple(edits), **kw)


def C(name: str, about: str, *edits: Edit, **kw) -> Pair:
    return Pair(name, "changed", about, tuple(edits), **kw)


_FLOW_BODY_4 = '''\
    """Charge and ship one order."""
    basket = Basket(order["items"])
    ordered = sorted(order["items"], key=lambda i: i["sku"])
    total = floor(discount(order["total"]))
    receipt = ctx.execute("charge", charge, order["id"])
    if needs_review(total):
        ctx.suspend("manager-approval")
    note = json.dumps({"label": label(order), "n": basket.count() + 1}, sort_keys=True)
    ctx.execute("ship", ship, order["id"])
    return {"receipt": receipt, "total": total, "note": note, "first": ordered[0]}
'''
# the same body re-indented with two spaces per level
_FLOW_BODY_2 = "".join(
    " " * ((len(line) - len(line.lstrip(" "))) // 2) + line.lstrip(" ")
    for line in _FLOW_BODY_4.splitlines(keepends=True)
)

_ZERO_HASH = "sha256:" + "0" * 64

PAIRS: tuple[Pair, ...] = (
    # ---------------------------------------------------------------- equal: layout and comments
    E("identical", "where the checkout lives on disk (same bytes, another directory)"),
    E("comment-in-flow", "comments",
      F('    receipt = ctx.execute("charge"', '    # charge before shipping\n    receipt = ctx.execute("charge"')),
    E("trailing-comment", "comments",
      F("    ctx.execute(\"ship\", ship, order[\"id\"])\n", "    ctx.execute(\"ship\", ship, order[\"id\"])  # ship it\n")),
    E("comment-in-helper", "comments (in a helper)",
      F("    return total > LIMIT\n", "    # strictly above the limit\n    return total > LIMIT\n")),
    E("comment-in-other-module-helper", "comments (in a first-party helper)",
      P("    return _cents(total", "    # rounded to cents\n    return _cents(total")),
    E("blank-lines", "blank lines",
      F("    receipt = ctx.execute(", "\n\n    receipt = ctx.execute("),
      F("    return {\"receipt\"", "\n    return {\"receipt\"")),
    E("indentation", "indentation",
      F(_FLOW_BODY_4, _FLOW_BODY_2)),
    E("line-wrapping", "line wrapping",
      F('    receipt = ctx.execute("charge", charge, order["id"])',
        '    receipt = ctx.execute(\n        "charge",\n        charge,\n        order["id"]\n    )')),
    E("backslash-continuation", "line wrapping",
      F("    total = floor(discount(order[\"total\"]))", "    total = \\\n        floor(discount(order[\"total\"]))")),
    E("crlf", "CRLF/LF", crlf=("shop/flows.py", "shop/pricing.py")),
    E("bom", "a BOM", bom=("shop/flows.py",)),
    E("semicolons", "`a; b` vs two lines",
      F('    basket = Basket(order["items"])\n    ordered = sorted(',
        '    basket = Basket(order["items"]); ordered = sorted(')),
    E("redundant-parens", "redundant parentheses",
      F("    if needs_review(total):", "    if (needs_review(total)):"),
      F("    return total > LIMIT\n", "    return (total > LIMIT)\n")),
    E("trailing-commas", "trailing commas",
      F('ctx.execute("ship", ship, order["id"])', 'ctx.execute("ship", ship, order["id"],)'),
      F('"first": ordered[0]}', '"first": ordered[0],}')),
    # ---------------------------------------------------------------- equal: docstrings
    E("flow-docstring-edited", "docstrings (flow)",
      F('    """Charge and ship one order."""', '    """Charge one order, then ship it."""')),
    E("flow-docstring-removed", "docstrings (flow)",
      F('    """Charge and ship one order."""\n', "")),
    E("helper-docstring-edited", "docstrings (helper)",
      F('    """True when a manager must approve."""', '    """Whether the total needs a manager."""')),
    E("helper-docstring-added", "docstrings (helper)",
      F("def label(order):\n", 'def label(order):\n    """Human label of an order."""\n')),
    E("class-docstring-edited", "docstrings (class)",
      F('    """Items of one order."""', '    """The items of one order, as a list."""')),
    E("other-module-docstring", "docstrings (first-party helper)",
      P("def discount(total):\n", 'def discount(total):\n    """Total after the discount."""\n')),
    # ---------------------------------------------------------------- equal: literal spelling
    E("single-quotes", "quoting of a string with the same value",
      F('ctx.execute("charge", charge', "ctx.execute('charge', charge")),
    E("triple-quotes", "quoting of a string with the same value",
      F('ctx.suspend("manager-approval")', "ctx.suspend('''manager-approval''')")),
    E("u-prefix", "quoting of a string with the same value (u'')",
      F('ctx.execute("ship", ship', 'ctx.execute(u"ship", ship')),
    E("hex-escape", "escaping of a string with the same value",
      F('ctx.execute("charge", charge', 'ctx.execute("\\x63harge", charge')),
    E("implicit-concatenation", "implicit concatenation vs one literal",
      F('ctx.suspend("manager-approval")', 'ctx.suspend("manager-" "approval")')),
    E("number-underscores", "number spelling (1_000)",
      F("LIMIT = 1000\n", "LIMIT = 1_000\n")),
    E("number-hex", "number spelling (0x3E8)",
      F("LIMIT = 1000\n", "LIMIT = 0x3E8\n")),
    E("float-spelling", "number spelling (0.1 vs 1e-1)",
      P("RATE = 0.1\n", "RATE = 1e-1\n")),
    E("local-annotation", "annotations of local variables",
      F("    total = floor(", "    total: int = floor(")),
    E("nfkc-identifier", "identifiers under NFKC",
      F('"total": total, "note"', '"total": \uff54\uff4f\uff54\uff41\uff4c, "note"')),
    # ---------------------------------------------------------------- equal: outside the closure
    E("flow-renamed", "the flow function's own name",
      F("def checkout(ctx, order", "def checkout_v2(ctx, order")),
    E("flow-decorator-version", "arguments of the flow decorator",
      F('@flow("checkout", version=1,', '@flow("checkout", version=2,')),
    E("flow-decorator-compatible-with", "compatible_with never feeds the code hash",
      F('steps=["charge", "ship"])', f'steps=["charge", "ship"], compatible_with=["{_ZERO_HASH}"])')),
    E("flow-decorator-code-fingerprint", "code_fingerprint never feeds the code hash",
      F('steps=["charge", "ship"])', f'steps=["charge", "ship"], code_fingerprint="{_ZERO_HASH}")')),
    E("unrelated-function-edited", "anything outside the closure (unrelated function)",
      F("    return x * 2\n", "    return x * 3\n")),
    E("unused-import-added", "anything outside the closure (unused import)",
      F("import json\n", "import json\nimport os\n")),
    E("code-inserted-above", "anything outside the closure (code inserted above)",
      F("def traced(fn):", "def audit(event):\n    return {\"event\": event}\n\n\ndef traced(fn):")),
    E("module-definitions-reordered", "the order of module-level definitions",
      F('def needs_review(total):\n    """True when a manager must approve."""\n    return total > LIMIT\n\n\n', ""),
      F("def traced(fn):", 'def needs_review(total):\n    """True when a manager must approve."""\n    return total > LIMIT\n\n\ndef traced(fn):')),
    E("constants-reordered", "the order of module-level definitions",
      F('LIMIT = 1000\nCURRENCY = "EUR"\n', 'CURRENCY = "EUR"\nLIMIT = 1000\n')),
    E("module-docstring-edited", "anything outside the closure (module docstring)",
      F('"""Checkout flow of the pair-suite shop."""', '"""The checkout flow."""')),
    E("other-module-unrelated-addition", "anything outside the closure (another module)",
      P("def discount(total):", "def surcharge(total):\n    return total * 2\n\n\ndef discount(total):")),
    E("step-body-edited", "a step contributes its qualified name, not its body",
      F('    return "receipt-" + order_id', '    return "rcpt-" + order_id')),
    # ---------------------------------------------------------------- changed: statements
    C("statement-added", "statements",
      F('    ctx.execute("ship", ship', '    ctx.emit("charged", {"id": order["id"]})\n    ctx.execute("ship", ship')),
    C("statement-removed", "statements",
      F('    if needs_review(total):\n        ctx.suspend("manager-approval")\n', "")),
    C("statements-reordered", "their order",
      F('    note = json.dumps({"label": label(order), "n": basket.count() + 1}, sort_keys=True)\n'
        '    ctx.execute("ship", ship, order["id"])\n',
        '    ctx.execute("ship", ship, order["id"])\n'
        '    note = json.dumps({"label": label(order), "n": basket.count() + 1}, sort_keys=True)\n')),
    C("else-branch-added", "statements",
      F('        ctx.suspend("manager-approval")\n', '        ctx.suspend("manager-approval")\n    else:\n        ctx.emit("auto-approved", {})\n')),
    C("return-value-changed", "statements",
      F('"first": ordered[0]}', '"first": ordered[-1]}')),
    # ---------------------------------------------------------------- changed: operators, constants
    C("operator-in-flow", "operators",
      F("basket.count() + 1}", "basket.count() - 1}")),
    C("comparison-in-helper", "operators (same-module helper)",
      F("    return total > LIMIT\n", "    return total >= LIMIT\n")),
    C("operands-swapped", "operators",
      F("    return total > LIMIT\n", "    return LIMIT > total\n")),
    C("not-added", "operators",
      F("    if needs_review(total):", "    if not needs_review(total):")),
    C("constant-value", "constant values (module constant)",
      F("LIMIT = 1000\n", "LIMIT = 2000\n")),
    C("constant-int-to-float", "constant types (1 vs 1.0)",
      F("LIMIT = 1000\n", "LIMIT = 1000.0\n")),
    C("literal-int-to-bool", "constant types (1 vs True)",
      F("basket.count() + 1}", "basket.count() + True}")),
    C("string-constant", "constant values (string constant)",
      F('CURRENCY = "EUR"', 'CURRENCY = "USD"')),
    C("string-literal", "constant values (string literal)",
      F('ctx.suspend("manager-approval")', 'ctx.suspend("manager-review")')),
    C("string-to-bytes", "constant types (str vs bytes)",
      F('ctx.suspend("manager-approval")', 'ctx.suspend(b"manager-approval")')),
    C("step-id-changed", "constant values (a step id)",
      F('ctx.execute("charge", charge', 'ctx.execute("charge-v2", charge')),
    C("hex-number-value", "constant values (0x3E8 vs 0x3E9)",
      F("LIMIT = 1000\n", "LIMIT = 0x3E9\n")),
    # ---------------------------------------------------------------- changed: calls, signature
    C("call-argument", "call arguments",
      F('ctx.execute("ship", ship, order["id"])', 'ctx.execute("ship", ship, order["sku"])')),
    C("step-function-swapped", "call arguments (another step)",
      F('ctx.execute("ship", ship, order["id"])', 'ctx.execute("ship", charge, order["id"])')),
    C("keyword-name", "keyword names",
      F("sort_keys=True)", "skipkeys=True)")),
    C("keyword-value", "call arguments (keyword value)",
      F("sort_keys=True)", "sort_keys=False)")),
    C("lambda-body", "the body (lambdas included)",
      F('key=lambda i: i["sku"]', 'key=lambda i: i["qty"]')),
    C("nested-function-added", "the body (nested functions included)",
      F('    ordered = sorted(order["items"], key=lambda i: i["sku"])',
        '    def by_sku(i):\n        return i["sku"]\n    ordered = sorted(order["items"], key=by_sku)')),
    C("parameter-added", "the signature",
      F("def checkout(ctx, order, *, rush=False):", "def checkout(ctx, order, *, rush=False, gift=False):")),
    C("parameter-default", "the signature (defaults)",
      F("*, rush=False):", "*, rush=True):")),
    C("parameter-kind", "the signature (keyword-only vs positional)",
      F("def checkout(ctx, order, *, rush=False):", "def checkout(ctx, order, rush=False):")),
    C("parameter-renamed", "the signature (parameter names)",
      F("*, rush=False):", "*, urgent=False):")),
    C("parameter-annotation", "the signature (parameter annotations)",
      F("def checkout(ctx, order, *", "def checkout(ctx, order: dict, *")),
    C("return-annotation", "the signature (return annotation)",
      F("*, rush=False):", "*, rush=False) -> dict:")),
    C("async-def", "def vs async def",
      F("def checkout(ctx, order", "async def checkout(ctx, order")),
    C("other-decorator-added", "other decorators",
      F('steps=["charge", "ship"])\ndef checkout', 'steps=["charge", "ship"])\n@traced\ndef checkout')),
    C("local-variable-renamed", "a local variable's name",
      F('    receipt = ctx.execute("charge"', '    rcpt = ctx.execute("charge"'),
      F('{"receipt": receipt,', '{"receipt": rcpt,')),
    # ---------------------------------------------------------------- changed: the closure
    C("helper-body-same-module", "a referenced helper's definition (same module)",
      F("    return f\"{order['id']}:{CURRENCY}\"", "    return f\"{order['id']}/{CURRENCY}\"")),
    C("helper-parameter-default", "a referenced helper's definition (signature)",
      F("def needs_review(total):", "def needs_review(total, limit=LIMIT):"),
      F("    return total > LIMIT\n", "    return total > limit\n")),
    C("class-method-edited", "a referenced class's definition",
      F("        return len(self.items)", "        return len(set(self.items))")),
    C("class-attribute-added", "a referenced class's definition",
      F('    """Items of one order."""\n', '    """Items of one order."""\n\n    limit = 10\n')),
    C("helper-other-module", "a referenced helper's definition (first-party module)",
      P("    return _cents(total - total * RATE)", "    return _cents(total - total * RATE * 2)")),
    C("constant-other-module", "a referenced constant's definition (first-party module)",
      P("RATE = 0.1\n", "RATE = 0.2\n")),
    C("callee-of-callee-other-module", "transitively: a callee's callee (first-party module)",
      P("    return round(x, 2)", "    return round(x, 1)")),
    C("import-target-aliased", "an import target",
      F("from math import floor\n", "from math import ceil as floor\n")),
    C("import-module-swapped", "an import target (module)",
      F("import json\n", "import pickle as json\n")),
    C("first-party-import-target", "an import target (first-party helper swapped)",
      F("from shop.pricing import discount\n", "from shop.pricing import _cents as discount\n")),
)
