"""Framework profiles (DESIGN §8): what a durable engine replays and serves, as one ``Profile`` each.

``PROFILES`` maps every ``[tool.loom] framework`` value to its profile; it is found by importing
each module of this package that defines ``PROFILE`` (so a fifth framework is one new file).
``profile_for(name)`` is the lookup the configuration uses. ``engine_config`` holds the rule that
keeps an engine's module-level configuration out of its workflows' closures.
"""

from __future__ import annotations

import pkgutil
from importlib import import_module

from .base import ClassDecorator, FlowIdError, NameOnlyArg, Profile

__all__ = ["Profile", "NameOnlyArg", "ClassDecorator", "FlowIdError", "PROFILES", "FRAMEWORKS", "profile_for"]


#: the modules of this package that hold machinery, not a profile (they import libcst; the
#: configuration imports this package and must not)
_NOT_PROFILES = frozenset({"base", "engine_config", "engine_hooks", "rules"})


def _discover() -> dict[str, Profile]:
    found: dict[str, Profile] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name in _NOT_PROFILES:
            continue
        profile = getattr(import_module(f"{__name__}.{info.name}"), "PROFILE", None)
        if isinstance(profile, Profile):
            if profile.name in found:  # pragma: no cover - a packaging mistake
                raise RuntimeError(f"two framework profiles are named {profile.name!r}")
            found[profile.name] = profile
    return found


PROFILES: dict[str, Profile] = _discover()
#: the allowed values of ``tool.loom.framework``, default first
FRAMEWORKS: tuple[str, ...] = ("loom", *sorted(n for n in PROFILES if n != "loom"))


def profile_for(name: str) -> Profile:
    """The profile of ``name`` (KeyError when there is none: the configuration reports it)."""
    return PROFILES[name]
