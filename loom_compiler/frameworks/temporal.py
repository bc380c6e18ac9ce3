"""``framework = "temporal"``: Temporal's Python SDK (``temporalio``).

What Temporal replays is the workflow *object*: a worker rebuilds it (``__init__``, or the
``@workflow.init`` one) and re-runs ``run`` together with every signal and update handler
(and its validator) in the order history records them, all on the same state. So the workflow
class is the unit: those members, and whatever they reach, are in the closure of ``run``.

Queries are in it too. A query is not recorded in history, but it runs on the replayed state of a
pinned execution and answers for it: with Worker Versioning a pinned workflow's queries are served
by workers of its own build id, so a query edit that kept the build id would serve changed code
to executions pinned to the old one (DESIGN §6: the hash may change when behaviour did not, never
the reverse). The cost is a version more for a query-only edit.

Activities are effects recorded in history by their *type*: a function or method decorated with
``@activity.defn`` is a step, and whatever is passed to ``workflow.execute_activity*`` /
``start_activity*`` / ``execute_local_activity*`` / ``start_local_activity*`` (and their
``_method``/``_class`` forms) is referenced by name only: not its body, not its class or the
class's ``__init__``. A step's header stays hashed (as for every step, DESIGN §6): ``name=`` is
the type history records, and the return annotation decides how the recorded result is decoded
in the workflow. A child workflow (``execute_child_workflow``/``start_child_workflow``, also
``get_external_workflow_handle_for`` and ``continue_as_new(workflow=...)``, which all address
another history) is referenced by its workflow type, not its body. Activity options (timeouts,
retry policy) are call arguments like any other and stay in the canonical form.

Engine hooks (``engine_hooks``): a worker runs every workflow activation through its interceptors,
decodes every payload with its data converter and codec and runs the workflow in its workflow
runner, on a replay too. First-party subclasses of temporalio's interceptor, converter, codec,
runner and plugin classes, and first-party code given to the worker/client/converter
configuration (``Worker(interceptors=[...])``, ``Client.connect(data_converter=...)``,
``DataConverter(payload_codec=...)``), are in the closure of every workflow of the project; so is
the text of every argument of the worker/client configuration that is not operational
(``workflow_failure_exception_types=``, ``workflow_runner=``, a library data converter; not
``task_queue``, ``namespace``, ``max_concurrent_*``: ``_HOOKS.operational``), the worker reached
through an alias or ``functools.partial`` too.

The flow id of ``Cls.run`` is the workflow type: ``@workflow.defn(name="...")``, else the class
name, as the SDK derives it. ``temporalio.client.Client`` and ``temporalio.worker.Worker`` (and
the ``Replayer``) are opaque engine objects (``engine_config``).
"""

from __future__ import annotations

from collections.abc import Sequence

from .base import ClassDecorator, EngineHooks, FlowIdArgument, FlowIdError, NameOnlyArg, Profile

__all__ = ["PROFILE", "workflow_type"]

_WF = "temporalio.workflow"
_DEFN = f"{_WF}.defn"

_ACTIVITY_CALLS = [
    f"{_WF}.{verb}_{kind}{form}"
    for verb in ("execute", "start")
    for kind in ("activity", "local_activity")
    for form in ("", "_method", "_class")
]
_NAME_ONLY: dict[str, NameOnlyArg] = {name: NameOnlyArg(0, "activity") for name in _ACTIVITY_CALLS}
_NAME_ONLY.update({
    f"{_WF}.execute_child_workflow": NameOnlyArg(0, "workflow"),
    f"{_WF}.start_child_workflow": NameOnlyArg(0, "workflow"),
    f"{_WF}.get_external_workflow_handle_for": NameOnlyArg(0, "workflow"),
    # ``continue_as_new(arg, workflow=Other.run)``: a new run of (maybe another) type, its own history
    f"{_WF}.continue_as_new": NameOnlyArg(-1, "workflow"),
})


#: what of temporalio takes first-party code that runs around every workflow (``engine_hooks``)
_HOOKS = EngineHooks(
    package="temporalio",
    # worker/client interceptors (inbound, outbound, activity), payload/failure/data converters,
    # codecs, the JSON encoder and type converters of the JSON converter, external payload storage,
    # workflow runners and sandbox restrictions, plugins (which set all of these)
    base_suffixes=("Interceptor", "PayloadConverter", "PayloadCodec", "FailureConverter", "DataConverter",
                   "JSONEncoder", "TypeConverter", "StorageDriver", "ExternalStorage", "WorkflowRunner",
                   "SandboxRestrictions", "Plugin"),
    keywords=("interceptors", "data_converter", "payload_converter_class", "payload_codec", "failure_converter_class",
              "external_storage", "workflow_runner", "unsandboxed_workflow_runner", "runner_class", "restrictions",
              "plugins", "workflow_failure_exception_types", "patch_activation_callback", "workflow_task_executor",
              "encoder", "decoder", "custom_type_converters", "header_codec_behavior",
              # not code, but how every workflow runs: the debug mode relaxes the sandbox (breakpoint(),
              # passthrough modules); unsafe eviction runs a workflow's ``finally`` outside its loop
              "debug_mode", "disable_safe_workflow_eviction"),
    callee_suffixes=("Plugin", "Interceptor", "Converter", "Codec", "WorkflowRunner", "SandboxRestrictions"),
    # what registers the workflows and activities themselves (flows and steps, not hooks)
    registered=("workflows", "activities", "nexus_service_handlers", "task_queue"),
    # every keyword of these is hashed into every workflow but the operational ones below: what a
    # later SDK adds is behaviour until it is listed (tests/compiler/test_frameworks_hooks.py
    # classifies every parameter of the installed SDK's signatures)
    configurations=("worker.Worker", "worker.Replayer", "client.Client", "client.Client.connect",
                    "testing.WorkflowEnvironment.start_local", "testing.WorkflowEnvironment.start_time_skipping"),
    operational=(
        # where and as whom: routing, identity, connection, transport (never read by workflow code)
        "namespace", "identity", "build_id", "use_worker_versioning", "deployment_config", "target_host", "api_key",
        "tls", "retry_config", "keep_alive_config", "connect_timeout", "rpc_metadata", "lazy", "runtime",
        "http_connect_proxy_config", "dns_load_balancing_config", "grpc_compression", "payload_limits",
        "disable_payload_error_limit", "default_workflow_query_reject_condition",
        # how much and how fast: caches, concurrency, pollers, rates, timeouts
        "max_cached_workflows", "max_concurrent_workflow_tasks", "max_concurrent_activities",
        "max_concurrent_local_activities", "max_concurrent_nexus_tasks", "tuner", "max_concurrent_workflow_task_polls",
        "nonsticky_to_sticky_poll_ratio", "max_concurrent_activity_task_polls", "sticky_queue_schedule_to_start_timeout",
        "max_heartbeat_throttle_interval", "default_heartbeat_throttle_interval", "max_activities_per_second",
        "max_task_queue_activities_per_second", "max_eager_activity_reservations_per_workflow_task",
        "graceful_shutdown_timeout", "plugin_shutdown_timeout", "workflow_task_poller_behavior",
        "activity_task_poller_behavior", "nexus_task_poller_behavior", "max_workflow_task_external_storage_concurrency",
        "disable_eager_activity_execution", "no_remote_activities",
        # code that runs activities or Nexus tasks, or the worker itself, never a workflow activation
        "activity_executor", "nexus_task_executor", "shared_state_manager", "on_fatal_error",
        # the test servers' own settings
        "ip", "port", "ui", "ui_port", "download_dest_dir", "search_attributes", "dev_server_existing_path",
        "dev_server_database_filename", "dev_server_log_format", "dev_server_log_level", "dev_server_download_version",
        "dev_server_extra_args", "dev_server_download_ttl", "dev_server_startup_timeout", "test_server_existing_path",
        "test_server_download_version", "test_server_extra_args", "test_server_download_ttl",
        "test_server_startup_timeout"),
)


def workflow_type(decorators: Sequence[ClassDecorator], class_name: str | None) -> str | None:
    """The workflow type of a method flow's class: ``@workflow.defn(name="X")`` -> ``X``, else the
    class name (what ``temporalio`` registers and records in history)."""
    import libcst as cst  # here: the configuration imports this module without the parser

    from ..canonical import literal_string_value, nfkc

    for names, dec in decorators:
        if _DEFN not in names:
            continue
        if isinstance(dec.decorator, cst.Call):
            for arg in dec.decorator.args:
                if arg.keyword is not None and nfkc(arg.keyword.value) == "name":
                    value = literal_string_value(arg.value)
                    if not isinstance(value, str) or not value:
                        raise FlowIdError(
                            "@workflow.defn(name=...) must be a non-empty string literal (the workflow type is "
                            "the flow id, read without running your code)", arg.value)
                    return value
        break
    return class_name


PROFILE = Profile(
    name="temporal",
    flow_decorators=(f"{_WF}.run",),
    step_decorators=("temporalio.activity.defn",),
    handler_decorators=(f"{_WF}.signal", f"{_WF}.update", f"{_WF}.query", f"{_WF}.init"),
    validator_attributes=("validator",),
    name_only_calls=_NAME_ONLY,
    # ``@workflow.run`` takes no id (the workflow type is the class's); an argument it might be
    # given is behaviour like any other
    flow_id_argument=FlowIdArgument(positional=False, keywords=()),
    opaque=("temporalio.client.Client", "temporalio.worker.Worker", "temporalio.worker.Replayer"),
    flow_id=workflow_type,
    engine_hooks=_HOOKS,
    summary="temporalio.workflow.run in @workflow.defn classes; @activity.defn steps",
)
