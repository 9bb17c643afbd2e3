"""`topics`'s compaction (JSON -> gzip -> base64, keep the last 4) and auto-decompression."""

from __future__ import annotations

import base64
import gzip
import json
import sqlite3
from pathlib import Path

import pytest
from topic_helpers import T0, TOPICS_ONLY, Clock, about

from mnemo import Memory, StorageError
from mnemo.storage.topic_records import TopicEntry
from mnemo.tiers.topics import compaction


def test_history_format_is_json_then_gzip_then_base64() -> None:
    entries = [
        TopicEntry("user", "Hello", 1234567890.0),
        TopicEntry("assistant", "Hi!", 1234567891.0),
    ]
    text = compaction.compress(entries)
    assert text.startswith("H4sI")  # base64 of the gzip magic, as in the seed's example
    raw = json.loads(gzip.decompress(base64.b64decode(text)))
    assert raw == [
        {"role": "user", "content": "Hello", "timestamp": 1234567890.0},
        {"role": "assistant", "content": "Hi!", "timestamp": 1234567891.0},
    ]
    assert compaction.decompress(text) == entries
    assert compaction.compress(entries) == text  # deterministic (gzip mtime 0)


def test_corrupt_history_is_a_storage_error() -> None:
    with pytest.raises(StorageError):
        compaction.decompress("not base64 at all!")
    with pytest.raises(StorageError):
        compaction.decompress(base64.b64encode(gzip.compress(b'{"a": 1}')).decode())


def test_split_keeps_the_most_recent() -> None:
    msgs = [TopicEntry("user", str(i), float(i)) for i in range(13)]
    assert compaction.split_for_compaction(msgs[:12], 12, 4) is None
    split = compaction.split_for_compaction(msgs, 12, 4)
    assert split is not None
    old, recent = split
    assert [e.content for e in recent] == ["9", "10", "11", "12"] and len(old) == 9
    assert compaction.compression_ratio(1000, 140) == pytest.approx(0.86)


def _mem(tmp_path: Path, clock: Clock, **kw: object) -> Memory:
    mem = Memory(str(tmp_path / "m.db"), embedder="hashing", **TOPICS_ONLY, **kw)  # type: ignore[arg-type]
    mem.topic_memory.clock = clock
    return mem


def _exchange(mem: Memory, clock: Clock, subject: int, k: int) -> str:
    topic = mem.add_user_message("u1", about(subject, k), "s1")
    clock.advance(1)
    mem.add_assistant_message("u1", f"reply {subject}.{k}: noted.", "s1")
    clock.advance(1)
    return topic.id


def test_compaction_above_twelve_keeps_four_and_loses_nothing(tmp_path: Path) -> None:
    clock = Clock()
    mem = _mem(tmp_path, clock)
    ids = {_exchange(mem, clock, 0, k) for k in range(6)}  # 12 messages: at the limit
    assert len(ids) == 1
    stats = mem.topic_stats("u1", "s1")
    assert stats is not None and (stats.active_messages, stats.compressed_messages) == (12, 0)
    mem.add_user_message("u1", about(0, 6), "s1")  # the 13th message compacts 9, keeps 4
    stats = mem.topic_stats("u1", "s1")
    assert stats is not None
    assert (stats.active_messages, stats.compressed_messages, stats.total_messages) == (4, 9, 13)
    assert stats.has_summary
    context = mem.topic_context("u1", "s1")
    assert context[0]["role"] == "system" and context[0]["content"].startswith("Topic summary: ")
    assert [m["content"] for m in context[1:]] == [
        "reply 0.4: noted.",
        about(0, 5),
        "reply 0.5: noted.",
        about(0, 6),
    ]
    full = mem.topic_history("u1", "s1", include_compressed=True)
    stamps = [m["timestamp"] for m in full]
    assert len(full) == 13 and stamps == sorted(stamps)
    assert full[0] == {"role": "user", "content": about(0, 0), "timestamp": T0}
    assert len(mem.topic_history("u1", "s1", include_compressed=False)) == 4
    assert len(mem.messages("u1", session_id="s1")) == 13  # raw rows stay
    mem.close()


def test_a_second_compaction_merges_with_the_earlier_history(tmp_path: Path) -> None:
    clock = Clock()
    mem = _mem(tmp_path, clock)
    for k in range(12):
        _exchange(mem, clock, 0, k)  # 24 messages in one topic
    stats = mem.topic_stats("u1", "s1")
    assert stats is not None and stats.total_messages == 24
    assert stats.active_messages + stats.compressed_messages == 24
    assert stats.active_messages <= 12
    history = mem.topic_history("u1", "s1")
    assert [m["content"] for m in history[::2]] == [about(0, k) for k in range(12)]
    with sqlite3.connect(tmp_path / "m.db") as c:
        compacted = c.execute("SELECT count(*) FROM topic_messages WHERE compacted=1").fetchone()
    assert compacted[0] == stats.compressed_messages
    mem.close()


def test_returning_to_a_compacted_topic_restores_its_history(tmp_path: Path) -> None:
    clock = Clock()
    mem = _mem(tmp_path, clock)
    first = {_exchange(mem, clock, 0, k) for k in range(7)}.pop()  # 14 messages, compacted
    before = mem.topic_stats("u1", "s1")
    assert before is not None and before.compressed_messages == 9
    other = _exchange(mem, clock, 1, 0)  # a new subject becomes the active topic
    assert other != first
    back = mem.add_user_message("u1", about(0, 99), "s1")  # back to the first subject
    assert back.id == first
    stats = mem.topic_stats("u1", "s1")
    assert stats is not None
    assert (stats.active_messages, stats.compressed_messages) == (15, 0)
    context = mem.topic_context("u1", "s1")  # the full history serves this reply
    assert len(context) == 16 and context[1]["content"] == about(0, 0)
    with sqlite3.connect(tmp_path / "m.db") as c:
        row = c.execute("SELECT compressed FROM topics WHERE id=?", (first,)).fetchone()
        assert row[0] is None
        assert c.execute("SELECT sum(compacted) FROM topic_messages").fetchone()[0] == 0
    [restored] = [t for t in mem.topics("u1", "s1") if t.id == first]
    summary = restored.summary
    assert summary is not None
    mem.add_assistant_message("u1", "welcome back", "s1")  # the next append compacts again
    [again] = [t for t in mem.topics("u1", "s1") if t.id == first]
    assert again.summary is not None and again.summary.startswith(summary)  # extended, and
    parts = again.summary.split(" | ")  # the restored messages were not summarised twice
    assert len(parts) == len(set(parts)) and len(parts) > len(summary.split(" | "))
    stats = mem.topic_stats("u1", "s1")
    assert stats is not None
    assert (stats.active_messages, stats.compressed_messages, stats.total_messages) == (4, 12, 16)
    assert [m["content"] for m in mem.topic_history("u1", "s1")][-2:] == [
        about(0, 99),
        "welcome back",
    ]
    mem.close()


def test_a_restored_topic_left_without_a_reply_is_compacted_again(tmp_path: Path) -> None:
    """Two writers in one conversation can move on before the restored topic gets its reply:
    the topic that is left goes cold again instead of keeping its whole history active."""
    clock = Clock()
    mem = _mem(tmp_path, clock)
    first = {_exchange(mem, clock, 0, k) for k in range(7)}.pop()  # 14 messages, compacted
    _exchange(mem, clock, 1, 0)
    assert mem.add_user_message("u1", about(0, 99), "s1").id == first  # restores 15 messages
    clock.advance(1)
    assert mem.add_user_message("u1", about(1, 1), "s1").id != first  # leaves it at once
    [left] = [t for t in mem.topics("u1", "s1") if t.id == first]
    assert (left.active_messages, left.compressed_messages, left.message_count) == (4, 11, 15)
    history = mem.topic_history("u1", "s1", topic_id=first)
    assert [m["content"] for m in history][-1] == about(0, 99)  # nothing lost
    assert len(history) == 15
    mem.close()


def test_regenerated_and_incremental_summaries(tmp_path: Path) -> None:
    for incremental in (True, False):
        clock = Clock()
        path = tmp_path / str(incremental)
        path.mkdir()
        mem = _mem(path, clock, topic_incremental_summary=incremental)
        for k in range(12):
            _exchange(mem, clock, 0, k)
        [topic] = mem.topics("u1", "s1")
        assert topic.summary and len(topic.summary) <= mem.settings.topic_summary_max_chars
        mem.close()


def test_a_failing_apply_changes_nothing_and_the_job_finishes_later(tmp_path: Path) -> None:
    clock = Clock()
    mem = _mem(tmp_path, clock, topics_enabled=True)
    first = {_exchange(mem, clock, 0, k) for k in range(7)}.pop()  # compacted
    _exchange(mem, clock, 1, 0)  # another topic is active
    mem.drain()
    db = tmp_path / "m.db"
    with sqlite3.connect(db) as c:
        good = c.execute("SELECT compressed FROM topics WHERE id=?", (first,)).fetchone()[0]
        c.execute("UPDATE topics SET compressed='H4sIbroken' WHERE id=?", (first,))
        cursor = c.execute("SELECT applied_seq FROM topic_conversations").fetchone()[0]
    with pytest.raises(StorageError):
        mem.add_user_message("u1", about(0, 50), "s1")  # would restore the corrupt history
    with sqlite3.connect(db) as c:  # the turn is stored; the topic apply rolled back whole
        assert c.execute("SELECT applied_seq FROM topic_conversations").fetchone()[0] == cursor
        assert c.execute("SELECT count(*) FROM messages").fetchone()[0] == 17
        c.execute("UPDATE topics SET compressed=? WHERE id=?", (good, first))
    assert mem.drain() == 1  # the turn's job applies it now
    stats = mem.topic_stats("u1", "s1")
    assert stats is not None and stats.topic_id == first and stats.compressed_messages == 0
    assert stats.total_messages == 15
    mem.close()
