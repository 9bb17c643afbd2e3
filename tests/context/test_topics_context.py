"""The ``topics`` preset's context: `topics`'s topic summary and recent messages."""

from __future__ import annotations

from pathlib import Path

from topic_helpers import Clock, about, subject

from mnemo import Memory


def _mem(tmp_path: Path) -> Memory:
    mem = Memory(str(tmp_path / "m.db"), embedder="hashing", preset="topics")
    mem.topic_memory.clock = Clock()
    return mem


def test_context_is_the_topic_summary_then_its_recent_messages(tmp_path: Path) -> None:
    mem = _mem(tmp_path)
    assert mem.context("anything", "u1", "s1").render() == ""  # no topic yet
    for k in range(7):  # 14 messages: compacted, with a summary
        mem.add_user_message("u1", about(0, k), "s1")
        mem.add_assistant_message("u1", f"reply {k}.", "s1")
    mem.add_user_message("u1", subject(9), "s1")  # another topic becomes the active one
    expected = [f"{m['role']}: {m['content']}" for m in mem.topic_context("u1", "s1")]
    bundle = mem.context("unrelated words entirely", "u1", "s1")
    assert bundle.render().splitlines() == expected  # the active topic, without a summary
    # A query that matches the first topic gets that topic, as `topics`'s context lists it.
    bundle = mem.context(about(0, 3), "u1", "s1")
    lines = bundle.render().splitlines()
    [first] = [t for t in mem.topics("u1") if t.title == about(0, 0)]
    assert lines[0] == f"Topic summary: {first.summary}"
    assert lines[1:] == [
        "assistant: reply 4.",
        f"user: {about(0, 5)}",
        "assistant: reply 5.",
        f"user: {about(0, 6)}",
        "assistant: reply 6.",
    ]
    assert bundle.preset == "topics" and bundle.placement == "system"
    mem.close()


def test_a_tight_budget_drops_the_oldest_messages_first(tmp_path: Path) -> None:
    mem = _mem(tmp_path)
    for k in range(5):
        mem.add_user_message("u1", f"{subject(0, 30)} detail {k}", "s1")
        mem.add_assistant_message("u1", f"reply {k}.", "s1")
    assert len(mem.topics("u1")) == 1
    full = mem.context(subject(0, 30), "u1", "s1").render().splitlines()
    tight = mem.context(subject(0, 30), "u1", "s1", budget_tokens=200)
    lines = tight.render().splitlines()
    assert tight.dropped > 0 and len(lines) < len(full)
    assert lines == full[len(full) - len(lines) :]  # the newest survive, in order
    mem.close()
