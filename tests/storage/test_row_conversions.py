"""What a store hands back from a write is what it reads back later, on both stores: a new
turn's Message (built from its NewMessage) and a topic (written and read through one table of
the ``topics`` columns)."""

from __future__ import annotations

from dataclasses import fields

import numpy as np

from mnemo import Memory
from mnemo.schemas import Message
from mnemo.storage.ports.topics import TopicLoad
from mnemo.storage.topic_records import Conversation, TopicRow


class Written:
    """A write observer that keeps the turns it is told of."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    def messages_written(self, messages: list[Message]) -> None:
        self.messages += messages


def test_a_new_turn_is_handed_back_as_it_is_read(mem: Memory) -> None:
    written = Written()
    mem.store.observe(written)  # type: ignore[arg-type]
    turns = [
        {"role": "user", "content": "I moved to Porto", "name": "Ann", "metadata": {"a": 1}},
        {"role": "assistant", "content": "Nice city"},
    ]
    ids = mem.add_messages(turns, "u", "s", ttl_seconds=3600, agent_id="helper")
    assert [m.id for m in written.messages] == ids
    for handed in written.messages:
        stored = mem.store.rows.get_message("default", handed.id)
        assert stored is not None
        assert handed == stored
    first = written.messages[0]
    assert (first.seq, first.name, first.metadata, first.agent_id) == (1, "Ann", {"a": 1}, "helper")
    assert first.expires_at is not None and first.ttl_seconds == 3600


def test_a_topic_is_read_back_as_it_was_written(mem: Memory) -> None:
    topic = TopicRow(
        id="top_1",
        tenant="default",
        user_id="u",
        session_id="s",
        title="moving",
        created_at=1_700_000_000.0,
        last_active_at=1_700_000_060.5,
        summary="Ann moved to Porto",
        summary_actor="rules",
        importance=0.75,
        access_count=3,
        message_count=2,
        compressed="earlier talk",
        compressed_count=1,
        embedding=np.arange(4, dtype=np.float32),
        embedder="hashing",
        embedding_weight=2,
        evicted_at=1_700_000_120.25,
        merged_into=None,
        metadata={"k": ["v"]},
    )

    def write(conv: Conversation) -> None:
        conv.touch(topic)

    mem.store.topics.apply_topics(TopicLoad("default", "u", "s"), write)
    read = mem.store.topics.get_topic("default", "top_1")
    assert read is not None
    for f in fields(TopicRow):
        got, want = getattr(read, f.name), getattr(topic, f.name)
        if f.name == "embedding":
            assert np.array_equal(got, want) and got.dtype == np.float32
        else:
            assert got == want, f.name
