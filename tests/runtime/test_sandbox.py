"""The replay sandbox: the runtime's drive loop over a recorded journal, stopped at the first live append."""

from __future__ import annotations

from loom_runtime import Registry, Runtime, flow
from loom_runtime.journal.events import Event
from loom_runtime.sandbox import Sandbox, resume_point

RAN: list[str] = []


def reserve(sku: str) -> str:
    RAN.append("reserve")
    return f"r:{sku}"


def charge() -> str:
    RAN.append("charge")
    return "c"


def decider() -> str:
    RAN.append("decider")
    return "yes"


@flow("f", steps=["reserve", "charge"])
def v1(ctx, _):
    ctx.execute("reserve", reserve, "a")
    ctx.suspend("approval")
    ctx.execute("charge", charge)
    return "done"


@flow("f", steps=["charge"])
def dropped(ctx, _):
    ctx.suspend("approval")
    ctx.execute("charge", charge)
    return "done"


@flow("f", steps=["reserve", "charge"])
def decides_first(ctx, _):
    ctx.decide("new", decider)
    ctx.execute("reserve", reserve, "a")
    ctx.suspend("approval")
    return "done"


@flow("f", steps=["reserve", "charge"])
def reserve_is_a_decision(ctx, _):
    ctx.decide("reserve", decider)
    return "done"


def version(fn):
    return Registry().register(fn)


def recorded(*, resumed: bool = False) -> tuple[Event, ...]:
    rt = Runtime()
    rt.register(v1)
    rt.start("f", execution_id="e")
    if resumed:  # answered and run on: parked nowhere, completed
        rt.resume("e", "ok", gate="approval")
    events = rt.get("e").events
    RAN.clear()
    return events


def test_an_unchanged_body_reaches_its_recorded_park():
    events = recorded()
    r = Sandbox(version(v1)).replay("e", events)
    assert (r.kind, r.message, r.ok) == ("reached", "it would park on `approval`", True)
    assert RAN == []


def test_an_open_journal_replays_to_its_frontier():
    events = recorded(resumed=True)[:-3]  # after the answer: charge not started yet
    state, withheld = resume_point("e", events)
    assert withheld is None and state.status == "running"
    r = Sandbox(version(v1)).replay("e", events)
    assert (r.kind, r.message) == ("frontier", "step `charge` would run live") and RAN == []


def test_a_dropped_step_diverges_naming_it():
    r = Sandbox(version(dropped)).replay("e", recorded())
    assert (r.kind, r.skipped, r.ok) == ("diverged", ("reserve",), False)


def test_a_new_decision_before_recorded_steps_stops_before_its_decider():
    events = recorded()
    r = Sandbox(version(decides_first)).replay("e", events)
    assert r.kind == "live-work" and "decision `new` would be recorded live" in r.message
    # open journal (the park withheld by hand): the same stop, with reserve not asked for yet
    r = Sandbox(version(decides_first)).replay("e", events[:-1])
    assert (r.kind, r.unasked) == ("live-work", ("reserve",))
    assert RAN == []


def test_a_recorded_step_asked_for_as_a_decision_is_nondeterministic():
    r = Sandbox(version(reserve_is_a_decision)).replay("e", recorded())
    assert r.kind == "nondeterministic" and RAN == []


def test_a_completed_journal_must_reproduce_its_result():
    events = recorded(resumed=True)
    assert Sandbox(version(v1)).replay("e", events).kind == "reached"

    @flow("f", steps=["reserve", "charge"])
    def other_result(ctx, _):
        ctx.execute("reserve", reserve, "a")
        ctx.suspend("approval")
        ctx.execute("charge", charge)
        return "other"

    r = Sandbox(version(other_result)).replay("e", events)
    assert r.kind == "mismatch" and 'completed with "done", this code with "other"' in r.message
    assert RAN == []


def test_one_sandbox_replays_many_journals():
    box = Sandbox(version(v1))
    a, b = recorded(), recorded(resumed=True)[:-3]
    assert [box.replay("e", a).kind, box.replay("e", b).kind, box.replay("e", a).kind] == ["reached", "frontier", "reached"]


def test_an_async_flow_stops_before_its_decider_too():
    from loom_runtime.journal.events import Event

    async def areserve(sku: str) -> str:
        RAN.append("reserve")
        return sku

    async def adecider() -> int:
        RAN.append("decider")
        return 1

    @flow("a", steps=["reserve"])
    async def body(ctx, _):
        await ctx.execute("reserve", areserve, "x")
        await ctx.suspend("go")
        return await ctx.decide("d", adecider)

    rt = Runtime()
    rt.register(body)
    rt.start("a", execution_id="e")
    events = rt.get("e").events
    RAN.clear()
    box = Sandbox(version(body))
    assert box.replay("e", events).kind == "reached"
    resumed = events + (Event(len(events) + 1, "EXECUTION_RESUMED", {"gate": "go", "payload": None}),)
    r = box.replay("e", resumed)
    assert (r.kind, r.message) == ("frontier", "decision `d` would be recorded live") and RAN == []


def test_a_gap_before_the_withheld_park_is_corrupt_not_new_work():
    events = recorded()  # start, reserve started, reserve completed, park
    gap = events[:2] + events[3:]  # the STEP_COMPLETED row deleted: the park follows event 2 as 4
    r = Sandbox(version(v1)).replay("e", gap)
    assert r.kind == "corrupt" and "events 3..3 are missing" in r.message and RAN == []


def _strict_park(steps):
    """A journal a strict runtime parked on `__loom_diverged__`: `wrap` (not in ``steps``) refused."""
    @flow("f", steps=steps, code_fingerprint="sha256:" + "1" * 64)
    def wraps(ctx, _):
        ctx.execute("reserve", reserve, "a")
        ctx.execute("wrap", reserve, "w")
        ctx.suspend("approval")
        return "done"

    rt = Runtime(strict=True, on_warn=lambda _m: None)
    rt.register(wraps)
    try:
        rt.start("f", execution_id="e")
    except Exception as exc:  # noqa: BLE001 - UndeclaredStepError in the strict case
        assert type(exc).__name__ == "UndeclaredStepError"
    events = rt.get("e").events
    RAN.clear()
    return events, wraps


def test_a_strict_park_on_an_undeclared_step_holds_the_replay_to_the_strict_rule():
    from loom_runtime.history import History, replay_history

    events, unfixed = _strict_park(["reserve"])
    assert events[-1].payload["condition"] == {"on": "__loom_diverged__", "correlationKey": "undeclared step: `wrap`"}
    r = Sandbox(version(unfixed)).replay("e", events)  # the same code: a strict runtime would park it again
    assert (r.kind, r.undeclared, r.ok) == ("undeclared", "wrap", False) and "step `wrap` is still not declared" in r.message
    _, fixed = _strict_park(["reserve", "wrap"])
    r = Sandbox(version(fixed)).replay("e", events)
    assert (r.kind, r.undeclared, r.message) == ("frontier", "wrap", "step `wrap` would run live")
    assert RAN == []
    # `loom replay` says both, and names the way on
    bad = replay_history(History("e", events), unfixed)
    assert bad.kind == "error" and "refusing undeclared step `wrap`" in bad.message
    good = replay_history(History("e", events), fixed)
    assert good.ok and 'resume_as(execution_id, "current")' in good.message


def test_a_lenient_runtimes_journal_is_not_held_to_the_strict_rule():
    events, unfixed = _strict_park(["reserve"])
    # without the strict park nothing says a strict runtime drives it: `wrap` is just new work
    r = Sandbox(version(unfixed)).replay("e", events[:-1])
    assert (r.kind, r.undeclared, r.message) == ("frontier", None, "step `wrap` would run live") and RAN == []
