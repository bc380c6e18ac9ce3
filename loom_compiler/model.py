"""Values the fingerprint layer hands to everything built on it (bundler, diff, CLI).

This module is the contract between ``loom_compiler.fingerprint`` (which produces these) and
``loom_compiler.bundle``/``diff`` (which consume them). Fields may be added; none are renamed.

The closure is a Merkle structure: every member has its own ``hash`` (over its own canonical form
and the hashes of the members it references), and a flow's ``code_hash`` is the hash over its root
member. A tool that compares two ``FlowFingerprint`` values can therefore name the member that
changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from loom_runtime.definition import FlowDefinition

if TYPE_CHECKING:
    from .analysis import ModuleSummary

__all__ = ["MemberKind", "ClosureMember", "FlowFingerprint", "SourceError", "ModuleResult", "ProjectResult"]

#: ``flow``: the flow function itself; ``function``/``class``/``constant``: module-level
#: definitions reached by name; ``method``: a sibling member reached through ``self.``/``cls.``;
#: ``import``: a third-party (or stdlib) import target, hashed by target only; ``step``: a
#: function marked as a step, hashed by qualified name only; ``module``: every statement of a
#: first-party module (``<module>.*``), where the closure cannot tell what of it is reached.
MemberKind = Literal["flow", "function", "class", "constant", "method", "import", "step", "module"]


@dataclass(frozen=True, slots=True)
class ClosureMember:
    qualname: str  # "shop.pricing.discount", "math.floor" for an import target
    kind: MemberKind
    module: str  # module the definition lives in ("shop.pricing"); for imports, the importing module
    hash: str  # "sha256:<hex>", Merkle: covers the members in ``bindings`` too
    path: str | None = None  # POSIX path of the defining file, relative to the project root
    line: int = 0
    #: The original source text of the definition (decorators, comments and formatting kept),
    #: exactly as it appears in its module: what a chunk bundles. Empty for imports and steps.
    source: str = ""
    #: Global names this member's code uses, each mapped to what it resolves to: the qualname of
    #: another closure member, or an import target ("math.floor", "shop.steps.charge").
    bindings: tuple[tuple[str, str], ...] = ()
    #: For ``import`` and ``step`` members: the dotted import target the chunk must import.
    target: str | None = None
    #: The member's canonical form under ``canonical.SCHEME`` (what its own hash covers besides ``bindings``);
    #: ``loom fingerprint --explain`` prints it so an engineer can see why a hash moved.
    canonical: str = ""
    #: The module-level statements the member consists of, in source order, as ``(index of the
    #: statement in its module, line, original text, module-level names it binds)``: a statement
    #: can belong to several members (``@REGISTRY.register def pay`` is part of ``pay`` and of
    #: ``REGISTRY``), and a chunk must run it once. Empty for imports, steps and class members.
    parts: tuple[tuple[int, int, str, tuple[str, ...]], ...] = ()
    #: Why the closure holds more than the code names, where ``loom-fp/2`` widens (DESIGN §6):
    #: "whole module: ...", "whole class: ...", "module statements that change it", ...; empty for
    #: a member reached by name alone. Not hashed (the hash covers what is reached, not why).
    reason: str = ""


@dataclass(frozen=True, slots=True)
class FlowFingerprint:
    flow_id: str
    function: str  # qualname within its module ("checkout", "Shop.run")
    module: str
    path: str  # POSIX, relative to the project root
    line: int
    column: int
    code_hash: str
    definition: FlowDefinition  # the decorator's literal arguments (fn is None)
    flow_hash: str
    legacy_flow_hash: str
    closure: tuple[ClosureMember, ...] = field(default=())  # root member first
    decorator: str = "loom_runtime.flow"  # qualified name of the decorator that declared it
    #: problems that do not stop the build but may make the hash miss an edit: a first-party
    #: import the closure needs whose module has no source file (``closure``), at the import
    warnings: tuple[SourceError, ...] = ()

    @property
    def root(self) -> ClosureMember:
        return self.closure[0]


@dataclass(frozen=True, slots=True)
class SourceError:
    """A per-file problem, reported as a value so a build can go on with the other files."""

    path: str
    line: int  # 1-based; 0 when the problem has no position (an unreadable file)
    column: int  # 1-based, as editors and compilers print file:line:column; 0 with line 0
    message: str
    code: str = "error"  # "syntax", "encoding", "flow-id", "duplicate-id", ...

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.message}"


@dataclass(frozen=True, slots=True)
class ModuleResult:
    path: str
    module: str
    flows: tuple[FlowFingerprint, ...] = ()
    errors: tuple[SourceError, ...] = ()


@dataclass(frozen=True, slots=True)
class ProjectResult:
    """A project's flows and errors (``fingerprint_project``, ``bundle.fingerprint_tree``). Here,
    not in ``fingerprint``, so that a command served from the cache never imports the parser."""

    flows: tuple[FlowFingerprint, ...]
    errors: tuple[SourceError, ...]
    #: every summary produced (flow modules and the first-party modules their closures reach);
    #: empty from ``fingerprint_tree``
    summaries: Mapping[str, ModuleSummary] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.errors
