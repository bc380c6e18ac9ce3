"""Child process of ``bench_closure_width.py``: one loom release fingerprints one repository.

Run with ``PYTHONPATH`` set to the loom tree under test (the previous release's ``git archive`` or
this checkout), so each scheme is computed by its own code in the same benchmark run. Reads a JSON
request on stdin, prints one JSON document on stdout (after the marker ``@@closure-width@@``):

* ``{"root", "decorators", "steps"}``: every flow with its closure (members, their kinds, modules,
  source lines and own digests) and, per flow module, the first-party modules its closure
  computation read (the loader's requests, exactly what the build's incremental cache keys on);
* with ``"edits": [{"module", "line", "text"}]`` as well: for each edit (insert ``text`` as a new
  line before line ``line`` of ``module``, in memory: the repository is never written), the flows
  whose codeHash changed and, for each, the closure members whose *own* digest changed (what the
  edit touched directly: the helper itself when the flow reaches it, else the member a widening
  rule put the edited text into).

Only the flow modules whose recorded requests include the edited module are fingerprinted again:
a flow's hash can depend only on modules its closure computation read, which is the invariant the
build's cache already relies on. The API used (``load_config``, ``DirectorySourceTree``,
``precheck.might_define_flows``, ``analysis.analyse_module``, ``fingerprint.fingerprint_flows``)
exists unchanged in both releases.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import re
import sys
import time
from pathlib import Path
from typing import Any


def _widening(qualname: str) -> bool:
    """A member a widening rule adds rather than a reference: the module statements that can change
    a name's state (``X#effects``) and whole-module members (``mod.*``) of loom-fp/2."""
    return "#effects" in qualname or qualname.endswith(".*")


#: the reason a member joined as an engine hook (the temporal profile's rule: ``engine_hooks``)
HOOK_REASON = "engine hook"


def _effect_edges(member: Any) -> dict[str, int]:
    """{target: line} for the bindings of ``member`` that only its *effect* statements use: a
    member's ``parts`` (loom-fp/2) are the module statements it consists of; one that does not bind
    the member's own name belongs to it because it can change its state (``CFG["a"] = f()``,
    ``@app.post(...) def h``, ``if __name__ == "__main__": run(main())``), and the names only such a
    statement mentions are reached through that rule, not through a reference. Judged on the
    statements' text (a word match of the binding's first name); fp/1 members have no parts."""
    parts = getattr(member, "parts", ()) or ()
    short = member.qualname.rpartition(".")[2]
    own = [text for _i, _line, text, names in parts if short in names]
    effects = [(line, text) for _i, line, text, names in parts if short not in names]
    if not effects or not own:
        return {}
    out: dict[str, int] = {}
    for name, target in member.bindings:
        word = re.compile(r"\b" + re.escape(name.split(".")[0]) + r"\b")
        if any(word.search(text) for text in own):
            continue
        line = next((ln for ln, text in effects if word.search(text)), None)
        if line is not None:
            out.setdefault(target, line)
    return out


def reach_map(fp: Any) -> dict[str, str | None]:
    """For every member: None when the root reaches it through references alone, else the widening
    that brought it in: ``X#effects``/``mod.*`` members of loom-fp/2, or ``M: statement at line L``
    for a binding only an effect statement of member ``M`` uses (``_effect_edges``)."""
    members = {m.qualname: m for m in fp.closure}
    effect = {q: _effect_edges(m) for q, m in members.items()}
    edges = {q: [t for _n, t in m.bindings if t in members] for q, m in members.items()}
    # an engine hook (interceptor, converter, codec: every workflow of the project) is a widening
    hooks = {q for q, m in members.items() if (getattr(m, "reason", "") or "").startswith(HOOK_REASON)}
    root = fp.closure[0].qualname
    direct, todo = {root}, [root]
    while todo:
        q = todo.pop()
        for t in edges[q]:
            if t not in direct and t not in effect[q] and not _widening(t) and t not in hooks:
                direct.add(t)
                todo.append(t)
    via: dict[str, str | None] = {q: None for q in direct}
    seeds = [(t, f"{q}: statement at line {line}") for q in sorted(direct) for t, line in sorted(effect[q].items())]
    seeds += [(q, f"<engine hooks> {q}") for q in sorted(hooks)]
    seeds += [(q, q) for q in sorted(members) if _widening(q)]
    for start, label in seeds:
        todo = [start]
        while todo:
            q = todo.pop()
            if q in via:
                continue
            via[q] = label
            todo.extend(edges[q])
    return via


def _own(member: Any) -> str:
    data = member.canonical + "\0" + "\0".join(f"{n}={t}" for n, t in sorted(member.bindings))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()[:16]


_SPELLS: dict[tuple[frozenset[str], str, bytes], bool] = {}


def _spells(markers: frozenset[str], module: str, raw: bytes) -> bool:
    """Whether ``raw`` spells a marker (memoised: every fingerprint of every edit asks again)."""
    key = (markers, module, raw)
    if key not in _SPELLS:
        from loom_compiler.frameworks.base import marker_pattern

        _SPELLS[key] = marker_pattern(markers).search(raw) is not None
    return _SPELLS[key]


def main() -> int:
    request = json.loads(sys.stdin.read())
    import loom_compiler
    from loom_compiler.analysis import analyse_module
    from loom_compiler.canonical import SCHEME
    from loom_compiler.config import load_config
    from loom_compiler.fingerprint import fingerprint_flows
    from loom_compiler.precheck import might_define_flows
    from loom_compiler.sources import DirectorySourceTree

    root = Path(request["root"])
    # ``framework`` (a profile, issue 13) only when asked: the fp/1 release has no such option
    profile = {"framework": request["framework"]} if request.get("framework") else {}
    config = load_config(root, root=root, decorators=request["decorators"], step_decorators=request["steps"], **profile)
    tree = DirectorySourceTree(config.root, config)
    started = time.perf_counter()
    data: dict[str, bytes] = {}
    for module in tree.module_names():
        raw = tree.read(module)
        if raw is not None:
            data[module] = raw
    summaries: dict[str, Any] = {}

    def summary(module: str, source: dict[str, bytes]) -> Any:
        key = (module, hashlib.sha256(source[module]).digest())
        if key not in summaries:
            summaries[key] = analyse_module(source[module], module=module, path=tree.path_of(module) or module,
                                            config=config)
        return summaries[key]

    hook_memos: dict[int, tuple[dict[str, bytes], dict[str, Any]]] = {}

    listed: set[str] = set()  # modules a hook search listed (``hook_only`` below)

    def fingerprint(module: str, source: dict[str, bytes]) -> tuple[list[Any], set[str]]:
        requested = {module}

        def loader(name: str) -> Any:
            if name not in source:
                return None
            requested.add(name)
            return summary(name, source)

        s = summary(module, source)
        if not hasattr(s, "flows") or not s.flows:
            return [], requested
        # the tree's listing (computed module names may name any module), when the release takes it
        params = inspect.signature(fingerprint_flows).parameters
        extra: dict[str, Any] = {"modules": lambda: list(source)} if "modules" in params else {}
        if "hook_candidates" in params and getattr(config.profile, "engine_hooks", None) is not None:
            from loom_compiler.frameworks.base import HookCandidates

            def hook_candidates(markers: frozenset[str]) -> list[str]:
                # where engine hooks may be (the temporal profile): each is a dependency, as in the build
                found = [m for m, raw in source.items() if _spells(markers, m, raw)]
                requested.update(found)
                listed.update(found)
                return found

            # the search is shared by every flow module of one tree state, as in the build
            held = hook_memos.get(id(source))
            if held is None or held[0] is not source:
                held = hook_memos[id(source)] = (source, {})
            extra["hook_candidates"] = HookCandidates(hook_candidates, held[1])
        flows, _errors = fingerprint_flows({module: s}, config, loader=loader, **extra)
        return list(flows), requested

    flow_modules = sorted(m for m, raw in data.items() if might_define_flows(raw, config))
    base: dict[str, list[Any]] = {}
    requests: dict[str, list[str]] = {}
    hook_only: dict[str, set[str]] = {}
    for module in flow_modules:
        listed.clear()
        flows, requested = fingerprint(module, data)
        if flows:
            base[module] = flows
            requests[module] = sorted(requested)
            # a module read only because the engine-hook search listed it (it spells a marker) and
            # holding no member of these closures: inserting a statement into one of its function
            # bodies changes no class base and no argument handed to the engine, so no hash here
            # can move; skipped when re-fingerprinting for its edits (else every edit of every
            # worker script re-fingerprints every flow module of the project)
            # (a module's ``#engine`` member is the text of what it hands to the engine: an inserted
            # statement is no argument of such a call, so that member alone keeps it hook-only too)
            hook_only[module] = listed - {m.module for fp in flows for m in fp.closure if not m.qualname.endswith("#engine")}
    scan_seconds = time.perf_counter() - started

    def describe(fp: Any) -> dict[str, Any]:
        members = []
        via = reach_map(fp)
        for m in fp.closure:
            members.append({"q": m.qualname, "kind": m.kind, "module": m.module, "path": m.path, "line": m.line,
                            "lines": len(m.source.splitlines()) if m.source else 0, "own": _own(m),
                            "reason": getattr(m, "reason", None) or getattr(m, "widened", None),
                            "via": via.get(m.qualname)})
        return {"id": fp.flow_id, "key": f"{fp.module}:{fp.function}", "module": fp.module, "codeHash": fp.code_hash,
                "members": members}

    out: dict[str, Any] = {
        "loom": str(Path(loom_compiler.__file__).resolve().parent.parent),
        "scheme": SCHEME,
        "scanSeconds": round(scan_seconds, 3),
        # the modules whose helpers the benchmark edits (a hook search's listing alone adds none)
        "modules": {m: tree.path_of(m) for m in sorted({r for f, rs in requests.items() for r in rs
                                                        if r not in hook_only.get(f, ())})},
        "requests": requests,
        "flows": [describe(fp) for module in sorted(base) for fp in base[module]],
    }
    edits = request.get("edits")
    if edits is not None:
        results = []
        started = time.perf_counter()
        for edit in edits:
            module = edit["module"]
            lines = data[module].decode("utf-8").splitlines(keepends=True)
            lines.insert(edit["line"] - 1, edit["text"] + "\n")
            source = dict(data)
            source[module] = "".join(lines).encode("utf-8")
            changed = []
            for flow_module, requested in requests.items():
                if module not in requested or module in hook_only.get(flow_module, ()):
                    continue
                before = {f"{f.module}:{f.function}": f for f in base[flow_module]}
                after, _ = fingerprint(flow_module, source)
                for fp in after:
                    key = f"{fp.module}:{fp.function}"
                    old = before.get(key)
                    if old is None or old.code_hash == fp.code_hash:
                        continue
                    old_own = {m.qualname: _own(m) for m in old.closure}
                    via = reach_map(fp)
                    touched = [[m.kind, m.qualname, getattr(m, "reason", None) or getattr(m, "widened", None),
                                via.get(m.qualname)]
                               for m in fp.closure if old_own.get(m.qualname) not in (None, _own(m))]
                    added = [[m.kind, m.qualname, None, via.get(m.qualname)] for m in fp.closure if m.qualname not in old_own]
                    changed.append({"key": key, "touched": touched, "added": added})
            results.append(changed)
        out["edits"] = results
        out["editSeconds"] = round(time.perf_counter() - started, 3)
    sys.stdout.write("@@closure-width@@" + json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
