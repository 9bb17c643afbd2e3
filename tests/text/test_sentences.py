"""The one sentence splitter, and that every rule reading sentences uses it."""

from __future__ import annotations

import pytest

from mnemo.index import keys
from mnemo.text import extractive, fact_rules, profile_rules, turn_kinds
from mnemo.text.sentences import sentences


def test_every_reader_of_sentences_uses_the_one_splitter() -> None:
    assert keys.sentences is sentences
    assert profile_rules.sentences is sentences
    assert turn_kinds.sentences is sentences
    assert extractive.sentences is sentences
    assert fact_rules.sentences is sentences


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hi Ann! How are you?\nI moved to Lyon.", ["Hi Ann!", "How are you?", "I moved to Lyon."]),
        # a question ends a sentence for the fact rules too (it did not before)
        ("Where did you go? I moved to Lyon.", ["Where did you go?", "I moved to Lyon."]),
        ("Wait; I moved to Lyon", ["Wait;", "I moved to Lyon"]),
        ("Well… I moved", ["Well…", "I moved"]),
        # closing quotes after the stop
        ('It is called "Home." It is a script.', ['It is called "Home."', "It is a script."]),
        # abbreviations, initials and decimals do not end a sentence
        ("I met Dr. Ruiz today. Nice.", ["I met Dr. Ruiz today.", "Nice."]),
        ("I read J. K. Rowling. Fun.", ["I read J. K. Rowling.", "Fun."]),
        ("The U.S. trip was fun.", ["The U.S. trip was fun."]),
        ("It costs 3.5 euros.", ["It costs 3.5 euros."]),
        # pieces without a word are left out
        ("Hello\n\n ... \n!!! ok", ["Hello", "ok"]),
        ("", []),
    ],
)
def test_sentences(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


def test_a_decimal_no_longer_splits_a_question_into_a_statement() -> None:
    # the turn kinds' old splitter cut "12.65" and "St. Hilda" into two sentences, and the
    # piece without "?" made a question a statement
    assert turn_kinds.classify("user", "Was there any opposition in St. Hilda's time?") == (
        "question"
    )
    assert turn_kinds.classify("user", "Does it vary from 30 - 12.65 grams?") == "question"
