"""Calibrated relevance (``hit.relevance``): bounded, monotone as its formula says, on every
hit; and the floors context assembly applies to it (``min_relevance``,
``min_expected_evidence``): a query about something never discussed gets an empty context."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mnemo import Memory, Settings, ValidationError
from mnemo.cli.demo import sample_path
from mnemo.config.presets import PRESETS
from mnemo.context.items import above_floor, expected_evidence
from mnemo.ops.importers import jsonl_batches
from mnemo.retrieval.relevance import (
    FEATURES,
    SIGNS,
    RelevanceModel,
    clipped,
    features,
    model_for,
    non_increasing,
    sigmoid,
)
from mnemo.retrieval.relevance_model import DEFAULT_EMBEDDER, MODELS
from mnemo.schemas import Hit

OpenMem = Callable[..., Memory]
OFF_TOPIC = "quantum chromodynamics lecture"
CHAT = [
    "I adopted a beagle called Biscuit last spring",
    "Biscuit loves the beach and chasing seagulls",
    "I started a new job as a nurse at the city hospital",
    "My sister Anna is visiting us in June",
    "We cooked a big pot of lentil soup on Sunday",
    "I'm training for a half marathon in October",
]
EXTREMES = [
    {},
    {"dense": 1.0, "lexical": 80.0, "fused": 2.0, "speaker_prior": 1.5, "date_prior": 1.5},
    {"dense": -1.0, "fused": 0.0},
    {"lexical": 0.0},
]


def test_probability_is_bounded_and_never_overflows() -> None:
    assert sigmoid(1e6) == 1.0 and sigmoid(-1e6) == 0.0 and sigmoid(0.0) == 0.5
    for embedder in MODELS:
        model = model_for(embedder)
        assert model is not None
        for scores in EXTREMES:
            for position in (0, 1, 9, 999):
                assert 0.0 <= model.probability(scores, position) <= 1.0


def test_every_fitted_model_keeps_the_documented_signs() -> None:
    assert DEFAULT_EMBEDDER in MODELS
    for embedder, fitted in MODELS.items():
        assert set(fitted["coef"]) <= set(FEATURES), embedder
        for name, value in fitted["coef"].items():
            assert SIGNS[name] * value >= 0, (embedder, name, value)
    # an embedder without coefficients of its own is left uncalibrated
    assert model_for("no-such-embedder") is None and model_for("hashing:384") is None


@pytest.mark.parametrize("embedder", sorted(MODELS))
def test_relevance_is_monotone_in_the_evidence_scores(embedder: str) -> None:
    model = model_for(embedder)
    assert model is not None
    base = {"dense": 0.4, "lexical": 5.0, "fused": 0.8, "speaker_prior": 1.2}

    def p(position: int = 3, **change: float) -> float:
        return model.probability({**base, **change}, position)

    assert p(dense=0.1) <= p(dense=0.4) <= p(dense=0.8)
    assert p(lexical=0.0) <= p(lexical=5.0) <= p(lexical=30.0)
    assert p(fused=0.1) <= p(fused=0.8) <= p(fused=1.6)
    assert p(speaker_prior=1.0) <= p(speaker_prior=1.5)
    assert p(date_prior=1.0) <= p(date_prior=1.5)
    assert p(position=0) >= p(position=5) >= p(position=50)
    # and strictly in the cosine, the one score every default search has
    assert p(dense=0.8) > p(dense=0.1)


def test_features_follow_the_docstring() -> None:
    x = features({"dense": 0.5, "lexical": 3.0, "fused": 0.9, "speaker_prior": 1.5}, 2)
    assert list(x) == list(FEATURES)
    assert x["cosine"] == 0.5 and x["no_cosine"] == 0.0 and x["fused"] == 0.9
    assert x["bm25"] == pytest.approx(1.3862944) and x["position"] == pytest.approx(1.0986123)
    assert x["speaker"] == pytest.approx(0.4054651) and x["date"] == 0.0
    bm25_only = features({"lexical": 2.0}, 0)
    assert bm25_only["cosine"] == 0.0 and bm25_only["no_cosine"] == 1.0
    model = RelevanceModel(-1.0, {"cosine": 2.0})
    assert model.probability({"dense": 0.5}, 0) == 0.5


def test_every_hit_carries_a_relevance_and_search_ranks_as_before(open_mem: OpenMem) -> None:
    mem = open_mem(embedder="local")  # the bundled embedder, on both stores
    mem.add_messages([{"role": "user", "content": t} for t in CHAT], "u1", "s1")
    hits = mem.search("beagle Biscuit beach", user_id="u1", limit=6)
    assert hits and all(h.relevance is not None and 0.0 <= h.relevance <= 1.0 for h in hits)
    assert all(h.calibrated for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert "Biscuit" in hits[0].content
    relevances = [h.relevance or 0.0 for h in hits]
    assert relevances == sorted(relevances, reverse=True)  # monotone with the order
    # an unrelated query still gets its hits from search (the floors are for injection)
    assert mem.search(OFF_TOPIC, user_id="u1")


def test_an_uncalibrated_embedder_gives_its_clipped_score_and_keeps_its_context(
    open_mem: OpenMem,
) -> None:
    mem = open_mem()  # hashing: no fitted coefficients
    mem.add_messages([{"role": "user", "content": t} for t in CHAT], "u1", "s1")
    hits = mem.search("beach", user_id="u1")
    assert hits and not any(h.calibrated for h in hits)
    relevances = [h.relevance for h in hits]
    assert relevances == [round(min(max(h.score, 0.0), 1.0), 6) for h in hits]  # final scores
    assert relevances == sorted(relevances, reverse=True)
    items = mem.context("beach", "u1").section("memories").items  # type: ignore[union-attr]
    assert any("beach" in i.content for i in items)


def hit(relevance: float | None, calibrated: bool = True) -> Hit:
    return Hit.model_validate(
        {"id": "x", "kind": "fact", "content": "c", "score": 1.0,
         "created_at": "2024-01-01T00:00:00", "user_id": "u", "relevance": relevance,
         "calibrated": calibrated and relevance is not None}
    )  # fmt: skip


def test_above_floor_rule() -> None:
    """E = the sum of the best five calibrated relevances; nothing below ``expected``, else
    the hits whose relevance is at least floor * max(1, 0.5 / E) (uncalibrated hits count as
    relevant)."""
    hits = [hit(0.3), hit(0.01), hit(None), hit(0.002, calibrated=False), hit(0.001)]
    assert expected_evidence(hits) == pytest.approx(0.311)  # 0.3 + 0.01 + 0.001
    assert above_floor(hits, 0.0) == hits
    # the bar: 0.004 * 0.5 / 0.311 = 0.0064; the hit at 0.001 goes, the uncalibrated stay
    assert [h.relevance for h in above_floor(hits, 0.004)] == [0.3, 0.01, None, 0.002]
    assert [h.relevance for h in above_floor(hits, 0.007)] == [0.3, None, 0.002]  # 0.0113
    # from E = 0.5 on, the bar is the floor itself: more confidence admits nothing more
    rich = [hit(1.0), hit(1.0), hit(0.999), hit(0.004), hit(0.0039)]
    assert [h.relevance for h in above_floor(rich, 0.004)] == [1.0, 1.0, 0.999, 0.004]
    assert above_floor(hits, 0.004, expected=0.5) == []  # E 0.311 < 0.5: nothing at all
    low = [hit(0.02), hit(0.01)]
    assert above_floor(low, 0.004, expected=0.04) == []
    # E 0.03: the bar is 0.0004 * 0.5 / 0.03 = 0.0067, then 0.0008 * 0.5 / 0.03 = 0.0133
    assert above_floor(low, 0.0004, expected=0.02) == low
    assert [h.relevance for h in above_floor(low, 0.0008, expected=0.02)] == [0.02]
    uncalibrated = [hit(None), hit(0.002, calibrated=False)]
    assert above_floor(uncalibrated, 0.5, expected=0.5) == uncalibrated  # nothing to hold
    assert above_floor([], 0.5, expected=0.5) == []


def test_seed_presets_keep_their_own_thresholds_and_no_floor() -> None:
    default = Settings()
    assert 0 < default.min_relevance < default.min_expected_evidence < 1
    for preset in PRESETS:
        if preset != "default" and "fusion" in PRESETS[preset]:
            s = Settings(preset=preset)
            assert s.min_relevance == 0.0 and s.min_expected_evidence == 0.0, preset


def test_a_never_discussed_query_gets_an_empty_context(db_path: str) -> None:
    """The bundled embedder, its fitted coefficients and the default floors."""
    with Memory(db_path) as mem:
        turns = [{"role": "user", "content": t} for t in CHAT]
        mem.add_messages(turns, user_id="maya", session_id="s1")
        off = mem.context(OFF_TOPIC, "maya")
        assert off.section("memories").items == []  # type: ignore[union-attr]
        assert "Biscuit" not in off.render()
        hits = mem.search(OFF_TOPIC, user_id="maya")
        assert hits and expected_evidence(hits) < mem.settings.min_expected_evidence
        # today's behaviour on request: both floors off injects the unrelated turns
        forced = mem.context(OFF_TOPIC, "maya", min_relevance=0, min_expected_evidence=0)
        assert len(forced.section("memories").items) >= 3  # type: ignore[union-attr]
        # a question the store can answer still gets its evidence, first
        dog = mem.context("What is my dog's name?", "maya")
        items = dog.section("memories").items  # type: ignore[union-attr]
        assert items and "Biscuit" in items[0].content
        with pytest.raises(ValidationError, match="min_relevance"):
            mem.context("dog", "maya", min_relevance=2)
        with pytest.raises(ValidationError, match="min_expected_evidence"):
            mem.context("dog", "maya", min_expected_evidence=-0.1)


@pytest.mark.parametrize(
    ("raw", "pooled"),
    [
        ([], []),
        ([0.5], [0.5]),
        ([0.9, 0.5, 0.1], [0.9, 0.5, 0.1]),
        ([0.1, 0.5], [0.3, 0.3]),
        ([0.6, 0.2, 0.4, 0.1], [0.6, 0.3, 0.3, 0.1]),
        ([0.2, 0.4, 0.9], [0.5, 0.5, 0.5]),
    ],
)
def test_non_increasing_pools_adjacent_violators(raw: list[float], pooled: list[float]) -> None:
    out = non_increasing(raw)
    assert out == pytest.approx(pooled)
    assert sum(out) == pytest.approx(sum(raw))  # pooling keeps the expected count


def test_clipped_maps_a_final_score_into_the_unit_interval() -> None:
    assert [clipped(x) for x in (-0.3, 0.0, 0.42, 1.0, 1.7)] == [0.0, 0.0, 0.42, 1.0, 1.0]


def test_relevance_is_monotone_down_every_search(open_mem: OpenMem) -> None:
    mem = open_mem(embedder="local")
    mem.add_messages([{"role": "user", "content": t} for t in CHAT], "u1", "s1")
    for query in ("beagle", "what do I cook", "June visit", OFF_TOPIC, "marathon nurse"):
        hits = mem.search(query, user_id="u1", limit=8)
        relevances = [h.relevance for h in hits]
        assert relevances == sorted(relevances, reverse=True), (query, relevances)


def test_a_seed_preset_says_its_relevance_is_its_cosine(open_mem: OpenMem) -> None:
    mem = open_mem(embedder="local", preset="llmplatform")  # fusion cosine: not calibrated
    mem.add_messages([{"role": "user", "content": t} for t in CHAT], "u1", "s1")
    hits = mem.search("beagle at the beach", user_id="u1")
    assert hits and not any(h.calibrated for h in hits)
    assert [h.relevance for h in hits] == [round(min(max(h.score, 0.0), 1.0), 6) for h in hits]
    assert all(h.relevance is not None and h.relevance >= 0.45 for h in hits)  # its threshold


def test_the_demo_context_holds_what_answers_and_nothing_off_topic(db_path: str) -> None:
    """The bundled sample conversation, default settings: a paraphrase that shares no word
    with its evidence still gets it; questions about nothing it discusses get nothing."""
    with Memory(db_path) as mem:
        for batch in jsonl_batches(sample_path(), "maya", "default"):
            mem.add_messages(batch.turns, user_id="maya", session_id=batch.session_id)

        def recalled(query: str) -> list[str]:
            section = mem.context(query, "maya").section("memories")
            return [i.content for i in section.items] if section is not None else []

        assert any("Biscuit" in c for c in recalled("What is my dog's name?"))
        cook = recalled("what should I cook?")
        assert cook and "vegetarian" in cook[0]
        for query in (OFF_TOPIC, "What's the capital of Burkina Faso?"):
            assert recalled(query) == [], query
