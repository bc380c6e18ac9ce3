"""Engine hooks: first-party code an engine runs around *every* workflow (the temporal profile).

A Temporal worker wraps each workflow activation in its interceptors
(``Worker(interceptors=[...])``, ``workflow_interceptor_class``), decodes every payload of the
history through its data converter and codec (``Client.connect(data_converter=...)``,
``DataConverter(payload_codec=...)``, failure converters) and runs the workflow in its workflow
runner (sandbox settings) — on a replay too. That code is in no workflow's closure by reference:
nothing in ``run`` names it. Editing it can change what a replay does (an interceptor that no
longer awaits ``execute_workflow``, a codec that decodes differently), so DESIGN §6 ("never the
same hash when behaviour can differ; when in doubt, widen") puts it into the closure of *every*
workflow of the project (lead's decision, session 4). Which workers use which hook is a run-time
fact (the worker script, its configuration); the project is the sound bound.

What is an engine hook (``EngineHooks``, decided in ``closure``):

* **a first-party class whose base is one of the engine's hook classes** (``class
  SentryInterceptor(Interceptor)``, ``class EncryptionCodec(PayloadCodec)``, ``class
  GreetingPayloadConverter(CompositePayloadConverter)``): a base resolving to a name under the
  engine's package whose last part ends with one of ``base_suffixes``; transitively through
  first-party bases and re-exports (``class Mine(MyBase)``);
* **whatever first-party code is given to the engine as such a hook**: the hook arguments
  (``keywords``: ``interceptors=``, ``data_converter=``, ``payload_codec=``, ``workflow_runner=``,
  ``plugins=``, ...) of any call resolving under the engine's package (``Worker(...)``,
  ``Client.connect(...)``, ``Replayer(...)``, ``WorkflowEnvironment.start_local(...)``), and every
  argument of a hook's own constructor there (``callee_suffixes``: ``DataConverter(...)``,
  ``SimplePlugin(...)``, ``TracingInterceptor(tracer)``), never those that *register* workflows
  and activities (``registered``: the flows and steps themselves), down to the first-party names
  the argument spells: a class implementing the protocol without subclassing
  (``interceptors=[MyInterceptor()]``), a factory (``data_converter=make_converter()``), a
  module-level converter object. A local variable is followed to the values its function binds
  it to (``codec = MyCodec(key)``, ``with make() as codec``, ``for``, ``:=``, ``+=``) and to the
  targets of local imports; a local bound otherwise (a nested class or function, an unpacking)
  widens to the whole enclosing module-level definition. A name bound by imports stands for what
  they import, not for the importing module's name member (``_given``: that would bring in the
  worker script's ``main()`` through fp/2's main-block rule).

Each hook joins every flow's closure under the binding ``<engine hooks>`` (a name member: the
class's or function's statements whole, and what they reach), so the hash moves when a hook's
code or what it reaches changes, and when a hook appears or disappears.

What is handed over is hashed too, code or not (breaker3's D1): ``Worker(...,
workflow_failure_exception_types=[ValueError])`` decides whether an exception fails the workflow
or retries its task, ``workflow_runner=UnsandboxedWorkflowRunner()`` lifts the sandbox,
``data_converter=pydantic_data_converter`` decodes every payload, all on replay too. Each module
that hands something over has the member ``<module>#engine`` in every workflow's closure: the
canonical text of each such argument (``<callee>(<keyword>=<value>)``, the callee by its qualified
name), of each local value it is followed to (``runner = SandboxedWorkflowRunner(...)``), and what
each global name they spell resolves to (``pydantic_data_converter`` imported from elsewhere is
another converter). Which arguments: every hook keyword (``keywords``) of any callee under the
engine's package, every argument of a hook's constructor (``callee_suffixes``), a ``**mapping``
handed to either, and *every keyword but the operational ones* of the engine's configuration
callables (``configurations``: ``Worker``, ``Replayer``, ``Client``, ``Client.connect``, the test
environments). Operational (``operational``, never hashed): where and as whom the engine runs
(``task_queue``, ``namespace``, ``identity``, build ids and deployment configuration — those route
executions, and loom's version id feeds them), how much and how fast (caches, ``max_concurrent_*``,
pollers, rates, timeouts), connection settings, and the code that runs activities or the worker
itself (``activity_executor``, ``on_fatal_error``): none is read by workflow code or changes what a
replay does. Widen, not precise, for the rest: a keyword the profile does not list (one a later
SDK release adds) is hashed until someone classifies it, so the cost of an unknown setting is a
version more, never a silently shared hash (``tests/compiler/test_frameworks_hooks.py`` classifies
every keyword of the installed SDK's signatures and fails on a new one). Precise was rejected: a
list of behavioural keywords would keep the hash for every setting it does not know yet. Cost on
temporalio/samples-python: see benchmarks/README §5.

The engine's callables are recognised by binding, not by spelling (breaker3's D2): a callee is
resolved as the module binds it (``W2 = Worker``, a star import), a local callee is followed to
its values and local imports (``cls = Worker; cls(...)``), and ``functools.partial(Worker,
client, interceptors=[...])`` is a call of ``Worker`` with those arguments (so is calling the
partial later with more). Where the callee cannot be decided (a parameter, a call's result, a
local bound otherwise) it may be the engine's, and so may first-party code (a wrapper handing its
keywords on, ``make_worker(client, interceptors=[...])``, or the engine's callable re-exported by
a first-party module under another name: which one is decided across modules, after this
module's summary): its arguments under a hook keyword are hashed and followed (widening; the cost
is a version more when a first-party call handed e.g. ``plugins=`` to code that is not the
engine's changes; a callee decided to be another library's or a builtin, ``dict(interceptors=
...)``, hands nothing to the engine). A hook base is resolved the same way,
through a star import of an engine module too (breaker3's D3: ``from temporalio.worker import *``
then ``class Mine(Interceptor)``): the name is taken to be what that module exports, as an import
by name is, without importing the engine.

Where hooks are searched: the modules of the tree whose bytes spell one of ``markers`` (a hook
class names its base; a call hands a hook over under a hook keyword or to a hook's constructor)
and, to a fixpoint, the names of the hook classes found and of the names bound to the engine's
hook classes (re-exports): ``class Mine(MyBase)`` in a module that never spells "Interceptor" is
found through ``MyBase``. The caller lists the candidates (``fingerprint_flows(hook_candidates=
HookCandidates(...))``) from the bytes it already holds; the build records the listing as a
dependency (``<hooks>`` key of the cache). The search runs once per tree state
(``HookCandidates.memo``): on temporalio/samples-python (216 candidate modules of 785) a search
costs ~0.5 s, against 8 ms for fingerprinting a flow module without hooks.

Not found (documented limits): a hook handed to the engine through a *parameter* of first-party
code (``def make_worker(client, interceptors): return Worker(client, interceptors=interceptors)``)
whose class does not subclass an engine hook class (the value is the caller's, under any name;
the same for a ``**options`` parameter, and for a first-party wrapper given the hook by position,
``make_worker(client, [MyInterceptor()])``); a statement of the
configuring module that changes an imported hook (``EncryptionCodec.KEY = ...`` in the worker
script), unless that module runs for the workflow (a statement of the hook's *own* module that
stores into it or names it is part of the hook: ``<name>#defined``); under DBOS, a serializer that
does not subclass ``dbos.Serializer`` written into ``DBOS(config={"serializer": ...})`` (a dict
key is no hook keyword, and ``DBOS`` is engine configuration: ``engine_config``).

Rejected: scoping a hook to the workflows registered with the same ``Worker(...)`` (the list is
often computed or passed around, a client's data converter serves every worker built on it, and a
worker script is no unit of the fingerprint); a documented limit instead of widening (the lead
chose widening: an interceptor edit is a behaviour change on replay).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

import libcst as cst

from ..canonical import canonical, child_nodes, nfkc
from ..scopes import _Binder, _all_params, dotted_chain
from .base import EngineHooks, HookCandidates

__all__ = ["EngineHooks", "hook_records", "find_hooks", "engine_text", "ENGINE_HOOKS", "ENGINE_VALUES"]

#: the binding name under which the hooks join a flow (no spelling: a chunk skips it)
ENGINE_HOOKS = "<engine hooks>"
#: the key prefix of a module's ``<module>#engine`` member: what it hands to the engine, as text
ENGINE_VALUES = "engine:"


#: callables whose call stands for a call of their first argument with the others
_PARTIAL = frozenset({"functools.partial"})

#: (class name, its base chains as written) of every class defined at module level
ClassBases = tuple[tuple[str, tuple[str, ...]], ...]


def hook_records(body: Sequence[cst.CSTNode], hooks: EngineHooks, names_of: Callable[[str], "set[str]"],
                 resolve_from: Callable[[cst.ImportFrom], "str | None"], first_party: Callable[[str], bool]
                 ) -> tuple[ClassBases, tuple[str, ...], tuple[str, ...]]:
    """(module-level classes with their base chains, the chains given to the engine's configuration
    calls, the canonical text of what is given there) of one module. A chain is a global chain of
    the module, ``=<target>`` for what a local import binds, or the name of the module-level
    definition to take whole (see the docstring). A text is ``<callees>(<keyword>=<value>)`` for
    an argument, ``<local>=<value>`` for a value a local it spells was bound to."""
    classes: list[tuple[str, tuple[str, ...]]] = []
    for stmt in _module_level(body):
        if isinstance(stmt, cst.ClassDef):
            bases = []
            for arg in stmt.bases:
                value = arg.value.value if isinstance(arg.value, cst.Subscript) else arg.value  # ``Base[T]``
                chain = dotted_chain(value) if arg.keyword is None else None
                if chain is not None:
                    bases.append(chain)
            if bases:
                classes.append((nfkc(stmt.name.value), tuple(bases)))
    walker = _ArgumentWalker(hooks, names_of, resolve_from, first_party)
    for stmt in body:
        top = nfkc(stmt.name.value) if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) else None
        walker.walk(stmt, (), top)
    return tuple(classes), tuple(sorted(walker.chains)), tuple(sorted(walker.values))


def _module_level(body: Iterable[cst.CSTNode]) -> Iterable[cst.CSTNode]:
    """Module-level statements, with those of module-level ``if``/``try``/``with`` blocks (a class
    defined under ``if TYPE_CHECKING:`` or ``try:`` is a module-level name too)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (cst.If, cst.Try, cst.TryStar, cst.With)):
            blocks = [stmt.body]
            if isinstance(stmt, (cst.Try, cst.TryStar)):
                blocks += [h.body for h in stmt.handlers] + [b.body for b in (stmt.orelse, stmt.finalbody) if b is not None]
            elif isinstance(stmt, cst.If) and stmt.orelse is not None:
                yield from _module_level([stmt.orelse] if isinstance(stmt.orelse, cst.If) else stmt.orelse.body.body)
            for block in blocks:
                if isinstance(block, cst.IndentedBlock):
                    yield from _module_level(block.body)


class _Function:
    """One function scope: the names it binds, the values simple assignments give them, what its
    imports bind them to."""

    def __init__(self, node: cst.FunctionDef, resolve_from: Callable[[cst.ImportFrom], "str | None"]) -> None:
        binder = _Binder(resolve_from)
        for stmt in node.body.body if isinstance(node.body, cst.IndentedBlock) else [node.body]:
            binder.walk(stmt)
        self.params = {nfkc(p.name.value) for p in _all_params(node.params)}
        self.bound = (binder.bound - binder.declared_global) | self.params
        self.imports = binder.imports
        self.values: dict[str, list[cst.BaseExpression]] = {}
        stack: list[cst.CSTNode] = [node.body]
        while stack:
            current = stack.pop()
            if isinstance(current, (cst.FunctionDef, cst.ClassDef)):
                continue
            if isinstance(current, cst.Lambda):
                continue
            # a name bound to a value: followed to the expression (``x = f()``, ``x: T = f()``,
            # ``x += f()``, ``(x := f())``, ``with f() as x``, ``for x in f()``: the code that
            # makes the value is what the expression reaches)
            pairs: list[tuple[cst.BaseExpression | None, cst.BaseExpression | None]] = []
            if isinstance(current, cst.Assign):
                pairs = [(t.target, current.value) for t in current.targets]
            elif isinstance(current, (cst.AnnAssign, cst.AugAssign, cst.NamedExpr)):
                pairs = [(current.target, current.value)]
            elif isinstance(current, cst.With):
                pairs = [(i.asname.name, i.item) for i in current.items if i.asname is not None]
            elif isinstance(current, cst.For):
                pairs = [(current.target, current.iter)]
            for target, value in pairs:
                if isinstance(target, cst.Name) and value is not None:
                    self.values.setdefault(nfkc(target.value), []).append(value)
            stack.extend(child_nodes(current))
        #: bound otherwise (a nested def or class, an unpacking, an ``except`` target): not
        #: followed; the whole enclosing module-level definition is taken instead
        self.other = self.bound - self.params - set(self.values) - set(self.imports)


class _ArgumentWalker:
    def __init__(self, hooks: EngineHooks, names_of: Callable[[str], "set[str]"],
                 resolve_from: Callable[[cst.ImportFrom], "str | None"], first_party: Callable[[str], bool]) -> None:
        self.hooks = hooks
        self.first_party = first_party
        self.names_of = names_of
        self.resolve_from = resolve_from
        self.chains: set[str] = set()
        self.values: set[str] = set()

    def walk(self, node: cst.CSTNode, scopes: tuple[_Function, ...], top: str | None) -> None:
        stack: list[tuple[cst.CSTNode, tuple[_Function, ...]]] = [(node, scopes)]
        while stack:
            current, where = stack.pop()
            if isinstance(current, cst.FunctionDef):
                inner = (*where, _Function(current, self.resolve_from))
                stack.append((current.body, inner))
                stack.extend((d, where) for d in current.decorators)
                continue
            if isinstance(current, cst.Call):
                self.call(current, where, top)
            stack.extend((child, where) for child in child_nodes(current))

    def local(self, root: str, scopes: tuple[_Function, ...]) -> _Function | None:
        for scope in reversed(scopes):
            if root in scope.bound:
                return scope
        return None

    def call(self, call: cst.Call, scopes: tuple[_Function, ...], top: str | None) -> None:
        names = self.callee(call.func, scopes, set())
        args: Sequence[cst.Arg] = call.args
        if names and names & _PARTIAL:
            # ``functools.partial(Worker, client, interceptors=[...])``: the call of its first
            # argument with the others (breaker3's D2); ``make()`` then calls the partial
            if not args or args[0].keyword is not None or args[0].star:
                return
            names, args = self.callee(args[0].value, scopes, set()), args[1:]
        position = 0
        for arg in args:
            if arg.star == "**":
                keyword: str | None = "**"  # a mapping of keywords: any of them
            elif arg.keyword is not None:
                keyword = nfkc(arg.keyword.value)
            else:
                keyword, position = None, position + 1
            taking = sorted(name for name in names if self.hooks.takes(name, keyword)) if names is not None else []
            if taking:
                label = " ".join(taking)
            elif keyword in self.hooks.keywords and (names is None or any(self.first_party(n) for n in names)):
                # the callee cannot be decided (a parameter, a call's result, a local bound
                # otherwise), or is first-party code, which may hand it on (``make_worker(client,
                # interceptors=[...])``) or re-export the engine's callable under its own name: it
                # may be the engine's, so a hook keyword handed to it is a hook
                label = "?"
            else:
                continue
            spelled = keyword if keyword is not None else f"{arg.star}#{position}"
            self.values.add(f"{label}({spelled}={canonical(arg.value)})")
            self.expression(arg.value, scopes, top, set())

    def callee(self, func: cst.BaseExpression, scopes: tuple[_Function, ...], seen: set[tuple[int, str]]
               ) -> set[str] | None:
        """Every qualified name a callee may stand for, by its bindings (a global chain as the
        module binds it, a local followed to its values and imports: ``cls = Worker``); None when
        it cannot be decided (a parameter, a call's result, a local bound otherwise)."""
        if isinstance(func, cst.Call):  # ``functools.partial(Worker, ...)(...)``
            inner = self.callee(func.func, scopes, seen)
            if inner and inner & _PARTIAL and func.args and func.args[0].keyword is None and not func.args[0].star:
                return self.callee(func.args[0].value, scopes, seen)
            return None
        chain = dotted_chain(func) if isinstance(func, (cst.Name, cst.Attribute)) else None
        if chain is None:
            return None
        return self.callee_chain(chain, scopes, seen)

    def callee_chain(self, chain: str, scopes: tuple[_Function, ...], seen: set[tuple[int, str]]) -> set[str] | None:
        root, _, rest = chain.partition(".")
        scope = self.local(root, scopes)
        if scope is None:
            return self.names_of(chain)
        if (id(scope), root) in seen:
            return set()  # ``cls = cls`` or a cycle of locals: nothing more than the other values
        seen.add((id(scope), root))
        if root in scope.params or root in scope.other:
            return None
        tail = "." + rest if rest else ""
        out = {target + tail for target in scope.imports.get(root, ())}
        at = scopes.index(scope)
        for value in scope.values.get(root, ()):
            if isinstance(value, (cst.Name, cst.Attribute)) and (inner := dotted_chain(value)) is not None:
                found = self.callee_chain(inner + tail, scopes[: at + 1], seen)
            elif not tail:
                found = self.callee(value, scopes[: at + 1], seen)  # ``make = functools.partial(Worker, ...)``
            else:
                found = None  # an attribute of what a call returned (``w = Worker(...)``; ``w.run()``)
            if found is None:
                return None
            out |= found
        return out

    def expression(self, expr: cst.CSTNode, scopes: tuple[_Function, ...], top: str | None,
                   seen: set[tuple[int, str]]) -> None:
        stack: list[tuple[cst.CSTNode, frozenset[str]]] = [(expr, frozenset())]
        while stack:
            node, hidden = stack.pop()
            chain = dotted_chain(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
            if chain is not None:
                self.use(chain, scopes, top, hidden, seen)
                continue
            if isinstance(node, cst.Arg):  # ``f(payload_codec=x)``: the keyword is no name in use
                stack.append((node.value, hidden))
                continue
            if isinstance(node, cst.Attribute):  # ``make().codec``: the attribute is no name in use
                stack.append((node.value, hidden))
                continue
            if isinstance(node, cst.Lambda):
                hidden = hidden | {nfkc(p.name.value) for p in _all_params(node.params)}
            elif isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
                comp = node.for_in
                while comp is not None:
                    hidden = hidden | _names(comp.target)
                    comp = comp.inner_for_in
            stack.extend((child, hidden) for child in child_nodes(node))

    def use(self, chain: str, scopes: tuple[_Function, ...], top: str | None, hidden: frozenset[str],
            seen: set[tuple[int, str]]) -> None:
        root, _, rest = chain.partition(".")
        if root in hidden:
            return
        scope = self.local(root, scopes)
        if scope is None:
            self.chains.add(chain)  # a global of the module (resolved by ``closure``)
            return
        if (id(scope), root) in seen:
            return
        seen.add((id(scope), root))
        tail = "." + rest if rest else ""
        for target in scope.imports.get(root, ()):
            self.chains.add(f"={target}{tail}")
        at = scopes.index(scope)
        for value in scope.values.get(root, ()):
            self.values.add(f"{root}={canonical(value)}")  # ``runner = SandboxedWorkflowRunner()``
            self.expression(value, scopes[: at + 1], top, seen)
        if root in scope.other and top is not None:
            self.chains.add(top)  # a class or function defined in the function: all of it


def _names(target: cst.BaseExpression) -> frozenset[str]:
    out = set()
    stack: list[cst.CSTNode] = [target]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            out.add(nfkc(node.value))
        stack.extend(child_nodes(node))
    return frozenset(out)



class _Graph(Protocol):
    """What ``find_hooks`` asks of ``closure.ClosureGraph`` (duck-typed: no import cycle)."""

    def first_party(self, module: str) -> bool: ...
    def summary(self, module: str) -> Any: ...
    def index(self, module: str) -> Any: ...
    def resolve_chain(self, where: Any, chain: str) -> list[str]: ...
    def resolve_target(self, target: str) -> list[str]: ...
    def binders(self, where: Any, name: str) -> list[Any]: ...


#: keys that name no first-party code to hash (third-party targets, name-only references)
_NOT_CODE = ("import:", "hook:", "ref:", "child:", "member:")


def find_hooks(graph: _Graph, hooks: EngineHooks, candidates: Callable[[frozenset[str]], Iterable[str]]) -> list[str]:
    """Closure keys of the project's engine hooks, sorted (see the module docstring); searched once
    per ``HookCandidates`` (the tree state), replayed for every other graph over it: the modules
    the search read are read again through the graph (so a build records them as dependencies of
    each flow module) and the final markers asked again (the build's ``<hooks>`` dependency)."""
    memo = candidates.memo if isinstance(candidates, HookCandidates) else {}
    known = memo.get("result")
    if known is not None:
        keys, modules, markers = known  # type: ignore[misc]
        candidates(markers)
        for module in modules:
            graph.summary(module)
        return list(keys)
    keys, modules, markers = _search(graph, hooks, candidates)
    # a hook is the statements that define it (``<name>#defined``): the statements of its module
    # that only *may* change it are left out. Measured on samples-python: a class a worker script
    # defines and its ``main()`` hands over (``CustomModelProvider``) belongs, by fp/2's call rule,
    # to the ``if __name__ == "__main__":`` block, which brought that ``main()``, its ``Worker(...)``
    # and every workflow and activity it registers into every workflow (median 9 -> 430 members)
    keys = [f"{k}#defined" if _name_member(k) else k for k in keys]
    memo["result"] = (keys, modules, markers)
    return keys


def _name_member(key: str) -> bool:
    return ":" not in key and "#" not in key and "." in key


def _search(graph: _Graph, hooks: EngineHooks, candidates: Callable[[frozenset[str]], Iterable[str]]
            ) -> tuple[list[str], tuple[str, ...], frozenset[str]]:
    """(hook keys, modules read, final markers): the search itself.

    ``candidates(markers)`` lists the modules whose bytes spell one of ``markers``. The search
    grows the markers by the names of the hook classes found and of the names bound to the
    engine's hook classes, until no new module is listed; hook classes are decided to a fixpoint
    over every module searched (a first-party base may be found after its subclass)."""
    markers = set(hooks.markers)
    searched: dict[str, Any] = {}
    classes: set[str] = set()
    while True:
        for module in sorted(candidates(frozenset(markers))):
            if module not in searched and graph.first_party(module):
                summary = graph.summary(module)
                if summary is not None:
                    searched[module] = summary
        grown = True
        while grown:
            grown = False
            for module, summary in searched.items():
                index = graph.index(module)
                for name, bases in summary.engine_classes:
                    key = f"{module}.{name}"
                    if key in classes:
                        continue
                    for chain in bases:
                        keys = graph.resolve_chain(index, chain)
                        if any(k in classes or _engine_base(hooks, k, chain) for k in keys):
                            classes.add(key)
                            grown = True
                            break
        names = {key.rpartition(".")[2] for key in classes}
        names |= {local for summary in searched.values() for local, target in summary.imports
                  if hooks.is_base(target) or hooks.configures(target)}
        if names <= markers:
            break
        markers |= names
    given: set[str] = set()
    for module, summary in searched.items():
        index = graph.index(module)
        for chain in summary.engine_arguments:
            given.update(k for k in _chain_keys(graph, index, chain) if not k.startswith(_NOT_CODE) and "#" not in k)
        if summary.engine_values:
            given.add(ENGINE_VALUES + module)  # the values themselves, as text (D1)
    return sorted(classes | given), tuple(sorted(searched)), frozenset(markers)


def _engine_base(hooks: EngineHooks, key: str, chain: str) -> bool:
    """Whether a base resolving to ``key`` (spelled ``chain``) is one of the engine's hook classes:
    imported from the engine, or bound by a star import of one of its modules (``from
    temporalio.worker import *`` then ``Interceptor``, breaker3's D3: the name is taken to be
    what the module exports, as an import by name is, without importing the engine)."""
    if not key.startswith("import:"):
        return False
    target = key[len("import:"):]
    if target.endswith(".*"):
        return hooks.is_base(f"{target[:-2]}.{chain}")
    return hooks.is_base(target)


def _chain_keys(graph: _Graph, index: Any, chain: str) -> list[str]:
    return graph.resolve_target(chain[1:]) if chain.startswith("=") else _given(graph, index, chain)


def engine_text(graph: _Graph, module: str) -> str:
    """The hashed text of what ``module`` hands to the engine's configuration (``<module>#engine``):
    each argument's and followed local's canonical text, then what each name they spell stands for
    (``pydantic_data_converter`` imported from elsewhere is another converter; a third-party
    name is hashed by the qualified name it resolves to, a first-party one also by its code)."""
    summary, index = graph.summary(module), graph.index(module)
    if summary is None or index is None:
        return ""
    lines = list(summary.engine_values)
    lines += [f"{chain} -> {' '.join(sorted(set(_chain_keys(graph, index, chain))))}" for chain in summary.engine_arguments]
    return "\n".join(lines)


def _given(graph: _Graph, index: Any, chain: str) -> list[str]:
    """What a chain handed to the engine stands for. A name bound only by imports is what they
    import (``from shop.codec import EncryptionCodec``: that class, as its own module defines and
    changes it; a third-party target is engine code, hashed by name where a flow uses it), not the
    importing module's name member: that one also holds the module's statements that *may* change
    the name, and the worker script's ``if __name__ == "__main__": asyncio.run(main())`` is such a
    statement for everything ``main()`` hands over (fp/2's call rule), which would put every
    worker's ``main`` into every workflow. Any other binding (a module-level converter object, a
    class defined there) is the name member, its statements whole."""
    root, _, rest = chain.partition(".")
    tail = "." + rest if rest else ""
    bound = [u for u in graph.binders(index, root) if root in u.names]
    targets = [t for u in bound for local, t in u.aliases if local == root]
    if bound and len(targets) == len(bound) and all(u.kind == "import" or u.aliases for u in bound) \
            and not any(root in u.global_writes for u in bound):
        return [k for t in targets for k in graph.resolve_target(t + tail)]
    return graph.resolve_chain(index, chain)
