"""PostgreSQL job claims: FOR UPDATE SKIP LOCKED across processes, and leases that expire.

Real worker processes (tests/pg_worker.py) on a real PostgreSQL schema.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemo.storage.base import NewJob
from mnemo.storage.postgres.store import PostgresStore

WORKER = Path(__file__).resolve().parents[1] / "pg_worker.py"


def start(mode: str, url: str, lease: float) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(WORKER), mode, url, str(lease)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(WORKER.parent.parent)},
    )


def lines(proc: subprocess.Popen[str], timeout: float = 120) -> list[dict]:
    out, errs = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, errs
    return [json.loads(x) for x in out.splitlines()]


@pytest.fixture
def store(pg_url: str) -> Iterator[PostgresStore]:
    s = PostgresStore(pg_url, pool_size=2)
    yield s
    s.close()


def test_two_worker_processes_never_run_the_same_job(store: PostgresStore, pg_url: str) -> None:
    store.jobs.enqueue([NewJob(kind="work", payload={"n": i}, user_id="u") for i in range(120)])
    workers = [start("drain", pg_url, 30) for _ in range(2)]
    results = [lines(w) for w in workers]
    ran = Counter(x["ran"] for r in results for x in r if "ran" in x)
    assert sorted(ran) == list(range(120))
    assert max(ran.values()) == 1, [n for n, c in ran.items() if c > 1]
    per_worker = [sum(1 for x in r if "ran" in x) for r in results]
    assert all(n > 0 for n in per_worker), per_worker  # both really worked
    assert [j.status for j in store.jobs.list_jobs(limit=500)] == ["done"] * 120


def test_a_killed_workers_job_is_taken_over_after_its_lease(
    store: PostgresStore, pg_url: str
) -> None:
    store.jobs.enqueue([NewJob(kind="work", payload={"n": 7}, user_id="u")])
    hung = start("hang", pg_url, 1.5)
    assert hung.stdout is not None
    claimed = json.loads(hung.stdout.readline())
    assert claimed == {"claimed": 7, "attempts": 1}
    hung.kill()
    hung.communicate(timeout=30)  # reaps it and closes its pipes
    killed_at = time.monotonic()
    assert store.jobs.claim_job() is None  # still leased to the dead worker
    [job] = store.jobs.list_jobs()
    assert job.status == "running" and job.lease_until is not None
    assert not store.jobs.finish_job(job.id, owner="someone else")  # only the holder may finish
    while time.monotonic() - killed_at < 1.6:
        time.sleep(0.1)
    took_over = lines(start("drain", pg_url, 30))
    assert took_over == [{"ran": 7}, {"done": 1}]
    [job] = store.jobs.list_jobs()
    assert job.status == "done" and job.attempts == 2 and job.lease_until is None
    assert not store.jobs.fail_job(job.id, "late", None, owner="hanging worker")  # lease lost


def test_claim_filters_kinds_and_respects_run_after(store: PostgresStore) -> None:
    store.jobs.enqueue([NewJob(kind="a", payload={"n": 1}), NewJob(kind="b", payload={"n": 2})])
    got = store.jobs.claim_job(kinds=("b",))
    assert got is not None and got.kind == "b" and got.status == "running"
    store.jobs.fail_job(got.id, "boom", retry_in_s=3600)
    assert store.jobs.claim_job(kinds=("b",)) is None  # backing off
    other = store.jobs.claim_job()
    assert other is not None and other.kind == "a"
    assert store.jobs.extend_lease(other.id, "", 60) and not store.jobs.extend_lease(
        other.id, "x", 60
    )
    assert store.jobs.finish_job(other.id, usage={"prompt_tokens": 12})
    assert store.jobs.claim_job() is None
    assert [j.usage for j in store.jobs.list_jobs(status="done")] == [{"prompt_tokens": 12}]
    assert {j.status for j in store.jobs.list_jobs(status="pending")} == {"pending"}
