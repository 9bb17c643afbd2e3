"""`topics`'s topic API on Memory: matching, titles, importance, stats, persistence, the job
path, cross-topic search, merging, feedback, bad input and the preset."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from topic_helpers import DAY, T0, TOPICS_ONLY, Clock, about, subject

from mnemo import Memory, NotFoundError, Settings, ValidationError
from mnemo.schemas import TopicStats
from mnemo.tiers.topics.memory import feedback_importance


@pytest.fixture
def mem(open_mem: Callable[..., Memory]) -> Memory:
    """A Memory with only the topic tier on, on each store (conftest's ``backend``)."""
    return open_mem(**TOPICS_ONLY)


@pytest.fixture
def make(open_mem: Callable[..., Memory]) -> Callable[..., Memory]:
    """Open Memory objects with only the topic tier on, on the test's store of each backend."""

    def open_(clock: Clock | None = None, **kw: object) -> Memory:
        mem = open_mem(**TOPICS_ONLY, **kw)
        mem.topic_memory.clock = clock or Clock()
        return mem

    return open_


def _mem(path: Path | str, clock: Clock | None = None, **kw: object) -> Memory:
    mem = Memory(str(path), embedder="hashing", **TOPICS_ONLY, **kw)  # type: ignore[arg-type]
    mem.topic_memory.clock = clock or Clock()
    return mem


def test_a_user_message_joins_its_topic_or_opens_one(make: Callable[..., Memory]) -> None:
    mem = make()
    long_text = "x" * 50 + " " + subject(1) + " " + "y" * 60
    first = mem.add_user_message("u1", long_text, "s1", importance=0.8)
    assert first.title == long_text[:80] and first.importance == 0.8
    assert (first.access_count, first.message_count) == (1, 1)
    again = mem.add_user_message("u1", long_text + " more", "s1")
    assert again.id == first.id and again.access_count == 2 and again.importance == 0.8
    other = mem.add_user_message("u1", subject(2), "s1")
    assert other.id != first.id and other.importance == 0.5  # topic_default_importance
    reply = mem.add_assistant_message("u1", "an answer", "s1")
    assert reply is not None and reply.id == other.id and reply.message_count == 2
    assert reply.access_count == 1  # assistant turns refresh the timer, not the access count
    assert {t.id for t in mem.topics("u1")} == {first.id, other.id}
    assert mem.topics("u1", session_id="elsewhere") == []
    msgs = mem.messages("u1", session_id="s1")
    assert [m.topic_id for m in msgs] == [first.id, first.id, other.id, other.id]
    mem.close()


def test_matching_needs_cosine_above_the_threshold(tmp_path: Path) -> None:
    strict = _mem(tmp_path / "a.db", topic_similarity_threshold=0.99)
    loose = _mem(tmp_path / "b.db", topic_similarity_threshold=0.5)
    for mem in (strict, loose):
        mem.add_user_message("u1", about(3, 0), "s1")
        mem.add_user_message("u1", about(3, 1), "s1")  # cosine ~0.88 to the first
    assert len(strict.topics("u1")) == 2 and len(loose.topics("u1")) == 1
    strict.close()
    loose.close()


def test_an_assistant_message_without_a_topic_joins_none(mem: Memory) -> None:
    assert mem.add_assistant_message("u1", "hello first", "s1") is None
    assert mem.topic_context("u1", "s1") == [] and mem.topic_stats("u1", "s1") is None
    assert mem.topic_history("u1", "s1") == []
    assert len(mem.messages("u1")) == 1


def test_stats_have_exactly_the_seeds_fields(tmp_path: Path) -> None:
    clock = Clock()
    mem = _mem(tmp_path / "m.db", clock)
    topic = mem.add_user_message("u1", subject(1), "s1", importance=0.5)
    clock.advance(3600)
    mem.add_assistant_message("u1", "sure", "s1")
    clock.advance(120)
    stats = mem.topic_stats("u1", "s1")
    assert stats is not None
    assert set(TopicStats.model_fields) == {
        "topic_id",
        "topic_title",
        "active_messages",
        "compressed_messages",
        "total_messages",
        "has_summary",
        "importance_score",
        "access_count",
        "memory_type",
        "half_life_days",
        "age_seconds",
        "inactive_seconds",
    }
    assert stats.model_dump() == {
        "topic_id": topic.id,
        "topic_title": subject(1),
        "active_messages": 2,
        "compressed_messages": 0,
        "total_messages": 2,
        "has_summary": False,
        "importance_score": 0.5,
        "access_count": 1,
        "memory_type": "short-term",
        "half_life_days": 1.0,
        "age_seconds": 3720.0,
        "inactive_seconds": 120.0,
    }
    by_id = mem.topic_stats("nobody", "none", topic_id=topic.id)  # a topic id names its scope
    assert by_id is not None and by_id.topic_id == topic.id
    mem.close()


def test_topics_persist_across_restarts(make: Callable[..., Memory]) -> None:
    mem = make()
    for k in range(8):
        mem.add_user_message("u1", about(5, k), "s1")
        mem.add_assistant_message("u1", f"answer {k}", "s1")
    before = mem.topic_stats("u1", "s1")
    mem.close()
    again = make()
    assert again.topic_stats("u1", "s1") == before
    topic = again.add_user_message("u1", about(5, 50), "s1")
    assert before is not None and topic.id == before.topic_id and topic.message_count == 17
    assert len(again.topic_history("u1", "s1")) == 17
    again.close()


def test_the_job_path_matches_the_inline_path_and_is_idempotent(tmp_path: Path) -> None:
    turns = []
    for k in range(7):
        turns += [
            {"role": "user", "content": about(k % 2, k), "created_at": T0 + 10 * k},
            {"role": "assistant", "content": f"reply {k}", "created_at": T0 + 10 * k + 1},
        ]
    job = _mem(tmp_path / "job.db", topics_enabled=True)
    ids = job.add_messages(turns, "u1", "s1")
    assert [j.kind for j in job.store.jobs.list_jobs()] == ["turns.topics"]
    assert job.topics("u1") == []  # nothing until the job runs
    assert job.drain() == 1
    grouped = [m.topic_id for m in job.messages("u1")]
    assert all(grouped) and len(set(grouped)) == 2
    state = [t.model_dump() for t in job.topics("u1")]
    job.topic_memory.handle_job({"message_ids": ids, "user_id": "u1", "session_id": "s1"})
    assert [t.model_dump() for t in job.topics("u1")] == state  # running it twice: no change
    inline = _mem(tmp_path / "inline.db")
    for t in turns:
        add = inline.add_user_message if t["role"] == "user" else inline.add_assistant_message
        add("u1", str(t["content"]), "s1", now=t["created_at"])  # type: ignore[operator]
    assert inline.store.jobs.list_jobs() == []  # topics_enabled is off: no job, inline only
    shape = lambda m: sorted((t.message_count, t.access_count, t.title) for t in m.topics("u1"))  # noqa: E731
    assert shape(inline) == shape(job)
    job.close()
    inline.close()


def test_cross_topic_search_finds_evicted_topics_too(make: Callable[..., Memory]) -> None:
    clock = Clock()
    mem = make(clock, topic_merge_threshold=None)
    target = mem.add_user_message("u1", about(7, 0), "s1", importance=0.1)
    clock.advance(2 * DAY)
    for i in range(20, 41):
        mem.add_user_message("u1", about(i, 0), "s1")
    assert target.id not in {t.id for t in mem.topics("u1")}  # decayed out of the working set
    hits = mem.search_topics(subject(7), "u1")
    assert hits[0].topic.id == target.id and hits[0].score > 0.8
    assert not hits[0].topic.in_working_set
    assert len(mem.search_topics(subject(7), "u1", limit=3)) == 3
    assert mem.search_topics("   ", "u1") == []
    # feedback raises its importance; its priority is back over the floor: it returns
    back = mem.topic_feedback(target.id, 1.0)
    assert back.importance == pytest.approx(0.28) and back.in_working_set
    assert target.id in {t.id for t in mem.topics("u1")}
    mem.close()


def test_feedback_moves_importance_toward_one_or_zero(mem: Memory) -> None:
    assert feedback_importance(0.5, 1.0, 0.2) == pytest.approx(0.6)
    assert feedback_importance(0.5, -1.0, 0.2) == pytest.approx(0.4)
    assert feedback_importance(1.0, 1.0, 1.0) == 1.0 and feedback_importance(0.0, -1, 1) == 0.0
    topic = mem.add_user_message("u1", subject(1), "s1")
    assert mem.topic_feedback(topic.id, -0.5).importance == pytest.approx(0.45)
    with pytest.raises(ValidationError):
        mem.topic_feedback(topic.id, 2.0)
    with pytest.raises(NotFoundError):
        mem.topic_feedback("top_missing", 1.0)


def test_topics_merge_when_their_embeddings_converge(tmp_path: Path) -> None:
    mixed = subject(1) + " " + subject(2)
    results = {}
    for name, threshold in (("merge", 0.45), ("default", 0.85), ("off", None)):
        mem = _mem(tmp_path / f"{name}.db", topic_merge_threshold=threshold)
        a = mem.add_user_message("u1", subject(1), "s1")
        b = mem.add_user_message("u1", subject(2), "s1")
        mem.add_assistant_message("u1", "about b", "s1")
        joined = mem.add_user_message("u1", mixed, "s1")  # joins a; a's mean nears b
        results[name] = (a, b, joined, mem.topics("u1"), mem.topics("u1", include_inactive=True))
        if name == "merge":
            assert joined.id == a.id and joined.message_count == 4
            assert [t.id for t in mem.topics("u1")] == [a.id]
            history = mem.topic_history("u1", "s1", topic_id=a.id)
            assert [m["content"] for m in history] == [subject(1), subject(2), "about b", mixed]
            assert {m.topic_id for m in mem.messages("u1")} == {a.id}
            assert mem.topic_stats("u1", "s1", topic_id=b.id).topic_id == a.id  # type: ignore[union-attr]
        mem.close()
    for name in ("default", "off"):
        assert len(results[name][3]) == 2


def test_bad_input_is_rejected_and_writes_nothing(mem: Memory) -> None:
    with pytest.raises(ValidationError):
        mem.add_user_message("u1", "hello", "s1", importance=1.5)
    with pytest.raises(ValidationError):
        mem.add_user_message("u1", 42, "s1")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        mem.add_user_message("", "hello")
    with pytest.raises(ValidationError):
        mem.add_user_message("u1", "hello", now="not a time")
    with pytest.raises(ValidationError):
        mem.search_topics("q", "u1", limit=0)
    with pytest.raises(ValidationError):
        mem.topic_feedback(7, 1.0)  # type: ignore[arg-type]
    assert mem.messages("u1") == [] and mem.topics("u1") == []


def test_erasing_a_user_erases_their_topics(db_path: str) -> None:
    mem = _mem(db_path)
    mem.add_user_message("gone", subject(1), "s1")
    mem.add_user_message("kept", subject(1), "s1")
    mem.delete_user("gone")
    with sqlite3.connect(db_path) as c:
        for table in ("topics", "topic_messages", "topic_conversations"):
            n = c.execute(f"SELECT count(*) FROM {table} WHERE user_id='gone'").fetchone()[0]
            assert n == 0, table
    assert len(mem.topics("kept")) == 1
    mem.close()


def test_the_topics_preset_is_seed_004_as_written() -> None:
    s = Settings(preset="topics")
    assert s.topics_enabled and s.topic_merge_threshold is None
    assert not s.topic_incremental_summary
    seed = (20, 0.7, 86_400, 2_592_000, 5, 12, 4, 80, 0.05)
    assert (
        s.topic_max_topics,
        s.topic_similarity_threshold,
        s.topic_base_half_life_seconds,
        s.topic_max_half_life_seconds,
        s.topic_access_threshold_for_lt,
        s.topic_max_messages_per_topic,
        s.topic_recent_message_keep,
        s.topic_title_chars,
        s.topic_min_priority,
    ) == seed
    assert not Settings().topics_enabled and Settings().topic_merge_threshold == 0.85
