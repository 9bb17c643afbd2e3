"""Compute the extra index keys (see :mod:`mnemo.index.keys`) of stored turns that lack them.

A turn's ``key_vectors`` is NULL when it was written before keys existed, with keys turned off,
or just re-embedded (``mnemo reembed`` clears them: they were made by the old embedder). Both
``mnemo repair`` and ``mnemo reembed`` run :func:`fill_keys` afterwards: it selects such turns
made by the configured embedder, ``size`` per transaction, and stores their keys (an empty blob
for a turn that needs none), so a killed run resumes where it stopped.
"""

from __future__ import annotations

from typing import Any

from mnemo.embedders import Embedder
from mnemo.index import keys
from mnemo.ops.common import Advance, store_db
from mnemo.storage.base import Store

PENDING = "key_vectors IS NULL AND embedder = ?"


def pending_keys(store: Store, embedder_id: str) -> int:
    """Turns by ``embedder_id`` whose keys were never computed."""
    with store_db(store).read() as c:
        return int(
            c.execute(f"SELECT count(*) FROM messages WHERE {PENDING}", (embedder_id,)).fetchone()[
                0
            ]
        )


def fill_keys(
    store: Store, embedder: Embedder, spec: keys.KeySpec, size: int, advance: Advance
) -> int:
    """Compute and store the keys of every pending turn; returns how many turns were done.

    Does nothing when keys are off: the turns stay pending.
    """
    if spec.off:
        return 0
    done, last = 0, 0
    while True:
        with store_db(store).read() as c:  # keyset pagination: each batch seeks past the last one
            rows = c.execute(
                f"SELECT rowid, role, content, content_hash FROM messages WHERE {PENDING}"
                " AND rowid > ? ORDER BY rowid LIMIT ?",
                (embedder.id, last, size),
            ).fetchall()
        if not rows:
            return done
        last = int(rows[-1][0])
        found = keys.embed_keys(
            embedder, store, [(r[1], r[2]) for r in rows], [r[3] for r in rows], spec
        )
        params: list[list[Any]] = [
            [b"" if vecs is None else vecs.astype("float32").tobytes(), r[0]]
            for r, vecs in zip(rows, found, strict=True)
        ]
        with store_db(store).write() as c:
            c.executemany("UPDATE messages SET key_vectors = ? WHERE rowid = ?", params)
        done += len(rows)
        advance(len(rows))


__all__ = ["fill_keys", "pending_keys"]
