"""Canonical forms computed when a closure first asks for them (issue 18, "canonical forms on demand").

A module's analysis needs every statement's *references* and *bindings* (the binding model and
the effects rule read all of them), but a statement's *canonical form* only matters when a
closure reaches the statement: it is hashed into that member and nowhere else. In a helper
module of twelve functions of which a flow calls one, canonicalising all twelve was a sixth of
its analysis. So ``analysis.analyse_module(defer=True)`` leaves the form of each plain
statement (a function that is no flow or step, a class, a constant, an import, a block) to a
``DeferredForms`` of the module, which keeps the statement's libcst nodes and writes the form on
first use, through ``analysis.DeferredUnit.canonical``: the same function over the same nodes
as the eager analysis, so every hash is identical (the closure cannot tell the two apart).

What stays eager: flows, steps and the members of method-flow classes (reached whenever their
module is, and they carry context the nodes alone do not), projections and pieces (rare, and
computed from derived trees), and every form of a module whose text spells ``\\N{`` (a string
literal's name lookup is the one canonicalisation that can fail, and its failure is a located
error of the whole module's analysis, which must not move to the closure) or that is longer than
``MAX_DEFERRED_MODULE``, and of a unit whose source is longer than ``MAX_DEFERRED_CHARS`` (its
nesting could need the analysis' large-stack recursion limit, checked while the module is
analysed).

Where a deferred form can come from:

* the nodes kept by this object (``pending``): the module was analysed in this process;
* ``reload``: a cached summary (``.loom-cache`` holds each summary with the forms its build's
  closures asked for, and ``None`` for the others) or one whose nodes were released. The module is
  analysed again from its bytes, once, and the fresh analysis' forms serve this one; its shape
  must match (same units, same kinds), else the reload is refused as an error, never mixed in.

Memory: the nodes of a module kept for later are about 40x its text. The build keeps them within
a budget (``bundle.build``: ``RETAINED_CHARS`` of text); past it, the oldest module's pending
forms are all computed (``finish``: what the eager analysis would have done) and its nodes
dropped, so a later request needs no reload.

Rejected: storing libcst trees in the summary (not cacheable, and huge), canonicalising a unit
by re-parsing its own source text (a second parse of every reached statement in a cold build,
where most statements are reached), and a summary that is always complete (the cache entry is
written before any closure runs: every form would be computed for it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from loom_runtime.errors import LoomError

from . import deep_stack

__all__ = ["DeferredForms", "MAX_DEFERRED_CHARS", "MAX_DEFERRED_MODULE", "ReloadError"]

#: a module whose text is longer is analysed eagerly: its nodes kept through the closure stage
#: would add to the peak memory that the parse of a large module sets (``bench_big_module``)
MAX_DEFERRED_MODULE = 500_000
#: a unit whose source is longer stays eager: its canonicalisation is then bounded in depth by its
#: length far below ``deep_stack.RECURSION_LIMIT`` (at most a few frames per nesting level)
MAX_DEFERRED_CHARS = 20_000


class ReloadError(LoomError):
    """The analysis run again for a deferred form did not give a summary of the same shape (a
    cache entry that is not this module's): an error the commands report, never a traceback."""


class DeferredForms:
    """The deferred canonical forms of one module's units, by unit index.

    ``pending`` maps a unit index to a function computing its form (it holds the statement's
    nodes); ``stamp`` marks a form with the module's ``__future__`` flags (``analysis``), applied
    to each form as it is computed; ``reload`` (set by whoever caches the summary) analyses the
    module again and returns the fresh summary's ``DeferredForms``.
    """

    __slots__ = ("module", "_pending", "_done", "_stamp", "reload", "_fresh", "filled")

    def __init__(self, module: str, pending: dict[int, Callable[[], str]],
                 stamp: Callable[[str], str] | None = None) -> None:
        self.module = module
        self._pending = pending
        self._done: dict[int, str] = {}
        self._stamp = stamp
        self.reload: Callable[[], DeferredForms] | None = None
        self._fresh: DeferredForms | None = None
        #: whether a form was computed since the summary was made or read (its cache entry is
        #: worth writing again)
        self.filled = False

    def __reduce__(self) -> Any:
        raise TypeError("deferred canonical forms hold libcst nodes and cannot be pickled: "
                        "analyse with defer=False for a summary that crosses processes")

    def form(self, index: int) -> str:
        done = self._done.get(index)
        if done is None:
            done = self._done[index] = self._compute(index)
            self.filled = True
        return done

    def known(self) -> dict[int, str]:
        """The forms computed so far, by unit index (which units a closure canonicalised)."""
        return dict(self._done)

    def adopt(self, done: dict[int, str]) -> None:
        """Take forms another process computed for this same module's units (a forked
        fingerprint worker's, ``bundle.build``): the cache entry then holds every form any of the
        build's closures asked for, as a serial build's does."""
        for index, text in done.items():
            if index not in self._done:
                self._done[index] = text
                self._pending.pop(index, None)
                self.filled = True

    def finish(self) -> None:
        """Compute every pending form now and drop the nodes (the memory budget's eviction)."""
        for index in sorted(self._pending):
            self.form(index)
        self._pending = {}

    def release(self) -> None:
        """Drop the nodes without computing: a later request reloads (``reload``)."""
        self._pending = {}

    def _compute(self, index: int) -> str:
        thunk = self._pending.pop(index, None)
        if thunk is not None:
            text = deep_stack.call(_run, thunk)
            return self._stamp(text) if self._stamp is not None else text
        if self._fresh is None:
            if self.reload is None:
                raise LookupError(f"{self.module}: the canonical form of unit {index} was deferred and "
                                  "nothing can compute it (no nodes kept, no reload): a bug in the caller")
            self._fresh = self.reload()
        return self._fresh.form(index)


def _run(thunk: Callable[[], str]) -> str:
    # as the analysis runs: on the large stack, under its recursion limit when that is safe
    with deep_stack.recursion_limit(deep_stack.RECURSION_LIMIT):
        return thunk()
