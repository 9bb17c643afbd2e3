"""Whether what an LLM wrote is grounded in what it read: a shared content word.

A small model invents facts from small talk ("Hi! How are you?" -> "User is working on a
project") and rewrites an unrelated fact when told to update one. Both are caught by one rule:
two texts are related when they share a content word, compared on its first
:data:`STEM_CHARS` letters (so "paint" meets "painting"), leaving out stop words and "user".

>>> related("User teaches math in Leeds", "I teach math in Leeds")
True
>>> related("User is working on a project", "Hi! How are you today?")
False
"""

from __future__ import annotations

import re

from mnemo.text.stopwords import STOPWORDS

#: Letters of a word compared (a crude stem).
STEM_CHARS = 5
_WORD = re.compile(r"[^\W_]+")
_IGNORED = STOPWORDS | {"user", "users"}


def content_stems(text: str) -> set[str]:
    """The stems of the content words of ``text``."""
    return {w[:STEM_CHARS] for w in _WORD.findall(text.lower()) if w not in _IGNORED}


def related(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` share a content word."""
    return bool(content_stems(a) & content_stems(b))


__all__ = ["STEM_CHARS", "content_stems", "related"]
