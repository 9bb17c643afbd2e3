"""The rule detector of the entity index: which names a turn gives, of which kind, with
which aliases (no parser)."""

from __future__ import annotations

import time

import pytest

from mnemo.text.entity_rules import Detected, detect_entities


def found(text: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    return {d.name: (d.kind, d.aliases) for d in detect_entities(text)}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "My husband Raj is a pilot, he flies for KLM out of Amsterdam.",
            {
                "Raj": ("person", ("my husband", "husband")),
                "KLM": ("org", ()),
                "Amsterdam": ("place", ()),
            },
        ),
        ("We have a parrot called Kiwi and two goldfish.", {"Kiwi": ("pet", ("parrot",))}),
        ("I have a beagle called Biscuit.", {"Biscuit": ("pet", ("beagle",))}),
        ("I take lessons with a tutor named Ines.", {"Ines": ("person", ())}),
        (
            "Our twins, Noor and Sami, started kindergarten this week!",
            {
                "Noor": ("person", ("our twins", "twins")),
                "Sami": ("person", ("our twins", "twins")),
            },
        ),
        ("Next month we are relocating to Valencia for my job.", {"Valencia": ("place", ())}),
        (
            "I used to live in Austin but now I live in Seattle.",
            {"Austin": ("place", ()), "Seattle": ("place", ())},
        ),
        ("I started working at Initech in March.", {"Initech": ("org", ())}),
        (
            "We flew to New York with my dog Rex.",
            {"Rex": ("pet", ("my dog", "dog")), "New York": ("place", ())},
        ),
    ],
)
def test_names_by_their_cues(text: str, expected: dict[str, tuple[str, tuple[str, ...]]]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Ugh, I sprained my ankle playing basketball on Friday.",
        "See you in January!",
        "I wrote it in English and then in Spanish.",
        "Thanks, that helps a lot.",
        "we went to the park with my husband",  # no name
    ],
)
def test_no_entity_without_a_name_after_a_cue(text: str) -> None:
    assert detect_entities(text) == []


def test_a_name_named_twice_is_one_entity_of_its_strongest_kind() -> None:
    # "from Raj" reads as a place, "my husband Raj" as a person: person wins
    assert detect_entities("My husband Raj is back. He is from Raj, no, in Raj.") == [
        Detected("Raj", "person", ("my husband", "husband"))
    ]


def test_someone_elses_relation_gives_no_alias_of_the_user() -> None:
    assert detect_entities("Her sister Anna lives in Oslo.") == [
        Detected("Anna", "person", ()),
        Detected("Oslo", "place", ()),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hey Mel! How was the trip?", ["Mel"]),
        ("Good morning, Caroline!", ["Caroline"]),
        ("My name is Dana.", ["Dana"]),
        ("hey jess!", []),  # written in lower case only: left to the alias rules
        ("Hey there! Thanks, everyone.", []),
    ],
)
def test_an_address_or_a_self_introduction_names_a_person(text: str, expected: list[str]) -> None:
    found = detect_entities(text)
    assert [d.name for d in found] == expected and all(d.kind == "person" for d in found)


def test_a_possessive_is_not_part_of_a_name_nor_a_place() -> None:
    assert detect_entities("I visited Laura's house with my friend Tom's dog.") == [
        Detected("Tom", "person", ("my friend", "friend"))
    ]


SHAPES = {
    "vocatives": lambda n: "Hey Jess, " * (n // 10),
    "relations": lambda n: "my sister " * (n // 10) + "Ann",
    "a list of names": lambda n: "my friends " + "Ann and " * (n // 8) + "Bo",
    "places": lambda n: "in " * (n // 3) + "Oslo",
    "capitals": lambda n: "Ann " * (n // 4),
    "one long word": lambda n: "A" + "a" * n,
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_detection_takes_linear_time(shape: str) -> None:
    def seconds(text: str) -> float:
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            detect_entities(text)
            best = min(best, time.perf_counter() - start)
        return best

    small, large = seconds(SHAPES[shape](10_000)), seconds(SHAPES[shape](100_000))
    # ten times the text: linear is about 10x, quadratic 100x; the floor absorbs timer noise
    assert large < 30 * max(small, 0.002), (shape, small, large)


def test_a_numbered_title_is_no_place_and_someone_named_is_a_person() -> None:
    assert detect_entities("Remember that block in Game 7? I met someone named David.") == [
        Detected("David", "person", ())
    ]
