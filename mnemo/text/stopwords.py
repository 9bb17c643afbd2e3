"""The stop words: common English function words a lexical query leaves out.

They carry little evidence and slow OR queries down. :func:`mnemo.retrieval.lexical.query_terms`
drops them from a query, and SQLite's full text leaves out the query terms that its stemmer
turns into one of them (:mod:`mnemo.storage.sqlite.fts_terms`).
"""

from __future__ import annotations

#: Common English function words, lower case.
STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself no nor not of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your yours
    yourself yourselves s t don didn doesn isn wasn weren won ll re ve d m o y
    """.split()  # noqa: SIM905
)

__all__ = ["STOPWORDS"]
