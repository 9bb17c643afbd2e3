"""Agent scope (issue 24): turns, memories and profile facts private to one agent, shared by
every agent of a user, or an agent's own; reads see what the rules of mnemo.storage.agent_scope say,
on both stores. Each test fails on a mnemo without ``agent_id``."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mnemo import Memory
from mnemo.errors import NotFoundError, ValidationError

USER = "u1"


def seeded(mem: Memory) -> dict[str, str]:
    """One shared and one private-to-A and one private-to-B item of each sort; their ids."""
    ids = {}
    ids["shared_turn"] = mem.add_messages(
        [{"role": "user", "content": "The project codename is Heron"}], USER
    )[0]
    ids["a_turn"] = mem.add_messages(
        [{"role": "user", "content": "The launch password for alpha is Falcon"}],
        USER,
        agent_id="alpha",
    )[0]
    ids["b_turn"] = mem.add_messages(
        [{"role": "user", "content": "The launch password for beta is Osprey"}],
        USER,
        agent_id="beta",
    )[0]
    ids["shared_mem"] = mem.add("Heron ships in spring", USER).id
    ids["a_mem"] = mem.add("alpha launch password Falcon stored", USER, agent_id="alpha").id
    ids["b_mem"] = mem.add("beta launch password Osprey stored", USER, agent_id="beta").id
    return ids


def contents(items: list) -> set[str]:  # type: ignore[type-arg]
    return {i.content for i in items}


def test_an_agent_sees_shared_and_its_own_never_another_agents(mem: Memory) -> None:
    ids = seeded(mem)
    hits = mem.search("launch password Heron", USER, agent_id="alpha", limit=20)
    seen = {h.id for h in hits}
    assert {ids["a_turn"], ids["a_mem"], ids["shared_turn"], ids["shared_mem"]} <= seen
    assert not seen & {ids["b_turn"], ids["b_mem"]}
    assert {h.agent_id for h in hits} == {None, "alpha"}
    # lexical only and dense only: each retriever is confined, not just the fusion
    for kinds in (["message"], ["fact"]):
        got = {h.id for h in mem.search("Osprey beta", USER, agent_id="alpha", kinds=kinds)}
        assert not got & {ids["b_turn"], ids["b_mem"]}

    listed = mem.list(USER, agent_id="alpha")
    assert {m.id for m in listed} == {ids["a_mem"], ids["shared_mem"]}
    page = mem.list_page(USER, agent_id="alpha", limit=1)
    assert page.total == 2 and len(page.items) == 1
    turns = mem.messages(USER, agent_id="alpha")
    assert {m.id for m in turns} == {ids["shared_turn"], ids["a_turn"]}
    assert mem.messages_page(USER, agent_id="alpha").total == 2

    text = mem.context("launch password", USER, agent_id="alpha").render()
    assert "Falcon" in text and "Osprey" not in text

    assert mem.get(ids["a_mem"], user_id=USER, agent_id="alpha").agent_id == "alpha"
    assert mem.get(ids["shared_turn"], user_id=USER, agent_id="alpha").agent_id is None
    for other in (ids["b_mem"], ids["b_turn"]):
        with pytest.raises(NotFoundError):
            mem.get(other, user_id=USER, agent_id="alpha")
    with pytest.raises(NotFoundError):
        mem.get_memory(ids["b_mem"], user_id=USER, agent_id="alpha")


def test_the_user_alone_sees_everything_of_the_user(mem: Memory) -> None:
    ids = seeded(mem)
    hits = {h.id for h in mem.search("launch password Heron", USER, limit=20)}
    assert set(ids.values()) <= hits
    assert len(mem.list(USER)) == 3 and len(mem.messages(USER)) == 3
    got = mem.get(ids["b_mem"], user_id=USER)
    assert got.agent_id == "beta"
    assert mem.get(ids["b_mem"]).agent_id == "beta"  # no scope: any row of the tenant


def test_agent_own_memories_have_no_user(mem: Memory) -> None:
    seeded(mem)
    own = mem.add("The search tool times out after 30 seconds", agent_id="alpha")
    assert own.user_id == "" and own.agent_id == "alpha"
    mem.add_messages([{"role": "user", "content": "tool config: retries 3"}], agent_id="alpha")
    mem.add("beta's own note about tools", agent_id="beta")

    hits = mem.search("search tool times out", agent_id="alpha")
    assert hits and hits[0].id == own.id
    assert all(h.user_id == "" and h.agent_id == "alpha" for h in hits)
    assert contents(mem.list(agent_id="alpha")) == {own.content}
    assert contents(mem.messages(agent_id="alpha")) == {"tool config: retries 3"}
    assert "beta's own note about tools" not in contents(mem.list(agent_id="alpha"))
    # the agent's own memories are not the user's, and "" is no user
    assert own.id not in {h.id for h in mem.search("search tool", USER, agent_id="alpha")}
    assert [u.user_id for u in mem.users()] == [USER]
    assert mem.stats().users == 1
    with pytest.raises(ValidationError):
        mem.delete_user("")


@pytest.mark.parametrize("bad", ["", "   ", 7, "x" * 300])
def test_bad_agent_ids_are_rejected_and_change_nothing(mem: Memory, bad: object) -> None:
    with pytest.raises(ValidationError, match="agent_id"):
        mem.add("a fact", USER, agent_id=bad)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="agent_id"):
        mem.add_messages([{"role": "user", "content": "hi"}], USER, agent_id=bad)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="agent_id"):
        mem.search("fact", USER, agent_id=bad)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="agent_id"):
        mem.list(USER, agent_id=bad)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="agent_id"):
        mem.delete_agent(bad)  # type: ignore[arg-type]
    assert mem.list() == [] and mem.messages() == []


def test_neither_user_nor_agent_is_an_error(mem: Memory) -> None:
    for call in (
        lambda: mem.add("a fact"),
        lambda: mem.add_messages([{"role": "user", "content": "hi"}]),
        lambda: mem.search("fact"),
        lambda: mem.profile(),
    ):
        with pytest.raises(ValidationError) as refused:
            call()
        # said plainly, not as a type error about None
        assert str(refused.value) == (
            "a user_id or agent_id is required (whose memory this is); neither was given"
        )


def test_tenants_stay_apart_with_the_same_agent(open_mem: Callable[..., Memory]) -> None:
    one, two = open_mem(tenant="t1"), open_mem(tenant="t2")
    mine = one.add("t1 alpha secret Kestrel", USER, agent_id="alpha")
    own = one.add("t1 alpha own Kestrel", agent_id="alpha")
    assert two.search("Kestrel", USER, agent_id="alpha") == []
    assert two.search("Kestrel", agent_id="alpha") == []
    assert two.list(agent_id="alpha") == [] and two.list(USER, agent_id="alpha") == []
    for item in (mine, own):
        with pytest.raises(NotFoundError):
            two.get(item.id)
    assert two.delete_agent("alpha")["memories"] == 0
    assert {m.id for m in one.list(agent_id="alpha")} == {own.id}


def test_derived_items_inherit_the_privacy_of_their_turn(mem: Memory) -> None:
    mem.add_messages([{"role": "user", "content": "I live in Berlin."}], USER)
    mem.add_messages(
        [{"role": "user", "content": "I live in Paris. My name is Bob."}], USER, agent_id="alpha"
    )
    mem.drain()
    facts = {m.content: m.agent_id for m in mem.list(USER, kind="fact")}
    assert facts["User lives in Berlin"] is None  # the shared fact is not updated or deleted
    assert facts["User lives in Paris"] == "alpha"
    profile = {(f.key, f.value): f.agent_id for f in mem.profile(USER)}
    assert profile[("location", "Berlin")] is None
    assert profile[("location", "Paris")] == "alpha"
    assert profile[("name", "Bob")] == "alpha"

    beta = {(f.key, f.value) for f in mem.profile(USER, agent_id="beta")}
    assert beta == {("location", "Berlin")}
    assert "Paris" not in contents(mem.list(USER, agent_id="beta"))
    assert "Bob" not in mem.context("what is my name", USER, agent_id="beta").render()
    assert {f.value for f in mem.profile_view(USER, agent_id="alpha")} >= {"Paris", "Bob"}


def test_delete_agent_erases_its_rows_and_keeps_shared_ones(mem: Memory) -> None:
    ids = seeded(mem)
    own = mem.add("alpha own Falcon note", agent_id="alpha")
    mem.add_messages([{"role": "user", "content": "I live in Paris."}], USER, agent_id="alpha")
    mem.drain()
    assert mem.search("Falcon", USER, agent_id="alpha")  # the index is warm before erasure

    counts = mem.delete_agent("alpha")
    assert counts["messages"] == 2 and counts["memories"] >= 3 and counts["profile_facts"] == 1
    assert counts["history"] >= 3
    assert all(h.agent_id != "alpha" for h in mem.search("Falcon Paris", USER, limit=50))
    assert mem.search("Falcon", agent_id="alpha") == []
    for gone in (ids["a_mem"], ids["a_turn"], own.id):
        with pytest.raises(NotFoundError):
            mem.get(gone)
    with pytest.raises(NotFoundError):
        mem.history(ids["a_mem"])
    kept = {m.id for m in mem.list(USER)}
    assert kept == {ids["shared_mem"], ids["b_mem"]}
    assert {f.agent_id for f in mem.profile(USER)} <= {None}
    assert len(mem.messages(USER)) == 2


def test_another_agents_turns_do_not_move_the_reference_time(mem: Memory) -> None:
    mem.add_messages(
        [{"role": "user", "content": "I like hiking", "created_at": "2024-01-01T00:00:00Z"}], USER
    )
    mem.add_messages(
        [{"role": "user", "content": "beta notes", "created_at": "2025-06-01T00:00:00Z"}],
        USER,
        agent_id="beta",
    )
    alpha = mem.search("hiking", USER, agent_id="alpha", explain=True)
    assert alpha[0].content == "I like hiking"
    assert alpha[0].scores["recency"] == pytest.approx(1.0)  # aged from its own newest turn
    owner = mem.search("hiking", USER, explain=True)
    assert owner[0].scores["recency"] < 0.99  # the user's newest turn is beta's


def test_add_batches_takes_an_agent_per_batch(mem: Memory) -> None:
    from mnemo import TurnBatch

    turn = [{"role": "user", "content": "batch turn about kayaks"}]
    ids = mem.add_batches(
        [
            TurnBatch(turn, USER, "s1"),
            TurnBatch(turn, USER, "s2", agent_id="alpha"),
            TurnBatch(turn, None, "s3", agent_id="beta"),
        ]
    )
    got = [mem.get(i[0]) for i in ids]
    assert [(m.user_id, m.agent_id) for m in got] == [(USER, None), (USER, "alpha"), ("", "beta")]
    with pytest.raises(ValidationError, match="user_id or agent_id is required"):
        mem.add_batches([TurnBatch(turn, None, "s4")])


def test_count_sees_what_list_sees_in_every_agent_scope(mem: Memory) -> None:
    seeded(mem)
    mem.add("alpha travel plan Lisbon", USER, agent_id="alpha", metadata={"topic": "travel"})
    mem.add("shared travel plan Rome", USER, metadata={"topic": "travel"})
    mem.add("beta travel plan Oslo", USER, agent_id="beta", metadata={"topic": "travel"})
    mem.add("alpha's own note about its tools", agent_id="alpha")
    mem.add("beta's own note about its tools", agent_id="beta")
    travel = {"topic": "travel"}
    for user, agent in ((USER, None), (USER, "alpha"), (USER, "beta"), (None, "alpha")):
        for flt in (None, travel):
            listed = mem.list(user, agent_id=agent, filters=flt)
            page = mem.list_page(user, agent_id=agent, filters=flt, limit=1)
            assert mem.count(user, agent_id=agent, filters=flt) == len(listed) == page.total
    assert mem.count(USER) == 6 and mem.count(USER, filters=travel) == 3
    assert mem.count(USER, agent_id="alpha") == 4  # shared 2 + alpha's 2, never beta's
    assert mem.count(USER, agent_id="alpha", filters=travel) == 2
    assert mem.count(agent_id="alpha") == 1  # its own memories only, not the user's
    assert mem.count(agent_id="alpha", filters=travel) == 0
    assert mem.count(USER, agent_id="alpha", session_id="nowhere") == 0


def test_delete_all_with_an_agent_deletes_only_that_agents_rows(mem: Memory) -> None:
    ids = seeded(mem)
    a_trip = mem.add(
        "alpha travel plan Lisbon", USER, agent_id="alpha", metadata={"topic": "travel"}
    )
    s_trip = mem.add("shared travel plan Rome", USER, metadata={"topic": "travel"})
    b_trip = mem.add("beta travel plan Oslo", USER, agent_id="beta", metadata={"topic": "travel"})
    own = mem.add("alpha's own note about its tools", agent_id="alpha")
    b_own = mem.add("beta's own note about its tools", agent_id="beta")
    assert mem.search("launch password Falcon", USER, agent_id="alpha")  # index warm

    # user and agent: only the user's memories private to that agent, never the shared ones
    assert mem.delete_all(USER, agent_id="alpha", filters={"topic": "travel"}) == 1
    assert {m.id for m in mem.list(USER, filters={"topic": "travel"})} == {s_trip.id, b_trip.id}
    assert mem.delete_all(USER, agent_id="alpha") == 1  # a_mem; the shared memory stays
    assert mem.delete_all(USER, agent_id="alpha") == 0
    assert {m.id for m in mem.list(USER)} == {ids["shared_mem"], ids["b_mem"], s_trip.id, b_trip.id}
    assert mem.count(USER, agent_id="alpha") == 2  # what alpha still sees: the shared two
    for gone in (ids["a_mem"], a_trip.id):
        with pytest.raises(NotFoundError):
            mem.get_memory(gone)
        assert mem.history(gone)[-1].event == "DELETE"
    hits = mem.search("alpha launch password Falcon Lisbon", USER, agent_id="alpha", limit=50)
    assert not {h.id for h in hits} & {ids["a_mem"], a_trip.id}
    assert mem.get(ids["a_turn"]).agent_id == "alpha"  # turns are the event log and stay
    assert mem.get_memory(own.id) and mem.get_memory(b_own.id)  # agents' own memories stay

    # the agent alone: its own memories, nothing of any user, nothing of another agent
    assert mem.delete_all(agent_id="alpha") == 1
    assert mem.count(agent_id="alpha") == 0 and mem.count(agent_id="beta") == 1
    assert mem.count(USER) == 4 and mem.count(USER, agent_id="beta") == 4


def test_count_and_delete_all_need_a_user_or_an_agent(mem: Memory) -> None:
    mem.add("a shared fact", USER)
    mem.add("an agent's own fact", agent_id="alpha")
    for call in (
        lambda: mem.count(),
        lambda: mem.delete_all(),
        lambda: mem.delete_all(filters={"kind": "fact"}),
        lambda: mem.count(session_id="s1"),
    ):
        with pytest.raises(ValidationError, match="user_id or agent_id is required"):
            call()
    for bad in ("", "   ", 7):
        with pytest.raises(ValidationError, match="agent_id"):
            mem.count(USER, agent_id=bad)  # type: ignore[arg-type]
        with pytest.raises(ValidationError, match="agent_id"):
            mem.delete_all(USER, agent_id=bad)  # type: ignore[arg-type]
    assert mem.count(USER) == 1 and mem.count(agent_id="alpha") == 1


def test_context_as_of_a_time_in_an_agents_scope(mem: Memory) -> None:
    """``context(as_of=, agent_id=)``: what the agent saw then, never another agent's private
    items, never what came later."""
    mem.add("The launch code word is Heron", USER, created_at="2021-03-01T00:00:00Z")
    mem.add("alpha's launch code word is Falcon", USER, agent_id="alpha",
            created_at="2021-03-02T00:00:00Z")  # fmt: skip
    mem.add("beta's launch code word is Osprey", USER, agent_id="beta",
            created_at="2021-03-03T00:00:00Z")  # fmt: skip
    mem.add("The launch code word became Kestrel", USER, created_at="2024-01-01T00:00:00Z")
    text = mem.context(
        "launch code word", USER, agent_id="alpha", as_of="2022-01-01T00:00:00Z"
    ).render()
    assert "Heron" in text and "Falcon" in text
    assert "Osprey" not in text  # beta's private memory
    assert "Kestrel" not in text  # written after the date
