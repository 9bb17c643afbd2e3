"""The audit's findings as pure functions over fact rows: what is and is not a copy, a stale
value, a contradiction or junk."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from mnemo.ops.audit.conflicts import conflicts, kind_of
from mnemo.ops.audit.duplicates import crossed, duplicates
from mnemo.ops.audit.facts import fact_item
from mnemo.ops.audit.junk import junk_reason
from mnemo.schemas import MemoryItem

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def items(*texts: str, same_time: bool = False) -> list:
    out = []
    for n, text in enumerate(texts):
        at = T0 if same_time else T0 + timedelta(days=n)
        out.append(
            fact_item(
                MemoryItem(id=f"mem_{n}", user_id="u", kind="fact", content=text,
                           created_at=at, updated_at=at)
            )
        )  # fmt: skip
    return out


def test_junk_rules() -> None:
    assert junk_reason("User is doing good") == "no content word"
    assert junk_reason("User likes it") is None  # "likes" says something
    assert junk_reason("User is 30") is None  # a number is content
    assert junk_reason("Does the user like jazz?") == "question"
    assert junk_reason("Thanks so much!") == "greeting"
    assert junk_reason("User went to the") == "fragment"
    assert junk_reason("User adopted a cat") is None


def test_a_negation_is_never_a_copy() -> None:
    found = duplicates("u", items("User eats meat", "User does not eat meat"), np.zeros(0), 0.9)
    assert found == []
    vectors = np.ones((2, 4), np.float32) / 2  # cosine 1: the vectors alone would merge them
    assert duplicates("u", items("User eats meat", "User doesn't eat meat"), vectors, 0.9) == []


def test_similar_vectors_are_a_review_merge_unless_values_differ() -> None:
    vectors = np.ones((2, 4), np.float32) / 2
    [f] = duplicates("u", items("User enjoys hiking", "User loves to hike"), vectors, 0.9)
    assert not f.fix.safe and f.detail == "2 near-duplicates"
    assert duplicates("u", items("User lives in Berlin", "User lives in Paris"), vectors, 0.9) == []


def test_same_subject_and_value_is_a_review_merge() -> None:
    [f] = duplicates("u", items("User lives in Leeds", "User moved to Leeds"), np.zeros(0), 0.9)
    assert not f.fix.safe and f.fix.keep == "mem_0"


def test_stale_contradiction_and_multi_valued_subjects() -> None:
    [s] = conflicts("u", items("User works at Acme", "User works at Initech"))
    assert s.kind == "stale" and s.fix.safe and s.fix.remove == ["mem_0"]
    [c] = conflicts("u", items("User works at Acme", "User works at Initech", same_time=True))
    assert c.kind == "contradiction" and not c.fix.safe
    [c] = conflicts("u", items("User's dog's name is Rex", "User's dog's name is Max"))
    assert c.kind == "contradiction"
    assert conflicts("u", items("User's sister is a nurse", "User's sister is funny")) == []
    [job] = conflicts("u", items("User works as a nurse", "User became a mom"))
    assert job.kind == "stale" and not job.fix.safe  # "became" is not always a job
    assert kind_of("origin") == "fixed" and kind_of("has kid") == "changing"
    assert kind_of("'s sister") is None


def test_two_people_naming_each_other_are_never_copies() -> None:
    assert crossed("Maria offered to help John", "John appreciated Maria's offer of help")
    assert not crossed("Joanna is keen to try Nate's recipe", "Joanna wants Nate's recipe")
    assert not crossed("Likes jazz", "Enjoys jazz")
    vectors = np.ones((2, 4), np.float32) / 2
    pair = items("Tim appreciates John's support", "John appreciates Tim's support")
    assert duplicates("u", pair, vectors, 0.9) == []
