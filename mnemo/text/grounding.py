"""Whether what an LLM wrote is grounded in what it read, by the content words they share.

A small model invents facts from small talk ("Hi! How are you?" -> "User is working on a
project"), copies the prompt's own examples ("User lives in Lyon.") and rewrites an unrelated
fact when told to update one. Words are compared on their first :data:`STEM_CHARS` letters
(so "live" meets "lives" and "paint" "painting"), leaving out stop words and "user".

- :func:`grounded`: at least :data:`GROUNDED_SHARE` of a fact's content words occur in the
  message it was drawn from; numbers and month names do not count, since the prompt asks for
  relative dates to be resolved ("next month" -> "June 2024").
- :func:`related`: two texts share a content word.

>>> grounded("User teaches math in Leeds", "I teach math in Leeds")
True
>>> grounded("User lives in Lyon.", "Sounds great, John! It must feel incredible.")
False
>>> related("User is a pilot", "User teaches math")
False
"""

from __future__ import annotations

import re

from mnemo.text.months import MONTH_WORDS
from mnemo.text.stopwords import STOPWORDS

#: Letters of a word compared (a crude stem).
STEM_CHARS = 4
#: Share of a fact's content words its message must hold.
GROUNDED_SHARE = 0.5
_WORD = re.compile(r"[^\W_]+")
_IGNORED = STOPWORDS | {"user", "users"}
_MONTHS = MONTH_WORDS


def content_stems(text: str) -> set[str]:
    """The stems of the content words of ``text``."""
    return {w[:STEM_CHARS] for w in _WORD.findall(text.lower()) if w not in _IGNORED}


def grounded(fact: str, message: str, share: float = GROUNDED_SHARE) -> bool:
    """True when at least ``share`` of ``fact``'s content words (numbers and months left out)
    occur in ``message``; a fact with none left is grounded."""
    words = {w for w in _WORD.findall(fact.lower()) if w not in _IGNORED}
    stems = {w[:STEM_CHARS] for w in words if not w.isdigit() and w not in _MONTHS}
    if not stems:
        return True
    return len(stems & content_stems(message)) >= share * len(stems)


def related(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` share a content word."""
    return bool(content_stems(a) & content_stems(b))


__all__ = ["GROUNDED_SHARE", "STEM_CHARS", "content_stems", "grounded", "related"]
