"""Topic summaries without an LLM: an extractive summary of the messages a compaction removes.

Each sentence is scored by how many of its content words recur across the compacted messages
(``sum(df(w)) / sqrt(len(words))``, user sentences x1.2); the best few are kept in their
original order, prefixed with their speaker's role. An incremental summary appends to the
previous one and drops its oldest sentences past the length cap.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from mnemo.storage.topic_records import Entry

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)
_STOP_WORDS = (
    "the and for are but not you your yours with this that these those have has had was were "
    "will would could should can may might what when where which who whom why how all any "
    "about into over from they them their there then than also just like really very much "
    "some such its it's i'm i've don't did does doing been being our ours out get got yes "
    "okay sure thanks thank well too so"
)
_STOP = frozenset(_STOP_WORDS.split())
SEPARATOR = " | "


def sentences(text: str) -> list[str]:
    """Non-empty sentences of a message (split after . ! ? and at line breaks)."""
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


def content_words(text: str) -> list[str]:
    """Lower-case words of 3+ letters that are not stop words."""
    return [w for w in (m.group(0).lower() for m in _WORD.finditer(text)) if w not in _STOP]


def sentence_score(words: list[str], df: Counter[str], is_user: bool) -> float:
    """``sum(df[w] for distinct w) / sqrt(len(words))``, times 1.2 for a user's sentence."""
    if not words:
        return 0.0
    base = sum(df[w] for w in set(words)) / math.sqrt(len(words))
    return base * (1.2 if is_user else 1.0)


def extract(entries: list[Entry], max_sentences: int) -> list[str]:
    """The ``max_sentences`` best sentences, in conversation order, as ``role: sentence``."""
    df: Counter[str] = Counter()
    candidates: list[tuple[int, str, list[str], bool]] = []
    for e in entries:
        for s in sentences(e.content):
            words = content_words(s)
            candidates.append((len(candidates), f"{e.role}: {s}", words, e.role == "user"))
        df.update(set(content_words(e.content)))
    ranked = sorted(candidates, key=lambda c: -sentence_score(c[2], df, c[3]))
    keep = sorted(ranked[:max_sentences], key=lambda c: c[0])
    return [text for _, text, _, _ in keep]


def rules_summary(previous: str | None, entries: list[Entry], max_chars: int) -> str:
    """Summary of ``entries`` (2-6 sentences), appended to ``previous`` when given, trimmed
    from the oldest sentence to at most ``max_chars`` characters."""
    n = max(2, min(6, len(entries) // 2))
    parts = [_clip(s, max_chars // 3) for s in extract(entries, n)]
    if previous:
        parts = [p for p in previous.split(SEPARATOR) if p] + parts
    while len(parts) > 1 and len(SEPARATOR.join(parts)) > max_chars:
        parts.pop(0)
    return _clip(SEPARATOR.join(parts), max_chars)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(limit - 1, 0)].rstrip() + "…"


__all__ = ["content_words", "extract", "rules_summary", "sentence_score", "sentences"]
