"""Negative contractions whose first part is no word ("can't" -> "ca" + "n't"), written out by
the clause reader with the real spaCy model: every example sentence of every row of
:data:`mnemo.text.negative_contractions.CONTRACTIONS`, typed with a straight apostrophe, a
curly one and none; and "we" written without saying who, or how many, the others are."""

from __future__ import annotations

import pytest

from mnemo.text.clause_words import WE
from mnemo.text.negative_contractions import CONTRACTIONS
from mnemo.text.parsed_facts import FactLimits, Said, extract

WIDE = FactLimits(max_facts=10)
#: How an apostrophe may be typed: straight, curly (phones, word processors), left out.
TYPED = {"straight": "'", "curly": "\u2019", "none": ""}
EXAMPLES = [
    pytest.param(said.replace("'", mark), fact, id=f"{row.said}:{row.one}-{n}-{how}")
    for row in CONTRACTIONS
    for n, (said, fact) in enumerate(row.examples)
    for how, mark in TYPED.items()
]


def test_every_row_has_examples() -> None:
    assert all(row.examples for row in CONTRACTIONS)


@pytest.mark.parametrize(("said", "fact"), EXAMPLES)
def test_a_negative_contraction_is_written_out(said: str, fact: str) -> None:
    assert extract(Said(said, None), WIDE) == [fact]


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("We are moving to Bristol.", f"{WE} are moving to Bristol"),
        ("We adopted a cat called Miso.", f"{WE} adopted a cat called Miso"),
        ("We have two cats and a rabbit.", f"{WE} have two cats and a rabbit"),
    ],
)
def test_we_says_the_user_and_others_without_how_many(said: str, fact: str) -> None:
    assert WE == "User and one or more others"
    assert extract(Said(said, None), WIDE) == [fact]
