"""BM25 over PostgreSQL full text, so lexical scores mean what SQLite FTS5's bm25() means.

PostgreSQL's own ``ts_rank`` has no inverse document frequency: in an OR query over many
words, a word in every turn counts as much as a rare name, which cost 0.06 of LoCoMo R@10 (see
docs/scaling.md). Here the GIN index finds the candidate rows (any query lexeme), PostgreSQL
returns each candidate's term frequencies and length, and :func:`bm25` scores them with FTS5's
formula. Statistics (row count, mean length, document frequency) are the user's own rows in
that table, so one tenant's text never shifts another's scores.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from psycopg import sql

from mnemo.storage.scope import ReadScope
from mnemo.storage.sql import scoping
from mnemo.storage.sql.dialect import POSTGRES

if TYPE_CHECKING:
    from mnemo.storage.postgres.conn import Conn

K1 = 1.2
B = 0.75
#: FTS5 floors the idf of a word in more than half the rows at this (so it still counts).
MIN_IDF = 1e-6


def bm25(
    tf: np.ndarray,
    df: np.ndarray,
    n_docs: int,
    doc_len: np.ndarray,
    avg_len: float,
    k1: float = K1,
    b: float = B,
) -> np.ndarray:
    """BM25 of each document (row of ``tf``) for the query terms (columns), as FTS5 computes it:

    score(d) = sum_t idf(t) * tf(t,d) * (k1 + 1) / (tf(t,d) + k1 * (1 - b + b * |d| / avgdl))
    idf(t)   = max(log((N - df(t) + 0.5) / (df(t) + 0.5)), 1e-6)

    ``tf``: (docs, terms) counts; ``df``: (terms,); ``N`` = ``n_docs``; ``|d|`` = ``doc_len``.
    """
    tf = np.asarray(tf, dtype=np.float64)
    if tf.size == 0:
        return np.zeros(tf.shape[0])
    idf = inverse_frequency(np.asarray(df, dtype=np.float64), n_docs)
    norm = k1 * (1.0 - b + b * np.asarray(doc_len, dtype=np.float64) / max(avg_len, 1e-9))
    return np.asarray(((tf * (k1 + 1.0)) / (tf + norm[:, None])) @ idf)


def inverse_frequency(df: np.ndarray, n_docs: int) -> np.ndarray:
    """idf(t) = max(log((N - df(t) + 0.5) / (df(t) + 0.5)), 1e-6) per term, as FTS5's."""
    return np.maximum(np.log((n_docs - df + 0.5) / (df + 0.5)), MIN_IDF)


@dataclass
class MatchingRows:
    """Rows that hold any query lexeme, with what BM25 needs and which of them the search's
    scope keeps."""

    rowids: np.ndarray
    tf: np.ndarray  # (rows, terms)
    doc_len: np.ndarray
    n_docs: int
    avg_len: float
    #: whether each row is in the scope's narrowing (session, kinds, agent view, filter)
    keep: np.ndarray | None = None


def query_lexemes(c: Conn, terms: list[str]) -> list[str]:
    """The distinct English lexemes of the query terms (stemmed, stopwords dropped)."""
    row = c.execute(
        "SELECT coalesce(array_agg(DISTINCT lexeme ORDER BY lexeme), '{}') AS lx"
        " FROM unnest(to_tsvector('english', %s))",
        (" ".join(terms),),
    ).fetchone()
    return list(row["lx"]) if row else []


def _mine(scope: ReadScope, table: int, alias: str = "") -> scoping.Where:
    """The owner's live rows of ``table`` (the rows BM25's statistics count)."""
    return scoping.owner(scope, POSTGRES, alias) & scoping.live(scope, table, POSTGRES, alias)


def candidates(c: Conn, table: int, scope: ReadScope, lexemes: list[str]) -> MatchingRows:
    """Every live row of the scope's user in ``table`` holding a lexeme (not expired at the
    scope's ``live_at``), and the user's statistics; whether each row is in the scope's
    narrowing (``keep``: session, kinds, agent view, filter).

    Term frequency is the number of positions of the lexeme in the row's ``fts``; length is
    the row's lexeme count (``length(fts)``), for rows and for the mean alike. The narrowing
    chooses which candidates may be returned, not the statistics.
    """
    mine, mine_m = _mine(scope, table), _mine(scope, table, "m")
    narrow = scoping.narrowing(scope, table, POSTGRES, "m")
    keep = f"coalesce({narrow.sql or 'TRUE'}, FALSE)"  # two-valued: a NULL session is no match
    query = sql.SQL(
        "WITH q AS (SELECT to_tsquery('simple', string_agg(quote_literal(l), ' | ')) AS q"
        " FROM unnest(%s::text[]) l),"
        " stats AS (SELECT count(*) AS n, coalesce(avg(length(fts)), 0) AS avg_len FROM {t}"
        " WHERE {mine})"
        " SELECT m.rowid, {keep} AS keep,"
        " length(m.fts) AS dl, stats.n, stats.avg_len,"
        " ARRAY(SELECT coalesce((SELECT array_length(u.positions, 1) FROM unnest(m.fts) u"
        " WHERE u.lexeme = l.l), 0) FROM unnest(%s::text[]) WITH ORDINALITY AS l(l, i)"
        " ORDER BY l.i) AS tf"
        " FROM {t} m, q, stats WHERE {mine_m} AND m.fts @@ q.q"
    ).format(
        t=sql.Identifier(scoping.TABLES[table]),
        mine=sql.SQL(mine.sql),
        mine_m=sql.SQL(mine_m.sql),
        keep=sql.SQL(keep),
    )
    args = [lexemes, *mine.args, *narrow.args, lexemes, *mine_m.args]
    rows = c.execute(query, args).fetchall()
    n = len(rows)
    first = rows[0] if rows else {"n": 0, "avg_len": 0}
    return MatchingRows(
        rowids=np.fromiter((r["rowid"] for r in rows), dtype=np.int64, count=n),
        tf=np.array([r["tf"] for r in rows], dtype=np.float64).reshape(n, len(lexemes)),
        doc_len=np.fromiter((r["dl"] for r in rows), dtype=np.float64, count=n),
        n_docs=int(first["n"]),
        avg_len=float(first["avg_len"]),
        keep=np.fromiter((bool(r["keep"]) for r in rows), dtype=bool, count=n),
    )


def ranked(cands: MatchingRows, limit: int) -> list[tuple[int, float]]:
    """(rowid, BM25) of the best ``limit`` candidates the scope keeps, best first.

    Document frequencies count every candidate of the user (the narrowing only chooses which
    rows are returned), as FTS5's statistics cover its whole table.
    """
    df = (cands.tf > 0).sum(axis=0)
    scores = bm25(cands.tf, df, cands.n_docs, cands.doc_len, cands.avg_len)
    keep = np.ones(len(cands.rowids), dtype=bool) if cands.keep is None else cands.keep
    idx = np.flatnonzero(keep)
    order = idx[np.lexsort((cands.rowids[idx], -scores[idx]))][:limit]
    return [(int(cands.rowids[i]), float(scores[i])) for i in order]


def idf_total(c: Conn, table: int, scope: ReadScope, lexemes: list[str]) -> float:
    """Sum over ``lexemes`` of their idf among the live rows of the scope's user in
    ``table``: the statistics :func:`ranked` scores with (``N`` the user's live rows, ``df``
    those holding the lexeme)."""
    if not lexemes:
        return 0.0
    mine = _mine(scope, table)
    query = sql.SQL(
        "SELECT (SELECT count(*) FROM {t} WHERE {mine}) AS n,"
        " ARRAY(SELECT (SELECT count(*) FROM {t} WHERE {mine}"
        " AND fts @@ to_tsquery('simple', quote_literal(l.l)))"
        " FROM unnest(%s::text[]) WITH ORDINALITY AS l(l, i) ORDER BY l.i) AS df"
    ).format(t=sql.Identifier(scoping.TABLES[table]), mine=sql.SQL(mine.sql))
    row = c.execute(query, [*mine.args, *mine.args, lexemes]).fetchone()
    if row is None:
        return 0.0
    df = np.array(row["df"], dtype=np.float64)
    return float(inverse_frequency(df, int(row["n"])).sum())
