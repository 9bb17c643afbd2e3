"""Who a query is about: name analysis, the speaker prior and session aggregation."""

from __future__ import annotations

import numpy as np
import pytest

from mnemo import Memory
from mnemo.retrieval.neighbours import session_boost
from mnemo.retrieval.speakers import analyze, speaker_prior


def test_named_speakers_are_found_and_cut_from_the_dense_text() -> None:
    about = analyze("What kind of writing does Tim do?", ["tim", "john"])
    assert about.names == frozenset({"tim"})
    assert "Tim" not in about.dense_text and "writing" in about.dense_text


def test_possessives_and_multiword_names() -> None:
    about = analyze("Where is Mary Ann's sister now?", ["mary ann", "bob"])
    assert about.names == frozenset({"mary ann"})
    assert about.dense_text == "Where is sister now?"
    # every word of a name must appear; a prefix of a longer word is no match
    assert analyze("Did Mary call Timothy?", ["mary ann", "tim"]).names == frozenset()


def test_a_query_of_only_names_keeps_its_text() -> None:
    assert analyze("Tim?", ["tim"]).dense_text == "Tim?"
    assert analyze("What does Tim do?", ["tim"], strip_names=False).dense_text == (
        "What does Tim do?"
    )


@pytest.mark.parametrize(
    ("query", "role"),
    [
        ("Where did I complete my degree?", "user"),
        ("Can you suggest some accessories for my phone?", "user"),
        ("I remember you told me to dilute tea tree oil. How much?", "assistant"),
        ("Going back to our previous chat about the one-shot, what was the villain?", "assistant"),
        ("Remind me of the book title", "assistant"),
    ],
)
def test_role_a_query_recalls(query: str, role: str) -> None:
    assert analyze(query, []).role == role


def test_speaker_prior_formula() -> None:
    prior = speaker_prior(np.array([True, False]), 0.5)
    assert prior.tolist() == [1.5, 1.0]


def test_session_boost_formula() -> None:
    rel = {"a": 1.0, "b": 0.5, "c": 0.9, "d": 0.0}
    sessions = {"a": 0, "b": 0, "c": 1}
    out = session_boost(rel, sessions, 0.3, top=3)
    s0, s1 = (1.0 + 0.5) / 3, 0.9 / 3
    assert out["a"] == pytest.approx(1.0 + 0.3 * s0 / s0)
    assert out["c"] == pytest.approx(0.9 + 0.3 * s1 / s0)
    assert out["d"] == 0.0  # no session: unchanged
    # a memory outside any session is a session of its own that counts whole
    rel["n"] = 0.9
    out = session_boost(rel, sessions, 0.3, top=3, alone=["n"])
    assert out["n"] == pytest.approx(0.9 + 0.3 * 0.9 / 0.9)
    assert out["a"] == pytest.approx(1.0 + 0.3 * s0 / 0.9)


def test_a_note_competes_with_a_matching_session(db_path: str) -> None:
    words = ["cat", "dog", "river", "mountain", "pizza"]
    words += ["guitar", "piano", "summer", "lake", "trip"]
    with Memory(db_path, embedder="hashing", embedder_dim=96, lexical_weight=0.0) as mem:
        turns = [
            {"role": "user", "content": f"{words[i % 10]} {words[(i * 3) % 10]} note {i}"}
            for i in range(20)
        ]
        mem.add_messages(turns, user_id="u", session_id="s")
        mem.add("Ann loves pizza", user_id="u")
        hits = mem.search("pizza", user_id="u")
        assert hits[0].content == "Ann loves pizza", [h.content for h in hits[:3]]


def test_named_speaker_turns_rank_first(mem: Memory) -> None:
    turns = [
        {"role": "user", "name": "Gina", "content": "I love painting landscapes at dawn."},
        {"role": "assistant", "name": "Jon", "content": "I love painting landscapes at dusk."},
    ]
    mem.add_messages(turns, user_id="u", session_id="s")
    for name in ("Jon", "Gina"):
        hits = mem.search(f"What does {name} love painting?", user_id="u", explain=True)
        assert hits[0].content == next(t["content"] for t in turns if t["name"] == name)
        assert hits[0].scores["speaker_prior"] == 1.5  # the stage shows on the hit
        assert "speaker_prior" not in hits[1].scores


def test_user_turns_are_preferred_unless_the_assistant_is_recalled(db_path: str) -> None:
    mem = Memory(db_path, embedder="hashing", neighbor_weight=0.0, session_weight=0.0)
    filler = [{"role": "user", "content": f"note {i} about the garden fence"} for i in range(10)]
    mem.add_messages(filler, user_id="u", session_id="f")
    mem.add_messages(
        [
            {"role": "user", "content": "my sourdough starter recipe uses rye flour"},
            {"role": "assistant", "content": "a sourdough starter recipe uses rye flour"},
        ],
        user_id="u",
        session_id="s",
    )
    top = mem.search("sourdough starter recipe rye flour", user_id="u")[0]
    assert top.content.startswith("my ")
    recalled = mem.search("you told me a sourdough starter recipe with rye flour", user_id="u")
    assert recalled[0].content.startswith("a ")
    off = Memory(
        db_path, embedder="hashing", neighbor_weight=0.0, speaker_weight=0.0, session_weight=0.0
    )
    plain = {h.content: h.scores["fused"] for h in off.search("sourdough rye", user_id="u")}
    boosted = {h.content: h.scores["fused"] for h in mem.search("sourdough rye", user_id="u")}
    for content, value in plain.items():  # user turns x 1.5, assistant turns unchanged
        factor = 1.5 if not content.startswith("a ") else 1.0
        assert boosted[content] == pytest.approx(value * factor)
    mem.close()
    off.close()
