"""``python -m shop``: drive the shop's flows from a shell (one process per command).

    python -m shop [--journal shop.db] [--manifest PATH] versions
    python -m shop ... start checkout '{"id": "o-1", "sku": "desk", "items": [{"sku": "desk", "price": 650.0}]}' --id o-1
    python -m shop ... resume o-1 '{"approved": true, "by": "dana"}'
    python -m shop ... retry o-1        # re-run an execution parked by divergence detection
    python -m shop ... status o-1

``--id`` names the execution; without it the runtime generates an id, which ``start`` prints (the
order's own ``"id"`` is input data, not the execution id). Every command prints one line saying
what happened and which code version ran it. Exit status 1 when the runtime refused (the message
says why and what to do).
"""

from __future__ import annotations

import argparse
import json
import sys

from loom_runtime import Handle, LoomError

from .service import open_runtime, version_of


def _short(code_hash: str | None) -> str:
    return code_hash[7:19] if code_hash else "none"


def describe(runtime, handle: Handle) -> str:
    version = version_of(runtime, handle.execution_id)
    origin = "this release's live code" if version.origin == "live" else "a chunk shipped from an earlier release"
    state = f"{handle.status} at gate `{handle.gate}`" if handle.status == "suspended" else handle.status
    line = f"{handle.flow_id} {handle.execution_id}: {state} on code {_short(version.code_hash)} ({origin})"
    if handle.status == "completed":
        line += f" -> {json.dumps(handle.result, sort_keys=True)}"
    return line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m shop", description=__doc__.splitlines()[0])
    parser.add_argument("--journal", default="shop.db", help="SQLite journal file (default: shop.db)")
    parser.add_argument("--manifest", default=None, help="manifest.json to serve instead of the packaged one")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("versions", help="list the versions this release can serve")
    start = sub.add_parser("start", help="start a flow")
    start.add_argument("flow")
    start.add_argument("input", type=json.loads)
    start.add_argument("--id", default=None, help="the execution id (default: generated, and printed)")
    resume = sub.add_parser("resume", help="answer the gate an execution waits on")
    resume.add_argument("execution_id")
    resume.add_argument("payload", type=json.loads, nargs="?", default=None)
    retry = sub.add_parser("retry", help="re-run an execution parked by divergence detection")
    retry.add_argument("execution_id")
    status = sub.add_parser("status", help="show an execution")
    status.add_argument("execution_id")
    args = parser.parse_args(argv)

    warnings: list[str] = []
    try:
        status = _run(args, warnings)
    except LoomError as exc:
        print(f"refused: {type(exc).__name__}: {exc}")
        warnings = [w for w in warnings if w != str(exc)]  # a refusal is reported through on_warn too
        status = 1
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return status


def _run(args: argparse.Namespace, warnings: list[str]) -> int:
    runtime = open_runtime(args.journal, manifest=args.manifest, on_warn=warnings.append)
    try:
        if args.command == "versions":
            for flow_id in runtime.registry.flow_ids():
                for v in runtime.registry.versions(flow_id):
                    mark = "current" if v.is_current else "kept for in-flight executions"
                    print(f"{flow_id}: code {_short(v.code_hash)} from {v.origin} ({mark})")
            return 0
        if args.command == "start":
            handle = runtime.start(args.flow, args.input, execution_id=args.id)
        elif args.command == "resume":
            handle = runtime.resume(args.execution_id, args.payload)
        elif args.command == "retry":
            handle = runtime.retry_diverged(args.execution_id)
        else:
            view = runtime.get(args.execution_id)
            handle = Handle(view.execution_id, view.flow_id, view.status, view.result, view.gate, view.error)
        print(describe(runtime, handle))
        return 0 if handle.exception is None else 1
    finally:
        runtime.close()


if __name__ == "__main__":
    sys.exit(main())
