"""The class of a method flow, cut down to what the flow reaches.

A flow that is a method (``Shop.run``) is served from its class, and the fingerprint covers only
the members the flow reaches (``self.total``, ``self.fee``), the docstring and the dunder methods
(which Python calls without naming them). The chunk bundles the class with exactly those: a
member the flow never reaches is not in its fingerprint, so bundling it would pin code the hash
does not cover and drag its imports into the chunk. When the closure reaches the whole class
(a widening: ``getattr(self, name)``), the class statement is bundled as written instead.

Rejected: the whole class always (unfingerprinted code in the chunk, whose edits would not make a
new version, and whose imports the serving process may not have).
"""

from __future__ import annotations

import libcst as cst

from .chunk_file import ChunkError

__all__ = ["keep_class_members"]


def keep_class_members(text: str, reached: set[str], *, where: str) -> str:
    """The class with only the members the flow reaches, its docstring and its dunder methods.

    Members the flow never reaches are not in its fingerprint; bundling them would pin code the
    hash does not cover and drag in their imports."""
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        raise ChunkError(f"cannot re-parse the class of a method flow: {exc.message}", path=where) from None
    (cls,) = [s for s in module.body if isinstance(s, cst.ClassDef)] or [None]
    if cls is None:
        raise ChunkError("the source of a method flow's class holds no class", path=where)
    kept = []
    body = list(cls.body.body)
    for i, stmt in enumerate(body):
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            name = stmt.name.value
            keep = name in reached or (name.startswith("__") and name.endswith("__"))
        elif isinstance(stmt, cst.SimpleStatementLine):
            is_doc = i == 0 and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr) and isinstance(
                stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)
            )
            names = {n.value for n in _assigned_names(stmt)}
            # ``x: int`` (a dataclass field) shapes ``__init__``: kept like the dunders (its
            # annotation runs when the class is made, unless the module defers annotations)
            fields = all(isinstance(small, cst.AnnAssign) and small.value is None for small in stmt.body)
            keep = is_doc or fields or bool(names & reached) or (
                bool(names) and all(n.startswith("__") and n.endswith("__") for n in names)
            )
        else:
            keep = False
        if keep:
            kept.append(stmt)
    if len(kept) == len(body):
        return text
    if not kept:
        kept = [cst.SimpleStatementLine([cst.Pass()])]
    new = cls.with_changes(body=cls.body.with_changes(body=kept))
    return module.code_for_node(new)


def _assigned_names(stmt: cst.SimpleStatementLine) -> list[cst.Name]:
    out: list[cst.Name] = []
    for small in stmt.body:
        targets: list[cst.BaseExpression] = []
        if isinstance(small, cst.Assign):
            targets = [t.target for t in small.targets]
        elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
            targets = [small.target]
        for t in targets:
            if isinstance(t, cst.Name):
                out.append(t)
            elif isinstance(t, (cst.Tuple, cst.List)):
                out.extend(e.value for e in t.elements if isinstance(e.value, cst.Name))
    return out


