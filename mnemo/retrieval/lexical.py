"""Turning free text into a safe FTS5 query.

User text never reaches FTS5 syntax: it is cut into word tokens, each token is quoted as a
phrase, and the phrases are joined with OR. Quotes, operators (AND, OR, NOT, NEAR, ``*``,
``col:``), unicode and empty input are therefore all harmless.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"\w+", re.UNICODE)

#: Common English function words; they carry little evidence and slow OR queries down.
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

MAX_TERMS = 48


def query_terms(text: str, max_terms: int = MAX_TERMS) -> list[str]:
    """Distinct lower-case word tokens of ``text`` without stopwords (all tokens if only those)."""
    tokens = [t.lower() for t in _TOKEN.findall(text)]
    tokens = [t.replace("_", " ").strip() for t in tokens]
    tokens = [t for t in tokens if t]
    content = [t for t in tokens if t not in STOPWORDS]
    chosen = content or tokens
    return list(dict.fromkeys(chosen))[:max_terms]


def match_expression(terms: list[str]) -> str | None:
    """An FTS5 MATCH expression OR-ing the quoted terms over the ``text`` column, or None."""
    if not terms:
        return None
    quoted = ['"' + t.replace('"', '""') + '"' for t in terms]
    return "text : (" + " OR ".join(quoted) + ")"
