"""How wide is a flow's closure under loom-fp/1 and loom-fp/2, and what does widening cost?

Usage::

    python benchmarks/bench_closure_width.py                      # clone the default repositories into the cache
    python benchmarks/bench_closure_width.py --repo temporal-samples=/path/to/samples-python --max-edits 300
    python benchmarks/bench_closure_width.py --json results/closure_width.json

loom-fp/2 is sound by construction: where the compiler cannot tell statically what a flow
reaches, the closure widens (DESIGN §6). Widening has a price: a hash that moves when behaviour did
not, one more version per deploy, executions pinned to code nobody changed. This measures that
price on real public repositories that use Temporal, DBOS and Prefect (cloned into a cache
directory outside this repository, never committed; ``--repo NAME=PATH`` uses an existing clone):

* **width**, per flow: closure members and the source lines they cover, under fp/1 and fp/2;
* **collateral**: every helper (module-level function, or method of a top-level class, in a
  first-party module some flow's closure reads; the flows themselves excluded) is edited in turn,
  in memory, with one statement (``_loom_probe = 0`` as the first statement of its body: a
  statement changes the hash of any code that contains it, DESIGN §6), and each scheme
  re-fingerprints. Each flow whose codeHash changes falls in one of three buckets: the flow
  *reaches* the helper (a member its root reaches through references: any fp/1 member, or an fp/2
  member not brought in by a widening member); the helper is a method *inside a class member* the
  flow reaches (the scheme hashes that class whole, so whether the flow calls this method is left
  undecided: the cost of the class-level rule); else *collateral*, named by the widening rule that
  caused it (``rule_of``): module-statement effects (fp/2's ``X#effects`` members: a statement
  that can change a name's state belongs to it, and what that statement mentions comes along),
  whole module, whole class, registering decorator (``@app.post(...) def h`` belongs to ``app``),
  or the compiler's own ``reason`` when a member records one. Step bodies (a function or method with a configured step decorator) are
  edited too and counted apart: they are served from the journal, so a hash they move is always
  collateral. Classes themselves are not probed: a new class attribute nothing reads is not a
  behavioural edit, so "did the hash move" would have no right answer.
  *Seen by fp/2 only* is the reverse: a flow whose fp/2 closure reaches the helper through
  references while the fp/1 hash did not move: a behavioural edit fp/1 could not see (a lazy
  import, a rebinding, a method through ``type(self)``). Step bodies are excluded (never hashed).

Both schemes run in the same benchmark run, each by its own release: fp/1 by the last fp/1 commit
of main (``--fp1-ref``, default ``ba24c79``), extracted with ``git archive`` into the cache (the
repository's ``.git`` is not written), fp/2 by this checkout (or ``--fp2-ref``: a candidate branch, extracted the same way), each in a child process
(``closure_width_worker.py``) whose ``PYTHONPATH`` is that release's tree; the parent checks which
tree and scheme each child actually imported.

Sampling: every helper, unless ``--max-edits`` caps it; the sample is the first N by sha256 of
``module:qualname`` (deterministic, and independent of file order). Rejected: editing files on disk
(slow, and a crash would leave a real repository modified), and a synthetic project (the question
is what real code costs).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORKER = HERE / "closure_width_worker.py"
FP1_REF = "ba24c79"
MARKER = "@@closure-width@@"

#: name -> where it lives upstream and how loom is configured for it (its framework's decorators).
REPOS: dict[str, dict[str, Any]] = {
    "temporal-samples": {
        "url": "https://github.com/temporalio/samples-python",
        "subdir": "",
        "decorators": ["temporalio.workflow.run"],
        "steps": ["temporalio.activity.defn"],
        "framework": "temporal",
    },
    "dbos-demo-apps": {
        "url": "https://github.com/dbos-inc/dbos-demo-apps",
        "subdir": "python",
        "decorators": ["dbos.DBOS.workflow"],
        "steps": ["dbos.DBOS.step", "dbos.DBOS.transaction"],
        "framework": "dbos",
    },
    "prefect-recipes": {
        "url": "https://github.com/PrefectHQ/prefect-recipes",
        "subdir": "",
        "decorators": ["prefect.flow"],
        "steps": [],
        "framework": "prefect",
    },
}


def default_cache() -> Path:
    base = os.environ.get("LOOM_BENCH_CACHE") or os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "loom-bench"


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def ref_tree(cache: Path, ref: str) -> Path:
    """The loom source tree of ``ref``, from ``git archive`` (no worktree, nothing written to .git)."""
    commit = git("rev-parse", "--verify", f"{ref}^{{commit}}", cwd=ROOT)
    target = cache / f"loom-{commit[:12]}"
    if not (target / "loom_compiler" / "__init__.py").is_file():
        target.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile() as fh:
            subprocess.run(["git", "archive", "--format=tar", commit, "loom_compiler", "loom_runtime"], cwd=ROOT,
                           stdout=fh, check=True)
            fh.seek(0)
            with tarfile.open(fileobj=fh) as tar:
                tar.extractall(target, filter="data") if hasattr(tarfile, "data_filter") else tar.extractall(target)
    return target


def repository(name: str, given: Path | None, cache: Path) -> tuple[Path, str]:
    """(project root, commit) of a repository: the given clone, one under ``$LOOM_BENCH_REPOS``
    (named ``owner+name``, the layout of a fetched mirror, or by its name here), or a shallow clone
    in the cache."""
    spec = REPOS[name]
    top = given
    shelf = os.environ.get("LOOM_BENCH_REPOS")
    if top is None and shelf:
        owner_name = "+".join(spec["url"].rstrip("/").split("/")[-2:])
        top = next((Path(shelf, n) for n in (owner_name, name) if Path(shelf, n).is_dir()), None)
    if top is None:
        top = cache / "repos" / name
        if not (top / ".git").exists():
            top.parent.mkdir(parents=True, exist_ok=True)
            print(f"cloning {spec['url']} into {top} ...", flush=True)
            subprocess.run(["git", "clone", "--quiet", "--depth", "1", spec["url"], str(top)], check=True)
    try:
        commit = git("rev-parse", "HEAD", cwd=top)
    except (subprocess.CalledProcessError, FileNotFoundError):
        commit = "unknown"
    return (top / spec["subdir"]) if spec["subdir"] else top, commit


def run_worker(tree: Path, request: dict[str, Any]) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(tree)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    proc = subprocess.run([sys.executable, str(WORKER)], input=json.dumps(request), env=env, cwd=tempfile.gettempdir(),
                          capture_output=True, text=True, check=False)
    at = proc.stdout.rfind(MARKER)
    if proc.returncode != 0 or at < 0:
        raise SystemExit(f"the worker for {tree} failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    out = json.loads(proc.stdout[at + len(MARKER):])
    if Path(out["loom"]).resolve() != tree.resolve():
        raise SystemExit(f"the worker meant for {tree} imported loom from {out['loom']}; fix PYTHONPATH/the install")
    return out


# -- the edits ------------------------------------------------------------------------------------


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        return _dotted(node.func)
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else ""


def is_step(node: Any, steps: list[str]) -> bool:
    """Decorated with a configured step decorator, as spelled in real code (``@activity.defn``,
    ``@DBOS.step()``): matched on its last two dotted parts, which is what these repositories use."""
    for d in node.decorator_list:
        name = _dotted(d)
        for s in steps:
            last, last_two = s.split(".")[-1], ".".join(s.split(".")[-2:])
            if name and (name in (last, last_two, s) or name.endswith("." + last_two)):
                return True
    return False


def helpers(root: Path, modules: dict[str, str | None], flow_keys: set[str], steps: list[str]) -> list[dict[str, Any]]:
    """One edit per helper: insert a statement before the first non-docstring statement of its body."""
    edits = []
    for module, rel in sorted(modules.items()):
        if not rel:
            continue
        try:
            text = (root / rel).read_text(encoding="utf-8")
            tree = ast.parse(text)
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        lines = text.splitlines()
        targets: list[tuple[str, ast.AST]] = []
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                targets.append((node.name, node))
            if isinstance(node, ast.ClassDef):
                targets += [(f"{node.name}.{n.name}", n) for n in node.body
                            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for qualname, node in targets:
            if f"{module}:{qualname}" in flow_keys:
                continue  # the flow itself, not a helper
            edit = _insertion(node, lines)
            if edit is None:
                continue
            line, text_line = edit
            probe = lines[: line - 1] + [text_line] + lines[line - 1:]
            try:
                ast.parse("\n".join(probe))
            except SyntaxError:
                continue
            kind = "step" if is_step(node, steps) else ("method" if "." in qualname else "function")
            # the root names its decorators use (``@app.post(...)`` -> app): a statement that
            # registers something belongs to the names it mentions (DESIGN §6), which is how an
            # edit here can reach a flow that never calls it
            roots = sorted({_dotted(d).split(".")[0] for d in node.decorator_list if _dotted(d)})
            edits.append({"module": module, "qualname": qualname, "kind": kind, "line": line, "text": text_line,
                          "decorators": roots,
                          "order": hashlib.sha256(f"{module}:{qualname}".encode()).hexdigest()})
    edits.sort(key=lambda e: e["order"])
    return edits


def _insertion(node: Any, lines: list[str]) -> tuple[int, str] | None:
    body = node.body
    first = body[0]
    if first.lineno == node.lineno:
        return None  # ``def f(): return 1``: no line of its own to insert before
    docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
    if docstring and len(body) > 1:
        first = body[1]
    elif docstring:
        indent = lines[first.lineno - 1][: first.col_offset]
        return (first.end_lineno or first.lineno) + 1, f"{indent}_loom_probe = 0"
    if first.lineno > 1 and lines[first.lineno - 2].rstrip().endswith("\\"):
        return None
    indent = lines[first.lineno - 1][: first.col_offset]
    if indent.strip():
        return None  # a statement after ``;`` on its line
    return first.lineno, f"{indent}_loom_probe = 0"


# -- the figures ----------------------------------------------------------------------------------


def width(flow: dict[str, Any]) -> tuple[int, int]:
    """(closure members, source lines covered): lines of every member with source, each definition once."""
    seen = {}
    for m in flow["members"]:
        if m["lines"] and m["kind"] not in ("import", "step"):
            seen[(m["path"], m["line"], m["q"])] = m["lines"]
    # a definition reached under two names (an alias) counts once
    by_place: dict[tuple[Any, Any], int] = {}
    for (path, line, _q), n in seen.items():
        by_place[(path, line)] = max(by_place.get((path, line), 0), n)
    return len(flow["members"]), sum(by_place.values())


def member_names(flow: dict[str, Any], *, direct: bool = False) -> set[str]:
    """The flow's non-step members; ``direct``: only those its root reaches through references
    alone (``via`` None), not through a widening member (module-statement effects, a whole module)."""
    return {m["q"] for m in flow["members"] if m["kind"] != "step" and not (direct and m.get("via"))}


def reaches(names: set[str], helper: str) -> bool:
    return helper in names or any(q.startswith(helper + ".") for q in names)


def in_class_member(flow: dict[str, Any], helper: str) -> bool:
    """The helper is a method of a class the closure reaches directly and holds as one member: the
    scheme hashes the class whole, so whether the flow calls this method is not decided."""
    return any(m["kind"] == "class" and not m.get("via") and helper.startswith(m["q"] + ".") for m in flow["members"])


def _widening_rule(via: str) -> str:
    if via.startswith("<engine hooks>"):
        return "engine hooks"  # the temporal profile's interceptors/converters/codecs: every workflow
    return "whole module" if via.endswith(".*") else "module-statement effects"  # X#effects, or "M: statement at …"


def rule_of(change: dict[str, Any], edit: dict[str, Any], flow: dict[str, Any]) -> tuple[str, str]:
    """(rule, detail): which widening rule made an edit the flow does not reach move its hash.

    The compiler's own name for it when a member records one (``reason``). Else: when the helper is
    a member only through a widening member (``via``: the module statements that can change a
    name's state, ``X#effects``, or a whole module ``mod.*``), that rule, naming the member; else
    from where the edited text landed, most specific first: the class holding the edited method
    (``whole class``), the whole module, a member named by the edited definition's decorator
    (``registering decorator``: ``@app.post(...) def h`` is a statement that belongs to every name it
    mentions), another member of the edited module (``module statement``), else the member's kind;
    each says through which widening member the landing member itself was reached, if any."""
    helper = f"{edit['module']}.{edit['qualname']}"
    held = {m["q"]: m.get("via") for m in flow["members"]}
    if held.get(helper):
        return _widening_rule(held[helper]), f"via `{held[helper]}`"
    touched = [t for t in (change["touched"] or change["added"]) if t[1] != helper]
    if not touched:
        return "unattributed", ""
    names = ", ".join(f"`{t[1]}`" for t in touched[:3]) + (" …" if len(touched) > 3 else "")
    vias = sorted({t[3] for t in touched if len(t) > 3 and t[3]})
    via = f" (reached via `{vias[0]}`)" if vias else ""
    reasons = sorted({f"{t[0]}: {t[2]}" for t in touched if t[2]})
    if reasons:
        return reasons[0], names + via
    if any(helper.startswith(t[1] + ".") and t[1] != edit["module"] for t in touched):
        return "whole class", names + via
    if any(t[1] == edit["module"] or t[0] == "module" for t in touched):
        return "whole module", names + via
    local = [t[1] for t in touched if t[1].rpartition(".")[0] == edit["module"]]
    hooks = sorted({q.rpartition(".")[2] for q in local} & set(edit.get("decorators", ())))
    if hooks:
        return "registering decorator", f"`@{hooks[0]}…`; members {names}{via}"
    if local:
        return "module statement", names + via
    return f"{touched[0][0]} member", names + via


def analyse(name: str, commit: str, edits: list[dict[str, Any]], fp1: dict[str, Any], fp2: dict[str, Any]) -> dict[str, Any]:
    f1 = {f["key"]: f for f in fp1["flows"]}
    f2 = {f["key"]: f for f in fp2["flows"]}
    keys = sorted(set(f1) & set(f2))
    per_flow = []
    for key in keys:
        (m1, l1), (m2, l2) = width(f1[key]), width(f2[key])
        per_flow.append({"flow": key, "id": f2[key]["id"], "fp1": {"members": m1, "lines": l1},
                         "fp2": {"members": m2, "lines": l2}})
    # reached through references (fp/1 has no widening members, so all of its members count)
    names = {k: member_names(f1[k]) | member_names(f2[k], direct=True) for k in keys}
    fp2_members = {k: member_names(f2[k], direct=True) for k in keys}
    collateral: dict[str, dict[str, Any]] = {}
    for scheme, result in (("fp1", fp1), ("fp2", fp2)):
        reach_n = coll_n = step_moves = in_class = 0
        per_edit = []
        rules: Counter[str] = Counter()
        worst: list[tuple[int, str, list[str]]] = []
        flows = f1 if scheme == "fp1" else f2
        for edit, changed in zip(edits, result["edits"]):
            helper = f"{edit['module']}.{edit['qualname']}"
            coll = []
            for c in changed:
                if c["key"] not in names:
                    continue
                flow = flows[c["key"]]
                if edit["kind"] == "step":
                    step_moves += 1
                elif reaches(names[c["key"]], helper):
                    reach_n += 1
                    continue
                elif in_class_member(flow, helper):
                    in_class += 1
                    continue
                coll.append(rule_of(c, edit, flow))
                rules[coll[-1][0]] += 1
            coll_n += len(coll)
            per_edit.append(len(coll))
            if coll:
                worst.append((len(coll), helper, sorted({" ".join(x for x in r if x) for r in coll})))
        worst.sort(key=lambda w: (-w[0], w[1]))
        collateral[scheme] = {
            "changes": reach_n + in_class + coll_n, "reach": reach_n, "inClass": in_class, "collateral": coll_n,
            "editsWithCollateral": sum(1 for n in per_edit if n),
            "stepEdits": sum(1 for e in edits if e["kind"] == "step"), "stepMoves": step_moves,
            "medianCollateralPerEdit": statistics.median(per_edit) if per_edit else 0,
            "maxCollateralPerEdit": max(per_edit, default=0),
            "rules": dict(rules.most_common()),
            "worst": [{"helper": h, "flows": n, "rules": r} for n, h, r in worst[:5]],
        }
    misses = []
    for edit, changed1 in zip(edits, fp1["edits"]):
        if edit["kind"] == "step":
            continue  # a step body is never hashed: not a miss
        helper = f"{edit['module']}.{edit['qualname']}"
        moved = {c["key"] for c in changed1}
        for key in keys:
            if reaches(fp2_members[key], helper) and key not in moved:
                misses.append({"flow": key, "helper": helper})
    return {
        "repo": name, "commit": commit, "flows": len(keys), "flowsOnlyFp1": sorted(set(f1) - set(f2)),
        "flowsOnlyFp2": sorted(set(f2) - set(f1)), "edits": len(edits), "perFlow": per_flow,
        "collateral": collateral, "fp1Misses": misses,
        "seconds": {"fp1": fp1["scanSeconds"] + fp1.get("editSeconds", 0), "fp2": fp2["scanSeconds"] + fp2.get("editSeconds", 0)},
    }


def _median(values: list[int]) -> float:
    return statistics.median(values) if values else 0


def render(results: list[dict[str, Any]], fp1_ref: str, fp2_ref: str | None = None) -> str:
    where = f"`{fp2_ref}`" if fp2_ref else "this checkout"
    out = [f"## Closure width and collateral, loom-fp/1 (`{fp1_ref}`) vs loom-fp/2 ({where})", ""]
    out += ["| repository | flows | fp/1 members (median / max) | fp/2 members | fp/1 lines (median / max) | fp/2 lines | "
            "helpers edited |", "|---|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        pf = r["perFlow"]
        col = lambda s, k: [f[s][k] for f in pf]  # noqa: E731
        out.append(f"| {r['repo']} (`{r['commit'][:7]}`) | {r['flows']} | {_median(col('fp1', 'members')):g} / "
                   f"{max(col('fp1', 'members'), default=0)} | {_median(col('fp2', 'members')):g} / "
                   f"{max(col('fp2', 'members'), default=0)} | {_median(col('fp1', 'lines')):g} / "
                   f"{max(col('fp1', 'lines'), default=0)} | {_median(col('fp2', 'lines')):g} / "
                   f"{max(col('fp2', 'lines'), default=0)} | {r['edits']} |")
    out += ["", "| repository | scheme | flow changes | helper is a member | helper inside a whole-class member | "
            "collateral | of which by a step body | edits with collateral | collateral per edit (median / max) |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        for s in ("fp1", "fp2"):
            c = r["collateral"][s]
            out.append(f"| {r['repo']} | {s} | {c['changes']} | {c['reach']} | {c['inClass']} | {c['collateral']} | "
                       f"{c['stepMoves']} ({c['stepEdits']} step bodies edited) | {c['editsWithCollateral']} of {r['edits']} | {c['medianCollateralPerEdit']:g} / "
                       f"{c['maxCollateralPerEdit']} |")
    for r in results:
        out += ["", f"### {r['repo']}", ""]
        pf = sorted(r["perFlow"], key=lambda f: (-f["fp2"]["lines"], f["flow"]))
        out.append("Widest flows under fp/2 (members, lines: fp/1 -> fp/2): " + "; ".join(
            f"`{f['flow']}` {f['fp1']['members']}->{f['fp2']['members']}, {f['fp1']['lines']}->{f['fp2']['lines']}"
            for f in pf[:3]) + ".")
        grown = sorted(r["perFlow"], key=lambda f: (-(f["fp2"]["lines"] - f["fp1"]["lines"]), f["flow"]))
        out.append("Largest growth: " + "; ".join(
            f"`{f['flow']}` +{f['fp2']['lines'] - f['fp1']['lines']} lines" for f in grown[:3]) + ".")
        for s in ("fp1", "fp2"):
            c = r["collateral"][s]
            if c["rules"]:
                out.append(f"{s} collateral by rule: " + ", ".join(f"{k} ({n})" for k, n in c["rules"].items()) + ".")
            if c["worst"]:
                out.append(f"{s} worst edits: " + "; ".join(
                    f"`{w['helper']}` -> {w['flows']} flow(s) via {', '.join(w['rules'])}" for w in c["worst"][:3]) + ".")
        out.append(f"seen by fp/2 only (the fp/2 closure holds the helper, the fp/1 hash did not move): {len(r['fp1Misses'])}"
                   + (" — e.g. " + "; ".join(f"`{m['helper']}` in `{m['flow']}`" for m in r["fp1Misses"][:3])
                      if r["fp1Misses"] else "") + ".")
        if r["flowsOnlyFp2"] or r["flowsOnlyFp1"]:
            out.append(f"Flows found by one scheme only: fp/2 {len(r['flowsOnlyFp2'])}, fp/1 {len(r['flowsOnlyFp1'])}.")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", action="append", default=[], metavar="NAME=PATH",
                    help=f"use an existing clone (names: {', '.join(REPOS)}); others are cloned into the cache")
    ap.add_argument("--only", help="comma-separated subset of the repositories")
    ap.add_argument("--cache", type=Path, default=None, help="clones and the fp/1 tree (default: ~/.cache/loom-bench)")
    ap.add_argument("--fp1-ref", default=FP1_REF, help="the last loom-fp/1 commit (default: %(default)s)")
    ap.add_argument("--fp2-ref", default=None,
                    help="measure fp/2 at this commit or branch (git archive) instead of this checkout")
    ap.add_argument("--max-edits", type=int, default=None, help="edit at most N helpers per repository (sampled)")
    ap.add_argument("--quick", action="store_true", help="at most 40 edits per repository")
    ap.add_argument("--profiles", action="store_true",
                    help="fp/2 fingerprints each repository under its framework profile (tool.loom.framework, "
                         "issue 13) instead of the loom profile with the decorators listed")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = ap.parse_args(argv)

    cache = (args.cache or default_cache()).resolve()
    if cache == ROOT or ROOT in cache.parents:
        ap.error(f"--cache {cache} is inside the repository; clones must never be committed")
    given = {}
    for item in args.repo:
        name, sep, path = item.partition("=")
        if not sep or name not in REPOS:
            ap.error(f"--repo {item!r}: expected NAME=PATH with NAME one of {', '.join(REPOS)}")
        given[name] = Path(path).resolve()
    names = [n.strip() for n in args.only.split(",")] if args.only else list(REPOS)
    cap = 40 if args.quick and args.max_edits is None else args.max_edits

    old = ref_tree(cache, args.fp1_ref)
    new = ref_tree(cache, args.fp2_ref) if args.fp2_ref else ROOT
    results = []
    for name in names:
        spec = REPOS[name]
        root, commit = repository(name, given.get(name), cache)
        request = {"root": str(root), "decorators": spec["decorators"], "steps": spec["steps"]}
        request2 = {**request, "framework": spec["framework"]} if args.profiles else request
        scan1, scan2 = run_worker(old, request), run_worker(new, request2)
        if scan1["scheme"] != "loom-fp/1" or not scan2["scheme"].startswith("loom-fp/") or scan2["scheme"] == "loom-fp/1":
            raise SystemExit(f"schemes: {old} computed {scan1['scheme']}, this checkout {scan2['scheme']}")
        modules = {**scan1["modules"], **scan2["modules"]}
        flow_keys = {f["key"] for f in scan1["flows"]} | {f["key"] for f in scan2["flows"]}
        edits = helpers(root, modules, flow_keys, spec["steps"])
        if cap is not None:
            edits = edits[:cap]
        wire = [{"module": e["module"], "line": e["line"], "text": e["text"]} for e in edits]
        fp1 = run_worker(old, {**request, "edits": wire})
        fp2 = run_worker(new, {**request2, "edits": wire})
        result = analyse(name, commit, edits, fp1, fp2)
        result["helpers"] = [{k: e[k] for k in ("module", "qualname", "kind")} for e in edits]
        results.append(result)
        print(f"{name}: {result['flows']} flows, {len(edits)} helpers edited "
              f"(fp/1 {result['seconds']['fp1']:.1f}s, fp/2 {result['seconds']['fp2']:.1f}s)", flush=True)
    print()
    print(render(results, args.fp1_ref, args.fp2_ref))
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"fp1Ref": args.fp1_ref, "fp2Ref": args.fp2_ref, "repos": results}, indent=1),
                             encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
