"""The fact tier with no LLM: rule-based extraction and reconciliation, dedupe, idempotency.

LLM behaviour (scripted server) is in test_facts_llm.py; context documents in
test_documents.py.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

import pytest

from mnemo import Memory
from mnemo.storage.sqlite.store import SQLiteStore
from mnemo.text import fact_rules, fact_subjects
from mnemo.tiers.facts.dedupe import chunk_words, first_of_near_copies
from mnemo.tiers.facts.reconcile import (
    Add,
    Delete,
    Keep,
    Neighbour,
    Update,
    reconcile_by_rules,
    safeguard,
)
from mnemo.tiers.facts.tier import JOB_KIND, FactTier

FACTS_ONLY: dict = {"profile_enabled": False, "episodes_enabled": False}


@pytest.fixture
def mem(open_mem: Callable[..., Memory]) -> Memory:
    """The fact tier alone, on each store (conftest's ``backend``)."""
    return open_mem(**FACTS_ONLY)


def facts(mem: Memory, user: str = "u1") -> list[str]:
    """Live fact contents of a user, sorted."""
    return sorted(m.content for m in mem.list(user, kind="fact"))


def fact_runs(mem: Memory) -> list[dict[str, Any]]:
    """Rows of the fact tier's processed-turn table, in the order they were written."""
    if not isinstance(mem.store, SQLiteStore):  # PostgreSQL: no rowid; turns in turn order
        with mem.store.db.connection() as c:  # type: ignore[attr-defined]
            return c.execute(
                "SELECT f.* FROM fact_runs f LEFT JOIN messages m ON m.id = f.message_id"
                " ORDER BY f.at, m.rowid"
            ).fetchall()
    con = sqlite3.connect(mem.store.location)
    con.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in con.execute("SELECT * FROM fact_runs ORDER BY rowid")]
    finally:
        con.close()


def say(mem: Memory, text: str, session: str = "s1", **extra: Any) -> list[str]:
    """Add one user turn and run the jobs it caused; returns its ids."""
    ids = mem.add_messages([{"role": "user", "content": text, **extra}], "u1", session)
    mem.drain()
    return ids


# ---- rule-based extraction -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("sentence", "fact"),
    [
        ("I live in Lyon.", "User lives in Lyon"),
        ("Oh, I'm allergic to peanuts!", "User is allergic to peanuts"),
        ("My sister is a nurse", "User's sister is a nurse"),
        ("I've been to Japan twice", "User has been to Japan twice"),
        ("I don't eat pork", "User does not eat pork"),
        ("I really enjoy hiking with my dog", "User really enjoys hiking with their dog"),
        ("I adopted a cat last week", "User adopted a cat last week"),
        ("I no longer work at Acme", "User no longer works at Acme"),
        ("I watch anime", "User watches anime"),
        ("I study law", "User studies law"),
    ],
)
def test_first_person_statements_become_third_person_facts(sentence: str, fact: str) -> None:
    assert fact_rules.statement_fact(sentence) == fact


@pytest.mark.parametrize(
    "sentence",
    [
        "Can you help me?",
        "I think it will rain",
        "I'm not sure about that",
        "I would like a recipe",
        "I need you to summarise this",
        "I have a question",
        "I'm sorry",
        "The weather is nice",
        "Thanks!",
        "I",
    ],
)
def test_questions_hedges_requests_and_other_subjects_are_not_facts(sentence: str) -> None:
    assert fact_rules.statement_fact(sentence) is None


def test_extract_facts_caps_count_and_length() -> None:
    text = "I live in Lyon. I love jazz. I have two cats. I play chess. I'm a baker."
    assert fact_rules.extract_facts(text, 3, 10, 500) == [
        "User lives in Lyon",
        "User loves jazz",
        "User has two cats",
    ]
    assert fact_rules.extract_facts("I run. I love jazz a lot", 3, 16, 500) == [
        "User loves jazz a lot"
    ]
    assert fact_rules.extract_facts("I love jazz", 3, 1, 12) == []


def test_subject_keys_and_withdrawn_statements() -> None:
    assert fact_subjects.subject_key("User's favourite colour is green")[0] == "'s favourite colour"
    assert fact_subjects.subject_key("User lives in Paris") == ("home", "Paris")
    assert fact_subjects.subject_key("User moved to Berlin") == ("home", "Berlin")
    assert fact_subjects.subject_key("User has 2 kids") == ("has kid", "2")
    assert fact_subjects.negated_statement("User stopped playing tennis") == "User plays tennis"
    assert fact_subjects.negated_statement("User likes tea") is None


def test_chunking_and_near_copies() -> None:
    words = " ".join(f"w{i}" for i in range(10))
    assert chunk_words(words, 4, 1) == ["w0 w1 w2 w3", "w3 w4 w5 w6", "w6 w7 w8 w9"]
    assert chunk_words("", 4, 1) == []
    vecs = __import__("numpy").eye(3, dtype="float32")[[0, 0, 1]]
    assert first_of_near_copies(vecs, 0.9) == [0, 2]


# ---- rule-based reconciliation ---------------------------------------------------------------
def n(memory_id: str, text: str, sim: float = 0.5) -> Neighbour:
    return Neighbour(memory_id, text, sim)


def test_rules_update_a_changed_value_keep_the_same_and_add_the_rest() -> None:
    near = {
        "User's favourite colour is green": [n("m1", "User's favourite colour is blue")],
        "User lives in Paris": [n("m2", "User lives in Paris")],
        "User loves jazz": [n("m1", "User's favourite colour is blue")],
        "User no longer eats meat": [n("m3", "User eats meat"), n("m4", "User eats fish")],
    }
    assert reconcile_by_rules(list(near), near) == [
        Update("m1", "User's favourite colour is green"),
        Keep("m2"),
        Add("User loves jazz"),
        Update("m3", "User no longer eats meat"),
    ]


def test_rules_change_an_existing_fact_at_most_once() -> None:
    near = {
        "User lives in Rome": [n("m1", "User lives in Paris")],
        "User lives in Oslo": [n("m1", "User lives in Paris")],
    }
    assert reconcile_by_rules(list(near), near) == [
        Update("m1", "User lives in Rome"),
        Add("User lives in Oslo"),
    ]


def test_safeguards() -> None:
    new = ["User lives in Rome"]
    # deleting everything shown is refused; with nothing else left the new fact is added
    out, notes = safeguard([Delete("a"), Delete("b")], new, shown=2)
    assert out == [Add("User lives in Rome")] and any("refused" in x for x in notes)
    # one delete among one shown fact is allowed (a plain contradiction)
    out, _ = safeguard([Delete("a"), Add("User lives in Rome")], new, shown=1)
    assert out == [Delete("a"), Add("User lives in Rome")]
    # more ADDs than new facts, two decisions on one id
    out, notes = safeguard(
        [Add("x" * 12), Add("y" * 12), Update("a", "User z"), Delete("a")], new, shown=3
    )
    assert out == [Add("x" * 12), Update("a", "User z")] and len(notes) == 2
    # an empty answer loses nothing
    assert safeguard([], new, shown=3)[0] == [Add("User lives in Rome")]
    assert safeguard([Keep("a")], new, shown=3)[0] == [Keep("a")]
    # `agent-cli` (seed 002): "no additions -> add the originals" covers a NONE-only answer
    out, notes = safeguard([Keep("a")], new, shown=3, none_adds=True)
    assert out == [Keep("a"), Add("User lives in Rome")] and "no ADD/UPDATE for" in notes[0]
    assert safeguard([Update("a", "User z")], new, shown=3, none_adds=True)[0] == [
        Update("a", "User z")
    ]


# ---- the job, end to end, with rules ---------------------------------------------------------
def test_facts_are_extracted_with_provenance_and_history(mem: Memory) -> None:
    assert JOB_KIND in mem.handlers
    ids = mem.add_messages(
        [
            {
                "role": "user",
                "content": "Hi! I live in Paris. My favourite colour is blue. Ok?",
                "created_at": "2023-05-08T13:56:00",
            },
            {"role": "assistant", "content": "I am a helpful assistant."},
        ],
        "u1",
        "s1",
    )
    [job] = mem.store.jobs.list_jobs()
    assert job.kind == JOB_KIND and job.status == "pending"
    assert mem.drain() == 1
    assert facts(mem) == ["User lives in Paris", "User's favourite colour is blue"]
    for item in mem.list("u1", kind="fact"):
        assert item.source_message_ids == [ids[0]]  # the user turn; assistant text is ignored
        assert item.session_id == "s1" and item.created_at.year == 2023
        assert item.metadata == {"extracted_by": "rules", "mode": "atomic"}
        [entry] = mem.history(item.id)
        assert (entry.event, entry.actor, entry.source_message_ids) == ("ADD", "rules", [ids[0]])
    assert mem.store.jobs.list_jobs()[0].status == "done"
    assert [r["message_id"] for r in fact_runs(mem)] == [ids[0]]


def test_changed_value_updates_and_withdrawal_updates(mem: Memory) -> None:
    say(mem, "My favourite colour is blue. I live in Paris.")
    second = say(mem, "Actually my favourite colour is green.")
    assert facts(mem) == ["User lives in Paris", "User's favourite colour is green"]
    colour = next(m for m in mem.list("u1") if "colour" in m.content)
    events = [(h.event, h.actor, h.source_message_ids) for h in mem.history(colour.id)]
    assert events[-1] == ("UPDATE", "rules", second)
    assert mem.history(colour.id)[-1].old["content"] == "User's favourite colour is blue"
    say(mem, "I no longer live in Paris.")
    assert facts(mem) == ["User no longer lives in Paris", "User's favourite colour is green"]


def test_near_duplicates_of_existing_facts_are_not_stored(mem: Memory) -> None:
    mem.add("User lives in Paris", "u1")
    say(mem, "I live in Paris!")
    assert facts(mem) == ["User lives in Paris"]
    [run] = fact_runs(mem)
    assert "duplicate of" in run["note"] and run["actor"] == "rules"
    say(mem, "I live in Paris. I live in Paris")  # a repeat inside one message too
    assert facts(mem) == ["User lives in Paris"]


def test_rerunning_a_job_adds_nothing(mem: Memory) -> None:
    ids = say(mem, "I live in Paris. I have two cats.")
    before = facts(mem)
    payload = {"message_ids": ids, "user_id": "u1", "session_id": "s1"}
    usage = mem.handlers[JOB_KIND](payload)
    assert usage == {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0, "fallbacks": 0}
    assert facts(mem) == before and len(fact_runs(mem)) == 1
    # a facts job enqueued again for the same turns (e.g. a replayed queue) changes nothing
    from mnemo.storage.base import NewJob

    mem.store.jobs.enqueue([NewJob(JOB_KIND, payload, user_id="u1")])
    assert mem.drain() == 1
    assert facts(mem) == before
    assert sum(len(mem.history(m.id)) for m in mem.list("u1")) == 2


def test_single_mode_takes_at_most_one_fact_per_exchange(db_path: str) -> None:
    # llm-managed extracts nothing without an LLM unless rules are asked for (its own test)
    with Memory(db_path, embedder="hashing", preset="llm-managed", fact_rule_fallback=True) as mem:
        assert mem.settings.fact_extraction == "single"
        ids = mem.add_messages(
            [
                {"role": "user", "content": "I live in Paris. I have two cats."},
                {"role": "assistant", "content": "Nice!"},
            ],
            "u1",
        )
        mem.drain()
        [item] = mem.list("u1", kind="fact")
        assert item.content == "User lives in Paris" and item.source_message_ids == ids


def test_off_registers_nothing_and_enqueues_nothing(db_path: str) -> None:
    with Memory(db_path, embedder="hashing", **FACTS_ONLY, fact_extraction="off") as mem:
        assert JOB_KIND not in mem.handlers
        mem.add_messages([{"role": "user", "content": "I live in Paris"}], "u1")
        assert mem.store.jobs.list_jobs() == [] and mem.drain() == 0


def test_agent_cli_preset_is_atomic() -> None:
    from mnemo import Settings

    assert Settings(preset="agent-cli").fact_extraction == "atomic"
    assert Settings().fact_extraction == "atomic"


def test_delete_user_erases_fact_runs(mem: Memory) -> None:
    say(mem, "I live in Paris")
    mem.delete_user("u1")
    assert fact_runs(mem) == [] and mem.list("u1") == []


def test_assistant_only_batches_and_erased_users_are_no_work(mem: Memory) -> None:
    ids = mem.add_messages([{"role": "assistant", "content": "I live in the cloud"}], "u1")
    assert mem.drain() == 1 and facts(mem) == []
    payload = {"message_ids": ["msg_missing", *ids], "user_id": "u1", "session_id": "s1"}
    assert mem.handlers[JOB_KIND](payload)["total_tokens"] == 0


def test_every_user_turn_of_a_batch_is_recorded_once(mem: Memory) -> None:
    turns = [
        {"role": "user", "content": "hello there"},
        {"role": "assistant", "content": "Hi! I live in the cloud."},
        {"role": "user", "content": "I live in Rome."},
        {"role": "user", "content": "What time is it?"},
    ]
    ids = mem.add_messages(turns, "u1")
    mem.drain()
    runs = fact_runs(mem)
    assert sorted(r["message_id"] for r in runs) == sorted([ids[0], ids[2], ids[3]])
    assert facts(mem) == ["User lives in Rome"]


#: Exchanges a chat application sends one at a time (one fact job each).
EXCHANGES = [
    ("I am Dana and I teach math in Leeds.", "Nice to meet you, Dana!"),
    ("We have a parrot called Kiwi and two goldfish.", "Lovely pets."),
    ("My husband Raj is a pilot, he flies for KLM.", "That sounds exciting."),
    ("Next month we are relocating to Valencia for my job.", "Big move!"),
    ("I used to live in Austin but now I live in Seattle.", "Noted."),
]


def _exchange(user: str, said: tuple[str, str]) -> list[dict[str, str]]:
    return [{"role": "user", "content": said[0]}, {"role": "assistant", "content": said[1]}]


def test_the_fact_job_reads_queued_jobs_turns_ahead_and_writes_the_same_facts(
    mem: Memory,
) -> None:
    for said in EXCHANGES:  # job by job, nothing queued behind
        mem.add_messages(_exchange("alone", said), "alone", "s1")
        mem.drain()
    ids = [mem.add_messages(_exchange("ahead", said), "ahead", "s1") for said in EXCHANGES]
    tier = FactTier(
        mem.store,
        mem.tenant,
        mem.embedder.id,
        mem.embedding,
        mem.pipeline.indexes,
        mem.settings,
        None,
    )
    job = mem.store.jobs.claim_job((JOB_KIND,), owner="test")
    assert job is not None and job.payload["message_ids"] == ids[0]
    tier(job.payload)
    mem.store.jobs.finish_job(job.id, None, "test")
    assert set(tier.reading.held) == {pair[0] for pair in ids[1:]}  # the user turns queued behind
    mem.drain()
    assert facts(mem, "ahead") == facts(mem, "alone") != []


#: Everyday turns, one user turn each, written on Wednesday 13 March 2024, and facts the
#: clause reader must keep from them (the regex rules kept at most one fact of each).
EVERYDAY = [
    "I am Dana, I teach math in Leeds and I am training for a triathlon.",
    "We have a parrot called Kiwi and two goldfish.",
    "My husband Raj is a pilot, he flies for KLM out of Amsterdam.",
    "Next month we are relocating to Valencia for my job.",
    "Our twins, Noor and Sami, started kindergarten this week!",
    "Ugh, I sprained my ankle playing basketball on Friday.",
]
EVERYDAY_FACTS = [
    "User teaches math in Leeds",
    "User is training for a triathlon",
    "User and one or more others have a parrot called Kiwi and two goldfish",
    "User's husband Raj is a pilot",
    "User's husband Raj flies for KLM out of Amsterdam",
    "User and one or more others are relocating to Valencia for their job next month (April 2024)",
    "User's twins, Noor and Sami, started kindergarten this week (week of 11 March 2024)",
    "User sprained their ankle playing basketball on Friday (8 March 2024)",
]


def test_offline_facts_of_everyday_turns_split_resolve_and_date(mem: Memory) -> None:
    for n, turn in enumerate(EVERYDAY):
        said = {"role": "user", "content": turn, "created_at": "2024-03-13T18:30:00+00:00"}
        mem.add_messages([said], "u1", f"s{n}")
    mem.drain()
    assert set(EVERYDAY_FACTS) <= set(facts(mem))
