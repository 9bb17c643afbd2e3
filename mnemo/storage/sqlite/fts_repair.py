"""Drift of SQLite's trigger-kept full-text tables (``messages_fts``, ``memories_fts``).

Rows can be missing for a searchable turn or live memory, left for an evicted turn, a deleted
memory or a row that is gone, or hold text or an owner that no longer matches their row.
PostgreSQL derives its full-text vectors in generated columns, which cannot drift.
"""

from __future__ import annotations

from mnemo.storage.base import MEMORY, MESSAGE
from mnemo.storage.sql.scoping import kept
from mnemo.storage.sql.tx import Tx

OWNER = "'o' || hex(t.tenant || char(31) || t.user_id)"
#: Full-text tables: fts table -> (row table, condition for a searchable row, indexed text).
FTS = {
    "messages_fts": (
        "messages",
        kept(MESSAGE, "t"),
        "coalesce(t.name || ': ', '') || t.content",
    ),
    "memories_fts": ("memories", kept(MEMORY, "t"), "t.content"),
}


def _queries(fts: str) -> dict[str, str]:
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


def repair_fts_table(c: Tx, fts: str, dry_run: bool) -> dict[str, int]:
    """Count, and unless ``dry_run`` fix, the drift of one full-text table."""
    table, _, text = FTS[fts]
    out = {}
    for kind, query in _queries(fts).items():
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


def repair_fts(c: Tx, dry_run: bool) -> dict[str, int]:
    """Drift of every full-text table (see :func:`repair_fts_table`)."""
    out: dict[str, int] = {}
    for fts in FTS:
        out.update(repair_fts_table(c, fts, dry_run))
    return out
