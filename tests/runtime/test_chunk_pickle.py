"""Pickle and a chunk's definitions (``loom_runtime.chunk_names``, ``chunk_finder``): a value a
chunk's code pickled unpickles into that chunk's classes (DBOS pickles step outputs and workflow
inputs), in the same process and in a new one; two versions in one process never decode into
each other's classes; live code's pickles stay live; the live package is never imported."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "registry"))
from registry_kit import Spec, code, forget_chunk_modules, write_bundle  # noqa: E402,F401 (autouse fixture)

from loom_runtime import Registry, chunk_layout  # noqa: E402
from loom_runtime.chunk_layout import ChunkModule  # noqa: E402
from loom_runtime.run import qualname  # noqa: E402

SHOP = ChunkModule("loomtest_shop", True, (), "loomtest_shop/__init__.py")
M = ChunkModule("loomtest_shop.m", False, (), "loomtest_shop/m.py")
FLOWS = ChunkModule("loomtest_shop.flows", False, (), "loomtest_shop/flows.py")

M_TEXT = """import collections
import enum
import functools

V = {v}


class Order:
    v = V

    def total(self):
        return self.v

    class Line:
        pass


class Color(enum.Enum):
    RED = V


Point = collections.namedtuple("Point", "x y")
Shade = enum.Enum("Shade", ["DARK"])


def helper(x):
    return x * V


@functools.lru_cache(maxsize=None)
def cached(x):
    return x + V


def relative():
    import importlib
    return __package__, repr(__package__), importlib.import_module(".m", __package__).V
"""

FLOWS_TEXT = """from loom_runtime import flow
from . import m


@flow("checkout")
def run(ctx=None):
    return m
"""

#: the live package of the same name: importing it would fail the test loudly
LIVE_INIT = "raise RuntimeError('the live package must not be imported')\n"


def chunk(v: int) -> str:
    return chunk_layout.render([f"test chunk v{v}"], [SHOP, M, FLOWS],
                               [("loomtest_shop.m", M_TEXT.format(v=v)), ("loomtest_shop.flows", FLOWS_TEXT)])


@pytest.fixture
def bundle(tmp_path, monkeypatch) -> Path:
    live = tmp_path / "live" / "loomtest_shop"
    live.mkdir(parents=True)
    (live / "__init__.py").write_text(LIVE_INIT)
    (live / "m.py").write_text("class Order:\n    v = 'live'\n")
    monkeypatch.syspath_prepend(str(tmp_path / "live"))
    specs = [Spec("checkout", f"v{v}", chunk(v), entry="loomtest_shop.flows.run", source_path="loomtest_shop/flows.py")
             for v in (1, 2)]
    return write_bundle(tmp_path / "bundle", specs, {"checkout": "v2"})


def version_module(reg: Registry, label: str):
    return reg.resolve("checkout", code_hash=code(label)).runner()()


def test_what_a_chunk_pickles_unpickles_into_its_own_classes_in_every_protocol(bundle):
    reg = Registry.from_manifest(bundle)
    v1, v2 = version_module(reg, "v1"), version_module(reg, "v2")
    for m, v in ((v1, 1), (v2, 2)):
        for proto in range(pickle.HIGHEST_PROTOCOL + 1):
            def again(obj, proto=proto):
                return pickle.loads(pickle.dumps(obj, protocol=proto))

            order = again(m.Order())
            assert type(order) is m.Order and order.total() == v
            assert again(m.Color.RED) is m.Color.RED and again(m.Shade.DARK) is m.Shade.DARK
            assert again(m.helper) is m.helper and again(m.helper)(3) == 3 * v
            assert again(m.cached) is m.cached and again(m.Order.total) is m.Order.total
            assert type(again(m.Point(1, 2))) is m.Point and type(again(m.Order.Line())) is m.Order.Line
        assert type(copy.deepcopy(m.Order())) is m.Order
    # two versions in one process: each decodes into its own classes, never the other's
    assert v1.Order is not v2.Order and type(pickle.loads(pickle.dumps(v1.Order()))) is v1.Order
    assert pickle.loads(pickle.dumps([v1.Color.RED, v2.Color.RED])) == [v1.Color.RED, v2.Color.RED]
    assert "loomtest_shop" not in sys.modules and "loomtest_shop.m" not in sys.modules  # live never imported


def test_a_definitions_module_reads_as_the_original_where_code_formats_it(bundle):
    m = version_module(Registry.from_manifest(bundle), "v1")
    order = m.Order
    assert order.__module__ == "loomtest_shop.m" and str(order.__module__) == "loomtest_shop.m"
    assert f"{order.__module__}" == "loomtest_shop.m" and "%s" % order.__module__ == "loomtest_shop.m"  # noqa: UP031
    assert repr(order.__module__) == "'loomtest_shop.m'" and qualname(order) == "loomtest_shop.m.Order"
    assert m.__name__ == "loomtest_shop.m" and sys.modules[order.__module__] is m and sys.modules[m.__name__] is m
    # its text is the private module: repr() of the class shows it (pickle writes it)
    assert repr(order).startswith("<class '_loom_chunks.checkout_") and repr(order).endswith(".loomtest_shop.m.Order'>")
    # __package__ reads as the original, and resolves to the chunk's package (C19)
    package, shown, v = m.relative()
    assert package == "loomtest_shop" and shown == "'loomtest_shop'" and v == 1


def test_live_pickles_stay_live_and_the_live_code_is_untouched(bundle, tmp_path):
    (tmp_path / "live" / "loomtest_shop" / "__init__.py").write_text("")
    import loomtest_shop.m as live

    data = pickle.dumps(live.Order())
    m = version_module(Registry.from_manifest(bundle), "v1")
    # a value live code pickled is the live version's object, inside the chunk's process too
    value = pickle.loads(data)
    assert type(value) is live.Order and not isinstance(value, m.Order)
    assert live.Order.__module__ == "loomtest_shop.m" and type(live.Order.__module__) is str
    assert type(pickle.loads(pickle.dumps(m.Order()))) is m.Order and sys.modules["loomtest_shop.m"] is live


NEW_PROCESS = """
import pickle, sys
from loom_runtime import Registry
from loom_runtime.hashing import sha256_digest

sys.path.insert(0, sys.argv[3])  # the live package (its __init__ raises)
reg = Registry.from_manifest(sys.argv[1])
if sys.argv[2] == "write":
    m = reg.resolve("checkout", code_hash=sha256_digest(b"v1")).runner()()
    sys.stdout.buffer.write(pickle.dumps([m.Order(), m.Color.RED, m.helper]))
else:
    data = open(sys.argv[2], "rb").read()
    v2 = reg.current("checkout").runner()()  # another version loaded first: it must not catch v1's values
    order, color, helper = pickle.loads(data)  # v1's chunk is not loaded yet: the import of its name loads it
    v1 = reg.resolve("checkout", code_hash=sha256_digest(b"v1")).runner()()
    assert type(order) is v1.Order and order.total() == 1 and color is v1.Color.RED and helper is v1.helper
    assert v1.Order is not v2.Order and helper(5) == 5
    assert "loomtest_shop" not in sys.modules
    print("ok")
"""


def test_a_value_pickled_by_a_chunk_unpickles_into_that_version_in_a_new_process(bundle, tmp_path):
    live = str(tmp_path / "live")

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", textwrap.dedent(NEW_PROCESS), str(bundle), *args, live],
                              capture_output=True, timeout=120, check=False)

    written = run("write")
    assert written.returncode == 0, written.stderr.decode()
    (tmp_path / "value.pickle").write_bytes(written.stdout)
    read = run(str(tmp_path / "value.pickle"))
    assert read.returncode == 0 and read.stdout.decode().strip() == "ok", read.stderr.decode()


def test_a_chunk_no_registry_lists_is_not_found(bundle, tmp_path):
    """With a registry alive, a chunk name it does not list is no module: not served by the
    finder, and not found on disk either (a stray `_loom_chunks/` directory on sys.path, here the
    working directory of `python -c`, is never executed)."""
    m = version_module(Registry.from_manifest(bundle), "v1")
    listed = str.__str__(type(m.Order()).__module__).split(".")[1]  # the v1 chunk's own name (its raw text)
    unlisted = listed[:-8] + ("0" * 8 if not listed.endswith("0" * 8) else "1" * 8)  # same length
    data = pickle.dumps(m.Order()).replace(listed.encode(), unlisted.encode())
    stray = tmp_path / "cwd" / "_loom_chunks"
    stray.mkdir(parents=True)
    (stray / f"{unlisted}.py").write_text("print('EXECUTED FROM DISK')\n")
    (stray / "__init__.py").write_text("print('EXECUTED FROM DISK')\n")
    (tmp_path / "value.pickle").write_bytes(data)
    script = ("import pickle, sys\nfrom loom_runtime import Registry\nreg = Registry.from_manifest(sys.argv[1])\n"
              "pickle.loads(open(sys.argv[2], 'rb').read())\n")
    proc = subprocess.run([sys.executable, "-c", script, str(bundle), str(tmp_path / "value.pickle")],
                          cwd=stray.parent, capture_output=True, text=True, timeout=120, check=False)
    assert "EXECUTED" not in proc.stdout
    assert proc.returncode != 0 and f"ModuleNotFoundError: No module named '_loom_chunks.{unlisted}'" in proc.stderr
