"""``mnemo repair``: bring the search indexes back in line with the rows (seed 001's "sync on
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
from typing import Any

from mnemo.embedders import Embedder
from mnemo.index.keys import KeySpec
from mnemo.ops.common import ProgressFactory, bar, store_db
from mnemo.ops.keyfill import fill_keys, pending_keys
from mnemo.ops.reembed import MISSING, TABLES, reembed_table
from mnemo.storage.base import Store

OWNER = "'o' || hex(t.tenant || char(31) || t.user_id)"
#: Full-text tables: fts table -> (row table, condition for a searchable row, indexed text).
FTS = {
    "messages_fts": (
        "messages",
        "t.evicted_at IS NULL",
        "coalesce(t.name || ': ', '') || t.content",
    ),
    "memories_fts": ("memories", "t.deleted_at IS NULL", "t.content"),
}


@dataclass
class RepairReport:
    """What was (or, in a dry run, would be) fixed: a count per kind of drift."""

    fixes: dict[str, int] = field(default_factory=dict)
    dry_run: bool = False

    @property
    def total(self) -> int:
        """Fixes of every kind."""
        return sum(self.fixes.values())


def _fts_queries(fts: str) -> dict[str, str]:
    """Statements selecting the rowids of each kind of drift in one full-text table."""
    table, live, text = FTS[fts]
    return {
        "missing": f"SELECT t.rowid FROM {table} t WHERE {live}"
        f" AND NOT EXISTS (SELECT 1 FROM {fts} f WHERE f.rowid = t.rowid)",
        "extra": f"SELECT f.rowid FROM {fts} f WHERE NOT EXISTS"
        f" (SELECT 1 FROM {table} t WHERE t.rowid = f.rowid AND {live})",
        "stale": f"SELECT t.rowid FROM {table} t JOIN {fts} f ON f.rowid = t.rowid"
        f" WHERE {live} AND (f.text IS NOT {text} OR f.owner IS NOT {OWNER})",
    }


def repair_fts(c: Any, fts: str, dry_run: bool) -> dict[str, int]:
    """Count, and unless ``dry_run`` fix, the drift of one SQLite full-text table."""
    table, _, text = FTS[fts]
    out = {}
    for kind, query in _fts_queries(fts).items():
        rowids = [r[0] for r in c.execute(query).fetchall()]
        out[f"{fts} {kind}"] = len(rowids)
        if dry_run or not rowids:
            continue
        for start in range(0, len(rowids), 500):
            chunk = rowids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            c.execute(f"DELETE FROM {fts} WHERE rowid IN ({marks})", chunk)
            if kind != "extra":
                c.execute(
                    f"INSERT INTO {fts} (rowid, text, owner) SELECT t.rowid, {text}, {OWNER}"
                    f" FROM {table} t WHERE t.rowid IN ({marks})",
                    chunk,
                )
    return out


def repair_users(c: Any, dry_run: bool) -> int:
    """Add the missing ``users`` rows (created at the user's first turn or memory)."""
    found = "SELECT tenant, user_id, min(created_at) FROM {t} GROUP BY tenant, user_id"
    missing: dict[tuple[str, str], str] = {}
    for table in ("messages", "memories"):
        for tenant, user, first in c.execute(found.format(t=table)).fetchall():
            known = c.execute(
                "SELECT 1 FROM users WHERE tenant=? AND user_id=?", (tenant, user)
            ).fetchone()
            if known is None:
                key = (tenant, user)
                missing[key] = min(first, missing.get(key, first))
    if not dry_run:
        for (tenant, user), first in missing.items():
            c.execute(
                "INSERT INTO users (tenant, user_id, generation, created_at) VALUES (?,?,0,?)",
                (tenant, user, first),
            )
    return len(missing)


def missing_vectors(store: Store) -> dict[str, int]:
    """Rows per table with text but no vector."""
    with store_db(store).read() as c:
        return {
            t: int(c.execute(f"SELECT count(*) FROM {t} WHERE {MISSING}", ("x",)).fetchone()[0])
            for t in TABLES
        }


def repair(
    store: Store,
    embedder: Embedder,
    dry_run: bool = False,
    batch_size: int = 256,
    progress: ProgressFactory | None = None,
    keys: KeySpec | None = None,
) -> RepairReport:
    """Find, and unless ``dry_run`` fix, every drift described in the module docstring."""
    report = RepairReport(dry_run=dry_run)
    db = store_db(store)
    with db.write() as c:
        if not hasattr(store, "compat"):  # SQLite: the trigger-kept full-text tables
            for fts in FTS:
                report.fixes.update(repair_fts(c, fts, dry_run))
        report.fixes["users missing"] = repair_users(c, dry_run)
    for table, n in missing_vectors(store).items():
        report.fixes[f"{table} vectors missing"] = n
        if n and not dry_run:
            with bar(progress, f"embed {table}", n) as advance:
                reembed_table(store, embedder, table, batch_size, advance, MISSING)
    if keys is not None and not keys.off:
        n = report.fixes["message keys missing"] = pending_keys(store, embedder.id)
        if n and not dry_run:
            with bar(progress, "message keys", n) as advance:
                fill_keys(store, embedder, keys, batch_size, advance)
    if report.total and not dry_run:
        with db.write() as c:
            c.execute("UPDATE users SET generation = generation + 1")
    return report


__all__ = ["FTS", "RepairReport", "missing_vectors", "repair", "repair_fts", "repair_users"]
