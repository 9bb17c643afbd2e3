"""Compute the extra index keys (see :mod:`mnemo.index.keys`) of stored turns that lack them.

A turn's ``key_vectors`` is NULL when it was written before keys existed, with keys turned off,
or just re-embedded (``mnemo reembed`` clears them: they were made by the old embedder). Both
``mnemo repair`` and ``mnemo reembed`` run :func:`fill_keys` afterwards: it selects such turns
made by the configured embedder, ``size`` per transaction, and stores their keys (an empty blob
for a turn that needs none), so a killed run resumes where it stopped.
"""

from __future__ import annotations

from mnemo.embedders import Embedder
from mnemo.index import keys
from mnemo.ops.steps import Advance
from mnemo.storage.ports.maintenance import Maintainable


def pending_keys(store: Maintainable, embedder_id: str) -> int:
    """Turns by ``embedder_id`` whose keys were never computed."""
    return store.maintenance.keyless_count(embedder_id)


def fill_keys(
    store: Maintainable, embedder: Embedder, spec: keys.KeySpec, size: int, advance: Advance
) -> int:
    """Compute and store the keys of every pending turn; returns how many turns were done.

    Does nothing when keys are off: the turns stay pending.
    """
    if spec.off:
        return 0
    done, last = 0, 0
    while True:  # keyset pagination: each batch seeks past the last one
        turns = store.maintenance.keyless_batch(embedder.id, last, size)
        if not turns:
            return done
        last = turns[-1].rowid
        found = keys.embed_keys(
            embedder,
            store.search,
            None,  # maintenance: no tenant times it
            [(t.role, t.content) for t in turns],
            [t.content_hash for t in turns],
            spec,
        )
        store.maintenance.write_keys(
            [(t.rowid, vecs) for t, vecs in zip(turns, found, strict=True)]
        )
        done += len(turns)
        advance(len(turns))


__all__ = ["fill_keys", "pending_keys"]
