"""Reliability of the SQLite store under concurrent writers and under SIGKILL.

Real files, real threads and real processes (tests/reliability_worker.py), no mocks:

* 4 threads sharing one ``Memory`` plus 2 processes with their own ``Memory`` all call
  ``add_messages`` on one file at once (while another thread searches); nothing raises, every
  returned id is stored with its content, per-session ``seq`` is unique and contiguous, and
  search finds the turns;
* a writer holding the lock for a while makes ``add_messages`` wait, not fail;
* a bulk import is SIGKILLed at several moments; the reopened file passes SQLite's and FTS5's
  integrity checks, holds every turn the importer reported, only whole batches, and accepts
  new writes.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from mnemo import Memory

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).resolve().parents[1] / "reliability_worker.py"
USER = "u-shared"
SESSIONS = ("s0", "s1", "s2")
WAIT_S = 60  # upper bound of any single wait on a thread or a subprocess

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL"),
    pytest.mark.timeout(120),  # a hang fails the test instead of stalling the suite
]


# ---- helpers ---------------------------------------------------------------------------------
def marker(tag: str, call: int, turn: int) -> str:
    """Same marker words as the worker: one per stored turn."""
    return f"mk{tag}c{call}t{turn}z"


class Worker:
    """A reliability_worker.py subprocess whose stdout JSON lines are read by a thread."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_")}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        self.stderr_path = tmp_path / f"worker-{args[0]}-{args[3]}.stderr"
        self._stderr = open(self.stderr_path, "w")  # noqa: SIM115 - closed in finish()
        self.proc = subprocess.Popen(
            [sys.executable, str(WORKER), *args],
            cwd=ROOT,
            env=env,
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
        )
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.endswith("\n"):  # a line cut short by a kill is not a claim
                self.lines.put(json.loads(line))
        self.lines.put(None)

    def stderr(self) -> str:
        self._stderr.flush()
        return self.stderr_path.read_text(errors="replace")[-4000:]

    def next(self, timeout: float = WAIT_S) -> dict[str, Any]:
        """The next JSON line; fails the test on EOF or timeout, showing the worker's stderr."""
        try:
            item = self.lines.get(timeout=timeout)
        except queue.Empty:
            pytest.fail(f"worker printed nothing for {timeout}s; stderr:\n{self.stderr()}")
        if item is None:
            self.proc.wait(timeout=WAIT_S)
            pytest.fail(f"worker exited ({self.proc.returncode}) early; stderr:\n{self.stderr()}")
        return item

    def send(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text)
        self.proc.stdin.flush()

    def finish(self, timeout: float = WAIT_S) -> list[dict[str, Any]]:
        """Wait for exit (killing on timeout) and return every remaining complete line."""
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"worker did not finish within {timeout}s; stderr:\n{self.stderr()}")
        finally:
            self._close()
        out = []
        while True:
            item = self.lines.get_nowait() if not self.lines.empty() else None
            if item is None:
                return out
            out.append(item)

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=WAIT_S)
        self._close()

    def _close(self) -> None:
        """Close the pipes and the stderr file of the exited worker (idempotent).

        stdout is closed only once the reader thread has seen its EOF, so no line is lost.
        """
        self._reader.join(timeout=WAIT_S)
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            with contextlib.suppress(BrokenPipeError):  # unread input of a killed worker
                self.proc.stdin.close()
        if self.proc.stdout is not None and not self._reader.is_alive():
            self.proc.stdout.close()
        self._stderr.close()


def fts_rows(db: str, table: str) -> int:
    """Rows in an FTS5 table, read with a plain sqlite3 connection."""
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    finally:
        conn.close()


def fts_integrity(db: str) -> None:
    """FTS5's own consistency check of both indexes against their tables (raises if corrupt)."""
    conn = sqlite3.connect(db)
    try:
        for table in ("messages_fts", "memories_fts"):
            conn.execute(f"INSERT INTO {table} ({table}) VALUES ('integrity-check')")
    finally:
        conn.close()


def assert_seq_contiguous(messages: list[Any]) -> dict[str, list[Any]]:
    """Per session, seq values are exactly 1..n; returns the messages by session, in seq order."""
    by_session: dict[str, list[Any]] = defaultdict(list)
    for m in messages:
        by_session[m.session_id].append(m)
    for session, msgs in by_session.items():
        seqs = sorted(m.seq for m in msgs)
        assert seqs == list(range(1, len(msgs) + 1)), (
            f"session {session}: seq not unique and contiguous: "
            f"missing {sorted(set(range(1, len(msgs) + 1)) - set(seqs))[:10]}, "
            f"duplicates {sorted(s for s in set(seqs) if seqs.count(s) > 1)[:10]}"
        )
        msgs.sort(key=lambda m: m.seq)
    return by_session


# ---- concurrency -----------------------------------------------------------------------------
THREADS = 4
PROCESSES = 2
CALLS = 50


def _thread_writer(
    mem: Memory,
    tag: str,
    seed: int,
    start: threading.Barrier,
    results: list[dict[str, Any]],
    errors: list[str],
) -> None:
    rng = random.Random(seed)
    try:
        start.wait(timeout=WAIT_S)
        for call in range(CALLS):
            session = rng.choice(SESSIONS)
            contents = [
                f"{tag} call {call} turn {turn} {marker(tag, call, turn)} about topic "
                f"{rng.randrange(1000)}"
                for turn in range(rng.randint(1, 5))
            ]
            turns = [
                {"role": ("user", "assistant")[i % 2], "content": c} for i, c in enumerate(contents)
            ]
            ids = mem.add_messages(turns, user_id=USER, session_id=session)
            results.append({"session": session, "ids": ids, "contents": contents})
    except BaseException as exc:  # reported by the main thread
        errors.append(f"{tag}: {type(exc).__name__}: {exc}")


def _thread_searcher(
    mem: Memory,
    stop: threading.Event,
    start: threading.Barrier,
    errors: list[str],
    counter: list[int],
) -> None:
    rng = random.Random(99)
    try:
        start.wait(timeout=WAIT_S)
        while True:  # at least one round, however the threads are scheduled
            tag = rng.choice(["t0", "t1", "p0", "p1"])
            hits = mem.search(
                f"{tag} call {rng.randrange(CALLS)} topic",
                user_id=USER,
                session_id=rng.choice([None, *SESSIONS]),
                limit=5,
            )
            assert isinstance(hits, list)
            mem.messages(user_id=USER, limit=20)
            counter[0] += 1
            if stop.is_set():
                break
    except BaseException as exc:
        errors.append(f"searcher: {type(exc).__name__}: {exc}")


def test_threads_and_processes_write_one_file_concurrently(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    mem = Memory(db, embedder="hashing")  # creates the schema before the workers open it
    workers = [
        Worker(tmp_path, "concurrent", db, USER, f"p{i}", str(CALLS), str(100 + i))
        for i in range(PROCESSES)
    ]
    try:
        for w in workers:
            assert w.next().get("ready") is True

        start = threading.Barrier(THREADS + 2)  # writers, the searcher and this thread
        results: list[dict[str, Any]] = []
        errors: list[str] = []
        stop = threading.Event()
        searches = [0]
        writers = [
            threading.Thread(target=_thread_writer, args=(mem, f"t{i}", i, start, results, errors))
            for i in range(THREADS)
        ]
        searcher = threading.Thread(
            target=_thread_searcher, args=(mem, stop, start, errors, searches)
        )
        for t in [*writers, searcher]:
            t.start()
        start.wait(timeout=WAIT_S)
        for w in workers:
            w.send("go\n")

        worker_lines = [w.finish() for w in workers]
        for t in writers:
            t.join(timeout=WAIT_S)
            assert not t.is_alive(), "a writer thread hung"
        stop.set()
        searcher.join(timeout=WAIT_S)
        assert not searcher.is_alive(), "the searcher thread hung"
    finally:
        for w in workers:
            w.kill()

    # No exception reached any caller, in any thread or process.
    assert errors == []
    for w, lines in zip(workers, worker_lines, strict=True):
        proc_errors = [line["error"] for line in lines if "error" in line]
        assert proc_errors == [], "\n".join(proc_errors)
        assert lines[-1] == {"done": True, "errors": 0}, w.stderr()
        assert w.proc.returncode == 0, w.stderr()
        results += [line for line in lines if "ids" in line]
    assert len(results) == (THREADS + PROCESSES) * CALLS
    assert searches[0] > 0

    expected: dict[str, tuple[str, str]] = {}
    for r in results:
        assert len(r["ids"]) == len(r["contents"])
        for id_, content in zip(r["ids"], r["contents"], strict=True):
            assert id_ not in expected, f"id {id_} returned twice"
            expected[id_] = (r["session"], content)

    # Every returned id is stored, intact, once; nothing else is.
    assert mem.stats().messages == len(expected)
    stored = mem.messages(user_id=USER, limit=10_000)
    assert sorted(m.id for m in stored) == sorted(expected)
    for m in stored:
        assert (m.session_id, m.content) == expected[m.id]
    for id_, (session, content) in expected.items():
        got = mem.get(id_)
        assert (got.session_id, got.content) == (session, content)

    # seq is unique and contiguous per session, and each call's turns form one block in order.
    by_session = assert_seq_contiguous(stored)
    assert set(by_session) <= set(SESSIONS)
    seq_of = {m.id: m.seq for m in stored}
    for r in results:
        seqs = [seq_of[i] for i in r["ids"]]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), f"call interleaved: {seqs}"

    # FTS holds one row per turn and finds a sample of them by their marker word.
    assert fts_rows(db, "messages_fts") == len(expected)
    rng = random.Random(7)
    for r in rng.sample(results, 25):
        turn = rng.randrange(len(r["ids"]))
        word = r["contents"][turn].split()[5]  # the marker word
        hits = mem.search(word, user_id=USER, limit=5)
        assert hits and hits[0].id == r["ids"][turn], (word, [h.content for h in hits])
        in_session = mem.search(word, user_id=USER, session_id=r["session"], limit=5)
        assert in_session[0].id == r["ids"][turn]

    assert mem.store.integrity_check() == "ok"
    fts_integrity(db)
    mem.close()


def test_add_messages_waits_for_a_writer_holding_the_lock(tmp_path: Path) -> None:
    """A long write transaction elsewhere delays add_messages; it does not fail it."""
    db = str(tmp_path / "m.db")
    mem = Memory(db, embedder="hashing")
    mem.add_messages([{"role": "user", "content": "before the lock"}], user_id="u1")

    holder = sqlite3.connect(db, timeout=5, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT INTO meta (key, value) VALUES ('lock-test', 'held')")
    released = threading.Event()

    def release_later() -> None:
        time.sleep(1.0)
        holder.execute("COMMIT")
        released.set()

    releaser = threading.Thread(target=release_later)
    t0 = time.monotonic()
    releaser.start()
    # Reads are not blocked by the writer (WAL) while it holds the lock.
    assert [m.content for m in mem.messages(user_id="u1")] == ["before the lock"]
    assert mem.search("lock", user_id="u1")[0].content == "before the lock"
    ids = mem.add_messages([{"role": "user", "content": "after the lock"}], user_id="u1")
    waited = time.monotonic() - t0
    releaser.join(timeout=WAIT_S)
    holder.close()

    assert released.is_set()
    assert waited >= 0.9, f"add_messages did not wait for the lock ({waited:.2f}s)"
    assert mem.get(ids[0]).content == "after the lock"
    assert [m.seq for m in mem.messages(user_id="u1")] == [1, 2]
    mem.close()


# ---- crash safety ----------------------------------------------------------------------------
BATCH = 25


@pytest.mark.parametrize(
    ("kill_after", "delay_s"),
    [(0, 0.0), (1, 0.0), (20, 0.0), (5, 0.007)],
    ids=["while-opening", "after-1", "after-20", "after-5-mid-batch"],
)
def test_sigkill_mid_import_leaves_a_sound_file(
    tmp_path: Path, kill_after: int, delay_s: float
) -> None:
    """SIGKILL a bulk import; every batch it reported survives intact, and nothing is torn.

    The kill comes ``delay_s`` after the ``kill_after``-th batch report (a batch takes tens of
    ms, so a delay lands inside the next call); ``kill_after=0`` kills as soon as the database
    file appears, i.e. while the worker creates the schema or writes its first batch.
    """
    db = str(tmp_path / "m.db")
    w = Worker(tmp_path, "bulk", db, USER, "b", "1000000", str(BATCH))
    claims: list[dict[str, Any]] = []
    try:
        if kill_after == 0:
            deadline = time.monotonic() + WAIT_S
            while not os.path.exists(db) and w.proc.poll() is None:
                assert time.monotonic() < deadline, "worker never created the database"
                time.sleep(0.001)
        else:
            claims = [w.next() for _ in range(kill_after)]
        time.sleep(delay_s)
    finally:
        w.kill()
    assert w.proc.returncode == -signal.SIGKILL, w.stderr()
    # Lines still in the pipe were printed before the kill too: each is a finished call.
    claims += [line for line in w.finish() if "batch" in line]
    assert [c["batch"] for c in claims] == list(range(len(claims)))
    assert len(claims) >= kill_after

    mem = Memory(db, embedder="hashing")
    assert mem.store.integrity_check() == "ok"
    fts_integrity(db)

    # Every reported turn is present and intact.
    for c in claims:
        assert len(c["ids"]) == BATCH
        for turn, (id_, content) in enumerate(zip(c["ids"], c["contents"], strict=True)):
            got = mem.get(id_)
            assert got.content == content
            assert (got.user_id, got.session_id, got.role) == (USER, "bulk", "user")
            assert got.metadata == {"batch": c["batch"], "turn": turn}

    # Only whole batches were committed (a later, unreported batch may have committed too).
    stored = mem.messages(user_id=USER, limit=10_000)
    n = len(stored)
    assert n % BATCH == 0, f"{n} turns stored: a batch was torn"
    assert n >= BATCH * len(claims)
    assert mem.stats().messages == n
    assert fts_rows(db, "messages_fts") == n
    reported = {i for c in claims for i in c["ids"]}
    assert reported <= {m.id for m in stored}
    if n:
        assert_seq_contiguous(stored)

    # FTS finds reported turns: the first, the last and one in between.
    sample = [claims[0], claims[len(claims) // 2], claims[-1]] if claims else []
    for c in sample:
        turn = c["batch"] % BATCH
        word = marker("b", c["batch"], turn)
        hits = mem.search(word, user_id=USER, limit=3)
        assert hits and hits[0].id == c["ids"][turn], word

    # The file takes new writes, which continue the session's seq and are searchable.
    ids = mem.add_messages(
        [
            {"role": "user", "content": "after the crash zanzibar"},
            {"role": "assistant", "content": "noted, kilimanjaro"},
        ],
        user_id=USER,
        session_id="bulk",
    )
    assert [mem.get(i).seq for i in ids] == [n + 1, n + 2]
    assert mem.search("zanzibar", user_id=USER, limit=3)[0].id == ids[0]
    assert mem.search("kilimanjaro", user_id=USER, session_id="bulk", limit=3)[0].id == ids[1]
    assert mem.store.integrity_check() == "ok"
    mem.close()
