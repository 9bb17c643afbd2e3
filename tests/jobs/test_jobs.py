"""Durable jobs: enqueued with turns, run by drain, retried with backoff, then dead."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from clock_support import FakeClock

from mnemo import Memory
from mnemo.jobs.runner import BACKOFF_CAP_S, backoff
from mnemo.storage.ports.store import Store
from mnemo.storage.sqlite.store import SQLiteStore

OpenMem = Callable[..., Memory]

# Only the jobs a test registers: the write-path tiers (on by default) stay off.
JOBS_ONLY: dict = {"fact_extraction": "off", "profile_enabled": False, "episodes_enabled": False}


@pytest.fixture
def clocked(backend: str, target: dict[str, str]) -> Iterator[tuple[Memory, FakeClock]]:
    """A Memory (each store) like ``mem`` whose store tells time by a clock the test moves."""
    clock = FakeClock()
    if backend == "sqlite":
        store: Store = SQLiteStore(target["path"], clock=clock)
    else:
        from mnemo.storage.postgres.store import PostgresStore

        store = PostgresStore(target["url"], clock=clock)
    m = Memory(**target, embedder="hashing", store=store, **JOBS_ONLY)
    yield m, clock
    m.close()


@pytest.fixture
def mem(open_mem: OpenMem) -> Memory:
    """A Memory (each store) whose only turn handlers are the ones a test registers."""
    return open_mem(**JOBS_ONLY)


def test_turn_jobs_are_written_with_the_turns_and_drained(mem: Memory) -> None:
    seen: list[dict] = []
    mem.handlers["turns.echo"] = seen.append
    ids = mem.add_messages([{"role": "user", "content": "hello"}], "u1", "s1")
    [job] = mem.store.jobs.list_jobs()
    assert job.status == "pending" and job.payload["message_ids"] == ids
    assert mem.drain() == 1
    assert seen == [{"message_ids": ids, "user_id": "u1", "session_id": "s1", "tenant": "default"}]
    assert mem.store.jobs.list_jobs()[0].status == "done"
    assert mem.drain() == 0


def test_failing_job_retries_with_backoff_then_dies_visibly(
    clocked: tuple[Memory, FakeClock],
) -> None:
    mem, clock = clocked
    calls = []

    def flaky(payload: dict) -> None:
        calls.append(payload)
        raise RuntimeError("upstream said no")

    mem.handlers["turns.flaky"] = flaky
    mem.add_messages([{"role": "user", "content": "x"}], "u1")
    assert mem.drain() == 1
    [job] = mem.store.jobs.list_jobs()
    assert job.status == "pending" and job.attempts == 1 and "upstream said no" in job.last_error
    assert job.run_after > clock()  # backing off
    assert mem.drain() == 0  # not due yet
    for _ in range(4):
        clock.advance(BACKOFF_CAP_S)  # the longest backoff: the retry is due
        mem.drain()
    [job] = mem.store.jobs.list_jobs()
    assert job.status == "dead" and job.attempts == 5 and len(calls) == 5
    assert mem.stats().jobs == {"dead": 1}


def test_unknown_job_kind_is_dead(mem: Memory) -> None:
    from mnemo.storage.base import NewJob

    mem.store.jobs.enqueue([NewJob(kind="nobody.handles", payload={}, user_id="u")])
    mem.drain()
    [job] = mem.store.jobs.list_jobs()
    assert job.status == "dead" and "no handler" in job.last_error


def test_backoff_doubles_and_caps() -> None:
    assert [backoff(n) for n in (1, 2, 3)] == [2.0, 4.0, 8.0]
    assert backoff(50) == 300.0


def test_jobs_survive_reopen(open_mem: OpenMem) -> None:
    mem = open_mem(**JOBS_ONLY)
    mem.handlers["turns.later"] = lambda payload: None
    mem.add_messages([{"role": "user", "content": "x"}], "u1")
    mem.close()
    again = open_mem(**JOBS_ONLY)
    ran: list[dict] = []
    again.handlers["turns.later"] = ran.append
    assert again.drain() == 1 and len(ran) == 1
    with pytest.raises(KeyError):
        again.handlers["missing"]


def test_a_memory_runs_only_its_own_tenants_jobs(db_path: str) -> None:
    tiers = {"profile_enabled": False, "episodes_enabled": False}  # the fact tier alone
    a = Memory(db_path, embedder="hashing", tenant="a", **tiers)
    b = Memory(db_path, embedder="hashing", tenant="b", **tiers)
    a.add_messages([{"role": "user", "content": "I live in Lyon."}], "u1")
    b.add_messages([{"role": "user", "content": "I live in Oslo."}], "u1")
    assert a.drain() == 1  # tenant b's job waits for a worker of tenant b
    assert ["Lyon" in f.content for f in a.list("u1", kind="fact")] == [True]
    assert b.list("u1", kind="fact") == []
    assert b.drain() == 1
    assert ["Oslo" in f.content for f in b.list("u1", kind="fact")] == [True]
    assert ["Lyon" in f.content for f in a.list("u1", kind="fact")] == [True]
    a.close()
    b.close()


def test_upcoming_jobs_are_the_next_claims_in_order_and_stay_unclaimed(
    clocked: tuple[Memory, FakeClock],
) -> None:
    mem, clock = clocked
    mem.handlers["turns.echo"] = lambda payload: None
    mem.handlers["turns.other"] = lambda payload: None
    for n in range(4):
        mem.add_messages([{"role": "user", "content": f"turn {n}"}], "u1", f"s{n}")
    jobs, echo = mem.store.jobs, ("turns.echo",)
    queued = jobs.upcoming_jobs(echo, limit=3)
    assert [(j.kind, j.payload["session_id"]) for j in queued] == [
        ("turns.echo", "s0"),
        ("turns.echo", "s1"),
        ("turns.echo", "s2"),
    ]
    assert all(j.status == "pending" for j in jobs.list_jobs())  # read, not claimed
    claimed = jobs.claim_job(echo, owner="w1")
    assert claimed is not None and claimed.id == queued[0].id  # the claim's own order
    rest = jobs.upcoming_jobs(echo)
    assert [j.payload["session_id"] for j in rest] == ["s1", "s2", "s3"]  # the claimed one left
    assert len(jobs.upcoming_jobs(("turns.echo", "turns.other"))) == 7
    assert jobs.upcoming_jobs(echo, tenant="other") == []
    jobs.fail_job(rest[0].id, "boom", 60.0)  # due in a minute: not upcoming until then
    assert [j.payload["session_id"] for j in jobs.upcoming_jobs(echo)] == ["s2", "s3"]
    clock.advance(61)
    assert [j.payload["session_id"] for j in jobs.upcoming_jobs(echo)] == ["s2", "s3", "s1"]
