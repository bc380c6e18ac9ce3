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

``analysis`` decides what each root runs (``_Analyser.operator_calls``), and the statement counts
as calling that code, so ``effects`` attaches what it changes and the chunk keeps the statement
(as for ``L()`` itself):

* a name bound by a statement of the module that is no def, class or import, no builtin display
  or immutable literal, and not third-party state: the module's defs and classes its binding
  statements call or hand on (``OBJ = L()``: ``L``'s methods; ``OBJ = make()``: what ``make``
  runs; ``D = collections.defaultdict(hook)``: ``hook``, the factory a missing key runs), and
  what the names it is bound from run (``d = OBJ``), transitively;
* a class of the module with a first-party metaclass or base (either may define the dunder),
  or with a ``__class_getitem__`` bound in its body however (``__class_getitem__ =
  classmethod(gi)``: ``effects`` counts the defs a class body hands on as the class's code) or
  installed by another statement (``L.__class_getitem__ = ...``): the class itself;
* a def decorated by a def or class of the module (``@L def f``: ``f`` is what ``L`` returned):
  that decorator's code.

Not: a dict, list or set display (``D = {}``; ``D[1]``), a name bound only to an immutable
literal, third-party state (``logger = logging.getLogger()``; ``logger.x``), a def with no
decorator of the module (a function object's operators are the builtin type's; a third-party
wrapper's are third-party code: ``@functools.singledispatch def r``, then ``@r.register(int)``), a class with no first-party metaclass or
base (``type``'s: ``K.x``, ``isinstance(o, K)``), and a name bound by an import, or a value bound
from one (``c = CFG``): what it is, is another module's binding. That leaves out an instance or
a hooked class of *another* module used at load (``from shop.o import OBJ``, then ``OBJ[1]`` or
``OBJ.p``): a documented limit (strict xfails ``S7``), decided for cost: a statement counting as
a call of every imported name it reads or compares (``print(c["a"])``, ``K.__name__``, ``X =
H[int]``) belongs to that name, and in another module counts as changing it (a flow class read
there would count as reconfigured). Following the name into its module (as ``subscript_runs``'
mark does for ``L[int]``) is the direction.

Annotations are not read here (``def f(a: L[int])`` runs ``__class_getitem__`` unless the module
has ``from __future__ import annotations``: ``subscript_runs`` decides that). Rejected: typing
every expression (the operand's type is its binding's, which the binding model gives by name).
"""

from __future__ import annotations

import builtins

import libcst as cst

from .canonical import nfkc

__all__ = ["ATTRIBUTE", "OPERATOR", "operands"]

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
