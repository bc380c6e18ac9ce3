"""Renderers for a ``ReviewDiff`` (and a ``CheckReport``): text, json, markdown, github.

Each renderer is a pure function of the value and returns a string, so every format is snapshot
tested byte for byte. ``text`` colours with ANSI escapes only when asked (the command asks when
stdout is a terminal); ``json`` is schema ``loom-diff/1`` with sorted keys; ``markdown`` is meant
for a pull-request comment; ``github`` prints workflow commands (``::warning file=…,line=…::…``)
that GitHub Actions turns into annotations at the flow's file and line. Paths in annotations are
relative to the repository top (``path_prefix`` is the project's directory inside it), because
that is what GitHub resolves them against.

Every format shows the change itself, not only where: each changed member's code before and after
(normalised, ``review.code``; one inline pair for a one-line change, diff lines otherwise, via
``review.change_text``), and the static estimate of the recorded steps the new body could skip.
Markdown adds a Mermaid graph of the route from the flow to each changed member (``review.graph``);
github adds a notice at each edited member's own file and line.

A *rehashed* flow (unchanged code whose codeHash moved with the fingerprint scheme, ``diff``) is
reported in every format as ``rehashed, unchanged`` with both hashes and schemes: text and
markdown say so next to the flow, json has ``rehashed``/``baseScheme``/``headScheme``, github
prints a ``::notice`` (never a warning: there is nothing to fix).

Rejected: click's styling in this module (click stays in the command layer) and one template
engine for all formats (four small functions are easier to read than one generic one).
"""

from __future__ import annotations

import json
from typing import Any

from ..workflow_commands import command
from .change_text import MemberDetail, member_detail, skip_sentence
from .diff import FlowChange, MemberChange, ReviewDiff
from .graph import mermaid
from .policy import CheckReport

__all__ = ["FORMATS", "render_diff", "render_text", "render_json", "render_markdown", "render_github", "render_check"]

FORMATS = ("text", "json", "markdown", "github")
DIFF_SCHEMA = "loom-diff/1"

_COLOURS = {"changed": "33", "new": "32", "removed": "31", "unchanged": "2", "error": "31;1", "bold": "1"}


def _short(digest: str | None, n: int = 12) -> str:
    if not digest:
        return "-"
    algo, _, hexpart = digest.partition(":")
    return f"{algo}:{hexpart[:n]}"


def _paint(text: str, what: str, colour: bool) -> str:
    return f"\x1b[{_COLOURS[what]}m{text}\x1b[0m" if colour else text


def _summary(diff: ReviewDiff) -> str:
    text = ", ".join(f"{diff.count(s)} {s}" for s in ("changed", "new", "removed", "unchanged"))
    return text + (f" ({diff.rehashed} rehashed)" if diff.rehashed else "")


def _rehash_note(f: FlowChange, code: str = "") -> str:
    """``rehashed, unchanged: loom-fp/1 sha256:… -> loom-fp/2 sha256:…``"""
    return (f"rehashed, unchanged: {f.base_scheme} {code}{_short(f.base_code_hash)}{code} -> "
            f"{f.head_scheme} {code}{_short(f.head_code_hash)}{code} (closure sources byte-identical)")


def render_diff(diff: ReviewDiff, fmt: str, *, colour: bool = False, path_prefix: str = "") -> str:
    if fmt == "text":
        return render_text(diff, colour=colour)
    if fmt == "json":
        return render_json(diff)
    if fmt == "markdown":
        return render_markdown(diff)
    if fmt == "github":
        return render_github(diff, path_prefix=path_prefix)
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")


# -- text ----------------------------------------------------------------------------------------


def render_text(diff: ReviewDiff, *, colour: bool = False) -> str:
    lines = [_paint(f"loom diff {diff.base} -> {diff.head}: {_summary(diff)}", "bold", colour)]
    width = max((len(f.flow_id) for f in diff.flows), default=0)
    for f in diff.flows:
        where = f"{f.path}:{f.line}" if f.path else ""
        lines.append(f"  {_paint(f.status.ljust(9), f.status, colour)} {f.flow_id.ljust(width)}  {where}".rstrip())
        if f.rehashed:
            lines.append(f"            {_rehash_note(f)}")
        if f.status == "changed":
            lines.append(f"            codeHash {_short(f.base_code_hash)} -> {_short(f.head_code_hash)}")
            if f.structure_changed:
                lines.append(
                    f"            flowHash {_short(f.base_flow_hash)} -> {_short(f.head_flow_hash)}"
                    " (declared id/version/deadline/steps changed)"
                )
            for m in f.members:
                lines.append(f"            {m.change:<8} {m.describe()}")
                lines.extend(_text_detail(member_detail(m)))
            skip = skip_sentence(f)
            if skip:
                lines.append(f"            {skip}")
            lines.extend(f"            {line}" for line in _advice(f))
    for w in diff.warnings:
        lines.append(f"warning: {w}")
    for e in diff.errors:
        lines.append(_paint(f"error: {e}", "error", colour))
    return "\n".join(lines)


def _text_detail(detail: MemberDetail | None, indent: str = " " * 21) -> list[str]:
    if detail is None:
        return []
    if detail.inline is not None:
        return [f"{indent}{detail.inline[0]}  ->  {detail.inline[1]}"]
    out = [f"{indent}{detail.note}"] if detail.note else []
    # the diff marker sits in the column before the code, so the code itself stays aligned
    out += [f"{indent[:-1]}{line}" for line in detail.lines]
    if detail.hidden:
        out.append(f"{indent}... {detail.hidden} more line(s)")
    return out


def _advice(f: FlowChange) -> list[str]:
    if f.compatible:
        return [f"already lists {_short(f.base_code_hash)} in compatible_with (asserted replay-safe)"]
    if f.suggestion:
        return [f"if the edit is replay-safe, add to the @flow decorator: {f.suggestion}"]
    if f.structure_changed:
        return ["compatible_with cannot serve the old structure: keep the old version (history) or migrate"]
    return []


# -- json ----------------------------------------------------------------------------------------


def _flow_json(f: FlowChange) -> dict[str, Any]:
    return {
        "id": f.flow_id,
        "status": f.status,
        "path": f.path,
        "line": f.line,
        "baseCodeHash": f.base_code_hash,
        "headCodeHash": f.head_code_hash,
        "baseFlowHash": f.base_flow_hash,
        "headFlowHash": f.head_flow_hash,
        "structureChanged": f.structure_changed,
        "rehashed": f.rehashed,
        "baseScheme": f.base_scheme,
        "headScheme": f.head_scheme,
        "compatible": f.compatible,
        "suggestion": f.suggestion,
        "members": [_member_json(m) for m in f.members],
        "maySkip": None if f.may_skip is None else list(f.may_skip),
        "headComputedSteps": f.head_computed_steps,
    }


def _member_json(m: MemberChange) -> dict[str, Any]:
    return {
        "name": m.qualname,
        "change": m.change,
        "kind": m.kind,
        "path": m.path,
        "line": m.line,
        "before": m.code.before,
        "after": m.code.after,
        "canonical": m.code.canonical,
        "rebound": [{"name": n, "before": b, "after": a} for n, b, a in m.code.rebound],
    }


def render_json(diff: ReviewDiff) -> str:
    doc = {
        "schema": DIFF_SCHEMA,
        "base": diff.base,
        "head": diff.head,
        "flows": [_flow_json(f) for f in diff.flows],
        "warnings": list(diff.warnings),
        "errors": [{"path": e.path, "line": e.line, "column": e.column, "message": e.message} for e in diff.errors],
    }
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False)


# -- markdown ------------------------------------------------------------------------------------


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def _longest_run(text: str, char: str = "`") -> int:
    longest = run = 0
    for c in text:
        run = run + 1 if c == char else 0
        longest = max(longest, run)
    return longest


def _code_span(text: str) -> str:
    """Inline code that survives backticks in ``text`` (CommonMark: a longer fence, padded)."""
    fence = "`" * (_longest_run(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _markdown_member(m: MemberChange) -> list[str]:
    where = ", ".join(x for x in (m.kind, _code_span(f"{m.path}:{m.line}") if m.path else None) if x)
    head = f"{m.change} {_code_span(m.qualname)}" + (f" ({where})" if where else "")
    detail = member_detail(m)
    if detail is None:
        return [head, ""]
    if detail.inline is not None:
        return [f"{head}: {_code_span(detail.inline[0])} → {_code_span(detail.inline[1])}", ""]
    out = [f"{head}: {detail.note}" if detail.note else f"{head}:", ""]
    if detail.lines:
        fence = "`" * max(3, _longest_run("\n".join(detail.lines)) + 1)  # code may hold ``` itself
        out += [f"{fence}diff", *detail.lines]
        if detail.hidden:
            out.append(f" ... {detail.hidden} more line(s)")
        out += [fence, ""]
    return out


def render_markdown(diff: ReviewDiff) -> str:
    out = [f"### loom diff `{diff.base}` → {diff.head}", "", _summary(diff) + ".", ""]
    if diff.flows:
        out += ["| flow | status | location | changed members |", "| --- | --- | --- | --- |"]
        for f in diff.flows:
            where = f"`{f.path}:{f.line}`" if f.path else ""
            members = "<br>".join(f"{m.change} `{m.qualname}`" for m in f.members) or ""
            status = "rehashed, unchanged" if f.rehashed else f.status
            out.append(f"| `{_md(f.flow_id)}` | {status} | {where} | {_md(members)} |")
        out.append("")
    for f in diff.flows:
        if f.rehashed:
            out += [f"**`{_md(f.flow_id)}`**: {_rehash_note(f, '`')}.", ""]
        if f.status != "changed":
            continue
        out.append(f"**`{_md(f.flow_id)}`**: codeHash `{_short(f.base_code_hash)}` → `{_short(f.head_code_hash)}`.")
        out.append("")
        for m in f.members:
            out += _markdown_member(m)
        skip = skip_sentence(f)
        if skip:
            out += [skip, ""]
        graph = mermaid(f)
        if graph:
            out += ["```mermaid", *graph, "```", ""]
        if f.compatible:
            out.append(f"Already lists `{_short(f.base_code_hash)}` in `compatible_with` (asserted replay-safe).")
        elif f.suggestion:
            out += ["If the edit is replay-safe, add this to its `@flow(...)` decorator:", "", "```python", f.suggestion + ",", "```"]
        elif f.structure_changed:
            out.append("The declared structure changed: `compatible_with` cannot serve old executions; keep the old version or migrate them.")
        out.append("")
    if diff.warnings:
        out += ["**Warnings**", ""] + [f"- `{_md(w)}`" for w in diff.warnings] + [""]
    if diff.errors:
        out += ["**Errors**", ""] + [f"- `{_md(str(e))}`" for e in diff.errors] + [""]
    return "\n".join(out).rstrip() + "\n"


# -- github --------------------------------------------------------------------------------------


def _command(level: str, message: str, *, file: str | None, line: int, title: str, prefix: str) -> str:
    return command(level, message, title=title, file=file, line=line, prefix=prefix)


def render_github(diff: ReviewDiff, *, path_prefix: str = "") -> str:
    out = []
    for f in diff.flows:
        if f.rehashed:
            out.append(_command("notice", f"flow `{f.flow_id}` {_rehash_note(f)}", file=f.path, line=f.line,
                                title=f"loom: flow {f.flow_id} rehashed", prefix=path_prefix))
            continue
        if f.status == "unchanged":
            continue
        if f.status == "new":
            out.append(_command("notice", f"new flow `{f.flow_id}` ({_short(f.head_code_hash)})",
                                file=f.path, line=f.line, title=f"loom: new flow {f.flow_id}", prefix=path_prefix))
            continue
        if f.status == "removed":
            out.append(_command("warning", f"flow `{f.flow_id}` was removed; in-flight executions need its old version kept",
                                file=f.path, line=f.line, title=f"loom: flow {f.flow_id} removed", prefix=path_prefix))
            continue
        members = "; ".join(f"{m.change} {m.describe()}" for m in f.members) or "no member named"
        message = f"flow `{f.flow_id}` changed ({_short(f.base_code_hash)} -> {_short(f.head_code_hash)}): {members}."
        skip = skip_sentence(f)
        if skip:
            message += f" {skip}"
        advice = _advice(f)
        if advice:
            message += f" Advice: {advice[0]}."
        out.append(_command("warning", message, file=f.path, line=f.line, title=f"loom: flow {f.flow_id} changed",
                            prefix=path_prefix))
    out.extend(_member_notices(diff, path_prefix))
    for w in diff.warnings:  # the base could not be read completely: no file of the head to point at
        out.append(_command("warning", w, file=None, line=0, title="loom: base", prefix=path_prefix))
    for e in diff.errors:
        out.append(_command("error", e.message, file=e.path, line=e.line, title="loom: source error", prefix=path_prefix))
    return "\n".join(out)


def _member_notices(diff: ReviewDiff, prefix: str) -> list[str]:
    """One notice per edited member at its own file and line (a member shared by flows: once)."""
    flows: dict[tuple[str, int, str], list[str]] = {}
    changes: dict[tuple[str, int, str], MemberChange] = {}
    for f in diff.flows:
        for m in f.members:
            if m.change == "edited" and m.path:
                key = (m.path, m.line, m.qualname)
                flows.setdefault(key, []).append(f.flow_id)
                changes.setdefault(key, m)
    out = []
    for key in sorted(flows):
        m = changes[key]
        detail = member_detail(m)
        if detail is None:
            text = "edited"
        elif detail.inline is not None:
            text = f"{detail.inline[0]}  ->  {detail.inline[1]}"
        else:
            text = "\n".join(([detail.note] if detail.note else []) + list(detail.lines)
                             + ([f"... {detail.hidden} more line(s)"] if detail.hidden else []))
        title = f"loom: {m.qualname} changed (flow {', '.join(flows[key])})"
        out.append(_command("notice", text, file=m.path, line=m.line, title=title, prefix=prefix))
    return out


# -- check ---------------------------------------------------------------------------------------


def render_check(report: CheckReport, fmt: str = "text", *, colour: bool = False, path_prefix: str = "") -> str:
    """``loom check`` output: one line (or annotation) per failing flow, then a verdict."""
    if fmt == "github":
        lines = [
            _command("error", f.message, file=f.path, line=f.line, title=f"loom check: {f.flow_id}", prefix=path_prefix)
            for f in report.failures
        ]
        return "\n".join(lines)
    lines = [_paint(f"error: {f.message}", "error", colour) for f in report.failures]
    lines += [f"note: {n}" for n in report.notes]
    verdict = (
        f"loom check: {len(report.failures)} flow(s) would strand in-flight executions"
        if report.failures
        else f"loom check: ok ({report.diff.count('changed')} changed flow(s) kept or compatible"
        + (f"; {report.diff.rehashed} rehashed, unchanged)" if report.diff.rehashed else ")")
    )
    lines.append(verdict)
    return "\n".join(lines)
