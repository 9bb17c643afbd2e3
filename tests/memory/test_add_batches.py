"""``Memory.add_batches``: several sessions embedded together, each written as ``add_messages``
would write it, all validated before anything is written."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mnemo import Memory, TurnBatch, ValidationError


def _open(tmp_path: Path, name: str) -> Memory:
    # the float-computing model: its vectors do not depend on the batch (the default's move a
    # little with their batch neighbours, see tests/embedders/test_onnx_derive.py)
    return Memory(str(tmp_path / name), embedder="local", embedder_model="all-MiniLM-L6-v2-int8")


BATCHES = [
    TurnBatch(
        [
            {"role": "user", "content": "I adopted a beagle called Biscuit last spring."},
            {"role": "assistant", "content": "Congratulations on Biscuit!"},
        ],
        "u1",
        "s1",
    ),
    TurnBatch([{"role": "user", "content": "My sister lives in Lisbon."}], "u1", "s2"),
    TurnBatch([{"role": "user", "content": "I run every Sunday morning."}], "u2", "s1"),
]


def test_batches_land_in_their_sessions_with_the_vectors_add_messages_gives(
    tmp_path: Path,
) -> None:
    with _open(tmp_path, "batched.db") as batched, _open(tmp_path, "single.db") as single:
        ids = batched.add_batches(BATCHES)
        assert [len(i) for i in ids] == [2, 1, 1]
        for b in BATCHES:
            single.add_messages(b.messages, b.user_id, b.session_id)
        for b, batch_ids in zip(BATCHES, ids, strict=True):
            got = batched.messages(b.user_id, session_id=b.session_id)
            assert [m.id for m in got] == batch_ids
            assert [m.content for m in got] == [t["content"] for t in b.messages]
            assert [m.seq for m in got] == list(range(1, len(got) + 1))
        # the same turns, one call per session: the same ranking and cosines
        for query, user in (("What is my dog called?", "u1"), ("When do I go running?", "u2")):
            a = batched.search(query, user_id=user, kinds=["message"])
            b_ = single.search(query, user_id=user, kinds=["message"])
            assert [h.content for h in a] == [h.content for h in b_] and a
            np.testing.assert_allclose([h.score for h in a], [h.score for h in b_], atol=1e-5)


def test_a_bad_batch_anywhere_writes_nothing(tmp_path: Path) -> None:
    bad = TurnBatch([{"role": "user", "content": ""}], "u3", "s1")
    with _open(tmp_path, "m.db") as mem:
        with pytest.raises(ValidationError):
            mem.add_batches([*BATCHES, bad])
        with pytest.raises(ValidationError, match="user_id"):
            mem.add_batches([TurnBatch([{"role": "user", "content": "x"}], "", "s")])
        assert mem.stats().messages == 0
        assert mem.add_batches([]) == []
