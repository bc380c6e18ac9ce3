"""Produce the loom-fp/1 release fixture: a built project and a real journal with executions in flight.

Run with the *previous release's* loom (the scheme must be ``loom-fp/1``)::

    git -C /path/to/loom worktree add /tmp/loom-fp1 ba24c79
    /path/to/python tests/data/fp1_release/make_fixture.py --loom /tmp/loom-fp1 --out tests/data/fp1_release

What it does, with real tools only (each step a separate process, as successive releases would be):

1. copies ``template/`` (the ``orders`` service at release 1) to a temporary directory;
2. ``python -m loom_compiler build`` there (release 1's manifest and chunks);
3. a release-1 worker (``Registry.from_manifest(..., strict=True)`` + ``register`` of the live
   flows, a SQLite journal) starts executions: one parks at a gate, one waits on a timer, one
   finishes, and one dies inside a step (``os._exit`` after ``STEP_STARTED``: *running*);
4. edits ``orders/pricing.py`` (``MEMBER_RATE`` 0.10 -> 0.15, the reminder gap 3600 -> 1800 s) and
   rebuilds cumulatively (release 2: ``checkout``, ``reminder`` and ``fulfil`` get a second
   version; ``audit`` keeps its one, because fp/1 does not follow its lazy import);
5. a release-2 worker starts the same kinds of executions on release 2's code;
6. writes ``project/`` (the sources at release 2 and ``build/loom/``), ``journal.sqlite3`` and
   ``expected.json`` (each execution's flow, recorded codeHash, state and the result it must
   finish with, computed from the release it started on) under ``--out``.

The clock of every runtime is fixed (``CLOCK``) so that timer deadlines are reproducible.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CLOCK = 1_800_000_000.0

#: The edit between release 1 and release 2 (file, old text, new text).
EDITS = (
    ("orders/pricing.py", "MEMBER_RATE = 0.10\n", "MEMBER_RATE = 0.15\n"),
    ("orders/pricing.py", "return 3600.0 * (2", "return 1800.0 * (2"),
)

BIG = {"id": "o-big", "sku": "desk", "member": True, "items": [{"sku": "desk", "price": 400.0}]}
SMALL = {"id": "o-small", "sku": "mug", "member": True, "items": [{"sku": "mug", "price": 20.0, "qty": 2}]}
PARCELS = {"id": "o-ship", "member": True, "items": [{"sku": "sofa", "price": 900.0, "heavy": True},
                                                     {"sku": "lamp", "price": 50.0}]}

#: Per release: (execution id, flow id, input, crash inside a step?)
STARTS = {
    "r1": [
        ("r1-checkout-gate", "checkout", BIG, False),
        ("r1-checkout-done", "checkout", SMALL, False),
        ("r1-reminder-timer", "reminder", {"customer": "ada"}, False),
        ("r1-fulfil-running", "fulfil", PARCELS, True),
        ("r1-audit-review", "audit", {"id": "o-audit", "total": 950.0}, False),
    ],
    "r2": [
        ("r2-checkout-gate", "checkout", BIG, False),
        ("r2-reminder-timer", "reminder", {"customer": "bob", "gentle": True}, False),
        ("r2-fulfil-running", "fulfil", PARCELS, True),
        ("r2-fulfil-done", "fulfil", dict(PARCELS, id="o-ship-2"), False),
    ],
}

WORKER = r"""
import json, sys
from loom_runtime import Registry, Runtime
import orders.flows as flows

journal, manifest, eid, flow_id, payload = sys.argv[1:6]
registry = Registry.from_manifest(manifest, strict=True)  # a stale binding raises instead of running unpinned
runtime = Runtime(journal=journal, registry=registry, clock=lambda: %r)
for fn in (flows.checkout, flows.reminder, flows.fulfil, flows.audit):
    runtime.register(fn)
handle = runtime.start(flow_id, json.loads(payload), execution_id=eid)
view = runtime.get(eid)
print(json.dumps({"status": handle.status, "gate": handle.gate, "result": handle.result, "codeHash": view.code_hash}))
""" % CLOCK


INSPECT = r"""
import json, sys
from loom_runtime.journal.sqlite import SqliteJournal
journal = SqliteJournal(sys.argv[1])
print(json.dumps({s.execution_id: s.code_hash for s in journal.list_executions()}))
journal.close()  # the last connection checkpoints the WAL into the file
"""


def run(args: list[str], *, cwd: Path, env: dict[str, str], check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if check and proc.returncode != 0:
        raise SystemExit(f"{' '.join(args[:4])} failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}")
    return proc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loom", type=Path, required=True, help="a checkout of the loom-fp/1 release")
    parser.add_argument("--out", type=Path, default=HERE, help="where project/, journal.sqlite3 go")
    args = parser.parse_args(argv)
    loom = args.loom.resolve()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LOOM_CACHE_DIR")}
    env["PYTHONPATH"] = str(loom)
    scheme = run([sys.executable, "-c", "from loom_runtime.manifest import FINGERPRINT_SCHEME as s; print(s)"],
                 cwd=loom, env=env).stdout.strip()
    if scheme != "loom-fp/1":
        raise SystemExit(f"{loom} is scheme {scheme!r}: the fixture must be made by a loom-fp/1 release")
    head = run(["git", "rev-parse", "HEAD"], cwd=loom, env=env, check=False)
    if head.returncode == 0:
        commit = head.stdout.strip()
        dirty = bool(run(["git", "status", "--porcelain", "--", "loom_compiler", "loom_runtime"], cwd=loom, env=env).stdout)
    else:  # a `git archive` extraction: the caller knows which commit it was
        commit, dirty = "unknown (not a git checkout)", None

    with tempfile.TemporaryDirectory(prefix="loom-fp1-fixture-") as tmp:
        work = Path(tmp) / "project"
        shutil.copytree(HERE / "template", work, ignore=shutil.ignore_patterns("__pycache__"))
        journal = Path(tmp) / "journal.sqlite3"
        manifest = work / "build" / "loom" / "manifest.json"
        worker_env = dict(env, PYTHONPATH=os.pathsep.join([str(work), str(loom)]))
        expected: dict[str, dict] = {}
        for release in ("r1", "r2"):
            if release == "r2":
                for rel, old, new in EDITS:
                    text = (work / rel).read_text()
                    if old not in text:
                        raise SystemExit(f"template/{rel} no longer contains {old!r}; update EDITS")
                    (work / rel).write_text(text.replace(old, new, 1))
            run([sys.executable, "-m", "loom_compiler", "build", ".", "--no-cache", "--quiet"], cwd=work, env=env)
            for eid, flow_id, payload, crash in STARTS[release]:
                wenv = dict(worker_env, ORDERS_CRASH_IN_PACK="1") if crash else worker_env
                proc = run([sys.executable, "-c", WORKER, str(journal), str(manifest), eid, flow_id, json.dumps(payload)],
                           cwd=work, env=wenv, check=not crash)
                if crash:
                    if proc.returncode != 17:
                        raise SystemExit(f"{eid}: the worker should have died inside `pack`:\n{proc.stdout}{proc.stderr}")
                    expected[eid] = {"flow": flow_id, "release": release, "status": "running", "gate": None}
                else:
                    got = json.loads(proc.stdout.strip().splitlines()[-1])
                    expected[eid] = {"flow": flow_id, "release": release, "status": got["status"], "gate": got["gate"],
                                     "codeHash": got["codeHash"]}
                    if got["status"] == "completed":
                        expected[eid]["result"] = got["result"]
        # The results unfinished executions must finish with, computed from the code they started on
        # (the rate of release 1 is 0.10, of release 2 0.15): what a resume on the wrong code would miss.
        rate = {"r1": 0.10, "r2": 0.15}
        for eid, e in expected.items():
            if e["flow"] == "checkout" and e["status"] == "suspended":
                gross = BIG["items"][0]["price"]
                e["finish"] = {"answer": {"approved": True}, "total": round(gross - round(gross * rate[e["release"]], 2), 2)}
            elif e["flow"] == "fulfil" and e["status"] == "running":
                gross = sum(i["price"] for i in PARCELS["items"])
                e["finish"] = {"total": round(gross - round(gross * rate[e["release"]], 2), 2)}
        out = args.out.resolve()
        target = out / "project"
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(work, target, ignore=shutil.ignore_patterns("__pycache__", ".loom-cache"))
        wal = journal.with_name(journal.name + "-wal")
        if wal.exists() and wal.stat().st_size:
            raise SystemExit(f"{wal} still holds transactions; the copied journal would miss them")
        shutil.copyfile(journal, out / "journal.sqlite3")
        # every recorded codeHash read back through the journal (the running ones printed nothing)
        listing = run([sys.executable, "-c", INSPECT, str(journal)], cwd=work, env=worker_env).stdout
        for eid, code_hash in json.loads(listing).items():
            if expected[eid].setdefault("codeHash", code_hash) != code_hash:
                raise SystemExit(f"{eid}: the journal records {code_hash}, the worker said {expected[eid]['codeHash']}")
        doc = {
            "producedBy": {"commit": commit, "dirty": dirty, "scheme": scheme, "python": sys.version.split()[0],
                           "clock": CLOCK},
            "executions": dict(sorted(expected.items())),
        }
        (out / "expected.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    print(f"wrote {out}/project, {out}/journal.sqlite3 and {out}/expected.json (loom {commit[:7]}, {scheme})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
