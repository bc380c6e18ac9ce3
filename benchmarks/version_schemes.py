"""The code-version schemes compared by ``compare_fingerprints.py``, each computed as its tool does.

| scheme | what it hashes | how computed here |
|---|---|---|
| ``dbos`` | md5 of ``inspect.getsource`` of every workflow (+ DBOS version, app name) | **calls** ``dbos._dbos.DBOSRegistry.compute_app_version`` on a registry holding the flow |
| ``prefect`` | ``TASK_SOURCE``: hash of ``inspect.getsource`` of the task | **calls** ``prefect.cache_policies.TaskSource().compute_key`` on ``prefect.task(flow)`` |
| ``joblib`` | ``Memory``'s function code: the source block read at ``co_firstlineno`` | **calls** ``joblib.func_inspect.get_func_code`` and ``joblib.hash`` of its code text |
| ``temporal`` | default worker build id: md5 over the module-level ``co_code`` of every loaded module | **reimplements** ``temporalio.worker.load_default_build_id`` over the project's own modules, calling the real private ``_get_module_code`` per module |
| ``loom`` | ``loom-fp/1`` (ours): canonical libcst form of the flow's closure | **calls** ``loom_compiler.fingerprint_project`` on the side's project (CLI fallback) |

Temporal's real function walks all of ``sys.modules``. Every module but the pair's own is the same
object on both sides, so restricting the walk to the pair's modules gives the same equal/changed
verdict while keeping it independent of whatever the harness happened to import lazily in between
(and ~1,000 times faster). joblib decides reuse by string equality of that code text; hashing it
with ``joblib.hash`` gives the same verdict in a printable form.

Competitor libraries are imported lazily: a scheme whose library is missing reports
``unavailable()`` and the harness skips it (the unit test in ``tests/benchmarks`` relies on that).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

__all__ = ["Side", "Scheme", "SCHEMES", "imported_side", "scheme_by_name"]


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a pair, written to ``root`` and (for import-based schemes) imported."""

    root: Path
    files: dict[str, bytes]
    package: str
    flow_module: str
    flow_id: str | None  # None: the module's only flow
    modules: dict[str, ModuleType] = field(default_factory=dict)  # dotted name -> module
    flow: Callable[..., Any] | None = None


def _purge(package: str) -> None:
    for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        del sys.modules[name]


def _find_flow(module: ModuleType, flow_id: str | None) -> Callable[..., Any]:
    found = [
        value for value in vars(module).values()
        if getattr(value, "__loom_flow__", None) is not None
        and (flow_id is None or getattr(value.__loom_flow__, "id", None) == flow_id)
    ]
    if len(found) != 1:
        raise LookupError(f"module {module.__name__}: {len(found)} functions decorated with @flow"
                          f"{'' if flow_id is None else f'({flow_id!r})'}; expected exactly one")
    return found[0]


def _pick(flows: list, flow_id: str | None, key: Callable[[Any], str]) -> Any:
    chosen = [f for f in flows if flow_id is None or key(f) == flow_id]
    if len(chosen) != 1:
        raise RuntimeError(f"found {len(chosen)} flows{'' if flow_id is None else f' `{flow_id}`'}; expected exactly one")
    return chosen[0]


@contextmanager
def imported_side(side: Side) -> Iterator[Side]:
    """Import ``side``'s package from its own directory; the package leaves ``sys.modules`` after.

    Each side is a fresh directory (no shared path, ``linecache`` entry or ``__pycache__``) and the
    package is purged from ``sys.modules`` before and after, so nothing of one side is seen by the
    other. The package keeps its real name (``shop``): renaming it per side would change the
    import targets inside the sources, which are part of what every scheme is asked to judge.
    """
    _purge(side.package)
    old_dont_write = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    sys.path.insert(0, str(side.root))
    importlib.invalidate_caches()
    try:
        flow_mod = importlib.import_module(side.flow_module)
        modules = {
            name: mod
            for name, mod in sys.modules.items()
            if (name == side.package or name.startswith(side.package + ".")) and mod is not None
        }
        yield Side(side.root, side.files, side.package, side.flow_module, side.flow_id, modules,
                   _find_flow(flow_mod, side.flow_id))
    finally:
        sys.path.remove(str(side.root))
        sys.dont_write_bytecode = old_dont_write
        _purge(side.package)


class Scheme:
    name: str = ""
    tool: str = ""  # the tool and version string, filled when available
    method: str = ""  # "calls ..." or "reimplements ..."
    needs_import: bool = True

    def unavailable(self) -> str | None:
        """None when usable, else why not (missing library)."""
        return None

    def version(self, side: Side) -> str:
        raise NotImplementedError


def _dist_version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"{dist} {version(dist)}"
    except PackageNotFoundError:
        return dist


class DbosAppVersion(Scheme):
    name = "dbos"
    method = "calls dbos._dbos.DBOSRegistry.compute_app_version (private; md5 of inspect.getsource of the workflows)"

    def unavailable(self) -> str | None:
        try:
            from dbos._dbos import DBOSRegistry  # noqa: F401
        except ImportError as exc:
            return f"dbos not importable ({exc})"
        self.tool = _dist_version("dbos")
        return None

    def version(self, side: Side) -> str:
        from dbos._dbos import DBOSRegistry

        registry = DBOSRegistry()
        registry.workflow_info_map = {side.flow_id or "flow": side.flow}
        return registry.compute_app_version("pair-shop")


class PrefectTaskSource(Scheme):
    name = "prefect"
    method = "calls prefect.cache_policies.TaskSource().compute_key on prefect.task(flow)"

    def unavailable(self) -> str | None:
        try:
            import prefect.cache_policies  # noqa: F401
        except ImportError as exc:
            return f"prefect not importable ({exc})"
        self.tool = _dist_version("prefect")
        return None

    def version(self, side: Side) -> str:
        from prefect import task
        from prefect.cache_policies import TaskSource

        task_obj = task(side.flow)
        key = TaskSource().compute_key(SimpleNamespace(task=task_obj), inputs={}, flow_parameters={})
        if key is None:
            raise RuntimeError("prefect TaskSource returned no key")
        return key


class JoblibFuncCode(Scheme):
    name = "joblib"
    method = "calls joblib.func_inspect.get_func_code + joblib.hash (Memory compares that code text)"

    def unavailable(self) -> str | None:
        try:
            import joblib.func_inspect  # noqa: F401
        except ImportError as exc:
            return f"joblib not importable ({exc})"
        self.tool = _dist_version("joblib")
        return None

    def version(self, side: Side) -> str:
        import joblib
        from joblib.func_inspect import get_func_code

        code, _source_file, _first_line = get_func_code(side.flow)
        return joblib.hash(code)


class TemporalBuildId(Scheme):
    name = "temporal"
    method = ("reimplements temporalio.worker.load_default_build_id (md5 over module co_code, sorted by "
              "module name) over the pair's modules; calls its private _get_module_code")

    def unavailable(self) -> str | None:
        try:
            from temporalio.worker._worker import _get_module_code  # noqa: F401
        except ImportError as exc:
            return f"temporalio not importable ({exc})"
        self.tool = _dist_version("temporalio")
        return None

    def version(self, side: Side) -> str:
        from temporalio.worker._worker import _get_module_code

        digest = hashlib.md5(usedforsecurity=False)
        for name in sorted(side.modules):
            code = _get_module_code(name)
            if code:
                digest.update(code)
        return digest.hexdigest()


class LoomFingerprint(Scheme):
    """Ours: ``loom_compiler.fingerprint_project`` on the side's project, configured by its own
    ``pyproject.toml`` (``[tool.loom] packages = ["shop"]``), exactly as ``loom fingerprint`` runs it.
    Falls back to the CLI (``loom fingerprint . --json``) when the library call is not importable."""

    name = "loom"
    method = "calls loom_compiler.fingerprint_project (loom-fp/1) on the side's project"
    needs_import = False

    def unavailable(self) -> str | None:
        try:
            import loom_compiler  # noqa: F401
        except ImportError as exc:
            return f"loom_compiler not importable ({exc})"
        self.tool = _dist_version("loom-toolchain")
        return None

    def version(self, side: Side) -> str:
        try:
            from loom_compiler import DirectorySourceTree, fingerprint_project, load_config
        except ImportError:
            return self._via_cli(side)
        config = load_config(side.root)
        result = fingerprint_project(DirectorySourceTree(config.root, config), config)
        try:
            return _pick(list(result.flows), side.flow_id, lambda f: f.flow_id).code_hash
        except RuntimeError as exc:
            errors = "; ".join(str(e) for e in result.errors)
            raise RuntimeError(f"fingerprint_project: {exc} ({errors or 'no errors'})") from None

    def _via_cli(self, side: Side) -> str:
        proc = subprocess.run(
            [sys.executable, "-m", "loom_compiler", "fingerprint", ".", "--json"],
            cwd=side.root, capture_output=True, text=True, timeout=120,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        )
        try:
            report = json.loads(proc.stdout)
        except ValueError:
            raise RuntimeError(
                f"loom fingerprint exited {proc.returncode} without JSON: {(proc.stderr or proc.stdout).strip()[-400:]}"
            ) from None
        try:
            return _pick(report.get("flows", []), side.flow_id, lambda f: f.get("id"))["codeHash"]
        except RuntimeError as exc:
            errors = "; ".join(str(e) for e in report.get("errors", []))
            raise RuntimeError(f"loom fingerprint: {exc} ({errors or 'no errors'})") from None


SCHEMES: tuple[type[Scheme], ...] = (LoomFingerprint, DbosAppVersion, PrefectTaskSource, JoblibFuncCode, TemporalBuildId)


def scheme_by_name(name: str) -> Scheme:
    for cls in SCHEMES:
        if cls.name == name:
            return cls()
    raise KeyError(f"no scheme named {name!r}; known: {', '.join(c.name for c in SCHEMES)}")
