"""Flow decorators reached through another first-party module: reported, never dropped (B18).

``analysis`` resolves a decorator within its module: imports, star imports, plain aliases
(``durable = flow``) and the module's own definitions. A decorator imported from another
first-party module (``from shop.api import flow``, ``from shop.api import *``, ``@api.flow``)
resolves to a *first-party* name (``shop.api.flow``) that may itself stand for a flow decorator:
a facade module re-exporting ``loom_runtime.flow``, or a factory ``def durable(id): return
flow(id)``. Missing it would ship the flow unpinned with no word, so every such decorator is
recorded (``ModuleSummary.foreign_decorators``) and resolved here across modules: through the
imports, star imports, plain aliases (``flow_names``) and wrappers (``flow_wrappers``) of the
modules it names, until it reaches a configured flow decorator (an error naming both sites) or
something that is none (nothing to say).

Why an error and not following the re-export: a flow's declaration is read per module (its id,
``version``, ``steps``, which decorator it is), and that result is cached under the module's own
bytes; reading it through another module's names would make one module's summary depend on
another's. The fix is one import line, named in the message. Rejected: matching decorators by
their last name (``@app.flow`` of an unrelated library) and importing the facade to see what it
binds (runs user code at build time).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

from .discovery import normalise_decorator
from .model import SourceError

__all__ = ["hidden_flow_errors"]

#: what a summary lookup returns (``fingerprint.Loader``): a ``ModuleSummary``, an error, or None
Load = Callable[[str], object]

_MAX_HOPS = 32  # re-export chains longer than this are no facade (and a cycle stops here)


def hidden_flow_errors(summaries: Mapping[str, object], load: Load, flow_decorators: Collection[str],
                       first_party: Callable[[str], bool]) -> list[SourceError]:
    """An error for every decorator in ``summaries`` that stands for a flow decorator through
    another first-party module (``load`` supplies the modules named on the way)."""
    decorators = {normalise_decorator(d) for d in flow_decorators}
    resolver = _Resolver(load, decorators, first_party)
    errors = []
    for module in sorted(summaries):
        summary = summaries[module]
        for qualname, line, column, chain, candidates in getattr(summary, "foreign_decorators", ()):
            for candidate in candidates:
                found = resolver.behind(candidate, 0)
                if found is None:
                    continue
                decorator, path, at, how = found
                errors.append(SourceError(
                    summary.path, line, column,  # type: ignore[attr-defined]
                    f"`@{chain}` on `{qualname}` is {candidate}, which {how} {decorator} ({path}:{at}): a flow "
                    "decorator reached through another module is not read by the build, so this flow would run "
                    f"unpinned; import the decorator from where it is defined (`{_import_hint(decorator)}`) and "
                    "decorate the function with it", code="flow-hidden"))
                break
    return errors


class _Resolver:
    def __init__(self, load: Load, decorators: set[str], first_party: Callable[[str], bool]) -> None:
        self.load = load
        self.decorators = decorators
        self.first_party = first_party

    def summary(self, module: str):  # noqa: ANN201 - a ModuleSummary or None
        if not self.first_party(module):
            return None
        got = self.load(module)
        return got if hasattr(got, "flow_names") else None

    def behind(self, qualname: str, hops: int) -> tuple[str, str, int, str] | None:
        """(the flow decorator, path, line, how) when ``qualname`` stands for one."""
        if hops > _MAX_HOPS:
            return None
        parts = qualname.split(".")
        for k in range(len(parts) - 1, 0, -1):  # the longest module prefix wins, as Python's lookup
            s = self.summary(".".join(parts[:k]))
            if s is None:
                continue
            name, tail = parts[k], parts[k + 1:]
            for bound, target, line in s.flow_names:
                if bound == name:
                    full = ".".join([target, *tail])
                    if normalise_decorator(full) in self.decorators:
                        return normalise_decorator(full), s.path, line, "re-exports"
                    found = self.behind(full, hops + 1)  # ``flow = core.flow``
                    if found is not None:
                        return found
            for bound, line, how in s.flow_wrappers:
                if bound == name:
                    return how.rpartition(" ")[2], s.path, line, how.rpartition(" ")[0]
            target = dict(s.imports).get(name)
            if target is not None:
                full = ".".join([target, *tail])
                if normalise_decorator(full) in self.decorators:
                    return normalise_decorator(full), s.path, _import_line(s, name), "re-exports"
                return self.behind(full, hops + 1)
            if not any(name in u.names for u in s.units):
                for star in s.star_imports:
                    full = ".".join([star, name, *tail])
                    if normalise_decorator(full) in self.decorators:
                        return normalise_decorator(full), s.path, _star_line(s, star), "re-exports (star import)"
                    found = self.behind(full, hops + 1)
                    if found is not None:
                        return found
            return None
        return None


def _import_line(summary, name: str) -> int:  # noqa: ANN001
    for unit in summary.units:
        if any(local == name for local, _ in unit.aliases):
            return unit.line
    return 0


def _star_line(summary, star: str) -> int:  # noqa: ANN001
    for unit in summary.units:
        if star in unit.stars:
            return unit.line
    return 0


def _import_hint(decorator: str) -> str:
    """``from loom_runtime import flow``; ``from dbos import DBOS`` for ``dbos.DBOS.workflow``."""
    parts = decorator.split(".")
    for k in range(1, len(parts)):
        if parts[k][:1].isupper():  # a class attribute: import the class
            return f"from {'.'.join(parts[:k])} import {parts[k]}"
    module, _, name = decorator.rpartition(".")
    return f"from {module} import {name}" if module else f"import {name}"
