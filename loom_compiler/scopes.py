"""What a piece of code uses and can change: our own scope analysis on the libcst tree.

``references(node)`` walks one module-level statement (or definition) once and returns:

* ``globals``: the dotted chains (``pricing.discount``, ``math.floor``, ``LIMIT``) whose root is
  *global* in ``node``: not a parameter, assignment/loop/``with``/``except`` target, comprehension
  variable, nested ``def``/``class``, import or ``match`` capture of an enclosing function scope,
  unless declared ``global``. Class bodies are scopes their methods do not see (Python's rule).
  A name bound by an ``import`` inside a function or class body is local, but it is a *binding
  to its target*: its uses are reported as absolute targets, ``=shop.pricing.discount`` for
  ``from shop.pricing import discount`` then ``discount(x)``, ``=shop.pricing.discount`` for
  ``import shop.pricing`` then ``shop.pricing.discount(x)`` (the attribute tail is kept, so a
  lazy import reaches exactly what is used through it); ``!<module>`` names a module such an
  import loads (it runs, whatever is used: ``closure`` follows what it changes elsewhere).
  ``getattr(x, "name")`` (and ``setattr``,
  ``hasattr``, ``delattr`` with a literal name) is ``x.name``.
* ``members``: names reached through the instance or class a method runs on: ``self.x``,
  ``cls.x``, ``type(self).x``, ``self.__class__.x``.
* what the code can *change* (``loom-fp/2``'s rule for state-changing module statements, see
  ``analysis``): at import time, the global roots it stores or deletes through (``CFG["a"] = 2``,
  ``Policy.limit = 5``, ``decimal.getcontext().prec = 6``) and every global root used inside a
  call it makes (callee, arguments, decorators: a call may change any of them); in deferred code
  (function bodies), the roots it stores through, passes to calls or calls methods on, the
  functions it calls, and the names it writes after ``global``.
* name-only references (``^chain``, ``^=target``): with a ``name_only`` callback (a framework
  profile's, ``loom_compiler.frameworks``), the argument of a call it names is referenced by
  name only (``workflow.execute_activity(Db.save, ...)`` reaches ``Db.save``'s name, not the
  class); the callback receives the callee chain as written and answers which argument.
* ``dynamic``: reach that cannot be decided statically. ``module``: the code reads the module's
  namespace by a computed name (``globals()[k]``, ``sys.modules[__name__]``,
  ``importlib.import_module(__name__)``); ``module-write``: it can bind any name of it
  (``globals()`` used any other way, ``exec``/``eval`` without a namespace of their own,
  ``vars()``/``locals()`` at module level); ``class``: a method reaches its instance or class by
  a computed name or lets it escape (``getattr(self, name)``, ``self.__dict__``, ``self`` passed
  to a call or returned); ``class-write``: it writes or deletes an attribute of its instance by a
  computed name (``setattr(self, key, value)``), which runs only ``__setattr__``/``__delattr__``
  and data descriptors. A non-literal ``getattr`` on anything else reports the object itself as
  used (a module used as a value is the whole module, see ``closure``), so no special marker is
  needed there; a name folded from literals (``getattr(shop, "pri" + "cing")``) is literal.
* modules named by strings (breaker2's C3-C5), as more ``globals`` entries ``closure`` resolves:

  - ``"<dotted>``: a string literal that spells a dotted name (``"shop.pricing"``,
    ``"shop.pricing.discount"``, ``"shop.pricing:discount"``), wherever it is: ``importlib``,
    ``pkgutil.resolve_name``, ``pydoc.locate``, ``runpy``, ``sys.modules[...]`` or a loader of any
    spelling (``from importlib import import_module as im``, a helper of the project's own) may
    resolve it; ``closure`` follows it when it names first-party code. A string statement (a
    docstring) runs nothing and is skipped. A string that is code importing something (a
    literal given to ``exec``/``eval``/``compile``, or any literal with ``import`` in it that
    CPython parses) gives ``"<target>`` for what it imports;
  - ``=<name>`` for a recognised resolver (``_RESOLVERS``: by qualified name, through module-level
    and local imports) given a certain name: a literal, a folded concatenation, keyword
    ``name=``, a relative name against a literal package or ``__package__``; ``__import__``
    without a ``fromlist`` also reaches the top package it returns;
  - ``?<prefix>``: a module name computed at run time, known to start with ``prefix``
    (``"shop.plugins." + name``, ``f"shop.{kind}"``, ``"shop.%s" % x``; ``""``: nothing known,
    also ``exec``/``eval`` of a computed string and a relative name in a code string);
  - ``?@<chain>`` / ``?%<chain>``: a resolver (``@``) or ``exec``/``eval`` (``%``) given a global
    constant: certain only when every statement binding it is a plain string constant, which
    such a statement records as ``'<name>=<value>`` (``_string_constant``).

  Width, chosen: any dotted string naming first-party code reaches it, not only the arguments of
  the resolvers we know (a loader of the project's own is the common case: a settings module
  listing ``"shop.plugins.audit"``); the cost is a string such as a logger name
  ``"shop.pricing"`` bringing that module in. A computed name reaches every module under its
  known prefix, all of each (what is used of it is unknown). On the real repositories of
  ``benchmarks/bench_closure_width.py`` (temporal samples, dbos-demo-apps, prefect-recipes) none
  imports by a computed name or execs a string; the flow changes this round added there come
  from ``closure``'s third-party-state rule (temporal 349 -> 351, prefect 25 -> 26, dbos 12 ->
  12 of the helper edits, ``--profiles``).

Namespace views (breaker2's C13, C17; ``_UseWalker.view``): an expression that reaches a module's
names through an object leading to them is the chain it stands for. ``vars(svc)["Svc"]`` and
``svc.__dict__["Svc"]`` are ``svc.Svc``; ``sys.modules["shop.svc"].go`` and
``importlib.import_module("shop.svc").go`` are ``=shop.svc.go``; ``__builtins__["len"]`` is
``=builtins.len``; ``f.__globals__["K"]`` and ``inspect.getmodule(f).K`` are ``f.__globals__.K``,
which ``closure`` resolves to ``K`` of the module that defines ``f`` (``getattr(x, "n")`` of any of
them too). A store through a view is a store into what it names: through the global root
(``stores``, as ``svc.Svc.go = f`` would be) or, for an absolute target, ``><target>`` (``>shop.svc.go``,
``>shop.svc`` for ``sys.modules["shop.svc"] = m``, ``>builtins.len``), which ``closure`` treats
as a statement changing that module's objects (abroad), never as a use. Widening where the view
cannot be resolved: a computed name in a view stores into all of what it names (``vars(svc)[k] =
f``: ``svc``; ``sys.modules[k] = m``: ``>?<prefix>``, every first-party module it may name;
``sys.modules[__name__] = obj``: ``>.``, the module itself); a method of a view called at import
time or in a def (``vars(svc).update(go=f)``, ``__builtins__.update(...)``,
``builtins.__dict__.update(...)``) may change any name of it; an
absolute view given to a call made at import time may be changed by it; ``f.__globals__`` of a
parameter, a local or ``self.m`` is ``?`` (the namespace of a module we cannot name: any).
Rejected: keeping ``vars(m)`` as ``m`` used as a value (sound for reads, but a store through it
was attached to ``vars`` and reached nothing) and resolving ``__globals__`` here (the module that
defines an object is only known once its bindings are resolved).

Modules fetched by name (breaker3's D5; ``_UseWalker.module_value``): any expression that evaluates
to a module by its name stands for that module: ``sys.modules[k]``, ``sys.modules.get/setdefault/
pop(k, ...)`` (``sys.modules`` through its imports and module-level plain aliases, ``mods =
sys.modules``: ``analysis.stands_for`` feeds ``qualified``), ``importlib.import_module`` (relative
names resolved), ``__import__``/``importlib.__import__`` (the named module with a non-empty
``fromlist``, the top package without one), ``pkgutil.resolve_name``/``pydoc.locate`` (the object),
and ``sys.modules[f.__module__]`` (the module defining ``f``, resolved as ``f.__globals__`` is; a
store into it is ``>%<chain>``, never a store into ``f``). A store through one is a store into what
it names, as for the views. Widening, where the module cannot be told: a computed name stores into
every first-party module it may name (``>?<prefix>``; a constant, ``>?@<chain>``: the modules its
values name), no longer into the module's own namespace alone; a fetched module that is not gone
into at once (kept in a name, handed on, returned: ``m = sys.modules["shop.h"]`` then ``m.RATE =
5``) counts as stored into; ``sys.modules`` itself handed out (``.values()``, ``.items()``,
``.copy()``, passed to a call, kept in a local, aliased under an ``if``) stores into every
first-party module; ``update``/``setdefault``/``pop``/``__setitem__``/``clear`` replace the entries
they name (all, when computed). In a function body these stores are what *calling* the function
changes (``References.deferred_stores``: ``effects.call_refs`` hands them to
``closure.call_effects``, and a call at import time of one of the module's own functions to
``closure``'s abroad rule), not a change made by the ``def``: a function that only returns
``sys.modules[__name__]`` moves no flow unless a module calls it as it runs. Not widened: ``k in
sys.modules``, its keys (``keys()``, ``len``, ``sorted``, iteration), a fetched module gone into
right away (``sys.modules["shop.h"].RATE + 1``), a comparison, a getattr of it. Cost on the
measured repositories: none fetches a module by name at import time (``benchmarks/README.md`` §5).
Rejected: counting every use of the ``sys`` module as a possible store (every flow near
``sys.argv`` or ``sys.exit`` would widen); ``sys`` handed to a function and modules found through
other objects (``gc.get_objects()``) are a documented limit.

Names standing for module-level objects (lead's L3; ``_value_names``, ``_Scope.aliases``,
``_UseWalker.stands_for``): a local bound to a value that is a module-level object or part of one
(``c = CFG``, ``c = cfg.CFG["sub"]``, ``c = CFG.get("sub")``, ``getattr(m, "CFG")``, either side of
``or``/``if``-``else``; with a tuple target or a loop, the elements of a display: ``c, d = CFG, 1``,
``for c in (CFG,)``; a walrus, a ``with`` target, a comprehension variable; another such local, of
this function or an enclosing one) holds that object: a store through it (``c["a"] = 5``,
``c += [1]``), a method called on it (``c.update(a=5)``), a call of it (``f = setup; f()``) or the
local handed to a call (``put(c)``) is what the same code spelled with the global is. At module
level the statement records the roots its value may be (``References.aliases``) and
``effects.attachments`` follows the names it binds. Widening, on purpose: a name stands for every
root of every binding of it, whichever runs. Precision kept: a local handed to a read-only builtin
(``print(c)``, ``len(c)``; not ``print(..., file=c)``) changes nothing (``References.passes`` at
module level), and a call's result stands for what the callee returns (``c = get()``: ``()get``,
``RESULT``; see holders below), and a new display (``HOLD = [CFG]``) is no alias but a holder.
Rejected: a separate pass over each function body for its aliases (the binder's walk already
visits every binding). A documented cost (breaker5's F8): aliasing is flow-insensitive, so a
name rebound away before the store (``c = CFG; c = {}; c["a"] = 5``) still stands for the
object, and the store moves the flows that read it. Telling the bindings apart would need the
order of the statements (and loops, branches, ``nonlocal`` writes of nested functions): more
than this walk knows, for a false change only.

Holders (breaker5's F6/F7, lead's L4; ``References.holds``, ``References.deep``,
``_held_names``, ``_Scope.holds``): an object can escape into any holder and be changed through
it. The walk records what each holder may come to hold: a module-level name what its bound value
names (``HOLD = [CFG]``, ``NS = SimpleNamespace(c=CFG)``, ``inst = H()``); a global root what is
stored into it or given to its methods (``K.c = CFG``, ``HOLD.append(CFG)``, ``setattr(K, "c",
CFG)``); a module-level class what its body binds and its methods store on ``self``/``cls``; a
module-level def what it returns or yields; a local the same, in the binder (``h = [CFG]``,
``h.append(CFG)``, ``h["k"] = CFG``). A name a function binds after ``global`` stands for its
value (``References.rebinds``: ``global c; c = CFG``, F7). And it records which roots have a
*part* changed (``deep``/``deep_later``): a store or a method call through a part (``HOLD[0]["a"]
= 5``, ``K.c.update()``, ``get()["a"] = 5``, ``self.c["a"] = 5``: the class), a part changed in
place (``HOLD[0] += [1]``), the root handed to a call that is no read-only builtin, or any change
through a local (which may be a part of what it stands for; a local's holdings count only when a
part of it changes). ``effects._Holders`` joins the two: a change of a holder's parts is a change
of what it holds. Widening, on purpose: a holder holds every name its values spell (a call's
arguments whether it keeps them or not, an operator's operands), for ever (no statement order);
what cannot be named (an object a function is given as a parameter and keeps, cross-module) is
a documented limit: ``def add(x): ITEMS.append(x)`` then ``add(CFG)`` in another module and
``ITEMS[0]["a"] = 5`` (the call ``add(CFG)`` belongs to ``CFG`` already, the later store does
not). Parts reached by Python's routes, not only the spelled ones (breaker6's G1): a namespace
entry stored into is a part of its object (``K.__dict__["c"]["a"] = 5``, ``vars(K)["c"].x = 5``:
``store_through_view``), an item of a display is one of its elements (``(CFG,)[0]``: ``_value_names``),
a shallow copy shares the parts of what it copies (``list(HOLD)``, ``sorted``, ``dict``:
``_SHARING_FUNCS``), and a change through what a call returned changes the parts of what its
arguments name (``list(HOLD)[0]["a"] = 5``, ``getattr(K, "c")["a"] = 5``: ``part_of_chain_changed``;
widening: an identity function is not told from one that copies). A class made inside a
function or a class body with code Python hands it to as it is made (a decorator, a base or
keyword, a call in its body: ``_made_with_code``) escapes into that code: what its body names
counts as changed in part (G2; a module-level class is ``effects``' to judge, ``class_creation``).

Frames (lead's L1; ``_UseWalker.frame_namespace``): ``<frame>.f_globals`` (and ``f_locals``, the
same dict at module level) is a namespace view like ``globals()``. The running code's own frame
(``sys._getframe()``/``sys._getframe(0)``/``inspect.currentframe()``, through any import) is its
own module: ``dynamic`` "module" when only read, "module-write" too when stored through, kept or
handed on; its ``f_locals`` inside a function are its locals (nothing global). Any other frame
(``f_back``, ``sys._getframe(n)``, ``inspect.stack()[i].frame``, a frame kept in a name, a
traceback's ``tb_frame``) is a caller's: the module that calls the code cannot be told, so it is
``?`` (every first-party module, whole), and a store through it (or its namespace kept or handed
on) is ``>?`` (a change of any of them). The test is the attribute name, so a frame reached by any
route counts; ``getattr(frame, "f_globals")`` too. Widening, chosen: enumerating the callers would
need the reverse of every closure; only flows that reach such code pay (dbos-transact-py's vendored
``_croniter`` reads ``inspect.stack()[2][0].f_globals``; no measured flow reaches it). A frame used
for ``f_lineno`` or ``f_code.co_name`` widens nothing. Left out: ``f_builtins``, and a frame namespace
fetched by ``operator.attrgetter``.

Annotations (A1): those Python stores are references, quoted or not: a parameter's and a
return's (``def f(x: "Money")``), a class or module variable's (``total: "Money"``): they are
``__annotations__``, evaluated at run time by ``typing.get_type_hints``, dataclasses, pydantic and
Temporal's argument decoding. A string in such an annotation is parsed as the expression it spells
(``List["Money"]``, ``"Optional[Money]"``) and its names walked in the annotation's scope; a
string that is no expression references nothing (its text is hashed as the literal it is); the
strings of ``Literal[...]`` and the metadata of ``Annotated[T, ...]`` are values, not forward
references. Local variable annotations (``xs: List[int] = [x]`` in a function body) are not
walked: they never run and are stored nowhere, so they are not references (DESIGN §6, issue 12
class 9). Width, chosen: a name only a ``TYPE_CHECKING`` import binds is followed too (an edit of
it may move a hash whose code fails ``get_type_hints`` either way), and a module variable's
annotation counts wherever the variable is reached, not only where ``__annotations__`` is read.

Rejected for strings: following only the first argument of ``importlib.import_module`` (every
other spelling of a loader escaped it, breaker2's C3/C5); widening a computed name to the calling
module alone (sound for ``globals()[k]``, not for a module name: the module it names is
elsewhere); parsing code strings with libcst (CPython's ``ast`` is the parser that will run them,
and is ten times faster for a question that needs no round trip).

Rejected: libcst's ``ScopeProvider``/``QualifiedNameProvider``. They need a ``MetadataWrapper``
(a deep copy of the tree plus a full visitor pass per provider) and measured 4-8x the cost of the
parse itself; the questions asked here ("is this name bound anywhere in an enclosing function?")
need two cheap passes per scope. Separate passes for uses, mutations and dynamic reach were
rejected too: one walk answers all three at the cost of a few set insertions.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import libcst as cst

from . import code_runners
from .canonical import (CanonicalisationError, child_nodes, dotted_chain, fstring_text_value, literal_string_value, nfkc,
                        string_parts)

__all__ = [
    "References",
    "references",
    "target_names",
    "bound_names",
    "dotted_chain",
    "import_bindings",
    "FromResolver",
    "NameOnly",
    "RESULT",
]

#: resolves ``from <relative> import ...`` to the absolute base module (None: cannot be resolved)
FromResolver = Callable[[cst.ImportFrom], "str | None"]
#: callee chain (global root, as written) -> (position, keyword) of the argument it references by
#: name only, or None (a framework profile's rule, see ``references``)
NameOnly = Callable[[str], "tuple[int, str | None] | None"]
#: module-level name -> the absolute targets of the imports that bind it (None: something else
#: binds it too, or nothing does)
ImportTargets = Callable[[str], "list[str] | None"]

#: a string that may name a module or an attribute path: ``shop.pricing``, ``shop.pricing.discount``,
#: ``shop.pricing:discount`` (``pkgutil.resolve_name``'s spelling)
_DOTTED = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*(?::[^\W\d]\w*(?:\.[^\W\d]\w*)*)?")
#: callables that import (or resolve, importing its module) the dotted name given as their first
#: argument (or this keyword), by qualified name; "package" says which argument a relative name is
#: resolved against. Any callee whose name ends in ``import_module`` counts too (Django's,
#: importlib's re-exported by a helper module).
_RESOLVERS: dict[str, tuple[str, str | None]] = {
    "importlib.import_module": ("name", "package"),
    "importlib.util.find_spec": ("name", "package"),
    "importlib.__import__": ("name", None),
    "builtins.__import__": ("name", None),
    "__import__": ("name", None),
    "pkgutil.resolve_name": ("name", None),
    "pkgutil.get_loader": ("module_or_name", None),
    "pydoc.locate": ("path", None),
    "runpy.run_module": ("mod_name", None),
}
#: builtins that run code given as a string (first argument, or this keyword)
_CODE_RUNNERS = {"exec": "source", "eval": "source", "compile": "source"}
#: longest code string parsed for the imports it runs (a larger literal is data, not code)
_CODE_LIMIT = 100_000

_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)

# node types with a rule of their own; every other node just has its children walked
_BINDER_SPECIAL = frozenset(
    {
        cst.FunctionDef, cst.ClassDef, cst.Lambda, *_COMPREHENSIONS, cst.AssignTarget, cst.AnnAssign,
        cst.AugAssign, cst.For, cst.CompFor, cst.WithItem, cst.ExceptHandler, cst.ExceptStarHandler,
        cst.NamedExpr, cst.Del, cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal, cst.MatchAs,
        cst.MatchStar, cst.MatchMapping, cst.Assign, cst.Call,
    }
)
_USE_SPECIAL = frozenset(
    {
        cst.Name, cst.Attribute, cst.FunctionDef, cst.Lambda, cst.ClassDef, *_COMPREHENSIONS, cst.Arg,
        cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal, cst.MatchKeywordElement, cst.ConcatenatedString,
        cst.Call, cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Del, cst.Subscript, cst.SimpleString, cst.Expr,
        cst.For, cst.Comparison, cst.WithItem, cst.NamedExpr, cst.Return, cst.Yield, cst.FormattedString,
        cst.Try, cst.TryStar,
    }
)
#: builtins whose first argument may be ``self`` without it escaping
_SELF_SAFE = frozenset({"super", "type", "isinstance", "issubclass", "id"})
#: builtins that change none of their arguments (what they call on them, ``__str__``, ``__len__``,
#: is the argument's own code): a local standing for a global handed to one is no change of it
#: (``x = CFG["a"]; print(x)``; L3's equal side)
_READ_ONLY_BUILTINS = frozenset({
    "print", "len", "str", "repr", "ascii", "format", "isinstance", "issubclass", "hash", "id", "type", "bool",
    "int", "float", "complex", "abs", "round", "sorted", "min", "max", "sum", "any", "all", "tuple", "list", "set",
    "frozenset", "dict", "bytes", "hex", "oct", "bin", "ord", "chr", "callable", "divmod", "pow",
})
_ATTR_FUNCS = frozenset({"getattr", "setattr", "hasattr", "delattr"})
#: resolvers whose call evaluates to what they name: the module (``import_module``, ``__import__``
#: with a ``fromlist``), or the object (``pkgutil.resolve_name``, ``pydoc.locate``)
_RETURNS_NAMED = frozenset({"importlib.import_module", "importlib.__import__", "builtins.__import__", "__import__",
                            "pkgutil.resolve_name", "pydoc.locate"})
#: methods of ``sys.modules`` that evaluate to the entry their first argument names
_ENTRY_GETTERS = frozenset({"get", "setdefault", "pop"})
#: methods of ``sys.modules`` that change the entry their first argument names
_ENTRY_WRITERS = frozenset({"setdefault", "pop", "__setitem__", "__delitem__"})
#: methods of ``sys.modules`` that change entries no argument names
_ENTRIES_WRITERS = frozenset({"update", "clear", "popitem"})
#: methods of ``sys.modules`` that read only its keys: no module leaves it
_KEY_READS = frozenset({"keys", "__contains__", "__len__", "__iter__"})
#: builtins that read only the keys of a dict given as their one argument (or measure it)
_KEY_FUNCS = frozenset({"len", "list", "sorted", "set", "tuple", "frozenset", "iter", "bool", "any", "all"})
#: the last attribute of a chain that may spell ``sys.modules`` used as a value, or a method of it
#: handing out its modules (``use`` checks these against ``qualified``)
_MODULES_TAILS = frozenset({"modules", "values", "items", "copy"})
_DICT_READS = frozenset({"get", "keys", "values", "items", "copy", "__contains__", "__getitem__"})
#: a frame's namespaces (lead's L1): ``f_globals`` is its module's ``globals()``, ``f_locals`` its
#: locals (at module level the same dict)
_FRAME_NAMESPACES = frozenset({"f_globals", "f_locals"})
#: what evaluates to the frame of the code that calls it, given no argument (or ``0``)
_OWN_FRAME = frozenset({"sys._getframe", "inspect.currentframe"})


@dataclass(slots=True)
class References:
    globals: set[str] = field(default_factory=set)  # dotted chains rooted at a global name; "=t" absolute
    members: set[str] = field(default_factory=set)  # names reached through self./cls./type(self).
    stores: set[str] = field(default_factory=set)  # global roots stored/deleted through at import time
    call_mentions: set[str] = field(default_factory=set)  # global roots used in calls made at import time
    calls_now: set[str] = field(default_factory=set)  # global roots called at import time
    name_calls_now: set[str] = field(default_factory=set)  # of those, called by plain name (``f(x)``)
    methods_now: set[str] = field(default_factory=set)  # of those, a method called on (``K.setup()``)
    mutates: set[str] = field(default_factory=set)  # global roots deferred code stores through or passes on
    method_calls: set[str] = field(default_factory=set)  # global roots deferred code calls a method on
    calls: set[str] = field(default_factory=set)  # global roots deferred code calls
    global_writes: set[str] = field(default_factory=set)  # names bound after ``global`` in a function
    dynamic: set[str] = field(default_factory=set)  # "module" | "module-write" | "class" | "class-write"
    #: what deferred code calls out of a container, which no global chain names: a loop variable
    #: (``for f in HOOKS: f()``: its name) or a subscript (``HOOKS[k]()``, ``REG[k].run()``:
    #: ``[]``); what that runs is unknown (``effects.call_refs``)
    opaque_calls: set[str] = field(default_factory=set)
    #: what deferred code stores into another module's objects through a view or a module fetched
    #: by name, as ``>`` targets (``>shop.h.RATE``, ``>?<prefix>``, ``>%<chain>``; ``view_store``)
    deferred_stores: set[str] = field(default_factory=set)
    #: what code run at import time calls that is no chain of a name: a subscript
    #: (``HOOKS["s"]()``: ``[]``), the result of a call (``make()()``, ``get().run()``:
    #: ``()<root>``, the root of the chain whose call built it, or ``()`` for none), anything
    #: else (``(a or b)()``: ``?``); not a decorator's or a base's result applied to the
    #: definition. ``effects.import_time_runs`` decides what such a statement may run
    opaque_now: set[str] = field(default_factory=set)
    #: at module level, the global roots the value a name is bound to may be (part of): ``c =
    #: CFG``, ``c = cfg.CFG["sub"]``, ``c, d = CFG, 1``, ``for c in (CFG,)``, ``(c := CFG)``
    #: (``_value_names``): a store through a name this statement binds is a store into these
    #: (``effects.attachments``, lead's L3)
    aliases: set[str] = field(default_factory=set)
    #: of ``call_mentions``, the roots used where the call may change them: its callee, or an
    #: argument of a call that is no read-only builtin (``print(c)`` is not; ``put(c)`` is):
    #: ``effects.attachments`` follows a module-level alias through these only
    passes: set[str] = field(default_factory=set)
    #: what code strings read at import time import (``exec("import shop.x")`` at module level:
    #: ``shop.x``; breaker6's G5): the modules running that code may start (``analysis``)
    code_loads: set[str] = field(default_factory=set)
    #: holder -> the global roots whose objects it may come to hold as parts (F6, L4): a
    #: module-level name -> the roots its bound value names (``HOLD = [CFG]``, ``NS =
    #: SimpleNamespace(c=CFG)``, ``get = lambda: CFG``); a module-level def or class -> what its
    #: code returns or yields and what its class body and its methods store on ``self``/``cls``
    #: (``class K: c = CFG``, ``self.c = CFG``, ``def get(): return CFG``); a global root stored
    #: into or given to a method -> what it is given (``K.c = CFG``, ``HOLD.append(CFG)``,
    #: ``setattr(K, "c", CFG)``). Names only, unfiltered: ``effects`` decides which count
    holds: dict[str, set[str]] = field(default_factory=dict)
    #: global roots whose *parts* the code may change: a store or a
    #: method call through a part (``HOLD[0]["a"] = 5``, ``K.c.update(a=5)``, ``get()["a"] = 5``),
    #: through a local standing for the root (which may be a part of it), a part stored in place
    #: (``HOLD[0] += [1]``), or the root handed to a call that is no read-only builtin. A change
    #: of a holder's parts is a change of what it holds (``effects.attachments``); a plain store
    #: into it (``HOLD[0] = 5``, ``K.x = 5``) or a builtin display's method (``HOLD.append(5)``)
    #: is not. ``deep``: at import time; ``deep_later``: in deferred code (function bodies)
    deep: set[str] = field(default_factory=set)
    deep_later: set[str] = field(default_factory=set)
    #: a module-level name a function binds after ``global`` -> the global roots its value may be
    #: or be part of (``global c; c = CFG``: F7), as ``aliases`` is for a module-level binding
    rebinds: dict[str, set[str]] = field(default_factory=dict)
    #: of ``mutates``, the global roots deferred code stores through (``H["a"] = 7``), not only
    #: hands on: a store through a name its module binds only to a literal means another module
    #: rebinds it (``util.H = CFG``: breaker6's G3), so ``effects`` keeps it
    stores_later: set[str] = field(default_factory=set)


@dataclass(slots=True)
class _Scope:
    parent: _Scope | None
    local: set[str]
    declared_global: set[str]
    is_class: bool = False
    self_name: str | None = None  # first parameter of a method
    imports: dict[str, list[str]] = field(default_factory=dict)  # local name -> absolute targets
    loops: set[str] = field(default_factory=set)  # names bound by a ``for`` or a comprehension
    #: local name -> the names (of this scope or global) whose object its value may be or be part
    #: of (``_value_names``): a store through the local is a store through those (L3)
    aliases: dict[str, set[str]] = field(default_factory=dict)
    #: local name -> the values it may hold as parts beyond those (``h = [CFG]``, ``h.append(CFG)``,
    #: ``h["k"] = CFG``): a change of its parts changes what they name (L4). The expressions,
    #: read by ``_held_names`` only when a part of the local changes (most never do)
    holds: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)

    @property
    def is_function(self) -> bool:
        return self.parent is not None and not self.is_class


def _subscript_callee(node: cst.BaseExpression) -> bool:
    """``HOOKS[k]`` or ``REG[k].run``: a callee taken out of a container (calls on call results
    and literals, ``"".join``, ``super().f``, are not: their callee is what the call returned)."""
    while type(node) is cst.Attribute:
        node = node.value
    return type(node) is cst.Subscript


def _opaque_callee(func: cst.BaseExpression, is_global: Callable[[str], bool]) -> str | None:
    """``References.opaque_now`` of a call made at import time whose callee is ``func``: None when
    the callee is a chain rooted at a name (what that name is bound to is the module's binding
    model's to tell: ``effects.import_time_runs``) or a method of a literal (``"".join``)."""
    node = func
    while type(node) is cst.Attribute:
        node = node.value
    if type(node) is cst.Name:
        return None
    if type(node) is cst.Subscript:
        return "[]"
    if type(node) is cst.Call:
        chain = dotted_chain(node.func)
        root = chain.split(".", 1)[0] if chain is not None else ""
        return "()" + (root if root and is_global(root) else "")
    if type(node) in (cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float, cst.List, cst.Dict,
                      cst.Set, cst.Tuple):
        return None  # a builtin type's method
    return "?"


def target_names(target: cst.CSTNode | None) -> set[str]:
    """Names bound by an assignment target (tuples/lists/starred unpacked)."""
    if target is None:
        return set()
    if type(target) is cst.Name:
        return {nfkc(target.value)}
    if type(target) in (cst.Tuple, cst.List):
        out: set[str] = set()
        for el in target.elements:
            out |= target_names(el.value)
        return out
    if type(target) is cst.StarredElement:
        return target_names(target.value)
    return set()


def import_bindings(node: cst.Import | cst.ImportFrom, resolve_from: FromResolver | None) -> list[tuple[str, str]]:
    """``(local name, absolute target)`` of every name an import binds, in order. ``import a.b``
    binds ``a`` to ``a``; ``import a.b as c`` binds ``c`` to ``a.b``; ``from .m import x as y``
    binds ``y`` to ``<package>.m.x``. A star import binds no listed name (``[]``); a relative
    import that cannot be resolved binds its names to nothing (they are left out)."""
    out: list[tuple[str, str]] = []
    if isinstance(node, cst.Import):
        for alias in node.names:
            chain = dotted_chain(alias.name) or ""
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                out.append((nfkc(alias.asname.name.value), chain))
            else:
                root = chain.split(".")[0]
                out.append((root, root))
        return out
    if isinstance(node.names, cst.ImportStar):
        return out
    if node.relative:
        base = resolve_from(node) if resolve_from is not None else None
        if base is None:
            return out
    else:
        base = dotted_chain(node.module) if node.module is not None else ""
    for alias in node.names:
        name = nfkc(alias.name.value)  # type: ignore[union-attr]
        local = nfkc(alias.asname.name.value) if alias.asname is not None else name  # type: ignore[union-attr]
        out.append((local, f"{base}.{name}" if base else name))
    return out


def _import_binds(node: cst.Import | cst.ImportFrom) -> set[str]:
    if isinstance(node.names, cst.ImportStar):
        return set()
    out = set()
    for alias in node.names:
        if alias.asname is not None:
            out |= target_names(alias.asname.name)
        elif isinstance(node, cst.Import):
            chain = dotted_chain(alias.name)
            if chain:
                out.add(chain.split(".")[0])
        else:
            out.add(nfkc(alias.name.value))  # type: ignore[union-attr]
    return out


class _Binder:
    """Collects names bound in one scope, not descending into nested scopes."""

    def __init__(self, resolve_from: FromResolver | None = None, *, walrus: bool = True) -> None:
        self.bound: set[str] = set()
        self.declared_global: set[str] = set()
        self.nonlocal_: set[str] = set()
        #: local name -> every absolute target an import in this scope binds it to, in order
        self.imports: dict[str, list[str]] = {}
        self.stars: list[str] = []  # absolute targets of star imports (module level only)
        #: modules its import statements load (``import a.b`` -> ``a.b``; ``from a import b`` ->
        #: ``a`` and ``a.b``, which may be a submodule): they run, whatever name is bound
        self.modules: list[str] = []
        self.loops: set[str] = set()  # names ``for`` statements bind (``_Scope.loops``)
        self.aliases: dict[str, set[str]] = {}  # name -> what its value may be (``_Scope.aliases``)
        self.holds: dict[str, list[cst.BaseExpression]] = {}  # name -> values it may hold (``_Scope.holds``)
        self.resolve_from = resolve_from
        #: False: the module's text spells no ``:=``, so no walrus target needs looking for (each
        #: look walks a whole header or comprehension again)
        self.walrus = walrus

    def alias(self, names: set[str], value: cst.BaseExpression | None, *, unpack: bool) -> None:
        if value is None or not names:
            return
        found = _value_names(value, unpack=unpack)
        holding = type(value) not in _HOLDS_NOTHING_MORE
        for name in names:
            if found:
                self.aliases.setdefault(name, set()).update(found)
            if holding:
                self.holds.setdefault(name, []).append(value)

    def hold(self, target: cst.BaseExpression, values: Iterable[cst.BaseExpression]) -> None:
        """``h["k"] = CFG``, ``h.c = CFG``, ``h.append(CFG)``: the object ``h`` names (the root of
        ``target``, a store target or a method's object) may hold what the values name (L4)."""
        root = _root_name(target)
        if root is not None:
            self.holds.setdefault(root, []).extend(v for v in values if type(v) not in _LITERALS)

    def walk(self, node: cst.CSTNode) -> None:
        if type(node) is cst.ConcatenatedString:
            for part in string_parts(node):
                if type(part) is not cst.SimpleString:
                    self.walk(part)
            return
        if type(node) not in _BINDER_SPECIAL:  # fast path: exact type lookup, no ABC isinstance
            for child in child_nodes(node):
                self.walk(child)
            return
        if type(node) in (cst.FunctionDef, cst.ClassDef):
            self.bound.add(nfkc(node.name.value))
            # decorators, defaults, annotations and bases run here: a walrus in them binds here
            if type(node) is cst.FunctionDef:
                header = [d.decorator for d in node.decorators]
                for param in _all_params(node.params):
                    header += [x for x in (param.default, param.annotation) if x is not None]
                if node.returns is not None:
                    header.append(node.returns)
            else:
                header = [d.decorator for d in node.decorators] + [a.value for a in (*node.bases, *node.keywords)]
            if self.walrus:
                for part in header:
                    self.bound |= _walrus_targets(part)
            return
        if type(node) is cst.Lambda:
            return
        if type(node) in _COMPREHENSIONS:
            if self.walrus:
                self.bound |= _walrus_targets(node)  # a walrus in a comprehension binds in this scope
            return
        if type(node) is cst.AssignTarget:
            self.bound |= target_names(node.target)
        elif type(node) is cst.Assign:
            for target in node.targets:
                self.alias(target_names(target.target), node.value, unpack=type(target.target) is not cst.Name)
                if type(target.target) in (cst.Attribute, cst.Subscript):
                    self.hold(target.target, (node.value,))
        elif type(node) is cst.Call:
            if type(node.func) is cst.Attribute and node.args:
                self.hold(node.func.value, [a.value for a in node.args])
        elif type(node) in (cst.AnnAssign, cst.AugAssign):
            self.bound |= target_names(node.target)
            if type(node) is cst.AnnAssign:
                self.alias(target_names(node.target), node.value, unpack=False)
        elif type(node) in (cst.For, cst.CompFor):
            names = target_names(node.target)
            self.bound |= names
            self.alias(names, node.iter, unpack=True)
            if type(node) is cst.For:
                self.loops |= names
        elif type(node) is cst.WithItem and node.asname is not None:
            self.bound |= target_names(node.asname.name)
            self.alias(target_names(node.asname.name), node.item, unpack=False)
        elif type(node) in (cst.ExceptHandler, cst.ExceptStarHandler) and node.name is not None:
            self.bound |= target_names(node.name.name)
        elif type(node) is cst.NamedExpr:
            self.bound |= target_names(node.target)
            self.alias(target_names(node.target), node.value, unpack=False)
        elif type(node) is cst.Del:
            self.bound |= target_names(node.target)
        elif type(node) in (cst.Import, cst.ImportFrom):
            self.bound |= _import_binds(node)
            for local, target in import_bindings(node, self.resolve_from):
                self.imports.setdefault(local, []).append(target)
            if type(node) is cst.Import:
                self.modules += [c for a in node.names if (c := dotted_chain(a.name))]
            else:
                base = self.resolve_from(node) if node.relative and self.resolve_from is not None else (
                    None if node.relative else dotted_chain(node.module) if node.module is not None else None)
                if base:
                    self.modules.append(base)
                    if type(node.names) is cst.ImportStar:
                        self.stars.append(base)
                    else:
                        self.modules += [f"{base}.{nfkc(a.name.value)}" for a in node.names]  # type: ignore[union-attr]
            return
        elif type(node) is cst.Global:
            self.declared_global |= {nfkc(n.name.value) for n in node.names}
            return
        elif type(node) is cst.Nonlocal:
            self.nonlocal_ |= {nfkc(n.name.value) for n in node.names}
            return
        elif type(node) is cst.MatchAs and node.name is not None:
            self.bound.add(nfkc(node.name.value))
        elif type(node) is cst.MatchStar and node.name is not None:
            self.bound.add(nfkc(node.name.value))
        elif type(node) is cst.MatchMapping and node.rest is not None:
            self.bound.add(nfkc(node.rest.value))
        for child in child_nodes(node):
            self.walk(child)


def _walrus_targets(node: cst.CSTNode) -> set[str]:
    """Names ``:=`` binds in the scope that runs ``node`` (comprehensions included, which bind a
    walrus target in their enclosing scope; lambdas and definitions have scopes of their own)."""
    out: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.NamedExpr:
            out |= target_names(current.target)
        if type(current) in (cst.Lambda, cst.FunctionDef, cst.ClassDef):
            continue
        stack.extend(child_nodes(current))
    return out


#: methods whose result is (part of) the object they are called on: ``CFG.get("sub")``,
#: ``CFG.setdefault("sub", {})``, ``for c in CFG.values()``
_PART_METHODS = frozenset({"get", "setdefault", "pop", "popitem", "values", "items", "__getitem__", "__enter__",
                           "copy"})  # a shallow copy shares the parts
#: the mark of a name standing for what calling a root returns (``c = get()``: ``()get``): a
#: change through it changes the parts of what the root holds (``References.deep``), not the root
RESULT = "()"
#: builtins whose result is (part of) their first argument: ``getattr(m, "CFG")``, ``next(iter(CFGS))``
_PART_FUNCS = frozenset({"getattr", "next", "iter", "reversed", "vars"})
#: builtins whose result is one of their arguments or a shallow copy sharing their parts
#: (``list(HOLD)[0]`` is ``HOLD[0]``, ``min(A, B)`` is ``A`` or ``B``): breaker6's G1
_SHARING_FUNCS = frozenset({"list", "tuple", "set", "frozenset", "dict", "sorted", "min", "max"})


def _value_names(node: cst.BaseExpression, *, unpack: bool = False) -> set[str]:
    """The names whose object the value of ``node`` may be, or be part of (lead's L3): ``CFG``,
    ``CFG.sub``, ``CFG["sub"]``, ``m.CFG``, ``CFG.get("sub")``, ``getattr(m, "CFG")``, either
    side of ``a or b`` and ``a if t else b``, a walrus's value; with ``unpack`` (a tuple target,
    a loop's iterable), the elements of a display too (``c, d = CFG, 1``; ``for c in (CFG,)``).
    An item of a display is one of its elements (``(CFG,)[0]``), and a shallow copy
    (``list(HOLD)``, ``_SHARING_FUNCS``) shares the parts of what it copies (breaker6's G1).
    A store through a name bound to such a value stores into these. Not another call's result (its
    arguments are what the call may change, a rule of its own), an operator's, a comprehension's,
    nor a display bound whole (``HOOKS = [CFG]``: a store into ``HOOKS`` is no store into ``CFG``;
    what is taken out of it again is the documented limit of ``effects``)."""
    kind = type(node)
    if kind is cst.Name:
        return {nfkc(node.value)}  # type: ignore[attr-defined]
    if kind is cst.Attribute:
        return _value_names(node.value)  # type: ignore[attr-defined]
    if kind is cst.Subscript:
        # an item of a display is one of its elements (``(CFG,)[0]``, ``{"k": CFG}["k"]``: G1)
        return _value_names(node.value, unpack=True)  # type: ignore[attr-defined]
    if kind is cst.Call:
        func = node.func  # type: ignore[attr-defined]
        if isinstance(func, cst.Attribute) and func.attr.value in _PART_METHODS:
            return _value_names(func.value, unpack=unpack)
        if isinstance(func, cst.Name) and func.value in _PART_FUNCS and node.args:  # type: ignore[attr-defined]
            return _value_names(node.args[0].value, unpack=unpack)  # type: ignore[attr-defined]
        if isinstance(func, cst.Name) and func.value in _SHARING_FUNCS:
            # a shallow copy (``list(HOLD)``) shares the parts of what it copies (G1)
            out: set[str] = set()
            for arg in node.args:  # type: ignore[attr-defined]
                out |= _value_names(arg.value, unpack=True)
            return out
        root = _root_name(func)
        # what the call returns (``c = get()``): ``()get``, what ``get`` may return or its parts (L4)
        return {RESULT + root} if root is not None else set()
    if kind is cst.IfExp:
        return _value_names(node.body, unpack=unpack) | _value_names(node.orelse, unpack=unpack)  # type: ignore[attr-defined]
    if kind is cst.BooleanOperation:
        return _value_names(node.left, unpack=unpack) | _value_names(node.right, unpack=unpack)  # type: ignore[attr-defined]
    if kind is cst.NamedExpr:
        return _value_names(node.value, unpack=unpack)  # type: ignore[attr-defined]
    if unpack and kind in (cst.Tuple, cst.List, cst.Set):
        found: set[str] = set()
        for element in node.elements:  # type: ignore[attr-defined]
            found |= _value_names(element.value)
        return found
    if unpack and kind is cst.Dict:
        found = set()
        for element in node.elements:  # type: ignore[attr-defined]
            found |= _value_names(element.value)  # (a key is hashed, never stored through)
        return found
    return set()


#: values whose objects hold nothing ``_value_names`` does not name already (a chain is what it is)
_HOLDS_NOTHING_MORE = frozenset({cst.Name, cst.Attribute, cst.Subscript, cst.SimpleString, cst.Integer, cst.Float,
                                 cst.Imaginary, cst.ConcatenatedString, cst.FormattedString, cst.Comparison})
#: names of constants no holder can change
_CONSTANT_NAMES = frozenset({"None", "True", "False"})
#: values that name nothing
_LITERALS = frozenset({cst.SimpleString, cst.Integer, cst.Float, cst.Imaginary, cst.ConcatenatedString})


def _held_names(node: cst.BaseExpression | None) -> set[str]:
    """The names whose objects the value of ``node`` may be, be part of, or hold (F6, L4): what
    ``_value_names`` finds, and also the elements of a display at any depth (``[CFG]``, ``{"k":
    CFG}``), a call's callee and arguments (``get()`` may return what ``get`` returns,
    ``SimpleNamespace(c=CFG)`` holds ``CFG``), an operator's operands (``HOLD + []`` holds
    ``HOLD``'s elements), a comprehension's iterables and element, a lambda's body. Syntactic
    (resolved by the caller). Widening, on purpose: whether the call keeps its argument or the
    operator copies is not told (``dict(CFG)``, ``len(CFG)`` hold ``CFG`` too); a string, a
    number, a comparison and ``not`` hold nothing."""
    out: set[str] = set()
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        kind = type(n)
        if kind is cst.Name:
            if n.value not in _CONSTANT_NAMES:  # type: ignore[attr-defined]
                out.add(nfkc(n.value))  # type: ignore[attr-defined]
        elif kind is cst.Await:
            stack.append(n.expression)  # type: ignore[attr-defined]
        elif kind in (cst.Attribute, cst.Subscript, cst.StarredElement, cst.Element, cst.Arg,
                      cst.NamedExpr, cst.Yield):
            value = n.value  # type: ignore[attr-defined]
            if value is not None and not isinstance(value, cst.From):
                stack.append(value)
            elif isinstance(value, cst.From):
                stack.append(value.item)
        elif kind is cst.Call:
            func = n.func  # type: ignore[attr-defined]
            if type(func) is cst.Attribute and func.attr.value in _PART_METHODS:
                stack.append(func.value)  # ``CFG.get("sub")``: a part of ``CFG``
            elif (root := _root_name(func)) is not None:
                out.add(RESULT + root)  # ``get()``: what ``get`` hands out, not ``get``
            stack.extend(n.args)  # type: ignore[attr-defined]
        elif kind in (cst.Tuple, cst.List, cst.Set):
            stack.extend(n.elements)  # type: ignore[attr-defined]
        elif kind is cst.Dict:
            for el in n.elements:  # type: ignore[attr-defined]
                if type(el) is cst.DictElement:
                    stack += [el.key, el.value]
                else:
                    stack.append(el.value)  # ``**other``
        elif kind is cst.IfExp:
            stack += [n.body, n.orelse]  # type: ignore[attr-defined]
        elif kind is cst.BooleanOperation or kind is cst.BinaryOperation:
            stack += [n.left, n.right]  # type: ignore[attr-defined]
        elif kind is cst.UnaryOperation and type(n.operator) is not cst.Not:  # type: ignore[attr-defined]
            stack.append(n.expression)  # type: ignore[attr-defined]
        elif kind in _COMPREHENSIONS:
            comp = n.for_in  # type: ignore[attr-defined]
            while comp is not None:
                stack.append(comp.iter)
                comp = comp.inner_for_in
            if kind is cst.DictComp:
                stack += [n.key, n.value]  # type: ignore[attr-defined]
            else:
                stack.append(n.elt)  # type: ignore[attr-defined]
        elif kind is cst.Lambda:
            stack.append(n.body)  # type: ignore[attr-defined]
    return out


def bound_names(stmts: Iterable[cst.CSTNode]) -> set[str]:
    """Names a sequence of statements binds in its own scope (module-level units)."""
    binder = _Binder()
    for stmt in stmts:
        binder.walk(stmt)
    return binder.bound - binder.declared_global


def _store_base(target: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The objects a store target writes *into* (``CFG`` of ``CFG["a"] = 2``, ``decimal`` of
    ``decimal.getcontext().prec = 6``); a plain name is a binding, not a store into anything."""
    if type(target) in (cst.Tuple, cst.List):
        return [b for el in target.elements for b in _store_base(el.value)]
    if type(target) is cst.StarredElement:
        return _store_base(target.value)
    if type(target) not in (cst.Attribute, cst.Subscript):
        return []
    node: cst.BaseExpression = target
    while type(node) in (cst.Attribute, cst.Subscript, cst.Call):
        node = node.func if type(node) is cst.Call else node.value
    return [node]


def _through_call(node: cst.BaseExpression) -> bool:
    """Whether an attribute, subscript and call chain goes through a call (``get()["a"]``,
    ``H().c``): what it reaches is part of what the call returned."""
    while type(node) in (cst.Attribute, cst.Subscript, cst.Call):
        if type(node) is cst.Call:
            return True
        node = node.value  # type: ignore[attr-defined]
    return False


def _made_with_code(node: cst.ClassDef) -> bool:
    """Whether a class statement hands the class to code as it is made: a decorator, a base or
    keyword, a call in its body (``__set_name__`` of what it makes)."""
    if node.decorators or node.bases or node.keywords:
        return True
    for stmt in node.body.body:
        stack: list[cst.CSTNode] = [stmt]
        while stack:
            n = stack.pop()
            if type(n) is cst.Call or type(n) is cst.Decorator:
                return True
            if type(n) not in (cst.FunctionDef, cst.Lambda):
                stack.extend(n.children)
            else:
                stack.extend(getattr(n, "decorators", ()))
    return False


def _chain_arguments(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The arguments of the calls an attribute, subscript and call chain goes through
    (``HOLD`` of ``list(HOLD)[0]``, ``K`` of ``getattr(K, "c")["a"]``): what such a call returned
    may be one of them or share their parts (a copy, an identity function)."""
    out: list[cst.BaseExpression] = []
    while type(node) in (cst.Attribute, cst.Subscript, cst.Call):
        if type(node) is cst.Call:
            out += [a.value for a in node.args]  # type: ignore[attr-defined]
            node = node.func  # type: ignore[attr-defined]
        else:
            node = node.value  # type: ignore[attr-defined]
    return out


def _root_name(node: cst.BaseExpression) -> str | None:
    """The name at the bottom of an attribute, subscript and call chain (``K`` of ``K.c["a"]``,
    ``get`` of ``get()["a"]``), None when there is none (``"".join``)."""
    while type(node) in (cst.Attribute, cst.Subscript, cst.Call):
        node = node.func if type(node) is cst.Call else node.value  # type: ignore[attr-defined]
    return nfkc(node.value) if type(node) is cst.Name else None  # type: ignore[attr-defined]


def _through_sys_modules(target: cst.BaseExpression, is_modules: Callable[[cst.BaseExpression], bool], *,
                         itself: bool = False) -> bool:
    """Whether a store target writes into a module fetched from ``sys.modules`` (``sys.modules[
    __name__].V = 2``; with ``itself``, ``target`` is that module: ``setattr(sys.modules[k], ...)``).
    ``is_modules(node)``: whether ``node`` stands for ``sys.modules`` (through the imports: ``import
    sys as s``, ``from sys import modules``)."""
    node = target
    if not itself:
        if type(node) not in (cst.Attribute, cst.Subscript):
            return False
        node = node.value
    while type(node) in (cst.Attribute, cst.Subscript):
        if type(node) is cst.Subscript and is_modules(node.value):
            return True
        node = node.value
    return False


def _globals_call(target: cst.BaseExpression) -> cst.Call | None:
    """The ``globals()`` call a store target writes into, if any (``globals()["X"] = 1``)."""
    node = target
    while type(node) in (cst.Attribute, cst.Subscript):
        node = node.value
    return node if _is_call_to(node, "globals") else None  # type: ignore[return-value]


def _is_call_to(node: cst.BaseExpression, name: str) -> bool:
    return type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == name


class _UseWalker:
    def __init__(self, refs: References, resolve_from: FromResolver | None, name_only: NameOnly | None = None,
                 package: str | None = None, imports: ImportTargets | None = None,
                 modules_names: frozenset[str] = frozenset(), walrus: bool = True) -> None:
        self.refs = refs
        self.walrus = walrus  # False: no ``:=`` in the module (``_Binder.walrus``)
        self.resolve_from = resolve_from
        self.name_only = name_only
        self.package = package  # the module's ``__package__`` (None: unknown)
        self.imports = imports
        self.modules_names = modules_names  # module-level names that may stand for ``sys.modules``
        #: ids of nodes spelling ``sys.modules`` where no module leaves it unseen (subscripted,
        #: a key read, a method whose effect is recorded, a module-level alias ``qualified`` follows)
        self.modules_safe: set[int] = set()
        #: ids of expressions whose value is gone into (an attribute, a subscript) or dropped (an
        #: expression statement, a comparison): a module fetched there is not kept (``module_escapes``)
        self.unkept: set[int] = set()
        self.fetches: dict[int, str] = {}  # id of a module fetch -> its ``module_value``
        self.by_name: set[int] = set()  # ids of argument nodes referenced by name only
        self.deferred = 0  # > 0 inside a function or lambda body: code that runs later
        self.collectors: list[set[str]] = []  # every global root used is added to each
        #: one per call whose arguments are being walked: whether its callee is a read-only
        #: builtin (``_READ_ONLY_BUILTINS``), for the locals standing for globals handed to it
        self.read_only_args: list[bool | None] = []
        self.self_safe: set[int] = set()  # ids of Name nodes where ``self`` does not escape
        self.globals_read: set[int] = set()  # ids of ``globals()`` calls only read from
        #: loop variables that hold an annotated name of the instance's class inside their loop's
        #: body (``for key in type(self).__annotations__``): name -> the instance's name
        self.annotation_keys: dict[str, str] = {}
        self.globals_written: set[int] = set()
        self.stored: set[int] = set()  # ids of store targets that write a module through a view
        self.annotation = 0  # > 0 inside an annotation Python stores: strings are forward references
        self.frames_read: set[int] = set()  # ids of ``<frame>.f_globals`` nodes only read from (L1)
        self.frames_written: set[int] = set()  # ids of those stored through
        #: sets collecting the global roots a value being walked names, for ``References.holds``
        self.holding: list[set[str]] = []
        self.held_names: dict[int, set[str]] = {}  # id of a value node -> ``_held_names`` of it
        #: memo of ``held_for``: (name, id of the scope) -> (the scope, kept alive so its id is not
        #: reused, and the answer)
        self.held_memo: dict[tuple[str, int], tuple[_Scope, set[str]]] = {}
        self.stands_memo: dict[tuple[str, int], tuple[_Scope, set[str]]] = {}  # the same, of ``stands_for``
        #: > 0 while walking what makes a new value holding none of the objects it names: an
        #: f-string, a comparison, a subscript's index
        self.unheld = 0
        #: the module-level def or class whose code is being walked (its returns and ``self``
        #: stores are what it holds); None at module level
        self.owner: str | None = None

    # -- scopes ---------------------------------------------------------------------------------
    def function_scope(self, params: cst.Parameters, body: Iterable[cst.CSTNode], parent: _Scope, *, method: bool) -> None:
        body = list(body)
        binder = _Binder(self.resolve_from, walrus=self.walrus)
        for stmt in body:
            binder.walk(stmt)
        names = _param_names(params)
        local = (binder.bound | set(names) | binder.nonlocal_) - binder.declared_global
        self_name = names[0] if method and names and _first_is_positional(params) else None
        imports = {k: v for k, v in binder.imports.items() if k in local}
        scope = _Scope(parent, local, binder.declared_global, self_name=self_name, imports=imports,
                       loops=binder.loops & local, aliases={k: v for k, v in binder.aliases.items() if k in local},
                       holds={k: v for k, v in binder.holds.items() if k in local})
        self.refs.global_writes |= binder.bound & binder.declared_global
        self.refs.globals.update("!" + m for m in binder.modules)  # a lazy import runs that module
        for name in binder.declared_global:
            # ``global c; c = CFG``: the module's ``c`` stands for ``CFG`` (F7)
            for value in binder.aliases.get(name, ()):
                self.refs.rebinds.setdefault(name, set()).update(self.stands_for(value, scope))
        for name in binder.declared_global:
            for target in binder.imports.get(name, ()):  # ``global np`` then ``import numpy as np``
                self.refs.globals.add("=" + target)
        self.deferred += 1
        try:
            for stmt in body:
                self.walk(stmt, scope)
        finally:
            self.deferred -= 1

    def walk(self, node: cst.CSTNode, scope: _Scope) -> None:
        kind = type(node)
        if kind not in _USE_SPECIAL:
            if kind is cst.With and self.suppressing(node, scope):  # type: ignore[arg-type]
                self.guarded_imports(node, scope)  # type: ignore[arg-type]
            for child in child_nodes(node):
                self.walk(child, scope)
            return
        if kind is cst.ConcatenatedString:
            value = literal_string_value(node)  # type: ignore[arg-type]
            if isinstance(value, str):
                self.string(value)
                if self.annotation:
                    self.forward_reference(value, scope)
            for part in string_parts(node):
                if type(part) is not cst.SimpleString:
                    self.walk(part, scope)
            return
        if kind is cst.Try or kind is cst.TryStar:
            self.guarded_imports(node, scope)  # type: ignore[arg-type]
            for child in child_nodes(node):
                self.walk(child, scope)
            return
        if kind is cst.Expr and type(node.value) in (cst.SimpleString, cst.ConcatenatedString) \
                and literal_string_value(node.value) is not None:  # type: ignore[attr-defined]
            return  # a string statement (a docstring) runs nothing: what it spells is no reference
        if kind is cst.Expr:
            self.unkept.add(id(node.value))  # type: ignore[attr-defined]  # its value is dropped
        elif kind is cst.Comparison:
            self.comparison(node, scope)  # type: ignore[arg-type]
            return
        if kind is cst.SimpleString:
            value = literal_string_value(node)  # type: ignore[arg-type]
            if isinstance(value, str):
                self.string(value)
                if self.annotation:
                    self.forward_reference(value, scope)
            return
        if kind is cst.Name:
            self.use(nfkc(node.value), nfkc(node.value), scope, node)  # type: ignore[attr-defined]
            return
        if kind is cst.Attribute:
            self.attribute(node, scope)  # type: ignore[arg-type]
            return
        if kind is cst.Call:
            self.call(node, scope)  # type: ignore[arg-type]
            return
        if kind is cst.Subscript:
            self.subscript(node, scope)  # type: ignore[arg-type]
            return
        if kind is cst.For:
            self.for_loop(node, scope)  # type: ignore[arg-type]
            return
        if kind in (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Del):
            self.store(node, scope)
            return
        if kind is cst.FunctionDef:
            self.function_header(node, scope)  # type: ignore[arg-type]
            body = node.body.body  # type: ignore[attr-defined]
            owner = self.owner
            if scope.parent is None:
                self.owner = nfkc(node.name.value)  # type: ignore[attr-defined]
            try:
                self.function_scope(node.params, body, scope, method=scope.is_class and not _is_staticmethod(node))  # type: ignore[attr-defined,arg-type]
            finally:
                self.owner = owner
            return
        if kind is cst.Lambda:
            self.params_header(node.params, scope)  # type: ignore[attr-defined]
            self.function_scope(node.params, [node.body], scope, method=False)  # type: ignore[attr-defined]
            return
        if kind is cst.ClassDef:
            self.decorators(node.decorators, scope)  # type: ignore[attr-defined]
            # a class statement calls its bases' ``__init_subclass__`` (the keywords are its
            # arguments) and its metaclass, and adds a subclass to each base (``__subclasses__``):
            # each base and keyword is a call it makes (breaker2's C7)
            for arg in (*node.bases, *node.keywords):  # type: ignore[attr-defined]
                self.in_call(arg.value, scope, callee=arg.value, plain=False)
            binder = _Binder(self.resolve_from, walrus=self.walrus)
            for stmt in node.body.body:  # type: ignore[attr-defined]
                binder.walk(stmt)
            local = binder.bound - binder.declared_global
            self.refs.global_writes |= binder.bound & binder.declared_global  # ``class K: global G; G = 1`` (E12)
            self.refs.globals.update("!" + m for m in binder.modules)
            # an import in a class body binds a class ATTRIBUTE (``class K: from shop.cfg import V``
            # is ``K.V``; a function imported there is a method): what it binds is reached with the
            # class, used inside the body or not (breaker4's E4)
            # (and one under ``global f`` binds the module's ``f``: reached with the class too, E12)
            self.refs.globals.update("=" + t for targets in binder.imports.values() for t in targets)
            inner = _Scope(scope, local, binder.declared_global, is_class=True,
                           imports={k: v for k, v in binder.imports.items() if k in local},
                           aliases={k: v for k, v in binder.aliases.items() if k in local},
                           holds={k: v for k, v in binder.holds.items() if k in local})
            owner = self.owner
            if scope.parent is None:
                self.owner = nfkc(node.name.value)  # type: ignore[attr-defined]
            # a class made inside a function or a class body with code Python hands it to as it is
            # made (a decorator, a base or metaclass, a call in its body: ``class_creation``) escapes
            # into code this walk does not follow: what its body holds counts as changed in part
            # (G2; a module-level class is judged by ``effects._Holders.escaping``, which can tell
            # first-party code and inert bases apart)
            found: set[str] = set()
            escapes = scope.parent is not None and _made_with_code(node)  # type: ignore[arg-type]
            if escapes:
                self.holding.append(found)
            try:
                for stmt in node.body.body:  # type: ignore[attr-defined]
                    self.walk(stmt, inner)
            finally:
                self.owner = owner
                if escapes:
                    self.holding.pop()
            if found:
                (self.refs.deep if self.deferred == 0 else self.refs.deep_later).update(found)
            return
        if kind in _COMPREHENSIONS:
            self.comprehension(node, scope)  # type: ignore[arg-type]
            return
        if kind is cst.Arg:
            self.walk(node.value, scope)  # type: ignore[attr-defined]
            return
        if kind is cst.FormattedString:
            self.unheld += 1  # a new string: it holds nothing it names
            try:
                for child in child_nodes(node):
                    self.walk(child, scope)
            finally:
                self.unheld -= 1
            return
        if kind is cst.Return or kind is cst.Yield:
            if node.value is not None:  # type: ignore[attr-defined]
                # what a def returns or yields is what calling it may hand out (L4: ``get()["a"] = 5``)
                self.walk_held(node.value, scope, (self.owner,) if self.owner is not None else ())  # type: ignore[attr-defined]
            return
        if kind in (cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal):
            return
        if kind is cst.MatchKeywordElement:
            self.walk(node.pattern, scope)  # type: ignore[attr-defined]
            return
        if scope.parent is None and kind is cst.NamedExpr:
            self.refs.aliases |= _value_names(node.value)  # type: ignore[attr-defined]
        elif scope.parent is None and kind is cst.WithItem and node.asname is not None:  # type: ignore[attr-defined]
            self.refs.aliases |= _value_names(node.item)  # type: ignore[attr-defined]
        for child in child_nodes(node):
            self.walk(child, scope)

    def function_header(self, node: cst.FunctionDef, scope: _Scope) -> None:
        self.decorators(node.decorators, scope)
        self.params_header(node.params, scope)
        if node.returns is not None:
            self.annotation_of(node.returns.annotation, scope)

    def decorators(self, decorators: Iterable[cst.Decorator], scope: _Scope) -> None:
        # a decorator is a call made when the definition runs (with the definition as argument)
        for dec in decorators:
            self.in_call(dec.decorator, scope, callee=dec.decorator, plain=False)

    def params_header(self, params: cst.Parameters, scope: _Scope) -> None:
        for param in _all_params(params):
            if param.default is not None:
                # a default is handed to the body, which may change it (``def setup(d=CFG):
                # d["a"] = 5``): passed on, as an argument is
                self.collectors.append(self.refs.mutates)
                try:
                    self.walk(param.default, scope)
                finally:
                    self.collectors.pop()
            if param.annotation is not None:
                self.annotation_of(param.annotation.annotation, scope)

    def comparison(self, node: cst.Comparison, scope: _Scope) -> None:
        """A comparison keeps none of its operands (``sys.modules.get("x") is None``), and ``k in
        sys.modules`` reads only its keys."""
        self.unkept.add(id(node.left))
        for target in node.comparisons:
            self.unkept.add(id(target.comparator))
            if type(target.operator) in (cst.In, cst.NotIn):
                self.modules_safe.add(id(target.comparator))
        self.unheld += 1
        try:
            for child in child_nodes(node):
                self.walk(child, scope)
        finally:
            self.unheld -= 1

    def comprehension(self, node: cst.BaseComp, scope: _Scope) -> None:
        first = node.for_in
        self.modules_safe.add(id(first.iter))  # iterating a dict yields its keys
        self.walk(first.iter, scope)  # the outermost iterable runs in the enclosing scope
        local: set[str] = set()
        aliases: dict[str, set[str]] = {}
        comp: cst.CompFor | None = first
        while comp is not None:
            names = target_names(comp.target)
            local |= names
            found = _value_names(comp.iter, unpack=True)
            for name in names if found else ():
                aliases.setdefault(name, set()).update(found)
            comp = comp.inner_for_in
        inner = _Scope(scope, local, set(), loops=local, aliases=aliases)
        comp = first
        while comp is not None:
            if comp is not first:
                self.walk(comp.iter, inner)
            for cond in comp.ifs:
                self.walk(cond.test, inner)
            self.walk(comp.target, inner)
            comp = comp.inner_for_in
        if type(node) is cst.DictComp:
            self.walk(node.key, inner)
            self.walk(node.value, inner)
        else:
            self.walk(node.elt, inner)  # type: ignore[attr-defined]

    # -- expressions with a rule of their own -----------------------------------------------------
    def attribute(self, node: cst.Attribute, scope: _Scope) -> None:
        chain = dotted_chain(node)
        if chain is not None:
            if "f_" in chain:
                self.frame_in_chain(node, scope)
            self.use(chain.split(".", 1)[0], chain, scope, node)
            return
        if node.attr.value in _FRAME_NAMESPACES:
            self.frame_namespace(node, node.value, scope)
        if self.through_view(node, scope):
            return
        base = node
        while type(base) is cst.Attribute:
            base = base.value  # type: ignore[assignment]
        if _is_call_to(base, "type") and len(base.args) == 1 and type(base.args[0].value) is cst.Name:  # type: ignore[attr-defined]
            # ``type(self).LIMIT``: the class of the instance the method runs on
            arg = nfkc(base.args[0].value.value)  # type: ignore[attr-defined]
            if self.self_of(arg, scope):
                inner = node
                while type(inner.value) is cst.Attribute:
                    inner = inner.value
                attr = nfkc(inner.attr.value)
                if attr == "__dict__":  # ``type(self).__dict__`` used whole: the class namespace escapes
                    self.refs.dynamic.add("class")
                else:
                    self.refs.members.add(attr)
                return
        self.unkept.add(id(node.value))
        self.walk(node.value, scope)

    def subscript(self, node: cst.Subscript, scope: _Scope) -> None:
        if self.annotation and self.annotation_subscript(node, scope):
            return
        if self.through_view(node, scope):
            return
        value = node.value
        self.unkept.add(id(value))
        if type(value) is cst.Attribute and value.attr.value in _FRAME_NAMESPACES:
            self.frames_read.add(id(value))  # ``sys._getframe().f_globals["X"]``: read (a store is ``frames_written``)
        if id(node) in self.fetches:
            self.module_escapes(node, self.fetches[id(node)], scope)  # ``m = sys.modules[k]``
        if _is_call_to(value, "globals") and not self.is_local("globals", scope):
            self.globals_read.add(id(value))
        elif len(node.slice) == 1 and "sys.modules" in self.qualified(value, scope):
            index = node.slice[0].slice
            key, exact = _pattern(index.value) if type(index) is cst.Index else ("", False)
            if exact and _DOTTED.fullmatch(key):
                self.refs.globals.add("=" + nfkc(key))  # that module, used as a value: all of it
            elif type(index) is cst.Index and type(index.value) is cst.Name and index.value.value == "__name__" \
                    and self.is_global("__name__", scope):
                self.refs.dynamic.add("module")  # ``sys.modules[__name__]``: its own module
            elif not exact:
                # a computed name: any first-party module it may name (``?@`` a constant's value)
                chain = dotted_chain(index.value) if type(index) is cst.Index and not key else None
                if chain is not None and self.is_global(chain.split(".")[0], scope):
                    self.refs.globals.add("?@" + nfkc(chain))
                else:
                    self.refs.globals.add("?" + key)
        for child in child_nodes(node):
            if child is value:
                self.walk(child, scope)
                continue
            self.unheld += 1  # an index is read, not held (``HOLD[KEY]``)
            try:
                self.walk(child, scope)
            finally:
                self.unheld -= 1

    def for_loop(self, node: cst.For, scope: _Scope) -> None:
        """A loop over the instance's field annotations (``for key, kind in type(self).__annotations__
        .items()``, a base-driven model's ``__init__``): inside its body, ``key`` is an annotated name
        of the instance's class, so ``getattr(self, key)``/``setattr(self, key, v)`` reach those fields
        (the member ``__annotations__``: ``analysis`` makes the annotated names members), not any
        member. Not when the body binds ``key`` again."""
        self.modules_safe.add(id(node.iter))  # iterating a dict yields its keys
        if scope.parent is None:
            self.refs.aliases |= _value_names(node.iter, unpack=True)
        key = _annotation_key(node, lambda name: self.self_of(name, scope))
        if key is not None:
            binder = _Binder(self.resolve_from, walrus=self.walrus)
            binder.walk(node.body)
            if key[0] in binder.bound:
                key = None
        for child in child_nodes(node):
            if child is node.body and key is not None:
                saved = self.annotation_keys.get(key[0])
                self.annotation_keys[key[0]] = key[1]
                try:
                    self.walk(child, scope)
                finally:
                    if saved is None:
                        del self.annotation_keys[key[0]]
                    else:
                        self.annotation_keys[key[0]] = saved
            else:
                self.walk(child, scope)

    def call(self, node: cst.Call, scope: _Scope) -> None:
        func, args = node.func, node.args
        if type(func) is cst.Name and func.value == "setattr" and len(args) >= 3 and not self.is_local("setattr", scope):
            root = _root_name(args[0].value)
            keys = self.object_keys(root, scope) if root is not None else set()
            if keys:  # ``setattr(K, "c", CFG)``: ``K`` holds ``CFG`` (F6)
                self.walk_held(args[2].value, scope, keys)
        self.plain_call(node, scope)

    def plain_call(self, node: cst.Call, scope: _Scope) -> None:
        if self.through_view(node, scope):
            return
        if id(node) in self.fetches:
            self.module_escapes(node, self.fetches[id(node)], scope)  # ``m = importlib.import_module(k)``
        func = node.func
        name = nfkc(func.value) if type(func) is cst.Name else None
        builtin = name is not None and not self.is_local(name, scope)
        args = node.args
        if type(func) is cst.Attribute:
            self.modules_method(func, args, scope)
        elif builtin and name in _KEY_FUNCS and len(args) == 1:
            self.modules_safe.add(id(args[0].value))  # ``len(sys.modules)``, ``sorted(sys.modules)``: its keys
        if builtin and name in _ATTR_FUNCS and len(args) >= 2 and args[0].keyword is None and args[1].keyword is None:
            text, exact = _pattern(args[1].value)
            literal = text if exact else None  # ``getattr(shop, "pri" + "cing")`` is ``shop.pricing``
            obj = args[0].value
            if literal in _FRAME_NAMESPACES and dotted_chain(obj) is None:
                self.frame_namespace(node, obj, scope)  # ``getattr(sys._getframe(1), "f_globals")``
            spelled: list[tuple[str, cst.CSTNode]] = []
            seen = self.view(obj, scope, spelled) if dotted_chain(obj) is None else None
            self.unkept.add(id(obj))  # the module it is given is gone into, not kept
            fetched = self.fetches.get(id(obj))
            if fetched is not None and not _certain(fetched) and fetched != "." and name in ("setattr", "delattr"):
                self.store_module(fetched, scope)  # ``setattr(sys.modules[k], "RATE", 5)``: any module it may be
            if seen is not None and seen[2] and not seen[1]:
                self.use_view_names(spelled, scope)
                # ``setattr(sys.modules["shop.svc"], "go", f)``, ``getattr(vars(m)["C"], "x")``:
                # the attribute of what the view names (a computed name: all of it)
                chain = seen[0] + ("." + literal if isinstance(literal, str) and literal.isidentifier() else "")
                if name in ("setattr", "delattr"):
                    self.store_chain(chain, scope)
                self.view_use(chain, scope, obj)
                self.in_call(func, scope, callee=func, rest=[a.value for a in args[1:]])
                return
            if isinstance(literal, str) and literal.isidentifier() and dotted_chain(obj) is not None:
                # ``getattr(x, "name")`` is ``x.name``
                chain = f"{dotted_chain(obj)}.{literal}"
                self.in_call(func, scope, callee=func, rest=[a.value for a in args[2:]], chain=(chain, obj))
                if name in ("setattr", "delattr"):
                    self.store_into(obj, scope)
                    if _through_sys_modules(obj, self.is_sys_modules(scope), itself=True):
                        self.refs.dynamic |= {"module", "module-write"}
                return
            instance = _instance_of(obj, lambda n: self.self_of(n, scope))
            key = args[1].value
            if instance is not None and type(key) is cst.Name and self.annotation_keys.get(nfkc(key.value)) == instance \
                    and self.is_local(nfkc(key.value), scope):
                # an annotated name of the instance's class (``for_loop``): those fields, not any member
                self.refs.members.add("__annotations__")
                if type(obj) is cst.Name:
                    self.self_safe.add(id(obj))
                self.in_call(func, scope, callee=func, rest=[a.value for a in args])
                return
            if instance is not None and type(obj) is not cst.Name:
                # ``getattr(type(self), name)``: the class of the instance, by a computed name
                self.refs.dynamic.add("class-write" if name in ("setattr", "delattr") else "class")
            if name in ("setattr", "delattr"):
                self.store_into(obj, scope)
                if _through_sys_modules(obj, self.is_sys_modules(scope), itself=True):
                    self.refs.dynamic |= {"module", "module-write"}
                if type(obj) is cst.Name and self.self_of(nfkc(obj.value), scope):
                    # a write to the instance by a computed name runs the class's ``__setattr__``/
                    # ``__delattr__`` and data descriptors, never a plain method: "class-write"
                    # (``closure``: the whole class for the class's own code, as "class"; for a
                    # base's code, what of a subclass a write can run)
                    self.self_safe.add(id(obj))
                    self.refs.dynamic.add("class-write")
        if builtin and name in _SELF_SAFE:
            for arg in args:
                if type(arg.value) is cst.Name:
                    self.self_safe.add(id(arg.value))
        if builtin and name == "globals":
            if id(node) not in self.globals_read or id(node) in self.globals_written:
                self.refs.dynamic.add("module-write")
            self.refs.dynamic.add("module")
        elif builtin and name == "vars" and len(args) == 1 and _instance_of(args[0].value, lambda n: self.self_of(n, scope)):
            # ``vars(type(self))`` / ``vars(self)`` as a value (not subscripted by a literal name,
            # which the views read as that attribute): the class namespace escapes
            self.refs.dynamic.add("class")
        elif builtin and name in ("vars", "locals") and not args:
            if scope.parent is None:  # the module's namespace itself
                self.refs.dynamic |= {"module", "module-write"}
            elif scope.is_class:  # the class body's namespace: the class being built
                self.refs.dynamic.add("class")
        elif builtin and name in ("eval", "exec") and not self.own_namespace(_argument(args, 1, "globals"), scope):
            self.refs.dynamic |= {"module", "module-write"}
        if builtin and name in _CODE_RUNNERS:
            code = _argument(args, 0, _CODE_RUNNERS[name])
            if code is not None or any(a.star for a in args):
                self.code_argument(code, scope)
        resolver = self.resolver(func, scope)
        if resolver is not None:
            self.module_argument(resolver, args, scope)
        if type(func) is cst.Attribute and _is_call_to(func.value, "globals") and func.attr.value in _DICT_READS:
            self.globals_read.add(id(func.value))
        if self.name_only is not None:
            self.mark_name_only(func, args, scope)
        # a read-only builtin (``print(x)``, ``len(x)``; not ``print(..., file=buf)``, which writes)
        read_only = builtin and name in _READ_ONLY_BUILTINS and not any(
            a.keyword is not None and a.keyword.value == "file" for a in args)
        self.in_call(func, scope, callee=func, rest=[a.value for a in args], read_only=read_only)

    # -- names of modules and code, given as strings (dynamic reach) ----------------------------
    def string(self, value: str) -> None:
        """A string literal in the code: if it spells a dotted name (``"shop.pricing"``,
        ``"shop.pricing:discount"``) something may import or resolve it (``importlib``,
        ``pkgutil.resolve_name``, ``pydoc.locate``, ``sys.modules[...]``, a plugin loader of any
        spelling): ``"<name>`` (``closure`` follows it when it names first-party code). If it is
        code that imports (``exec("from shop.pricing import discount")``), what it imports."""
        if len(value) < 256 and ("." in value or ":" in value) and _DOTTED.fullmatch(value):
            self.refs.globals.add('"' + nfkc(value))
        elif "import" in value and len(value) <= _CODE_LIMIT:
            found = _code_imports(value, self.package)
            self.refs.globals.update(found)
            if self.deferred == 0:
                self.refs.code_loads.update(t[1:] for t in found if t[:1] == '"')

    def resolver(self, func: cst.BaseExpression, scope: _Scope) -> tuple[str, str | None, str] | None:
        """(keyword of the name argument, of the package argument, qualified name) when ``func``
        is a callable that imports a module named by a string (``_RESOLVERS``), however spelled:
        ``importlib.import_module``, ``from importlib import import_module as im``, a lazy
        ``import pydoc`` then ``pydoc.locate``."""
        for target in self.qualified(func, scope):
            spec = _RESOLVERS.get(target)
            if spec is not None:
                return (*spec, target)
            if target.rsplit(".", 1)[-1] == "import_module":
                return "name", "package", target
        return None

    def is_sys_modules(self, scope: _Scope) -> Callable[[cst.BaseExpression], bool]:
        """A test whether a node stands for ``sys.modules`` at this scope (``qualified``)."""
        return lambda node: "sys.modules" in self.qualified(node, scope)

    def qualified(self, func: cst.BaseExpression, scope: _Scope) -> list[str]:
        """What a callee chain may stand for: through the imports binding its root (in an
        enclosing function, or at module level; a module-level plain alias too, ``mods =
        sys.modules``: the ``imports`` callback), else as written (a builtin, a plain global)."""
        chain = dotted_chain(func)
        if chain is None:
            return []
        return self.qualified_chain(chain, scope)

    def qualified_chain(self, chain: str, scope: _Scope) -> list[str]:
        root, _, rest = chain.partition(".")
        tail = "." + rest if rest else ""
        binder = self.resolve(root, scope)
        if binder is not None:
            return [t + tail for t in binder.imports.get(root, ())]
        targets = self.imports(root) if self.imports is not None else None
        return [chain, *(t + tail for t in targets or ())]

    def module_argument(self, resolver: tuple[str, str | None, str], args: Sequence[cst.Arg], scope: _Scope) -> None:
        """The module a resolver call imports: ``=<name>`` when its name is certain (a literal, a
        folded concatenation, relative to a literal package or ``__package__``); ``?@<chain>``
        when it is a constant (``closure`` resolves its bindings); ``?<prefix>`` when computed:
        every first-party module whose name starts with what is known of it (nothing known:
        every first-party module)."""
        kind, name = self.module_name(resolver, args, scope)
        if kind == "=":
            if name and _DOTTED.fullmatch(name):
                name = name.replace(":", ".")
                self.refs.globals.add("=" + nfkc(name))
                if resolver[2].endswith("__import__") and "." in name and not _has_fromlist(args):
                    self.refs.globals.add("=" + nfkc(name.split(".")[0]))  # it returns the top package
        elif kind == ".":
            self.refs.dynamic.add("module")  # its own module
        elif kind:
            self.refs.globals.add(kind + name)

    def module_name(self, resolver: tuple[str, str | None, str], args: Sequence[cst.Arg],
                    scope: _Scope) -> tuple[str, str]:
        """What a resolver call is given as the name to import: ``("=", text)`` certain (relative
        names resolved; the caller checks it is a dotted name), ``("?@", chain)`` a global
        constant, ``("?", prefix)`` computed, ``(".", "")`` ``__name__`` (its own module),
        ``("", "")`` no name argument at all."""
        keyword, package_keyword, target = resolver
        arg = _argument(args, 0, keyword)
        if arg is None:
            return ("?", "") if any(a.star for a in args) else ("", "")  # ``import_module(*spec)``: unseen
        text, exact = _pattern(arg)
        package: str | None = self.package
        if package_keyword is not None:
            given = _argument(args, 1, package_keyword)
            if given is not None:
                package = self.value_of_package(given, scope)
        if target.endswith("__import__") and (level := _argument(args, 4, "level")) is not None:
            # ``__import__(name, globals(), locals(), fromlist, level)``: relative by ``level``
            count = int(level.value) if isinstance(level, cst.Integer) and level.value.isdigit() else None
            if count is None:
                return "?", package.split(".")[0] if package else ""
            text = "." * count + text
        if text.startswith("."):
            base = _relative_base(text, package, exact)
            if base is None:
                return "?", ""  # relative to a package we cannot name
            text = base
        if exact:
            return "=", text
        chain = dotted_chain(arg) if not text else None
        if chain is not None and self.is_global(chain.split(".")[0], scope) and chain.split(".")[0] not in ("__name__", "__package__"):
            return "?@", nfkc(chain)
        if chain == "__name__" and self.is_global("__name__", scope):
            return ".", ""
        return "?", text

    # -- module objects fetched by name (breaker3's D5) ---------------------------------------------
    def module_value(self, node: cst.BaseExpression, scope: _Scope, names: list[tuple[str, cst.CSTNode]],
                     qualified: list[str] | None = None) -> str | None:
        """What an expression that fetches a module by its name evaluates to: ``=<dotted>`` the
        module (for ``pkgutil.resolve_name``/``pydoc.locate``, the object) a literal names;
        ``<chain>.__globals__`` the module that defines what ``chain`` names
        (``sys.modules[f.__module__]``); ``.`` the module itself (``sys.modules[__name__]``);
        ``?@<chain>`` named by a global constant; ``?<prefix>`` computed (known to start with
        ``prefix``). None: no such expression. The fetches: ``sys.modules[k]``,
        ``sys.modules.get/setdefault/pop(k, ...)`` (``sys.modules`` through any import or
        module-level alias of it, ``qualified``), and the resolvers that return what they name
        (``importlib.import_module``, ``__import__`` and ``importlib.__import__``: the named module
        with a non-empty ``fromlist``, the top package without one; ``pkgutil.resolve_name``,
        ``pydoc.locate``). ``qualified``: ``self.qualified(node.func)`` when the caller has it."""
        kind = type(node)
        if kind is cst.Subscript:
            index = node.slice[0].slice if len(node.slice) == 1 else None  # type: ignore[attr-defined]
            value = node.value  # type: ignore[attr-defined]
            if type(index) is not cst.Index or (spelled := dotted_chain(value)) is None \
                    or "sys.modules" not in self.qualified(value, scope):
                return None
            self.modules_safe.add(id(value))
            names.append((spelled, value))
            found = self.fetches[id(node)] = self.entry_name(index.value, scope, names)
            return found
        if kind is not cst.Call:
            return None
        func, args = node.func, node.args  # type: ignore[attr-defined]
        if type(func) is cst.Attribute and func.attr.value in _ENTRY_GETTERS \
                and (spelled := dotted_chain(func.value)) is not None and "sys.modules" in self.qualified(func.value, scope):
            self.modules_safe.add(id(func.value))
            names.append((spelled, func.value))
            key = _argument(args, 0, None)
            found = self.fetches[id(node)] = self.entry_name(key, scope, names) if key is not None else "?"
            return found
        for target in qualified if qualified is not None else self.qualified(func, scope):
            if target in _RETURNS_NAMED or target.rsplit(".", 1)[-1] == "import_module":
                names.append((dotted_chain(func) or "", func))
                spec = _RESOLVERS.get(target, ("name", "package"))
                self.module_argument((*spec, target), args, scope)  # what it imports (a view skips ``call``)
                found = self.fetches[id(node)] = self.returned_module(target, args, scope)
                return found
        return None

    def entry_name(self, key: cst.BaseExpression, scope: _Scope, names: list[tuple[str, cst.CSTNode]]) -> str:
        """What a ``sys.modules`` key names (``module_value``'s values)."""
        text, exact = _pattern(key)
        if exact:
            return "=" + nfkc(text) if _DOTTED.fullmatch(text) and ":" not in text else "?"
        if isinstance(key, cst.Name) and key.value == "__name__" and self.is_global("__name__", scope):
            return "."
        if isinstance(key, cst.Attribute) and nfkc(key.attr.value) == "__module__":
            # ``sys.modules[f.__module__]``: the module that defines ``f`` (``closure`` resolves
            # ``.__globals__`` as for ``f.__globals__``; a parameter or a local: any module)
            inner = self.view(key.value, scope, names)
            return inner[0] + ".__globals__" if inner is not None and not inner[1] else "?"
        chain = dotted_chain(key) if not text else None
        if chain is not None and self.is_global(chain.split(".")[0], scope) and chain.split(".")[0] not in ("__name__", "__package__"):
            return "?@" + nfkc(chain)
        return "?" + text

    def returned_module(self, target: str, args: Sequence[cst.Arg], scope: _Scope) -> str:
        """What a call of the resolver ``target`` evaluates to (``module_value``'s values)."""
        kind, name = self.module_name((*_RESOLVERS.get(target, ("name", "package")), target), args, scope)
        if kind == "":
            return "?"
        if kind == "=":
            name = name.replace(":", ".")
            if not (name and _DOTTED.fullmatch(name)):
                return "?"
            name = nfkc(name)
        if target.endswith("__import__"):
            fromlist = _argument(args, 3, "fromlist")
            top = name.split(".")[0]
            if fromlist is None or isinstance(fromlist, (cst.List, cst.Tuple)) and not fromlist.elements \
                    or isinstance(fromlist, cst.Name) and fromlist.value == "None":
                return ("=" + top) if kind == "=" else "?" + top  # the top package
            if not isinstance(fromlist, (cst.List, cst.Tuple)):
                return "?" + top  # the module or its top package: either
        return kind + name

    def module_escapes(self, node: cst.BaseExpression, value: str, scope: _Scope) -> None:
        """A module fetched by name and not gone into (kept in a name, handed on, returned,
        compared): it may be stored through later, out of sight (``m = sys.modules["shop.h"]``
        then ``m.RATE = 5``): a store into it (widening; ``m.RATE`` read right away is not)."""
        if id(node) in self.unkept or id(node) in self.stored:
            return
        self.store_module(value, scope)

    def modules_value(self, chain: str, scope: _Scope) -> None:
        """``sys.modules`` used as a value (kept in a local or a container, handed on, returned)
        or a method of it that hands out its modules (``values``, ``items``, ``copy``): any of
        them may be stored through out of sight (``for m in sys.modules.values(): m.RATE = 5``):
        a store into every first-party module (widening, ``>?``). Not its subscripts, ``get``,
        its key reads, ``in``, iteration (keys), nor a module-level alias (``store``)."""
        for target in self.qualified_chain(chain, scope):
            if target == "sys.modules" or target.startswith("sys.modules.") and target[12:] in _MODULES_TAILS:
                self.view_store("?")
                return

    def modules_method(self, func: cst.Attribute, args: Sequence[cst.Arg], scope: _Scope) -> None:
        """A method of ``sys.modules`` called: one that changes an entry replaces (or removes)
        the module its key names (``sys.modules.setdefault("shop.h", m)``, ``.pop("shop.h")``:
        a store into it, as ``sys.modules["shop.h"] = m``); ``update`` the entries of a dict
        display's literal keys and keywords, any other argument (and ``clear``/``popitem``)
        every first-party module; a key read hands out no module. ``values``/``items``/``copy``
        hand out modules: ``use``'s rule for ``sys.modules`` used as a value."""
        method = func.attr.value
        if method not in _ENTRY_WRITERS and method not in _ENTRIES_WRITERS and method not in _KEY_READS:
            return
        if dotted_chain(func.value) is None or "sys.modules" not in self.qualified(func.value, scope):
            return
        self.modules_safe.add(id(func.value))
        if method in _ENTRY_WRITERS:
            key = _argument(args, 0, None)
            self.store_module(self.entry_name(key, scope, []) if key is not None else "?", scope)
        elif method == "update":
            for arg in args:
                if arg.keyword is not None:
                    self.store_module("=" + nfkc(arg.keyword.value), scope)
                elif not arg.star and isinstance(arg.value, cst.Dict) \
                        and all(isinstance(el, cst.DictElement) for el in arg.value.elements):
                    for el in arg.value.elements:
                        self.store_module(self.entry_name(el.key, scope, []), scope)  # type: ignore[union-attr]
                else:
                    self.store_module("?", scope)
        elif method in _ENTRIES_WRITERS:
            self.store_module("?", scope)

    def store_module(self, value: str, scope: _Scope) -> None:
        """Record a store into the module a ``module_value`` names: ``><target>`` (``>shop.h``),
        ``>.`` the module itself, ``>?…`` every first-party module it may be; a module known
        through a global (``helper.__globals__``) is stored through that global."""
        if value[0] == "=":
            self.view_store(value[1:])
        elif value[0] in ".?":
            self.view_store(value)
        else:
            self.store_chain(value, scope)

    def value_of_package(self, node: cst.BaseExpression, scope: _Scope) -> str | None:
        text, exact = _pattern(node)
        if exact:
            return text
        if isinstance(node, cst.Name) and node.value == "__package__" and self.is_global("__package__", scope):
            return self.package
        return None

    def own_namespace(self, given: cst.BaseExpression | None, scope: _Scope) -> bool:
        """Whether ``exec``/``eval`` is given a namespace of its own (a dict display, ``dict()``,
        a local variable): the code then reads and binds names there, not in the module.
        ``globals()`` in it is caught by the ``globals()`` rule itself (used as a value: any
        name of the module may be bound)."""
        if isinstance(given, cst.Dict):
            return True
        if isinstance(given, cst.Call) and isinstance(given.func, cst.Name) and given.func.value == "dict" \
                and self.is_global("dict", scope):
            return True
        return isinstance(given, cst.Name) and scope.is_function and self.is_local(nfkc(given.value), scope)

    def code_argument(self, arg: cst.BaseExpression | None, scope: _Scope) -> None:
        """``exec``/``eval``/``compile`` of a string: a literal (or a folded concatenation) is
        read for the imports it runs (``string``); a constant is ``?%<chain>`` (``closure``
        checks that every binding of it is a string literal, whose own imports are then in the
        closure); anything else may import any module: ``?`` (every first-party module). A
        code object (``exec(compile(...))``) counts as computed."""
        if arg is None:
            self.refs.globals.add("?")
            return
        text, exact = _pattern(arg)
        if exact:
            self.string(text)
            return
        chain = dotted_chain(arg)
        if chain is not None and self.is_global(chain.split(".")[0], scope):
            self.refs.globals.add("?%" + nfkc(chain))
        else:
            self.refs.globals.add("?")

    def mark_name_only(self, func: cst.BaseExpression, args: Iterable[cst.Arg], scope: _Scope) -> None:
        chain = dotted_chain(func)
        if chain is None or not self.is_global(chain.split(".", 1)[0], scope):
            return
        spec = self.name_only(chain)  # type: ignore[misc]
        if spec is None:
            return
        position, keyword = spec
        args = list(args)
        chosen = [a for a in args if a.keyword is not None and keyword is not None and nfkc(a.keyword.value) == keyword]
        positional = [a for a in args if a.keyword is None and not a.star]
        if not chosen and 0 <= position < len(positional) and not any(a.star for a in args[:args.index(positional[position])]):
            chosen = [positional[position]]
        for arg in chosen:
            if dotted_chain(arg.value) is not None:
                self.by_name.add(id(arg.value))

    def in_call(self, func: cst.BaseExpression, scope: _Scope, *, callee: cst.BaseExpression,
                rest: Iterable[cst.BaseExpression] = (), chain: tuple[str, cst.BaseExpression] | None = None,
                plain: bool = True, read_only: bool = False) -> None:
        """Walk a call: at import time every global root in it is a ``call_mentions`` (the call may
        change its callee and arguments); in deferred code the callee is a ``calls`` (a method
        call also a ``method_calls``) and the arguments are ``mutates``."""
        target = func.func if type(func) is cst.Call else func
        callee_chain = dotted_chain(target)
        now = self.deferred == 0
        if type(target) is cst.Attribute:
            # a method of a namespace view called (``__builtins__.update(len=f)``,
            # ``vars(svc).update(go=f)``): it may change any name of what the view names; in a
            # def's body too (``def boot(): builtins.__dict__.update(len=f)``: breakS's S1)
            seen = self.view(target.value, scope)
            if seen is not None and seen[1] and seen[2]:
                self.store_chain(seen[0], scope)
        if now:
            self.collectors.append(self.refs.call_mentions)
        # the callee (None): calling a method on it may change it; the arguments: ``read_only``
        self.read_only_args.append(None)
        keys: Callable[[], set[str]] | tuple[()] = ()
        if type(target) is cst.Attribute:
            obj = target.value
            root = _root_name(obj)
            if root is not None:
                if type(obj) is not cst.Name:
                    # ``HOLD[0].update(a=5)``, ``K.c.clear()``, ``get().update()``, ``list(HOLD)[0].clear()``
                    self.part_of_chain_changed(obj, scope)
                if rest:  # ``HOLD.append(CFG)``: it may keep them
                    keys = lambda: self.object_keys(root, scope)  # noqa: E731
        try:
            if callee_chain is not None:
                root = callee_chain.split(".", 1)[0]
                if self.is_global(root, scope):
                    if now:
                        self.refs.calls_now.add(root)
                        if "." not in callee_chain:
                            self.refs.name_calls_now.add(root)
                        else:
                            self.refs.methods_now.add(root)
                    else:
                        self.refs.calls.add(root)
                        if "." in callee_chain:
                            self.refs.method_calls.add(root)
                else:
                    if not now and "." not in callee_chain and self.loop_bound(root, scope):
                        self.refs.opaque_calls.add(root)  # ``for f in HOOKS: f()``: taken out of a container
                    # a local standing for a global (``c = CFG; c.update(a=5)``, ``f = setup; f()``):
                    # the call is one of what it stands for (L3)
                    held = self.stands_for(root, scope)
                    if held and "." in callee_chain:
                        # a method of a local: the local may be a part of what it stands for
                        (self.refs.deep if now else self.refs.deep_later).update(held)
                    held = {r for r in held if not r.startswith(RESULT)}
                    if held and now:
                        self.refs.calls_now |= held
                    elif held:
                        self.refs.calls |= held
                        if "." in callee_chain:
                            self.refs.method_calls |= held
            elif not now and _subscript_callee(target):
                self.refs.opaque_calls.add("[]")  # ``HOOKS[k]()``, ``REG[k].run()``
            if now:
                # a decorator or a base (``@d(a)``, ``class A(make())``) is the call of ``target``:
                # what it returns is applied to the definition, a known callee's result
                opaque = _opaque_callee(func if plain else target, lambda root: self.is_global(root, scope))
                if opaque is not None:
                    self.refs.opaque_now.add(opaque)
            self.walk(func, scope)
            if not now:
                self.collectors.append(self.refs.mutates)
            self.read_only_args[-1] = read_only
            try:
                if chain is not None:
                    text, obj = chain
                    self.use(text.split(".", 1)[0], text, scope, obj)
                for arg in rest:
                    self.walk_held(arg, scope, keys)
            finally:
                if not now:
                    self.collectors.pop()
        finally:
            self.read_only_args.pop()
            if now:
                self.collectors.pop()

    def store(self, node: cst.CSTNode, scope: _Scope) -> None:
        if type(node) is cst.Assign:
            targets = [t.target for t in node.targets]
        elif type(node) is cst.Del:
            targets = [node.target]
        else:
            targets = [node.target]  # type: ignore[attr-defined]
        if scope.parent is None and isinstance(node, (cst.Assign, cst.AnnAssign)) and node.value is not None:
            unpack = any(not isinstance(t, cst.Name) for t in targets)
            self.refs.aliases |= _value_names(node.value, unpack=unpack)
        if isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name):
            # ``c += [1]`` changes the object ``c`` holds in place (a list's ``__iadd__``): a store
            # through ``c`` (and what a local ``c`` may stand for, L3), besides the rebinding
            self.store_root(nfkc(node.target.value), scope)
        for target in targets:
            if self.store_through_view(target, scope):
                continue
            written = _globals_call(target)
            if written is not None:
                self.globals_written.add(id(written))  # ``globals()["X"] = 1`` binds a name
            base = target
            while isinstance(base, (cst.Attribute, cst.Subscript)):
                if type(base.value) is cst.Attribute and base.value.attr.value in _FRAME_NAMESPACES:
                    self.frames_written.add(id(base.value))  # ``sys._getframe(1).f_globals["X"] = 1``
                base = base.value
            if _through_sys_modules(target, self.is_sys_modules(scope)):
                # ``sys.modules[__name__].V = 2``: a binding of any name of the module
                self.refs.dynamic |= {"module", "module-write"}
            self.store_into_target(target, scope)
            self.store_into_part(target, scope, in_place=type(node) is cst.AugAssign)
        value = getattr(node, "value", None)
        keys: Callable[[], set[str]] | tuple[()] = ()
        if value is not None:
            keys = lambda: set().union(*(self.holding_keys(t, scope) for t in targets))  # noqa: E731
        if type(node) is cst.AnnAssign and scope.is_function:
            # a local annotation never runs: not a reference (DESIGN §6)
            self.walk(node.target, scope)
            if node.value is not None:
                self.walk_held(node.value, scope, keys)
            return
        if type(node) is cst.AnnAssign:
            # a class or module annotation is stored (``__annotations__``): its names are references
            self.walk(node.target, scope)
            self.annotation_of(node.annotation.annotation, scope)
            if node.value is not None:
                self.walk_held(node.value, scope, keys)
            return
        if type(node) is cst.Assign and _is_call_to(node.value, "globals"):
            self.globals_written.add(id(node.value))  # ``g = globals()``: it escapes
        if type(node) is cst.Assign and scope.parent is None and len(targets) == 1 and type(targets[0]) is cst.Name \
                and nfkc(targets[0].value) in self.modules_names:
            # ``mods = sys.modules`` at module level: an alias ``qualified`` follows (the uses of
            # ``mods`` are judged as those of ``sys.modules``), so this is no escape of it
            self.modules_safe.add(id(node.value))
        for child in child_nodes(node):
            if keys and child is value:
                self.walk_held(child, scope, keys)  # type: ignore[arg-type]
            else:
                self.walk(child, scope)

    def walk_held(self, value: cst.CSTNode, scope: _Scope, keys: Iterable[str] | Callable[[], set[str]]) -> None:
        """Walk ``value``, a value the objects ``keys`` name come to hold (bound to them, stored
        into them, given to their methods, returned by them): every global root it names is held
        by each of them (``References.holds``, F6/L4). ``keys`` may be a function, called only
        when the value names a global (most arguments name locals only)."""
        if not keys:
            self.walk(value, scope)
            return
        found: set[str] = set()
        self.holding.append(found)
        try:
            self.walk(value, scope)
        finally:
            self.holding.pop()
        if not found:
            return
        for key in keys() if callable(keys) else keys:
            if found - {key}:
                self.refs.holds.setdefault(key, set()).update(found - {key})

    def holding_keys(self, target: cst.BaseExpression, scope: _Scope) -> set[str]:
        """The global holders a store into ``target`` puts its value into: a global name bound
        (``HOLD = [CFG]``, ``global c; c = [CFG]``), a class attribute (``class K: c = CFG``: the
        class), an attribute or item of an object (``K.c = CFG``, ``self.c = CFG``: the class,
        ``h["k"] = CFG``: what the local ``h`` stands for or holds). A local name bound is the
        binder's (``_Scope.holds``)."""
        kind = type(target)
        if kind in (cst.Tuple, cst.List):
            return set().union(*(self.holding_keys(el.value, scope) for el in target.elements))  # type: ignore[attr-defined]
        if kind is cst.StarredElement:
            return self.holding_keys(target.value, scope)  # type: ignore[attr-defined]
        if kind is cst.Name:
            name = nfkc(target.value)  # type: ignore[attr-defined]
            where = self.resolve(name, scope)
            if where is None:
                return {name}
            return {self.owner} if where.is_class and self.owner is not None else set()
        root = _root_name(target)
        if root is None:
            # an item of a display (``[util][0].H = CFG``): each object it holds (S8, as ``store_into``)
            base = _store_base(target)
            if base and type(base[0]) in (cst.Tuple, cst.List, cst.Set, cst.Dict):
                return set().union(*(self.object_keys(r, scope) for r in _value_names(base[0], unpack=True)))
            return set()
        return self.object_keys(root, scope)

    def object_keys(self, root: str, scope: _Scope) -> set[str]:
        """The global holders the object the name ``root`` holds may be: itself when global, the
        class whose method runs for ``self``, what a local stands for or holds."""
        where = self.resolve(root, scope)
        if where is None:
            return {root}
        if where.self_name == root:
            return {self.owner} if self.owner is not None else set()
        # (not what a call returned: ``a = H(); a.c = CFG`` gives that instance, not the class ``H``,
        # the object; the local's own holdings, ``_Scope.holds``, follow it)
        return {r for r in self.stands_for(root, scope) | self.held_for(root, scope) if not r.startswith(RESULT)}

    def store_into_part(self, target: cst.BaseExpression, scope: _Scope, *, in_place: bool) -> None:
        """A store whose target is a part of an object (``HOLD[0]["a"] = 5``, ``K.c["a"] = 5``,
        ``get()["a"] = 5``, ``self.c["a"] = 5``) or changes one in place (``HOLD[0] += [1]``)
        changes a part of the object at its root (``part_changed``); ``HOLD[0] = 5`` does not."""
        kind = type(target)
        if kind in (cst.Tuple, cst.List):
            for el in target.elements:  # type: ignore[attr-defined]
                self.store_into_part(el.value, scope, in_place=in_place)
        elif kind is cst.StarredElement:
            self.store_into_part(target.value, scope, in_place=in_place)  # type: ignore[attr-defined]
        elif kind in (cst.Attribute, cst.Subscript):
            written = target.value  # type: ignore[attr-defined]
            if in_place or type(written) is not cst.Name:
                self.part_of_chain_changed(written, scope)

    def part_of_chain_changed(self, written: cst.BaseExpression, scope: _Scope) -> None:
        """A part of the object ``written`` (an attribute, subscript and call chain) is changed:
        the object at its root (``part_changed``) and, through a call, what the call's
        arguments name (``list(HOLD)[0]["a"] = 5``, ``getattr(K, "c")["a"] = 5``: what it
        returned may be one of them or share their parts; G1)."""
        root = _root_name(written)
        if root is not None:
            self.part_changed(root, scope, result=_through_call(written))
        for arg in _chain_arguments(written):
            for name in _value_names(arg, unpack=True):
                if name.startswith(RESULT):
                    self.part_changed(name[len(RESULT):], scope, result=True)
                else:
                    self.part_changed(name, scope)

    def part_changed(self, root: str, scope: _Scope, *, result: bool = False) -> None:
        """The code changes a part of the object the name ``root`` holds, or hands it on
        (``References.deep``): a global root; the class for ``self`` in its methods; for a local,
        every global it stands for or holds. Only ``deep``: ``effects`` counts a first-party
        root there as changed (``HOLD[0].update(a=5)``, ``h = [CFG]; h[0]["a"] = 5``) and what it
        holds; a third-party one only by the rules that already name it (``Worker(...).run()``,
        ``os.path.join(...)`` change no package state)."""
        deep = self.refs.deep if self.deferred == 0 else self.refs.deep_later
        where = self.resolve(root, scope)
        if where is None:
            deep.add(root)
            if result:  # through what a call returned (``get()["a"] = 5``): what ``get`` hands out too
                deep.add(RESULT + root)
            return
        if where.self_name == root:
            if self.owner is not None:
                deep.add(self.owner)
            return
        deep.update(r.removeprefix(RESULT) for r in self.stands_for(root, scope))
        deep |= self.held_for(root, scope)

    def held_for(self, root: str, scope: _Scope) -> set[str]:
        """The global roots whose objects the local ``root`` may hold as parts (``_Scope.holds``:
        ``h = [CFG]``, ``h.append(c)`` with ``c = CFG``), through other locals.

        Memoised per name and scope: it reads only the scopes' ``holds`` and ``aliases`` and what
        binds each name, all fixed once a scope is made (its binder pass is over before its body
        is walked), and a local used in many calls and stores asked it each time (the walk over
        its holdings, through other locals, was ~15 % of a flow module's analysis). Callers must
        not change the set returned."""
        memo = (root, id(scope))
        known = self.held_memo.get(memo)
        if known is not None and known[0] is scope:
            return known[1]
        found = self._held_for(root, scope)
        self.held_memo[memo] = (scope, found)
        return found

    def _held_for(self, root: str, scope: _Scope) -> set[str]:
        out: set[str] = set()
        seen: set[tuple[int, str]] = set()
        todo = [(root, scope)]
        while todo:
            name, where = todo.pop()
            binder = self.resolve(name, where)
            if binder is None or (id(binder), name) in seen:
                continue
            seen.add((id(binder), name))
            for node in binder.holds.get(name, ()):
                names = self.held_names.get(id(node))
                if names is None:
                    names = self.held_names[id(node)] = _held_names(node)
                for value in names:
                    out.update(self.stands_for(value, binder) if not value.startswith(RESULT) else (value,))
                    todo.append((value, binder))
            todo += [(value, binder) for value in binder.aliases.get(name, ())]
        return out

    # -- annotations ------------------------------------------------------------------------------
    def annotation_of(self, node: cst.BaseExpression, scope: _Scope) -> None:
        """Walk an annotation Python stores (a parameter's, a return's, a class or module
        variable's): a string in it is a forward reference (``def f(x: "Money")``,
        ``List["Money"]``) that ``typing.get_type_hints``, dataclasses, pydantic and Temporal's
        argument decoding evaluate in the module's namespace, so the names of the expression it
        spells are references like the names written outside quotes (A1). Strings that are values
        are not: the arguments of ``Literal[...]``, the metadata of ``Annotated[T, ...]``."""
        self.annotation += 1
        try:
            self.walk(node, scope)
        finally:
            self.annotation -= 1

    def forward_reference(self, text: str, scope: _Scope) -> None:
        """The names a string annotation spells; a string that is no expression references
        nothing (its text is hashed as the literal it is)."""
        expr = _forward_reference(text)
        if expr is not None:
            self.walk(expr, scope)

    def annotation_subscript(self, node: cst.Subscript, scope: _Scope) -> bool:
        """``Literal[...]`` and ``Annotated[T, ...]`` inside an annotation: their strings (but the
        first of ``Annotated``) are values, not forward references. False: any other subscript."""
        chain = dotted_chain(node.value)
        last = chain.rsplit(".", 1)[-1] if chain else None
        if last not in ("Literal", "Annotated"):
            return False
        self.walk(node.value, scope)
        depth = self.annotation
        try:
            for i, element in enumerate(node.slice):
                self.annotation = depth if last == "Annotated" and i == 0 else 0
                self.walk(element, scope)
        finally:
            self.annotation = depth
        return True

    # -- frames (lead's L1) -------------------------------------------------------------------------
    def frame_in_chain(self, node: cst.Attribute, scope: _Scope) -> None:
        """A dotted chain going through a frame's namespace (``frame.f_globals``, ``f.f_back.f_locals
        .get``): the frame is held in a name, whose depth is not followed (``frame_namespace``)."""
        current: cst.BaseExpression = node
        outer: cst.Attribute | None = None
        while isinstance(current, cst.Attribute):
            if current.attr.value in _FRAME_NAMESPACES:
                if outer is not None and outer.attr.value in _DICT_READS:
                    self.frames_read.add(id(current))  # ``frame.f_globals.get("X")``
                self.frame_namespace(current, current.value, scope)
                return
            outer = current
            current = current.value

    def frame_namespace(self, node: cst.CSTNode, frame: cst.BaseExpression, scope: _Scope) -> None:
        """A frame's namespace (``f_globals``/``f_locals`` of ``frame``) is a namespace view like
        ``globals()`` (lead's L1). The frame of the running code (``sys._getframe()``,
        ``sys._getframe(0)``, ``inspect.currentframe()``, spelled through any import) is its own
        module: read, ``dynamic`` "module" (the whole module, as ``globals()[k]``), stored through or
        handed on, "module-write" too; its ``f_locals`` in a function is the function's own locals
        (nothing global). Any other frame (``f_back``, ``sys._getframe(1)``, ``inspect.stack()[i]
        .frame``, a traceback's ``tb_frame``, a frame kept in a name) is a caller's, in a module
        that cannot be told statically: any module that may call the code, so every first-party
        module (``?``, all of each, like a module named by a computed string), and a store through
        it (or the namespace kept or handed on) changes any of them (``>?``). Widening, chosen:
        the callers are not enumerated (that needs the reverse of every closure; the cost is paid
        only by the flows that reach such code: none on the measured repositories' flows)."""
        attr = node.attr.value if isinstance(node, cst.Attribute) else "f_globals"
        read = id(node) in self.frames_read and id(node) not in self.frames_written
        if self.own_frame(frame, scope):
            if attr == "f_locals" and scope.parent is not None:
                return  # the function's (or class body's) own locals
            self.refs.dynamic.add("module")
            if not read:
                self.refs.dynamic.add("module-write")
            return
        self.refs.globals.add("?")
        if not read:
            self.view_store("?")

    def own_frame(self, frame: cst.BaseExpression, scope: _Scope) -> bool:
        """Whether ``frame`` is a call evaluating to the frame of the code that runs it."""
        if not isinstance(frame, cst.Call) or len(frame.args) > 1:
            return False
        if frame.args:
            value = frame.args[0].value
            if frame.args[0].keyword is not None or not (isinstance(value, cst.Integer) and value.evaluated_value == 0):
                return False
        return bool(_OWN_FRAME & set(self.qualified(frame.func, scope)))

    def suppressing(self, node: cst.With, scope: _Scope) -> bool:
        """Whether a ``with`` statement swallows what its body raises as a handler does:
        ``with contextlib.suppress(ImportError): from shop.fast import impl`` (breakT's T3). Only
        the standard library's suppressing manager is read so: a third-party manager around imports
        (Temporal's ``workflow.unsafe.imports_passed_through()``) does not suppress, and reaching
        each module whole under it would widen every workflow of a Temporal project (a first-party
        manager whose ``__exit__`` returns true is not read either: open, T3)."""
        return any(type(item.item) is cst.Call and "contextlib.suppress" in self.qualified(item.item.func, scope)
                   for item in node.items)

    def guarded_imports(self, node: cst.Try | cst.TryStar | cst.With, scope: _Scope) -> None:
        """An import in a ``try`` body with a handler (``try: from shop.fast import impl`` /
        ``except ImportError: def impl(): ...``), or in the body of ``with contextlib.suppress(...)``
        (``suppressing``): which binding holds, or what runs after it, depends on whether *running*
        the imported module raises, i.e. on any statement of it (breakS's S4: ``if X: raise
        ImportError``, ``import no_such_module`` in ``shop.fast``). Each module it loads is reached
        whole (``=<module>``, as ``importlib.import_module`` is)."""
        if type(node) is not cst.With and not node.handlers:  # type: ignore[union-attr]
            return
        binder = _Binder(self.resolve_from, walrus=self.walrus)
        for stmt in node.body.body:
            binder.walk(stmt)
        self.refs.globals.update("=" + m for m in binder.modules)

    # -- namespace views (breaker2's C13, C17) ------------------------------------------------------
    def view(self, node: cst.BaseExpression, scope: _Scope,
             names: list[tuple[str, cst.CSTNode]] | None = None) -> tuple[str, bool, bool] | None:
        """What an expression that may go through a *namespace view* names: ``(chain, namespace,
        through)``. ``chain`` is a global chain (``svc.Svc``) or an absolute target
        (``=shop.svc.go``); ``namespace``: the value is a namespace dict, whose *subscripts* are
        names (``vars(m)``, ``m.__dict__``, ``f.__globals__``, ``__builtins__``); ``through``: a
        view was gone through, so the chain is not spelled as written. None: not a view.

        The views: ``vars(x)`` and ``x.__dict__`` (the namespace of ``x``), ``sys.modules["a.b"]``
        and ``importlib.import_module("a.b")`` (the module ``a.b``), ``__builtins__`` (the
        builtins namespace; the module itself in ``__main__``, so its attributes count too),
        ``f.__globals__`` and ``inspect.getmodule(f)`` (the namespace of the module that defines
        ``f``: the chain keeps ``.__globals__``, which ``closure`` resolves), ``getattr(x, "n")``
        of any of them. A namespace subscripted by a literal identifier is that attribute
        (``vars(svc)["Svc"]`` is ``svc.Svc``)."""
        kind = type(node)
        if names is None:
            names = []
        if kind is cst.Name:
            name = nfkc(node.value)  # type: ignore[attr-defined]
            if name == "__builtins__" and self.is_global(name, scope):
                return "=builtins", True, True
            return name, False, False
        if kind is cst.Attribute:
            inner = self.view(node.value, scope, names)  # type: ignore[attr-defined]
            if inner is None:
                return None
            return _view_attribute(inner, nfkc(node.attr.value))  # type: ignore[attr-defined]
        if kind is cst.Subscript:
            index = node.slice[0].slice if len(node.slice) == 1 else None  # type: ignore[attr-defined]
            if type(index) is not cst.Index:
                return None
            fetched = self.module_value(node, scope, names)  # type: ignore[arg-type]
            if fetched is not None:
                return (fetched, False, True) if _certain(fetched) else None
            key, exact = _pattern(index.value)
            value = node.value  # type: ignore[attr-defined]
            inner = self.view(value, scope, names)
            if inner is None or not inner[1] or not exact or not key.isidentifier():
                return None
            return f"{inner[0]}.{nfkc(key)}", False, True
        if kind is cst.Call:
            func, args = node.func, node.args  # type: ignore[attr-defined]
            qualified = self.qualified(func, scope)
            fetched = self.module_value(node, scope, names, qualified)  # type: ignore[arg-type]
            if fetched is not None:
                return (fetched, False, True) if _certain(fetched) else None
            if any(a.star or a.keyword is not None for a in args) or not args:
                return None
            if type(func) is cst.Name and not self.is_local(nfkc(func.value), scope):
                if func.value == "type" and len(args) == 1 and type(args[0].value) is cst.Name \
                        and self.self_of(nfkc(args[0].value.value), scope):
                    # ``type(self)`` is ``self.__class__``: ``vars(type(self))["V"]`` and
                    # ``type(self).__dict__["V"]`` are ``self.__class__.V`` (they were no view at all)
                    return f"{nfkc(args[0].value.value)}.__class__", False, False
                if func.value == "vars" and len(args) == 1:
                    inner = self.view(args[0].value, scope, names)
                    names.append(("vars", func))
                    return (inner[0], True, True) if inner is not None and not inner[1] else None
                if func.value == "getattr" and len(args) == 2:
                    text, exact = _pattern(args[1].value)
                    inner = self.view(args[0].value, scope, names)
                    names.append(("getattr", func))
                    if inner is None or not exact or not text.isidentifier():
                        return None
                    return _view_attribute(inner, nfkc(text))
            if "inspect.getmodule" in qualified and len(args) == 1:
                inner = self.view(args[0].value, scope, names)
                names.append((dotted_chain(func) or "", func))
                if inner is None or inner[1]:
                    return None
                return inner[0] + ".__globals__", False, True  # a module object: its attributes are names
        return None

    def through_view(self, node: cst.BaseExpression, scope: _Scope) -> bool:
        """Use what ``node`` names when it goes through a namespace view (``view``); False when it
        does not (the caller walks it as usual)."""
        names: list[tuple[str, cst.CSTNode]] = []
        seen = self.view(node, scope, names)
        if seen is None or not seen[2]:
            return False
        if seen[1] and not seen[0].startswith("="):
            return False  # a namespace used as a value (``ns = vars(h)``): walked as the call it is
        if seen[1] and self.deferred == 0:
            self.refs.globals.add(">" + seen[0][1:])  # ``ns = sys.modules["shop.h"].__dict__``: it may be written
        self.use_view_names(names, scope)
        if id(node) not in self.stored:
            self.view_use(seen[0], scope, node)
        if id(node) in self.fetches:
            self.module_escapes(node, self.fetches[id(node)], scope)
        return True

    def use_view_names(self, names: list[tuple[str, cst.CSTNode]], scope: _Scope) -> None:
        """The callables and names a view is spelled with (``vars``, ``inspect.getmodule``,
        ``sys.modules``) are uses like any other: a module-level ``vars`` or a patched builtin
        is part of what the code means."""
        for chain, node in names:
            if chain:
                self.use(chain.split(".", 1)[0], chain, scope, node)

    def view_use(self, chain: str, scope: _Scope, node: cst.CSTNode) -> None:
        if chain.startswith("="):
            self.refs.globals.add(chain)  # ``closure`` resolves the target (a module: all of it)
            if self.collectors and self.deferred == 0:
                self.refs.globals.add(">" + chain[1:])  # given to a call made at import time: it may change it
            return
        root = chain.split(".", 1)[0]
        self.use(root, chain, scope, node)

    def store_through_view(self, target: cst.BaseExpression, scope: _Scope) -> bool:
        """A store whose target goes through a namespace view: ``vars(svc)["Svc"].go = f`` stores
        through ``svc`` (the chain ``svc.Svc.go``), ``sys.modules["shop.svc"].go = f`` and
        ``sys.modules["shop.svc"] = m`` into the module ``shop.svc`` (``>shop.svc.go``,
        ``>shop.svc``), ``__builtins__["len"] = f`` into ``builtins.len``. A computed name in a
        view (``vars(svc)[k] = f``) stores into all of what the view names;
        ``sys.modules[__name__] = obj`` replaces the module itself (``>.``), ``sys.modules[k] =
        m`` any module (``>?<prefix>``). False: no view (the caller's rules apply)."""
        names: list[tuple[str, cst.CSTNode]] = []
        seen = direct = self.view(target, scope, names)
        if seen is not None and seen[2] and seen[0].startswith("="):
            self.stored.add(id(target))  # the module attribute or entry it replaces is written, not read
        if seen is None or not seen[2]:
            seen = None
            container = target.value if type(target) in (cst.Attribute, cst.Subscript) else None
            names.clear()
            if container is not None:
                inner = self.view(container, scope, names)
                if inner is not None and inner[2]:
                    seen = inner
            entry = self.fetches.get(id(target))
            if seen is None and entry is not None:
                # ``sys.modules[k] = m``: the entry a computed key names, replaced (``.``: its own
                # module; ``sys.modules[f.__module__] = m``: the module defining ``f``)
                self.store_module(entry, scope)
                self.store_into_target(target, scope)
                return True
            node = target
            while seen is None and type(node) in (cst.Attribute, cst.Subscript):
                node = node.value
                fetched = self.fetches.get(id(node))
                if fetched is not None and fetched != ".":
                    # ``sys.modules[k].RATE = 5``, ``importlib.import_module(k).RATE = 5``: a store
                    # into any module the computed name may name (``sys.modules[__name__].V``:
                    # the module's own rule, ``store``)
                    self.store_module(fetched, scope)
                    self.store_into_target(target, scope)
                    return True
        if seen is None:
            return False
        self.store_chain(seen[0], scope)
        if seen is not direct and not seen[0].startswith("=") and "." in seen[0] and ".__globals__" not in seen[0]:
            # a store into an entry of a namespace (``K.__dict__["c"]["a"] = 5``, ``vars(K)["c"].x =
            # 5``): into a part of the object at its root (G1), not a binding of that entry
            self.part_changed(seen[0].split(".", 1)[0], scope)
        self.use_view_names(names, scope)
        return True

    def view_store(self, target: str) -> None:
        """Record a store into another module's objects (``>`` + ``target``): at import time a
        reference (``closure``: the statement is abroad); in a function body what calling it
        changes (``References.deferred_stores``: ``effects.call_refs`` hands it to
        ``closure.call_effects``, so a call at import time from anywhere changes it, breaker3's
        D5), never a change by the ``def`` itself."""
        (self.refs.globals if self.deferred == 0 else self.refs.deferred_stores).add(">" + target)

    def store_chain(self, chain: str, scope: _Scope) -> None:
        """Record a store into what a view chain names."""
        if chain.startswith("="):
            self.view_store(chain[1:])
            return
        if ".__globals__" in chain:
            # ``helper.__globals__["RATE"] = 5``, ``sys.modules[helper.__module__].RATE = 5``: into
            # the module defining ``helper``, not into ``helper`` (``>%``: ``closure`` resolves
            # the chain where the statement is)
            self.view_store("%" + chain)
            return
        self.store_root(chain.split(".", 1)[0], scope)

    def store_into_target(self, target: cst.BaseExpression, scope: _Scope) -> None:
        for base in _store_base(target):
            self.store_into(base, scope)

    def store_into(self, obj: cst.BaseExpression, scope: _Scope) -> None:
        """Record a write into the object ``obj`` names (its root, when that is global)."""
        while isinstance(obj, (cst.Attribute, cst.Subscript, cst.Call)):
            obj = obj.func if isinstance(obj, cst.Call) else obj.value
        if isinstance(obj, cst.Name):
            self.store_root(nfkc(obj.value), scope)
        elif type(obj) in (cst.Tuple, cst.List, cst.Set, cst.Dict):
            # a store through an item of a display (``[util][0].H = CFG``, ``{"u": util}["u"].H =
            # CFG``) stores into each object it holds (breakS's S8; widening: every element)
            for root in _value_names(obj, unpack=True):
                self.store_root(root, scope)

    def store_root(self, root: str, scope: _Scope) -> None:
        """Record a write into the object the name ``root`` holds: a global root, or every global
        a local name may stand for (``c = CFG; c["a"] = 5`` writes into ``CFG``: L3)."""
        held = self.stands_for(root, scope)
        if self.resolve(root, scope) is not None:
            # a local may be a part of what it stands for, or what a call returned (``c = get()``:
            # ``()get``, kept marked: the result itself changes, ``effects._Holders.hits``): the
            # parts of those change (``References.deep``)
            (self.refs.deep if self.deferred == 0 else self.refs.deep_later).update(held)
            held = {r for r in held if not r.startswith(RESULT)}
        (self.refs.stores if self.deferred == 0 else self.refs.mutates).update(held)
        if self.deferred:
            self.refs.stores_later.update(held)

    def stands_for(self, root: str, scope: _Scope) -> set[str]:
        """The global roots whose object the name ``root`` may hold in ``scope``: itself when it is
        global; for a local, what its bindings' values may be (``_Scope.aliases``: ``c = CFG``,
        ``c = cfg.CFG["sub"]``, ``for c in (CFG,)``, through other locals and enclosing
        functions), nothing for a local bound otherwise (a parameter: what the caller passes is the
        call's argument, which the call is taken to change; ``c = {}``).

        Memoised per name and scope, as ``held_for`` is (it reads only what binds each name and
        the scopes' ``aliases``, fixed once a scope is made): a flow's locals are asked about at
        every use, call and store (~15,000 times for the build benchmark's 174 modules). Callers
        must not change the set returned."""
        memo = (root, id(scope))
        known = self.stands_memo.get(memo)
        if known is not None and known[0] is scope:
            return known[1]
        found = self._stands_for(root, scope)
        self.stands_memo[memo] = (scope, found)
        return found

    def _stands_for(self, root: str, scope: _Scope) -> set[str]:
        out: set[str] = set()
        seen: set[tuple[int, str]] = set()
        todo = [(root, scope)]
        while todo:
            name, where = todo.pop()
            binder = self.resolve(name, where)
            if binder is None:
                out.add(name)
                continue
            if (id(binder), name) in seen:
                continue
            seen.add((id(binder), name))
            todo += [(value, binder) for value in binder.aliases.get(name, ())]
        return out

    # -- resolution -----------------------------------------------------------------------------
    def resolve(self, root: str, scope: _Scope) -> _Scope | None:
        """The scope that binds ``root`` for code in ``scope`` (None: the module, i.e. global)."""
        current: _Scope | None = scope
        first = True
        while current is not None:
            if current.parent is None:
                return None  # module scope: global
            if root in current.declared_global:
                return None
            if (first or not current.is_class) and root in current.local:
                return current
            first = False
            current = current.parent
        return None

    def is_global(self, root: str, scope: _Scope) -> bool:
        return self.resolve(root, scope) is None

    def loop_bound(self, root: str, scope: _Scope) -> bool:
        """Whether ``root`` is bound by a ``for`` loop or a comprehension of the scope that binds
        it: a value taken out of a container. (A parameter is what its caller or its default
        gave, a local assigned from a call is what that call returned: both are followed.)"""
        binder = self.resolve(root, scope)
        return binder is not None and root in binder.loops

    def is_local(self, root: str, scope: _Scope) -> bool:
        return self.resolve(root, scope) is not None

    def self_of(self, name: str, scope: _Scope) -> bool:
        binder = self.resolve(name, scope)
        return binder is not None and binder.self_name == name

    def use(self, root: str, chain: str, scope: _Scope, node: cst.CSTNode) -> None:
        binder = self.resolve(root, scope)
        mark = "^" if self.by_name and id(node) in self.by_name else ""
        if binder is not None:
            if ".__globals__" in chain and not binder.imports.get(root):
                # ``f.__globals__`` of a parameter, a local, ``self.m``: the namespace of the module
                # of a function we cannot name; any first-party module (C17)
                self.refs.globals.add("?")
            for target in binder.imports.get(root, ()):
                # a lazy import: a binding to its target, with the attribute tail used
                self.refs.globals.add(mark + "=" + target + chain[len(root):])
            if binder.imports.get(root) and chain.rpartition(".")[2] in _MODULES_TAILS and id(node) not in self.modules_safe:
                self.modules_value(chain, scope)  # ``import sys`` in the function, ``sys.modules`` handed out
            if self.collectors and root in binder.aliases and mark == "" and not (self.read_only_args and self.read_only_args[-1]):
                # a local standing for a global, handed to a call (``put(c)`` after ``c = CFG``):
                # the call may change what it stands for, as if it were spelled (L3)
                held = {r for r in self.stands_for(root, scope) if not r.startswith(RESULT)}
                for collector in self.collectors:
                    collector |= held
            if self.read_only_args and self.read_only_args[-1] is False and mark == "" and not self.unheld \
                    and (root in binder.aliases or root in binder.holds or binder.self_name == root):
                self.part_changed(root, scope)  # handed to a call: it may change its parts (L4)
            if self.holding and (root in binder.aliases or root in binder.holds):
                held = self.stands_for(root, scope) | self.held_for(root, scope)
                for found in self.holding:
                    found |= held
            if binder.self_name == root:
                parts = chain.split(".")
                if len(parts) > 2 and parts[1] == "__class__" and parts[2] == "__dict__":
                    self.refs.dynamic.add("class")  # ``self.__class__.__dict__`` used whole (not by a literal key)
                elif len(parts) > 2 and parts[1] == "__class__":
                    self.refs.members.add(parts[2])
                elif len(parts) > 1 and parts[1] not in ("__class__", "__dict__"):
                    self.refs.members.add(parts[1])
                elif id(node) not in self.self_safe:
                    # ``self`` escapes (passed on, returned, ``self.__dict__``): any member may be reached
                    self.refs.dynamic.add("class")
            return
        self.refs.globals.add(mark + chain)
        if self.holding and not self.unheld and root not in _CONSTANT_NAMES \
                and not (self.read_only_args and self.read_only_args[-1] is True):
            # a callee's result is held, not the callee (``inst = H()`` holds what ``H`` hands
            # out, ``()H``; not the class ``H``); a read-only builtin's result holds nothing of
            # its arguments (``len(CFG)``), nor does a string, a comparison or an index (``unheld``)
            held = RESULT + root if self.read_only_args and self.read_only_args[-1] is None else root
            for found in self.holding:
                found.add(held)
        if self.read_only_args and self.read_only_args[-1] is False and not mark and not self.unheld:
            (self.refs.deep if self.deferred == 0 else self.refs.deep_later).add(root)  # handed on (L4)
        if self.collectors and self.deferred == 0 and not mark and not (self.read_only_args and self.read_only_args[-1]):
            self.refs.passes.add(root)
        if (chain.rpartition(".")[2] in _MODULES_TAILS or root in self.modules_names) and id(node) not in self.modules_safe:
            self.modules_value(chain, scope)
        if mark:
            return  # referenced by name for the engine (``execute_activity(fn)``): the call changes nothing of it
        for collector in self.collectors:
            collector.add(root)


def _instance_of(obj: cst.BaseExpression, is_self: Callable[[str], bool]) -> str | None:
    """The name of the instance a method runs on when ``obj`` is it or ``type(<it>)``, else None."""
    if _is_call_to(obj, "type") and len(obj.args) == 1 and obj.args[0].keyword is None:  # type: ignore[attr-defined]
        obj = obj.args[0].value  # type: ignore[attr-defined]
    if isinstance(obj, cst.Name) and is_self(nfkc(obj.value)):
        return nfkc(obj.value)
    return None


def _annotation_key(node: cst.For, is_self: Callable[[str], bool]) -> tuple[str, str] | None:
    """(loop variable, instance name) for ``for key in <inst>.__annotations__`` (also ``.keys()``,
    and ``for key, kind in <inst>.__annotations__.items()``), ``<inst>`` the instance a method runs
    on or ``type(<it>)``; None for any other loop."""
    it = node.iter
    method = None
    if isinstance(it, cst.Call) and not it.args and isinstance(it.func, cst.Attribute):
        method, it = it.func.attr.value, it.func.value
    if not (isinstance(it, cst.Attribute) and it.attr.value == "__annotations__") or method not in (None, "keys", "items"):
        return None
    instance = _instance_of(it.value, is_self)
    target = node.target
    if method == "items":
        if not (isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2
                and isinstance(target.elements[0], cst.Element)):
            return None
        target = target.elements[0].value
    if instance is None or not isinstance(target, cst.Name):
        return None
    return nfkc(target.value), instance


#: parsed forward references (a module's annotations repeat the same few strings)
_FORWARD: dict[str, cst.BaseExpression | None] = {}


def _forward_reference(text: str) -> cst.BaseExpression | None:
    """The expression a string annotation spells (``typing.ForwardRef`` compiles it with
    ``eval`` mode: surrounding whitespace allowed), None when it is none."""
    if text in _FORWARD:
        return _FORWARD[text]
    expr: cst.BaseExpression | None = None
    if len(text) <= _CODE_LIMIT and text.strip():
        try:
            expr = cst.parse_expression(text.strip())
        except (cst.ParserSyntaxError, RecursionError, ValueError):
            expr = None
    if len(_FORWARD) < 10_000:
        _FORWARD[text] = expr
    return expr


def _certain(fetched: str) -> bool:
    """Whether a ``module_value`` names one object a chain can spell (a literal name, or the
    module defining a global: ``helper.__globals__``), not a computed one."""
    return fetched[0] == "=" or fetched[0] not in ".?"


def _view_attribute(inner: tuple[str, bool, bool], attr: str) -> tuple[str, bool, bool] | None:
    """The attribute ``attr`` of what a view names (``UseWalker.view``)."""
    chain, namespace, through = inner
    if namespace and chain != "=builtins":
        return None  # a method of the namespace dict (``vars(m).update``): no name of it
    if attr == "__dict__":
        return chain, True, True
    if attr == "__globals__":
        return chain + ".__globals__", True, True
    return f"{chain}.{attr}", False, through


def _argument(args: Sequence[cst.Arg], position: int, keyword: str | None) -> cst.BaseExpression | None:
    """The expression a call passes as its parameter ``keyword`` (at ``position`` if positional)."""
    positional = True
    for i, arg in enumerate(args):
        if arg.star:
            positional = positional and arg.star == "**"  # after ``*xs`` positions are unknown
            continue
        if arg.keyword is not None:
            if keyword is not None and nfkc(arg.keyword.value) == keyword:
                return arg.value
        elif positional and i == position:
            return arg.value
    return None


def _pattern(node: cst.BaseExpression) -> tuple[str, bool]:
    """(text, exact) of a string expression: its value when it is a literal or a concatenation of
    literals (``"shop." + "pricing"``, an f-string without fields), else the literal text it is
    known to start with (``"shop." + name``, ``f"shop.{name}"``, ``"shop.%s" % name``,
    ``"shop.{}".format(name)``; ``""`` when nothing is known)."""
    value = literal_string_value(node)
    if isinstance(value, str):
        return value, True
    if isinstance(node, cst.BinaryOperation):
        left, exact = _pattern(node.left)
        if isinstance(node.operator, cst.Add):
            if not exact:
                return left, False
            right, right_exact = _pattern(node.right)
            return left + right, right_exact
        if isinstance(node.operator, cst.Modulo) and exact:
            return left.split("%", 1)[0], False
        return "", False
    if isinstance(node, cst.FormattedString):
        raw = "r" in node.start.lower()
        text = ""
        for part in node.parts:
            if not isinstance(part, cst.FormattedStringText):
                return text, False
            try:
                text += fstring_text_value(part.value, raw=raw, quote=node.end)
            except CanonicalisationError:
                return text, False
        return text, True
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "format":
        left, exact = _pattern(node.func.value)
        return (left.split("{", 1)[0], False) if exact else ("", False)
    return "", False


def _relative_base(text: str, package: str | None, exact: bool) -> str | None:
    """``importlib``'s resolution of a relative name (``.pricing`` in ``shop``: ``shop.pricing``);
    for a computed one, the longest certain prefix (``"." + name`` may climb further up: the top
    package). None: the package is unknown, or the name climbs beyond the top package."""
    if not package:
        return None
    level = len(text) - len(text.lstrip("."))
    rest = text[level:]
    bits = package.rsplit(".", level - 1)
    if len(bits) < level:
        return None
    base = bits[0]
    if exact:
        return f"{base}.{rest}" if rest else base
    return f"{base}.{rest}" if rest else base.split(".")[0]


def _has_fromlist(args: Sequence[cst.Arg]) -> bool:
    """Whether ``__import__(...)`` is given a non-empty literal ``fromlist`` (it then returns the
    named module, not its top package)."""
    given = _argument(args, 3, "fromlist")
    return isinstance(given, (cst.List, cst.Tuple)) and bool(given.elements)


def _code_imports(text: str, package: str | None, depth: int = 0) -> set[str]:
    """``"<target>`` for every module or attribute a code string imports when run (``exec``,
    ``eval``, ``compile``): its import statements, its literal ``__import__``/``import_module``
    calls and the dotted strings in it (code in the code, three levels deep); ``?`` when it
    imports a computed name. Read with CPython's own parser (the strings are Python of the
    running interpreter's version), warnings silenced: they would be about the user's data. A
    string that is no code imports nothing."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return set()
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update('"' + nfkc(a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                # relative to the ``__package__`` of the namespace it runs in, which need not be
                # the literal's module (``exec(SRC, ns)`` elsewhere): any module of its top package
                out.add("?" + (package.split(".")[0] if package else ""))
                continue
            base = node.module or ""
            if any(a.name == "*" for a in node.names):
                out.add('"' + nfkc(base))  # binds what it exports: all of it
            else:  # the module runs (its statements abroad are followed from what is reached)
                out.update('"' + nfkc(f"{base}.{a.name}") for a in node.names)
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name in ("__import__", "import_module") and node.args:
                first = node.args[0]
                if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                    out.add("?")
                elif _DOTTED.fullmatch(first.value):
                    out.add('"' + nfkc(first.value))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and depth < 3:
            value = node.value
            if len(value) < 256 and ("." in value or ":" in value) and _DOTTED.fullmatch(value):
                out.add('"' + nfkc(value))
            elif "import" in value and len(value) <= _CODE_LIMIT:
                out |= _code_imports(value, package, depth + 1)
    return out


def _all_params(params: cst.Parameters) -> list[cst.Param]:
    out = [*params.posonly_params, *params.params, *params.kwonly_params]
    if type(params.star_arg) is cst.Param:
        out.append(params.star_arg)
    if params.star_kwarg is not None:
        out.append(params.star_kwarg)
    return out


def _param_names(params: cst.Parameters) -> list[str]:
    ordered = [*params.posonly_params, *params.params]
    rest = [p for p in _all_params(params) if p not in ordered]
    return [nfkc(p.name.value) for p in (*ordered, *rest)]


def _first_is_positional(params: cst.Parameters) -> bool:
    return bool(params.posonly_params or params.params)


def _is_staticmethod(node: cst.FunctionDef) -> bool:
    return any(dotted_chain(d.decorator) == "staticmethod" for d in node.decorators)


def references(node: cst.CSTNode, *, method_of_class: bool = False, resolve_from: FromResolver | None = None,
               name_only: NameOnly | None = None, package: str | None = None,
               imports: ImportTargets | None = None, modules_names: frozenset[str] = frozenset(),
               walrus: bool = True) -> References:
    """Global chains, members, effects and dynamic reach of a module-level statement or definition.

    ``method_of_class``: ``node`` is a ``FunctionDef`` taken out of a class body; its first
    parameter names the instance (or class) for ``self.``/``cls.`` member references.
    ``resolve_from`` resolves relative imports inside function and class bodies. ``name_only``
    (a framework profile's rule): which call arguments are referenced by name only (``^chain``).
    ``package`` (the module's ``__package__``) resolves relative names given to
    ``importlib.import_module``; ``imports`` (what a module-level name stands for: its import
    targets, a plain alias's) recognises a resolver or ``sys.modules`` spelled through an alias
    (``from importlib import import_module as im``, ``mods = sys.modules``); ``modules_names``:
    the module-level names that may stand for ``sys.modules`` (its uses as a value widen).
    ``walrus=False``: the module's text spells no ``:=`` (no walrus target is looked for).
    """
    refs = References()
    walker = _UseWalker(refs, resolve_from, name_only, package, imports, modules_names, walrus)
    module_scope = _Scope(None, set(), set())
    if method_of_class and type(node) is cst.FunctionDef:
        walker.function_header(node, module_scope)
        walker.function_scope(node.params, node.body.body, module_scope, method=not _is_staticmethod(node))
    else:
        walker.walk(node, module_scope)
        constant = _string_constant(node)
        if constant is not None:
            refs.globals.add("'" + constant[0] + "=" + constant[1])
            walker.string(constant[1])  # a folded concatenation is read like a literal
    # a namespace read dynamically (``globals()``, a frame's ``f_globals``) may hold the builtins by a
    # key no chain shows (``inspect.currentframe().f_globals['__builtins__']``: breakT's T7)
    if code_runners.may_reach(refs.globals, imports) or "module" in refs.dynamic:
        _runner_reaches(node, refs, walker, module_scope)
    return refs


def _runner_reaches(node: cst.CSTNode, refs: References, walker: _UseWalker, scope: _Scope) -> None:
    """``code_runners``' rule (P1/P2): a runner of text reached otherwise than by a direct call
    of ``exec``/``eval``/``compile`` with spelled text (read as a value, through the builtins
    namespace, a standard-library runner) widens as a direct ``exec`` of computed text does
    (``?``, ``module-write``); a direct call with spelled text has its imports followed, and is a
    statement that runs code as ``exec`` is (``module-write``: what runs at load is bundled)."""
    for reach in code_runners.reaches(node, lambda chain: walker.qualified_chain(chain, scope)):
        refs.dynamic |= {"module", "module-write"}
        if reach.kind == "text":
            walker.deferred += reach.deferred
            try:
                walker.string(reach.value)
            finally:
                walker.deferred -= reach.deferred
        elif reach.kind == "constant":
            refs.globals.add("?%" + reach.value)
        else:
            refs.globals.add("?")


def _string_constant(node: cst.CSTNode) -> tuple[str, str] | None:
    """(name, value) when ``node`` is a plain module-level binding of one name to a string
    literal (``MOD = "shop.pricing"``, ``MOD: str = "shop." "pricing"``): ``closure`` takes such a
    name's value as certain when every statement binding it is one (``?@``/``?%`` references)."""
    if type(node) is cst.Assign and len(node.targets) == 1:
        target, value = node.targets[0].target, node.value
    elif type(node) is cst.AnnAssign and node.value is not None:
        target, value = node.target, node.value
    else:
        return None
    if type(target) is not cst.Name:
        return None
    text, exact = _pattern(value)
    return (nfkc(target.value), text) if exact else None
