"""Speaker aliases learned from the conversation: the evidence rules and their use in search."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from mnemo import Memory
from mnemo.retrieval.aliases import Evidence
from mnemo.retrieval.speakers import analyze
from mnemo.text.turn_rules import dump_cues, split_cues
from mnemo.text.vocatives import name_cues

JESS, SAM = "jdoe84", "mkt_sam"


def learn(turns: list[tuple[str, str]], speakers: tuple[str, str] = (JESS, SAM)) -> dict[str, str]:
    """The aliases a two-person exchange of (speaker, text) turns supports."""
    evidence = Evidence()
    for speaker, text in turns:
        other = speakers[1] if speaker == speakers[0] else speakers[0]
        cues, words = split_cues(dump_cues(name_cues(text)))
        evidence.read(cues, words, speaker, other)
        evidence.addressed(cues, other)
    return evidence.aliases(set(speakers))


def test_name_cues_read_the_words_around_each_name() -> None:
    cues = name_cues("Thank you Sam! We drove through Lyon, France. How are you, Kim?")
    assert cues.addressed == (("sam", 1.0), ("france", 0.5), ("kim", 0.5))
    assert cues.inner == frozenset({"sam", "lyon", "france", "kim"})
    cues = name_cues("Jess, my older sister Anna says hi. I'm Kim, by the way.")
    assert cues.addressed == (("jess", 0.5),)  # a turn's opening name, before a comma
    assert cues.others == ("anna",)
    assert cues.own == (("kim", 0.5),)
    assert name_cues("Hi, call me Jo.").own == (("jo", 1.0),)
    # a sentence's first word tells nothing; all-capitals and one-letter words are no names
    nothing = replace(name_cues("Honestly it was fine. Wow. OK I agree."), words=())
    assert nothing == name_cues("")
    # every word in lower case is counted, for how the user writes a name elsewhere
    assert name_cues("Jess met jess, JESS and jess's dog.").words == (
        ("and", 1),
        ("dog", 1),
        ("jess", 1),
        ("jess's", 1),
        ("met", 1),
    )


def test_vocatives_name_the_other_party() -> None:
    turns = [
        (SAM, "Hey Jess! How was the climbing trip?"),
        (JESS, "Amazing, thanks Sam. My arms are still sore."),
        (SAM, "Jess, did you go with the gym crowd?"),
        (JESS, "I did. What about your race, Sam?"),
    ]
    assert learn(turns) == {"jess": JESS, "sam": SAM}


def test_one_weak_hint_is_not_enough() -> None:
    # a name opening or closing a sentence after a comma counts half: "Lyon, France." is no
    # vocative, and one such hint alone teaches nothing
    turns = [(SAM, "We drove down through Lyon, France."), (JESS, "I lived in Paris for a year.")]
    assert learn(turns) == {}


def test_a_chat_in_lower_case_teaches_aliases_too() -> None:
    turns = [
        (SAM, "hey jess! how was the trip?"),
        (JESS, "amazing, thanks man! no more night shifts?"),  # no one is called man or shifts
        (SAM, "jess, did you go with the gym crowd?"),
        (JESS, "yes. thanks sam."),
        (SAM, "no more night shifts? that's great, jess."),
    ]
    assert learn(turns) == {"jess": JESS, "sam": SAM}


def test_self_introductions_name_the_speaker() -> None:
    turns = [
        (JESS, "Hello! My name is Jessamine but call me Jess, everyone does."),
        (SAM, "Nice to meet you. I work in marketing."),
    ]
    assert learn(turns) == {"jessamine": JESS, "jess": JESS}


def test_relational_mentions_are_not_aliases() -> None:
    hinted = [
        (SAM, "Wow, Anna! What a story."),  # two weak hints that Anna is Jess...
        (JESS, "It really was."),
        (SAM, "Anna, you are always up to something."),
    ]
    assert learn(hinted) == {"anna": JESS}
    # ... until Jess says Anna is her sister: a third party, neither Jess nor Sam
    told = [(JESS, "My sister Anna said the same thing."), *hinted]
    assert learn(told) == {}


def test_conflicting_evidence_teaches_nothing() -> None:
    turns = [
        (SAM, "Hey Alex! Long time."),
        (JESS, "Hi Alex! Good to hear from you."),  # Jess calls Sam Alex too
        (SAM, "Thanks Alex, see you soon!"),
        (JESS, "Bye Alex!"),
    ]
    assert "alex" not in learn(turns)


def test_common_words_speaker_names_and_greetings_are_not_aliases() -> None:
    turns = [
        (SAM, "Honestly, that was the best day."),
        (JESS, "Honestly, I agree. honestly."),
        (SAM, "Congrats! You did it."),
        (JESS, "Thanks, Congrats to you too."),
        (SAM, "Hey Mkt_sam!"),  # a speaker's own name is known already
    ]
    assert learn(turns) == {}


def test_analyze_resolves_aliases_and_cuts_them() -> None:
    about = analyze("What are Jess's hobbies?", [JESS, SAM], aliases={"jess": JESS})
    assert about.names == frozenset({JESS})
    assert about.dense_text == "What are hobbies?"
    assert analyze("What are Jess's hobbies?", [JESS, SAM]).names == frozenset()


CHAT = [
    {"role": "user", "name": SAM, "content": "Hey Jess! How was your week?"},
    {"role": "assistant", "name": JESS, "content": "Busy at the hospital, thanks Sam."},
    {"role": "user", "name": SAM, "content": "My hobbies are guitar and running."},
    {"role": "assistant", "name": JESS, "content": "My hobbies are bouldering and baking bread."},
    {"role": "user", "name": SAM, "content": "Cool, see you soon Jess!"},
]


def test_a_question_naming_an_alias_finds_that_speaker(
    open_mem: Callable[..., Memory],
) -> None:
    mem = open_mem(neighbor_weight=0.0)
    mem.add_messages(CHAT, user_id="u", session_id="s1")
    hits = mem.search("What are Jess's hobbies?", user_id="u", explain=True)
    assert hits[0].content == "My hobbies are bouldering and baking bread."
    assert hits[0].scores["speaker_prior"] == 1.5
    # without aliases the query names no speaker and the user's (Sam's) turn wins
    off = open_mem(neighbor_weight=0.0, speaker_aliases=False)
    assert off.search("What are Jess's hobbies?", user_id="u")[0].content.startswith(
        "My hobbies are guitar"
    )


def test_aliases_follow_new_turns_and_erasures(open_mem: Callable[..., Memory]) -> None:
    mem = open_mem(neighbor_weight=0.0)
    first = [
        {"role": "user", "name": SAM, "content": "My hobbies are guitar and running."},
        {
            "role": "assistant",
            "name": JESS,
            "content": "My hobbies are bouldering and baking bread.",
        },
    ]
    mem.add_messages(first, user_id="u", session_id="s1")
    query = "What are Jess's hobbies?"
    assert mem.search(query, user_id="u")[0].content.startswith("My hobbies are guitar")
    # a session opening "Hey Jess!" waits for the reply that says who Jess is
    mem.add_messages([CHAT[0]], user_id="u", session_id="s2")
    assert mem.search(query, user_id="u")[0].content.startswith("My hobbies are guitar")
    mem.add_messages([CHAT[1]], user_id="u", session_id="s2")  # jdoe84 answers
    assert (
        mem.search(query, user_id="u")[0].content == "My hobbies are bouldering and baking bread."
    )
    # erasing the turns that taught the alias unlearns it (an erasure reloads the index)
    mem.delete_user("u")
    mem.add_messages(first, user_id="u", session_id="s1")
    assert mem.search(query, user_id="u")[0].content.startswith("My hobbies are guitar")
