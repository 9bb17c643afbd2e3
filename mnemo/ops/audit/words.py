"""The words an audit compares facts by: a fact's normal form and its content words.

A content word is a word that is not a stop word (:data:`mnemo.text.stopwords.STOPWORDS`),
not one of :data:`FILLERS` (words that say nothing about a person on their own: "User",
"really", "thing", "stuff"); a number is one ("User is 30"). Negations are kept as content: "User
does not eat meat" and "User eats meat" must never read as copies.
"""

from __future__ import annotations

import re

from mnemo.text.stopwords import STOPWORDS

_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
#: Words that deny what follows; never dropped from a comparison.
NEGATIONS = frozenset(
    ["no", "not", "nor", "never", "don", "didn", "doesn", "isn", "wasn", "weren", "won", "t"]
)
#: Words that carry nothing about a person on their own (lower case).
FILLERS = frozenset(
    """
    user user's users really actually basically just also still even always so very much
    lot lots thing things stuff something anything everything nothing someone somebody
    good great nice cool fine ok okay yes yeah yep oh ah wow well like got get gets getting
    kind sort bit little maybe guess think thinks mean means one ones way time times
    today yesterday tomorrow now then here there definitely totally sure
    """.split()  # noqa: SIM905
)
_DROPPED = (STOPWORDS | FILLERS) - NEGATIONS


def words(text: str) -> list[str]:
    """The lower-case words of ``text`` (an apostrophe's tail kept: "user's", "don't")."""
    return [w.replace("’", "'") for w in _WORD.findall(text.lower())]


def normal(text: str) -> str:
    """``text`` lower case, punctuation and extra spaces dropped: equal for exact copies."""
    return " ".join(words(text))


def content_words(text: str) -> list[str]:
    """The content words of ``text``, in order (see the module docstring); a contraction
    counts by its stem ("don't" -> "don", kept as a negation)."""
    out = []
    for w in words(text):
        stem = w.split("'")[0] if "'" in w and w not in FILLERS else w
        if stem and stem not in _DROPPED:
            out.append(stem)
    return out


def negated(text: str) -> bool:
    """Whether ``text`` holds a negation word."""
    return any(w in NEGATIONS for w in content_words(text))


__all__ = ["FILLERS", "NEGATIONS", "content_words", "negated", "normal", "words"]
