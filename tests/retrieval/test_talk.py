"""Talk that tells nothing ranks below what the user told: turn-kind priors, a question's pull
on its reply, talk kept out of fusion's scale and of the candidate pools, one hit per thing
said, the request's own texts left out, and recency measured from the user's newest turn."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from mnemo import Memory
from mnemo.retrieval import fusion
from mnemo.retrieval.duplicates import Collapser, exclusion_keys, text_key
from mnemo.retrieval.neighbours import neighbor_boost
from mnemo.retrieval.scoring import CEILING, min_max
from mnemo.retrieval.talk import KindPriors, apply_priors

OpenMem = Callable[..., Memory]
NOT_SURE = "I'm not sure, could you remind me?"


def ask_twice(mem: Memory, question: str) -> None:
    for session in ("chat-1", "chat-2"):
        turns = [{"role": "user", "content": question}, {"role": "assistant", "content": NOT_SURE}]
        mem.add_messages(turns, "u", session)


def test_questions_and_non_answers_rank_below_what_was_told(open_mem: OpenMem) -> None:
    mem = open_mem(dense_weight=0.0)
    mem.add_messages([{"role": "user", "content": "my dog Biscuit is a beagle"}], "u", "s1")
    ask_twice(mem, "what is my dog called?")
    hits = mem.search("what is my dog called", "u", explain=True)
    assert hits[0].content == "my dog Biscuit is a beagle" and hits[0].turn_kind == "statement"
    question = next(h for h in hits if h.turn_kind == "question")
    assert question.scores["turn_prior"] == 0.1 and len(question.duplicates) == 1  # asked twice
    assert [h.content for h in hits].count(NOT_SURE) <= 1  # the two non-answers are one hit
    # priors of 1 (the seeds' presets) rank the question first again, as before
    plain = open_mem(dense_weight=0.0, question_prior=1.0, non_answer_prior=1.0, reply_weight=0.0)
    assert plain.search("what is my dog called", "u")[0].content == "what is my dog called?"


def test_a_question_lends_its_relevance_to_its_reply(open_mem: OpenMem) -> None:
    mem = open_mem(
        dense_weight=0.0,
        speaker_weight=0.0,
        neighbor_weight=0.3,
        reply_weight=0.8,
        session_weight=0.0,
    )
    convo = [
        {"role": "user", "content": "Which instrument did you pick up this winter?"},
        {"role": "assistant", "content": "The cello, I practise every evening now."},
    ]
    mem.add_messages(convo, "u", "s1")
    mem.add_messages([{"role": "user", "content": "winter tyres for the car"}], "u", "s0")
    hits = mem.search("which instrument this winter", "u", limit=3)
    assert hits[0].content == convo[1]["content"]  # the reply, not the question, comes first
    question = next(h for h in hits if h.content == convo[0]["content"])
    borrowed = 0.8 * question.scores["fused"] / question.scores["turn_prior"]
    assert hits[0].scores["fused"] == pytest.approx(borrowed)


def test_stored_talk_takes_no_statement_out_of_the_pool(open_mem: OpenMem) -> None:
    mem = open_mem(dense_weight=0.0, min_pool=2, pool_factor=1)
    questions = [f"when did I go kayaking on the lake, round {i}?" for i in range(3)]
    mem.add_messages([{"role": "user", "content": q} for q in questions], "u", "asks")
    mem.add_messages([{"role": "user", "content": "we went kayaking in June"}], "u", "s1")
    hits = mem.search("when did I go kayaking on the lake", "u", limit=2)
    assert (
        hits[0].content == "we went kayaking in June"
    )  # a candidate though 3 questions outscore it


def test_explicit_now_and_the_users_newest_turn(open_mem: OpenMem) -> None:
    mem = open_mem(recency_weight=0.5)
    mem.add_messages(
        [{"role": "user", "content": "dentist in Lyon", "created_at": "2023-01-01T00:00:00"}],
        "u",
        "a",
    )
    mem.add_messages(
        [{"role": "user", "content": "dentist in Paris", "created_at": "2023-01-31T00:00:00"}],
        "u",
        "b",
    )
    hits = {h.content: h.scores["recency"] for h in mem.search("dentist", "u")}
    # no now: ages count from the newest turn (imported history keeps its recency)
    assert hits["dentist in Paris"] == 1.0
    assert hits["dentist in Lyon"] == pytest.approx(math.exp(-1))
    late = {
        h.content: h.scores["recency"]
        for h in mem.search("dentist", "u", now="2023-03-02T00:00:00")
    }
    assert late["dentist in Paris"] == pytest.approx(math.exp(-1))


def test_turns_already_in_the_request_are_left_out(open_mem: OpenMem) -> None:
    mem = open_mem()
    mem.add_messages([{"role": "user", "content": "I moved to Lyon in May"},
                      {"role": "user", "content": "Lyon has great food"}], "u", "s1")  # fmt: skip
    hits = mem.search("Lyon", "u", exclude=["i moved to LYON in may!"])
    assert [h.content for h in hits] == ["Lyon has great food"]
    with pytest.raises(Exception, match="exclude"):
        mem.search("Lyon", "u", exclude="I moved to Lyon in May")  # type: ignore[arg-type]


def test_a_fact_and_the_turn_it_came_from_are_one_hit(open_mem: OpenMem) -> None:
    mem = open_mem(source_similarity=0.5)
    ids = mem.add_messages([{"role": "user", "content": "I adopted a beagle called Biscuit"}], "u")
    fact = mem.add("User adopted a beagle called Biscuit", user_id="u", source_message_ids=ids)
    hits = mem.search("beagle called Biscuit", "u")
    assert len(hits) == 1 and {hits[0].id, *hits[0].duplicates} == {ids[0], fact.id}
    assert hits[0].turn_kind in ("statement", None)


# ---- the pure functions -----------------------------------------------------------------
def test_kind_priors() -> None:
    priors = KindPriors(question=0.1, non_answer=0.2, greeting=0.3)
    rel = {"s": 1.0, "q": 1.0, "n": 1.0, "g": 1.0, "m": 1.0}
    kinds = {"s": "statement", "q": "question", "n": "non_answer", "g": "greeting"}
    out, applied = apply_priors(rel, kinds, priors)  # type: ignore[arg-type]
    assert out == {"s": 1.0, "q": 0.1, "n": 0.2, "g": 0.3, "m": 1.0}
    assert applied == {"q": 0.1, "n": 0.2, "g": 0.3}


def test_reply_boost_takes_the_larger_share() -> None:
    rel = {"q": 1.0, "r": 0.1, "x": 0.5}
    near = {"r": ["q", "x"], "x": ["r"]}
    out = neighbor_boost(rel, near, 0.3, replies={"r": "q"}, reply_weight=0.8)
    assert out["r"] == pytest.approx(0.1 + 0.8)  # max(0.3 * 1.0, 0.8 * 1.0)
    assert out["x"] == pytest.approx(0.5 + 0.3 * 0.1)


def test_fusion_basis_keeps_talk_off_the_scale() -> None:
    lexical = {"s1": 2.0, "s2": 1.0, "q": 10.0}
    assert min_max(lexical, {"s1", "s2"}) == {"s1": 1.0, "s2": 0.0, "q": CEILING}
    assert min_max({"s1": 2.0, "q": 1.5}, {"s1", "s2"}) == {"s1": 1.0, "q": 0.75}  # one basis key
    assert fusion.ranks(lexical, {"s1", "s2"}) == {"q": 1, "s1": 1, "s2": 2}
    assert fusion.ranks(lexical) == {"q": 1, "s1": 2, "s2": 3}
    blended = fusion.weighted_blend({"lexical": lexical}, {"lexical": 1.0}, {"s1", "s2"})
    assert blended["s1"] == 1.0


def test_collapser() -> None:
    a = np.array([1.0, 0.0], np.float32)
    b = np.array([0.99, 0.141], np.float32)
    c = np.array([0.0, 1.0], np.float32)
    col = Collapser(similarity=0.98, source_similarity=0.5, exclude=exclusion_keys(["Hi Ann!"]))
    assert col.excluded("hi, ann") and not col.excluded("hi bob")
    assert col.admit("1", "I'm not sure.", a) is None
    assert col.admit("2", "i'm NOT sure!", c).id == "1"  # type: ignore[union-attr]  # same words
    assert col.admit("3", "other words", b).id == "1"  # type: ignore[union-attr]  # cosine .99
    assert col.admit("4", "a fact", c, sources=["9"]) is None
    assert col.admit("9", "the turn", np.array([0.6, 0.8], np.float32)).id == "4"  # type: ignore[union-attr]
    assert col.kept[0].duplicates == ["2", "3"] and text_key(" Hi,  Ann! ") == "hi ann"
