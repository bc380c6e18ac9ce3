"""Fingerprint correctness table: every code-version scheme on every equal/changed pair.

For each pair the two sides are written to fresh directories; each scheme computes a version for
both (import-based schemes import the side's package first) and the verdict is ``equal`` when the
two versions are the same. A scheme is right on a pair when its verdict is the pair's expectation;
an exception counts as wrong and is reported with its message.

Run inside the benchmark venv (``python3 benchmarks/run_all.py`` does that)::

    benchmarks/.venv/bin/python benchmarks/compare_fingerprints.py [--only loom,dbos] [--pairs a,b] [--json OUT]

Two suites (``--suite``): ``design``, this directory's project-level pairs, and ``compiler``, the
fingerprint engineer's single-module pairs read as data from ``tests/compiler/fp_cases.py``.
Prints one summary row per scheme per suite and every pair on which ``loom`` is wrong;
``--matrix`` prints the pair-by-scheme matrix as well (it is always in the JSON).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.fingerprint_pairs import Case, compiler_cases, design_cases, write_project  # noqa: E402
from benchmarks.version_schemes import SCHEMES, Scheme, Side, imported_side  # noqa: E402


SUITES = {
    "design": "benchmarks/fingerprint_pairs, a two-module project per side",
    "compiler": "tests/compiler/fp_cases.py and fp2_cases_*.py, the compiler's single-module and project pairs",
}


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
        except Exception as exc:  # the side itself does not import: the pair says nothing of the scheme
            for scheme in importing:
                out[scheme.name] = Unimportable(f"{type(exc).__name__}: {exc}")
    return out


class Unimportable(Exception):
    """The side's module raises on import (e.g. a decorator it never defines): ``n/a`` for import-based schemes."""


def run_pairs(cases: list[Case], schemes: list[Scheme], workdir: Path) -> list[dict]:
    """One record per case: ``{"pair", "expect", "about", "results": {scheme: {"verdict", "right", "error"?}}}``."""
    records = []
    for i, case in enumerate(cases):
        versions = []
        for label, files in (("before", case.before), ("after", case.after)):
            root = write_project(files, workdir / f"{i:03d}-{case.name}-{label}", case.package)
            side = Side(root, files, case.package, case.flow_module, case.flow_id)
            versions.append(_versions(schemes, side))
        results = {}
        for scheme in schemes:
            v1, v2 = versions[0][scheme.name], versions[1][scheme.name]
            if isinstance(v1, Unimportable) or isinstance(v2, Unimportable):
                err = v1 if isinstance(v1, Unimportable) else v2
                results[scheme.name] = {"verdict": "n/a", "right": None, "error": f"side does not import: {err}"[:500]}
            elif isinstance(v1, BaseException) or isinstance(v2, BaseException):
                err = v1 if isinstance(v1, BaseException) else v2
                results[scheme.name] = {"verdict": "error", "right": False,
                                        "error": f"{type(err).__name__}: {err}"[:500]}
            else:
                verdict = "equal" if v1 == v2 else "changed"
                results[scheme.name] = {"verdict": verdict, "right": verdict == case.expect,
                                        "before": v1, "after": v2}
        records.append({"pair": case.name, "expect": case.expect, "about": case.about, "results": results})
    return records


def summarise(records: list[dict], schemes: list[Scheme]) -> list[dict]:
    """Per scheme: counts over the pairs it could judge (``n/a``: a side that does not import)."""
    rows = []
    for scheme in schemes:
        judged = [r for r in records if r["results"][scheme.name]["right"] is not None]
        n_eq = sum(r["expect"] == "equal" for r in judged)
        n_ch = sum(r["expect"] == "changed" for r in judged)
        kept = sum(r["expect"] == "equal" and r["results"][scheme.name]["right"] for r in judged)
        caught = sum(r["expect"] == "changed" and r["results"][scheme.name]["right"] for r in judged)
        errors = sum(r["results"][scheme.name]["verdict"] == "error" for r in judged)
        rows.append({
            "scheme": scheme.name, "tool": scheme.tool, "method": scheme.method,
            "equal_kept": kept, "equal_total": n_eq, "changed_caught": caught, "changed_total": n_ch,
            "right": kept + caught, "total": n_eq + n_ch, "errors": errors,
            "not_applicable": len(records) - len(judged),
        })
    return rows


def format_summary(rows: list[dict]) -> str:
    lines = ["| scheme | tool | equal kept equal | changes detected | right | errors | n/a |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(
            f"| {r['scheme']} | {r['tool']} | {r['equal_kept']}/{r['equal_total']} "
            f"| {r['changed_caught']}/{r['changed_total']} | {r['right']}/{r['total']} "
            f"({100 * r['right'] / max(r['total'], 1):.0f}%) | {r['errors']} | {r['not_applicable']} |"
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
            if res["verdict"] in ("error", "n/a"):
                cells.append(res["verdict"].upper())
            else:
                cells.append(f"{res['verdict']} {mark[res['right']]}")
        lines.append(f"| {r['pair']} | {r['expect']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def misses(records: list[dict], scheme: str) -> list[str]:
    out = []
    for r in records:
        res = r["results"][scheme]
        if res["right"] is False:
            detail = res.get("error") or f"said {res['verdict']}"
            out.append(f"{r['pair']} (expected {r['expect']}: {r['about']}): {detail}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="comma-separated scheme names")
    ap.add_argument("--pairs", help="comma-separated pair names")
    ap.add_argument("--suite", choices=["all", *SUITES], default="all")
    ap.add_argument("--json", type=Path, help="write the full results here")
    ap.add_argument("--matrix", action="store_true", help="print the pair-by-scheme matrix")
    args = ap.parse_args(argv)

    suites = {"design": design_cases(), "compiler": compiler_cases()}
    if args.suite != "all":
        suites = {args.suite: suites[args.suite]}
    if args.pairs:
        wanted = set(args.pairs.split(","))
        suites = {k: [c for c in v if c.name in wanted] for k, v in suites.items()}
        if missing := wanted - {c.name for v in suites.values() for c in v}:
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

    output: dict[str, dict] = {}
    for suite, cases in suites.items():
        if not cases:
            print(f"## Fingerprint correctness, suite `{suite}`: no cases in this checkout; skipped\n")
            continue
        t0 = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="loom-pairs-") as tmp:
            records = run_pairs(cases, schemes, Path(tmp))
        elapsed = time.perf_counter() - t0
        rows = summarise(records, schemes)
        output[suite] = {"summary": rows, "pairs": records, "seconds": elapsed}
        print(f"## Fingerprint correctness, suite `{suite}`: {SUITES[suite]} ({len(cases)} pairs, {elapsed:.1f}s)\n")
        print(format_summary(rows))
        if args.matrix:
            print("\n" + format_matrix(records, schemes))
        if any(s.name == "loom" for s in schemes):
            wrong = misses(records, "loom")
            print(f"\nloom wrong on {len(wrong)} pair(s)" + (":" if wrong else "."))
            for line in wrong:
                print(f"  - {line}")
        print()
    for name, reason in skipped.items():
        print(f"skipped {name}: {reason}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({
            "suites": output, "skipped": skipped, "methods": {s.name: s.method for s in schemes},
        }, indent=1, sort_keys=True), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
