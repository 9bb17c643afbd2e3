"""Reranking: the blend formula, configuration errors, and (slow) a tiny cross-encoder built here.

No cross-encoder can be downloaded, so the slow tests build one in tmp_path: a 2-layer BERT
(hidden 32) whose weights are set by hand so that its score grows with the share of the word
"pizza" in the (query, passage) pair. Its first layer attends uniformly, so the [CLS] vector
averages the tokens; only "pizza" has a component on dimension 0, and the classifier reads that
dimension.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rerank_support import WORD, build_tiny_cross_encoder

from mnemo import ConfigError, Memory, Settings
from mnemo.retrieval.rerank import (
    CrossEncoderReranker,
    Reranker,
    create_reranker,
    rerank_blend,
    top_n,
)

QUERY = "what food do i like"
TURNS = [
    "what food do i like to eat",  # shares the most words with the query: first when fused
    "i like food with music",
    "what do i like to do on weekends",
    "i love pizza",
    "i like my guitar",
    "my dog and my cat",
    "pizza with cheese on weekends",
    "i play music",
]


# --- pure functions (no model) ---------------------------------------------------------------


def test_blend_weight_zero_changes_nothing() -> None:
    rel = np.array([0.9, 0.7, 0.5])
    np.testing.assert_allclose(rerank_blend(rel, np.array([-3.0, 0.0, 4.0]), 0.0), rel)


def test_blend_weight_one_orders_by_reranker_within_the_relevance_range() -> None:
    rel = np.array([0.9, 0.7, 0.5])
    out = rerank_blend(rel, np.array([-3.0, 0.0, 4.0]), 1.0)
    assert list(np.argsort(-out)) == [2, 1, 0]
    np.testing.assert_allclose(out, [0.5, 0.5 + 0.4 * 3 / 7, 0.9])
    assert out.min() >= rel.min() and out.max() <= rel.max()  # tail candidates stay below


def test_blend_partial_weight_follows_the_formula() -> None:
    rel = np.array([0.8, 0.6, 0.4])
    s = np.array([1.0, 3.0, 2.0])  # min-max: 0, 1, 0.5 -> mapped 0.4, 0.8, 0.6
    np.testing.assert_allclose(
        rerank_blend(rel, s, 0.25), 0.75 * rel + 0.25 * np.array([0.4, 0.8, 0.6])
    )


def test_blend_equal_scores_or_equal_relevance() -> None:
    rel = np.array([0.9, 0.7])
    np.testing.assert_allclose(rerank_blend(rel, np.array([2.0, 2.0]), 1.0), rel)
    tied = rerank_blend(np.array([0.5, 0.5, 0.5]), np.array([0.0, 2.0, 1.0]), 1.0)
    assert list(np.argsort(-tied)) == [1, 2, 0]  # the reranker alone orders a tied set
    assert rerank_blend(np.zeros(0), np.zeros(0), 1.0).size == 0


def test_top_n_is_best_first_and_bounded() -> None:
    assert top_n({"a": 0.1, "b": 0.9, "c": 0.5, "d": 0.5}, 3) == ["b", "c", "d"]
    assert top_n({"a": 0.1}, 5) == ["a"]


# --- configuration ---------------------------------------------------------------------------


def test_off_by_default(db_path: str) -> None:
    assert Settings().reranker is None and create_reranker(Settings()) is None
    with Memory(db_path, embedder="hashing") as mem:
        assert mem.pipeline.reranker is None
        mem.add_messages(
            [{"role": "user", "content": t} for t in TURNS], user_id="u", session_id="s"
        )
        hits = mem.search(QUERY, user_id="u", explain=True)
        assert hits and all("rerank" not in h.scores for h in hits)


def test_off_by_default_loads_no_model_library(tmp_path: Path) -> None:
    code = (
        "import sys; from mnemo import Memory\n"
        f"m = Memory({str(tmp_path / 'x.db')!r}, embedder='hashing')\n"
        "turn = {'role': 'user', 'content': 'i love pizza'}\n"
        "m.add_messages([turn], user_id='u', session_id='s')\n"
        "assert m.search('pizza', user_id='u')\n"
        "print('torch' in sys.modules, 'sentence_transformers' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_missing_model_setting_is_a_config_error(db_path: str) -> None:
    with pytest.raises(ConfigError, match="MNEMO_RERANKER_MODEL"):
        Memory(db_path, embedder="hashing", reranker="cross-encoder")


def test_unknown_reranker_is_a_config_error(db_path: str) -> None:
    with pytest.raises(ConfigError, match="unknown reranker 'colbert'"):
        Memory(db_path, embedder="hashing", reranker="colbert")


@pytest.mark.parametrize("model", ["cross-encoder/ms-marco-MiniLM-L6-v2", "missing-dir"])
def test_model_path_not_found_is_a_config_error(db_path: str, tmp_path: Path, model: str) -> None:
    # A hub id is not looked up: mnemo only loads local directories.
    path = model if "/" in model else str(tmp_path / model)
    with pytest.raises(ConfigError, match="reranker model directory not found"):
        Memory(db_path, embedder="hashing", reranker="cross-encoder", reranker_model=path)


def test_directory_without_a_model_is_a_config_error(db_path: str, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match=r"holds no config\.json"):
        Memory(
            db_path,
            embedder="hashing",
            reranker="cross-encoder",
            reranker_model=str(tmp_path / "empty"),
        )


def test_settings_bounds() -> None:
    with pytest.raises(ConfigError, match="rerank_weight"):
        Settings(rerank_weight=1.5)
    with pytest.raises(ConfigError, match="rerank_top_n"):
        Settings(rerank_top_n=0)


# The cross-encoder tests need sentence-transformers (and the torch/transformers it runs on).
CROSS_ENCODER = pytest.mark.local_extra("sentence_transformers", "transformers", "torch")

# --- a tiny cross-encoder built by the test ----------------------------------------------------


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Directory of the tiny cross-encoder (built once per module)."""
    path = tmp_path_factory.mktemp("tiny-cross-encoder")
    build_tiny_cross_encoder(path)
    return str(path)


def model_scores(model_dir: str, texts: list[str]) -> np.ndarray:
    """The model's own predict() logits, straight from sentence-transformers."""
    import torch
    from sentence_transformers import CrossEncoder

    ce = CrossEncoder(model_dir, device="cpu", local_files_only=True)
    return np.asarray(ce.predict([(QUERY, t) for t in texts], activation_fn=torch.nn.Identity()))


def searched(db_path: str, limit: int = 20, **settings: Any) -> list[Any]:
    with Memory(db_path, embedder="hashing", **settings) as mem:
        if not mem.messages("u"):
            mem.add_messages(
                [{"role": "user", "content": t} for t in TURNS], user_id="u", session_id="s"
            )
        return mem.search(QUERY, user_id="u", limit=limit, explain=True)


@pytest.mark.slow
@CROSS_ENCODER
def test_tiny_model_prefers_its_word(tiny_model: str) -> None:
    reranker = CrossEncoderReranker(tiny_model)
    assert isinstance(reranker, Reranker) and reranker.id.startswith("cross-encoder:")
    scores = reranker.score(QUERY, TURNS)
    with_word = [s for t, s in zip(TURNS, scores, strict=True) if WORD in t]
    without = [s for t, s in zip(TURNS, scores, strict=True) if WORD not in t]
    assert min(with_word) > max(without)
    np.testing.assert_allclose(scores, model_scores(tiny_model, TURNS), rtol=1e-5, atol=1e-6)
    assert reranker.score(QUERY, []).shape == (0,)


@pytest.mark.slow
@CROSS_ENCODER
def test_reranking_reorders_by_the_models_scores(db_path: str, tiny_model: str) -> None:
    fused = searched(db_path)
    assert WORD not in fused[0].content  # the fused order puts a word-sharing turn first
    hits = searched(db_path, reranker="cross-encoder", reranker_model=tiny_model)
    assert WORD in hits[0].content
    assert [h.id for h in hits] != [h.id for h in fused]
    assert {h.id for h in hits} == {h.id for h in fused}
    assert all("rerank" in h.scores for h in hits)  # every candidate was rescored (top_n 30)
    own = model_scores(tiny_model, [h.content for h in hits])
    np.testing.assert_allclose([h.scores["rerank"] for h in hits], own, rtol=1e-5, atol=1e-6)
    assert list(own) == sorted(own, reverse=True)  # weight 1: the model's order alone


@pytest.mark.slow
@CROSS_ENCODER
def test_rerank_top_n_bounds_the_rescored_set(db_path: str, tiny_model: str) -> None:
    fused = searched(db_path)
    hits = searched(db_path, reranker="cross-encoder", reranker_model=tiny_model, rerank_top_n=3)
    rescored = [h for h in hits if "rerank" in h.scores]
    assert len(rescored) == 3 and hits[:3] == rescored  # rescored ones stay ahead of the tail
    assert {h.id for h in rescored} == {h.id for h in fused[:3]}
    assert [h.id for h in hits[3:]] == [h.id for h in fused[3:]]  # the tail keeps fused order


@pytest.mark.slow
@CROSS_ENCODER
def test_partial_weight_blends_with_fused_relevance(db_path: str, tiny_model: str) -> None:
    fused = {h.id: h.scores["fused"] for h in searched(db_path)}
    hits = searched(db_path, reranker="cross-encoder", reranker_model=tiny_model, rerank_weight=0.5)
    lo, hi = min(fused.values()), max(fused.values())
    raw = {h.id: h.scores["rerank"] for h in hits}
    s_min, s_max = min(raw.values()), max(raw.values())
    for h in hits:
        mapped = lo + (hi - lo) * (raw[h.id] - s_min) / (s_max - s_min)
        assert h.scores["fused"] == pytest.approx(0.5 * fused[h.id] + 0.5 * mapped)


@pytest.mark.slow
@pytest.mark.local_extra("sentence_transformers")
def test_an_invalid_model_directory_fails_on_first_search(db_path: str, tmp_path: Path) -> None:
    bad = tmp_path / "bad-model"
    bad.mkdir()
    (bad / "config.json").write_text('{"model_type": "no-such-architecture"}')
    with Memory(
        db_path, embedder="hashing", reranker="cross-encoder", reranker_model=str(bad)
    ) as mem:
        mem.add_messages([{"role": "user", "content": "i love pizza"}], user_id="u", session_id="s")
        with pytest.raises(ConfigError, match="cannot load the cross-encoder"):
            mem.search("pizza", user_id="u")
