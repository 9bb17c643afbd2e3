"""The SQLite store's full text: FTS5 with bm25.

``lexical`` runs an FTS5 ``MATCH`` of the query's searchable terms
(:mod:`mnemo.storage.sqlite.fts_terms`) over ``messages_fts`` and ``memories_fts``, confined to one
owner by the ``owner`` column the triggers write (:func:`owner_token`). Vectors, hit fields and
the rest of the search port are the shared :class:`~mnemo.storage.sql.search.SQLSearch`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from mnemo.filters import walk
from mnemo.storage.base import MEMORY, MESSAGE, Ref
from mnemo.storage.sql import scoping
from mnemo.storage.sql.dialect import SQLITE
from mnemo.storage.sql.role import StoreCore
from mnemo.storage.sql.search import LexicalQuery, SQLSearch
from mnemo.storage.sqlite import fts_stats, fts_terms
from mnemo.storage.sqlite.conn import Connections


def owner_token(tenant: str, user_id: str) -> str:
    """The FTS token that confines a query to one (tenant, user), as the triggers write it."""
    return "o" + (tenant + "\x1f" + user_id).encode("utf-8").hex().upper()


Found = list[tuple[Ref, float]]


class SQLiteSearch(SQLSearch):
    """:class:`~mnemo.storage.ports.search.SearchSource` over one SQLite file (the search role
    of :class:`~mnemo.storage.sqlite.store.SQLiteStore`)."""

    def __init__(self, core: StoreCore, db: Connections) -> None:
        super().__init__(core)
        self.db = db

    def bm25(self, q: LexicalQuery) -> list[tuple[Ref, float]]:
        """BM25 candidates for the query's searchable terms (:func:`fts_terms.searchable`)
        over messages and memories. With a filter, each table's best matching rows are read
        best first (:func:`mnemo.filters.walk.best_matching`: the unfiltered ranking's rows
        asked about, the filtered query once past its limit)."""
        match = fts_terms.match_expression(fts_terms.searchable(q.terms))
        if match is None:
            return []
        c = self.db.get()
        scope = q.scope
        owners = c.execute("SELECT tenant, user_id FROM users LIMIT 2").fetchall()
        if [tuple(o) for o in owners] == [(scope.tenant, scope.user_id)]:
            query = match  # the only owner: confining to it would cost a full doclist read
        else:
            assert scope.user_id is not None
            query = f'owner : "{owner_token(scope.tenant, scope.user_id)}" AND ({match})'
        out: list[tuple[Ref, float]] = []
        for table, wanted in ((MESSAGE, scope.turns), (MEMORY, scope.memories)):
            if wanted:
                out += self._table(c, table, q, query)
        return out

    def _table(self, c: Any, table: int, q: LexicalQuery, query: str) -> Found:
        """One table's BM25 candidates (see :meth:`bm25`); rows outside the query's scope
        (expired at its time, not in its agent view...) are never among them, filter or
        not."""

        def ranked(limit: int, filtered: bool = False) -> Found:
            sql, args = self._statement(table, q, query, filtered)
            return [((table, r[0]), r[1]) for r in c.execute(sql, [*args, limit])]

        if q.scope.filter is None:
            return ranked(q.limit)

        def keep(rows: Sequence[tuple[Ref, float]]) -> list[bool]:
            ok = self.matching_among(q.scope, [ref for ref, _ in rows])
            return [ref in ok for ref, _ in rows]

        def scan() -> Found:
            return ranked(q.limit, True)

        return walk.best_matching(ranked, keep, q.limit, scan)

    @staticmethod
    def _statement(
        table: int, q: LexicalQuery, query: str, filtered: bool
    ) -> tuple[str, list[Any]]:
        """The FTS5 query of one table (its ``LIMIT ?`` last, unbound) and its arguments: the
        rows of the query's scope (:mod:`mnemo.storage.sql.scoping`), its filter only when
        ``filtered``. The full-text tables hold no evicted turn and no deleted memory (their
        triggers take them out), so of liveness only the expiry is tested."""
        scope = replace(q.scope if filtered else q.scope.unfiltered(), evicted=True, deleted=True)
        if table == MEMORY:
            where = scoping.live(scope, MEMORY, SQLITE, "m")
            where &= scoping.narrowing(scope, MEMORY, SQLITE, "m")
            sql = (
                "SELECT f.rowid, -bm25(memories_fts, 1.0, 0.0) FROM memories_fts f"
                f" JOIN memories m ON m.rowid = f.rowid WHERE memories_fts MATCH ?{where.suffix}"
            )
            return sql + " ORDER BY bm25(memories_fts, 1.0, 0.0) LIMIT ?", [query, *where.args]
        sql = (
            "SELECT f.rowid, -bm25(messages_fts, 1.0, 0.0) FROM messages_fts f"
            " WHERE messages_fts MATCH ?"
        )
        sql += " AND f.rowid NOT IN (SELECT rowid FROM messages WHERE tenant=? AND user_id=?"
        sql += " AND expires_at <= ?)"  # the user's expired turns: an index range, often empty
        args: list[Any] = [query, scope.tenant, scope.user_id, scope.live_at]
        # the session and the filter through the user's index; the agent view row by row
        indexed = scoping.narrowing(replace(scope, agents=None), MESSAGE, SQLITE)
        if indexed:
            where = scoping.owner(scope, SQLITE) & indexed
            sql += f" AND f.rowid IN (SELECT rowid FROM messages WHERE {where.sql})"
            args += where.args
        seen = scoping.agent_where(scope.agents, SQLITE, "m.agent_id")
        if seen:
            sql += f" AND EXISTS (SELECT 1 FROM messages m WHERE m.rowid = f.rowid AND {seen.sql})"
            args += seen.args
        return sql + " ORDER BY bm25(messages_fts, 1.0, 0.0) LIMIT ?", args

    def lexical_idf(self, tenant: str, user_id: str, terms: list[str]) -> dict[int, float]:
        """Sum of the bm25 idf of the query's searchable terms (those :meth:`bm25` searches,
        :func:`fts_terms.searchable`) in each full-text table (MESSAGE, MEMORY).

        FTS5 takes its statistics over the whole table, every owner's rows, so ``tenant`` and
        ``user_id`` do not change the result (see :mod:`mnemo.storage.sqlite.fts_stats`).
        """
        terms = fts_terms.searchable(terms)
        c = self.db.get()
        return {
            MESSAGE: fts_stats.idf_total(c, "messages_fts", terms),
            MEMORY: fts_stats.idf_total(c, "memories_fts", terms),
        }
