"""``json_values``: the limits on stored JSON, checked without recursion, and readable errors."""

from __future__ import annotations

import pytest

from loom_runtime import json_values as jv
from loom_runtime.journal.events import is_json_value


def deep(n: int) -> list:
    v: list = []
    for _ in range(n):
        v = [v]
    return v


@pytest.mark.parametrize("value, message", [
    (deep(100_000), r"result\[0\]\[0\]\[0\]\[0\]…\(\d+ more\)…\[0\]\[0\]\[0\]: nested deeper than 512 levels"),
    ({"a": [{"b": 10**5000}]}, r"result\['a'\]\[0\]\['b'\]: an integer with more than 4300 digits"),
    (-(10**4300), "an integer with more than 4300 digits"),
    ([float("nan")], r"result\[0\]: nan is not a JSON number"),
    ({1: "x"}, "object key 1 is not a string"),
    ([object()], "object is not a JSON value"),
], ids=["deep", "big-int", "big-negative", "nan", "int-key", "object"])
def test_values_past_a_limit_are_refused_naming_where(value, message):
    with pytest.raises(jv.JsonValueError, match=message):
        jv.check(value, where="result")
    assert not is_json_value(value)


def test_a_cycle_is_refused_and_a_shared_value_is_not_a_cycle():
    a: dict = {}
    a["me"] = a
    with pytest.raises(jv.JsonValueError, match=r"result\['x'\]\['me'\]: a cyclic value"):
        jv.check({"x": a}, where="result")
    shared = [1, 2]
    jv.check([shared, shared, {"s": shared}])


def test_the_limits_themselves_pass():
    jv.check(deep(jv.MAX_DEPTH - 1))
    jv.check(10**4300 - 1)
    assert jv.decode(jv.encode(deep(jv.MAX_DEPTH - 1))) == deep(jv.MAX_DEPTH - 1)


def test_a_value_larger_than_one_event_may_hold_is_refused():
    jv.encode("x" * 1000, max_bytes=1000 + 2)
    with pytest.raises(jv.JsonValueError, match=r"1,003 bytes of JSON, more than the 1,002"):
        jv.encode("x" * 1001, max_bytes=1002)


@pytest.mark.parametrize("text, message", [
    ("[" * 100_000 + "]" * 100_000, "nested too deeply to read"),
    ("[" + "9" * 5000 + "]", "integer of more than 4300 digits"),
    ('{"a": 1,\n oops}', "not valid UTF-8 JSON at line 2 column 2"),
    (b"\xff\xfe{}", "not valid UTF-8 JSON"),
], ids=["deep", "big-int", "syntax", "utf-16"])
def test_pathological_text_is_a_json_value_error(text, message):
    with pytest.raises(jv.JsonValueError, match=message):
        jv.decode(text, where="f.json")
