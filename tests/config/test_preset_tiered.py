"""Seed 003 (`tiered`) as its document states it: stage 1 (the profile) reads
``profile_context_min_importance`` wherever the profile is served, and "# Recent Conversation"
is the session's short-term window (its turns after the last episode)."""

from __future__ import annotations

import time

import pytest
from api_support import served

from mnemo import Memory

TIERED = {"embedder": "hashing", "preset": "tiered"}
ALEX = [{"role": "user", "content": "My name is Alex and I live in Lisbon."}]  # 0.9 / 0.7


def talk(mem: Memory, n: int, session: str = "s1") -> list[str]:
    turns = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i + 1} of the talk",
         "created_at": f"2024-01-01T00:{i:02d}:00"}
        for i in range(n)
    ]  # fmt: skip
    return mem.add_messages(turns, user_id="u1", session_id=session)


def test_the_profile_endpoint_serves_stage_1_with_its_setting(db_path: str) -> None:
    with served(db_path, preset="tiered", profile_context_min_importance=0.8) as (_, client):
        client.post("/v1/messages", json={"user_id": "u1", "session_id": "s0", "messages": ALEX})
        facts: list[dict] = []
        for _ in range(150):  # the server's worker runs the profile job
            facts = client.get("/v1/users/u1/profile", params={"min_importance": 0}).json()["facts"]
            if len(facts) == 2:
                break
            time.sleep(0.1)
        assert sorted(f["key"] for f in facts) == ["location", "name"]
        stage1 = client.get("/v1/users/u1/profile").json()["facts"]
        assert [f["key"] for f in stage1] == ["name"]  # 0.7 < 0.8: the setting, not 0.5


def test_recent_conversation_is_the_short_term_window(db_path: str) -> None:
    with Memory(db_path, **TIERED) as mem:
        ids = talk(mem, 15)
        mem.drain()  # 15 < 20 turns: no episode yet, the window is all of them
        window = mem.context("the talk", "u1", "s1").section("conversation")
        assert [i.id for i in window.items] == ids  # type: ignore[union-attr]
    with Memory(db_path, **TIERED) as mem:
        more = mem.add_messages(
            [{"role": "user" if i % 2 == 0 else "assistant", "content": f"later turn {i}"}
             for i in range(10)], user_id="u1", session_id="s1",
        )  # fmt: skip
        mem.drain()  # turn 20 arrived: turns 1-10 became an episode, the window is 11-25
        [episode] = mem.list("u1", kind="episode")
        assert episode.metadata["turn_range"] == "turns 1-10"
        bundle = mem.context("the talk", "u1", "s1")
        window = bundle.section("conversation")
        assert [i.id for i in window.items] == ids[10:] + more  # type: ignore[union-attr]
        text = bundle.render()
        assert "# Recent Conversation\nuser: turn 11 of the talk" in text
        assert "later turn 9" in text


def test_stage_2_takes_3_episodes_under_cosine_distance_0_4(db_path: str) -> None:
    with Memory(db_path, **TIERED) as mem:
        texts = [
            "User asked about vector databases and pgvector",
            "User asked about vector databases and FAISS",
            "User compared vector databases for retrieval",
            "User asked about vector databases, FAISS and pgvector indexes",
            "User planned a trip to Lisbon in June",
            "vector databases: pgvector versus FAISS",
        ]
        for text in texts:
            mem.add(text, user_id="u1", session_id="s1", kind="episode")
        query = "vector databases pgvector FAISS"
        hits = mem.context(query, "u1", "s1").section("episodes").items  # type: ignore[union-attr]
        assert len(hits) == 3  # LIMIT 3 (four are under 0.4)
        vecs = mem.embedder.embed([query, *texts])
        distance = {t: 1 - float(vecs[0] @ v) for t, v in zip(texts, vecs[1:], strict=True)}
        assert sum(d < 0.4 for d in distance.values()) == 4
        assert all(distance[h.content] < 0.4 for h in hits)  # embedding <=> query < 0.4
        for h in hits:  # the score is the cosine (1 - distance), ordered by distance
            assert h.score == pytest.approx(1 - distance[h.content], abs=1e-4)
        assert [h.content for h in hits] == sorted(
            (t for t in texts if distance[t] < 0.4), key=lambda t: distance[t]
        )[:3]
