"""A healthy worker's lease never lapses, and a worker that cannot renew starts no step body
(DESIGN §9: "a step body runs twice only after a crash, never because two healthy processes raced").

Two workers over one SQLite file / PostgreSQL schema, each with its own store. Worker ``a`` is
inside a step body; the test then makes what used to starve ``a``'s heartbeat happen on purpose:

* its store is held (the store's lock, which a driver holds through an append that waits for the
  database) for several lease lengths: the lease keeper renews on a connection of its own, so
  worker ``b``, looking for work all along, never finds the execution leasable and never runs the
  step (it did, deterministically, while the heartbeat shared the store with the appends);
* its renewals fail outright (a store it cannot write leases to): ``a`` finishes the step in hand
  (recorded), then refuses to start the next step's body once its lease may be about to go to
  another worker; the execution is left running and unleased, and ``b`` runs that step once.
"""

from __future__ import annotations

import threading
import time

import pytest

from loom_runtime import FencingError, Runtime, flow
from loom_runtime.errors import JournalError
from loom_runtime.journal import MemoryJournal, SqliteJournal
from loom_runtime.lease_keeper import ADMIT_ABOVE, RENEW_BELOW, LeaseKeeper, lock_wait

STORES = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=STORES)
def two_views(request, tmp_path):
    """``views(clock=None)``: two handles on one fresh storage (two workers' own connections)."""
    opened = []

    def views(clock=None):
        kwargs = {} if clock is None else {"clock": clock}
        if request.param == "postgres":
            schema = request.getfixturevalue("postgres_schema")
            return schema.open(clock=clock), schema.open(clock=clock)
        pair = (SqliteJournal(tmp_path / "j.sqlite3", **kwargs), SqliteJournal(tmp_path / "j.sqlite3", **kwargs))
        opened.extend(pair)
        return pair

    yield views
    for store in opened:
        store.close()


def _wait(cond, what, timeout=60.0):
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


class Driving:
    """``runtime.start(...)`` in a thread; ``result()`` is its handle or what it raised."""

    def __init__(self, runtime, *args, **kwargs):
        self.outcome = None
        self.thread = threading.Thread(target=self._run, args=(runtime, args, kwargs), daemon=True)
        self.thread.start()

    def _run(self, runtime, args, kwargs):
        try:
            self.outcome = runtime.start(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            self.outcome = exc

    def result(self, timeout=60.0):
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the drive did not end"
        return self.outcome


class Moved:
    """The stores' clock, moved by the test: what the store judges expired is the test's to say."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.slow
def test_a_healthy_workers_lease_does_not_lapse_while_its_store_is_held(two_views):
    ttl = 1.5
    clock = Moved()
    store_a, store_b = two_views(clock=clock)
    in_body, release, ran = threading.Event(), threading.Event(), []

    def long_step(who):
        ran.append(who)
        if len(ran) == 1:  # the first run blocks until the test lets it go; a second one would not
            in_body.set()
            release.wait(60)
        return "done"

    @flow("job")
    def job(ctx, _):
        return ctx.execute("long", long_step, ctx.execution_id)

    a = Runtime(journal=store_a, worker_id="a", lease_ttl=ttl)
    b = Runtime(journal=store_b, worker_id="b", lease_ttl=ttl)
    a.register(job)
    b.register(job)
    driving = Driving(a, "job", execution_id="e1")
    assert in_body.wait(60)
    took_over = []
    try:
        with store_a._lock:  # a driver stuck in an append holds this: the old heartbeat queued behind it
            # three ttls of the stores' time pass, half a ttl at a time, each once a renewal landed
            # since the last move: a keeper queued behind the lock never renews, and b takes over.
            # (On real clocks, a renewal delayed by load let the lease lapse whatever the design.)
            for _ in range(6):
                clock.now += ttl / 2
                deadline = time.monotonic() + 60
                while (store_b.next_lease_expiry(other_than="b") or 0.0) < ttl * 0.99 and not took_over:
                    took_over.extend(b.recover())  # another worker looking for work all along
                    if time.monotonic() > deadline:
                        break  # no renewal while the store was held: the check below says so
                    time.sleep(0.02)
                took_over.extend(b.recover())
    finally:
        release.set()
    assert took_over == [], "worker b took over the execution of a healthy worker a: its lease lapsed"
    h = driving.result()
    assert (h.status, h.result) == ("completed", "done")
    assert ran == ["e1"]  # the step body ran once
    assert a._leases.keeper.failures == 0


class Frozen:
    """A store clock that does not move: the store never judges a lease expired, so what stops the
    worker below is its own reckoning, never a fenced append."""

    def __call__(self) -> float:
        return 1000.0


class Unreachable:
    """A renewal store that refuses every renewal (the database cannot be written to)."""

    def renew_leases(self, leases, *, ttl):
        raise JournalError("renewals refused: the database is unreachable (test)")

    def close(self):
        pass


@pytest.mark.parametrize("kind", ["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_a_worker_that_cannot_renew_its_lease_starts_no_further_step_body(kind, tmp_path, request):
    ttl = 0.6
    clock = Frozen()
    if kind == "memory":
        store_a = store_b = MemoryJournal(clock=clock)
    elif kind == "sqlite":
        store_a, store_b = SqliteJournal(tmp_path / "j.sqlite3", clock=clock), SqliteJournal(tmp_path / "j.sqlite3", clock=clock)
    else:
        schema = request.getfixturevalue("postgres_schema")
        store_a, store_b = schema.open(clock=clock), schema.open(clock=clock)
    in_first, release, ran = threading.Event(), threading.Event(), []

    def first():
        ran.append("first")
        in_first.set()
        release.wait(60)
        return 1

    @flow("job")
    def job(ctx, _):
        ctx.execute("first", first)
        return ctx.execute("second", lambda: ran.append("second") or 2)

    a = Runtime(journal=store_a, clock=clock, worker_id="a", lease_ttl=ttl)
    a.register(job)
    driving = Driving(a, "job", execution_id="e1")
    assert in_first.wait(60)
    keeper = a._leases.keeper
    keeper._renewal_store = lambda: Unreachable()  # from now on no renewal gets through
    _wait(lambda: keeper.left("e1") < ttl * ADMIT_ABOVE, "a's lease to run short")
    release.set()
    outcome = driving.result()
    assert isinstance(outcome, FencingError), outcome
    assert "could not renew its lease in time" in str(outcome) and "step `second`" in str(outcome)
    assert "database is unreachable" in str(outcome)  # the renewal's own error is named
    assert ran == ["first"]  # `second` was refused before its body ran
    view = a.get("e1")
    assert view.status == "running" and view.frames["first"].status == "completed"
    assert keeper.failures >= 1 and not a._leases.holds("e1")

    b = Runtime(journal=store_b, clock=clock, worker_id="b", lease_ttl=30)  # no wait: a released its lease
    b.register(job)
    [h] = b.recover()
    assert (h.status, h.result) == ("completed", 2)
    assert ran == ["first", "second"]  # every body once
    for store in {id(store_a): store_a, id(store_b): store_b}.values():
        store.close()


def test_a_lease_another_worker_took_refuses_the_next_step_at_once():
    clock = Frozen()
    store = MemoryJournal(clock=clock)
    keeper = LeaseKeeper("a", 30, lambda: store)
    from loom_runtime.journal import NewEvent

    store.create("e1", NewEvent("EXECUTION_STARTED", {"flowId": "job", "input": None}))
    lease = store.acquire_lease("e1", "a", ttl=30)
    keeper.hold(lease, asked_at=time.monotonic())
    keeper.check("e1", "step `s`")  # plenty left: admitted without a renewal
    store.release_lease(lease)
    store.acquire_lease("e1", "b", ttl=30)  # another worker holds it now (in a real store, after expiry)
    keeper._renew([lease])
    assert keeper.left("e1") == float("-inf")
    with pytest.raises(FencingError, match="no longer holds its lease.*step `s` is not started"):
        keeper.check("e1", "step `s`")
    keeper.close()


class KeeperTime:
    """``time`` as the keeper module sees it, with a monotonic clock the test moves (the store's
    clock moves with it): when a renewal falls due is the keeper's to decide, not the scheduler's."""

    def __init__(self) -> None:
        self.t = 0.0

    def monotonic(self) -> float:
        return self.t

    def __getattr__(self, name):
        return getattr(time, name)


def test_the_keeper_renews_each_held_lease_well_before_it_expires_and_stops_when_none_is_held(monkeypatch):
    import loom_runtime.lease_keeper as lease_keeper
    from loom_runtime.journal import NewEvent

    fake = KeeperTime()
    monkeypatch.setattr(lease_keeper, "time", fake)
    store = MemoryJournal(clock=lambda: 1000.0 + fake.t)
    ttl = 0.9
    keeper = LeaseKeeper("a", ttl, lambda: store)
    renewed_at: list[float] = []  # the keeper's reckoning of the least left when it asked
    renew_leases = store.renew_leases

    def recording(leases, *, ttl):
        renewed_at.append(min(keeper.left(lease.execution_id) for lease in leases))
        return renew_leases(leases, ttl=ttl)

    store.renew_leases = recording
    for eid in ("e1", "e2"):
        store.create(eid, NewEvent("EXECUTION_STARTED", {"flowId": "job", "input": None}))
        keeper.hold(store.acquire_lease(eid, "a", ttl=ttl), asked_at=fake.t)

    def nudge() -> None:  # the keeper looks at the time now (it sleeps until its next due time)
        with keeper._cond:
            keeper._cond.notify_all()

    for _ in range(16):  # four ttls, a quarter of one at a time
        fake.t += ttl / 4
        nudge()
        # renewed as soon as less than RENEW_BELOW of the ttl is left: so after each quarter both
        # leases have at least that much again, and the store never judged one expired
        _wait(lambda: min(keeper.left("e1"), keeper.left("e2")) >= ttl * RENEW_BELOW - 1e-9, "a renewal")
        assert store.next_lease_expiry(other_than="b") > ttl * RENEW_BELOW / 2
    assert keeper.failures == 0
    assert len(renewed_at) >= 8  # one renewal each time less than two thirds was left ...
    assert all(0 < left < ttl * RENEW_BELOW for left in renewed_at)  # ... never earlier, never after expiry
    for eid in ("e1", "e2"):
        keeper.forget(eid)

    def lingered() -> bool:  # LINGER passes (again) after the keeper saw the table empty, whenever that was
        fake.t += lease_keeper.LINGER
        nudge()
        return keeper._thread is None

    _wait(lingered, "the keeper thread to end once nothing is held")
    assert lock_wait(30) == 2.0 and lock_wait(1) == pytest.approx(0.1) and lock_wait(0.1) == 0.05
    keeper.close()
