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
            names = _bound_names(stmt)
            # ``x: int`` (a dataclass field) shapes ``__init__``: kept like the dunders (its
            # annotation runs when the class is made, unless the module defers annotations)
            fields = all(isinstance(small, cst.AnnAssign) and small.value is None for small in stmt.body)
            keep = is_doc or fields or bool(names & reached) or (
                bool(names) and all(n.startswith("__") and n.endswith("__") for n in names)
            )
        else:  # ``if``/``for``/``with``/``try`` in the class body: kept when it binds a reached name
            keep = bool(_bound_names(stmt) & reached)
        if keep:
            kept.append(stmt)
    if len(kept) == len(body):
        return text
    if not kept:
        kept = [cst.SimpleStatementLine([cst.Pass()])]
    new = cls.with_changes(body=cls.body.with_changes(body=kept))
    return module.code_for_node(new)


def _bound_names(stmt: cst.CSTNode) -> set[str]:
    """The names a class-body statement binds or unbinds in the class namespace: assignment,
    walrus, ``del``, ``for`` and ``with`` targets, ``except ... as``, imports (``import shop.m as mm``
    binds ``mm``: read as ``self.mm``, dropping it made the chunk raise AttributeError where live
    code worked, breaker6's G11) and defs and classes nested in a compound statement (their bodies
    bind nothing here)."""
    binder = _Binder()
    stmt.visit(binder)
    return binder.names


class _Binder(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            _target_names(t.target, self.names)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        _target_names(node.target, self.names)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        _target_names(node.target, self.names)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        _target_names(node.target, self.names)

    def visit_Del(self, node: cst.Del) -> None:  # ``del D``: live, ``self.D`` then reads a base's
        _target_names(node.target, self.names)

    def visit_For(self, node: cst.For) -> None:
        _target_names(node.target, self.names)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            _target_names(node.asname.name, self.names)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            _target_names(node.name.name, self.names)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            if alias.asname is not None:
                _target_names(alias.asname.name, self.names)
            else:  # ``import shop.m`` binds ``shop``
                root = alias.name
                while isinstance(root, cst.Attribute):
                    root = root.value
                _target_names(root, self.names)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            _target_names(alias.asname.name if alias.asname is not None else alias.name, self.names)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.names.add(node.name.value)
        return False  # its body's names are its own

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.names.add(node.name.value)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def _target_names(target: cst.BaseExpression, out: set[str]) -> None:
    if isinstance(target, cst.Name):
        out.add(target.value)
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            _target_names(element.value, out)
    elif isinstance(target, cst.StarredElement):
        _target_names(target.value, out)
