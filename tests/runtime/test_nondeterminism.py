"""A re-run that asks for a recorded id as another kind of work (a step where a decision was).

It used to raise ``NonDeterminismError`` and append nothing, so the execution stayed ``running``
and every ``recover()`` re-drove it, forever and invisibly. It now parks on the reserved gate
``__loom_diverged__`` like a divergence refusal, in every divergence mode, and ``retry_diverged``
re-runs it once the code is fixed.
"""

from __future__ import annotations

import pytest

from loom_runtime import RESERVED_GATE, NonDeterminismError, Runtime, flow


class Crash(BaseException):
    """The process dies mid-step (not an Exception: the runtime records nothing for it)."""


def original(ran, *, crash=False):
    @flow("ship", steps=["pick", "pack"])
    def ship(ctx, _):
        ctx.execute("pick", lambda: ran.append("pick") or "picked")
        route = ctx.decide("route", lambda: "air")
        if crash:
            ctx.execute("pack", _raise_crash)
        ctx.execute("pack", lambda: ran.append("pack") or route)
        return route

    return ship


def _raise_crash():
    raise Crash()


def edited(ran, *, swallow=False):
    """`route` became a step: the recorded decision is asked for as a step."""

    @flow("ship", steps=["pick", "pack"])
    def ship(ctx, _):
        ctx.execute("pick", lambda: ran.append("pick") or "picked")
        try:
            route = ctx.execute("route", lambda: ran.append("route") or "sea")
        except NonDeterminismError:
            if not swallow:
                raise
            route = "swallowed"
        ctx.execute("pack", lambda: ran.append("pack") or route)
        return route

    return ship


def crashed_running_execution(journal):
    """An execution left `running` by a crash after its decision was recorded."""
    ran: list[str] = []
    rt = Runtime(journal=journal)
    rt.register(original(ran, crash=True))
    with pytest.raises(Crash):
        rt.start("ship", execution_id="e1")
    assert rt.journal.summary("e1").status == "running"
    return [e.type for e in rt.get("e1").events]


@pytest.mark.parametrize("mode", ["off", "warn", "fail"])
def test_recover_parks_a_changed_kind_of_work_once_instead_of_redriving_it_forever(journal, mode):
    before = crashed_running_execution(journal)
    ran, warnings = [], []
    rt = Runtime(journal=journal, divergence=mode, on_warn=warnings.append)
    rt.register(edited(ran))

    [h] = rt.recover()
    assert isinstance(h.exception, NonDeterminismError)
    assert (h.status, h.gate) == ("suspended", RESERVED_GATE)
    err = h.exception
    assert (err.ident, err.recorded, err.asked, err.parked) == ("route", "decision", "step", True)
    assert ran == []  # no effect ran: the changed id is refused before its step would start
    view = rt.get("e1")
    assert [e.type for e in view.events] == before + ["EXECUTION_SUSPENDED"]  # the park and nothing else
    assert view.parked_on_divergence
    assert view.correlation_key == "kind changed: `route` recorded as a decision, asked for as a step"
    assert len(warnings) == 1 and "retry_diverged" in warnings[0] and rt.divergence_refusals == 1

    for _ in range(3):  # the loop this fixes: later passes leave it alone and read nothing new
        assert rt.recover() == []
    assert len(rt.get("e1").events) == len(before) + 1 and len(warnings) == 1


def test_a_resume_into_a_changed_kind_raises_the_typed_error_and_retry_runs_the_fixed_code(journal):
    ran: list[str] = []
    old = Runtime(journal=journal)

    @flow("ship", steps=["pick", "pack"])
    def gated(ctx, _):
        ctx.execute("pick", lambda: ran.append("pick") or "picked")
        route = ctx.decide("route", lambda: "air")
        ctx.suspend("approval")
        return ctx.execute("pack", lambda: ran.append("pack") or route)

    old.register(gated)
    assert old.start("ship", execution_id="e1").status == "suspended"

    rt = Runtime(journal=journal, divergence="warn", on_warn=lambda _: None)

    @flow("ship", steps=["pick", "pack"])
    def changed(ctx, _):
        ctx.execute("pick", lambda: ran.append("pick-again"))
        ctx.execute("route", lambda: ran.append("route") or "sea")
        ctx.suspend("approval")
        return ctx.execute("pack", lambda: ran.append("pack") or "sea")

    rt.register(changed)
    with pytest.raises(NonDeterminismError, match=r"`route` recorded as a decision, asked for as a step.*PARKED on `__loom_diverged__`.*retry_diverged"):
        rt.resume("e1", {"ok": True}, gate="approval")
    assert ran == ["pick"]
    assert rt.get("e1").gate == RESERVED_GATE

    fixed = Runtime(journal=journal)
    fixed.register(gated)
    h = fixed.retry_diverged("e1")
    assert (h.status, h.result) == ("completed", "air")  # the approval answered before the refusal is kept
    assert ran == ["pick", "pack"]


def test_a_body_that_swallows_the_error_appends_nothing_more(journal):
    before = crashed_running_execution(journal)
    ran: list[str] = []
    rt = Runtime(journal=journal, on_warn=lambda _: None)
    rt.register(edited(ran, swallow=True))
    [h] = rt.recover()
    assert isinstance(h.exception, NonDeterminismError) and h.gate == RESERVED_GATE
    assert ran == []  # `pack` after the swallowed error did not run
    assert [e.type for e in rt.get("e1").events] == before + ["EXECUTION_SUSPENDED"]


def test_a_swallowed_refusal_stops_a_later_decider_from_running(journal):
    crashed_running_execution(journal)
    ran: list[str] = []

    @flow("ship", steps=["pick", "pack"])
    def ship(ctx, _):
        ctx.execute("pick", lambda: "picked")
        try:
            ctx.execute("route", lambda: "sea")
        except NonDeterminismError:
            pass
        return ctx.decide("ask-model", lambda: ran.append("model call") or "answer")

    rt = Runtime(journal=journal, on_warn=lambda _: None)
    rt.register(ship)
    [h] = rt.recover()
    assert isinstance(h.exception, NonDeterminismError) and h.gate == RESERVED_GATE
    assert ran == []  # the decider (a model call) never ran after the refusal
