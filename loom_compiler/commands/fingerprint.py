"""``loom fingerprint PATH... [--json] [--explain FLOW]``: print every flow's code fingerprint.

A thin shell over ``bundle.fingerprint_tree`` for the whole project (the build's ``.loom-cache``:
an unchanged tree is served without parsing) and ``loom_compiler.fingerprint_project`` for files
or directories named on their own. The configuration is found by walking up
from the first PATH (so ``loom fingerprint examples/shop`` uses that project's ``[tool.loom]``
whatever the working directory), falling back to the working directory; flags override it.
Exit status: 0 when every file was fingerprinted, 1 when any error was reported (the flows that
could be fingerprinted are still printed), 2 for a usage or configuration error.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ._ops import short, table

if TYPE_CHECKING:
    from ..config import LoomConfig
    from ..fingerprint import ProjectResult
    from ..model import FlowFingerprint, SourceError

__all__ = ["fingerprint_command", "render_json", "render_table", "render_explain"]

JSON_SCHEMA = "loom-fingerprint/1"


def render_json(result: ProjectResult) -> str:
    import json

    doc = {
        "schema": JSON_SCHEMA,
        "flows": [
            {
                "id": f.flow_id,
                "function": f.function,
                "path": f.path,
                "line": f.line,
                "codeHash": f.code_hash,
                "flowHash": f.flow_hash,
                "closure": [{"name": m.qualname, "kind": m.kind, "module": m.module, "hash": m.hash} for m in f.closure],
            }
            for f in result.flows
        ],
        "errors": [_error_json(e) for e in result.errors],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False)


def _error_json(error: SourceError) -> dict:
    return {"path": error.path, "line": error.line, "column": error.column, "message": error.message}


def render_table(flows: tuple[FlowFingerprint, ...]) -> str:
    headers = ("FLOW", "FUNCTION", "LOCATION", "CODEHASH", "CLOSURE")
    rows = [(f.flow_id, f"{f.module}.{f.function}", f"{f.path}:{f.line}", short(f.code_hash), str(len(f.closure))) for f in flows]
    return table(headers, rows)


def render_explain(flow: FlowFingerprint) -> str:
    from ..canonical import SCHEME, pretty

    out = [
        f"flow {flow.flow_id} ({flow.module}.{flow.function}, {flow.path}:{flow.line})",
        f"  codeHash {flow.code_hash}",
        f"  flowHash {flow.flow_hash} (structure: id, version, deadline, steps)",
        f"  closure: {len(flow.closure)} members; a member's hash covers its canonical form and the hashes of its bindings",
        "",
    ]
    for member in flow.closure:
        where = f" {member.path}:{member.line}" if member.path else ""
        out.append(f"[{member.kind}] {member.qualname}{where}")
        out.append(f"  hash {member.hash}")
        if member.target:
            out.append(f"  target {member.target}")
        for name, target in member.bindings:
            out.append(f"  uses {name} -> {target}")
        if member.canonical:
            out.append(f"  canonical ({SCHEME}):")
            for part in member.canonical.split("\n"):  # a constant bound by several statements
                out.extend("    " + line for line in pretty(part, 96).splitlines())
        out.append("")
    return "\n".join(out).rstrip() + "\n"


@click.command("fingerprint")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print loom-fingerprint/1 JSON instead of a table.")
@click.option("--explain", "explain", metavar="FLOW", help="List FLOW's closure members, hashes and canonical forms.")
@click.option("--framework", "framework", metavar="NAME", help="Framework profile (loom, temporal, dbos, prefect; overrides tool.loom.framework).")
@click.option("--package", "packages", multiple=True, help="First-party package root (repeatable; overrides tool.loom.packages).")
@click.option("--decorator", "decorators", multiple=True, help="Qualified name of a flow decorator (repeatable).")
@click.option("--step-decorator", "step_decorators", multiple=True, help="Qualified name of a step decorator (repeatable).")
@click.option("--exclude", "exclude", multiple=True, help="Glob of paths to skip, relative to the project root (repeatable).")
@click.option("--root", type=click.Path(path_type=Path, file_okay=False), help="Project root (default: where pyproject.toml is).")
def fingerprint_command(
    paths: tuple[Path, ...],
    as_json: bool,
    explain: str | None,
    framework: str | None,
    packages: tuple[str, ...],
    decorators: tuple[str, ...],
    step_decorators: tuple[str, ...],
    exclude: tuple[str, ...],
    root: Path | None,
) -> None:
    """Fingerprint the flows under PATH... (files or directories; default: the project root)."""
    if explain is not None and as_json:
        # --explain prints text; honouring only one of them silently would also hide the errors
        raise click.UsageError("--explain prints text and cannot be combined with --json; drop one of them")
    from loom_runtime.errors import ConfigError

    from ..config import load_config, scan_notice

    start = root or (paths[0] if paths else Path.cwd())
    try:
        config = load_config(
            start,
            root=root,
            framework=framework,
            packages=packages or None,
            decorators=decorators or None,
            step_decorators=step_decorators or None,
            exclude=exclude or None,
        )
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None
    notice = scan_notice(config, "loom fingerprint", paths)
    if notice:
        click.echo(notice, err=True)
    whole = all(Path(p).resolve() == config.root.resolve() for p in paths)
    if whole and explain is None and not as_json:
        # the whole project as a table (a pre-commit hook's call): its report, or the build's cache
        _print(*_project_table(config))
        return
    if whole:
        from ..bundle.fingerprint_tree import fingerprint_tree

        result = fingerprint_tree(config)
    else:  # files or directories named on their own: each file named is parsed, flow marker or not
        from ..fingerprint import fingerprint_project

        result = fingerprint_project(list(paths), config)
    if explain is not None:
        matches = [f for f in result.flows if explain in (f.flow_id, f.function, f"{f.module}.{f.function}")]
        if not matches:
            known = ", ".join(sorted(f.flow_id for f in result.flows)) or "none"
            raise click.ClickException(f"no flow `{explain}` under {', '.join(map(str, paths or [config.root]))}; known flows: {known}")
        out = "\n".join(render_explain(f) for f in matches)
        _print(out, *_diagnostics(result, listed=True), nl=False)
    elif as_json:
        err, status = _diagnostics(result, listed=False)
        _print(render_json(result), (*err, *_hint(config, len(result.flows), paths)), status)
    else:
        err, status = _diagnostics(result, listed=True)
        _print(render_table(result.flows), (*err, *_hint(config, len(result.flows), paths)), status)


def _hint(config: LoomConfig, flows: int, paths: tuple[Path, ...]) -> tuple[str, ...]:
    """The framework hint (``framework_hint``) when the scan found no flow, for standard error."""
    if flows:
        return ()
    from ..framework_hint import framework_hint

    hint = framework_hint(config, "loom fingerprint", paths)
    return (hint,) if hint else ()


#: the code that renders ``_project_table``'s report: a cached report is keyed by it (``tree_report``)
_RENDERER = (Path(__file__), Path(__file__).with_name("_ops.py"),
             Path(__file__).parent.parent / "framework_hint.py")


def _project_table(config: LoomConfig) -> tuple[str, tuple[str, ...], int]:
    """The table report of the whole project: served from ``.loom-cache`` while every file the
    run that made it read is unchanged (``bundle.tree_report``: nothing of the pipeline is
    imported then), else computed through the build's cache and kept."""
    from ..bundle.tree_report import keep_report, output_dir, served_report

    hide = output_dir(config)
    served = served_report(config, "fingerprint", _RENDERER, hide)
    if served is not None:
        return served[1], served[2], served[3]
    from ..bundle.fingerprint_tree import fingerprint_tree_reads

    result, reads = fingerprint_tree_reads(config)
    out = render_table(result.flows)
    err, status = _diagnostics(result, listed=True)
    err = (*err, *_hint(config, len(result.flows), ()))  # kept with the report: a served one says it too
    if reads is not None:
        keep_report(config, "fingerprint", _RENDERER, hide, reads, out, err, status)
    return out, err, status


def _diagnostics(result: ProjectResult, *, listed: bool) -> tuple[tuple[str, ...], int]:
    """The lines for standard error (warnings; the errors too when ``listed``: the JSON document
    carries them otherwise) and the exit status: 1 when any error was reported."""
    lines = [f"warning: {warning}" for warning in dict.fromkeys(w for f in result.flows for w in f.warnings)]
    if result.errors and listed:
        lines += [f"error: {error}" for error in result.errors]
        lines.append(f"{len(result.errors)} error(s)")
    return tuple(lines), 1 if result.errors else 0


def _print(out: str, err: tuple[str, ...], status: int, *, nl: bool = True) -> None:
    click.echo(out, nl=nl)
    for line in err:
        click.echo(line, err=True)
    if status:
        raise SystemExit(status)
