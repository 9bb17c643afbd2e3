"""A query's lexical terms: the words a full-text search looks for.

User text never reaches a backend's query syntax as such: it is cut into word tokens, lower
cased, without stop words (:data:`~mnemo.text.stopwords.STOPWORDS`) unless it holds nothing
else, and each backend writes the terms in its own syntax (SQLite: quoted FTS5 phrases OR-ed
together, :mod:`mnemo.storage.sqlite.fts_terms`; PostgreSQL: English lexemes). Quotes,
operators (AND, OR, NOT, NEAR, ``*``, ``col:``), unicode and empty input are therefore all
harmless.
"""

from __future__ import annotations

import re

from mnemo.text.stopwords import STOPWORDS

_TOKEN = re.compile(r"\w+", re.UNICODE)

#: The most terms a query searches (the first ones).
MAX_TERMS = 48


def query_terms(text: str, max_terms: int = MAX_TERMS) -> list[str]:
    """Distinct lower-case word tokens of ``text`` without stopwords (all tokens if only those)."""
    tokens = [t.lower() for t in _TOKEN.findall(text)]
    tokens = [t.replace("_", " ").strip() for t in tokens]
    tokens = [t for t in tokens if t]
    content = [t for t in tokens if t not in STOPWORDS]
    chosen = content or tokens
    return list(dict.fromkeys(chosen))[:max_terms]


__all__ = ["MAX_TERMS", "STOPWORDS", "query_terms"]
