"""What an operator run at load may run: the operands of a module-level statement (breakS's S7).

``OBJ[1]``, ``OBJ.p``, ``OBJ == 1``, ``OBJ + 1``, ``if OBJ:``, ``[*OBJ]``, ``a, b = OBJ``,
``with OBJ:``, ``f"{OBJ}"``, ``len(OBJ)`` call a dunder of the operand's type (``__getitem__``, a
property or ``__getattr__``, ``__eq__``, ``__add__``, ``__bool__``, ``__iter__``, ``__enter__``,
``__format__``, ``__len__``) right where they are evaluated; for a class operand (``L[int]``,
``L.zz``), its metaclass's or its ``__class_getitem__``. A statement binding nothing and calling
nothing (``OBJ[1]`` alone on its line) then changes what that code changes, and ``effects`` counted
it as no effect at all: the hash missed its removal and the chunk left it out.

``operands(stmt)`` reads, in the code of one module-level statement that runs as the module runs
(a class body, a def's decorators and defaults; not a def's or lambda's body), the
global roots of the expressions an operator is applied to: ``OBJ`` for ``OBJ[1]``, ``OBJ.p[2]``,
``-OBJ``, ``x in OBJ``, ``for x in OBJ``, ``with OBJ as o:``, ``{OBJ: 1}``, and the arguments of a
call of a builtin by its plain name (``print(OBJ)``, ``len(OBJ)``; ``builtin_calls``): each root
with whether the operator was applied to the name itself (``OPERATOR``) or only through an
attribute read of it (``ATTRIBUTE``: ``cfg.LIMIT``, ``Checkout.rate + 5``). ``a is b`` runs nothing and is no operand; a comprehension's or walrus' own names
are not told from globals (widening: a global of the same name counts).

``operator_calls`` decides what each root runs (``OperatorRuns``), and the statement counts
as calling that code, so ``effects`` attaches what it changes and the chunk keeps the statement
(as for ``L()`` itself):

* a name bound by a statement of the module that is no def, class or import, no builtin display
  or immutable literal, and not third-party state: the module's defs and classes its binding
  statements call or hand on (``OBJ = L()``: ``L``'s methods, when its body spells a dunder
  other than construction's, a property or a decorated method, or a first-party base may;
  ``OBJ = make()``: what ``make`` runs; ``D = collections.defaultdict(hook)``: ``hook``, the
  factory a missing key runs), and what the names it is bound from run (``d = OBJ``),
  transitively. Precision kept: a class whose own code defines no operator (``class
  OrderedGroup(TyperGroup)`` overriding ``list_commands``, then ``@workflow.command()`` on its
  instance: dbos-transact-py's CLI, 21 flows moved otherwise) runs a third-party base's dunders,
  which are third-party code; that they call the class's overrides is not followed (a
  documented limit);
* a class of the module with a first-party metaclass or base (either may define the dunder),
  or with a ``__class_getitem__`` bound in its body however (``__class_getitem__ =
  classmethod(gi)``: ``effects`` counts the defs a class body hands on as the class's code) or
  installed by another statement (``L.__class_getitem__ = ...``): the class itself;
* a def decorated by a def or class of the module (``@L def f``: ``f`` is what ``L`` returned):
  that decorator's code.

Not: a dict, list or set display (``D = {}``; ``D[1]``), a name bound only to an immutable
literal, third-party state (``logger = logging.getLogger()``; ``logger.x``), a def with no
decorator of the module (a function object's operators are the builtin type's; a third-party
wrapper's are third-party code: ``@functools.singledispatch def r``, then ``@r.register(int)``),
a class with no first-party metaclass or base (``type``'s: ``K.x``, ``isinstance(o, K)``), and a
value bound from an imported name (``c = CFG``: not followed here).

A name imported from a first-party module (``from shop.o import OBJ``, then ``OBJ[1]`` or
``OBJ.p``) is another module's binding: ``analysis.imported_operands`` marks it in the
statement's ``Unit.runs`` as ``subscript_runs`` marks ``L[int]`` (``SUBSCRIPTED``), and
``closure`` decides there: a class's ``__class_getitem__`` (as before), or, for a value, the
classes its binding statements name whose code defines operators (``defines_operators``; a
factory's too, ``OBJ = make()``), whose call effects count. Counting the imported name itself as
called here (the first cut) made every statement reading or comparing one belong to it, and in
another module count as changing it: six equal pairs of earlier rounds moved (``print(c["a"])``,
``K.__name__`` of an imported flow class, ``X = H[int]``, ``RATE = Checkout.rate + 5``).

Annotations are not read here (``def f(a: L[int])`` runs ``__class_getitem__`` unless the module
has ``from __future__ import annotations``: ``subscript_runs`` decides that). Rejected: typing
every expression (the operand's type is its binding's, which the binding model gives by name).
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import libcst as cst

from .canonical import nfkc

if TYPE_CHECKING:
    from .effects import StatementFacts

__all__ = ["ATTRIBUTE", "OPERATOR", "OperatorRuns", "defines_operators", "operands", "operator_calls"]

#: a class body's code an operator on an instance may run: a dunder other than those of
#: construction and class creation, a property, or a method decorated otherwise than as a static
#: or class method (``@cached_property``, ``@x.setter``)
_OPERATOR_CODE = re.compile(
    r"\bdef\s+__(?!(?:init|new|init_subclass|class_getitem|set_name|post_init)__)\w+__"
    r"|\bproperty\b|^\s+@(?!(?:staticmethod|classmethod)\b)", re.MULTILINE)

#: the operand was only read an attribute of (``cfg.LIMIT``)
ATTRIBUTE = "attribute"
#: an operator other than an attribute read was applied to it (or through it)
OPERATOR = "operator"

#: builtins that call a dunder of what they are handed (``len``, ``str``, ``print``...): every
#: builtin, widening (``isinstance(x, K)`` runs ``type(K).__instancecheck__``)
_BUILTINS = frozenset(name for name in dir(builtins) if not name.startswith("_"))

_SKIP_BODY = (cst.FunctionDef, cst.Lambda)


def operands(stmt: cst.CSTNode, bound: frozenset[str] | set[str] = frozenset()) -> dict[str, str]:
    """Global root -> ``OPERATOR`` or ``ATTRIBUTE`` for what the statement applies an operator to
    as it runs (the module docstring). ``bound``: the module's names, so a call of a name it binds
    is no builtin's."""
    out: dict[str, str] = {}

    def add(expr: cst.CSTNode, kind: str = OPERATOR) -> None:
        # an operator applied to a part (``OBJ.p + 1``, ``OBJ.get()[0]``) reads attributes of
        # the root; what the part is, is the root's binding's to tell (``analysis``)
        root = _root(expr)
        if type(expr) is not cst.Name:
            kind = ATTRIBUTE
        if root is not None and (kind == OPERATOR or out.get(root) != OPERATOR):
            out[root] = kind

    stack: list[cst.CSTNode] = [stmt]
    while stack:
        node = stack.pop()
        t = type(node)
        if t is cst.FunctionDef:
            stack.extend(d.decorator for d in node.decorators)
            stack.append(node.params)
            continue
        if t is cst.Lambda:
            stack.append(node.params)
            continue
        if t is cst.Param:
            if node.default is not None:
                stack.append(node.default)
            continue
        if t is cst.Annotation:
            continue  # ``subscript_runs``' (evaluated or not by ``from __future__ import annotations``)
        if t is cst.Subscript:
            add(node.value)
        elif t is cst.Attribute:
            add(node.value, ATTRIBUTE)
        elif t is cst.BinaryOperation or t is cst.BooleanOperation:
            add(node.left)
            add(node.right)
        elif t is cst.UnaryOperation:
            add(node.expression)
        elif t is cst.Comparison:
            left = node.left
            for target in node.comparisons:
                if type(target.operator) not in (cst.Is, cst.IsNot):
                    add(left)
                    add(target.comparator)
                left = target.comparator
        elif t in (cst.If, cst.While, cst.IfExp, cst.Assert):
            add(node.test)
        elif t is cst.For or t is cst.CompFor:
            add(node.iter)
        elif t is cst.StarredElement or t is cst.StarredDictElement:
            add(node.value)
        elif t is cst.DictElement:
            add(node.key)
        elif t is cst.Set:
            for el in node.elements:
                add(el.value)
        elif t is cst.Arg and node.star:
            add(node.value)
        elif t is cst.WithItem:
            add(node.item)
        elif t is cst.AugAssign:
            add(node.target)
        elif t is cst.FormattedStringExpression:
            add(node.expression)
        elif t is cst.Assign:
            if any(type(a.target) in (cst.Tuple, cst.List) for a in node.targets):
                add(node.value)  # unpacking iterates the value
        elif t is cst.Call and type(node.func) is cst.Name:
            name = nfkc(node.func.value)
            if name in _BUILTINS and name not in bound:
                for arg in node.args:
                    add(arg.value)
        stack.extend(node.children)
    return out


def _root(expr: cst.CSTNode) -> str | None:
    """The global name an operand expression is rooted at (``OBJ`` for ``OBJ``, ``OBJ.p``,
    ``OBJ[0]``, ``OBJ.get()``; None for a literal or a call of no name's result)."""
    node = expr
    while True:
        t = type(node)
        if t is cst.Name:
            return nfkc(node.value)
        if t is cst.Attribute or t is cst.Subscript:
            node = node.value
        elif t is cst.Call:
            node = node.func
        else:
            return None


def defines_operators(code: str) -> bool:
    """Whether a class statement's text spells what an operator on its instance may run (a
    dunder other than construction's, a property, a decorated method)."""
    return _OPERATOR_CODE.search(code) is not None


def operator_calls(facts: Sequence[StatementFacts], nodes: Sequence[cst.CSTNode], codes: Sequence[str], bound: set[str],
                   third_party: Callable[[str], bool], literal: Callable[[str], bool]) -> None:
    """Record, in each statement's references, an operator it applies to a name as a call of the
    code that runs (``OBJ[1]`` after ``OBJ = L()``: ``L`` in ``calls_now``, ``name_calls_now`` and
    ``call_mentions``; ``effects`` then attaches what ``L``'s code changes, and the chunk keeps the
    statement). ``facts``/``nodes``: the module's statements, then the pieces of split ``if``
    chains (``effects.split_if``), aligned; ``codes``: each statement's text, by index;
    ``bound``: the module's names. Only a statement spelling a name whose operators run the
    module's code is walked (most modules have none)."""
    table = OperatorRuns(facts[:len(codes)], codes, bound,
                         third_party, literal)
    candidates = sorted(n for n in table.names() if table.runs(n))
    if not candidates:
        return
    spelled = re.compile(r"\b(?:" + "|".join(map(re.escape, candidates)) + r")\b")
    for fact, node in zip(facts, nodes):
        if not spelled.search(codes[fact.index]):
            continue
        refs = fact.refs
        for name in operands(node, bound):
            if name not in bound or name in fact.own_names and fact.callable:
                continue
            for callee in table.runs(name):
                refs.calls_now.add(callee)
                refs.name_calls_now.add(callee)
                refs.call_mentions.add(callee)


class OperatorRuns:
    """What an operator on each module-level name may run of the module's code (the module
    docstring's rules), memoised per name."""

    def __init__(self, facts: Sequence[StatementFacts], codes: Sequence[str], bound: set[str],
                 third_party: Callable[[str], bool], literal: Callable[[str], bool]) -> None:
        self.codes = codes
        self.bound = bound
        self.third_party = third_party
        self.literal = literal
        self.classes: dict[str, list[StatementFacts]] = {}
        self.defs: dict[str, list[StatementFacts]] = {}
        self.values: dict[str, list[StatementFacts]] = {}
        for fact in facts:
            for n in fact.own_names:
                (self.classes if fact.klass else self.defs if fact.callable else self.values).setdefault(n, []).append(fact)
        #: classes a statement installs a ``__class_getitem__`` on (``L.__class_getitem__ = ...``)
        self.installed = {c.split(".")[0] for fact in facts for c in fact.refs.globals if c.endswith(".__class_getitem__")}
        self._runs: dict[str, frozenset[str]] = {}

    def names(self) -> list[str]:
        return [*self.classes, *self.defs, *self.values]

    def first_party(self, name: str) -> bool:
        return name in self.bound and not self.third_party(name)

    def hooked(self, name: str) -> bool:
        """A class whose subscript or attribute read may run first-party code: a first-party
        metaclass or base, a ``__class_getitem__`` in its body or installed on it."""
        return name in self.installed or any(
            "__class_getitem__" in self.codes[f.index] or any(b != name and self.first_party(b) for b in f.bases)
            for f in self.classes[name])

    def dunders(self, name: str, seen: frozenset[str] = frozenset()) -> bool:
        """Whether an instance of the class may run the class's code for an operator: its body
        spells a dunder other than construction's, a property or a decorated method, or a
        first-party base may (an imported one is not read here: it may)."""
        return any(_OPERATOR_CODE.search(self.codes[f.index]) or any(
            b != name and self.first_party(b) and (
                b not in self.classes or (b not in seen and self.dunders(b, seen | {name}))) for b in f.bases)
            for f in self.classes[name])

    def runs(self, name: str, seen: frozenset[str] = frozenset()) -> frozenset[str]:
        """The defs and classes of the module whose code an operator on ``name`` may run."""
        found = self._runs.get(name)
        if found is not None:
            return found
        out: set[str] = set()
        if name in self.classes:
            if self.hooked(name):
                out.add(name)
        elif name in self.defs:
            # what a decorator of the module returned (``@L def f``: an instance of ``L``)
            out |= {r[2:] for f in self.defs[name] for r in f.creation[0]
                    if r[:2] == "d:" and r[2:] != name and (r[2:] in self.classes or r[2:] in self.defs)}
        elif name in self.values and name not in seen and not self.literal(name) and not self.third_party(name) \
                and not all(f.display for f in self.values[name]):
            for f in self.values[name]:
                if f.display:
                    continue
                refs = f.refs
                # what built the value (``OBJ = L()``, ``OBJ = make()``), what it was handed
                # (``defaultdict(hook)``: the factory runs on a missing key)
                out |= {c for c in refs.calls_now | refs.call_mentions
                        if c in self.defs or c in self.classes and self.dunders(c)}
                for alias in refs.aliases:  # ``d = OBJ``
                    out |= self.runs(alias, seen | {name})
        # (an imported name: what it is, is another module's binding)
        found = frozenset(out)
        if not seen:  # (a result inside a cycle of aliases may be partial: kept only from the top)
            self._runs[name] = found
        return found
