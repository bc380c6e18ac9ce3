"""Real wheels and sdists of examples/shop: built by pip, installed into a fresh venv, run there.

The hatch test is the whole deploy story on installed wheels: wheel 1 starts an order that parks;
wheel 2 (built after a helper edit) replaces it in the same venv and still carries wheel 1's chunk,
so the order finishes on v1's pricing while a new one runs on v2's. The sdist tests do what
``python -m build`` does (the sdist first, then the wheel from the unpacked sdist: no git, no build
directory of the developer), with hatchling and with setuptools, and the wheel keeps every version.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import pytest

from packaging_helpers import build_wheel, copy_example, pep517, run, unpack_sdist, wheel_json, wheel_names

pytestmark = pytest.mark.slow

BIG_ORDER = {"id": "o-1", "sku": "desk", "member": True, "items": [{"sku": "desk", "price": 650.0}]}

# Runs inside the venv: the installed shop package, its packaged bundle, a SQLite journal.
DRIVE = """
import json, sys
import shop
from loom_runtime import Registry, Runtime
reg = Registry.from_package("shop")
reg.verify(chunks=True)
rt = Runtime(journal=sys.argv[1], registry=reg)
command, arg = sys.argv[2], json.loads(sys.argv[3])
h = rt.start("checkout", arg["order"], execution_id=arg["id"]) if command == "start" else rt.resume(arg["id"], arg["payload"])
view = rt.get(h.execution_id)
print(json.dumps({"status": h.status, "result": h.result, "code_hash": view.code_hash, "shop_file": shop.__file__,
                  "versions": [v.code_hash for v in reg.versions("checkout")],
                  "origin": reg.resolve("checkout", code_hash=view.code_hash).origin}))
"""


def drive(venv, cwd: Path, journal: Path, command: str, arg: dict) -> dict:
    proc = run([str(venv.python), "-c", DRIVE, str(journal), command, json.dumps(arg)], cwd=cwd)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def loom_files(names: list[str]) -> list[str]:
    return sorted(n for n in names if "/_loom/" in n)


def test_hatch_wheels_carry_their_versions_and_an_upgrade_finishes_on_the_old_chunk(tmp_path, venv):
    project = copy_example("shop", tmp_path / "shop")
    wheel1 = build_wheel(project, tmp_path / "dist1")
    names1 = wheel_names(wheel1)
    manifest1 = wheel_json(wheel1, "shop/_loom/manifest.json")
    chunks1 = sorted(f"shop/_loom/{v['chunk']}" for f in manifest1["flows"].values() for v in f["versions"].values())
    # exactly the manifest and the chunks it names: no cache, no build directory, no stray files
    assert loom_files(names1) == sorted(["shop/_loom/manifest.json", *chunks1])
    assert {"shop/flows.py", "shop/pricing.py", "shop/steps.py", "shop/service.py"} <= set(names1)
    assert not [n for n in names1 if ".loom-cache" in n or n.startswith("build/")]
    v1_hash = manifest1["flows"]["checkout"]["current"]

    venv.install(wheel1)
    journal = tmp_path / "journal.db"
    elsewhere = tmp_path  # not a project copy: `import shop` can only find the installed package
    started = drive(venv, elsewhere, journal, "start", {"id": "o-1", "order": BIG_ORDER})
    assert started["status"] == "suspended" and started["code_hash"] == v1_hash
    assert started["shop_file"].startswith(str(venv.path)), started["shop_file"]

    pricing = project / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text().replace("DISCOUNT_RATE = 0.1\n", "DISCOUNT_RATE = 0.15\n"))
    wheel2 = build_wheel(project, tmp_path / "dist2")
    manifest2 = wheel_json(wheel2, "shop/_loom/manifest.json")
    checkout = manifest2["flows"]["checkout"]
    v2_hash = checkout["current"]
    assert v2_hash != v1_hash and set(checkout["versions"]) == {v1_hash, v2_hash}
    # refund does not reach DISCOUNT_RATE: one version, the same one. Only its source.closureSources
    # moves: it records the bytes of the pricing.py this build read (the runtime compares live files to it).
    refund1, refund2 = manifest1["flows"]["refund"], manifest2["flows"]["refund"]
    sources1, sources2 = (v["source"].pop("closureSources") for r in (refund1, refund2) for v in r["versions"].values())
    assert refund2 == refund1 and sources1.keys() == sources2.keys()
    assert sources1["shop.pricing"] != sources2["shop.pricing"] and sources1["shop.flows"] == sources2["shop.flows"]
    old_chunk = "shop/_loom/" + checkout["versions"][v1_hash]["chunk"]
    with zipfile.ZipFile(wheel1) as z1, zipfile.ZipFile(wheel2) as z2:
        assert z1.read(old_chunk) == z2.read(old_chunk)  # v1's chunk ships unchanged in wheel 2
        assert "sha256:" + hashlib.sha256(z2.read(old_chunk)).hexdigest() == checkout["versions"][v1_hash]["chunkDigest"]

    venv.install(wheel2)
    finished = drive(venv, elsewhere, journal, "resume", {"id": "o-1", "payload": {"approved": True}})
    assert finished["status"] == "completed" and finished["code_hash"] == v1_hash and finished["origin"] == "chunk"
    assert finished["result"]["total"] == 585.0  # v1's 10% member discount, as quoted when it started
    assert finished["versions"] == [v2_hash, v1_hash]
    fresh = drive(venv, elsewhere, journal, "start", {"id": "o-2", "order": BIG_ORDER})
    assert fresh["code_hash"] == v2_hash
    done = drive(venv, elsewhere, journal, "resume", {"id": "o-2", "payload": {"approved": True}})
    assert done["result"]["total"] == 552.5 and done["code_hash"] == v2_hash


def test_sdist_carries_what_a_rebuild_needs(tmp_path, venv):
    project = copy_example("shop", tmp_path / "shop")
    run([*_loom(), "build", "."], cwd=project)  # an earlier release's build: the cumulative manifest
    pricing = project / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text().replace("REVIEW_LIMIT = 500.0", "REVIEW_LIMIT = 400.0"))
    sdist = pep517(project, "hatchling.build", "build_sdist", tmp_path / "sdist")
    unpacked, members = unpack_sdist(sdist, tmp_path / "unpacked")
    local = json.loads((project / "build" / "loom" / "manifest.json").read_text())
    chunks = sorted(f"build/loom/{v['chunk']}" for f in local["flows"].values() for v in f["versions"].values())
    assert len(local["flows"]["checkout"]["versions"]) == 2
    assert set(chunks) | {"build/loom/manifest.json", "pyproject.toml", "shop/flows.py", "shop/pricing.py"} <= set(members)
    assert not [m for m in members if m.startswith(".loom-cache") or "/_loom/" in m]

    rebuilt = build_wheel(unpacked, tmp_path / "from-sdist")
    manifest = wheel_json(rebuilt, "shop/_loom/manifest.json")
    assert manifest == local  # every version the developer's builds held, current included
    venv.install(rebuilt)
    order = {"id": "o-9", "sku": "lamp", "items": [{"sku": "lamp", "price": 450.0}]}
    started = drive(venv, tmp_path, tmp_path / "j.db", "start", {"id": "o-9", "order": order})
    assert started["status"] == "suspended"  # 450 > the edited 400 limit: the current version runs


def setuptools_shop(dest: Path) -> Path:
    """examples/shop as a setuptools project (the loom hook comes from the installed entry point)."""
    project = copy_example("shop", dest)
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=64", "wheel", "loom-toolchain"]\n'
        'build-backend = "setuptools.build_meta"\n\n'
        '[project]\nname = "shop-setuptools"\nversion = "0.1.0"\nrequires-python = ">=3.10"\n\n'
        '[tool.setuptools]\npackages = ["shop"]\n\n'
        '[tool.loom]\npackages = ["shop"]\n',
        encoding="utf-8",
    )
    return project


def test_setuptools_wheel_ships_the_bundle_and_runs_installed(tmp_path, venv):
    project = setuptools_shop(tmp_path / "shop")
    wheel = build_wheel(project, tmp_path / "dist")
    names = wheel_names(wheel)
    manifest = wheel_json(wheel, "shop/_loom/manifest.json")
    chunks = sorted(f"shop/_loom/{v['chunk']}" for f in manifest["flows"].values() for v in f["versions"].values())
    assert loom_files(names) == sorted(["shop/_loom/manifest.json", *chunks])
    with zipfile.ZipFile(wheel) as zf:
        record = zf.read(next(n for n in names if n.endswith(".dist-info/RECORD"))).decode()
    assert all(f"{name}," in record for name in loom_files(names))  # listed by get_outputs -> RECORD
    assert manifest == json.loads((project / "build" / "loom" / "manifest.json").read_text())

    venv.install(wheel)
    small = {"id": "o-3", "sku": "mug", "items": [{"sku": "mug", "price": 12.0, "qty": 4}]}
    done = drive(venv, tmp_path, tmp_path / "j.db", "start", {"id": "o-3", "order": small})
    assert done["status"] == "completed" and done["origin"] == "chunk"
    assert done["result"]["tracking"] == "tracking:o-3:2"  # 4 mugs -> two parcels (pack#0, pack#1)


def test_setuptools_sdist_then_wheel_from_it_keeps_every_version(tmp_path, venv):
    # python -m build: build_sdist in the project, then build_wheel in the unpacked sdist
    project = setuptools_shop(tmp_path / "shop")
    run([*_loom(), "build", "."], cwd=project)  # the release in flight: v1 in the cumulative manifest
    pricing = project / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text().replace("DISCOUNT_RATE = 0.1\n", "DISCOUNT_RATE = 0.15\n"))
    v1_hash = json.loads((project / "build" / "loom" / "manifest.json").read_text())["flows"]["checkout"]["current"]

    sdist = pep517(project, "setuptools.build_meta", "build_sdist", tmp_path / "sdist")
    local = json.loads((project / "build" / "loom" / "manifest.json").read_text())  # the sdist built v2
    checkout = local["flows"]["checkout"]
    v2_hash = checkout["current"]
    assert v2_hash != v1_hash and set(checkout["versions"]) == {v1_hash, v2_hash}
    shipped = sorted(["build/loom/manifest.json", *(f"build/loom/{v['chunk']}" for f in local["flows"].values()
                                                    for v in f["versions"].values())])
    unpacked, members = unpack_sdist(sdist, tmp_path / "unpacked")
    # exactly the manifest and its chunks from the out directory; none of setuptools' build/lib copies
    assert [m for m in members if m.startswith("build/")] == shipped
    assert {"PKG-INFO", "pyproject.toml", "shop/flows.py", "shop/pricing.py"} <= set(members)
    assert not [m for m in members if ".loom-cache" in m or "/_loom/" in m]
    sources = (unpacked / "shop_setuptools.egg-info" / "SOURCES.txt").read_text().splitlines()
    assert set(shipped) <= set(sources)  # listed where a rebuilt sdist reads its file list

    wheel = pep517(unpacked, "setuptools.build_meta", "build_wheel", tmp_path / "wheel")
    manifest = wheel_json(wheel, "shop/_loom/manifest.json")
    assert manifest == local  # both versions, v2 current
    names = wheel_names(wheel)
    assert loom_files(names) == sorted(f"shop/_loom/{p.removeprefix('build/loom/')}" for p in shipped)
    with zipfile.ZipFile(wheel) as zf:
        for version in checkout["versions"].values():
            chunk = zf.read(f"shop/_loom/{version['chunk']}")
            assert "sha256:" + hashlib.sha256(chunk).hexdigest() == version["chunkDigest"]

    venv.install(wheel)
    started = drive(venv, tmp_path, tmp_path / "j.db", "start", {"id": "o-1", "order": BIG_ORDER})
    assert started["status"] == "suspended" and started["code_hash"] == v2_hash
    assert started["versions"] == [v2_hash, v1_hash]  # v1 still resolvable for executions pinned to it


def _python() -> str:
    import sys

    return sys.executable


def _loom() -> list[str]:
    return [_python(), "-m", "loom_compiler"]
