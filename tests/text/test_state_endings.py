"""State endings and state readings: one table read in the first person (a turn, the profile)
and the third (a rule fact, reconciliation), and the audit's pure "two live values" check."""

from __future__ import annotations

import pytest

from mnemo.text.fact_subjects import Reading, current_state, live_conflicts, readings
from mnemo.text.profile_rules import extract_endings, extract_profile
from mnemo.text.state_endings import FIRST, THIRD, Ended, base_verb, endings, withdrawn

#: The same ending said by the user and written as a rule fact.
PAIRS = [
    ("I quit my job.", "User quit their job", Ended("employer", None)),
    ("I just quit my job at Acme.", "User just quit their job at Acme", Ended("employer", "Acme")),
    ("I was laid off from Initech in May.", "User was laid off from Initech in May",
     Ended("employer", "Initech")),
    ("I left Initech last week.", "User left Initech last week", Ended("employer", "Initech")),
    ("I retired.", "User retired", Ended("employer", None)),
    ("I'm unemployed now.", "User is unemployed now", Ended("employer", None)),
    ("I moved out of Leeds.", "User moved out of Leeds", Ended("home", "Leeds")),
    ("I broke up with Sam.", "User broke up with Sam", Ended("partner", "Sam")),
    ("My girlfriend and I split up.", "User and their girlfriend split up",
     Ended("partner", None)),
]  # fmt: skip


@pytest.mark.parametrize(("said", "fact", "ended"), PAIRS)
def test_an_ending_reads_alike_in_both_persons(said: str, fact: str, ended: Ended) -> None:
    assert endings(said, FIRST) == [ended]
    assert endings(fact, THIRD) == [ended]


@pytest.mark.parametrize(
    "text",
    ["I left early.", "I quit smoking.", "I left my keys at home.", "I lost my keys."],
)
def test_what_is_no_ending_of_a_state(text: str) -> None:
    assert endings(text, FIRST) == []


@pytest.mark.parametrize(
    ("said", "first", "fact", "third"),
    [
        ("I used to live in Austin", "I live in Austin",
         "User used to live in Austin", "User lives in Austin"),
        ("I no longer work at Acme", "I work at Acme",
         "User no longer works at Acme", "User works at Acme"),
        ("I don't eat meat anymore", "I eat meat",
         "User does not eat meat anymore", "User eats meat"),
        ("I'm not vegetarian anymore", "I'm vegetarian",
         "User is not vegetarian anymore", "User is vegetarian"),
        ("I stopped being vegan", "I am vegan", "User stopped being vegan", "User is vegan"),
        ("I stopped living in Leeds", "I live in Leeds",
         "User stopped living in Leeds", "User lives in Leeds"),
    ],
)  # fmt: skip
def test_a_frame_withdraws_the_same_statement_in_both_persons(
    said: str, first: str, fact: str, third: str
) -> None:
    assert withdrawn(said, FIRST) == first
    assert withdrawn(fact, THIRD) == third


def test_base_verbs_of_gerunds() -> None:
    got = [base_verb(g) for g in ("playing", "living", "running", "smoking", "eating", "using")]
    assert got == ["play", "live", "run", "smoke", "eat", "use"]


def test_readings_of_a_fact_clause_by_clause() -> None:
    assert readings("User used to live in Austin but now they live in Seattle") == (
        Reading("home", "Austin", True),
        Reading("home", "Seattle"),
    )
    assert readings("User quit their job at Initech and now they work at Globex") == (
        Reading("employer", "Initech", True),
        Reading("employer", "Globex"),
    )
    assert readings("User works at Procter and Gamble") == (
        Reading("employer", "Procter and Gamble"),
    )
    assert readings("User is vegan now") == (Reading("diet", "vegan"),)
    assert readings("User joined Globex") == (Reading("employer", "Globex"),)
    assert readings("User joined a gym") == ()
    assert readings("User's wife's name is Ana") == (Reading("partner", "married Ana"),)
    assert readings("User's wife is French") == (Reading("'s wife", "French"),)
    assert current_state("User used to live in Austin but now they live in Seattle") == {
        "home": "Seattle"
    }
    assert current_state("User quit their job") == {}


def test_live_conflicts_finds_two_live_values_of_one_state() -> None:
    facts = [
        ("a", "User lives in Berlin"),
        ("b", "User moved to Paris"),
        ("c", "User works at Acme"),
        ("d", "User works at Acme Corp"),
        ("e", "User used to live in Rome"),
        ("f", "User's sister is a nurse"),
        ("g", "User's sister is Anna"),
    ]
    assert live_conflicts(facts) == {"home": ["a", "b"]}
    assert live_conflicts([("a", "User is vegetarian"), ("b", "User is vegan")]) == {
        "diet": ["a", "b"]
    }
    assert live_conflicts([]) == {}


def test_profile_endings_of_a_turn() -> None:
    def ends(text: str) -> list[tuple[str, str]]:
        return [(c.key, c.value) for c in extract_endings(text) if c.ended]

    assert ends("I quit my job.") == [("employer", "")]
    assert ends("I used to live in Austin but now I live in Seattle.") == [("location", "Austin")]
    assert ends("We broke up.") == [("partner", ""), ("relationship_status", "")]
    assert ends("I broke up with Sam.") == [("partner", "Sam"), ("relationship_status", "")]
    assert ends("I'm not vegetarian anymore.") == [("diet", "vegetarian")]
    assert ends("Did you quit your job?") == []
    assert ends("If I quit my job, I would travel.") == []
    assert ends("I love my job at Acme.") == []
    # the values of the same turns are read as before: an ending is no value
    assert extract_profile("I quit my job.") == []
    assert [(c.key, c.value) for c in extract_profile("I used to live in Austin")] == []


def test_profile_partner_patterns() -> None:
    def partner(text: str) -> list[str]:
        return [c.value for c in extract_profile(text) if c.key == "partner"]

    assert partner("My husband Raj is a pilot.") == ["Raj"]
    assert partner("My girlfriend's name is Alex.") == ["Alex"]
    assert partner("I'm dating Sam.") == ["Sam"]
    assert partner("I got married to Alex!") == ["Alex"]
    assert partner("My husband is a pilot.") == []
    assert partner("I'm dating a musician.") == []


def test_everyday_wordings_of_a_state() -> None:
    assert readings("User has left Initech") == (Reading("employer", "Initech", True),)
    assert readings("User is now working for Globex") == (Reading("employer", "Globex"),)
    assert readings("User was hired by Globex last week") == (Reading("employer", "Globex"),)
    assert readings("User and their wife moved to Lisbon") == (Reading("home", "Lisbon"),)
    assert readings("User and their sister went to Paris") == ()
    assert readings("User went vegan last month") == (Reading("diet", "vegan"),)
    assert readings("User is single now") == (Reading("partner", "single"),)

    def profile(text: str) -> list[tuple[str, str]]:
        return [(c.key, c.value) for c in extract_profile(text)]

    assert profile("I went vegan last month.") == [("diet", "vegan")]
    assert profile("I'm a vegetarian.") == [("diet", "vegetarian")]
    assert profile("I became a nurse.") == [("occupation", "nurse")]
    assert profile("I was hired by Globex.") == [("employer", "Globex")]
    assert profile("We moved to Valencia.") == [("location", "Valencia")]
    assert [(c.key, c.value) for c in extract_endings("I'm single now.")] == [
        ("partner", ""),
        ("relationship_status", ""),
    ]
