"""Build an example with ``loom build`` and explain the manifest it wrote (``./dev example``).

    python examples/build_example.py [PROJECT]      # default: examples/shop

Runs the real ``loom build`` on PROJECT (its summary line is loom's own), then prints, per flow,
the versions the cumulative manifest holds: which is current, its codeHash, declared steps and
step families, the chunk file that holds that version's code, and the closure the fingerprint
covers (the flow, the helpers it calls, the steps by name). Run it again after editing a helper to
watch a second version appear beside the first: an earlier version is shown by what differs from
the current one (the member that was edited, and the callers whose Merkle hash moved with it),
not by its whole closure again.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent


def call_graph(project: Path) -> dict[str, dict[str, set[str]]]:
    """flow id -> member -> the closure members it uses, from the working tree's fingerprint (the
    manifest records member -> hash only; the bindings say which member calls which)."""
    from loom_compiler import fingerprint_project, load_config

    result = fingerprint_project([project], load_config(project))
    graph: dict[str, dict[str, set[str]]] = {}
    for fp in result.flows:
        names = {m.qualname for m in fp.closure}
        graph[fp.flow_id] = {m.qualname: {t for _, t in m.bindings if t in names} for m in fp.closure}
    return graph


def closure_difference(current: dict[str, str], earlier: dict[str, str], uses: dict[str, set[str]]) -> str:
    """How ``earlier``'s closure (member -> hash) differs from ``current``'s, for a person: the members
    edited (their hash moved although nothing they use did), then those whose hash only followed."""
    added = sorted(set(current) - set(earlier))
    removed = sorted(set(earlier) - set(current))
    moved = {m for m in set(current) & set(earlier) if current[m] != earlier[m]}
    edited = sorted(m for m in moved if not (uses.get(m, set()) & (moved | set(added))))
    followed = sorted(moved - set(edited))
    parts = [f"{m} (edited)" for m in edited]
    parts += [f"{m} (only in the current version)" for m in added]
    parts += [f"{m} (only in this version)" for m in removed]
    text = ", ".join(parts) or "no member (only the declaration differs)"
    if followed:
        text += f"; the hashes of {', '.join(followed)} follow it (they use it)"
    return text


def summarize(manifest_path: Path, project: Path) -> str:
    doc = json.loads(manifest_path.read_text(encoding="utf-8"))
    graph = call_graph(project)
    lines = [f"{_rel(manifest_path)}  ({doc['schema']}, fingerprint scheme {doc['fingerprintScheme']})"]
    for flow_id, entry in sorted(doc["flows"].items()):
        versions = entry["versions"]
        current = entry.get("current")
        order = [current] + sorted(h for h in versions if h != current) if current in versions else sorted(versions)
        state = " (removed from the source; kept for in-flight executions)" if entry.get("removed") else ""
        lines.append("")
        lines.append(f"flow `{flow_id}`: {len(versions)} version(s){state}")
        for code_hash in order:
            v = versions[code_hash]
            cur = versions.get(current) if current in versions else None
            role = "current" if code_hash == current else "earlier, kept for executions that started on it"
            families = [f if isinstance(f, str) else f["pattern"] for f in v["stepFamilies"]]
            lines.append(f"  {code_hash[:19]}…  {role}")
            lines.append(f"    defined at   {v['source']['path']}:{v['source']['line']} (version={v['version']})")
            lines.append(f"    steps        {', '.join(v['steps']) or '(none declared)'}"
                         + (f"; families {', '.join(f + '#*' for f in families)}" if families else ""))
            if v["compatibleWith"]:
                lines.append(f"    compatible   {', '.join(h[:19] + '…' for h in v['compatibleWith'])}")
            lines.append(f"    chunk        {_rel(manifest_path.parent / v['chunk'])}")
            if cur is None or cur is v:
                members = ", ".join(sorted(v["closure"]))
                text = f"closure      {len(v['closure'])} members: {members}"
            elif v.get("scheme", "loom-fp/1") != cur.get("scheme", "loom-fp/1"):
                same = code_hash in cur.get("rehashedFrom", [])
                text = (f"differs      built under {v.get('scheme', 'loom-fp/1')}: member hashes compare only "
                        "within one scheme" + ("; the same code as the current version (rehashed)" if same else ""))
            else:
                diff = closure_difference(cur["closure"], v["closure"], graph.get(flow_id, {}))
                text = f"differs      from the current version in {diff}"
            lines.append(textwrap.fill(text, 100, initial_indent="    ", subsequent_indent=" " * 17))
    lines.append("")
    lines.append(f"Try: edit a helper in {_rel(project)} (e.g. DISCOUNT_RATE in shop/pricing.py) and run this again;")
    lines.append("     python examples/upgrade_walkthrough.py   shows a deploy while executions are in flight.")
    return "\n".join(lines)


def _rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", nargs="?", type=Path, default=HERE / "shop")
    args = parser.parse_args(argv)
    project = args.project.resolve()
    proc = subprocess.run([sys.executable, "-m", "loom_compiler", "build", str(project)])
    if proc.returncode != 0:
        return proc.returncode
    from loom_compiler.config import load_config

    print()
    print(summarize(load_config(project).out_dir / "manifest.json", project))
    return 0


if __name__ == "__main__":
    sys.exit(main())
