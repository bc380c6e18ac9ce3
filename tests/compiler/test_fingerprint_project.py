"""Project-level fingerprinting: bad input as values, exclusion, lazy parsing, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import loom_compiler.fingerprint as fp
from loom_compiler import LoomConfig, analyse_module, load_config, fingerprint_project, might_define_flows
from loom_compiler.cli import main
from loom_compiler.model import SourceError

FLOW = 'from loom_runtime import flow\nfrom app.helpers import h\n\n@flow("{id}")\ndef {name}(ctx):\n    return h()\n'


def _write(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    return _write(
        tmp_path,
        {
            "pyproject.toml": '[tool.loom]\npackages = ["app"]\nexclude = ["app/generated"]\n',
            "app/__init__.py": "",
            "app/flows.py": FLOW.format(id="checkout", name="checkout"),
            "app/helpers.py": "def h():\n    return 1\n",
            "app/other.py": "def nothing():\n    return 2\n",
            "app/generated/__init__.py": "",
            "app/generated/gen.py": FLOW.format(id="generated", name="gen"),
        },
    )


def test_syntax_error_names_file_line_column_and_other_files_continue(project: Path) -> None:
    _write(project, {"app/broken.py": 'from loom_runtime import flow\n\n@flow("b")\ndef b(ctx):\n    return (1\n'})
    result = fingerprint_project([project], load_config(project))
    assert [f.flow_id for f in result.flows] == ["checkout"]
    (error,) = result.errors
    assert (error.path, error.line, error.column, error.code) == ("app/broken.py", 5, 12, "syntax")
    assert "never closed" in error.message


def test_non_utf8_is_an_error_and_a_bom_is_fine(project: Path) -> None:
    _write(
        project,
        {
            "app/latin.py": b'from loom_runtime import flow\n@flow("l")\ndef l(ctx):\n    return "caf\xe9"\n',
            "app/bom.py": b'\xef\xbb\xbffrom loom_runtime import flow\n@flow("bom")\ndef b(ctx):\n    return 1\n',
        },
    )
    result = fingerprint_project([project], load_config(project))
    assert sorted(f.flow_id for f in result.flows) == ["bom", "checkout"]
    (error,) = result.errors
    assert (error.path, error.line, error.column, error.code) == ("app/latin.py", 4, 16, "encoding")
    assert "UTF-8" in error.message


def test_unreadable_file_is_an_error_not_a_crash(project: Path) -> None:
    (project / "app" / "dangling.py").symlink_to(project / "nowhere.py")  # listed, cannot be read
    result = fingerprint_project([project / "app", project / "missing.py"], load_config(project))
    assert [f.flow_id for f in result.flows] == ["checkout"]
    assert {(e.path, e.code) for e in result.errors} == {("app/dangling.py", "io"), ("missing.py", "io")}


def test_exclude_globs_are_honoured(project: Path) -> None:
    config = LoomConfig(root=project, packages=("app",), exclude=("app/generated",))
    assert [f.flow_id for f in fingerprint_project([project], config).flows] == ["checkout"]
    config = LoomConfig(root=project, packages=("app",))
    assert [f.flow_id for f in fingerprint_project([project], config).flows] == ["checkout", "generated"]


def test_files_without_a_flow_decorator_are_not_parsed_unless_reached(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []
    real = fp.analyse_module

    def spy(source, *, module, path, config=None, all_functions=False):
        parsed.append(module)
        return real(source, module=module, path=path, config=config, all_functions=all_functions)

    monkeypatch.setattr(fp, "analyse_module", spy)
    result = fingerprint_project([project], LoomConfig(root=project, packages=("app",), exclude=("app/generated",)))
    assert [f.flow_id for f in result.flows] == ["checkout"]
    # app/other.py never parsed; app/__init__.py is (loom-fp/2): importing app.flows runs it, and
    # what it changes in other modules' objects could change the flow
    assert sorted(parsed) == ["app", "app.flows", "app.helpers"]


def test_cheap_check_uses_the_decorators_last_names() -> None:
    assert might_define_flows(b"from loom_runtime import flow\n@flow('x')\n", None)
    assert not might_define_flows(b"def flow(): pass\n", None)  # no decorator at all
    assert not might_define_flows(b"@cache\ndef f(): pass\n", None)
    config = LoomConfig(root=Path("."), framework="dbos")  # the dbos profile: no loom decorators
    assert might_define_flows(b"@DBOS.workflow()\ndef f(): pass\n", config)
    assert not might_define_flows(b"@flow('x')\ndef f(): pass\n", config)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # whole words only: "flows", "workflow", "flow_id", "overflow" are not the decorator's name
        (b'"""Order flows and workflows."""\n@property\ndef flow_id(self): return overflow\n', False),
        (b"@dataclass\nclass Flowchart:\n    subflow: int = 0\n", False),
        (b"import loom_runtime as lr\n@lr.flow('x')\ndef f(ctx): pass\n", True),
        # the alias's import names it: the decorator line alone would not
        (b"from loom_runtime import flow as durable\n@durable('x')\ndef f(ctx): pass\n", True),
        # no "@", but the decorator called: a flow declared by a call, which the build reports (B18)
        (b"from loom_runtime import flow\nf = flow('x')(g)\n", True),
        (b"from loom_runtime import flow\nf = g\n", False),  # neither an "@" nor a call
    ],
)
def test_cheap_check_is_a_whole_word_decorator_name_and_an_at_sign_or_a_call(source: bytes, expected: bool) -> None:
    assert might_define_flows(source, None) is expected


def test_analyse_module_returns_errors_as_values() -> None:
    error = analyse_module(b"def f(:\n", module="m", path="m.py")
    assert isinstance(error, SourceError) and error.code == "syntax" and error.line == 1
    assert str(error).startswith("m.py:1:")


# ------------------------------------------------------------------------------------------ CLI


def test_cli_table(project: Path) -> None:
    result = CliRunner().invoke(main, ["fingerprint", str(project)])
    assert result.exit_code == 0, result.output
    header, row = result.output.strip().splitlines()
    assert header.split() == ["FLOW", "FUNCTION", "LOCATION", "CODEHASH", "CLOSURE"]
    assert row.split()[:3] == ["checkout", "app.flows.checkout", "app/flows.py:5"]
    assert row.split()[3].startswith("sha256:") and row.split()[4] == "2"


def test_cli_json_shape(project: Path) -> None:
    result = CliRunner().invoke(main, ["fingerprint", str(project), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert list(doc) == ["schema", "flows", "errors"]
    assert doc["schema"] == "loom-fingerprint/1" and doc["errors"] == []
    (flow,) = doc["flows"]
    assert list(flow) == ["id", "function", "path", "line", "codeHash", "flowHash", "closure"]
    assert (flow["id"], flow["function"], flow["path"], flow["line"]) == ("checkout", "checkout", "app/flows.py", 5)
    assert flow["closure"] == [
        {"name": "app.flows.checkout", "kind": "flow", "module": "app.flows", "hash": flow["codeHash"]},
        {"name": "app.helpers.h", "kind": "function", "module": "app.helpers", "hash": flow["closure"][1]["hash"]},
    ]
    api = fingerprint_project([project], LoomConfig(root=project, packages=("app",), exclude=("app/generated",)))
    assert flow["codeHash"] == api.flows[0].code_hash


def test_cli_errors_exit_non_zero_and_are_json_objects(project: Path) -> None:
    _write(project, {"app/broken.py": "@flow(\n"})
    result = CliRunner().invoke(main, ["fingerprint", str(project), "--json"])
    assert result.exit_code == 1
    doc = json.loads(result.output)
    assert doc["errors"] == [{"path": "app/broken.py", "line": 1, "column": 6, "message": doc["errors"][0]["message"]}]
    assert [f["id"] for f in doc["flows"]] == ["checkout"]
    human = CliRunner().invoke(main, ["fingerprint", str(project)])
    assert human.exit_code == 1
    assert "app/broken.py:1:6: syntax error" in human.output


def test_a_file_named_on_its_own_is_checked_even_without_a_flow(project: Path) -> None:
    _write(project, {"app/broken_helper.py": "def helper(:\n    return 1\n"})
    walked = CliRunner().invoke(main, ["fingerprint", str(project)])
    assert walked.exit_code == 0, walked.output  # unreached and flow-free: not parsed
    named = CliRunner().invoke(main, ["fingerprint", str(project / "app/broken_helper.py")])
    assert named.exit_code == 1 and "app/broken_helper.py:1:12: syntax error" in named.output


def test_cli_explain_shows_members_hashes_and_canonical_form(project: Path) -> None:
    result = CliRunner().invoke(main, ["fingerprint", str(project), "--explain", "checkout"])
    assert result.exit_code == 0, result.output
    assert "[flow] app.flows.checkout app/flows.py:5" in result.output
    assert "[function] app.helpers.h app/helpers.py:1" in result.output
    assert "uses h -> app.helpers.h" in result.output
    assert '(FunctionDef\n      name=<flow>' in result.output or '(FunctionDef name=<flow>' in result.output
    missing = CliRunner().invoke(main, ["fingerprint", str(project), "--explain", "nope"])
    assert missing.exit_code == 1 and "no flow `nope`" in missing.output and "checkout" in missing.output


def test_cli_explain_reports_errors_and_refuses_json(project: Path) -> None:
    _write(project, {"app/broken.py": "@flow(\n"})
    explained = CliRunner().invoke(main, ["fingerprint", str(project), "--explain", "checkout"])
    assert explained.exit_code == 1 and "[flow] app.flows.checkout" in explained.output
    assert "error: app/broken.py:1:6: syntax error" in explained.output
    # it used to print the text, swallow the errors (as if JSON carried them) and exit 1 silently
    both = CliRunner().invoke(main, ["fingerprint", str(project), "--explain", "checkout", "--json"])
    assert both.exit_code == 2 and "cannot be combined with --json" in both.output


def test_cli_flags_override_config(project: Path) -> None:
    # --decorator extends the profile's decorators (DESIGN §8); --framework picks another profile
    result = CliRunner().invoke(main, ["fingerprint", str(project), "--json", "--decorator", "x.y"])
    assert [f["id"] for f in json.loads(result.output)["flows"]] == ["checkout"]
    result = CliRunner().invoke(main, ["fingerprint", str(project), "--json", "--framework", "temporal"])
    assert json.loads(result.output)["flows"] == []
    unknown = CliRunner().invoke(main, ["fingerprint", str(project), "--framework", "celery"])
    assert unknown.exit_code == 2 and "tool.loom.framework" in unknown.output and "'temporal'" in unknown.output
    bad = CliRunner().invoke(main, ["fingerprint", str(project), "--decorator", "not a name"])
    assert bad.exit_code == 2 and "not a dotted Python name" in bad.output


def test_cli_config_error_names_the_key(tmp_path: Path) -> None:
    _write(tmp_path, {"pyproject.toml": "[tool.loom]\npackage = ['x']\n"})
    result = CliRunner().invoke(main, ["fingerprint", str(tmp_path)])
    assert result.exit_code == 2 and "tool.loom.package" in result.output


def test_example_shop_fingerprints() -> None:
    shop = Path(__file__).resolve().parents[2] / "examples" / "shop"
    result = CliRunner().invoke(main, ["fingerprint", str(shop), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    checkout = next(f for f in doc["flows"] if f["id"] == "checkout")
    kinds = {m["name"]: m["kind"] for m in checkout["closure"]}
    assert kinds["shop.pricing.needs_review"] == "function"
    assert kinds["shop.steps.charge"] == "step"


def test_output_directory_is_never_walked(project: Path) -> None:
    # chunks emitted by `loom build` are copies of flows; walking them would report every flow twice
    _write(project, {"build/loom/chunks/checkout/abc.py": FLOW.format(id="checkout", name="checkout")})
    result = fingerprint_project([project], load_config(project))
    assert [f.flow_id for f in result.flows] == ["checkout"] and not result.errors
    # another out directory: the earlier one (or any build output) is still not source
    config = LoomConfig(root=project, packages=("app",), out="dist", exclude=("app/generated",))
    again = fingerprint_project([project], config)
    assert [f.flow_id for f in again.flows] == ["checkout"] and not again.errors


def test_pretty_canonical_form_reads_back_to_the_hashed_text() -> None:
    from loom_compiler.canonical import pretty, recanonicalise

    source = FLOW.format(id="x", name="x").replace("return h()", "return h(" + ", ".join(f"'{i}' * {i}" for i in range(30)) + ")")
    summary = analyse_module(source.encode(), module="app.flows", path="app/flows.py")
    text = summary.flows[0].canonical
    laid_out = pretty(text, 60)
    assert "\n" in laid_out and max(len(line) for line in laid_out.splitlines()) < len(text)
    assert recanonicalise(laid_out) == text
