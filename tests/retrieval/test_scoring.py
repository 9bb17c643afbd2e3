"""Pure scoring functions: recency, blends, fusion, MMR, query terms."""

from __future__ import annotations

import math

import numpy as np

from mnemo.retrieval import fusion
from mnemo.retrieval.lexical import query_terms
from mnemo.retrieval.mmr import mmr_select
from mnemo.retrieval.rerank import sigmoid
from mnemo.retrieval.scoring import blend, min_max, recency


def test_recency_follows_exp_decay() -> None:
    day = 86_400.0
    got = recency(np.array([0.0, 30 * day, 60 * day, -5 * day]), 30.0)
    assert np.allclose(got, [1.0, math.exp(-1), math.exp(-2), 1.0])


def test_blend_is_seed_002_formula() -> None:
    assert np.isclose(blend(np.array(0.9), np.array(0.5), 0.2), 0.8 * 0.9 + 0.2 * 0.5)


def test_sigmoid_is_stable() -> None:
    # the reranker's relevance under rerank_relevance = "sigmoid" (`agent-cli`)
    assert sigmoid(np.array([0.0, 1000.0, -1000.0])).tolist() == [0.5, 1.0, 0.0]


def test_min_max() -> None:
    assert min_max({"a": 2.0, "b": 4.0, "c": 3.0}) == {"a": 0.0, "b": 1.0, "c": 0.5}
    assert min_max({"a": 1.0, "b": 1.0}) == {"a": 1.0, "b": 1.0}


def test_rrf_normalised_and_weighted() -> None:
    ranks = {"lexical": {"x": 1, "y": 2}, "dense": {"y": 1, "z": 3}}
    fused = fusion.rrf(ranks, {"lexical": 1.0, "dense": 1.0}, k=60)
    best = 2 / 61
    assert math.isclose(fused["y"], (1 / 62 + 1 / 61) / best)
    assert math.isclose(fused["x"], (1 / 61) / best)
    assert fused["y"] > fused["x"] > fused["z"]
    dense_only = fusion.rrf(ranks, {"lexical": 0.0, "dense": 1.0}, k=60)
    assert set(dense_only) == {"y", "z"} and math.isclose(dense_only["y"], 1.0)


def test_weighted_blend() -> None:
    scores = {"lexical": {"a": 10.0, "b": 0.0}, "dense": {"a": 0.1, "b": 0.9}}
    fused = fusion.weighted_blend(scores, {"lexical": 1.0, "dense": 3.0})
    assert math.isclose(fused["a"], 0.25) and math.isclose(fused["b"], 0.75)


def test_ranks_descending() -> None:
    assert fusion.ranks({"a": 0.1, "b": 0.9, "c": 0.5}) == {"b": 1, "c": 2, "a": 3}


def test_mmr_prefers_diverse_items() -> None:
    v = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    scores = np.array([1.0, 0.95, 0.6])
    assert mmr_select(scores, v, 2, lam=0.7) == [0, 2]  # the duplicate is pushed out
    assert mmr_select(scores, v, 2, lam=1.0) == [0, 1]  # lambda 1 is plain ranking
    assert mmr_select(scores, v, 10, lam=0.7) == [0, 2, 1]


def test_query_terms_drop_stopwords_and_fts_syntax() -> None:
    assert query_terms('What did "Caroline" do AND NOT go to the NEAR(park)*?') == [
        "caroline",
        "go",
        "near",
        "park",
    ]
    assert query_terms("who am I") == ["who", "am", "i"]  # only stopwords: keep them
    assert query_terms("") == []


def test_neighbor_boost_formula_and_new_candidates() -> None:
    from mnemo.retrieval.neighbours import neighbor_boost

    rel = {"q": 1.0, "far": 0.5}
    near = {"a": ["q"], "far": ["q"], "lonely": ["nobody"]}
    out = neighbor_boost(rel, near, 0.3)
    assert math.isclose(out["a"], 0.3)  # a non-candidate joins with the borrowed score
    assert math.isclose(out["far"], 0.5 + 0.3)  # rel(d) + w * max neighbour
    assert out["q"] == 1.0 and "lonely" not in out
