"""Reliability of the PostgreSQL store: threads and processes writing one user at once, and a
bulk import SIGKILLed midway. The same checks as test_reliability.py (SQLite), through the same
worker script (tests/reliability_worker.py) given a postgresql:// URL."""

from __future__ import annotations

import random
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from test_reliability import (
    SESSIONS,
    USER,
    WAIT_S,
    Worker,
    assert_seq_contiguous,
    marker,
)

from mnemo import Memory

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL"),
    pytest.mark.timeout(180),
]
THREADS, PROCESSES, CALLS, BATCH = 3, 2, 20, 20


def _writer(mem: Memory, tag: str, seed: int, results: list, errors: list) -> None:
    rng = random.Random(seed)
    try:
        for call in range(CALLS):
            session = rng.choice(SESSIONS)
            contents = [
                f"{tag} call {call} turn {t} {marker(tag, call, t)} about topic {rng.randrange(99)}"
                for t in range(rng.randint(1, 5))
            ]
            ids = mem.add_messages(
                [{"role": "user", "content": c} for c in contents], user_id=USER, session_id=session
            )
            results.append({"session": session, "ids": ids, "contents": contents})
    except BaseException as exc:  # reported by the test
        errors.append(f"{tag}: {exc!r}")


def test_threads_and_processes_write_one_user_concurrently(tmp_path: Path, pg_url: str) -> None:
    mem = Memory(url=pg_url, embedder="hashing")
    workers = [
        Worker(tmp_path, "concurrent", pg_url, USER, f"p{i}", str(CALLS), str(100 + i))
        for i in range(PROCESSES)
    ]
    results: list[dict[str, Any]] = []
    errors: list[str] = []
    try:
        for w in workers:
            assert w.next().get("ready") is True
        threads = [
            threading.Thread(target=_writer, args=(mem, f"t{i}", i, results, errors))
            for i in range(THREADS)
        ]
        for t in threads:
            t.start()
        for w in workers:
            w.send("go\n")
        lines = [w.finish() for w in workers]
        for t in threads:
            t.join(timeout=WAIT_S)
    finally:
        for w in workers:
            w.kill()
    assert errors == []
    for w, out in zip(workers, lines, strict=True):
        assert out[-1] == {"done": True, "errors": 0}, w.stderr()
        results += [x for x in out if "ids" in x]
    assert len(results) == (THREADS + PROCESSES) * CALLS
    expected = {
        i: (r["session"], c) for r in results for i, c in zip(r["ids"], r["contents"], strict=True)
    }
    stored = mem.messages(user_id=USER, limit=10_000)
    assert sorted(m.id for m in stored) == sorted(expected)
    assert all((m.session_id, m.content) == expected[m.id] for m in stored)
    assert_seq_contiguous(stored)
    seq_of = {m.id: m.seq for m in stored}
    for r in results:  # each call's turns form one block, in order
        seqs = [seq_of[i] for i in r["ids"]]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    for r in random.Random(7).sample(results, 10):
        word = r["contents"][0].split()[5]
        assert mem.search(word, user_id=USER, limit=3)[0].id == r["ids"][0], word
    mem.close()


@pytest.mark.parametrize("kill_after", [0, 3])
def test_sigkill_mid_import_keeps_every_reported_batch(
    tmp_path: Path, pg_url: str, kill_after: int
) -> None:
    w = Worker(tmp_path, "bulk", pg_url, USER, "b", "1000000", str(BATCH))
    claims: list[dict[str, Any]] = []
    try:
        claims = [w.next() for _ in range(kill_after)]
        time.sleep(0.05 if kill_after else 1.0)  # 0: usually while migrating or the first batch
    finally:
        w.kill()
    assert w.proc.returncode == -signal.SIGKILL, w.stderr()
    claims += [x for x in w.finish() if "batch" in x]
    assert [c["batch"] for c in claims] == list(range(len(claims)))
    mem = Memory(url=pg_url, embedder="hashing")
    stored = mem.messages(user_id=USER, limit=10_000)
    n = len(stored)
    assert n % BATCH == 0 and n >= BATCH * len(claims), f"{n} turns: a batch was torn"
    reported = {i for c in claims for i in c["ids"]}
    assert reported <= {m.id for m in stored}
    for c in claims:
        for turn, (id_, content) in enumerate(zip(c["ids"], c["contents"], strict=True)):
            got = mem.get(id_)
            assert got.content == content and got.metadata == {"batch": c["batch"], "turn": turn}
    if n:
        assert_seq_contiguous(stored)
    ids = mem.add_messages([{"role": "user", "content": "after the crash zanzibar"}], USER, "bulk")
    assert mem.get(ids[0]).seq == n + 1  # type: ignore[union-attr]
    assert mem.search("zanzibar", user_id=USER, limit=3)[0].id == ids[0]
    mem.close()
