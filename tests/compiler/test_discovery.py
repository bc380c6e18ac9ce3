"""Finding flows by qualified decorator name, their ids and their literal arguments."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from loom_compiler import LoomConfig, fingerprint_module
from loom_runtime.hashing import flow_content_hash, legacy_flow_content_hash
from loom_runtime.definition import FlowDefinition

FRAMEWORKS = LoomConfig(
    root=Path("."),
    decorators=("loom_runtime.flow", "dbos.DBOS.workflow", "temporalio.workflow.run", "prefect.flow"),
)


def _flows(source: str, config: LoomConfig | None = None, module: str = "app.m"):
    result = fingerprint_module(source, module=module, path=module.replace(".", "/") + ".py", config=config)
    return {f.flow_id: f for f in result.flows}, result.errors


@pytest.mark.parametrize(
    "source",
    [
        'from loom_runtime import flow\n@flow("x")\ndef f(ctx): pass\n',
        'from loom_runtime import flow as durable\n@durable("x")\ndef f(ctx): pass\n',
        'import loom_runtime as lr\n@lr.flow("x")\ndef f(ctx): pass\n',
        'import loom_runtime\n@loom_runtime.flow("x")\ndef f(ctx): pass\n',
        'from loom_runtime import flow\n@flow(id="x")\ndef f(ctx): pass\n',
        'from loom_runtime import flow\n@other\n@flow("x")\n@another(1)\ndef f(ctx): pass\n',
        'from loom_runtime import flow\n@flow("x")\nasync def f(ctx): pass\n',
    ],
)
def test_flow_found_through_import_aliases(source: str) -> None:
    flows, errors = _flows(source)
    assert not errors
    assert list(flows) == ["x"]
    assert flows["x"].function == "f"
    assert flows["x"].decorator == "loom_runtime.flow"


@pytest.mark.parametrize(
    "source",
    [
        '@flow("x")\ndef f(ctx): pass\n',  # not imported: an unknown name
        'from prefect import flow\n@flow("x")\ndef f(ctx): pass\n',  # another library's flow
        'from loom_runtime import flow\ndef flow(fn): return fn\n@flow\ndef f(ctx): pass\n',  # shadowed
        'import loom_runtime as lr\n@lr.step\ndef f(ctx): pass\n',
    ],
)
def test_not_a_flow(source: str) -> None:
    flows, errors = _flows(source)
    assert flows == {} and not errors


def test_other_frameworks_are_fingerprinted_as_they_are() -> None:
    source = '''\
from dbos import DBOS
from temporalio import workflow
import prefect
from prefect import flow as pflow


@DBOS.workflow()
def dbos_checkout(order):
    return order


@workflow.defn
class Checkout:
    @workflow.run
    async def run(self, order):
        return await self.total(order)

    async def total(self, order):
        return order


@prefect.flow
def bare(): pass


@pflow(name="called", version="2024-1")
def called(): pass
'''
    flows, errors = _flows(source, FRAMEWORKS)
    assert not errors
    assert set(flows) == {"app.m:dbos_checkout", "app.m:Checkout.run", "app.m:bare", "called"}
    assert flows["app.m:dbos_checkout"].decorator == "dbos.DBOS.workflow"
    run = flows["app.m:Checkout.run"]
    assert run.decorator == "temporalio.workflow.run"
    assert run.function == "Checkout.run"
    # self.total is a sibling member; the class decorator is an import target
    assert {m.qualname: m.kind for m in run.closure} == {
        "app.m.Checkout.run": "flow",
        "app.m.Checkout.total": "method",
        "temporalio.workflow.defn": "import",
    }
    # Prefect's string version means something else: only the id is read
    assert flows["called"].definition.version == 1
    # without the config, none of them is a flow
    assert _flows(source)[0] == {}


def test_default_id_is_module_colon_qualname() -> None:
    source = 'from dbos import DBOS\nclass A:\n    class B:\n        @DBOS.workflow()\n        def run(self, ctx): pass\n'
    flows, errors = _flows(source, FRAMEWORKS)
    assert list(flows) == ["app.m:A.B.run"] and not errors


@pytest.mark.parametrize(
    ("decorator", "where"),
    [("@flow", (3, 2)), ("@flow()", (3, 2)), ("@flow(version=2)", (3, 2)), ("@lr.flow", (3, 2))],
)
def test_loom_flow_without_an_id_is_an_error_not_a_default_id(decorator: str, where: tuple[int, int]) -> None:
    # the runtime refuses @flow / @flow() at import: a build must not record such a flow
    source = f"from loom_runtime import flow\nimport loom_runtime as lr\n{decorator}\ndef f(ctx): pass\n"
    flows, errors = _flows(source)
    assert flows == {}
    (error,) = errors
    assert re.search(r"@flow needs an id: write @flow\(\"my-flow\"\)", error.message), error.message
    assert (error.line, error.column, error.code) == (*where, "flow-id")


def test_decorator_arguments_become_a_flow_definition() -> None:
    source = '''\
import re
from loom_runtime import flow

@flow(
    "checkout",
    version=3,
    steps=["reserve", "charge"],
    deadline=3600,
    compatible_with=["sha256:''' + "a" * 64 + '''"],
    step_families=["pack", re.compile(r"^tool#\\d+$", re.IGNORECASE)],
)
def checkout(ctx): pass
'''
    flows, errors = _flows(source)
    assert not errors
    flow = flows["checkout"]
    defn = flow.definition
    assert defn == FlowDefinition(
        id="checkout",
        version=3,
        steps=("reserve", "charge"),
        deadline=3600,
        compatible_with=("sha256:" + "a" * 64,),
        step_families=("pack", re.compile(r"^tool#\d+$", re.IGNORECASE)),
    )
    assert defn.fn is None
    assert flow.flow_hash == flow_content_hash(defn)
    assert flow.legacy_flow_hash == legacy_flow_content_hash(defn)
    assert (flow.line, flow.column) == (12, 1)


@pytest.mark.parametrize(
    ("decorator", "match", "where"),
    [
        ("@flow(NAME)", "flow id must be a string literal", (4, 7)),
        ('@flow(f"x{1}")', "flow id must be a string literal", (4, 7)),
        ('@flow("x", version=V)', "`version` must be a literal", (4, 20)),
        ('@flow("x", version=0)', "version must be a positive int", (4, 20)),
        ('@flow("x", steps=STEPS)', "`steps` must be a literal", (4, 18)),
        ('@flow("x", steps="charge")', "steps must be a list of string literals", (4, 18)),
        ('@flow("x", deadline=timedelta(1))', "`deadline` must be a literal", (4, 21)),
        ('@flow("x", bogus=1)', "unknown @flow argument `bogus`", (4, 12)),
        ('@flow("x", "y")', "one positional argument", (4, 12)),
        ('@flow(*ARGS)', "cannot be read statically", (4, 7)),
        ('@flow("x", step_families=[re.compile(P)])', "`step_families pattern` must be a literal", (4, 38)),
        ('@flow("x", step_families=[3])', "step_families entries must be strings", (4, 27)),
    ],
)
def test_non_literal_arguments_are_errors_with_a_location(decorator: str, match: str, where: tuple[int, int]) -> None:
    source = f"import re\nfrom loom_runtime import flow\nNAME = 'n'\n{decorator}\ndef f(ctx): pass\n"
    flows, errors = _flows(source)
    assert flows == {}
    (error,) = errors
    assert re.search(match, error.message), error.message
    assert (error.line, error.column) == where
    assert error.path == "app/m.py"


def test_invalid_definition_values_are_errors() -> None:
    flows, errors = _flows('from loom_runtime import flow\n@flow("x", steps=["a", "a"])\ndef f(ctx): pass\n')
    assert flows == {}
    assert "declared twice" in errors[0].message and errors[0].line == 3


def test_duplicate_ids_name_every_location() -> None:
    source = 'from loom_runtime import flow\n@flow("x")\ndef a(ctx): pass\n\n@flow("x")\ndef b(ctx): pass\n'
    _, errors = _flows(source)
    (error,) = errors  # reported once, at the first site; it used to repeat the whole list per site
    assert error.code == "duplicate-id" and (error.line, error.column) == (3, 1)
    assert "app/m.py:3:1 (a)" in error.message and "app/m.py:6:1 (b)" in error.message


def test_optional_import_of_the_decorator_is_still_the_decorator() -> None:
    source = (
        "try:\n    from loom_runtime import flow\nexcept ImportError:\n    flow = None\n\n"
        '@flow("x")\ndef f(ctx): pass\n'
    )
    flows, errors = _flows(source)
    assert list(flows) == ["x"] and not errors
    shadowed = 'from loom_runtime import flow\nflow = lambda *a, **k: (lambda fn: fn)\n@flow("x")\ndef f(ctx): pass\n'
    assert _flows(shadowed)[0] == {}


# ---------------------------------------------------------------------------- loom-fp/2 (issue 12)


@pytest.mark.parametrize(
    "source",
    [
        'from loom_runtime.definition import flow\n@flow("x")\ndef f(ctx): pass\n',  # where it is defined
        'from loom_runtime import *\n@flow("x")\ndef f(ctx): pass\n',  # a star import binds it
        'import loom_runtime.definition as d\n@d.flow("x")\ndef f(ctx): pass\n',
        'import loom_runtime as lr\nfrom loom_runtime import Context\n@lr.flow("x")\ndef f(ctx: Context): pass\n',
    ],
)
def test_every_spelling_python_allows_finds_the_flow(source: str) -> None:
    flows, errors = _flows(source)
    assert not errors and list(flows) == ["x"]
    assert flows["x"].decorator == "loom_runtime.flow"


def test_a_star_import_binds_only_what_loom_runtime_exports() -> None:
    # ``Context`` is exported, ``nothing`` is not: a star import cannot bind it
    flows, errors = _flows('from loom_runtime import *\n@nothing("x")\ndef f(ctx): pass\n')
    assert flows == {} and not errors


def test_another_frameworks_star_import_may_bind_its_decorator() -> None:
    source = 'from dbos import *\n@DBOS.workflow()\ndef checkout(order): pass\n'
    flows, errors = _flows(source, FRAMEWORKS)
    assert list(flows) == ["app.m:checkout"] and not errors


def test_a_later_plain_binding_replaces_the_decorator_import_and_a_guarded_one_adds_to_it() -> None:
    later = 'from loom_runtime import flow\nfrom other import flow\n@flow("x")\ndef f(ctx): pass\n'
    assert _flows(later)[0] == {}
    guarded = 'from other import flow\ntry:\n    from loom_runtime import flow\nexcept ImportError:\n    pass\n@flow("x")\ndef f(ctx): pass\n'
    assert list(_flows(guarded)[0]) == ["x"]
    after_the_def = '@flow("x")\ndef f(ctx): pass\nfrom loom_runtime import flow\n'  # bound too late
    assert _flows(after_the_def)[0] == {}


@pytest.mark.parametrize(
    ("source", "where", "inside"),
    [
        ('from loom_runtime import flow\n\ndef outer():\n    @flow("x")\n    def f(ctx): pass\n', (5, 5),
         "inside function `outer`"),
        ('from loom_runtime import flow\n\ndef outer():\n    class K:\n        @flow("x")\n        def run(self, ctx): pass\n',
         (6, 9), "inside function `outer`"),
        ('from loom_runtime import flow\n\nclass A:\n    def m(self):\n        @flow("x")\n        def f(ctx): pass\n',
         (6, 9), "inside method `m`"),
        ('import sys\nfrom loom_runtime import flow\n\nif sys.version_info > (3,):\n    @flow("x")\n    def f(ctx): pass\n',
         (6, 5), "inside a module-level `if` block"),
    ],
)
def test_a_flow_that_cannot_be_pinned_is_an_error_naming_its_location(source: str, where: tuple[int, int], inside: str) -> None:
    flows, errors = _flows(source)
    assert flows == {}
    (error,) = errors
    assert (error.path, error.line, error.column, error.code) == ("app/m.py", *where, "flow-nested")
    assert inside in error.message and "cannot be pinned" in error.message


def test_a_build_with_lr_flow_next_to_a_context_import_loads_its_chunk(tmp_path: Path) -> None:
    # The chunk's import lines used to be keyed by module: `import loom_runtime as lr` was lost
    # behind `from loom_runtime import Context`, so the chunk said nothing defines `lr`.
    from loom_compiler.bundle.build import build_project

    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "flows.py").write_text(
        'import loom_runtime as lr\nfrom loom_runtime import Context\n\n\n'
        '@lr.flow("x")\ndef f(ctx: Context, n):\n    return n + 1\n'
    )
    report = build_project(LoomConfig(root=tmp_path, packages=("app",)))
    assert report.ok, report.errors
    text = (tmp_path / "build/loom" / report.manifest.flows["x"].versions[report.manifest.flows["x"].current].chunk).read_text()
    assert "import loom_runtime as lr\n" in text and "from loom_runtime import Context\n" in text
    import sys

    from loom_runtime import Registry

    before = set(sys.modules)
    try:
        fn = Registry.from_manifest(str(tmp_path / "build/loom/manifest.json")).current("x").definition.fn
        assert fn(None, 1) == 2
    finally:
        for name in set(sys.modules) - before:
            if name.startswith("_loom_chunks."):
                del sys.modules[name]
