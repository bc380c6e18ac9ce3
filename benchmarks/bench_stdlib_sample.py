"""The standard-library sample of ``tests/compiler/test_stdlib_fingerprint.py``, timed, with a digest
of everything it fingerprints (every flow's closure members, hashes, reasons and warnings, and the
errors): the figure behind that test's run time, and a byte-for-byte check that a speed change
keeps every answer.

Run it on two trees and compare the digests (``--paths N`` takes the sample's first N paths: the
five packages and N-5 modules, for a quicker check)::

    PYTHONPATH=$TREE .venv/bin/python benchmarks/bench_stdlib_sample.py [--paths 7]

Every function is a flow (``all_functions``), as in the test; since loom-fp/2 most of them reach
the whole sample (a ``compile()``, ``exec`` or computed import anywhere in what they call reaches
every module), so the run is dominated by the closures, not the parse.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "compiler"))

import test_stdlib_fingerprint as sample  # noqa: E402  (the test's own sample and configuration)

from loom_compiler import LoomConfig, fingerprint_project  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", type=int, default=None, help="only the sample's first N paths")
    args = parser.parse_args()
    config = LoomConfig(root=sample.STDLIB, packages=sample.PACKAGES,
                        exclude=("test", "tests", "*/test", "*/tests", "site-packages", "idlelib", "lib2to3/tests"))
    paths = sample._sample()[: args.paths]
    cpu, wall = time.process_time(), time.perf_counter()
    result = fingerprint_project(paths, config, all_functions=True)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    digest = hashlib.sha256()
    members = 0
    for f in result.flows:
        members += len(f.closure)
        record = [f.flow_id, f.code_hash, [(m.qualname, m.kind, m.module, m.hash, m.reason, m.bindings)
                                           for m in f.closure], [repr(w) for w in f.warnings]]
        digest.update(json.dumps(record).encode() + b"\n")
    digest.update(json.dumps([repr(e) for e in result.errors]).encode())
    print(f"stdlib sample: {len(paths)} paths, {len(result.flows)} flows, {members:,} closure members; "
          f"CPU {cpu:.1f} s, wall {wall:.1f} s, load average {os.getloadavg()[0]:.2f} at the end")
    print(f"  digest of every closure, hash, warning and error: {digest.hexdigest()}")


if __name__ == "__main__":
    main()
