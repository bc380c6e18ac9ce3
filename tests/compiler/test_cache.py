"""The summary cache: content-addressed keys, atomic entries, corrupt entries are misses."""

from __future__ import annotations

from loom_compiler.bundle.cache import SummaryCache, cache_key
from loom_compiler.model import SourceError


def key(**over):
    args = {"config_digest": "sha256:" + "1" * 64, "module": "shop.flows", "path": "shop/flows.py", "content_sha256": "ab" * 32}
    args.update(over)
    return cache_key(**args)


def test_key_changes_with_every_input_that_shapes_a_summary():
    base = key()
    assert key() == base
    assert len({base, key(config_digest="sha256:" + "2" * 64), key(module="shop.other"), key(path="src/shop/flows.py"),
                key(content_sha256="cd" * 32)}) == 5


def test_put_then_get_round_trips_and_counts(tmp_path):
    cache = SummaryCache(tmp_path / ".loom-cache")
    value = SourceError("shop/flows.py", 3, 4, "bad")
    assert cache.get(key()) is None
    cache.put(key(), value)
    assert cache.get(key()) == value  # before the background write landed, too
    cache.flush()
    assert SummaryCache(tmp_path / ".loom-cache").get(key()) == value
    assert (cache.hits, cache.misses) == (1, 1)
    assert not list((tmp_path / ".loom-cache").rglob("*.tmp"))


def test_a_corrupt_entry_is_a_miss_not_a_failure(tmp_path):
    cache = SummaryCache(tmp_path)
    cache.put(key(), "value")
    cache.flush()
    (entry,) = list(tmp_path.rglob("*.pickle"))
    entry.write_bytes(b"\x80\x05garbage")
    assert cache.get(key()) is None


def test_disabled_cache_stores_nothing(tmp_path):
    cache = SummaryCache(tmp_path / "c", enabled=False)
    cache.put(key(), "value")
    cache.flush()
    assert cache.get(key()) is None and not (tmp_path / "c").exists()
