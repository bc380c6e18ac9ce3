"""Framework profiles on real code: what ``framework = "temporal"``/``"dbos"`` finds and decides.

Usage::

    LOOM_BENCH_REPOS=/path/to/clones python benchmarks/bench_frameworks.py [--json out.json]
    python benchmarks/bench_frameworks.py --repo temporal-samples=/path/to/samples-python

The clones are ``bench_closure_width``'s (``--repo``, ``$LOOM_BENCH_REPOS/<owner>+<name>``, else
its cache); they are read, never written: every edit is made in memory.

Per repository, under its profile and under the default (the loom profile with the framework's
decorators listed, as a user wrote it before issue 13):

* **flows found vs decorators present**: ``@…workflow.run`` / ``@DBOS.workflow`` decorators
  counted with ``ast`` (a regex-free, spelling-agnostic count of decorated functions whose
  decorator's dotted name ends in the framework's), against the flows the compiler reports
  (nested definitions are reported as errors, never dropped: listed apart);
* **closure changed from the default profile**: flows whose closure member set differs;
* **edits**: every handler (a method of a workflow class decorated ``@workflow.signal``,
  ``update``, ``query`` or ``@x.validator``) and every activity/step/transaction (function or
  method with the framework's step decorator) gets one statement (``_loom_probe = 0``) inserted
  as the first statement of its body, in memory; the module is re-analysed and every flow
  re-fingerprinted. A handler edit must change its workflow's codeHash; an activity/step body
  edit must change no workflow's codeHash.

Module summaries are analysed once and re-used; an edit re-analyses its own module only (the
closure stage runs over every flow each time, as ``loom build`` would).
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

from benchmarks.bench_closure_width import default_cache, repository  # noqa: E402
from loom_compiler.analysis import ModuleSummary, analyse_module  # noqa: E402
from loom_compiler.config import LoomConfig  # noqa: E402
from loom_compiler.fingerprint import fingerprint_flows  # noqa: E402
from loom_compiler.model import FlowFingerprint, SourceError  # noqa: E402
from loom_compiler.sources import DirectorySourceTree  # noqa: E402

REPOS: dict[str, dict[str, Any]] = {
    "temporal-samples": {"framework": "temporal",
                         "flow_suffix": "workflow.run", "flow_decorator": "temporalio.workflow.run", "steps": ["temporalio.activity.defn"],
                         "step_suffixes": ("activity.defn",),
                         "handler_suffixes": ("workflow.signal", "workflow.update", "workflow.query")},
    "dbos-demo-apps": {"framework": "dbos",
                       "flow_suffix": "DBOS.workflow", "flow_decorator": "dbos.DBOS.workflow", "steps": ["dbos.DBOS.step", "dbos.DBOS.transaction"],
                       "step_suffixes": ("DBOS.step", "DBOS.transaction", ".transaction"), "handler_suffixes": ()},
}
PROBE = "_loom_probe = 0"


@dataclass
class Edit:
    kind: str  # "handler" | "step"
    module: str
    qualname: str
    line: int  # 1-based line of the first body statement
    indent: int
    owner: str | None  # the workflow class (handlers)


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def scan(tree: ast.Module, module: str, spec: dict[str, Any]) -> tuple[int, list[Edit]]:
    """(decorated flow functions, edits) of one module."""
    flows = 0
    edits: list[Edit] = []

    def visit(body: list[ast.stmt], prefix: str, cls: ast.ClassDef | None) -> None:
        nonlocal flows
        for stmt in body:
            if isinstance(stmt, ast.ClassDef):
                visit(stmt.body, prefix + stmt.name + ".", stmt)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names = [_dotted(d) for d in stmt.decorator_list]
                first = stmt.body[0]
                one_line = first.lineno == stmt.lineno
                if any(n.endswith(spec["flow_suffix"]) for n in names):
                    flows += 1
                elif not one_line and any(n.endswith(spec["step_suffixes"]) for n in names):
                    edits.append(Edit("step", module, prefix + stmt.name, first.lineno, first.col_offset, None))
                elif not one_line and cls is not None and any(
                        n.endswith(spec["handler_suffixes"]) or n.endswith(".validator") for n in names):
                    edits.append(Edit("handler", module, prefix + stmt.name, first.lineno, first.col_offset, prefix[:-1]))
                visit(stmt.body, prefix + stmt.name + ".", None)
    visit(tree.body, "", None)
    return flows, edits


class Project:
    """Summaries of every module of a tree under one configuration, analysed on demand, once."""

    def __init__(self, root: Path, config: LoomConfig, data: dict[str, bytes], paths: dict[str, str]) -> None:
        self.config, self.data, self.paths = config, data, paths
        self.memo: dict[str, ModuleSummary | SourceError | None] = {}

    def summary(self, module: str, source: bytes | None = None) -> ModuleSummary | SourceError | None:
        if source is not None:
            return analyse_module(source, module=module, path=self.paths[module], config=self.config)
        if module not in self.memo:
            raw = self.data.get(module)
            self.memo[module] = None if raw is None else analyse_module(raw, module=module, path=self.paths[module], config=self.config)
        return self.memo[module]

    def fingerprint(self, override: dict[str, ModuleSummary] | None = None) -> tuple[list[FlowFingerprint], list[SourceError]]:
        override = override or {}
        summaries: dict[str, ModuleSummary] = {}
        for module in self.data:
            s = override.get(module) or self.summary(module)
            if isinstance(s, ModuleSummary) and (s.flows or s.errors):
                summaries[module] = s

        def load(module: str) -> ModuleSummary | SourceError | None:
            return override.get(module) or self.summary(module)

        result = fingerprint_flows(summaries, self.config, loader=load)
        return list(result.flows), list(result.errors)


def key(f: FlowFingerprint) -> str:
    return f"{f.module}:{f.function}"


def run_repo(name: str, root: Path) -> dict[str, Any]:
    spec = REPOS[name]
    started = time.perf_counter()
    configs = {
        "profile": LoomConfig(root=root, framework=spec["framework"]),
        # what a user configured before the profiles existed: the loom profile, decorators listed
        "default": LoomConfig(root=root, decorators=(spec["flow_decorator"],), step_decorators=tuple(spec["steps"])),
    }
    tree = DirectorySourceTree(root, configs["profile"])
    data: dict[str, bytes] = {}
    paths: dict[str, str] = {}
    for module, rel, full in tree.walk():
        try:
            data[module] = Path(full).read_bytes()
        except OSError:
            continue
        paths[module] = rel
    decorated, edits = 0, []
    for module, raw in data.items():
        try:
            parsed = ast.parse(raw)
        except (SyntaxError, ValueError):
            continue
        n, found = scan(parsed, module, spec)
        decorated += n
        edits += found
    out: dict[str, Any] = {"repo": name, "decorators": decorated, "handlers": sum(e.kind == "handler" for e in edits),
                           "steps": sum(e.kind == "step" for e in edits)}
    projects = {label: Project(root, config, data, paths) for label, config in configs.items()}
    base: dict[str, dict[str, FlowFingerprint]] = {}
    for label, project in projects.items():
        flows, errors = project.fingerprint()
        base[label] = {key(f): f for f in flows}
        out[f"{label}_flows"] = len(flows)
        out[f"{label}_errors"] = sorted({e.code for e in errors})
        out[f"{label}_nested"] = sum(e.code == "flow-nested" for e in errors)
    common = set(base["profile"]) & set(base["default"])
    out["closure_changed"] = sum(
        {m.qualname for m in base["profile"][k].closure} != {m.qualname for m in base["default"][k].closure} for k in common)
    out["ids_changed"] = sum(base["profile"][k].flow_id != base["default"][k].flow_id for k in common)
    for label, project in projects.items():
        ok = {"handler": 0, "step": 0}
        misses: list[str] = []
        for edit in edits:
            lines = data[edit.module].decode("utf-8", "surrogateescape").splitlines(keepends=True)
            lines.insert(edit.line - 1, " " * edit.indent + PROBE + "\n")
            summary = project.summary(edit.module, "".join(lines).encode("utf-8", "surrogateescape"))
            if not isinstance(summary, ModuleSummary):
                continue
            flows, _ = project.fingerprint({edit.module: summary})
            moved = {key(f) for f in flows if key(f) in base[label] and base[label][key(f)].code_hash != f.code_hash}
            if edit.kind == "handler":  # must move its workflow
                owner = {k for k in base[label] if k.startswith(f"{edit.module}:{edit.owner}.")}
                good = bool(owner) and owner <= moved
            else:  # must move nothing
                good = not moved
            ok[edit.kind] += good
            if not good and len(misses) < 10:
                misses.append(f"{edit.kind} {edit.module}.{edit.qualname}" + (f" moved {sorted(moved)[:3]}" if moved else ""))
        out[f"{label}_handlers_ok"] = ok["handler"]
        out[f"{label}_steps_ok"] = ok["step"]
        out[f"{label}_misses"] = misses
    out["seconds"] = round(time.perf_counter() - started, 1)
    return out


def render(results: list[dict[str, Any]]) -> str:
    rows = ["| repository | flow decorators | flows found (profile / default) | nested, reported | closure changed "
            "| id changed | handler edits that move their workflow: profile / default "
            "| activity/step edits that move no workflow: profile / default |",
            "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        rows.append(f"| {r['repo']} | {r['decorators']} | {r['profile_flows']} / {r['default_flows']} | {r['profile_nested']} "
                    f"| {r['closure_changed']} | {r['ids_changed']} "
                    f"| {r['profile_handlers_ok']} / {r['default_handlers_ok']} of {r['handlers']} "
                    f"| {r['profile_steps_ok']} / {r['default_steps_ok']} of {r['steps']} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", action="append", default=[], metavar="NAME=PATH")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    given = {}
    for item in args.repo:
        name, _, path = item.partition("=")
        if name not in REPOS:
            ap.error(f"--repo {item!r}: NAME is one of {', '.join(REPOS)}")
        given[name] = Path(path)
    results = []
    for name in REPOS:
        # the clones bench_closure_width uses: --repo, $LOOM_BENCH_REPOS/<owner>+<name>, else its cache
        root, commit = repository(name, given.get(name), default_cache())
        result = run_repo(name, root.resolve())
        result["commit"] = commit[:7]
        results.append(result)
        print(json.dumps({k: v for k, v in result.items()}, indent=None), flush=True)
    print(render(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
