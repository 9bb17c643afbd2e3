"""The structured profile (`tiered`): validation, the conflict rule, history, stage 1, LLM."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest
from scripted_server import ScriptedServer

from mnemo import Memory, ValidationError
from mnemo.config.settings import Settings
from mnemo.text.profile_rules import Candidate
from mnemo.tiers.conversation.profile import decide, is_refinement, valid

FILLER = "Tell me more about vector databases."

PROFILE_ONLY: dict = {"profile_enabled": True, "fact_extraction": "off", "episodes_enabled": False}


@pytest.fixture
def mem(open_mem: Callable[..., Memory]) -> Memory:
    """The profile tier alone, on each store (conftest's ``backend``)."""
    return open_mem(**PROFILE_ONLY)


REPLY = "Sure, FAISS and pgvector are both options."


def say(mem: Memory, text: str, role: str = "user") -> None:
    mem.add_messages([{"role": role, "content": text}], "u1", "s1")
    mem.drain()


def names(mem: Memory) -> list[tuple[str, float, bool]]:
    facts = mem.profile("u1", include_inactive=True, category="identity")
    return [(f.value, f.confidence, f.active) for f in facts if f.key == "name"]


def test_seed_003_alex_example_plays_out_with_history(mem: Memory) -> None:
    statements = {5: "My name is Alex", 50: "Call me Al", 80: "My full name is Alexander"}
    seen = {}
    for turn in range(1, 81):
        role = "user" if turn % 2 else "assistant"
        text = statements.get(turn, FILLER if role == "user" else REPLY)
        say(mem, text, "user" if turn in statements else role)
        if turn in statements:
            seen[turn] = names(mem)
    assert seen[5] == [("Alex", 1.0, True)]  # STORED
    assert seen[50] == [("Alex", 1.0, True)]  # IGNORED (0.6 < 1.0)
    assert seen[80] == [("Alexander", 0.95, True), ("Alex", 1.0, False)]  # UPDATED, kept
    [active] = [f for f in mem.profile("u1") if f.key == "name"]
    turn80 = mem.messages("u1", session_id="s1", limit=200)[79]
    assert active.source_message_ids == [turn80.id] and turn80.seq == 80
    history = mem.history(active.id)
    assert [(h.event, h.actor) for h in history] == [("UPDATE", "rules")]
    assert history[0].old["value"] == "Alex" and history[0].old["active"] is False
    assert history[0].new["value"] == "Alexander" and history[0].new["note"]["model"]
    old_id = history[0].old["id"]
    assert [h.event for h in mem.history(old_id)] == ["ADD"]
    events = [
        (h.event, (h.new or {}).get("value"))
        for h in mem.store.conversation.profile_history("default", "u1")
    ]
    assert events == [("ADD", "Alex"), ("UPDATE", "Alexander")]


def _cand(conf: float, imp: float, category: str = "identity", key: str = "name") -> Candidate:
    return Candidate(category, key, "x", conf, imp, "test", "")


def test_validation_thresholds_are_seed_003s() -> None:
    s = Settings(embedder="hashing")
    kept = valid(
        [
            _cand(0.39, 0.9, key="a"),
            _cand(0.4, 0.9, key="b"),
            _cand(0.9, 0.19, key="c"),
            _cand(0.9, 0.2, key="d"),
            _cand(0.9, 0.9, category="mood", key="e"),
            _cand(0.5, 0.9, key="f"),
            _cand(0.7, 0.9, key="f"),  # same key in one message: the most confident
        ],
        s,
    )
    assert [(c.key, c.confidence) for c in kept] == [("b", 0.4), ("d", 0.9), ("f", 0.7)]


def test_conflict_rule_decisions(mem: Memory) -> None:
    say(mem, "I live in Boston")
    [old] = mem.profile("u1")
    later, earlier = ("9999-01-01T00:00:00.000000Z", 1), ("0001-01-01T00:00:00.000000Z", 1)
    assert decide(None, 0, "Paris", 0.1, 0.5, later) == "ADD"
    assert decide(old, 1, "Paris", 0.84, 0.5, later) == "NONE"  # lower confidence
    assert decide(old, 1, "Paris", 0.85, 0.5, later) == "UPDATE"  # equal updates
    assert decide(old, 1, "Paris", 1.0, 0.5, earlier) == "NONE"  # an older statement
    assert decide(old, 1, "boston", 0.85, 0.7, later) == "NONE"  # same value, nothing higher
    assert decide(old, 1, "Boston", 0.9, 0.5, later) == "REFRESH"
    assert decide(old, 1, "Boston Massachusetts", 0.5, 0.5, later) == "UPDATE"  # refinement
    assert is_refinement("Alex", "Alexander") and not is_refinement("Alex", "Al")


def test_profile_job_is_idempotent(mem: Memory) -> None:
    mem.add_messages(
        [
            {"role": "user", "content": "My name is Alex. I'm allergic to peanuts."},
            {"role": "user", "content": "I'm vegetarian and I live in Lisbon."},
        ],
        "u1",
        "s1",
    )
    mem.drain()
    before = [f.model_dump() for f in mem.profile("u1", include_inactive=True)]
    history = mem.store.conversation.profile_history("default", "u1")
    job = next(j for j in mem.store.jobs.list_jobs() if j.kind == "turns.profile")
    assert mem.handlers["turns.profile"](job.payload)["add"] == 0
    assert [f.model_dump() for f in mem.profile("u1", include_inactive=True)] == before
    assert mem.store.conversation.profile_history("default", "u1") == history
    assert {(f.category, f.key, f.value) for f in mem.profile("u1")} == {
        ("identity", "name", "Alex"),
        ("constraint", "allergy_peanuts", "peanuts"),
        ("constraint", "diet", "vegetarian"),
        ("identity", "location", "Lisbon"),
    }


def test_stage_one_is_important_active_facts_by_importance(mem: Memory) -> None:
    say(mem, "I love hiking. My name is Sam. I'm allergic to shellfish. I work as a nurse.")
    stage1 = mem.profile("u1", min_importance=0.5)
    assert [(f.key, f.importance) for f in stage1] == [
        ("allergy_shellfish", 0.95),
        ("name", 0.9),
        ("occupation", 0.7),
    ]
    assert "likes_hiking" in {f.key for f in mem.profile("u1")}
    assert stage1 == mem.profile("u1", min_importance=0.5)  # deterministic


def test_only_user_turns_feed_the_profile(mem: Memory) -> None:
    say(mem, "My name is Assistant Bot", role="assistant")
    assert mem.profile("u1") == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"user_id": ""}, "user_id"),
        ({"user_id": "u1", "min_importance": 1.5}, "min_importance"),
        ({"user_id": "u1", "category": "mood"}, "category"),
    ],
)
def test_bad_profile_queries_raise(mem: Memory, kwargs: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        mem.profile(**kwargs)


def test_delete_user_erases_profile(mem: Memory) -> None:
    say(mem, "My name is Alex")
    assert mem.profile("u1")
    assert mem.delete_user("u1")["profile_facts"] == 1
    assert mem.profile("u1", include_inactive=True) == []


# ---- with an LLM (the scripted OpenAI-compatible server) ---------------------------------
@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:
        yield s


@pytest.fixture
def llm_mem(db_path: str, server: ScriptedServer) -> Iterator[Memory]:
    m = Memory(
        db_path,
        embedder="hashing",
        **PROFILE_ONLY,
        llm_base_url=server.url,
        llm_max_retries=0,
    )
    yield m
    m.close()


def test_llm_facts_are_used_and_attributed(llm_mem: Memory, server: ScriptedServer) -> None:
    facts = [
        {"category": "identity", "key": "name", "value": "Alex", "confidence": 1.0},
        {"category": "preference", "key": "language", "value": "Python", "confidence": 0.9,
         "importance": 0.7},
        {"category": "preference", "key": "mood", "value": "meh", "confidence": 0.3},
    ]  # fmt: skip
    server.enqueue_chat(json.dumps({"facts": facts}))
    say(llm_mem, "My name is Alex and I prefer Python")
    got = {(f.key, f.value, f.confidence, f.importance) for f in llm_mem.profile("u1")}
    assert got == {("name", "Alex", 1.0, 0.8), ("language", "Python", 0.9, 0.7)}
    [request] = [r for r in server.requests if r.path.endswith("/chat/completions")]
    assert "My name is Alex and I prefer Python" in request.json["messages"][-1]["content"]
    fact = llm_mem.profile("u1")[0]
    [entry] = llm_mem.history(fact.id)
    assert entry.actor == "llm" and "fallback" not in entry.new["note"]
    job = next(j for j in llm_mem.store.jobs.list_jobs() if j.kind == "turns.profile")
    assert job.status == "done"


@pytest.mark.parametrize(
    "script",
    [
        [{"status": 500}],  # a transient failure (retries exhausted)
        [{"chat": "no json here"}, {"chat": "still none"}],  # unparseable twice
        [{"chat": json.dumps({"facts": "Alex"})}],  # JSON of the wrong shape
    ],
)
def test_llm_failures_fall_back_to_rules_and_say_so(
    llm_mem: Memory, server: ScriptedServer, script: list[dict]
) -> None:
    for reply in script:
        if "chat" in reply:
            server.enqueue_chat(reply["chat"])
        else:
            server.enqueue(status=reply["status"])
    say(llm_mem, "My name is Alex")
    [fact] = llm_mem.profile("u1")
    assert (fact.value, fact.confidence) == ("Alex", 1.0)
    [entry] = llm_mem.history(fact.id)
    assert entry.actor == "rules" and entry.new["note"]["model"] == "rule_based"
    assert entry.new["note"]["fallback"].startswith(("LLMTransientError", "LLMOutputError"))


def test_a_non_transient_llm_error_fails_the_job(llm_mem: Memory, server: ScriptedServer) -> None:
    server.enqueue(status=400, json={"error": {"message": "bad model"}})
    llm_mem.add_messages([{"role": "user", "content": "My name is Alex"}], "u1", "s1")
    llm_mem.drain()
    job = next(j for j in llm_mem.store.jobs.list_jobs() if j.kind == "turns.profile")
    assert job.status == "pending" and "bad model" in (job.last_error or "")
    assert llm_mem.profile("u1") == []
