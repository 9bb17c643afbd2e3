"""The past index of an "as of" search (mnemo.retrieval.asof.past_index): the rows of time
<= T, changed memories swapped for their versions, extra keys kept with their rows."""

from __future__ import annotations

import numpy as np

from mnemo.index.vectors import VectorIndex
from mnemo.retrieval.asof import past_index, version_bm25
from mnemo.storage.base import MEMORY, MESSAGE, VectorRows


def _rows(tables: list[int], rowids: list[int], times: list[float], vecs: np.ndarray,
          key_vectors: np.ndarray | None = None, key_owners: list[int] | None = None
          ) -> VectorRows:  # fmt: skip
    n = len(rowids)
    return VectorRows(
        tables=np.array(tables, np.int8),
        rowids=np.array(rowids, np.int64),
        sessions=["s1"] * n,
        kinds=["message" if t == MESSAGE else "fact" for t in tables],
        times=np.array(times, np.float64),
        vectors=vecs.astype(np.float32),
        roles=["user" if t == MESSAGE else None for t in tables],
        names=["Ann" if t == MESSAGE else None for t in tables],
        key_vectors=np.zeros((0, vecs.shape[1]), np.float32) if key_vectors is None
        else key_vectors.astype(np.float32),
        key_owners=np.array(key_owners or [], np.int64),
    )  # fmt: skip


def test_past_index_cuts_time_swaps_versions_and_keeps_keys() -> None:
    eye = np.eye(4)
    live = VectorIndex.of(
        _rows(
            [MESSAGE, MESSAGE, MEMORY, MEMORY],
            [1, 2, 1, 2],
            [100.0, 300.0, 150.0, 120.0],
            eye,
            key_vectors=np.stack([eye[3], eye[0]]),
            key_owners=[0, 1],  # one key on each turn
        )
    )
    version = _rows([MEMORY], [2], [120.0], np.array([[0.0, 1.0, 0.0, 0.0]]))
    past = past_index(live, 200.0, {2}, version)
    # turn 2 (time 300) is out; memory 2 is its version; memory 1 kept
    assert sorted(past.pos) == [(MESSAGE, 1), (MEMORY, 1), (MEMORY, 2)]
    assert past.n == 3 and past.k == 1 and past.key_owners[0] == past.pos[(MESSAGE, 1)]
    np.testing.assert_array_equal(past.matrix[past.pos[(MEMORY, 2)]], [0, 1, 0, 0])
    assert past.names() == ["ann"] and past.newest_turn() == 100.0
    # the key of turn 1 still lifts it for a query along that key
    positions, _ = past.search(np.array([0, 0, 0, 1], np.float32), 1, key_weight=1.0)
    assert past.ref(int(positions[0])) == (MESSAGE, 1)
    assert live.n == 4  # the live index is untouched


def test_version_bm25_scales_the_ceiling_by_the_terms_held() -> None:
    assert version_bm25("red Honda car", "The user drives a red Honda", 6.0) == 4.0
    assert version_bm25("driving", "The user drives a car", 3.0) == 3.0  # crude stem
    assert version_bm25("blue Tesla", "The user drives a red Honda", 6.0) == 0.0
    assert version_bm25("cat", "two cats and a catalogue", 2.0) == 2.0
    assert version_bm25("cat", "a catalogue", 2.0) == 0.0
    assert version_bm25("the a", "", 5.0) == 0.0
