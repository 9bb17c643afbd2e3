"""Excerpts: the sentences of a long turn that a query is about."""

from __future__ import annotations

from mnemo.text.extractive import excerpt

LONG = (
    "Hey Mel! A lot has happened since we last chatted. I just joined a new LGBTQ activist "
    "group last Tuesday. I'm meeting so many cool people who care about rights. It's been "
    "fulfilling in so many ways. It is just great, you know?"
)


def test_short_text_is_kept_whole() -> None:
    assert excerpt("  I moved to   Lyon. ", ["lyon"], 100) == "I moved to Lyon."


def test_the_matching_sentence_and_its_neighbours() -> None:
    got = excerpt(LONG, ["activist", "group"], 120)
    assert "I just joined a new LGBTQ activist group last Tuesday." in got
    assert got.startswith("… ") and got.endswith(" …") and len(got) <= 120 + 4
    # a stem matches inflections: "fulfil" -> "fulfilling"
    assert "fulfilling" in excerpt(LONG, ["fulfilled"], 60)


def test_no_match_keeps_the_start_and_one_long_sentence_is_cut() -> None:
    assert excerpt(LONG, ["zebra"], 60).startswith("Hey Mel!")
    one = "word " * 100
    assert excerpt(one, ["word"], 50).endswith("…") and len(excerpt(one, ["word"], 50)) == 50
