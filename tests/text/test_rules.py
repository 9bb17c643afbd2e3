"""Rule-based fallbacks: profile patterns and extractive summaries, no LLM."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from mnemo.schemas import Message
from mnemo.text.extractive import (
    episode_summary,
    key_points,
    qa_pairs,
    rolling_summary,
    sentence_score,
    session_summary,
)
from mnemo.text.profile_rules import extract_profile, slug


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My name is Alex", [("identity", "name", "Alex", 1.0)]),
        ("Call me Al", [("identity", "name", "Al", 0.6)]),
        ("My full name is Alexander.", [("identity", "name", "Alexander", 0.95)]),
        ("my name is alex", [("identity", "name", "Alex", 1.0)]),
        (
            "I live in San Francisco and work as a nurse.",
            [("identity", "location", "San Francisco", 0.85), ("identity", "occupation", "nurse", 0.85)],  # noqa: E501
        ),
        ("I'm allergic to peanuts", [("constraint", "allergy_peanuts", "peanuts", 0.95)]),
        ("I'm vegetarian.", [("constraint", "diet", "vegetarian", 0.9)]),
        ("My dog's name is Rex", [("identity", "dog_name", "Rex", 0.9)]),
        ("My favorite color is blue", [("preference", "favorite_color", "blue", 0.85)]),
        ("I'm 29 years old", [("identity", "age", "29", 0.9)]),
        ("I moved to the Bay Area last year", [("identity", "location", "the Bay Area", 0.75)]),
        ("Please always answer in French.", [("instruction", "answer_in_french", "answer in French", 0.75)]),  # noqa: E501
        ("I prefer Python", [("preference", "prefers_python", "Python", 0.7)]),
    ],
)  # fmt: skip
def test_first_person_statements(text: str, expected: list) -> None:
    got = [(c.category, c.key, c.value, c.confidence) for c in extract_profile(text)]
    assert got == expected


@pytest.mark.parametrize(
    "text",
    [
        "I'm not allergic to anything",  # negation
        "Is my name is Bob?",  # a question
        "Do you know my name is Bob",  # a question without "?"
        "He said my name is Tom",  # reported speech
        "If I lived in Paris I would be happy",  # conditional
        "call me tomorrow",  # not a name
        "I love it",  # a pronoun is no preference
        "I live in a small town",  # not a place name
        "Never give up!",  # encouragement, not an instruction to the assistant
        "Always here to help.",
        "I love how it shows the togetherness",  # no object
    ],
)
def test_non_statements_yield_nothing(text: str) -> None:
    assert extract_profile(text) == []


def test_one_candidate_per_key_the_most_confident() -> None:
    [c] = extract_profile("Call me Al. My name is Alex.")
    assert (c.value, c.confidence, c.pattern) == ("Alex", 1.0, "my_name")
    assert slug("The Best  Pizza in town") == "best_pizza_in"


def msg(seq: int, role: str, text: str, name: str | None = None) -> Message:
    return Message(
        id=f"msg_{seq}",
        user_id="u",
        session_id="s",
        seq=seq,
        role=role,
        name=name,
        content=text,
        created_at=datetime(2024, 1, 1, tzinfo=UTC),
    )


CHAT = [
    msg(1, "user", "Hi there."),
    msg(2, "assistant", "Hello! How can I help?"),
    msg(3, "user", "Which database should I use for 10 million vectors?"),
    msg(4, "assistant", "Use pgvector with an HNSW index. It scales well."),
    msg(5, "user", "I prefer PostgreSQL because we already run it in Frankfurt."),
    msg(6, "assistant", "Then pgvector is the natural choice."),
]


def test_sentence_score_follows_its_formula() -> None:
    # profile pattern 2 + cue "prefer"/"because" 1 + capitalised PostgreSQL, Frankfurt 1.0
    # + length 10 words 0.25
    assert sentence_score("I prefer PostgreSQL because we already run it in Frankfurt.") == 4.25
    assert sentence_score("Hi there.") == -2.0 + 0.25 * 0.2
    assert sentence_score("Which one?") < 0


def test_session_summary_has_qa_pairs_and_key_points() -> None:
    text = session_summary(CHAT)
    assert "- Q: Which database should I use for 10 million vectors? A: Use pgvector" in text
    assert "- user: I prefer PostgreSQL because we already run it in Frankfurt." in text
    assert all(line.startswith("- ") for line in text.splitlines())
    assert qa_pairs(CHAT, limit=1) == [
        ("Which database should I use for 10 million vectors?", "Use pgvector with an HNSW index.")
    ]


def test_key_points_keep_conversation_order() -> None:
    points = key_points(CHAT, 2)
    assert points == [
        "user: Which database should I use for 10 million vectors?",
        "user: I prefer PostgreSQL because we already run it in Frankfurt.",
    ]
    assert episode_summary(CHAT).startswith("user: Which database")


def test_rolling_summary_adds_new_points_and_caps() -> None:
    first = rolling_summary(None, CHAT[:4], max_points=3)
    second = rolling_summary(first, CHAT[4:], max_points=3)
    lines = second.splitlines()
    assert len(lines) <= 3 and lines[-1].startswith("- user: I prefer PostgreSQL")
    assert rolling_summary(second, CHAT[4:], max_points=3) == second  # nothing new, no repeat
