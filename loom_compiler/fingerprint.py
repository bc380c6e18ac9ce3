"""Public entry points: fingerprint flows from summaries, a project, or one module's source.

Layers (each usable on its own):

* ``analyse_module`` (``analysis``) — bytes -> ``ModuleSummary``; the only stage that parses;
* ``fingerprint_flows(summaries, config, loader=...)`` — closure + Merkle hashes over summaries,
  plus the cross-module checks (two flows with one id); no parsing unless ``loader`` parses
  a first-party module the closure reaches;
* ``fingerprint_project(tree_or_paths, config)`` — walks files, skips every file that cannot
  declare a flow without parsing it (a byte check for the decorators' last names), analyses the
  rest, and loads the modules the closures reach on demand through a ``SourceTree``;
* ``fingerprint_module(source)`` — one module, for tests and the REPL.

Rejected: one monolithic "fingerprint the project" call (the bundler caches summaries per file
and needs the closure stage without re-parsing), and raising on the first bad file (a build must
report every broken file at once).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from loom_runtime.definition import FlowDefinition
from loom_runtime.errors import FlowDefinitionError
from loom_runtime.files import read_regular_file
from loom_runtime.hashing import flow_content_hash, legacy_flow_content_hash

from .analysis import FlowSite, ModuleSummary, analyse_module, might_define_flows
from .closure import ClosureGraph, FileReader, GraphMemo, Loader
from .config import LoomConfig
from .flow_ids import duplicate_id_errors
from .frameworks.base import HookCandidates, marker_pattern
from .hidden_flows import hidden_flow_errors
from .model import FlowFingerprint, ModuleResult, ProjectResult, SourceError
from .precheck import spells_a_marker_in_code
from .sources import DirectorySourceTree, SourceReadError, SourceTree, iter_python_files
from .unimportable import unimportable_reason

__all__ = [
    "FlowsResult",
    "ProjectResult",
    "fingerprint_flows",
    "fingerprint_project",
    "fingerprint_module",
    "flow_definition",
    "tree_loader",
]


@dataclass(frozen=True, slots=True)
class FlowsResult:
    flows: tuple[FlowFingerprint, ...]
    errors: tuple[SourceError, ...]

    def __iter__(self) -> Iterator[tuple]:  # ``flows, errors = fingerprint_flows(...)``
        return iter((self.flows, self.errors))


def flow_definition(site: FlowSite, module: str) -> FlowDefinition:
    """The ``FlowDefinition`` (fn=None) a flow's decorator declares."""
    args = site.args
    families = tuple(re.compile(p, flags) if kind == "re" else p for kind, p, flags in args.step_families)
    return FlowDefinition(
        id=args.id or f"{module}:{site.qualname}",
        version=args.version,
        steps=args.steps,
        deadline=args.deadline,
        compatible_with=args.compatible_with,
        step_families=families,
        code_fingerprint=args.code_fingerprint,
    )


def fingerprint_flows(
    summaries: Mapping[str, ModuleSummary],
    config: LoomConfig | None = None,
    *,
    loader: Loader | None = None,
    modules: Callable[[], Iterable[str]] | None = None,
    hook_candidates: Callable[[frozenset[str]], Iterable[str]] | None = None,
    memo: GraphMemo | None = None,
    files: FileReader | None = None,
) -> FlowsResult:
    """Fingerprint every flow declared in ``summaries``.

    ``summaries`` should hold every first-party module the flows reach; ``loader`` supplies any
    that are missing (``tree_loader(tree, config)`` reads and analyses them from a
    ``SourceTree``). Errors: those recorded in the summaries, invalid flow declarations,
    first-party modules that could not be analysed, and flow ids declared more than once.
    ``modules`` lists every module of the tree: a module name computed at run time
    (``importlib.import_module("shop." + name)``) may name any of them (without it, only the
    modules given or loaded so far are known). ``hook_candidates(markers)`` lists the modules
    whose bytes spell one of ``markers``: where a profile's engine hooks are searched
    (``frameworks.engine_hooks``; without it, none are). ``memo``: what the graphs of one build
    share (``closure.GraphMemo``; a build fingerprints each flow module with a graph of its own).
    ``files(path)``: the bytes of a project file that is no module (code loaded by path is hashed
    by them); without it, files are read under ``config.root`` (none without a configuration).
    """
    graph = ClosureGraph(summaries, config, loader, modules, hook_candidates, memo=memo, files=files)
    sites = []
    flows: list[FlowFingerprint] = []
    errors: list[SourceError] = []
    for name in sorted(summaries):
        summary = summaries[name]
        errors.extend(summary.errors)
        for site in summary.flows:
            try:
                definition = flow_definition(site, summary.module)
            except FlowDefinitionError as exc:
                errors.append(SourceError(summary.path, site.line, site.column, str(exc), code="flow-args"))
                continue
            graph.reachable(graph.flow_node(summary.module, site.qualname))
            sites.append((summary, site, definition))
    for summary, site, definition in sites:
        closure = graph.closure(site, summary.module)
        flows.append(
            FlowFingerprint(
                flow_id=definition.id,
                function=site.qualname,
                module=summary.module,
                path=summary.path,
                line=site.line,
                column=site.column,
                code_hash=closure[0].hash,
                definition=definition,
                flow_hash=flow_content_hash(definition),
                legacy_flow_hash=legacy_flow_content_hash(definition),
                closure=closure,
                decorator=site.decorator or "loom_runtime.flow",
                warnings=(*graph.warnings_of(graph.reachable(graph.flow_node(summary.module, site.qualname))),
                          *_unimportable(summary, site)),
            )
        )
    errors.extend(graph.errors)
    errors.extend(duplicate_id_errors(flows))
    if config is not None:
        def load(module: str) -> ModuleSummary | SourceError | None:
            return summaries[module] if module in summaries else loader(module) if loader is not None else None

        first_party = config.is_first_party if config.packages else (lambda module: True)  # the tree decides
        errors.extend(hidden_flow_errors(summaries, load, config.decorators, first_party))
    flows.sort(key=lambda f: (f.flow_id, f.path, f.line))
    return FlowsResult(tuple(flows), tuple(_sorted_errors(errors)))


def _unimportable(summary: ModuleSummary, site: FlowSite) -> tuple[SourceError, ...]:
    """A warning on a flow whose module no process imports by the tree's name (``unimportable``)."""
    reason = unimportable_reason(summary.module, summary.path)
    if reason is None:
        return ()
    return (SourceError(summary.path, site.line, site.column,
                        f"flow `{site.qualname}`: its id and its imports assume the scanned root: {reason}",
                        code="flow-unimportable"),)


def _sorted_errors(errors: Iterable[SourceError]) -> list[SourceError]:
    unique = dict.fromkeys(errors)
    return sorted(unique, key=lambda e: (e.path, e.line, e.column, e.message))


def tree_loader(tree: SourceTree, config: LoomConfig | None, cache: dict[str, ModuleSummary | SourceError | None] | None = None) -> Loader:
    """A loader that reads and analyses modules from ``tree`` (memoised in ``cache``)."""
    memo: dict[str, ModuleSummary | SourceError | None] = cache if cache is not None else {}

    def load(module: str) -> ModuleSummary | SourceError | None:
        if module in memo:
            return memo[module]
        path = tree.path_of(module)
        try:
            data = tree.read(module)
        except SourceReadError as exc:  # unreadable is an error, never an absent module
            memo[module] = SourceError(exc.rel, 0, 0, f"cannot read ({exc.reason})", code="io")
            return memo[module]
        result: ModuleSummary | SourceError | None = None
        if data is not None and path is not None:
            result = analyse_module(data, module=module, path=path, config=config)
        memo[module] = result
        return result

    return load


def fingerprint_project(
    tree_or_paths: SourceTree | Iterable[Path | str],
    config: LoomConfig,
    *,
    all_functions: bool = False,
) -> ProjectResult:
    """Fingerprint every flow in a source tree, or in the given files/directories.

    Paths are walked for ``*.py`` (``exclude`` honoured); module names come from the config's
    package roots. Files that cannot hold a flow decorator are not parsed unless a closure
    reaches them or they were named on their own (``loom fingerprint broken.py`` reports its
    syntax error; the same file found by walking a directory costs nothing).
    """
    errors: list[SourceError] = []
    flow_summaries: dict[str, ModuleSummary] = {}
    loaded: dict[str, ModuleSummary | SourceError | None] = {}
    asked: set[str] = set()  # modules of files named on their own: parsed even without a flow marker
    if isinstance(tree_or_paths, SourceTree):
        tree = tree_or_paths
        candidates = [(m, tree.path_of(m) or m, lambda m=m: tree.read(m)) for m in tree.module_names()]
    else:
        tree = DirectorySourceTree(config.root, config)
        candidates = []
        seen: set[Path] = set()
        for given in tree_or_paths:
            top = Path(given)
            if not top.exists():
                errors.append(SourceError(tree.relpath(top), 0, 0, "no such file or directory", code="io"))
                continue
            if top.is_dir() and top.resolve() == tree.root:
                # the whole project (the CLI's default): the tree's own walk, which the bundler
                # uses too, names each file once and indexes the tree for the closures' lookups
                for module, rel, full in tree.walk():
                    if Path(full) not in seen:
                        seen.add(Path(full))
                        candidates.append((module, rel, _reader(Path(full))))
                continue
            for path in iter_python_files(top, config.root, config.walk_exclude, packages=config.packages):
                resolved = Path(os.path.abspath(path))
                if resolved in seen:
                    continue
                seen.add(resolved)
                candidates.append((tree.module_name_for(resolved), tree.relpath(resolved), _reader(resolved)))
                if top.is_file():
                    asked.add(candidates[-1][0])
    for module, path, read in candidates:
        try:
            data = read()
        except OSError as exc:
            errors.append(SourceError(path, 0, 0, f"cannot read: {exc.strerror or exc}", code="io"))
            continue
        if data is None:
            errors.append(SourceError(path, 0, 0, "cannot read file", code="io"))
            continue
        if not all_functions and module not in asked and not (
                might_define_flows(data, config) and spells_a_marker_in_code(data, config)):
            continue  # no flow decorator spelled in its code: parsed only if a closure reaches it
        result = analyse_module(data, module=module, path=path, config=config, all_functions=all_functions)
        if isinstance(result, SourceError):
            errors.append(result)
            loaded[module] = result
            continue
        loaded[module] = result
        if result.flows or result.errors or result.foreign_decorators:
            flow_summaries[module] = result
    loader = tree_loader(tree, config, loaded)
    flows, flow_errors = fingerprint_flows(flow_summaries, config, loader=loader, modules=tree.module_names,
                                           hook_candidates=_hook_candidates(tree, config),
                                           files=getattr(tree, "read_data", None))
    summaries = {m: s for m, s in loaded.items() if isinstance(s, ModuleSummary)}
    return ProjectResult(flows, tuple(_sorted_errors([*errors, *flow_errors])), summaries)


def _hook_candidates(tree: SourceTree, config: LoomConfig) -> HookCandidates | None:
    """The modules of ``tree`` whose bytes spell a marker (each file read once, each search
    memoised), when the profile has engine hooks."""
    if config.profile.engine_hooks is None:
        return None
    data: dict[str, bytes | None] = {}
    found: dict[frozenset[str], list[str]] = {}

    def candidates(markers: frozenset[str]) -> list[str]:
        if markers not in found:
            pattern = marker_pattern(markers)
            out = []
            for module in tree.module_names():
                if module not in data:
                    try:
                        data[module] = tree.read(module)
                    except SourceReadError:
                        data[module] = None  # the walk above reports it: an error, never an absence
                raw = data[module]
                if raw is not None and pattern.search(raw):
                    out.append(module)
            found[markers] = out
        return found[markers]

    return HookCandidates(candidates)


def _reader(path: Path):  # noqa: ANN202 - a tiny closure
    return lambda: read_regular_file(path)  # a FIFO is refused, never waited on


def fingerprint_module(
    source: bytes | str,
    *,
    module: str = "m",
    path: str = "m.py",
    config: LoomConfig | None = None,
    all_functions: bool = False,
) -> ModuleResult:
    """Fingerprint the flows of one module in isolation (its imports are import targets)."""
    # the summary lives only for this closure: the forms it never reaches are never computed
    summary = analyse_module(source, module=module, path=path, config=config, all_functions=all_functions, defer=True)
    if isinstance(summary, SourceError):
        return ModuleResult(path=path, module=module, errors=(summary,))
    flows, errors = fingerprint_flows({module: summary}, config)
    return ModuleResult(path=path, module=module, flows=flows, errors=errors)
