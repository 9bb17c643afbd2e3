"""Episodes (`tiered`), session summaries (`llmplatform`), the rolling summary and eviction
(`agent-cli`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest
from scripted_server import ScriptedServer

from mnemo import Memory
from mnemo.tiers.conversation.episodes import due_chunks, window
from mnemo.tiers.conversation.summaries import due_pair_counts


def turns(start: int, stop: int) -> list[dict]:
    """Alternating user/assistant turns numbered start..stop-1, one minute apart."""
    out = []
    for i in range(start, stop):
        role = "user" if i % 2 else "assistant"
        text = (
            f"Turn {i}: planning step {i} of the Berlin trip."  # states no fact
            if role == "user"
            else (f"Noted step {i}, booked for {2000 + i}.")
        )
        out.append({"role": role, "content": text, "created_at": f"2024-01-01T00:{i % 60:02d}:00"})
    return out


def episodes(mem: Memory, session: str = "s1") -> list:
    found = mem.list("u1", session_id=session, kind="episode", limit=1000)
    return sorted(found, key=lambda e: e.metadata["turn_start"])


@pytest.fixture
def tiered(open_mem: Callable[..., Memory]) -> Iterator[Memory]:
    m = open_mem(preset="tiered")
    yield m
    m.close()


def test_window_compresses_at_20_keeping_10(tiered: Memory) -> None:
    tiered.add_messages(turns(1, 20), "u1", "s1")
    tiered.drain()
    assert episodes(tiered) == []  # 19 turns: not yet
    tiered.add_messages(turns(20, 21), "u1", "s1")
    tiered.drain()
    [ep] = episodes(tiered)
    assert ep.metadata["turn_range"] == "turns 1-10"
    assert (ep.metadata["turn_start"], ep.metadata["turn_end"], ep.metadata["message_count"]) == (
        1,
        10,
        10,
    )
    firsts = tiered.messages("u1", session_id="s1", limit=100)
    assert ep.source_message_ids == [m.id for m in firsts[:10]]
    assert ep.created_at == firsts[9].created_at and ep.metadata["model"] == "rule_based"
    ctx = tiered.conversation.ctx
    assert [m.seq for m in window(ctx, "u1", "s1")] == list(range(11, 21))
    tiered.add_messages(turns(21, 30), "u1", "s1")
    tiered.drain()
    assert len(episodes(tiered)) == 1  # window holds 19
    tiered.add_messages(turns(30, 31), "u1", "s1")
    tiered.drain()
    assert [e.metadata["turn_range"] for e in episodes(tiered)] == ["turns 1-10", "turns 11-20"]
    assert len(tiered.messages("u1", session_id="s1", limit=100)) == 30  # turns stay


def test_bulk_import_compresses_in_the_same_steps(tiered: Memory) -> None:
    tiered.add_messages(turns(1, 101), "u1", "s1")
    tiered.drain()
    ranges = [e.metadata["turn_range"] for e in episodes(tiered)]
    assert ranges == [f"turns {a}-{a + 9}" for a in range(1, 91, 10)]
    assert [m.seq for m in window(tiered.conversation.ctx, "u1", "s1")] == list(range(91, 101))
    job = next(j for j in tiered.store.jobs.list_jobs() if j.kind == "turns.episodes")
    tiered.handlers["turns.episodes"](job.payload)  # idempotent
    assert len(episodes(tiered)) == 9


def test_episodes_are_searchable_memories(open_mem: Callable[..., Memory]) -> None:
    mem = open_mem(fact_extraction="off")  # the default search
    mem.add_messages(turns(1, 21), "u1", "s1")
    mem.drain()
    hits = mem.search("Berlin trip steps", "u1", kinds=["episode"])
    mem.close()
    [hit] = hits
    assert hit.kind == "episode" and len(hit.source_message_ids) == 10
    assert "step" in hit.content


def test_due_chunks_and_pair_counts() -> None:
    assert [len(c) for c in due_chunks(list(range(39)), 20, 10)] == [10, 10]
    assert due_chunks(list(range(19)), 20, 10) == []
    assert due_pair_counts(35, 10, {10}) == [20, 30]


# ---- `llmplatform`: a session summary every 10 pairs -----------------------------------------
@pytest.fixture
def platform(open_mem: Callable[..., Memory]) -> Iterator[Memory]:
    m = open_mem(preset="llmplatform")
    yield m
    m.close()


def summaries(mem: Memory, kind: str = "session") -> list:
    found = mem.list("u1", session_id="s1", kind="summary", limit=1000)
    return sorted(
        [s for s in found if s.metadata["summary_kind"] == kind],
        key=lambda s: s.metadata.get("pair_count", 0),
    )


def test_session_summary_every_10_pairs_by_rules(platform: Memory) -> None:
    platform.add_messages(turns(1, 20), "u1", "s1")
    platform.drain()
    assert summaries(platform) == []  # 9.5 pairs
    platform.add_messages(turns(20, 21), "u1", "s1")
    platform.drain()
    [summary] = summaries(platform)
    meta = summary.metadata
    assert (meta["pair_count"], meta["message_count"], meta["model"]) == (10, 12, "rule_based")
    msgs = platform.messages("u1", session_id="s1", limit=100)
    assert summary.source_message_ids == [m.id for m in msgs[8:20]]  # the last 12
    assert "Q: " in summary.content and "Turn 19" in summary.content
    assert all(line.startswith("- ") for line in summary.content.splitlines())
    platform.add_messages(turns(21, 41), "u1", "s1")
    platform.drain()
    assert [s.metadata["pair_count"] for s in summaries(platform)] == [10, 20]
    assert episodes(platform) == []  # `llmplatform` has no episodes


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:
        yield s


@pytest.fixture
def llm_platform(db_path: str, server: ScriptedServer) -> Iterator[Memory]:
    m = Memory(
        db_path,
        embedder="hashing",
        preset="llmplatform",
        profile_enabled=False,
        llm_base_url=server.url,
        llm_model="gpt-4o-mini",
        llm_max_retries=0,
    )
    yield m
    m.close()


def test_llm_session_summary_is_bullets(llm_platform: Memory, server: ScriptedServer) -> None:
    bullets = ["Planning a Berlin trip.", "Steps 1-20 agreed.", "Bookings made.", "Budget set."]
    server.enqueue_chat(json.dumps({"bullets": bullets}))
    llm_platform.add_messages(turns(1, 21), "u1", "s1")
    llm_platform.drain()
    [summary] = summaries(llm_platform)
    assert summary.content == "\n".join(f"- {b}" for b in bullets)
    assert summary.metadata["model"] == "gpt-4o-mini" and "fallback" not in summary.metadata
    [req] = [r for r in server.requests if r.path.endswith("/chat/completions")]
    assert req.json["temperature"] == 0.2 and req.json["max_tokens"] == 152
    prompt = req.json["messages"][-1]["content"]
    assert "Turn 9:" in prompt and "Turn 7:" not in prompt  # the last 12 messages only
    assert [h.actor for h in llm_platform.history(summary.id)] == ["llm"]


@pytest.mark.parametrize(
    ("replies", "reason"),
    [
        (["not json", "still not json"], "LLMOutputError"),
        ([json.dumps({"bullets": ["only one"]})], "LLMOutputError"),
        ([500], "LLMTransientError"),
    ],
)
def test_bad_or_failing_llm_falls_back_to_rules(
    llm_platform: Memory, server: ScriptedServer, replies: list, reason: str
) -> None:
    for reply in replies:
        if isinstance(reply, int):
            server.enqueue(status=reply)
        else:
            server.enqueue_chat(reply)
    llm_platform.add_messages(turns(1, 21), "u1", "s1")
    llm_platform.drain()
    [summary] = summaries(llm_platform)
    assert summary.metadata["model"] == "rule_based"
    assert summary.metadata["fallback"].startswith(reason)
    assert "Q: " in summary.content
    assert [h.actor for h in llm_platform.history(summary.id)] == ["rules"]
    job = next(j for j in llm_platform.store.jobs.list_jobs() if j.kind == "turns.summary")
    assert job.status == "done"


def test_llm_episode_summary(db_path: str, server: ScriptedServer) -> None:
    server.enqueue_chat(json.dumps({"summary": "They planned the first ten steps of a trip."}))
    with Memory(
        db_path, embedder="hashing", preset="tiered", profile_enabled=False,
        llm_base_url=server.url, llm_model="m1", llm_max_retries=0,
    ) as mem:  # fmt: skip
        mem.add_messages(turns(1, 21), "u1", "s1")
        mem.drain()
        [ep] = episodes(mem)
        assert ep.content == "They planned the first ten steps of a trip."
        assert ep.metadata["model"] == "m1" and ep.metadata["turn_range"] == "turns 1-10"


# ---- `agent-cli`: rolling summary and eviction -----------------------------------------------
def test_rolling_summary_is_one_per_conversation(open_mem: Callable[..., Memory]) -> None:
    with open_mem(preset="agent-cli") as mem:
        mem.add_messages(turns(1, 5), "u1", "s1")
        mem.drain()
        [first] = summaries(mem, "rolling")
        assert first.metadata["through_seq"] == 4 and first.metadata["message_count"] == 4
        mem.add_messages(turns(5, 9), "u1", "s1")
        mem.drain()
        [again] = summaries(mem, "rolling")
        assert again.id == first.id and again.metadata["through_seq"] == 8
        assert again.metadata["message_count"] == 8 and len(again.source_message_ids) == 8
        assert [h.event for h in mem.history(again.id)] == ["ADD", "UPDATE"]
        assert mem.search("Berlin", "u1", kinds=["summary"])[0].id == again.id
        job = next(j for j in mem.store.jobs.list_jobs() if j.kind == "turns.rolling_summary")
        assert mem.handlers["turns.rolling_summary"](job.payload)["summaries"] == 0


def test_eviction_leaves_messages_intact(open_mem: Callable[..., Memory]) -> None:
    with open_mem(preset="agent-cli", max_entries=5) as mem:
        fact = mem.add("Turn 0: the user likes Berlin", "u1", session_id="s1",
                       created_at="2023-12-31T00:00:00")  # fmt: skip
        ids = mem.add_messages(turns(1, 9), "u1", "s1")
        mem.drain()
        assert len(mem.messages("u1", session_id="s1")) == 8  # the event log keeps all
        assert mem.get(ids[0]).content.startswith("Turn 1")
        hits = mem.search("Turn Berlin trip step booked", "u1", limit=50)
        found = {h.id for h in hits} | {d for h in hits for d in h.duplicates}  # + collapsed
        assert found & set(ids) == set(ids[3:])  # 9 entries, 5 kept: the fact and 3 turns left
        assert fact.id not in found and mem.history(fact.id)[-1].event == "DELETE"
        assert summaries(mem, "rolling")  # summaries are exempt
        job = next(j for j in mem.store.jobs.list_jobs() if j.kind == "turns.evict")
        assert mem.handlers["turns.evict"](job.payload) == {"evicted": 0}


@pytest.mark.parametrize(
    ("preset", "kinds"),
    [
        ("tiered", ["turns.profile", "turns.episodes"]),
        ("llmplatform", ["turns.profile", "turns.summary"]),
        ("agent-cli", ["turns.facts", "turns.rolling_summary", "turns.evict"]),
        ("llm-managed", ["turns.facts"]),
        ("topics", ["turns.topics"]),
    ],
)
def test_presets_register_their_seed_tiers(db_path: str, preset: str, kinds: list[str]) -> None:
    with Memory(db_path, embedder="hashing", preset=preset) as mem:
        assert [k for k in mem.handlers if k.startswith("turns.")] == kinds


def test_the_default_preset_runs_facts_profile_and_episodes(db_path: str) -> None:
    with Memory(db_path, embedder="hashing") as mem:
        kinds = [k for k in mem.handlers if k.startswith("turns.")]
    assert kinds == ["turns.facts", "turns.profile", "turns.episodes"]
