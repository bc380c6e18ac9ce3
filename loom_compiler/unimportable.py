"""Module names the tree gives that no process can import (``widget-store.widget_store.main``).

Module names are computed from paths relative to the project root. Scanned from a folder that
holds several projects (``dbos-demo-apps/python/widget-store/widget_store/main.py``), a directory
that is no identifier becomes part of the name; the process that runs the flow has
``widget-store/`` on ``sys.path`` and imports ``widget_store.main``. The flow id, the resolution
of the module's absolute imports and the chunk's module names then all assume a root the process
does not use: ``fingerprint`` warns on such a flow, and the build refuses to bundle it (a chunk
cannot name the module: this used to surface as "not valid Python on its own ... a loom bug").
A file or directory name holding a dot (``shop/checkout.v2.py``) is importable by no name at all
(``sources._dotted_posix`` keeps the dot in the part as ``/``): it is reported the same way.
"""

from __future__ import annotations

__all__ = ["unimportable_reason"]


def unimportable_reason(module: str, path: str) -> str | None:
    """Why ``module`` (the module of the file at ``path``) cannot be imported by that name, with
    what to do; None when every part of the name is an identifier."""
    part = next((p for p in module.split(".") if not p.isidentifier()), None)
    if part is None:
        return None
    if "/" in part:  # a dot inside one file or directory name (``sources._dotted_posix``)
        name = part.replace("/", ".")
        return (f"Python cannot import `{path}` by any module name (`{name}` holds a dot, which an import "
                "reads as a package boundary): rename it to an identifier, move its flows into a module the "
                "process imports, or list it in [tool.loom] exclude")
    at = path.find(part + "/")
    where = path[: at + len(part)] if at >= 0 else path
    return (f"Python cannot import module `{module}` by that name (`{part}` is not an identifier): run loom "
            f"in the project that holds it (the directory its process puts on sys.path: `{where}` or one "
            "inside it), with its own [tool.loom] table")
