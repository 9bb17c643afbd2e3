"""Seed 000 (`llmplatform`) as its document states it: the cosine as the similarity, the
200-recent-vectors window, the MemoryAgent's ``memory_context`` fields and sizes, and
``use_memory=true`` retrieving for every intent. Each test asserts the seed's own number or
format (docs/presets.md lists them against the seed's lines)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from api_support import served

from mnemo import Memory
from mnemo.context.render import memory_context
from mnemo.context.tokens import token_counter

LONG = " and then some more words about the evening" * 12  # > 240 chars


def cosine(mem: Memory, a: str, b: str) -> float:
    """The cosine of two texts under the Memory's embedder (unit vectors: a dot product)."""
    va, vb = mem.embedder.embed([a, b])
    return float(np.dot(va, vb))


def open_llmplatform(path: str | Path, **kw: object) -> Memory:
    return Memory(str(path), embedder="hashing", preset="llmplatform", **kw)


def say(mem: Memory, texts: list[str], session: str = "s1", minute0: int = 0) -> list[str]:
    turns = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": t,
         "created_at": f"2024-01-01T{(minute0 + i) // 60:02d}:{(minute0 + i) % 60:02d}:00"}
        for i, t in enumerate(texts)
    ]  # fmt: skip
    return mem.add_messages(turns, user_id="u1", session_id=session)


QUERY = "cooking pasta tonight"
MATCHES = [
    "cooking pasta tonight with friends",
    "cooking pasta tonight",
    "we are cooking fresh pasta tonight at home",
]


def test_reported_similarity_is_the_cosine_not_a_normalised_score(db_path: str) -> None:
    with open_llmplatform(db_path) as mem:
        say(mem, [*MATCHES, "the weekend bakery visit"])
        hits = mem.search(QUERY, user_id="u1", session_id="s1")
        assert len(hits) == 3  # the bakery turn is below 0.45
        for h in hits:
            assert abs(h.score - cosine(mem, QUERY, h.content)) < 1e-5
            assert 0.45 <= h.score <= 1.0  # "similarity: float  # 0.45 - 1.0"
        assert hits[-1].score > 0.45  # a min-max blend made the weakest hit 0.0
        bundle = mem.context(QUERY, "u1", "s1")
        for item in bundle.data["context"]:
            assert abs(item["similarity"] - cosine(mem, QUERY, item["content"])) < 1e-4
        similar = bundle.section("similar").items  # type: ignore[union-attr]
        text = bundle.render()
        for item in similar:  # the prompt's "(0.xx)" is the cosine too
            assert f"- ({cosine(mem, QUERY, item.content):.2f}) " in text
        assert "(0.00)" not in text


def test_only_the_200_most_recent_vectors_are_compared(db_path: str) -> None:
    with open_llmplatform(db_path) as mem:
        assert mem.settings.dense_window == 200
        filler = [f"note number {i} about the garden shed" for i in range(250)]
        filler[10] = "zebra migration across the kenyan plains"  # among the 50 oldest
        filler[240] = "zebra migration across the tanzanian plains"  # among the 200 newest
        say(mem, filler)
        hits = mem.search("zebra migration plains", user_id="u1", session_id="s1")
        assert [h.content for h in hits] == [filler[240]]
        wide = open_llmplatform(db_path, dense_window=None)
        try:
            found = {h.content for h in wide.search("zebra migration plains", "u1", "s1")}
        finally:
            wide.close()
        assert found == {filler[10], filler[240]}  # the window, not the threshold, cut it


def test_memory_context_carries_the_seed_fields_whole(db_path: str) -> None:
    with open_llmplatform(db_path) as mem:
        texts = [f"turn {i}: " + "cooking pasta tonight, " * 12 for i in range(14)]
        ids = say(mem, texts)
        for i in range(4):
            mem.add(f"summary {i} of the pasta talk{LONG}", user_id="u1", kind="summary",
                    metadata={"message_count": 12, "model": "rule_based"})  # fmt: skip
        for i in range(10):
            mem.add(f"user fact {i}: likes dish {i}", user_id="u1")
        bundle = mem.context(QUERY, "u1", "s1")
        data = memory_context(bundle)
        assert set(data) == {"context", "recent_messages", "summaries", "memories",
                             "query_embedding_dim"}  # fmt: skip
        # context: the top-8 similar messages, whole, although all of them are in the history
        assert len(data["context"]) == 8
        assert all(c["content"] in texts and len(c["content"]) > 200 for c in data["context"])
        assert set(data["context"][0]) >= {"role", "content", "similarity", "timestamp",
                                           "session_id"}  # fmt: skip
        # recent_messages: the last 6 Q&A pairs, whole, in conversation order
        assert [m["content"] for m in data["recent_messages"]] == texts[-12:]
        assert [m["role"] for m in data["recent_messages"]] == ["user", "assistant"] * 6
        # summaries: 3, whole
        assert len(data["summaries"]) == 3
        assert all(len(s["summary"]) > 240 for s in data["summaries"])
        assert {s["model"] for s in data["summaries"]} == {"rule_based"}
        # memories: 8 user memories, each with updated_at and tokenCount
        count = token_counter(mem.embedder)
        assert len(data["memories"]) == 8
        for m in data["memories"]:
            assert m["updated_at"] and m["tokenCount"] == count(m["value"]) > 0
        assert data["query_embedding_dim"] == mem.embedder.dim == 384
        # the prompt keeps the WriterAgent's cuts: 5 facts, 4 x 200 similar, 6 x 180 recent
        sizes = {s.name: len(s.items) for s in bundle.sections}
        assert (sizes["facts"], sizes["similar"], sizes["recent"]) == (5, 4, 6)
        similar = bundle.section("similar").items  # type: ignore[union-attr]
        recent = bundle.section("recent").items  # type: ignore[union-attr]
        assert all(len(i.content) <= 200 for i in similar)
        assert [i.id for i in recent] == ids[-6:] and all(len(i.content) <= 180 for i in recent)


def test_query_endpoint_retrieves_for_a_greeting_and_reports_the_intent(db_path: str) -> None:
    with served(db_path, preset="llmplatform") as (_, client):
        client.post("/v1/messages", json={"user_id": "u1", "session_id": "s1", "messages": [
            {"role": "user", "content": "hello there, my cat is called Luna"}]})  # fmt: skip
        client.post("/v1/memories", json={"user_id": "u1", "content": "cat: Luna"})
        body = client.post(
            "/query", json={"user_id": "u1", "session_id": "s1", "query": "hello there"}
        ).json()
        assert body["intent"] == "greeting" and body["need_memory"] is False  # reported
        assert body["agents_used"] == ["coordinator", "memory", "writer"]
        ctx = body["memory_context"]
        assert [c["content"] for c in ctx["context"]] == ["hello there, my cat is called Luna"]
        assert 0.45 <= ctx["context"][0]["similarity"] < 1.0
        assert [m["value"] for m in ctx["memories"]] == ["cat: Luna"]
        assert ctx["query_embedding_dim"] == 384
        assert [c["score"] for c in body["citations"]] == [ctx["context"][0]["similarity"]]
        off = client.post(
            "/query", json={"user_id": "u1", "query": "hello there", "use_memory": False}
        ).json()
        assert off["memory_context"] == {} and off["agents_used"] == ["coordinator", "writer"]


def test_cross_session_lookup_below_50_vectors(db_path: str) -> None:
    with open_llmplatform(db_path) as mem:
        assert mem.settings.cross_session_threshold == 50
        say(mem, ["the lighthouse keeper of the old harbour"], session="old")
        say(mem, [f"filler line {i} about nothing" for i in range(48)] + ["lighthouse keeper"])
        sessions = {
            h.session_id for h in mem.search("lighthouse keeper", "u1", current_session="s1")
        }
        assert sessions == {"s1", "old"}  # 49 vectors < 50: the user's other sessions too
        say(mem, ["lighthouse keeper again"], minute0=49)
        sessions = {
            h.session_id for h in mem.search("lighthouse keeper", "u1", current_session="s1")
        }
        assert sessions == {"s1"}  # 50 vectors: the session alone
