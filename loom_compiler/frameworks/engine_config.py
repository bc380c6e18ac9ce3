"""Engine configuration is not workflow behaviour: the opacity rule of the framework profiles.

``loom-fp/2``'s module-statement rule (``effects``) puts a state-changing module-level statement
into every module-level name it mentions. On real DBOS applications that pulls every web endpoint
into every workflow: a workflow uses ``DBOS`` (``@DBOS.step()``, ``DBOS.sleep``), the statements
``DBOS(fastapi=app)`` and ``if __name__ == "__main__": DBOS.launch(); uvicorn.run(app)`` belong
to ``DBOS``, they mention ``app``, and every ``@app.post(...)`` endpoint belongs to ``app``.

``effects`` (fp2-core) already keeps third-party-built values (``app = FastAPI()``) and
``if __name__ == "__main__":`` blocks out of every name. What a profile still needs: its step
headers (``@DBOS.step()``) reach the engine's name, so a top-level ``DBOS.launch()`` or an engine
built into a module name (``dbos = DBOS(...)``) would still come along. ``effects.attachments``
also has a blanket ``opaque`` hook (``config.opaque``: no statement attached to such a name);
the profiles do not fill it, because a blanket rule would drop ``DBOS.register_instance(render)``
and ``DBOS(config={"serializer": make_serializer()})``, whose first-party code runs in replays.

The rule. A profile names its engine's API objects (``Profile.opaque``: ``dbos.DBOS``,
``temporalio.client.Client``, ``temporalio.worker.Worker``, ...). A module-level name is *opaque*
when every statement binding it imports one of those (``from dbos import DBOS``), or binds it to
what an engine-configuration statement (below) builds (``dbos = DBOS(fastapi=app)``). A module
statement is *engine configuration* when

1. it calls at least one opaque name, and every callee it calls at import time is an opaque name,
   a name bound only by third-party imports (``uvicorn.run``), or a builtin; and
2. every other first-party module-level name it mentions is plain data: not a function or class,
   not bound by an import of first-party code, and bound only by statements that call nothing
   first-party (``app = FastAPI()``, ``config = {"name": "shop", ...}``); and
3. it reaches nothing dynamically (``globals()``, ``exec``) and imports nothing lazily.

A ``def`` or ``class`` statement does not belong to an opaque name through its body either (an
endpoint whose body calls ``DBOS.start_workflow``, registered by ``@app.post``, *uses* the engine
when a request comes, it configures nothing at import); its decorators, defaults and bases count
as before.

Such a statement does not belong to the opaque names it mentions; it still belongs to every other
name it can change (``DBOS(fastapi=app)`` still belongs to ``app``, so a flow that really uses
``app`` sees it). So a statement that hands first-party code to the engine (``DBOS.register(Cls)``,
``DBOS(config=load_config())``, ``DBOS(serializer=MySerializer())``, a ``main()`` call under
``if __name__``) keeps belonging to the engine's name: that code may run inside a replay (a
serializer decodes recorded results, an interceptor sees every command), so it stays in the
closure of every flow that reaches the engine.

Why this is sound: what remains outside is the engine's own (third-party) code and plain data
given to it (connection settings, the web app object), which decide where and how the engine
runs, not what the workflow code does on a replay; third-party code is hashed by import target
only (DESIGN §6) and the engine's configuration is of the same kind. Both directions are tested
(``tests/compiler/test_frameworks_engine.py``).

Rejected: special-casing ``if __name__ == "__main__":`` blocks (a block that calls ``main()``
can configure the engine with first-party code), and dropping every statement that mentions an
engine object (``DBOS.register(Cls)`` would leave ``Cls`` out).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..effects import StatementFacts

__all__ = ["exempt_engine_config"]


def exempt_engine_config(
    facts: Sequence[StatementFacts],
    attached: list[set[str]],
    opaque_targets: Sequence[str],
    import_targets: Callable[[str], "list[str] | None"],
    third_party: Callable[[str], bool],
) -> list[set[str]]:
    """``attached`` (what each statement belongs to, from ``effects.attachments``) with the opaque
    names removed from every engine-configuration statement."""
    targets = set(opaque_targets)
    bound = {n for f in facts for n in f.names}
    binders: dict[str, list[StatementFacts]] = {}
    for f in facts:
        for name in f.names:
            binders.setdefault(name, []).append(f)
    opaque = {n for n in bound if (t := import_targets(n)) is not None and all(x in targets for x in t)}
    callables = {n for f in facts if f.callable for n in f.own_names}

    def foreign(name: str) -> bool:  # a callee that is no first-party code
        return name in opaque or name not in bound or third_party(name)

    def calls_nothing_first_party(f: StatementFacts) -> bool:
        return not f.refs.dynamic and all(foreign(c) for c in f.refs.calls_now) and not _lazy(f)

    def plain(name: str) -> bool:
        if name in callables:
            return False
        if import_targets(name) is not None:
            return third_party(name)
        return all(not b.callable and not set(b.names) - set(b.own_names) and calls_nothing_first_party(b)
                   for b in binders.get(name, ()))

    def configures(f: StatementFacts) -> bool:
        refs = f.refs
        if f.callable or not calls_nothing_first_party(f) or not (refs.calls_now & opaque):
            return False
        mentioned = _roots(f) | refs.stores | refs.call_mentions
        return all(n in opaque or n not in bound or third_party(n) or plain(n) for n in mentioned - f.names)

    # names bound to what the engine builds (``dbos = DBOS(fastapi=app)``)
    for name in sorted(bound - opaque - callables):
        if binders.get(name) and all(not set(b.names) - {name} - set(b.own_names) and configures(b)
                                     for b in binders[name]):
            opaque.add(name)
    out = []
    for f, names in zip(facts, attached):
        if not names & opaque:
            out.append(names)
        elif f.callable:
            # a def or class belongs to an engine name through what its *body* does when called
            # (an endpoint that calls ``DBOS.start_workflow``): using the engine later is no
            # configuration of it now; its decorators, defaults and bases still count
            now = f.refs.call_mentions | f.refs.stores
            out.append({n for n in names if n not in opaque or n in now})
        else:
            out.append(names - opaque if configures(f) else names)
    return out


def _roots(f: StatementFacts) -> set[str]:
    return {c.lstrip("^").split(".", 1)[0] for c in f.refs.globals if not c.lstrip("^").startswith(("=", "!"))}


def _lazy(f: StatementFacts) -> bool:
    """It imports something when it runs (``=`` a lazy import's target, ``!`` a module it loads)."""
    return any(c.lstrip("^").startswith(("=", "!")) for c in f.refs.globals)
