"""A first-party ``.py`` loaded by path is hashed by its bytes too (breaker7's F3, session 8).

It is reached whole as a module (its functions are closure members), and its bytes are a member
(``shop/plug.py#file``) because the chunk pins the file by digest and the loader refuses other
bytes: a hash that stayed over a comment edit would name a chunk that cannot load. So a comment
in such a file moves the flows that load it (a widening, documented in
docs/concepts/fingerprint.md), while the same comment in a module that is only imported does not.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.project_files import write_files

from loom_compiler import LoomConfig, fingerprint_project

LOADERS = {
    "runpy.run_path": 'NS.update(runpy.run_path(os.path.join(HERE, "plug.py")))',
    "exec(open().read())": 'exec(open(os.path.join(HERE, "plug.py")).read(), NS)',
    "spec_from_file_location": (
        '_spec = importlib.util.spec_from_file_location("plugmod", os.path.join(HERE, "plug.py"))\n'
        "_mod = importlib.util.module_from_spec(_spec)\n"
        "_spec.loader.exec_module(_mod)\n"
        'NS["helper"] = _mod.helper'),
    "a plain import (not by path)": 'from shop.plug import helper\nNS["helper"] = helper',
}

PLUG = "def helper():\n    return 1\n"


def _project(loader: str, plug: str) -> dict[str, str]:
    flows = ("import importlib.util\nimport os\nimport runpy\n\nfrom loom_runtime import Context, flow\n\n"
             "HERE = os.path.dirname(__file__)\nNS = {}\n" + loader + "\n\n\n"
             '@flow("checkout", version=1)\ndef checkout(ctx: Context, order):\n    return NS["helper"]()\n')
    return {"shop/__init__.py": "", "shop/flows.py": flows, "shop/plug.py": plug}


def _flow(root: Path, files: dict[str, str]):  # noqa: ANN202
    write_files(root, files)
    result = fingerprint_project([root], LoomConfig(root=root, packages=("shop",)))
    assert not result.errors, [str(e) for e in result.errors]
    (fp,) = result.flows
    return fp


@pytest.mark.parametrize("how", list(LOADERS))
def test_a_comment_in_a_module_loaded_by_path_moves_the_hash_only_when_loaded_by_path(tmp_path: Path, how: str) -> None:
    before = _flow(tmp_path / "a", _project(LOADERS[how], PLUG))
    after = _flow(tmp_path / "b", _project(LOADERS[how], "# only a comment\n" + PLUG))
    names = {m.qualname for m in before.closure}
    assert "shop.plug.helper" in names  # reached whole, as a module, however it is loaded
    by_path = how != "a plain import (not by path)"
    assert ("shop/plug.py#file" in names) is by_path
    assert (before.code_hash != after.code_hash) is by_path
    behaviour = _flow(tmp_path / "c", _project(LOADERS[how], PLUG.replace("1", "2")))
    assert behaviour.code_hash != before.code_hash  # a behavioural edit moves it either way
