"""Extra index keys of long user turns: chunking, storage on both stores, search, repair."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from mnemo import Memory
from mnemo.config.settings import Settings
from mnemo.embedders import content_hash, create_embedder
from mnemo.index.keys import KeySpec, blend_keys, chunk_text, keyed, sentences
from mnemo.ops.keyfill import pending_keys
from mnemo.ops.reembed import reembed
from mnemo.ops.repair import repair
from mnemo.storage import open_store

QUIET: dict = {
    "fact_extraction": "off",
    "profile_enabled": False,
    "episodes_enabled": False,
    "fact_keys": False,  # chunk keys alone; fact keys are tested on their own
}
FILLER = (
    "The quarterly planning meeting ran long again and the slides were not ready. "
    "Our team lead wants every ticket estimated before Friday, which feels rushed. "
    "The new build server keeps timing out on the integration suite every afternoon. "
    "I spent most of the morning rewriting the deployment checklist for the release. "
)
NEEDLE = "By the way, my sister Lucia is getting married in Lisbon next spring."
LONG = FILLER + NEEDLE  # 62 words: the needle is one sentence among five


def test_short_text_and_off_give_no_chunks() -> None:
    assert chunk_text("Just a short note. Nothing more.", 64) == []
    assert chunk_text(LONG, 0) == []
    assert chunk_text(LONG, 500) == []


def test_chunks_are_whole_sentences_in_order_within_the_word_limit() -> None:
    chunks = chunk_text(LONG, 20)
    assert len(chunks) >= 3
    assert " ".join(chunks) == " ".join(sentences(LONG))
    for chunk in chunks:
        assert len(chunk.split()) <= 20 or len(sentences(chunk)) == 1
    assert chunks[-1].endswith(NEEDLE)


def test_a_sentence_longer_than_the_limit_stands_alone() -> None:
    long_sentence = " ".join(["word"] * 30) + "."
    assert chunk_text(f"Short one. {long_sentence} Another short one.", 10) == [
        "Short one.",
        long_sentence,
        "Another short one.",
    ]


CHUNKS = KeySpec(max_words=20)


def test_only_user_turns_get_chunk_keys() -> None:
    assert keyed("user", LONG, CHUNKS)
    assert keyed("assistant", LONG, CHUNKS) == []
    assert keyed("system", LONG, CHUNKS) == []


def test_any_turn_gets_the_facts_the_rules_find() -> None:
    spec = KeySpec(max_words=0, facts=True)
    turn = "Hey Mel! Good to see you. I adopted a beagle called Biscuit last week."
    assert keyed("assistant", turn, spec) == ["User adopted a beagle called Biscuit last week"]
    assert keyed("user", "How are you today?", spec) == []
    both = keyed("user", LONG, KeySpec(max_words=20, facts=True))
    assert both[: len(chunk_text(LONG, 20))] == chunk_text(LONG, 20)  # chunks first, then facts
    assert KeySpec().off and not spec.off


def test_blend_takes_the_best_key_per_row() -> None:
    sims = np.array([0.2, 0.5, 0.1], np.float32)
    key_sims = np.array([0.9, 0.3, 0.4], np.float32)
    owners = np.array([0, 0, 2])
    out = blend_keys(sims, key_sims, owners, 0.5)
    assert np.allclose(out, [0.55, 0.5, 0.25])  # row 1 has no key; a key below stays out
    assert np.allclose(blend_keys(sims, key_sims, owners, 0.0), sims)


def test_keys_are_stored_and_loaded_on_both_stores(open_mem: Callable[..., Memory]) -> None:
    mem = open_mem(key_chunk_words=20, **QUIET)
    mem.add_messages(
        [
            {"role": "user", "content": LONG},
            {"role": "assistant", "content": LONG},
            {"role": "user", "content": "short turn"},
        ],
        user_id="u",
    )
    index = mem.pipeline.indexes.get(mem.store.search, mem.tenant, "u", mem.embedder.id)
    n_chunks = len(chunk_text(LONG, 20))
    assert index.k == n_chunks
    assert set(index.key_owners[: index.k].tolist()) == {0}  # the long user turn's position
    stored = mem.store.search.key_vectors_for(mem.tenant, mem.embedder.id, [content_hash(LONG)])
    vectors = mem.embedder.embed(chunk_text(LONG, 20))
    assert np.allclose(stored[content_hash(LONG)], vectors, atol=1e-6)


def test_keys_lift_a_turn_whose_one_sentence_answers(open_mem: Callable[..., Memory]) -> None:
    mem = open_mem(key_chunk_words=20, **QUIET)
    mem.add_messages([{"role": "user", "content": LONG}], user_id="u")
    query = "Where is my sister Lucia getting married?"
    with_keys = mem.search(query, user_id="u")[0].scores["dense"]
    without = open_mem(key_chunk_words=20, key_weight=0.0, **QUIET)
    plain = without.search(query, user_id="u")[0].scores["dense"]
    needle = float(mem.embedder.embed([NEEDLE])[0] @ mem.embedder.embed([query])[0])
    assert needle > plain  # the sentence alone matches better than the whole turn
    assert np.isclose(with_keys, 0.5 * plain + 0.5 * needle, atol=1e-5)


def test_keys_off_writes_none_and_repair_fills_them(open_mem: Callable[..., Memory]) -> None:
    off = open_mem(key_chunk_words=0, **QUIET)  # keys off entirely
    off.add_messages([{"role": "user", "content": LONG}, {"role": "user", "content": "hi"}], "u")
    assert pending_keys(off.store, off.embedder.id) == 2
    dry = repair(off.store, off.embedder, dry_run=True, keys=CHUNKS)
    assert dry.fixes["message keys missing"] == 2
    repair(off.store, off.embedder, keys=CHUNKS)
    assert pending_keys(off.store, off.embedder.id) == 0
    on = open_mem(key_chunk_words=20, **QUIET)
    index = on.pipeline.indexes.get(on.store.search, on.tenant, "u", on.embedder.id)
    assert index.k == len(chunk_text(LONG, 20))  # the short turn got an empty blob


def test_reembed_rebuilds_keys_with_the_new_embedder(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    with Memory(path, embedder="hashing", embedder_dim=64, key_chunk_words=20, **QUIET) as old:
        old.add_messages([{"role": "user", "content": LONG}], user_id="u")
    settings = Settings(path=path, embedder="hashing", embedder_dim=96)
    store, emb = open_store(settings), create_embedder(settings)
    try:
        report = reembed(store, emb, keys=CHUNKS)
        assert report.rows["messages"] == 1 and report.rows["message keys"] == 1
        keys = store.search.key_vectors_for(None, emb.id, [content_hash(LONG)])[content_hash(LONG)]
        assert keys.shape == (len(chunk_text(LONG, 20)), 96)
    finally:
        store.close()
        emb.close()


def test_fact_keys_are_stored_with_the_turn(open_mem: Callable[..., Memory]) -> None:
    mem = open_mem(**{**QUIET, "fact_keys": True, "key_chunk_words": 0})
    turn = "Hey Mel! Good to see you. I adopted a beagle called Biscuit last week."
    mem.add_messages([{"role": "user", "content": turn}, {"role": "user", "content": "hi"}], "u")
    index = mem.pipeline.indexes.get(mem.store.search, mem.tenant, "u", mem.embedder.id)
    assert index.k == 1 and index.key_owners[0] == 0
    fact = mem.embedder.embed(["User adopted a beagle called Biscuit last week"])[0]
    assert np.allclose(index.key_matrix[0], fact, atol=1e-6)


def test_search_ignores_keys_of_rows_it_cannot_see() -> None:
    """A mask built before rows were appended covers fewer rows than the index holds: keys
    owned by the newer rows are left out instead of indexing past the visible rows."""
    from mnemo.index.vectors import VectorIndex
    from mnemo.storage.base import VectorRows

    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(4, 8)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    index = VectorIndex()
    index._append(
        VectorRows(
            tables=np.zeros(4, np.int8),
            rowids=np.arange(1, 5),
            sessions=["s"] * 4,
            kinds=["message"] * 4,
            times=np.zeros(4),
            vectors=vecs,
            key_vectors=np.stack([vecs[0], vecs[3]]),
            key_owners=np.array([1, 3]),  # row 1 gets row 0's vector as a key; row 3 its own
        )
    )
    positions, sims = index.search(vecs[0], 4, mask=np.ones(2, bool), key_weight=0.5)
    assert sorted(positions.tolist()) == [0, 1]  # row 3's key is out of sight, no IndexError
    by_pos = dict(zip(positions.tolist(), sims.tolist(), strict=True))
    assert by_pos[1] == pytest.approx(0.5 * float(vecs[1] @ vecs[0]) + 0.5 * 1.0, abs=1e-5)
