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

from dataclasses import dataclass
from typing import TYPE_CHECKING

from mnemo.embedders import Embedder, content_hash
from mnemo.ops.counts import RowCounts
from mnemo.ops.keyfill import fill_keys, pending_keys
from mnemo.ops.steps import Advance, ProgressFactory, step_bar
from mnemo.storage.ports.maintenance import VECTOR_TABLES, Maintainable, Maintenance, NewVector

if TYPE_CHECKING:
    from mnemo.index.keys import KeySpec


@dataclass
class ReembedReport(RowCounts):
    """Rows whose vectors were (or, in a dry run, would be) rebuilt, per table."""

    dry_run: bool = False


def stale_count(store: Maintainable, embedder_id: str) -> dict[str, int]:
    """Rows per table whose vector was made by an embedder other than ``embedder_id``."""
    return store.maintenance.stale_counts(embedder_id)


def reembed_table(
    maintenance: Maintenance,
    embedder: Embedder,
    table: str,
    size: int,
    advance: Advance,
    missing: bool = False,
) -> int:
    """Re-embed the rows of one table whose vector another embedder made (or, with
    ``missing``, that have none), ``size`` rows per transaction."""
    done = 0
    while True:
        rows = maintenance.text_batch(table, embedder.id, size, missing)
        if not rows:
            return done
        texts = [r.text for r in rows]
        vectors = embedder.embed(texts)
        maintenance.write_vectors(
            table,
            embedder.id,
            [NewVector(r.key, v, content_hash(r.text)) for r, v in zip(rows, vectors, strict=True)],
        )
        done += len(rows)
        advance(len(rows))


def reembed(
    store: Maintainable,
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
    m = store.maintenance
    for table in VECTOR_TABLES:
        with step_bar(progress, f"reembed {table}", counts[table]) as advance:
            report.rows[table] = reembed_table(m, embedder, table, batch_size, advance)
    report.rows["topics"] = m.refold_topics(embedder.id)
    if keys is not None and not keys.off:
        with step_bar(progress, "message keys", pending_keys(store, embedder.id)) as advance:
            report.rows["message keys"] = fill_keys(store, embedder, keys, batch_size, advance)
    return report


__all__ = ["ReembedReport", "reembed", "reembed_table", "stale_count"]
