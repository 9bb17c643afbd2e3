"""Turn times in a batch: an undated turn takes its dated neighbour's time plus a second."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from mnemo import Memory, ValidationError
from mnemo.memory.turns import fill_times

T = datetime(2024, 3, 2, 9, 15, tzinfo=UTC)
NOW = datetime(2026, 1, 1, tzinfo=UTC)
S = timedelta(seconds=1)


def test_fill_times() -> None:
    assert fill_times([T, None, None], NOW) == [T, T + S, T + 2 * S]
    assert fill_times([None, None, T], NOW) == [T - 2 * S, T - S, T]
    assert fill_times([T, None, T + 60 * S, None], NOW) == [T, T + S, T + 60 * S, T + 61 * S]
    assert fill_times([None, None], NOW) == [NOW, NOW]
    assert fill_times([], NOW) == []


def test_an_undated_reply_follows_its_dated_question(tmp_path: object) -> None:
    with Memory(":memory:", embedder="hashing") as mem:
        turns = [
            {"role": "user", "content": "I adopted a beagle called Biscuit",
             "created_at": "2024-03-02T09:15:00"},
            {"role": "assistant", "content": "Congratulations on Biscuit!"},
        ]  # fmt: skip
        mem.add_messages(turns, user_id="maya", session_id="s1")
        got = [m.created_at for m in mem.messages(user_id="maya")]
        assert sorted(got) == [T, T + S]
        mem.add_messages([{"role": "user", "content": "hello"}], user_id="maya")
        newest = max(m.created_at for m in mem.messages(user_id="maya"))
        assert newest.year >= 2025  # a batch with no date is stamped now


def test_times_at_the_ends_of_the_calendar_stay_in_range() -> None:
    first = datetime(1000, 1, 1, tzinfo=UTC)
    last = datetime(9000, 1, 1, tzinfo=UTC) - timedelta(microseconds=1)
    assert fill_times([None, None, first], NOW) == [first, first, first]
    assert fill_times([last, None], NOW) == [last, last]
    assert fill_times([None, first + S], NOW) == [first, first + S]


@pytest.mark.parametrize("when", ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", -5e10])
def test_a_time_outside_the_years_1000_to_8999_is_refused(when: object) -> None:
    # found by the REST fuzz test: a batch dated 0001-01-01 after an undated turn was a 500
    with Memory(":memory:", embedder="hashing") as mem:
        turns = [
            {"role": "user", "content": "undated"},
            {"role": "user", "content": "dated", "created_at": when},
        ]
        with pytest.raises(ValidationError, match="years 1000-8999"):
            mem.add_messages(turns, user_id="u")
        assert mem.messages(user_id="u") == []
        ok = [{"role": "user", "content": "I live in Oslo", "created_at": "1000-01-01"}]
        mem.add_messages([{"role": "user", "content": "undated"}, *ok], user_id="u")
        assert mem.search("where do I live", user_id="u")
