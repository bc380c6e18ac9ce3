"""End to end with the durable runtime: an execution started on one release finishes on its own
chunk after a deploy, across 'processes' (fresh registries and runtimes over one SQLite journal)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "registry"))
from registry_kit import Spec, code, write_bundle, forget_chunk_modules  # noqa: E402,F401 (autouse fixture)

from loom_runtime import FlowCodeMismatchError, Registry, Runtime, SqliteJournal  # noqa: E402



def release(label: str, log: Path, *, compatible_with: tuple[str, ...] = ()) -> str:
    """The chunk of one release of `checkout`: its helper decides the price, a step logs who ran."""
    return textwrap.dedent(
        f"""\
        from loom_runtime import flow


        def price(order):
            return {{"v1": 10, "v2": 12}}[{label!r}] * order["qty"]


        def log_effect(what):
            with open({str(log)!r}, "a") as fh:
                fh.write(f"{label}:{{what}}\\n")
            return what


        @flow("checkout", steps=["reserve", "charge"], compatible_with={list(compatible_with)!r})
        def checkout(ctx, order):
            ctx.execute("reserve", log_effect, "reserve")
            approval = ctx.suspend("manager")
            ctx.execute("charge", log_effect, "charge")
            return {{"release": {label!r}, "total": price(order), "approval": approval}}
        """
    )


def spec(label: str, log: Path, **kw) -> Spec:
    return Spec("checkout", label, release(label, log, **kw), steps=("reserve", "charge"), entry="checkout",
                compatible_with=kw.get("compatible_with", ()))


def test_an_execution_finishes_on_the_release_it_started_on(tmp_path):
    log = tmp_path / "effects.log"
    journal_path = tmp_path / "journal.sqlite3"
    (tmp_path / "r1").mkdir()
    (tmp_path / "r2").mkdir()
    (tmp_path / "r3").mkdir()
    r1 = write_bundle(tmp_path / "r1", [spec("v1", log)], current={"checkout": "v1"})
    # Release 2 is cumulative: it ships v1's chunk next to the new current v2.
    r2 = write_bundle(tmp_path / "r2", [spec("v1", log), spec("v2", log)], current={"checkout": "v2"})
    # Release 3 dropped v1 and does not vouch for it.
    r3 = write_bundle(tmp_path / "r3", [spec("v2", log)], current={"checkout": "v2"})

    with Runtime(journal=SqliteJournal(journal_path), registry=Registry.from_manifest(r1)) as rt:
        assert rt.start("checkout", {"qty": 2}, execution_id="old").status == "suspended"
        assert rt.start("checkout", {"qty": 1}, execution_id="stranded").status == "suspended"
        assert rt.get("old").code_hash == code("v1")

    with Runtime(journal=SqliteJournal(journal_path), registry=Registry.from_manifest(r2)) as rt:
        done = rt.resume("old", "ok")
        assert done.status == "completed"
        assert done.result == {"release": "v1", "total": 20, "approval": "ok"}  # v1's helper, pinned
        fresh = rt.start("checkout", {"qty": 2}, execution_id="new")
        assert rt.get("new").code_hash == code("v2")
        assert rt.resume("new", "ok").result == {"release": "v2", "total": 24, "approval": "ok"}
        assert fresh.status == "suspended"

    assert log.read_text().splitlines() == ["v1:reserve", "v1:reserve", "v1:charge", "v2:reserve", "v2:charge"]

    with Runtime(journal=SqliteJournal(journal_path), registry=Registry.from_manifest(r3)) as rt:
        with pytest.raises(FlowCodeMismatchError, match=r"execution `stranded` of flow `checkout` started on codeHash") as info:
            rt.resume("stranded", "ok")
        assert info.value.kind == "code" and info.value.recorded == code("v1")
        assert rt.get("stranded").status == "suspended"  # refused before anything was appended


def test_compatible_with_lets_the_current_release_finish_an_old_execution(tmp_path):
    log = tmp_path / "effects.log"
    journal_path = tmp_path / "journal.sqlite3"
    (tmp_path / "r1").mkdir()
    (tmp_path / "r2").mkdir()
    r1 = write_bundle(tmp_path / "r1", [spec("v1", log)], current={"checkout": "v1"})
    r2 = write_bundle(tmp_path / "r2", [spec("v2", log, compatible_with=(code("v1"),))], current={"checkout": "v2"})
    with Runtime(journal=SqliteJournal(journal_path), registry=Registry.from_manifest(r1)) as rt:
        rt.start("checkout", {"qty": 1}, execution_id="e")
    with Runtime(journal=SqliteJournal(journal_path), registry=Registry.from_manifest(r2)) as rt:
        assert rt.resume("e", "ok").result == {"release": "v2", "total": 12, "approval": "ok"}


def _pinned_and_parked(tmp_path: Path, log: Path) -> tuple[Path, Path]:
    """An execution started on release 1 (v1), parked on `manager`; release 2 ships v1 beside v2."""
    journal_path = tmp_path / "journal.sqlite3"
    (tmp_path / "r1").mkdir()
    (tmp_path / "r2").mkdir()
    r1 = write_bundle(tmp_path / "r1", [spec("v1", log)], current={"checkout": "v1"})
    r2 = write_bundle(tmp_path / "r2", [spec("v1", log), spec("v2", log)], current={"checkout": "v2"})
    with Runtime(journal=SqliteJournal(journal_path), registry=Registry.from_manifest(r1)) as rt:
        assert rt.start("checkout", {"qty": 1}, execution_id="o1").status == "suspended"
    return r2, journal_path


@pytest.mark.parametrize("damage", ["tampered", "missing"])
@pytest.mark.parametrize("form", ["sync", "async"])
def test_a_refused_resume_appends_nothing_and_can_be_retried(tmp_path, damage: str, form: str):
    """The chunk is checked before EXECUTION_RESUMED is appended: a refused answer left the
    execution running, so the retry after restoring the chunk said it was not suspended."""
    import asyncio

    from loom_runtime import ChunkIntegrityError, ManifestError

    log = tmp_path / "effects.log"
    r2, journal_path = _pinned_and_parked(tmp_path, log)
    chunk = next((r2.parent / "chunks" / "checkout").glob(f"{code('v1').partition(':')[2][:16]}.py"))
    original = chunk.read_bytes()
    if damage == "tampered":
        chunk.write_bytes(original.replace(b"10,", b"1,"))
    else:
        chunk.unlink()

    def resume(rt: Runtime):
        if form == "sync":
            return rt.resume("o1", {"ok": True}, gate="manager")
        return asyncio.run(rt.resume_async("o1", {"ok": True}, gate="manager"))

    with Runtime(journal=SqliteJournal(journal_path), registry=Registry.from_manifest(r2)) as rt:
        before = rt.journal.read("o1")
        with pytest.raises((ChunkIntegrityError, ManifestError)):
            resume(rt)
        assert rt.journal.read("o1") == before  # nothing appended: still parked on `manager`
        assert rt.get("o1").status == "suspended"
    chunk.write_bytes(original)
    forget = [m for m in sys.modules if m.startswith("_loom_chunks.")]
    for m in forget:
        sys.modules.pop(m, None)
    with Runtime(journal=SqliteJournal(journal_path), registry=Registry.from_manifest(r2)) as rt:
        done = resume(rt)
    assert done.status == "completed" and done.result["release"] == "v1"
    assert log.read_text().splitlines() == ["v1:reserve", "v1:charge"]  # each effect once
