"""``bundle.rehash``: when a version built now is provably an earlier scheme's version of the same code.

Pairs in both directions: each rule that links has a near miss that must not, because a wrong link
serves other code to an execution pinned to the old hash, while a missed link costs only one more
version (the old one stays, so nothing strands).
"""

from __future__ import annotations

import pytest

from loom_compiler.bundle.rehash import rehashed_from, same_code
from loom_runtime.manifest import FlowEntry, SourceRef, VersionEntry

FLOW_HASH = "sha256:" + "c" * 64
FLOWS = "sha256:" + "a" * 64
PRICING = "sha256:" + "b" * 64
RATES = "sha256:" + "d" * 64


def h(n: int) -> str:
    return "sha256:" + f"{n:x}" * 64


def version(code_hash: str, *, scheme: str = "loom-fp/1", sources: dict | None = None, flow_hash: str = FLOW_HASH,
            rehashed: tuple[str, ...] = ()) -> VersionEntry:
    return VersionEntry(
        code_hash=code_hash, flow_hash=flow_hash, legacy_flow_hash="fnv1a:00000000", version=1, steps=(),
        step_families=(), compatible_with=(), chunk="chunks/x/a.py", chunk_digest="sha256:" + "e" * 64, entry="run",
        source=SourceRef("shop/flows.py", 1, FLOWS, sources), closure={}, scheme=scheme, rehashed_from=rehashed,
    )


NOW = {"shop.flows": FLOWS, "shop.pricing": PRICING}


def test_identical_closure_sources_of_an_earlier_scheme_link():
    assert same_code(version(h(1), sources=dict(NOW)), scheme="loom-fp/2", flow_hash=FLOW_HASH, closure_sources=NOW)


@pytest.mark.parametrize(
    ("old", "why"),
    [
        (version(h(1), sources={"shop.flows": FLOWS, "shop.pricing": RATES}), "a module's bytes differ"),
        (version(h(1), sources={"shop.flows": FLOWS}), "the new closure reaches a module fp/1 did not record"),
        (version(h(1), sources=None), "a build before closureSources recorded nothing"),
        (version(h(1), sources=dict(NOW), flow_hash="sha256:" + "9" * 64), "the declared structure differs"),
        (version(h(1), sources=dict(NOW), scheme="loom-fp/2"), "the same scheme: two hashes mean two codes"),
        (version(h(1), sources=dict(NOW), scheme="loom-fp/3"), "a later scheme is never an earlier one"),
    ],
)
def test_near_misses_do_not_link(old: VersionEntry, why: str):
    assert not same_code(old, scheme="loom-fp/2", flow_hash=FLOW_HASH, closure_sources=NOW), why


def test_modules_only_the_old_closure_reached_do_not_prevent_the_link():
    # fp/1 over-reached (a name in a local annotation): fp/2 is sound, so what it does not reach
    # cannot change the flow. The converse (the new closure reaching more) is the near miss above.
    old = version(h(1), sources={**NOW, "shop.rates": RATES})
    assert same_code(old, scheme="loom-fp/2", flow_hash=FLOW_HASH, closure_sources=NOW)


def test_an_empty_new_record_proves_nothing():
    assert not same_code(version(h(1), sources={}), scheme="loom-fp/2", flow_hash=FLOW_HASH, closure_sources={})


def test_links_are_transitive_sticky_and_never_self():
    fp1 = version(h(1), sources=dict(NOW))
    fp2 = version(h(2), scheme="loom-fp/2", sources=dict(NOW), rehashed=(h(1),))
    other = version(h(3), sources={"shop.flows": FLOWS, "shop.pricing": RATES})
    entry = FlowEntry("checkout", h(2), {v.code_hash: v for v in (fp1, fp2, other)})
    # an fp/3 build of the same bytes: linked to fp/2 and, through it, to fp/1
    assert rehashed_from(entry, code_hash=h(4), scheme="loom-fp/3", flow_hash=FLOW_HASH, closure_sources=NOW) == (h(1), h(2))
    # a rebuild of fp/2 itself keeps what was recorded, even once gc dropped the fp/1 version
    gone = FlowEntry("checkout", h(2), {h(2): fp2})
    assert rehashed_from(gone, code_hash=h(2), scheme="loom-fp/2", flow_hash=FLOW_HASH, closure_sources=NOW,
                         already=fp2.rehashed_from) == (h(1),)
    assert rehashed_from(None, code_hash=h(5), scheme="loom-fp/2", flow_hash=FLOW_HASH, closure_sources=NOW) == ()
