"""Temporal engine hooks (``frameworks/engine_hooks.py``, breaker2's C21): first-party interceptors,
data converters, codecs and what is handed to the worker's/client's hook arguments are in the closure
of every workflow of the project, in both directions: an edit to such code changes every workflow's
hash; an edit to first-party code that is no hook (an activity executor, a TLS helper, a class that
only looks like one) changes nothing."""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path

import pytest

from loom_compiler.bundle.build import build_project
from loom_compiler.config import LoomConfig, load_config
from loom_compiler.fingerprint import fingerprint_project
from loom_compiler.frameworks import PROFILES

FLOWS = ("from temporalio import workflow\n\n\n@workflow.defn\nclass W:\n    @workflow.run\n"
         "    async def run(self, o: int) -> int:\n        return o\n")

INTERCEPTOR = '''from temporalio.worker import Interceptor, WorkflowInboundInterceptor

from shop.report import note


class _Inbound(WorkflowInboundInterceptor):
    async def execute_workflow(self, input):
        note("start")
        return await super().execute_workflow(input)


class SentryInterceptor(Interceptor):
    def workflow_interceptor_class(self, input):
        return _Inbound
'''

REPORT = "def note(what):\n    return what\n"

CODEC = '''from temporalio.converter import PayloadCodec


class EncryptionCodec(PayloadCodec):
    async def encode(self, payloads):
        return list(payloads)

    async def decode(self, payloads):
        return list(payloads)
'''

WORKER = '''from temporalio.client import Client
from temporalio.worker import Worker

from shop.flows import W


async def main():
    client = await Client.connect("localhost:7233")
    await Worker(client, task_queue="q", workflows=[W]).run()
'''


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in {"shop/__init__.py": "", "shop/flows.py": FLOWS, **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _code_hash(root: Path, files: dict[str, str], framework: str = "temporal") -> str:
    _write(root, files)
    extra = {"decorators": ("temporalio.workflow.run",)} if framework == "loom" else {}
    result = fingerprint_project([root], LoomConfig(root=root, packages=("shop",), framework=framework, **extra))
    assert not result.errors, [str(e) for e in result.errors]
    (fp,) = [f for f in result.flows if f.module == "shop.flows"]
    return fp.code_hash


def _moves(tmp_path: Path, before: dict[str, str], after: dict[str, str], framework: str = "temporal") -> bool:
    return _code_hash(tmp_path / "a", before, framework) != _code_hash(tmp_path / "b", after, framework)


def _edit(files: dict[str, str], name: str, old: str, new: str) -> dict[str, str]:
    assert files[name].count(old) == 1, (name, old)
    return {**files, name: files[name].replace(old, new)}


# -- hooks by their base class: nothing imports them, the engine runs them around every workflow --
BY_BASE = {"shop/interceptor.py": INTERCEPTOR, "shop/report.py": REPORT, "shop/codec.py": CODEC}


@pytest.mark.parametrize("name, old, new", [
    ("shop/interceptor.py", "return await super().execute_workflow(input)", "return None"),  # C21's edit
    ("shop/interceptor.py", "return _Inbound", "return None"),
    ("shop/report.py", "return what", "return None"),  # what a hook reaches
    ("shop/codec.py", "async def decode(self, payloads):\n        return list(payloads)",
     "async def decode(self, payloads):\n        return list(reversed(payloads))"),
])
def test_a_hook_edit_changes_every_workflow(tmp_path: Path, name: str, old: str, new: str) -> None:
    assert _moves(tmp_path, BY_BASE, _edit(BY_BASE, name, old, new))


@pytest.mark.parametrize("head, base", [
    ("import temporalio.worker as tw\n", "tw.Interceptor"),
    ("import temporalio.worker\n", "temporalio.worker.WorkflowInboundInterceptor"),
    ("from temporalio import converter\n", "converter.CompositePayloadConverter"),
    ("from temporalio.converter import EncodingPayloadConverter as E\n", "E"),
    ("from temporalio.converter import DefaultFailureConverter\n", "DefaultFailureConverter"),
    ("from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner\n", "SandboxedWorkflowRunner"),
    ("from temporalio.plugin import SimplePlugin\n", "SimplePlugin"),
    ("from temporalio.contrib.opentelemetry import TracingInterceptor\n", "TracingInterceptor"),  # a subclass of a contrib hook
    ("from temporalio.converter import PayloadCodec\nfrom typing import Generic, TypeVar\nT = TypeVar('T')\n",
     "PayloadCodec, Generic[T]"),
])
def test_hook_base_spellings(tmp_path: Path, head: str, base: str) -> None:
    hook = f"{head}\n\nclass Mine({base}):\n    def go(self):\n        return 1\n"
    before = {"shop/hook.py": hook}
    assert _moves(tmp_path, before, _edit(before, "shop/hook.py", "return 1", "return 2")), base


def test_hooks_through_first_party_bases_and_re_exports(tmp_path: Path) -> None:
    files = {
        "shop/base.py": "from temporalio.worker import Interceptor\n\n\nclass Base(Interceptor):\n    pass\n",
        # neither module spells a marker: found through the names Base and Alias
        "shop/mine.py": "from shop.base import Base\n\n\nclass Mine(Base):\n    def go(self):\n        return 1\n",
        "shop/compat.py": "from temporalio.converter import PayloadCodec as Alias\n",
        "shop/other.py": "from shop.compat import Alias\n\n\nclass Other(Alias):\n    def go(self):\n        return 1\n",
    }
    for name in ("shop/mine.py", "shop/other.py"):
        assert _moves(tmp_path / name, files, _edit(files, name, "return 1", "return 2")), name


# -- first-party code handed to the worker's or client's hook arguments ---------------------------
@pytest.mark.parametrize("files, name", [
    # a class implementing the protocol without subclassing, passed by name
    ({"shop/hooks.py": "class Tracer:\n    def go(self):\n        return 1\n",
      "shop/worker.py": WORKER.replace("from shop.flows import W\n", "from shop.flows import W\nfrom shop.hooks import Tracer\n")
      .replace('workflows=[W])', 'workflows=[W], interceptors=[Tracer()])')}, "shop/hooks.py"),
    # a local import, a local variable through dataclasses.replace, Client.connect(data_converter=...)
    ({"shop/hooks.py": "class Codec:\n    def go(self):\n        return 1\n",
      "shop/worker.py": WORKER.replace('    client = await Client.connect("localhost:7233")\n',
                                       "    import dataclasses\n    import temporalio.converter\n"
                                       "    from shop.hooks import Codec\n    codec = Codec()\n"
                                       "    converter = dataclasses.replace(temporalio.converter.default(), payload_codec=codec)\n"
                                       '    client = await Client.connect("localhost:7233", data_converter=converter)\n')},
     "shop/hooks.py"),
    # a module-level converter object built by DataConverter(...) with a first-party class
    ({"shop/shared.py": "from temporalio.converter import DataConverter\n\n\nclass Conv:\n    def go(self):\n"
                        "        return 1\n\n\nconverter = DataConverter(payload_converter_class=Conv)\n",
      "shop/worker.py": WORKER.replace("from shop.flows import W\n", "from shop.flows import W\nfrom shop.shared import converter\n")
      .replace('Client.connect("localhost:7233")', 'Client.connect("localhost:7233", data_converter=converter)')},
     "shop/shared.py"),
    # a class defined in the function that hands it over: the whole function
    ({"shop/worker.py": WORKER.replace("async def main():\n", "async def main():\n    class Local:\n"
                                       "        def go(self):\n            return 1\n\n")
      .replace('workflows=[W])', 'workflows=[W], interceptors=[Local()])')}, "shop/worker.py"),
    # a factory function handed to a plugin's constructor
    ({"shop/hooks.py": "def make():\n    return 1\n",
      "shop/worker.py": WORKER.replace("from shop.flows import W\n",
                                       "from shop.flows import W\nfrom shop.hooks import make\nfrom temporalio.plugin import SimplePlugin\n")
      .replace('workflows=[W])', 'workflows=[W], plugins=[SimplePlugin("p", data_converter=make())])')}, "shop/hooks.py"),
])
def test_code_handed_to_the_engine_is_a_hook(tmp_path: Path, files: dict[str, str], name: str) -> None:
    assert _moves(tmp_path, files, _edit(files, name, "return 1", "return 2"))


MAIN_BLOCK = {
    "shop/codec.py": CODEC,
    "shop/factory.py": "def make(codec):\n    return codec\n",
    # the worker registers another workflow (V); W is in no worker this project shows
    "shop/other.py": FLOWS.replace("class W", "class V"),
    "shop/worker.py": WORKER.replace("from shop.flows import W\n", "import asyncio\n\nfrom shop.codec import EncryptionCodec\n"
                                     "from shop.factory import make\nfrom shop.other import V\n")
    .replace("workflows=[W]", "workflows=[V]")
    .replace('Client.connect("localhost:7233")', 'Client.connect("localhost:7233", data_converter=make(EncryptionCodec()))')
    .replace("async def main():\n", "async def main():\n    x = 1\n")
    + '\n\nif __name__ == "__main__":\n    asyncio.run(main())\n',
}


def test_the_worker_script_that_hands_a_hook_over_is_not_a_hook(tmp_path: Path) -> None:
    """The codec a worker's ``main()`` hands to ``Client.connect`` (and the factory it goes
    through) is a hook of every workflow; ``main()`` itself is not, although fp/2's main-block rule
    ties the ``if __name__`` block to what ``main`` passes on (so ``V``, which it registers, does
    reach it): an edit of every worker script would otherwise move every workflow."""
    files = MAIN_BLOCK
    assert not _moves(tmp_path / "main", files, _edit(files, "shop/worker.py", "x = 1", "x = 2"))
    assert _moves(tmp_path / "codec", files, _edit(files, "shop/codec.py", "return list(payloads)\n\n    async def decode",
                                                   "return list(reversed(payloads))\n\n    async def decode"))
    assert _moves(tmp_path / "factory", files, _edit(files, "shop/factory.py", "return codec", "return None"))


PATCHED_CODEC = {"shop/codec.py": CODEC + """

async def _decode(self, payloads):
    return list(payloads)


EncryptionCodec.decode = _decode
EncryptionCodec.KEY = b"a"
"""}


@pytest.mark.parametrize("old, new", [
    ("async def _decode(self, payloads):\n    return list(payloads)",
     "async def _decode(self, payloads):\n    return list(reversed(payloads))"),  # what the store installs
    ('EncryptionCodec.KEY = b"a"', 'EncryptionCodec.KEY = b"b"'),
])
def test_a_statement_of_the_hooks_module_that_changes_it_is_part_of_the_hook(tmp_path: Path, old: str, new: str) -> None:
    """A hook is the statements that bind it AND those of its module that store into it or name it
    (review, session 4: ``#defined`` kept only the binders, so ``EncryptionCodec.decode = _decode``
    was no workflow's); the worker script's main block, tied to the hook only through what its
    ``main()`` passes on, stays out (``test_the_worker_script_that_hands_a_hook_over_is_not_a_hook``)."""
    assert _moves(tmp_path, PATCHED_CODEC, _edit(PATCHED_CODEC, "shop/codec.py", old, new))


def test_a_with_target_handed_over_is_followed_to_its_value(tmp_path: Path) -> None:
    files = {"shop/hooks.py": "class Tracer:\n    def __enter__(self):\n        return self\n\n    def __exit__(self, *a):\n"
                              "        return None\n\n    def go(self):\n        return 1\n",
             "shop/worker.py": WORKER.replace("from shop.flows import W\n", "from shop.flows import W\nfrom shop.hooks import Tracer\n")
             .replace('    await Worker(client, task_queue="q", workflows=[W]).run()\n',
                      '    with Tracer() as tracer:\n        await Worker(client, task_queue="q", workflows=[W], interceptors=[tracer]).run()\n')}
    assert _moves(tmp_path, files, _edit(files, "shop/hooks.py", "return 1", "return 2"))


def test_a_hook_added_or_removed_changes_every_workflow(tmp_path: Path) -> None:
    plain = {"shop/report.py": REPORT}
    hooked = {**plain, "shop/interceptor.py": INTERCEPTOR}
    assert _code_hash(tmp_path / "a", plain) != _code_hash(tmp_path / "b", hooked)


# -- no false widening -------------------------------------------------------------------------------
@pytest.mark.parametrize("files, name", [
    # a first-party activity executor: it runs activities, never a workflow
    ({"shop/hooks.py": "from concurrent.futures import ThreadPoolExecutor\n\n\nclass Pool(ThreadPoolExecutor):\n"
                       "    def go(self):\n        return 1\n",
      "shop/worker.py": WORKER.replace("from shop.flows import W\n", "from shop.flows import W\nfrom shop.hooks import Pool\n")
      .replace('workflows=[W])', 'workflows=[W], activity_executor=Pool())')}, "shop/hooks.py"),
    # connection settings computed by first-party code
    ({"shop/hooks.py": "def tls():\n    return 1\n",
      "shop/worker.py": WORKER.replace("from shop.flows import W\n", "from shop.flows import W\nfrom shop.hooks import tls\n")
      .replace('Client.connect("localhost:7233")', 'Client.connect("localhost:7233", tls=tls(), namespace="n")')},
     "shop/hooks.py"),
    # activities registered with the worker: served from history (step bodies)
    ({"shop/acts.py": "from temporalio import activity\n\n\n@activity.defn\nasync def act() -> int:\n    return 1\n",
      "shop/worker.py": WORKER.replace("from shop.flows import W\n", "from shop.flows import W\nfrom shop.acts import act\n")
      .replace('workflows=[W])', 'workflows=[W], activities=[act])')}, "shop/acts.py"),
    # named like a hook, neither based on one nor handed to the engine
    ({"shop/hooks.py": "class MyInterceptor:\n    def go(self):\n        return 1\n", "shop/worker.py": WORKER},
     "shop/hooks.py"),
    # a subclass of a temporalio class that is no hook
    ({"shop/hooks.py": "from temporalio.exceptions import ApplicationError\n\n\nclass Oops(ApplicationError):\n"
                       "    def go(self):\n        return 1\n"}, "shop/hooks.py"),
    # the worker's own main: not a hook (connect and run are engine configuration)
    ({"shop/worker.py": WORKER.replace("async def main():\n", "async def main():\n    x = 1\n")}, "shop/worker.py"),
])
def test_first_party_code_that_is_no_hook_changes_nothing(tmp_path: Path, files: dict[str, str], name: str) -> None:
    old = "return 1" if "return 1" in files[name] else "x = 1"
    assert not _moves(tmp_path, files, _edit(files, name, old, old.replace("1", "2")))


def test_a_dbos_serializer_is_in_every_workflow(tmp_path: Path) -> None:
    """DBOS's equivalent of a data converter: a ``dbos.Serializer`` subclass decodes what recovery
    serves; it is handed over in the config dict, so its base class finds it."""
    files = {
        "shop/flows.py": "from dbos import DBOS\n\n\n@DBOS.workflow()\ndef w(o):\n    return o\n",
        "shop/ser.py": "import json\n\nfrom dbos import Serializer\n\n\nclass Mine(Serializer):\n    def serialize(self, data):\n"
                       "        return json.dumps(data)\n\n    def deserialize(self, text):\n        return json.loads(text)\n",
        "shop/main.py": "from dbos import DBOS\n\nfrom shop.ser import Mine\n\nDBOS(config={'name': 'x', 'serializer': Mine()})\n",
        "shop/other.py": "import json\n\n\nclass Plain:\n    def deserialize(self, text):\n        return json.loads(text)\n",
    }

    def code_hash(root: Path, given: dict[str, str]) -> str:
        _write(root, given)
        result = fingerprint_project([root], LoomConfig(root=root, packages=("shop",), framework="dbos"))
        assert not result.errors, [str(e) for e in result.errors]
        (fp,) = result.flows
        return fp.code_hash

    base = code_hash(tmp_path / "a", files)
    assert code_hash(tmp_path / "b", _edit(files, "shop/ser.py", "return json.loads(text)", "return text")) != base
    assert code_hash(tmp_path / "c", _edit(files, "shop/other.py", "return json.loads(text)", "return text")) == base


def test_hooks_only_under_the_temporal_profile(tmp_path: Path) -> None:
    after = _edit(BY_BASE, "shop/interceptor.py", "return await super().execute_workflow(input)", "return None")
    assert not _moves(tmp_path, BY_BASE, after, framework="loom")  # no profile: the interceptor is no flow code


def test_hook_members_say_why(tmp_path: Path) -> None:
    _write(tmp_path, BY_BASE)
    result = fingerprint_project([tmp_path], LoomConfig(root=tmp_path, packages=("shop",), framework="temporal"))
    (fp,) = result.flows
    reasons = {m.qualname: m.reason for m in fp.closure}
    # a hook is the statements that define it (``#defined``), and what they reach
    for hook in ("shop.interceptor.SentryInterceptor", "shop.interceptor._Inbound", "shop.codec.EncryptionCodec"):
        assert reasons[hook + "#defined"].startswith("engine hook"), (hook, reasons)
    assert "shop.report.note" in reasons  # reached by a hook's code


# -- the build's cache: a hook added anywhere is a dependency of every workflow ---------------------
def test_the_build_cache_sees_a_hook_added_elsewhere(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.loom]\nframework = "temporal"\npackages = ["shop"]\n', encoding="utf-8")
    _write(tmp_path, {"shop/report.py": REPORT})

    def build() -> tuple[str, list[str]]:
        report = build_project(load_config(tmp_path))
        assert report.ok, report.errors
        (fp,) = report.flows
        return fp.code_hash, list(report.refingerprinted)

    first, _ = build()
    (tmp_path / "shop" / "notes.py").write_text("X = 1\n", encoding="utf-8")  # spells no marker
    again, refingerprinted = build()
    assert again == first and "shop.flows" not in refingerprinted  # the cached fingerprint stands
    (tmp_path / "shop" / "interceptor.py").write_text(INTERCEPTOR, encoding="utf-8")
    hooked, refingerprinted = build()
    assert hooked != first and "shop.flows" in refingerprinted
    (tmp_path / "shop" / "interceptor.py").write_text(INTERCEPTOR.replace("return _Inbound", "return None"), encoding="utf-8")
    assert build()[0] != hooked


#: parameters of the real API that take code which never runs around a workflow, and why
_NOT_HOOKS = {
    "on_fatal_error": "called when the worker itself fails, outside every workflow activation",
    "run_context": "SimplePlugin's context around the worker's whole run, not a workflow activation",
}


# -- the real temporalio API ---------------------------------------------------------------------------
def test_the_profile_knows_every_hook_argument_of_the_real_api() -> None:
    """Every parameter of temporalio's worker/client/converter configuration that takes code the
    engine runs around workflows is a hook keyword of the profile, and the SDK's hook classes are
    hook bases: a new SDK release that adds one fails here."""
    if importlib.util.find_spec("temporalio") is None:
        pytest.skip("temporalio is not installed (pip install -r .ci/engines.txt)")
    import temporalio.client
    import temporalio.converter
    import temporalio.plugin
    import temporalio.testing
    import temporalio.worker
    from temporalio.worker import workflow_sandbox

    hooks = PROFILES["temporal"].engine_hooks
    assert hooks is not None
    code = ("Interceptor", "Converter", "Codec", "Runner", "Plugin", "Storage", "JSONEncoder", "JSONDecoder",
            "BaseException", "PatchActivationInput", "ThreadPoolExecutor", "SandboxRestrictions")
    for fn in (temporalio.worker.Worker.__init__, temporalio.worker.Replayer.__init__, temporalio.client.Client.connect,
               temporalio.client.Client.__init__, temporalio.converter.DataConverter,
               temporalio.converter.JSONPlainPayloadConverter.__init__, temporalio.plugin.SimplePlugin.__init__,
               workflow_sandbox.SandboxedWorkflowRunner, temporalio.testing.WorkflowEnvironment.start_local):
        for name, param in inspect.signature(fn).parameters.items():
            annotation = str(param.annotation)
            takes_code = any(word in annotation for word in code) and "activity" not in name and "nexus" not in name
            if takes_code and name not in hooks.registered and name not in _NOT_HOOKS:
                assert name in hooks.keywords, (fn.__qualname__, name, annotation)
    for cls in (temporalio.worker.Interceptor, temporalio.worker.WorkflowInboundInterceptor,
                temporalio.worker.WorkflowOutboundInterceptor, temporalio.client.Interceptor,
                temporalio.converter.PayloadCodec, temporalio.converter.PayloadConverter,
                temporalio.converter.CompositePayloadConverter, temporalio.converter.EncodingPayloadConverter,
                temporalio.converter.DefaultFailureConverter, temporalio.converter.FailureConverter,
                temporalio.converter.JSONTypeConverter, temporalio.converter.AdvancedJSONEncoder,
                temporalio.worker.WorkflowRunner, workflow_sandbox.SandboxedWorkflowRunner,
                temporalio.plugin.SimplePlugin, temporalio.worker.Plugin, temporalio.client.Plugin):
        public = next(f"{m}.{cls.__name__}" for m in ("temporalio.worker", "temporalio.client", "temporalio.converter",
                                                       "temporalio.plugin", "temporalio.worker.workflow_sandbox")
                      if getattr(__import__(m, fromlist=["x"]), cls.__name__, None) is cls)
        assert hooks.is_base(public), public


def test_the_dbos_serializer_hook_is_the_real_api() -> None:
    if importlib.util.find_spec("dbos") is None:
        pytest.skip("dbos is not installed (pip install -r .ci/engines.txt)")
    import dbos

    hooks = PROFILES["dbos"].engine_hooks
    assert hooks is not None and hooks.is_base(f"dbos.{dbos.Serializer.__name__}")
    assert "serializer" in dbos.DBOSConfig.__annotations__  # handed over in the config dict
    assert issubclass(dbos.DBOSPortableJSONSerializer, dbos.Serializer)


def test_a_hook_defined_in_the_worker_script_brings_only_its_definition(tmp_path: Path) -> None:
    """A codec class the worker script itself defines and its ``main()`` hands over: the class is a
    hook (``#defined``: the statements that define it); the ``if __name__`` block that, by fp/2's
    call rule, may change it (it runs ``main()``, which hands the class to a call) is not."""
    worker = (CODEC + "\n\n" + WORKER.replace("from temporalio.client import Client\n", "import asyncio\n\nfrom temporalio.client import Client\n")
              .replace("from shop.flows import W\n", "from shop.other import V\n").replace("workflows=[W]", "workflows=[V]")
              .replace('Client.connect("localhost:7233")', 'Client.connect("localhost:7233", data_converter=EncryptionCodec())')
              .replace("async def main():\n", "async def main():\n    x = 1\n")
              + '\n\nif __name__ == "__main__":\n    asyncio.run(main())\n')
    files = {"shop/other.py": FLOWS.replace("class W", "class V"), "shop/worker.py": worker}
    assert not _moves(tmp_path / "main", files, _edit(files, "shop/worker.py", "x = 1", "x = 2"))
    assert _moves(tmp_path / "codec", files, _edit(files, "shop/worker.py", "return list(payloads)\n\n    async def decode",
                                                   "return list(reversed(payloads))\n\n    async def decode"))


# -- what is handed to the engine's configuration, code or not (breaker3's D1) -----------------------
CONFIGURED = '''from temporalio.client import Client
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

from shop.flows import W


async def main():
    client = await Client.connect("localhost:7233", namespace="default", identity="a")
    runner = UnsandboxedWorkflowRunner()
    await Worker(client, task_queue="q", workflows=[W], workflow_failure_exception_types=[ValueError],
                 workflow_runner=runner, max_concurrent_activities=1, graceful_shutdown_timeout=None).run()
'''


@pytest.mark.parametrize("old, new", [
    ("workflow_failure_exception_types=[ValueError]", "workflow_failure_exception_types=[KeyError]"),
    # a local followed to its value
    ("runner = UnsandboxedWorkflowRunner()", "runner = UnsandboxedWorkflowRunner(); runner = None"),
    # the same spelling, another class: the qualified name a name resolves to is hashed
    ("from temporalio.worker import UnsandboxedWorkflowRunner, Worker",
     "from temporalio.worker import Worker\nfrom temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner as UnsandboxedWorkflowRunner"),
    # the sandbox relaxed by the debug mode; an unsafe eviction
    ("max_concurrent_activities=1", "max_concurrent_activities=1, debug_mode=True"),
    ("max_concurrent_activities=1", "max_concurrent_activities=1, disable_safe_workflow_eviction=True"),
    # a keyword no SDK release this profile knows: behaviour until it is classified
    ("max_concurrent_activities=1", "max_concurrent_activities=1, workflow_future_option=2"),
    ('namespace="default"', 'namespace="default", header_codec_behavior=HeaderCodecBehavior.CODEC'),
])
def test_an_engine_configuration_value_edit_changes_every_workflow(tmp_path: Path, old: str, new: str) -> None:
    files = {"shop/worker.py": CONFIGURED}
    assert _moves(tmp_path, files, _edit(files, "shop/worker.py", old, new))


@pytest.mark.parametrize("old, new", [
    ('task_queue="q"', 'task_queue="r"'),
    ("max_concurrent_activities=1", "max_concurrent_activities=2"),
    ("graceful_shutdown_timeout=None", "graceful_shutdown_timeout=5"),
    ('namespace="default"', 'namespace="prod"'),
    ('identity="a"', 'identity="b"'),
    ('"localhost:7233"', '"temporal:7233"'),
    # the worker registering more workflows: the workflows themselves are flows
    ("workflows=[W]", "workflows=[W, W]"),
])
def test_an_operational_setting_changes_nothing(tmp_path: Path, old: str, new: str) -> None:
    files = {"shop/worker.py": CONFIGURED}
    assert not _moves(tmp_path, files, _edit(files, "shop/worker.py", old, new))


def test_configuration_values_handed_through_a_mapping_or_a_module_constant(tmp_path: Path) -> None:
    """``Worker(client, **OPTIONS)`` hands over whatever the mapping holds (a hook keyword among
    them); a module-level constant handed to a hook keyword is its statements."""
    mapping = {"shop/worker.py": CONFIGURED.replace("async def main():\n", "OPTIONS = {'workflow_failure_exception_types': [ValueError]}\n\n\nasync def main():\n")
               .replace("max_concurrent_activities=1,", "max_concurrent_activities=1, **OPTIONS,")}
    assert _moves(tmp_path / "map", mapping, _edit(mapping, "shop/worker.py", "[ValueError]}", "[]}"))
    constant = {"shop/worker.py": CONFIGURED.replace("async def main():\n", "TYPES = [ValueError]\n\n\nasync def main():\n")
                .replace("workflow_failure_exception_types=[ValueError]", "workflow_failure_exception_types=TYPES")}
    assert _moves(tmp_path / "const", constant, _edit(constant, "shop/worker.py", "TYPES = [ValueError]", "TYPES = []"))


def test_a_value_handed_to_no_engine_call_changes_nothing(tmp_path: Path) -> None:
    """A hook keyword handed to a callee that is certainly not the engine's (another library's
    function, a builtin) is no engine configuration; an operational keyword handed to first-party
    code is nothing either."""
    files = {"shop/worker.py": CONFIGURED.replace("from shop.flows import W\n", "import mylib\n\nfrom shop.flows import W\n")
             + "\n\ndef other(**kw):\n    return kw\n\n\ndef use():\n"
               "    return mylib.run(workflow_failure_exception_types=[ValueError]), dict(interceptors=[1]), other(task_queue='q')\n"}
    for old, new in [("mylib.run(workflow_failure_exception_types=[ValueError])", "mylib.run(workflow_failure_exception_types=[])"),
                     ("interceptors=[1]", "interceptors=[2]"), ("other(task_queue='q')", "other(task_queue='r')")]:
        assert not _moves(tmp_path / str(len(old)), files, _edit(files, "shop/worker.py", old, new)), old


def test_a_hook_keyword_handed_to_first_party_code_counts(tmp_path: Path) -> None:
    """First-party code handed a hook keyword may hand it on to the engine (a wrapper around
    ``Worker``) or be the engine's callable re-exported under another name: widened, across
    modules decided only later, so the argument is hashed and followed."""
    wrapper = {**PROTOCOL, "shop/make.py": "from temporalio.worker import Worker\n\n\ndef make_worker(client, **kw):\n"
                                           "    return Worker(client, task_queue='q', **kw)\n",
               "shop/worker.py": "from shop.hooks import Tracer\nfrom shop.make import make_worker\n\n\nasync def main(client):\n"
                                 "    await make_worker(client, interceptors=[Tracer()]).run()\n"}
    assert _moves(tmp_path / "wrap", wrapper, _edit(wrapper, "shop/hooks.py", "return 1", "return 2"))
    reexport = {"shop/compat.py": "from temporalio.worker import Worker as Engine\n",
                "shop/worker.py": "from shop.compat import Engine\n\n\nasync def main(client):\n"
                                  "    await Engine(client, task_queue='q', workflow_failure_exception_types=[ValueError]).run()\n"}
    assert _moves(tmp_path / "re", reexport, _edit(reexport, "shop/worker.py", "[ValueError]", "[]"))


# -- the engine's configuration callable spelled otherwise (breaker3's D2) ---------------------------
PROTOCOL = {"shop/hooks.py": "class Tracer:\n    def go(self):\n        return 1\n"}
_D2_HEAD = ("import functools\n\nfrom temporalio.client import Client\nfrom temporalio.worker import Worker\n\n"
            "from shop.flows import W\nfrom shop.hooks import Tracer\n\n\n")


@pytest.mark.parametrize("body", [
    # a module-level alias, a partial called later with the hook, a partial called on the spot
    "W2 = Worker\n\n\nasync def main(client):\n    await W2(client, task_queue='q', workflows=[W], interceptors=[Tracer()]).run()\n",
    "async def main(client):\n    make = functools.partial(Worker, client, task_queue='q')\n"
    "    await make(workflows=[W], interceptors=[Tracer()]).run()\n",
    "async def main(client):\n    await functools.partial(Worker, client)(task_queue='q', interceptors=[Tracer()]).run()\n",
    # a local import of the class under another name, then an alias of the alias
    "async def main(client):\n    from temporalio.worker import Worker as Wk\n    cls = Wk\n    other = cls\n"
    "    await other(client, task_queue='q', interceptors=[Tracer()]).run()\n",
    # the callee cannot be decided (a parameter): it may be the engine's, so a hook keyword counts
    "async def main(client, factory):\n    await factory(client, task_queue='q', interceptors=[Tracer()]).run()\n",
])
def test_the_engine_reached_by_binding_not_by_spelling(tmp_path: Path, body: str) -> None:
    files = {**PROTOCOL, "shop/worker.py": _D2_HEAD + body}
    assert _moves(tmp_path, files, _edit(files, "shop/hooks.py", "return 1", "return 2")), body


@pytest.mark.parametrize("body", [
    # an alias of something else, a partial of something else: decided, not the engine's
    "async def main(client):\n    cls = dict\n    return cls(interceptors=[Tracer()])\n",
    "import mylib\n\n\nasync def main(client):\n    return functools.partial(mylib.run, interceptors=[Tracer()])()\n",
    # an undecided callee handed no hook keyword
    "async def main(client, factory):\n    return factory(client, task_queue='q', tracer=Tracer())\n",
])
def test_a_callee_that_is_not_the_engine_changes_nothing(tmp_path: Path, body: str) -> None:
    files = {**PROTOCOL, "shop/worker.py": _D2_HEAD + body}
    assert not _moves(tmp_path, files, _edit(files, "shop/hooks.py", "return 1", "return 2")), body


# -- a hook base bound by a star import (breaker3's D3) ----------------------------------------------
@pytest.mark.parametrize("head, base, hook", [
    ("from temporalio.worker import *\n", "Interceptor", True),
    ("from temporalio.converter import *\n", "PayloadCodec", True),
    # a star import of another library, or a temporalio class that is no hook
    ("from mylib.worker import *\n", "Interceptor", False),
    ("from temporalio.exceptions import *\n", "ApplicationError", False),
])
def test_a_hook_base_from_a_star_import(tmp_path: Path, head: str, base: str, hook: bool) -> None:
    before = {"shop/hook.py": f"{head}\n\nclass Mine({base}):\n    def go(self):\n        return 1\n"}
    assert _moves(tmp_path, before, _edit(before, "shop/hook.py", "return 1", "return 2")) is hook


def test_every_parameter_of_the_real_configuration_api_is_classified() -> None:
    """Each keyword of temporalio's configuration callables is either hashed into every workflow
    (a hook keyword, or any keyword not listed operational) or operational; an operational one
    takes no code, and a later SDK's new keyword is hashed until it is listed (``takes``)."""
    if importlib.util.find_spec("temporalio") is None:
        pytest.skip("temporalio is not installed (pip install -r .ci/engines.txt)")
    import temporalio.client
    import temporalio.testing
    import temporalio.worker

    hooks = PROFILES["temporal"].engine_hooks
    assert hooks is not None
    for qualified, fn in [("temporalio.worker.Worker", temporalio.worker.Worker.__init__),
                          ("temporalio.worker.Replayer", temporalio.worker.Replayer.__init__),
                          ("temporalio.client.Client.connect", temporalio.client.Client.connect),
                          ("temporalio.client.Client", temporalio.client.Client.__init__),
                          ("temporalio.testing.WorkflowEnvironment.start_local", temporalio.testing.WorkflowEnvironment.start_local),
                          ("temporalio.testing.WorkflowEnvironment.start_time_skipping",
                           temporalio.testing.WorkflowEnvironment.start_time_skipping)]:
        assert hooks.configures(qualified), qualified
        for name, param in inspect.signature(fn).parameters.items():
            if param.kind is not inspect.Parameter.KEYWORD_ONLY:
                continue  # ``self``, the client, the target host: positional, operational
            if name in hooks.operational:
                assert not any(w in str(param.annotation) for w in ("Interceptor", "Converter", "Codec", "Runner", "Plugin")), name
                assert not hooks.takes(qualified, name), (qualified, name)
            else:
                assert hooks.takes(qualified, name) or name in hooks.registered, (qualified, name)
                # listed as a hook keyword too: handed to an undecided or first-party callee, it counts
                assert name in hooks.keywords or name in hooks.registered, (qualified, name)
    assert hooks.takes("temporalio.worker.Worker", "workflow_future_option")  # unknown: hashed
    assert not hooks.takes("temporalio.workflow.execute_activity", "workflow_future_option")  # not a configuration
