"""The clause reader of offline facts, run with the real spaCy model (no mocks).

Sentences here are written for these tests. ``no_fact_turns.txt`` holds turns that state no
fact (small talk, questions, hypotheticals, requests, hedges, courtesies): none may give one.
"""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from mnemo.text.parsed_facts import FactLimits, Said, extract, extract_many
from mnemo.text.relative_dates import resolve

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
WIDE = FactLimits(max_facts=10)
#: A Wednesday.
WEDNESDAY = datetime(2024, 3, 13, 18, 30)


def facts(text: str, when: datetime | None = None) -> list[str]:
    """The facts of one turn, with room for every clause."""
    return extract(Said(text, when), WIDE)


def no_fact_turns() -> list[str]:
    """The turns of ``no_fact_turns.txt``."""
    lines = (HERE / "no_fact_turns.txt").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def test_no_fact_from_small_talk_questions_hypotheticals_or_requests() -> None:
    turns = no_fact_turns()
    assert len(turns) >= 50
    found = extract_many([Said(t, WEDNESDAY) for t in turns], WIDE)
    assert {t: f for t, f in zip(turns, found, strict=True) if f} == {}


@pytest.mark.parametrize(
    ("turn", "expected"),
    [
        # coordination, with and without a subject of its own; a comma splice
        (
            "I'm Lena, I repair bicycles in Utrecht and I coach a junior hockey team.",
            [
                "User is Lena",
                "User repairs bicycles in Utrecht",
                "User coaches a junior hockey team",
            ],
        ),
        ("I bake bread and sell it at the market.", ["User bakes bread"]),
        (
            "I have lived in Porto and studied architecture there.",
            ["User has lived in Porto"],
        ),
        # a semicolon
        (
            "My cousin Ines is a vet; she treats horses near Evora.",
            ["User's cousin Ines is a vet", "User's cousin Ines treats horses near Evora"],
        ),
        # people of the user's, named later by a pronoun or by name
        (
            "My grandfather Karl restores clocks, he has a workshop in Graz.",
            [
                "User's grandfather Karl restores clocks",
                "User's grandfather Karl has a workshop in Graz",
            ],
        ),
        (
            "Our sons, Ali and Omar, play chess at school.",
            ["User's sons, Ali and Omar, play chess at school"],
        ),
        (
            "My brother and I built a treehouse.",
            ["User and their brother built a treehouse"],
        ),
        # negation, contractions, perfect tenses
        ("I don't drink coffee.", ["User does not drink coffee"]),
        ("I've been a vegan since 2019.", ["User has been a vegan since 2019"]),
        ("I can't swim.", ["User cannot swim"]),
        ("I used to row but now I cycle to work.", ["User used to row", "User now cycles to work"]),
        ("I no longer smoke.", ["User no longer smokes"]),
        # someone else's clause is kept only when the user is in it
        ("Yoga helps me sleep.", ["Yoga helps User sleep"]),
        ("Pottery is my favourite hobby.", ["User's favourite hobby is pottery"]),
        # a reason with its own subject is a clause of its own
        (
            "I stopped eating meat because my doctor advised it.",
            ["User stopped eating meat"],
        ),
    ],
)
def test_clauses_become_third_person_facts(turn: str, expected: list[str]) -> None:
    assert facts(turn) == expected


def test_relative_dates_resolve_against_the_turn_and_keep_the_phrase() -> None:
    assert facts("I twisted my knee on Sunday.", WEDNESDAY) == [
        "User twisted their knee on Sunday (10 March 2024)"
    ]
    assert facts("Next month we are moving to Oslo.", WEDNESDAY) == [
        "User and one or more others are moving to Oslo next month (April 2024)"
    ]
    assert facts("We visited my parents last winter.", WEDNESDAY) == [
        "User and one or more others visited their parents last winter (winter 2023-2024)"
    ]
    # without a date the phrase stays as it is
    assert facts("I twisted my knee on Sunday.") == ["User twisted their knee on Sunday"]


def test_a_date_inside_a_possessive_goes_after_its_noun() -> None:
    turn = "I kept the ticket from yesterday's concert in Leeds."
    assert facts(turn, WEDNESDAY) == [
        "User kept the ticket from yesterday's concert (12 March 2024) in Leeds"
    ]  # once "yesterday (12 March 2024)'s concert"


def test_a_weekday_of_last_or_next_week_is_one_phrase() -> None:
    assert facts("I bought my bike on Tuesday last week.", WEDNESDAY) == [
        "User bought their bike on Tuesday last week (5 March 2024)"
    ]  # once "on Tuesday (12 March 2024) last week (week of 4 March 2024)"
    assert resolve("User flies out on Friday next week", WEDNESDAY, False) == (
        "User flies out on Friday next week (22 March 2024)"
    )


def test_a_weekday_said_with_its_date_is_not_resolved() -> None:
    assert resolve("User ran on Saturday, March 9th", WEDNESDAY, True) == (
        "User ran on Saturday, March 9th"
    )
    assert (
        resolve("User ran on Saturday the 9th", WEDNESDAY, True) == "User ran on Saturday the 9th"
    )
    assert (
        resolve("User ran on Saturday, 9 March", WEDNESDAY, True) == "User ran on Saturday, 9 March"
    )
    assert resolve("User swims on Tuesday evenings", WEDNESDAY, False) == (
        "User swims on Tuesday evenings"
    )  # a habit, not next Tuesday
    assert resolve("User ran on Saturday, 10 miles", WEDNESDAY, True) == (
        "User ran on Saturday (9 March 2024), 10 miles"
    )


def test_weekends_said_on_a_sunday() -> None:
    """On a Sunday "this weekend" is the one that began the day before, and "last weekend"
    the one before it."""
    sunday = datetime(2023, 5, 21, 18, 55)
    assert resolve("User hiked last weekend", sunday, True) == (
        "User hiked last weekend (weekend of 13 May 2023)"
    )
    assert resolve("User hikes this weekend", sunday, False) == (
        "User hikes this weekend (weekend of 20 May 2023)"
    )


def test_relative_date_phrases() -> None:
    past = {
        "yesterday": "12 March 2024",
        "two days ago": "11 March 2024",
        "last week": "week of 4 March 2024",
        "last weekend": "weekend of 9 March 2024",
        "last year": "2023",
        "last summer": "summer 2023",
        "on Friday": "8 March 2024",
    }
    for phrase, meaning in past.items():
        assert resolve(f"User left {phrase}", WEDNESDAY, True) == f"User left {phrase} ({meaning})"
    future = {"tomorrow": "14 March 2024", "on Friday": "15 March 2024", "next year": "2025"}
    for phrase, meaning in future.items():
        assert resolve(f"User leaves {phrase}", WEDNESDAY, False) == (
            f"User leaves {phrase} ({meaning})"
        )


@pytest.mark.parametrize(
    "turn",
    [
        "If my landlord agrees, I'll paint the kitchen.",
        "Do you think my sister would like a scarf?",
        "I think my neighbour is a spy.",
        "My boss says you should always back up.",
        "I'm gonna try that recipe.",
        "I love it!",
        "We should grab lunch sometime.",
        "I could never live in a big city.",
    ],
)
def test_refused_clauses(turn: str) -> None:
    assert facts(turn) == []


def test_a_plan_is_kept_with_a_time() -> None:
    assert facts("I'm starting a pottery course next week.", WEDNESDAY) == [
        "User is starting a pottery course next week (week of 18 March 2024)"
    ]


def test_limits_bound_facts_per_turn_and_their_length() -> None:
    turn = "I knit scarves. I grow tomatoes. I keep bees. I play the oboe."
    assert len(extract(Said(turn), FactLimits(max_facts=2))) == 2
    assert extract(Said("I knit."), FactLimits(min_chars=20)) == []


def test_the_parser_never_loads_on_import_write_or_search(tmp_path: Path) -> None:
    """``import mnemo``, ``add_messages`` and a search leave spaCy unloaded; the fact job
    (``drain``) loads it and writes the clause reader's facts."""
    code = f"""
import sys
from mnemo import Memory
from mnemo.text import parser_model
with Memory({str(tmp_path / "m.db")!r}, embedder="hashing") as mem:
    mem.add_messages([{{"role": "user", "content": "I repair violins in Cremona."}}], "u1", "s1")
    mem.search("violins", "u1")
    assert "spacy" not in sys.modules and not parser_model.loaded(), "loaded early"
    mem.drain()
    assert parser_model.loaded()
    print([m.content for m in mem.list("u1", kind="fact")])
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert out.stdout.strip() == "['User repairs violins in Cremona']"


@pytest.mark.parametrize(
    ("turn", "expected"),
    [
        # a lead that sets the topic is dropped; one that cannot move refuses the clause
        ("Besides hiking, I also collect stamps.", ["User also collects stamps"]),
        ("As for me, I have started pottery classes.", ["User has started pottery classes"]),
        ("While cycling home, I saw a fox near the canal.", []),
        # quotes pair up after an afterthought is cut; a tacked-on "take a look" goes
        ('I just finished reading "Dune" - what a ride!', ['User just finished reading "Dune"']),
        ("I bought a tent, take a look!", ["User bought a tent"]),
        (
            "As for goals, I want to run a marathon in Berlin.",
            ["User wants to run a marathon in Berlin"],
        ),
        # a time told by the conversation, a comment on the clause: cut, the fact kept
        (
            "Since we last talked, I adopted a kitten named Pip.",
            ["User adopted a kitten named Pip"],
        ),
        (
            "I talked to two agents in Boston, which looks promising.",
            ["User talked to two agents in Boston"],
        ),
        # an irregular past the tagger reads as a present stays past
        ("I retook the driving test in May.", ["User retook the driving test in May"]),
        # a wish that names its aim; a taste of a thing not shown
        ("I want to learn Japanese.", ["User wants to learn Japanese"]),
        ("I love the ocean.", ["User loves the ocean"]),
        # "made me feel" has no subject of the user's; "can" is the second verb's too
        (
            "I ran in a charity race and it was great, made me feel strong.",
            ["User ran in a charity race"],
        ),
        (
            "Now I can expand my bakery and hire two bakers.",
            [
                "User now can expand their bakery",
                "User can hire two bakers",
            ],
        ),
        (
            "I have been training non-stop for the marathon in Rome.",
            ["User has been training non-stop for the marathon in Rome"],
        ),
        (
            "Been knitting scarves for the winter market.",
            ["User has been knitting scarves for the winter market"],
        ),
        # round 4: "-eed" presents, a present joined inside the clause, "the US", things owned
        (
            "I feed the ducks at the pond every morning.",
            ["User feeds the ducks at the pond every morning"],
        ),
        (
            "I want to start swimming again and need to buy goggles.",
            ["User wants to start swimming again and needs to buy goggles"],
        ),
        (
            "My cousin and I are flying to the US in June.",
            ["User and their cousin are flying to the US in June"],
        ),
        (
            "We have two cats and a rabbit called Dot.",
            ["User and one or more others have two cats and a rabbit called Dot"],
        ),
        (
            "I'm excited to explore the world with my camera.",
            ["User is excited to explore the world with their camera"],
        ),
        ("I spent $40 on a new kettle.", ["User spent $40 on a new kettle"]),
        ("I not only paint but also sculpt.", []),
        # round 5: a named kind of "the X" stays; so does a weekday with its date said
        (
            "I found the pottery class really relaxing.",
            ["User found the pottery class really relaxing"],
        ),
        # after freeze 5: an opening adverb goes after "is"; a verbless join after a comma is cut
        ("Also, I'm vegetarian.", ["User is also vegetarian"]),
        ("I'm allergic to shellfish, so no prawns.", ["User is allergic to shellfish"]),
        # a purpose inside a clause stays with it
        (
            "I cook on Sundays so my kids can take lunches to school.",
            ["User cooks on Sundays so their kids can take lunches to school"],
        ),
        # round 6: curly apostrophes (phones type them); a contraction after an inner "I";
        # "since our last chat" is a time, not a remark about the chat
        (
            "I’m a nurse, and I’ve been running for ten years.",
            ["User is a nurse", "User has been running for ten years"],
        ),
        (
            "My goal is to make yoga a habit, so I'll practise every morning before work.",
            [
                "User's goal is to make yoga a habit,"
                " so User will practise every morning before work"
            ],
        ),
        (
            "I've been running longer since our last chat.",
            ["User has been running longer since their last chat"],
        ),
        # markdown emphasis is dropped, not cut at
        (
            "I just finished *The Hobbit* and I adore **Tolkien**.",
            ["User just finished The Hobbit", "User adores Tolkien"],
        ),
        # round 8: a verb joined to an infinitive stays bare; a dash inside a name stays
        (
            "I've been trying to eat less meat and live a greener life.",
            ["User has been trying to eat less meat and live a greener life"],
        ),
        (
            "I'm enrolled in the Coursera - Machine Learning Specialization.",
            ["User is enrolled in the Coursera - Machine Learning Specialization"],
        ),
        # round 7: a relative clause without "that" stays with its noun; a bracket inside a
        # word is closed
        (
            "I was inspired by Rachel's insights at a marketing workshop I attended in May.",
            ["User was inspired by Rachel's insights at a marketing workshop they attended in May"],
        ),
        (
            "I've been contributing more to my 403(b) and aiming to buy a house by 40.",
            [
                "User has been contributing more to their 403(b)",
                "User has been aiming to buy a house by 40",
            ],
        ),
    ],
)
def test_clauses_written_cleanly_or_not_at_all(turn: str, expected: list[str]) -> None:
    assert facts(turn) == expected


@pytest.mark.parametrize(
    "turn",
    [
        "I met him at the gym.",  # who "him" is only the turn says
        "I want to make a difference.",  # a wish that names nothing
        "I'm so excited to give back.",  # a mood that names nothing
        "I love the colors and the texture.",  # a reaction to what was shown
        "I had a setback last week.",  # abstract words only
        "Hopefully I can finish the marathon.",  # a hope
        "I'm not giving up!",
        "I'm trying to stay positive.",
        "Been a long week!",  # "it has been", not the speaker
        "Excited for the weekend!",  # a feeling, not a past
        "My sister and I were thrilled.",
        "Dance is just me.",
        "Moments like these make me grateful.",  # someone else's subject points at the turn
        "Nah, I haven't.",
        "I am over the moon.",
        # round 4: an aim only the turn names, a reassurance, an amount alone, a purpose
        "I'm really excited to try out the lemon bars.",
        "I'm still deciding on the paint colours.",
        "I want to make sure I'm choosing a reliable contractor.",
        "I'm willing to spend around $300.",
        "That way I can see where my money goes.",
        # round 5: "the X" pointing at what the chat named; what a "make sure" is about
        "I'm curious about the budget for the whole trip.",
        "I'd like to explore the main themes of the film.",
        "I want to make sure that my tent is dry and that I am warm at night.",
        "This way, the plants get light and I can water them less.",
        # round 6: remarks about the chat or the assistant's suggestions; "can't help but"
        "My next question will be about the second apartment.",
        "I'm actually referring to the price of the monthly pass.",
        "I love the lentil soup and the halloumi wrap ideas!",
        "I can't help but worry about the interview on Friday.",
        "I like the text, it reads well.",
        "Next prompt is give me the link to the photo of the lake.",
    ],
)
def test_vague_clauses_refused(turn: str) -> None:
    assert facts(turn) == []
