"""The hashing embedder, the registry, and (slow) the bundled local embedder."""

from __future__ import annotations

import numpy as np
import pytest

from mnemo.config.settings import Settings
from mnemo.embedders import REGISTRY, create_embedder
from mnemo.embedders.hashing import HashingEmbedder
from mnemo.errors import ConfigError


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings read MNEMO_* variables; keep the developer's environment out of these tests."""
    import os

    for key in list(os.environ):
        if key.startswith("MNEMO_"):
            monkeypatch.delenv(key)


def test_hashing_is_deterministic() -> None:
    texts = ["The cat sat on the mat.", "Ünïcode wörds too", ""]
    a = HashingEmbedder(dim=64).embed(texts)
    b = HashingEmbedder(dim=64).embed(texts)
    np.testing.assert_array_equal(a, b)
    assert a.shape == (3, 64) and a.dtype == np.float32


def test_hashing_different_texts_differ_and_unit_norm() -> None:
    vecs = HashingEmbedder(dim=128).embed(["apples and pears", "quantum chromodynamics"])
    assert not np.allclose(vecs[0], vecs[1])
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-5)


def test_hashing_empty_text_is_zero_vector() -> None:
    vecs = HashingEmbedder(dim=32).embed(["", "  "])
    assert vecs.shape == (2, 32) and not vecs.any()


def test_hashing_similar_texts_are_closer() -> None:
    a, b, c = HashingEmbedder(dim=384).embed(
        [
            "my favourite colour is blue",
            "my favorite colour is dark blue",
            "the train to Berlin leaves at noon",
        ]
    )
    assert _cos(a, b) > 0.5
    assert _cos(a, b) > _cos(a, c) + 0.3


def test_hashing_case_insensitive() -> None:
    e = HashingEmbedder(dim=64)
    np.testing.assert_allclose(e.embed(["Hello World"]), e.embed(["hello world"]))


def test_hashing_empty_input_shape() -> None:
    out = HashingEmbedder(dim=48).embed([])
    assert out.shape == (0, 48) and out.dtype == np.float32


def test_hashing_batches_agree_with_single_calls() -> None:
    texts = [f"note number {i}" for i in range(7)]
    batched = HashingEmbedder(dim=64, batch_size=3).embed(texts)
    single = np.concatenate([HashingEmbedder(dim=64).embed([t]) for t in texts])
    np.testing.assert_allclose(batched, single, rtol=1e-6)


def test_hashing_progress_reports_batches() -> None:
    seen: list[int] = []
    HashingEmbedder(dim=16, batch_size=4).embed([str(i) for i in range(10)], progress=seen.append)
    assert seen == [4, 4, 2]


def test_registry_builds_hashing() -> None:
    emb = create_embedder(Settings(embedder="hashing", embedder_dim=96))
    assert isinstance(emb, HashingEmbedder)
    assert emb.id == "hashing:96" and emb.dim == 96
    assert emb.embed(["x"]).shape == (1, 96)
    assert set(REGISTRY) == {"local", "sentence-transformers", "openai", "hashing"}


def test_registry_unknown_name() -> None:
    with pytest.raises(ConfigError, match="unknown embedder 'nope'"):
        create_embedder(Settings(embedder="nope"))


def test_registry_openai_needs_base_url() -> None:
    with pytest.raises(ConfigError, match="BASE_URL"):
        create_embedder(Settings(embedder="openai"))


def test_registry_openai_uses_settings() -> None:
    pytest.importorskip("httpx")
    settings = Settings(
        embedder="openai",
        llm_base_url="http://127.0.0.1:9",
        embedder_model="nomic-embed",
        embed_batch_size=5,
        embed_max_retries=1,
    )
    emb = create_embedder(settings)
    try:
        assert emb.id == "openai:nomic-embed" and emb.batch_size == 5
        assert emb.url == "http://127.0.0.1:9/v1/embeddings"  # type: ignore[attr-defined]
        assert emb.max_retries == 1  # type: ignore[attr-defined]
    finally:
        emb.close()


@pytest.mark.slow
@pytest.mark.local_extra
def test_local_embedder_bundled_model() -> None:
    from mnemo.embedders.local import LocalEmbedder

    emb = LocalEmbedder()
    assert emb.id == "local:all-MiniLM-L6-v2" and emb.dim == 384
    vecs = emb.embed(
        [
            "I really love eating pizza.",
            "Pizza is my absolute favourite food.",
            "The stock market fell sharply on Tuesday.",
        ]
    )
    assert vecs.shape == (3, 384) and vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-4)
    paraphrase, unrelated = float(vecs[0] @ vecs[1]), float(vecs[0] @ vecs[2])
    assert paraphrase > 0.6 and paraphrase > unrelated + 0.3


@pytest.mark.slow
@pytest.mark.local_extra
def test_local_bfloat16_stays_close_to_float32() -> None:
    from mnemo.embedders.local import LocalEmbedder

    texts = ["I adopted a beagle called Biscuit", "The train to Lisbon leaves at nine"]
    full = LocalEmbedder(precision="float32").embed(texts)
    half = LocalEmbedder(precision="bfloat16").embed(texts)
    assert half.dtype == np.float32 and half.shape == full.shape
    assert np.all((full * half).sum(axis=1) > 0.999)
    with pytest.raises(ConfigError, match="embed_precision"):
        LocalEmbedder(precision="fp8")
