"""The query terms SQLite's full text can search, and their FTS5 ``MATCH`` expression.

The index stems with FTS5's Porter tokenizer and keeps every word, stop words too. A query
term whose stem is a stop word's stem ("Ines" and "Inês" stem to "in", "ones" to "on", "ate"
to "at", "Doe" to "doe" as "does" does) would match every row holding that stop word, and
the index cannot tell the two apart: :func:`searchable` leaves such terms out. A term that is
itself a stop word stays (a query of stop words only searches them, see
:func:`mnemo.retrieval.lexical.query_terms`), and so does a term of several tokens (a phrase).

The stems are FTS5's own: terms are tokenized by an in-memory FTS5 table with the store's
tokenizer (:data:`TOKENIZER`, as migration 0001 declares it), so no second stemmer can
disagree with the index. PostgreSQL needs no such rule: its ``english`` configuration drops
stop words before stemming, from rows and queries alike, so a lexeme never meets one there.
"""

from __future__ import annotations

import functools
import sqlite3
import threading
from collections.abc import Sequence

from mnemo.text.stopwords import STOPWORDS

#: The tokenizer of ``messages_fts`` and ``memories_fts`` (migration 0001).
TOKENIZER = "porter unicode61 remove_diacritics 2"


class Tokenizer:
    """FTS5's tokens of short texts under :data:`TOKENIZER`, read from an in-memory table
    (one connection, used by one thread at a time; nothing is ever committed)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.execute(f"CREATE VIRTUAL TABLE t USING fts5 (text, tokenize = '{TOKENIZER}')")
        self._db.execute("CREATE VIRTUAL TABLE v USING fts5vocab (t, 'instance')")

    def tokens(self, texts: Sequence[str]) -> list[list[str]]:
        """The index tokens (stems) of each text, in order."""
        out: list[list[str]] = [[] for _ in texts]
        if not texts:
            return out
        with self._lock:
            try:
                self._db.executemany(
                    "INSERT INTO t (rowid, text) VALUES (?, ?)", enumerate(texts, start=1)
                )
                for doc, term in self._db.execute("SELECT doc, term FROM v ORDER BY doc, offset"):
                    out[doc - 1].append(term)
            finally:
                self._db.rollback()
        return out


@functools.cache
def tokenizer() -> Tokenizer:
    """The process's :class:`Tokenizer`."""
    return Tokenizer()


@functools.cache
def stop_stems() -> frozenset[str]:
    """The index tokens of the stop words ("in", "on", "at", "wa" of "was", "doe" of
    "does", ...)."""
    return frozenset(s for tokens in tokenizer().tokens(sorted(STOPWORDS)) for s in tokens)


def searchable(terms: list[str]) -> list[str]:
    """``terms`` without those the index would match with a stop word: one token whose stem
    is a stop word's, the term not itself a stop word (see the module docstring)."""
    stops = stop_stems()
    return [
        term
        for term, tokens in zip(terms, tokenizer().tokens(terms), strict=True)
        if term in STOPWORDS or len(tokens) != 1 or tokens[0] not in stops
    ]


def match_expression(terms: list[str]) -> str | None:
    """An FTS5 MATCH expression OR-ing the quoted terms over the ``text`` column, or None."""
    if not terms:
        return None
    quoted = ['"' + t.replace('"', '""') + '"' for t in terms]
    return "text : (" + " OR ".join(quoted) + ")"


__all__ = ["TOKENIZER", "Tokenizer", "match_expression", "searchable", "stop_stems", "tokenizer"]
