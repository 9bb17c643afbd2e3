"""Job leases, token usage per job and the Worker, on real SQLite files and real processes.

* a worker process SIGKILLed mid-job leaves the job ``running`` under its lease; nobody takes
  it before the lease expires, another runner takes it after, and it completes once in effect;
* a live worker's heartbeat keeps a job longer than its lease; a stale worker cannot finish a
  job another worker reclaimed; a job whose workers keep dying ends dead;
* the Worker thread runs jobs as they arrive and stops after the current job; ``mnemo worker``
  stops gracefully on SIGTERM and ``--once`` drains and exits;
* handlers' token usage is stored on the job; ``add_messages`` never waits for an LLM.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from clock_support import FakeClock
from scripted_server import ScriptedServer
from typer.testing import CliRunner
from worker_proc import counts, effect

from mnemo import Memory
from mnemo.cli.main import app
from mnemo.errors import LLMTransientError
from mnemo.jobs.runner import LeaseKeeper, usage_of
from mnemo.llm import LLMClient, Usage
from mnemo.schemas import Job
from mnemo.storage.base import NewJob
from mnemo.storage.sqlite.store import SQLiteStore

ROOT = Path(__file__).resolve().parents[2]
PROC = Path(__file__).resolve().parents[1] / "worker_proc.py"
WAIT_S = 30

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="uses POSIX signals"),
    pytest.mark.timeout(120),
]


# ---- helpers ---------------------------------------------------------------------------------
class Proc:
    """A subprocess whose stdout JSON lines are read by a thread."""

    def __init__(self, args: list[str], tmp_path: Path, **env: str) -> None:
        full = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_")}
        full["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), full.get("PYTHONPATH")]))
        full.update(env)
        self.stderr_path = tmp_path / f"proc-{time.monotonic_ns()}.stderr"
        self._stderr = open(self.stderr_path, "w")  # noqa: SIM115 - closed in wait()
        self.proc = subprocess.Popen(
            [sys.executable, *args],
            cwd=ROOT,
            env=full,
            text=True,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
        )
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("{"):
                self.lines.put(json.loads(line))
        self.lines.put(None)

    def expect(self, key: str) -> dict[str, Any]:
        """The next stdout object, which must hold ``key``."""
        try:
            line = self.lines.get(timeout=WAIT_S)
        except queue.Empty:
            self.kill()
            pytest.fail(f"no {key!r} line within {WAIT_S}s; stderr: {self.stderr()}")
        assert line is not None and key in line, f"got {line}; stderr: {self.stderr()}"
        return line

    def stderr(self) -> str:
        return self.stderr_path.read_text()

    def wait(self) -> int:
        """Wait for exit, then close the stdout pipe (once the reader saw EOF) and stderr file."""
        try:
            return self.proc.wait(timeout=WAIT_S)
        finally:
            self._reader.join(timeout=WAIT_S)
            if self.proc.stdout is not None and not self._reader.is_alive():
                self.proc.stdout.close()
            self._stderr.close()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.wait()


# Only the jobs a test registers: the write-path tiers (on by default) stay off.
JOBS_ONLY: dict = {"fact_extraction": "off", "profile_enabled": False, "episodes_enabled": False}


def only_job(mem: Memory) -> Job:
    [job] = mem.store.jobs.list_jobs()
    return job


def wait_for(predicate: Any, timeout: float = WAIT_S, step: float = 0.02) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail("condition not met in time")
        time.sleep(step)


@pytest.fixture
def mem(db_path: str) -> Iterator[Memory]:
    """A Memory whose only turn handlers are the ones a test registers (no fact tier)."""
    m = Memory(db_path, embedder="hashing", **JOBS_ONLY)
    yield m
    m.close()


@pytest.fixture
def effects_db(tmp_path: Path) -> str:
    return str(tmp_path / "effects.db")


# ---- the lease -------------------------------------------------------------------------------
def test_killed_worker_job_is_reclaimed_after_lease_and_done_once(
    tmp_path: Path, db_path: str, effects_db: str
) -> None:
    lease = 3.0
    mem = Memory(db_path, embedder="hashing", **JOBS_ONLY, job_lease_s=lease)
    mem.handlers["turns.effect"] = lambda payload: effect(effects_db, payload)
    ids = mem.add_messages([{"role": "user", "content": "I moved to Porto"}], "u1")
    proc = Proc([str(PROC), db_path, effects_db, "block"], tmp_path, MNEMO_JOB_LEASE_S=str(lease))
    proc.expect("ready")
    assert proc.expect("started")["started"] == ids[0]
    running = only_job(mem)
    assert running.status == "running" and running.attempts == 1
    assert running.lease_until is not None
    os.kill(proc.proc.pid, signal.SIGKILL)
    killed_at = time.monotonic()
    assert proc.wait() == -signal.SIGKILL
    assert mem.drain() == 0  # the dead worker's lease still holds the job
    assert only_job(mem).status == "running"
    wait_for(lambda: mem.drain() == 1, timeout=lease + WAIT_S, step=0.1)
    assert time.monotonic() - killed_at >= lease - 1.5  # renewed every lease/3 before the kill
    job = only_job(mem)
    assert job.status == "done" and job.attempts == 2 and job.lease_until is None
    assert counts(effects_db) == (1, 2)  # ran twice, one effect
    assert mem.drain() == 0
    mem.close()


def test_heartbeat_keeps_a_job_longer_than_its_lease(db_path: str) -> None:
    mem = Memory(db_path, embedder="hashing", **JOBS_ONLY, job_lease_s=1.0, worker_poll_s=0.02)
    calls: list[float] = []

    def slow(payload: dict[str, Any]) -> None:
        calls.append(time.monotonic())
        time.sleep(2.5)  # 2.5 leases

    mem.handlers["turns.slow"] = slow
    mem.add_messages([{"role": "user", "content": "x"}], "u1")
    worker = mem.worker().start()
    wait_for(lambda: calls)
    stolen = []
    while only_job(mem).status == "running":
        stolen.append(mem.store.jobs.claim_job(lease_s=1.0, owner="thief"))
        time.sleep(0.05)
    assert worker.stop(timeout=WAIT_S)
    assert len(stolen) > 10 and not any(stolen)
    job = only_job(mem)
    assert job.status == "done" and job.attempts == 1 and len(calls) == 1
    mem.close()


def test_lease_keeper_renews_only_the_job_it_holds(db_path: str) -> None:
    clock = FakeClock()  # the store and the keeper tell time by it: no sleeping
    mem = Memory(db_path, embedder="hashing", store=SQLiteStore(db_path, clock=clock), **JOBS_ONLY)
    mem.store.jobs.enqueue([NewJob(kind="k", payload={}, user_id="u")])
    job = mem.store.jobs.claim_job(lease_s=0.3, owner="me")
    assert job is not None
    keeper = LeaseKeeper(mem.store.jobs, "me", 0.3, clock)
    keeper.hold(job.id)
    for _ in range(7):  # 0.7 s: a renewal every lease/3 = 0.1 s
        clock.step(0.1)
    clock.settle()  # the last renewal has landed
    assert keeper.renewals >= 2 and only_job(mem).lease_until > job.lease_until
    keeper.release()
    count, held = keeper.renewals, only_job(mem).lease_until
    clock.advance(0.35)
    assert keeper.renewals == count and only_job(mem).lease_until == held
    keeper.close()
    assert mem.store.jobs.claim_job(lease_s=1.0, owner="other") is not None  # expired: reclaimed
    mem.close()


def test_running_job_of_an_older_schema_is_reclaimable_after_upgrade(db_path: str) -> None:
    import sqlite3

    from mnemo.storage.sqlite.conn import migration_files, split_statements

    conn = sqlite3.connect(db_path, isolation_level=None)
    for version, script in migration_files():
        if version < 3:
            for statement in split_statements(script):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {version}")
    at = "2024-01-01T00:00:00.000000Z"
    conn.execute(
        "INSERT INTO jobs (tenant, user_id, kind, payload, status, attempts, run_after,"
        " created_at, updated_at) VALUES ('default', 'u', 'turns.x', '{}', 'running', 1, ?, ?, ?)",
        (at, at, at),
    )
    conn.close()
    mem = Memory(db_path, embedder="hashing", **JOBS_ONLY)
    ran: list[dict[str, Any]] = []
    mem.handlers["turns.x"] = ran.append
    assert mem.drain() == 1 and ran == [{}]
    assert only_job(mem).status == "done" and only_job(mem).attempts == 2
    mem.close()


def test_stale_worker_cannot_finish_or_fail_a_reclaimed_job(mem: Memory) -> None:
    mem.store.jobs.enqueue([NewJob(kind="k", payload={}, user_id="u")])
    first = mem.store.jobs.claim_job(lease_s=0.0, owner="a")
    second = mem.store.jobs.claim_job(lease_s=60.0, owner="b")
    assert first is not None and second is not None and first.id == second.id
    assert second.attempts == 2
    assert not mem.store.jobs.extend_lease(first.id, "a", 60.0)
    assert not mem.store.jobs.finish_job(first.id, None, owner="a")
    assert not mem.store.jobs.fail_job(first.id, "late", 1.0, owner="a")
    assert only_job(mem).status == "running"
    assert mem.store.jobs.finish_job(second.id, {"total_tokens": 3}, owner="b")
    assert only_job(mem).status == "done" and only_job(mem).usage == {"total_tokens": 3}


def test_job_whose_workers_keep_dying_ends_dead(db_path: str) -> None:
    mem = Memory(db_path, embedder="hashing", **JOBS_ONLY, job_max_attempts=2)
    ran: list[dict[str, Any]] = []
    mem.handlers["turns.crashy"] = ran.append
    mem.add_messages([{"role": "user", "content": "x"}], "u1")
    for ghost in ("g1", "g2"):  # two workers claim it and die (lease ends at once)
        assert mem.store.jobs.claim_job(lease_s=0.0, owner=ghost) is not None
    assert mem.drain() == 1
    job = only_job(mem)
    assert job.status == "dead" and job.attempts == 3 and "abandoned" in (job.last_error or "")
    assert ran == []
    mem.close()


# ---- usage -----------------------------------------------------------------------------------
def test_handler_usage_is_stored_on_the_job(mem: Memory) -> None:
    mem.handlers["turns.llm"] = lambda payload: Usage(120, 30, 150)
    mem.handlers["turns.dict"] = lambda payload: {"prompt_tokens": 7, "total_tokens": 7}
    mem.handlers["turns.none"] = lambda payload: "not usage"
    mem.add_messages([{"role": "user", "content": "x"}], "u1")
    assert mem.drain() == 3
    usage = {j.kind: j.usage for j in mem.store.jobs.list_jobs()}
    assert usage == {
        "turns.llm": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150},
        "turns.dict": {"prompt_tokens": 7, "total_tokens": 7},
        "turns.none": None,
    }


def test_usage_of_accepts_usage_and_int_dicts_only() -> None:
    expected = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    assert usage_of(Usage(1, 1, 2)) == expected
    assert usage_of({"total_tokens": 4}) == {"total_tokens": 4}
    for other in (None, 3, {"total_tokens": 1.5}, {"total_tokens": True}, [1]):
        assert usage_of(other) is None


# ---- the Worker thread -----------------------------------------------------------------------
def test_worker_thread_runs_jobs_as_they_arrive_and_stops(mem: Memory) -> None:
    seen: list[list[str]] = []
    mem.handlers["turns.collect"] = lambda payload: seen.append(payload["message_ids"])
    worker = mem.worker(poll_s=0.02).start()
    assert worker.running
    first = mem.add_messages([{"role": "user", "content": "one"}], "u1")
    wait_for(lambda: seen == [first])
    second = mem.add_messages([{"role": "user", "content": "two"}], "u1")
    wait_for(lambda: seen == [first, second])
    assert worker.stop(timeout=WAIT_S) and not worker.running
    assert worker.jobs_run == 2 and worker.errors == 0
    assert [j.status for j in mem.store.jobs.list_jobs()] == ["done", "done"]


def test_worker_stop_lets_the_current_job_finish(mem: Memory) -> None:
    entered, release = threading.Event(), threading.Event()
    done: list[int] = []

    def blocking(payload: dict[str, Any]) -> None:
        entered.set()
        release.wait(WAIT_S)
        done.append(1)

    mem.handlers["turns.block"] = blocking
    mem.add_messages([{"role": "user", "content": "a"}], "u1")
    mem.add_messages([{"role": "user", "content": "b"}], "u1")
    worker = mem.worker(poll_s=0.02).start()
    assert entered.wait(WAIT_S)
    assert not worker.stop(timeout=0.2)  # still inside the job
    release.set()
    assert worker.stop(timeout=WAIT_S)
    assert done == [1]
    assert sorted(j.status for j in mem.store.jobs.list_jobs()) == ["done", "pending"]


def test_worker_survives_a_store_failure(db_path: str) -> None:
    mem = Memory(db_path, embedder="hashing", **JOBS_ONLY)
    worker = mem.worker(poll_s=0.01)
    mem.store.close()  # every claim now raises StorageError
    worker.start()
    wait_for(lambda: worker.errors >= 2)
    assert worker.running
    assert worker.stop(timeout=WAIT_S)


# ---- processes and the CLI -------------------------------------------------------------------
def test_sigterm_finishes_the_current_job_then_exits(
    tmp_path: Path, db_path: str, effects_db: str
) -> None:
    mem = Memory(db_path, embedder="hashing", **JOBS_ONLY)
    mem.handlers["turns.effect"] = lambda payload: None
    first = mem.add_messages([{"role": "user", "content": "first"}], "u1")
    mem.add_messages([{"role": "user", "content": "second"}], "u1")
    proc = Proc([str(PROC), db_path, effects_db, "slow"], tmp_path)
    proc.expect("ready")
    assert proc.expect("started")["started"] == first[0]
    proc.proc.send_signal(signal.SIGTERM)
    assert proc.expect("stopped")["jobs_run"] == 1
    assert proc.wait() == 0
    jobs = {j.payload["message_ids"][0]: j for j in mem.store.jobs.list_jobs()}
    assert jobs[first[0]].status == "done"
    assert jobs[first[0]].usage == {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}
    assert sorted(j.status for j in jobs.values()) == ["done", "pending"]
    assert counts(effects_db) == (1, 1)
    mem.close()


def test_mnemo_worker_command_stops_on_sigterm(tmp_path: Path, db_path: str) -> None:
    Memory(db_path, embedder="hashing", **JOBS_ONLY).close()  # a worker refuses a missing store
    args = ["-c", "from mnemo.cli.main import app; app()", "worker", "--worker-poll-s", "0.05"]
    proc = Proc(args, tmp_path, MNEMO_PATH=db_path, MNEMO_EMBEDDER="hashing")
    wait_for(lambda: "polling every 0.05s" in proc.stderr())
    proc.proc.send_signal(signal.SIGTERM)
    assert proc.wait() == 0
    assert "ran 0 job(s)" in proc.stderr()


def test_mnemo_worker_once_drains_and_exits(db_path: str) -> None:
    with Memory(db_path, embedder="hashing", **JOBS_ONLY) as mem:
        mem.store.jobs.enqueue([NewJob(kind="nobody.handles", payload={}, user_id="u")])
    env = {"MNEMO_PATH": db_path, "MNEMO_EMBEDDER": "hashing"}
    out = CliRunner().invoke(app, ["worker", "--once"], env=env)
    assert out.exit_code == 0, out.output
    assert "ran 1 job(s)" in out.output
    with Memory(db_path, embedder="hashing", **JOBS_ONLY) as mem:
        assert only_job(mem).status == "dead"  # this CLI registers no handler of that kind


# ---- the write path never waits for the LLM --------------------------------------------------
@pytest.fixture
def hanging_server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as server:
        for _ in range(4):
            server.enqueue(delay=5.0)
        yield server


def test_add_messages_only_enqueues_llm_work(mem: Memory, hanging_server: ScriptedServer) -> None:
    llm = LLMClient(hanging_server.url, "m", timeout_s=0.3, max_retries=0)

    def extract(payload: dict[str, Any]) -> Usage:
        return llm.complete([{"role": "user", "content": "facts?"}], json=True).usage

    mem.handlers["turns.extract"] = extract
    started = time.monotonic()
    mem.add_messages([{"role": "user", "content": "I am vegetarian"}], "u1")
    assert time.monotonic() - started < 3.0  # far below the 5 s the server hangs
    assert hanging_server.requests == []  # no LLM call on the write path
    assert only_job(mem).status == "pending"
    assert mem.drain() == 1
    job = only_job(mem)
    assert job.status == "pending" and job.attempts == 1  # will be retried with backoff
    assert LLMTransientError.__name__ in (job.last_error or "")
    assert len(hanging_server.requests) == 1
    llm.close()


def test_two_workers_on_one_file_run_each_job_once(db_path: str) -> None:
    mems = [Memory(db_path, embedder="hashing", **JOBS_ONLY) for _ in range(2)]
    runs: list[tuple[int, str]] = []
    lock = threading.Lock()
    for n, m in enumerate(mems):

        def record(payload: dict[str, Any], n: int = n) -> None:
            time.sleep(0.02)
            with lock:
                runs.append((n, payload["message_ids"][0]))

        m.handlers["turns.record"] = record
    ids = [mems[0].add_messages([{"role": "user", "content": f"t{i}"}], "u1")[0] for i in range(40)]
    workers = [m.worker(poll_s=0.01).start() for m in mems]
    wait_for(lambda: len(runs) >= 40)
    assert all(w.stop(timeout=WAIT_S) for w in workers)
    assert sorted(i for _, i in runs) == sorted(ids)  # every job once, none twice
    assert {n for n, _ in runs} == {0, 1}  # both workers took part
    assert mems[0].stats().jobs == {"done": 40}
    for m in mems:
        m.close()
