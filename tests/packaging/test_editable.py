"""A real PEP 660 editable install of examples/shop: the registry it opens follows `loom build`.

The wheel comes from hatchling's own ``build_editable`` (what ``pip install -e`` calls), with the
loom hook enabled; it is installed into a fresh venv and used from outside the project. After an
edit and a plain ``loom build`` (no reinstall), ``Registry.from_package`` in the installed
environment sees the new version beside the old one: the editable install never ships a stale copy.
"""

from __future__ import annotations

import sys

import pytest

from packaging_helpers import copy_example, run

pytestmark = pytest.mark.slow

INSPECT = """
import json, shop
from loom_runtime import Registry
reg = Registry.from_package("shop")
print(json.dumps({"shop_file": shop.__file__, "current": reg.current("checkout").code_hash,
                  "versions": sorted(v.code_hash for v in reg.versions("checkout"))}))
"""


def test_editable_install_reads_the_manifest_loom_build_keeps_current(tmp_path, venv):
    project = copy_example("shop", tmp_path / "shop")
    dist = tmp_path / "dist"
    run([sys.executable, "-c", "import sys, hatchling.build as b; b.build_editable(sys.argv[1])", str(dist)],
        cwd=project)
    (wheel,) = dist.glob("*.whl")
    venv.install(wheel)

    first = venv.run_json(INSPECT, cwd=tmp_path)
    assert first["shop_file"].startswith(str(project)), first  # the source tree, not a copy
    assert first["versions"] == [first["current"]]

    pricing = project / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text().replace("DISCOUNT_RATE = 0.1\n", "DISCOUNT_RATE = 0.15\n"))
    run([sys.executable, "-m", "loom_compiler", "build", "-q"], cwd=project)

    second = venv.run_json(INSPECT, cwd=tmp_path)
    assert second["current"] != first["current"]
    assert second["versions"] == sorted([first["current"], second["current"]])
