"""Store conformance: every JournalStore passes the same contract.

To add a store (e.g. PostgreSQL), add a factory to ``STORE_FACTORIES``: a callable taking pytest's
``tmp_path`` and ``request`` and returning a fresh, empty store (skip inside it when the server is
not configured). ``make_peer`` must return a *second* handle on the same storage (another process's
view) for the fencing race tests.
"""

from __future__ import annotations

import threading

import pytest

from loom_runtime.errors import ExecutionNotFoundError, FencingError, JournalError
from loom_runtime.journal import MemoryJournal, NewEvent, SqliteJournal


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _memory(tmp_path, request, clock):
    store = MemoryJournal(clock=clock)
    return store, lambda: store


def _sqlite(tmp_path, request, clock):
    path = tmp_path / "journal.sqlite3"
    store = SqliteJournal(path, clock=clock)
    peers = []

    def peer():
        p = SqliteJournal(path, clock=clock)
        peers.append(p)
        return p

    request.addfinalizer(lambda: [p.close() for p in peers])
    return store, peer


def _postgres(tmp_path, request, clock):
    # tests/conftest.py: a fresh schema per test; skips locally without LOOM_TEST_POSTGRES_DSN, fails under CI
    factory = request.getfixturevalue("postgres_journal_factory")
    return factory(clock=clock), lambda: factory(clock=clock)


STORE_FACTORIES = {"memory": _memory, "sqlite": _sqlite, "postgres": _postgres}


@pytest.fixture(params=[pytest.param(k, marks=pytest.mark.postgres) if k == "postgres" else k for k in sorted(STORE_FACTORIES)])
def env(request, tmp_path):
    clock = _Clock()
    store, make_peer = STORE_FACTORIES[request.param](tmp_path, request, clock)
    yield store, make_peer, clock
    store.close()


def started(flow_id="checkout", **extra):
    payload = {"flowId": flow_id, "flowHash": "sha256:" + "a" * 64, "codeHash": "sha256:" + "b" * 64, "input": {"n": 1}}
    payload.update(extra)
    return NewEvent("EXECUTION_STARTED", payload)


def step_started(step_id):
    return NewEvent("STEP_STARTED", {"stepId": step_id})


def step_completed(step_id, result=None):
    return NewEvent("STEP_COMPLETED", {"stepId": step_id, "result": result})


def test_create_writes_seq_1_and_a_running_summary(env):
    store, _, _ = env
    assert store.create("e1", started()) == 1
    s = store.summary("e1")
    assert (s.execution_id, s.flow_id, s.status, s.last_seq) == ("e1", "checkout", "running", 1)
    assert s.code_hash == "sha256:" + "b" * 64
    [ev] = store.read("e1")
    assert (ev.seq, ev.type, ev.payload["input"]) == (1, "EXECUTION_STARTED", {"n": 1})


def test_create_refuses_duplicates_and_non_start_events(env):
    store, _, _ = env
    store.create("e1", started())
    with pytest.raises(JournalError, match="`e1` already exists"):
        store.create("e1", started())
    with pytest.raises(JournalError, match="needs EXECUTION_STARTED"):
        store.create("e2", step_started("a"))


def test_append_numbers_a_batch_contiguously_and_read_after(env):
    store, _, _ = env
    store.create("e1", started())
    assert store.append("e1", [step_started("a"), step_completed("a", {"ok": True})], expected_seq=1) == 3
    assert store.append("e1", [step_started("b")], expected_seq=3) == 4
    assert [e.seq for e in store.read("e1")] == [1, 2, 3, 4]
    assert [(e.seq, e.type) for e in store.read("e1", after_seq=2)] == [(3, "STEP_COMPLETED"), (4, "STEP_STARTED")]
    assert store.read("e1", after_seq=2)[0].payload == {"stepId": "a", "result": {"ok": True}}


def test_stale_expected_seq_is_fenced_and_writes_nothing(env):
    store, _, _ = env
    store.create("e1", started())
    store.append("e1", [step_started("a")], expected_seq=1)
    with pytest.raises(FencingError, match=r"expected last seq 1, journal is at 2"):
        store.append("e1", [step_started("b")], expected_seq=1)
    assert [e.seq for e in store.read("e1")] == [1, 2]
    assert store.summary("e1").last_seq == 2


def test_a_batch_that_breaks_midway_is_not_half_written(env):
    store, _, _ = env
    store.create("e1", started())
    park = NewEvent("EXECUTION_SUSPENDED", {"condition": {"on": "approval"}})
    with pytest.raises(JournalError, match="parked on `approval`"):
        store.append("e1", [step_started("a"), park, step_started("b")], expected_seq=1)
    with pytest.raises(JournalError, match="not a JSON value"):
        store.append("e1", [step_started("a"), step_completed("a", {1, 2})], expected_seq=1)
    assert [e.seq for e in store.read("e1")] == [1]
    assert store.summary("e1").status == "running"


def test_unknown_execution(env):
    store, _, _ = env
    for call in (lambda: store.read("nope"), lambda: store.summary("nope"),
                 lambda: store.append("nope", [step_started("a")], expected_seq=1)):
        with pytest.raises(ExecutionNotFoundError, match="execution `nope` is not in the journal"):
            call()


def test_status_gate_and_effective_hashes_are_maintained_on_append(env):
    store, _, _ = env
    store.create("e1", started())
    store.append("e1", [NewEvent("EXECUTION_SUSPENDED", {"condition": {"on": "approval", "correlationKey": "k"}})],
                 expected_seq=1)
    s = store.summary("e1")
    assert (s.status, s.gate) == ("suspended", "approval")
    store.append("e1", [NewEvent("EXECUTION_MIGRATED", {"toFlowHash": "sha256:" + "c" * 64, "toCodeHash": "sha256:" + "d" * 64})],
                 expected_seq=2)
    assert store.summary("e1").code_hash == "sha256:" + "d" * 64
    assert store.summary("e1").status == "suspended"
    store.append("e1", [NewEvent("EXECUTION_RESUMED", {"gate": "approval", "payload": {"ok": 1}})], expected_seq=3)
    assert (store.summary("e1").status, store.summary("e1").gate) == ("running", None)
    store.append("e1", [NewEvent("EXECUTION_COMPLETED", {"result": 7})], expected_seq=4)
    assert store.summary("e1").status == "completed"
    with pytest.raises(JournalError, match="`e1` is completed; nothing may be appended"):
        store.append("e1", [step_started("late")], expected_seq=5)


def test_list_executions_filters_by_status_and_flow(env):
    store, _, _ = env
    store.create("b", started("checkout"))
    store.create("a", started("refund"))
    store.create("c", started("checkout"))
    store.append("c", [NewEvent("EXECUTION_FAILED", {"error": {"type": "X", "message": "m"}})], expected_seq=1)
    assert [s.execution_id for s in store.list_executions()] == ["a", "b", "c"]
    assert [s.execution_id for s in store.list_executions(statuses=["running"])] == ["a", "b"]
    assert [s.execution_id for s in store.list_executions(flow_id="checkout")] == ["b", "c"]
    assert [s.execution_id for s in store.list_executions(statuses=["failed"], flow_id="checkout")] == ["c"]
    assert store.list_executions(statuses=[]) == ()


def test_due_timers_returns_parked_timer_executions_whose_time_has_come(env):
    store, _, _ = env
    for eid, fire_at in (("t1", 50.0), ("t2", 150.0)):
        store.create(eid, started())
        store.append(eid, [NewEvent("TIMER_SET", {"timerId": "nap", "fireAt": fire_at}),
                           NewEvent("EXECUTION_SUSPENDED", {"condition": {"on": "__loom_timer__:nap"}})], expected_seq=1)
    store.create("gate", started())
    store.append("gate", [NewEvent("EXECUTION_SUSPENDED", {"condition": {"on": "approval"}})], expected_seq=1)
    assert [s.execution_id for s in store.due_timers(100.0)] == ["t1"]
    assert [s.execution_id for s in store.due_timers(200.0)] == ["t1", "t2"]
    store.append("t1", [NewEvent("EXECUTION_RESUMED", {"gate": "__loom_timer__:nap", "payload": None})], expected_seq=3)
    assert [s.execution_id for s in store.due_timers(200.0)] == ["t2"]
    assert store.summary("t1").wake_at is None


def test_payloads_are_copied_not_aliased(env):
    store, _, _ = env
    payload = {"flowId": "f", "flowHash": None, "codeHash": None, "input": {"items": [1]}}
    store.create("e1", NewEvent("EXECUTION_STARTED", payload))
    payload["input"]["items"].append(2)
    first = store.read("e1")[0]
    first.payload["input"]["items"].append(3)
    assert store.read("e1")[0].payload["input"] == {"items": [1]}


def test_leases_fence_a_stale_owner(env):
    store, _, clock = env
    store.create("e1", started())
    a = store.acquire_lease("e1", "worker-a", ttl=10)
    assert store.append("e1", [step_started("x")], expected_seq=1, lease=a) == 2
    with pytest.raises(FencingError, match="leased to `worker-a`"):
        store.acquire_lease("e1", "worker-b", ttl=10)
    renewed = store.acquire_lease("e1", "worker-a", ttl=10)
    assert renewed.epoch == a.epoch
    clock.now += 60  # worker-a stalls past its lease; worker-b takes over
    b = store.acquire_lease("e1", "worker-b", ttl=10)
    assert b.epoch == a.epoch + 1
    with pytest.raises(FencingError, match="lease epoch .* of `worker-a` is stale"):
        store.append("e1", [step_completed("x")], expected_seq=2, lease=a)
    assert store.append("e1", [step_completed("x")], expected_seq=2, lease=b) == 3
    store.release_lease(b)
    c = store.acquire_lease("e1", "worker-c", ttl=10)
    assert c.epoch == b.epoch + 1


def test_expired_lease_cannot_append(env):
    store, _, clock = env
    store.create("e1", started())
    a = store.acquire_lease("e1", "worker-a", ttl=5)
    clock.now += 6
    with pytest.raises(FencingError, match="expired"):
        store.append("e1", [step_started("x")], expected_seq=1, lease=a)


@pytest.mark.parametrize("outcome", [
    NewEvent("EXECUTION_SUSPENDED", {"condition": {"on": "approval"}}),
    NewEvent("EXECUTION_COMPLETED", {"result": 1}),
    NewEvent("EXECUTION_FAILED", {"error": {"type": "E", "message": "m"}}),
    NewEvent("EXECUTION_CONTINUED", {"nextExecutionId": "e1~1", "input": None}),
], ids=lambda e: e.type)
def test_an_append_that_parks_or_ends_frees_the_lease_in_the_same_transaction(env, outcome):
    store, peer, _ = env
    store.create("e1", started())
    a = store.acquire_lease("e1", "worker-a", ttl=10)
    store.append("e1", [step_started("x"), step_completed("x")], expected_seq=1, lease=a)
    with pytest.raises(FencingError, match="leased to `worker-a`"):  # running: still worker-a's
        peer().acquire_lease("e1", "worker-b", ttl=10)
    store.append("e1", [outcome], expected_seq=3, lease=a)
    b = peer().acquire_lease("e1", "worker-b", ttl=10)  # parked or ended: nobody's, at once
    assert b.epoch == a.epoch + 1  # a new owner gets a new fencing token
    if outcome.type == "EXECUTION_SUSPENDED":
        with pytest.raises(FencingError, match="stale"):  # worker-a's lease cannot write any more
            store.append("e1", [NewEvent("EXECUTION_RESUMED", {"gate": "approval", "payload": None})],
                         expected_seq=4, lease=a)


def test_an_empty_append_is_fenced_and_changes_nothing(env):
    store, peer, _ = env
    store.create("e1", started())
    store.append("e1", [NewEvent("EXECUTION_SUSPENDED", {"condition": {"on": "approval"}})], expected_seq=1)
    a = store.acquire_lease("e1", "worker-a", ttl=10)  # a claim on a parked execution (tick does this)
    with pytest.raises(FencingError, match="stale append"):
        store.append("e1", [], expected_seq=1)
    assert store.append("e1", [], expected_seq=2) == 2
    assert [e.seq for e in store.read("e1")] == [1, 2]
    with pytest.raises(FencingError, match="leased to `worker-a`"):  # nothing was appended: the claim stands
        peer().acquire_lease("e1", "worker-b", ttl=10)
    assert store.append("e1", [], expected_seq=2, lease=a) == 2


def test_create_leased_writes_the_execution_and_its_lease_in_one_step(env):
    store, peer, clock = env
    lease = store.create_leased("e1", started(), owner="worker-a", ttl=10)
    assert (lease.execution_id, lease.owner, lease.expires_at) == ("e1", "worker-a", clock.now + 10)
    assert [e.seq for e in store.read("e1")] == [1] and store.summary("e1").status == "running"
    # never listed as leasable by another worker, and another worker cannot take it
    assert [s.execution_id for s in peer().list_executions(statuses=["running"], leasable_by="worker-b")] == []
    assert [s.execution_id for s in peer().list_executions(statuses=["running"], leasable_by="worker-a")] == ["e1"]
    with pytest.raises(FencingError, match="leased to `worker-a`"):
        peer().acquire_lease("e1", "worker-b", ttl=10)
    assert store.append("e1", [step_started("x")], expected_seq=1, lease=lease) == 2
    assert store.acquire_lease("e1", "worker-a", ttl=10).epoch == lease.epoch  # a renewal, not a new owner
    clock.now += 60  # it lapses like any lease; the next owner fences the creator out
    b = peer().acquire_lease("e1", "worker-b", ttl=10)
    assert b.epoch > lease.epoch
    with pytest.raises(FencingError, match="stale"):
        store.append("e1", [step_completed("x")], expected_seq=2, lease=lease)


def test_create_leased_refuses_duplicates_and_non_start_events_and_writes_nothing(env):
    store, _, _ = env
    store.create("e1", started())
    with pytest.raises(JournalError, match="already exists"):
        store.create_leased("e1", started(), owner="worker-a", ttl=10)
    store.acquire_lease("e1", "worker-b", ttl=10)  # the failed create did not lease e1 to worker-a
    with pytest.raises(JournalError, match="needs EXECUTION_STARTED"):
        store.create_leased("e2", step_started("x"), owner="worker-a", ttl=10)
    with pytest.raises(ValueError, match="ttl must be positive"):
        store.create_leased("e3", started(), owner="worker-a", ttl=0)
    for eid in ("e2", "e3"):
        with pytest.raises(ExecutionNotFoundError):
            store.summary(eid)


def test_renew_leases_extends_only_leases_still_held_and_takes_none(env):
    store, peer, clock = env
    for eid in ("e1", "e2", "e3", "e4", "e5"):
        store.create(eid, started())
    a1, a2, a3, a4 = (store.acquire_lease(eid, "worker-a", ttl=10) for eid in ("e1", "e2", "e3", "e4"))
    store.release_lease(a2)  # released: nobody's
    clock.now += 60  # every lease lapses; worker-b takes e3 over, nobody touches e1 or e4
    b3 = peer().acquire_lease("e3", "worker-b", ttl=10)
    store.append("e4", [NewEvent("EXECUTION_SUSPENDED", {"condition": {"on": "approval"}})], expected_seq=1)  # freed
    ghost = a1.__class__("e5", "worker-a", 1, 0.0)  # a lease worker-a never held
    renewed = store.renew_leases([a1, a2, a3, a4, ghost], ttl=10)
    assert [r is not None for r in renewed] == [True, False, False, False, False]
    r1 = renewed[0]
    # lapsed but untaken: extended by the store's clock under the SAME epoch (nobody else ran anything)
    assert (r1.execution_id, r1.owner, r1.epoch, r1.expires_at) == ("e1", "worker-a", a1.epoch, clock.now + 10)
    with pytest.raises(FencingError, match="leased to `worker-a`"):
        peer().acquire_lease("e1", "worker-b", ttl=10)
    assert store.append("e1", [step_started("x")], expected_seq=1, lease=r1) == 2  # the lease writes again
    # nothing was taken: the released, freed and never-held executions are free, e3 stays worker-b's
    for eid in ("e2", "e4", "e5"):
        assert peer().acquire_lease(eid, "worker-c", ttl=10).owner == "worker-c"
    with pytest.raises(FencingError, match="leased to `worker-b`"):
        store.acquire_lease("e3", "worker-a", ttl=10)
    assert store.append("e3", [step_started("y")], expected_seq=1, lease=b3) == 2
    assert store.renew_leases([], ttl=10) == ()
    with pytest.raises(ValueError, match="ttl must be positive"):
        store.renew_leases([r1], ttl=0)


def test_a_renewal_store_renews_while_the_store_is_busy_in_another_thread(env):
    store, _, clock = env
    store.create("e1", started())
    lease = store.acquire_lease("e1", "worker-a", ttl=10)
    renewals = store.renewal_store(timeout=0.5)
    try:
        if renewals is not store:  # memory: the store itself (nothing else can see it)
            with store._lock:  # what a driver's append holds while it waits for the database
                got = []
                t = threading.Thread(target=lambda: got.extend(renewals.renew_leases([lease], ttl=20)))
                t.start()
                t.join(30)
                assert not t.is_alive(), "the renewal waited behind the store's lock"
            [r] = got
        else:
            [r] = renewals.renew_leases([lease], ttl=20)
        assert (r.epoch, r.expires_at) == (lease.epoch, clock.now + 20)
        assert store.append("e1", [step_started("x")], expected_seq=1, lease=r) == 2
    finally:
        if renewals is not store:
            renewals.close()


def test_next_lease_expiry_is_the_earliest_live_lease_of_another_owner_on_a_running_execution(env):
    store, _, clock = env
    assert store.next_lease_expiry(other_than="worker-a") is None  # an empty journal
    for eid in ("e1", "e2", "e3", "e4"):
        store.create(eid, started())
    store.acquire_lease("e1", "worker-a", ttl=5)  # the asker's own: left out
    assert store.next_lease_expiry(other_than="worker-a") is None
    store.acquire_lease("e2", "worker-b", ttl=30)
    store.acquire_lease("e3", "worker-c", ttl=12)
    assert store.next_lease_expiry(other_than="worker-a") == pytest.approx(12)
    assert store.next_lease_expiry(other_than="worker-c") == pytest.approx(5)  # worker-a's counts for c
    clock.now += 12  # e3 lapsed: leasable now, no longer a lease to wait for
    assert store.next_lease_expiry(other_than="worker-a") == pytest.approx(18)
    store.append("e4", [NewEvent("EXECUTION_SUSPENDED", {"condition": {"on": "t"}})], expected_seq=1)
    store.acquire_lease("e4", "worker-d", ttl=1)  # a claim on a suspended execution (a timer): not waited for
    assert store.next_lease_expiry(other_than="worker-a") == pytest.approx(18)


def test_list_executions_leasable_by_leaves_out_live_leases_of_other_owners(env):
    store, _, clock = env
    for eid in ("e1", "e2", "e3", "e4"):
        store.create(eid, started())
    store.acquire_lease("e1", "worker-a", ttl=10)
    store.acquire_lease("e2", "worker-b", ttl=10)
    store.acquire_lease("e3", "worker-a", ttl=100)
    ids = lambda **kw: [s.execution_id for s in store.list_executions(**kw)]  # noqa: E731
    assert ids(statuses=["running"]) == ["e1", "e2", "e3", "e4"]  # no filter: everything
    assert ids(statuses=["running"], leasable_by="worker-b") == ["e2", "e4"]  # its own and the free one
    assert ids(statuses=["running"], leasable_by="worker-a") == ["e1", "e3", "e4"]
    clock.now += 10  # expiry is judged by the store's clock: e1 and e2 lapse, e3 does not
    assert ids(statuses=["running"], leasable_by="worker-c") == ["e1", "e2", "e4"]
    assert ids(statuses=["completed"], leasable_by="worker-c") == []


def test_racing_writers_never_share_a_sequence_number(env):
    store, make_peer, _ = env
    store.create("e1", started())
    peers = [make_peer() for _ in range(4)]
    results: list[str] = []
    barrier = threading.Barrier(len(peers))

    def writer(i, s):
        barrier.wait()
        for _ in range(25):
            for _attempt in range(1000):
                last = s.summary("e1").last_seq
                try:
                    s.append("e1", [step_started(f"w{i}"), step_completed(f"w{i}")], expected_seq=last)
                    results.append(f"w{i}")
                    break
                except FencingError:
                    continue

    threads = [threading.Thread(target=writer, args=(i, p)) for i, p in enumerate(peers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    events = store.read("e1")
    assert [e.seq for e in events] == list(range(1, 2 + 2 * len(results)))
    assert len(results) == 100
    # each batch landed whole: a STEP_STARTED is always followed by its own STEP_COMPLETED
    for started_ev, completed_ev in zip(events[1::2], events[2::2]):
        assert started_ev.payload["stepId"] == completed_ev.payload["stepId"]
