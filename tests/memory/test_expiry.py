"""Expiry of turns and memories (issue 24): ``expires_at=`` / ``ttl_seconds=`` on writes, the
``default_ttl_seconds`` setting, every read leaving an expired item out the moment the store
clock passes its time, ``refresh_on_read`` and bad input; on both stores. Time moves by a
:class:`FakeClock`, never by sleeping."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from clock_support import FakeClock, clocked_store

from mnemo import Memory, NotFoundError, ValidationError
from mnemo.schemas import format_time
from mnemo.storage.ports.conversation import SessionTurns

JOBS_ONLY: dict[str, Any] = {
    "fact_extraction": "off",
    "profile_enabled": False,
    "episodes_enabled": False,
}
Clocked = Callable[..., tuple[Memory, FakeClock]]


@pytest.fixture
def clocked(backend: str, target: dict[str, str]) -> Iterator[Clocked]:
    """Open a Memory (each store) whose store tells time by a clock the test moves."""
    opened: list[Memory] = []

    def open_(**overrides: Any) -> tuple[Memory, FakeClock]:
        clock = FakeClock()
        store = clocked_store(backend, target, clock)
        m = Memory(**target, embedder="hashing", store=store, **{**JOBS_ONLY, **overrides})
        opened.append(m)
        return m, clock

    yield open_
    for m in opened:
        m.close()


def ids_of(items: Any) -> set[str]:
    """The ids of hits, memories or turns."""
    return {i.id for i in items}


def test_an_expired_item_leaves_every_read_at_once(clocked: Clocked) -> None:
    mem, clock = clocked()
    keep = mem.add("Maya keeps a beagle called Biscuit", user_id="u")
    short = mem.add("Maya parks the car on level three", user_id="u", ttl_seconds=60)
    [turn] = mem.add_messages(
        [{"role": "user", "content": "the car is parked on level three today"}],
        user_id="u",
        ttl_seconds=60,
    )
    assert short.ttl_seconds == 60 and short.expires_at is not None
    assert ids_of(mem.search("car parked level three", user_id="u")) >= {short.id, turn}
    assert mem.get(turn).id == turn and mem.get(short.id).id == short.id

    clock.advance(61)
    hits = mem.search("car parked level three", user_id="u", limit=20)
    assert short.id not in ids_of(hits) and turn not in ids_of(hits)
    assert ids_of(mem.list(user_id="u")) == {keep.id}
    assert mem.list_page(user_id="u").total == 1
    assert mem.messages(user_id="u") == [] and mem.messages_page(user_id="u").total == 0
    for gone in (short.id, turn):
        with pytest.raises(NotFoundError, match="expired"):
            mem.get(gone)
    with pytest.raises(NotFoundError):
        mem.update(short.id, content="moved to level four")
    assert mem.stats().messages == 0 and mem.stats().memories == {"fact": 1}
    text = mem.context("where is the car parked?", user_id="u").render()
    assert "level three" not in text


def test_dense_only_search_masks_expired_rows(clocked: Clocked) -> None:
    """Cosine alone (no lexical side): the in-process vector index leaves them out."""
    mem, clock = clocked(preset="llmplatform", min_similarity=0.0)
    short = mem.add("the spare key is under the blue flowerpot", user_id="u", ttl_seconds=5)
    assert short.id in ids_of(mem.search("spare key blue flowerpot", user_id="u"))
    clock.advance(6)
    assert short.id not in ids_of(mem.search("spare key blue flowerpot", user_id="u"))


def test_expires_at_takes_any_time_form(clocked: Clocked) -> None:
    mem, clock = clocked()
    at = clock() + timedelta(hours=1)
    for value in (at, format_time(at), at.timestamp()):
        item = mem.add("a note", user_id="u", expires_at=value)
        assert item.expires_at is not None and abs(item.expires_at - at) < timedelta(seconds=1)
        assert item.ttl_seconds is None


def test_default_ttl_applies_and_per_turn_expiry_wins(clocked: Clocked) -> None:
    mem, clock = clocked(default_ttl_seconds=100)
    item = mem.add("a note", user_id="u")
    assert item.ttl_seconds == 100
    assert item.expires_at == clock() + timedelta(seconds=100)
    a, b = mem.add_messages(
        [
            {"role": "user", "content": "first", "ttl_seconds": 10},
            {"role": "user", "content": "second"},
        ],
        user_id="u",
    )
    assert mem.get(a).ttl_seconds == 10 and mem.get(b).ttl_seconds == 100
    clock.advance(11)
    assert [m.id for m in mem.messages(user_id="u")] == [b]


def test_update_sets_and_clears_expiry(clocked: Clocked) -> None:
    mem, clock = clocked()
    item = mem.add("a note", user_id="u")
    assert item.expires_at is None
    item = mem.update(item.id, ttl_seconds=30)
    assert item.ttl_seconds == 30 and item.expires_at == clock() + timedelta(seconds=30)
    item = mem.update(item.id, clear_expiry=True)
    assert item.expires_at is None and item.ttl_seconds is None
    clock.advance(31)
    assert mem.get(item.id).id == item.id


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"expires_at": "2999-01-01", "ttl_seconds": 5}, "not both"),
        ({"expires_at": "next tuesday"}, "cannot parse"),
        ({"expires_at": "2001-01-01T00:00:00Z"}, "not in the future"),
        ({"ttl_seconds": 0}, "> 0"),
        ({"ttl_seconds": -5}, "> 0"),
        ({"ttl_seconds": 1.5}, "whole number"),
        ({"ttl_seconds": True}, "whole number"),
        ({"ttl_seconds": 10**30}, "at most"),
        ({"ttl_seconds": float("nan")}, "whole number"),
        ({"expires_at": 10**30}, "out of range"),
    ],
)
def test_bad_expiry_is_refused_and_writes_nothing(
    clocked: Clocked, kwargs: dict[str, Any], message: str
) -> None:
    mem, _ = clocked()
    with pytest.raises(ValidationError, match=message):
        mem.add("a note", user_id="u", **kwargs)
    with pytest.raises(ValidationError, match=message):
        mem.add_messages([{"role": "user", "content": "hi"}], user_id="u", **kwargs)
    with pytest.raises(ValidationError, match=message):
        mem.add_messages([{"role": "user", "content": "hi", **kwargs}], user_id="u")
    assert mem.list(user_id="u") == [] and mem.messages(user_id="u") == []


def test_update_refuses_clear_with_new_expiry(clocked: Clocked) -> None:
    mem, _ = clocked()
    item = mem.add("a note", user_id="u")
    with pytest.raises(ValidationError, match="not both"):
        mem.update(item.id, ttl_seconds=5, clear_expiry=True)


def test_refresh_on_read_extends_the_ttl(clocked: Clocked) -> None:
    mem, clock = clocked(refresh_on_read=True)
    item = mem.add("the wifi password is hunter2", user_id="u", ttl_seconds=60)
    fixed = mem.add("the gate code is 4411", user_id="u", expires_at=clock() + timedelta(60))
    clock.advance(50)
    assert mem.get(item.id).expires_at == clock() + timedelta(seconds=60)
    clock.advance(50)  # 100 s after the write: alive, the get pushed it to 110
    assert item.id in ids_of(mem.search("wifi password", user_id="u"))
    clock.advance(50)  # the search pushed it to 160
    listed = mem.list(user_id="u")
    assert item.id in ids_of(listed)
    assert {i.id: i.expires_at for i in listed}[item.id] == clock() + timedelta(seconds=60)
    assert mem.get(fixed.id).expires_at == fixed.expires_at  # a fixed time never moves


def test_without_refresh_a_read_does_not_extend(clocked: Clocked) -> None:
    mem, clock = clocked()
    item = mem.add("the wifi password is hunter2", user_id="u", ttl_seconds=60)
    clock.advance(50)
    assert mem.get(item.id).expires_at == item.expires_at
    clock.advance(11)
    assert mem.list(user_id="u") == []


def test_an_expired_memory_has_no_history_to_show(clocked: Clocked) -> None:
    mem, clock = clocked()
    item = mem.add("a secret", user_id="u", ttl_seconds=5)
    assert [h.event for h in mem.history(item.id)] == ["ADD"]
    clock.advance(6)
    with pytest.raises(NotFoundError, match="expired"):
        mem.history(item.id)


def test_the_write_path_tiers_read_no_expired_turn(clocked: Clocked) -> None:
    """Summaries, episodes and the profile read a session's turns through
    ``session_messages``: an expired turn is not fed to them."""
    mem, clock = clocked()
    a, b = mem.add_messages(
        [
            {"role": "user", "content": "my PIN is 4410", "ttl_seconds": 5},
            {"role": "user", "content": "I like jazz"},
        ],
        user_id="u",
        session_id="s",
    )
    assert [
        m.id for m in mem.store.conversation.session_messages(SessionTurns("default", "u", "s"))
    ] == [a, b]
    clock.advance(6)
    assert [
        m.id for m in mem.store.conversation.session_messages(SessionTurns("default", "u", "s"))
    ] == [b]
