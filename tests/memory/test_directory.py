"""Who is in a tenant, and its jobs: ``Memory.users``, ``sessions``, ``jobs`` and
``requeue_dead_jobs``, on both stores, each confined to its tenant."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mnemo import Memory, ValidationError
from mnemo.storage.base import NewJob

OpenMem = Callable[..., Memory]
QUIET: dict = {"fact_extraction": "off", "profile_enabled": False, "episodes_enabled": False}


def test_users_and_sessions_with_counts(open_mem: OpenMem) -> None:
    mem = open_mem(**QUIET)
    other = open_mem(tenant="other", **QUIET)
    mem.add_messages([{"role": "user", "content": "hi", "created_at": "2024-01-01T10:00:00"}],
                     "ann", "s1")  # fmt: skip
    mem.add_messages([{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}],
                     "ann", "s2")  # fmt: skip
    mem.add("Bob likes tea", "bob")
    other.add_messages([{"role": "user", "content": "secret"}], "eve", "s9")
    users = {u.user_id: u for u in mem.users()}
    assert sorted(users) == ["ann", "bob"]
    assert (users["ann"].sessions, users["ann"].messages, users["ann"].memories) == (2, 3, 0)
    assert (users["bob"].sessions, users["bob"].messages, users["bob"].memories) == (0, 0, 1)
    assert users["bob"].last_active_at is not None
    assert [u.user_id for u in mem.users(limit=1, offset=1)] == ["bob"]
    sessions = mem.sessions("ann")
    assert [s.session_id for s in sessions] == ["s2", "s1"]  # most recent first
    assert sessions[0].messages == 2 and sessions[1].first_at.year == 2024
    assert mem.sessions("eve") == [] and [u.user_id for u in other.users()] == ["eve"]
    with pytest.raises(ValidationError):
        mem.users(limit=0)
    with pytest.raises(ValidationError):
        mem.sessions("")


def test_jobs_are_listed_and_requeued_per_tenant(open_mem: OpenMem) -> None:
    mem = open_mem(**QUIET)
    other = open_mem(tenant="other", **QUIET)
    for m in (mem, other):
        m.store.jobs.enqueue(
            [NewJob(kind="nobody.handles", payload={}, tenant=m.tenant, user_id="u")]
        )
        m.drain()
    [dead] = mem.jobs("dead")
    assert dead.user_id == "u" and "no handler" in (dead.last_error or "")
    assert mem.jobs("pending") == []
    assert mem.requeue_dead_jobs() == 1
    [job] = mem.jobs()
    assert job.status == "pending" and job.attempts == 0 and job.last_error  # error kept
    assert [j.status for j in other.jobs()] == ["dead"]  # the other tenant's job is untouched
    with pytest.raises(ValidationError, match="status"):
        mem.jobs("zombie")
    with pytest.raises(ValidationError, match="limit"):
        mem.jobs(limit=0)
