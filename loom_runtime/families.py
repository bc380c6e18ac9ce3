"""D4: replay-check that understands step families.

A frame id ``base#suffix`` belongs to the family ``base`` (the part before the FIRST ``#``): the
ids a loop mints (``pack#0``, ``pack#1``) and an agent loop's ``<loop>#turn:<n>:tool:<j>`` are
members of the family their prefix names. :func:`orphaned_frames` reports the recorded frame ids a
target definition does not know. A frame passes when

* its id is a declared step, or
* its family is a declared step (so ``agent#turn:3:tool:1`` passes when ``agent`` is declared), or
* it matches an entry of ``step_families``: a string equal to its id or its family, or a compiled
  regex that ``fullmatch``-es its id (for dynamic ids that do not follow the ``#`` convention;
  ``fullmatch`` so that ``re.compile("tool-\\d+")`` does not also admit ``xtool-1y``).

Orphans are reported once per family with a count (``pack#* (2 frames)``), not one line per
dynamic frame: an agent with 4,000 tool calls whose family disappeared gets one line.
Rejected: demanding every frame id be declared (the pre-ADR rule; it refuses every dynamic agent)
and prefix matching on the raw id (``charge`` would then admit ``charger``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .definition import FlowDefinition

__all__ = [
    "Orphan", "orphaned_frames", "step_family", "undeclared_check", "undeclared_park_key", "undeclared_park_step",
]

#: How a park on ``__loom_diverged__`` by ``Runtime(strict=True)`` names the step it refused.
_UNDECLARED_PARK = "undeclared step: `"


def step_family(frame_id: str) -> str:
    """The family of a frame id: the part before its first ``#`` (the id itself without one)."""
    return frame_id.split("#", 1)[0]


@dataclass(frozen=True, slots=True)
class Orphan:
    """Recorded frames of one family (or one undeclared plain id) the target does not know."""

    family: str
    frame_ids: tuple[str, ...]
    dynamic: bool  # True when the frames carry a ``#`` suffix (reported as ``family#*``)

    @property
    def count(self) -> int:
        return len(self.frame_ids)

    def __str__(self) -> str:
        if not self.dynamic:
            return self.family
        n = self.count
        return f"{self.family}#* ({n} frame{'s' if n != 1 else ''})"


def orphaned_frames(frames: Iterable[str], definition: FlowDefinition) -> tuple[Orphan, ...]:
    """The recorded ``frames`` (step ids) that ``definition`` does not know, grouped per family.

    The result is sorted by family; an empty tuple means the target can replay every frame.
    """
    declared = frozenset(definition.steps)
    names = frozenset(f for f in definition.step_families if isinstance(f, str))
    patterns = tuple(f for f in definition.step_families if isinstance(f, re.Pattern))
    plain: dict[str, list[str]] = {}
    dynamic: dict[str, list[str]] = {}
    for frame_id in dict.fromkeys(frames):  # a frame reported once, in recorded order
        family = step_family(frame_id)
        if frame_id in declared or family in declared or frame_id in names or family in names:
            continue
        if any(p.fullmatch(frame_id) for p in patterns):
            continue
        (dynamic if "#" in frame_id else plain).setdefault(family, []).append(frame_id)
    out = [Orphan(fam, tuple(ids), True) for fam, ids in dynamic.items()]
    out += [Orphan(fam, tuple(ids), False) for fam, ids in plain.items()]
    return tuple(sorted(out, key=lambda o: (o.family, o.dynamic)))


def undeclared_check(definition: Any) -> Callable[[str], bool] | None:
    """``Runtime(strict=True)``'s rule for live step ids of ``definition`` (a ``FlowDefinition`` or a
    registry version): whether an id is outside its ``steps``/``step_families``. ``None`` when it
    declares neither (the flow opted out). One function, so the runtime and a replay of an
    execution a strict runtime parked (``loom replay``, ``deploy-check``) apply the same rule."""
    if not (definition.steps or definition.step_families):
        return None
    return lambda step_id: bool(orphaned_frames([step_id], definition))


def undeclared_park_key(step_id: str) -> str:
    """The ``correlationKey`` of the park on ``__loom_diverged__`` that refuses ``step_id``."""
    return f"{_UNDECLARED_PARK}{step_id}`"


def undeclared_park_step(key: object) -> str | None:
    """The step id a park's ``correlationKey`` says a strict runtime refused, else ``None``."""
    if isinstance(key, str) and key.startswith(_UNDECLARED_PARK) and key.endswith("`") and len(key) > len(_UNDECLARED_PARK):
        return key[len(_UNDECLARED_PARK):-1]
    return None
