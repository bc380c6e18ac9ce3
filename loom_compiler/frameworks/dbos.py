"""``framework = "dbos"``: DBOS Transact for Python (``dbos``).

DBOS recovers a workflow by re-running its function from the top, serving every step and
transaction from its ``operation_outputs`` table by call order and function name. So
``@DBOS.step()`` and ``@DBOS.transaction()`` functions (DBOS 3: ``@ds.transaction()`` of a
``ds = SQLAlchemyDatasource(...)``), and such methods of ``@DBOS.dbos_class()``
classes, are steps: their qualified name and header (decorators and signature: the step's
``name=`` and options, the result annotation) are hashed, their bodies are not (DESIGN §6).

DBOS 3 also runs a *plain* function as a step: ``DBOS.run_step(options, fn, *args, **kwargs)``
(and ``await DBOS.run_step_async(...)``) checkpoints ``fn``'s result under ``options["name"]`` or
``fn.__qualname__`` and serves it from ``operation_outputs`` on recovery, exactly as it serves a
``@DBOS.step()``. So ``fn`` (positional after the options, or ``func=``) is referenced by name,
with its header hashed (its decorators run, its signature binds the arguments) and its body left
out; the options are an argument of the workflow's own call and stay in its canonical form. Only a
function *named* there is a step: ``DBOS.run_step(None, lambda: fetch(o))`` or
``partial(fetch, o)`` is workflow code whose body is hashed (widening: one version more per edit).

A workflow that reaches another workflow (calls it, passes it to ``DBOS.start_workflow``/
``start_workflow_async`` or to ``queue.enqueue``) starts it as a *child* with its own status and
history; the parent records the child's id and result. So any flow reached from a flow is
referenced by its flow id and header, never its body: editing the child versions the child only.

A custom serializer (``DBOSConfig["serializer"]``: a subclass of ``dbos.Serializer``) decodes every
recorded step output and workflow input that recovery serves, so, like Temporal's data converters
(``engine_hooks``), every first-party subclass of it is in the closure of every workflow of the
project. It is handed over in the configuration dict, not as a keyword, so only the base class
finds it.

``DBOS`` itself is an opaque engine object (``engine_config``): ``DBOS(fastapi=app)``,
``DBOS.launch()`` and the ``if __name__ == "__main__":`` block that runs the server configure and
start the engine; they are not part of any workflow's behaviour.
"""

from __future__ import annotations

from .base import EngineHooks, FlowIdArgument, NameOnlyArg, Profile

__all__ = ["PROFILE"]

PROFILE = Profile(
    name="dbos",
    flow_decorators=("dbos.DBOS.workflow",),
    # ``DBOS.transaction`` (DBOS 1.x-2.x) and, since DBOS 3, the transaction of a datasource:
    # ``ds = SQLAlchemyDatasource(url)`` then ``@ds.transaction()`` (``<class>().<method>``)
    step_decorators=("dbos.DBOS.step", "dbos.DBOS.transaction",
                     *(f"dbos.{cls}{made}().transaction" for cls in ("SQLAlchemyDatasource", "AsyncSQLAlchemyDatasource")
                       for made in ("", ".create"))),
    # what these start is a workflow by reference (a child); passing it changes nothing of it
    name_only_calls={
        "dbos.DBOS.start_workflow": NameOnlyArg(0, "func"),
        "dbos.DBOS.start_workflow_async": NameOnlyArg(0, "func"),
        "dbos.DBOS.enqueue_workflow": NameOnlyArg(1, "func"),
        "dbos.Queue().enqueue": NameOnlyArg(0, "func"),
        "dbos.Queue().enqueue_async": NameOnlyArg(0, "func"),
        # DBOS 3: ``run_step(dbos_step_options, func, *args, **kwargs)`` runs ``func`` as a step
        "dbos.DBOS.run_step": NameOnlyArg(1, "func", step=True),
        "dbos.DBOS.run_step_async": NameOnlyArg(1, "func", step=True),
    },
    children_by_reference=True,
    # ``@DBOS.workflow(name="x", max_recovery_attempts=5)``: ``name=`` is the workflow's name (the
    # flow id); the other arguments are behaviour and feed the code hash
    flow_id_argument=FlowIdArgument(positional=False, keywords=("name",)),
    opaque=("dbos.DBOS",),
    # a serializer decodes what recovery serves from the system database (``engine_hooks``)
    engine_hooks=EngineHooks(package="dbos", base_suffixes=("Serializer",), keywords=("serializer",),
                             callee_suffixes=("Serializer",), registered=()),
    summary="@DBOS.workflow(); @DBOS.step()/@DBOS.transaction() steps; workflows reached are children",
)
