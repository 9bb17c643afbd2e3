"""``mnemo reembed``: rebuild every stored vector with the configured embedder.

After a change of embedder the stored vectors (messages, memories, document chunks, topics)
were made by another model; :class:`mnemo.Memory` refuses such a store (SchemaError) until it
is re-embedded. Re-embedding works in batches of ``batch_size`` rows, each committed in its own
transaction, and only ever selects rows whose vector was made by another embedder; so a killed
run loses at most one batch of work, and running it again resumes where it stopped.

Topic vectors are the running mean of their user turns' vectors (see
``mnemo.tiers.topics.apply.fold_embedding``), so they are recomputed from the re-embedded turns
linked to each topic, not embedded from text. Finally every user's generation is bumped, so
cached vector indexes reload.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from mnemo.embedders import Embedder, content_hash
from mnemo.ops.common import Advance, ProgressFactory, bar, store_db
from mnemo.ops.keyfill import fill_keys, pending_keys
from mnemo.storage.base import Store

if TYPE_CHECKING:
    from mnemo.index.keys import KeySpec

#: Re-embedded tables: table -> (key columns, text column, column holding a pgvector).
TABLES: dict[str, tuple[tuple[str, ...], str, bool]] = {
    "messages": (("rowid",), "content", True),
    "memories": (("rowid",), "content", True),
    "document_chunks": (("document_rowid", "idx"), "content", False),
}


@dataclass
class ReembedReport:
    """Rows whose vectors were (or, in a dry run, would be) rebuilt, per table."""

    rows: dict[str, int] = field(default_factory=dict)
    dry_run: bool = False

    @property
    def total(self) -> int:
        """Rows over every table."""
        return sum(self.rows.values())


def stale_count(store: Store, embedder_id: str) -> dict[str, int]:
    """Rows per table whose vector was made by an embedder other than ``embedder_id``."""
    out = {}
    with store_db(store).read() as c:
        for table in [*TABLES, "topics"]:
            r = c.execute(
                f"SELECT count(*) FROM {table} WHERE embedder IS NOT NULL AND embedder <> ?",
                (embedder_id,),
            ).fetchone()
            out[table] = int(r[0])
    return out


#: Which rows a pass rebuilds: vectors of another embedder, or no vector at all (repair).
#: Both take the embedder id as their one parameter; MISSING ignores it (the CAST lets
#: PostgreSQL type the otherwise unused parameter).
STALE = "embedder IS NOT NULL AND embedder <> ?"
MISSING = "embedding IS NULL AND content <> '' AND CAST(? AS TEXT) IS NOT NULL"


def _batch(c: Any, table: str, embedder_id: str, size: int, which: str) -> list[Any]:
    keys, text, _ = TABLES[table]
    cols = ", ".join((*keys, text))
    order = ", ".join(keys)
    return list(
        c.execute(
            f"SELECT {cols} FROM {table} WHERE {which} ORDER BY {order} LIMIT ?",
            (embedder_id, size),
        ).fetchall()
    )


def _vector(v: np.ndarray, pg_vector: bool, pg: bool) -> Any:
    v = np.asarray(v, dtype=np.float32)
    return v if (pg and pg_vector) else v.tobytes()


def reembed_table(
    store: Store,
    embedder: Embedder,
    table: str,
    size: int,
    advance: Advance,
    which: str = STALE,
) -> int:
    """Re-embed the rows of one table that ``which`` selects (:data:`STALE` or
    :data:`MISSING`), ``size`` rows per transaction."""
    keys, _, pg_vector = TABLES[table]
    pg = hasattr(store, "compat")
    where = " AND ".join(f"{k}=?" for k in keys)
    has_hash = table != "document_chunks"
    sets = "embedder=?, embedding=?" + (", content_hash=?" if has_hash else "")
    if table == "messages":
        sets += ", key_vectors=NULL"  # made by the old embedder; see mnemo.ops.keyfill
    done = 0
    while True:
        with store_db(store).read() as c:
            rows = _batch(c, table, embedder.id, size, which)
        if not rows:
            return done
        texts = [r[len(keys)] for r in rows]
        vectors = embedder.embed(texts)
        params = []
        for r, text, v in zip(rows, texts, vectors, strict=True):
            extra = [content_hash(text)] if has_hash else []
            key = [r[i] for i in range(len(keys))]
            params.append([embedder.id, _vector(v, pg_vector, pg), *extra, *key])
        with store_db(store).write() as c:
            c.executemany(f"UPDATE {table} SET {sets} WHERE {where}", params)
        done += len(rows)
        advance(len(rows))


def refold_topics(store: Store, embedder_id: str) -> int:
    """Recompute stale topic vectors as the mean of their linked user turns' vectors."""
    n = 0
    with store_db(store).write() as c:
        topics = c.execute(
            "SELECT id FROM topics WHERE embedder IS NOT NULL AND embedder <> ?", (embedder_id,)
        ).fetchall()
        for (topic_id,) in topics:
            blobs = c.execute(
                "SELECT m.embedding FROM topic_messages t JOIN messages m ON m.id = t.message_id"
                " WHERE t.topic_id = ? AND m.role = 'user' AND m.embedder = ?",
                (topic_id, embedder_id),
            ).fetchall()
            vecs = [np.frombuffer(bytes(b[0]), dtype=np.float32) for b in blobs if b[0] is not None]
            mean = np.mean(vecs, axis=0).astype(np.float32).tobytes() if vecs else None
            c.execute(
                "UPDATE topics SET embedder=?, embedding=?, embedding_weight=? WHERE id=?",
                (embedder_id if vecs else None, mean, len(vecs), topic_id),
            )
            n += 1
        c.execute("UPDATE users SET generation = generation + 1")
    return n


def reembed(
    store: Store,
    embedder: Embedder,
    batch_size: int = 256,
    dry_run: bool = False,
    progress: ProgressFactory | None = None,
    keys: KeySpec | None = None,
) -> ReembedReport:
    """Rebuild every vector not made by ``embedder``, then (when ``keys`` are on) the extra
    keys of the re-embedded turns (see mnemo.ops.keyfill); see the module docstring."""

    counts = stale_count(store, embedder.id)
    report = ReembedReport(dry_run=dry_run)
    if dry_run:
        report.rows = counts
        return report
    for table in TABLES:
        with bar(progress, f"reembed {table}", counts[table]) as advance:
            report.rows[table] = reembed_table(store, embedder, table, batch_size, advance)
    report.rows["topics"] = refold_topics(store, embedder.id)
    if keys is not None and not keys.off:
        with bar(progress, "message keys", pending_keys(store, embedder.id)) as advance:
            report.rows["message keys"] = fill_keys(store, embedder, keys, batch_size, advance)
    return report


__all__ = [
    "MISSING",
    "STALE",
    "TABLES",
    "ReembedReport",
    "reembed",
    "reembed_table",
    "refold_topics",
    "stale_count",
]
