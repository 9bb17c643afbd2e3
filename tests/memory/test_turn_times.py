"""Turn times in a batch: an undated turn takes its dated neighbour's time plus a second."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from mnemo import Memory
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
