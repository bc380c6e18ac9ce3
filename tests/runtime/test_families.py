import re

from loom_runtime import FlowDefinition
from loom_runtime.families import orphaned_frames, step_family


def defn(steps=(), families=()):
    return FlowDefinition(id="agent", steps=tuple(steps), step_families=tuple(families))


def test_family_is_the_part_before_the_first_hash():
    assert step_family("pack#3") == "pack"
    assert step_family("agent#turn:2:tool:0") == "agent"
    assert step_family("plain") == "plain"
    assert step_family("a#b#c") == "a"


def test_declared_ids_and_declared_families_pass():
    frames = ["reserve", "pack#0", "pack#1", "charge"]
    assert orphaned_frames(frames, defn(["reserve", "pack", "charge"])) == ()


def test_agent_loop_tool_ids_pass_when_the_loop_is_declared():
    frames = ["agent#turn:0:tool:0", "agent#turn:0:tool:1", "agent#turn:1:tool:0"]
    assert orphaned_frames(frames, defn(["agent"])) == ()
    [orphan] = orphaned_frames(frames, defn(["planner"]))
    assert str(orphan) == "agent#* (3 frames)"


def test_step_families_strings_and_regexes():
    frames = ["pack#0", "tool-call-17", "tool-call-18", "retry-x"]
    target = defn(["reserve"], ["pack", re.compile(r"tool-call-\d+")])
    [orphan] = orphaned_frames(frames, target)
    assert (orphan.family, orphan.frame_ids, str(orphan)) == ("retry-x", ("retry-x",), "retry-x")
    # fullmatch: a regex does not admit ids it only partly covers
    assert [str(o) for o in orphaned_frames(["xtool-call-1y"], target)] == ["xtool-call-1y"]


def test_a_vanished_family_is_reported_once_with_a_count():
    frames = ["reserve", "pack#0", "pack#1", "ship", "label#0"]
    report = orphaned_frames(frames, defn(["reserve"]))
    assert [str(o) for o in report] == ["label#* (1 frame)", "pack#* (2 frames)", "ship"]
    assert [o.count for o in report] == [1, 2, 1]


def test_a_declared_step_does_not_admit_longer_names():
    assert [str(o) for o in orphaned_frames(["charger"], defn(["charge"]))] == ["charger"]


def test_duplicates_are_counted_once():
    [orphan] = orphaned_frames(["pack#0", "pack#0"], defn())
    assert orphan.count == 1
