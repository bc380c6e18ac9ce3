"""Does the fingerprint hold on real code? Reformatting must move no hash; a semantic edit must.

Usage::

    LOOM_BENCH_REPOS=/tmp/realrepos python benchmarks/bench_real_soundness.py
    python benchmarks/bench_real_soundness.py --only dbos-demo-apps --mutations 50 --profiles

The pair tables (tests/compiler) and the hypothesis properties (tests/compiler/test_fp2_properties.py)
check DESIGN §6's two directions on code we wrote or generated. This checks them on the real public
repositories of ``bench_closure_width`` (same ``REPOS``, same ``$LOOM_BENCH_REPOS`` shelf or cache
clone, copied into a temporary directory: the clone is never written):

* **reformat**: the project is rewritten by ``black`` and by ``ruff format`` (each when installed:
  ``benchmarks/requirements.txt`` has both) and fingerprinted again. Every flow must keep its
  codeHash (formatting is not behaviour) and no flow may be lost or gain an error. Target: 0 moved.
* **mutations**: one literal at a time (an ``int`` +1, a ``str`` + ``"_mut"``), drawn at random
  (``--seed``) from the statements of each flow's closure members — the code the hash claims to
  cover — is changed on disk, the flow's file is fingerprinted again, and the flow's codeHash must
  move. Skipped as not behaviour the hash covers: docstrings, annotations (DESIGN §6: local ones are
  not values; stored ones are checked by the pair tables), step bodies (served from the journal),
  f-string parts (one literal node spans the whole string), the decorators of *another* flow
  (``@flow(name="b") def b`` can be in ``a``'s closure through the module statements of ``flow``,
  and how ``b`` is declared is not ``a``'s behaviour), and the flow's own ``version=``,
  ``compatible_with=`` and ``code_fingerprint=`` (DESIGN §6 keeps them out of every hash). Another
  literal of the flow's own decorator (its id, ``steps=[...]``) moves the flow id or the structural
  flow hash instead of the code hash, which is as visible (a new flow, or a code-mismatch check):
  counted as ``declaration``. Target: 0 kept.

Rejected: a mutation per AST node kind (most real closure statements are calls and names whose
edits the pair tables cover exhaustively; literals are what real edits of constants, limits, URLs
and messages look like), and mutating in memory (the command users run reads files).
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_closure_width import REPOS, default_cache, repository  # noqa: E402

from loom_compiler import fingerprint_project  # noqa: E402
from loom_compiler.config import load_config  # noqa: E402


@dataclass
class RepoResult:
    name: str
    flows: int = 0
    errors: int = 0
    reformat: dict[str, dict[str, int]] = field(default_factory=dict)
    mutations: int = 0
    moved: int = 0
    declaration: int = 0
    kept: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _config(root: Path, spec: dict[str, Any], profiles: bool) -> Any:
    extra = {"framework": spec["framework"]} if profiles else {}
    return load_config(root, root=root, decorators=spec["decorators"], step_decorators=spec["steps"], **extra)


def _flows(root: Path, config: Any, paths: list[Path] | None = None) -> tuple[dict[str, Any], int]:
    report = fingerprint_project(paths or [root], config)
    return {f"{f.module}:{f.function}": f for f in report.flows}, len(report.errors)


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".git", "node_modules", "*.pyc", "__pycache__",
                                                             ".venv", ".loom-cache"))
    return dst


def _formatters() -> list[tuple[str, list[str]]]:
    """The formatters installed beside this interpreter (the benchmark venv) or on PATH."""
    out = []
    for name, args in (("black", ["-q", "."]), ("ruff", ["format", "-q", "."])):
        exe = Path(sys.executable).with_name(name)
        found = str(exe) if exe.is_file() else shutil.which(name)
        if found:
            out.append((name, [found, *args]))
        else:
            print(f"   ({name} not installed: its reformat check is skipped)", flush=True)
    return out


# -- mutations ------------------------------------------------------------------------------------


#: keywords of a flow's own decorator that DESIGN §6 keeps out of every hash (metadata a reviewer
#: edits: the line ``loom diff`` suggests must not change the hash it was computed for)
METADATA = {"version", "compatible_with", "code_fingerprint"}


def _skipped(tree: ast.Module, steps: list[str], own: int, others: set[int]) -> set[int]:
    """The ids of the nodes whose literals are not behaviour the flow at line ``own`` covers (see
    the module docstring); ``others``: the lines of the other flows defined in this file."""
    lasts = {s.rsplit(".", 1)[-1] for s in steps}
    roots: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = {node.lineno, *(d.lineno for d in node.decorator_list)}
            if lines & others:
                roots += node.decorator_list  # how another flow is declared is not this flow's code
            if own in lines:
                roots += [k.value for d in node.decorator_list if isinstance(d, ast.Call)
                          for k in d.keywords if k.arg in METADATA]
            for d in node.decorator_list:
                f = d.func if isinstance(d, ast.Call) else d
                if (f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")) in lasts:
                    roots.append(node)  # a step: its body is served from the journal
            if node.returns is not None:
                roots.append(node.returns)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                roots.append(first)
        if isinstance(node, ast.AnnAssign):
            roots.append(node.annotation)
        if isinstance(node, ast.arg) and node.annotation is not None:
            roots.append(node.annotation)
        if isinstance(node, ast.JoinedStr):
            roots.append(node)
    return {id(n) for r in roots for n in ast.walk(r)}


def _literals(text: str, first: int, last: int, steps: list[str], own: int, others: set[int]) -> list[ast.Constant]:
    tree = ast.parse(text)
    skipped = _skipped(tree, steps, own, others)
    return [n for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and type(n.value) in (int, str) and id(n) not in skipped
            and first <= n.lineno and (n.end_lineno or n.lineno) <= last and n.lineno == n.end_lineno]


def _mutated(text: str, node: ast.Constant) -> str:
    lines = text.splitlines(keepends=True)
    raw = lines[node.lineno - 1].encode("utf-8")  # ast offsets are UTF-8 byte offsets
    new = repr(node.value + 1) if type(node.value) is int else repr(node.value + "_mut")
    lines[node.lineno - 1] = (raw[:node.col_offset] + new.encode() + raw[node.end_col_offset:]).decode("utf-8")
    return "".join(lines)


def _member_spans(fp: Any) -> list[tuple[str, int, int]]:
    """``(path, first line, last line)`` of each statement a flow's closure hashes."""
    out = []
    for m in fp.closure:
        if m.kind in ("import", "step") or not m.path or not m.source:
            continue
        for _, line, source, _ in (m.parts or ((0, m.line, m.source, ()),)):
            body = source.splitlines()
            while body and (not body[0].strip() or body[0].lstrip().startswith("#")):
                body.pop(0)  # a part's text starts with the comments above it
            out.append((m.path, line, line + len(body) - 1))
    return out


def mutate(result: RepoResult, root: Path, config: Any, base: dict[str, Any], spec: dict[str, Any],
           count: int, rng: random.Random) -> None:
    jobs = [(key, *span) for key, fp in sorted(base.items()) for span in _member_spans(fp)]
    rng.shuffle(jobs)
    for key, path, first, last in jobs:
        if result.mutations >= count:
            break
        file = root / path
        text = file.read_text(encoding="utf-8")
        try:
            own = base[key].line if base[key].path == path else -1
            others = {f.line for k, f in base.items() if f.path == path and k != key}
            found = _literals(text, first, last, spec["steps"], own, others)
        except SyntaxError:
            continue
        if not found:
            continue
        node = rng.choice(found)
        file.write_text(_mutated(text, node), encoding="utf-8")
        try:
            after, _ = _flows(root, config, [root / base[key].path])
        finally:
            file.write_text(text, encoding="utf-8")
        result.mutations += 1
        now = after.get(key)
        if now is not None and now.code_hash != base[key].code_hash:
            result.moved += 1
        elif now is not None and (now.flow_id, now.flow_hash) != (base[key].flow_id, base[key].flow_hash):
            result.declaration += 1
        else:
            result.kept.append(f"{key} {path}:{node.lineno}:{node.col_offset} {node.value!r}"
                               + (" (flow lost)" if now is None else ""))


def run(name: str, given: Path | None, *, mutations: int, seed: int, profiles: bool) -> RepoResult:
    spec = REPOS[name]
    source, _commit = repository(name, given, default_cache())
    result = RepoResult(name)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="loom-soundness-") as tmp:
        orig = _copy(source, Path(tmp, "orig"))
        config = _config(orig, spec, profiles)
        base, result.errors = _flows(orig, config)
        result.flows = len(base)
        for tool, cmd in _formatters():
            tree = _copy(source, Path(tmp, tool))
            proc = subprocess.run(cmd, cwd=tree, capture_output=True, text=True, check=False)
            after, errors = _flows(tree, _config(tree, spec, profiles))
            result.reformat[tool] = {
                "exit": proc.returncode,
                "rewritten": sum(1 for p in tree.rglob("*.py") if p.read_bytes() != (orig / p.relative_to(tree)).read_bytes()),
                "moved": sum(1 for k, f in base.items() if k in after and after[k].code_hash != f.code_hash),
                "lost": sum(1 for k in base if k not in after),
                "new_errors": max(0, errors - result.errors),
            }
        mutate(result, orig, config, base, spec, mutations, random.Random(seed))
    result.seconds = time.perf_counter() - started
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="", help="comma-separated repository names (default: all)")
    parser.add_argument("--repo", action="append", default=[], metavar="NAME=PATH", help="use an existing clone")
    parser.add_argument("--mutations", type=int, default=150, help="literal mutations per repository")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profiles", action="store_true", help="configure each repository's framework profile")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    given = dict(item.split("=", 1) for item in args.repo)
    names = [n for n in (args.only.split(",") if args.only else REPOS) if n]
    unknown = [n for n in names if n not in REPOS]
    if unknown:
        parser.error(f"unknown repository {', '.join(unknown)}; known: {', '.join(REPOS)}")
    results = []
    for name in names:
        print(f"== {name} ...", flush=True)
        r = run(name, Path(given[name]) if name in given else None, mutations=args.mutations, seed=args.seed,
                profiles=args.profiles)
        results.append(r)
        for line in r.kept:
            print(f"   kept the hash: {line}")
    print()
    print(f"| repository ({'profiles' if args.profiles else 'loom profile'}) | flows | reformat moved/lost "
          "| mutations | moved | declaration | kept | s |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for r in results:
        fmt = ", ".join(f"{t} {v['moved']}/{v['lost']} ({v['rewritten']} files rewritten"
                        + (f", exit {v['exit']}" if v["exit"] else "")
                        + (f", +{v['new_errors']} errors" if v["new_errors"] else "") + ")"
                        for t, v in r.reformat.items()) or "skipped"
        print(f"| {r.name} | {r.flows} | {fmt} | {r.mutations} | {r.moved} | {r.declaration} | {len(r.kept)} "
              f"| {r.seconds:.0f} |")
    if args.json:
        args.json.write_text(json.dumps([r.__dict__ for r in results], indent=2) + "\n", encoding="utf-8")
    bad = any(r.kept or any(v["moved"] or v["lost"] for v in r.reformat.values()) for r in results)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
