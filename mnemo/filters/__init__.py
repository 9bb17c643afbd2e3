"""Filters: one language for search, context, list, count and deletes (mem0's syntax).

``parse_filter({"AND": [{"category": "work"}, {"priority": {"gte": 5}}]})`` checks a filter
and returns its typed tree (:mod:`~mnemo.filters.nodes`); :func:`matches` decides a row in
Python (:mod:`~mnemo.filters.evaluate`, which also states the semantics); :func:`to_sql`
turns the tree into a ``WHERE`` fragment with bound parameters for SQLite or PostgreSQL
(:mod:`~mnemo.filters.sql`). The syntax is in :mod:`~mnemo.filters.parse`, the size limits
in :mod:`~mnemo.filters.limits`.

How it is wired into storage (issue 24), so that a filter applies *before* ranking takes its
top k and a search whose filter matches 500 rows still returns a full page:

1. The facade parses once: ``Memory.search/context/list/list_page/messages/count/delete_all
   (..., filters=)`` call :func:`parse_where` before anything runs (a bad filter is a
   ValidationError / HTTP 422 and changes nothing) and pass the tree down on the read's
   scope (``storage.scope.ReadScope.where``, carried by
   ``retrieval.request.RetrievalRequest.scope`` and ``storage.base.ListFilter.scope``).
2. The store compiles it with the rest of the scope (``storage/sql/scoping.py``: the
   parenthesised fragment after the owner, liveness and narrowing conditions, with the
   table's :class:`Columns`; on PostgreSQL the jsonb copies of migration 0012). The owner
   conditions stay first and are never built from the filter, so a filter only narrows the
   caller's scope.
3. Where it goes:
   * lexical and dense candidates: each retriever reads its own ranking best first and keeps
     the rows that match (:mod:`~mnemo.filters.walk`: the store is asked about a few hundred
     rows, ``matching_among``; past 4,096 rows the filtered ranking runs once: the FTS5
     query with the fragment in its ``WHERE``, the vector index masked by every matching
     rowid, ``matching_rowids``); PostgreSQL's BM25 marks each full-text candidate with the
     scope's narrowing, filter included (``keep``), before it ranks them;
   * ``list`` / ``count`` / pages and ``delete_all``: the same ``WHERE``, so the count and
     the pages agree and a delete removes exactly what a list shows;
   * turns (``messages``) use ``MESSAGES``: ``kind`` is ``message`` there, and fields a turn
     lacks (tags, updated_at) are absent, so ``{"tags": "x"}`` selects no turn.
4. Cost: measured by ``bench/filters.py`` (docs/benchmarks.md, "Filters").
5. Profile facts are not filtered rows; a context with a filter leaves them out unless the
   filter accepts a row of kind ``profile`` (``context/filtered.py``).
"""

from mnemo.filters.evaluate import matches
from mnemo.filters.nodes import EVERYTHING, And, Condition, Field, Filter, Not, Or
from mnemo.filters.parse import parse_filter, parse_where
from mnemo.filters.sql import MEMORIES, MESSAGES, Columns, Fragment, to_sql

__all__ = [
    "EVERYTHING",
    "MEMORIES",
    "MESSAGES",
    "And",
    "Columns",
    "Condition",
    "Field",
    "Filter",
    "Fragment",
    "Not",
    "Or",
    "matches",
    "parse_filter",
    "parse_where",
    "to_sql",
]
