"""Build an example with ``loom build`` and explain the manifest it wrote (``./dev example``).

    python examples/build_example.py [PROJECT]      # default: examples/shop

Runs the real ``loom build`` on PROJECT (its summary line is loom's own), then prints, per flow,
the versions the cumulative manifest holds: which is current, its codeHash, declared steps and
step families, the chunk file that holds that version's code, and the closure the fingerprint
covers (the flow, the helpers it calls, the steps by name). Run it again after editing a helper to
watch a second version appear beside the first.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent


def summarize(manifest_path: Path, project: Path) -> str:
    doc = json.loads(manifest_path.read_text(encoding="utf-8"))
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
            role = "current" if code_hash == current else "earlier, kept for executions that started on it"
            families = [f if isinstance(f, str) else f["pattern"] for f in v["stepFamilies"]]
            lines.append(f"  {code_hash[:19]}…  {role}")
            lines.append(f"    defined at   {v['source']['path']}:{v['source']['line']} (version={v['version']})")
            lines.append(f"    steps        {', '.join(v['steps']) or '(none declared)'}"
                         + (f"; families {', '.join(f + '#*' for f in families)}" if families else ""))
            if v["compatibleWith"]:
                lines.append(f"    compatible   {', '.join(h[:19] + '…' for h in v['compatibleWith'])}")
            lines.append(f"    chunk        {_rel(manifest_path.parent / v['chunk'])}")
            members = ", ".join(sorted(v["closure"]))
            lines.append(textwrap.fill(f"closure      {len(v['closure'])} members: {members}", 100,
                                       initial_indent="    ", subsequent_indent=" " * 17))
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
