"""Fingerprint correctness table: every code-version scheme on every equal/changed pair.

For each pair the two sides are written to fresh directories; each scheme computes a version for
both (import-based schemes import the side's package first) and the verdict is ``equal`` when the
two versions are the same. A scheme is right on a pair when its verdict is the pair's expectation;
an exception counts as wrong and is reported with its message.

Run inside the benchmark venv (``python3 benchmarks/run_all.py`` does that)::

    benchmarks/.venv/bin/python benchmarks/compare_fingerprints.py [--only loom,dbos] [--pairs a,b] [--json OUT]

Prints one summary row per scheme and every pair on which ``loom`` is wrong; ``--matrix`` prints
the pair-by-scheme matrix as well (it is always in the JSON).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.fingerprint_pairs import Pair, base, load_pairs, sides, write_project  # noqa: E402
from benchmarks.version_schemes import SCHEMES, Scheme, Side, imported_side  # noqa: E402


def _versions(schemes: list[Scheme], side: Side) -> dict[str, str | BaseException]:
    out: dict[str, str | BaseException] = {}
    for scheme in schemes:
        if not scheme.needs_import:
            try:
                out[scheme.name] = scheme.version(side)
            except Exception as exc:  # a scheme's failure is a result, not a crash
                out[scheme.name] = exc
    importing = [s for s in schemes if s.needs_import]
    if importing:
        try:
            with imported_side(side) as loaded:
                for scheme in importing:
                    try:
                        out[scheme.name] = scheme.version(loaded)
                    except Exception as exc:
                        out[scheme.name] = exc
        except Exception as exc:  # the side itself does not import
            for scheme in importing:
                out[scheme.name] = exc
    return out


def run_pairs(pairs: tuple[Pair, ...] | list[Pair], schemes: list[Scheme], workdir: Path) -> list[dict]:
    """One record per pair: ``{"pair", "expect", "about", "results": {scheme: {"verdict", "right", "error"?}}}``."""
    records = []
    for i, pair in enumerate(pairs):
        before_files, after_files = sides(pair)
        versions = []
        for label, files in (("before", before_files), ("after", after_files)):
            root = write_project(files, workdir / f"{i:03d}-{pair.name}-{label}")
            side = Side(root, files, base.PACKAGE, base.FLOW_MODULE, base.FLOW_ID)
            versions.append(_versions(schemes, side))
        results = {}
        for scheme in schemes:
            v1, v2 = versions[0][scheme.name], versions[1][scheme.name]
            if isinstance(v1, BaseException) or isinstance(v2, BaseException):
                err = v1 if isinstance(v1, BaseException) else v2
                results[scheme.name] = {"verdict": "error", "right": False,
                                        "error": f"{type(err).__name__}: {err}"[:500]}
            else:
                verdict = "equal" if v1 == v2 else "changed"
                results[scheme.name] = {"verdict": verdict, "right": verdict == pair.expect,
                                        "before": v1, "after": v2}
        records.append({"pair": pair.name, "expect": pair.expect, "about": pair.about, "results": results})
    return records


def summarise(records: list[dict], schemes: list[Scheme]) -> list[dict]:
    rows = []
    n_eq = sum(r["expect"] == "equal" for r in records)
    n_ch = sum(r["expect"] == "changed" for r in records)
    for scheme in schemes:
        kept = sum(r["expect"] == "equal" and r["results"][scheme.name]["right"] for r in records)
        caught = sum(r["expect"] == "changed" and r["results"][scheme.name]["right"] for r in records)
        errors = sum(r["results"][scheme.name]["verdict"] == "error" for r in records)
        rows.append({
            "scheme": scheme.name, "tool": scheme.tool, "method": scheme.method,
            "equal_kept": kept, "equal_total": n_eq, "changed_caught": caught, "changed_total": n_ch,
            "right": kept + caught, "total": n_eq + n_ch, "errors": errors,
        })
    return rows


def format_summary(rows: list[dict]) -> str:
    lines = ["| scheme | tool | equal kept equal | changes detected | right | errors |",
             "|---|---|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(
            f"| {r['scheme']} | {r['tool']} | {r['equal_kept']}/{r['equal_total']} "
            f"| {r['changed_caught']}/{r['changed_total']} | {r['right']}/{r['total']} "
            f"({100 * r['right'] / r['total']:.0f}%) | {r['errors']} |"
        )
    return "\n".join(lines)


def format_matrix(records: list[dict], schemes: list[Scheme]) -> str:
    names = [s.name for s in schemes]
    lines = ["| pair | expect | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
    mark = {True: "ok", False: "WRONG"}
    for r in records:
        cells = []
        for n in names:
            res = r["results"][n]
            cells.append("ERROR" if res["verdict"] == "error" else f"{res['verdict']} {mark[res['right']]}")
        lines.append(f"| {r['pair']} | {r['expect']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def misses(records: list[dict], scheme: str) -> list[str]:
    out = []
    for r in records:
        res = r["results"][scheme]
        if not res["right"]:
            detail = res.get("error") or f"said {res['verdict']}"
            out.append(f"{r['pair']} (expected {r['expect']}: {r['about']}): {detail}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="comma-separated scheme names")
    ap.add_argument("--pairs", help="comma-separated pair names")
    ap.add_argument("--json", type=Path, help="write the full results here")
    ap.add_argument("--matrix", action="store_true", help="print the pair-by-scheme matrix")
    args = ap.parse_args(argv)

    pairs = load_pairs()
    if args.pairs:
        wanted = set(args.pairs.split(","))
        pairs = tuple(p for p in pairs if p.name in wanted)
        if missing := wanted - {p.name for p in pairs}:
            ap.error(f"unknown pair(s): {', '.join(sorted(missing))}")
    schemes: list[Scheme] = []
    skipped: dict[str, str] = {}
    for cls in SCHEMES:
        if args.only and cls.name not in args.only.split(","):
            continue
        scheme = cls()
        reason = scheme.unavailable()
        if reason:
            skipped[scheme.name] = reason
        else:
            schemes.append(scheme)

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="loom-pairs-") as tmp:
        records = run_pairs(pairs, schemes, Path(tmp))
    elapsed = time.perf_counter() - t0
    rows = summarise(records, schemes)

    print(f"## Fingerprint correctness ({len(pairs)} pairs, {elapsed:.1f}s)\n")
    print(format_summary(rows))
    for name, reason in skipped.items():
        print(f"\nskipped {name}: {reason}")
    if args.matrix:
        print("\n" + format_matrix(records, schemes))
    if any(s.name == "loom" for s in schemes):
        wrong = misses(records, "loom")
        print(f"\nloom wrong on {len(wrong)} pair(s)" + (":" if wrong else "."))
        for line in wrong:
            print(f"  - {line}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({
            "summary": rows, "skipped": skipped, "pairs": records,
            "methods": {s.name: s.method for s in schemes}, "seconds": elapsed,
        }, indent=1, sort_keys=True), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
