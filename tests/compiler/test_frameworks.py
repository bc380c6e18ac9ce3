"""Framework profiles (DESIGN §8): every spelling a user of each engine writes, and each closure rule
in both directions (the edit that must change a hash, the edit that must not)."""

from __future__ import annotations

from pathlib import Path

import pytest

from loom_compiler.config import LoomConfig, load_config
from loom_compiler.fingerprint import fingerprint_module
from loom_compiler.frameworks import FRAMEWORKS, PROFILES
from loom_runtime import ConfigError


def _config(framework: str) -> LoomConfig:
    return LoomConfig(root=Path("."), framework=framework, packages=("m",))


def _flows(source: str, framework: str) -> dict[str, str]:
    result = fingerprint_module(source, module="m", path="m.py", config=_config(framework))
    assert not result.errors, result.errors
    return {f.flow_id: f.code_hash for f in result.flows}


def _closure(source: str, framework: str, flow: str) -> dict[str, str]:
    result = fingerprint_module(source, module="m", path="m.py", config=_config(framework))
    assert not result.errors, result.errors
    (fp,) = [f for f in result.flows if f.flow_id == flow]
    return {m.qualname: m.kind for m in fp.closure}


# -- configuration ------------------------------------------------------------------------------
def test_framework_values_and_the_unknown_one(tmp_path: Path) -> None:
    assert FRAMEWORKS == ("loom", "dbos", "prefect", "temporal") and set(PROFILES) == set(FRAMEWORKS)
    (tmp_path / "pyproject.toml").write_text('[tool.loom]\nframework = "temporal"\ndecorators = ["my.flow"]\n')
    config = load_config(tmp_path)
    assert config.decorators == ("temporalio.workflow.run", "my.flow")  # explicit ones extend the profile
    assert config.step_decorators == ("temporalio.activity.defn",)
    assert load_config(tmp_path, framework="dbos").decorators == ("dbos.DBOS.workflow", "my.flow")
    (tmp_path / "pyproject.toml").write_text('[tool.loom]\nframework = "Temporal"\n')
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path)
    assert err.value.key == "tool.loom.framework"
    assert "'loom', 'dbos', 'prefect', 'temporal'" in str(err.value) and "'Temporal'" in str(err.value)
    (tmp_path / "pyproject.toml").write_text("[tool.loom]\nframework = 3\n")
    with pytest.raises(ConfigError, match="tool.loom.framework"):
        load_config(tmp_path)
    assert LoomConfig(root=tmp_path).framework == "loom"  # the default


def test_the_framework_is_in_the_cache_digest() -> None:
    assert len({_config(f).digest for f in FRAMEWORKS}) == len(FRAMEWORKS)


# -- Temporal -------------------------------------------------------------------------------------
TEMPORAL = '''
from datetime import timedelta
from temporalio import activity, workflow

@activity.defn
async def charge(x: str) -> str:
    return x + "!"

class Db:
    def __init__(self, url):
        self.url = url

    @activity.defn
    async def save(self, x: str) -> str:
        return self.url + x

@workflow.defn(name="child-type")
class Child:
    @workflow.run
    async def run(self, x: str) -> str:
        return x

def tidy(item):
    return item.strip()

@workflow.defn
class Parent:
    def __init__(self) -> None:
        self.items = []

    @workflow.signal
    def add(self, item: str) -> None:
        self.items.append(tidy(item))

    @workflow.update
    async def bump(self, n: int) -> int:
        return n + 1

    @bump.validator
    def check(self, n: int) -> None:
        assert n > 0

    @workflow.query
    def size(self) -> int:
        return len(self.items)

    def unused(self) -> int:
        return 1

    @workflow.run
    async def run(self, x: str) -> str:
        await workflow.execute_activity(charge, x, start_to_close_timeout=timedelta(seconds=5))
        await workflow.execute_activity_method(Db.save, x, start_to_close_timeout=timedelta(seconds=5))
        return await workflow.execute_child_workflow(Child.run, x)
'''


@pytest.mark.parametrize("old, new, changes", [
    ("self.items.append(tidy(item))", "self.items.insert(0, tidy(item))", True),  # signal handler
    ("return item.strip()", "return item.lower()", True),  # what a handler reaches
    ("return n + 1", "return n + 2", True),  # update handler
    ("assert n > 0", "assert n >= 0", True),  # its validator
    ("return len(self.items)", "return len(self.items) * 1", True),  # query (see temporal.py)
    ("self.items = []", "self.items = [None]", True),  # __init__
    ("timedelta(seconds=5))\n        await workflow.execute_activity_method", "timedelta(seconds=9))\n        await workflow.execute_activity_method", True),
    ('return x + "!"', 'return x + "?"', False),  # activity body
    ("return self.url + x", "return x + self.url", False),  # activity method body
    ("self.url = url", "self.url = url.lower()", False),  # the activity class's __init__
    ("        return x\n", "        return x * 2\n", False),  # the child's body
    ("return 1", "return 2", False),  # a method no handler or run reaches
])
def test_temporal_closure(old: str, new: str, changes: bool) -> None:
    assert TEMPORAL.count(old) == 1
    before = _flows(TEMPORAL, "temporal")["Parent"]
    after = _flows(TEMPORAL.replace(old, new), "temporal")["Parent"]
    assert (before != after) is changes


def test_temporal_default_profile_was_unsafe_and_wide() -> None:
    # under the loom profile with the decorator listed the handlers are outside (the bug)
    loom = LoomConfig(root=Path("."), decorators=("temporalio.workflow.run",), packages=("m",))
    before = fingerprint_module(TEMPORAL, module="m", path="m.py", config=loom).flows
    after = fingerprint_module(TEMPORAL.replace("return n + 1", "return n + 2"), module="m", path="m.py", config=loom).flows
    assert [f.code_hash for f in before] == [f.code_hash for f in after]
    assert {f.flow_id for f in before} == {"m:Parent.run", "m:Child.run"}


def test_temporal_flow_ids_and_members() -> None:
    assert set(_flows(TEMPORAL, "temporal")) == {"Parent", "child-type"}
    closure = _closure(TEMPORAL, "temporal", "Parent")
    assert closure["m.Db.save"] == "step" and closure["m.charge"] == "step"
    assert closure["m.Child.run#child"] == "step"
    assert "m.Db" not in closure and "m.Db.__init__" not in closure and "m.Parent.unused" not in closure
    assert {"m.Parent.add", "m.Parent.bump", "m.Parent.check", "m.Parent.size", "m.Parent.__init__", "m.tidy"} <= set(closure)


@pytest.mark.parametrize("imports, prefix", [
    ("from temporalio import workflow, activity", "workflow"),
    ("import temporalio.workflow as wf\nfrom temporalio import activity", "wf"),
    ("import temporalio.workflow\nfrom temporalio import activity", "temporalio.workflow"),
])
def test_temporal_spellings(imports: str, prefix: str) -> None:
    src = f'''{imports}

@activity.defn(name="pay")
async def pay(x):
    return x

@activity.defn
async def ship(x):
    return x

@{prefix}.defn(name="orders")
class Orders:
    @{prefix}.signal(name="poke")
    def poke(self):
        self.n = 1

    @{prefix}.run
    async def run(self, x):
        await {prefix}.execute_activity(pay, x)
        await {prefix}.start_activity(ship, x)
        await {prefix}.execute_local_activity(activity=pay, arg=x)
        await {prefix}.start_local_activity("ship", x)
        await {prefix}.execute_activity("pay-by-name", x)
        return await {prefix}.start_child_workflow("child-type", x)
'''
    assert set(_flows(src, "temporal")) == {"orders"}
    closure = _closure(src, "temporal", "orders")
    assert closure["m.pay"] == "step" and closure["m.ship"] == "step" and "m.Orders.poke" in closure
    base = _flows(src, "temporal")["orders"]
    assert _flows(src.replace("self.n = 1", "self.n = 2"), "temporal")["orders"] != base  # handler
    assert _flows(src.replace("return x\n\n@activity.defn\n", "return x * 2\n\n@activity.defn\n"), "temporal")["orders"] == base
    assert _flows(src.replace('"pay-by-name"', '"pay-by-other"'), "temporal")["orders"] != base  # a type by string
    assert _flows(src.replace('name="pay"', 'name="pay2"'), "temporal")["orders"] != base  # the type history records


def test_temporal_name_only_without_the_decorator() -> None:
    # whatever is passed to execute_activity is an activity by name, even undecorated here
    # (``activity.defn`` applied elsewhere): its body is no part of the workflow
    src = '''from temporalio import workflow
from temporalio import activity

async def impl(x):
    return x

pay = activity.defn(name="pay")(impl)

@workflow.defn
class W:
    @workflow.run
    async def run(self, x):
        return await workflow.execute_activity(impl, x)
'''
    base = _flows(src, "temporal")["W"]
    assert _flows(src.replace("return x\n", "return x * 3\n", 1), "temporal")["W"] == base
    assert _closure(src, "temporal", "W")["m.impl"] == "step"
    # ...while a helper it calls directly stays in
    direct = src.replace("await workflow.execute_activity(impl, x)", "await impl(x)")
    assert _flows(direct.replace("return x\n", "return x * 3\n", 1), "temporal")["W"] != _flows(direct, "temporal")["W"]


def test_temporal_workflow_type_must_be_literal() -> None:
    src = "from temporalio import workflow\nN = 'x'\n@workflow.defn(name=N)\nclass W:\n    @workflow.run\n    async def run(self): pass\n"
    result = fingerprint_module(src, module="m", path="m.py", config=_config("temporal"))
    assert [(e.line, e.code) for e in result.errors] == [(3, "flow-id")] and "string literal" in result.errors[0].message


# -- DBOS -----------------------------------------------------------------------------------------
DBOS_SRC = '''from dbos import DBOS, Queue, SQLAlchemyDatasource

queue = Queue("q")
ds = SQLAlchemyDatasource.create("sqlite:///x.sqlite")

@DBOS.step
def bare(x):
    return x

@DBOS.step(retries_allowed=True)
def called(x):
    return x

@DBOS.transaction(isolation_level="REPEATABLE READ")
def old_txn(x):
    return x

@ds.transaction()
def new_txn(x):
    return x

@DBOS.workflow(name="kid")
def child(x):
    return x + 1

@DBOS.workflow()
def other(x):
    return x - 1

@DBOS.dbos_class()
class Shop:
    @DBOS.step()
    def pack(self, x):
        return x

    @DBOS.workflow()
    def run(self, x):
        bare(x)
        called(x)
        old_txn(x)
        new_txn(x)
        self.pack(x)
        DBOS.start_workflow(other, x)
        queue.enqueue(other, x)
        return child(x)
'''


@pytest.mark.parametrize("old, new, changes", [
    ("bare(x)\n", "bare(x + 1)\n", True),  # the workflow
    ("@DBOS.step(retries_allowed=True)", "@DBOS.step(retries_allowed=False)", True),  # a step's options
    ("def bare(x):\n    return x", "def bare(x):\n    return -x", False),  # step bodies
    ("def called(x):\n    return x", "def called(x):\n    return -x", False),
    ("def old_txn(x):\n    return x", "def old_txn(x):\n    return -x", False),  # transactions, both spellings
    ("def new_txn(x):\n    return x", "def new_txn(x):\n    return -x", False),
    ("def pack(self, x):\n        return x", "def pack(self, x):\n        return -x", False),  # a step method
    ("return x + 1", "return x + 2", False),  # a child called
    ("return x - 1", "return x - 2", False),  # a child started and enqueued
    ('@DBOS.workflow(name="kid")', '@DBOS.workflow(name="kid2")', True),  # the child's id
])
def test_dbos_closure(old: str, new: str, changes: bool) -> None:
    assert DBOS_SRC.count(old) == 1
    before = _flows(DBOS_SRC, "dbos")["m:Shop.run"]
    after = _flows(DBOS_SRC.replace(old, new), "dbos")["m:Shop.run"]
    assert (before != after) is changes


def test_dbos_members() -> None:
    closure = _closure(DBOS_SRC, "dbos", "m:Shop.run")
    for step in ("m.bare", "m.called", "m.old_txn", "m.new_txn", "m.Shop.pack"):
        assert closure[step] == "step", step
    assert closure["m.child#child"] == closure["m.other#child"] == "step"
    assert set(_flows(DBOS_SRC, "dbos")) == {"kid", "m:other", "m:Shop.run"}


def test_dbos_spellings() -> None:
    src = "import dbos\nfrom dbos import DBOS as D\n@dbos.DBOS.step()\ndef s(x): return x\n" \
          "@D.workflow\ndef w(x):\n    return s(x)\n"
    closure = _closure(src, "dbos", "m:w")
    assert closure["m.s"] == "step"


# -- DBOS 3: DBOS.run_step(options, fn, *args) runs a plain function as a step (C18) -----------------
RUN_STEP_SRC = '''from dbos import DBOS

def tag(fn):
    return fn

@tag
def fetch(x, scale=1):
    return x * scale

def other(x, scale=1):
    return x * scale

@DBOS.workflow()
def w(o):
    return DBOS.run_step({"name": "fetch", "max_attempts": 3}, fetch, o)
'''


@pytest.mark.parametrize("old, new, changes", [
    ("    return x * scale\n\ndef other", "    return -x * scale\n\ndef other", False),  # fn's body: served from the journal
    ("def fetch(x, scale=1)", "def fetch(x, scale=2)", True),  # its signature binds the arguments
    ("    return fn\n", "    return lambda *a: fn(*a) + 1\n", True),  # its decorator runs: followed, as a step's
    ("@tag\ndef fetch", "def fetch", True),  # its header lost a decorator
    ('"max_attempts": 3', '"max_attempts": 4', True),  # the step options: the workflow's own call
    ("}, fetch, o)", "}, other, o)", True),  # another function: another step name and code
    ("}, fetch, o)", "}, fetch, o + 1)", True),  # its arguments
])
def test_dbos_run_step_function_is_a_step(old: str, new: str, changes: bool) -> None:
    assert RUN_STEP_SRC.count(old) == 1
    before = _flows(RUN_STEP_SRC, "dbos")["m:w"]
    assert (_flows(RUN_STEP_SRC.replace(old, new), "dbos")["m:w"] != before) is changes


@pytest.mark.parametrize("call", [
    "DBOS.run_step(None, fetch, o)",
    "DBOS.run_step(None, fetch, o, scale=2)",
    "DBOS.run_step(dbos_step_options=None, func=fetch)",
    "DBOS.run_step(func=fetch, dbos_step_options={'name': 'f'})",
    "D.run_step(None, fetch, o)",  # from dbos import DBOS as D
    "dbos.DBOS.run_step(None, fetch, o)",  # import dbos
    "await DBOS.run_step_async(None, fetch, o)",
    "DBOS.run_step(None, steps.fetch, o)",  # a function of another module
])
def test_dbos_run_step_spellings(call: str) -> None:
    src = ("import dbos\nfrom dbos import DBOS\nfrom dbos import DBOS as D\nimport steps\n\ndef fetch(x, scale=1):\n"
           f"    return x\n\n@DBOS.workflow()\nasync def w(o):\n    return {call}\n")
    config = LoomConfig(root=Path("."), framework="dbos", packages=("m", "steps"))
    from loom_compiler.analysis import analyse_module
    from loom_compiler.fingerprint import fingerprint_flows

    steps = "def fetch(x, scale=1):\n    return x\n"

    def code_hash(flows_src: str, steps_src: str) -> str:
        summaries = {"m": analyse_module(flows_src, module="m", path="m.py", config=config),
                     "steps": analyse_module(steps_src, module="steps", path="steps.py", config=config)}
        flows, errors = fingerprint_flows({"m": summaries["m"]}, config, loader=summaries.get)
        assert not errors, errors
        (fp,) = flows
        return fp.code_hash

    base = code_hash(src, steps)
    body = src.replace("    return x\n\n@DBOS", "    return -x\n\n@DBOS")
    assert code_hash(body, steps.replace("return x", "return -x")) == base  # the body: served from the journal
    header = src.replace("def fetch(x, scale=1)", "def fetch(x, scale=2)")
    assert code_hash(header, steps.replace("scale=1", "scale=2")) != base  # the header: hashed


def test_run_step_is_an_ordinary_call_under_the_loom_profile() -> None:
    loom = LoomConfig(root=Path("."), decorators=("dbos.DBOS.workflow",), packages=("m",))
    body = RUN_STEP_SRC.replace("    return x * scale\n\ndef other", "    return -x * scale\n\ndef other")
    hashes = [fingerprint_module(s, module="m", path="m.py", config=loom).flows[0].code_hash for s in (RUN_STEP_SRC, body)]
    assert hashes[0] != hashes[1]  # no profile says it is a step: fetch is the flow's own code


def test_dbos_run_step_closure_member() -> None:
    closure = _closure(RUN_STEP_SRC, "dbos", "m:w")
    assert closure["m.fetch"] == "step"
    # a lambda or a partial given to run_step is workflow code: the function it calls is hashed whole
    for arg in ("lambda: fetch(o)", "functools.partial(fetch, o)"):
        src = "import functools\n" + RUN_STEP_SRC.replace("fetch, o)", f"{arg})")
        closure = _closure(src, "dbos", "m:w")
        assert closure["m.fetch"] == "function", arg


def test_dbos_run_step_matches_the_real_api() -> None:
    """The profile's argument spec is the installed DBOS's: ``run_step(dbos_step_options, func, ...)``."""
    dbos = pytest.importorskip("dbos", reason="dbos is not installed (pip install -r .ci/engines.txt)")
    import inspect

    from loom_compiler.frameworks import dbos as profile

    for name in ("run_step", "run_step_async"):
        params = list(inspect.signature(getattr(dbos.DBOS, name)).parameters)
        spec = profile.PROFILE.name_only_calls[f"dbos.DBOS.{name}"]
        assert spec.step and params[spec.position] == spec.keyword == "func", (name, params)


# -- Prefect --------------------------------------------------------------------------------------
def test_prefect_tasks_are_helpers() -> None:
    src = "from prefect import flow, task\n@task\ndef t(x):\n    return x\n@flow(name='etl')\ndef f(x):\n    return t(x)\n"
    base = _flows(src, "prefect")
    assert set(base) == {"etl"}
    assert _flows(src.replace("return x\n", "return -x\n", 1), "prefect")["etl"] != base["etl"]
    assert set(_flows(src.replace("from prefect import flow", "from prefect.flows import flow"), "prefect")) == {"etl"}
