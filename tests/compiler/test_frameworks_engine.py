"""The engine-configuration opacity rule (``frameworks/engine_config.py``), both directions: the
statements that only configure or launch the engine leave the workflows' closures; a statement that
hands first-party code to the engine, or changes first-party state, still counts."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from loom_compiler.config import LoomConfig
from loom_compiler.fingerprint import fingerprint_module
from loom_compiler.frameworks import PROFILES

APP = '''import uvicorn
from dbos import DBOS
from fastapi import FastAPI

app = FastAPI()
config = {"name": "shop", "system_database_url": "sqlite:///x.sqlite"}
DBOS(fastapi=app, config=config)

def render(x):
    return f"<{x}>"

@app.post("/orders")
def create(order: dict) -> str:
    return render(DBOS.start_workflow(checkout, order).workflow_id)

@DBOS.step()
def charge(order: dict) -> str:
    return order["id"]

@DBOS.workflow()
def checkout(order: dict) -> str:
    return charge(order)

if __name__ == "__main__":
    DBOS.launch()
    uvicorn.run(app, host="0.0.0.0")
'''


def _closure(source: str, framework: str = "dbos") -> tuple[str, set[str]]:
    config = LoomConfig(root=Path("."), framework=framework, packages=("m",))
    result = fingerprint_module(source, module="m", path="m.py", config=config)
    assert not result.errors, result.errors
    (fp,) = [f for f in result.flows if f.function == "checkout"]
    return fp.code_hash, {m.qualname for m in fp.closure}


def test_configuring_and_launching_the_engine_is_not_workflow_code(monkeypatch: pytest.MonkeyPatch) -> None:
    code, members = _closure(APP)
    assert "m.app" not in members and "m.create" not in members and "m.render" not in members
    assert "m.DBOS" not in members  # only its import target
    for old, new in [('"0.0.0.0"', '"127.0.0.1"'), ('"sqlite:///x.sqlite"', '"sqlite:///y.sqlite"'),
                     ("return f\"<{x}>\"", "return f\"[{x}]\""), ('@app.post("/orders")', '@app.put("/orders")')]:
        assert _closure(APP.replace(old, new))[0] == code, old
    # A top-level ``DBOS.launch()`` (no ``if __name__`` guard) belongs to ``DBOS`` by the module-statement
    # rule; a workflow reaches ``DBOS`` through its steps' headers (``@DBOS.step()``: the engine object
    # is followed there) or its body. The profile's opacity keeps it out; the same profile without
    # opaque names has it in.
    top = APP.replace('if __name__ == "__main__":\n    DBOS.launch()\n    uvicorn.run(app, host="0.0.0.0")',
                      "DBOS.launch()\nuvicorn.run(app)")
    assert "m.DBOS" not in _closure(top)[1]
    top = top.replace("    return charge(order)", "    DBOS.logger.info(order)\n    return charge(order)")
    assert "m.DBOS" not in _closure(top)[1]
    monkeypatch.setitem(PROFILES, "dbos", dataclasses.replace(PROFILES["dbos"], opaque=()))
    assert "m.DBOS" in _closure(top)[1]


@pytest.mark.parametrize("statement", [
    "DBOS.register_instance(render)",  # first-party code handed to the engine
    'DBOS(config={"name": "shop", "serializer": make_serializer()})',  # a first-party call in its config
    "SETTINGS = make_settings()\nDBOS(config=SETTINGS)",  # config built by first-party code
    "DBOS.launch(); STATE.append(1)",  # it also changes first-party state
])
def test_handing_first_party_code_to_the_engine_still_counts(statement: str) -> None:
    src = APP + "\nSTATE = []\n\ndef make_serializer():\n    return 1\n\ndef make_settings():\n    return {}\n\n" + statement + "\n"
    code, members = _closure(src)
    extra = {"m.render", "m.make_serializer", "m.make_settings", "m.STATE"} & members
    assert extra, f"{statement!r} must stay in the closure of a workflow that reaches DBOS"


def test_a_workflow_using_what_the_statement_changes_still_sees_it() -> None:
    # ``DBOS(fastapi=app)`` still belongs to ``app``: a flow that uses ``app`` reaches it
    src = APP.replace("return charge(order)", "return charge(order) + str(app.title)")
    _, members = _closure(src)
    assert "m.app" in members


def test_an_engine_instance_binding_is_opaque_too() -> None:
    src = APP.replace("DBOS(fastapi=app, config=config)", "dbos = DBOS(fastapi=app, config=config)").replace(
        "    DBOS.launch()", "    dbos.launch()")
    _, members = _closure(src)
    assert "m.app" not in members and "m.create" not in members


def test_temporal_worker_configuration() -> None:
    src = '''from temporalio import workflow
from temporalio.client import Client
from temporalio.worker import Worker

CLIENTS = []

def helper():
    return 1

@workflow.defn
class W:
    @workflow.run
    async def run(self) -> int:
        return len(CLIENTS) + helper()

Worker.default_interceptors = [helper]
CLIENTS.append(Client)
'''
    config = LoomConfig(root=Path("."), framework="temporal", packages=("m",))
    (fp,) = fingerprint_module(src, module="m", path="m.py", config=config).flows
    names = {m.qualname for m in fp.closure}
    assert "m.CLIENTS" in names  # the append changes first-party state the workflow reads: it counts
    assert "m.helper" in names
