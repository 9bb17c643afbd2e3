"""The fact rules write few wrong facts: the issue's examples, and the hand-labelled sets.

``bench/data/fact_labels.jsonl`` (and ``fact_labels_heldout.jsonl``) hold rule facts of
LoCoMo dev turns, each labelled by hand (correct / vague / wrong / garbled; docs/facts.md).
With the dev file at hand (``../shared/data/locomo-dev.json`` beside the repository, or
``LOCOMO_DEV_JSON``) the rules run again over the labelled turns: every fact they write must
be labelled, and the share of correct ones must stay above the measured level. The sentences
below are written for these tests.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

from mnemo.text.fact_rules import extract_facts, statement_fact

ROOT = Path(__file__).resolve().parents[2]
LABELS = ROOT / "bench" / "data" / "fact_labels.jsonl"


@pytest.mark.parametrize(
    "sentence",
    [
        # the examples, in sentences of our own
        "I'm always here for you, Mel!",
        "I love that you chose pottery for your art.",
        "I'm off to go do some research.",
        "I drew it.",
        # the listener, courtesies and empathy
        "I get it, Jon.",
        "I can only imagine how tough it must be.",
        "I can see why it inspires you.",
        "I remember you mentioning the roads.",
        "I'm in awe of your courage.",
        "I totally get how busy life can be.",
        # leave-taking, feelings, advice, plans and hypotheticals
        "I'm off to bake some cakes, talk soon!",
        "I was so excited when that happened.",
        "I felt really motivated after reading it.",
        "I recommend reading a fantasy series.",
        "I would get two turtles if I could.",
        "I'm going to call my mom tomorrow.",
        "If I had a car I'd drive to Rome.",
        "Do I like jazz?",
        # the statement's point is a pronoun only its turn resolves
        "I made it in pottery class yesterday.",
        "I love them so much!",
        "I was in it.",
        "I took this pic last summer.",
        "I've been there twice.",
        "I'm a huge fan!",
        "Yeah, I love to.",
    ],
)
def test_not_facts(sentence: str) -> None:
    assert statement_fact(sentence) is None


@pytest.mark.parametrize(
    ("sentence", "fact"),
    [
        ("I drew a horse for my niece.", "User drew a horse for their niece"),
        (
            "I'm meeting people who are as passionate as I am about rights.",
            "User is meeting people who are as passionate as they are about rights",
        ),
        ("I just adopted a puppy, Mel!", "User just adopted a puppy"),
        ("I moved to Portland, Oregon.", "User moved to Portland, Oregon"),
        ("I won my first tournament last week - so exciting!",
         "User won their first tournament last week"),
        ("I love sci-fi movies, they're a great escape.", "User loves sci-fi movies"),
        ("My wife and I hosted a party.", "User and their wife hosted a party"),
        ("I absolutley love DIYs.", "User absolutley loves DIYs"),
        ("I do love old films.", "User loves old films"),
        ("I do yoga every day.", "User does yoga every day"),
        ("I still can't swim.", "User still cannot swim"),
        ("I started my own store - pretty cool, huh?", "User started their own store"),
        ("I took the photo at Whispering Falls.", "User took the photo at Whispering Falls"),
        ("I'm carving out some me-time each day.", "User is carving out some me-time each day"),
        ("I'm also trying out yoga.", "User is also trying out yoga"),
        ("I took a road trip while you were winning.", "User took a road trip"),
        ("I cook a lot, so tell me if you want recipes.", "User cooks a lot"),
        ("My writing is going well: I'm in the middle of a novel.",
         "User's writing is going well: they're in the middle of a novel"),
        ("My family has been there for me all the way.",
         "User's family has been there for them all the way"),
    ],
)  # fmt: skip
def test_facts_are_grammatical_and_about_the_speaker(sentence: str, fact: str) -> None:
    assert statement_fact(sentence) == fact


def test_no_fragment_without_a_verb_and_no_caption() -> None:
    assert statement_fact("My family, exercise, and friends, for sure.") is None
    assert statement_fact("My advice: stay focused.") is None
    assert extract_facts("I bought a kayak [image: a photo of a lake]", 3, 10, 500) == [
        "User bought a kayak"
    ]


def _labels() -> list[dict[str, str]]:
    files = [LABELS, LABELS.parent / "fact_labels_heldout.jsonl"]
    return [json.loads(line) for f in files for line in f.read_text(encoding="utf-8").splitlines()]


def test_the_label_file_is_hand_labels_of_at_least_200_facts() -> None:
    rows = _labels()
    assert len(rows) >= 200
    assert {r["label"] for r in rows} <= {"correct", "vague", "wrong", "garbled"}
    assert all(r["reason"] and r["fact"].startswith("User") for r in rows)
    assert len({(r["sample"], r["dia_id"], r["fact"]) for r in rows}) == len(rows)
    assert len(rows) >= 300


def _locomo_dev() -> Path:
    env = os.environ.get("LOCOMO_DEV_JSON")
    path = Path(env) if env else ROOT.parent / "shared" / "data" / "locomo-dev.json"
    if not path.is_file():
        pytest.skip(f"{path} is absent (set LOCOMO_DEV_JSON)")
    return path


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "rules_extraction", ROOT / "bench" / "rules_extraction.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("labels", "at_least", "before"),
    [
        # the turns the rules were tightened on: 0.52 correct and 0.21 wrong or garbled before
        ("fact_labels.jsonl", 0.80, 0.52),
        # turns sampled once the rules were written (0.69 and 0.11 before)
        ("fact_labels_heldout.jsonl", 0.70, 0.69),
    ],
)
def test_precision_on_the_labelled_turns_stays_high(
    labels: str, at_least: float, before: float
) -> None:
    data = json.loads(_locomo_dev().read_text(encoding="utf-8"))
    bench = _bench()
    out = bench.labelled_precision(data, bench.load_labels(str(LABELS.parent / labels)))
    assert out["unlabelled"] == [], f"label the new facts in bench/data/{labels}"
    assert out["facts"] >= 80
    assert out["precision"] >= at_least > before
    assert out["wrong_or_garbled"] <= 0.05
