"""A profile's rules applied to one module's libcst tree (called by ``analysis``).

``ModuleRules`` is built per analysed module with a resolver (the analysis's binding model: every
qualified name a dotted chain may stand for) and answers the questions ``analysis`` asks while it
summarises the module: which call arguments are referenced by name only, which members of a flow's
class its framework replays with the flow, and what a method flow's id is. It never hashes
anything itself: what it selects is hashed by the one canonical form (``canonical``).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ..canonical import nfkc
from ..scopes import dotted_chain
from .base import ClassDecorator, Profile

__all__ = ["ModuleRules"]

#: dotted chain as written -> every qualified name it may stand for
Resolver = Callable[[str], "set[str]"]


class ModuleRules:
    def __init__(self, profile: Profile, resolve: Resolver) -> None:
        self.profile = profile
        self.resolve = resolve
        self._memo: dict[str, tuple[int, str | None] | None] = {}
        self.handlers = frozenset(profile.handler_decorators)

    # -- name-only call arguments ---------------------------------------------------------------
    @property
    def name_only(self) -> Callable[[str], tuple[int, str | None] | None] | None:
        return self._name_only if self.profile.name_only_calls else None

    def _name_only(self, chain: str) -> tuple[int, str | None] | None:
        if chain not in self._memo:
            found = None
            for name in sorted(self.resolve(chain)):
                spec = self.profile.name_only_calls.get(name)
                if spec is not None:
                    found = (spec.position, spec.keyword)
                    break
            self._memo[chain] = found
        return self._memo[chain]

    # -- the flow's class -----------------------------------------------------------------------
    def class_decorators(self, cls: cst.ClassDef) -> list[ClassDecorator]:
        out = []
        for dec in cls.decorators:
            expr = dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator
            chain = dotted_chain(expr)
            out.append((frozenset(self.resolve(chain)) if chain is not None else frozenset(), dec))
        return out

    def handler_members(self, cls: cst.ClassDef) -> set[str]:
        """Names of the class-body methods the framework runs on the flow's replayed state."""
        if not self.handlers and not self.profile.validator_attributes:
            return set()
        body_names = {nfkc(s.name.value) for s in cls.body.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))}
        out: set[str] = set()
        for stmt in cls.body.body:
            if not isinstance(stmt, cst.FunctionDef):
                continue
            for dec in stmt.decorators:
                expr = dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator
                chain = dotted_chain(expr)
                if chain is None:
                    continue
                head, _, attr = chain.rpartition(".")
                if (head in body_names and attr in self.profile.validator_attributes) or self.resolve(chain) & self.handlers:
                    out.add(nfkc(stmt.name.value))
        return out

    def flow_id(self, cls: cst.ClassDef) -> str | None:
        """The id of a method flow of ``cls`` when its decorator gives none (FlowIdError: unreadable)."""
        return self.profile.flow_id(self.class_decorators(cls), nfkc(cls.name.value))
