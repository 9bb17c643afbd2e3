"""Changes of state: a move, a new job, a marriage update the profile and the free-text facts.

Both tiers run with rules (no LLM) through the public ``Memory`` API and ``drain``, on each
store (conftest's ``backend``). The earlier statement stays in history; the later one is what
is active.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mnemo import Memory

BOTH: dict = {"profile_enabled": True, "fact_extraction": "atomic", "episodes_enabled": False}


@pytest.fixture
def mem(open_mem: Callable[..., Memory]) -> Memory:
    """The fact and profile tiers, on each store."""
    return open_mem(**BOTH)


def say(mem: Memory, text: str, when: str, session: str = "s1") -> None:
    """One user turn at ``when``, then every job it caused."""
    mem.add_messages([{"role": "user", "content": text, "created_at": when}], "u1", session)
    mem.drain()


def profile(mem: Memory, key: str) -> list[tuple[str, bool]]:
    """(value, active) of every profile fact of ``key``, active first."""
    rows = mem.profile("u1", include_inactive=True)
    return [(f.value, f.active) for f in rows if f.key == key]


def facts(mem: Memory) -> list[str]:
    """Live fact contents, sorted."""
    return sorted(m.content for m in mem.list("u1", kind="fact"))


def test_a_move_replaces_the_home_in_the_profile_and_in_the_facts(mem: Memory) -> None:
    say(mem, "I live in Berlin.", "2020-03-01T10:00:00")
    assert profile(mem, "location") == [("Berlin", True)]
    assert facts(mem) == ["User lives in Berlin"]
    say(mem, "I just moved to Paris!", "2024-06-01T10:00:00", session="s2")
    # "moved to" (0.75) is a weaker pattern than "live in" (0.85), but it is later
    assert profile(mem, "location") == [("Paris", True), ("Berlin", False)]
    assert facts(mem) == ["User just moved to Paris"]
    [fact] = mem.list("u1", kind="fact")
    history = mem.history(fact.id)
    assert [h.event for h in history] == ["ADD", "UPDATE"]
    assert history[-1].old["content"] == "User lives in Berlin"
    # the profile's history keeps the superseded home
    old = [f for f in mem.profile("u1", include_inactive=True) if f.value == "Berlin"]
    assert old and not old[0].active


def test_an_older_statement_read_later_does_not_roll_the_home_back(mem: Memory) -> None:
    say(mem, "I just moved to Paris!", "2024-06-01T10:00:00")
    say(mem, "I live in Berlin.", "2020-03-01T10:00:00", session="s0")  # imported afterwards
    assert profile(mem, "location")[0] == ("Paris", True)


def test_job_changes_update_the_employer(mem: Memory) -> None:
    say(mem, "I work at Initech.", "2021-01-10T09:00:00")
    say(mem, "I started working at Acme last week.", "2022-05-02T09:00:00")
    assert profile(mem, "employer") == [("Acme", True), ("Initech", False)]
    # the relative date is resolved against the turn (a Monday): the week before
    assert facts(mem) == ["User started working at Acme last week (week of 25 April 2022)"]
    say(mem, "I quit my job at Acme.", "2023-02-01T09:00:00")
    # the withdrawal replaces the statement it ends
    assert facts(mem) == ["User quit their job at Acme"]
    say(mem, "I work at Globex now.", "2023-09-01T09:00:00")
    assert profile(mem, "employer")[0] == ("Globex", True)
    assert ("Acme", False) in profile(mem, "employer")
    assert facts(mem) == ["User quit their job at Acme", "User works at Globex now"]


def test_a_relationship_and_a_job_title_change(mem: Memory) -> None:
    say(mem, "I'm single.", "2019-01-01T09:00:00")
    say(mem, "I'm dating Sam.", "2020-01-01T09:00:00")
    say(mem, "I got married to Sam!", "2022-07-01T09:00:00")
    assert profile(mem, "relationship_status") == [("married", True), ("single", False)]
    assert facts(mem) == ["User got married to Sam"]
    say(mem, "I work as a nurse.", "2019-01-01T09:00:00")
    say(mem, "I became a doctor.", "2023-01-01T09:00:00")
    assert profile(mem, "occupation") == [("doctor", True), ("nurse", False)]
    assert "User became a doctor" in facts(mem)
    assert "User works as a nurse" not in facts(mem)


def test_a_move_finds_the_old_home_among_many_facts(mem: Memory) -> None:
    say(mem, "I live in Berlin.", "2020-03-01T10:00:00")
    # facts worded like the move, so that the old home is not among its nearest facts
    trips = [
        "drove to Porto",
        "flew to Lima",
        "walked to Oslo",
        "sailed to Rome",
        "cycled to Quito",
    ]
    trips += ["hitchhiked to Cairo", "took a train to Seoul", "ran to Lisbon's old town"]
    for i, trip in enumerate(trips):
        say(mem, f"I {trip} in 2024.", f"2021-0{i + 1}-01T10:00:00")
    assert len(facts(mem)) == 9
    say(mem, "I relocated to Lisbon in 2024.", "2024-06-01T10:00:00")
    live = facts(mem)
    assert "User lives in Berlin" not in live
    assert "User relocated to Lisbon in 2024" in live
    assert profile(mem, "location") == [("Lisbon", True), ("Berlin", False)]
