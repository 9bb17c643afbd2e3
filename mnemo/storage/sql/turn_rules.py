"""Turns whose stored kind and name cues (:mod:`mnemo.text.turn_rules`) are missing or were
made by other rules: found through the ``messages_turn_rules`` index and computed again.

A store runs :func:`refresh` when it opens (:class:`~mnemo.storage.sql.maintenance.
SQLMaintenance`'s ``refresh_turn_rules``): after migration 0014 it computes every turn written
before the columns existed, and after a bump of ``TURN_RULES_VERSION`` every turn again. The
rules run outside the write transactions, ``size`` turns at a time, so a killed run resumes
where it stopped; with nothing to do it costs one index probe.
"""

from __future__ import annotations

from mnemo.storage.sql.tx import Transactions
from mnemo.text.turn_rules import TURN_RULES_VERSION, derive

#: Turns whose stored values are not the current rules' (NULL: never computed). Spelled as
#: ranges so both backends answer it from the index.
STALE = (
    f"(turn_rules IS NULL OR turn_rules < {TURN_RULES_VERSION}"
    f" OR turn_rules > {TURN_RULES_VERSION})"
)


def stale_count(tx: Transactions) -> int:
    """How many turns :func:`refresh` would compute."""
    with tx.read() as c:
        return int(c.execute(f"SELECT count(*) FROM messages WHERE {STALE}").fetchone()[0])


def refresh(tx: Transactions, size: int = 256) -> int:
    """Compute and store the kind and cues of every stale turn; returns how many."""
    done = 0
    while True:
        with tx.read() as c:
            found = c.execute(
                f"SELECT rowid, role, content FROM messages WHERE {STALE} LIMIT {c.dialect.mark}",
                (size,),
            ).fetchall()
        if not found:
            return done
        params = []
        for rowid, role, content in (tuple(r) for r in found):
            rules = derive(role, content)
            params.append((rules.version, rules.kind, rules.cues_text, rowid))
        with tx.write() as c:
            q = c.dialect.mark
            c.executemany(
                f"UPDATE messages SET turn_rules={q}, turn_kind={q}, name_cues={q} WHERE rowid={q}",
                params,
            )
        done += len(found)


__all__ = ["STALE", "refresh", "stale_count"]
