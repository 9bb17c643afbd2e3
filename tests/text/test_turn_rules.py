"""What the rules say about a turn, stored with it: the stored form reads back equal, and the
rules read a 350,000-character turn of any shape in linear time."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from mnemo.text.sentences import sentences
from mnemo.text.turn_kinds import classify
from mnemo.text.turn_rules import (
    TURN_RULES_VERSION,
    derive,
    dump_cues,
    load_cues,
    stored_kind,
    stored_text,
)
from mnemo.text.vocatives import name_cues

TURNS = [
    ("user", "Hey Jess! My older sister Anna says hi. I'm Kim, by the way."),
    ("assistant", "I'm not sure, could you remind me?"),
    ("user", "hey jess! how was the trip? thanks, sam."),
    ("assistant", "Thanks, that's great! Talk soon!"),
    ("user", "What is my dog's name?"),
    ("user", "Jo-Ann, call me Łukasz. Wie geht's, Jürgen? L'été à Montréal."),
    ("user", ""),
]


@pytest.mark.parametrize(("role", "text"), TURNS)
def test_the_stored_form_reads_back_what_the_rules_say(role: str, text: str) -> None:
    rules = derive(role, text)
    assert rules.kind == classify(role, text)
    assert rules.cues == name_cues(text)
    assert load_cues(dump_cues(rules.cues)) == rules.cues
    assert rules.version == TURN_RULES_VERSION


def test_values_of_other_rules_are_not_used() -> None:
    assert stored_kind(TURN_RULES_VERSION, "question") == "question"
    assert stored_kind(TURN_RULES_VERSION - 1, "question") is None
    assert stored_kind(None, None) is None
    assert stored_text(TURN_RULES_VERSION, "{}") == "{}"
    assert stored_text(TURN_RULES_VERSION + 1, "{}") is None


#: Turn shapes that made a pattern backtrack over a run (n characters long).
SHAPES: dict[str, Callable[[int], str]] = {
    "one long word": lambda n: "a" * n,
    "a run of spaces": lambda n: "x" + " " * n + "y",
    "a greeting before spaces": lambda n: "hey" + " " * n + "1",
    "a question word before spaces": lambda n: "what" + " " * n + "x",
    "a comma before spaces": lambda n: "," + " " * n + "x1",
    "punctuation": lambda n: "!?." * (n // 3),
    "abbreviations": lambda n: "a. " * (n // 3),
    "repeated a": lambda n: "a " * (n // 2),
    "vocatives": lambda n: "Hey Jess, " * (n // 10),
    "dots after a word": lambda n: "x, abc" + "." * n + "x",
}
RULES: dict[str, Callable[[str], object]] = {
    "sentences": sentences,
    "classify": lambda text: classify("assistant", text),
    "name_cues": name_cues,
}


def _seconds(rule: Callable[[str], object], text: str) -> float:
    """The best of two timings of ``rule`` on ``text``."""
    best = float("inf")
    for _ in range(2):
        t0 = time.perf_counter()
        rule(text)
        best = min(best, time.perf_counter() - t0)
    return best


@pytest.mark.parametrize("rule", sorted(RULES))
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_rules_take_linear_time(shape: str, rule: str) -> None:
    small = _seconds(RULES[rule], SHAPES[shape](35_000))
    large = _seconds(RULES[rule], SHAPES[shape](350_000))
    # ten times the text: linear is about 10x, quadratic 100x; the floor absorbs timer noise
    assert large < 30 * max(small, 0.002), (shape, rule, small, large)
    assert large < 5.0, (shape, rule, large)
