"""The lexical side of the blend scaled by how much of the query its best BM25 match covers."""

from __future__ import annotations

import json
import math
from itertools import groupby
from pathlib import Path

import pytest

from mnemo import Memory
from mnemo.cli.demo import sample_path
from mnemo.retrieval import fusion
from mnemo.retrieval.coverage import coverage, lexical_scale


def test_coverage_is_bm25_over_the_query_idf_sum() -> None:
    assert coverage(2.0, 8.0) == 0.25
    assert coverage(9.0, 6.0) == 1.5  # a short row, or a repeated term, may exceed the ceiling
    assert coverage(2.0, 0.0) == 1.0  # no ceiling (no terms, an empty table): no damping


def test_scale_is_the_best_statement_coverage_to_the_power() -> None:
    covered = {"a": 0.25, "b": 0.125, "talk": 0.9}
    # the best of the basis, not the talk outside it
    assert lexical_scale(covered, {"a", "b"}, 0.5) == pytest.approx(0.5)
    assert lexical_scale(covered, None, 1.0) == pytest.approx(0.9)
    assert lexical_scale(covered, {"a", "b"}, 1 / 3) == pytest.approx(0.25 ** (1 / 3))
    # no basis key among the candidates: the best of them all
    assert lexical_scale(covered, {"other"}, 1.0) == pytest.approx(0.9)


def test_scale_is_one_when_covered_off_or_empty() -> None:
    assert lexical_scale({"a": 3.0}, None, 1.0) == 1.0  # clipped: a full match is not boosted
    assert lexical_scale({"a": 0.1}, None, 0.0) == 1.0  # power 0: plain min-max
    assert lexical_scale({}, None, 1.0) == 1.0
    assert lexical_scale({"a": -0.5}, None, 1.0) == 0.0


def test_blend_multiplies_a_list_by_its_scale() -> None:
    scores = {"lexical": {"x": 4.0, "y": 2.0}, "dense": {"x": 0.1, "y": 0.5}}
    weights = {"lexical": 1.0, "dense": 1.0}
    plain = fusion.weighted_blend(scores, weights)
    assert plain == {"x": 0.5, "y": 0.5}
    scaled = fusion.weighted_blend(scores, weights, scales={"lexical": 0.4})
    assert math.isclose(scaled["x"], (0.4 * 1.0 + 0.0) / 2)
    assert math.isclose(scaled["y"], (0.0 + 1.0) / 2)
    assert scaled["y"] > scaled["x"]


def demo_turns(path: Path) -> list[tuple[str, list[dict[str, str]]]]:
    """The demo's sample conversation as (session, turns), in file order."""
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [
        (session, [{k: v for k, v in t.items() if k != "session_id"} for t in turns])
        for session, turns in groupby(lines, key=lambda t: t["session_id"])
    ]


@pytest.mark.slow
def test_the_demo_dog_question_finds_biscuit_first(tmp_path: Path) -> None:
    """Only "named" (a tutor's) shares a word with "What is the name of my dog?": under plain
    min-max (the default) that one-word match takes the full lexical weight and ranks first;
    with the coverage scale on, a turn about Biscuit does."""
    question = "What is the name of my dog?"
    with Memory(str(tmp_path / "demo.db"), embedder="local", lexical_coverage_power=0.33) as mem:
        for session, turns in demo_turns(sample_path()):
            mem.add_messages(turns, user_id="maya", session_id=session)
        mem.drain()
        top = mem.search(question, user_id="maya", limit=5, explain=True)
    assert top[0].kind == "message" and "Biscuit" in top[0].content
    # both turns that tell of Biscuit rank above the tutor's one-word match (which of the
    # fact and the tutor comes third is within the vectors' rounding between CPUs)
    at = next(i for i, h in enumerate(top) if "Inês" in h.content)
    assert at >= 2 and all("Biscuit" in h.content for h in top[:2])
    tutor = top[at]
    # its BM25 match covers under half the query's idf ("dog" is in no turn): scale < 1
    assert tutor.scores["lexical_rank"] == 1 and 0 < tutor.scores["lexical_scale"] < 1
