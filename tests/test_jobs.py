"""Durable jobs: enqueued with turns, run by drain, retried with backoff, then dead."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest

from mnemo import Memory
from mnemo.jobs import backoff
from mnemo.schemas import format_time, utcnow

# Only the jobs a test registers: the write-path tiers (on by default) stay off.
JOBS_ONLY: dict = {"fact_extraction": "off", "profile_enabled": False, "episodes_enabled": False}


def make_due(mem: Memory) -> None:
    """Move every pending job's run_after into the past (skips the backoff wait)."""
    with mem.store.db.write() as c:  # type: ignore[attr-defined]
        c.execute("UPDATE jobs SET run_after=?", (format_time(utcnow() - timedelta(days=1)),))


@pytest.fixture
def mem(db_path: str) -> Iterator[Memory]:
    """A Memory whose only turn handlers are the ones a test registers (no fact tier)."""
    m = Memory(db_path, embedder="hashing", **JOBS_ONLY)
    yield m
    m.close()


def test_turn_jobs_are_written_with_the_turns_and_drained(mem: Memory) -> None:
    seen: list[dict] = []
    mem.handlers["turns.echo"] = seen.append
    ids = mem.add_messages([{"role": "user", "content": "hello"}], "u1", "s1")
    [job] = mem.store.list_jobs()
    assert job.status == "pending" and job.payload["message_ids"] == ids
    assert mem.drain() == 1
    assert seen == [{"message_ids": ids, "user_id": "u1", "session_id": "s1", "tenant": "default"}]
    assert mem.store.list_jobs()[0].status == "done"
    assert mem.drain() == 0


def test_failing_job_retries_with_backoff_then_dies_visibly(mem: Memory) -> None:
    calls = []

    def flaky(payload: dict) -> None:
        calls.append(payload)
        raise RuntimeError("upstream said no")

    mem.handlers["turns.flaky"] = flaky
    mem.add_messages([{"role": "user", "content": "x"}], "u1")
    assert mem.drain() == 1
    [job] = mem.store.list_jobs()
    assert job.status == "pending" and job.attempts == 1 and "upstream said no" in job.last_error
    assert job.run_after > utcnow()  # backing off
    assert mem.drain() == 0  # not due yet
    for _ in range(4):
        make_due(mem)
        mem.drain()
    [job] = mem.store.list_jobs()
    assert job.status == "dead" and job.attempts == 5 and len(calls) == 5
    assert mem.stats().jobs == {"dead": 1}


def test_unknown_job_kind_is_dead(mem: Memory) -> None:
    from mnemo.storage.base import NewJob

    mem.store.enqueue([NewJob(kind="nobody.handles", payload={}, user_id="u")])
    mem.drain()
    [job] = mem.store.list_jobs()
    assert job.status == "dead" and "no handler" in job.last_error


def test_backoff_doubles_and_caps() -> None:
    assert [backoff(n) for n in (1, 2, 3)] == [2.0, 4.0, 8.0]
    assert backoff(50) == 300.0


def test_jobs_survive_reopen(db_path: str) -> None:
    mem = Memory(db_path, embedder="hashing", **JOBS_ONLY)
    mem.handlers["turns.later"] = lambda payload: None
    mem.add_messages([{"role": "user", "content": "x"}], "u1")
    mem.close()
    again = Memory(db_path, embedder="hashing", **JOBS_ONLY)
    ran: list[dict] = []
    again.handlers["turns.later"] = ran.append
    assert again.drain() == 1 and len(ran) == 1
    with pytest.raises(KeyError):
        again.handlers["missing"]
