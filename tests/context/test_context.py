"""Context assembly: each preset's sections, order, limits, budget and injection."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import pytest

from mnemo import Memory, ValidationError
from mnemo.context.assemble import expand_query
from mnemo.context.render import inject, memory_context
from mnemo.context.tokens import estimate_tokens, token_counter


def open_mem(db_path: str, preset: str) -> Memory:
    return Memory(db_path, embedder="hashing", preset=preset)


def filler(i: int, width: int) -> str:
    """About ``width`` characters of words that differ from turn to turn (no near-duplicates)."""
    words = (hashlib.blake2b(f"{i}-{j}".encode(), digest_size=3).hexdigest() for j in range(999))
    return " ".join(words)[:width]


def chat(
    mem: Memory, n: int, user: str = "u1", session: str = "s1", width: int = 50, pad: str = ""
) -> None:
    """``n`` dated turns about cooking pasta, each ``width`` characters of distinct words
    (or ``pad`` repeated ``width`` times)."""
    turns = [
        {
            "role": "user" if i % 2 == 0 else "assistant",
            "content": f"turn {i} about cooking pasta "
            + (pad * width if pad else filler(i, width)),
            "created_at": f"2024-01-01T00:{i:02d}:00",
        }
        for i in range(n)
    ]
    mem.add_messages(turns, user_id=user, session_id=session)


def test_default_preset_profile_memories_and_summaries(db_path: str) -> None:
    with open_mem(db_path, "default") as mem:
        chat(mem, 6)
        mem.add("Ann is allergic to peanuts", user_id="u1", tags=["diet"])
        mem.add("Ann and Bob talked about pasta and peanuts", user_id="u1", kind="summary")
        bundle = mem.context("what is Ann allergic to? peanuts", "u1", "s1")
        text = bundle.render()
        assert text.startswith("# Long-term Memory")
        assert "## Relevant Memories (most relevant first)" in text
        assert "- [" in text and "Ann is allergic to peanuts" in text
        assert "## Summaries" in text and bundle.placement == "system"
        assert bundle.token_count == estimate_tokens(text) <= bundle.budget_tokens


def test_budget_drops_least_relevant_items_first(db_path: str) -> None:
    with open_mem(db_path, "default") as mem:
        chat(mem, 30, width=300)
        big = mem.context("cooking pasta", "u1", "s1", budget_tokens=1500)
        small = mem.context("cooking pasta", "u1", "s1", budget_tokens=120)
        assert small.token_count <= 120 < big.token_count
        assert small.dropped > 0
        kept = [i.id for i in small.section("memories").items]  # type: ignore[union-attr]
        full = [i.id for i in big.section("memories").items]  # type: ignore[union-attr]
        assert kept == full[: len(kept)]  # the head of the ranking survives


def test_llmplatform_order_and_truncation(db_path: str) -> None:
    with open_mem(db_path, "llmplatform") as mem:
        chat(mem, 14, width=30, pad="cooking pasta ")  # long turns, cosine >= 0.45 to the query
        chat(mem, 8, session="s0", width=400)
        for i in range(4):
            mem.add(f"summary {i} " + "y" * 400, user_id="u1", kind="summary")
        mem.add("favourite_food: pasta", user_id="u1")
        bundle = mem.context("cooking pasta", "u1", "s1", location="Lisbon")
        names = [s.name for s in bundle.sections]
        assert names == ["history", "summaries", "facts", "similar", "recent", "location", "query"]
        history, summaries, facts, similar, recent = (
            bundle.section(n).items  # type: ignore[union-attr]
            for n in ("history", "summaries", "facts", "similar", "recent")
        )
        assert len(history) == 10 and all(len(i.content) <= 200 for i in history)
        assert len(summaries) == 3 and all(len(i.content) <= 240 for i in summaries)
        assert [f.content for f in facts] == ["favourite_food: pasta"]
        # four real similar turns (the matches sit in the history too; they still count)
        assert len(similar) == 4 and all(len(i.content) <= 200 for i in similar)
        assert all(i.kind == "message" and i.score and i.score >= 0.45 for i in similar)
        assert all(i.content.startswith("turn ") and "cooking pasta" in i.content for i in similar)
        assert len(recent) == 6 and all(len(i.content) <= 180 for i in recent)
        text = bundle.render()
        order = ["Recent conversation history:", "Session summaries:", "Stored user facts:"]
        order += ["User location: Lisbon", "User query: cooking pasta"]
        assert [text.index(x) for x in order] == sorted(text.index(x) for x in order)
        data = memory_context(bundle)
        assert set(data) == {"context", "recent_messages", "summaries", "memories",
                             "query_embedding_dim"}  # fmt: skip
        assert data["memories"][0]["value"] == "favourite_food: pasta"
        assert len(data["summaries"]) == 3


def test_llm_managed_few_memories_are_all_given(db_path: str) -> None:
    with open_mem(db_path, "llm-managed") as mem:
        for text in ("Likes jazz", "Lives in Porto", "Has two cats"):
            mem.add(text, user_id="u1")
        bundle = mem.context("completely unrelated question", "u1")
        assert bundle.render().splitlines()[0] == "## Relevant memory"
        assert {i.content for i in bundle.hits()} == {
            "Likes jazz",
            "Lives in Porto",
            "Has two cats",
        }


def test_llm_managed_retrieval_and_fallback(db_path: str) -> None:
    with open_mem(db_path, "llm-managed") as mem:
        for i in range(12):
            mem.add(f"memory number {i} about topic{i}", user_id="u1")
        hits = mem.context("memory number 3 about topic3", "u1").hits()
        assert hits[0].content == "memory number 3 about topic3" and len(hits) <= 5
        fallback = mem.context("zzz qqq", "u1").hits()  # nothing passes 0.5: 10 most recent
        assert [h.content for h in fallback] == [
            f"memory number {i} about topic{i}" for i in range(11, 1, -1)
        ]


def test_query_expansion_rule() -> None:
    assert expand_query("How tall am I?").endswith("physical attributes user facts")
    assert expand_query("What's my name") != "What's my name"
    assert expand_query("Tell me about Paris") != "Tell me about Paris"  # " me "
    assert expand_query("Describe the weather in Paris") == "Describe the weather in Paris"
    long = "what is my " + "x" * 100
    assert expand_query(long) == long


def test_agent_cli_replaces_last_user_message(db_path: str) -> None:
    with open_mem(db_path, "agent-cli") as mem:
        chat(mem, 4, width=2, pad=" cooking pasta")  # cosine over the .35 threshold
        mem.add("The conversation is about pasta", user_id="u1", session_id="s1", kind="summary")
        bundle = mem.context("cooking pasta tips", "u1", "s1")
        assert bundle.placement == "user"
        text = bundle.render()
        assert text.startswith("Conversation summary:\nThe conversation is about pasta")
        assert re.search(
            r"Long-term memory \(most relevant first\):\n- \[(user|assistant)\] turn", text
        )
        assert text.endswith("Current message: cooking pasta tips")
        msgs = [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "cooking pasta tips"},
        ]
        out = inject(bundle, msgs)
        assert out[0] == msgs[0] and out[1]["content"] == text and msgs[1]["content"] != text
        none = mem.context("cooking pasta", "u1", "s1", top_k=0)
        assert none.section("memory").items == []  # type: ignore[union-attr]


def test_tiered_format_with_profile_and_episodes(db_path: str) -> None:
    mem = Memory(db_path, embedder="hashing", preset="tiered")
    mem.add_messages(
        [{"role": "user", "content": "My name is Alex and I live in Lisbon."}], "u1", "s0"
    )
    mem.drain()  # the profile tier (rules) extracts name and location
    chat(mem, 12)
    mem.add(
        "User asked about vector databases",
        user_id="u1",
        session_id="s1",
        kind="episode",
        metadata={"turn_start": 1, "turn_end": 10},
    )
    bundle = mem.context("vector databases", "u1", "s1")
    text = bundle.render()
    lines = text.splitlines()
    assert lines[:4] == [
        "# Long-term Memory",
        "## User Profile",
        "- name: Alex",
        "- location: Lisbon",
    ]
    facts = [i.metadata for i in bundle.section("profile").items]  # type: ignore[union-attr]
    assert all(f["importance"] >= 0.5 for f in facts) and facts[0]["category"] == "identity"
    assert "## Recent Context\n- turns 1-10: User asked about vector databases" in text
    # the short-term window: the turns after the episode's last (seq 10), "turn 10" and "turn 11"
    assert "# Recent Conversation\nuser: turn 10" in text and "user: turn 2 " not in text
    assert text.endswith("memory and conversation above.")
    mem.close()


@pytest.mark.parametrize(("floor", "keys"), [(0.5, ["name", "location"]), (0.8, ["name"])])
def test_tiered_profile_stage_reads_its_setting(
    db_path: str, floor: float, keys: list[str]
) -> None:
    with Memory(
        db_path, embedder="hashing", preset="tiered", profile_context_min_importance=floor
    ) as mem:
        mem.add_messages(
            [{"role": "user", "content": "My name is Alex and I live in Lisbon."}], "u1", "s0"
        )
        mem.drain()  # name 0.9, location 0.7
        profile = mem.context("anything", "u1", "s1").section("profile")
        assert [i.metadata["key"] for i in profile.items] == keys  # type: ignore[union-attr]


def test_system_injection_and_bad_input(db_path: str) -> None:
    with open_mem(db_path, "default") as mem:
        mem.add("Ann is vegan", user_id="u1")
        bundle = mem.context("vegan", "u1")
        out = inject(bundle, [{"role": "user", "content": "vegan?"}])
        assert out[0]["role"] == "system" and "Ann is vegan" in out[0]["content"]
        out = inject(
            bundle, [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "x"}]
        )
        assert out[0]["content"].startswith("Be brief.\n\n# Long-term Memory")
        for bad in ({"budget_tokens": 0}, {"budget_tokens": "9"}, {"user_id": ""}):
            args: dict[str, Any] = {"query": "q", "user_id": "u1", **bad}
            with pytest.raises(ValidationError):
                mem.context(**args)
        assert mem.context("", "u1").token_count >= 0


def test_token_counter_is_offline_estimate_for_hashing(mem: Memory) -> None:
    assert token_counter(mem.embedder) is estimate_tokens
    assert estimate_tokens("hello world") == 3
    assert estimate_tokens("x" * 400) == 80


def test_default_layout_leaves_out_talk_and_excerpts_the_tail(db_path: str) -> None:
    from mnemo.context.layouts import EXCERPT_CHARS, FULL_HITS

    with open_mem(db_path, "default") as mem:
        long = [
            {"role": "user", "content": f"Note {i} about the garden. {filler(i, 200)}. "
             f"{filler(i + 50, 200)}. The tomato plants number {i} grew tall."}
            for i in range(FULL_HITS + 2)
        ]  # fmt: skip
        mem.add_messages(long, user_id="u1", session_id="s1")
        talk = [
            {"role": "user", "content": "How tall are the tomato plants?"},
            {"role": "assistant", "content": "I'm not sure, could you remind me?"},
            {"role": "user", "content": "Thanks, bye!"},
        ]
        mem.add_messages(talk, user_id="u1", session_id="s2")
        bundle = mem.context("tomato plants tall", "u1", None, 3000)
        items = bundle.section("memories").items  # type: ignore[union-attr]
        contents = [i.content for i in items]
        assert "I'm not sure, could you remind me?" not in contents
        assert "Thanks, bye!" not in contents
        memories = [i for i in items if i.content.startswith(("Note", "…"))]
        assert all(len(i.content) > EXCERPT_CHARS for i in memories[:FULL_HITS])
        tail = memories[FULL_HITS:]
        assert tail and all("tomato plants" in i.content and len(i.content) <= EXCERPT_CHARS + 4
                            for i in tail)  # fmt: skip
        # the request's own texts are left out of the recalled items
        again = mem.context("tomato plants tall", "u1", None, 3000,
                            exclude=["How tall are the tomato plants?"])  # fmt: skip
        assert "How tall are the tomato plants?" not in [i.content for i in again.hits()]
        with pytest.raises(ValidationError, match="exclude"):
            mem.context("x", "u1", exclude="not a list")
