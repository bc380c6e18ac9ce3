"""Runtime wiring: the flows this release ships, over a durable SQLite journal.

``open_runtime`` loads the bundle the wheel carries (``Registry.from_package("shop")`` reads
``shop/_loom/manifest.json``, put there by the loom build hook), then registers this release's live
flow functions: they become the current versions (bound to the manifest's codeHash when their
source is what was built), while executions started by an earlier release resolve to that
release's chunk. Divergence detection is ``fail``: a re-run whose body no longer matches its
journal parks before any effect instead of charging a customer twice.

Run from a source checkout (no wheel installed, so no ``shop/_loom/``), it serves what ``loom build``
wrote next to the package instead (``build/loom/manifest.json``): the rule of thumb is
``Registry.from_package`` in an installed service, ``Registry.from_manifest`` in a source tree.
"""

from __future__ import annotations

import importlib.resources
import os
from collections.abc import Callable
from pathlib import Path

from loom_runtime import FlowVersion, Registry, Runtime

from . import flows

LIVE_FLOWS = (flows.checkout, flows.refund)

#: what `loom build` writes in a source checkout ([tool.loom] out of examples/shop)
SOURCE_TREE_MANIFEST = Path(__file__).resolve().parent.parent / "build" / "loom" / "manifest.json"


def open_runtime(
    journal: str | os.PathLike[str],
    *,
    manifest: str | os.PathLike[str] | None = None,
    divergence: str = "fail",
    on_warn: Callable[[str], None] | None = None,
) -> Runtime:
    """A runtime over the SQLite journal at ``journal``; ``manifest`` overrides the packaged bundle.

    ``on_warn`` receives the registry's stale-manifest and the runtime's divergence reports
    (default: Python warnings)."""
    packaged = importlib.resources.files("shop").joinpath("_loom", "manifest.json").is_file()
    if manifest is None and not packaged and SOURCE_TREE_MANIFEST.is_file():
        manifest = SOURCE_TREE_MANIFEST  # a source checkout after `loom build`: no wheel, no _loom/
    if manifest is not None:
        registry = Registry.from_manifest(manifest, on_warn=on_warn)
    else:
        registry = Registry.from_package("shop", on_warn=on_warn)
    for fn in LIVE_FLOWS:
        registry.register(fn)
    return Runtime(journal=journal, registry=registry, divergence=divergence, on_warn=on_warn)


def worker_runtime() -> Runtime:
    """What ``loom worker shop.service:worker_runtime`` serves: the journal named by ``SHOP_JOURNAL``
    (default ``shop.db``). Every Runtime leases what it drives, so any number of these workers, and
    ``open_runtime`` callers beside them, never run one step twice while they are alive."""
    return open_runtime(os.environ.get("SHOP_JOURNAL", "shop.db"))


def version_of(runtime: Runtime, execution_id: str) -> FlowVersion:
    """The version an execution runs on (the one its recorded hashes resolve to)."""
    view = runtime.get(execution_id)
    return runtime.registry.resolve(
        view.flow_id, flow_hash=view.flow_hash, code_hash=view.effective_code_hash, execution_id=execution_id
    )
