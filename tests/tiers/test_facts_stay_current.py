"""Facts that stay current: a changed or ended state supersedes the old fact and the old
profile value, with history, and a read as of an earlier time still sees the old value.

Each scenario is a conversation of user turns through the public ``Memory`` API, the jobs
drained after each turn, on each store (conftest's ``backend``: a real SQLite file and the
PostgreSQL test server), with rules only (no LLM) unless the test scripts one. What is live is
read through the facts' state readings (``fact_subjects.current_state``), so the assertions
hold whatever wording the extractor gives a fact.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime

import pytest
from scripted_server import ScriptedServer

from mnemo import Memory
from mnemo.schemas import ProfileFact, format_time
from mnemo.text.fact_subjects import current_state, live_conflicts
from mnemo.tiers.conversation.profile import decide_end
from mnemo.tiers.facts.reconcile import Add, Delete, Neighbour, Update, settle_states

BOTH: dict = {"profile_enabled": True, "fact_extraction": "atomic", "episodes_enabled": False}


@pytest.fixture
def mem(open_mem: Callable[..., Memory]) -> Memory:
    """The fact and profile tiers on rules, on each store."""
    return open_mem(**BOTH)


def conversation(mem: Memory, turns: list[tuple[str, str]]) -> None:
    """Each ``(time, text)`` as one user turn of session s1, then every job it caused."""
    for when, text in turns:
        mem.add_messages([{"role": "user", "content": text, "created_at": when}], "u1", "s1")
        mem.drain()


def live(mem: Memory, key: str) -> set[str]:
    """The values the user's live facts give to state ``key`` (lower case)."""
    found = (current_state(f.content).get(key) for f in mem.list("u1", kind="fact"))
    return {v.lower() for v in found if v is not None}


def values(mem: Memory, key: str) -> list[tuple[str, bool]]:
    """(value, active) of every profile fact of ``key``, active first."""
    return [(f.value, f.active) for f in mem.profile("u1", include_inactive=True) if f.key == key]


def profile_fact(mem: Memory, key: str, value: str) -> ProfileFact:
    """The one profile fact of ``key`` holding ``value``."""
    [fact] = [
        f for f in mem.profile("u1", include_inactive=True) if (f.key, f.value) == (key, value)
    ]
    return fact


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def no_contradiction(mem: Memory) -> None:
    """No two live facts give two values to one single-valued state."""
    assert live_conflicts([(f.id, f.content) for f in mem.list("u1", kind="fact")]) == {}


def test_used_to_live_in_austin_but_now_seattle(mem: Memory) -> None:
    conversation(
        mem,
        [
            ("2021-03-01T10:00:00", "I live in Austin."),
            ("2024-05-01T10:00:00", "I used to live in Austin but now I live in Seattle."),
        ],
    )
    assert live(mem, "home") == {"seattle"}
    no_contradiction(mem)
    assert values(mem, "location") == [("Seattle", True), ("Austin", False)]
    assert profile_fact(mem, "location", "Austin").superseded_at == at("2024-05-01T10:00:00")
    # the Austin fact was superseded, with its text kept in history
    changed = [
        h
        for f in mem.list("u1", kind="fact")
        for h in mem.history(f.id)
        if h.event == "UPDATE" and h.old and "Austin" in h.old["content"]
    ]
    assert changed and changed[0].old["content"] == "User lives in Austin"
    # as of 2022 both the profile and the facts still say Austin
    then = mem.context("where does the user live", user_id="u1", as_of="2022-01-01T00:00:00")
    assert "location: Austin" in then.text and "Seattle" not in then.text
    hits = mem.search("where does the user live", user_id="u1", kinds=["fact"], as_of="2022-01-01")
    assert [h.content for h in hits] == ["User lives in Austin"]


def test_quitting_a_job_ends_the_employer_even_with_no_new_job(mem: Memory) -> None:
    conversation(
        mem,
        [
            ("2021-01-10T09:00:00", "I work at Initech as an engineer."),
            ("2023-02-01T09:00:00", "I quit my job last week."),
        ],
    )
    assert live(mem, "employer") == set()
    assert [f for f in mem.profile("u1") if f.key == "employer"] == []
    ended = profile_fact(mem, "employer", "Initech")
    assert not ended.active and ended.superseded_at == at("2023-02-01T09:00:00")
    events = mem.history(ended.id)
    assert [h.event for h in events] == ["ADD", "DELETE"]
    assert events[-1].old["active"] and not events[-1].new["active"]
    [quit_turn] = [m for m in mem.messages("u1") if "quit" in m.content]
    assert events[-1].source_message_ids == [quit_turn.id]
    # the employer fact became the quitting, its old text in history
    [fact] = [f for f in mem.list("u1", kind="fact") if "quit" in f.content]
    assert [h.event for h in mem.history(fact.id)] == ["ADD", "UPDATE"]
    assert mem.history(fact.id)[-1].old["content"] == "User works at Initech as an engineer"
    # as of 2022 the user still worked at Initech
    then = mem.context("where does the user work", user_id="u1", as_of="2022-06-01T00:00:00")
    assert "employer: Initech" in then.text
    now = mem.context("where does the user work", user_id="u1")
    assert "employer:" not in now.text


def test_quitting_a_named_job_then_a_new_job(mem: Memory) -> None:
    conversation(
        mem,
        [
            ("2021-01-10T09:00:00", "I work at Initech."),
            ("2022-05-02T09:00:00", "I quit my job at Initech."),
            ("2022-09-01T09:00:00", "I started working at Globex."),
        ],
    )
    assert live(mem, "employer") == {"globex"}
    assert values(mem, "employer") == [("Globex", True), ("Initech", False)]
    assert profile_fact(mem, "employer", "Initech").superseded_at == at("2022-05-02T09:00:00")
    no_contradiction(mem)


def test_curly_apostrophes_read_like_straight_ones(mem: Memory) -> None:
    """Phones type "I’ve" (U+2019): the state rules, the profile and the facts read it."""
    conversation(
        mem,
        [
            ("2021-01-10T09:00:00", "I’m an engineer and I work at Initech."),
            ("2022-05-02T09:00:00", "I’ve quit my job at Initech."),
            ("2022-06-01T09:00:00", "I’ve moved to Lyon, and I’m learning French."),
        ],
    )
    assert live(mem, "employer") == set()
    assert values(mem, "employer") == [("Initech", False)]
    assert live(mem, "home") == {"lyon"}
    facts = {f.content for f in mem.list("u1", kind="fact")}
    assert "User is learning French" in facts
    assert not any("’" in f or "User '" in f for f in facts)


def test_ending_a_job_that_is_not_the_current_one_changes_nothing(mem: Memory) -> None:
    conversation(
        mem,
        [
            ("2021-01-10T09:00:00", "I work at Globex."),
            ("2022-05-02T09:00:00", "I was laid off from Initech."),
        ],
    )
    assert live(mem, "employer") == {"globex"}
    assert values(mem, "employer") == [("Globex", True)]


def test_a_new_job_replaces_the_old_employer(mem: Memory) -> None:
    conversation(
        mem,
        [
            ("2021-01-10T09:00:00", "I work at Initech."),
            ("2023-04-01T09:00:00", "I joined Globex last month."),
        ],
    )
    assert live(mem, "employer") == {"globex"}
    assert values(mem, "employer") == [("Globex", True), ("Initech", False)]
    no_contradiction(mem)


def test_a_breakup_then_a_new_partner(mem: Memory) -> None:
    conversation(
        mem,
        [
            ("2020-01-01T09:00:00", "I'm dating Sam."),
            ("2021-06-01T09:00:00", "I broke up with Sam."),
        ],
    )
    assert live(mem, "partner") == set()
    assert values(mem, "partner") == [("Sam", False)]
    conversation(mem, [("2022-02-01T09:00:00", "I'm dating Alex now.")])
    assert live(mem, "partner") == {"dating alex"}
    assert values(mem, "partner") == [("Alex", True), ("Sam", False)]
    then = mem.context("who is the user dating", user_id="u1", as_of="2020-06-01T00:00:00")
    assert "partner: Sam" in then.text


def test_a_new_partner_replaces_the_old_one(mem: Memory) -> None:
    conversation(
        mem,
        [
            ("2020-01-01T09:00:00", "My boyfriend Sam is a chef."),
            ("2023-01-01T09:00:00", "I'm dating Alex."),
        ],
    )
    assert values(mem, "partner") == [("Alex", True), ("Sam", False)]
    assert profile_fact(mem, "partner", "Sam").superseded_at == at("2023-01-01T09:00:00")


def test_being_single_again_ends_the_partner(mem: Memory) -> None:
    conversation(
        mem,
        [
            ("2020-01-01T09:00:00", "I'm engaged to Sam."),
            ("2022-01-01T09:00:00", "I'm single now."),
        ],
    )
    assert live(mem, "partner") == {"single"}
    assert values(mem, "partner") == [("Sam", False)]
    assert values(mem, "relationship_status") == [("single", True), ("engaged", False)]


def test_a_diet_change(mem: Memory) -> None:
    conversation(
        mem,
        [
            ("2020-01-01T09:00:00", "I'm vegetarian."),
            ("2022-01-01T09:00:00", "I'm vegan now."),
        ],
    )
    assert live(mem, "diet") == {"vegan"}
    assert values(mem, "diet") == [("vegan", True), ("vegetarian", False)]
    no_contradiction(mem)


def test_a_diet_given_up(mem: Memory) -> None:
    conversation(
        mem,
        [
            ("2020-01-01T09:00:00", "I'm vegetarian."),
            ("2022-01-01T09:00:00", "I'm not vegetarian anymore."),
        ],
    )
    assert live(mem, "diet") == set()
    assert values(mem, "diet") == [("vegetarian", False)]


def test_moving_cities(mem: Memory) -> None:
    conversation(
        mem,
        [
            ("2019-01-01T09:00:00", "I live in Leeds."),
            ("2021-01-01T09:00:00", "I moved out of Leeds."),
        ],
    )
    assert live(mem, "home") == set()
    assert values(mem, "location") == [("Leeds", False)]
    conversation(mem, [("2021-02-01T09:00:00", "I moved to Valencia.")])
    assert live(mem, "home") == {"valencia"}
    assert values(mem, "location") == [("Valencia", True), ("Leeds", False)]


@pytest.mark.parametrize(
    "text",
    [
        "Should I quit my job?",
        "If I quit my job, I would travel.",
        "My sister quit her job at Initech.",
        "I quit smoking.",
        "I left early today.",
    ],
)
def test_what_ends_nothing(mem: Memory, text: str) -> None:
    conversation(
        mem,
        [("2021-01-10T09:00:00", "I work at Initech."), ("2022-01-10T09:00:00", text)],
    )
    assert live(mem, "employer") == {"initech"}
    assert values(mem, "employer") == [("Initech", True)]


def test_an_ending_and_a_new_value_in_one_turn(mem: Memory) -> None:
    conversation(
        mem,
        [
            ("2021-01-10T09:00:00", "I work at Initech."),
            ("2022-01-10T09:00:00", "I quit my job at Initech and now I work at Globex."),
        ],
    )
    assert values(mem, "employer") == [("Globex", True), ("Initech", False)]


def test_rerunning_the_jobs_changes_nothing(mem: Memory) -> None:
    conversation(
        mem,
        [("2021-01-10T09:00:00", "I work at Initech."), ("2023-02-01T09:00:00", "I quit my job.")],
    )
    before = [f.model_dump() for f in mem.profile("u1", include_inactive=True)]
    history = mem.store.conversation.profile_history("default", "u1")
    facts = [(f.id, f.content) for f in mem.list("u1", kind="fact")]
    for job in mem.store.jobs.list_jobs():
        if job.kind in ("turns.profile", "turns.facts"):
            mem.handlers[job.kind](job.payload)
    assert [f.model_dump() for f in mem.profile("u1", include_inactive=True)] == before
    assert mem.store.conversation.profile_history("default", "u1") == history
    assert [(f.id, f.content) for f in mem.list("u1", kind="fact")] == facts


# ---- with an LLM (the scripted OpenAI-compatible server) -----------------------------------
@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:
        yield s


def test_an_llm_ended_fact_ends_the_profile_value(
    open_mem: Callable[..., Memory], server: ScriptedServer
) -> None:
    mem = open_mem(
        profile_enabled=True,
        fact_extraction="off",
        episodes_enabled=False,
        llm_base_url=server.url,
        llm_max_retries=0,
    )
    works = {"category": "identity", "key": "employer", "value": "Initech", "confidence": 0.9}
    server.enqueue_chat(json.dumps({"facts": [works]}))
    conversation(mem, [("2021-01-10T09:00:00", "I work at Initech.")])
    quit_ = {"category": "identity", "key": "employer", "value": None, "ended": True}
    server.enqueue_chat(json.dumps({"facts": [quit_]}))
    conversation(mem, [("2023-02-01T09:00:00", "I handed in my notice and I'm done there.")])
    ended = profile_fact(mem, "employer", "Initech")
    assert not ended.active and ended.superseded_at == at("2023-02-01T09:00:00")
    [add, end] = mem.history(ended.id)
    assert (add.event, end.event, end.actor) == ("ADD", "DELETE", "llm")


def test_an_llm_add_that_moves_the_user_supersedes_the_old_home(
    open_mem: Callable[..., Memory], server: ScriptedServer
) -> None:
    mem = open_mem(
        profile_enabled=False, episodes_enabled=False, llm_base_url=server.url, llm_max_retries=0
    )
    server.enqueue_chat(json.dumps({"facts": ["User lives in Austin."]}))
    conversation(mem, [("2021-03-01T10:00:00", "I live in Austin.")])
    server.enqueue_chat(json.dumps({"facts": ["User lives in Seattle now."]}))
    # the model adds the new home and leaves the old one live: the state rule supersedes it
    server.enqueue_chat(
        json.dumps({"decisions": [{"event": "ADD", "text": "User lives in Seattle now."}]})
    )
    conversation(mem, [("2024-05-01T10:00:00", "We packed up and we're in Seattle now.")])
    assert live(mem, "home") == {"seattle"}
    [fact] = mem.list("u1", kind="fact")
    [add, update] = mem.history(fact.id)
    assert (add.new["content"], update.new["content"]) == (
        "User lives in Austin.",
        "User lives in Seattle now.",
    )
    assert update.actor == "llm"
    hits = mem.search("where does the user live", user_id="u1", kinds=["fact"], as_of="2022-01-01")
    assert [h.content for h in hits] == ["User lives in Austin."]


def test_settle_states_keeps_one_live_value_per_state() -> None:
    shown = [
        Neighbour("m1", "User lives in Austin", 0.8),
        Neighbour("m2", "User works at Initech", 0.7),
        Neighbour("m3", "User's sister is a nurse", 0.6),
    ]
    decisions = [
        Add("User lives in Seattle"),
        Add("User quit their job"),
        Add("User's sister is Anna"),
        Add("User likes tea"),
    ]
    settled, notes = settle_states(decisions, shown)
    assert settled == [
        Update("m1", "User lives in Seattle"),
        Update("m2", "User quit their job"),
        Add("User's sister is Anna"),
        Add("User likes tea"),
    ]
    assert len(notes) == 2
    # a fact some decision already names is the model's to decide
    assert settle_states([Delete("m1"), Add("User lives in Seattle")], shown)[0] == [
        Delete("m1"),
        Add("User lives in Seattle"),
    ]


def test_decide_end() -> None:
    def fact(value: str, observed: str | None) -> ProfileFact:
        when = at("2020-01-01T00:00:00")
        seen = None if observed is None else at(observed)
        return ProfileFact(
            id="pf_1", user_id="u1", category="identity", key="employer", value=value,
            observed_at=seen, created_at=when, updated_at=when,
        )  # fmt: skip

    now = (format_time(at("2023-01-01T00:00:00")), 5)
    initech = fact("Initech", "2021-01-01T00:00:00")
    assert decide_end(None, 0, "", now) == "NONE"
    assert decide_end(initech, 1, "", now) == "END"
    assert decide_end(initech, 1, "Initech Ltd", now) == "END"
    assert decide_end(initech, 1, "Globex", now) == "NONE"
    assert decide_end(fact("Initech", "2024-01-01T00:00:00"), 9, "", now) == "NONE"  # later
    assert decide_end(fact("Initech", None), 0, "", now) == "END"
