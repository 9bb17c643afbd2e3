"""The compiled coarse tags against the model's own ``attribute_ruler``, token by token."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from mnemo.text import parser_model
from mnemo.text.coarse_tags import CoarseTags

HERE = Path(__file__).resolve().parent

#: Sentences that reach the rules the lookup must get right: auxiliaries, "there is", "'s",
#: determiners used as pronouns, "everyone", "gonna", spaces, foreign words, numbers.
SENTENCES = [
    "There is a park near us and there were two dogs in it.",
    "She's been to Lisbon; he's got a boat and it's Raj's.",
    "I have a parrot, I had two cats and I've had a goldfish.",
    "Did you do it? I did, and I do that every day.",
    "That is what everyone wants: this one, not those.",
    "I'm gonna move to Valencia next month  because of my job.",
    "We ain't done yet, y'all, c'mon!",
    "My husband Raj flies for KLM out of Amsterdam at 6:30 am.",
    "Ugh, I sprained my ankle playing basketball on Friday (again).",
    "The café served croissants et cetera, $12 for two.",
]


def _turns() -> list[str]:
    lines = (HERE / "no_fact_turns.txt").read_text(encoding="utf-8").splitlines()
    return SENTENCES + [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def test_the_lookup_gives_the_pipes_tags_token_by_token() -> None:
    module = importlib.import_module(parser_model.MODEL_PACKAGE)
    reference = module.load(exclude=list(parser_model.EXCLUDED))
    turns = _turns()
    expected = [[(t.text, t.pos_) for t in doc] for doc in reference.pipe(turns)]
    got = [[(t.text, t.pos_) for t in doc] for doc in parser_model.parse(turns)]
    assert got == expected
    assert not parser_model.pipeline().has_pipe("attribute_ruler") or (
        "attribute_ruler" in parser_model.pipeline().disabled
    )


def test_a_rule_shape_the_lookup_cannot_read_is_refused() -> None:
    pos = {"attrs": {"POS": "VERB"}, "index": 0}
    with pytest.raises(ValueError, match="shape"):
        CoarseTags([{**pos, "patterns": [[{"LOWER": "gon"}, {"LOWER": "na"}]]}])
    with pytest.raises(ValueError, match="attributes"):
        CoarseTags([{**pos, "patterns": [[{"TAG": "VB", "IS_ALPHA": True}]]}])
    with pytest.raises(ValueError, match="test"):
        CoarseTags([{**pos, "patterns": [[{"LOWER": {"REGEX": "^x"}}]]}])


def test_later_rules_win_and_rules_without_pos_are_ignored() -> None:
    module = importlib.import_module(parser_model.MODEL_PACKAGE)
    nlp = module.load(exclude=[*parser_model.EXCLUDED, "attribute_ruler"])
    doc = nlp("I have a dog.")
    tags = CoarseTags(
        [
            {"patterns": [[{"TAG": "VBP"}]], "attrs": {"POS": "VERB"}, "index": 0},
            {"patterns": [[{"TAG": "VBP", "LOWER": "have"}]], "attrs": {"POS": "AUX"}, "index": 0},
            {"patterns": [[{"TAG": "VBP"}]], "attrs": {"LEMMA": "x"}, "index": 0},
        ]
    )
    assert [t.pos_ for t in tags(doc)][1] == "AUX"
