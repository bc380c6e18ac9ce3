"""Emit one chunk per code version: the flow and its first-party closure, module by module.

A chunk is what the registry executes to serve an execution pinned to an old codeHash, so it must
never import the *current* first-party code and must run exactly what the live modules ran
(DESIGN §7): any difference between chunk and live behaviour is a silent wrong result on a
durable execution, as bad as a wrong hash.

**Each bundled module keeps its own namespace.** The chunk is one readable Python file in the
``loom-chunk/2`` layout (``loom_runtime.chunk_layout``): a header naming the flow, its codeHash,
scheme, entry and source files, one ``module`` line per first-party module the chunk holds and
one ``run`` line per stretch of lines to execute in one of them; then the modules' original
statements (text, comments and formatting kept) in the order the live modules run them. The
runtime executes each module's statements in a real module object of its own
(``loom_runtime.chunk_modules``): named as the original (``__name__``, ``__module__``, qualnames,
the error types a journal records and ``sys.modules[__name__]`` read as live), registered only
under a private name below the chunk's module (``_loom_chunks.<slug>_<hex>.shop.pricing``), so
the live package is never shadowed or imported (pickle finds a bundled class under that name:
``loom_runtime.chunk_names``). ``globals()`` of a helper is its module's, a store
into ``shop.pricing.RATE`` reaches ``shop.pricing``'s functions, a star import binds into the module
that wrote it, a name created by ``global X`` in a function is that module's, annotations follow
each module's own ``from __future__`` lines. Nothing is renamed.

The pieces: ``chunk_plan`` decides which statements of which module the chunk runs (the closure's
statements, the import statements they need, transitively through re-exports, the modules'
docstrings and ``__future__`` lines) and checks the result is self-contained (a name nothing binds
is a build error naming the flow, never a ``NameError`` when serving); ``chunk_imports`` writes
every first-party import as the relative import that resolves to the chunk's sibling module, and
``chunk_dynamic`` a literal ``importlib.import_module``/``__import__`` of a bundled module;
``chunk_order`` replays Python's execution of the modules (imports, cycles included) so each
statement runs when it ran live; ``chunk_layout.render`` writes the file. Third-party imports
and steps stay ordinary imports of live code (a step's body is an effect, served from the
journal): a step defined in a bundled module is bound by ``from <its module> import <step>``.
The ``entry`` is ``<module>.<qualname>`` (``shop.flows.checkout``), resolved in the chunk's own
modules (``loom_runtime.chunks`` refuses a path through anything else).

Known limits: a bundled module's statements the closure does not include are not run (by the
fingerprint's soundness they cannot change the flow's result; their side effects, such as a log
line or a third-party registration the flow never reads, do not happen at load); a module reached only by a lazy ``from m import name`` runs at its
first use (a ``lazy`` module of the layout), which is the call that imported it live unless
another path touches it first (``dir()`` or ``vars()`` of it before any lookup see it empty),
while one a lazy ``import shop.patch`` reaches (imported for its effects) runs at load; an import
by a name computed at run time (``importlib.import_module("shop." + kind)``) reaches the live
module of that name;
``__file__`` is the live module's file (``loom_runtime.chunk_modules``: data files next to it
are read as live code reads them), the chunk's path where no live module of that name is found.
A module found through a directory a package puts on a search path is bundled under the name the
import gave it (``chunk_search``: ``import helper`` of ``shop/vendor/helper.py`` is the chunk's
``helper``); code loaded by path runs from its file, which the chunk's header pins by digest and
the loader checks (``chunk_limits``); a submodule read as its package's attribute that no module
that runs imports is a build error of the flow (a chunk cannot reproduce it).

Rejected: one namespace for every module with clashing names renamed (what this replaced: every
observable name and every by-name access differed from live), copying whole modules
(unfingerprinted code and its imports in the chunk), an import hook serving first-party modules
from the chunk (process-wide: the serving process imports the live modules of the same names), a
file per module (a chunk is one file the manifest pins by one digest), and re-printing statements
through libcst (the text is copied; only a statement with a first-party import is re-printed).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from loom_runtime import chunk_layout
from loom_runtime.manifest import FINGERPRINT_SCHEME

from ..analysis import ModuleSummary
from ..load_runs import LoadRuns
from ..model import FlowFingerprint
from ..unimportable import unimportable_reason
from .chunk_dynamic import rewrite_dynamic_imports
from .chunk_file import Chunk, ChunkError, chunk_path_for, flow_slug, source_digest
from .chunk_imports import FAIL, ImportSite, rewrite_imports
from .chunk_memo import ChunkMemo
from .chunk_order import Schedule, execution_order, guarded_from_imports, import_schedule, sets_type_checking, with_foreign_imports
from .chunk_limits import code_files, refuse_code_strings, refuse_unreproducible
from .chunk_plan import ChunkPlan, PlannedModule, Statement, plan_chunk, statement_globals
from .chunk_search import renamed

__all__ = ["Chunk", "ChunkError", "ChunkMemo", "chunk_path_for", "emit_chunk", "flow_slug", "source_digest"]


def emit_chunk(
    fp: FlowFingerprint,
    *,
    summaries: Mapping[str, ModuleSummary] | None = None,
    first_party: Callable[[str], bool] | None = None,
    class_source: str | None = None,
    class_line: int = 0,
    module_imports: Mapping[str, str] | None = None,
    chunk_path: str = "",
    import_schedules: Mapping[str, Schedule] | None = None,
    memo: ChunkMemo | None = None,
) -> Chunk:
    """Render the chunk of one flow version. Pure: values in, text out.

    ``summaries``: every first-party module the closure read (their statements, imports, steps);
    ``first_party(dotted)``: whether an import target is first-party (default: under a module of
    ``summaries`` or of the closure). ``class_source``: for a method flow (``Shop.run``), the
    original text of its class. ``module_imports``: the flow module's import bindings, for names
    no summary binds (a closure given without summaries). ``import_schedules``: where each module
    imports what (``chunk_order.import_schedule``), so statements run in the live order (default:
    computed from ``summaries``).

    Raises ``ChunkError`` when the closure cannot be made self-contained.
    """
    if not fp.closure:
        raise ChunkError(f"flow `{fp.flow_id}` has an empty closure; nothing to bundle", path=fp.path, line=fp.line)
    for module in dict.fromkeys(m.module for m in fp.closure if m.kind not in ("import", "step")):
        reason = unimportable_reason(module, fp.path)
        if reason is not None:  # the chunk would have to name the module (``unimportable``)
            raise ChunkError(f"flow `{fp.flow_id}` cannot be bundled: {reason}", path=fp.path, line=fp.line,
                             column=fp.column)
    summaries = summaries or {}
    if first_party is None:
        roots = {m.split(".")[0] for m in summaries} | {
            m.module.split(".")[0] for m in fp.closure if m.kind not in ("import", "step")}
        first_party = lambda dotted: dotted.split(".")[0] in roots
    memo = memo if memo is not None else ChunkMemo()
    refuse_unreproducible(fp)
    # a module found through a directory a package puts on a search path: under its live name
    fp, summaries, first_party = renamed(fp, summaries, first_party)
    first_party = _remembered(first_party)  # asked ~40 times a chunk, mostly of the same few names
    plan = plan_chunk(fp, summaries, first_party, class_source=class_source, class_line=class_line,
                      module_imports=module_imports, memo=memo)
    missing = [(m, n) for m in plan.modules.values() for n in m.missing]
    if missing:
        listed = ", ".join(f"`{n}`" for _, n in missing)
        where = ", ".join(sorted({m.path or m.name for m, _ in missing}))
        raise ChunkError(
            f"flow `{fp.flow_id}`: the closure uses {listed} but nothing in it defines or imports "
            f"{'it' if len(missing) == 1 else 'them'} (in {where}); define the name at module level or "
            "import it (a chunk cannot fall back to the live module)",
            path=fp.path,
            line=fp.line,
        )
    refuse_code_strings(fp, ((s.text, plan.modules[s.module].path or s.module, s.line)
                             for m in plan.modules.values() for s in m.statements.values() if not s.live),
                        first_party, memo)
    statements, imported = _rewritten(plan, memo)
    if import_schedules is None:
        # a first-party module setting ``typing.TYPE_CHECKING``: no ``if TYPE_CHECKING:`` body is
        # skipped (breaker7's K3)
        checking = any(_sets_type_checking(memo, s) for s in summaries.values())
        # each module's schedule, once per build (the same library modules in every chunk)
        table = memo.table("schedule-of" if not checking else "schedule-of-checking")
        import_schedules = {m: hit[1] if (hit := table.get(id(s))) is not None and hit[0] is s
                            else _schedule(memo, s, checking) for m, s in summaries.items()}
        # what code of other modules a statement runs imports (``load_runs``): the rule the
        # closure follows, over the summaries this chunk's closure read
        load_runs = memo.get("load-runs", "", LoadRuns)
        import_schedules = {m: with_foreign_imports(sched, summaries[m], load_runs, summaries.get, checking=checking)
                            for m, sched in import_schedules.items()}
    runs, lazy = _runs(fp, plan, statements, import_schedules, imported, memo)
    entry = f"{fp.module}.{fp.function}"
    bundled = {s.module for s in statements.values()}
    sources = tuple(sorted({m.path for m in plan.modules.values() if m.path and m.name in bundled}))
    head = [
        "Loom chunk: generated by `loom build`, do not edit (the manifest pins its sha256).",
        f"flow: {fp.flow_id}",
        f"codeHash: {fp.code_hash}",
        f"scheme: {FINGERPRINT_SCHEME}",
        f"entry: {entry}",
        "sources:",
        *(f"  {p}" for p in sources),
    ]
    modules = [chunk_layout.ChunkModule(m.name, m.package, m.future, m.path) for _, m in sorted(plan.modules.items())]
    text = chunk_layout.render(head, modules, runs, lazy=lazy, files=code_files(fp))
    del chunk_path  # the chunk's place does not change its text
    return Chunk(fp.flow_id, fp.code_hash, entry, text, sources)


def _sets_type_checking(memo: ChunkMemo, summary: ModuleSummary) -> bool:
    """``chunk_order.sets_type_checking`` of a module, once per summary object of a build."""
    table = memo.table("sets-type-checking")
    hit = table.get(id(summary))
    if hit is None or hit[0] is not summary:
        hit = table[id(summary)] = (summary, sets_type_checking(summary.units))
    return hit[1]  # type: ignore[no-any-return]


def _schedule(memo: ChunkMemo, summary: ModuleSummary, checking: bool = False) -> Schedule:
    """``import_schedule(summary)``, once per build: by the summary object first (a build serves
    each module's summary as one object, and every chunk asks for the ~55 modules it bundles:
    a key spelling every statement's text cost more than the schedule), by its content when
    another object of it comes."""
    table = memo.table("schedule-of" if not checking else "schedule-of-checking")
    hit = table.get(id(summary))
    if hit is None or hit[0] is not summary:
        key = (summary.module, summary.is_package, tuple((u.line, u.source) for u in summary.units), checking)
        hit = table[id(summary)] = (summary, memo.get("schedule", key,
                                                      lambda: import_schedule(summary, checking=checking, parse=memo.tree)))
    return hit[1]  # type: ignore[no-any-return]


def _rewritten(plan: ChunkPlan, memo: ChunkMemo) -> tuple[dict[str, Statement], frozenset[str]]:
    """Every statement with its first-party imports made relative (``chunk_imports``) and the
    aliases nothing needs left out; a line of imports left with none is dropped; a literal
    ``importlib.import_module``/``__import__`` of a bundled module made relative too
    (``chunk_dynamic``: the modules so imported are the second value).

    Leaving an alias out can take a name from its module that an import elsewhere counted on
    (``dbos`` re-exports ``EnqueueOptions`` from ``dbos._client``, which dropped its own import of
    it): so the names each module binds are read again from the rewritten text and the rewrite
    repeats until they hold still (they only shrink; each pass is memoised)."""
    bindings = {m.name: _module_bindings(m, memo) for m in plan.modules.values()}
    roots = sorted({name.split(".")[0] for name in plan.modules})
    while True:
        out: dict[str, Statement] = {}
        imported: set[str] = set()
        for m in plan.modules.values():
            for stmt in m.ordered():
                text: str | None = stmt.text
                if not stmt.live:
                    text = rewrite_imports(stmt.text, m.name, m.package, plan.first_party, _keep(plan, m, stmt),
                                           where=stmt.origin, memo=memo)
                    if text is not None:
                        dynamic = rewrite_dynamic_imports(text, m.name, m.package, plan.modules, bindings[m.name],
                                                          roots=roots, where=stmt.origin, memo=memo)
                        text = dynamic.text
                        imported |= dynamic.modules
                if text is stmt.text and not stmt.live:
                    out[stmt.key] = stmt  # unchanged (most statements): the plan's own, no copy
                elif text is not None:
                    out[stmt.key] = Statement(stmt.module, stmt.key, stmt.line, stmt.seq, text, stmt.origin,
                                              stmt.binds, soft=stmt.soft)
        by_module: dict[str, list[Statement]] = {}
        for stmt in out.values():
            by_module.setdefault(stmt.module, []).append(stmt)
        settled = True
        for m in plan.modules.values():
            deferred = "annotations" in m.future
            bound = frozenset().union(*(memo.get("globals", (deferred, st.text),
                                                 lambda st=st: statement_globals(st.text, deferred, memo.tree)).bound
                                        for st in by_module.get(m.name, ())))
            kept = bound & m.bound  # a rewrite only takes names away
            if kept != m.bound:
                m.bound = kept
                settled = False
        if settled:
            return out, frozenset(imported)


def _module_bindings(m: PlannedModule, memo: ChunkMemo) -> Mapping[str, str | None]:
    """What each module-level name of ``m`` is bound to: the absolute target of the import
    binding it (``import a.b`` binds ``a`` to the module ``a``), or None when anything else binds
    it or imports bind it to two targets (for ``chunk_dynamic``: which calls are resolvers).
    A function of the module's summary alone: once per build, by the summary object."""
    s = m.summary
    if s is None:
        return {}
    table = memo.table("module-bindings")
    hit = table.get(id(s))
    if hit is None or hit[0] is not s:
        hit = table[id(s)] = (s, _bindings_of(s))
    return hit[1]  # type: ignore[no-any-return]


def _bindings_of(s: ModuleSummary) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for u in s.units:
        targets = {}
        for local, target in u.aliases:
            targets[local] = local if "." in target and target.split(".")[0] == local else target
        for name in u.names:
            bound = targets.get(name)
            out[name] = bound if out.get(name, bound) == bound else None
    return out


def _keep(plan: ChunkPlan, m: PlannedModule, stmt: Statement) -> Callable[[ImportSite], bool | str]:
    wanted = m.used | m.exports | m.annotated | stmt.binds

    def keep(site: ImportSite) -> bool | str:
        if site.module == "__future__":
            return True
        if site.top and site.local not in wanted:
            return False  # a name of an import line nothing in the chunk looks up
        if not site.first_party or site.attr is None:
            return True
        if f"{site.module}.{site.attr}" in plan.modules or site.module not in plan.modules:
            return True  # a submodule, or a module the project lacks (fails as live)
        if plan.available(site.module, site.attr) or plan.replaces_itself(site.module):
            return True  # bundled; or served by the object the module put in its place
        # the chunk's module lacks it: unreached, so dropped; unless live lacks it too, where the
        # import must fail as it does live (``try: from .fast import f, g / except ImportError``)
        return False if plan.binds_live(site.module, site.attr) else FAIL

    return keep


def _guarded(summary: ModuleSummary, memo: ChunkMemo | None) -> frozenset[tuple[int, str]]:
    """``guarded_from_imports`` of a summary, once per build (by the summary object)."""
    if memo is None:
        return guarded_from_imports(summary)
    table = memo.table("guarded-imports")
    hit = table.get(id(summary))
    if hit is None or hit[0] is not summary:
        hit = table[id(summary)] = (summary, guarded_from_imports(summary, memo.tree))
    return hit[1]  # type: ignore[no-any-return]


def _remembered(first_party: Callable[[str], bool]) -> Callable[[str], bool]:
    """``first_party`` answering each name once (a pure question within one chunk)."""
    known: dict[str, bool] = {}

    def remembered(dotted: str) -> bool:
        answer = known.get(dotted)
        if answer is None:
            answer = known[dotted] = first_party(dotted)
        return answer

    return remembered


def _runs(fp: FlowFingerprint, plan: ChunkPlan, statements: Mapping[str, Statement],
          schedules: Mapping[str, Schedule], imported: frozenset[str] = frozenset(),
          memo: ChunkMemo | None = None) -> tuple[list[tuple[str, str]], list[str]]:
    """``(module, text)`` per stretch of consecutive statements of one module, in live order; and
    the modules only a lazy import reaches (importing the flow's module never runs them: the
    loader runs them at their first use, as the lazy import did live)."""
    ordered = sorted(statements.values(), key=lambda s: (s.module, s.line, s.seq, s.key))
    uses = {m.name: m.imports for m in plan.modules.values()}
    started: set[str] = set()
    # a ``from`` import guarded by ``try`` leaves its module to run at its lookup, inside the
    # ``try`` (breakS's S4: a module that raises then takes the handler, as live)
    guarded = {m.name: marks for m in plan.modules.values() if m.summary is not None
               and (marks := _guarded(m.summary, memo))}
    order = execution_order([(s.key, s.module, s.line) for s in ordered], fp.module, schedules, uses, started,
                            events=memo.table("schedule-events") if memo is not None else None,
                            guarded=guarded, eager=frozenset(plan.imported_as_modules | imported))
    # deferred only where each import of it asks it for a name (``from .opt import fancy``: the
    # lookup that runs it is the import's own); ``import shop.patch`` runs it for its effects
    # and a module a literal ``import_module`` reaches (``chunk_dynamic``) runs for its effects too
    lazy = sorted({s.module for s in ordered} - started - plan.imported_as_modules - imported)
    runs: list[tuple[str, list[str]]] = []
    for key in order:
        stmt = statements[key]
        if not runs or runs[-1][0] != stmt.module:
            module = plan.modules[stmt.module]
            runs.append((stmt.module, [f"# === module {stmt.module}" + (f" ({module.path})" if module.path else "")]))
        runs[-1][1].append(f"# {stmt.origin}\n{stmt.text.rstrip()}")
    return [(module, "\n\n".join(parts)) for module, parts in runs], lazy
