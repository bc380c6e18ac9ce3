"""Test helpers for flows, and the ``loom`` pytest plugin (entry point ``pytest11``).

What a user's test suite imports::

    from loom_runtime.testing import assert_replays

    def test_checkout_still_replays_the_golden_history():
        assert_replays(checkout, "tests/histories/checkout-approved.json")

and, with the plugin loaded automatically by pytest, the fixtures

* ``loom_journal`` — a fresh ``MemoryJournal``;
* ``loom_registry`` — a fresh ``Registry`` (register the flows under test on it);
* ``loom_runtime`` — a ``Runtime`` over both with divergence detection in ``fail`` mode, so a test
  that resumes over an edited body fails loudly instead of warning;
* ``loom_history`` — ``loom_history(execution_id)`` exports a history from ``loom_runtime``'s journal
  (feed it to ``assert_replays`` or ``write_history`` to make a golden file).

Design. The module is part of ``loom_runtime`` and so standard library only: importing it in a
service (or in a test run without pytest) must not pull anything in. pytest loads a ``pytest11``
plugin only from a running pytest, which has imported ``pytest`` already, so the fixtures are
defined against that module object from ``sys.modules``; without a running pytest the module still
offers ``assert_replays`` and friends. Rejected: ``loom_compiler.pytest_plugin`` (importing
``loom_compiler`` parses nothing but loads libcst, and the plugin is loaded into *every* pytest run
of a project that installs loom-toolchain), and a hard ``import pytest`` (a service importing the
helpers would need pytest installed).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .definition import FlowDefinition
from .history import History, ReplayResult, history_from_json, load_history, read_history, replay_history
from .journal.memory import MemoryJournal
from .registry import FlowVersion, Registry
from .runtime import Runtime

__all__ = ["ReplayAssertionError", "assert_replays", "memory_runtime", "as_history"]


class ReplayAssertionError(AssertionError):
    """``assert_replays`` failed; ``result`` is the ``ReplayResult`` with the details."""

    def __init__(self, result: ReplayResult) -> None:
        super().__init__(f"{result.kind}: {result.message}")
        self.result = result


def as_history(history: History | Mapping[str, Any] | str | os.PathLike[str]) -> History:
    """A ``History`` from a value, a decoded ``loom-history/1`` document or a file path."""
    if isinstance(history, History):
        return history
    if isinstance(history, Mapping):
        return history_from_json(history)
    return load_history(history)


def assert_replays(
    flow: Callable[..., Any] | FlowDefinition | FlowVersion,
    history: History | Mapping[str, Any] | str | os.PathLike[str],
) -> ReplayResult:
    """Fail unless ``flow`` replays ``history`` (see ``loom_runtime.history.replay_history``).

    No step effect runs. Returns the passing ``ReplayResult`` (its ``frontier`` says what an open
    history would do next).
    """
    result = replay_history(as_history(history), flow)
    if not result.ok:
        raise ReplayAssertionError(result)
    return result


def memory_runtime(*flows: Callable[..., Any] | FlowDefinition, divergence: str = "fail", **kwargs: Any) -> Runtime:
    """A ``Runtime`` over a fresh in-memory journal and registry with ``flows`` registered."""
    runtime = Runtime(journal=MemoryJournal(), registry=Registry(), divergence=divergence, **kwargs)
    for f in flows:
        runtime.register(f)
    return runtime


_pytest = sys.modules.get("pytest")  # present whenever pytest itself loads this plugin

if _pytest is not None:

    @_pytest.fixture
    def loom_journal() -> MemoryJournal:
        """A fresh in-memory journal."""
        return MemoryJournal()

    @_pytest.fixture
    def loom_registry() -> Registry:
        """A fresh registry; register the flows under test on it."""
        return Registry()

    @_pytest.fixture
    def loom_runtime(loom_journal: MemoryJournal, loom_registry: Registry) -> Iterator[Runtime]:
        """A runtime over ``loom_journal`` and ``loom_registry``; divergence detection fails."""
        runtime = Runtime(journal=loom_journal, registry=loom_registry, divergence="fail")
        yield runtime
        runtime.close()

    @_pytest.fixture
    def loom_history(loom_runtime: Runtime) -> Callable[[str], History]:
        """``loom_history(execution_id)``: the history of an execution run on ``loom_runtime``."""
        return lambda execution_id: read_history(loom_runtime.journal, execution_id)
