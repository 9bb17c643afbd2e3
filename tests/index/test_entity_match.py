"""The query side of the entity index: a text against a user's entity dictionary (names and
aliases, case and possessive blind), and the entities each turn mentions."""

from __future__ import annotations

from mnemo.index.entities import dictionary, match_text, turn_entities, words
from mnemo.storage.ports.entities import EntityRecord, EntityView


def entity(id_: str, name: str, kind: str = "person", *aliases: str) -> EntityRecord:
    return EntityRecord(id_, "t", "u", name, kind, aliases, 1, "", "")


RAJ = entity("ent_raj", "Raj", "person", "my husband", "husband")
KIWI = entity("ent_kiwi", "Kiwi", "pet", "parrot")
NOOR = entity("ent_noor", "Noor", "person", "our twins", "twins")
SAMI = entity("ent_sami", "Sami", "person", "our twins", "twins")
NY = entity("ent_ny", "New York", "place")
NAMES = dictionary([RAJ, KIWI, NOOR, SAMI, NY])


def ids(text: str, cased: bool = False) -> list[str]:
    return [m.entity_id for m in match_text(text, NAMES, cased)]


def test_words_drop_case_and_possessives() -> None:
    assert words("RAJ's job, the twins' school") == ("raj", "job", "the", "twins", "school")


def test_a_query_names_entities_by_name_or_alias_case_blind() -> None:
    assert ids("what does raj do?") == ["ent_raj"]
    assert ids("Where does my husband work?") == ["ent_raj"]
    assert ids("What is Raj's job?") == ["ent_raj"]
    assert ids("when did we visit new york") == ["ent_ny"]
    assert ids("how old are the twins?") == ["ent_noor", "ent_sami"]
    assert ids("anything about York?") == []  # a part of a name is not the name
    assert ids("the weather today") == []


def test_a_match_says_how_it_named() -> None:
    (by_name,) = match_text("Raj", NAMES)
    (by_alias,) = match_text("my husband", NAMES)
    assert by_name.by_name and by_name.term == "raj"
    assert not by_alias.by_name and by_alias.term == "my husband"


def test_a_cased_read_takes_a_name_only_capitalised() -> None:
    assert ids("I ate a kiwi", cased=True) == []
    assert ids("Kiwi said hello", cased=True) == ["ent_kiwi"]
    assert ids("our parrot is loud", cased=True) == ["ent_kiwi"]  # aliases stay case-blind


def test_turn_entities_in_the_order_asked() -> None:
    view = EntityView((RAJ, KIWI), {"m1": frozenset({"ent_raj"}), "m3": frozenset({"ent_kiwi"})})
    assert turn_entities(["m3", "m2", "m1"], view) == [
        frozenset({"ent_kiwi"}),
        frozenset(),
        frozenset({"ent_raj"}),
    ]
