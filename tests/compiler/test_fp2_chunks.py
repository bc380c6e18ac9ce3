"""Chunks of the ``loom-fp/2`` closure shapes run exactly what the live modules ran, and never
import the current first-party code (DESIGN §7).

Every pair project of ``fp2_cases_binding`` that can run is built with the real ``loom build``;
then, in one fresh interpreter, every chunk is loaded through the registry and its flow called;
in another, every live flow module is imported and called with the same input. The results must
be equal, and after running every chunk no module of the package may have been imported: lazy
imports inside function bodies, rebindings by imports, star imports, module statements that
change state, widened whole modules and classes are all served by the bundled copies.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.project_files import run_harness, write_files as _write

from loom_compiler import LoomConfig
from loom_compiler.bundle.build import build_project

from fp2_cases_binding import PAIRS, ProjectPair, project, flow_module

#: pair name -> the flow's input (``order``); every other pair is left out here with its reason
INPUTS: dict[str, object] = {
    "lazy-from-import": 100, "lazy-relative-import": 100, "lazy-import-module-chain": 100, "lazy-import-as": 100,
    "lazy-from-package-import-module": 100, "lazy-import-in-nested-function": 100,
    "lazy-import-then-conditional": 100, "lazy-import-in-helper": 100, "lazy-import-in-other-module-helper": 100,
    "lazy-import-in-unreached-function": 1, "lazy-import-in-method": 100,
    "def-then-import-later-wins": 1, "constant-then-import-later-wins": 11, "two-stars-later-wins": 1,
    "third-party-star-target": 4, "first-party-star-exported-edited": 3, "first-party-star-all-grows": 3,
    "first-party-star-private-name-edited": 3, "global-write-from-function": 1, "loop-target-binding": 0,
    "with-target-binding": 0, "guarded-import-order-swapped": 1,
    "subscript-assignment": 0, "method-call-statement": 0, "attribute-assignment": 0, "defaults-assignment": 0,
    "call-that-sets-a-global": 0, "loop-filling-a-table": "b", "registering-decorator-function": 5,
    "registering-decorator-added": 5, "registering-decorator-method": 5, "singledispatch-register": 1,
    "unrelated-module-statement": 1, "third-party-state-set-at-module-level": 1,
    "statement-in-imported-module": 0, "singledispatch-built-by-a-call-stays-first-party": 1,
    "main-block-is-no-module-statement": 0, "registration-by-an-imported-module": 1,
    "attribute-set-by-a-lazily-imported-module": 0, "sys-modules-own-module-attribute-set": 0, "globals-subscript": "helper", "sys-modules-getattr": "helper",
    "vars-of-a-module": "discount", "vars-of-the-function-is-its-locals": "x", "eval": "helper(3)",
    "getattr-module-non-literal": "discount", "getattr-literal-is-precise": 0, "pep562-module-getattr": 0,
    "pep562-not-used-for-a-bound-name": 0, "module-level-globals-store": 6, "globals-in-unreached-module": 0,
    "getattr-self-non-literal": "pay", "getattr-self-literal-is-precise": 0, "type-self": 0, "self-class": 0,
    "property-of-class-function": 0, "class-attribute-aliasing-a-function": 3,
    "class-attribute-aliasing-a-class-body-function": 3, "first-party-namespace-subpackage-named-build": 3, "dunder-getattr": 0,
    "class-attribute-set-at-module-level": 0, "self-passed-on-widens-to-the-class": 0,
    "package-wins-over-module": 100, "first-party-subpackage-named-venv": 3, "first-party-subpackage-named-build": 3,
    "first-party-subpackage-named-dist": 3, "exclude-does-not-stop-the-closure": 3,
    "flow-decorator-moved-below-another": 1, "local-annotation-added": 1, "class-only-in-local-annotation-edited": 100,
    "class-in-parameter-annotation-edited": 1, "own-class-attribute-version-bumped": 0,
    "super-with-own-class-version-bumped": 0, "other-flow-reached-body-edited": 0, "step-method-body-edited": 7,
}
# Left out: the temporalio blocks (temporalio is not installed here: the live module cannot import),
# ``del-binding``'s after side and ``lazy-import-target-changed``'s (they raise on purpose),
# ``import-module-literal`` (a computed import stays live in a chunk: a documented limit),
# ``getattr-on-a-local-object-does-not-widen`` (needs an object input), the whole-module
# widening of the flow's own module (its result is a function object).

EXTRA = [
    # a registering decorator runs once per definition in the chunk as in the module
    ProjectPair("registration-runs-once", "changed", "3", project(flow_module(
        "    return len(HANDLERS), HANDLERS[0](order)\n",
        defs="HANDLERS = []\n\n\ndef register(fn):\n    HANDLERS.append(fn)\n    return fn\n\n\n"
             "@register\ndef pay(x):\n    return x\n\n\n@register\ndef refund(x):\n    return -x\n",
    )), {}),
    # a statement about two reached names (REGISTRY and pay) runs once
    ProjectPair("statement-of-two-members-runs-once", "changed", "3", project(flow_module(
        "    return len(REGISTRY), pay(order)\n",
        defs="REGISTRY = []\n\n\ndef pay(x):\n    return x\n\n\nREGISTRY.append(pay)\n",
    )), {}),
]
INPUTS |= {"registration-runs-once": 2, "statement-of-two-members-runs-once": 2}

CASES = [(p, INPUTS[p.name]) for p in [*PAIRS, *EXTRA] if p.name in INPUTS]

HARNESS = '''
import importlib, json, sys
from pathlib import Path

class Ctx:
    def execute(self, step_id, fn, *args, **kwargs):
        return fn(*args, **kwargs)
    def suspend(self, gate):
        return None
    def emit(self, name, payload):
        return None

def call(fn, function, ns, order):
    if "." in function:
        cls = ns[function.split(".")[0]]
        return fn(cls(), Ctx(), order)
    return fn(Ctx(), order)

cases = json.loads(sys.argv[1])
mode = sys.argv[2]
out = {}
for name, root, flow_id, function, module, order in cases:
    try:
        if mode == "chunk":
            from loom_runtime.registry import Registry
            registry = Registry.from_manifest(str(Path(root) / "build/loom/manifest.json"))
            (version,) = [v for v in registry.versions(flow_id)]
            fn = version.runner()
            value = call(fn, function, fn.__globals__, order)
        else:
            for m in [m for m in sys.modules if m == "shop" or m.startswith("shop.")]:
                del sys.modules[m]
            sys.path.insert(0, root)
            try:
                mod = importlib.import_module(module)
            finally:
                sys.path.remove(root)
            obj = mod
            for part in function.split("."):
                obj = getattr(obj, part)
            value = call(obj, function, vars(mod), order)
        out[name] = repr(value)
    except Exception as exc:  # a case's failure is its result
        out[name] = f"raised {type(exc).__name__}: {exc}"
out["<first-party modules imported>"] = sorted(m for m in sys.modules if m == "shop" or m.startswith("shop."))
print(json.dumps(out))
'''


@pytest.mark.slow
def test_chunks_of_every_closure_shape_run_what_the_live_modules_ran(tmp_path: Path) -> None:
    runs = []
    for i, (pair, order) in enumerate(CASES):
        root = tmp_path / f"{i:03d}"
        _write(root, pair.before)
        report = build_project(LoomConfig(root=root, packages=(pair.package,), exclude=pair.exclude))
        assert report.ok, (pair.name, [str(e) for e in report.errors])
        (fp,) = [f for f in report.flows if f.flow_id == pair.flow_id]
        runs.append([pair.name, str(root), pair.flow_id, fp.function, fp.module, order])
    chunk = run_harness(HARNESS, "chunk", runs, tmp_path)
    live = run_harness(HARNESS, "live", runs, tmp_path)
    assert chunk.pop("<first-party modules imported>") == []  # every chunk ran on bundled code only
    live.pop("<first-party modules imported>")
    mismatches = {name: (chunk[name], live[name]) for name in live if chunk[name] != live[name]}
    assert mismatches == {}
    assert {n: v for n, v in live.items() if v.startswith("raised")} == {}
