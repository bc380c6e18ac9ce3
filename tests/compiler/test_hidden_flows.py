"""A flow decorator reached other than directly is followed or reported with its position, never
dropped (B18); two flows on one function name are an error naming both (B19). Both directions:
every rule has the look-alike that must stay silent."""

from __future__ import annotations

from pathlib import Path

import pytest

from loom_compiler import LoomConfig, fingerprint_project
from loom_compiler.bundle.build import build_project

BODY = "def checkout(ctx, o):\n    return o\n"


def _project(root: Path, files: dict[str, str], **config: object):  # noqa: ANN202
    for rel, text in {"shop/__init__.py": "", **files}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return fingerprint_project([root], LoomConfig(root=root, packages=("shop",), **config))  # type: ignore[arg-type]


def _hidden(result) -> list[str]:  # noqa: ANN001
    return [str(e) for e in result.errors if e.code == "flow-hidden"]


def test_a_facade_re_export_names_both_sites(tmp_path: Path) -> None:
    result = _project(tmp_path, {
        "shop/api.py": "import os\nfrom loom_runtime import flow, step\n",
        "shop/flows.py": f"from shop.api import flow\n\n\n@flow('checkout')\n{BODY}",
    })
    (message,) = _hidden(result)
    assert message.startswith("shop/flows.py:4:2: `@flow` on `checkout` is shop.api.flow, which re-exports loom_runtime.flow "
                              "(shop/api.py:2)")
    assert "from loom_runtime import flow" in message
    assert not result.flows


@pytest.mark.parametrize("api", [
    "from shop.core import flow\n",  # two facades
    "from shop.core import *\n",
    "from . import core\nflow = core.flow\n",  # an alias of another facade's name
])
def test_re_exports_are_followed_through_every_module_on_the_way(tmp_path: Path, api: str) -> None:
    result = _project(tmp_path, {
        "shop/core.py": "from loom_runtime import flow\n",
        "shop/api.py": api,
        "shop/flows.py": f"from shop.api import flow\n\n\n@flow('checkout')\n{BODY}",
    })
    assert len(_hidden(result)) == 1, result.errors


def test_a_wrapper_factory_in_another_module_is_reported(tmp_path: Path) -> None:
    # (the module using it must spell the flow decorator's name, here by the wrapper's own name:
    # a file that spells no configured decorator name is not parsed at all, ``precheck``)
    result = _project(tmp_path, {
        "shop/api.py": "from loom_runtime import flow as _flow\n\n\ndef flow(flow_id):\n    return _flow(flow_id, version=2)\n",
        "shop/flows.py": f"from shop.api import flow\n\n\n@flow('checkout')\n{BODY}",
    })
    (message,) = _hidden(result)
    assert "shop.api.flow, which is a function that calls loom_runtime.flow (shop/api.py:4)" in message


def test_a_plain_alias_is_followed_with_loom_semantics(tmp_path: Path) -> None:
    result = _project(tmp_path, {"shop/flows.py": "import loom_runtime\n\ndurable = loom_runtime.flow\n\n\n"
                                                  f"@durable('checkout', version=3, steps=['a'])\n{BODY}"})
    assert not result.errors, result.errors
    (fp,) = result.flows
    assert (fp.flow_id, fp.definition.version, fp.definition.steps, fp.decorator) == ("checkout", 3, ("a",), "loom_runtime.flow")


@pytest.mark.parametrize("statement", [
    "run = flow('checkout')(checkout)",
    "run = flow (\n    'checkout')(checkout)",
    "REGISTRY = [flow('checkout')(checkout)]",
])
def test_the_decorator_applied_by_a_call_is_reported(tmp_path: Path, statement: str) -> None:
    result = _project(tmp_path, {"shop/flows.py": f"import functools\nfrom loom_runtime import flow\n\n\n{BODY}\n\n{statement}\n"})
    (message,) = _hidden(result)
    assert message.startswith("shop/flows.py:9:1: loom_runtime.flow is used here other than as the decorator")


def test_a_partial_of_the_decorator_used_as_a_decorator_is_reported_at_both(tmp_path: Path) -> None:
    result = _project(tmp_path, {"shop/flows.py": "import functools\nfrom loom_runtime import flow\n\n"
                                                  f"durable = functools.partial(flow, version=2)\n\n\n@durable('checkout')\n{BODY}"})
    assert [m.split(": ", 1)[0] for m in _hidden(result)] == ["shop/flows.py:4:1", "shop/flows.py:7:2"]
    assert not result.flows


def test_a_dbos_workflow_registered_by_a_call_is_reported(tmp_path: Path) -> None:
    files = {"shop/flows.py": "from dbos import DBOS\n\n\ndef checkout(o):\n    return o\n\n\nrun = DBOS.workflow()(checkout)\n"}
    (message,) = _hidden(_project(tmp_path, files, framework="dbos"))
    assert "dbos.DBOS.workflow is used here" in message


@pytest.mark.parametrize("files", [
    # first-party decorators that are no flow decorator
    {"shop/deco.py": "def log(f):\n    return f\n", "shop/flows.py": f"from shop.deco import log\n\n\n@log\n{BODY}"},
    {"shop/web.py": "from fastapi import FastAPI\n\napp = FastAPI()\n",
     "shop/flows.py": f"from shop.web import app\n\n\n@app.post('/x')\n{BODY}"},
    {"shop/api.py": "from loom_runtime import step\n", "shop/flows.py": f"from shop.api import step\n\n\n@step\n{BODY}"},
    # a function that calls the flow decorator but decorates nothing, an alias never used
    {"shop/flows.py": f"from loom_runtime import flow\n\ndurable = flow\n\n\ndef make(fn):\n    return flow('x')(fn)\n\n\n{BODY}"},
    # the flow decorator written directly, next to a facade that re-exports it
    {"shop/api.py": "from loom_runtime import flow\n", "shop/flows.py": f"from loom_runtime import flow\n\n\n@flow('checkout')\n{BODY}"},
])
def test_look_alikes_stay_silent(tmp_path: Path, files: dict[str, str]) -> None:
    result = _project(tmp_path, files)
    assert not result.errors, [str(e) for e in result.errors]
    # silent is not enough: a flow written directly is still found, and none appears from the rest
    expected = ["checkout"] if "@flow('checkout')" in files["shop/flows.py"] else []
    assert [f.flow_id for f in result.flows] == expected


def test_loom_build_reports_a_re_export_too(tmp_path: Path) -> None:
    for rel, text in {"shop/__init__.py": "", "shop/api.py": "from loom_runtime import flow\n",
                      "shop/flows.py": f"from shop.api import flow\n\n\n@flow('checkout')\n{BODY}"}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    report = build_project(LoomConfig(root=tmp_path, packages=("shop",)), jobs=1)
    assert not report.ok
    assert any(e.code == "flow-hidden" and e.path == "shop/flows.py" for e in report.errors), report.errors


def test_two_flows_on_one_function_name_name_both_sites(tmp_path: Path) -> None:
    result = _project(tmp_path, {"shop/flows.py": f"from loom_runtime import flow\n\n\n@flow('a')\n{BODY}\n\n@flow('b')\n{BODY}"})
    (error,) = [e for e in result.errors if e.code == "flow-redefined"]
    assert str(error).startswith("shop/flows.py:10:1: `checkout` is declared as a flow 2 times: shop/flows.py:5:1 (flow id `a`), "
                                 "shop/flows.py:10:1 (flow id `b`)")
    assert not result.flows


def test_two_method_flows_on_one_name_too_and_one_id_on_two_functions(tmp_path: Path) -> None:
    cls = "class Shop:\n    @flow('a')\n    def run(self, ctx, o):\n        return o\n\n    @flow('b')\n    def run(self, ctx, o):\n        return o\n"
    result = _project(tmp_path, {"shop/flows.py": f"from loom_runtime import flow\n\n\n{cls}"})
    assert [e.code for e in result.errors] == ["flow-redefined"]
    other = "def refund(ctx, o):\n    return o\n"
    result = _project(tmp_path / "ids", {"shop/flows.py": f"from loom_runtime import flow\n\n\n@flow('a')\n{BODY}\n\n@flow('a')\n{other}"})
    (error,) = result.errors
    assert error.code == "duplicate-id" and "shop/flows.py:5:1 (checkout), shop/flows.py:10:1 (refund)" in str(error)
