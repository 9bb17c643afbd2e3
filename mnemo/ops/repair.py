"""``mnemo repair``: bring the search indexes back in line with the rows (`llm-managed`'s "sync on
startup").

The rows are the truth; every index is derived from them and can drift after a crash of an
older version, a restore of a partial backup, or a hand edit of the database:

* SQLite's full-text tables (``messages_fts``, ``memories_fts``, kept by triggers): rows
  missing for a searchable turn or live memory, rows left for an evicted turn, a deleted memory
  or a row that is gone, and rows whose text or owner no longer matches. PostgreSQL derives its
  full-text vectors in generated columns, which cannot drift.
* Vectors: turns, memories and document chunks with text but no vector are embedded with the
  configured embedder (vectors of *another* embedder are ``mnemo reembed``'s job).
* Extra index keys of turns (:mod:`mnemo.ops.keyfill`): turns whose keys were never
  computed (written before keys existed, or with keys off) get them, when keys are on.
* The ``users`` rows that hold each user's cache generation: one is added for every user that
  has rows but none. Finally every generation is bumped, so cached vector indexes reload.

:func:`repair` with ``dry_run`` only counts. Each fix runs in its own transaction and is
idempotent, so a repair that is killed is simply run again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mnemo.embedders import Embedder
from mnemo.index.keys import KeySpec
from mnemo.ops.keyfill import fill_keys, pending_keys
from mnemo.ops.reembed import reembed_table
from mnemo.ops.steps import ProgressFactory, step_bar
from mnemo.storage.ports.maintenance import Maintainable


@dataclass
class RepairReport:
    """What was (or, in a dry run, would be) fixed: a count per kind of drift."""

    fixes: dict[str, int] = field(default_factory=dict)
    dry_run: bool = False

    @property
    def total(self) -> int:
        """Fixes of every kind."""
        return sum(self.fixes.values())


def missing_vectors(store: Maintainable) -> dict[str, int]:
    """Rows per table with text but no vector."""
    return store.maintenance.missing_counts()


def repair(
    store: Maintainable,
    embedder: Embedder,
    dry_run: bool = False,
    batch_size: int = 256,
    progress: ProgressFactory | None = None,
    keys: KeySpec | None = None,
) -> RepairReport:
    """Find, and unless ``dry_run`` fix, every drift described in the module docstring."""
    report = RepairReport(dry_run=dry_run)
    m = store.maintenance
    report.fixes.update(m.repair_rows(dry_run))  # full-text tables (SQLite), users rows
    for table, n in missing_vectors(store).items():
        report.fixes[f"{table} vectors missing"] = n
        if n and not dry_run:
            with step_bar(progress, f"embed {table}", n) as advance:
                reembed_table(m, embedder, table, batch_size, advance, missing=True)
    if keys is not None and not keys.off:
        n = report.fixes["message keys missing"] = pending_keys(store, embedder.id)
        if n and not dry_run:
            with step_bar(progress, "message keys", n) as advance:
                fill_keys(store, embedder, keys, batch_size, advance)
    if report.total and not dry_run:
        m.bump_generations()
    return report


__all__ = ["RepairReport", "missing_vectors", "repair"]
