"""Run a ``loom-chunk/2`` file: each bundled module in a real module object of its own.

A chunk's bundled modules must behave as the live ones did (DESIGN §7), yet the live modules of
the same names are in the same process (the current version of the code) and must never be
shadowed. So each bundled module is a fresh ``types.ModuleType``:

* **registered under a private name**: ``sys.modules["<chunk>.shop.pricing"]``, below the chunk's
  own module ``_loom_chunks.<slug>_<hex>`` (which holds the top-level packages as attributes).
  ``"shop.pricing" in sys.modules`` stays about the live module. Its package (``__package__``) is
  the private one as text (a ``chunk_names.PrivateName``: it reads, prints and compares as
  ``shop``), so a relative import in its text (the bundler writes every first-party import as
  one, ``from .pricing import discount``) and ``importlib.import_module(".g", __package__)``
  resolve, through the ordinary import system, to the chunk's sibling module; a package's
  ``__path__`` is empty, so a module the chunk does not hold fails to import
  (``ModuleNotFoundError``) and is never found on disk.
* **named as the original**: its ``__name__`` is a ``chunk_names.ModuleName``, a ``str`` whose
  text is ``shop.pricing`` (logger names, ``==``, messages read as live) and whose hash is the
  private name's, so that looking it up as a key finds the chunk's module:
  ``sys.modules[__name__]``, and what the standard library does with ``cls.__module__``
  (``typing.get_type_hints`` and dataclasses resolving string annotations, ``inspect.getmodule``).
  After a module's last run, what it defined gets the private name as ``__module__``
  (``chunk_names.adopt_definitions``: pickle resolves a class by that text), formatted as the
  original (the error type a journal records, step names).

The modules are created, wired to their packages (``shop.pricing`` an attribute of ``shop``) and
registered before any run executes: an import cycle then finds its partly run module as Python
finds it in ``sys.modules``. A module the layout names ``lazy`` (only an import inside a function
reached it live) runs at its first use instead (``_defer``): an optional dependency it imports
(``from fastapi import FastAPI`` in dbos's ``_fastapi``) is needed only where live code needed it. Each run is compiled with its module's ``from __future__`` features,
all of them before the first executes, then executed in its module's ``__dict__`` in file
order; after a module's last run its package attribute is set again (Python sets it when the
module finishes loading, over whatever the package bound in between).

* **at the original's file**: ``__file__`` is the path the import system would load the live
  module from in this process (``live_file``: the finders are asked, nothing is imported), so
  ``Path(__file__).parent / "prompt.txt"`` reads what the live code reads (data files are inputs,
  outside the fingerprint, like a database). Where no live module of that name can be found, it
  is the chunk's path. Code objects keep the chunk's path as their filename: tracebacks and
  ``inspect.getsource`` show the code that ran.

* **checked against the files its code runs by path** (``_check_files``): code a bundled module
  loads by a path computed from ``__file__`` (``exec(open(... 'plug.txt').read())``) is not in
  the chunk; the layout's ``file`` lines pin each such file's digest (and a glob's listing, the
  names it matches: ``file_listing``), and the chunk is refused (``ManifestError`` naming the
  file) when the file next to the live modules holds other bytes, or the glob matches others.

* **with a spec of its own** (``chunk_resources``) where its live file is known: its data files
  are read there through ``importlib.resources`` and ``pkgutil.get_data`` too; the spec's loader
  runs no code.

Known differences from the live modules: ``repr()`` of a class it defines names the private
module (``chunk_names``), a package's ``__path__`` is empty, a package attribute naming a
submodule exists from the start, and a computation of another name from ``__name__``
(``__name__ + ".sub"``, ``__import__(__name__)``, which imports its top-level package) yields a
plain string and reaches the live module of that name.

Rejected: the original names in ``sys.modules`` for the duration of the load (any thread importing
the live package meanwhile would get the chunk's modules), a private ``__name__`` (logger names
and every ``__name__ == "shop.m"`` would read ``_loom_chunks...``), and an ``__import__`` in each
module's ``__builtins__`` serving first-party imports (the builtins would be a copy: a later
``builtins.x = ...`` or ``gettext.install()`` would not reach the chunk's code).
"""

from __future__ import annotations
import __future__

import hashlib
import sys
import threading
import types
from pathlib import Path
from typing import Any

from .chunk_layout import ChunkLayout
from .chunk_names import ModuleName, PrivateName, adopt_definitions
from .errors import ManifestError
from .file_listing import read_project_file
from .chunk_resources import bundled_spec

__all__ = ["live_file", "run_modules"]


def live_file(name: str) -> str | None:
    """The file the import system would load the live module ``name`` from, found without importing
    (executing) anything: a package already imported answers with its own ``__spec__`` and
    ``__path__``, any other is looked up with the finders of ``sys.meta_path`` (editable installs,
    zip imports and ``sys.path`` alike) in its parent's search locations. None when it cannot be
    found, is a namespace package, or has no file (a built-in module)."""
    path: list[str] | None = None
    file: str | None = None
    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        dotted = ".".join(parts[:i])
        live = sys.modules.get(dotted)
        if live is not None:  # imported already: where it was loaded from, where it looks now
            file = getattr(live, "__file__", None)
            locations = getattr(live, "__path__", None)
        else:
            spec = None
            for finder in sys.meta_path:
                find = getattr(finder, "find_spec", None)
                if find is None:
                    continue
                try:
                    spec = find(dotted, path)
                except Exception:  # a finder that cannot answer for this name: ask the next
                    spec = None
                if spec is not None:
                    break
            if spec is None:
                return None
            file = spec.origin if spec.has_location else None
            locations = spec.submodule_search_locations
        if i < len(parts) and locations is None:
            return None
        path = list(locations) if locations is not None else None
    return file if isinstance(file, str) else None


def run_modules(root: types.ModuleType, layout: ChunkLayout, text: str, path: Path,
                registered: list[str]) -> dict[str, types.ModuleType]:
    """Compile every run of ``text``, then create the bundled modules below ``root`` and execute
    the runs. Every name put in ``sys.modules`` is appended to ``registered`` as it is put, so a
    caller can take them all out again when this raises. ``SyntaxError`` comes before anything
    is created or run; an exception of the chunk's code propagates as it was raised."""
    lines = text.split("\n")
    flags: dict[str, int] = {}
    for m in layout.modules:
        flags[m.name] = 0
        for feature in m.future:
            flags[m.name] |= getattr(__future__, feature).compiler_flag
    codes = []
    for run in layout.runs:
        source = "\n" * (run.first - 1) + "\n".join(lines[run.first - 1 : run.last]) + "\n"
        codes.append(compile(source, str(path), "exec", flags=flags[run.module], dont_inherit=True))
    prefix = root.__name__
    modules: dict[str, types.ModuleType] = {}
    for m in layout.modules:
        key = f"{prefix}.{m.name}"
        module = types.ModuleType(key)
        module.__name__ = ModuleName(m.name, key)
        live = live_file(m.name)
        module.__file__ = live or str(path)
        spec = bundled_spec(module.__name__, live, m.package)
        if spec is not None:  # data files read next to the live file (``chunk_resources``)
            module.__spec__ = spec
            module.__loader__ = spec.loader
        package = m.name if m.package else m.name.rpartition(".")[0]
        module.__package__ = PrivateName(key if m.package else key.rpartition(".")[0], package)
        if m.package:
            module.__path__ = []  # nothing below it is found on disk
        modules[m.name] = module
    if layout.files:
        _check_files(layout, modules, path)
    for name, module in modules.items():
        parent, _, attr = name.rpartition(".")
        setattr(modules[parent] if parent else root, attr, module)
        sys.modules[module.__name__.key] = module  # type: ignore[attr-defined]
        registered.append(module.__name__.key)  # type: ignore[attr-defined]
    lazy = set(layout.lazy)
    last = {run.module: i for i, run in enumerate(layout.runs)}
    deferred: dict[str, list[types.CodeType]] = {name: [] for name in lazy}
    for run, code in zip(layout.runs, codes):
        if run.module in lazy:
            deferred[run.module].append(code)
    # before any run: a module that runs at load may use a lazy one at its own top level
    # (``from .r import X`` in a module a lazy ``import shop.plugs`` reached), which must run it
    for name in sorted(lazy):
        _defer(name, modules, deferred[name], root)
    for i, (run, code) in enumerate(zip(layout.runs, codes)):
        if run.module in lazy:
            continue
        exec(code, modules[run.module].__dict__)
        if last[run.module] == i:
            _loaded(run.module, modules, root)
            adopt_definitions(modules[run.module].__dict__, modules[run.module].__name__)  # type: ignore[arg-type]
    return modules


def _check_files(layout: ChunkLayout, modules: dict[str, types.ModuleType], path: Path) -> None:
    """Refuse the chunk unless every project file its code runs by path (``ChunkLayout.files``:
    ``exec(open(os.path.join(os.path.dirname(__file__), 'plug.txt')).read())``) holds the bytes
    the version was built from. That code is not bundled: it runs from the file next to the live
    module (``__file__``), so a file edited since would run other code than the execution started
    on, silently. The project root is where the live modules are: a module's live file minus its
    path in the project (``ChunkModule.path``)."""
    base: str | None = None
    for m in layout.modules:
        file = modules[m.name].__file__
        if m.path and m.path != "-" and file and file != str(path):
            live = Path(file).as_posix()
            if live.endswith("/" + m.path):
                base = live[: len(live) - len(m.path)]
                break
    for rel, digest in layout.files:
        now = "unknown"
        if base is not None:
            try:
                data = read_project_file(base, rel)  # a file or what a glob matches, as the build read it
                now = "absent" if data is None else "sha256:" + hashlib.sha256(data).hexdigest()
            except OSError as exc:
                now = f"unreadable ({exc.strerror or exc})"
        if now != digest:
            where = "no live module of it could be found" if base is None else f"it is {'gone' if now == 'absent' else 'changed'}"
            raise ManifestError(
                f"{path}: this chunk runs code that its modules load by path from `{rel}`, and {where} since this "
                "version was built: it would run other code than its executions started on. Restore that file as "
                "it was for as long as executions of this version run, or finish or migrate them",
                path=str(path))


def _loaded(name: str, modules: dict[str, types.ModuleType], root: types.ModuleType) -> None:
    """Bind ``name`` in its package once it has run, as Python does when a module finishes loading:
    to what ``sys.modules`` holds under its key then, over whatever the package bound meanwhile. A
    module may have replaced itself there (``sys.modules[__name__] = _Instance()``, the lazy-module
    and config-object idiom): importers of it get the replacement live (E3), so the package's
    attribute (``from . import m``) is the replacement too. A module that took its own entry out is
    bound as itself (live, the import then raises ``KeyError``; a chunk is not the place to
    reproduce that)."""
    module = modules[name]
    final = sys.modules.get(module.__name__.key, module)  # type: ignore[attr-defined]
    parent, _, attr = name.rpartition(".")
    setattr(modules[parent] if parent else root, attr, final)


#: one lock for every deferred module: a first use may come from any thread, as an import may
_LAZY_LOCK = threading.RLock()


def _defer(name: str, modules: dict[str, types.ModuleType], codes: list[types.CodeType],
           root: types.ModuleType) -> None:
    """Make ``modules[name]`` run ``codes`` at its first use: a module-level ``__getattr__``
    (PEP 562), which every lookup of a name it lacks goes through (``from .m import x``,
    ``m.x``), runs its lazy parent packages, then its runs, then answers the lookup (through the
    module's own ``__getattr__`` if its code defines one). A run that raises leaves the hook in
    place, so the next use runs it again, as the next import of a module that failed does. A module
    that replaced itself in ``sys.modules`` is bound in its package as the replacement (``_loaded``),
    and the module object a caller already holds (``from .m import answer`` asked it) answers from
    the replacement from then on, as live that caller would have held the replacement."""
    module = modules[name]
    state: dict[str, Any] = {"done": False, "replaced": None}

    def run() -> None:
        with _LAZY_LOCK:
            if state["done"]:
                return
            parent = name.rpartition(".")[0]
            while parent:
                hook = modules[parent].__dict__.get("__getattr__")
                if getattr(hook, "__loom_deferred__", False):
                    hook.__loom_run__()  # type: ignore[attr-defined]
                parent = parent.rpartition(".")[0]
            state["done"] = True
            if module.__dict__.get("__getattr__") is __getattr__:
                del module.__dict__["__getattr__"]
            try:
                for code in codes:
                    exec(code, module.__dict__)
                adopt_definitions(module.__dict__, module.__name__)  # type: ignore[arg-type]
                _loaded(name, modules, root)
                final = sys.modules.get(module.__name__.key, module)  # type: ignore[attr-defined]
                if final is not module:
                    state["replaced"] = final
                    module.__dict__.setdefault("__getattr__", __getattr__)
            except BaseException:
                state["done"] = False
                module.__dict__.setdefault("__getattr__", __getattr__)
                raise

    def __getattr__(attr: str) -> Any:
        if attr.startswith("__") and attr.endswith("__") and attr not in ("__all__", "__version__"):
            raise AttributeError(attr)  # the import system's probes (``__path__``, ``__spec__``) run nothing
        run()
        try:
            return module.__dict__[attr]
        except KeyError:
            pass
        if state["replaced"] is not None:
            return getattr(state["replaced"], attr)
        own = module.__dict__.get("__getattr__")
        if own is not None and own is not __getattr__:
            return own(attr)
        raise AttributeError(f"module {str.__str__(module.__name__)!r} has no attribute {attr!r}")

    __getattr__.__loom_deferred__ = True  # type: ignore[attr-defined]
    __getattr__.__loom_run__ = run  # type: ignore[attr-defined]
    module.__dict__["__getattr__"] = __getattr__

