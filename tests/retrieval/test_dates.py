"""Date expressions in queries: parsing into windows, and the date prior in search."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mnemo import Memory
from mnemo.retrieval.dates import date_prior, windows

NOW = datetime(2023, 11, 20, 12, 0, tzinfo=UTC)
QUIET: dict = {"fact_extraction": "off", "profile_enabled": False, "episodes_enabled": False}


def days(query: str) -> list[tuple[str, str]]:
    return [
        (
            datetime.fromtimestamp(a, UTC).date().isoformat(),
            datetime.fromtimestamp(b, UTC).date().isoformat(),
        )
        for a, b in windows(query, NOW)
    ]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("What painting did she show on October 13, 2023?", [("2023-10-13", "2023-10-17")]),
        ("What did Gina find on 1 February, 2023?", [("2023-02-01", "2023-02-05")]),
        ("a picture shared on December 1,2022", [("2022-12-01", "2022-12-05")]),
        ("what happened on 2023-03-09", [("2023-03-09", "2023-03-13")]),
        ("What setback did Melanie face in October 2023?", [("2023-10-01", "2023-11-15")]),
        ("When did Melanie go camping in June?", [("2023-06-01", "2023-07-15")]),
        ("Where did we eat in December?", [("2022-12-01", "2023-01-15")]),  # latest December
        ("How often did she swim in 2022?", [("2022-01-01", "2023-02-01")]),
        ("What did I buy yesterday?", [("2023-11-18", "2023-11-20")]),
        ("Which film did I see last week?", [("2023-11-06", "2023-11-20")]),
        ("early May or mid-March?", [("2023-05-01", "2023-06-15"), ("2023-03-01", "2023-04-15")]),
    ],
)
def test_date_expressions_become_windows(query: str, expected: list[tuple[str, str]]) -> None:
    assert days(query) == expected


def test_relative_ago_is_centred_on_its_distance() -> None:
    ((start, end),) = windows("What did I cook two weeks ago?", NOW)
    centre = NOW.timestamp() - 14 * 86400
    assert start < centre < end <= NOW.timestamp()


@pytest.mark.parametrize(
    "query",
    ["May I ask what my dog is called?", "What is my favourite number, 42?", "Tell me about Juno"],
)
def test_no_date_no_window(query: str) -> None:
    assert windows(query, NOW) == []


def test_a_full_date_is_not_also_read_as_a_month() -> None:
    assert len(windows("on October 13, 2023 and nothing else", NOW)) == 1


def test_prior_multiplies_only_times_inside_a_window() -> None:
    t = np.array([0.0, 100.0, 200.0, 300.0])
    assert date_prior(t, [(100.0, 201.0)], 0.5).tolist() == [1.0, 1.5, 1.5, 1.0]
    assert date_prior(t, [], 0.5).tolist() == [1.0] * 4


def test_search_prefers_the_turn_written_in_the_named_month(
    open_mem: Callable[..., Memory],
) -> None:
    turns = [
        ("2023-06-10T10:00:00", "We went camping by the lake, it was lovely."),
        ("2023-09-02T10:00:00", "We went camping in the mountains, it was lovely."),
    ]
    # session aggregation off: it adds to the relevance the prior multiplies
    mem = open_mem(recency_weight=0.0, session_weight=0.0, **QUIET)
    for when, text in turns:
        mem.add_messages([{"role": "user", "content": text, "created_at": when}], user_id="u")
    query = "Where did I go camping in June?"
    hits = mem.search(query, user_id="u", now=NOW)
    assert hits[0].content.startswith("We went camping by the lake")
    off = open_mem(recency_weight=0.0, date_weight=0.0, session_weight=0.0, **QUIET)
    scores = {h.content: h.score for h in off.search(query, user_id="u", now=NOW)}
    on = {h.content: h.score for h in hits}
    june, september = turns[0][1], turns[1][1]
    assert on[june] == pytest.approx(1.5 * scores[june])
    assert hits[0].scores["date_prior"] == 1.5  # the stage shows on the hit
    assert all("date_prior" not in h.scores for h in hits if h.content == september)
    assert on[september] == pytest.approx(scores[september])


@given(st.text(max_size=200), st.floats(min_value=0, max_value=4e9))
def test_any_text_gives_well_formed_windows(query: str, now: float) -> None:
    for start, end in windows(query, now):
        assert start < end


@given(
    st.sampled_from(["on", "in", "since", ""]),
    st.integers(min_value=0, max_value=40),
    st.sampled_from(["January", "February", "april", "Sept.", "dec", "May"]),
    st.integers(min_value=1890, max_value=2110),
)
def test_odd_dates_never_raise(prep: str, day: int, month: str, year: int) -> None:
    for text in (f"{prep} {month} {day}, {year}", f"{prep} {day} {month} {year}", f"{month} {day}"):
        for start, end in windows(text, NOW):
            assert start < end


def test_an_absurd_number_is_not_a_date() -> None:
    assert windows("9" * 400 + " days ago", NOW) == []  # no overflow, no window


def test_dates_at_the_end_of_time_are_skipped(mem: Memory) -> None:
    mem.add_messages([{"role": "user", "content": "camping in June"}], user_id="u")
    end = "9999-12-31T23:59:59"
    assert windows("What did I do in December?", datetime(9999, 12, 31, tzinfo=UTC)) == []
    assert len(mem.search("What did I do in December?", user_id="u", now=end)) == 1
    # the last microsecond of 9999 rounds past it in epoch seconds (was a ValueError)
    last = "9999-12-31T23:59:59.999999"
    assert windows("a year ago", datetime(9999, 12, 31, tzinfo=UTC).timestamp() + 86400) == []
    assert len(mem.search("What did I do a year ago?", user_id="u", now=last)) == 1
    assert "camping" in mem.context("What did I do a year ago?", user_id="u", now=last).text
