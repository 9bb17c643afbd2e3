"""Concurrent writers to one conversation keep topic counts and histories consistent."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from topic_helpers import TOPICS_ONLY, about

from mnemo import Memory

THREADS = 4
TURNS = 12


def _writer(mem: Memory, worker: int, errors: list[BaseException]) -> None:
    try:
        for k in range(TURNS):
            mem.add_user_message("u1", about(k % 3, worker * 100 + k), "s1")
            mem.add_assistant_message("u1", f"reply {worker}.{k}", "s1")
    except BaseException as exc:  # collected and re-raised by the test
        errors.append(exc)


def _check_consistent(mem: Memory, db: Path) -> None:
    messages = mem.messages("u1", session_id="s1", limit=10_000)
    assert len(messages) == THREADS * TURNS * 2
    assert all(m.topic_id for m in messages)  # every turn was applied exactly once
    topics = mem.topics("u1", "s1", include_inactive=True)
    assert sum(t.message_count for t in topics) == len(messages)
    assert sum(t.access_count for t in topics) == THREADS * TURNS  # one per user turn
    for t in topics:
        assert t.active_messages + t.compressed_messages == t.message_count
        assert t.active_messages <= mem.settings.topic_max_messages_per_topic + 1
        history = mem.topic_history("u1", "s1", topic_id=t.id)
        assert len(history) == t.message_count
        assert [h["timestamp"] for h in history] == sorted(h["timestamp"] for h in history)
        assert len({m.id for m in messages if m.topic_id == t.id}) == t.message_count
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT count(*) FROM topic_messages").fetchone()[0] == len(messages)
        applied = c.execute("SELECT applied_seq FROM topic_conversations").fetchone()[0]
        assert applied == len(messages)


def test_threads_sharing_one_memory(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    mem = Memory(str(db), embedder="hashing", **TOPICS_ONLY)
    errors: list[BaseException] = []
    threads = [threading.Thread(target=_writer, args=(mem, w, errors)) for w in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    _check_consistent(mem, db)
    mem.close()


def test_threads_with_their_own_memory_and_the_job_path(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    settings = {**TOPICS_ONLY, "topics_enabled": True}
    mems = [Memory(str(db), embedder="hashing", **settings) for _ in range(THREADS)]
    errors: list[BaseException] = []
    threads = [threading.Thread(target=_writer, args=(m, w, errors)) for w, m in enumerate(mems)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert mems[0].drain() == THREADS * TURNS * 2  # the jobs find nothing left to do
    _check_consistent(mems[0], db)
    for m in mems:
        m.close()
