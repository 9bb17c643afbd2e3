"""Does a store's talk look English? A cheap check from common English words, for hints only.

A text of four or more words is judged English when one of them is among the common English
words below (none of them is also a common word of Spanish, German, French, Italian or
Portuguese: "a", "no", "me", "he", "has", "was", "will", "in", "an", "am", "so", "on", "see",
"her", "ya", "eh" are left out); shorter texts are not judged. Nothing is ranked or stored by
it: it only tells :meth:`mnemo.Memory.stats` when to suggest a multilingual embedder.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
_ENGLISH_WORDS = """
the of to and or but for with at by from about into than then that this these those
there here is are were be been being do does did don't doesn't didn't have had can could
would should shall might must i i'm i've i'd you you're your yours it it's its we they
them their she him his our us what what's who whom whose where when why how which any
some anything something not yes if too very just ever really my mine how's that's let's
isn't aren't wasn't won't can't wanna gonna right anyone everyone everything need want
know think like get got going tell show more new good great time work all one
"""
ENGLISH = frozenset(_ENGLISH_WORDS.split())
#: Texts shorter than this many words are not judged.
MIN_WORDS = 4


def looks_english(text: str) -> bool | None:
    """True when a text of at least :data:`MIN_WORDS` words holds a common English word,
    False when it holds none, None when it is too short to judge."""
    words = [w.lower().replace("’", "'") for w in _WORD.findall(text)]
    if len(words) < MIN_WORDS:
        return None
    return any(w in ENGLISH for w in words)


def english_share(texts: Iterable[str], min_judged: int = 10) -> float | None:
    """The share of judged texts that look English; None when fewer than ``min_judged``
    texts could be judged."""
    votes = [v for v in (looks_english(t) for t in texts) if v is not None]
    if len(votes) < min_judged:
        return None
    return sum(votes) / len(votes)


__all__ = ["ENGLISH", "MIN_WORDS", "english_share", "looks_english"]
