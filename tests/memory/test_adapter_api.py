"""What the adapters need of ``Memory``, as public methods: ``refresh_expiry``, ``embed``,
``prefetch_embeddings`` and ``with_embedder``, on both stores."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pytest

from mnemo import Memory, SchemaError, ValidationError
from mnemo.embedders.hashing import HashingEmbedder


class CountingEmbedder(HashingEmbedder):
    """The hashing embedder, counting the texts it embeds."""

    def __init__(self, dim: int = 384) -> None:
        super().__init__(dim)
        self.embedded: list[str] = []

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded += texts
        return super().embed_batch(texts)


def test_refresh_expiry_moves_only_what_has_a_ttl(mem: Memory) -> None:
    timed = mem.add("Ann is in Rome this week", "u1", ttl_seconds=3600)
    kept = mem.add("Ann likes tea", "u1")
    moved = mem.refresh_expiry([timed.id, kept.id, "mem_unknown"])
    assert list(moved) == [timed.id]
    assert timed.expires_at is not None and moved[timed.id] >= timed.expires_at
    assert mem.get_memory(timed.id).expires_at == moved[timed.id]
    assert mem.refresh_expiry([]) == {}
    for bad in ("mem_x", [1], None):
        with pytest.raises(ValidationError, match="ids must be a list of strings"):
            mem.refresh_expiry(bad)  # type: ignore[arg-type]


def test_embed_gives_unit_vectors_and_reuses_stored_ones(open_mem: Callable[..., Memory]) -> None:
    embedder = CountingEmbedder()
    mem = open_mem(embedder=embedder)
    mem.add("Ann likes tea", "u1")
    embedder.embedded.clear()
    vectors = mem.embed(["Ann likes tea", "Bob plays chess"])
    assert vectors.shape == (2, embedder.dim)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.allclose(vectors, HashingEmbedder().embed(["Ann likes tea", "Bob plays chess"]))
    assert embedder.embedded == ["Bob plays chess"]  # the stored text was not embedded again
    assert mem.embed([]).shape == (0, embedder.dim)
    with pytest.raises(ValidationError, match="texts must be a list of strings"):
        mem.embed("Ann likes tea")  # type: ignore[arg-type]


def test_prefetched_vectors_serve_the_writes_in_the_block(open_mem: Callable[..., Memory]) -> None:
    embedder = CountingEmbedder()
    mem = open_mem(embedder=embedder)
    texts = ["Ann likes tea", "Bob plays chess", "Cy runs"]
    with mem.prefetch_embeddings(texts):
        calls = len(embedder.embedded)
        assert sorted(embedder.embedded) == sorted(texts)  # one batch, ahead of the writes
        ids = [mem.add(t, "u1").id for t in texts]
        assert len(embedder.embedded) == calls  # the writes embedded nothing more
    mem.add("Dee sings", "u1")
    assert embedder.embedded[-1] == "Dee sings"  # after the block: embedded as usual
    hits = mem.search("chess", user_id="u1")
    assert hits[0].id == ids[1]
    with pytest.raises(ValidationError, match="texts must be a list of strings"):
        mem.prefetch_embeddings([b"bytes"])  # type: ignore[list-item]


def test_with_embedder_shares_the_store(open_mem: Callable[..., Memory]) -> None:
    mem = open_mem()
    named = mem.with_embedder("hashing")
    assert named.settings.embedder == "hashing" and named.tenant == mem.tenant
    custom = CountingEmbedder()
    other = mem.with_embedder(custom)
    assert other.embedder is custom and other.settings == mem.settings
    item = other.add("Ann likes tea", "u1")
    assert mem.get_memory(item.id).content == "Ann likes tea"  # one store
    assert custom.embedded == ["Ann likes tea"]
    with pytest.raises(SchemaError, match="hashing:64"):
        mem.with_embedder(HashingEmbedder(dim=64))  # the store holds hashing:384 vectors
    with pytest.raises(ValidationError, match="must be an Embedder or a name"):
        mem.with_embedder(3)  # type: ignore[arg-type]
