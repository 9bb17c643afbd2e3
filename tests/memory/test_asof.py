"""``as_of`` on search and context (issue 24, "Time"): answers from what was known at a time,
on both stores; fails on main, where neither method takes ``as_of``."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from mnemo import Memory
from mnemo.errors import ValidationError
from mnemo.schemas import utcnow
from mnemo.storage.base import NewProfileFact

Open = Callable[..., Memory]


def _turn(mem: Memory, text: str, at: str, user: str = "tia") -> str:
    msg = {"role": "user", "content": text, "created_at": at}
    return mem.add_messages([msg], user_id=user, session_id="s1")[0]


def test_turns_written_after_as_of_are_left_out(open_mem: Open) -> None:
    mem = open_mem()
    _turn(mem, "I work as a nurse at the city hospital", "2021-03-01T10:00:00Z")
    _turn(mem, "I work as a pilot for a small airline now", "2024-02-01T10:00:00Z")
    today = [h.content for h in mem.search("where do I work", user_id="tia")]
    assert any("pilot" in c for c in today)  # the 2024 turn is found today...
    then = mem.search("where do I work", user_id="tia", as_of="2021-06-01")
    assert [h.content for h in then] == ["I work as a nurse at the city hospital"]
    assert all(h.created_at.year == 2021 for h in then)  # ...and left out as of 2021


def test_an_updated_memory_is_answered_in_its_version_then(open_mem: Open) -> None:
    mem = open_mem()
    item = mem.add("The user drives a red Honda", user_id="tia", created_at="2021-01-10")
    mem.update(item.id, content="The user drives a blue Tesla", tags=["car"])
    now_hits = mem.search("what car does the user drive", user_id="tia")
    assert [(h.id, h.content) for h in now_hits] == [(item.id, "The user drives a blue Tesla")]
    then = mem.search("what car does the user drive", user_id="tia", as_of="2022-01-01")
    assert [(h.id, h.content) for h in then] == [(item.id, "The user drives a red Honda")]
    assert then[0].scores["dense"] > 0 and then[0].scores.get("lexical", 0) > 0
    before = mem.search("what car does the user drive", user_id="tia", as_of="2020-12-31")
    assert before == []  # not yet known


def test_a_version_is_not_scored_on_the_text_it_was_changed_to(open_mem: Open) -> None:
    mem = open_mem()
    item = mem.add("The user drives a red Honda", user_id="tia", created_at="2021-01-10")
    mem.update(item.id, content="The user now owns a blue Tesla")
    today = mem.search("blue Tesla", user_id="tia")
    assert today[0].id == item.id and today[0].scores["lexical"] > 0
    then = mem.search("blue Tesla", user_id="tia", as_of="2022-01-01")
    for hit in then:  # the 2021 version holds neither word: no full-text score from today's
        assert hit.content == "The user drives a red Honda" and "lexical" not in hit.scores
    honda = mem.search("red Honda", user_id="tia", as_of="2022-01-01")
    assert honda[0].id == item.id and honda[0].scores["lexical"] > 0
    assert all("lexical" not in h.scores for h in mem.search("red Honda", user_id="tia"))


def test_a_deleted_memory_is_answered_as_of_before_its_deletion(open_mem: Open) -> None:
    mem = open_mem()
    item = mem.add("The user is allergic to peanuts", user_id="tia", created_at="2021-05-01")
    mem.add("The user likes green tea", user_id="tia", created_at="2021-05-02")
    mem.delete(item.id)
    assert all(h.id != item.id for h in mem.search("peanuts allergy", user_id="tia"))
    then = mem.search("peanuts allergy", user_id="tia", as_of="2021-12-01T00:00:00Z")
    assert then[0].id == item.id and then[0].content == "The user is allergic to peanuts"


def test_as_of_in_the_future_is_refused(open_mem: Open) -> None:
    mem = open_mem()
    _turn(mem, "hello there", "2021-03-01T10:00:00Z")
    later = utcnow() + timedelta(days=1)
    with pytest.raises(ValidationError, match="as_of"):
        mem.search("hello", user_id="tia", as_of=later)
    with pytest.raises(ValidationError, match="as_of"):
        mem.context("hello", user_id="tia", as_of=later.isoformat())
    with pytest.raises(ValidationError, match="as_of"):
        mem.search("hello", user_id="tia", as_of="not a time")


def test_now_defaults_to_as_of(open_mem: Open) -> None:
    mem = open_mem(recency_weight=0.5)
    _turn(mem, "I bought a kayak", "2021-03-01T10:00:00Z")
    _turn(mem, "I sold the bike", "2024-03-01T10:00:00Z")
    at = "2021-03-02T10:00:00Z"
    hit = mem.search("kayak", user_id="tia", as_of=at)[0]
    same = mem.search("kayak", user_id="tia", as_of=at, now=at)[0]
    assert hit.scores["recency"] == pytest.approx(same.scores["recency"])
    # one day old as of 2021-03-02; three years old from today's newest turn
    assert hit.scores["recency"] > mem.search("kayak", user_id="tia")[0].scores["recency"]


def _fact(mem: Memory, key: str, value: str, observed: str, n: int) -> None:
    row = NewProfileFact(
        id=f"pf_{key}_{n}",
        tenant=mem.tenant,
        user_id="tia",
        category="identity",
        key=key,
        value=value,
        confidence=0.9,
        importance=0.9,
        source_message_ids=[],
        observed_at=observed,
        observed_seq=n,
    )
    mem.store.conversation.put_profile_fact(
        row, "test", lambda cur, seq: "ADD" if cur is None else "UPDATE"
    )


def test_a_superseded_profile_fact_is_the_one_answered_as_of_then(open_mem: Open) -> None:
    mem = open_mem(preset="tiered")
    _turn(mem, "I live in Boston", "2021-02-01T09:00:00.000000Z")
    _fact(mem, "location", "Boston", "2021-02-01T09:00:00.000000Z", 1)
    _turn(mem, "We moved to Lisbon last month", "2023-06-01T09:00:00.000000Z")
    _fact(mem, "location", "Lisbon", "2023-06-01T09:00:00.000000Z", 2)
    assert [f.value for f in mem.profile("tia")] == ["Lisbon"]
    today = mem.context("where did I live in 2021?", user_id="tia").render()
    assert "location: Lisbon" in today and "location: Boston" not in today
    then = mem.context("where did I live in 2021?", user_id="tia", as_of="2021-09-01").render()
    assert "location: Boston" in then and "Lisbon" not in then
    before = mem.context("where did I live?", user_id="tia", as_of="2020-01-01").render()
    assert "Boston" not in before
    old = next(f for f in mem.profile("tia", include_inactive=True) if f.value == "Boston")
    assert old.superseded_at is not None and old.superseded_at.year == 2023


def test_context_as_of_leaves_later_turns_and_memories_out(open_mem: Open) -> None:
    mem = open_mem()
    _turn(mem, "My sister Ana lives in Porto", "2021-04-01T09:00:00Z")
    _turn(mem, "My sister Ana moved to Madrid", "2024-04-01T09:00:00Z")
    item = mem.add("Ana is a teacher", user_id="tia", created_at="2021-04-02")
    mem.update(item.id, content="Ana is a school principal")
    mem.add("Ana has a dog", user_id="tia", created_at="2024-05-01")
    today = mem.context("what about my sister Ana", user_id="tia").render()
    assert "Madrid" in today and "principal" in today and "dog" in today
    then = mem.context("what about my sister Ana", user_id="tia", as_of="2022-01-01").render()
    assert "Porto" in then and "Ana is a teacher" in then
    assert "Madrid" not in then and "principal" not in then and "dog" not in then
