"""``loom_runtime`` loads its names on first use (PEP 562): a process that imports one submodule
(every ``loom`` command imports ``loom_runtime.errors`` or ``.manifest``) does not pay for the
journals, the drive loops and asyncio; every public name still resolves to its defining object."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import loom_runtime


def _loaded_after(code: str) -> list[str]:
    probe = f"import json, sys\n{code}\nprint(json.dumps(sorted(m for m in sys.modules if m.startswith(('loom_runtime', 'asyncio')))))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_importing_the_package_or_one_submodule_loads_nothing_else() -> None:
    assert _loaded_after("import loom_runtime") == ["loom_runtime"]
    assert _loaded_after("from loom_runtime.errors import ConfigError") == ["loom_runtime", "loom_runtime.errors"]


def test_a_name_loads_its_own_module() -> None:
    loaded = _loaded_after("from loom_runtime import flow")
    assert "loom_runtime.definition" in loaded and "loom_runtime.runtime" not in loaded and "asyncio" not in loaded


def test_every_public_name_is_its_modules_object() -> None:
    for name in loom_runtime.__all__:
        value = getattr(loom_runtime, name)
        module = importlib.import_module(loom_runtime._EXPORTS[name], "loom_runtime")
        assert value is getattr(module, name), name
    namespace: dict[str, object] = {}
    exec("from loom_runtime import *", namespace)  # noqa: S102 - what a user's star import sees
    assert set(loom_runtime.__all__) <= set(namespace)


def test_submodules_stay_reachable_as_attributes_and_unknown_names_fail() -> None:
    assert loom_runtime.journal.SqliteJournal is loom_runtime.SqliteJournal
    try:
        loom_runtime.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("an unknown name resolved")
