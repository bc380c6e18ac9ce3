"""Which file an import loads when packages put directories on a search path (issue 12's E9, F9).

Python looks a top-level name up along ``sys.path`` and a submodule along its package's
``__path__``. A project may add to either from its own code (``sys.path.insert(0,
os.path.join(os.path.dirname(__file__), 'vendor'))``, ``site.addsitedir(...)``, ``__path__ =
[os.path.dirname(__file__), extra]``): ``import helper`` then loads ``shop/vendor/helper.py``,
``from shop.plug import f`` loads ``shop/extra/plug.py``. ``analysis`` records those directories
(``ModuleSummary.search_paths``, decided by ``static_paths``); ``found_through`` is the one rule
that maps an import target to the module the tree names that file by, used by the fingerprint
(``closure``: what the flow reaches) and by the bundler (``bundle.chunk_search``: the chunk must
give that module the name the import gave it).

The order is Python's: ``insert(0, d)`` before what the path held, ``append``/``extend``/
``addsitedir`` after it, a list assigned over the whole path starts it again (the package's own
directory is searched only if it is listed). ``sys.path`` directories count for the module whose
code imports and the packages above it, and only for a name that is no first-party module of the
tree already (a documented limit: a worker script adding a directory for the whole process is not
seen from a flow module it does not contain).

Rejected: running the package to read its ``__path__`` (user code; the build never runs it) and
asking ``importlib`` finders (they see the installed version, not the checkout).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["SiteDirs", "found_through", "search_order"]

#: the directories the ``.pth`` files of a site directory add (``site.addsitedir``): called with
#: the summary of the module whose code adds it and the directory (dotted, in the tree's naming)
SiteDirs = Callable[[object, str], Sequence[str]]


def search_order(entries: Sequence[tuple[str, str, str]], own: str | None,
                 site: Callable[[str], Sequence[str]] | None = None) -> list[str]:
    """The directories a search path holds once ``entries`` (``ModuleSummary.search_paths`` of one
    kind, in source order) ran over its start (``own``: a package's own directory; None:
    ``sys.path``, whose other entries are not the tree's). A "site" entry (``site.addsitedir``)
    is appended, then each directory its ``.pth`` files name (``site(directory)``, in the order
    ``site`` reads them: files by name, lines in order), as Python's ``site.addpackage`` does."""
    order: list[str] = [own] if own is not None else []
    for _, mode, directory in entries:
        if mode == "reset":
            order = [directory]
        elif mode == "first":
            order.insert(0, directory)
        else:
            order.append(directory)
            if mode == "site" and site is not None:
                order.extend(d for d in site(directory) if d not in order)
    return order


def found_through(target: str, importer: str | None, summary_of: Callable[[str], object | None],
                  exists: Callable[[str], bool], in_tree: Callable[[str], bool], site: SiteDirs | None = None) -> str:
    """``target`` as the tree names the module an import of it in ``importer`` loads; ``target``
    itself when no search path a package adds applies.

    ``site(summary, directory)``: the directories the ``.pth`` files of a site directory add
    (None: they are not read, as for a caller that holds no file of the project).

    ``summary_of(module)``: the ``ModuleSummary`` of a first-party module (None otherwise);
    ``exists(module)``: whether the tree holds a module found through a directory a package adds
    (it may load it); ``in_tree(module)``: whether a first-party module of that name is there."""
    parts = target.split(".")
    if importer is not None and not in_tree(parts[0]):
        module = importer.split(".")
        for i in range(len(module), 0, -1):
            summary = summary_of(".".join(module[:i]))
            entries = [e for e in getattr(summary, "search_paths", ()) if e[0] == "sys"]
            dirs = search_order(entries, None, (lambda d, s=summary: site(s, d)) if site is not None else None)
            found = next((d for d in dirs if d and exists(f"{d}.{parts[0]}")), None)
            if found is not None:
                parts = found.split(".") + parts
                break
    i = 1
    while i < len(parts):
        package = ".".join(parts[:i])
        summary = summary_of(package)
        entries = [e for e in summary.search_paths if e[0] == "pkg"] \
            if summary is not None and summary.is_package else []  # type: ignore[attr-defined]
        if entries:
            own = f"{package}.{parts[i]}"
            for directory in search_order(entries, package):
                if directory == package:
                    if in_tree(own):
                        break
                    continue
                if directory and exists(f"{directory}.{parts[i]}"):
                    parts = directory.split(".") + parts[i:]
                    i = directory.count(".") + 1
                    break
        i += 1
    return ".".join(parts)
